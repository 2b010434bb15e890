# shellcheck shell=bash
# KVM when it really runs a guest, TCG otherwise. LAB_KVM=1 requires
# KVM, LAB_KVM=0 forces TCG; unset, a probe decides: QEMU with KVM runs
# its firmware for a second and its monitor must say "running" (a
# half-working KVM, nested or on a VM host, pauses the guest with an
# internal error at once). The answer is kept for the rest of the lab
# command (build/accel, keyed by the command's lock), so one command
# probes once. Sourced after common.sh; sets ACCEL (kvm or tcg),
# ACCEL_WHY and ACCEL_ARGS.

kvm_probe() { # prints why KVM cannot be used; fails when it cannot
	if [ ! -e /dev/kvm ]; then
		echo "no /dev/kvm (no virtualization, or the kvm module is not loaded)"
		return 1
	fi
	if [ ! -r /dev/kvm ] || [ ! -w /dev/kvm ]; then
		echo "/dev/kvm is not readable and writable for $(id -un) (the kvm group)"
		return 1
	fi
	local out qemu=(qemu-system-x86_64 -accel kvm -cpu host -m 64 -nodefaults -display none
		-no-reboot -serial none -monitor stdio)
	show_cmd "${qemu[@]}" # its monitor is asked: info status, quit
	out=$({ sleep 1; echo 'info status'; sleep 0.2; echo quit; } |
		timeout -k 1 5 "${qemu[@]}" 2>&1 | tr -d '\r')
	grep -q '^VM status: running' <<<"$out" && return 0
	grep -m 1 -E 'KVM internal error|kvm|KVM|error' <<<"$out" || echo "QEMU with KVM did not run (no answer from its monitor)"
	return 1
}

choose_accel() {
	local cache=$BUILD_DIR/accel key=${LAB_LOCKED:-$$}:${LAB_DEADLINE:-} k a why t0
	if read -r k a why 2>/dev/null <"$cache" && [ "$k" = "$key" ]; then
		ACCEL=$a ACCEL_WHY=$why
	else
		case ${LAB_KVM:-} in
		0) ACCEL=tcg ACCEL_WHY="LAB_KVM=0" ;;
		1 | "")
			t0=$(date +%s%N)
			if ACCEL_WHY=$(kvm_probe); then
				ACCEL=kvm ACCEL_WHY="KVM runs a guest (probed in $((($(date +%s%N) - t0) / 1000000)) ms)"
			elif [ "${LAB_KVM:-}" = 1 ]; then
				die "LAB_KVM=1, but KVM cannot run a guest here: $ACCEL_WHY. Run without LAB_KVM (or LAB_KVM=0) for software emulation."
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
