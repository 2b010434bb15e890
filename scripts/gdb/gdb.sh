#!/usr/bin/env bash
# Debug a step's kernel with gdb, stopped where the step's story happens.
#   gdb.sh gdbstub STEP [OPTION...]   QEMU's gdbstub: the machine, from reset
#   gdb.sh kgdb STEP [OPTION...]      kgdb in the guest kernel, over ttyS1
# STEP is a number or a slug. The guest runs the step's demo (boot.sh
# demo); steps/SLUG/SLUG.gdb puts the breakpoints. Interactive (default): a gdb prompt, guest stopped.
# --batch: the script runs to its end, the guest to its end, and the
# exit status says whether both did.
# --tcp: the debugger's channel on 127.0.0.1 (make gdb LAB_GDB_TCP=1),
# not the step's own channel (a unix socket, or kgdb's two FIFOs).
# --timeout S: the guest's limit instead of the table's (scripts/lib/limits.sh).
# --debug-remote: gdb's record of every packet in the gdb log (make soak
# keeps it: a damaged reply shows there, byte for byte).
# Logs: build/steps/SLUG/{gdb,serial,boot}-TRANSPORT.log; the commands:
# qemu-TRANSPORT.cmdline and gdb-TRANSPORT.cmdline (V=1 prints both),
# to run by hand, QEMU first.
# shellcheck source=../lib/core.sh
. "$(dirname "$0")/../lib/core.sh"
lab_setup
# shellcheck source=session.sh
. "$(dirname "$0")/session.sh"
lab_lock exclusive

usage="gdb.sh gdbstub|kgdb STEP [--batch] [--tcp] [--timeout S] [--debug-remote]"
parse_args "$usage" --batch --tcp --timeout= --debug-remote -- "$@"
[ ${#ARGS[@]} -eq 2 ] || usage_error "$usage"
transport=${ARGS[0]} batch=${OPT[batch]} tcp=${OPT[tcp]} boot_s=${OPT[timeout]}
case $transport in gdbstub | kgdb) ;; *) usage_error "$usage" ;; esac
s=$(resolve_step "${ARGS[1]}")
# gdb's prompt reads the terminal: its output may go to a pipe or a file
# (make gdb 2>&1 | tee log), its input must be typed
target=${transport/gdbstub/gdb}
[ "$batch" = 1 ] || [ -t 0 ] || die "make $target is a gdb session to type in, and its standard input is not a terminal: run it from a terminal (its output may go to a pipe: make $target STEP=$(step_number "$s") 2>&1 | tee log), or run the step's gdb script to its end without one: scripts/lab.sh $target $(step_number "$s") --batch"

out=$(step_out "$s")
script=$(step_gdb_script "$s")
[ -n "$script" ] || die "step $s has no gdb script (steps/$s/$s.gdb)"
for f in vmlinux bzimage initramfs build_key gdb_constants; do
	f=$(out_file "$out" "$f")
	[ -f "$f" ] || die "step $s is not built yet: no ${f#"$LAB_ROOT"/} (run: make)"
done
helpers=$(out_file "$out" gdb_helpers)
[ -f "$helpers/scripts/gdb/linux/constants.py" ] ||
	die "the kernel's gdb helpers are missing: no ${helpers#"$LAB_ROOT"/} (run: make)"

gdblog=$(run_file "$out" gdb_log "$transport")
serial=$(run_file "$out" serial "$transport")
bootlog=$(run_file "$out" boot_log "$transport")
rm -f "$gdblog" "$bootlog"

# Interactive sessions wait for a person; batch ones only for the guest
# (its boot limit, plus what gdb's own stops cost: LIMIT_GDB_EXTRA).
if [ "$batch" = 1 ]; then
	boot_s=${boot_s:-$(gdb_batch_limit "$out")}
	gdb_s=$boot_s
else
	boot_s=${boot_s:-$LIMIT_INTERACTIVE}
	gdb_s=$LIMIT_INTERACTIVE
fi

fail() { # what failed; one line, naming the logs to read
	die "step $s $transport: $1 (serial log: ${serial#"$LAB_ROOT"/}, gdb log: ${gdblog#"$LAB_ROOT"/})"
}

debug_channel "$transport" "$out" "$tcp" "$transport"
start=$SECONDS
debug_boot "$s" "$transport" "$boot_s" "$bootlog"
# V=1: boot.sh printed its QEMU line into its log; show it here
[ -z "${SHOW_FD:-}" ] || cat "$(run_file "$out" qemu_cmdline "$transport")" >&"$SHOW_FD"

gdb_base_args "$s" "$out" "$transport"
# echo each script command, so the log pairs commands with output
[ "${OPT[debug-remote]}" != 1 ] || GDB_BASE+=(-iex "set debug remote 1")
gdb_args=("${GDB_BASE[@]}" "${DBG_CONNECT[@]}" -ex "set trace-commands on" -x "$script")

# The gdb command, kept in gdb-TRANSPORT.cmdline and shown with V=1.
# vmlinux is its file argument, loaded before the -ex commands run: a
# path is one word there, where "-ex file PATH" splits it at spaces.
gdb_cmd() { # more gdb arguments...
	GDB_CMD=(gdb "${gdb_args[@]}" "$@" "$(out_file "$out" vmlinux)")
}
# the safety net, for kgdb sessions only (scripts/gdb/session.sh)
closer() { [ "$transport" != kgdb ] || kgdb_closer "$DBG_WHERE" "$(run_file "$out" kgdb_end kgdb)"; }
closer_report() { [ "$transport" != kgdb ] || kgdb_closer_report "step $s"; }

rc=0
if [ "$batch" = 1 ]; then
	gdb_cmd -batch -ex "lab-release"
	# gdb's status and the guest's apart: each failure is blamed on its own
	gdb_rc=0
	CHILD_CMDLINE=$(run_file "$out" gdb_cmdline "$transport") run_child "$gdb_s" "${GDB_CMD[@]}" </dev/null >"$gdblog" 2>&1 || gdb_rc=$?
	closer
	[ "$gdb_rc" -ne 124 ] || fail "gdb did not finish within ${gdb_s}s"
	why=$(grep -m1 -E 'Error|error|closed' "$gdblog" || tail -n 1 "$gdblog")
	if ! grep -q "^LAB-GDB-DONE step=$s" "$gdblog"; then
		kill -0 "$BOOT_PID" 2>/dev/null || why="$why; guest: $(tail -n 1 "$bootlog")"
		fail "the gdb script stopped before its end: $why"
	fi
	[ "$gdb_rc" -eq 0 ] || fail "gdb exited with status $gdb_rc after the script's end: $why"
	wait_child "$BOOT_PID" "$boot_s" || rc=$?
	closer_report
	[ "$rc" -ne 124 ] || fail "the guest was still running ${boot_s}s after it started"
	[ "$rc" -eq 0 ] || fail "the guest did not run to its end after gdb let it go: $(tail -n 1 "$bootlog")"
	say "step $s $transport: gdb script and guest ran to their end in $((SECONDS - start))s (gdb log: ${gdblog#"$LAB_ROOT"/})"
	exit 0
fi

# Interactive: gdb in the terminal's foreground (run_foreground: a
# process group of its own, so a Ctrl-C reaches gdb only, and a time
# limit). Not timeout(1) around it: that would pass each Ctrl-C on to
# gdb as a second one, and gdb takes two as "give up on the target".
say "step $s, $transport: gdb runs ${script#"$LAB_ROOT"/} (log: ${gdblog#"$LAB_ROOT"/})"
gdb_cmd -iex "set logging file $gdblog" -iex "set logging overwrite on" \
	-iex "set logging enabled on" -ex "set trace-commands off" -ex "lab-howto"
CHILD_CMDLINE=$(run_file "$out" gdb_cmdline "$transport") run_foreground "$gdb_s" "${GDB_CMD[@]}" || rc=$?
[ "$rc" -ne 137 ] || warn "gdb ended by its ${gdb_s}s time limit"
closer
# Leaving gdb ends the session (lab-howto says how), and the guest
# finishes its demo.
rc=0
wait_child "$BOOT_PID" "$LIMIT_AFTER_GDB" || rc=$?
closer_report
case $rc in
0) t=$(run_file "$out" transcript "$transport") && say "guest ran to its end; transcript: ${t#"$LAB_ROOT"/}" ;;
124) warn "the guest was still running ${LIMIT_AFTER_GDB} s after gdb ended; stopped it (serial log: ${serial#"$LAB_ROOT"/})" ;;
*) warn "the guest did not finish its demo: $(tail -n 1 "$bootlog")" ;;
esac
