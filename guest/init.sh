#!/bin/sh
# /init of the lab's guest (busybox). Mounts the basics, then either runs
# the step's programs listed in /lab/programs (lab.mode=demo) or gives a
# shell (lab.mode=shell), and powers off: QEMU runs with -no-reboot.
# Time limits come from the kernel command line only (the host's table,
# scripts/lib/limits.sh, passed by scripts/boot/boot.sh): lab.read_ms= a daemon's
# wait for a packet, lab.watchdog= each program's own limit,
# lab.prog_timeout= init's. None has a default here or in the programs.

/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp

step=0
mode=demo
read_ms=
watchdog=
prog_timeout=
debian=on
read -r cmdline </proc/cmdline
for arg in $cmdline; do
	case $arg in
	lab.step=*) step=${arg#lab.step=} ;;
	lab.mode=*) mode=${arg#lab.mode=} ;;
	lab.read_ms=*) read_ms=${arg#lab.read_ms=} ;;
	lab.watchdog=*) watchdog=${arg#lab.watchdog=} ;;
	lab.prog_timeout=*) prog_timeout=${arg#lab.prog_timeout=} ;;
	lab.debian=*) debian=${arg#lab.debian=} ;;
	esac
done

# The limits that are missing, or not a whole number above 0 (timeout 0
# would mean no limit at all).
bad_limits=
for kv in "read_ms=$read_ms" "watchdog=$watchdog" "prog_timeout=$prog_timeout"; do
	case ${kv#*=} in
	0* | *[!0-9]* | '') bad_limits="$bad_limits lab.$kv" ;;
	esac
done
limits_error="no valid limit on the kernel command line for:${bad_limits} (scripts/boot/boot.sh passes the table of scripts/lib/limits.sh); no program runs without its limits"

# The RESULT line of a run that did not print one of its own, with the
# one writer of the guest's shell scripts: always verdict=error.
# shellcheck source=result.sh
. /lab/result.sh
error_line() { # reader abi comm cause detail
	result_line "$step" error "$4" "$1" "$2" "$3" "$5"
}

# Every program gets its own name as the kernel will see it (comm): a
# copy named as /lab/programs says, e.g. automount or automount.new.
install_as() { # abi program name
	mkdir -p "/tmp/run/$1"
	cp "/lab/$1/$2" "/tmp/run/$1/$3"
	echo "/tmp/run/$1/$3"
}

# Run one program under init's limit, then pass on its RESULT line only
# if it is the one line the exit status agrees with (0 ok or a demo's
# finding, 1 broken, 2 error); otherwise say how the program ended.
# A daemon named DAEMON+ABI (steps/runs) is DAEMON, its lookups made by
# /lab/ABI/client, a program of that other ABI (--caller).
run_one() { # program abi name
	prog=$1 abi=$2 name=$3
	out=/tmp/out.$$
	bin=${prog%%+*} caller=
	[ "$bin" = "$prog" ] || caller=${prog#*+}
	path=$(install_as "$abi" "$bin" "$name")
	echo
	echo "\$ $name --step $step${caller:+ --caller $caller}        # $prog, $abi build"
	set -- "$path" --step "$step"
	case $bin in
	*-style) set -- "$@" --timeout-ms "$read_ms" --watchdog-s "$watchdog" ${caller:+--caller "$caller"} ;;
	packet-pipe) set -- "$@" --timeout-ms "$read_ms" ;;
	# one unlink() triggers them at once: no wait, no limit of their own
	bpf-cookie | bpf-rawtp) ;;
	esac
	start=$(date +%s)
	timeout -s TERM -k 2 "$prog_timeout" "$@" </dev/null >"$out"
	rc=$?
	took=$(($(date +%s) - start))
	grep -v '^RESULT ' "$out"
	n=$(grep -c '^RESULT ' "$out")
	verdict=$(sed -n 's/^RESULT .* verdict=\([^ ]*\) .*/\1/p' "$out" | head -n 1)
	case $verdict in
	error) agree=2 ;;
	broken) agree=1 ;;
	*) agree=0 ;;
	esac
	said=$(grep '^RESULT ' "$out" | sed -n '1s/.*detail=//p')
	set -- "$prog" "$abi" "$name"
	if [ "$took" -ge "$prog_timeout" ] && [ "$rc" -ne 0 ]; then
		error_line "$@" fallback "init's ${prog_timeout} s limit stopped it (exit status $rc)${said:+, after it said: $said}"
	elif [ "$rc" -eq 126 ] || [ "$rc" -eq 127 ]; then
		error_line "$@" exec "could not run $path (exit status $rc)"
	elif [ "$rc" -gt 128 ]; then
		error_line "$@" crash "killed by signal $((rc - 128)) (SIG$(kill -l $((rc - 128)) 2>/dev/null)) after $took s"
	elif [ "$n" -eq 0 ]; then
		error_line "$@" noresult "exited with status $rc without a RESULT line"
	elif [ "$n" -gt 1 ]; then
		error_line "$@" results "printed $n RESULT lines (exit status $rc)"
	elif [ "$rc" -ne "$agree" ]; then
		error_line "$@" status "exit status $rc, but its RESULT says verdict=$verdict"
	else
		grep '^RESULT ' "$out"
	fi
	rm -f "$out"
	# a program killed before its cleanup leaves its autofs behind
	umount -l /auto 2>/dev/null
}

# Debian's automount runs (debian-run.sh) take seconds each, mostly
# waiting: they start together, in the background, while the lab's own
# programs run one by one, and their output follows. Each is bounded
# like any program; one that overruns gets init's error line.
start_debian() {
	i=0
	grep -e '^debian-automount' /tmp/programs >/tmp/debian.runs
	# not in a pipeline: its jobs must be this shell's, to wait for them
	while read -r prog abi name; do
		i=$((i + 1))
		timeout -s KILL "$prog_timeout" /lab/debian-run.sh "$step" "$prog" "$abi" "$name" "$i" \
			"$read_ms" >"/tmp/debian.$i" 2>&1 </dev/null &
		echo "$! $prog $abi $name" >>/tmp/debian.pids
	done </tmp/debian.runs
}
finish_debian() {
	i=0
	[ -f /tmp/debian.pids ] || return 0
	while read -r pid prog abi name; do
		i=$((i + 1))
		wait "$pid" 2>/dev/null
		echo
		grep -v '^RESULT ' "/tmp/debian.$i"
		if [ "$(grep -c '^RESULT ' "/tmp/debian.$i")" = 1 ]; then
			grep '^RESULT ' "/tmp/debian.$i"
		else
			error_line "$prog" "$abi" "$name" fallback "no RESULT line within init's ${prog_timeout} s limit"
		fi
	done </tmp/debian.pids
}

run_demo() {
	echo "LAB-BEGIN step=$step kernel=$(uname -r) machine=$(uname -m)"
	# Under a debugger (lab.debian=off, scripts/gdb/gdb.sh) only the lab's
	# own programs run, one at a time, so that a breakpoint on "the
	# automount" meets that one and not Debian's, running alongside.
	if [ "$debian" = off ]; then
		grep -v -e '^debian-automount' /lab/programs >/tmp/programs
		echo "Debian's automount runs are left out under a debugger (lab.debian=off)."
	else
		cp /lab/programs /tmp/programs
	fi
	# the plan: one RESULT line per program, whatever happens to it
	echo "LAB-PLAN runs=$(grep -c -v -e '^#' -e '^[[:space:]]*$' /tmp/programs)"
	if [ -n "$bad_limits" ]; then
		echo "LAB-ERROR: $limits_error"
		grep -v -e '^#' -e '^[[:space:]]*$' /tmp/programs |
			while read -r prog abi name; do
				error_line "$prog" "$abi" "$name" limits "$limits_error"
			done
		echo
		echo "LAB-END step=$step"
		return
	fi
	start_debian
	grep -v -e '^#' -e '^[[:space:]]*$' -e '^debian-automount' /tmp/programs |
		while read -r prog abi name; do
			run_one "$prog" "$abi" "$name"
		done
	finish_debian
	echo
	echo "LAB-END step=$step"
}

run_shell() {
	mkdir -p /lab/bin
	# the ABIs of /lab/abis (guest/abis on the host)
	grep -v '^#' /lab/abis | while read -r abi _; do
		[ -n "$abi" ] || continue
		for prog in "/lab/$abi"/*; do
			ln -s "$prog" "/lab/bin/${prog##*/}-$abi"
		done
	done
	# the daemons' limits, for the commands a learner types
	export DAEMON_LIMITS="--timeout-ms $read_ms --watchdog-s $watchdog" PIPE_LIMITS="--timeout-ms $read_ms"
	[ -z "$bad_limits" ] || echo "LAB-ERROR: $limits_error"
	# the 32-bit daemon under the names step 3 cares about
	cp /lab/i386/automount-style /lab/bin/automount
	cp /lab/i386/automount-style /lab/bin/automount.new
	cat <<MSG

autofs ABI lab, step $step, kernel $(uname -r). Demo programs in /lab/bin:
$(cd /lab/bin && echo *)
Try: automount --step $step \$DAEMON_LIMITS ; systemd-style-i386 --step $step \$DAEMON_LIMITS
(DAEMON_LIMITS="$DAEMON_LIMITS", PIPE_LIMITS="$PIPE_LIMITS": the lab's limits, from the kernel command line)
packet-pipe-x86_64 --step $step \$PIPE_LIMITS ; autofs-layout-i386 --step $step
Debian's own automount: /lab/debian-run.sh $step debian-automount i386 automount 1 $read_ms
A bpf link's cookie (step 6's kernel has BPF): bpf-cookie-i386 --step $step --cookie 42 ; bpf-rawtp-x32 --step $step
The name you run a program by is the name the kernel sees (comm).
Leave with: exit (or Ctrl-D); the guest powers off.
MSG
	PATH=/lab/bin:/bin setsid cttyhack sh -l
}

case $mode in
shell) run_shell ;;
*) run_demo ;;
esac
sync
reboot -f
