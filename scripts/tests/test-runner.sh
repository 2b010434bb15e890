#!/usr/bin/env bash
# Every failure counts, and nothing good is lost:
#   - the test runner (tests/run.sh), given a table of made-up suites,
#     fails a suite that exits non-zero after a complete plan, one that
#     stops before its plan and one that runs out of time, each by name,
#     in a queue too, and passes the ones that pass;
#   - make docs refuses to show a matrix older than the kernels it
#     describes, saying which step and what changed (a made-up build dir).
# One TAP test per check (lib/tap.sh). Nothing is built or booted.
# shellcheck source=../lib/core.sh
. "$(dirname "$0")/../lib/core.sh"
lab_setup
# shellcheck source=../lib/tap.sh
. "$SCRIPTS/lib/tap.sh"
tap_begin
tap_tmp

# 1. The runner, on a table of its own: each suite a TAP stream, as the
# real ones are.
cat >"$tmp/suites.sh" <<'SUITES'
suite_table() {
	cat <<'TABLE'
good       check  -  passes
exits-one  check  -  a complete plan, then exit 1
stops      check  -  stops before its plan
slow       check  -  runs out of time
q-good     check  a  passes, in a queue
q-slow     check  b  runs out of time, in a queue
TABLE
}
suite_good() { tap_begin; pass one; pass two; finish; }
suite_exits-one() { tap_begin; pass one; finish; exit 1; }
suite_stops() { tap_begin; pass one; echo "1..3"; exit 0; }
suite_slow() { tap_begin; pass one; sleep 60; finish; }
suite_q-good() { tap_begin; pass one; finish; }
suite_q-slow() { tap_begin; sleep 60; finish; }
SUITES
mkdir -p "$tmp/build" "$tmp/log" && echo x >"$tmp/build/$BUILD_MARK"
t0=$SECONDS
rc=0
run_child "$LIMIT_SHORT" env -u LAB_LOCKED -u LAB_DEADLINE -u LAB_MODEL BUILD_DIR="$tmp/build" TLOG="$tmp/log" LIMIT_SUITE=3 \
	"$SCRIPTS/tests/run.sh" --suites "$tmp/suites.sh" --tier check \
	</dev/null >"$tmp/run.out" 2>&1 || rc=$?
secs=$((SECONDS - t0))
says() { grep -q -e "$1" "$tmp/run.out"; }
check() { # what pattern...: every pattern is in the runner's output
	local what=$1 p
	shift
	for p in "$@"; do says "$p" || { fail "$what (no '$p' in: $(tail -n 20 "$tmp/run.out" | tr '\n' '|'))"; return; }; done
	pass "$what"
}
check "the runner passes the suites that pass" '^ok [0-9]* - one$' '^ok [0-9]* - two$'
check "a suite that exits 1 after a complete plan fails, by name" \
	'^not ok [0-9]* - exits-one: the suite exited with status 1, with no failed test to say why'
check "a suite that stops before its plan fails, by name" \
	'^not ok [0-9]* - stops: the suite ran to its end (its plan complete)'
check "a suite that runs out of time fails, by name" '^not ok [0-9]* - slow: the suite ran out of time'
check "a suite of a queue that runs out of time fails, by name, and its neighbour in the other queue counts" \
	'^not ok [0-9]* - q-slow: the suite ran out of time' '^# ==> q-good: passes'
check "the runner says how long each suite took, and its CPU" '^#   slow  *[0-9]* s  cpu  *[0-9]* s  (exit 124)' '^#   good  *[0-9]* s  cpu  *[0-9]* s$'
# (passed: good 2, one each of exits-one, stops, slow, q-good; failed:
# exits-one, stops, and slow and q-slow twice: out of time, plan short)
if [ "$rc" -ne 0 ] && [ "$(tail -n 1 "$tmp/run.out")" = "6 passed, 6 failed" ]; then
	pass "the runner's last line counts them, and it exits non-zero ($(tail -n 1 "$tmp/run.out"), in $secs s)"
else
	fail "the runner's last line counts them, and it exits non-zero (exit $rc: $(tail -n 1 "$tmp/run.out"))"
fi

# 2. make docs and a matrix older than the kernels: a build dir whose
# step 1 transcript was booted from another kernel than the one there.
b=$tmp/docs-build
mkdir -p "$b" && echo x >"$b/$BUILD_MARK"
for s in $(step_slugs); do
	o=$(step_out_in "$b" "$s")
	mkdir -p "$o"
	echo "kernel $s" >"$(out_file "$o" bzimage)" && echo "initramfs $s" >"$(out_file "$o" initramfs)"
	printf 'LAB-BEGIN step=%s\nLAB-END step=%s\n' "$(step_number "$s")" "$(step_number "$s")" >"$(run_file "$o" transcript)"
	(
		# shellcheck source=../lib/inputs.sh
		. "$SCRIPTS/lib/inputs.sh"
		boot_inputs "$o" >"$(run_file "$o" inputs)"
	)
done
echo "another kernel" >"$(out_file "$(step_out_in "$b" "$(first_step)")" bzimage)"
out=$(run_child "$LIMIT_SHORT" env -u LAB_LOCKED -u LAB_DEADLINE -u LAB_MODEL BUILD_DIR="$b" \
	"$SCRIPTS/docs/docs.sh" </dev/null 2>&1) && rc=0 || rc=$?
if [ "$rc" -ne 0 ] && grep -q "the outcome matrix would be older than the kernels it describes" <<<"$out" &&
	grep -q "step 1 ($(first_step)): its transcript was booted from another kernel" <<<"$out" &&
	[ ! -e "$b/matrix.md" ]; then
	pass "make docs refuses a matrix older than the kernels, naming the step and what changed"
else
	fail "make docs refuses a matrix older than the kernels (exit $rc): $out"
fi
finish
