# shellcheck shell=bash
# KVM when it really runs a kernel, TCG otherwise. LAB_KVM=1 requires
# KVM, LAB_KVM=0 forces TCG; unset, a probe decides: QEMU with KVM boots
# the kernel about to be booted and must print its first line ("Linux
# version") within LIMIT_KVM_PROBE seconds. Running the firmware is not
# enough: a nested KVM without hardware help can run it and then take
# minutes to decompress a kernel, and a half-working one pauses the
# guest with an internal error at once. The answer is kept for the
# machine (build/accel), keyed by what decides it: this boot of the
# host, /dev/kvm, QEMU's binary and who we are; so a machine without
# working KVM pays the probe once, not once per command. Not keyed by
# the kernel: every lab kernel is an x86_64 bzImage that QEMU starts the
# same way, and only how fast it starts depends on the host.
# Sets ACCEL (kvm or tcg), ACCEL_WHY and ACCEL_ARGS. Chosen once per lab
# command: the answer is handed down to the scripts it runs (LAB_ACCEL,
# with its key), which take it as it is.

kvm_probe() { # bzImage: fails when KVM cannot be used, saying why in KVM_WHY
	KVM_WHY=
	if [ ! -e /dev/kvm ]; then
		KVM_WHY="no /dev/kvm (no virtualization, or the kvm module is not loaded)"
		return 1
	fi
	if [ ! -r /dev/kvm ] || [ ! -w /dev/kvm ]; then
		KVM_WHY="/dev/kvm is not readable and writable for $(id -un) (the kvm group)"
		return 1
	fi
	local log=$BUILD_DIR/accel-probe.log qlog=$BUILD_DIR/accel-probe-qemu.log end pid why=''
	local qemu=(qemu-system-x86_64 -accel kvm -cpu host -m 128 -nodefaults -display none
		-no-reboot -kernel "$1" -append "console=ttyS0 earlyprintk=serial,ttyS0 panic=-1"
		-serial "file:$log" -monitor none)
	rm -f "$log"
	say "probing KVM: can QEMU with KVM start a kernel here? (at most ${LIMIT_KVM_PROBE} s, once for this machine)"
	CHILD_WHAT="the KVM probe (QEMU)" start_child "${qemu[@]}" </dev/null >"$qlog" 2>&1
	pid=$CHILD_PID
	end=$((${EPOCHREALTIME//[!0-9]/} + LIMIT_KVM_PROBE * 1000000))
	until grep -q 'Linux version' "$log" 2>/dev/null; do
		if grep -q 'KVM internal error' "$qlog"; then
			why=$(grep -m 1 'KVM internal error' "$qlog")
		elif ! kill -0 "$pid" 2>/dev/null; then
			why="QEMU with KVM ended before the kernel printed anything: $(tail -n 1 "$qlog")"
		elif [ "${EPOCHREALTIME//[!0-9]/}" -ge "$end" ]; then
			why="QEMU with KVM did not get the kernel to its first line within ${LIMIT_KVM_PROBE} s (a nested KVM without hardware help?)"
		fi
		[ -z "$why" ] || break
		sleep 0.05
	done 2>/dev/null # (not bash's "Aborted" line for a QEMU that died of its own assert)
	stop_child "$pid"
	KVM_WHY=$why
	[ -z "$why" ]
}

# What decides the probe's answer, as one word: the host's boot, the
# identity of /dev/kvm and of QEMU's binary, and the user.
accel_key() {
	local dev=none q
	[ ! -e /dev/kvm ] || dev=$(stat -L -c '%t.%T.%i.%Z' /dev/kvm)
	q=$(command -v qemu-system-x86_64 || echo none)
	[ "$q" = none ] || q=$q:$(stat -L -c '%i.%s.%Y' "$q")
	echo "$(cat /proc/sys/kernel/random/boot_id)/$dev/$q/$(id -u)"
}

choose_accel() { # bzImage the probe boots
	local cache=$BUILD_DIR/accel key k a when why t0
	key=$(accel_key)
	if [ "${LAB_ACCEL:-}" ] && [ "${LAB_ACCEL%%$'\n'*}" = "$key ${LAB_KVM:-}" ]; then
		{ read -r _ && read -r ACCEL && read -r ACCEL_WHY; } <<<"$LAB_ACCEL"
	elif [ "${LAB_KVM:-}" = 0 ]; then
		ACCEL=tcg ACCEL_WHY="LAB_KVM=0"
		accel_say "QEMU accelerator: tcg (LAB_KVM=0)"
	elif { read -r k && read -r a && read -r when && read -r why; } 2>/dev/null <"$cache" && [ "$k" = "$key" ]; then
		ACCEL=$a ACCEL_WHY=$why
		accel_say "QEMU accelerator: $ACCEL, as probed at $when on this machine ($ACCEL_WHY; kept in ${cache#"$LAB_ROOT"/}, make clean forgets it)"
	else
		case ${LAB_KVM:-} in
		1 | "") ;;
		*) die "LAB_KVM=$LAB_KVM: use LAB_KVM=1 (require KVM), LAB_KVM=0 (software emulation) or leave it unset (probe)" ;;
		esac
		t0=$(date +%s%N)
		if kvm_probe "$1"; then
			ACCEL=kvm ACCEL_WHY="KVM boots the kernel (probed in $((($(date +%s%N) - t0) / 1000000)) ms)"
		else
			ACCEL=tcg ACCEL_WHY="no KVM: $KVM_WHY (probed in $((($(date +%s%N) - t0) / 1000000)) ms)"
		fi
		printf '%s\n' "$key" "$ACCEL" "$(date '+%Y-%m-%d %H:%M')" "$ACCEL_WHY" >"$cache.tmp"
		mv "$cache.tmp" "$cache"
		accel_say "QEMU accelerator: $ACCEL ($ACCEL_WHY; kept for this machine in ${cache#"$LAB_ROOT"/})"
	fi
	[ "${LAB_KVM:-}" != 1 ] || [ "$ACCEL" = kvm ] ||
		die "LAB_KVM=1, but KVM cannot run the lab's kernel here: ${ACCEL_WHY#no KVM: }. Run without LAB_KVM (or LAB_KVM=0) for software emulation."
	export LAB_ACCEL="$key ${LAB_KVM:-}"$'\n'"$ACCEL"$'\n'"$ACCEL_WHY"
	# shellcheck disable=SC2034 # read by the scripts that source this file
	case $ACCEL in
	kvm) ACCEL_ARGS=(-accel kvm -cpu host) ;;
	*) ACCEL_ARGS=(-accel tcg) ;;
	esac
}
# once per lab command
accel_say() {
	[ "${LAB_ACCEL_SAID:-}" = "${LAB_LOCKED:-$$}" ] || info "$1"
	export LAB_ACCEL_SAID=${LAB_LOCKED:-$$}
}
