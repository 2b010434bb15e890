#!/usr/bin/env bash
# Build the kernel of one step (or of every step) from its branch in
# build/linux, into its out-of-tree dir (build/linux/out, shared by the
# steps of the lab's own config; out-SLUG for a step with a config of its
# own: the model's STEP_KBUILD), and keep the step's bzImage, vmlinux,
# gdb helpers and uapi headers in build/steps/SLUG/. The same branch and
# toolchain give the same bytes on any machine, in any directory
# (Documentation/kbuild/reproducible-builds.rst): the build is dated by
# the branch's last commit, named lab@lab, always build #1, the debug
# info names this tree's build dir ".", and pahole runs single-threaded
# (before 1.27, -j numbers the BTF types in the order its threads finish).
# Usage: kernel-build.sh [STEP...]     each step's branch (no STEP: every step)
#        kernel-build.sh --out DIR [--tree TREE] [--config-of STEP]
#                                      what build/linux (or TREE, a git
#                                      worktree of it) has checked out,
#                                      built with STEP's config (default:
#                                      the first step's) in its build dir,
#                                      kept in DIR: a bisect (check-tree.sh),
#                                      a learner's fix (try.sh), the
#                                      reproducibility check
# shellcheck source=../lib/core.sh
. "$(dirname "$0")/../lib/core.sh"
lab_setup
usage="kernel-build.sh [STEP...] | --out DIR [--tree TREE] [--config-of STEP]"
parse_args "$usage" --out= --tree= --config-of= -- "$@"
[ -n "${OPT[out]}" ] || [ -z "${OPT[tree]}${OPT[config-of]}" ] || usage_error "$usage"
[ -z "${OPT[tree]}" ] || KSRC=${OPT[tree]}

# The kbuild command line of a step's config (KOUT, KMAKE, FRAGMENTS):
# kbuild's own knobs on the command line, not exported, so that a line
# V=1 prints makes the same kernel when pasted (build_into adds the date).
# PAHOLE_FLAGS: what the tree's scripts/pahole-flags.sh says, but -j.
kmake_for() { # slug
	KOUT=$(step_kout "$1")
	FRAGMENTS=("$LAB_ROOT/kernel-patches/lab.config")
	[ -z "$(step_config "$1")" ] || FRAGMENTS+=("$(step_config "$1")")
	local pf
	pf=$(PAHOLE=pahole "$KSRC/scripts/pahole-flags.sh" | tr ' ' '\n' | grep -vx -- -j | tr '\n' ' ')
	KMAKE=(make -C "$KSRC" O="$KOUT" CC="ccache gcc" HOSTCC="ccache gcc"
		KBUILD_BUILD_USER=lab KBUILD_BUILD_HOST=lab KBUILD_BUILD_VERSION=1
		KCFLAGS="-fdebug-prefix-map=$KOUT=." KAFLAGS="-fdebug-prefix-map=$KOUT=."
		PAHOLE_FLAGS="${pf% }")
}
kmake() { run_shown "${KMAKE[@]}" "$@"; }

# Check that every line of the fragments is in the final .config.
verify_config() {
	local line f missing=()
	for f in "${FRAGMENTS[@]}"; do
		while IFS= read -r line; do
			case "$line" in
				CONFIG_*=*)
					grep -qxF "$line" "$KOUT/.config" || missing+=("${f#"$LAB_ROOT"/}: $line") ;;
				"# CONFIG_"*" is not set") # absent counts as not set
					line=${line#\# }
					! grep -q "^${line%% *}=" "$KOUT/.config" || missing+=("${f#"$LAB_ROOT"/}: # $line") ;;
			esac
		done <"$f"
	done
	if [ ${#missing[@]} -gt 0 ]; then
		printf 'error: these lines of the config fragments did not survive olddefconfig\n(a dependency is missing or the option is gone in this kernel):\n' >&2
		printf '  %s\n' "${missing[@]}" >&2
		printf 'final config: %s\n' "$KOUT/.config" >&2
		exit 1
	fi
}

configure() {
	local key log=$LOGS/kernel-config-${KOUT##*/}.log
	key=$(files_key "${FRAGMENTS[@]}" "$KSRC/Makefile")
	[ "$(cat "$KOUT/.lab-config-key" 2>/dev/null)" = "$key" ] && return 0
	say "kernel config (${KOUT##*/}): tinyconfig + ${FRAGMENTS[*]#"$LAB_ROOT"/}"
	mkdir -p "$KOUT"
	rm -f "$KOUT/.lab-config-key"
	kmake -s tinyconfig >"$log" 2>&1 ||
		die "make tinyconfig failed, see $log"
	run_shown "$KSRC/scripts/kconfig/merge_config.sh" -m -O "$KOUT" "$KOUT/.config" "${FRAGMENTS[@]}" \
		>>"$log" 2>&1 || die "merge_config.sh failed, see $log"
	kmake -s olddefconfig >>"$log" 2>&1 ||
		die "make olddefconfig failed, see $log"
	verify_config
	echo "$key" >"$KOUT/.lab-config-key"
}

# The step's gdb constants: gdb-scripts/lab/constants.py.in run through
# the C preprocessor with the kernel's own include path and config
# (kbuild's LINUXINCLUDE and kconfig.h, as for the kernel's
# scripts/gdb/linux/constants.py.in), so with this step's tree; what
# follows the marker is kept.
gdb_constants() { # out-dir
	local in=$LAB_ROOT/gdb-scripts/lab/constants.py.in c
	c=$(out_file "$1" gdb_constants)
	run_shown gcc -E -P -x c -nostdinc -D__KERNEL__ \
		-I"$KSRC/arch/x86/include" -I"$KOUT/arch/x86/include/generated" \
		-I"$KSRC/include" -I"$KOUT/include" \
		-I"$KSRC/arch/x86/include/uapi" -I"$KOUT/arch/x86/include/generated/uapi" \
		-I"$KSRC/include/uapi" -I"$KOUT/include/generated/uapi" \
		-include "$KSRC/include/linux/kconfig.h" -include "$KSRC/include/linux/compiler_types.h" \
		"$in" >"$c.tmp" 2>"$LOGS/gdb-constants.log" ||
		die "preprocessing ${in#"$LAB_ROOT"/} failed, see $LOGS/gdb-constants.log"
	grep -q '^<!-- end-c-headers -->$' "$c.tmp" ||
		die "preprocessing ${in#"$LAB_ROOT"/} lost its end-c-headers marker (see $c.tmp)"
	sed -i '1,/^<!-- end-c-headers -->$/d' "$c.tmp"
	mv "$c.tmp" "$c"
}

# What went into this build, for a bundle's reader (scripts/bundle/bundle.sh):
# the source and the toolchain whose versions a second build must match.
build_record() {
	echo "commit: $(git -C "$KSRC" rev-parse HEAD)"
	echo "linux-source: $(linux_source_version)"
	echo "timestamp: $KBUILD_BUILD_TIMESTAMP"
	echo "gcc: $(gcc --version | head -n 1)"
	echo "binutils: $(ld --version | head -n 1)"
}

# A step's files are replaced whole, never seen half-copied by what
# reads them beside a build (make test runs repro beside ctrl-c's
# rebuild of step 1): a file by one rename, a directory by two.
put_file() { cp "$1" "$2.tmp" && mv -f "$2.tmp" "$2"; } # src dst
swap_in() { # new-dir dst
	rm -rf "$2.old"
	[ ! -e "$2" ] || mv -T "$2" "$2.old"
	mv -T "$1" "$2"
	rm -rf "$2.old"
}

# Build what build/linux has checked out into the shared out-of-tree
# dir, and keep the results in $2: bzImage, vmlinux, uapi headers, the
# gdb constants.
build_into() { # label out-dir
	local label=$1 out=$2 kernel vml uapi helpers
	kernel=$(out_file "$out" bzimage) vml=$(out_file "$out" vmlinux)
	uapi=$(out_file "$out" uapi) helpers=$(out_file "$out" gdb_helpers)
	# the date of what is checked out, which gen_initramfs.sh also reads
	KBUILD_BUILD_TIMESTAMP=$(git -C "$KSRC" log -1 --format=%ad --date=rfc)
	KMAKE+=(KBUILD_BUILD_TIMESTAMP="$KBUILD_BUILD_TIMESTAMP")
	configure
	run_logged "$label: make bzImage" "$(kernel_log "$label")" "$LIMIT_KERNEL_BUILD" \
		"${KMAKE[@]}" -j"$JOBS" bzImage scripts_gdb
	# for the workshop page: what this build took, ccache hits and all
	echo "$RUN_SECONDS" >"$(out_file "$out" build_seconds)"
	run_logged "$label: make headers_install" "$LOGS/headers-$label.log" "$LIMIT_KERNEL_BUILD" \
		"${KMAKE[@]}" -j"$JOBS" headers_install
	rm -rf "$uapi.tmp" "$helpers.tmp"
	cp -a "$KOUT/usr/include" "$uapi.tmp"
	swap_in "$uapi.tmp" "$uapi"
	put_file "$KOUT/arch/x86/boot/bzImage" "$kernel"
	put_file "$KOUT/vmlinux" "$vml"
	put_file "$KOUT/System.map" "$(out_file "$out" system_map)"
	put_file "$KOUT/.config" "$(out_file "$out" config)"
	# the kernel's gdb helpers (scripts/gdb), as files: a bundle has no tree
	mkdir -p "$helpers.tmp/scripts"
	cp -L "$KOUT/vmlinux-gdb.py" "$helpers.tmp/"
	cp -rL "$KOUT/scripts/gdb" "$helpers.tmp/scripts/"
	find "$helpers.tmp" \( -name __pycache__ -o -name '.*' -o -name Makefile \) -prune -exec rm -rf {} +
	swap_in "$helpers.tmp" "$helpers"
	gdb_constants "$out"
	build_record >"$(out_file "$out" build_record)"
	info "$label: kernel $(du -h "$kernel" | cut -f1) bzImage, vmlinux $(du -h "$vml" | cut -f1)"
}

build_step() {
	local s=$1 out key kkey
	out=$(step_out "$s")
	kkey=$(out_file "$out" build_key)
	kmake_for "$s"
	key="$(git -C "$KSRC" rev-parse "$s^{tree}") $(files_key "${FRAGMENTS[@]}")"
	key="$key $(files_key "$LAB_ROOT/gdb-scripts/lab/constants.py.in" "$0")"
	if [ "$(cat "$kkey" 2>/dev/null)" = "$key" ] &&
		[ -f "$(out_file "$out" bzimage)" ] && [ -f "$(out_file "$out" vmlinux)" ]; then
		return 0
	fi
	say "kernel: step $s"
	rm -f "$kkey"
	mkdir -p "$out"
	git -C "$KSRC" checkout -q "$s"
	build_into "$s" "$out"
	echo "$key" >"$kkey"
}

if [ -n "${OPT[out]}" ]; then
	[ ${#ARGS[@]} -eq 0 ] || usage_error "$usage"
	mkdir -p "${OPT[out]}"
	kmake_for "$(resolve_step "${OPT[config-of]:-$(first_step)}")"
	say "kernel: $(git -C "$KSRC" log -1 --format='%h %s')"
	build_into "$(basename "${OPT[out]}")" "${OPT[out]}"
	exit 0
fi
steps=()
for a in "${ARGS[@]}"; do steps+=("$(resolve_step "$a")"); done
[ ${#steps[@]} -gt 0 ] || mapfile -t steps < <(step_slugs)
for s in "${steps[@]}"; do
	build_step "$s"
done
