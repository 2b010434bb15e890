#!/usr/bin/env bash
# The lab under Ctrl-C, a second command and bad input: the checks that
# take seconds and need no kernel (fakes of QEMU and gdb where one is
# asked for), one TAP test each (scripts/lib/tap.sh). make check runs it
# (which holds the build directory's lock); the checks that boot a real
# guest are tests/test-boot-robust.sh.
# shellcheck source=../lib/core.sh
. "$(dirname "$0")/../lib/core.sh"
lab_setup
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
tap_begin
tap_tmp

# 1. The time limits nest, each inside the next.
nest() {
	local programs=8 boot
	boot=$(boot_limit "$programs")
	[ $((LIMIT_READ_MS / 1000)) -lt "$LIMIT_WATCHDOG" ] &&
		[ $((LIMIT_WATCHDOG + 2)) -lt "$LIMIT_PROGRAM" ] &&
		[ $((programs * (LIMIT_PROGRAM + 2))) -lt "$boot" ] &&
		[ $((boot + LIMIT_GDB_EXTRA)) -lt "$LIMIT_INTERACTIVE" ] &&
		[ "$LIMIT_INTERACTIVE" -lt "$LIMIT_RUN" ] && [ "$LIMIT_SUITE" -lt "$LIMIT_RUN" ] &&
		[ $((boot + LIMIT_GDB_EXTRA)) -lt "$LIMIT_SUITE" ] &&
		[ "$LIMIT_SCAN_STAGE" -lt "$LIMIT_SCAN" ] && [ "$LIMIT_SCAN" -lt "$LIMIT_SUITE" ] &&
		[ "$LIMIT_KERNEL_BUILD" -lt "$LIMIT_RUN" ] && [ "$LIMIT_APT" -lt "$LIMIT_RUN" ] &&
		[ $((2 * LIMIT_KGDB_PROBE)) -lt "$LIMIT_AFTER_GDB" ] && [ "$LIMIT_KVM_PROBE" -lt "$LIMIT_BOOT_BASE" ]
}
if nest; then pass "the time limits of scripts/lib/limits.sh nest"; else fail "the time limits of scripts/lib/limits.sh nest"; fi

# 2. make clean removes only a directory the lab made.
mkdir "$tmp/other" && echo keep >"$tmp/other/file"
out=$(make -s -C "$LAB_ROOT" clean BUILD_DIR="$tmp/other" 2>&1) && rc=0 || rc=$?
if [ "$rc" -ne 0 ] && [ "$(cat "$tmp/other/file" 2>/dev/null)" = keep ] && grep -q 'refusing to clean' <<<"$out"; then
	pass "make clean BUILD_DIR=<a directory with a file> refuses, and the file is still there"
else
	fail "make clean BUILD_DIR=<a directory with a file> refuses (exit $rc): $out"
fi

# 2b. A build dir whose path has a space: kbuild refuses such a tree, so
# the lab works through a plain path that stands for it (lib/layout.sh), and
# make clean removes both. (A real import, boot and gdb session in such
# a path: test-bundle-trip.sh.)
sp="$tmp/with space"
mkdir -p "$sp"
# shellcheck disable=SC2016 # expanded by the inner bash
got=$(env -u LAB_LOCKED BUILD_DIR="$sp" bash -c '. "$1/scripts/lib/core.sh" && lab_setup && printf "%s\n" "$BUILD_DIR" "$KSRC"' sh "$LAB_ROOT" 2>&1) && rc=0 || rc=$?
{ read -r plain_build; read -r plain_tree; } <<<"$got"
if [ "$rc" -eq 0 ] && [[ "$plain_build$plain_tree" != *[[:space:]:]* ]] && [ "$plain_build" -ef "$sp" ] &&
	[ "$(readlink "$sp/linux")" = "$plain_tree" ] && [ "${plain_tree%/*}" = "${plain_build%/*}" ]; then
	pass "a BUILD_DIR with a space is worked in through a plain path ($plain_build), and the kernel tree kept beside it"
else
	fail "a BUILD_DIR with a space is worked in through a plain path (exit $rc): $got"
fi
out=$(run_child "$LIMIT_SHORT" env -u LAB_LOCKED -u LAB_DEADLINE make -s -C "$LAB_ROOT" clean BUILD_DIR="$sp" </dev/null 2>&1) && rc=0 || rc=$?
if [ "$rc" -eq 0 ] && [ ! -e "$sp" ] && [ -n "$plain_build" ] && [ ! -e "${plain_build%/*}" ]; then
	pass "make clean with a BUILD_DIR that has a space removes it and its plain path"
else
	fail "make clean with a BUILD_DIR that has a space removes it and its plain path (exit $rc): $out"
fi

# 3. A build directory a run as root left, used by an ordinary user: a
# clear error that says how to fix it, before anything is built.
nobody_can_read_lab() { setpriv --reuid=65534 --regid=65534 --clear-groups test -r "$LAB_ROOT/Makefile" -a -x "$LAB_ROOT/scripts"; }
if [ "$(id -u)" -ne 0 ]; then
	skip "a build directory left by root, used as a user, says what to do" "needs root to make such a directory (make test as root covers it)"
elif ! nobody_can_read_lab; then
	skip "a build directory left by root, used as a user, says what to do" "the user nobody cannot read $LAB_ROOT"
else
	mkdir -p "$tmp/rootbuild/steps" && chmod 755 "$tmp" "$tmp/rootbuild" && echo x >"$tmp/rootbuild/$BUILD_MARK"
	out=$(run_child "$LIMIT_SHORT" setpriv --reuid=65534 --regid=65534 --clear-groups \
		env -u LAB_LOCKED -u LAB_DEADLINE HOME=/nonexistent \
		make -s -C "$LAB_ROOT" run STEP=1 BUILD_DIR="$tmp/rootbuild" </dev/null 2>&1) && rc=0 || rc=$?
	if [ "$rc" -ne 0 ] && grep -q "has files of the user root" <<<"$out" && grep -q 'sudo chown -R' <<<"$out"; then
		pass "a build directory left by root, used as a user, says what to do"
	else
		fail "a build directory left by root, used as a user, says what to do (exit $rc): $out"
	fi
fi

# 4. A second command on a busy build directory waits, says for what,
# and runs once the first is done.
mkdir "$tmp/busy" && echo x >"$tmp/busy/$BUILD_MARK"
# shellcheck disable=SC2016 # the inner shell expands them
start_child flock "$tmp/busy/.lab.lock" sh -c 'echo "pid $$, \`make test\`" >"$1"; sleep 3' \
	holder "$tmp/busy/.lab.lock.owner"
sleep 0.5
out=$(run_child "$LIMIT_SHORT" env -u LAB_LOCKED -u LAB_DEADLINE BUILD_DIR="$tmp/busy" "$SCRIPTS/clean.sh" </dev/null 2>&1) && rc=0 || rc=$?
# shellcheck disable=SC2016 # backquotes in the text
if [ "$rc" -eq 0 ] && [ ! -e "$tmp/busy" ] && grep -q 'waiting for the lab run of pid [0-9]*, `make test`' <<<"$out"; then
	pass "a second lab command waits for the first, says which, then runs"
else
	fail "a second lab command waits for the first, says which, then runs (exit $rc): $out"
fi

# 5. stop_group: a group that dies at SIGTERM is over as soon as it is
# dead (its orphans may linger as zombies, which do not count), with no
# SIGKILL; one that ignores SIGTERM gets SIGKILL after LIMIT_STOP s.
# (How soon is not asserted in milliseconds: a loaded machine took
# 969 ms. No SIGKILL means stop_group saw it dead within LIMIT_STOP.)
now_ms() { echo $(($(date +%s%N) / 1000000)); }
until_ms() { # limit-ms command...: run the command until it fails or the limit passes
	local end=$(($(now_ms) + $1))
	shift
	while "$@"; do [ "$(now_ms)" -lt "$end" ] || return 1; sleep 0.02; done
}
# the script (a child of ours) or the group it started still runs
still_running() { kill -0 "$1" 2>/dev/null || group_live "$2"; } # pid pgid
group_count() { [ "$(pgrep -c -g "$1")" -lt "$2" ]; } # fewer than $2 processes yet
for ignore in no yes; do
	trap_term=
	[ "$ignore" = yes ] && trap_term='trap "" TERM;'
	start_child sh -c "$trap_term sleep 61.5 & sleep 62.5"
	g=$CHILD_PID
	until_ms 5000 group_count "$g" 3 || true
	t0=$(now_ms)
	stop_group "$g"
	ms=$(($(now_ms) - t0))
	wait "$g" 2>/dev/null || true # (bash would report the SIGKILL)
	if group_live "$g"; then
		fail "stop_group leaves no live process (ignores SIGTERM: $ignore): $(pgrep -a -g "$g")"
	elif [ "$ignore" = no ] && [ "$STOP_SIGNAL" != TERM ]; then
		fail "stop_group stops a group that dies at SIGTERM before its SIGKILL (took $ms ms, $STOP_SIGNAL)"
	elif [ "$ignore" = yes ] && [ "$STOP_SIGNAL" != KILL ]; then
		fail "stop_group sends SIGKILL to a group that ignores SIGTERM (ended by $STOP_SIGNAL)"
	elif [ "$ignore" = no ]; then
		pass "stop_group stops a group that dies at SIGTERM before its SIGKILL (in $ms ms)"
	else
		pass "stop_group sends SIGKILL to a group that ignores SIGTERM (in $ms ms)"
	fi
done

# 6. Ctrl-C during a long child leaves nothing running: the terminal's
# SIGINT reaches the script's process group, the script stops the child's.
# (A background job would start with SIGINT ignored, as no terminal's
# foreground job does: env --default-signal undoes that.) Only the run's
# own processes are looked at: the script, and the group of the command
# it started (its child sh, a group of its own).
# shellcheck disable=SC2016
start_child env --default-signal=INT bash -c '. "$1/core.sh"; supervise_init; run_logged sleeper "$2/sleeper.log" 100 sh -c "sleep 61.5 & sleep 62.5"' \
	ctrl-c "$SCRIPTS/lib" "$tmp" >"$tmp/sleeper.out" 2>&1
pid=$CHILD_PID
inner() { pgrep -P "$pid" -x sh; }
until_ms 5000 eval '! inner >/dev/null' || true
g=$(inner || true)
[ -z "$g" ] || until_ms 5000 group_count "$g" 3 || true
t0=$(now_ms)
kill -INT -- "-$pid"
if [ -z "$g" ]; then
	fail "Ctrl-C during run_logged: the command never started ($(cat "$tmp/sleeper.log" 2>/dev/null))"
elif until_ms 10000 still_running "$pid" "$g"; then
	pass "Ctrl-C during run_logged stops the command and its whole process group (in $(($(now_ms) - t0)) ms)"
else
	fail "Ctrl-C during run_logged stops the command and its whole process group: left $(pgrep -a -g "$g" -r R,S,D,T)"
fi
stop_group "$pid"

# 7. A child started inside a command substitution ($(...), which runs
# none of the script's traps) is stopped by a Ctrl-C too, with a message
# that names it; and one whose starting shell is killed outright
# (SIGKILL: no trap runs) is told to end by the kernel (--pdeathsig).
# shellcheck disable=SC2016
start_child env --default-signal=INT bash -c '. "$1/core.sh"; supervise_init
	got=$(CHILD_WHAT="the comsub sleeper" run_child 100 sh -c "echo \$\$ >$2/comsub.pid; exec sleep 63.5")' \
	comsub "$SCRIPTS/lib" "$tmp" >"$tmp/comsub.log" 2>&1
pid=$CHILD_PID
# shellcheck disable=SC2016 # eval expands it
until_ms 5000 eval '[ ! -s "$tmp/comsub.pid" ]' || true
c=$(cat "$tmp/comsub.pid" 2>/dev/null || true)
kill -INT -- "-$pid"
if [ -z "$c" ]; then
	fail "Ctrl-C stops a child started in a command substitution: it never started ($(cat "$tmp/comsub.log"))"
elif until_ms 5000 still_running "$pid" "$c"; then
	pass "Ctrl-C stops a child started in a command substitution, and says what it stopped: $(grep -o 'stopping the comsub sleeper' "$tmp/comsub.log")"
else
	fail "Ctrl-C stops a child started in a command substitution: left $(pgrep -a -g "$c" || true)"
fi
grep -q '==> interrupted: stopping the comsub sleeper' "$tmp/comsub.log" ||
	fail "Ctrl-C says what it stopped: $(cat "$tmp/comsub.log")"
stop_group "$pid"
rm -f "$tmp/comsub.pid"
# shellcheck disable=SC2016
start_child bash -c '. "$1/core.sh"; supervise_init; start_child sh -c "echo \$\$ >$2/comsub.pid; exec sleep 64.5"; wait' \
	killed "$SCRIPTS/lib" "$tmp" >/dev/null 2>&1
pid=$CHILD_PID
# shellcheck disable=SC2016 # eval expands it
until_ms 5000 eval '[ ! -s "$tmp/comsub.pid" ]' || true
c=$(cat "$tmp/comsub.pid" 2>/dev/null || true)
kill -KILL "$pid"
wait "$pid" 2>/dev/null || true
if [ -n "$c" ] && until_ms 5000 group_live "$c"; then
	pass "a child whose lab script is killed with SIGKILL ends too (the kernel's parent-death signal)"
else
	fail "a child whose lab script is killed with SIGKILL ends too: left $(pgrep -a -g "${c:-0}" || echo "none started")"
fi
stop_group "$pid"

# 7b. The lock is the lab command's alone: a child it starts does not
# hold the lock's descriptor, so nothing it leaves can keep the build
# dir locked. And a lock held by a process of a lab command that is gone
# is not waited on: that process is stopped, saying so.
mkdir -p "$tmp/lockdir" && echo x >"$tmp/lockdir/$BUILD_MARK"
# shellcheck disable=SC2016
out=$(run_child "$LIMIT_SHORT" env -u LAB_LOCKED -u LAB_DEADLINE BUILD_DIR="$tmp/lockdir" bash -c \
	'. "$1/core.sh"; lab_setup --no-model; lab_lock exclusive; run_child 10 sh -c "ls -l /proc/\$\$/fd"' \
	lock "$SCRIPTS/lib" </dev/null 2>&1) && rc=0 || rc=$?
if [ "$rc" -eq 0 ] && grep -q ' -> /' <<<"$out" && ! grep -q '\.lab\.lock' <<<"$out"; then
	pass "a child of a lab command does not inherit the lock's descriptor"
else
	fail "a child of a lab command does not inherit the lock's descriptor (exit $rc): $out"
fi
# a lab of old: its child kept fd 9, the lab itself is gone
start_child env LAB_LOCKED=999999 flock "$tmp/lockdir/.lab.lock" sleep 65.5
stale=$CHILD_PID
# shellcheck disable=SC2016 # backquotes in the text
echo 'pid 999999, `make run STEP=1`' >"$tmp/lockdir/.lab.lock.owner"
# shellcheck disable=SC2016 # eval expands it
until_ms 3000 eval '! pgrep -x -g "$stale" sleep >/dev/null' || true
t0=$(now_ms)
out=$(run_child 20 env -u LAB_LOCKED -u LAB_DEADLINE BUILD_DIR="$tmp/lockdir" "$SCRIPTS/clean.sh" </dev/null 2>&1) && rc=0 || rc=$?
ms=$(($(now_ms) - t0))
if [ "$rc" -eq 0 ] && [ ! -e "$tmp/lockdir" ] && [ "$ms" -lt 5000 ] &&
	grep -q 'the lab command of pid 999999 is gone, but pid [0-9]* (.*), which it started, still holds' <<<"$out"; then
	pass "a lock kept by a child of a lab command that is gone is not waited on: the child is stopped, saying so (in $ms ms)"
else
	fail "a lock kept by a child of a lab command that is gone is not waited on (exit $rc, $ms ms): $out"
fi
stop_child "$stale"

# 8. KVM where it runs, TCG otherwise, and never a silent wait: with a
# QEMU that prints nothing and waits (a nested KVM without hardware
# help, seen on this lab's CI machine, runs the firmware and then takes
# minutes to decompress a kernel), the probe gives up within its limit
# and says why; LAB_KVM=1 then fails, saying why; LAB_KVM=0 probes
# nothing. (The real probe, with a real kernel: test-boot-robust.sh.)
accel_of() { # LAB_KVM value [keep]: what choose_accel decides, in a build dir of its own
	mkdir -p "$tmp/accel" && echo x >"$tmp/accel/$BUILD_MARK" && echo kernel >"$tmp/accel/kernel"
	[ -n "${2:-}" ] || rm -f "$tmp/accel/accel"
	# shellcheck disable=SC2016 # the inner bash expands them
	run_child "$LIMIT_SHORT" env -u LAB_LOCKED -u LAB_DEADLINE -u LAB_ACCEL_SAID BUILD_DIR="$tmp/accel" LAB_KVM="$1" LIMIT_KVM_PROBE=1 \
		bash -c '. "$1/lib/core.sh"; lab_setup; . "$1/lib/accel.sh"; choose_accel "$2"; echo "ACCEL=$ACCEL"' \
		accel "$SCRIPTS" "$tmp/accel/kernel" </dev/null 2>&1
}
mkdir -p "$tmp/slowbin"
printf '#!/bin/sh\necho run >>"%s"\nexec sleep 300\n' "$tmp/slowbin/runs" >"$tmp/slowbin/qemu-system-x86_64"
chmod +x "$tmp/slowbin/qemu-system-x86_64"
# (the probe's limit shrunk to 1 s: what is tested is that it has one)
within=$(((1 + 3) * 1000))
t0=$(now_ms)
out=$(PATH="$tmp/slowbin:$PATH" accel_of "") && rc=0 || rc=$?
ms=$(($(now_ms) - t0))
why=$(sed -n 's/.*QEMU accelerator: tcg (//p' <<<"$out")
if [ "$rc" -eq 0 ] && grep -qx 'ACCEL=tcg' <<<"$out" && [ "$ms" -lt "$within" ] &&
	grep -q 'no /dev/kvm\|not readable and writable\|did not get the kernel to its first line within' <<<"$why" &&
	! pgrep -f "$tmp/slowbin" >/dev/null; then
	pass "a KVM that does not start the kernel means software emulation within the probe's limit, and says why (${why%)}, in $ms ms)"
else
	fail "a KVM that does not start the kernel means software emulation within the probe's limit, and says why (exit $rc, $ms ms): $out"
fi
# the answer is the machine's: the next command reads it, and probes
# again only when what decides it changed (here: another QEMU)
t0=$(now_ms)
out=$(PATH="$tmp/slowbin:$PATH" accel_of "" keep) && rc=0 || rc=$?
ms=$(($(now_ms) - t0))
if [ -e /dev/kvm ] && [ -r /dev/kvm ] && [ "$(wc -l <"$tmp/slowbin/runs")" != 1 ]; then
	fail "the KVM probe ran once (it ran $(wc -l <"$tmp/slowbin/runs") times)"
elif [ "$rc" -eq 0 ] && grep -qx 'ACCEL=tcg' <<<"$out" && grep -q 'QEMU accelerator: tcg, as probed at .* on this machine (no KVM: ' <<<"$out" &&
	! grep -q 'probing KVM' <<<"$out"; then
	pass "a second command does not probe: it says where its answer came from (in $ms ms)"
else
	fail "a second command does not probe: it says where its answer came from (exit $rc, $ms ms): $out"
fi
mkdir -p "$tmp/slowbin2" && cp "$tmp/slowbin/qemu-system-x86_64" "$tmp/slowbin2/" && echo >>"$tmp/slowbin2/qemu-system-x86_64"
out=$(PATH="$tmp/slowbin2:$PATH" accel_of "" keep) && rc=0 || rc=$?
if [ "$rc" -eq 0 ] && { grep -q 'probing KVM' <<<"$out" || [ ! -r /dev/kvm ]; } && ! grep -q 'as probed at' <<<"$out"; then
	pass "another QEMU binary: the answer kept is not used, the probe decides again"
else
	fail "another QEMU binary: the answer kept is not used, the probe decides again (exit $rc): $out"
fi
t0=$(now_ms)
out=$(PATH="$tmp/slowbin:$PATH" accel_of 1) && rc=0 || rc=$?
ms=$(($(now_ms) - t0))
if [ "$rc" -ne 0 ] && [ "$ms" -lt "$within" ] && grep -q "LAB_KVM=1, but KVM cannot run the lab's kernel here: ." <<<"$out"; then
	pass "LAB_KVM=1 without working KVM fails within the probe's limit, saying why"
else
	fail "LAB_KVM=1 without working KVM fails within the probe's limit, saying why (exit $rc, $ms ms): $out"
fi
out0=$(PATH="$tmp/slowbin:$PATH" accel_of 0) && rc=0 || rc=$?
if [ "$rc" -eq 0 ] && grep -qx 'ACCEL=tcg' <<<"$out0" && grep -q 'tcg (LAB_KVM=0)' <<<"$out0"; then
	pass "LAB_KVM=0 forces software emulation without a probe"
else
	fail "LAB_KVM=0 forces software emulation without a probe (exit $rc): $out0"
fi

# 9. gdb.sh --batch blames what failed: a gdb that fails after its
# script's end is gdb's failure, not the guest's. Fakes of QEMU (it
# listens on the debugger's socket, and the guest ends its demo) and gdb
# (it runs the script to its end, then exits with FAKE_GDB_RC), in a
# build directory of their own: nothing is built or booted.
f=$tmp/gdbfake
o=$(step_out_in "$f/build" "$(first_step)") # where gdb.sh and boot.sh look for the step
h=$(out_file "$o" gdb_helpers)/scripts/gdb/linux
mkdir -p "$f/bin" "$h"
echo x >"$f/build/$BUILD_MARK"
touch "$h/constants.py"
for x in vmlinux bzimage initramfs build_key gdb_constants; do touch "$(out_file "$o" "$x")"; done
echo 'systemd-style i386 systemd-style' >"$(out_file "$o" programs)"
cat >"$f/bin/qemu-system-x86_64" <<'EOF'
#!/bin/sh
s='' p=''
for a; do case $a in *path=*) s=${a#*path=} ;; *port=*) p=${a#*port=} ;; file:*) log=${a#file:} ;; esac; done
printf 'LAB-BEGIN step=1\nLAB-END step=1\n' >"$log"
if [ -n "$s" ]; then
	"$LAB_PYTHON" -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "${s%%,*}"
else # --tcp: listen for a while, as QEMU would
	"$LAB_PYTHON" -c 'import socket, sys, time; l = socket.socket(); l.bind(("127.0.0.1", int(sys.argv[1]))); l.listen(); time.sleep(2)' "${p%%,*}"
fi
EOF
cat >"$f/bin/gdb" <<EOF
#!/bin/sh
echo "\$*" >"$f/gdb-args"
echo 'LAB-GDB-DONE step=$(first_step)'
[ "\$FAKE_GDB_RC" = 0 ] || echo 'Error: lab-release failed'
exit "\$FAKE_GDB_RC"
EOF
chmod +x "$f/bin/"*
gdb_batch() { # the fake gdb's exit status [gdb.sh option...]: gdb.sh's output, and its status
	run_child "$LIMIT_SHORT" env -u LAB_LOCKED -u LAB_DEADLINE -u LAB_MODEL PATH="$f/bin:$PATH" BUILD_DIR="$f/build" \
		LAB_KVM=0 FAKE_GDB_RC="$1" "$SCRIPTS/gdb/gdb.sh" gdbstub "$(first_step)" --batch "${@:2}" </dev/null 2>&1
}
out=$(gdb_batch 0) && rc=0 || rc=$?
if [ "$rc" -eq 0 ] && grep -q 'gdb script and guest ran to their end' <<<"$out"; then
	pass "gdb.sh --batch with fakes of gdb and QEMU that succeed succeeds"
else
	fail "gdb.sh --batch with fakes of gdb and QEMU that succeed succeeds (exit $rc): $out"
fi
out=$(gdb_batch 3) && rc=0 || rc=$?
if [ "$rc" -ne 0 ] && grep -q 'gdb exited with status 3 .*lab-release failed' <<<"$out" &&
	! grep -q 'the guest did not run' <<<"$out"; then
	pass "gdb.sh --batch blames gdb, not the guest, for gdb's failure"
else
	fail "gdb.sh --batch blames gdb, not the guest, for gdb's failure (exit $rc): $out"
fi
rm -f "$f/gdb-args"
out=$(gdb_batch 0 --tcp) && rc=0 || rc=$?
if [ "$rc" -eq 0 ] && grep -q 'target remote 127\.0\.0\.1:[0-9]' "$f/gdb-args"; then
	pass "gdb.sh --tcp connects gdb to QEMU over 127.0.0.1"
else
	fail "gdb.sh --tcp connects gdb to QEMU over 127.0.0.1 (exit $rc; gdb's arguments: $(cat "$f/gdb-args")): $out"
fi

# 10. A QEMU that reports a KVM internal error and then waits, paused,
# for ever: the boot stops at once and says so (the fake build dir of 9).
mkdir -p "$tmp/fakebin"
printf '#!/bin/sh\necho $$ >"%s"\necho "KVM internal error. Suberror: 1" >&2\necho "emulation failure" >&2\nexec sleep 300\n' \
	"$tmp/fakeqemu.pid" >"$tmp/fakebin/qemu-system-x86_64"
chmod +x "$tmp/fakebin/qemu-system-x86_64"
t0=$(now_ms)
out=$(run_child "$LIMIT_SHORT" env -u LAB_LOCKED -u LAB_DEADLINE -u LAB_MODEL PATH="$tmp/fakebin:$PATH" BUILD_DIR="$f/build" LAB_KVM=0 \
	"$SCRIPTS/boot/boot.sh" demo "$(first_step)" --run kvm-error </dev/null 2>&1) && rc=0 || rc=$?
ms=$(($(now_ms) - t0))
if [ "$rc" -ne 0 ] && [ "$ms" -lt 5000 ] && grep -q 'QEMU reported a KVM internal error' <<<"$out" &&
	! group_live "$(cat "$tmp/fakeqemu.pid")"; then
	pass "a KVM internal error stops the boot at once and says so (in $ms ms)"
else
	fail "a KVM internal error stops the boot at once and says so (exit $rc, $ms ms): $out"
fi

finish
