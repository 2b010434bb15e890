# shellcheck shell=bash
# The test scripts' way of counting: one "ok - ...", "not ok - ..." or
# "ok - ... # SKIP reason" line per check, and a last line
# "N passed, N failed" (", N skipped" when any was). Sourced.
passed=0 failed=0 skipped=0
pass() { echo "ok - $*"; passed=$((passed + 1)); }
fail() { echo "not ok - $*"; failed=$((failed + 1)); }
skip() { echo "ok - $1 # SKIP $2"; skipped=$((skipped + 1)); } # what reason
finish() {
	if [ "$skipped" -gt 0 ]; then
		echo "$passed passed, $failed failed, $skipped skipped"
	else
		echo "$passed passed, $failed failed"
	fi
	[ "$failed" -eq 0 ]
}
