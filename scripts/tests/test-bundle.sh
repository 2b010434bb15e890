#!/usr/bin/env bash
# make import takes only the bundle the instructor announced, and only a
# whole one of this commit: small fake bundles in a scratch build dir,
# each refused with a message that says why and what to do, and none
# leaving a half-import behind; the announced one imports, by its SHA256
# or by an OpenSSH signature. make verify-bundle refuses a build dir
# that holds an imported bundle. Nothing is built or booted. Run by make
# test.
# shellcheck source=../lib/core.sh
. "$(dirname "$0")/../lib/core.sh"
lab_setup
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
tap_begin

tmp=$BUILD_DIR/test-bundle
rm -rf "$tmp"
mkdir -p "$tmp"
head=$(git -C "$LAB_ROOT" rev-parse HEAD)
sha() { sha256sum "$1" | cut -d' ' -f1; }

# Nothing of an import in the scratch build dir: no bundle.txt, no
# steps, no unpacked bundle.
nothing_imported() {
	[ ! -e "$tmp/build/bundle.txt" ] && [ ! -e "$tmp/build/steps" ] && [ ! -e "$tmp/build/import" ]
}
import() { # make import's arguments...: its output in OUT, its status in RC
	RC=0
	OUT=$(make -s -C "$LAB_ROOT" import BUILD_DIR="$tmp/build" "$@" 2>&1) || RC=$?
}
# refused pattern description make-import-argument...
refused() {
	local want=$1 what=$2
	shift 2
	import "$@"
	if [ "$RC" -ne 0 ] && grep -q -e "$want" <<<"$OUT" && nothing_imported; then
		pass "make import refuses $what, and leaves nothing imported"
	else
		fail "make import refuses $what (exit $RC, wanted a message with '$want'; imported: $(find "$tmp/build" -mindepth 1 -maxdepth 1 -printf '%f ' 2>/dev/null)): $(tail -n 3 <<<"$OUT")"
	fi
	rm -rf "$tmp/build"
}

# A fake bundle of this commit, complete enough to import: every step's
# initramfs part and a gdb helper, Debian's part, the scan's report.
fake() { # dir
	local d=$1/abi-lab-${head:0:12} s o
	rm -rf "$1"
	mkdir -p "$d/debian" "$d/abi-scan"
	printf 'lab-commit: %s\nsteps: %s\n' "$head" "$(step_slugs | tr '\n' ' ')" >"$d/BUNDLE"
	for s in $(step_slugs); do
		o=$(step_out_in "$d" "$s")
		mkdir -p "$(out_file "$o" gdb_helpers)"
		echo kernel >"$(out_file "$o" bzimage)"
		echo cpio >"$(out_file "$o" initramfs_lab)"
		echo lab >"$(out_file "$o" initramfs_parts)"
		echo 'print("helper")' >"$(out_file "$o" gdb_helpers)/vmlinux-gdb.py"
		echo 'X = 1' >"$(out_file "$o" gdb_constants)"
	done
	echo debian >"$d/debian/debian.cpio.lz4"
	echo report >"$d/abi-scan/report.txt"
	sums "$d"
}
sums() { # (written beside the dir: find must not list the file it fills)
	rm -f "$1/SHA256SUMS"
	(cd "$1" && find . -type f -printf '%P\n' | LC_ALL=C sort | xargs -d '\n' sha256sum) >"$1.sums"
	mv "$1.sums" "$1/SHA256SUMS"
}
pack() { # dir file
	tar -C "$1" -cJf "$2" .
}

# 1. What make import is given must be a bundle.
refused "no bundle at" "a file that does not exist" BUNDLE="$tmp/nothing.tar.xz" SHA256="$(printf '%064d' 0)"
mkdir -p "$tmp/other" && echo hello >"$tmp/other/README" && pack "$tmp/other" "$tmp/not-a-bundle.tar.xz"
refused "is not a bundle of this lab" "a tar.xz that is not a bundle" \
	BUNDLE="$tmp/not-a-bundle.tar.xz" SHA256="$(sha "$tmp/not-a-bundle.tar.xz")"

# 2. Which bundle: the one announced, by SHA256 or signature, or none.
fake "$tmp/good"
pack "$tmp/good" "$tmp/good.tar.xz"
good=$(sha "$tmp/good.tar.xz")
refused "the line make bundle printed" "a bundle without SHA256= or a signature, saying what to ask the instructor for" \
	BUNDLE="$tmp/good.tar.xz"
refused "not the $(printf '%064d' 1) you were given" "a bundle whose SHA256 is not the one given" \
	BUNDLE="$tmp/good.tar.xz" SHA256="$(printf '%064d' 1)"
refused "is not a SHA256" "SHA256= that is not 64 hex digits" BUNDLE="$tmp/good.tar.xz" SHA256=abc
# one gdb helper changed, SHA256SUMS written again: whole, but not the announced one
cp -a "$tmp/good" "$tmp/evil"
echo 'import os; os.system("touch /tmp/pwned")' >"$(out_file "$(step_out_in "$tmp/evil/abi-lab-${head:0:12}" "$(first_step)")" gdb_helpers)/vmlinux-gdb.py"
sums "$tmp/evil/abi-lab-${head:0:12}"
pack "$tmp/evil" "$tmp/evil.tar.xz"
refused "not the $good you were given" "a bundle whose gdb helper was changed and SHA256SUMS recomputed, given the announced SHA256" \
	BUNDLE="$tmp/evil.tar.xz" SHA256="$good"

import BUNDLE="$tmp/good.tar.xz" SHA256="${good^^}"
if [ "$RC" -eq 0 ] && grep -qx 'identity: its SHA256, as given' "$tmp/build/bundle.txt" &&
	grep -q "of its files, $((2 * $(step_slugs | wc -l))) are Python that this machine runs" <<<"$OUT"; then
	pass "make import takes the bundle with the SHA256 given (in capitals too), and names the files of it the host runs"
else
	fail "make import takes the bundle with the SHA256 given (exit $RC): $(tail -n 5 <<<"$OUT")"
fi
rm -rf "$tmp/build"

# an OpenSSH signature, checked against a public key the learner trusts
ssh-keygen -q -t ed25519 -N '' -C instructor -f "$tmp/instructor" && ssh-keygen -q -t ed25519 -N '' -C other -f "$tmp/other-key"
ssh-keygen -q -Y sign -f "$tmp/instructor" -n abi-lab-bundle "$tmp/good.tar.xz"
cp "$tmp/good.tar.xz.sig" "$tmp/evil.tar.xz.sig"
import BUNDLE="$tmp/good.tar.xz" SIG="$tmp/good.tar.xz.sig" SIGNER="$tmp/instructor.pub"
if [ "$RC" -eq 0 ] && grep -q '^identity: signed by SHA256:' "$tmp/build/bundle.txt"; then
	pass "make import takes a bundle whose signature verifies with the key given"
else
	fail "make import takes a bundle whose signature verifies with the key given (exit $RC): $(tail -n 3 <<<"$OUT")"
fi
rm -rf "$tmp/build"
refused "does not verify with the key" "a signature made with another key" \
	BUNDLE="$tmp/good.tar.xz" SIG="$tmp/good.tar.xz.sig" SIGNER="$tmp/other-key.pub"
refused "does not verify with the key" "a changed bundle with the announced bundle's signature" \
	BUNDLE="$tmp/evil.tar.xz" SIG="$tmp/evil.tar.xz.sig" SIGNER="$tmp/instructor.pub"
refused "SIG= needs SIGNER=" "a signature without the key to check it" \
	BUNDLE="$tmp/good.tar.xz" SIG="$tmp/good.tar.xz.sig"

import BUNDLE="$tmp/evil.tar.xz" UNVERIFIED=1
if [ "$RC" -eq 0 ] && grep -q 'UNVERIFIED=1: importing .* without checking' <<<"$OUT" &&
	grep -qx 'identity: NOT CHECKED (UNVERIFIED=1)' "$tmp/build/bundle.txt"; then
	pass "UNVERIFIED=1 imports without a check, says so loudly and records it"
else
	fail "UNVERIFIED=1 imports without a check, says so loudly and records it (exit $RC): $(tail -n 3 <<<"$OUT")"
fi
rm -rf "$tmp/build"

# 3. The announced bundle must be of this commit, and whole.
d=$tmp/fake/abi-lab-000000000000
k=$(out_file "$(step_out_in . "$(first_step)")" bzimage) k=${k#./} # the first kernel, as a bundle names it
mkdir -p "$d/${k%/*}"
printf 'lab-commit: %040d\nsteps: %s\n' 0 "$(step_slugs | tr '\n' ' ')" >"$d/BUNDLE"
echo kernel >"$d/$k"
(cd "$d" && sha256sum "$k" >SHA256SUMS)
pack "$tmp/fake" "$tmp/other-commit.tar.xz"
refused "made from the lab's commit 0\{40\}; this checkout is at $head" \
	"a bundle of another commit, and names the commit to check out" \
	BUNDLE="$tmp/other-commit.tar.xz" SHA256="$(sha "$tmp/other-commit.tar.xz")"
cp -a "$tmp/good" "$tmp/damaged"
echo changed >"$tmp/damaged/abi-lab-${head:0:12}/$k"
pack "$tmp/damaged" "$tmp/damaged.tar.xz"
refused "$k: FAILED" "a damaged bundle, and names the damaged file" \
	BUNDLE="$tmp/damaged.tar.xz" SHA256="$(sha "$tmp/damaged.tar.xz")"

# a build dir that holds an imported bundle is not a build from source
mkdir -p "$tmp/imported"
touch "$tmp/imported/$BUILD_MARK"
echo "lab-commit: $head" >"$tmp/imported/bundle.txt"
out=$(make -s -C "$LAB_ROOT" verify-bundle BUNDLE="$tmp/damaged.tar.xz" BUILD_DIR="$tmp/imported" 2>&1) && rc=0 || rc=$?
if [ "$rc" -ne 0 ] && grep -q "holds an imported bundle, not a build from source" <<<"$out"; then
	pass "make verify-bundle refuses a build dir that holds an imported bundle"
else
	fail "make verify-bundle refuses a build dir that holds an imported bundle (exit $rc): $out"
fi

rm -rf "$tmp"
finish
