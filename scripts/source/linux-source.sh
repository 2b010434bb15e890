#!/usr/bin/env bash
# The kernel source the lab replays its story on: Debian's
# linux-source-6.1, the same Linux 6.1 on every host.
#   - the host's /usr/src/linux-source-6.1.tar.xz when the host has the
#     package installed (Debian 12: scripts/source/deps.sh asks for it);
#   - otherwise (Debian 13, a derivative) Debian 12's package, fetched
#     with apt through the lab's private apt root (scripts/lib/debian-apt.sh)
#     into build/debian/linux-source, checked against the signed index,
#     and kept: a rerun needs no network.
# Writes build/linux-source.txt (package, version, from, tarball) and
# says which it is.
# shellcheck source=../lib/core.sh
. "$(dirname "$0")/../lib/core.sh"
lab_setup
# shellcheck source=../lib/debian-apt.sh
. "$(dirname "$0")/../lib/debian-apt.sh"

PKG=$LINUX_SOURCE_PKG
TARBALL=usr/src/$PKG.tar.xz
rec=$BUILD_DIR/linux-source.txt
dir=$BUILD_DIR/debian/linux-source

record() { # version from tarball
	printf 'package: %s\nversion: %s\nfrom: %s\ntarball: %s\n' "$PKG" "$1" "$2" "$3" >"$rec.tmp"
	mv "$rec.tmp" "$rec"
}

if [ "$(dpkg-query -W -f='${db:Status-Status}' "$PKG" 2>/dev/null)" = installed ]; then
	[ -f "/$TARBALL" ] || die "$PKG is installed but /$TARBALL is missing: reinstall it (apt-get install --reinstall $PKG)"
	record "$(dpkg-query -W -f='${Version}' "$PKG")" "the host's package" "/$TARBALL"
elif [ "$(sed -n 's/^from: //p' "$rec" 2>/dev/null)" = "Debian $DEBIAN_SUITE's archive, private apt root" ] &&
	[ -f "$(sed -n 's/^tarball: //p' "$rec")" ]; then
	: # fetched before: kept
else
	say "kernel source: the host has no $PKG; fetching Debian $DEBIAN_SUITE's through apt into ${dir#"$LAB_ROOT"/} (about 140 MB, once)"
	mkdir -p "$dir/debs"
	deb=$(apt_download "$PKG" "$dir/debs") || exit 1
	deb=${deb%% *}
	rm -rf "$dir/root"
	mkdir -p "$dir/root"
	# shellcheck disable=SC2016 # the inner sh expands them
	run_logged "unpack ${deb##*/}" "$LOGS/linux-source-unpack.log" "$LIMIT_APT" \
		sh -c 'dpkg-deb --fsys-tarfile "$1" | tar -x -C "$2" "./$3"' sh "$deb" "$dir/root" "$TARBALL"
	record "$(dpkg-deb -f "$deb" Version)" "Debian $DEBIAN_SUITE's archive, private apt root" "$dir/root/$TARBALL"
fi
info "kernel source: $PKG $(sed -n 's/^version: //p' "$rec"), $(sed -n 's/^from: //p' "$rec"): $(sed -n 's/^tarball: //p' "$rec")"
