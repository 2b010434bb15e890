#!/usr/bin/env bash
# Debug a step's kernel with gdb, stopped where the step's story happens.
#   gdb.sh gdbstub STEP [OPTION...]   QEMU's gdbstub: the machine, from reset
#   gdb.sh kgdb STEP [OPTION...]      kgdb in the guest kernel, over ttyS1
# STEP is a number or a slug. The guest runs the step's demo (boot.sh
# demo); steps/SLUG/SLUG.gdb puts the breakpoints. Interactive (default): a gdb prompt, guest stopped.
# --batch: the script runs to its end, the guest to its end, and the
# exit status says whether both did.
# --tcp: the debugger's channel on 127.0.0.1 (make gdb LAB_GDB_TCP=1),
# not the step's own unix socket.
# --timeout S: the guest's limit instead of the table's (scripts/limits.sh).
# Logs: build/steps/SLUG/{gdb,serial,boot}-TRANSPORT.log; the commands:
# qemu-TRANSPORT.cmdline and gdb-TRANSPORT.cmdline (V=1 prints both),
# to run by hand, QEMU first.
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
lab_lock exclusive

usage() {
	printf 'usage: gdb.sh gdbstub|kgdb STEP [--batch] [--tcp] [--timeout S]\n' >&2
	exit 2
}
[ $# -ge 2 ] || usage
transport=$1 batch=0 tcp=0 boot_s=''
case $transport in gdbstub | kgdb) ;; *) usage ;; esac
s=$(resolve_step "$2")
shift 2
while [ $# -gt 0 ]; do
	case $1 in
	--batch) batch=1; shift ;;
	--tcp) tcp=1; shift ;;
	--timeout) [ $# -ge 2 ] || usage; boot_s=$2; shift 2 ;;
	*) usage ;;
	esac
done

out=$(step_out "$s")
script=$(step_gdb_script "$s")
[ -n "$script" ] || die "step $s has no gdb script (steps/$s/$s.gdb)"
for f in "$out/vmlinux" "$out/bzImage" "$out/initramfs.cpio" "$out/kernel.key" "$out/lab_constants.py"; do
	[ -f "$f" ] || die "step $s is not built yet: no ${f#"$LAB_ROOT"/} (run: make)"
done
helpers=$out/gdb-helpers/vmlinux-gdb.py
[ -f "$out/gdb-helpers/scripts/gdb/linux/constants.py" ] ||
	die "the kernel's gdb helpers are missing: no ${out#"$LAB_ROOT"/}/gdb-helpers (run: make)"

gdblog=$out/gdb-$transport.log
serial=$out/serial-$transport.log
bootlog=$out/boot-$transport.log
rm -f "$gdblog" "$bootlog"

# Interactive sessions wait for a person; batch ones only for the guest
# (its boot limit, plus what gdb's own stops cost: LIMIT_GDB_EXTRA).
if [ "$batch" = 1 ]; then
	boot_s=${boot_s:-$(($(boot_limit "$(grep -c . "$out/programs")") + LIMIT_GDB_EXTRA))}
	gdb_s=$boot_s
else
	boot_s=${boot_s:-$LIMIT_INTERACTIVE}
	gdb_s=$LIMIT_INTERACTIVE
fi

# The debugger's channel to the guest: a unix socket of this step's own
# (build/steps/SLUG/TRANSPORT.sock), which no other session can reach,
# since the build directory's lock lets one lab command at a time use
# it. --tcp asks for TCP instead, on 127.0.0.1 and a free port chosen
# now.
if [ "$tcp" = 1 ]; then
	port=
	for _ in $(seq 1 50); do
		p=$((10000 + RANDOM % 20000)) # below the ephemeral range
		[ -n "$(ss -Hltn "sport = :$p")" ] || { port=$p; break; }
	done
	[ -n "$port" ] || die "no free TCP port on 127.0.0.1 for the debugger"
	chardev="socket,id=dbg,host=127.0.0.1,port=$port,server=on,wait=off"
	where="127.0.0.1:$port"
	ready() { [ -n "$(ss -Hltn "sport = :$port")" ]; }
else
	sock=$(socket_path "$out" "$transport")
	rm -f "$sock"
	chardev="socket,id=dbg,path=$sock,server=on,wait=off"
	where=$sock # gdb opens a unix socket given as a path
	ready() { [ -S "$sock" ]; }
fi

fail() { # what failed; one line, naming the logs to read
	die "step $s $transport: $1 (serial log: ${serial#"$LAB_ROOT"/}, gdb log: ${gdblog#"$LAB_ROOT"/})"
}

case $transport in
gdbstub)
	# -S: the CPU waits at reset for gdb, so no breakpoint comes too late
	extra=(-chardev "$chardev" -gdb chardev:dbg -S)
	append=lab.debian=off
	connect=(-ex "target remote $where")
	;;
kgdb)
	# ttyS1 is this socket; kgdbwait stops the kernel as soon as kgdboc
	# is registered, before init runs any of the step's programs. That
	# is before the kernel makes its text read-only, and kgdb cannot take
	# out a breakpoint it planted then once the text is read-only: the
	# guest would trap on it forever. rodata=off keeps the text writable.
	extra=(-chardev "$chardev" -serial chardev:dbg)
	append="kgdboc=ttyS1 kgdbwait rodata=off lab.debian=off"
	# TCG is slow, kgdb answers from a polling loop: allow more than 2 s
	connect=(-ex "set serial baud 115200" -ex "set remotetimeout 20"
		-ex "target remote $where")
	;;
esac

# The guest: boot.sh in a process group of its own (start_child), so a
# Ctrl-C meant for gdb does not reach it, and it goes when we go.
start=$SECONDS
start_child "$LAB_ROOT/scripts/boot.sh" demo "$s" --run "$transport" --timeout "$boot_s" \
	--append "$append" -- "${extra[@]}" >"$bootlog" 2>&1 </dev/null
boot_pid=$CHILD_PID

deadline=$((SECONDS + 15))
until ready; do
	kill -0 "$boot_pid" 2>/dev/null || fail "QEMU ended before it listened on $where ($(tail -n 1 "$bootlog"))"
	[ "$SECONDS" -lt "$deadline" ] || fail "QEMU did not listen on $where within 15 s"
	sleep 0.1
done
# V=1: boot.sh printed its QEMU line into its log; show it here
[ -z "${SHOW_FD:-}" ] || cat "$out/qemu-$transport.cmdline" >&"$SHOW_FD"

gdb_args=(-q -nx
	-iex "set pagination off" -iex "set confirm off" -iex "set width 0"
	-iex "set print pretty off"
	# no source text at stops: build/linux has one step's branch checked
	# out, and it need not be this step's
	-iex "set print frame-info location"
	# the two limits lab-howto names, from their one table (limits.sh)
	-iex "set \$lab_limit_watchdog = $LIMIT_WATCHDOG" -iex "set \$lab_limit_program = $LIMIT_PROGRAM"
	-ex "source $helpers" -ex "source $LAB_ROOT/gdb-scripts/lab-gdb.py"
	"${connect[@]}"
	# echo each script command, so the log pairs commands with output
	-ex "set trace-commands on"
	-x "$script")

# The gdb command, kept in gdb-TRANSPORT.cmdline and shown with V=1.
# vmlinux is its file argument, loaded before the -ex commands run: a
# path is one word there, where "-ex file PATH" splits it at spaces.
gdb_cmd() { # more gdb arguments...
	GDB_CMD=(gdb "${gdb_args[@]}" "$@" "$out/vmlinux")
	cmd_line "${GDB_CMD[@]}" >"$out/gdb-$transport.cmdline"
	show_cmd "${GDB_CMD[@]}"
}

rc=0
if [ "$batch" = 1 ]; then
	gdb_cmd -batch -ex "lab-release"
	# gdb's status and the guest's apart: each failure is blamed on its own
	gdb_rc=0
	run_child "$gdb_s" "${GDB_CMD[@]}" </dev/null >"$gdblog" 2>&1 || gdb_rc=$?
	[ "$gdb_rc" -ne 124 ] || fail "gdb did not finish within ${gdb_s}s"
	why=$(grep -m1 -E 'Error|error|closed' "$gdblog" || tail -n 1 "$gdblog")
	if ! grep -q "^LAB-GDB-DONE step=$s" "$gdblog"; then
		kill -0 "$boot_pid" 2>/dev/null || why="$why; guest: $(tail -n 1 "$bootlog")"
		fail "the gdb script stopped before its end: $why"
	fi
	[ "$gdb_rc" -eq 0 ] || fail "gdb exited with status $gdb_rc after the script's end: $why"
	wait_child "$boot_pid" "$boot_s" || rc=$?
	[ "$rc" -ne 124 ] || fail "the guest was still running ${boot_s}s after it started"
	[ "$rc" -eq 0 ] || fail "the guest did not run to its end after gdb let it go: $(tail -n 1 "$bootlog")"
	say "step $s $transport: gdb script and guest ran to their end in $((SECONDS - start))s (gdb log: ${gdblog#"$LAB_ROOT"/})"
	exit 0
fi

# Interactive: gdb in the terminal's foreground, in a process group of
# its own (job control), so a Ctrl-C reaches gdb only. Not timeout(1)
# around it: that would pass each Ctrl-C on to gdb as a second one, and
# gdb takes two as "give up on the target". A child of ours kills it
# after its limit instead.
say "step $s, $transport: gdb runs ${script#"$LAB_ROOT"/} (log: ${gdblog#"$LAB_ROOT"/})"
gdbpid=$out/gdb-$transport.pid
# shellcheck disable=SC2016 # expanded by the inner bash
start_child bash -c 'sleep "$1"; kill -KILL "$(cat "$2")" 2>/dev/null' limit "$gdb_s" "$gdbpid"
limit_pid=$CHILD_PID
gdb_cmd -iex "set logging file $gdblog" -iex "set logging overwrite on" \
	-iex "set logging enabled on" -ex "set trace-commands off" -ex "lab-howto $transport"
set -m
bash -c 'echo $$ >"$0" && exec "$@"' "$gdbpid" "${GDB_CMD[@]}" || rc=$?
set +m
stop_group "$limit_pid"
rm -f "$gdbpid"
[ "$rc" -ne 137 ] || warn "gdb ended by its ${gdb_s}s time limit"
# Leaving gdb detaches, and the guest finishes its demo.
rc=0
wait_child "$boot_pid" 60 || rc=$?
case $rc in
0) say "guest ran to its end; transcript: ${out#"$LAB_ROOT"/}/transcript-$transport.txt" ;;
124) warn "the guest was still running 60 s after gdb ended; stopped it (serial log: ${serial#"$LAB_ROOT"/})" ;;
*) warn "the guest did not finish its demo: $(tail -n 1 "$bootlog")" ;;
esac
