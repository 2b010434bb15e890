# shellcheck shell=bash
# The one supervisor of the lab's child processes. Every QEMU, gdb,
# kernel make, apt-get, xz, scan and test suite the lab starts goes
# through one of these, and each:
#   - runs in a process group (and session) of its own, so that a
#     terminal's Ctrl-C does not reach it behind our back, and is stopped
#     with its whole group when we end, are interrupted or terminated;
#   - has a time limit from lib/limits.sh, cut to what is left of the
#     whole lab command's (LAB_DEADLINE);
#   - is printed as one line to paste into a shell with V=1, and written
#     to a .cmdline file when the caller names one (CHILD_CMDLINE=FILE).
#     run_shown ..., start_child ..., run_child S ..., run_logged L F S ...
#     wait_child PID S [FILE PATTERN], stop_child PID, run_foreground S ...
# supervise_init (lab_setup calls it) installs the traps.

# V=1: the line goes to the script's own stderr, saved here, so that it
# reaches the terminal even from a command whose output is captured or
# logged. The command itself runs without our V in its environment, as
# in the shell it is pasted into: kbuild reads V only from its command
# line (the Makefile keeps ours off it), but the host tools it builds
# (objtool) read it from the environment. KBUILD_VERBOSE=1 is kbuild's.
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
# Print a command (V=1), and keep it in CHILD_CMDLINE's file if set.
show_cmd() { # command...
	[ -z "${CHILD_CMDLINE:-}" ] || cmd_line "$@" >"$CHILD_CMDLINE"
	[ -z "${SHOW_FD:-}" ] || cmd_line "$@" >&"$SHOW_FD"
}

LAB_CHILDREN=()
declare -A LAB_CHILD_WHAT=() # pid: what it is, for the message of a Ctrl-C
# Is a process of the group still running? A zombie is not: the
# orphans of a dead group wait as zombies until PID 1 reaps them, which
# may take a while, and kill -0 would count them.
# (Without procps, which deps.sh installs as root on a minimal system,
# the group is asked with kill -0, zombies and all, and its tree is the
# group alone.)
group_live() { # pgid
	if command -v pgrep >/dev/null; then
		pgrep -g "$1" -r R,S,D,T,t,W,I,P >/dev/null
	else
		kill -0 -- "-$1" 2>/dev/null
	fi
}
# The processes of a group and every process they started, in whatever
# group or session (QEMU is boot.sh's child in a session of its own):
# one ps for the whole table, as a Ctrl-C wants it soon on a busy host.
group_tree() { # pgid
	command -v ps >/dev/null || return 0
	ps -e -o pid=,ppid=,pgid= | awk -v g="$1" '
		{ pid[NR] = $1; parent[NR] = $2; if ($3 == g) sel[$1] = 1 }
		END {
			do {
				more = 0
				for (i in pid)
					if (!(pid[i] in sel) && (parent[i] in sel)) { sel[pid[i]] = 1; more = 1 }
			} while (more)
			for (p in sel) printf "%s ", p
		}'
}
# Is one of these processes still running (a zombie is not)?
any_live() { # pid...
	local p st
	for p; do
		# (the 2> first: it must be in place when the < fails)
		read -r st 2>/dev/null <"/proc/$p/stat" || continue
		st=${st##*) } # (after the command's name, which may hold anything)
		[ "${st%% *}" = Z ] || return 0
	done
	return 1
}
# SIGTERM to the group, SIGKILL LIMIT_STOP s later to whatever still runs
# of it and of what it started: the tree is taken before the SIGTERM, so
# a child killed while it stops its own children leaves none behind. The
# signal that ended it is left in STOP_SIGNAL (none: it was gone).
stop_group() { # pgid
	local tree end
	STOP_SIGNAL=none
	read -r -a tree <<<"$(group_tree "$1")"
	kill -TERM -- "-$1" 2>/dev/null || return 0
	STOP_SIGNAL=TERM
	end=$((${EPOCHREALTIME//[!0-9]/} + LIMIT_STOP * 1000000))
	while [ "${EPOCHREALTIME//[!0-9]/}" -lt "$end" ]; do
		{ group_live "$1" || any_live "${tree[@]}"; } || return 0
		sleep 0.05
	done
	# shellcheck disable=SC2034 # read by the callers that care
	STOP_SIGNAL=KILL
	kill -KILL -- "-$1" 2>/dev/null || true
	[ ${#tree[@]} -eq 0 ] || kill -KILL "${tree[@]}" 2>/dev/null || true
}
forget_child() { # pid
	local g rest=()
	for g in "${LAB_CHILDREN[@]}"; do [ "$g" = "$1" ] || rest+=("$g"); done
	LAB_CHILDREN=("${rest[@]}")
	unset "LAB_CHILD_WHAT[$1]"
}
lab_cleanup() {
	local g
	for g in "${LAB_CHILDREN[@]}"; do stop_group "$g"; done
	LAB_CHILDREN=()
	LAB_CHILD_WHAT=()
}
# Say what is stopped, then stop it. The shell dies of the signal itself
# after this (the traps below), so that its callers see it. The lab
# command's first script (LAB_TOP) also says that the command is over.
lab_interrupted() { # how
	local g what=
	for g in "${LAB_CHILDREN[@]}"; do what+="${what:+, }${LAB_CHILD_WHAT[$g]:-pid $g}"; done
	[ -z "$what" ] || echo "==> $1: stopping $what" >&"${LAB_STDERR:-2}"
	lab_cleanup
	[ "${LAB_TOP:-}" != "$BASHPID" ] ||
		echo "==> $1: \`${LAB_COMMAND:-${0##*/}}\` stopped, and nothing it started runs on; run it again to go on" >&"${LAB_STDERR:-2}"
}
# The traps of the shell at this subshell level: a subshell (a $(...), a
# pipeline) runs none of its parent's, so start_child sets them again in
# the first subshell that starts a child, with a list of its own. Each
# dies of its signal ($BASHPID: $$ would be the parent, in a subshell).
supervise_traps() {
	LAB_TRAPS_AT=$BASH_SUBSHELL
	LAB_CHILDREN=()
	LAB_CHILD_WHAT=()
	trap lab_cleanup EXIT
	trap 'lab_interrupted interrupted; trap - INT; kill -INT $BASHPID' INT
	trap 'lab_interrupted terminated; trap - TERM; kill -TERM $BASHPID' TERM
	trap 'lab_interrupted "hung up"; trap - HUP; kill -HUP $BASHPID' HUP
}
# LAB_STDERR: the script's own stderr, for what a trap says while a
# function runs with its output sent to a log (run_child ... 2>log).
# No core dumps: a gdb that aborts as it is stopped (make test's Ctrl-C
# sweep saw gdb do so) would leave an 80 MB core in the checkout.
supervise_init() {
	ulimit -c 0
	[ -n "${LAB_TOP:-}" ] || export LAB_TOP=$$
	supervise_traps
	exec {LAB_STDERR}>&2
	[ "${V:-0}" != 1 ] || SHOW_FD=$LAB_STDERR
}

# The seconds a child may take: its own limit, cut to what is left of
# the whole command's (LAB_DEADLINE).
child_limit() { # seconds
	local left
	[ -n "${LAB_DEADLINE:-}" ] || { echo "$1"; return; }
	left=$((LAB_DEADLINE - $(date +%s)))
	[ "$left" -gt 0 ] || die "the lab command's time limit (LIMIT_RUN, ${LIMIT_RUN} s) is used up"
	echo $(("$1" < left ? "$1" : left))
}

# Start a child in the background: its pid, which is its process group,
# in CHILD_PID. A program, not a shell function. Its standard input is
# ours (redirect the call to give it another: bash would give a child in
# the background /dev/null only when nothing else is said). CHILD_WHAT
# names it in a Ctrl-C's message (default: the program's name).
# Two nets under the traps: should the shell that started it die
# without running them (SIGKILL), the child gets SIGTERM (setpriv
# --pdeathsig); and it does not get the lock's descriptor (lib/lock.sh),
# so a child that outlived us could not keep the build dir locked.
start_child() { # command...
	show_cmd "$@"
	[ "${LAB_TRAPS_AT:-}" = "$BASH_SUBSHELL" ] || supervise_traps
	setpriv --pdeathsig TERM setsid env -u V "$@" <&0 9>&- &
	CHILD_PID=$!
	LAB_CHILDREN+=("$CHILD_PID")
	LAB_CHILD_WHAT[$CHILD_PID]=${CHILD_WHAT:-${1##*/}}
}

# Wait for a child for at most $2 seconds; its exit status, 124 if the
# limit stopped it (then its whole group is gone too), 125 if a line
# matching $4 appeared in the file $3 (a failure the child reports but
# does not die of), which stops it too. A caller that can ask a child
# what it was doing names a function in ON_LIMIT: it runs when the
# limit is reached, before the child is stopped. CHILD_LIMIT: the limit
# it had (less than asked when the lab command's deadline was nearer).
wait_child() { # pid seconds [file pattern]
	local pid=$1 end rc=0 limit
	# (callers test our status, so set -e is off here: exit ourselves)
	limit=$(child_limit "$2") || exit
	# shellcheck disable=SC2034 # for the callers' messages
	CHILD_LIMIT=$limit
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
	forget_child "$pid"
	return "$rc"
}

# Stop a child now (its caller has what it needs), and forget it.
stop_child() { # pid
	stop_group "$1"
	wait "$1" 2>/dev/null || true
	forget_child "$1"
}

# Run a child to its end, bounded: its status (124: out of time).
run_child() { # seconds command...
	local limit=$1
	shift
	start_child "$@"
	wait_child "$CHILD_PID" "$limit"
}

# A short command the learner may want to see (git am, merge_config.sh):
# run_child with LIMIT_SHORT, its output where ours goes.
run_shown() { # command...
	run_child "$LIMIT_SHORT" "$@"
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
	start_child "$@" </dev/null >"$log" 2>&1
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

# A command in the terminal's foreground (gdb, a guest's console),
# bounded: in a process group of its own (job control), so that Ctrl-C
# reaches it and not us, with a watchdog in that same group that kills
# the group after the limit. No PID file: a group's ID is not reused
# while the watchdog is in it, so a watchdog left behind by a killed
# caller can only ever kill its own group. Not timeout(1): it would pass
# each Ctrl-C on as a second one, and gdb takes two as "give up on the
# target". Its status is the command's (137: the watchdog killed it).
# bash's job control hands the terminal over through its fd 2: while
# the command runs that is the terminal (/dev/tty), and the command gets
# our stderr, be it a pipe or a file (make gdb 2>&1 | tee log). Without
# a terminal on standard input it is an ordinary child.
run_foreground() { # seconds command...
	local limit rc=0 pgid err
	limit=$(child_limit "$1") || exit
	shift
	if ! [ -t 0 ] || ! { : </dev/tty; } 2>/dev/null; then
		run_child "$limit" "$@"
		return
	fi
	show_cmd "$@"
	exec {err}>&2 2<>/dev/tty
	set -m
	# The watchdog, one shell waiting in read (no sleep to outlive it),
	# ends when the command does (--pdeathsig: its parent is the
	# command); the command, when we do.
	# shellcheck disable=SC2016 # expanded by the inner bash
	setpriv --pdeathsig TERM env -u V bash -c \
		'setpriv --pdeathsig KILL bash -c "read -r -t \$1 _ <> <(:); kill -KILL 0" watchdog "$1" & exec "${@:2}"' \
		foreground "$limit" "$@" 9>&- 2>&"$err" &
	pgid=$!
	LAB_CHILDREN+=("$pgid")
	LAB_CHILD_WHAT[$pgid]=${1##*/}
	fg %% >/dev/null || rc=$?
	set +m
	exec 2>&"$err" {err}>&-
	stop_child "$pgid" # the watchdog, when the command ended first
	return "$rc"
}
