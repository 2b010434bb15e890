#!/usr/bin/env bash
# Debian 12's own automount (autofs 5.1.8), amd64 and i386, as shipped:
# the .debs from Debian 12's archive, whatever the host runs, and exactly
# the shared libraries the daemon and the modules the guest uses need,
# unpacked into a root per ABI, and the part of the initramfs that holds
# them. Nothing is installed on the host: apt runs in a private root
# (scripts/lib/debian-apt.sh: Debian 12's suites, its own state,
# APT::Architectures amd64,i386), and the host's dpkg gets no new
# architecture.
#
#   build/debian/debs      the .debs and MANIFEST (package, file, sha256):
#                          the cache; with it complete, a rerun needs no
#                          network and no apt at all
#   build/debian/root/ARCH the .debs of ARCH unpacked (dpkg-deb -x)
#   build/debian/files-ARCH  the closure: the files the guest needs
#   build/debian/debian.cpio.lz4  those files, busybox links and the
#                          lab's maps (guest/debian/), for /debian/ARCH
#
# The closure is taken from the ELF files, not from Depends (which would
# drag in perl and dpkg): from automount and its modules, every DT_NEEDED
# soname not yet in the root is looked for among the Depends of the
# package that owns the file asking for it, best name first.
# Usage: debian-root.sh     (called by guest-build.sh; quick when cached)
# shellcheck source=../lib/core.sh
. "$(dirname "$0")/../lib/core.sh"
lab_setup
# shellcheck source=../lib/debian-apt.sh
. "$(dirname "$0")/../lib/debian-apt.sh"
lab_lock exclusive

D=$BUILD_DIR/debian
DEBS=$D/debs
MANIFEST=$DEBS/MANIFEST
OUT=$D/debian.cpio.lz4
mkdir -p "$DEBS"
# one at a time: two steps' guests may be built side by side (pipeline.sh)
exec {dlock}>>"$D/.lock"
flock -w "$(child_limit "$LIMIT_APT")" "$dlock" || die "Debian's root: another build of it held ${D#"$LAB_ROOT"/}/.lock too long"

triplet() { case $1 in amd64) echo x86_64-linux-gnu ;; i386) echo i386-linux-gnu ;; esac; }

# The files of autofs the guest runs. parse_sun.so always opens
# mount_nfs.so (which opens mount_bind.so), mount_generic.so serves
# -fstype=tmpfs (there is no mount_tmpfs.so), mount_bind.so -fstype=bind.
seeds() {
	local t m
	t=$(triplet "$1")
	echo usr/sbin/automount
	for m in lookup_file parse_sun mount_nfs mount_bind mount_generic; do
		echo "usr/lib/$t/autofs/$m.so"
	done
}

# pkg:arch -> the .deb in the cache (downloaded when missing)
deb_of() {
	local pa=$1 f sum
	f=$(awk -v p="$pa" '$1 == p { print $2 }' "$MANIFEST.new" 2>/dev/null | head -n 1)
	if [ -n "$f" ] && [ -f "$DEBS/$f" ]; then
		echo "$DEBS/$f"
		return
	fi
	[ -z "$OFFLINE" ] || die "offline, and $pa is not in $DEBS"
	f=$(apt_download "$pa" "$DEBS") || exit 1
	read -r f sum <<<"$f"
	echo "$pa ${f##*/} $sum" >>"$MANIFEST.new"
	echo "$f"
}

declare -A UNPACKED OWNER
unpack() { # pkg:arch
	local pa=$1 arch=${1##*:} deb p
	[ -n "${UNPACKED[$pa]:-}" ] && return 0
	deb=$(deb_of "$pa")
	dpkg-deb -x "$deb" "$D/root/$arch"
	while read -r p; do
		OWNER["$arch:$p"]=$pa
	done < <(dpkg-deb -c "$deb" | awk '{ sub("^\\./", "", $6); print $6 }')
	UNPACKED[$pa]=1
	echo "$pa" >>"$D/used-$arch"
}

# where the dynamic linker would find a soname inside the root
find_lib() { # arch soname
	local t d
	t=$(triplet "$1")
	for d in "lib/$t" "usr/lib/$t" lib usr/lib; do
		if [ -e "$D/root/$1/$d/$2" ]; then
			echo "$d/$2"
			return 0
		fi
	done
	return 1
}

common_prefix() {
	local a=$1 b=$2 n=0
	while [ "$n" -lt "${#a}" ] && [ "${a:$n:1}" = "${b:$n:1}" ]; do n=$((n + 1)); done
	echo "$n"
}

# unpack the package among $3's Depends that ships soname $2
provide() { # arch soname owner-pkg:arch
	local arch=$1 so=$2 owner=$3 c n deb stem=${2%%.so*}
	local -a cand
	mapfile -t cand < <(apt_ apt-cache depends --no-recommends --no-suggests --no-conflicts \
		--no-breaks --no-replaces --no-enhances "$owner" |
		awk '/^  (Pre)?Depends:/ { d = $2; gsub("[<>]", "", d); print d }' |
		while read -r c; do
			n=${c%%:*}
			echo "$(common_prefix "$stem" "$n") $n:$arch"
		done | sort -k1,1nr -s | awk '{ print $2 }')
	for c in "${cand[@]}"; do
		[ -n "${UNPACKED[$c]:-}" ] && continue
		# Architecture: all ships no $arch library
		[ "$(apt_ apt-cache show --no-all-versions "$c" 2>/dev/null |
			awk '/^Architecture:/ { print $2; exit }')" = "$arch" ] || continue
		deb=$(deb_of "$c")
		if dpkg-deb -c "$deb" | awk -v so="/$so" '{ n = length($6) - length(so) }
			n >= 0 && substr($6, n + 1) == so { found = 1 } END { exit !found }'; then
			unpack "$c"
			return 0
		fi
	done
	die "no package among the Depends of $owner ships $so"
}

resolve_arch() { # arch: the ELF closure of the seeds
	local arch=$1 f so lib interp pa
	local -a queue
	local -A seen
	unpack "autofs:$arch"
	if [ -n "$OFFLINE" ]; then # exactly the manifest; the walk checks it
		while read -r pa _; do [ "${pa##*:}" = "$arch" ] && unpack "$pa"; done <"$MANIFEST"
	fi
	mapfile -t queue < <(seeds "$arch")
	while [ ${#queue[@]} -gt 0 ]; do
		f=${queue[0]}
		queue=("${queue[@]:1}")
		[ -n "${seen[$f]:-}" ] && continue
		seen[$f]=1
		echo "$f" >>"$D/files-$arch"
		interp=$(readelf -lW "$D/root/$arch/$f" 2>/dev/null | sed -n 's/.*interpreter: \(.*\)\]/\1/p')
		while read -r so; do
			lib=$(find_lib "$arch" "$so") || {
				provide "$arch" "$so" "${OWNER[$arch:$f]}"
				lib=$(find_lib "$arch" "$so")
			}
			queue+=("$lib")
		done < <(readelf -dW "$D/root/$arch/$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
		if [ -n "$interp" ] && [ -z "${seen[${interp#/}]:-}" ]; then
			seen[${interp#/}]=1
			echo "${interp#/}" >>"$D/files-$arch"
		fi
	done
}

# The key of what we make: the manifest, the lab's files for the guest
# and this script.
key() {
	{ cat "$MANIFEST" "$LAB_ROOT"/guest/debian/* "$0" /bin/busybox; source_epoch; } 2>/dev/null |
		sha256sum | cut -c1-16
}

OFFLINE=
if [ -f "$MANIFEST" ] && while read -r _ f sum; do
	[ "SHA256:$(sha256sum "$DEBS/$f" 2>/dev/null | cut -d' ' -f1)" = "$sum" ] || exit 1
done <"$MANIFEST"; then
	OFFLINE=1
	[ -s "$OUT" ] && [ "$(cat "$OUT.key" 2>/dev/null)" = "$(key)" ] && exit 0
	cp "$MANIFEST" "$MANIFEST.new"
else
	say "Debian's automount: the .debs of autofs 5.1.8 (amd64, i386) and the libraries it needs"
	: >"$MANIFEST.new"
fi
rm -rf "$D/root" "$D"/used-* "$D"/files-* "$OUT" "$OUT.key"
for arch in amd64 i386; do
	mkdir -p "$D/root/$arch"
	resolve_arch "$arch"
done
# the manifest lists what the closure uses, not what was probed on the way
cat "$D/used-amd64" "$D/used-i386" | while read -r pa; do
	awk -v p="$pa" '$1 == p { print; exit }' "$MANIFEST.new"
done >"$MANIFEST.tmp"
mv "$MANIFEST.tmp" "$MANIFEST"
rm -f "$MANIFEST.new"
info "$(wc -l <"$MANIFEST") .debs, $(cat "$DEBS"/*.deb | wc -c) bytes; closure: $(wc -l <"$D/files-amd64") files (amd64), $(wc -l <"$D/files-i386") (i386)"

# The initramfs part: /debian/ARCH with the closure (and the symlinks on
# the way to it), busybox for automount's /bin/mount and /bin/umount, and
# the lab's maps. gen_init_cpio writes it, lz4 -l (the kernel's legacy
# lz4 format) compresses it: the guest's memory (-m in boot.sh) holds
# the archive and all it unpacks to at once.
gen=$KOUT/usr/gen_init_cpio
[ -x "$gen" ] || die "$gen missing: build a kernel first"
# shellcheck source=cpio-list.sh
. "$SCRIPTS/guest/cpio-list.sh"
# The lab's own files go in as copies dated source_epoch, the .debs'
# files with the dates the .debs give them: the same packages give the
# same archive bytes on any machine.
epoch=$(source_epoch)
stage=$D/stage
rm -rf "$stage"
mkdir -p "$stage"
cp /bin/busybox "$LAB_ROOT"/guest/debian/* "$stage/"
find "$stage" -exec touch -h -d "@$epoch" {} +
list=$D/debian.list
{
	links=""
	for arch in amd64 i386; do
		R=/debian/$arch H=$D/root/$arch
		while read -r f; do addpath "$R" "$H" "$f" || exit 1; done <"$D/files-$arch"
		adddir "$R/etc"
		for f in auto.master.lab auto.lab autofs.conf passwd group; do
			echo "file $R/etc/$f $stage/$f 0644 0 0"
		done
		adddir "$R/srv/b"
		echo "file $R/srv/b/marker $stage/marker 0644 0 0"
		for d in auto proc dev tmp run root var bin; do adddir "$R/$d"; done
		echo "slink $R/var/run /run 0777 0 0"
		for a in sh mount umount ls cat; do echo "slink $R/bin/$a /bin/busybox 0777 0 0"; done
		links="$links $R/bin/busybox"
	done
	# one busybox, hard-linked into both roots (chroot cannot follow a
	# link out of them)
	adddir /debian/bin
	echo "file /debian/bin/busybox $stage/busybox 0755 0 0$links"
} | awk '!seen[$0]++' >"$list" || die "listing the files of Debian's automount for the initramfs failed"
"$gen" -t "$epoch" "$list" | lz4 -q -l -9 >"$OUT.tmp" || die "making $OUT failed"
mv "$OUT.tmp" "$OUT"
key >"$OUT.key"
info "the initramfs part of Debian's automount: $(du -h "$OUT" | cut -f1) (lz4), $(wc -l <"$list") entries"
