#!/usr/bin/env bash
# How a kgdb session ends, reproduced without luck. gdb reaches the
# guest through tests/lossy-link.py, which drops what QEMU 7.2's socket
# chardev can drop: an acknowledgement that is gdb's last byte before it
# closes. gdb's own detach ends that way ("D", kgdb's "OK", gdb's "+",
# close): the guest must stay stuck in kgdb every time, until the safety
# net (scripts/gdb/kgdb-closer.py) finds kgdb re-sending "$OK#9a" and
# acknowledges it. The lab's endings (lab-release, detach and gdb's own
# quit, with the lab's gdb helpers loaded) end with "k", which kgdb
# acknowledges before gdb closes: nothing is lost, the guest boots on.
# And why kgdb's channel is two FIFOs, not a socket (3., below).
# One TAP test per check (scripts/lib/tap.sh). Usage: test-kgdb-ending.sh
# [STEP] (default: the first step); make test runs it.
# shellcheck source=../lib/core.sh
. "$(dirname "$0")/../lib/core.sh"
lab_setup
# shellcheck source=../gdb/session.sh
. "$(dirname "$0")/../gdb/session.sh"
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
tap_begin
lab_lock exclusive

s=$(resolve_step "${1:-$(first_step)}")
out=$(step_out "$s")
{ [ -f "$(out_file "$out" bzimage)" ] && [ -f "$(out_file "$out" gdb_helpers)/vmlinux-gdb.py" ]; } || die "step $s is not built yet (run: make)"
run=kgdb-ending
serial=$(run_file "$out" serial "$run")
link_log=$out/lossy-link.log
gdblog=$(run_file "$out" gdb_log "$run")
# how long a stuck guest is watched to make no progress, and how long a
# released one may take to reach init
STUCK_S=5 RELEASED_S=60
# what this test makes the safety net do is its own count, not the lab's
KGDB_NET_LOG=$out/kgdb-safety-net-$run.log
rm -f "$KGDB_NET_LOG"
# the net's report, as TAP comments
net_report() { # what
	kgdb_closer_report "$1" 2>"$out/kgdb-net-$run.txt"
	sed 's/^/# /' "$out/kgdb-net-$run.txt"
}

began() { grep -q '^LAB-BEGIN' "$serial" 2>/dev/null; }
wait_began() { # seconds
	local end=$((SECONDS + $1))
	until began; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.2
	done
}

# One session: boot to kgdbwait, connect through the lossy link, end it
# the given way (no ending: gdb's own at the end of a batch session,
# which is its quit); leaves what the link dropped in DROPPED, gdb's
# status in GDB_RC.
session() { # gdb's arguments before it connects... -- the ending's...
	local before=() after=()
	while [ "$1" != -- ]; do before+=("$1"); shift; done
	after=("${@:2}")
	debug_channel kgdb "$out" 0 "$run"
	debug_boot "$s" "$run" "$(step_boot_limit "$out")" "$(run_file "$out" boot_log "$run")"
	rm -f "$link_log"
	GDB_RC=0
	run_child "$LIMIT_GDB_EXTRA" gdb "${before[@]}" "${DBG_SETTINGS[@]}" \
		-ex "target remote | $LAB_PYTHON $LAB_ROOT/scripts/tests/lossy-link.py $DBG_WHERE $link_log" \
		"${after[@]}" -batch "$(out_file "$out" vmlinux)" </dev/null >"$gdblog" 2>&1 || GDB_RC=$?
	DROPPED=$(sed -n 's/^dropped [0-9]*: //p' "$link_log" 2>/dev/null)
}
end_guest() { stop_child "$BOOT_PID"; }

# 1. gdb's own detach, as the lab ended kgdb sessions before.
t0=$SECONDS
session -q -nx -iex "set confirm off" -- -ex detach
if [ "$GDB_RC" -eq 0 ] && [ "$DROPPED" = + ] && ! wait_began "$STUCK_S"; then
	pass "gdb's detach through a link that loses gdb's last byte: the link dropped '+', and the guest made no progress in $STUCK_S s"
else
	fail "gdb's detach through a link that loses gdb's last byte leaves the guest stuck (gdb exit $GDB_RC, dropped '$DROPPED', began: $(began && echo yes || echo no); gdb log: ${gdblog#"$LAB_ROOT"/})"
fi
kgdb_closer "$DBG_WHERE" "$(run_file "$out" kgdb_end "$run")"
if wait_began "$RELEASED_S"; then :; fi
net_report "test $run, gdb's detach"
if [ "$CLOSER_STATE" = "unacknowledged \$OK#9a" ] && began; then
	pass "the stuck kgdb re-sent \$OK#9a, its reply to gdb's D, when the safety net sent '-'; the net's '+' released it (in $((SECONDS - t0)) s)"
else
	fail "the stuck kgdb was waiting for the acknowledgement of \$OK#9a (the net found: '$CLOSER_STATE'; began: $(began && echo yes || echo no))"
fi
end_guest

# 2. The lab's endings, with its gdb helpers: lab-release, detach, and
# gdb's own quit at the end of a batch session.
gdb_base_args "$s" "$out" kgdb
for ending in lab-release detach quit; do
	t0=$SECONDS
	if [ "$ending" = quit ]; then session "${GDB_BASE[@]}" --; else session "${GDB_BASE[@]}" -- -ex "$ending"; fi
	if [ "$GDB_RC" -eq 0 ] && [ -z "$DROPPED" ] && [ -f "$link_log" ] && wait_began "$RELEASED_S"; then
		pass "the lab's $ending through the same link: nothing dropped, the guest ran on (in $((SECONDS - t0)) s)"
	else
		fail "the lab's $ending through the same link loses nothing (gdb exit $GDB_RC, dropped '$DROPPED', began: $(began && echo yes || echo no); gdb log: ${gdblog#"$LAB_ROOT"/})"
	fi
	kgdb_closer "$DBG_WHERE" "$(run_file "$out" kgdb_end "$run")"
	rc=0
	wait_child "$BOOT_PID" "$(step_boot_limit "$out")" || rc=$?
	net_report "test $run, $ending"
	# (ended: the guest ran to its end before the net looked)
	if [ "$rc" -eq 0 ] && { [ "$CLOSER_STATE" = running ] || [ "$CLOSER_STATE" = ended ]; }; then
		pass "after the lab's $ending, the guest ran to its end, and the safety net had nothing to do ($CLOSER_STATE)"
	else
		fail "after the lab's $ending, the guest ran to its end (boot.sh: $rc, $(tail -n 1 "$(run_file "$out" boot_log "$run")")), and the safety net had nothing to do (it found: '$CLOSER_STATE')"
	fi
done

# 3. A debugger that reads slowly (gdb on a busy host): kgdb's register
# reply, 316 bytes that QEMU's 16550 writes one at a time, arrives whole
# through the lab's channel (two FIFOs); through a unix socket, which
# holds 278 such writes, it loses bytes (QEMU gives up on them). The
# socket is the control: it shows why the lab does not use one.
pause_session() { # what
	debug_boot "$s" "$run" "$(step_boot_limit "$out")" "$(run_file "$out" boot_log "$run")"
	PAUSE_RC=0
	PAUSE_OUT=$(run_child "$LIMIT_GDB_EXTRA" "$LAB_PYTHON" "$SCRIPTS/tests/kgdb-pause.py" "$DBG_WHERE" 0.5 3 \
		</dev/null 2>&1) || PAUSE_RC=$?
	end_guest
}
debug_channel kgdb "$out" 0 "$run"
pause_session
if [ "$PAUSE_RC" -eq 0 ] && grep -qx 'whole 3 of 3' <<<"$PAUSE_OUT"; then
	pass "through the lab's FIFOs, kgdb's register reply arrives whole to a reader that pauses 0.5 s: $(tr '\n' ';' <<<"$PAUSE_OUT")"
else
	fail "through the lab's FIFOs, kgdb's register reply arrives whole to a reader that pauses 0.5 s (exit $PAUSE_RC): $PAUSE_OUT"
fi
sock=$(socket_path "$out" "$run")
rm -f "$sock"
DBG_QEMU=(-chardev "socket,id=dbg,path=$sock,server=on,wait=off" -serial chardev:dbg) DBG_WHERE=$sock
dbg_ready() { [ -S "$sock" ]; }
pause_session
if [ "$PAUSE_RC" -eq 1 ] && grep -q 'checksum bad' <<<"$PAUSE_OUT"; then
	pass "the control: through a unix socket, the same reader gets damaged register replies: $(tr '\n' ';' <<<"$PAUSE_OUT")"
else
	fail "the control: through a unix socket, the same reader gets damaged register replies (exit $PAUSE_RC): $PAUSE_OUT"
fi
rm -f "$sock"
finish
