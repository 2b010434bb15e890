#!/usr/bin/env bash
# The pipeline (pipeline.sh) on fakes: the real pipeline.sh, lib/ and
# labhost in a lab of links whose kernel-tree.sh, kernel-build.sh,
# guest-build.sh and boot.sh only log when they start and end (and
# take a moment: a kernel longer). It must build the kernels one after the other, run a
# step's guest and boot beside the next kernel with JOBS=2 and after it
# with JOBS=1, and end at a piece that fails with that piece's log. No
# kernel is built and nothing is booted.
# One TAP test per check (scripts/lib/tap.sh).
# shellcheck source=../lib/core.sh
. "$(dirname "$0")/../lib/core.sh"
lab_setup
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
tap_begin
tap_tmp
mapfile -t all < <(step_slugs)
three=("${all[@]:0:3}")

lab=$tmp/lab
mkdir -p "$lab/scripts/tree" "$lab/scripts/kernel" "$lab/scripts/guest" "$lab/scripts/boot"
for d in steps guest gdb-scripts kernel-patches; do ln -s "$LAB_ROOT/$d" "$lab/$d"; done
for d in lib labhost pipeline.sh; do ln -s "$SCRIPTS/$d" "$lab/scripts/$d"; done
# each fake: "START|END NAME ARGS" lines in the calls file; FAKE_FAIL=NAME:SLUG fails
for f in tree/kernel-tree kernel/kernel-build guest/guest-build boot/boot; do
	cat >"$lab/scripts/$f.sh" <<EOF
#!/bin/sh
echo "START ${f#*/} \$*" >>"\$FAKE_CALLS"
sleep $(if [ "$f" = kernel/kernel-build ]; then echo 0.5; else echo 0.1; fi)
case " \$* " in *" \${FAKE_FAIL#*:} "*) [ "\${FAKE_FAIL%%:*}" != ${f#*/} ] || { echo "fake ${f#*/} failed"; exit 1; } ;; esac
EOF
done
# shellcheck disable=SC2016 # the fakes expand them
{
	echo 'o=$BUILD_DIR/steps/$1; mkdir -p "$o"; : >"$o/programs"' >>"$lab/scripts/guest/guest-build.sh"
	echo 'o=$BUILD_DIR/steps/$2; echo tcg >"$o/boot-accel"; echo 0.1 >"$o/boot-seconds"; echo LAB-BEGIN >"$o/transcript.txt"' \
		>>"$lab/scripts/boot/boot.sh"
}
for f in tree/kernel-tree kernel/kernel-build guest/guest-build boot/boot; do
	echo "echo \"END ${f#*/} \$*\" >>\"\$FAKE_CALLS\"" >>"$lab/scripts/$f.sh"
	chmod +x "$lab/scripts/$f.sh"
done

# pipe NAME JOBS [ENV=VALUE...] -- STEP...: pipeline.sh steps --boot, its
# output in $tmp/NAME.out, its calls in $tmp/NAME.calls, its status in rc
pipe() {
	local name=$1 jobs=$2 env=()
	shift 2
	while [ "$1" != -- ]; do env+=("$1"); shift; done
	shift
	mkdir -p "$tmp/build-$name"
	echo x >"$tmp/build-$name/$BUILD_MARK"
	rc=0
	env -u LAB_LOCKED -u LAB_DEADLINE -u LAB_MODEL -u LAB_ACCEL BUILD_DIR="$tmp/build-$name" JOBS="$jobs" LAB_KVM=0 \
		FAKE_CALLS="$tmp/$name.calls" "${env[@]}" "$lab/scripts/pipeline.sh" steps --boot "$@" \
		</dev/null >"$tmp/$name.out" 2>&1 || rc=$?
}
# the line number of a call in a run's calls file
at() { grep -n -x -m 1 "$2" "$tmp/$1.calls" | cut -d: -f1; }

pipe side 2 -- "${three[@]}"
if [ "$rc" -eq 0 ] && [ "$(grep -c '^==> step .*: booted in QEMU (TCG)' "$tmp/side.out")" = 3 ]; then
	pass "JOBS=2: three steps built and booted, a line for each"
else
	fail "JOBS=2: three steps built and booted, a line for each (exit $rc): $(cat "$tmp/side.out")"
fi
# kernels in order, never two at once
if [ "$(grep 'kernel-build' "$tmp/side.calls" | tr '\n' ' ')" = \
	"START kernel-build ${three[0]} END kernel-build ${three[0]} START kernel-build ${three[1]} END kernel-build ${three[1]} START kernel-build ${three[2]} END kernel-build ${three[2]} " ]; then
	pass "JOBS=2: the kernels are built one after the other, in step order"
else
	fail "JOBS=2: the kernels are built one after the other, in step order: $(grep kernel-build "$tmp/side.calls")"
fi
# the first step's boot starts before the second step's kernel has ended
b=$(at side "START boot demo ${three[0]}") k=$(at side "END kernel-build ${three[1]}")
if [ -n "$b" ] && [ -n "$k" ] && [ "$b" -lt "$k" ]; then
	pass "JOBS=2: step ${three[0]}'s guest and boot run beside step ${three[1]}'s kernel"
else
	fail "JOBS=2: step ${three[0]}'s guest and boot run beside step ${three[1]}'s kernel: $(cat "$tmp/side.calls")"
fi

pipe serial 1 -- "${three[@]}"
b=$(at serial "END boot demo ${three[0]}") k=$(at serial "START kernel-build ${three[1]}")
if [ "$rc" -eq 0 ] && [ -n "$b" ] && [ -n "$k" ] && [ "$b" -lt "$k" ]; then
	pass "JOBS=1: one thing at a time (step ${three[0]} booted before step ${three[1]}'s kernel)"
else
	fail "JOBS=1: one thing at a time (exit $rc): $(cat "$tmp/serial.calls")"
fi

pipe fails 2 FAKE_FAIL="boot:${three[1]}" -- "${three[@]}"
if [ "$rc" -ne 0 ] && grep -q "^error: step ${three[1]}: its guest or boot failed (exit 1; log: .*piece-${three[1]}.log)" "$tmp/fails.out" &&
	grep -q 'fake boot failed' "$tmp/fails.out"; then
	pass "a boot that fails ends the pipeline, naming the step and its log, with the log's last lines"
else
	fail "a boot that fails ends the pipeline, naming the step and its log (exit $rc): $(cat "$tmp/fails.out")"
fi
pipe kfails 2 FAKE_FAIL="kernel-build:${three[1]}" -- "${three[@]}"
if [ "$rc" -ne 0 ] && grep -q "^error: step ${three[1]}: its kernel did not build" "$tmp/kfails.out" &&
	! grep -q "START kernel-build ${three[2]}" "$tmp/kfails.calls"; then
	pass "a kernel that does not build ends the pipeline there, naming the step"
else
	fail "a kernel that does not build ends the pipeline there, naming the step (exit $rc): $(cat "$tmp/kfails.out")"
fi
finish
