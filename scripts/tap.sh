# shellcheck shell=bash
# The test scripts' way of counting: one "ok - ..." or "not ok - ..."
# line per check, and a last line "N passed, N failed". Sourced.
passed=0 failed=0
pass() { echo "ok - $*"; passed=$((passed + 1)); }
fail() { echo "not ok - $*"; failed=$((failed + 1)); }
finish() {
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}
