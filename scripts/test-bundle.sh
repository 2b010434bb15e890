#!/usr/bin/env bash
# A bundle that is not this lab's, not this commit's, or damaged, is
# refused by make import with a message that says which and what to do;
# make verify-bundle refuses a build dir that holds an imported bundle.
# Small fake bundles in a scratch build dir: nothing is built or booted.
# Run by make test.
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
# shellcheck source=tap.sh
. "$(dirname "$0")/tap.sh"

tmp=$BUILD_DIR/test-bundle
rm -rf "$tmp"
mkdir -p "$tmp/fake"
head=$(git -C "$LAB_ROOT" rev-parse HEAD)

# refused BUNDLE-file pattern description: make import fails, saying pattern
refused() {
	local out rc=0
	out=$(make -s -C "$LAB_ROOT" import BUNDLE="$1" BUILD_DIR="$tmp/build" 2>&1) || rc=$?
	if [ "$rc" -ne 0 ] && grep -q -e "$2" <<<"$out" && [ ! -e "$tmp/build/bundle.txt" ]; then
		pass "make import refuses $3"
	else
		fail "make import refuses $3 (exit $rc, wanted a message with '$2'): $(tail -n 3 <<<"$out")"
	fi
}
# a bundle made of what is in $tmp/fake
pack() { # name
	tar -C "$tmp/fake" -cJf "$tmp/$1.tar.xz" .
}

refused "$tmp/nothing.tar.xz" "no bundle at" "a file that does not exist"

echo hello >"$tmp/fake/README"
pack not-a-bundle
refused "$tmp/not-a-bundle.tar.xz" "is not a bundle of this lab" "a tar.xz that is not a bundle"

d=$tmp/fake/abi-lab-000000000000
mkdir -p "$d/steps"
printf 'lab-commit: %040d\nsteps: %s\n' 0 "$(step_slugs | tr '\n' ' ')" >"$d/BUNDLE"
echo kernel >"$d/steps/bzImage"
(cd "$d" && sha256sum steps/bzImage >SHA256SUMS)
pack other-commit
refused "$tmp/other-commit.tar.xz" "made from the lab's commit 0\{40\}; this checkout is at $head" \
	"a bundle of another commit, and names the commit to check out"

sed -i "s/^lab-commit: .*/lab-commit: $head/" "$d/BUNDLE"
echo changed >"$d/steps/bzImage"
pack damaged
refused "$tmp/damaged.tar.xz" "do not match its SHA256SUMS" "a damaged bundle"
refused "$tmp/damaged.tar.xz" "steps/bzImage: FAILED" "a damaged bundle, and names the damaged file"

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
