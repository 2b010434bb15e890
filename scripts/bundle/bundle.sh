#!/usr/bin/env bash
# A workshop in a file: what booting and debugging every step needs,
# built once by an instructor, imported on every laptop, and checkable
# bit for bit against the source by anyone.
#   bundle.sh make [--fast FILE] [--sign KEY]
#                            build/abi-lab-COMMIT.tar.xz (builds what is
#                            missing), and the make import line to hand
#                            out, with its SHA256; --fast: into FILE, not
#                            compressed (make test's round trip);
#                            --sign: also FILE.sig, made with the OpenSSH
#                            private key KEY (ssh-keygen -Y sign)
#   bundle.sh import FILE --sha256 HEX | --sig SIG --signer PUBKEY | --unverified
#                            check that FILE is the bundle the instructor
#                            announced (its SHA256, or their signature),
#                            before anything in it is unpacked; then check
#                            it is whole and lay it out where make puts
#                            its output
#   bundle.sh verify FILE    build from source here and compare every hash
#   bundle.sh check          (lab.sh) an imported build dir fits this checkout
# A bundle holds one directory, abi-lab-COMMIT/:
#   BUNDLE        the lab's commit, the linux-source version, the toolchain
#                 and the .debs of Debian's automount
#   SHA256SUMS    of every other file
#   steps/SLUG/   what step_files (below) lists for a step
#   debian/       Debian's automount as an initramfs part, once for all steps
#   abi-scan/     the scanner's tables (the docs' "Where else?" page)
# shellcheck source=../lib/core.sh
. "$(dirname "$0")/../lib/core.sh"
lab_setup
# shellcheck source=../lib/initramfs.sh
. "$SCRIPTS/lib/initramfs.sh"
lab_lock exclusive

# The lab's commit, or why there is none to name.
lab_commit() {
	git -C "$LAB_ROOT" rev-parse -q --verify HEAD 2>/dev/null ||
		die "$LAB_ROOT is not a git checkout: a bundle is made from, and for, a commit of the lab"
}

# A step's files in a bundle, relative to its output dir: the kernel and
# its debug info and gdb helpers, the headers the guests were built
# with, the guest programs (the docs' layout diagram reads their debug
# info) and the step's part of the initramfs.
step_files() { # slug
	(
		cd "$(step_out "$1")" || exit 1
		for f in bzimage vmlinux system_map config build_record build_key gdb_constants programs \
			initramfs_lab initramfs_parts; do out_file . "$f"; done
		find "$(out_file . uapi)" "$(out_file . gdb_helpers)" -type f
		find "$(out_file . guest)" -mindepth 2 -maxdepth 2 -type f -perm -u+x
	) | LC_ALL=C sort
}
# The namespace of a bundle's signature (ssh-keygen -Y sign -n): a
# signature made for anything else does not verify as a bundle's.
SIG_NAMESPACE=abi-lab-bundle
# What of a bundle the host runs: the gdb helpers (the kernel's
# vmlinux-gdb.py and its package, and the step's generated constants),
# which make gdb and make kgdb source into gdb. Everything else is data,
# or runs inside QEMU.
host_code() { # the bundle's directory: its files the host runs, one per line
	(cd "$1" && find steps -path "$(out_file '*' gdb_helpers)/*.py" -o -path "$(out_file '*' gdb_constants)") | LC_ALL=C sort
}

# The docs' part of the scanner's output.
SCAN_FILES="where-else-table.md where-else-counts.md where-else-failed.md where-else-nothing.md report.txt"

# A host package and its version, as a bundle records them.
pkg_version() { dpkg-query -W -f='${Package} ${Version}' "$1" 2>/dev/null || echo "$1 unknown"; }

# BUNDLE's value of KEY.
field() { # file key
	sed -n "s/^$2: //p" "$1" | head -n 1
}

# Is this checkout the one the bundle was made from?
same_commit() { # BUNDLE-file
	local want have
	want=$(field "$1" lab-commit)
	have=$(lab_commit)
	[ "$want" = "$have" ] && return 0
	die "this bundle was made from the lab's commit $want; this checkout is at $have.
Check out the bundle's commit:  git fetch && git checkout ${want:0:12}
or ask for a bundle of ${have:0:12} (made with: make bundle)."
}

make_bundle() { # [--fast FILE] [--sign KEY]
	local commit name stage s t f t0=$SECONDS size xz=(xz -T0 -6) file key sum
	parse_args "bundle.sh make [--fast FILE] [--sign KEY]" --fast= --sign= -- "$@"
	[ ${#ARGS[@]} -eq 0 ] || usage_error "bundle.sh make [--fast FILE] [--sign KEY]"
	commit=$(lab_commit)
	name=abi-lab-${commit:0:12}
	file=${OPT[fast]:-$BUILD_DIR/$name.tar.xz} key=${OPT[sign]}
	# (a test's round trip: no minutes of xz; tar reads it all the same)
	[ -z "${OPT[fast]}" ] || xz=(cat)
	[ -z "$key" ] || [ -f "$key" ] || die "SIGN=$key: no such private key (an OpenSSH key, e.g. ~/.ssh/id_ed25519)"
	[ -z "$(git -C "$LAB_ROOT" status --porcelain --untracked-files=no)" ] ||
		die "the checkout has changes that are not committed: a bundle names the commit it was built from. Commit them (or stash them) first."
	"$SCRIPTS/lab.sh" build
	[ -s "$BUILD_DIR/abi-scan/where-else-table.md" ] || "$SCRIPTS/lab.sh" abi-scan
	stage=$BUILD_DIR/bundle/$name
	rm -rf "$BUILD_DIR/bundle"
	mkdir -p "$stage/debian" "$stage/abi-scan" "$(dirname "$file")"
	say "bundle: $name"
	# hard links, one cp per step: the stage costs no space or time
	for s in $(step_slugs); do
		t=$(step_out_in "$stage" "$s")
		mkdir -p "$t"
		step_files "$s" | (cd "$(step_out "$s")" && xargs -d '\n' cp -l --parents -t "$t")
	done
	ln "$BUILD_DIR/debian/debian.cpio.lz4" "$stage/debian/"
	for f in $SCAN_FILES; do
		[ -f "$BUILD_DIR/abi-scan/$f" ] && ln "$BUILD_DIR/abi-scan/$f" "$stage/abi-scan/"
	done
	{
		echo "lab-commit: $commit"
		echo "made: $(date -u '+%Y-%m-%d %H:%M UTC')"
		echo "steps: $(step_slugs | tr '\n' ' ')"
		sed -n 's/^\(linux-source\|gcc\|binutils\): /&/p' "$(out_file "$(step_out "$(first_step)")" build_record)"
		echo "busybox: $(pkg_version busybox-static)"
		echo "libc: $(pkg_version libc6-dev)"
		awk '{ print "deb: " $1 " " $2 }' "$BUILD_DIR/debian/debs/MANIFEST"
	} >"$stage/BUNDLE"
	# (written beside the stage: find must not list the file it fills)
	(cd "$stage" && find . -type f -printf '%P\n' | LC_ALL=C sort |
		xargs -d '\n' sha256sum) >"$BUILD_DIR/bundle/SHA256SUMS"
	mv "$BUILD_DIR/bundle/SHA256SUMS" "$stage/SHA256SUMS"
	# names sorted, owner and dates fixed: the archive says nothing of here
	# shellcheck disable=SC2016 # the inner sh expands them
	run_logged "pack ${file##*/}" "$LOGS/bundle.log" "$LIMIT_KERNEL_BUILD" \
		bash -c 'tar -C "$1" --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$3" -cf - "$2" |
			"${@:5}" >"$4.tmp" && mv "$4.tmp" "$4"' \
		bash "$BUILD_DIR/bundle" "$name" "$(source_epoch)" "$file" "${xz[@]}"
	rm -rf "$BUILD_DIR/bundle"
	size=$(stat -c %s "$file")
	sum=$(sha256sum "$file" | cut -d' ' -f1)
	say "bundle: ${file#"$LAB_ROOT"/}, $((size / 1048576)) MiB, made in $((SECONDS - t0)) s"
	info "sha256 $sum"
	if [ -n "$key" ]; then
		rm -f "$file.sig"
		run_shown ssh-keygen -q -Y sign -f "$key" -n "$SIG_NAMESPACE" "$file" >"$LOGS/bundle-sign.log" 2>&1 ||
			die "ssh-keygen could not sign with $key (see $LOGS/bundle-sign.log)"
		info "signature: ${file#"$LAB_ROOT"/}.sig (namespace $SIG_NAMESPACE)"
	fi
	# the line to hand out: the hash goes by another way than the file
	say "hand this line out apart from the file (on the board, the workshop's page), with commit ${commit:0:12}"
	info "(BUNDLE= is where the file is on the laptop):"
	echo "    make import BUNDLE=${file##*/} SHA256=$sum"
	[ -z "$key" ] ||
		echo "    or: make import BUNDLE=${file##*/} SIG=${file##*/}.sig SIGNER=<your public key, from a place the room trusts>"
}

# Is FILE the bundle the instructor announced? Checked on the file as it
# came, before any of it is unpacked: its SHA256 against the one given
# apart from it, or an OpenSSH signature against a public key the
# learner trusts. A SHA256SUMS inside the bundle cannot tell: whoever
# changed a file can write it again.
check_identity() { # file sha256 sig signer unverified
	local file=$1 want=${2,,} sig=$3 signer=$4 have allowed rc
	if [ -n "$want" ]; then
		[[ $want =~ ^[0-9a-f]{64}$ ]] ||
			die "SHA256=$2 is not a SHA256 (64 hex digits, as make bundle prints it)"
		have=$(sha256sum "$file" | cut -d' ' -f1)
		[ "$have" = "$want" ] || die "${file##*/} has the SHA256 $have,
not the $want you were given: it is not the bundle that was announced (or the
hash was mistyped). Nothing was imported. Ask your instructor for the bundle
again, or compare the hash letter by letter."
		IDENTITY="its SHA256, as given"
	elif [ -n "$sig" ]; then
		[ -f "$sig" ] || die "SIG=$sig: no such signature file"
		[ -f "$signer" ] || die "SIG= needs SIGNER=, the instructor's public key (a .pub file from a place you trust, not from the USB stick the bundle came on)"
		allowed=$(mktemp) rc=0
		printf 'instructor namespaces="%s" %s\n' "$SIG_NAMESPACE" "$(head -n 1 "$signer")" >"$allowed"
		run_shown ssh-keygen -Y verify -f "$allowed" -I instructor -n "$SIG_NAMESPACE" -s "$sig" \
			<"$file" >"$LOGS/import-verify.log" 2>&1 || rc=$?
		rm -f "$allowed"
		[ "$rc" -eq 0 ] ||
			die "${file##*/}: its signature $sig does not verify with the key $signer: it is not the bundle that was announced (ssh-keygen said: $(tail -n 1 "$LOGS/import-verify.log")). Nothing was imported."
		IDENTITY="signed by $(ssh-keygen -l -f "$signer" | cut -d' ' -f2)"
	elif [ "$5" = 1 ]; then
		warn "UNVERIFIED=1: importing ${file##*/} without checking that it is the bundle you meant. Its gdb helpers will run as you when you type make gdb. Only do this with a bundle you made yourself."
		IDENTITY="NOT CHECKED (UNVERIFIED=1)"
	else
		die "make import needs to know which bundle your instructor announced. Ask them for
the line make bundle printed, and type it as it is:
  make import BUNDLE=${file##*/} SHA256=<the 64 hex digits>
(or, if they sign bundles: SIG=${file##*/}.sig SIGNER=<their public key .pub,
from a place you trust>). A bundle carries Python that make gdb runs on this
machine (the kernel's gdb helpers); the SHA256SUMS inside it only shows that it
was not damaged on the way, not whose it is. Nothing was imported."
	fi
}

# Unpack FILE into $BUILD_DIR/import; leaves the bundle's directory in DIR.
unpack() { # file [tar member patterns...]
	local file=$1
	shift
	[ -f "$file" ] || die "no bundle at $file (BUNDLE= takes the path of an abi-lab-*.tar.xz)"
	rm -rf "$BUILD_DIR/import"
	mkdir -p "$BUILD_DIR/import"
	run_logged "unpack ${file##*/}" "$LOGS/import.log" "$LIMIT_APT" \
		tar -xf "$file" -C "$BUILD_DIR/import" --wildcards --no-wildcards-match-slash "$@" ||
		die "$file is not a readable .tar.xz (see $LOGS/import.log)"
	local dirs=("$BUILD_DIR"/import/abi-lab-*/)
	if [ ${#dirs[@]} -ne 1 ] || [ ! -f "${dirs[0]}BUNDLE" ] || [ ! -f "${dirs[0]}SHA256SUMS" ]; then
		die "$file is not a bundle of this lab (no abi-lab-*/BUNDLE and SHA256SUMS in it)"
	fi
	DIR=${dirs[0]%/}
}

import_bundle() { # file --sha256 HEX | --sig SIG --signer PUBKEY | --unverified
	local file s t0 bad steps sha sig signer unverified code
	local usage="bundle.sh import FILE --sha256 HEX | --sig SIG --signer PUBKEY | --unverified"
	parse_args "$usage" --sha256= --sig= --signer= --unverified -- "$@"
	[ ${#ARGS[@]} -le 1 ] || usage_error "$usage"
	file=${ARGS[0]:-} sha=${OPT[sha256]} sig=${OPT[sig]} signer=${OPT[signer]} unverified=${OPT[unverified]}
	[ -n "$file" ] || die "make import needs BUNDLE=, the path of the abi-lab-*.tar.xz"
	[ -f "$file" ] || die "no bundle at $file (BUNDLE= takes the path of an abi-lab-*.tar.xz)"
	t0=$SECONDS
	check_identity "$file" "$sha" "$sig" "$signer" "$unverified"
	# from here, a refusal leaves no half-import behind
	trap 'rm -rf "$BUILD_DIR/import"; lab_cleanup' EXIT
	unpack "$file"
	same_commit "$DIR/BUNDLE"
	if ! bad=$(cd "$DIR" && sha256sum --quiet -c SHA256SUMS 2>&1); then
		die "$file is damaged: these files do not match its SHA256SUMS:
$bad"
	fi
	steps=$(step_slugs | tr '\n' ' ')
	[ "$(field "$DIR/BUNDLE" steps)" = "$steps" ] ||
		die "the bundle has the steps $(field "$DIR/BUNDLE" steps)but this checkout has $steps"
	mapfile -t code < <(host_code "$DIR")
	# what make would have put here; a kernel tree, if any, stays
	rm -rf "$(steps_out "$BUILD_DIR")" "$BUILD_DIR/debian/debian.cpio.lz4" "$BUILD_DIR/abi-scan"
	mkdir -p "$BUILD_DIR/debian"
	mv "$(steps_out "$DIR")" "$(steps_out "$BUILD_DIR")"
	mv "$DIR/debian/debian.cpio.lz4" "$BUILD_DIR/debian/"
	mv "$DIR/abi-scan" "$BUILD_DIR/abi-scan"
	for s in $(step_slugs); do
		join_initramfs "$(step_out "$s")"
	done
	{
		cat "$DIR/BUNDLE"
		echo "imported-from: $(realpath "$file")"
		echo "imported: $(date -u '+%Y-%m-%d %H:%M UTC')"
		echo "sha256: $(sha256sum "$file" | cut -d' ' -f1)"
		echo "identity: $IDENTITY"
	} >"$BUILD_DIR/bundle.txt"
	rm -rf "$BUILD_DIR/import"
	say "imported ${file##*/} in $((SECONDS - t0)) s: the bundle announced ($IDENTITY), whole (every file as its SHA256SUMS says)"
	info "of its files, ${#code[@]} are Python that this machine runs, in gdb, when you type make gdb or make kgdb:"
	info "  the kernel's gdb helpers and the lab's constants, $(out_file 'steps/*' gdb_helpers)/**/*.py and $(out_file 'steps/*' gdb_constants);"
	info "  everything else is data, or runs inside QEMU"
	info "built $(field "$BUILD_DIR/bundle.txt" made) with $(field "$BUILD_DIR/bundle.txt" gcc), linux-source $(field "$BUILD_DIR/bundle.txt" linux-source)"
	info "next: make run STEP=1 (make verify-bundle BUNDLE=... rebuilds from source and compares, where a compiler is)"
}

# Why two builds differ: the inputs the bundle names that differ here.
explain() { # BUNDLE-file step-slug
	local b=$1 rec k here there
	rec=$(out_file "$(step_out "$2")" build_record)
	for k in linux-source gcc binutils; do
		differs "$k" "$(field "$b" "$k")" "$(field "$rec" "$k")"
	done
	here=$(awk '{ print "deb: " $1 " " $2 }' "$BUILD_DIR/debian/debs/MANIFEST" | LC_ALL=C sort)
	there=$(grep '^deb: ' "$b" | LC_ALL=C sort)
	[ "$here" = "$there" ] ||
		echo "  Debian's packages differ: $(diff <(echo "$there") <(echo "$here") | grep '^[<>]' | tr '\n' ' ')"
	differs busybox "$(field "$b" busybox)" "$(pkg_version busybox-static)"
	# the guests' programs are static: libc.a is in them
	differs libc "$(field "$b" libc)" "$(pkg_version libc6-dev)"
}
differs() { # what the-bundle's here
	[ "$2" = "$3" ] || echo "  $1 differs: the bundle's was $2; here it is $3"
}

verify_bundle() { # file
	local file=$1 path equal differ=() missing=() s
	lab_imported && die "this build dir holds an imported bundle, not a build from source. Verify in another one:
  make verify-bundle BUNDLE=$file BUILD_DIR=$BUILD_DIR-verify"
	unpack "$file" '*/BUNDLE' '*/SHA256SUMS'
	same_commit "$DIR/BUNDLE"
	"$SCRIPTS/lab.sh" build
	say "comparing this machine's build with ${file##*/}"
	# the bundle's paths are the build dir's; its abi-scan/ is not built here
	while read -r path; do
		if [ ! -f "$BUILD_DIR/$path" ]; then
			missing+=("$path")
		else
			differ+=("$path")
		fi
	done < <(grep -E '^[0-9a-f]{64}  (steps|debian)/' "$DIR/SHA256SUMS" |
		(cd "$BUILD_DIR" && sha256sum -c 2>/dev/null) | sed -n 's/: FAILED.*$//p')
	equal=$(($(grep -cE '^[0-9a-f]{64}  (steps|debian)/' "$DIR/SHA256SUMS") - ${#differ[@]} - ${#missing[@]}))
	if [ ${#differ[@]} -eq 0 ] && [ ${#missing[@]} -eq 0 ]; then
		say "your kernels are the instructor's, bit for bit: all $equal files of the steps and of Debian's part have the bundle's SHA256 (bzImage, vmlinux and initramfs of every step among them)"
		rm -rf "$BUILD_DIR/import"
		return 0
	fi
	[ ${#missing[@]} -eq 0 ] || warn "not made here: ${missing[*]}"
	if [ ${#differ[@]} -gt 0 ]; then
		s=${differ[0]#steps/}
		s=${s%%/*}
		printf 'error: %d of %d files differ from the bundle, the first: %s\n' \
			"${#differ[@]}" "$((equal + ${#differ[@]}))" "${differ[0]}" >&2
		why=$(explain "$DIR/BUNDLE" "$(step_slugs | grep -x "$s" || first_step)")
		if [ -n "$why" ]; then
			printf 'The inputs differ:\n%s\n' "$why" >&2
		else
			printf 'The source, toolchain and packages the bundle names are the same here: a build that is not reproducible (please report it).\n' >&2
		fi
		printf 'All that differ:\n' >&2
		printf '  %s\n' "${differ[@]}" >&2
	fi
	exit 1
}

# An imported build dir: does it fit this checkout, and is it complete?
check_imported() {
	local s f
	same_commit "$BUILD_DIR/bundle.txt"
	for s in $(step_slugs); do
		for f in bzimage vmlinux initramfs programs; do
			f=$(out_file "$(step_out "$s")" "$f")
			[ -f "$f" ] ||
				die "the imported bundle lacks ${f##*/} of step $s: import it again (make import BUNDLE=$(field "$BUILD_DIR/bundle.txt" imported-from))"
		done
	done
	info "using the imported bundle (made $(field "$BUILD_DIR/bundle.txt" made), commit $(field "$BUILD_DIR/bundle.txt" lab-commit | cut -c1-12)): nothing to build"
}

case ${1:-} in
make) make_bundle "${@:2}" ;;
import) import_bundle "${@:2}" ;;
verify)
	parse_args "bundle.sh verify FILE" -- "${@:2}"
	[ ${#ARGS[@]} -eq 1 ] || usage_error "bundle.sh verify FILE"
	verify_bundle "${ARGS[0]}"
	;;
check) check_imported ;;
*) usage_error "bundle.sh make | import FILE | verify FILE | check" ;;
esac
