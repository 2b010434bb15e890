# shellcheck shell=bash
# The lab's private apt root for Debian 12 ("bookworm"), under
# build/debian/aptroot: whatever the host runs (Debian 12 or 13, root
# or not), the guest's automount and, where the host has no
# linux-source-6.1, the kernel source come from Debian 12's archive,
# through apt, checked as apt checks them, and nothing is installed on
# the host. Its sources are the host's Debian mirrors with the suite
# set to bookworm. Sourced after lib/core.sh.

DEBIAN_SUITE=bookworm
APTROOT=$BUILD_DIR/debian/aptroot
DEBIAN_KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

# The Debian archive and security mirrors the host's apt uses (one-line
# or deb822 sources), or Debian's own when it has none (a derivative).
debian_mirrors() {
	local sources main sec
	sources=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null)
	main=$(grep -oE 'https?://[^ ]+/debian/?( |$)' <<<"$sources" | sed 's:/* *$::' | head -n 1)
	sec=$(grep -oE 'https?://[^ ]+/debian-security/?( |$)' <<<"$sources" | sed 's:/* *$::' | head -n 1)
	echo "${main:-http://deb.debian.org/debian} ${sec:-}"
}

make_aptroot() {
	local main sec want
	[ -f "$DEBIAN_KEYRING" ] ||
		die "$DEBIAN_KEYRING is missing: install Debian's debian-archive-keyring package (it holds the keys that sign Debian 12's archive)"
	read -r main sec <<<"$(debian_mirrors)"
	want=$(
		printf 'Types: deb\nURIs: %s\nSuites: %s %s-updates\nComponents: main\nSigned-By: %s\n' \
			"$main" "$DEBIAN_SUITE" "$DEBIAN_SUITE" "$DEBIAN_KEYRING"
		[ -z "$sec" ] ||
			printf '\nTypes: deb\nURIs: %s\nSuites: %s-security\nComponents: main\nSigned-By: %s\n' \
				"$sec" "$DEBIAN_SUITE" "$DEBIAN_KEYRING"
	)
	# an apt root made for other sources (an older lab copied the host's) is made anew
	if [ -f "$APTROOT/etc/apt/apt.conf" ] &&
		[ "$(cat "$APTROOT/etc/apt/sources.list.d/debian.sources" 2>/dev/null)" = "$want" ]; then
		return 0
	fi
	rm -rf "$APTROOT"
	mkdir -p "$APTROOT"/etc/apt/{sources.list.d,apt.conf.d,preferences.d} \
		"$APTROOT"/var/lib/apt/lists/partial \
		"$APTROOT"/var/cache/apt/archives/partial "$APTROOT"/var/lib/dpkg
	: >"$APTROOT/var/lib/dpkg/status" # nothing is installed here
	: >"$APTROOT/etc/apt/sources.list"
	echo "$want" >"$APTROOT/etc/apt/sources.list.d/debian.sources"
	cat >"$APTROOT/etc/apt/apt.conf" <<EOF
Dir "$APTROOT/";
Dir::State "$APTROOT/var/lib/apt/";
Dir::State::status "$APTROOT/var/lib/dpkg/status";
Dir::Cache "$APTROOT/var/cache/apt/";
Dir::Etc "$APTROOT/etc/apt/";
Dir::Etc::SourceList "$APTROOT/etc/apt/sources.list";
Dir::Etc::SourceParts "$APTROOT/etc/apt/sources.list.d/";
APT::Architecture "amd64";
APT::Architectures "amd64,i386";
APT::Sandbox::User "$(id -un)";
Debug::NoLocking "1";
Acquire::Languages "none";
Acquire::IndexTargets::deb::DEP-11::DefaultEnabled "false";
Acquire::IndexTargets::deb::DEP-11-icons::DefaultEnabled "false";
Acquire::IndexTargets::deb::DEP-11-icons-small::DefaultEnabled "false";
Acquire::IndexTargets::deb::Contents-deb::DefaultEnabled "false";
Acquire::Check-Valid-Until "false";
EOF
}

# an apt query of the private root, bounded like every child
apt_() { APT_CONFIG=$APTROOT/etc/apt/apt.conf run_child "$LIMIT_SHORT" "$@"; }

# apt-get update of the private root, once (its lists are kept)
update_once() {
	make_aptroot
	[ -n "$(ls "$APTROOT/var/lib/apt/lists/"*_Packages 2>/dev/null)" ] && return 0
	run_logged "apt-get update (Debian $DEBIAN_SUITE, private root build/debian/aptroot)" \
		"$LOGS/debian-apt-update.log" "$LIMIT_APT" \
		env APT_CONFIG="$APTROOT/etc/apt/apt.conf" apt-get -q update
}

# Download PKG[:ARCH] (an exact name: apt takes a name with a dot for a
# pattern only in install) into DIR, unless it is there; check its
# SHA256 against the signed index; print "path sha256".
apt_download() { # pkg[:arch] dir
	local pa=$1 dir=$2 fn sum
	update_once >&2 # our stdout is the answer
	read -r _ fn _ sum < <(apt_ apt-get download --print-uris "$pa" </dev/null 2>/dev/null) ||
		die "apt finds no package $pa in Debian $DEBIAN_SUITE (see $LOGS/debian-apt-update.log)"
	if [ ! -f "$dir/$fn" ]; then
		info "downloading $pa ($fn)" >&2
		(cd "$dir" && APT_CONFIG=$APTROOT/etc/apt/apt.conf run_child "$LIMIT_APT" apt-get -q download "$pa") \
			</dev/null >>"$LOGS/debian-apt-download.log" 2>&1 ||
			die "apt-get download $pa failed, see $LOGS/debian-apt-download.log"
		[ -f "$dir/$fn" ] || die "apt-get download of $pa gave no $fn"
	fi
	[ "SHA256:$(sha256sum "$dir/$fn" | cut -d' ' -f1)" = "$sum" ] ||
		die "$dir/$fn: its checksum is not the archive's"
	echo "$dir/$fn $sum"
}
