#!/usr/bin/env bash
# Build a step's guest: the programs of guest/ for i386 and x86_64 against
# that step's own uapi headers, and an initramfs with Debian's static
# busybox, made by the kernel's usr/gen_init_cpio.
# Usage: guest-build.sh N
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

n=$1
out=$(step_out "$n")
dir=$(step_dir "$n")
[ -d "$out/uapi" ] || die "step $n has no kernel headers yet: build its kernel first"
gen=$KOUT/usr/gen_init_cpio
[ -x "$gen" ] || die "$gen missing: build a kernel first"

for abi in i386 x86_64; do
	if ! make -s -C "$LAB_ROOT/guest" O="$out/guest/$abi" UAPI="$out/uapi" ABI="$abi" \
		>"$LOGS/guest-step$n-$abi.log" 2>&1; then
		cat "$LOGS/guest-step$n-$abi.log" >&2
		die "building the $abi guest programs of step $n failed (log: $LOGS/guest-step$n-$abi.log)"
	fi
done

# What the guest runs: the first three columns of the step's expectations
# (program, ABI, the name it runs as). The expected verdicts stay on the host.
awk '!/^#/ && NF >= 3 { print $1, $2, $3 }' "$dir/expected" >"$out/programs"

list=$out/initramfs.list
{
	for d in /dev /proc /sys /tmp /bin /auto /root /lab /lab/i386 /lab/x86_64; do
		echo "dir $d 0755 0 0"
	done
	echo "nod /dev/console 0600 0 0 c 5 1"
	echo "file /bin/busybox /bin/busybox 0755 0 0"
	echo "slink /bin/sh busybox 0777 0 0"
	echo "file /init $LAB_ROOT/guest/init.sh 0755 0 0"
	echo "file /lab/programs $out/programs 0644 0 0"
	for abi in i386 x86_64; do
		for p in "$out/guest/$abi"/*; do
			[ -f "$p" ] && [ -x "$p" ] && echo "file /lab/$abi/${p##*/} $p 0755 0 0"
		done
	done
} >"$list"
"$gen" "$list" >"$out/initramfs.cpio.tmp"
mv "$out/initramfs.cpio.tmp" "$out/initramfs.cpio"
