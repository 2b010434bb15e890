#!/usr/bin/env bash
# make clean: remove the build directory, if it is one the lab made (it
# has the mark .lab-build-dir), and nothing else.
# shellcheck source=lib/core.sh
. "$(dirname "$0")/lib/core.sh"
# do not make or mark it, and do not read steps/ (a broken step must
# not stop a clean)
lab_setup --no-claim

[ -e "$BUILD_DIR" ] || { say "nothing to clean: $BUILD_DIR does not exist"; exit 0; }
if [ ! -d "$BUILD_DIR" ] || [ -L "$BUILD_DIR" ]; then
	die "refusing to clean $BUILD_DIR: not a directory the lab made"
fi
[ -f "$BUILD_DIR/$BUILD_MARK" ] ||
	die "refusing to clean $BUILD_DIR: it is not a build directory of this lab (no $BUILD_MARK in it). Nothing was removed."
lab_lock exclusive
say "removing $BUILD_DIR"
# the lock file goes with it; our open descriptor keeps the lock to the end
rm -rf --one-file-system -- "$BUILD_DIR"
# and the kernel tree of a BUILD_DIR with a space, kept where kbuild takes it
home=$(plain_home "$BUILD_DIR")
if [ -L "$home/build" ]; then
	say "removing $home (its kernel tree)"
	rm -rf --one-file-system -- "$home"
fi
