# shellcheck shell=bash
# The lab's test suites: the table the runner (tests/run.sh) reads, and
# one function per suite. Each function is a TAP 13 stream of its own
# (lib/tap.sh), run by the runner as a child of its own (run.sh
# --run-suite NAME). Sourced after lib/core.sh and lib/tap.sh.
#
# The table: name, tier, queue, and what the suite checks.
#   tier   check: needs no kernel build and no boot (make check);
#          test: needs the build (make test runs both tiers)
#   queue  -: alone, in the table's order; a letter: the suites of one
#          queue run one after the other, side by side with the other
#          queues of the same block (QEMU's TCG uses a core per guest;
#          the check suites, mostly waiting on their children, run in
#          three queues: each works in a build dir of its own;
#          ctrl-c and try, each near one core (short commands, a
#          kernel's link, boots), beside repro's cold builds, which work
#          in a worktree of their own: ctrl-c's rebuild of step 1
#          replaces its files whole, kernel-build.sh)
suite_table() {
	cat <<'EOF'
shellcheck       check  c  every shell script passes shellcheck
pyflakes         check  d  every Python file passes pyflakes (Debian's pyflakes3)
limits           check  c  the guest and the host have no time limit of their own: lib/limits.sh only
model            check  c  the step model: every reader of steps/ says the same (on fakes)
results          check  c  the rules that compare RESULT lines and gdb values with history
scan-units       check  d  the scanner's parsers, on canned pahole output
inventory        check  c  inventory, sources, authorship and source references
bundle           check  c  make import takes only the bundle announced, whole, of this commit
check-tree       check  d  the bisect helper's answers to git bisect run (on fakes)
pipeline         check  e  the pipeline: kernels one at a time, each step's guest and boot beside the next, a failure named (on fakes)
robust           check  d  Ctrl-C, a second command, make clean, time limits, who is blamed
bad-input        check  c  an unknown step is refused by every command, with the list
deps             check  d  the apt-get line for root asks for no name apt would widen (faked Debian 12, 13, empty lists)
runner           check  e  the test runner counts every failure; docs refuse a stale matrix
tree             test   -  kernel-patches/ apply, are clean under checkpatch.pl, leave pristine paths pristine; the pages' source lines
ctrl-c           test   e  Ctrl-C at each stage of make run, gdb, kgdb, try, abi-scan, bundle: all gone in 2 s, no lock kept
try              test   e  make try: the exercise's designs get what the page says; a bad patch, one clear error
repro            test   f  the first step of each kernel config built again elsewhere, without ccache: the same bytes
checkpatch-guest test   -  the guest's C under the kernel's checkpatch.pl
cpio-list        test   -  the initramfs lists of Debian roots, every layout
unit             test   -  the guest programs' host unit tests, in each ABI this machine runs
abi-scan         test   -  the scan of the uapi headers, its numbers proven by the compiler
bundle-trip      test   -  a workshop's round trip: make bundle, make import, make run STEP=1
boots            test   a  every step's guest, booted (or its transcript of these inputs), against history
gdb-a            test   a  gdbstub and kgdb sessions of the first half of the steps, values checked
gdb-b            test   b  gdbstub and kgdb sessions of the other half
kgdb-ending      test   b  how a kgdb session ends, through a link that loses gdb's last byte
boot-robust      test   -  a guest out of time says where; an interrupted boot keeps the transcript
docs             test   -  the documentation site builds offline from a current matrix
tap              check  -  the suites' TAP through Perl's TAP::Parser, as prove reads it
EOF
}

# An imported bundle (make import) has no kernel tree and no compiler:
# what only a build can check is a SKIP that says so.
NO_BUILD="this build dir holds an imported bundle, with no kernel tree or compiler (make verify-bundle checks it where they are)"
skip_imported() { # what
	lab_imported || return 1
	tap_begin
	skip "$1" "$NO_BUILD"
	finish
}

# A script's verdict depends on it and on what it sources, so the
# verdicts of a run where every file passed are kept under one key: the
# hash of shellcheck's version, its settings and every script. Until a
# script changes, the next run reads them (the edit loop of make check,
# where Python changed), and says so.
# One test per file: a linter's findings about it ("FILE:LINE:..." lines
# in FINDINGS) fail it.
lint_files() { # tool findings file...
	local tool=$1 out=$2 f
	shift 2
	for f in "$@"; do
		if grep -q "^$f:" "$out"; then
			fail "$tool $f
$(grep "^$f:" "$out" | head -n 10)"
		else
			pass "$tool $f"
		fi
	done
}
suite_shellcheck() {
	local f files=() key rc=0 other cache=$BUILD_DIR/shellcheck-passed
	tap_begin
	command -v shellcheck >/dev/null || { fail "shellcheck is installed"; finish; return; }
	mapfile -t files < <(cd "$LAB_ROOT" && git ls-files -- '*.sh' .ci/run | LC_ALL=C sort)
	key=$(cd "$LAB_ROOT" && { shellcheck --version; cat .shellcheckrc "${files[@]}"; } | sha256sum | cut -c1-32)
	if [ "$(cat "$cache" 2>/dev/null)" = "$key" ]; then
		for f in "${files[@]}"; do pass "shellcheck $f (unchanged since it passed)"; done
		finish
		return
	fi
	# a few files per shellcheck, two at a time: the slowest static check
	(cd "$LAB_ROOT" && printf '%s\0' "${files[@]}" | xargs -0 -P "$JOBS" -n 6 shellcheck -x -f gcc) \
		>"$TLOG/shellcheck.out" 2>&1 || rc=$?
	# 0: all clean, 123: some file has findings; anything else, or a line
	# that is not a finding, is shellcheck failing to run
	other=$(grep -v -E '^[^:]+:[0-9]+:[0-9]+: (error|warning|note|info|style): ' "$TLOG/shellcheck.out" | head -n 3 || true)
	if { [ "$rc" -ne 0 ] && [ "$rc" -ne 123 ]; } || [ -n "$other" ]; then
		fail "shellcheck ran (exit $rc): $other"
		finish
		return
	fi
	lint_files shellcheck "$TLOG/shellcheck.out" "${files[@]}"
	[ "$rc" -ne 0 ] || echo "$key" >"$cache"
	finish
}

suite_pyflakes() {
	local files=() rc=0
	tap_begin
	command -v pyflakes3 >/dev/null || { fail "pyflakes3 is installed (make installs it)"; finish; return; }
	mapfile -t files < <(cd "$LAB_ROOT" && git ls-files -- '*.py' | LC_ALL=C sort)
	# 0: all clean, 1: findings; a line that is not a finding is pyflakes
	# failing to run
	(cd "$LAB_ROOT" && pyflakes3 "${files[@]}") >"$TLOG/pyflakes.out" 2>&1 || rc=$?
	if [ "$rc" -gt 1 ] || grep -v -q -E '^[^:]+:[0-9]+:([0-9]+:)? ' "$TLOG/pyflakes.out"; then
		fail "pyflakes3 ran (exit $rc): $(grep -v -E '^[^:]+:[0-9]+:([0-9]+:)? ' "$TLOG/pyflakes.out" | head -n 3)"
		finish
		return
	fi
	lint_files pyflakes3 "$TLOG/pyflakes.out" "${files[@]}"
	finish
}

suite_limits() {
	tap_begin
	if "$SCRIPTS/tests/test-limits.sh" >"$TLOG/limits.out" 2>&1; then
		pass "the guest has no time limit of its own: $(tail -n 1 "$TLOG/limits.out")"
	else
		fail "the guest has no time limit of its own: lib/limits.sh only
$(tail -n 15 "$TLOG/limits.out")"
	fi
	finish
}
suite_model() { tap_begin; tap_run "$LAB_PYTHON" "$SCRIPTS/tests/test_steps.py"; finish; }
suite_results() { tap_begin; tap_run "$LAB_PYTHON" "$SCRIPTS/tests/test_results.py"; finish; }
suite_scan-units() { tap_begin; tap_run "$LAB_PYTHON" "$SCRIPTS/tests/test_abiscan.py"; finish; }
suite_inventory() { tap_begin; tap_run "$LAB_PYTHON" "$SCRIPTS/tests/inventory.py" --build "$BUILD_DIR"; finish; }
suite_bundle() { exec "$SCRIPTS/tests/test-bundle.sh"; }
suite_check-tree() { exec "$SCRIPTS/tests/test-check-tree.sh"; }
suite_pipeline() { exec "$SCRIPTS/tests/test-pipeline.sh"; }
suite_deps() { exec "$SCRIPTS/tests/test-deps.sh"; }
suite_robust() { exec "$SCRIPTS/tests/test-robust.sh"; }
suite_runner() {
	tap_begin
	# the Python tests' TAP printer, as tap.sh counts it
	tap_run "$LAB_PYTHON" "$SCRIPTS/tests/test_tap.py"
	tap_include "the runner's own tests ran to their end" < <("$SCRIPTS/tests/test-runner.sh")
	finish
}
suite_ctrl-c() {
	skip_imported "Ctrl-C at each stage of the lab's long commands" && return
	exec "$SCRIPTS/tests/test-ctrl-c.sh"
}

# An unknown step fails at once and lists the valid ones, and nothing
# goes on without a step to fail again ("error: step  has not run").
bad_step_refused() { # what command...
	local what=$1 out rc=0
	shift
	out=$(run_child "$LIMIT_SHORT" "$@" </dev/null 2>&1) || rc=$?
	if [ "$rc" -ne 0 ] && grep -q "STEP=$(step_number "$(first_step)") .*STEP=$(first_step) " <<<"$out" &&
		[ "$(grep -c '^error: ' <<<"$out")" = 1 ] && grep -q '^error: unknown step' <<<"$out"; then
		pass "$what"
	else
		fail "$what (exit $rc)
$out"
	fi
}
suite_bad-input() {
	local c
	tap_begin
	bad_step_refused "make run STEP=77 lists the valid steps and fails" make -s -C "$LAB_ROOT" run STEP=77
	bad_step_refused "make run STEP=padding lists the valid steps and fails" make -s -C "$LAB_ROOT" run STEP=padding
	bad_step_refused "make gdb STEP=77 lists the valid steps and fails" make -s -C "$LAB_ROOT" gdb STEP=77
	for c in "verdict/verdicts.sh check" "boot/boot.sh demo" "guest/guest-build.sh" "kernel/kernel-build.sh" "pipeline.sh steps" \
		"tests/boot-all.sh" "tests/gdb-test.sh"; do
		read -r -a cmd <<<"$c"
		bad_step_refused "${c##*/} 77 lists the valid steps and fails, and says nothing else" \
			"$SCRIPTS/${cmd[0]}" "${cmd[@]:1}" 77
	done
	finish
}

checkpatch_clean() { # patch: the tree's own checkpatch.pl ran and counted no error
	local out
	out=$(cd "$KSRC" && run_child "$LIMIT_SHORT" scripts/checkpatch.pl "$1" </dev/null 2>&1) || true
	if grep -q '^total: 0 errors, [0-9]* warnings' <<<"$out"; then
		pass "checkpatch.pl: no errors in ${1##*/} ($(grep -o '[0-9]* warnings' <<<"$out"))"
	else
		fail "checkpatch.pl: no errors in ${1##*/}
$(tail -n 15 <<<"$out")"
	fi
}
suite_tree() {
	local p s paths
	tap_begin
	skip_imported "kernel-patches/ apply with git am, are clean under checkpatch.pl, leave the pristine paths pristine" && return
	if "$SCRIPTS/tree/kernel-tree.sh" >"$TLOG/kernel-tree.out" 2>&1; then
		pass "kernel-patches/ apply with git am to linux-source $(linux_source_version)"
	else
		fail "kernel-patches/ apply with git am to linux-source $(linux_source_version)
$(tail -n 15 "$TLOG/kernel-tree.out")"
		finish
		return
	fi
	for p in "$LAB_ROOT"/kernel-patches/*.patch; do checkpatch_clean "$p"; done
	# A step whose step.conf says "pristine: PATHS" undoes every earlier
	# change to them: its branch has them as the pristine source has.
	for s in $(step_slugs); do
		read -r -a paths <<<"$(step_pristine_paths "$s")"
		[ ${#paths[@]} -gt 0 ] || continue
		if git -C "$KSRC" diff --quiet --exit-code baseline "$s" -- "${paths[@]}"; then
			pass "after step $s, ${paths[*]} equal the pristine source"
		else
			fail "after step $s, ${paths[*]} equal the pristine source: $(git -C "$KSRC" diff --stat baseline "$s" -- "${paths[@]}" | tail -n 1)"
		fi
	done
	# what the pages say this tree holds (tests/inventory.py)
	tap_run "$LAB_PYTHON" "$SCRIPTS/tests/inventory.py" --code-refs --build "$BUILD_DIR"
	finish
}
suite_checkpatch-guest() {
	skip_imported "the guest's C is clean under the kernel's checkpatch.pl" && return
	exec "$SCRIPTS/tests/checkpatch-guest.sh" "$KSRC"
}
suite_cpio-list() {
	skip_imported "the initramfs lists of Debian roots, every layout (guest/cpio-list.sh)" && return
	exec "$SCRIPTS/tests/test-cpio-list.sh" "$KOUT/usr/gen_init_cpio"
}
suite_repro() {
	skip_imported "a step built again in another directory is the same, byte for byte" && return
	mapfile -t firsts < <(step_kbuild_firsts)
	exec "$SCRIPTS/tests/repro-check.sh" "${firsts[@]}"
}
suite_bundle-trip() {
	skip_imported "a bundle of this build imports and boots" && return
	exec "$SCRIPTS/tests/test-bundle-trip.sh"
}
suite_abi-scan() {
	local pristine
	skip_imported "abi-scan: the scanner's tests, and its numbers proven by the compiler" && return
	pristine=$(pristine_step)
	exec "$SCRIPTS/abi-scan/test.sh" --uapi "$(out_file "$(step_out "$pristine")" uapi)" --ksrc "$KSRC" \
		--out "$BUILD_DIR/abi-scan"
}

# The guest programs' host unit tests: kselftest programs, run once per
# ABI this machine's kernel runs (a shell says 126 for a program it
# cannot execute: i386 without IA32 emulation, x32 without x32 support).
suite_unit() {
	local first uapi guest abi rc abis=() progs
	skip_imported "guest programs: host unit tests" && return
	tap_begin
	first=$(step_out "$(first_step)")
	uapi=$(out_file "$first" uapi) guest=$(out_file "$first" guest)
	for abi in $(guest_abis); do
		rc=0
		"$guest/$abi/autofs-layout" --help >/dev/null 2>&1 || rc=$?
		if [ "$rc" -eq 126 ]; then
			skip "guest unit tests, $abi" "this machine's kernel cannot run $abi programs; the guests' kernels can"
		else
			abis+=("$abi")
		fi
	done
	run_child "$LIMIT_SUITE" make -s -C "$LAB_ROOT/guest" O="$BUILD_DIR/unit" UAPI="$uapi" KSRC="$KSRC" \
		CHECK_ABIS="${abis[*]}" check </dev/null >"$TLOG/unit.out" 2>"$TLOG/unit.err" || true
	tap_include <"$TLOG/unit.out"
	# (make's and the harness's stderr: comments, never tests)
	[ ! -s "$TLOG/unit.err" ] || sed 's/^/# /' "$TLOG/unit.err"
	# each guest/tests/test-*.c, once per ABI, ran to its end: it printed
	# "# Totals: pass:N fail:N ..."
	progs=("$LAB_ROOT"/guest/tests/test-*.c)
	if [ "$(grep -c '^# Totals: pass:[0-9]* fail:[0-9]* ' "$TLOG/unit.out")" -ne $((${#abis[@]} * ${#progs[@]})) ]; then
		fail "guest unit tests ran to their end in ${abis[*]} (log: ${TLOG#"$LAB_ROOT"/}/unit.out)"
	fi
	finish
}

# The steps with a gdb script, in two halves, one per queue.
gdb_half() { # a|b
	local s steps=() half
	for s in $(step_slugs); do step_has_gdb "$s" && steps+=("$s"); done
	half=$(((${#steps[@]} + 1) / 2))
	if [ "$1" = a ]; then printf '%s\n' "${steps[@]:0:half}"; else printf '%s\n' "${steps[@]:half}"; fi
}
suite_boots() { exec "$SCRIPTS/tests/boot-all.sh" --reuse; }
suite_gdb-a() {
	local s
	mapfile -t s < <(gdb_half a)
	exec "$SCRIPTS/tests/gdb-test.sh" "${s[@]}"
}
suite_gdb-b() {
	local s
	mapfile -t s < <(gdb_half b)
	[ ${#s[@]} -gt 0 ] || { tap_begin; echo "# no step for this half"; finish; return; }
	exec "$SCRIPTS/tests/gdb-test.sh" "${s[@]}"
}
suite_kgdb-ending() { exec "$SCRIPTS/tests/test-kgdb-ending.sh"; }
suite_try() {
	skip_imported "make try: a learner's kernel patch judged by the matrix" && return
	exec "$SCRIPTS/tests/test-try.sh"
}
suite_boot-robust() { exec "$SCRIPTS/tests/test-boot-robust.sh"; }

suite_docs() {
	tap_begin
	if run_child "$LIMIT_SUITE" "$SCRIPTS/docs/docs.sh" </dev/null >"$TLOG/docs.out" 2>&1; then
		pass "the documentation site builds offline (mkdocs build --strict), from transcripts of these kernels"
	else
		fail "the documentation site builds offline (mkdocs build --strict)
$(tail -n 15 "$TLOG/docs.out")"
	fi
	# no page loads a script, style, font or image from elsewhere
	if ! grep -rlE '(src|href)="https?://[^"]*\.(css|js|woff2?|ttf|png|svg)"|fonts\.(googleapis|gstatic)' \
		"$BUILD_DIR/site" --include='*.html' >"$TLOG/docs-online.out" && [ -d "$BUILD_DIR/site" ]; then
		pass "the documentation site loads nothing from the network"
	else
		fail "the documentation site loads nothing from the network: $(head -n 3 "$TLOG/docs-online.out")"
	fi
	finish
}

# The streams of this run's suites (their logs), through the parser.
suite_tap() {
	local logs=() l
	for l in "$TLOG"/suite-*.log; do [ -f "$l" ] && [ "$l" != "$TLOG/suite-tap.log" ] && logs+=("$l"); done
	exec "$SCRIPTS/tests/test-tap.sh" "${logs[@]}"
}
