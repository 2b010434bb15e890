#!/usr/bin/env bash
# Is the kernel that build/linux has checked out good, by the standard of
# a step's expectations? Builds it (the shared build dir, so mostly
# incremental), builds that step's guest against its headers, boots it
# and compares the RESULT lines with the step's expected file. Made for
# git bisect run, whose exit codes it uses:
#   0 good (every run as expected), 1 bad, 125 untestable (the build
#   failed, or a run ended in an error rather than a verdict)
# Usage: check-tree.sh STEP    (e.g. 04-packet-pipes: the good behaviour)
# Output goes to build/bisect/. Run `make` again after git bisect reset.
# shellcheck source=../lib/core.sh
. "$(dirname "$0")/../lib/core.sh"
lab_setup
lab_lock exclusive

# a usage error or an unknown step: 255, as 128 and up make git bisect
# run stop (2, the usual usage error, would mark the commit bad)
usage="check-tree.sh STEP"
(parse_args "$usage" -- "$@") || exit 255
parse_args "$usage" -- "$@"
[ ${#ARGS[@]} -le 1 ] || { echo "usage: $usage" >&2; exit 255; }
# (no step: the list of steps)
s=$(resolve_step "${ARGS[0]:-}") || exit 255
out=$BUILD_DIR/bisect
rm -rf "$out"
rev=$(git -C "$KSRC" rev-parse --short HEAD) || exit 125
"$SCRIPTS/pipeline.sh" point "$s" --out "$out" || exit 125
rc=0
"$LAB_PYTHON" -m labhost.results check --skip-on-error --number "$(step_number "$s")" \
	--label "$rev against $s" "$(step_expected "$s")" "$(run_file "$out" transcript)" || rc=$?
case $rc in
0) say "$rev is good: every run as ${STEP_EXPECTED[$s]#"$LAB_ROOT"/} predicts" ;;
125) say "$rev cannot be tested: a run ended in an error" ;;
*) say "$rev is bad" ;;
esac
exit "$rc"
