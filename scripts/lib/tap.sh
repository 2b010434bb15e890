#!/usr/bin/env bash
# The test scripts' TAP 13, written here and nowhere else. Sourced, it
# defines tap_begin (the version line; messages become comments), tap_tmp
# (a scratch dir, $tmp, removed at the end), pass,
# fail and skip (one numbered test each), finish (the plan, then "N
# passed, N failed", ", N skipped" when any was, and the status),
# tap_include (another stream's tests as this stream's) and tap_run (a
# command's plain lines as this stream's).
# Run, `tap.sh COMMAND...` is the TAP stream of such a command: the
# Python suites print plain "ok - ..." / "not ok - ..." lines (their one
# printer: labhost/tap.py), numbered here, so that no other file writes
# a number, a plan or a count.
passed=0 failed=0 skipped=0 tap_n=0
tap_begin() {
	echo "TAP version 13"
	# every other line of a TAP stream is a comment: lib/core.sh's
	# messages too
	# shellcheck disable=SC2034 # read by lib/core.sh's say and info
	MSG_PREFIX='# '
}

# A test's scratch dir, $tmp, gone at its end with what it started.
tap_tmp() {
	tmp=$(mktemp -d)
	trap 'lab_cleanup; rm -rf "$tmp"' EXIT
}

tap_point() { # "ok"|"not ok" text [directive]: its lines after the first are comments
	local rest=${2#*$'\n'}
	tap_n=$((tap_n + 1))
	echo "$1 $tap_n - ${2%%$'\n'*}${3:+ # $3}"
	[ "$rest" = "$2" ] || echo "#   ${rest//$'\n'/$'\n'#   }"
}
pass() { tap_point ok "$*"; passed=$((passed + 1)); }
fail() { tap_point "not ok" "$*"; failed=$((failed + 1)); }
skip() { tap_point ok "$1" "SKIP $2"; skipped=$((skipped + 1)); } # what reason
finish() {
	local skips=''
	[ "$skipped" -eq 0 ] || skips=", $skipped skipped"
	echo "1..$tap_n"
	echo "$passed passed, $failed failed$skips"
	[ "$failed" -eq 0 ]
}

# One line of another stream: a test ("ok 3 - x", "ok - x", kselftest's
# "ok 3 x", a "# SKIP reason") becomes this stream's next; TAP_PLAN and
# TAP_FAILED (a "not ok" was the last test) say what else it was.
tap_take() { # line
	local what
	if [[ $1 =~ ^(not\ )?ok(\ [0-9]+)?(\ -)?(\ (.*))?$ ]]; then
		what=${BASH_REMATCH[5]} TAP_FAILED=${BASH_REMATCH[1]:+1}
		if [ -n "$TAP_FAILED" ]; then
			fail "$what"
		elif [[ $what =~ ^(.*)\ \#\ SKIP\ ?(.*)$ ]]; then
			skip "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}"
		else
			pass "$what"
		fi
		return 0
	fi
	[[ ! $1 =~ ^1\.\.([0-9]+) ]] || TAP_PLAN=${BASH_REMATCH[1]}
	return 1
}

# Another TAP stream on stdin (a redirection: in a pipeline our counts
# would stay in its subshell), its tests as this stream's own; of the
# rest only the comments right after a "not ok" (its why) are kept: the
# stream's log has everything. Given a name, a stream with no plan, or
# with fewer tests than it planned, stopped early: "not ok - NAME". Give
# it stdout alone: an "ok" in a stderr merged in (2>&1) would count.
tap_include() { # [name]
	local line n=0
	TAP_PLAN='' TAP_FAILED=''
	while IFS= read -r line; do
		if tap_take "$line"; then
			n=$((n + 1))
		elif [ -n "$TAP_FAILED" ] && [[ $line == "#"* ]]; then
			echo "$line"
		fi
	done
	[ -z "${1:-}" ] || [ "$TAP_PLAN" = "$n" ] || fail "$1"
}

# A command that prints plain "ok - ..." lines and exits 0 when all
# passed: its tests as this stream's, every other line a comment. Its
# stderr follows as comments: read apart, so that no line there (a
# warning, a child's output) is ever taken for a test. A non-zero exit
# with no "not ok" is a crash, and fails.
tap_run() { # command...
	local out err rc=0 line before=$failed
	err=$(mktemp) || { fail "$* ran (no temporary file for its stderr)"; return; }
	out=$("$@" 2>"$err") || rc=$?
	while IFS= read -r line; do
		tap_take "$line" || case $line in
		'') ;;
		'#'*) echo "$line" ;;
		*) echo "# $line" ;;
		esac
	done <<<"$out"
	while IFS= read -r line || [ -n "$line" ]; do
		[ -z "$line" ] || echo "# $line"
	done <"$err"
	[ "$rc" -eq 0 ] || [ "$failed" -gt "$before" ] ||
		fail "$* ran to its end (exit $rc: $(tail -n 1 "$err" | grep . || tail -n 1 <<<"$out"))"
	rm -f "$err"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -uo pipefail
	tap_begin
	tap_run "$@"
	finish
fi
