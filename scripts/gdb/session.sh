# shellcheck shell=bash
# The parts of a debugger session, in one home for gdb.sh and the test
# of how kgdb sessions end (tests/test-kgdb-ending.sh): the channel
# between gdb and the guest, the boot that listens on it, gdb's own
# arguments, and the safety net at the end of a kgdb session. Sourced
# after lib/core.sh; defines functions only.

# The debugger's channel to the guest, of the run's own, which no other
# session can reach (the build directory's lock lets one lab command at
# a time use it): for the gdbstub a unix socket (build/steps/SLUG/RUN.sock);
# for kgdb two FIFOs (build/steps/SLUG/RUN.in and RUN.out, QEMU's
# -chardev pipe), reached by gdb through labhost/dbglink.py. kgdb's bytes
# leave QEMU's 16550 one write() each: a unix socket holds only 278 of
# those, fewer than a register reply, and drops the rest when gdb is slow
# to read (labhost/dbglink.py says more); a FIFO holds 64 KiB of them.
# With tcp=1, TCP on 127.0.0.1 and a free port chosen now for either.
# Sets DBG_QEMU (QEMU's arguments), DBG_APPEND (the kernel's command
# line), DBG_WHERE (the endpoint: a socket's path, HOST:PORT or
# fifo:BASE, as labhost/dbglink.py opens it), DBG_SETTINGS (gdb's
# settings for the transport) and DBG_CONNECT (gdb's arguments that
# connect: the settings and target remote), and defines dbg_ready.
# shellcheck disable=SC2034 # DBG_CONNECT and GDB_BASE: for the callers
debug_channel() { # transport out-dir tcp(0|1) run
	local transport=$1 out=$2 tcp=$3 run=$4 chardev p port='' sock target
	if [ "$tcp" = 1 ]; then
		for _ in $(seq 1 50); do
			p=$((10000 + RANDOM % 20000)) # below the ephemeral range
			[ -n "$(ss -Hltn "sport = :$p")" ] || { port=$p; break; }
		done
		[ -n "$port" ] || die "no free TCP port on 127.0.0.1 for the debugger"
		chardev="socket,id=dbg,host=127.0.0.1,port=$port,server=on,wait=off"
		DBG_WHERE="127.0.0.1:$port"
		target=$DBG_WHERE
		eval "dbg_ready() { [ -n \"\$(ss -Hltn 'sport = :$port')\" ]; }"
	elif [ "$transport" = kgdb ]; then
		rm -f "$out/$run.in" "$out/$run.out"
		mkfifo -m 600 "$out/$run.in" "$out/$run.out"
		chardev="pipe,id=dbg,path=$out/$run"
		DBG_WHERE=fifo:$out/$run
		# gdb's "target remote | COMMAND": the command's stdin and stdout
		target="| $(printf '%q ' "$LAB_PYTHON" "$SCRIPTS/labhost/dbglink.py" relay "$DBG_WHERE")"
		# ready when QEMU has them open
		eval "dbg_ready() { $(printf '%q ' "$LAB_PYTHON" "$SCRIPTS/labhost/dbglink.py" ready "$DBG_WHERE"); }"
	else
		sock=$(socket_path "$out" "$run")
		rm -f "$sock"
		chardev="socket,id=dbg,path=$sock,server=on,wait=off"
		DBG_WHERE=$sock # gdb opens a unix socket given as a path
		target=$DBG_WHERE
		eval "dbg_ready() { [ -S $(printf '%q' "$sock") ]; }"
	fi
	case $transport in
	gdbstub)
		# -S: the CPU waits at reset for gdb, so no breakpoint comes too late
		DBG_QEMU=(-chardev "$chardev" -gdb chardev:dbg -S)
		DBG_APPEND=lab.debian=off
		DBG_SETTINGS=()
		DBG_CONNECT=(-ex "target remote $target")
		;;
	kgdb)
		# ttyS1 is this channel; kgdbwait stops the kernel as soon as kgdboc
		# is registered, before init runs any of the step's programs. That
		# is before the kernel makes its text read-only, and kgdb cannot
		# take out a breakpoint it planted then once the text is read-only:
		# the guest would trap on it forever. rodata=off keeps it writable.
		DBG_QEMU=(-chardev "$chardev" -serial chardev:dbg)
		DBG_APPEND="kgdboc=ttyS1 kgdbwait rodata=off lab.debian=off"
		# TCG is slow, kgdb answers from a polling loop: allow more than 2 s
		DBG_SETTINGS=(-ex "set serial baud 115200" -ex "set remotetimeout $LIMIT_GDB_REMOTE")
		DBG_CONNECT=("${DBG_SETTINGS[@]}" -ex "target remote $target")
		;;
	*) die "no debugger transport '$transport' (gdbstub or kgdb)" ;;
	esac
}

# The guest of a session: boot.sh in a process group of its own
# (start_child), so a Ctrl-C meant for gdb does not reach it, and it
# goes when we go; returns once QEMU listens on the channel. BOOT_PID.
debug_boot() { # slug run timeout-s boot-log
	local deadline=$((SECONDS + LIMIT_DEBUG_LISTEN))
	start_child "$SCRIPTS/boot/boot.sh" demo "$1" --run "$2" --timeout "$3" \
		--append "$DBG_APPEND" -- "${DBG_QEMU[@]}" >"$4" 2>&1 </dev/null
	BOOT_PID=$CHILD_PID
	until dbg_ready; do
		kill -0 "$BOOT_PID" 2>/dev/null ||
			die "QEMU ended before it listened on $DBG_WHERE ($(tail -n 1 "$4"))"
		[ "$SECONDS" -lt "$deadline" ] || die "QEMU did not listen on $DBG_WHERE within $LIMIT_DEBUG_LISTEN s"
		sleep 0.1
	done
}

# gdb's arguments before it connects: quiet, no init files, the kernel's
# gdb helpers and the lab's (gdb-scripts/lab-gdb.py), and the values
# those read: the step, its output dir, two limits, the transport. GDB_BASE.
gdb_base_args() { # slug out-dir transport
	GDB_BASE=(-q -nx
		# no bytecode caches: the kernel's helpers are part of the step's
		# output (a bundle carries them, a rebuild must match them)
		-iex "python import sys; sys.dont_write_bytecode = True"
		-iex "set pagination off" -iex "set confirm off" -iex "set width 0"
		-iex "set print pretty off"
		# no source text at stops: build/linux has one step's branch checked
		# out, and it need not be this step's
		-iex "set print frame-info location"
		# the limits lab-howto names and lab-pahole keeps, from their one table (lib/limits.sh)
		-iex "set \$lab_limit_watchdog = $LIMIT_WATCHDOG" -iex "set \$lab_limit_program = $LIMIT_PROGRAM"
		-iex "set \$lab_limit_short = $LIMIT_SHORT"
		# which step, and where its files are (the step model says)
		-iex "set \$lab_step = \"$1\""
		-iex "set \$lab_vmlinux = \"$(out_file "$2" vmlinux)\"" -iex "set \$lab_guest = \"$(out_file "$2" guest)\""
		-iex "set \$lab_constants = \"$(out_file "$2" gdb_constants)\""
		# how lab-release and detach end the session (gdb-scripts/lab/session.py)
		-iex "set \$lab_transport = \"$3\""
		-ex "source $(out_file "$2" gdb_helpers)/vmlinux-gdb.py" -ex "source $LAB_ROOT/gdb-scripts/lab-gdb.py")
}

# The end of a kgdb session: the safety net (scripts/gdb/kgdb-closer.py)
# makes sure kgdb is not left waiting for the gdb that has gone, keeps
# its connection open until the guest ends, and says what it found.
# kgdb_closer starts it (CLOSER_PID), as soon as gdb has ended;
# kgdb_closer_report, once the guest has ended, prints what it had to
# do and counts it in KGDB_NET_LOG (build/logs/kgdb-safety-net.log). Its state is left
# in CLOSER_STATE: "running" (the normal end) or "ended" (the guest had
# ended first) mean nothing waited.
kgdb_closer() { # where state-file
	rm -f "$2"
	start_child "$LAB_PYTHON" "$SCRIPTS/gdb/kgdb-closer.py" "$1" "$LIMIT_KGDB_PROBE" >"$2" 2>&1 </dev/null
	CLOSER_PID=$CHILD_PID CLOSER_FILE=$2
}
KGDB_NET_LOG=$LOGS/kgdb-safety-net.log
kgdb_closer_report() { # what (for the count: "step SLUG")
	local end=$((SECONDS + 2 * LIMIT_KGDB_PROBE + 5))
	CLOSER_STATE=
	until CLOSER_STATE=$(head -n 1 "$CLOSER_FILE" 2>/dev/null) && [ -n "$CLOSER_STATE" ]; do
		{ kill -0 "$CLOSER_PID" 2>/dev/null && [ "$SECONDS" -lt "$end" ]; } || break
		sleep 0.1
	done
	stop_child "$CLOSER_PID"
	case ${CLOSER_STATE:-none} in
	running | ended | unreachable*) ;;
	none) warn "the kgdb safety net gave no answer (see ${CLOSER_FILE#"$LAB_ROOT"/})" ;;
	*)
		printf '%s %s state=%s\n' "$(date -u '+%Y-%m-%dT%H:%M:%SZ')" "$1" "$CLOSER_STATE" >>"$KGDB_NET_LOG"
		case $CLOSER_STATE in
		stopped) warn "kgdb safety net: after gdb ended, kgdb was stopped with no debugger; the net ended the session with k (counted in ${KGDB_NET_LOG#"$LAB_ROOT"/})" ;;
		*) warn "kgdb safety net: after gdb ended, kgdb was still waiting for gdb's acknowledgement of its reply (${CLOSER_STATE#unacknowledged }); the net sent it (counted in ${KGDB_NET_LOG#"$LAB_ROOT"/})" ;;
		esac
		;;
	esac
}
