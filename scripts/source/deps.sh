#!/usr/bin/env bash
# Check the Debian packages the lab needs (make, make test and make docs
# alike: one list, so that a learner without root gets one apt-get line;
# an imported bundle needs only its first part, and no compiler);
# install the missing ones when run as root, otherwise print the exact
# command for root to run.
# shellcheck source=../lib/core.sh
. "$(dirname "$0")/../lib/core.sh"
lab_setup --no-model

# What runs the lab's kernels and tests them: enough for a build dir
# that holds an imported bundle (scripts/bundle/bundle.sh), which needs no
# compiler. The docs and the linters are here too, and pahole (dwarves),
# which the gdb sessions ask about the structs, and ssh-keygen, which
# signs and checks a bundle (make bundle SIGN=, make import SIG=).
RUN_PKGS="qemu-system-x86 gdb dwarves make git xz-utils python3 time perl
iproute2 procps util-linux shellcheck pyflakes3 mkdocs mkdocs-material python3-yaml openssh-client"
# What builds them, the kernel's own build targets included
# (headers_install needs rsync, checkpatch.pl perl). Debian's automount
# runs in the guest, from .debs fetched into build/: it is not installed.
BUILD_PKGS="busybox-static gcc gcc-multilib bc bison flex libelf-dev libssl-dev cpio
ccache rsync apt dpkg debian-archive-keyring binutils lz4"
# --run: only what runs them (make import, before there is a bundle.txt);
# --print: print root's apt-get line for what is missing, install nothing
parse_args "deps.sh [--run] [--print]" --run --print -- "$@"
run_only=${OPT[run]}
lab_imported && run_only=1
if [ "$run_only" = 1 ]; then PKGS=$RUN_PKGS; else PKGS="$RUN_PKGS $BUILD_PKGS"; fi
# The kernel source: the host's package where its apt has one by exactly
# this name (Debian 12), else scripts/source/linux-source.sh fetches Debian
# 12's into build/.
KSRC_PKG=$LINUX_SOURCE_PKG

installed() { [ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" = installed ]; }
# apt takes a name with a dot for a pattern when no package has exactly
# that name: on Debian 13, apt-cache policy and apt-get install both take
# linux-source-6.1 for linux-source-6.12. So a dotted name is only ever
# asked for where apt offers a package by exactly that name (the
# paragraph headed NAME: or NAME:ARCH:, with a candidate). A fresh
# system's lists are empty until root runs apt-get update: nothing is
# offered there.
offered() {
	run_child "$LIMIT_SHORT" apt-cache policy "$1" </dev/null 2>/dev/null |
		awk -v want="$1" '/^[^ ]/ { head = $0; sub(/:$/, "", head); sub(/:[a-z0-9]+$/, "", head); mine = head == want }
			mine && /^  Candidate: [0-9]/ { found = 1 } END { exit !found }'
}
want_ksrc() { # the host's linux-source-6.1, unless the lab already has its own
	[ "$run_only" = 0 ] && ! installed "$KSRC_PKG" &&
		! grep -q '^from: Debian' "$BUILD_DIR/linux-source.txt" 2>/dev/null
}
# The packages to ask apt for: the missing ones, a dotted name only where
# apt offers it by that name. KSRC_NOTE says why the kernel source is or
# is not among them.
apt_names() {
	local pkg
	names=() KSRC_NOTE=''
	for pkg in "${missing[@]}"; do
		[[ $pkg != *.* ]] || offered "$pkg" || continue
		names+=("$pkg")
	done
	want_ksrc || return 0
	if offered "$KSRC_PKG"; then
		names+=("$KSRC_PKG")
		KSRC_NOTE="$KSRC_PKG is in it: this system's apt offers Debian 12's kernel source by that name, and the lab uses it."
	else
		KSRC_NOTE="$KSRC_PKG is not in it: this system's apt offers no package by that exact name (Debian 13 has none; a fresh system's lists are empty until apt-get update), and apt would take the name for a pattern (on Debian 13, linux-source-6.12). The lab fetches Debian 12's into build/ itself."
	fi
}

# (one dpkg-query for all: every lab command asks)
# shellcheck disable=SC2086 # the lists are words
mapfile -t have < <(dpkg-query -W -f='${db:Status-Status} ${Package}\n' $PKGS 2>/dev/null |
	sed -n 's/^installed //p')
missing=()
for pkg in $PKGS; do [[ " ${have[*]} " == *" $pkg "* ]] || missing+=("$pkg"); done
if [ ${#missing[@]} -eq 0 ]; then
	[ "${OPT[print]}" = 0 ] || echo "every Debian package the lab needs is installed" >&2
	exit 0
fi

if [ "$(id -u)" -ne 0 ] || [ "${OPT[print]}" = 1 ]; then
	apt_names
	[ "${OPT[print]}" = 1 ] || printf 'error: ' >&2
	printf 'missing Debian packages: %s\nInstall them as root with:\n  sudo apt-get update && sudo apt-get install -y --no-install-recommends %s\n' \
		"${missing[*]}" "${names[*]}" >&2
	[ -z "$KSRC_NOTE" ] || printf '%s\n' "$KSRC_NOTE" >&2
	[ "${OPT[print]}" = 1 ] && exit 0
	printf 'then run this again (as yourself: root is needed for apt only).\n' >&2
	exit 1
fi

export DEBIAN_FRONTEND=noninteractive
run_logged "apt-get update" "$LOGS/apt-update.log" "$LIMIT_APT" apt-get update
apt_names
say "installing Debian packages: ${names[*]}"
[ -z "$KSRC_NOTE" ] || say "$KSRC_NOTE"
run_logged "apt-get install" "$LOGS/apt-install.log" "$LIMIT_APT" \
	apt-get install -y --no-install-recommends "${names[@]}"
