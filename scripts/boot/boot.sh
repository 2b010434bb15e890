#!/usr/bin/env bash
# Boot a step's kernel and initramfs in QEMU, always under a timeout,
# with the serial log kept in build/steps/SLUG/.
#   boot.sh demo SLUG [OPTION...] [-- QEMU-ARG...]
#                        run the step's programs; write transcript.txt
#                        and boot-seconds
#   boot.sh shell SLUG [OPTION...]
#                        interactive busybox shell on the serial console
# KVM where it runs a guest, else software emulation (scripts/lib/accel.sh);
# QEMU's own messages go to build/steps/SLUG/qemu-RUN.log, and a KVM
# internal error there stops the boot at once. The whole QEMU command
# goes to qemu-RUN.cmdline (and, with V=1, to the terminal): run that
# line by hand and the same guest boots.
# The options are for the debugger sessions of gdb.sh and for the
# soak, bench, bisect and robustness runs:
#   --run NAME     name the run's files (serial-NAME.log, transcript-NAME.txt)
#                  so that they do not overwrite the plain demo's
#                  (default: demo, or shell)
#   --out DIR      the step's files (bzImage, initramfs, programs) and the
#                  logs in DIR, not build/steps/SLUG (check-tree.sh)
#   --timeout S    the boot's limit instead of the table's (scripts/lib/limits.sh)
#   --append ARGS  more kernel command line
#   -- QEMU-ARG... more QEMU arguments, last, so that a second -serial is ttyS1
# A transcript is written whole or not at all: a boot that does not end
# well leaves the one before it in place. Next to it, transcript.inputs
# says what it was booted from (lib/inputs.sh).
# shellcheck source=../lib/core.sh
. "$(dirname "$0")/../lib/core.sh"
lab_setup
# shellcheck source=../lib/accel.sh
. "$(dirname "$0")/../lib/accel.sh"
# shellcheck source=../lib/inputs.sh
. "$(dirname "$0")/../lib/inputs.sh"
lab_lock exclusive

usage="boot.sh demo|shell STEP [--run NAME] [--out DIR] [--timeout S] [--append ARGS] [-- QEMU-ARG...]"
parse_args "$usage" --run= --out= --timeout= --append= -- "$@"
[ ${#ARGS[@]} -eq 2 ] || usage_error "$usage"
case ${ARGS[0]} in demo | shell) ;; *) usage_error "$usage" ;; esac
mode=${ARGS[0]} s=$(resolve_step "${ARGS[1]}")
run=${OPT[run]} out=${OPT[out]:-$(step_out "$s")} timeout_s=${OPT[timeout]} append=${OPT[append]} extra=("${REST[@]}")
kernel=$(out_file "$out" bzimage) initrd=$(out_file "$out" initramfs)
if [ ! -f "$kernel" ] || [ ! -f "$initrd" ]; then
	die "step $s is not built yet (run: make)"
fi

choose_accel "$kernel"

# The QEMU command of every mode, in QEMU_CMD: the machine, the step's
# kernel and initramfs, the limits of scripts/lib/limits.sh on the kernel
# command line (the guest's only source of them); then the mode's
# serial wiring and the caller's arguments. Kept in qemu-RUN.cmdline.
qemu_cmd() { # guest-mode serial-args...
	local guest_mode=$1
	shift
	QEMU_CMD=(qemu-system-x86_64 "${ACCEL_ARGS[@]}" -m 512 -nodefaults -no-reboot -display none
		-kernel "$kernel" -initrd "$initrd"
		-append "console=ttyS0 quiet panic=-1 lab.step=$(step_number "$s") lab.mode=$guest_mode $(limits_cmdline)${append:+ $append}"
		"$@" "${extra[@]}")
}

# A guest out of time: where is its CPU? QEMU's monitor gives the
# registers (kept in hang-RUN.txt), gdb the kernel symbol at RIP.
where_stuck() {
	local regs pc sym='' rc vml
	vml=$(out_file "$out" vmlinux)
	regs=$("$LAB_PYTHON" "$SCRIPTS/boot/qemu-monitor.py" "$mon" "info registers" "$LIMIT_MONITOR" 2>&1) && rc=0 || rc=$?
	printf '%s\n' "$regs" >"$hang"
	[ "$rc" -eq 0 ] || return 0
	# RIP in long mode, EIP before it (firmware, the kernel's setup)
	pc=$(grep -o -m 1 -E '\b[RE]IP=[0-9a-f]+' <<<"$regs" | cut -d= -f2)
	[ -n "$pc" ] || return 0
	[ ! -f "$vml" ] ||
		sym=$(run_child "$LIMIT_SHORT" gdb -q -nx -batch -ex "info symbol 0x$pc" "$vml" 2>/dev/null </dev/null |
			grep -v '^No symbol' | tail -n 1)
	sym=${sym:-no kernel symbol}
	printf 'PC 0x%s: %s\n' "$pc" "$sym" >>"$hang"
	stuck="its CPU was at 0x$pc, $sym; registers in ${hang#"$LAB_ROOT"/}"
}

case $mode in
demo)
	run=${run:-$DEMO_RUN}
	log=$(run_file "$out" serial "$run")
	qlog=$(run_file "$out" qemu_log "$run")
	transcript=$(run_file "$out" transcript "$run")
	inputs=$(run_file "$out" inputs "$run")
	rm -f "$log" "$qlog"
	timeout_s=${timeout_s:-$(step_boot_limit "$out")}
	# QEMU's monitor on a socket of the run's own: asked only if the
	# guest runs out of time (where_stuck)
	mon=$(socket_path "$out" "monitor-$run")
	hang=$(run_file "$out" hang "$run")
	rm -f "$mon" "$hang"
	qemu_cmd demo -serial "file:$log" -monitor "unix:$mon,server=on,wait=off"
	ON_LIMIT=where_stuck
	start=$(date +%s%N)
	rc=0
	CHILD_CMDLINE=$(run_file "$out" qemu_cmdline "$run") start_child "${QEMU_CMD[@]}" </dev/null 2>"$qlog"
	# a KVM that fails pauses the guest for good: no reason to wait
	wait_child "$CHILD_PID" "$timeout_s" "$qlog" 'KVM internal error' || rc=$?
	rm -f "$mon"
	ms=$((($(date +%s%N) - start) / 1000000))
	[ "$rc" -eq 125 ] && die "step $s: QEMU reported a KVM internal error and paused the guest (stopped at once; see $qlog):
$(grep -m 3 -A 2 'KVM internal error' "$qlog")
KVM does not work on this machine: run with LAB_KVM=0."
	[ "$rc" -eq 124 ] && die "step $s: the guest did not power off within ${CHILD_LIMIT}s$([ "$CHILD_LIMIT" -ge "$timeout_s" ] || echo " (its limit, ${timeout_s} s, cut to what was left of the lab command's)") (QEMU killed; ${stuck:-its monitor did not say where its CPU was}). Serial log: $log"
	[ "$rc" -eq 0 ] || die "step $s: QEMU exited with status $rc: $(tail -n 3 "$qlog"). Serial log: $log"
	grep -q '^LAB-END' "$log" || die "step $s: the guest stopped before its demo finished (panic?). Serial log: $log"
	# whole or not at all, and with what it was booted from
	tr -d '\r' <"$log" | sed -n '/^LAB-BEGIN/,/^LAB-END/p' >"$transcript.tmp"
	boot_inputs "$out" "$append" >"$inputs.tmp"
	mv "$inputs.tmp" "$inputs"
	mv "$transcript.tmp" "$transcript"
	printf '%d.%03d\n' $((ms / 1000)) $((ms % 1000)) >"$(run_file "$out" boot_seconds "$run")"
	echo "$ACCEL" >"$(run_file "$out" boot_accel "$run")"
	;;
shell)
	run=${run:-shell}
	log=$(run_file "$out" serial "$run")
	say "step $s: booting a shell (serial log: ${log#"$LAB_ROOT"/}); leave it with exit"
	qemu_cmd shell -chardev "stdio,id=con,signal=off,logfile=$log" -serial chardev:con -monitor none
	# in the foreground: the terminal is the guest's console (Ctrl-C
	# goes to the guest, signal=off); bounded like any session
	CHILD_CMDLINE=$(run_file "$out" qemu_cmdline "$run") run_foreground "${timeout_s:-$LIMIT_INTERACTIVE}" "${QEMU_CMD[@]}"
	;;
esac
