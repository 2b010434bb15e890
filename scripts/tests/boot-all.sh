#!/usr/bin/env bash
# Boot steps one after the other and check each guest's RESULT lines
# against the step's expected file: one TAP test per check
# (scripts/lib/tap.sh); exit status 1 on failure.
#   boot-all.sh [--reuse] [STEP...]    (default: every step)
# --reuse: a step whose transcript was made from the inputs that are
# there now (the same kernel, initramfs, limits and QEMU: lib/inputs.sh)
# is not booted again; its transcript is checked, and the test says it
# was reused and when it was made. make test runs it so, after make.
# shellcheck source=../lib/core.sh
. "$(dirname "$0")/../lib/core.sh"
lab_setup
# shellcheck source=../lib/tap.sh
. "$SCRIPTS/lib/tap.sh"
# shellcheck source=../lib/inputs.sh
. "$SCRIPTS/lib/inputs.sh"
tap_begin
lab_lock exclusive
TLOG=$LOGS/test
mkdir -p "$TLOG"
parse_args "boot-all.sh [--reuse] [STEP...]" --reuse -- "$@"

steps=()
for a in "${ARGS[@]}"; do steps+=("$(resolve_step "$a")"); done
[ ${#steps[@]} -gt 0 ] || mapfile -t steps < <(step_slugs)
for s in "${steps[@]}"; do
	out=$(step_out "$s")
	if [ "${OPT[reuse]}" = 1 ] && transcript_current "$out" >/dev/null; then
		pass "step $s: its transcript is of these inputs ($(sed -n 's/^kernel sha256:\(.\{12\}\).*/kernel \1/p' "$(run_file "$out" inputs)"), booted $(date -u -r "$(run_file "$out" transcript)" '+%Y-%m-%d %H:%M UTC')): not booted again"
	elif "$SCRIPTS/boot/boot.sh" demo "$s" >"$TLOG/boot-$s.log" 2>&1; then
		pass "step $s: the guest ran to its end in $(cat "$(run_file "$out" boot_seconds)") s"
	else
		fail "step $s: the guest ran to its end: $(tail -n 1 "$TLOG/boot-$s.log")"
		continue
	fi
	tap_run "$SCRIPTS/verdict/verdicts.sh" check "$s"
done
finish
