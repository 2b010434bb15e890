#!/usr/bin/env bash
# The whole test suite, one TAP 13 stream (scripts/tap.sh): static
# checks, the kernel series, the guest programs' unit tests, and every
# step booted with its RESULT lines checked against history. Each suite
# it runs is a TAP stream of its own, kept in build/logs/test/, and its
# tests are numbered anew here. The last lines are the plan and
# "N passed, N failed" (", N skipped" when any was).
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
# (before the lock: the version line comes first, a wait is a comment)
# shellcheck source=tap.sh
. "$(dirname "$0")/tap.sh"
lab_lock exclusive
lib=$LAB_ROOT/scripts
TLOG=$LOGS/test
mkdir -p "$TLOG"

# t "description" command...: one check, its output kept in a log
t() {
	local what=$1 log
	shift
	log=$TLOG/$(echo "$what" | tr -c 'A-Za-z0-9.-' '_' | cut -c1-80).log
	if "$@" >"$log" 2>&1; then
		pass "$what"
	else
		fail "$what (log: ${log#"$LAB_ROOT"/})"
		sed 's/^/#   /' "$log" | tail -n 15
	fi
}
# suite NAME command...: a suite's TAP stream, kept in NAME.log, its
# tests ours; a suite that stopped before its plan fails
SUITE_LOGS=()
suite() {
	local log=$TLOG/$1.log
	SUITE_LOGS+=("$log")
	tap_include "$1 ran to its end (log: ${log#"$LAB_ROOT"/})" < <("${@:2}" 2>&1 | tee "$log")
}

"$lib/deps.sh" | sed 's/^/# /'
# An imported bundle (make import) has no kernel tree and no compiler:
# what only a build can check is a SKIP that says so.
no_build="this build dir holds an imported bundle, with no kernel tree or compiler (make verify-bundle checks it where they are)"

say "static checks"
mapfile -t scripts < <(cd "$LAB_ROOT" && { ls scripts/*.sh scripts/tests/*.sh scripts/abi-scan/*.sh guest/*.sh; echo .ci/run; })
for s in "${scripts[@]}"; do
	t "shellcheck $s" shellcheck -x "$LAB_ROOT/$s"
done
t "the guest has no time limit of its own: scripts/limits.sh only (test-limits.sh)" "$lib/test-limits.sh"

say "a bundle that is not this lab's, not this commit's, or damaged"
suite bundle "$lib/test-bundle.sh"

checkpatch_clean() { # the tree's own checkpatch.pl ran and counted no error
	local out
	out=$(cd "$KSRC" && scripts/checkpatch.pl "$1" 2>&1) || true
	echo "$out"
	grep -q '^total: 0 errors, [0-9]* warnings' <<<"$out"
}
# What the kernel tree lets us check: the patches apply and are clean,
# the pristine paths are, and so is the guest's C.
kernel_tree_checks() {
	pass "kernel-patches/ apply with git am to linux-source $(linux_source_version)"
	for p in "$LAB_ROOT"/kernel-patches/*.patch; do
		t "checkpatch.pl: no errors in ${p##*/}" checkpatch_clean "$p"
	done
	# A step whose step.conf says "pristine: PATHS" undoes every earlier
	# change to them: its branch has them as the pristine source has.
	for s in $(step_slugs); do
		read -r -a paths <<<"$(step_conf "$s" pristine)"
		[ ${#paths[@]} -gt 0 ] || continue
		t "after step $s, ${paths[*]} equal the pristine source" \
			git -C "$KSRC" diff --exit-code baseline "$s" -- "${paths[@]}"
	done

	say "the guest's C under the kernel's checkpatch.pl (guest/checkpatch.ignore)"
	suite checkpatch-guest "$lib/checkpatch-guest.sh" "$KSRC"
}
say "kernel tree"
if lab_imported; then
	skip "kernel-patches/ apply with git am, are clean under checkpatch.pl, leave the pristine paths pristine" "$no_build"
	skip "the guest's C is clean under the kernel's checkpatch.pl" "$no_build"
elif "$lib/kernel-tree.sh" 2>&1 | tee "$TLOG/kernel-tree.log" | sed 's/^/#   /'; then
	kernel_tree_checks
else
	fail "kernel-patches/ apply with git am to linux-source $(linux_source_version)"
	finish
	exit 1
fi

say "inventory, sources and authorship (steps/README.md, docs/sources.yml)"
suite inventory "$lib/tap.sh" python3 "$lib/inventory.py" --build "$BUILD_DIR"

say "the step model: every reader of steps/ says the same (scripts/labhost/steps.py, on fakes)"
suite step-model "$lib/tap.sh" python3 "$lib/test_steps.py"

say "the bisect helper's answers to git bisect run (scripts/check-tree.sh, on fakes)"
suite check-tree "$lib/test-check-tree.sh"

# What only a build from source can check.
build_checks() {
	say "the initramfs lists of Debian roots, every layout (scripts/cpio-list.sh)"
	suite cpio-list "$lib/test-cpio-list.sh" "$KOUT/usr/gen_init_cpio"

	local slug
	slug=$(first_step)
	say "step $slug built again elsewhere, without ccache: the same bytes? (scripts/repro-check.sh)"
	suite repro "$lib/repro-check.sh" "$slug"

	say "a workshop's round trip: make bundle, make import, make run STEP=1 from the import"
	suite bundle-trip "$lib/test-bundle-trip.sh"

	say "guest programs: host unit tests, in each ABI this machine runs"
	first=$(step_out "$(first_step)")
	# i386 programs run only on a kernel with IA32 emulation; a shell says
	# 126 for a program it cannot execute
	abis=()
	for abi in i386 x86_64; do
		rc=0
		"$first/guest/$abi/autofs-layout" --help >/dev/null 2>&1 || rc=$?
		if [ "$rc" -eq 126 ]; then
			skip "guest unit tests, $abi" "this machine's kernel cannot run $abi programs (no IA32 emulation); the guests' kernels can"
		else
			abis+=("$abi")
		fi
	done
	tap_include < <(make -s -C "$LAB_ROOT/guest" O="$BUILD_DIR/unit" UAPI="$first/uapi" KSRC="$KSRC" \
		CHECK_ABIS="${abis[*]}" check 2>&1 | tee "$TLOG/unit.log")
	# each guest/tests/test-*.c is a kselftest program, run once per ABI; one
	# that ran to its end printed "# Totals: pass:N fail:N ..."
	unit_progs=("$LAB_ROOT"/guest/tests/test-*.c)
	if [ "$(grep -c '^# Totals: pass:[0-9]* fail:[0-9]* ' "$TLOG/unit.log")" -ne $((${#abis[@]} * ${#unit_progs[@]})) ]; then
		fail "guest unit tests ran to the end in ${abis[*]} (log: ${TLOG#"$LAB_ROOT"/}/unit.log)"
	fi

	say "abi-scan: where else does the autofs packet's problem occur?"
	pristine=$(pristine_step) # (not inside an argument: set -e would miss its failure)
	suite abi-scan "$lib/abi-scan/test.sh" --uapi "$(step_out "$pristine")/uapi" --ksrc "$KSRC" \
		--out "$BUILD_DIR/abi-scan"
}

say "build (progress below; nothing to do when nothing changed)"
if ! "$lib/lab.sh" build 2>&1 | tee "$TLOG/build.log" | sed 's/^/#   /'; then
	fail "build every step's kernel and guest (log: ${TLOG#"$LAB_ROOT"/}/build.log)"
	finish
	exit 1
fi
if lab_imported; then pass "the imported bundle fits this checkout"; else pass "build every step's kernel and guest"; fi

if lab_imported; then
	skip "the initramfs lists of Debian roots, every layout (scripts/cpio-list.sh)" "$no_build"
	skip "a step built again in another directory is the same, byte for byte" "$no_build"
	skip "a bundle of this build imports and boots" "$no_build"
	skip "guest programs: host unit tests" "$no_build"
	skip "abi-scan: the scanner's tests, and its numbers proven by the compiler" "$no_build"
else
	build_checks
fi

say "the rules that compare RESULT lines and gdb values with history"
suite results-rules "$lib/tap.sh" python3 "$lib/test_results.py"

say "bad input"
# An unknown step fails at once and lists the valid ones, and nothing
# goes on without a step to fail again ("error: step  has not run").
bad_step_refused() { # command...
	local out rc=0
	out=$("$@" 2>&1) || rc=$?
	echo "$out"
	[ "$rc" -ne 0 ] && grep -q "STEP=$(step_number "$(first_step)") .*STEP=$(first_step) " <<<"$out" &&
		[ "$(grep -c '^error: ' <<<"$out")" = 1 ] && grep -q '^error: unknown step' <<<"$out"
}
t "make run STEP=77 lists the valid steps and fails" bad_step_refused make -s -C "$LAB_ROOT" run STEP=77
t "make run STEP=padding lists the valid steps and fails" bad_step_refused make -s -C "$LAB_ROOT" run STEP=padding
for c in "verdicts.sh check" "gdb.sh gdbstub" boot-all.sh gdb-test.sh; do
	read -r -a cmd <<<"$c"
	t "$c 77 lists the valid steps and fails, and says nothing else" bad_step_refused "$lib/${cmd[0]}" "${cmd[@]:1}" 77
done

say "Ctrl-C, a second command, make clean, time limits, who is blamed"
suite robust "$lib/test-robust.sh"

say "how a kgdb session ends: through a link that loses gdb's last byte (scripts/tests/test-kgdb-ending.sh)"
suite kgdb-ending "$lib/tests/test-kgdb-ending.sh"

# The boots and the debugger sessions run as two queues side by side:
# QEMU's TCG uses one core per guest, and this is a 2-core lab. Each
# queue is a child of its own (start_child), so that Ctrl-C or a time
# limit stops all of it.
gdb_steps=()
for s in $(step_slugs); do
	step_has_gdb "$s" && gdb_steps+=("$s")
done
half=$(((${#gdb_steps[@]} + 1) / 2))
gdb_a=("${gdb_steps[@]:0:half}") gdb_b=("${gdb_steps[@]:half}")
say "every step booted, and gdbstub and kgdb sessions of every step (two queues)"
rm -f "$TLOG"/gdb-[ab].log "$TLOG/boots.log"
# shellcheck disable=SC2016 # expanded by the inner bash
start_child bash -c '"$1/boot-all.sh" >"$2/boots.log" 2>&1
	[ $# -le 2 ] || "$1/gdb-test.sh" "${@:3}" >"$2/gdb-b.log" 2>&1
	exit 0' queue-b "$lib" "$TLOG" "${gdb_b[@]}"
queue_b=$CHILD_PID
if [ ${#gdb_a[@]} -gt 0 ]; then
	start_child "$lib/gdb-test.sh" "${gdb_a[@]}" >"$TLOG/gdb-a.log" 2>&1
	wait_child "$CHILD_PID" "$LIMIT_RUN" || true
fi
wait_child "$queue_b" "$LIMIT_RUN" || true
tap_include "every step's boot ran (log: ${TLOG#"$LAB_ROOT"/}/boots.log)" <"$TLOG/boots.log"
gdb_logs=()
for q in a b; do
	[ "$q" = a ] && [ ${#gdb_a[@]} -eq 0 ] && continue
	[ "$q" = b ] && [ ${#gdb_b[@]} -eq 0 ] && continue
	gdb_logs+=("$TLOG/gdb-$q.log")
	tap_include "gdb-test.sh ran to its end (log: ${TLOG#"$LAB_ROOT"/}/gdb-$q.log)" <"$TLOG/gdb-$q.log"
done
for s in $(step_slugs); do
	step_has_gdb "$s" || echo "# step $s has no gdb script: no debugger session"
done

say "documentation"
t "the documentation site builds offline (mkdocs build --strict)" "$lib/docs.sh" build
site_is_offline() { # no page loads a script, style, font or image from elsewhere
	! grep -rlE '(src|href)="https?://[^"]*\.(css|js|woff2?|ttf|png|svg)"|fonts\.(googleapis|gstatic)' \
		"$BUILD_DIR/site" --include='*.html'
}
t "the documentation site loads nothing from the network" site_is_offline

say "the suites' TAP through a TAP parser (Perl's TAP::Parser, as prove reads it)"
# (the streams of this run: an imported bundle's has fewer suites)
suite tap "$lib/test-tap.sh" "${SUITE_LOGS[@]}" "$TLOG/boots.log" "${gdb_logs[@]}"

finish
