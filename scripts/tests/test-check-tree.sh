#!/usr/bin/env bash
# The bisect helper (check-tree.sh) answers git bisect run as it says:
# 0 good, 1 bad, 125 untestable, 255 stop. A real answer costs a kernel
# build, so this runs the real check-tree.sh, pipeline.sh, lib/, labhost (results and
# step model) in a lab of links whose kernel-build.sh, guest-build.sh and
# boot.sh are fakes: FAKE_FAIL names the one that fails, and boot.sh
# writes the transcript FAKE_TRANSCRIPT. No kernel is built and nothing
# is booted.
# One TAP test per check (scripts/lib/tap.sh).
# shellcheck source=../lib/core.sh
. "$(dirname "$0")/../lib/core.sh"
lab_setup
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
tap_begin
tap_tmp
s=04-packet-pipes # the step the workshop bisects against

lab=$tmp/lab
mkdir -p "$lab/scripts/verdict" "$lab/scripts/kernel" "$lab/scripts/guest" "$lab/scripts/boot" "$tmp/build"
echo x >"$tmp/build/$BUILD_MARK"
for d in steps guest; do ln -s "$LAB_ROOT/$d" "$lab/$d"; done
for d in lib labhost; do ln -s "$SCRIPTS/$d" "$lab/scripts/$d"; done
ln -s "$SCRIPTS/verdict/check-tree.sh" "$lab/scripts/verdict/check-tree.sh"
ln -s "$SCRIPTS/pipeline.sh" "$lab/scripts/pipeline.sh"
for f in kernel/kernel-build guest/guest-build boot/boot; do
	cat >"$lab/scripts/$f.sh" <<EOF
#!/bin/sh
echo "${f#*/}.sh \$*" >>"$tmp/calls"
[ "\${FAKE_FAIL:-}" != ${f#*/} ] || exit 1
EOF
done
# shellcheck disable=SC2016 # the fakes expand them
{
	echo 'mkdir -p "$2"' >>"$lab/scripts/kernel/kernel-build.sh"                  # --out DIR
	echo 'cp "$FAKE_TRANSCRIPT" "$4/transcript.txt"' >>"$lab/scripts/boot/boot.sh" # demo SLUG --out DIR --run demo
}
# (not the links: that would chmod the lab's own files)
chmod +x "$lab/scripts/kernel/kernel-build.sh" "$lab/scripts/guest/guest-build.sh" "$lab/scripts/boot/boot.sh"
git init -q "$tmp/build/linux"
git -C "$tmp/build/linux" -c user.name=lab -c user.email=lab@example.org commit -q --allow-empty -m tree

# The transcript of a guest whose every run is as the step's expected
# file says (its rows as the step model reads them).
"$LAB_PYTHON" - "$(step_number "$s")" "$LAB_ROOT/steps/$s/expected" \
	>"$tmp/good.txt" <<'EOF'
import sys
from labhost.steps import SIZES, parse_expected
rows = parse_expected(sys.argv[2])
for r in rows:
    sizes = " ".join("%s=%s" % (k, r.sizes.get(k, "-")) for k in SIZES)
    print('RESULT step=%s reader=%s abi=%s comm=%s verdict=%s cause=%s %s detail="x"'
          % ((sys.argv[1],) + r.key() + (r.verdict, r.cause, sizes)))
print("LAB-PLAN runs=%d" % len(rows))
EOF
sed '0,/ verdict=ok /s// verdict=broken /' "$tmp/good.txt" >"$tmp/bad.txt"
sed '0,/ verdict=ok cause=[a-z]* /s// verdict=error cause=watchdog /' "$tmp/good.txt" >"$tmp/error.txt"

# check WANT-EXIT WANT-TEXT DESCRIPTION [ENV=VALUE...] -- [ARG...]
check() {
	local want=$1 text=$2 what=$3 env=() out rc=0
	shift 3
	while [ "$1" != -- ]; do env+=("$1"); shift; done
	shift
	: >"$tmp/calls"
	out=$(env -u LAB_LOCKED -u LAB_DEADLINE -u LAB_MODEL BUILD_DIR="$tmp/build" "${env[@]}" \
		"$lab/scripts/verdict/check-tree.sh" "$@" </dev/null 2>&1) || rc=$?
	if [ "$rc" = "$want" ] && grep -q -- "$text" <<<"$out"; then
		pass "check-tree.sh $what: exit $want"
	else
		fail "check-tree.sh $what: exit $want, saying '$text' (exit $rc): $out"
	fi
}
check 255 "STEP=4 .*STEP=$s" "without a step lists the steps and stops git bisect" --
check 255 'unknown step "77"' "with an unknown step stops git bisect" -- 77
check 125 "" "when the kernel does not build says untestable" FAKE_FAIL=kernel-build -- "$s"
check 125 "" "when the guest does not build says untestable" FAKE_FAIL=guest-build -- "$s"
check 125 "" "when the boot fails says untestable" FAKE_FAIL=boot -- "$s"
check 0 "is good: every run as steps/$s/expected predicts" "with every run as predicted says good" \
	FAKE_TRANSCRIPT="$tmp/good.txt" -- 4
check 1 "is bad" "with one verdict other than predicted says bad" FAKE_TRANSCRIPT="$tmp/bad.txt" -- "$s"
check 125 "cannot be tested: a run ended in an error" "with a run that ended in an error says untestable" \
	FAKE_TRANSCRIPT="$tmp/error.txt" -- "$s"
# its output goes to build/bisect, not over the step's own
if grep -qx "kernel-build.sh --out $tmp/build/bisect --config-of $s" "$tmp/calls" &&
	grep -qx "guest-build.sh $s --out $tmp/build/bisect" "$tmp/calls" &&
	grep -qx "boot.sh demo $s --out $tmp/build/bisect --run demo" "$tmp/calls"; then
	pass "check-tree.sh builds and boots into build/bisect"
else
	fail "check-tree.sh builds and boots into build/bisect: $(cat "$tmp/calls")"
fi
finish
