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
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
lab_lock exclusive
lib=$LAB_ROOT/scripts

s=$(resolve_step "${1:-}") || exit 255 # 128 and up make git bisect run stop
out=$BUILD_DIR/bisect
rm -rf "$out"
rev=$(git -C "$KSRC" rev-parse --short HEAD) || exit 125
"$lib/kernel-build.sh" --head "$out" || exit 125
"$lib/guest-build.sh" "$s" "$out" || exit 125
"$lib/boot.sh" demo "$s" --out "$out" || exit 125
rc=0
python3 "$lib/results.py" check --skip-on-error --number "$(step_number "$s")" \
	--label "$rev against $s" "$LAB_ROOT/steps/$s/expected" "$out/transcript.txt" || rc=$?
case $rc in
0) say "$rev is good: every run as steps/$s/expected predicts" ;;
125) say "$rev cannot be tested: a run ended in an error" ;;
*) say "$rev is bad" ;;
esac
exit "$rc"
