#!/usr/bin/env bash
# Build a step's guest: the programs of guest/ for i386, x86_64 and x32
# against that step's own uapi headers, and an initramfs with Debian's
# static busybox, made by the kernel's usr/gen_init_cpio. When the step
# runs Debian's own automount, the initramfs goes on with the part that
# holds it (scripts/guest/debian-root.sh): the kernel unpacks one archive after
# the other.
# Usage: guest-build.sh STEP [--out DIR]   (DIR: not the step's own
#        output dir, one with a kernel's uapi/ built into it)
# shellcheck source=../lib/core.sh
. "$(dirname "$0")/../lib/core.sh"
lab_setup
# shellcheck source=../lib/initramfs.sh
. "$(dirname "$0")/../lib/initramfs.sh"
usage="guest-build.sh STEP [--out DIR]"
parse_args "$usage" --out= -- "$@"
[ ${#ARGS[@]} -eq 1 ] || usage_error "$usage"
s=$(resolve_step "${ARGS[0]}")
out=${OPT[out]:-$(step_out "$s")}
mapfile -t abis < <(guest_abis)
uapi=$(out_file "$out" uapi) guest=$(out_file "$out" guest) programs=$(out_file "$out" programs)
[ -d "$uapi" ] || die "step $s has no kernel headers yet: build its kernel first"
# (the kernel's own build dir has it: gen_init_cpio is a host program)
gen=$(step_kout "$s")/usr/gen_init_cpio
[ -x "$gen" ] || die "$gen missing: build step $s's kernel first"

for abi in "${abis[@]}"; do
	if ! run_child "$LIMIT_SHORT" make -s -C "$LAB_ROOT/guest" O="$guest/$abi" UAPI="$uapi" ABI="$abi" \
		</dev/null >"$LOGS/guest-$s-$abi.log" 2>&1; then
		cat "$LOGS/guest-$s-$abi.log" >&2
		die "building the $abi guest programs of step $s failed (log: $LOGS/guest-$s-$abi.log)"
	fi
done

# What the guest runs: the step's own runs, then those of every step
# (program, ABI, the name it runs as), as the step model reads and checks
# them (scripts/labhost/steps.py). What history predicts stays on the
# host, in the step's expected file: the guest cannot see it.
step_programs "$s" >"$programs"
# a program of guest/ must have been built for its ABI; Debian's
# automount comes from Debian's packages (the model checked their ABIs)
debian=0
while read -r prog abi _; do
	if is_debian_program "$prog"; then
		debian=1
		continue
	fi
	# DAEMON+ABI: DAEMON, its lookups by the client of that other ABI
	[ -x "$guest/$abi/${prog%%+*}" ] || die "step $s runs ${prog%%+*} for $abi, which guest/ does not build"
	[ "${prog%%+*}" = "$prog" ] || [ -x "$guest/${prog#*+}/client" ] ||
		die "step $s runs $prog: no client built for ${prog#*+}"
done <"$programs"
[ "$debian" = 0 ] || "$SCRIPTS/guest/debian-root.sh"

# The archive holds copies, all dated source_epoch, in a fixed order: the
# same guest gives the same bytes on any machine (gen_init_cpio keeps a
# file's own time; -t dates the rest).
epoch=$(source_epoch)
files=$(out_file "$out" initramfs_files)
rm -rf "$files"
mkdir -p "$files"
cp /bin/busybox "$LAB_ROOT/guest/init.sh" "$LAB_ROOT/guest/result.sh" \
	"$LAB_ROOT/guest/debian-run.sh" "$LAB_ROOT/guest/abis" "$programs" "$files/"
for abi in "${abis[@]}"; do
	mkdir "$files/$abi"
	find "$guest/$abi" -maxdepth 1 -type f -perm -u+x -exec cp {} "$files/$abi/" \;
done
find "$files" -exec touch -h -d "@$epoch" {} +
list=$(out_file "$out" initramfs_list)
{
	for d in /dev /proc /sys /tmp /bin /auto /root /lab /view; do
		echo "dir $d 0755 0 0"
	done
	echo "nod /dev/console 0600 0 0 c 5 1"
	echo "file /bin/busybox $files/busybox 0755 0 0"
	echo "slink /bin/sh busybox 0777 0 0"
	echo "file /init $files/init.sh 0755 0 0"
	echo "file /lab/result.sh $files/result.sh 0644 0 0"
	echo "file /lab/debian-run.sh $files/debian-run.sh 0755 0 0"
	echo "file /lab/programs $files/${programs##*/} 0644 0 0"
	echo "file /lab/abis $files/abis 0644 0 0"
	for abi in "${abis[@]}"; do
		echo "dir /lab/$abi 0755 0 0"
		find "$files/$abi" -type f -printf '%f\n' | LC_ALL=C sort |
			while read -r p; do echo "file /lab/$abi/$p $files/$abi/$p 0755 0 0"; done
	done
} >"$list"
# the step's own part alone, and the whole initramfs, which goes on with
# Debian's part when the step runs Debian's automount
lab=$(out_file "$out" initramfs_lab)
"$gen" -t "$epoch" "$list" >"$lab.tmp"
mv "$lab.tmp" "$lab"
{ echo lab; [ "$debian" = 0 ] || echo debian; } >"$(out_file "$out" initramfs_parts)"
join_initramfs "$out"
