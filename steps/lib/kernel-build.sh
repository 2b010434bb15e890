#!/usr/bin/env bash
# Build the kernel of one step (or of every step) from its branch in
# build/linux, into the shared out-of-tree dir build/kbuild, and keep the
# step's bzImage, vmlinux and uapi headers in build/steps/N/.
# Usage: kernel-build.sh [N ...]     (no argument: every step)
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

export KBUILD_BUILD_TIMESTAMP="lab" KBUILD_BUILD_USER=lab KBUILD_BUILD_HOST=lab
kmake() { make -C "$KSRC" O="$KOUT" CC="ccache gcc" HOSTCC="ccache gcc" "$@"; }

# Check that every line of the fragment is in the final .config.
verify_config() {
	local line missing=()
	while IFS= read -r line; do
		case "$line" in
			CONFIG_*=*)
				grep -qxF "$line" "$KOUT/.config" || missing+=("$line") ;;
			"# CONFIG_"*" is not set") # absent counts as not set
				line=${line#\# }
				! grep -q "^${line%% *}=" "$KOUT/.config" || missing+=("# $line") ;;
		esac
	done <"$KERNEL_FRAGMENT"
	if [ ${#missing[@]} -gt 0 ]; then
		printf 'error: these lines of %s did not survive olddefconfig\n(a dependency is missing or the option is gone in this kernel):\n' \
			"${KERNEL_FRAGMENT#"$LAB_ROOT"/}" >&2
		printf '  %s\n' "${missing[@]}" >&2
		printf 'final config: %s\n' "$KOUT/.config" >&2
		exit 1
	fi
}

configure() {
	local key
	key=$(files_key "$KERNEL_FRAGMENT" "$KSRC/Makefile")
	[ "$(cat "$KOUT/.lab-config-key" 2>/dev/null)" = "$key" ] && return 0
	say "kernel config: tinyconfig + ${KERNEL_FRAGMENT#"$LAB_ROOT"/}"
	mkdir -p "$KOUT"
	rm -f "$KOUT/.lab-config-key"
	kmake -s tinyconfig >"$LOGS/kernel-config.log" 2>&1 ||
		die "make tinyconfig failed, see $LOGS/kernel-config.log"
	"$KSRC/scripts/kconfig/merge_config.sh" -m -O "$KOUT" "$KOUT/.config" "$KERNEL_FRAGMENT" \
		>>"$LOGS/kernel-config.log" 2>&1 || die "merge_config.sh failed, see $LOGS/kernel-config.log"
	kmake -s olddefconfig >>"$LOGS/kernel-config.log" 2>&1 ||
		die "make olddefconfig failed, see $LOGS/kernel-config.log"
	verify_config
	echo "$key" >"$KOUT/.lab-config-key"
}

build_step() {
	local n=$1 branch out key
	branch=$(step_branch "$n")
	out=$(step_out "$n")
	key="$(git -C "$KSRC" rev-parse "$branch^{tree}") $(files_key "$KERNEL_FRAGMENT")"
	if [ "$(cat "$out/kernel.key" 2>/dev/null)" = "$key" ] &&
		[ -f "$out/bzImage" ] && [ -f "$out/vmlinux" ]; then
		return 0
	fi
	say "kernel: step $n ($branch)"
	rm -f "$out/kernel.key"
	mkdir -p "$out"
	git -C "$KSRC" checkout -q "$branch"
	configure
	run_logged "step $n: make bzImage" "$LOGS/kernel-step$n.log" \
		kmake -j"$JOBS" bzImage scripts_gdb
	run_logged "step $n: make headers_install" "$LOGS/headers-step$n.log" \
		kmake headers_install
	rm -rf "$out/uapi"
	cp -a "$KOUT/usr/include" "$out/uapi"
	cp "$KOUT/arch/x86/boot/bzImage" "$KOUT/vmlinux" "$KOUT/System.map" "$out/"
	cp "$KOUT/.config" "$out/config"
	echo "$key" >"$out/kernel.key"
	info "step $n: kernel $(du -h "$out/bzImage" | cut -f1) bzImage, vmlinux $(du -h "$out/vmlinux" | cut -f1)"
}

steps=("$@")
[ ${#steps[@]} -gt 0 ] || mapfile -t steps < <(step_numbers)
for n in "${steps[@]}"; do
	build_step "$n"
done
