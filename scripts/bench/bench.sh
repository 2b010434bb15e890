#!/usr/bin/env bash
# make bench: how long the lab takes on this machine, as a newcomer and a
# workshop meet it, measured in a build dir of its own (build/bench/lab)
# so that nothing is warm that a fresh clone's run would not have warm:
#   make, from scratch (ccache off: a new machine's is empty), and in it
#     the cold build of the first step's kernel, the reference;
#   make test after that make; make check, warm; make try of a one-line
#     change under fs/autofs/, from the patch to its verdict;
#   make bundle, and a bundle's import and first transcript;
#   each step's boot to its verdict, and the peak memory of QEMU and of
#   the kernel build.
# Every figure is printed beside its ratio to that reference build:
# machines differ a lot in speed, and the ratios are what to compare.
# The report, build/bench.txt, names the commit, the date and the
# machine (cores, CPU, memory, KVM or TCG, system, QEMU), and the load
# at the start and at the end: timings are only worth keeping from an
# idle machine. The README and the workshop page show docs/bench.txt,
# such a report kept in the repository (cp build/bench.txt docs/).
# shellcheck source=../lib/core.sh
. "$(dirname "$0")/../lib/core.sh"
lab_setup
# shellcheck source=../lib/accel.sh
. "$SCRIPTS/lib/accel.sh"
lab_lock exclusive
parse_args "bench.sh" -- "$@"
[ ${#ARGS[@]} -eq 0 ] || usage_error "bench.sh"
# (the whole bench is longer than one command's limit: a make and a make test)
export LAB_DEADLINE=$(($(date +%s) + 2 * LIMIT_RUN))

[ -z "$(git -C "$LAB_ROOT" status --porcelain --untracked-files=no)" ] ||
	die "the checkout has changes that are not committed: a bench names the commit it measured. Commit them (or stash them) first."
load() { cut -d' ' -f1 /proc/loadavg; }
# before the bench's own work (removing an earlier bench's tree is some)
start_load=$(load)
bench=$BUILD_DIR/bench
lab=$bench/lab
rm -rf "$bench"
mkdir -p "$lab"
echo x >"$lab/$BUILD_MARK"
# Debian's .debs of this build: the bench downloads nothing
if [ -f "$BUILD_DIR/debian/debs/MANIFEST" ]; then
	mkdir -p "$lab/debian"
	cp -al "$BUILD_DIR/debian/debs" "$lab/debian/debs"
fi
report=$BUILD_DIR/bench.txt
bench_rel=${bench#"$LAB_ROOT"/} report_rel=${report#"$LAB_ROOT"/}

# seconds, peak RSS (KiB) and CPU seconds (user, system: the command's
# and its children's) of a command, from GNU time, bounded. FLOOR is the
# wall time it could not go below on this machine's cores: its CPU
# seconds over the cores; wall time far above it is a core left idle.
measure() { # name limit command...
	local name=$1 limit=$2 user sys
	shift 2
	rc=0
	run_child "$limit" /usr/bin/time -f '%e %M %U %S' -o "$bench/$name.time" "$@" \
		>"$bench/$name.log" 2>&1 </dev/null || rc=$?
	[ "$rc" -eq 0 ] || [ "${ALLOW_FAIL:-0}" = 1 ] || die "bench: $name failed (exit $rc), see $bench_rel/$name.log"
	read -r SECS _ user sys < <(tail -n 1 "$bench/$name.time")
	FLOOR=$(awk -v u="$user" -v s="$sys" -v n="$(nproc)" 'BEGIN { printf "%.0f", (u + s) / n }')
}
rows=()
row() { # what seconds [note] [floor]
	rows+=("$1|$2|${3:-}|${4:-}")
	printf '    %-58s %8s s  %s\n' "$1" "$2" "${4:+(CPU floor $4 s) }${3:-}"
}

say "bench: $(nproc) cores; load at its start $start_load (an idle machine reads below 0.5); logs in $bench_rel"
[ "$(awk -v l="$start_load" 'BEGIN { print (l < 0.5) }')" = 1 ] ||
	warn "the machine is not idle (load $start_load): the figures will be slower than it can do"

# 1. make, from scratch
info "make, from scratch, ccache off (minutes)"
CCACHE_DISABLE=1 measure make "$LIMIT_RUN" make -s -C "$LAB_ROOT" BUILD_DIR="$lab"
ref=$(cat "$(out_file "$(step_out_in "$lab" "$(first_step)")" build_seconds)")
[ "$ref" -gt 0 ] || die "bench: no kernel build time for the first step"
row "cold kernel build, step $(first_step) (the reference)" "$ref" "inside make"
row "make, from scratch (every kernel, guest and boot)" "$SECS" "$(grep -o 'all [0-9]* cells match history' "$bench/make.log" || echo 'see make.log')" "$FLOOR"
for s in $(step_slugs); do
	how="after the one before"
	[ -z "$(step_config "$s")" ] || how="its own config: cold"
	[ "$s" = "$(first_step)" ] || row "  kernel build, step $s ($how)" "$(cat "$(out_file "$(step_out_in "$lab" "$s")" build_seconds)")"
done
for s in $(step_slugs); do
	o=$(step_out_in "$lab" "$s")
	row "  boot to verdict, step $s ($(cat "$(run_file "$o" boot_accel)"))" "$(cat "$(run_file "$o" boot_seconds)")"
done

# 2. make test after it, make check warm
info "make test, after that make"
ALLOW_FAIL=1 measure test "$LIMIT_RUN" make -s -C "$LAB_ROOT" BUILD_DIR="$lab" test
row "make test, after make" "$SECS" "$(tail -n 1 "$bench/test.log")" "$FLOOR"
measure check1 "$LIMIT_SUITE" make -s -C "$LAB_ROOT" BUILD_DIR="$lab" check
measure check "$LIMIT_SUITE" make -s -C "$LAB_ROOT" BUILD_DIR="$lab" check
row "make check, warm (the second in a row)" "$SECS" "$(tail -n 1 "$bench/check.log")" "$FLOOR"

# 3. make try: a one-line change under fs/autofs/, tried once, changed
# again and tried: from the second patch to its verdict
git -C "$lab/linux" show "$(first_step):fs/autofs/waitq.c" >"$bench/waitq.c"
for n in 1 2; do
	sed "s/^\\t\\tpktsz = sizeof(\\*packet);$/\\t\\tpktsz = sizeof(*packet); \\/* try $n *\\//" "$bench/waitq.c" >"$bench/waitq-$n.c"
	diff -u --label a/fs/autofs/waitq.c --label b/fs/autofs/waitq.c "$bench/waitq.c" "$bench/waitq-$n.c" \
		>"$bench/try-$n.diff" || true
done
ALLOW_FAIL=1 measure try1 "$LIMIT_SUITE" make -s -C "$LAB_ROOT" BUILD_DIR="$lab" try PATCH="$bench/try-1.diff"
ALLOW_FAIL=1 measure try "$LIMIT_SUITE" make -s -C "$LAB_ROOT" BUILD_DIR="$lab" try PATCH="$bench/try-2.diff"
row "make try, a one-line change under fs/autofs/ (patch to verdict)" "$SECS" "$(sed -n 's/^VERDICT: //p' "$bench/try.log" | head -n 1)" "$FLOOR"
# the same for each step with a config of its own, in its build dir: a
# one-line change of init/version.c (any kernel has it), patch to verdict
for s in $(step_slugs); do
	[ -n "$(step_config "$s")" ] || continue
	git -C "$lab/linux" show "$s:init/version.c" >"$bench/version.c"
	sed '$a /* try */' "$bench/version.c" | diff -u --label a/init/version.c --label b/init/version.c \
		"$bench/version.c" - >"$bench/try-$s.diff" || true
	ALLOW_FAIL=1 measure "try-$s" "$LIMIT_SUITE" make -s -C "$LAB_ROOT" BUILD_DIR="$lab" try ON="$s" PATCH="$bench/try-$s.diff"
	row "make try ON=$(step_number "$s"), a one-line change (its own build dir)" "$SECS" "$(sed -n 's/^VERDICT: //p' "$bench/try-$s.log" | head -n 1)" "$FLOOR"
done

# 4. a workshop: the bundle, and a laptop's import and first transcript
measure bundle "$LIMIT_RUN" make -s -C "$LAB_ROOT" BUILD_DIR="$lab" bundle
b=$(ls "$lab"/abi-lab-*.tar.xz)
row "make bundle ($(($(stat -c %s "$b") / 1048576)) MiB, xz)" "$SECS" "" "$FLOOR"
sum=$(sha256sum "$b" | cut -d' ' -f1)
# shellcheck disable=SC2016 # the inner sh expands them
measure import-run "$LIMIT_RUN" sh -c 'make -s -C "$1" import BUNDLE="$2" SHA256="$3" BUILD_DIR="$4" &&
	make -s -C "$1" run STEP=1 BUILD_DIR="$4"' sh "$LAB_ROOT" "$b" "$sum" "$bench/laptop"
row "make import, then make run STEP=1 (a new build dir)" "$SECS" "" "$FLOOR"
run_child "$LIMIT_SHORT" make -s -C "$LAB_ROOT" clean BUILD_DIR="$bench/laptop" >/dev/null 2>&1 </dev/null || true

# the machine, and the report
choose_accel "$(out_file "$(step_out_in "$lab" "$(first_step)")" bzimage)"
end_load=$(load)
{
	echo "make bench: the autofs ABI lab, commit $(git -C "$LAB_ROOT" rev-parse --short=12 HEAD), $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "machine: $(nproc) cores ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)), $(free -g | awk '/^Mem/ { print $2 }') GiB, QEMU with ${ACCEL^^} ($ACCEL_WHY)"
	echo "system: $(. /etc/os-release && echo "$PRETTY_NAME"), $(qemu-system-x86_64 --version | head -n 1), $(gcc --version | head -n 1)"
	echo "load: $start_load at the start, $end_load at the end (an idle machine reads below 0.5)"
	echo "peak memory: the kernel build's (make) and QEMU's are in $bench_rel/*.time"
	echo
	echo "CPU floor: the command's CPU seconds over the $(nproc) cores; x floor: how far above it the wall time is"
	echo
	printf '%-66s %8s  %8s  %9s  %8s  %s\n' "what" "seconds" "x cold" "CPU floor" "x floor" "note"
	for r in "${rows[@]}"; do
		IFS='|' read -r what secs note floor <<<"$r"
		printf '%-66s %8s  %8s  %9s  %8s  %s\n' "$what" "$secs" "$(awk -v a="$secs" -v b="$ref" 'BEGIN { printf "%.2f", a / b }')" \
			"${floor:--}" "$(awk -v a="$secs" -v f="${floor:-0}" 'BEGIN { if (f > 0) printf "%.2f", a / f; else printf "-" }')" "$note"
	done
} >"$report"
echo
cat "$report"
say "written to $report_rel; to show it in the README and on the workshop page: cp $report_rel docs/bench.txt"
