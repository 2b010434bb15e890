#!/bin/sh
# One run of Debian 12's own automount (autofs 5.1.8, unmodified) in the
# guest: a real indirect mount with the lab's maps (guest/debian/), in a
# view of its own of /debian/ABI (so several runs can go at once). It
# serves lookups of a (tmpfs), b (bind mount) and nokey (must fail), an
# expiry of both, and a and b again, then is stopped. One RESULT line.
#   debian-run.sh STEP READER ABI NAME INDEX READ_MS
# READER debian-automount runs the binary as shipped; debian-automount-2.6
# runs it under the UNAME26 personality (uname says 2.6.x), so that its
# get_kpkt_len() takes the path of the autofs of 2012. NAME is the name it
# runs as (its comm). READ_MS bounds each lookup, as it does the lab's
# own daemons' reads. Everything is bounded; the daemon is stopped at the
# end, with SIGKILL if SIGTERM does not do.
step=$1 reader=$2 abi=$3 name=$4 ci=$5 read_ms=$6
# shellcheck source=result.sh
. /lab/result.sh
# no default: init.sh passes lab.read_ms
case $read_ms in
0* | *[!0-9]* | '')
	result_line "$step" error setup "$reader" "$abi" "$name" "READ_MS (lab.read_ms) missing or not a whole number above 0: '$read_ms'"
	exit 0
	;;
esac
arch=$abi
[ "$abi" = x86_64 ] && arch=amd64
T=/tmp/deb$ci
mkdir -p "$T"
log=$T/automount.log

# time in 1/100 s, from /proc/uptime: busybox has no sub-second clock
cs() {
	read -r up _ </proc/uptime
	echo "${up%.*}${up#*.}" | sed 's/^0*//;s/^$/0/'
}
until_() { # centiseconds command...: wait for the command to succeed
	end=$(($(cs) + $1))
	shift
	while ! "$@"; do
		[ "$(cs)" -ge "$end" ] && return 1
		sleep 0.1
	done
}
mounted() { grep -q " $1 $2 " /proc/mounts; }
# shellcheck disable=SC2317 # called through until_
gone() { ! grep -q " $1 " /proc/mounts; }
# shellcheck disable=SC2317
stopped() { ! kill -0 "$1" 2>/dev/null; }

finish() { # verdict cause detail
	echo "--- automount's log, the lines about packets and mounts ($(wc -l <"$log") lines in all):"
	grep -E 'handle_packet|type = |read error|unknown packet|can.t find|token|mounted|expire|umount|exit|fail|error' "$log" |
		head -n 60 | sed 's/^/    /'
	result_line "$step" "$1" "$2" "$reader" "$abi" "$name" "$3"
	for d in run tmp dev proc; do umount "$R/$d" 2>/dev/null || umount -l "$R/$d"; done
	umount -l "$R" 2>/dev/null
	exit 0
}

# a view of its own: own /auto, /run (automount's flag file), /tmp
R=/view/$ci
mkdir -p "$R"
mount --bind "/debian/$arch" "$R" || { result_line "$step" error setup "$reader" "$abi" "$name" "bind mount of /debian/$arch failed"; exit 0; }
mount -t proc proc "$R/proc"
mount -t devtmpfs devtmpfs "$R/dev"
mount -t tmpfs tmpfs "$R/tmp"
mount -t tmpfs tmpfs "$R/run"
# the name the kernel sees is the file's: a copy, made atomically (another
# run may be starting an earlier copy)
if [ "$name" != automount ] && [ ! -e "$R/usr/sbin/$name" ]; then
	cp "$R/usr/sbin/automount" "$R/usr/sbin/.$name.$ci" && mv -f "$R/usr/sbin/.$name.$ci" "$R/usr/sbin/$name"
fi
pre=
[ "$reader" = debian-automount-2.6 ] && pre=/lab/x86_64/uname26

# the version as the binary itself reports it
ver=$(chroot "$R" /usr/sbin/automount -V 2>&1 | sed -n 's/.*automount version \([^ ]*\).*/\1/p' | head -n 1)
echo "\$ ${pre:+uname26 }chroot /debian/$arch /usr/sbin/$name -f -d -v -t 1 /etc/auto.master.lab   # Debian's autofs ${ver:-(automount -V said no version)}, $abi"
echo "    uname as it sees it: $($pre uname -r)"
# its own session: the kernel must not take our clients for the daemon;
# in the foreground (-f) automount logs to stderr
# shellcheck disable=SC2086 # pre is empty or one word
setsid $pre chroot "$R" "/usr/sbin/$name" -f -d -v -t 1 /etc/auto.master.lab >"$log" 2>&1 &
pid=$!
if ! until_ 1000 mounted "$R/auto" autofs; then
	kill -KILL "$pid" 2>/dev/null
	finish error mount "no autofs on /auto within 10 s"
fi

# A client can get stuck for good: one that meets an expire in flight
# sleeps uninterruptibly (autofs_expire_wait) until the daemon answers.
# So every lookup runs in the background, and is only waited for.
n=0
lookup() { # key tmpfs|bind|missing
	n=$((n + 1))
	rm -f "$T/rc.$n"
	taken=$(grep -c "name $1," "$log")
	case $2 in
	bind) (cat "$R/auto/$1/marker" >"$T/out.$n" 2>&1; echo $? >"$T/rc.$n") & ;;
	*) (ls -a "$R/auto/$1" >"$T/out.$n" 2>&1; echo $? >"$T/rc.$n") & ;;
	esac
	if ! until_ $((read_ms / 10)) test -s "$T/rc.$n"; then
		echo "    lookup $1: no answer within $read_ms ms"
		# a request the daemon took and is still serving (a real mount
		# on a loaded machine) gets 4 times as long again before it
		# counts as a hang; one it never took, or garbled, does not
		[ "$(grep -c "name $1," "$log")" -gt "$taken" ] &&
			! grep -q -E 'unknown packet type|can.t find map entry' "$log" &&
			until_ $((4 * read_ms / 10)) test -s "$T/rc.$n" ||
			return 2
		echo "    lookup $1: answered after more than $read_ms ms (the daemon had taken it)"
	fi
	rc=$(cat "$T/rc.$n")
	case $2 in
	missing) [ "$rc" -ne 0 ] && grep -q 'No such file' "$T/out.$n" ;;
	bind) [ "$(cat "$T/out.$n")" = bind-ok ] && grep -q " $R/auto/$1 " /proc/mounts ;;
	*) mounted "$R/auto/$1" "$2" ;;
	esac || { echo "    lookup $1: answered, but wrongly (rc $rc: $(head -c 80 "$T/out.$n"))"; return 1; }
	echo "    lookup $1: ok"
}
# Why a lookup got no answer, from the daemon's own log: a packet it
# could not make sense of, or no packet at all (it waits in read() for
# bytes that do not come).
stuck() { # key
	stop
	if grep -q -E 'unknown packet type|can.t find map entry' "$log"; then
		finish broken garbled "lookup of $1 got no answer; the daemon logged: $(grep -m1 -E 'unknown packet type|can.t find map entry' "$log")"
	elif ! grep -q "name $1," "$log"; then
		finish broken stall "lookup of $1 got no answer, and the daemon never handled its request: it is still reading the packet"
	fi
	finish error hang "lookup of $1 got no answer, though the daemon handled its request"
}
stop() { # SIGTERM, bounded; SIGKILL if the daemon is stuck in read()
	kill -TERM "$pid" 2>/dev/null
	if until_ 200 stopped "$pid"; then
		echo "    daemon ended after SIGTERM"
	else
		echo "    daemon still running 2 s after SIGTERM (stuck in a read?): SIGKILL"
		kill -KILL "$pid" 2>/dev/null
		until_ 500 stopped "$pid" || echo "    daemon survived SIGKILL"
	fi
	grep " $R/auto" /proc/mounts | cut -d' ' -f2 | sort -r | while read -r m; do umount -l "$m"; done
}

lookups() { # key:kind...: each must be answered, and rightly
	for kt in "$@"; do
		lookup "${kt%:*}" "${kt#*:}"
		case $? in
		2) stuck "${kt%:*}" ;;
		1) stop; finish error lookup "lookup of ${kt%:*} answered wrongly" ;;
		esac
	done
}

lookups a:tmpfs b:bind nokey:missing
# the daemon's own expire run unmounts both (timeout 1 s)
if until_ 800 gone "$R/auto/a" && until_ 300 gone "$R/auto/b"; then
	echo "    a and b expired"
else
	stop
	finish error expire "a and b did not both expire within 11 s"
fi
# a second round: every kind of packet crosses the pipe more than once
lookups a:tmpfs b:bind
stop
if grep -q -E 'unknown packet type|can.t find map entry|read error on request pipe' "$log"; then
	finish broken garbled "every lookup answered, but the daemon logged: $(grep -m1 -E 'unknown packet type|can.t find map entry|read error on request pipe' "$log")"
fi
finish ok none "5 lookups (a tmpfs, b bind, nokey refused, a, b again) and the expiry of a and b served"
