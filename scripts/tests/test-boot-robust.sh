#!/usr/bin/env bash
# The lab under Ctrl-C and out of time, with real guests: the checks of
# test-robust.sh that need a kernel. One TAP test each (lib/tap.sh).
#   - Ctrl-C during a boot leaves no QEMU, and boot.sh says why it ended;
#   - an interrupted make run leaves the step's previous transcript (and
#     its record of inputs) byte for byte;
#   - a guest out of time says where its CPU was;
#   - the KVM probe, with a real kernel, decides within its limit.
# Run by make test, which holds the build directory's lock.
# shellcheck source=../lib/core.sh
. "$(dirname "$0")/../lib/core.sh"
lab_setup
# shellcheck source=../lib/tap.sh
. "$SCRIPTS/lib/tap.sh"
tap_begin
lab_lock exclusive
tap_tmp

now_ms() { echo $(($(date +%s%N) / 1000000)); }
until_ms() { # limit-ms command...: run the command until it fails or the limit passes
	local end=$(($(now_ms) + $1))
	shift
	while "$@"; do [ "$(now_ms)" -lt "$end" ] || return 1; sleep 0.02; done
}
# the script (a child of ours) or the group it started still runs
still_running() { kill -0 "$1" 2>/dev/null || group_live "$2"; } # pid pgid
first=$(first_step)
fo=$(step_out "$first")

# 1. Ctrl-C during a boot: no QEMU is left, and the guest did not get to
# finish first. The step whose boot took longest last time gives the
# most room. QEMU is boot.sh's child, in a group of its own.
s=$(for x in $(step_slugs); do echo "$(cat "$(run_file "$(step_out "$x")" boot_seconds)" 2>/dev/null || echo 0) $x"; done |
	sort -n | tail -n 1 | cut -d' ' -f2)
start_child env --default-signal=INT "$SCRIPTS/boot/boot.sh" demo "$s" --run ctrl-c </dev/null >"$tmp/boot.log" 2>&1
pid=$CHILD_PID
qemu() { pgrep -P "$pid" -x qemu-system-x86; }
until_ms 10000 eval '! qemu >/dev/null' || true
q=$(qemu || true)
sleep 0.5
t0=$(now_ms)
kill -INT -- "-$pid"
stopped=0
[ -z "$q" ] || ! until_ms 10000 still_running "$pid" "$q" || stopped=1
ms=$(($(now_ms) - t0))
ended=$(grep -c '^LAB-END' "$(run_file "$(step_out "$s")" serial ctrl-c)" 2>/dev/null || true)
if [ -z "$q" ]; then
	fail "Ctrl-C during a boot of $s: QEMU never started ($(cat "$tmp/boot.log"))"
elif [ "$stopped" = 1 ] && [ "$ended" = 0 ]; then
	pass "Ctrl-C during a boot of $s stops its QEMU mid-run (in $ms ms)"
else
	fail "Ctrl-C during a boot of $s stops its QEMU mid-run (left: $(pgrep -a -g "$q" || echo none), guest finished first: $ended)"
fi
stop_child "$pid"

# 2. make run STEP=1 stopped by Ctrl-C a second into its boot leaves the
# step's transcript as it was: a boot writes a new one whole, or none.
if [ -s "$(run_file "$fo" transcript)" ]; then
	cp "$(run_file "$fo" transcript)" "$tmp/before.txt"
	cp "$(run_file "$fo" inputs)" "$tmp/before.inputs" 2>/dev/null || : >"$tmp/before.inputs"
	# (under this command's lock, which it inherits: the same build dir)
	start_child env --default-signal=INT make -s -C "$LAB_ROOT" run STEP=1 </dev/null >"$tmp/run.log" 2>&1
	pid=$CHILD_PID
	# until its QEMU runs, then a second more
	# shellcheck disable=SC2016 # eval expands it
	until_ms 60000 eval '! pgrep -f -- "-serial file:$(run_file "$fo" serial)" >/dev/null' || true
	sleep 1
	kill -INT -- "-$pid"
	until_ms 10000 kill -0 "$pid" 2>/dev/null || true
	stop_child "$pid"
	if cmp -s "$tmp/before.txt" "$(run_file "$fo" transcript)" && cmp -s "$tmp/before.inputs" "$(run_file "$fo" inputs)" &&
		! grep -q '^LAB-END' "$(run_file "$fo" serial)"; then
		pass "make run STEP=1 interrupted mid-boot leaves the step's previous transcript and its inputs, byte for byte"
	else
		fail "make run STEP=1 interrupted mid-boot leaves the step's previous transcript, byte for byte ($(cmp "$tmp/before.txt" "$(run_file "$fo" transcript)" 2>&1); run: $(tail -n 2 "$tmp/run.log"))"
	fi
	# the step's demo again, for what comes after (its inputs are the same)
	"$SCRIPTS/boot/boot.sh" demo "$first" >"$tmp/reboot.log" 2>&1 || true
else
	skip "make run STEP=1 interrupted mid-boot leaves the step's previous transcript" "step 1 has no transcript yet (run make)"
fi

# 3. A guest that runs out of time says where its CPU was: boot.sh asks
# QEMU's monitor for the registers before it stops QEMU, and gdb names
# the kernel symbol there, if there is one (a real boot given 4 s: step
# 1's Debian automount alone waits about 11 s).
out=$(run_child "$LIMIT_SHORT" "$SCRIPTS/boot/boot.sh" demo "$first" --run out-of-time --timeout 4 </dev/null 2>&1) &&
	rc=0 || rc=$?
hang=$(run_file "$fo" hang out-of-time)
if [ "$rc" -ne 0 ] && grep -q 'did not power off within 4s (QEMU killed; its CPU was at ' <<<"$out" &&
	grep -q -E '\b[RE]IP=' "$hang" && grep -q '^PC 0x' "$hang" && ! pgrep -f "monitor-out-of-time" >/dev/null; then
	pass "a guest out of time says where its CPU was ($(grep -m 1 '^PC 0x' "$hang"))"
else
	fail "a guest out of time says where its CPU was (exit $rc): $out"
fi

# 4. The KVM probe with the real kernel: it decides within its limit and
# says why; LAB_KVM=1 uses KVM where it works, and fails where it does not.
accel_of() { # LAB_KVM value: what choose_accel decides, in a build dir of its own
	mkdir -p "$tmp/accel" && echo x >"$tmp/accel/$BUILD_MARK"
	# shellcheck disable=SC2016 # the inner bash expands them
	run_child "$LIMIT_SHORT" env -u LAB_LOCKED -u LAB_DEADLINE -u LAB_MODEL BUILD_DIR="$tmp/accel" LAB_KVM="$1" \
		bash -c '. "$1/lib/core.sh"; lab_setup; . "$1/lib/accel.sh"; choose_accel "$2"; echo "ACCEL=$ACCEL"' \
		accel "$SCRIPTS" "$(out_file "$fo" bzimage)" </dev/null 2>&1
}
within=$(((LIMIT_KVM_PROBE + 3) * 1000))
t0=$(now_ms)
out=$(accel_of "") && rc=0 || rc=$?
ms=$(($(now_ms) - t0))
why=$(sed -n 's/.*QEMU accelerator: //p' <<<"$out")
if [ "$rc" -eq 0 ] && [ "$ms" -lt "$within" ] && grep -qx 'ACCEL=\(kvm\|tcg\)' <<<"$out" && [ -n "$why" ]; then
	pass "the KVM probe boots the kernel and decides within ${LIMIT_KVM_PROBE} s, saying why (here: $why)"
else
	fail "the KVM probe boots the kernel and decides within ${LIMIT_KVM_PROBE} s, saying why (exit $rc, $ms ms): $out"
fi
rm -f "$tmp/accel/accel"
out1=$(accel_of 1) && rc=0 || rc=$?
if grep -qx 'ACCEL=kvm' <<<"$out"; then
	if [ "$rc" -eq 0 ] && grep -qx 'ACCEL=kvm' <<<"$out1"; then
		pass "LAB_KVM=1 uses KVM where the probe found it working"
	else
		fail "LAB_KVM=1 uses KVM where the probe found it working (exit $rc): $out1"
	fi
elif [ "$rc" -ne 0 ] && grep -q "LAB_KVM=1, but KVM cannot run the lab's kernel here: ." <<<"$out1"; then
	pass "LAB_KVM=1 where KVM cannot run the kernel fails, saying why"
else
	fail "LAB_KVM=1 where KVM cannot run the kernel fails, saying why (exit $rc): $out1"
fi
finish
