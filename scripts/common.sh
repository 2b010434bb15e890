# shellcheck shell=bash
# Shared helpers of the lab's host scripts: paths, messages, the step list.
# Sourced, never run.

set -euo pipefail

# (pwd -P: a checkout reached as //lab would otherwise keep the //)
LAB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
# ... nor a leading //, which bash keeps and no getcwd() returns: gcc's
# build dir must be spelled as the prefix maps spell it
LAB_ROOT=${LAB_ROOT/#\/\//\/}
BUILD_DIR=${BUILD_DIR:-$LAB_ROOT/build}

say()  { printf '==> %s\n' "$*"; }
info() { printf '    %s\n' "$*"; }
warn() { printf 'warning: %s\n' "$*" >&2; }
die()  { printf 'error: %s\n' "$*" >&2; exit 1; }

# The build directory is the lab's own: made and marked by it, so that
# nothing writes into, or cleans, a directory that belongs to somebody
# else (make clean BUILD_DIR=$HOME). A directory an older lab made
# (it has the kernel tree or the steps' output) is adopted.
BUILD_MARK=.lab-build-dir
claim_build_dir() {
	if [ ! -e "$BUILD_DIR" ]; then
		mkdir -p "$BUILD_DIR"
	elif [ ! -f "$BUILD_DIR/$BUILD_MARK" ]; then
		[ -d "$BUILD_DIR" ] || die "BUILD_DIR=$BUILD_DIR is not a directory"
		if [ -n "$(ls -A "$BUILD_DIR")" ] && [ ! -e "$BUILD_DIR/linux/.git/lab-source-id" ] &&
			[ ! -d "$BUILD_DIR/steps" ]; then
			die "BUILD_DIR=$BUILD_DIR is not a build directory of this lab (it has files, but no $BUILD_MARK).
Use a new or empty directory."
		fi
	fi
	# made by another user (make as root, then as yourself): it cannot be
	# written, so say so before anything fails inside it
	local other
	if [ "$(id -u)" -ne 0 ] &&
		other=$(find "$BUILD_DIR" -maxdepth 2 ! -user "$(id -u)" -print -quit 2>/dev/null) && [ -n "$other" ]; then
		die "$BUILD_DIR has files of the user $(stat -c %U "$other") (for one, $other): a lab command ran there as that user (as root?).
Make them yours and run this again:
  sudo chown -R $(id -un): $BUILD_DIR
(or remove them: sudo rm -rf $BUILD_DIR)"
	fi
	[ -f "$BUILD_DIR/$BUILD_MARK" ] ||
		printf 'made by the autofs ABI lab in %s; make clean may remove it\n' "$LAB_ROOT" \
			>"$BUILD_DIR/$BUILD_MARK"
}
[ "${LAB_NO_CLAIM:-0}" = 1 ] || claim_build_dir
BUILD_DIR=$(cd "$BUILD_DIR" 2>/dev/null && pwd -P || echo "$BUILD_DIR")
BUILD_DIR=${BUILD_DIR/#\/\//\/}

# kbuild refuses a tree whose path has a space or a colon ("source
# directory cannot contain spaces or colons"), and make and gen_init_cpio
# split such paths too. So in such a BUILD_DIR the lab works through a
# plain path that stands for it, /var/tmp/abi-lab-UID/HASH (by the
# BUILD_DIR's own path): there, build links to BUILD_DIR, and linux is
# the kernel tree itself (BUILD_DIR/linux links to it).
plain_home() {
	printf '/var/tmp/abi-lab-%s/%s\n' "$(id -u)" "$(printf '%s' "$1" | sha256sum | cut -c1-12)"
}
use_plain_home() {
	local home top
	home=$(plain_home "$BUILD_DIR") top=${home%/*}
	[ -d "$top" ] || mkdir -m 700 "$top"
	{ [ -O "$top" ] && [ ! -L "$top" ]; } || die "$top is not a directory of yours, and the lab keeps the kernel tree of BUILD_DIR=\"$BUILD_DIR\" (a path with a space or colon, which kbuild refuses) there"
	mkdir -p "$home"
	ln -sfn "$BUILD_DIR" "$home/build"
	[ -e "$BUILD_DIR/linux" ] || [ -L "$BUILD_DIR/linux" ] || ln -s "$home/linux" "$BUILD_DIR/linux"
	# shellcheck disable=SC2034 # lab.sh says where the tree is
	PLAIN_FOR=$BUILD_DIR BUILD_DIR=$home/build
	# the scripts this one runs read it from the environment (make's export)
	export BUILD_DIR
}
case $BUILD_DIR in
*[[:space:]:]*) [ "${LAB_NO_CLAIM:-0}" = 1 ] || use_plain_home ;;
esac
# shellcheck disable=SC2034 # used by the scripts that source this file
KSRC=$BUILD_DIR/linux          # the kernel tree, a git repo with one branch per step
# (kbuild runs in the tree's own path, which prefix maps must name)
[ ! -L "$KSRC" ] || KSRC=$(readlink "$KSRC")
# One out-of-tree build dir shared by all steps, inside the tree: kbuild
# then names every source by a relative path (srctree is ".."), and no
# absolute path of this machine ends up in a binary.
# shellcheck disable=SC2034
KOUT=$KSRC/out
LOGS=$BUILD_DIR/logs
# shellcheck disable=SC2034
KERNEL_FRAGMENT=$LAB_ROOT/kernel-patches/lab.config
JOBS=${JOBS:-$(nproc)}
[ "${LAB_NO_CLAIM:-0}" = 1 ] || mkdir -p "$LOGS"
# shellcheck source=limits.sh
. "$LAB_ROOT/scripts/limits.sh"

# A step is a directory steps/NN-name; its name (the slug, 01-padding)
# is also its kernel branch, its gdb script's name, its docs page's name
# and its output directory build/steps/NN-name. Step N is NN without
# leading zeros: the number the guest and the RESULT lines use. What is
# in steps/ is read by the step model (scripts/labhost/steps.py), which
# says what is wrong there; these helpers ask it and parse nothing.
step_model() { # command args...   (scripts/step-model.py)
	python3 "$LAB_ROOT/scripts/step-model.py" --root "$LAB_ROOT" "$@"
}
# The slugs are read once, here, in the script's own shell: an error in
# steps/ stops the script now (in a `for s in $(step_slugs)` or a
# <(step_slugs) the shell would ignore it), and the many calls cost no
# python3 each. Not without python3: deps.sh must still say to install it;
# nor for make clean (LAB_NO_CLAIM), which must work whatever steps/ holds.
unset STEP_SLUGS
if [ "${LAB_NO_CLAIM:-0}" != 1 ] && command -v python3 >/dev/null; then
	STEP_SLUGS=$(step_model slugs) || exit
fi
step_slugs() {
	if [ -z "${STEP_SLUGS+set}" ]; then
		step_model slugs
	elif [ -n "$STEP_SLUGS" ]; then
		printf '%s\n' "$STEP_SLUGS"
	fi
}

step_number() { echo $((10#${1%%-*})); }
step_dir() { echo "$LAB_ROOT/steps/$1"; }
step_out() { echo "$BUILD_DIR/steps/$1"; }
first_step() { step_slugs | head -n 1; }

# A value of the step's step.conf ("key: value"), or nothing.
step_conf() { # slug key
	step_model conf "$1" "$2" || exit
}
step_title() { step_conf "$1" title; }

# The step whose kernel is the pristine source again (step.conf
# "pristine:"): its installed headers are the kernel's own uapi.
pristine_step() {
	step_model pristine || exit
}

# The step's gdb script, nothing if it has none (a step added by a
# learner may not).
step_gdb_script() { step_model gdb-script "$1" || exit; }
step_has_gdb() { [ -n "$(step_gdb_script "$1")" ]; }

# The slug of STEP= as the learner typed it: a number or a slug. An
# unknown step lists the valid ones and exits 2.
resolve_step() {
	step_model resolve "${1:-}" || exit
}

# One lab command per build directory at a time: two would share the
# checked-out branch of build/linux and build/kbuild. The entry points
# take the lock (exclusive, or shared for what only reads the build);
# the scripts they run inherit it (LAB_LOCKED). The kernel releases a
# flock when its holder dies, so a crashed run never leaves it behind.
lab_lock() { # exclusive|shared
	[ -z "${LAB_LOCKED:-}" ] || return 0
	local flag=-x lock=$BUILD_DIR/.lab.lock what=${LAB_COMMAND:-${0##*/}}
	[ "$1" = shared ] && flag=-s
	exec 9>>"$lock"
	if ! flock -n "$flag" 9; then
		say "waiting for the lab run of $(cat "$lock.owner" 2>/dev/null || echo 'another command'), which uses the same build directory ($BUILD_DIR)"
		while ! flock -w 30 "$flag" 9; do
			info "still waiting for $(cat "$lock.owner" 2>/dev/null || echo 'it')"
		done
	fi
	# shellcheck disable=SC2016 # the backquotes are text
	printf 'pid %s, `%s`\n' "$$" "$what" >"$lock.owner"
	export LAB_LOCKED=$$
	# the whole command's time limit, which every child's limit fits in
	export LAB_DEADLINE=${LAB_DEADLINE:-$(($(date +%s) + LIMIT_RUN))}
}

# V=1 (make V=1): every QEMU, gdb, kernel make and git am the lab runs
# is printed before it runs, as one line to paste into a shell. The
# line goes to the script's own stderr, saved here, so that it reaches
# the terminal even from a command whose output is captured or logged.
# The command itself runs without our V in its environment, as in the
# shell it is pasted into: kbuild reads V only from its command line
# (the Makefile keeps ours off it), but the host tools it builds
# (objtool) read it from the environment. KBUILD_VERBOSE=1 is kbuild's.
[ "${V:-0}" != 1 ] || exec {SHOW_FD}>&2
# A command as one line that a shell reads back as the same words: a
# word with anything but [A-Za-z0-9_./:=,@%+-] in it is single-quoted.
cmd_line() { # command...
	local a q words=()
	for a in "$@"; do
		if [[ $a =~ ^[A-Za-z0-9_./:=,@%+-]+$ ]]; then
			q=$a
		elif [[ $a == *[[:cntrl:]]* ]]; then
			printf -v q '%q' "$a" # $'...': a newline stays on the line
		else
			q="'${a//\'/\'\\\'\'}'"
		fi
		words+=("$q")
	done
	local IFS=' '
	printf '%s\n' "${words[*]}"
}
# Print a command (V=1 only). Who runs it, runs it: start_child, a pipe.
show_cmd() { # command...
	[ -z "${SHOW_FD:-}" ] || cmd_line "$@" >&"$SHOW_FD"
}
# Print a command (V=1 only), then run it: a program, not a function,
# so that the line is what a learner can type:
#   run_shown git -C "$KSRC" am -q "$patch"
run_shown() { # command...
	show_cmd "$@"
	env -u V "$@"
}

# Every long child (a kernel make, QEMU, gdb, a queue of tests) runs
# through start_child: in a session and process group of its own, so
# that a terminal's Ctrl-C does not reach it behind our back, and killed
# with its whole group when this script ends, is interrupted or is
# terminated, so that nothing is left running. wait_child bounds it.
LAB_CHILDREN=()
# Is a process of the group still running? A zombie is not: the
# orphans of a dead group wait as zombies until PID 1 reaps them, which
# may take a while, and kill -0 would count them.
group_live() { # pgid
	pgrep -g "$1" -r R,S,D,T,t,W,I,P >/dev/null
}
# SIGTERM to the group, SIGKILL 2 s later to whatever still runs. The
# signal that ended it is left in STOP_SIGNAL (none: it was gone).
stop_group() { # pgid
	STOP_SIGNAL=none
	kill -TERM -- "-$1" 2>/dev/null || return 0
	STOP_SIGNAL=TERM
	local end=$((${EPOCHREALTIME//[!0-9]/} + 2000000)) # 2 s, in microseconds
	while [ "${EPOCHREALTIME//[!0-9]/}" -lt "$end" ]; do
		group_live "$1" || return 0
		sleep 0.05
	done
	# shellcheck disable=SC2034 # read by the callers that care
	STOP_SIGNAL=KILL
	kill -KILL -- "-$1" 2>/dev/null || true
}
lab_cleanup() {
	local g
	for g in "${LAB_CHILDREN[@]}"; do stop_group "$g"; done
	LAB_CHILDREN=()
}
trap lab_cleanup EXIT
# die of the signal itself, after the cleanup, so callers see it
lab_interrupted() {
	[ ${#LAB_CHILDREN[@]} -eq 0 ] ||
		echo "==> interrupted: stopping the ${#LAB_CHILDREN[@]} command(s) this one started; run it again to go on" >&2
	lab_cleanup
}
trap 'lab_interrupted; trap - INT; kill -INT $$' INT
trap 'lab_cleanup; trap - TERM; kill -TERM $$' TERM
trap 'lab_cleanup; trap - HUP; kill -HUP $$' HUP

# The seconds a child may take: its own limit, cut to what is left of
# the whole command's (LAB_DEADLINE).
child_limit() { # seconds
	local left
	[ -n "${LAB_DEADLINE:-}" ] || { echo "$1"; return; }
	left=$((LAB_DEADLINE - $(date +%s)))
	[ "$left" -gt 0 ] || die "the lab command's time limit (LIMIT_RUN, ${LIMIT_RUN} s) is used up"
	echo $(("$1" < left ? "$1" : left))
}

start_child() { # command...   (its pid, which is its process group, in CHILD_PID; a program, not a shell function)
	setsid "$@" &
	CHILD_PID=$!
	LAB_CHILDREN+=("$CHILD_PID")
}

# The path of a unix socket of the run's own (build/steps/SLUG/NAME.sock),
# or a new one in /tmp when that path is too long: a socket's path has
# room for 107 bytes.
socket_path() { # dir name
	local p=$1/$2.sock
	[ "${#p}" -lt 100 ] || p=$(mktemp -u "/tmp/lab-$2.XXXXXX.sock")
	echo "$p"
}

# Wait for a child for at most $2 seconds; its exit status, 124 if the
# limit stopped it (then its whole group is gone too), 125 if a line
# matching $4 appeared in the file $3 (a failure the child reports but
# does not die of), which stops it too. A caller that can ask a child
# what it was doing names a function in ON_LIMIT: it runs when the
# limit is reached, before the child is stopped.
wait_child() { # pid seconds [file pattern]
	local pid=$1 end rc=0 g rest=() limit
	# (callers test our status, so set -e is off here: exit ourselves)
	limit=$(child_limit "$2") || exit
	end=$((SECONDS + limit))
	while kill -0 "$pid" 2>/dev/null; do
		if [ "$SECONDS" -ge "$end" ]; then
			[ -z "${ON_LIMIT:-}" ] || "$ON_LIMIT" || true
			stop_group "$pid"
			rc=124
			break
		fi
		if [ -n "${4:-}" ] && grep -q -e "$4" "$3" 2>/dev/null; then
			stop_group "$pid"
			rc=125
			break
		fi
		sleep 0.2
	done
	if [ "$rc" -eq 0 ]; then
		wait "$pid" || rc=$?
	else
		wait "$pid" 2>/dev/null || true
	fi
	# the group may have outlived its leader
	group_live "$pid" && stop_group "$pid"
	for g in "${LAB_CHILDREN[@]}"; do [ "$g" = "$pid" ] || rest+=("$g"); done
	LAB_CHILDREN=("${rest[@]}")
	return "$rc"
}

# A command in the terminal's foreground, bounded: in a process group of
# its own (job control), so that Ctrl-C reaches it and not us, and with
# a watchdog in that same group that kills the group after the limit.
# No PID file: a group ID is not reused while the watchdog is in it, so
# a watchdog left behind by a killed caller can only ever kill its own
# group. Its status is the command's (137 when the watchdog killed it).
run_foreground() { # seconds command...
	local limit rc=0 pgid
	limit=$(child_limit "$1") || exit
	shift
	show_cmd "$@"
	set -m
	# shellcheck disable=SC2016 # expanded by the inner bash
	env -u V bash -c '(sleep "$1"; kill -KILL 0) & exec "${@:2}"' foreground "$limit" "$@" &
	pgid=$!
	LAB_CHILDREN+=("$pgid")
	fg %% >/dev/null || rc=$?
	set +m
	stop_child "$pgid" # the watchdog, when the command ended first
	return "$rc"
}

# Stop a child now (the probe has its answer), and forget it.
stop_child() { # pid
	local g rest=()
	stop_group "$1"
	wait "$1" 2>/dev/null || true
	for g in "${LAB_CHILDREN[@]}"; do [ "$g" = "$1" ] || rest+=("$g"); done
	LAB_CHILDREN=("${rest[@]}")
}

run_child() { # seconds command...
	local limit=$1
	shift
	start_child "$@"
	wait_child "$CHILD_PID" "$limit"
}

# Run a long command with its output in a log file, bounded, printing a
# progress line every few seconds and the log's tail if it fails. How
# long it took is left in RUN_SECONDS.
run_logged() { # label log seconds command...
	local label=$1 log=$2 limit=$3
	shift 3
	local start=$SECONDS pid rc=0 last end left
	left=$(child_limit "$limit") || exit
	mkdir -p "$(dirname "$log")"
	show_cmd "$@"
	start_child env -u V "$@" >"$log" 2>&1
	pid=$CHILD_PID
	end=$((SECONDS + left))
	while kill -0 "$pid" 2>/dev/null && [ "$SECONDS" -lt "$end" ]; do
		sleep 1
		[ $(((SECONDS - start) % 5)) -eq 0 ] || continue
		kill -0 "$pid" 2>/dev/null || break
		last=$(tail -n 1 "$log" 2>/dev/null | tr -s ' \t' ' ' | cut -c1-60)
		printf '    %s: %ds%s\n' "$label" $((SECONDS - start)) "${last:+, at: $last}"
	done
	wait_child "$pid" 1 || rc=$?
	if [ "$rc" -eq 124 ]; then
		printf 'error: %s did not finish within %ds (stopped). Last lines of %s:\n' \
			"$label" "$limit" "$log" >&2
		tail -n 25 "$log" >&2
		return "$rc"
	fi
	if [ "$rc" -ne 0 ]; then
		printf 'error: %s failed (exit %d). Last lines of %s:\n' "$label" "$rc" "$log" >&2
		tail -n 25 "$log" >&2
		return "$rc"
	fi
	RUN_SECONDS=$((SECONDS - start))
	info "$label: done in ${RUN_SECONDS}s (log: ${log#"$LAB_ROOT"/})"
}

# A content key of files: changes when any of them changes.
files_key() {
	cat "$@" | sha256sum | cut -c1-16
}

# The kernel source we build from (scripts/linux-source.sh records it):
# its Debian package version, and its tarball.
linux_source_version() {
	sed -n 's/^version: //p' "$BUILD_DIR/linux-source.txt" 2>/dev/null | grep . || echo unknown
}
linux_source_tarball() {
	sed -n 's/^tarball: //p' "$BUILD_DIR/linux-source.txt" 2>/dev/null
}

# A step's initramfs: its parts (initramfs.parts: "lab", its own, and
# "debian" when it runs Debian's automount) one after the other, as the
# kernel unpacks them.
join_initramfs() { # out-dir
	local part f
	: >"$1/initramfs.cpio.tmp"
	while read -r part; do
		case $part in
		lab) f=$1/initramfs-lab.cpio ;;
		debian) f=$BUILD_DIR/debian/debian.cpio.lz4 ;;
		*) die "$1/initramfs.parts: unknown part '$part'" ;;
		esac
		cat "$f" >>"$1/initramfs.cpio.tmp" || die "the initramfs part $f is missing"
	done <"$1/initramfs.parts"
	mv "$1/initramfs.cpio.tmp" "$1/initramfs.cpio"
}

# Is this build dir's output an imported bundle (scripts/bundle.sh)?
lab_imported() { [ -f "$BUILD_DIR/bundle.txt" ]; }

# The time every file the lab puts in an initramfs is dated, in seconds
# since 1970: the date of the kernel tree's baseline commit, which is
# the linux-source release's own (scripts/kernel-tree.sh). Same source,
# same archive bytes.
source_epoch() {
	git -C "$KSRC" log -1 --format=%ct baseline 2>/dev/null | grep . ||
		die "the kernel tree has no baseline commit yet (run: make)"
}
