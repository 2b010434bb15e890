# shellcheck shell=bash
# A step's initramfs: its parts (out_file initramfs_parts: "lab", its own,
# and "debian" when it runs Debian's automount) one after the other, as
# the kernel unpacks them. For guest-build.sh, and bundle.sh's import,
# which brings the parts. Sourced after lib/core.sh.
join_initramfs() { # out-dir
	local part f cpio parts
	cpio=$(out_file "$1" initramfs) parts=$(out_file "$1" initramfs_parts)
	: >"$cpio.tmp"
	while read -r part; do
		case $part in
		lab) f=$(out_file "$1" initramfs_lab) ;;
		debian) f=$BUILD_DIR/debian/debian.cpio.lz4 ;;
		*) die "$parts: unknown part '$part'" ;;
		esac
		cat "$f" >>"$cpio.tmp" || die "the initramfs part $f is missing"
	done <"$parts"
	mv "$cpio.tmp" "$cpio"
}
