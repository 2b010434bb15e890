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
lab_lock exclusive
pipeline() { "$SCRIPTS/pipeline.sh" "$@"; }

usage="lab.sh all | run STEP | shell STEP | build [STEP...] | abi-scan"
parse_args "$usage" -- "$@"
case $cmd in
all)
	[ ${#ARGS[@]} -eq 0 ] || usage_error "$usage"
	mapfile -t slugs < <(step_slugs)
	pipeline steps --boot --show "${slugs[@]}"
	echo
	say "outcome matrix (measured in the guest, every step)"
	"$SCRIPTS/verdict/verdicts.sh" matrix
	;;
run | shell)
	[ ${#ARGS[@]} -eq 1 ] || usage_error "$usage"
	s=$(resolve_step "${ARGS[0]}")
	if [ "$cmd" = shell ]; then
		pipeline steps "$s"
		"$SCRIPTS/boot/boot.sh" shell "$s"
		exit
	fi
	pipeline steps --boot "$s"
	echo
	cat "$(run_file "$(step_out "$s")" transcript)"
	echo
	say "step $(step_number "$s"), $(step_title "$s"), against history"
	"$SCRIPTS/verdict/verdicts.sh" check "$s"
	;;
build)
	slugs=()
	for a in "${ARGS[@]}"; do slugs+=("$(resolve_step "$a")"); done
	[ ${#slugs[@]} -gt 0 ] || mapfile -t slugs < <(step_slugs)
	pipeline steps "${slugs[@]}"
	;;
abi-scan)
	[ ${#ARGS[@]} -eq 0 ] || usage_error "$usage"
	! lab_imported || die "make abi-scan compiles every uapi header: an imported bundle has no compiler or kernel tree.
Its report is in ${BUILD_DIR#"$LAB_ROOT"/}/abi-scan/ (the docs' Where else? page shows it); a build from source (make clean, make) can scan."
	s=$(pristine_step)
	pipeline steps "$s"
	"$SCRIPTS/abi-scan/abi-scan.sh" --uapi "$(out_file "$(step_out "$s")" uapi)" --ksrc "$KSRC" \
		--out "$BUILD_DIR/abi-scan"
	;;
esac
