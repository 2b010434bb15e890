#!/usr/bin/env bash
# Boot a step's kernel and initramfs in QEMU, always under a timeout,
# with the serial log kept in build/steps/N/.
#   boot.sh demo N    run the step's programs; write transcript.txt,
#                     results.txt and boot-seconds; print the transcript
#   boot.sh shell N   interactive busybox shell on the serial console
# Software emulation (TCG) by default; LAB_KVM=1 opts in to KVM.
# For debugger sessions a caller adds QEMU arguments in LAB_QEMU_EXTRA
# (split on spaces), kernel arguments in LAB_APPEND, and names the run in
# LAB_RUN so its files (serial-RUN.log, transcript-RUN.txt, results-RUN.txt)
# do not overwrite the plain demo's.
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

mode=$1 n=$2
out=$(step_out "$n")
if [ ! -f "$out/bzImage" ] || [ ! -f "$out/initramfs.cpio" ]; then
	die "step $n is not built yet (run: make)"
fi
timeout_s=${LAB_BOOT_TIMEOUT:-90}

accel=(-accel tcg)
[ "${LAB_KVM:-0}" = 1 ] && accel=(-accel kvm -cpu host)

# The QEMU command line shared by every mode, in QEMU_ARGS; a mode adds
# its serial wiring, and gdb.sh a gdbstub or a second serial port.
# The caller's extra arguments go last, so that a second -serial is ttyS1.
read -r -a EXTRA <<<"${LAB_QEMU_EXTRA:-}"
qemu_args() { # guest-mode
	QEMU_ARGS=("${accel[@]}" -m 256 -nodefaults -no-reboot -display none
		-kernel "$out/bzImage" -initrd "$out/initramfs.cpio"
		-append "console=ttyS0 quiet panic=-1 lab.step=$n lab.mode=$1 ${LAB_APPEND:-}")
}

case $mode in
demo)
	run=${LAB_RUN:-demo}
	suffix=${LAB_RUN:+-$LAB_RUN}
	log=$out/serial-$run.log
	transcript=$out/transcript$suffix.txt
	results=$out/results$suffix.txt
	rm -f "$log" "$transcript" "$results"
	start=$(date +%s%N)
	rc=0
	qemu_args demo
	timeout -k 5 "$timeout_s" qemu-system-x86_64 "${QEMU_ARGS[@]}" \
		-serial "file:$log" -monitor none "${EXTRA[@]}" </dev/null || rc=$?
	ms=$((($(date +%s%N) - start) / 1000000))
	[ "$rc" -eq 124 ] && die "step $n: the guest did not power off within ${timeout_s}s (QEMU killed). Serial log: $log"
	[ "$rc" -eq 0 ] || die "step $n: QEMU exited with status $rc. Serial log: $log"
	grep -q '^LAB-END' "$log" || die "step $n: the guest stopped before its demo finished (panic?). Serial log: $log"
	tr -d '\r' <"$log" | sed -n '/^LAB-BEGIN/,/^LAB-END/p' >"$transcript"
	grep '^RESULT ' "$transcript" >"$results" || true
	printf '%d.%03d\n' $((ms / 1000)) $((ms % 1000)) >"$out/boot-seconds$suffix"
	;;
shell)
	log=$out/serial-shell.log
	say "step $n: booting a shell (serial log: ${log#"$LAB_ROOT"/}); leave it with exit"
	qemu_args shell
	timeout --foreground -k 5 "${LAB_SHELL_TIMEOUT:-3600}" qemu-system-x86_64 "${QEMU_ARGS[@]}" \
		-chardev "stdio,id=con,signal=off,logfile=$log" -serial chardev:con -monitor none \
		"${EXTRA[@]}"
	;;
*) die "boot.sh: unknown mode '$mode'" ;;
esac
