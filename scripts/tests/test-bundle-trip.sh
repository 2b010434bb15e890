#!/usr/bin/env bash
# A workshop's round trip on this build: make a bundle of it (barely
# compressed, to be quick), import it into a new build dir, check that
# every step's kernel, vmlinux and initramfs there are this build's
# bytes, and boot step 1 from it to verdicts that match history, and
# under gdb. The new build dir has a space in its path, as a laptop's may.
# Run by make test after a build from source.
# shellcheck source=../lib/core.sh
. "$(dirname "$0")/../lib/core.sh"
lab_setup
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
tap_begin

tmp=$BUILD_DIR/test-trip
laptop="$tmp/laptop with space"
rm -rf "$tmp"
if [ -n "$(git -C "$LAB_ROOT" status --porcelain --untracked-files=no)" ]; then
	skip "make bundle, make import and make run STEP=1 from the import" \
		"the checkout has uncommitted changes, and a bundle names a commit"
	finish
	exit
fi

# logs under the build dir: they are comments here
run() { "$@" 2>&1 | sed -u 's/^/# /'; }
mkdir -p "$tmp"
if run "$SCRIPTS/bundle/bundle.sh" make --fast "$tmp/abi-lab.tar.xz" | tee "$tmp/bundle.out" && [ -s "$tmp/abi-lab.tar.xz" ]; then
	pass "make bundle packs this build ($(($(stat -c %s "$tmp/abi-lab.tar.xz") / 1048576)) MiB, barely compressed)"
else
	fail "make bundle packs this build"
fi
# the line make bundle prints for the room, as a learner types it
line=$(sed -n 's/^#  *\(make import BUNDLE=abi-lab.tar.xz SHA256=[0-9a-f]\{64\}\)$/\1/p' "$tmp/bundle.out")
read -r -a words <<<"$line"
if [ ${#words[@]} -eq 4 ] && [ "${words[3]#SHA256=}" = "$(sha256sum "$tmp/abi-lab.tar.xz" | cut -d' ' -f1)" ]; then
	pass "make bundle prints the make import line to hand out, with the bundle's SHA256"
else
	fail "make bundle prints the make import line to hand out, with the bundle's SHA256 (it printed: '$line')"
fi
# (BUNDLE= is where the file is on the laptop)
if run make -s -C "$LAB_ROOT" import BUNDLE="$tmp/abi-lab.tar.xz" "${words[3]}" BUILD_DIR="$laptop" &&
	[ -f "$laptop/bundle.txt" ]; then
	pass "that make import line lays the bundle out in a new build dir"
else
	fail "that make import line lays the bundle out in a new build dir"
fi
differ=()
for s in $(step_slugs); do
	for f in bzimage vmlinux initramfs; do
		cmp -s "$(out_file "$(step_out "$s")" "$f")" "$(out_file "$(step_out_in "$laptop" "$s")" "$f")" || differ+=("$s/$f")
	done
done
if [ ${#differ[@]} -eq 0 ]; then
	pass "the imported bzImage, vmlinux and initramfs of every step are this build's bytes"
else
	fail "the imported files are this build's bytes; these differ: ${differ[*]}"
fi
# make run ends with verdicts.sh check: history decides its status
if run make -s -C "$LAB_ROOT" run STEP=1 BUILD_DIR="$laptop" && grep -q '^LAB-END' "$(run_file "$(step_out_in "$laptop" "$(first_step)")" transcript)"; then
	pass "make run STEP=1 boots the imported kernel and initramfs, and its verdicts match history"
else
	fail "make run STEP=1 boots the imported kernel and initramfs, and its verdicts match history"
fi
if BUILD_DIR=$laptop run "$SCRIPTS/gdb/gdb.sh" gdbstub 1 --batch; then
	pass "gdb.sh gdbstub 1 --batch: the step's gdb script and guest run to their ends from the import"
else
	fail "gdb.sh gdbstub 1 --batch from the import (logs: $(step_out_in "$laptop" "$(first_step)")/*-gdbstub.log)"
fi
# make clean: the laptop's link in /var/tmp goes too
run make -s -C "$LAB_ROOT" clean BUILD_DIR="$laptop"
rm -rf "$tmp"
finish
