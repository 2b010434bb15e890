#!/usr/bin/env bash
# The initramfs lists of scripts/guest/cpio-list.sh on made-up Debian roots of
# each layout Debian ships: the loader a symlink in /lib (Debian 12
# i386), an absolute symlink from /lib64 (Debian 12 amd64), and a merged
# /usr with no /lib at all (Debian 13). Each list goes through the
# kernel's gen_init_cpio and cpio must give back every file, reachable
# by the path the program asks for. One TAP test per check
# (scripts/lib/tap.sh).
# Usage: test-cpio-list.sh GEN_INIT_CPIO
# shellcheck source=../lib/core.sh
. "$(dirname "$0")/../lib/core.sh"
# shellcheck source=../lib/tap.sh
. "$SCRIPTS/lib/tap.sh"
# shellcheck source=../guest/cpio-list.sh
. "$SCRIPTS/guest/cpio-list.sh"
tap_begin
parse_args "test-cpio-list.sh GEN_INIT_CPIO" -- "$@"
[ ${#ARGS[@]} -eq 1 ] || usage_error "test-cpio-list.sh GEN_INIT_CPIO"
gen=${ARGS[0]}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mkfile() { mkdir -p "$(dirname "$1")"; echo "${1##*/}" >"$1"; chmod 755 "$1"; }
mklink() { mkdir -p "$(dirname "$2")"; ln -s "$1" "$2"; }

# the file a path leads to inside ROOT, its links resolved as a chroot
# would (an absolute link is relative to ROOT, not to this machine)
inside() { # root path
	local root=$1 rest=$2 pre="" c t hops=0
	while [ -n "$rest" ]; do
		c=${rest%%/*}
		[ "$c" = "$rest" ] && rest="" || rest=${rest#*/}
		if [ -L "$root/$pre$c" ] && [ $((hops += 1)) -lt 40 ]; then
			t=$(readlink "$root/$pre$c")
			case $t in /*) pre="" ;; esac
			rest=$(realpath -m -s "/$pre${t#/}${rest:+/$rest}" | cut -c2-)
			pre=""
		else
			pre=$pre$c/
		fi
	done
	echo "$root/${pre%/}"
}

# layout name, then the paths the list asks for: each must come back as
# a file with the content of the file it leads to
check() { # name wanted...
	local name=$1 H=$tmp/$1 out=$tmp/$1.out list=$tmp/$1.list p bad=""
	shift
	CPIO_DIRS=()
	if ! for p in "$@"; do addpath /debian/x "$H" "$p" || exit 1; done | awk '!seen[$0]++' >"$list"; then
		fail "$name: cpio-list.sh lists every file"
		return
	fi
	if ! "$gen" "$list" >"$tmp/$name.cpio" 2>"$tmp/$name.err"; then
		fail "$name: gen_init_cpio takes the list: $(cat "$tmp/$name.err")"
		return
	fi
	mkdir -p "$out"
	(cd "$out" && cpio -id --quiet <"$tmp/$name.cpio")
	for p in "$@"; do
		[ -f "$(inside "$out/debian/x" "$p")" ] &&
			[ "$(cat "$(inside "$out/debian/x" "$p")")" = "$(cat "$(inside "$H" "$p")" 2>/dev/null || cat "$(inside "$H" "usr/$p")")" ] ||
			bad="$bad $p"
	done
	if [ -z "$bad" ]; then
		pass "$name: every file comes back from the archive by its path"
	else
		fail "$name: missing or wrong in the archive:$bad (list: $list)"
	fi
}

H=$tmp/bookworm-i386
mkfile "$H/lib/i386-linux-gnu/ld-linux.so.2"
mklink i386-linux-gnu/ld-linux.so.2 "$H/lib/ld-linux.so.2"
mkfile "$H/lib/i386-linux-gnu/libc.so.6"
mkfile "$H/usr/sbin/automount"
check bookworm-i386 lib/ld-linux.so.2 lib/i386-linux-gnu/libc.so.6 usr/sbin/automount

H=$tmp/bookworm-amd64
mkfile "$H/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"
mklink /lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 "$H/lib64/ld-linux-x86-64.so.2"
mkfile "$H/usr/sbin/automount"
check bookworm-amd64 lib64/ld-linux-x86-64.so.2 usr/sbin/automount

# Debian 13: libc6 ships usr/lib/ld-linux.so.2 -> i386-linux-gnu/..., and
# no /lib: the ELF interpreter /lib/ld-linux.so.2 needs base-files' link
H=$tmp/trixie-i386
mkfile "$H/usr/lib/i386-linux-gnu/ld-linux.so.2"
mklink i386-linux-gnu/ld-linux.so.2 "$H/usr/lib/ld-linux.so.2"
mkfile "$H/usr/lib/i386-linux-gnu/libc.so.6"
mkfile "$H/usr/sbin/automount"
check trixie-i386 lib/ld-linux.so.2 usr/lib/i386-linux-gnu/libc.so.6 usr/sbin/automount

# a file no package ships is an error that names it, not an empty mode
CPIO_DIRS=()
if out=$(addpath /debian/x "$tmp/trixie-i386" lib/libnothere.so.1 2>&1); then
	fail "a file missing from the root is an error (got: $out)"
elif grep -q '^cpio-list: .* has no .*lib/libnothere.so.1' <<<"$out"; then
	pass "a file missing from the root is an error that names it"
else
	fail "a file missing from the root is an error that names it (got: $out)"
fi
finish
