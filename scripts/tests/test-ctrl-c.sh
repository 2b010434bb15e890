#!/usr/bin/env bash
# Ctrl-C at every stage of the lab's long commands, on real kernels and
# guests. Each trial starts a command as a terminal runs a foreground
# job (a process group of its own, SIGINT not ignored), waits for a
# stage (a process of that command whose command line says which), lets
# it run a moment more (a different moment each time), then sends
# SIGINT to the group, as a terminal's Ctrl-C does. It passes when,
# within 2 s, make has ended, no process of the command is left (every
# process that carries the trial's tag in its environment), none of
# them held the build dir's lock, and the lab said what it stopped.
#   make run STEP=1: the KVM probe (a QEMU with KVM that prints nothing,
#     as on a nested machine without hardware help), the kernel build,
#     the guest build, the boot, the verdict;
#   the gdbstub and kgdb sessions (--batch: an interactive session's
#     Ctrl-C belongs to gdb), make try, make abi-scan, make bundle.
# Then the next make run STEP=1 runs to its verdict. Run by make test,
# which holds the lock: the commands tried run under it, as its own.
# CTRL_C_TRIALS=N: trials per stage (default 5).
# shellcheck source=../lib/core.sh
. "$(dirname "$0")/../lib/core.sh"
lab_setup
# shellcheck source=../lib/tap.sh
. "$SCRIPTS/lib/tap.sh"
tap_begin
lab_lock exclusive
tmp=$BUILD_DIR/test-ctrl-c
rm -rf "$tmp"
mkdir -p "$tmp/bin"
trials=${CTRL_C_TRIALS:-5}
first=$(first_step)
fo=$(step_out "$first")
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# The processes of a trial: those with its tag in their environment
# (every process of the command inherits it; a zombie has none).
tagged() { # tag
	grep -l -s -x -z -F "LAB_CTRL_C_TAG=$1" /proc/[0-9]*/environ | cut -d/ -f3
}
# a process of the trial whose command line matches: pgrep finds the
# candidates in one pass (a short stage is over before a slower look)
stage_seen() { # tag pattern
	local p
	for p in $(pgrep -f -- "$2"); do
		grep -q -s -x -z -F "LAB_CTRL_C_TAG=$1" "/proc/$p/environ" && return 0
	done
	return 1
}
# Has the command's script taken the lab's traps (lab_setup)? A bash of
# the trial that catches SIGHUP: bash leaves it alone unless trapped. A
# Ctrl-C before that is the shell's own and interrupts nothing started.
trapped() { # tag
	local p m
	for p in $(tagged "$1"); do
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" = bash ] || continue
		m=$(sed -n 's/^SigCgt:[[:space:]]*//p' "/proc/$p/status" 2>/dev/null)
		[ -n "$m" ] && (((16#$m) & 1)) && return 0
	done
	return 1
}
holds_lock() { # pid...: those with the lock's file open
	local p fd
	for p; do
		for fd in "/proc/$p/fd/"*; do
			[ "$fd" -ef "$BUILD_DIR/.lab.lock" ] 2>/dev/null && { echo "$p"; break; }
		done
	done
	return 0
}

# One trial. The command's output is kept in build/test-ctrl-c/TAG.log.
# Its status is 2 when the command had ended before the Ctrl-C.
trial() { # what stage-pattern delay-s command...
	local what=$1 pat=$2 delay=$3 tag pid end t0 ms left=() holders said
	shift 3
	tag=$(tr -c 'a-z0-9' _ <<<"$what" | tr -s _)$delay
	start_child env -u LAB_TOP -u LAB_COMMAND --default-signal=INT LAB_CTRL_C_TAG="$tag" "$@" </dev/null >"$tmp/$tag.log" 2>&1
	pid=$CHILD_PID
	end=$((SECONDS + LIMIT_SHORT))
	until stage_seen "$tag" "$pat" && trapped "$tag"; do
		if ! kill -0 "$pid" 2>/dev/null || [ "$SECONDS" -ge "$end" ]; then
			fail "Ctrl-C during $what: the stage never came (no process matching $pat); log: ${tmp#"$LAB_ROOT"/}/$tag.log
$(tail -n 5 "$tmp/$tag.log")"
			stop_child "$pid"
			return
		fi
		sleep 0.02
	done
	mapfile -t left < <(tagged "$tag")
	holders=$(holds_lock "${left[@]}")
	sleep "$delay"
	t0=$(now_ms)
	if ! kill -INT -- "-$pid" 2>/dev/null; then
		stop_child "$pid"
		return 2 # it had ended: not a trial
	fi
	end=$((t0 + 2000))
	while mapfile -t left < <(tagged "$tag") && [ ${#left[@]} -gt 0 ] && [ "$(now_ms)" -lt "$end" ]; do
		sleep 0.02
	done
	ms=$(($(now_ms) - t0))
	said=$(grep -m 3 '^==> interrupted' "$tmp/$tag.log" | tr '\n' ' ')
	if [ ${#left[@]} -gt 0 ]; then
		fail "Ctrl-C during $what ($delay s in): all gone within 2 s; left after $ms ms:
$(for p in "${left[@]}"; do echo "$p $(tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline" | cut -c1-120)"; done)"
		kill -KILL "${left[@]}" 2>/dev/null || true
	elif [ -n "$holders" ]; then
		fail "Ctrl-C during $what ($delay s in): no process of the command held the lock (held by $holders)"
	elif ! grep -q 'stopped, and nothing it started runs on' <<<"$said"; then
		fail "Ctrl-C during $what ($delay s in): the lab says what it stopped; it said: $(tail -n 3 "$tmp/$tag.log")"
	else
		pass "Ctrl-C during $what ($delay s in): everything gone in $ms ms; $said"
	fi
	stop_child "$pid"
}
# The same stage at $trials moments, each $1 s later than the one before
# (or, where the command was over by then, half as late).
sweep() { # step-s what pattern command...
	local i step=$1
	shift
	local rc tries delay
	for ((i = 0; i < trials; i++)); do
		delay=$(awk -v i="$i" -v s="$step" 'BEGIN { printf "%.2f", i * s }')
		# a faster machine may end the stage sooner: half as late again
		for tries in 1 2 3 4; do
			"${PREPARE:-true}"
			rc=0
			trial "$1" "$2" "$delay" "${@:3}" || rc=$?
			[ "$rc" -eq 2 ] || break
			delay=$(awk -v d="$delay" 'BEGIN { printf "%.2f", d / 2 }')
		done
		[ "$rc" -ne 2 ] || fail "Ctrl-C during $1: the command ended before the Ctrl-C, $tries times"
	done
}

run1=(make -s -C "$LAB_ROOT" run STEP=1)
# a KVM that runs the firmware and then prints nothing: the probe runs
# out its limit (this machine's answer, kept in build/accel, is put back)
cat >"$tmp/bin/qemu-system-x86_64" <<'EOF'
#!/bin/sh
case " $* " in *" -accel kvm "*) while :; do sleep 1; done ;; esac
exec /usr/bin/qemu-system-x86_64 "$@"
EOF
chmod +x "$tmp/bin/qemu-system-x86_64"
cp "$BUILD_DIR/accel" "$tmp/accel.kept" 2>/dev/null || true
PREPARE=true
if [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
	sweep 0.9 "make run STEP=1, the KVM probe" '-accel kvm' env -u LAB_KVM PATH="$tmp/bin:$PATH" "${run1[@]}"
else
	skip "Ctrl-C during make run STEP=1, the KVM probe" "the probe starts no QEMU here: /dev/kvm is missing or not readable and writable for $(id -un)"
fi
cp "$tmp/accel.kept" "$BUILD_DIR/accel" 2>/dev/null || rm -f "$BUILD_DIR/accel"
# shellcheck disable=SC2317 # called through PREPARE
new_kernel() { rm -f "$(out_file "$fo" build_key)"; }
PREPARE=new_kernel
sweep 1.5 "make run STEP=1, the kernel build" ' bzImage scripts_gdb' "${run1[@]}"
# shellcheck disable=SC2317
new_guest() { rm -rf "$(out_file "$fo" guest)"; }
PREPARE=new_guest
sweep 0.3 "make run STEP=1, the guest build" 'make -s -C [^ ]*/guest O=' "${run1[@]}"
PREPARE=true
sweep 2 "make run STEP=1, the boot" 'qemu-system-x86_64 -accel tcg' "${run1[@]}"
# the verdict takes a tenth of a second: a Python that waits 2 s before
# it compares gives the Ctrl-C room to land in it
cat >"$tmp/bin/slow-python" <<EOF
#!/bin/sh
case " \$* " in *" labhost.results check "*) sleep 2 ;; esac
exec $LAB_PYTHON "\$@"
EOF
chmod +x "$tmp/bin/slow-python"
sweep 0.4 "make run STEP=1, the verdict" 'labhost\.results check' env LAB_PYTHON="$tmp/bin/slow-python" "${run1[@]}"
sweep 3 "a gdbstub session of step 1" 'qemu-system-x86_64 .*-gdb chardev' "$SCRIPTS/lab.sh" gdb 1 --batch
sweep 3 "a kgdb session of step 4" 'qemu-system-x86_64 .*kgdboc=ttyS1' "$SCRIPTS/lab.sh" kgdb 4 --batch
sweep 4 "make try" 'try\.sh' make -s -C "$LAB_ROOT" try PATCH="$LAB_ROOT/kernel-patches/exercise/packet-pipe.patch"
# (the scan from its start: a scan in its cache is over in a moment)
# shellcheck disable=SC2317
new_scan() { rm -rf "$BUILD_DIR/abi-scan"; }
PREPARE=new_scan
sweep 4 "make abi-scan" 'abi-scan\.sh' make -s -C "$LAB_ROOT" abi-scan
PREPARE=true
sweep 3 "make bundle" 'bundle\.sh make' make -s -C "$LAB_ROOT" bundle

# nothing of what was stopped dumped core into the checkout
if [ -e "$LAB_ROOT/core" ]; then
	fail "the interrupted commands left no core dump in the checkout: $(file "$LAB_ROOT/core" | cut -c1-160)"
else
	pass "the interrupted commands left no core dump in the checkout"
fi
# and after all that, the next command runs to its end
out=$(run_child "$LIMIT_RUN" "${run1[@]}" </dev/null 2>&1) && rc=0 || rc=$?
if [ "$rc" -eq 0 ] && grep -q "^ok - step 1: " <<<"$out" && ! grep -q '^not ok' <<<"$out"; then
	pass "after the interrupted commands, make run STEP=1 runs to its verdict"
else
	fail "after the interrupted commands, make run STEP=1 runs to its verdict (exit $rc)
$(tail -n 10 <<<"$out")"
fi
finish
