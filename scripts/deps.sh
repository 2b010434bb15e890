#!/usr/bin/env bash
# Check the Debian packages the lab needs; install the missing ones when
# run as root, otherwise print the exact command to run.
# Usage: deps.sh [lab|test|docs]   (test needs the docs and lint tools too)
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

# Every package the lab runs, the kernel's own build targets included
# (headers_install needs rsync, checkpatch.pl perl). Debian's automount
# runs in the guest, from .debs fetched into build/: it is not installed.
LAB_PKGS="linux-source-6.1 qemu-system-x86 busybox-static gdb gcc gcc-multilib
make bc bison flex libelf-dev libssl-dev cpio dwarves ccache git xz-utils python3 time rsync perl
iproute2 procps util-linux apt dpkg binutils lz4"
DOCS_PKGS="mkdocs mkdocs-material python3-yaml"
TEST_PKGS="$LAB_PKGS shellcheck $DOCS_PKGS"

case "${1:-lab}" in
	lab) want=$LAB_PKGS ;;
	test) want=$TEST_PKGS ;;
	docs) want=$DOCS_PKGS ;;
	*) die "deps.sh: unknown package set '$1'" ;;
esac

missing=()
for pkg in $want; do
	status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
	[ "$status" = installed ] || missing+=("$pkg")
done

[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	printf 'error: missing Debian packages: %s\nInstall them with:\n  sudo apt-get install -y --no-install-recommends %s\n' \
		"${missing[*]}" "${missing[*]}" >&2
	exit 1
fi

say "installing Debian packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
run_logged "apt-get update" "$LOGS/apt-update.log" "$LIMIT_APT" apt-get update
run_logged "apt-get install" "$LOGS/apt-install.log" "$LIMIT_APT" \
	apt-get install -y --no-install-recommends "${missing[@]}"
