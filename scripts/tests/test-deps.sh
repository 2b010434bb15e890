#!/usr/bin/env bash
# The apt-get line the lab prints for root (source/deps.sh --print) on
# three kinds of system, faked: dpkg-query knows no package, apt-cache
# answers as Debian 12, as Debian 13 or as a fresh system whose lists are
# empty, and apt-get only records that it was called. apt takes a dotted
# name it has no package for as a pattern (Debian 13 reads
# linux-source-6.1 as linux-source-6.12), so a dotted name may only be in
# the line where apt offers exactly that package.
# One TAP test per check (scripts/lib/tap.sh).
# shellcheck source=../lib/core.sh
. "$(dirname "$0")/../lib/core.sh"
lab_setup --no-model
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
tap_begin
tap_tmp
ksrc=linux-source-6.1

mkdir "$tmp/bin"
cat >"$tmp/bin/dpkg-query" <<'EOF'
#!/bin/sh
echo "dpkg-query: no packages found matching $*" >&2
exit 1
EOF
cat >"$tmp/bin/apt-get" <<EOF
#!/bin/sh
echo "apt-get \$*" >>"$tmp/apt-get.calls"
EOF
# What apt-cache policy prints for the name asked, on FAKE_SYSTEM:
#   debian12  a package of exactly that name, with a candidate
#   debian13  what Debian 13 printed for linux-source-6.1 (apt 3.0,
#             2026-12-05, in a fresh trixie root): the package the name
#             matches as a pattern, linux-source-6.12
#   empty     nothing: no lists yet
cat >"$tmp/bin/apt-cache" <<'EOF'
#!/bin/sh
[ "$1" = policy ] || exit 100
case $FAKE_SYSTEM in
debian12) printf '%s:\n  Installed: (none)\n  Candidate: 1.0-1\n  Version table:\n' "$2" ;;
debian13) printf '%s2:\n  Installed: (none)\n  Candidate: 6.12.117-1\n  Version table:\n' "$2" ;;
empty) echo "N: Unable to locate package $2" >&2 ;;
esac
EOF
chmod +x "$tmp/bin/"*

# The line deps.sh --print makes on SYSTEM: $line (the apt-get install
# line), $note (the line after it), $out (all of it)
ask() { # system
	local rc=0
	rm -f "$tmp/apt-get.calls"
	out=$(FAKE_SYSTEM=$1 PATH="$tmp/bin:$PATH" BUILD_DIR="$tmp/build-$1" \
		run_child "$LIMIT_SHORT" "$SCRIPTS/source/deps.sh" --print </dev/null 2>&1) || rc=$?
	line=$(grep -m 1 'apt-get install' <<<"$out" || true)
	note=$(grep -m 1 "^$ksrc is" <<<"$out" || true)
	[ "$rc" -eq 0 ] || fail "deps.sh --print on $1 exits 0 (exit $rc): $out"
	[ ! -e "$tmp/apt-get.calls" ] || fail "deps.sh --print on $1 runs no apt-get: $(cat "$tmp/apt-get.calls")"
}
# the dotted words of the install line, one per line
dotted() { tr ' ' '\n' <<<"${line#*--no-install-recommends }" | grep '\.' || true; }
check() { # what condition...
	local what=$1
	shift
	if "$@"; then pass "$what"; else fail "$what
$out"; fi
}
has_word() { [[ " $line " == *" $1 "* ]]; }
lacks_ksrc() { ! grep -q 'linux-source' <<<"$line"; }

ask debian12
check "Debian 12: the line asks for $ksrc, which apt offers by that name" has_word "$ksrc"
check "Debian 12: the next line says the kernel source is in it, and why" grep -q "^$ksrc is in it: .*offers" <<<"$note"
check "Debian 12: $ksrc is the only dotted name in the lists" [ "$(dotted)" = "$ksrc" ]
check "Debian 12: the line also asks for what the lab runs (qemu-system-x86, gdb)" \
	eval 'has_word qemu-system-x86 && has_word gdb'

ask debian13
check "Debian 13 (apt reads $ksrc as linux-source-6.12): the line asks for no linux-source" lacks_ksrc
check "Debian 13: no dotted name at all in the line" [ -z "$(dotted)" ]
check "Debian 13: the next line says why the kernel source is not in it" \
	grep -q "^$ksrc is not in it: .*pattern.*fetches Debian 12's" <<<"$note"
check "Debian 13: the line still asks for the rest (qemu-system-x86, gcc)" \
	eval 'has_word qemu-system-x86 && has_word gcc'

ask empty
check "empty package lists: the line asks for no linux-source" lacks_ksrc
check "empty package lists: the next line says why the kernel source is not in it" \
	grep -q "^$ksrc is not in it: .*lists are empty" <<<"$note"
check "empty package lists: the line runs apt-get update first" grep -q 'apt-get update && sudo apt-get install' <<<"$line"

finish
