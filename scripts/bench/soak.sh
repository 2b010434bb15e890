#!/usr/bin/env bash
# make soak: the same runs again and again, as a long workshop day would.
#   soak.sh N                       boot every step N times; report every
#                                   run whose verdict or cause differs
#                                   from that step's first run, and the
#                                   slowest boot per step
#   soak.sh N --gdb TRANSPORT --step STEP
#                                   N batch debugger sessions of one step
#                                   (gdb.sh TRANSPORT STEP --batch): how
#                                   many ran to their end, how many needed
#                                   the kgdb safety net, how long each took
# The report goes to build/soak.txt.
# shellcheck source=../lib/core.sh
. "$(dirname "$0")/../lib/core.sh"
lab_setup
lab_lock exclusive
usage="make soak N=20 [GDB=gdbstub|kgdb STEP=N] (soak.sh N [--gdb TRANSPORT --step STEP]; N: how many runs)"
parse_args "$usage" --gdb= --step= -- "$@"
n=${ARGS[0]:-} transport=${OPT[gdb]} step=${OPT[step]}
{ [ ${#ARGS[@]} -eq 1 ] && [[ "$n" =~ ^[1-9][0-9]*$ ]]; } || usage_error "$usage"
case $transport in '' | gdbstub | kgdb) ;; *) usage_error "$usage" ;; esac
{ [ -n "$transport" ] && [ -n "$step" ]; } || { [ -z "$transport" ] && [ -z "$step" ]; } || usage_error "$usage"
# the whole soak's time limit: N runs of their own limits (LIMIT_RUN is
# one command's, and three hundred sessions are more than one)
if [ -n "$transport" ]; then
	per=$(($(gdb_batch_limit "$(step_out "$(resolve_step "$step")")") + LIMIT_AFTER_GDB))
else
	per=0
	for s in $(step_slugs); do per=$((per + $(step_boot_limit "$(step_out "$s")"))); done
fi
export LAB_DEADLINE=$(($(date +%s) + LIMIT_KERNEL_BUILD + n * per))
"$SCRIPTS/lab.sh" build >/dev/null
report=$BUILD_DIR/soak.txt
: >"$report"

# N batch sessions of one step, one line each, and a summary
soak_sessions() {
	local s i t0 secs ok=0 failed=0 helped=0 net_before net_after all=() why
	s=$(resolve_step "$step")
	say "soak: $n $transport sessions of step $s, one after the other; results in ${report#"$LAB_ROOT"/}"
	for i in $(seq 1 "$n"); do
		net_before=$({ wc -l <"$LOGS/kgdb-safety-net.log"; } 2>/dev/null || echo 0)
		t0=$(date +%s%N)
		if "$SCRIPTS/gdb/gdb.sh" "$transport" "$s" --batch --debug-remote >"$LOGS/soak-session.log" 2>&1; then
			why=ok ok=$((ok + 1))
		else
			why="FAILED: $(grep -m 1 '^error: ' "$LOGS/soak-session.log" || tail -n 1 "$LOGS/soak-session.log")"
			failed=$((failed + 1))
			cp "$LOGS/soak-session.log" "$LOGS/soak-session-$i-failed.log"
			# and the session's own logs, which the next session writes over
			for f in gdb serial boot qemu; do
				cp "$(step_out "$s")/$f-$transport.log" "$LOGS/soak-session-$i-$f.log" 2>/dev/null || true
			done
		fi
		secs=$((($(date +%s%N) - t0) / 1000000))
		all+=("$secs")
		net_after=$({ wc -l <"$LOGS/kgdb-safety-net.log"; } 2>/dev/null || echo 0)
		if [ "$net_after" -gt "$net_before" ]; then
			helped=$((helped + 1))
			why="$why, with the safety net's help: $(tail -n 1 "$LOGS/kgdb-safety-net.log" | sed 's/.*state=//')"
		fi
		printf 'session %d of %d: %s in %d.%03d s\n' "$i" "$n" "$why" $((secs / 1000)) $((secs % 1000)) | tee -a "$report"
	done
	printf '%s\n' "${all[@]}" | sort -n | awk -v n="$n" -v ok="$ok" -v failed="$failed" -v helped="$helped" -v what="$transport sessions of step $s" '
		{ v[NR] = $1; sum += $1 }
		END { printf "%d %s: %d ran to their end (%d of them with the kgdb safety net'"'"'s help), %d failed; seconds per session: mean %.1f, median %.1f, max %.1f\n",
			n, what, ok, helped, failed, sum / NR / 1000, v[int((NR + 1) / 2)] / 1000, v[NR] / 1000 }' |
		tee -a "$report"
	[ "$failed" -eq 0 ] || die "soak: $failed session(s) failed, see ${report#"$LAB_ROOT"/} and ${LOGS#"$LAB_ROOT"/}/soak-session-*-failed.log"
}

if [ -n "$transport" ]; then
	soak_sessions
	exit 0
fi
changed=0
say "soak: $n boots of each of $(step_slugs | wc -l) steps; results in ${report#"$LAB_ROOT"/}"
for s in $(step_slugs); do
	first='' slow=0 slowest=''
	for i in $(seq 1 "$n"); do
		if ! "$SCRIPTS/boot/boot.sh" demo "$s" --run soak >"$LOGS/soak-$s.log" 2>&1; then
			echo "step $s boot $i: the boot failed: $(tail -n 1 "$LOGS/soak-$s.log")" | tee -a "$report"
			changed=$((changed + 1))
			continue
		fi
		out=$(step_out "$s")
		got=$("$LAB_PYTHON" -m labhost.results show "$(run_file "$out" transcript soak)")
		secs=$(cat "$(run_file "$out" boot_seconds soak)")
		if [ -z "$first" ]; then
			first=$got
		elif [ "$got" != "$first" ]; then
			changed=$((changed + 1))
			{
				echo "step $s boot $i differs from boot 1:"
				diff <(echo "$first") <(echo "$got") | sed 's/^/    /'
			} | tee -a "$report"
		fi
		if awk -v a="$secs" -v b="$slow" 'BEGIN { exit !(a > b) }'; then
			slow=$secs slowest=$i
		fi
		# progress: a step's N boots take minutes
		printf '    %s: boot %d of %d, %s s\n' "$s" "$i" "$n" "$secs"
	done
	printf 'step %-22s %d boots, slowest %s s (boot %s)\n' "$s" "$n" "$slow" "$slowest" | tee -a "$report"
done
if [ "$changed" -eq 0 ]; then
	say "soak: every boot of every step gave its step's first verdicts and causes"
else
	die "soak: $changed boot(s) differed, see ${report#"$LAB_ROOT"/}"
fi
