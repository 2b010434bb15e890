#!/usr/bin/env bash
# Timings of the lab on this machine, written to build/bench.txt:
# a cold build of the first step's kernel (ccache off, a scratch output
# dir), the incremental build of each further step, boot-to-verdict per
# step, peak RSS of the kernel build and of QEMU, make bundle, a bundle's
# import and first boot, and `make test` with nothing changed.
# shellcheck source=../lib/core.sh
. "$(dirname "$0")/../lib/core.sh"
lab_setup
lab_lock exclusive

"$SCRIPTS/lab.sh" build >/dev/null
bench=$BUILD_DIR/bench
rm -rf "$bench"
mkdir -p "$bench"
report=$BUILD_DIR/bench.txt
: >"$report"
row() { printf '%-52s %s\n' "$1" "$2" | tee -a "$report"; }
# seconds and peak RSS (MiB) of a command, from GNU time
measure() { # name command...
	local name=$1
	shift
	run_child "$LIMIT_KERNEL_BUILD" /usr/bin/time -f '%e %M' -o "$bench/$name.time" "$@" \
		>"$bench/$name.log" 2>&1 </dev/null || die "bench: $name failed, see $bench/$name.log"
	read -r SECS KB <"$bench/$name.time"
	MIB=$((KB / 1024))
}

say "bench on $(nproc) cores, $(free -g | awk '/^Mem/ { print $2 }') GiB; full logs in ${bench#"$LAB_ROOT"/}"
first=$(first_step)
# the same CC for every build, or kbuild would rebuild everything
kmake=(make -C "$KSRC" O="$bench/kbuild" -j"$JOBS" CC="ccache gcc")
git -C "$KSRC" checkout -q "$first"
cp "$KOUT/.config" "$bench/config"
mkdir -p "$bench/kbuild"
cp "$bench/config" "$bench/kbuild/.config"
info "cold build of step $first (ccache disabled); this takes minutes"
CCACHE_DISABLE=1 measure cold "${kmake[@]}" bzImage
row "cold kernel build, step $first (no ccache)" "${SECS} s, peak RSS ${MIB} MiB"
for s in $(step_slugs); do
	[ "$s" = "$first" ] && continue
	git -C "$KSRC" checkout -q "$s"
	measure "incr-$s" "${kmake[@]}" bzImage
	row "incremental kernel build, step $s" "${SECS} s, peak RSS ${MIB} MiB"
done
rm -rf "$bench/kbuild"
for s in $(step_slugs); do
	measure "boot-$s" "$SCRIPTS/boot/boot.sh" demo "$s" --run bench
	row "boot to verdict, step $s ($(cat "$(step_out "$s")/boot-accel-bench"))" "$(cat "$(step_out "$s")/boot-seconds-bench") s, QEMU peak RSS ${MIB} MiB"
done
# a workshop laptop: the bundle of this build imported into a new build
# dir, and step 1 booted to its transcript there
if [ -z "$(git -C "$LAB_ROOT" status --porcelain --untracked-files=no)" ]; then
	measure bundle "$SCRIPTS/bundle/bundle.sh" make
	b=$BUILD_DIR/abi-lab-$(git -C "$LAB_ROOT" rev-parse HEAD | cut -c1-12).tar.xz
	row "make bundle" "${SECS} s, $(($(stat -c %s "$b") / 1048576)) MiB"
	# shellcheck disable=SC2016 # the inner sh expands them
	measure import-run sh -c 'make -s -C "$1" import BUNDLE="$2" BUILD_DIR="$3" &&
		make -s -C "$1" run STEP=1 BUILD_DIR="$3"' sh "$LAB_ROOT" "$b" "$bench/imported"
	row "make import, then make run STEP=1 (a new build dir)" "${SECS} s"
	rm -rf "$bench/imported"
else
	row "make bundle, make import" "not measured: the checkout has uncommitted changes"
fi
measure test make -s -C "$LAB_ROOT" test
row "make test, nothing changed" "${SECS} s ($(tail -n 1 "$bench/test.log"))"
say "written to ${report#"$LAB_ROOT"/}"
