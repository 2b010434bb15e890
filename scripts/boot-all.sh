#!/usr/bin/env bash
# Boot steps one after the other and check each guest's RESULT lines
# against the step's expected file: one TAP test per check
# (scripts/tap.sh); exit status 1 on failure.
#   boot-all.sh [STEP...]    (default: every step)
# Used by make test (one of its two queues).
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
# shellcheck source=tap.sh
. "$(dirname "$0")/tap.sh"
lab_lock exclusive
lib=$LAB_ROOT/scripts
TLOG=$LOGS/test
mkdir -p "$TLOG"

steps=()
for a in "$@"; do steps+=("$(resolve_step "$a")"); done
[ ${#steps[@]} -gt 0 ] || mapfile -t steps < <(step_slugs)
for s in "${steps[@]}"; do
	if "$lib/boot.sh" demo "$s" >"$TLOG/boot-$s.log" 2>&1; then
		pass "step $s: the guest ran to its end in $(cat "$(step_out "$s")/boot-seconds") s"
		tap_run "$lib/verdicts.sh" check "$s"
	else
		fail "step $s: the guest ran to its end: $(tail -n 1 "$TLOG/boot-$s.log")"
	fi
done
finish
