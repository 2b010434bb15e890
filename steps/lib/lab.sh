#!/usr/bin/env bash
# The lab's entry points, called by the Makefile.
#   lab.sh all          build every step, run its guest, print the matrix
#   lab.sh run N        build step N, run its guest, print its transcript
#   lab.sh shell N      build step N and boot it with an interactive shell
#   lab.sh build [N..]  build kernels and guests only (every step by default)
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
lib=$LAB_ROOT/steps/lib

build() { # step numbers (all when none)
	local n steps=("$@")
	[ ${#steps[@]} -gt 0 ] || mapfile -t steps < <(step_numbers)
	"$lib/deps.sh" lab
	"$lib/kernel-tree.sh"
	"$lib/kernel-build.sh" "${steps[@]}"
	for n in "${steps[@]}"; do
		"$lib/guest-build.sh" "$n"
	done
}

# Boot a step's guest and show what it printed and how it compares.
run_step() {
	local n=$1 out
	out=$(step_out "$n")
	say "step $n: booting $(step_branch "$n") in QEMU ($( [ "${LAB_KVM:-0}" = 1 ] && echo KVM || echo TCG))"
	"$lib/boot.sh" demo "$n"
	info "guest finished in $(cat "$out/boot-seconds") s; transcript: ${out#"$LAB_ROOT"/}/transcript.txt"
}

case ${1:-} in
all)
	build
	for n in $(step_numbers); do
		run_step "$n"
		sed 's/^/    /' "$(step_out "$n")/results.txt"
	done
	echo
	say "outcome matrix (measured in the guest, every step)"
	"$lib/verdicts.sh" matrix
	;;
run)
	require_step "${2:-}"
	build "$2"
	run_step "$2"
	echo
	cat "$(step_out "$2")/transcript.txt"
	echo
	say "step $2 against history"
	"$lib/verdicts.sh" check "$2"
	;;
shell)
	require_step "${2:-}"
	build "$2"
	"$lib/boot.sh" shell "$2"
	;;
build)
	shift
	for n in "$@"; do require_step "$n"; done
	build "$@"
	;;
*) die "usage: lab.sh all | run N | shell N | build [N...]" ;;
esac
