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
iproute2 procps util-linux shellcheck mkdocs mkdocs-material python3-yaml openssh-client"
# What builds them, the kernel's own build targets included
# (headers_install needs rsync, checkpatch.pl perl). Debian's automount
# runs in the guest, from .debs fetched into build/: it is not installed.
BUILD_PKGS="busybox-static gcc gcc-multilib bc bison flex libelf-dev libssl-dev cpio
ccache rsync apt dpkg debian-archive-keyring binutils lz4"
# --run: only what runs them (make import, before there is a bundle.txt)
parse_args "deps.sh [--run]" --run -- "$@"
run_only=${OPT[run]}
lab_imported && run_only=1
if [ "$run_only" = 1 ]; then PKGS=$RUN_PKGS; else PKGS="$RUN_PKGS $BUILD_PKGS"; fi
# The kernel source: the host's package where its apt has one by exactly
# this name (Debian 12), else scripts/source/linux-source.sh fetches Debian
# 12's into build/. apt-get takes a name with a dot for a pattern when
# no package has it (linux-source-6.1 would match linux-source-6.12),
# so it is only ever asked for by a name apt has.
KSRC_PKG=linux-source-6.1

installed() { [ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" = installed ]; }
# (grep reads all of it: with -q, pipefail would see apt-cache's SIGPIPE)
offered() { run_child "$LIMIT_SHORT" apt-cache policy "$1" </dev/null 2>/dev/null | grep '^  Candidate: [0-9]' >/dev/null; }
want_ksrc() { # the host's linux-source-6.1, unless the lab already has its own
	[ "$run_only" = 0 ] && ! installed "$KSRC_PKG" && offered "$KSRC_PKG" &&
		! grep -q '^from: Debian' "$BUILD_DIR/linux-source.txt" 2>/dev/null
}

# (one dpkg-query for all: every lab command asks)
# shellcheck disable=SC2086 # the lists are words
mapfile -t have < <(dpkg-query -W -f='${db:Status-Status} ${Package}\n' $PKGS 2>/dev/null |
	sed -n 's/^installed //p')
missing=()
for pkg in $PKGS; do [[ " ${have[*]} " == *" $pkg "* ]] || missing+=("$pkg"); done
if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	want_ksrc && missing+=("$KSRC_PKG")
	printf 'error: missing Debian packages: %s\nInstall them as root with:\n  sudo apt-get update && sudo apt-get install -y --no-install-recommends %s\nthen run this again (as yourself: root is needed for apt only).\n' \
		"${missing[*]}" "${missing[*]}" >&2
	exit 1
fi

export DEBIAN_FRONTEND=noninteractive
run_logged "apt-get update" "$LOGS/apt-update.log" "$LIMIT_APT" apt-get update
want_ksrc && missing+=("$KSRC_PKG")
say "installing Debian packages: ${missing[*]}"
run_logged "apt-get install" "$LOGS/apt-install.log" "$LIMIT_APT" \
	apt-get install -y --no-install-recommends "${missing[@]}"
