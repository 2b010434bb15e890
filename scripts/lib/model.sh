# shellcheck shell=bash
# The step model in the shell. Every question about steps/ is answered
# from the declarations of labhost.model (scripts/labhost/model.py),
# read once per lab command: the entry point reads them and hands them
# on to the scripts it runs in LAB_MODEL (which names the lab and build
# dir it was made for); a script started alone reads them itself.
# model_load (lab_setup calls it) defines STEP_SLUGS, STEP_NUMBER, ...;
# the functions below ask them and parse nothing.

model_load() {
	local key="# model of $LAB_ROOT for $BUILD_DIR" dump
	if [ "${LAB_MODEL:-}" ] && [ "${LAB_MODEL%%$'\n'*}" = "$key" ]; then
		dump=$LAB_MODEL
	else
		command -v "$LAB_PYTHON" >/dev/null ||
			die "python3 is missing: run make (or make import), which says which Debian packages to install"
		dump=$("$LAB_PYTHON" -m labhost.model shell --build "$BUILD_DIR") || exit
		dump="$key"$'\n'"$dump"
		export LAB_MODEL=$dump
	fi
	eval "$dump"
}

step_slugs() { [ ${#STEP_SLUGS[@]} -eq 0 ] || printf '%s\n' "${STEP_SLUGS[@]}"; }
first_step() { echo "${STEP_SLUGS[0]}"; }
step_number() { echo "${STEP_NUMBER[$1]}"; }
step_title() { echo "${STEP_TITLE[$1]}"; }
step_pipe() { echo "${STEP_PIPE[$1]}"; }
step_dir() { echo "$LAB_ROOT/steps/$1"; }
# where SLUG's output lives in a build dir, as labhost/layout.py says:
# another one (a bench's, an import's, a bundle's stage), or BUILD_DIR
step_out_in() { echo "$1/${STEP_OUT[$2]}"; } # build-dir slug
step_out() { step_out_in "$BUILD_DIR" "$1"; }
# the steps' outputs of a build dir
steps_out() { echo "$1/$STEPS_REL"; } # build-dir
# what history predicts for its runs
step_expected() { echo "${STEP_EXPECTED[$1]}"; }
# A file a build leaves in an output dir, as labhost/layout.py names it:
# WHAT is bzimage, vmlinux, uapi, programs, initramfs, ...
out_file() { echo "$1/${OUT_FILE[$2]:?"out_file: no file '$2' in labhost/layout.py"}"; } # out-dir what
# A file of one boot in an output dir, as labhost/layout.py names it:
# WHAT is transcript, inputs, serial, boot_seconds, ...; RUN the boot's
# name (boot.sh --run; the demo's when none)
run_file() { # out-dir what [run]
	local run=${3:-$DEMO_RUN} sfx='' f=${RUN_FILE[$2]:?"run_file: no file '$2' in labhost/layout.py"}
	[ "$run" = "$DEMO_RUN" ] || sfx=-$run
	f=${f//\{sfx\}/$sfx}
	echo "$1/${f//\{run\}/$run}"
}
# the branch its patches go on (the previous step's, or baseline)
step_base() { echo "${STEP_BASE[$1]}"; }
# its own kernel config fragment (nothing: the lab's alone)
step_config() { echo "${STEP_CONFIG[$1]}"; }
# the out-of-tree dir its kernel is built in, in the tree KSRC (or $2)
step_kout() { echo "${2:-$KSRC}/${STEP_KBUILD[$1]}"; }
# the first step of each kernel build dir: one per kernel config
step_kbuild_firsts() {
	local s seen=" "
	for s in "${STEP_SLUGS[@]}"; do
		[[ $seen == *" ${STEP_KBUILD[$s]} "* ]] || echo "$s"
		seen+="${STEP_KBUILD[$s]} "
	done
}
# what make try ON=SLUG judges against: its goal file, if it has one
step_goal() { echo "${STEP_GOAL[$1]}"; }
# its gdb script, nothing if it has none (a step added by a learner may not)
step_gdb_script() { echo "${STEP_GDB[$1]}"; }
step_has_gdb() { [ -n "${STEP_GDB[$1]}" ]; }
# what its guest runs: "program abi name" lines
step_programs() { printf '%s' "${STEP_PROGRAMS[$1]}"; }
# the paths a step's step.conf says "pristine:" for (nothing: none)
step_pristine_paths() { echo "${STEP_PRISTINE_PATHS[$1]}"; }
# the step whose kernel is the pristine source again: its installed
# headers are the kernel's own uapi
pristine_step() {
	[ -n "$PRISTINE_STEP" ] || die "no step says 'pristine:' in its step.conf (steps/README.md)"
	echo "$PRISTINE_STEP"
}
is_debian_program() { # program
	local p
	for p in "${DEBIAN_PROGRAMS[@]}"; do [ "$p" != "$1" ] || return 0; done
	return 1
}
guest_abis() { printf '%s\n' "${GUEST_ABIS[@]}"; }

# The slug of STEP= as the learner typed it: a step's number (1, 01) or
# its slug. An unknown step lists the valid ones and exits 2.
resolve_step() { # arg
	local a=${1:-} s
	for s in "${STEP_SLUGS[@]}"; do
		if [ "$a" = "$s" ] || { [[ $a =~ ^[0-9]+$ ]] && [ "$((10#$a))" = "${STEP_NUMBER[$s]}" ]; }; then
			echo "$s"
			return 0
		fi
	done
	{
		printf 'error: unknown step "%s". Valid steps (STEP= takes either form):\n' "$a"
		for s in "${STEP_SLUGS[@]}"; do
			printf '  STEP=%-3s STEP=%-20s %s\n' "${STEP_NUMBER[$s]}" "$s" "${STEP_TITLE[$s]}"
		done
	} >&2
	exit 2
}
