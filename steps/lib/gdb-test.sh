#!/usr/bin/env bash
# The gdb scripts as tests: every step under QEMU's gdbstub and under
# kgdb, in batch mode (gdb.sh TRANSPORT N --batch), and the values gdb
# printed checked against the story. One "ok - ..." or "not ok - ..."
# line per check, then "N passed, N failed"; exit status 1 on failure.
#   gdb-test.sh [N...]    only these steps (default: all)
# LAB_GDB_TRANSPORTS="gdbstub kgdb" chooses the transports.
# The gdb commands below are in single quotes: their $ are gdb's.
# shellcheck disable=SC2016 source=common.sh
. "$(dirname "$0")/common.sh"
lib=$LAB_ROOT/steps/lib
TLOG=$LOGS/gdb-test
mkdir -p "$TLOG"
# shellcheck source=tap.sh
. "$(dirname "$0")/tap.sh"

if [ $# -gt 0 ]; then
	for n in "$@"; do require_step "$n"; done
	steps=("$@")
else
	steps=()
	for n in $(step_numbers); do
		if step_has_gdb "$n"; then
			steps+=("$n")
		else
			echo "# step $n has no gdb script in $(step_dir "$n"): no debugger session"
		fi
	done
fi
read -r -a transports <<<"${LAB_GDB_TRANSPORTS:-gdbstub kgdb}"

L='' S='' # the gdb log and the name of the session being checked

# What gdb printed for the NTH run (default 1) of script command CMD:
# with trace-commands on, each command is echoed as "+CMD", and lines
# of a command's own nested commands start with "++".
out_of() { # CMD [NTH]
	awk -v cmd="+$1" -v nth="${2:-1}" '
		on && /^\+[^+]/ { exit }
		on { print }
		$0 == cmd && ++n == nth { on = 1 }' "$L"
}
# The value a print command printed: "$7 = 300" gives 300; a char
# array loses its quotes and trailing NULs, spelled out or as repeats.
value() { # CMD [NTH]
	out_of "$@" | sed -n 's/^\$[0-9]* = //p' | head -n 1 |
		sed -e "s/\", '\\\\000' <repeats [0-9]* times>\$/\"/" \
			-e 's/^"\(.*\)"$/\1/' -e 's/\(\\000\)*$//'
}
returned() { # NTH: the value the NTH finish printed
	out_of finish "$1" | sed -n 's/^Value returned is \$[0-9]* = //p' | head -n 1
}
field() { # NAME: "NAME = VALUE" out of a printed struct on stdin
	sed -n "s/.*[{ ]$1 = \\([^,}]*\\).*/\\1/p" | head -n 1
}

is() { # what expected actual
	if [ "$3" = "$2" ]; then
		pass "$S: $1: $2"
	else
		fail "$S: $1: $2, got '${3:0:60}' (log: ${L#"$LAB_ROOT"/})"
	fi
}

# ptype /o output on stdin: total size, offset of name, tail padding
ptype_size() { sed -n 's/.*total size (bytes): *\([0-9]*\) .*/\1/p' | tail -n 1; }
ptype_name_at() { sed -n 's#^/\* *\([0-9]*\) *| *256 \*/ *char name\[256\];$#\1#p'; }
ptype_tail() { # the XXX padding line after name[256], or 0
	awk '/char name\[256\];/ { on = 1; next }
		on && /XXX/ { match($0, /[0-9]+-byte/); print substr($0, RSTART, RLENGTH - 5); found = 1; exit }
		on && /total size/ { exit }
		END { if (!found) print 0 }'
}
# lab-pahole output: the part for vmlinux or the i386 program
pahole_part() { # x86_64|i386
	awk -v abi="($1):" '/^pahole -C/ { on = ($NF == abi); next } on { print }'
}

check_step1() {
	local k i386
	k=$(out_of "ptype /o struct autofs_v5_packet")
	is "sizeof(struct autofs_v5_packet) in vmlinux (ptype /o)" 304 "$(ptype_size <<<"$k")"
	is "offset of name in vmlinux" 44 "$(ptype_name_at <<<"$k")"
	is "tail padding after name[256] in vmlinux" 4 "$(ptype_tail <<<"$k")"
	i386=$(out_of "lab-ptype-i386 systemd-style struct autofs_v5_packet")
	is "sizeof(struct autofs_v5_packet) in the i386 daemon (ptype /o)" 300 "$(ptype_size <<<"$i386")"
	is "offset of name in the i386 daemon" 44 "$(ptype_name_at <<<"$i386")"
	is "tail padding in the i386 daemon" 0 "$(ptype_tail <<<"$i386")"
	k=$(out_of "lab-pahole autofs_v5_packet systemd-style")
	is "pahole size in vmlinux" 304 "$(pahole_part x86_64 <<<"$k" | sed -n 's|.*/\* size: \([0-9]*\),.*|\1|p')"
	is "pahole padding in vmlinux" 4 "$(pahole_part x86_64 <<<"$k" | sed -n 's|.*/\* padding: \([0-9]*\) \*/|\1|p')"
	is "pahole size in the i386 daemon" 300 "$(pahole_part i386 <<<"$k" | sed -n 's|.*/\* size: \([0-9]*\),.*|\1|p')"
	check_read CAN_MERGE 0x10 4
}

# The write by autofs and the i386 daemon's read: steps 1 and 4.
check_read() { # flag-name flag-value bytes-left-after-read
	local before after flags=$(($2))
	is "comm of the task writing the packet" systemd-style "$(value 'p $lx_current(0)->comm')"
	is "count passed to __kernel_write by autofs" 304 "$(value 'p count')"
	is "comm of the task in pipe_read" systemd-style "$(value 'p $lx_current(0)->comm' 2)"
	is "pipe_read runs in a 32-bit syscall" 1 "$(value 'p $lab_in_compat_syscall()')"
	is "bytes the daemon asks pipe_read for" 300 "$(value 'p to->count')"
	before=$(out_of 'p *$buf' 1)
	is "pipe_buffer offset before the read" 0 "$(field offset <<<"$before")"
	is "pipe_buffer len before the read" 304 "$(field len <<<"$before")"
	is "pipe_buffer flags before the read" "$flags" "$(field flags <<<"$before")"
	is "named flags before the read" "$2 (PIPE_BUF_FLAG_$1)" \
		"$(out_of 'lab-pipe-buf $buf' 1 | sed -n 's/.*flags = //p')"
	is "pipe_read returns" 300 "$(returned 1)"
	after=$(out_of 'p *$buf' 2)
	is "pipe_buffer offset after the read" 300 "$(field offset <<<"$after")"
	is "pipe_buffer len after the read" "$3" "$(field len <<<"$after")"
	is "pipe_buffer flags after the read" "$flags" "$(field flags <<<"$after")"
	is "lab-pipe-buf after the read" "offset = 300, len = $3, flags = $2 (PIPE_BUF_FLAG_$1)" \
		"$(out_of 'lab-pipe-buf $buf' 2 | sed -n 's/^pipe_buffer: //p')"
}

check_step2() {
	local pgrp
	is "comm of the client waiting in autofs_wait" systemd-style "$(value 'p $lx_current(0)->comm')"
	is "sbi->compat_daemon of the i386 daemon's mount" 1 "$(value 'p sbi->compat_daemon')"
	pgrp=$(value 'p sbi->oz_pgrp->numbers[0].nr')
	is "lx-ps shows the daemon (pid $pgrp, the mount's process group)" systemd-style \
		"$(out_of lx-ps | awk -v p="$pgrp" '$2 == p { print $3 }')"
	is "autofs_v5_packet_size() returns" 300 "$(returned 1)"
}

check_step3() {
	is "comm at the compat decision, 1st mount" automount "$(value 'p $lx_current(0)->comm' 1)"
	is "1st mount is made in a 32-bit syscall" 1 "$(value 'p $lab_in_compat_syscall()' 1)"
	is "compat_daemon decided for automount" 0 "$(value 'p $sbi->compat_daemon' 1)"
	is "packet size for automount" 304 "$(returned 2)"
	is "comm at the compat decision, 2nd mount" automount.new "$(value 'p $lx_current(0)->comm' 2)"
	is "2nd mount is made in a 32-bit syscall" 1 "$(value 'p $lab_in_compat_syscall()' 2)"
	is "compat_daemon decided for automount.new" 1 "$(value 'p $sbi->compat_daemon' 2)"
	is "packet size for automount.new" 300 "$(returned 4)"
}

check_step4() {
	is "O_DIRECT on the autofs pipe (f_flags & 040000)" 040000 "$(value 'p/o file->f_flags & 040000')"
	check_read PACKET 0x08 0
}

for n in "${steps[@]}"; do
	for t in "${transports[@]}"; do
		L=$(step_out "$n")/gdb-$t.log S="step $n $t"
		start=$SECONDS
		if "$lib/gdb.sh" "$t" "$n" --batch >"$TLOG/step$n-$t.out" 2>&1; then
			pass "$S: gdb script and guest ran to their end in $((SECONDS - start)) s"
		else
			fail "$S: $(tail -n 1 "$TLOG/step$n-$t.out")"
		fi
		if declare -F "check_step$n" >/dev/null; then
			"check_step$n"
		fi
	done
done

# gdb.sh runs QEMU with -pidfile build/steps/N/qemu-TRANSPORT.pid
# (only the steps tested here: another queue may be running the others)
left=$(pgrep -f -- "-pidfile $BUILD_DIR/steps/($(IFS='|'; echo "${steps[*]}"))/qemu-" || true)
if [ -z "$left" ]; then
	pass "no QEMU of these sessions is left running"
else
	fail "no QEMU of these sessions is left running: pids $(echo "$left" | tr '\n' ' ')"
fi

finish
