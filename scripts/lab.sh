#!/usr/bin/env bash
# The lab's entry points, called by the Makefile. STEP is a step's number
# or its name (1 or 01-padding).
#   lab.sh all             build every step, run its guest, print the matrix
#   lab.sh run STEP        build the step, run its guest, print its transcript
#   lab.sh shell STEP      build the step and boot it with an interactive shell
#   lab.sh build [STEP..]  build kernels and guests only (every step by default)
#   lab.sh abi-scan        every uapi struct with autofs's problem
#                          (scripts/abi-scan/, on the pristine step's headers)
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
# shellcheck source=accel.sh
. "$(dirname "$0")/accel.sh"
lab_lock exclusive
lib=$LAB_ROOT/scripts

build() { # slugs (all when none)
	local s steps=("$@")
	[ -z "${PLAIN_FOR:-}" ] || info "BUILD_DIR=\"$PLAIN_FOR\" has a space or a colon, which kbuild refuses in a path: the lab works in it as $BUILD_DIR, and keeps the kernel tree in $KSRC"
	"$lib/deps.sh"
	# an imported bundle (make import) is what a build would have made
	if lab_imported; then
		"$lib/bundle.sh" check
		return
	fi
	[ ${#steps[@]} -gt 0 ] || mapfile -t steps < <(step_slugs)
	"$lib/kernel-tree.sh"
	"$lib/kernel-build.sh" "${steps[@]}"
	for s in "${steps[@]}"; do
		"$lib/guest-build.sh" "$s"
	done
}

# Boot a step's guest and show what it printed and how it compares.
run_step() {
	local s=$1 out
	out=$(step_out "$s")
	choose_accel "$out/bzImage"
	say "step $(step_number "$s"), $(step_title "$s"): booting branch $s in QEMU (${ACCEL^^})"
	"$lib/boot.sh" demo "$s"
	info "guest finished in $(cat "$out/boot-seconds") s; transcript: ${out#"$LAB_ROOT"/}/transcript.txt"
}

case ${1:-} in
all)
	build
	for s in $(step_slugs); do
		run_step "$s"
		python3 "$lib/results.py" show "$(step_out "$s")/transcript.txt" | sed 's/^/    /'
	done
	echo
	say "outcome matrix (measured in the guest, every step)"
	"$lib/verdicts.sh" matrix
	;;
run)
	s=$(resolve_step "${2:-}")
	build "$s"
	run_step "$s"
	echo
	cat "$(step_out "$s")/transcript.txt"
	echo
	say "step $(step_number "$s"), $(step_title "$s"), against history"
	"$lib/verdicts.sh" check "$s"
	;;
shell)
	s=$(resolve_step "${2:-}")
	build "$s"
	"$lib/boot.sh" shell "$s"
	;;
build)
	shift
	slugs=()
	for a in "$@"; do slugs+=("$(resolve_step "$a")"); done
	build "${slugs[@]}"
	;;
abi-scan)
	! lab_imported || die "make abi-scan compiles every uapi header: an imported bundle has no compiler or kernel tree.
Its report is in ${BUILD_DIR#"$LAB_ROOT"/}/abi-scan/ (the docs' Where else? page shows it); a build from source (make clean, make) can scan."
	s=$(pristine_step)
	build "$s"
	"$lib/abi-scan/abi-scan.sh" --uapi "$(step_out "$s")/uapi" --ksrc "$KSRC" \
		--out "$BUILD_DIR/abi-scan"
	;;
*) die "usage: lab.sh all | run STEP | shell STEP | build [STEP...] | abi-scan" ;;
esac
