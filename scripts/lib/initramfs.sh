# shellcheck shell=bash
# A step's initramfs: its parts (initramfs.parts: "lab", its own, and
# "debian" when it runs Debian's automount) one after the other, as the
# kernel unpacks them. For guest-build.sh, and bundle.sh's import, which
# brings the parts. Sourced after lib/core.sh.
join_initramfs() { # out-dir
	local part f
	: >"$1/initramfs.cpio.tmp"
	while read -r part; do
		case $part in
		lab) f=$1/initramfs-lab.cpio ;;
		debian) f=$BUILD_DIR/debian/debian.cpio.lz4 ;;
		*) die "$1/initramfs.parts: unknown part '$part'" ;;
		esac
		cat "$f" >>"$1/initramfs.cpio.tmp" || die "the initramfs part $f is missing"
	done <"$1/initramfs.parts"
	mv "$1/initramfs.cpio.tmp" "$1/initramfs.cpio"
}
