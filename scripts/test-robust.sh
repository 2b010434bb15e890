#!/usr/bin/env bash
# The lab under Ctrl-C, a second command and bad input: the checks that
# take seconds, one "ok"/"not ok" line each, then "N passed, N failed".
# Run by make test (which holds the build directory's lock: the boot
# below is part of its run).
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
# shellcheck source=tap.sh
. "$(dirname "$0")/tap.sh"
lib=$LAB_ROOT/scripts
tmp=$(mktemp -d)
trap 'lab_cleanup; rm -rf "$tmp"' EXIT

# 1. The time limits nest, each inside the next.
nest() {
	local programs=8 boot
	boot=$(boot_limit "$programs")
	[ $((LIMIT_READ_MS / 1000)) -lt "$LIMIT_WATCHDOG" ] &&
		[ $((LIMIT_WATCHDOG + 2)) -lt "$LIMIT_PROGRAM" ] &&
		[ $((programs * (LIMIT_PROGRAM + 2))) -lt "$boot" ] &&
		[ $((boot + LIMIT_GDB_EXTRA)) -lt "$LIMIT_INTERACTIVE" ] &&
		[ "$LIMIT_INTERACTIVE" -lt "$LIMIT_RUN" ] &&
		[ "$LIMIT_KERNEL_BUILD" -lt "$LIMIT_RUN" ] && [ "$LIMIT_APT" -lt "$LIMIT_RUN" ]
}
if nest; then pass "the time limits of scripts/limits.sh nest"; else fail "the time limits of scripts/limits.sh nest"; fi

# 2. make clean removes only a directory the lab made.
mkdir "$tmp/other" && echo keep >"$tmp/other/file"
out=$(make -s -C "$LAB_ROOT" clean BUILD_DIR="$tmp/other" 2>&1) && rc=0 || rc=$?
if [ "$rc" -ne 0 ] && [ "$(cat "$tmp/other/file" 2>/dev/null)" = keep ] && grep -q 'refusing to clean' <<<"$out"; then
	pass "make clean BUILD_DIR=<a directory with a file> refuses, and the file is still there"
else
	fail "make clean BUILD_DIR=<a directory with a file> refuses (exit $rc): $out"
fi

# 3. A second command on a busy build directory waits, says for what,
# and runs once the first is done.
mkdir "$tmp/busy" && echo x >"$tmp/busy/$BUILD_MARK"
# shellcheck disable=SC2016 # the inner shell expands them
start_child flock "$tmp/busy/.lab.lock" sh -c 'echo "pid $$, \`make test\`" >"$1"; sleep 3' \
	holder "$tmp/busy/.lab.lock.owner"
sleep 0.5
out=$(env -u LAB_LOCKED -u LAB_DEADLINE BUILD_DIR="$tmp/busy" timeout 20 "$lib/clean.sh" 2>&1) && rc=0 || rc=$?
# shellcheck disable=SC2016 # backquotes in the text
if [ "$rc" -eq 0 ] && [ ! -e "$tmp/busy" ] && grep -q 'waiting for the lab run of pid [0-9]*, `make test`' <<<"$out"; then
	pass "a second lab command waits for the first, says which, then runs"
else
	fail "a second lab command waits for the first, says which, then runs (exit $rc): $out"
fi

# 4. Ctrl-C during a long child leaves nothing running: the terminal's
# SIGINT reaches the script's process group, the script stops the child's.
# (A background job would start with SIGINT ignored, as no terminal's
# foreground job does: env --default-signal undoes that.)
# shellcheck disable=SC2016
start_child env --default-signal=INT bash -c '. "$1/common.sh"; run_logged sleeper "$2/sleeper.log" 100 sh -c "sleep 61.5 & sleep 62.5"' \
	ctrl-c "$lib" "$tmp"
pid=$CHILD_PID
for _ in $(seq 1 50); do pgrep -f 'sleep 62.5' >/dev/null && break; sleep 0.1; done
kill -INT -- "-$pid"
sleep 2
left=$(pgrep -f 'sleep 6[12].5' || true)
if [ -z "$left" ] && ! kill -0 "$pid" 2>/dev/null; then
	pass "Ctrl-C during run_logged stops the command and its whole process group within 2 s"
else
	fail "Ctrl-C during run_logged stops the command and its whole process group: left $left"
fi
stop_group "$pid"

# 5. The same during a boot: no QEMU is left, and boot.sh says why it
# ended. The step whose boot took longest last time gives the most room.
s=$(for x in $(step_slugs); do echo "$(cat "$(step_out "$x")/boot-seconds" 2>/dev/null || echo 0) $x"; done |
	sort -n | tail -n 1 | cut -d' ' -f2)
LAB_RUN=ctrl-c start_child env --default-signal=INT "$lib/boot.sh" demo "$s" >"$tmp/boot.log" 2>&1
pid=$CHILD_PID
qemu="qemu-system-x86_64 .*serial-ctrl-c.log"
for _ in $(seq 1 100); do pgrep -f "$qemu" >/dev/null && break; sleep 0.1; done
started=$(pgrep -f "$qemu" || true)
sleep 0.5
kill -INT -- "-$pid"
for _ in $(seq 1 10); do pgrep -f "$qemu" >/dev/null || break; sleep 0.1; done
left=$(pgrep -f "$qemu" || true)
ended=$(grep -c '^LAB-END' "$(step_out "$s")/serial-ctrl-c.log" 2>/dev/null || true)
if [ -n "$started" ] && [ -z "$left" ] && [ "$ended" = 0 ]; then
	pass "Ctrl-C during a boot of $s stops its QEMU mid-run, within 1 s"
else
	fail "Ctrl-C during a boot of $s stops its QEMU mid-run (QEMU seen: ${started:-never}, left: ${left:-none}, guest finished first: $ended)"
fi
stop_group "$pid"

finish
