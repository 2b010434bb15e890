#!/usr/bin/env bash
# Compare what the guests measured with what history predicts. The
# parsing and the rules are labhost/results.py; this maps steps to files.
#   verdicts.sh check STEP [--run RUN]
#                            one "ok"/"not ok" line per expected run and
#                            per plan check; exits non-zero if any differs
#                            (RUN: the transcript of boot.sh --run RUN)
#   verdicts.sh matrix       the outcome matrix of every step that has
#                            run, also written to build/matrix.txt and .md
#   verdicts.sh matrix STEP...  the matrix of these steps only, printed
# shellcheck source=../lib/core.sh
. "$(dirname "$0")/../lib/core.sh"
lab_setup
cd "$LAB_ROOT" # paths in the messages are the repository's

check() {
	local s=$1 t
	t=$(run_file "$(step_out "$s")" transcript "${2:-}")
	[ -f "$t" ] || die "step $s has not run: no $t"
	"$LAB_PYTHON" -m labhost.results check --number "$(step_number "$s")" --label "step $(step_number "$s")" \
		"$(expected_rel "$s")" "$t"
}
# (as the repository names it: the messages quote it)
expected_rel() { local e; e=$(step_expected "$1"); echo "${e#"$LAB_ROOT"/}"; }

matrix() { # [step...]: these only, and not kept
	local s t args=() keep=(--txt "$BUILD_DIR/matrix.txt" --md "$BUILD_DIR/matrix.md") steps=("$@")
	[ $# -eq 0 ] && mapfile -t steps < <(step_slugs) || keep=()
	for s in "${steps[@]}"; do
		t=$(run_file "$(step_out "$s")" transcript)
		[ -f "$t" ] && args+=(--step "step $(step_number "$s")" "$(step_title "$s")" "$(expected_rel "$s")" "$t")
	done
	[ ${#args[@]} -gt 0 ] || die "no step has run yet"
	"$LAB_PYTHON" -m labhost.results matrix "${keep[@]}" "${args[@]}"
}

case ${1:-} in
check)
	[ "${3:-}" != --run ] || [ -n "${4:-}" ] || die "usage: verdicts.sh check STEP [--run RUN]"
	# resolved first: inside an argument its exit would not stop us
	s=$(resolve_step "${2:-}")
	check "$s" "${4:-}"
	;;
matrix)
	slugs=()
	for a in "${@:2}"; do slugs+=("$(resolve_step "$a")"); done
	matrix "${slugs[@]}"
	;;
*) die "usage: verdicts.sh check STEP | matrix" ;;
esac
