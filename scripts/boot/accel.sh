# shellcheck shell=bash
# KVM when it really runs a kernel, TCG otherwise. LAB_KVM=1 requires
# KVM, LAB_KVM=0 forces TCG; unset, a probe decides: QEMU with KVM boots
# the kernel about to be booted and must print its first line ("Linux
# version") within LIMIT_KVM_PROBE seconds. Running the firmware is not
# enough: a nested KVM without hardware help can run it and then take
# minutes to decompress a kernel, and a half-working one pauses the
# guest with an internal error at once. The answer is kept for the rest
# of the lab command (build/accel, keyed by the command's lock), so one
# command probes once. Sourced after common.sh; sets ACCEL (kvm or
# tcg), ACCEL_WHY and ACCEL_ARGS.

kvm_probe() { # bzImage: prints why KVM cannot be used; fails when it cannot
	if [ ! -e /dev/kvm ]; then
		echo "no /dev/kvm (no virtualization, or the kvm module is not loaded)"
		return 1
	fi
	if [ ! -r /dev/kvm ] || [ ! -w /dev/kvm ]; then
		echo "/dev/kvm is not readable and writable for $(id -un) (the kvm group)"
		return 1
	fi
	local log=$BUILD_DIR/accel-probe.log qlog=$BUILD_DIR/accel-probe-qemu.log end pid why=''
	local qemu=(qemu-system-x86_64 -accel kvm -cpu host -m 128 -nodefaults -display none
		-no-reboot -kernel "$1" -append "console=ttyS0 earlyprintk=serial,ttyS0 panic=-1"
		-serial "file:$log" -monitor none)
	rm -f "$log"
	show_cmd "${qemu[@]}"
	start_child "${qemu[@]}" </dev/null >"$qlog" 2>&1
	pid=$CHILD_PID
	end=$((${EPOCHREALTIME//[!0-9]/} + LIMIT_KVM_PROBE * 1000000))
	while :; do
		if grep -q 'Linux version' "$log" 2>/dev/null; then
			break
		elif grep -q 'KVM internal error' "$qlog"; then
			why=$(grep -m 1 'KVM internal error' "$qlog")
		elif ! kill -0 "$pid" 2>/dev/null; then
			why="QEMU with KVM ended before the kernel printed anything: $(tail -n 1 "$qlog")"
		elif [ "${EPOCHREALTIME//[!0-9]/}" -ge "$end" ]; then
			why="QEMU with KVM did not get the kernel to its first line within ${LIMIT_KVM_PROBE} s (a nested KVM without hardware help?)"
		else
			sleep 0.05
			continue
		fi
		break
	done
	stop_child "$pid"
	[ -z "$why" ] || { echo "$why"; return 1; }
}

choose_accel() { # bzImage the probe boots
	local cache=$BUILD_DIR/accel key=${LAB_LOCKED:-$$}:${LAB_DEADLINE:-} k a why t0
	if read -r k a why 2>/dev/null <"$cache" && [ "$k" = "$key" ]; then
		ACCEL=$a ACCEL_WHY=$why
	else
		case ${LAB_KVM:-} in
		0) ACCEL=tcg ACCEL_WHY="LAB_KVM=0" ;;
		1 | "")
			t0=$(date +%s%N)
			if ACCEL_WHY=$(kvm_probe "$1"); then
				ACCEL=kvm ACCEL_WHY="KVM boots the kernel (probed in $((($(date +%s%N) - t0) / 1000000)) ms)"
			elif [ "${LAB_KVM:-}" = 1 ]; then
				die "LAB_KVM=1, but KVM cannot run the lab's kernel here: $ACCEL_WHY. Run without LAB_KVM (or LAB_KVM=0) for software emulation."
			else
				ACCEL=tcg ACCEL_WHY="no KVM: $ACCEL_WHY (probed in $((($(date +%s%N) - t0) / 1000000)) ms)"
			fi
			;;
		*) die "LAB_KVM=$LAB_KVM: use LAB_KVM=1 (require KVM), LAB_KVM=0 (software emulation) or leave it unset (probe)" ;;
		esac
		echo "$key $ACCEL $ACCEL_WHY" >"$cache"
		info "QEMU accelerator: $ACCEL ($ACCEL_WHY)"
	fi
	# shellcheck disable=SC2034 # read by the scripts that source this file
	case $ACCEL in
	kvm) ACCEL_ARGS=(-accel kvm -cpu host) ;;
	*) ACCEL_ARGS=(-accel tcg) ;;
	esac
}
