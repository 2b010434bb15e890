#!/usr/bin/env bash
# Boot a step's kernel and initramfs in QEMU, always under a timeout,
# with the serial log kept in build/steps/SLUG/.
#   boot.sh demo SLUG    run the step's programs; write transcript.txt
#                        and boot-seconds
#   boot.sh shell SLUG   interactive busybox shell on the serial console
# KVM where it runs a guest, else software emulation (scripts/accel.sh);
# QEMU's own messages go to build/steps/SLUG/qemu-RUN.log, and a KVM
# internal error there stops the boot at once.
# For debugger sessions a caller adds QEMU arguments in LAB_QEMU_EXTRA
# (split on spaces), kernel arguments in LAB_APPEND, and names the run in
# LAB_RUN so its files (serial-RUN.log, transcript-RUN.txt) do not
# overwrite the plain demo's.
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
# shellcheck source=accel.sh
. "$(dirname "$0")/accel.sh"
lab_lock exclusive

mode=$1 s=$2
out=$(step_out "$s")
if [ ! -f "$out/bzImage" ] || [ ! -f "$out/initramfs.cpio" ]; then
	die "step $s is not built yet (run: make)"
fi
timeout_s=${LAB_BOOT_TIMEOUT:-$(boot_limit "$(grep -c . "$out/programs")")}

choose_accel

# The QEMU command line shared by every mode, in QEMU_ARGS; a mode adds
# its serial wiring, and gdb.sh a gdbstub or a second serial port.
# The caller's extra arguments go last, so that a second -serial is ttyS1.
read -r -a EXTRA <<<"${LAB_QEMU_EXTRA:-}"
qemu_args() { # guest-mode
	QEMU_ARGS=("${ACCEL_ARGS[@]}" -m 512 -nodefaults -no-reboot -display none
		-kernel "$out/bzImage" -initrd "$out/initramfs.cpio"
		-append "console=ttyS0 quiet panic=-1 lab.step=$(step_number "$s") lab.mode=$1 $(limits_cmdline) ${LAB_APPEND:-}")
}

case $mode in
demo)
	run=${LAB_RUN:-demo}
	suffix=${LAB_RUN:+-$LAB_RUN}
	log=$out/serial-$run.log
	qlog=$out/qemu-$run.log
	transcript=$out/transcript$suffix.txt
	rm -f "$log" "$qlog" "$transcript"
	start=$(date +%s%N)
	rc=0
	qemu_args demo
	start_child qemu-system-x86_64 "${QEMU_ARGS[@]}" \
		-serial "file:$log" -monitor none "${EXTRA[@]}" </dev/null 2>"$qlog"
	# a KVM that fails pauses the guest for good: no reason to wait
	wait_child "$CHILD_PID" "$timeout_s" "$qlog" 'KVM internal error' || rc=$?
	ms=$((($(date +%s%N) - start) / 1000000))
	[ "$rc" -eq 125 ] && die "step $s: QEMU reported a KVM internal error and paused the guest (stopped at once; see $qlog):
$(grep -m 3 -A 2 'KVM internal error' "$qlog")
KVM does not work on this machine: run with LAB_KVM=0."
	[ "$rc" -eq 124 ] && die "step $s: the guest did not power off within ${timeout_s}s (QEMU killed). Serial log: $log"
	[ "$rc" -eq 0 ] || die "step $s: QEMU exited with status $rc: $(tail -n 3 "$qlog"). Serial log: $log"
	grep -q '^LAB-END' "$log" || die "step $s: the guest stopped before its demo finished (panic?). Serial log: $log"
	tr -d '\r' <"$log" | sed -n '/^LAB-BEGIN/,/^LAB-END/p' >"$transcript"
	printf '%d.%03d\n' $((ms / 1000)) $((ms % 1000)) >"$out/boot-seconds$suffix"
	echo "$ACCEL" >"$out/boot-accel$suffix"
	;;
shell)
	log=$out/serial-shell.log
	say "step $s: booting a shell (serial log: ${log#"$LAB_ROOT"/}); leave it with exit"
	qemu_args shell
	# in the foreground: the terminal is the guest's console (Ctrl-C
	# goes to the guest, signal=off); bounded like any session
	timeout --foreground -k 5 "${LAB_SHELL_TIMEOUT:-$LIMIT_INTERACTIVE}" qemu-system-x86_64 "${QEMU_ARGS[@]}" \
		-chardev "stdio,id=con,signal=off,logfile=$log" -serial chardev:con -monitor none \
		"${EXTRA[@]}"
	;;
*) die "boot.sh: unknown mode '$mode'" ;;
esac
