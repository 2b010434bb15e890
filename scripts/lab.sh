#!/usr/bin/env bash
# The lab's one entry point: the Makefile runs `lab.sh COMMAND ...`, and
# so can you. STEP is a step's number or its name (1 or 01-padding).
#   lab.sh all                  build every step, boot each, print the matrix
#   lab.sh run STEP             build the step, boot it, print its transcript
#   lab.sh shell STEP           build the step, boot it with a busybox shell
#   lab.sh build [STEP...]      build kernels and guests only (every step by default)
#   lab.sh abi-scan             every uapi struct with autofs's problem
#   lab.sh gdb|kgdb STEP [--batch] [--tcp]     gdb/gdb.sh
#   lab.sh test [--tier check] [--suite NAME]  tests/run.sh
#   lab.sh docs [--serve]                      docs/docs.sh
#   lab.sh bundle|import|verify-bundle ...     bundle/bundle.sh
#   lab.sh bench | soak N ...                  bench/
#   lab.sh try ...                             verdict/try.sh
#   lab.sh clean                remove the build dir (only one the lab made)
# scripts/README.md says which file does what.
set -euo pipefail
here=$(dirname "$0")
cmd=${1:-}
[ $# -eq 0 ] || shift
# The Debian packages first, for every command but clean: the rest needs
# python3 (the step model) and more; an imported bundle needs only what
# runs it (make import: before there is one).
case $cmd in
clean | '') ;;
import) "$here/source/deps.sh" --run ;;
all | run | shell | build | abi-scan | gdb | kgdb | test | docs | bundle | verify-bundle | bench | soak | try)
	"$here/source/deps.sh" ;;
esac
# the commands of a stage of their own
case $cmd in
gdb) exec "$here/gdb/gdb.sh" gdbstub "$@" ;;
kgdb) exec "$here/gdb/gdb.sh" kgdb "$@" ;;
test) exec "$here/tests/run.sh" "$@" ;;
docs) exec "$here/docs/docs.sh" "$@" ;;
bundle) exec "$here/bundle/bundle.sh" make "$@" ;;
import) exec "$here/bundle/bundle.sh" import "$@" ;;
verify-bundle) exec "$here/bundle/bundle.sh" verify "$@" ;;
bench) exec "$here/bench/bench.sh" "$@" ;;
soak) exec "$here/bench/soak.sh" "$@" ;;
try) exec "$here/verdict/try.sh" "$@" ;;
clean) exec "$here/clean.sh" "$@" ;;
all | run | shell | build | abi-scan) ;;
*)
	echo "usage: lab.sh all | run STEP | shell STEP | build [STEP...] | abi-scan | gdb|kgdb STEP ... | test ... | docs ... | bundle ... | import ... | verify-bundle ... | bench | soak ... | try ... | clean" >&2
	exit 2
	;;
esac

# shellcheck source=lib/core.sh
. "$here/lib/core.sh"
lab_setup
# shellcheck source=lib/accel.sh
. "$SCRIPTS/lib/accel.sh"
lab_lock exclusive

# Build steps' kernels and guests (all steps when none is named).
build() { # slugs
	local s steps=("$@")
	[ -z "${PLAIN_FOR:-}" ] || info "BUILD_DIR=\"$PLAIN_FOR\" has a space or a colon, which kbuild refuses in a path: the lab works in it as $BUILD_DIR, and keeps the kernel tree in $KSRC"
	# an imported bundle (make import) is what a build would have made
	if lab_imported; then
		"$SCRIPTS/bundle/bundle.sh" check
		return
	fi
	[ ${#steps[@]} -gt 0 ] || mapfile -t steps < <(step_slugs)
	# the tree once per command (make builds step by step)
	[ -n "${TREE_DONE:-}" ] || "$SCRIPTS/tree/kernel-tree.sh"
	TREE_DONE=1
	"$SCRIPTS/kernel/kernel-build.sh" "${steps[@]}"
	for s in "${steps[@]}"; do
		"$SCRIPTS/guest/guest-build.sh" "$s"
	done
}

# Boot a step's guest and show what it printed and how it compares.
run_step() {
	local s=$1 out t
	out=$(step_out "$s")
	choose_accel "$(out_file "$out" bzimage)"
	say "step $(step_number "$s"), $(step_title "$s"): booting branch $s in QEMU (${ACCEL^^})"
	"$SCRIPTS/boot/boot.sh" demo "$s"
	t=$(run_file "$out" transcript)
	info "guest finished in $(cat "$(run_file "$out" boot_seconds)") s; transcript: ${t#"$LAB_ROOT"/}"
}

usage="lab.sh all | run STEP | shell STEP | build [STEP...] | abi-scan"
parse_args "$usage" -- "$@"
case $cmd in
all)
	[ ${#ARGS[@]} -eq 0 ] || usage_error "$usage"
	# step by step, each booted when built; before a step with a kernel
	# config of its own (a cold build of minutes), the matrix of the
	# steps so far. An imported bundle is checked once.
	! lab_imported || build
	done_steps=()
	for s in $(step_slugs); do
		if [ -n "$(step_config "$s")" ] && [ ${#done_steps[@]} -gt 0 ] && ! lab_imported; then
			echo
			say "outcome matrix so far (step $(step_number "$s") builds a kernel of its own config next; the whole matrix comes last)"
			"$SCRIPTS/verdict/verdicts.sh" matrix "${done_steps[@]}" || true
			echo
		fi
		done_steps+=("$s")
		lab_imported || build "$s"
		run_step "$s"
		"$LAB_PYTHON" -m labhost.results show "$(run_file "$(step_out "$s")" transcript)" | sed 's/^/    /'
	done
	echo
	say "outcome matrix (measured in the guest, every step)"
	"$SCRIPTS/verdict/verdicts.sh" matrix
	;;
run | shell)
	[ ${#ARGS[@]} -eq 1 ] || usage_error "$usage"
	s=$(resolve_step "${ARGS[0]}")
	build "$s"
	if [ "$cmd" = shell ]; then
		"$SCRIPTS/boot/boot.sh" shell "$s"
		exit
	fi
	run_step "$s"
	echo
	cat "$(run_file "$(step_out "$s")" transcript)"
	echo
	say "step $(step_number "$s"), $(step_title "$s"), against history"
	"$SCRIPTS/verdict/verdicts.sh" check "$s"
	;;
build)
	slugs=()
	for a in "${ARGS[@]}"; do slugs+=("$(resolve_step "$a")"); done
	build "${slugs[@]}"
	;;
abi-scan)
	[ ${#ARGS[@]} -eq 0 ] || usage_error "$usage"
	! lab_imported || die "make abi-scan compiles every uapi header: an imported bundle has no compiler or kernel tree.
Its report is in ${BUILD_DIR#"$LAB_ROOT"/}/abi-scan/ (the docs' Where else? page shows it); a build from source (make clean, make) can scan."
	s=$(pristine_step)
	build "$s"
	"$SCRIPTS/abi-scan/abi-scan.sh" --uapi "$(out_file "$(step_out "$s")" uapi)" --ksrc "$KSRC" \
		--out "$BUILD_DIR/abi-scan"
	;;
esac
