#!/usr/bin/env bash
# The test suite as one TAP 13 stream, in two tiers (the table of suites
# is tests/suites.sh):
#   run.sh                       every suite (make test)
#   run.sh --tier check          the suites that need no kernel build and
#                                no boot: the edit loop (make check)
#   run.sh --suite NAME[,NAME]   only these (make test T=NAME), after the
#                                build when one needs it
#   run.sh --list                the suites, their tier and what they check
# Each suite runs as a child of its own (run.sh --run-suite NAME) under
# LIMIT_SUITE; its stream is kept in build/logs/test/suite-NAME.log and
# its tests are numbered anew here. A suite fails by name when it stops
# before its plan, when it exits non-zero without a failed test to say
# why, and when it runs out of time. The suites of the test tier run
# after the build (a test of its own); in a build dir that holds an
# imported bundle they skip what only a build can check, saying so. At
# the end: how long each suite took, then the plan and "N passed, N
# failed" (", N skipped" when any was).
# shellcheck source=../lib/core.sh
. "$(dirname "$0")/../lib/core.sh"
lab_setup
# shellcheck source=../lib/tap.sh
. "$SCRIPTS/lib/tap.sh"
usage="run.sh [--tier check] [--suite NAME[,NAME...]] [--list]"
# (--run-suite NAME and --run-queue NAME...: the runner's own children;
# --suites FILE: another table and its suites, for the runner's own test)
parse_args "$usage" --tier= --suite= --list --run-suite= --run-queue --suites= -- "$@"
[ ${#ARGS[@]} -eq 0 ] || [ "${OPT[run-queue]}" = 1 ] || usage_error "$usage"
SUITES=${OPT[suites]:-$SCRIPTS/tests/suites.sh}
# shellcheck source=suites.sh
. "$SUITES"
TLOG=${TLOG:-$LOGS/test}
mkdir -p "$TLOG"

# One suite, as the runner's child: its stream on stdout.
if [ -n "${OPT[run-suite]}" ]; then
	"suite_${OPT[run-suite]}"
	exit
fi

declare -A TIER QUEUE WHAT
NAMES=()
while read -r name tier queue what; do
	NAMES+=("$name") TIER[$name]=$tier QUEUE[$name]=$queue WHAT[$name]=$what
done < <(suite_table)
if [ "${OPT[list]}" = 1 ]; then
	for name in "${NAMES[@]}"; do printf '%-17s %-6s %s\n' "$name" "${TIER[$name]}" "${WHAT[$name]}"; done
	exit 0
fi

# Which suites: a tier, or the names asked for (the build first, when
# one of them needs it); the TAP parser's last, over what ran.
selected=()
if [ -n "${OPT[suite]}" ]; then
	IFS=, read -r -a asked <<<"${OPT[suite]}"
	for name in "${asked[@]}"; do
		[ -n "${TIER[$name]:-}" ] || die "no test suite '$name' (make test T=NAME takes one of: ${NAMES[*]})"
		[ "${TIER[$name]}" = check ] || need_build=1
	done
	for name in "${NAMES[@]}"; do
		[[ " ${asked[*]} " == *" $name "* ]] && selected+=("$name")
	done
else
	case ${OPT[tier]} in
	'') selected=("${NAMES[@]}") need_build=1 ;;
	check) for name in "${NAMES[@]}"; do [ "${TIER[$name]}" = check ] && selected+=("$name"); done ;;
	*) usage_error "$usage" ;;
	esac
fi

# Run suites one after the other, each a child of its own, bounded; a
# line "NAME STATUS SECONDS" for each in the status file. A suite's
# stderr is kept apart (suite-NAME.err): only its stdout is TAP.
# Its CPU seconds too (GNU time: the suite's and its children's), so
# that a core left idle shows (make bench).
run_queue() { # name...
	local name t0 rc cpu
	for name in "$@"; do
		t0=$SECONDS rc=0
		run_child "$LIMIT_SUITE" /usr/bin/time -f '%U %S' -o "$TLOG/suite-$name.cpu" \
			"$0" --suites "$SUITES" --run-suite "$name" </dev/null \
			>"$TLOG/suite-$name.log" 2>"$TLOG/suite-$name.err" || rc=$?
		cpu=$(awk '{ c = $1 + $2 } END { printf "%.0f", c }' "$TLOG/suite-$name.cpu" 2>/dev/null)
		echo "$name $rc $((SECONDS - t0)) ${cpu:-?}" >>"$TLOG/status"
	done
}
# One queue of a block, as the runner's child.
if [ "${OPT[run-queue]}" = 1 ]; then
	run_queue "${ARGS[@]}"
	exit 0
fi

tap_begin
lab_lock exclusive
rm -f "$TLOG"/suite-*.log "$TLOG"/suite-*.err "$TLOG/status"
run_start=$SECONDS

# A suite's stream as this stream's tests, and its end judged.
include() { # name
	local name=$1 log=$TLOG/suite-$1.log rc secs before=$failed
	read -r _ rc secs _ < <(grep "^$name " "$TLOG/status")
	say "$name: ${WHAT[$name]} (${secs} s; log: ${log#"$LAB_ROOT"/})"
	tap_include "$name: the suite ran to its end (its plan complete)" <"$log"
	# what it said on stderr, as comments: never counted
	[ ! -s "${log%.log}.err" ] || sed 's/^/# stderr: /' "${log%.log}.err"
	if [ "$rc" -eq 124 ]; then
		fail "$name: the suite ran out of time (LIMIT_SUITE, $LIMIT_SUITE s, or the command's own)"
	elif [ "$rc" -ne 0 ] && [ "$failed" -eq "$before" ]; then
		fail "$name: the suite exited with status $rc, with no failed test to say why (log: ${log#"$LAB_ROOT"/})"
	fi
}

# The build, before the test tier: a test of its own, and the end of the
# run when it fails.
if [ "${need_build:-0}" = 1 ]; then
	say "build (progress in ${TLOG#"$LAB_ROOT"/}/build.log; nothing to do when nothing changed)"
	t0=$SECONDS
	if run_child "$LIMIT_RUN" /usr/bin/time -f '%U %S' -o "$TLOG/build.cpu" \
		"$SCRIPTS/lab.sh" build </dev/null >"$TLOG/build.log" 2>&1; then
		if lab_imported; then pass "the imported bundle fits this checkout"; else pass "build every step's kernel and guest"; fi
	else
		fail "build every step's kernel and guest (log: ${TLOG#"$LAB_ROOT"/}/build.log)"
		tail -n 15 "$TLOG/build.log" | sed 's/^/#   /'
		finish
		exit 1
	fi
	echo "build 0 $((SECONDS - t0)) $(awk '{ printf "%.0f", $1 + $2 }' "$TLOG/build.cpu")" >>"$TLOG/status"
fi

# In the table's order; a block of queued suites runs as one queue per
# letter, side by side, each queue a child of its own.
i=0
while [ "$i" -lt ${#selected[@]} ]; do
	name=${selected[i]}
	if [ "${QUEUE[$name]}" = - ]; then
		run_queue "$name"
		include "$name"
		i=$((i + 1))
		continue
	fi
	block=() queues=()
	while [ "$i" -lt ${#selected[@]} ] && [ "${QUEUE[${selected[i]}]}" != - ]; do
		block+=("${selected[i]}")
		i=$((i + 1))
	done
	for q in $(for n in "${block[@]}"; do echo "${QUEUE[$n]}"; done | sort -u); do
		members=()
		for n in "${block[@]}"; do [ "${QUEUE[$n]}" = "$q" ] && members+=("$n"); done
		say "queue $q: ${members[*]}"
		start_child "$0" --suites "$SUITES" --run-queue "${members[@]}" </dev/null
		queues+=("$CHILD_PID")
	done
	for pid in "${queues[@]}"; do wait_child "$pid" "$LIMIT_RUN" || true; done
	for n in "${block[@]}"; do
		if grep -q "^$n " "$TLOG/status" 2>/dev/null; then
			include "$n"
		else
			fail "$n: the suite never ended (its queue was stopped; log: ${TLOG#"$LAB_ROOT"/}/suite-$n.log)"
		fi
	done
done

# how long each suite took, for make test T=NAME and make bench
echo "# seconds per suite, and its CPU seconds (whole run: $((SECONDS - run_start)) s):"
sort -k3 -rn "$TLOG/status" | awk '{ printf "#   %-17s %5d s  cpu %5s s%s\n", $1, $3, $4, $2 == 0 ? "" : "  (exit " $2 ")" }' |
	tee "$TLOG/times.txt"
finish
