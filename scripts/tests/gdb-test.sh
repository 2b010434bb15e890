#!/usr/bin/env bash
# The gdb scripts as tests: every step under QEMU's gdbstub and under
# kgdb, in batch mode (gdb.sh TRANSPORT SLUG --batch), and the named
# values gdb printed (LAB-VALUE) checked against the step's gdb-checks
# file by scripts/tests/gdbcheck.py. One TAP test per check (scripts/lib/tap.sh);
# exit status 1 on failure.
#   gdb-test.sh [--transport gdbstub|kgdb] [STEP...]
# only these steps (default: all), only this transport (default: both).
# shellcheck source=../lib/core.sh
. "$(dirname "$0")/../lib/core.sh"
lab_setup
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
tap_begin
lab_lock exclusive
TLOG=$LOGS/gdb-test
mkdir -p "$TLOG"

usage="gdb-test.sh [--transport gdbstub|kgdb] [STEP...]"
parse_args "$usage" --transport= -- "$@"
transports=(gdbstub kgdb)
case ${OPT[transport]} in
'') ;;
gdbstub | kgdb) transports=("${OPT[transport]}") ;;
*) usage_error "$usage" ;;
esac
steps=()
if [ ${#ARGS[@]} -gt 0 ]; then
	for a in "${ARGS[@]}"; do steps+=("$(resolve_step "$a")"); done
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
		# (without the caller's PYTHONDONTWRITEBYTECODE: the check below
		# must see what a learner's gdb writes)
		if env -u PYTHONDONTWRITEBYTECODE "$SCRIPTS/gdb/gdb.sh" "$t" "$s" --batch >"$TLOG/$s-$t.out" 2>&1; then
			pass "$S: gdb script and guest ran to their end in $((SECONDS - start)) s"
		else
			fail "$S: $(tail -n 1 "$TLOG/$s-$t.out")"
		fi
		tap_run "$LAB_PYTHON" "$SCRIPTS/tests/gdbcheck.py" --label "$S" "$(step_dir "$s")/gdb-checks" \
			"$(run_file "$out" gdb_log "$t")" "$(run_file "$out" transcript "$t")"
		# the kernel's helpers are the step's output, which a bundle carries
		# and a rebuild must match: a session leaves them as built
		written=$(find "$(out_file "$out" gdb_helpers)" -name __pycache__ -o -name '*.pyc' | head -n 3)
		if [ -z "$written" ]; then
			pass "$S: the session wrote nothing into the step's gdb helpers"
		else
			fail "$S: the session wrote into the step's gdb helpers: $written"
		fi
		[ "$t" = kgdb ] || continue
		# the lab's ending (k) leaves kgdb waiting for nothing: the safety
		# net (gdb/kgdb-closer.py) found nothing to do, or the guest gone
		net=$(head -n 1 "$(run_file "$out" kgdb_end kgdb)" 2>/dev/null || echo "no answer")
		case $net in
		running | ended | unreachable*) pass "$S: after gdb ended, kgdb waited for nothing (the safety net found: ${net%% *})" ;;
		*) fail "$S: after gdb ended, kgdb waited for nothing (the safety net found: $net)" ;;
		esac
	done
done

# No QEMU of these sessions may outlive them (its command line names the
# session's serial log; another queue may be booting these steps'
# kernels for their demo meanwhile).
left=
for s in "${steps[@]}"; do
	for t in "${transports[@]}"; do
		left+=$(pgrep -f -- "qemu-system-x86_64 .*-serial file:$(run_file "$(step_out "$s")" serial "$t")" || true)
	done
done
if [ -z "$left" ]; then
	pass "no QEMU of these sessions is left running"
else
	fail "no QEMU of these sessions is left running: pids $(echo "$left" | tr '\n' ' ')"
fi

finish
