#!/usr/bin/env bash
# make try, judged: the workshop's exercise ("Fix 2012 yourself") claims
# what each design gets, and this checks it on real kernels and guests:
#   - history's design (a), kernel-patches/0003 on step 1, is step 2's
#     column, run for run;
#   - the good fix, kernel-patches/exercise/packet-pipe.patch, reaches
#     the goal (every daemon works, as step 4);
#   - the wrong fix, kernel-patches/exercise/caller-abi.patch, is named
#     wrong by the runs whose lookups come from a program of another ABI,
#     with the cause, while the daemons' own runs are as step 2's;
#   - today's break (step 6, ON=6): the in_compat_syscall() fix,
#     kernel-patches/exercise/bpf-compat-cookie.patch, is short of the
#     goal in the x32 row only, with the bytes it read; the solution,
#     exercise/bpf-i386-cookie.patch, reaches it;
# and each way a learner's patch fails ends in one error that says where
# to look: one that does not apply, one that does not compile, one that
# does not link, one whose kernel panics. Afterwards the steps'
# branches, kernels and transcripts are as they were. Each try's verdict is kept in build/try-exercise/
# for the workshop page. One TAP test per check (lib/tap.sh).
# shellcheck source=../lib/core.sh
. "$(dirname "$0")/../lib/core.sh"
lab_setup
# shellcheck source=../lib/tap.sh
. "$SCRIPTS/lib/tap.sh"
# shellcheck source=../lib/inputs.sh
. "$SCRIPTS/lib/inputs.sh"
tap_begin
lab_lock exclusive
keep=$BUILD_DIR/try-exercise
tmp=$BUILD_DIR/test-try
rm -rf "$keep" "$tmp"
mkdir -p "$keep" "$tmp"
first=$(first_step)

# every step built as make builds it (make test's build did it already)
"$SCRIPTS/lab.sh" build >"$tmp/build-before.log" 2>&1 || die "the build before the tries failed (${tmp#"$LAB_ROOT"/}/build-before.log)"
# what must not change: the steps' branches and kernels, build/linux's HEAD
state() {
	local s
	git -C "$KSRC" symbolic-ref -q HEAD || git -C "$KSRC" rev-parse HEAD
	for s in $(step_slugs); do
		echo "$s $(git -C "$KSRC" rev-parse "$s") $(sha256sum <"$(out_file "$(step_out "$s")" bzimage)" | cut -c1-16)"
	done
}
state >"$tmp/before"

try() { # name make-try-arguments...: the output in OUT, the status in RC
	local name=$1
	shift
	RC=0
	run_child "$LIMIT_SUITE" "$SCRIPTS/verdict/try.sh" "$@" </dev/null >"$keep/$name.txt" 2>&1 || RC=$?
	OUT=$(cat "$keep/$name.txt")
}
verdict() { sed -n 's/^VERDICT: //p' <<<"$OUT"; }

# 1. The designs of the exercise.
p3=$(ls "$LAB_ROOT"/kernel-patches/0003-*.patch)
try design-a --patch "$p3" --on "$first" --goal 2
if [ "$RC" -eq 0 ] && grep -q '^every run as the goal, step 2: ' <<<"$(verdict)"; then
	pass "make try PATCH=${p3##*/} on step 1 is step 2's column, run for run ($(verdict))"
else
	fail "make try PATCH=${p3##*/} on step 1 is step 2's column (exit $RC): $(tail -n 8 <<<"$OUT")"
fi
try good-fix --patch "$LAB_ROOT/kernel-patches/exercise/packet-pipe.patch"
if [ "$RC" -eq 0 ] && grep -q "^every run as the goal, step $(step_number "$(pristine_step)"): " <<<"$(verdict)"; then
	pass "the good fix (exercise/packet-pipe.patch) reaches the goal: $(verdict)"
else
	fail "the good fix (exercise/packet-pipe.patch) reaches the goal (exit $RC): $(tail -n 8 <<<"$OUT")"
fi
try wrong-fix --patch "$LAB_ROOT/kernel-patches/exercise/caller-abi.patch" --goal 2
# the daemons' own runs are as step 2's; every run that differs is one
# whose lookups came from another ABI, or a Debian run (its lookups come
# from the guest's 64-bit busybox)
own_differ=$(grep -E '^  [a-z-]+ (i386|x86_64|x32) as ' <<<"$OUT" | grep -v '^  debian-automount' || true)
if [ "$RC" -eq 1 ] && grep -q '^  systemd-style+x86_64 i386 as systemd-style: yours broken (leftover 4)' <<<"$OUT" &&
	grep -q '^  systemd-style+i386 x86_64 as systemd-style: yours broken (short 300 of 304)' <<<"$OUT" &&
	grep -q '^  A lucky fix? .*the packet followed the ABI of the process that walked into the mount' <<<"$OUT" &&
	[ -z "$own_differ" ]; then
	pass "the wrong fix (exercise/caller-abi.patch) is named wrong by the runs with a caller of another ABI, with the cause ($(verdict))"
else
	fail "the wrong fix is named wrong by the runs with a caller of another ABI (exit $RC; own runs that differ: ${own_differ:-none}): $(tail -n 12 <<<"$OUT")"
fi

# today's break: judged against step 6's own goal, with its runs
bpf=$(resolve_step 6)
try bpf-wrong-fix --patch "$LAB_ROOT/kernel-patches/exercise/bpf-compat-cookie.patch" --on "$bpf"
differ=$(grep -E '^  [a-z-]+ (i386|x86_64|x32) as ' <<<"$OUT" || true)
if [ "$RC" -eq 1 ] && [ "$differ" = "$(grep -E '^  bpf-cookie x32 as bpf-cookie: yours broken \(0x5566778800000000 at 20\)' <<<"$differ")" ] &&
	[ -n "$differ" ] && grep -q 'bpf-cookie i386 as bpf-cookie .* ok  *ok (none' <<<"$OUT" &&
	grep -q '^  An x32 run differs where its x86_64 twin is as the goal' <<<"$OUT"; then
	pass "the in_compat_syscall() fix of step 6 is short in the x32 row only: x32's cookie read at 20, shifted, and the verdict names x32's layout ($(verdict))"
else
	fail "the in_compat_syscall() fix of step 6 is short in the x32 row only (exit $RC): $(tail -n 10 <<<"$OUT")"
fi
try bpf-good-fix --patch "$LAB_ROOT/kernel-patches/exercise/bpf-i386-cookie.patch" --on "$bpf"
if [ "$RC" -eq 0 ] && grep -q "^every run as the goal, step 6's goal: " <<<"$(verdict)"; then
	pass "the i386-only conversion of step 6 reaches its goal: $(verdict)"
else
	fail "the i386-only conversion of step 6 reaches its goal (exit $RC): $(tail -n 8 <<<"$OUT")"
fi

# 2. A learner's patch that fails, each way: one error, naming what to
# look at. Made here from the step's own file, as plain diffs.
diff_of() { # file sed-expression: a plain diff of FILE (of step 1's tree) changed by sed
	git -C "$KSRC" show "$first:$1" >"$tmp/a"
	sed "$2" "$tmp/a" >"$tmp/b"
	diff -u --label "a/$1" --label "b/$1" "$tmp/a" "$tmp/b" || true
}
diff_of fs/autofs/waitq.c 's/^\t\tpktsz = sizeof(\*packet);$/\t\tpktsz = sizeof(*packet) - 4;/' |
	sed 's/^ \(.*struct autofs_v5_packet \*packet = \)/ \1 \/* not this line *\/ /' >"$tmp/no-apply.diff"
try no-apply --patch "$tmp/no-apply.diff"
if [ "$RC" -ne 0 ] && [ "$(grep -c '^error: ' <<<"$OUT")" = 1 ] &&
	grep -q "^error: .*no-apply.diff does not apply to step 1's tree .*: fs/autofs/waitq.c, the hunk at line [0-9]" <<<"$OUT"; then
	pass "a patch that does not apply: one error, naming the file and the hunk"
else
	fail "a patch that does not apply: one error, naming the file and the hunk (exit $RC): $(tail -n 6 <<<"$OUT")"
fi
diff_of fs/autofs/waitq.c 's/^\t\tpktsz = sizeof(\*packet);$/\t\tpktsz = sizeof(*packet) - four;/' >"$tmp/no-build.diff"
try no-build --patch "$tmp/no-build.diff"
if [ "$RC" -ne 0 ] && [ "$(grep -c '^error: ' <<<"$OUT")" = 1 ] &&
	grep -q '^error: the kernel does not compile with your change' <<<"$OUT" &&
	grep -q "fs/autofs/waitq.c:[0-9]*:[0-9]*: error: .four. undeclared" <<<"$OUT" && [ "$(wc -l <<<"$OUT")" -lt 60 ]; then
	pass "a patch that does not compile: one error with the compiler's own lines ($(grep -m 1 'waitq.c:[0-9]*:[0-9]*: error' <<<"$OUT" | sed 's/^ *//'))"
else
	fail "a patch that does not compile: one error with the compiler's own lines (exit $RC): $(tail -n 8 <<<"$OUT")"
fi
# a call to nothing: it compiles, and only the link says what is wrong
diff_of fs/autofs/waitq.c 's/^\t\tpktsz = sizeof(\*packet);$/\t\tpktsz = lab_try_unlinked();/; s/^#include "autofs_i.h"$/&\n\nsize_t lab_try_unlinked(void);/' >"$tmp/no-link.diff"
try no-link --patch "$tmp/no-link.diff"
if [ "$RC" -ne 0 ] && [ "$(grep -c '^error: ' <<<"$OUT")" = 1 ] &&
	grep -q '^error: the kernel does not link with your change' <<<"$OUT" &&
	grep -q 'undefined reference to .lab_try_unlinked' <<<"$OUT"; then
	pass "a patch that does not link: one error with the linker's own lines ($(grep -m 1 'undefined reference' <<<"$OUT" | sed 's/^ *//'))"
else
	fail "a patch that does not link: one error with the linker's own lines (exit $RC): $(tail -n 8 <<<"$OUT")"
fi
diff_of fs/autofs/init.c 's/^\tint err;$/\tint err;\n\n\tpanic("make try: a kernel that panics at boot");/' >"$tmp/panics.diff"
t0=$SECONDS
try panics --patch "$tmp/panics.diff"
if [ "$RC" -ne 0 ] && [ "$(grep -c '^error: ' <<<"$OUT")" = 1 ] &&
	grep -q '^error: your kernel did not run the guest to its end' <<<"$OUT" &&
	grep -q '^The kernel said: .*Kernel panic - not syncing: make try: a kernel that panics at boot' <<<"$OUT"; then
	pass "a patch whose kernel panics: one error with the serial log's panic, within the boot limit (in $((SECONDS - t0)) s)"
else
	fail "a patch whose kernel panics: one error with the serial log's panic (exit $RC): $(tail -n 10 <<<"$OUT")"
fi

# 3. Nothing of the steps changed: branches, kernels, build/linux's HEAD,
# and a build finds nothing to do.
state >"$tmp/after"
if cmp -s "$tmp/before" "$tmp/after"; then
	pass "after every try, the steps' branches and kernels and build/linux's HEAD are as they were"
else
	fail "after every try, the steps' branches and kernels are as they were: $(diff "$tmp/before" "$tmp/after" | head -n 4)"
fi
"$SCRIPTS/lab.sh" build >"$tmp/build.log" 2>&1 || true
if ! grep -q 'make bzImage' "$tmp/build.log" && ! grep -q '^error' "$tmp/build.log"; then
	pass "and make finds every step's kernel built: nothing to compile"
else
	fail "and make finds every step's kernel built: $(grep -m 3 'make bzImage\|^error' "$tmp/build.log")"
fi
rm -rf "$tmp"
finish
