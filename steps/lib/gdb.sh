#!/usr/bin/env bash
# Debug a step's kernel with gdb, stopped where the step's story happens.
#   gdb.sh gdbstub N [--batch]   QEMU's gdbstub: the machine, from reset
#   gdb.sh kgdb N [--batch]      kgdb in the guest kernel, over ttyS1
# The guest runs the step's demo (boot.sh demo); steps/NN-*/*.gdb puts
# the breakpoints. Interactive (default): a gdb prompt, guest stopped.
# --batch: the script runs to its end, the guest to its end, and the
# exit status says whether both did.
# Logs: build/steps/N/{gdb,serial,boot}-TRANSPORT.log.
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

usage() {
	printf 'usage: gdb.sh gdbstub|kgdb N [--batch]\n' >&2
	exit 2
}
[ $# -ge 2 ] || usage
transport=$1 n=$2 batch=0
case $transport in gdbstub | kgdb) ;; *) usage ;; esac
case ${3:-} in --batch) batch=1 ;; "") ;; *) usage ;; esac
require_step "$n"

out=$(step_out "$n")
sdir=$(step_dir "$n")
scripts=("$sdir"/*.gdb)
if [ ! -f "${scripts[0]}" ] || [ ${#scripts[@]} -ne 1 ]; then
	die "step $n: expected one gdb script in ${sdir#"$LAB_ROOT"/}/, found: ${scripts[*]##*/}"
fi
script=${scripts[0]}
for f in "$out/vmlinux" "$out/bzImage" "$out/initramfs.cpio" "$out/kernel.key"; do
	[ -f "$f" ] || die "step $n is not built yet: no ${f#"$LAB_ROOT"/} (run: make)"
done
helpers=$KOUT/vmlinux-gdb.py
[ -f "$KOUT/scripts/gdb/linux/constants.py" ] ||
	die "the kernel's gdb helpers are missing: no ${KOUT#"$LAB_ROOT"/}/scripts/gdb (run: make)"

gdblog=$out/gdb-$transport.log
serial=$out/serial-$transport.log
bootlog=$out/boot-$transport.log
pidfile=$out/qemu-$transport.pid
rm -f "$gdblog" "$bootlog" "$pidfile"

# Interactive sessions wait for a person; batch ones only for the guest.
if [ "$batch" = 1 ]; then
	boot_s=${LAB_BOOT_TIMEOUT:-90}
	gdb_s=${LAB_GDB_TIMEOUT:-90}
else
	boot_s=${LAB_BOOT_TIMEOUT:-3600}
	gdb_s=${LAB_GDB_TIMEOUT:-3600}
fi

# A port nobody listens on, below the ephemeral range so that no
# outgoing connection holds it either. QEMU binds it on 127.0.0.1 only.
free_port() {
	local p i
	for i in $(seq 1 50); do
		p=$((10000 + (RANDOM + i) % 20000))
		if [ -z "$(ss -Hltn "sport = :$p")" ]; then
			echo "$p"
			return 0
		fi
	done
	return 1
}
port=$(free_port) || die "no free TCP port found for the debugger"

boot_pid=
# QEMU runs under boot.sh's timeout, in a session of its own: a Ctrl-C
# meant for gdb must not reach it, and we can still find all of it.
stop_guest() {
	local pids qpid
	[ -n "$boot_pid" ] || return 0
	qpid=$(cat "$pidfile" 2>/dev/null || true)
	pids=$(pgrep -s "$boot_pid" || true)
	# shellcheck disable=SC2086 # word splitting of the pid lists
	[ -z "$qpid$pids" ] || kill $qpid $pids 2>/dev/null || true
	sleep 0.5
	pids=$(pgrep -s "$boot_pid" || true)
	# shellcheck disable=SC2086
	[ -z "$pids" ] || kill -KILL $pids 2>/dev/null || true
	boot_pid=
	rm -f "$pidfile"
}
trap stop_guest EXIT
trap 'exit 143' TERM HUP

# Wait at most $2 seconds for process $1 to end; its status in $wait_rc.
wait_bounded() {
	local pid=$1 deadline=$((SECONDS + $2))
	wait_rc=124
	while kill -0 "$pid" 2>/dev/null; do
		[ "$SECONDS" -lt "$deadline" ] || return 1
		sleep 0.2
	done
	wait_rc=0
	wait "$pid" || wait_rc=$?
}

fail() { # what failed; one line, naming the logs to read
	die "step $n $transport: $1 (serial log: ${serial#"$LAB_ROOT"/}, gdb log: ${gdblog#"$LAB_ROOT"/})"
}

case $transport in
gdbstub)
	# -S: the CPU waits at reset for gdb, so no breakpoint comes too late
	extra="-gdb tcp:127.0.0.1:$port -S"
	append=
	connect=(-ex "target remote 127.0.0.1:$port")
	;;
kgdb)
	# ttyS1 is this socket; kgdbwait stops the kernel as soon as kgdboc
	# is registered, before init runs any of the step's programs. That
	# is before the kernel makes its text read-only, and kgdb cannot take
	# out a breakpoint it planted then once the text is read-only: the
	# guest would trap on it forever. rodata=off keeps the text writable.
	extra="-serial tcp:127.0.0.1:$port,server=on,wait=off"
	append="kgdboc=ttyS1 kgdbwait rodata=off"
	# TCG is slow, kgdb answers from a polling loop: allow more than 2 s
	connect=(-ex "set serial baud 115200" -ex "set remotetimeout 20"
		-ex "target remote 127.0.0.1:$port")
	;;
esac

start=$SECONDS
LAB_RUN=$transport LAB_BOOT_TIMEOUT=$boot_s LAB_APPEND=$append \
	LAB_QEMU_EXTRA="$extra -pidfile $pidfile" \
	setsid "$LAB_ROOT/steps/lib/boot.sh" demo "$n" >"$bootlog" 2>&1 </dev/null &
boot_pid=$!

deadline=$((SECONDS + 15))
until [ -n "$(ss -Hltn "sport = :$port")" ]; do
	kill -0 "$boot_pid" 2>/dev/null || fail "QEMU ended before it listened on port $port ($(tail -n 1 "$bootlog"))"
	[ "$SECONDS" -lt "$deadline" ] || fail "QEMU did not listen on port $port within 15 s"
	sleep 0.1
done

gdb_args=(-q -nx
	-iex "set pagination off" -iex "set confirm off" -iex "set width 0"
	-iex "set print pretty off"
	# no source text at stops: build/linux has one step's branch checked
	# out, and it need not be this step's
	-iex "set print frame-info location"
	-ex "file $out/vmlinux"
	-ex "source $helpers" -ex "source $LAB_ROOT/gdb-scripts/lab.py"
	"${connect[@]}"
	# echo each script command, so the log pairs commands with output
	-ex "set trace-commands on"
	-x "$script")

rc=0
if [ "$batch" = 1 ]; then
	# KILL: gdb defers a TERM while it waits for the target. The braces
	# keep bash's "Killed" notice out of the terminal.
	{ timeout -s KILL "$gdb_s" gdb -batch "${gdb_args[@]}" -ex "lab-release" \
		</dev/null >"$gdblog" 2>&1; } 2>/dev/null || rc=$?
	[ "$rc" -ne 137 ] || fail "gdb did not finish within ${gdb_s}s"
	if ! grep -q "^LAB-GDB-DONE step=$n" "$gdblog"; then
		why=$(grep -m1 -E 'Error|error|closed' "$gdblog" || tail -n 1 "$gdblog")
		kill -0 "$boot_pid" 2>/dev/null || why="$why; guest: $(tail -n 1 "$bootlog")"
		fail "the gdb script stopped before its end: $why"
	fi
	wait_bounded "$boot_pid" "$((boot_s + 10))" || fail "the guest was still running $((boot_s + 10))s after gdb ended"
	boot_pid=
	[ "$wait_rc" -eq 0 ] || fail "the guest did not run to its end after gdb let it go: $(tail -n 1 "$bootlog")"
	say "step $n $transport: gdb script and guest ran to their end in $((SECONDS - start))s (gdb log: ${gdblog#"$LAB_ROOT"/})"
	exit 0
fi

# Kill the process whose pid is in file $1 after $2 seconds: the bound
# on an interactive gdb. Not timeout(1): it would pass each Ctrl-C on to
# gdb as a second one, and gdb takes two as "give up on the target".
watchdog() {
	local end=$((SECONDS + $2))
	while [ "$SECONDS" -lt "$end" ]; do sleep 1; done
	kill -KILL "$(cat "$1")" 2>/dev/null || true
}

say "step $n, $transport: gdb runs ${script#"$LAB_ROOT"/} (log: ${gdblog#"$LAB_ROOT"/})"
gdbpid=$out/gdb-$transport.pid
watchdog "$gdbpid" "$gdb_s" &
watchdog_pid=$!
# Job control puts gdb in a process group of its own, in the terminal's
# foreground: a Ctrl-C reaches gdb only, not this script or make.
set -m
bash -c 'echo $$ >"$0" && exec "$@"' "$gdbpid" gdb "${gdb_args[@]}" \
	-iex "set logging file $gdblog" -iex "set logging overwrite on" \
	-iex "set logging enabled on" -ex "set trace-commands off" -ex "lab-howto $transport" || rc=$?
set +m
kill "$watchdog_pid" 2>/dev/null || true
rm -f "$gdbpid"
[ "$rc" -ne 137 ] || warn "gdb ended by its ${gdb_s}s time limit"
# Leaving gdb detaches, and the guest finishes its demo.
if wait_bounded "$boot_pid" 60; then
	boot_pid=
	if [ "$wait_rc" -eq 0 ]; then
		say "guest ran to its end; transcript: ${out#"$LAB_ROOT"/}/transcript-$transport.txt"
	else
		warn "the guest did not finish its demo: $(tail -n 1 "$bootlog")"
	fi
else
	warn "the guest was still running 60 s after gdb ended; stopped it (serial log: ${serial#"$LAB_ROOT"/})"
fi
