# shellcheck shell=bash
# gen_init_cpio lines for files of an unpacked Debian root, as the guest
# must see them: every directory on the way, and every symlink on the
# way followed, whatever layout the packages ship. A merged /usr (Debian
# 13's libc6 has its loader under usr/lib only; /lib -> usr/lib belongs
# to base-files, which is not unpacked) gets the top-level link the
# system would have. Sourced; used by scripts/guest/debian-root.sh and its test.

declare -A CPIO_DIRS
adddir() { # guest-dir
	local p=$1
	if [ "$p" = / ] || [ -n "${CPIO_DIRS[$p]:-}" ]; then return 0; fi
	adddir "$(dirname "$p")"
	CPIO_DIRS[$p]=1
	echo "dir $p 0755 0 0"
}

# guest-root host-root relative-path: the file, and the links that lead to it
addpath() {
	local R=$1 H=$2 f=$3 pre="" rest=$3 c t
	while [ -n "$rest" ]; do
		c=${rest%%/*}
		[ "$c" = "$rest" ] && rest="" || rest=${rest#*/}
		if [ -L "$H/$pre$c" ]; then
			t=$(readlink "$H/$pre$c")
			adddir "$(dirname "$R/$pre$c")"
			echo "slink $R/$pre$c $t 0777 0 0"
			case $t in
			/*) t=${t#/} ;;
			*) t=$(realpath -m -s "/$pre$t" | cut -c2-) ;;
			esac
			addpath "$R" "$H" "$t${rest:+/$rest}"
			return
		elif [ ! -e "$H/$pre$c" ]; then
			if [ -z "$pre" ] && [ -e "$H/usr/$c" ]; then # merged /usr
				adddir "$R"
				echo "slink $R/$c usr/$c 0777 0 0"
				addpath "$R" "$H" "usr/$f"
				return
			fi
			echo "cpio-list: $H has no $f (no $pre$c)" >&2
			return 1
		fi
		pre=$pre$c/
	done
	[ -f "$H/$f" ] || { echo "cpio-list: $H/$f is not a regular file" >&2; return 1; }
	adddir "$(dirname "$R/$f")"
	echo "file $R/$f $H/$f $(stat -c %a "$H/$f") 0 0"
}
