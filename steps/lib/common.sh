# shellcheck shell=bash
# Shared helpers of the lab's host scripts: paths, messages, the step list.
# Sourced, never run.

set -euo pipefail

LAB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-$LAB_ROOT/build}
mkdir -p "$BUILD_DIR"
BUILD_DIR=$(cd "$BUILD_DIR" && pwd)
# shellcheck disable=SC2034 # used by the scripts that source this file
KSRC=$BUILD_DIR/linux          # the kernel tree, a git repo with one branch per step
# shellcheck disable=SC2034
KOUT=$BUILD_DIR/kbuild         # one out-of-tree build dir shared by all steps
LOGS=$BUILD_DIR/logs
LINUX_TARBALL=${LINUX_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
# shellcheck disable=SC2034
KERNEL_FRAGMENT=$LAB_ROOT/kernel-patches/lab.config
JOBS=${JOBS:-$(nproc)}
mkdir -p "$LOGS"

say()  { printf '==> %s\n' "$*"; }
info() { printf '    %s\n' "$*"; }
warn() { printf 'warning: %s\n' "$*" >&2; }
die()  { printf 'error: %s\n' "$*" >&2; exit 1; }

# The steps are the directories steps/NN-name; step N is NN without
# leading zeros, its kernel branch is step-N-name.
step_dirs() {
	local d
	for d in "$LAB_ROOT"/steps/[0-9][0-9]-*/; do
		[ -d "$d" ] && printf '%s\n' "${d%/}"
	done
}

step_numbers() {
	local d
	step_dirs | while read -r d; do step_number "$d"; done
}

first_step() { local s; s=$(step_numbers); echo "${s%%$'\n'*}"; }
last_step() { local s; s=$(step_numbers); echo "${s##*$'\n'}"; }

step_number() {
	local base=${1##*/}
	echo $((10#${base%%-*}))
}

step_dir() {
	local d
	for d in $(step_dirs); do
		if [ "$(step_number "$d")" = "$1" ]; then
			echo "$d"
			return 0
		fi
	done
	return 1
}

step_branch() {
	local d base
	d=$(step_dir "$1") || return 1
	base=${d##*/}
	echo "step-$1-${base#*-}"
}

step_out() { echo "$BUILD_DIR/steps/$1"; }

# Does step N have a gdb script? (a step added by a learner may not)
step_has_gdb() {
	local d
	d=$(step_dir "$1") || return 1
	compgen -G "$d/*.gdb" >/dev/null
}

# Validate STEP= from the user; list the valid steps when it is wrong.
require_step() {
	local n=${1:-}
	if [ -z "$n" ] || ! [[ "$n" =~ ^[0-9]+$ ]] || ! step_dir "$n" >/dev/null; then
		{
			printf 'error: unknown step "%s". Valid steps:\n' "$n"
			local d
			for d in $(step_dirs); do
				printf '  STEP=%s  %s\n' "$(step_number "$d")" "${d##*/}"
			done
		} >&2
		exit 2
	fi
}

# Run a long command with its output in a log file, printing a progress
# line every few seconds and the log's tail if it fails.
run_logged() {
	local label=$1 log=$2
	shift 2
	local start=$SECONDS pid rc=0 last
	mkdir -p "$(dirname "$log")"
	"$@" >"$log" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		sleep 5
		kill -0 "$pid" 2>/dev/null || break
		last=$(tail -n 1 "$log" 2>/dev/null | tr -s ' \t' ' ' | cut -c1-60)
		printf '    %s: %ds%s\n' "$label" $((SECONDS - start)) "${last:+, at: $last}"
	done
	wait "$pid" || rc=$?
	if [ "$rc" -ne 0 ]; then
		printf 'error: %s failed (exit %d). Last lines of %s:\n' "$label" "$rc" "$log" >&2
		tail -n 25 "$log" >&2
		return "$rc"
	fi
	info "$label: done in $((SECONDS - start))s (log: ${log#"$LAB_ROOT"/})"
}

# A content key of files: changes when any of them changes.
files_key() {
	cat "$@" | sha256sum | cut -c1-16
}

# The Debian package version of the kernel source we build from.
linux_source_version() {
	dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || echo unknown
}
