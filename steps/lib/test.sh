#!/usr/bin/env bash
# The whole test suite: static checks, the kernel series, the guest
# programs' unit tests, and every step booted with its RESULT lines
# checked against history. Every check prints "ok - ..." or
# "not ok - ..."; the last line is "N passed, N failed".
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
# shellcheck source=tap.sh
. "$(dirname "$0")/tap.sh"
lib=$LAB_ROOT/steps/lib
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
# count the ok / not ok lines another check printed
tally() {
	local line
	while IFS= read -r line; do
		case $line in
		"ok "*) echo "$line"; passed=$((passed + 1)) ;;
		"not ok "*) echo "$line"; failed=$((failed + 1)) ;;
		esac
	done
}

"$lib/deps.sh" test

say "static checks"
mapfile -t scripts < <(cd "$LAB_ROOT" && { ls steps/lib/*.sh guest/*.sh; echo .ci/run; })
for s in "${scripts[@]}"; do
	t "shellcheck $s" shellcheck -x "$LAB_ROOT/$s"
done

say "kernel tree"
if ! "$lib/kernel-tree.sh" 2>&1 | tee "$TLOG/kernel-tree.log" | sed 's/^/#   /'; then
	fail "kernel-patches/ apply with git am to linux-source $(linux_source_version)"
	finish
	exit 1
fi
pass "kernel-patches/ apply with git am to linux-source $(linux_source_version)"
checkpatch_clean() { # the tree's own checkpatch.pl finds no ERROR
	local out
	out=$(cd "$KSRC" && scripts/checkpatch.pl --terse --no-summary "$1" 2>&1) || true
	echo "$out"
	! grep -q 'ERROR:' <<<"$out"
}
for p in "$LAB_ROOT"/kernel-patches/*.patch; do
	t "checkpatch.pl: no errors in ${p##*/}" checkpatch_clean "$p"
done
last=$(step_branch "$(last_step)")
t "after the last step, the pipe and autofs code equal the pristine source" \
	git -C "$KSRC" diff --exit-code baseline "$last" -- \
	fs/autofs fs/pipe.c fs/fcntl.c include/linux/pipe_fs_i.h

say "build (progress below; nothing to do when nothing changed)"
if ! "$lib/lab.sh" build 2>&1 | tee "$TLOG/build.log" | sed 's/^/#   /'; then
	fail "build every step's kernel and guest (log: ${TLOG#"$LAB_ROOT"/}/build.log)"
	finish
	exit 1
fi
pass "build every step's kernel and guest"

say "guest programs: host unit tests, both ABIs"
first=$(step_out "$(first_step)")
tally < <(make -s -C "$LAB_ROOT/guest" O="$BUILD_DIR/unit" UAPI="$first/uapi" check 2>&1 |
	tee "$TLOG/unit.log")
if [ "$(grep -c ' passed, 0 failed$' "$TLOG/unit.log")" -ne 2 ]; then
	fail "guest unit tests ran to the end in both ABIs (log: ${TLOG#"$LAB_ROOT"/}/unit.log)"
fi

say "bad input"
bad_step_refused() { # make run STEP=$1 fails and lists the valid steps
	local out rc=0
	out=$(make -s -C "$LAB_ROOT" run STEP="$1" 2>&1) || rc=$?
	echo "$out"
	[ "$rc" -ne 0 ] && grep -q "STEP=1 " <<<"$out"
}
t "make run STEP=7 lists the valid steps and fails" bad_step_refused 7
t "make run STEP=padding lists the valid steps and fails" bad_step_refused padding

# The boots and the eight debugger sessions run as two queues side by
# side: QEMU's TCG uses one core per guest, and this is a 2-core lab.
boot_steps() {
	local n
	for n in $(step_numbers); do
		if "$lib/boot.sh" demo "$n" >"$TLOG/boot-step$n.log" 2>&1; then
			"$lib/verdicts.sh" check "$n" || true
		else
			echo "not ok - step $n: the guest ran to its end"
			sed 's/^/#   /' "$TLOG/boot-step$n.log"
		fi
	done
}
gdb_steps=()
for n in $(step_numbers); do
	step_has_gdb "$n" && gdb_steps+=("$n")
done
half=$(((${#gdb_steps[@]} + 1) / 2))
gdb_a=("${gdb_steps[@]:0:half}") gdb_b=("${gdb_steps[@]:half}")
gdb_queue() { # a|b step... : one queue of debugger sessions, if any
	local q=$1
	shift
	[ $# -gt 0 ] || return 0
	"$lib/gdb-test.sh" "$@" >"$TLOG/gdb-$q.log" 2>&1 || true
}
say "every step booted, and gdbstub and kgdb sessions of every step (two queues)"
rm -f "$TLOG"/gdb-[ab].log
{ boot_steps >"$TLOG/boots.log" 2>&1; gdb_queue b "${gdb_b[@]}"; } &
queue_b=$!
gdb_queue a "${gdb_a[@]}"
wait "$queue_b" || true
tally <"$TLOG/boots.log"
for q in a b; do
	[ "$q" = a ] && [ ${#gdb_a[@]} -eq 0 ] && continue
	[ "$q" = b ] && [ ${#gdb_b[@]} -eq 0 ] && continue
	tally <"$TLOG/gdb-$q.log"
	grep -q '^[0-9]* passed, [0-9]* failed$' "$TLOG/gdb-$q.log" ||
		fail "gdb-test.sh ran to its end (log: ${TLOG#"$LAB_ROOT"/}/gdb-$q.log)"
done
for n in $(step_numbers); do
	step_has_gdb "$n" || echo "# step $n has no gdb script: no debugger session"
done

say "documentation"
t "the documentation site builds offline (mkdocs build --strict)" "$lib/docs.sh" build
site_is_offline() { # no page loads a script, style, font or image from elsewhere
	! grep -rlE '(src|href)="https?://[^"]*\.(css|js|woff2?|ttf|png|svg)"|fonts\.(googleapis|gstatic)' \
		"$BUILD_DIR/site" --include='*.html'
}
t "the documentation site loads nothing from the network" site_is_offline

finish
