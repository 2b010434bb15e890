#!/usr/bin/env bash
# The gdb scripts as tests: every step under QEMU's gdbstub and under
# kgdb, in batch mode (gdb.sh TRANSPORT SLUG --batch), and the named
# values gdb printed (LAB-VALUE) checked against the step's gdb-checks
# file by scripts/gdbcheck.py. One TAP test per check (scripts/tap.sh);
# exit status 1 on failure.
#   gdb-test.sh [--transport gdbstub|kgdb] [STEP...]
# only these steps (default: all), only this transport (default: both).
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
# shellcheck source=tap.sh
. "$(dirname "$0")/tap.sh"
lab_lock exclusive
lib=$LAB_ROOT/scripts
TLOG=$LOGS/gdb-test
mkdir -p "$TLOG"

transports=(gdbstub kgdb)
if [ "${1:-}" = --transport ]; then
	case ${2:-} in gdbstub | kgdb) transports=("$2") ;; *) die "usage: gdb-test.sh [--transport gdbstub|kgdb] [STEP...]" ;; esac
	shift 2
fi
steps=()
if [ $# -gt 0 ]; then
	for a in "$@"; do steps+=("$(resolve_step "$a")"); done
else
	for s in $(step_slugs); do
		if step_has_gdb "$s"; then
			steps+=("$s")
		else
			echo "# step $s has no gdb script: no debugger session"
		fi
	done
fi

for s in "${steps[@]}"; do
	for t in "${transports[@]}"; do
		S="step $s $t" out=$(step_out "$s")
		start=$SECONDS
		if "$lib/gdb.sh" "$t" "$s" --batch >"$TLOG/$s-$t.out" 2>&1; then
			pass "$S: gdb script and guest ran to their end in $((SECONDS - start)) s"
		else
			fail "$S: $(tail -n 1 "$TLOG/$s-$t.out")"
		fi
		tap_run python3 "$lib/gdbcheck.py" --label "$S" "$(step_dir "$s")/gdb-checks" \
			"$out/gdb-$t.log" "$out/transcript-$t.txt"
	done
done

# No QEMU of these sessions may outlive them (its command line names the
# session's serial log; another queue may be booting these steps'
# kernels for their demo meanwhile).
left=
for s in "${steps[@]}"; do
	left+=$(pgrep -f -- "qemu-system-x86_64 .*-serial file:$(step_out "$s")/serial-(gdbstub|kgdb)\.log" || true)
done
if [ -z "$left" ]; then
	pass "no QEMU of these sessions is left running"
else
	fail "no QEMU of these sessions is left running: pids $(echo "$left" | tr '\n' ' ')"
fi

finish
