#!/usr/bin/env bash
# Boot steps one after the other and check each guest's RESULT lines
# against the step's expected file: one "ok"/"not ok" line per check.
#   boot-all.sh [STEP...]    (default: every step)
# Used by make test (one of its two queues).
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
lab_lock exclusive
lib=$LAB_ROOT/scripts
TLOG=$LOGS/test
mkdir -p "$TLOG"

steps=()
for a in "$@"; do steps+=("$(resolve_step "$a")"); done
[ ${#steps[@]} -gt 0 ] || mapfile -t steps < <(step_slugs)
rc=0
for s in "${steps[@]}"; do
	if "$lib/boot.sh" demo "$s" >"$TLOG/boot-$s.log" 2>&1; then
		echo "ok - step $s: the guest ran to its end in $(cat "$(step_out "$s")/boot-seconds${LAB_RUN:+-$LAB_RUN}") s"
		"$lib/verdicts.sh" check "$s" ${LAB_RUN:+--run "$LAB_RUN"} || rc=1
	else
		echo "not ok - step $s: the guest ran to its end: $(tail -n 1 "$TLOG/boot-$s.log")"
		rc=1
	fi
done
echo "# boot-all.sh: every step booted"
exit "$rc"
