# shellcheck shell=bash
# The build directory: claimed as the lab's own, worked in through a
# plain path when its own has a space or a colon, and where a build keeps
# what it records. (A step's output dir is the model's answer, step_out.)

# The build directory is the lab's own: made and marked by it, so that
# nothing writes into, or cleans, a directory that belongs to somebody
# else (make clean BUILD_DIR=$HOME). A directory an older lab made
# (it has the kernel tree or the steps' output) is adopted.
BUILD_MARK=.lab-build-dir
claim_build_dir() {
	if [ ! -e "$BUILD_DIR" ]; then
		mkdir -p "$BUILD_DIR"
	elif [ ! -f "$BUILD_DIR/$BUILD_MARK" ]; then
		[ -d "$BUILD_DIR" ] || die "BUILD_DIR=$BUILD_DIR is not a directory"
		if [ -n "$(ls -A "$BUILD_DIR")" ] && [ ! -e "$BUILD_DIR/linux/.git/lab-source-id" ] &&
			[ ! -d "$BUILD_DIR/steps" ]; then
			die "BUILD_DIR=$BUILD_DIR is not a build directory of this lab (it has files, but no $BUILD_MARK).
Use a new or empty directory."
		fi
	fi
	# made by another user (make as root, then as yourself): it cannot be
	# written, so say so before anything fails inside it
	local other
	if [ "$(id -u)" -ne 0 ] &&
		other=$(find "$BUILD_DIR" -maxdepth 2 ! -user "$(id -u)" -print -quit 2>/dev/null) && [ -n "$other" ]; then
		die "$BUILD_DIR has files of the user $(stat -c %U "$other") (for one, $other): a lab command ran there as that user (as root?).
Make them yours and run this again:
  sudo chown -R $(id -un): $BUILD_DIR
(or remove them: sudo rm -rf $BUILD_DIR)"
	fi
	[ -f "$BUILD_DIR/$BUILD_MARK" ] ||
		printf 'made by the autofs ABI lab in %s; make clean may remove it\n' "$LAB_ROOT" \
			>"$BUILD_DIR/$BUILD_MARK"
}

# kbuild refuses a tree whose path has a space or a colon ("source
# directory cannot contain spaces or colons"), and make and gen_init_cpio
# split such paths too. So in such a BUILD_DIR the lab works through a
# plain path that stands for it, /var/tmp/abi-lab-UID/HASH (by the
# BUILD_DIR's own path): there, build links to BUILD_DIR, and linux is
# the kernel tree itself (BUILD_DIR/linux links to it).
plain_home() {
	printf '/var/tmp/abi-lab-%s/%s\n' "$(id -u)" "$(printf '%s' "$1" | sha256sum | cut -c1-12)"
}
use_plain_home() {
	local home top
	home=$(plain_home "$BUILD_DIR") top=${home%/*}
	[ -d "$top" ] || mkdir -m 700 "$top"
	{ [ -O "$top" ] && [ ! -L "$top" ]; } || die "$top is not a directory of yours, and the lab keeps the kernel tree of BUILD_DIR=\"$BUILD_DIR\" (a path with a space or colon, which kbuild refuses) there"
	mkdir -p "$home"
	ln -sfn "$BUILD_DIR" "$home/build"
	[ -e "$BUILD_DIR/linux" ] || [ -L "$BUILD_DIR/linux" ] || ln -s "$home/linux" "$BUILD_DIR/linux"
	# shellcheck disable=SC2034 # lab.sh says where the tree is
	PLAIN_FOR=$BUILD_DIR BUILD_DIR=$home/build
}

# The paths of the build dir: the kernel tree (a git repo with one branch
# per step) and, inside it, the one out-of-tree build dir all steps
# share: kbuild then names every source by a relative path (srctree is
# ".."), and no absolute path of this machine ends up in a binary.
# shellcheck disable=SC2034 # for the scripts that source this file
layout_paths() {
	KSRC=$BUILD_DIR/linux
	# (kbuild runs in the tree's own path, which prefix maps must name)
	[ ! -L "$KSRC" ] || KSRC=$(readlink "$KSRC")
	KOUT=$KSRC/out
	LOGS=$BUILD_DIR/logs
}
git_k() { git -C "$KSRC" "$@"; } # git in the kernel tree

# The log of a kernel's make (LABEL: a step's slug, or the name of the
# output dir of kernel-build.sh --out: try, bisect)
kernel_log() { echo "$LOGS/kernel-$1.log"; } # label
# the log of a step's guest and boot, built beside a kernel (pipeline.sh)
piece_log() { echo "$LOGS/piece-$1.log"; } # slug

# The kernel source we build from: Debian's package of Linux 6.1
# (source/linux-source.sh fetches and records it, source/deps.sh asks
# apt for the host's), its Debian package version, and its tarball.
# shellcheck disable=SC2034 # for the scripts that source this file
LINUX_SOURCE_PKG=linux-source-6.1
linux_source_version() {
	sed -n 's/^version: //p' "$BUILD_DIR/linux-source.txt" 2>/dev/null | grep . || echo unknown
}
linux_source_tarball() {
	sed -n 's/^tarball: //p' "$BUILD_DIR/linux-source.txt" 2>/dev/null
}

# Is this build dir's output an imported bundle (bundle/bundle.sh)?
lab_imported() { [ -f "$BUILD_DIR/bundle.txt" ]; }

# The time every file the lab puts in an initramfs is dated, in seconds
# since 1970: the date of the kernel tree's baseline commit, which is
# the linux-source release's own (tree/kernel-tree.sh). Same source,
# same archive bytes.
source_epoch() {
	git -C "$KSRC" log -1 --format=%ct baseline 2>/dev/null | grep . ||
		die "the kernel tree has no baseline commit yet (run: make)"
}

# A content key of files: changes when any of them changes.
files_key() {
	cat "$@" | sha256sum | cut -c1-16
}

# The path of a unix socket of the run's own (build/steps/SLUG/NAME.sock),
# or one in a new private directory under /tmp when that path is too
# long: a socket's path has room for 107 bytes. (A directory made here,
# not a name merely checked to be free: nobody else can take it.)
socket_path() { # dir name
	local p=$1/$2.sock
	[ "${#p}" -lt 100 ] || p=$(mktemp -d "${TMPDIR:-/tmp}/lab-XXXXXX")/$2.sock
	echo "$p"
}
