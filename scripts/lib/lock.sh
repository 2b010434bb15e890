# shellcheck shell=bash
# One lab command per build directory at a time: two would share the
# checked-out branch of build/linux and its build dir. The entry points
# take the lock (exclusive, or shared for what only reads the build);
# the scripts they run inherit it (LAB_LOCKED). The kernel releases a
# flock when the last descriptor of it closes, so the lock is held on
# fd 9 of the command's first script only: no child gets it
# (start_child closes it), and a lab script run by that command closes
# the copy it inherited. A crashed run never leaves it behind.
# LAB_DEADLINE, set with the lock, is the whole command's time limit,
# which every child's limit fits in (lib/supervise.sh).
lab_lock() { # exclusive|shared
	[ -z "${LAB_LOCKED:-}" ] || return 0
	local flag=-x lock=$BUILD_DIR/.lab.lock what=${LAB_COMMAND:-${0##*/}}
	[ "$1" = shared ] && flag=-s
	exec 9>>"$lock"
	if ! flock -n "$flag" 9; then
		lock_holder_gone "$lock"
		if ! flock -w 1 "$flag" 9; then
			say "waiting for the lab run of $(cat "$lock.owner" 2>/dev/null || echo 'another command'), which uses the same build directory ($BUILD_DIR)"
			local waited=0
			while ! flock -w 5 "$flag" 9; do
				lock_holder_gone "$lock"
				waited=$((waited + 5))
				[ $((waited % 30)) -ne 0 ] || info "still waiting for $(cat "$lock.owner" 2>/dev/null || echo 'it')"
			done
		fi
	fi
	# shellcheck disable=SC2016 # the backquotes are text
	printf 'pid %s, `%s`\n' "$$" "$what" >"$lock.owner"
	export LAB_LOCKED=$$
	export LAB_DEADLINE=${LAB_DEADLINE:-$(($(date +%s) + LIMIT_RUN))}
}

# A script the lock's holder runs (lab_setup calls this) closes the
# descriptor it inherited: only the holder keeps the lock.
lock_close_inherited() {
	[ -z "${LAB_LOCKED:-}" ] || [ "$LAB_LOCKED" = $$ ] || exec 9>&-
}

# The lab command that took the lock has ended, yet the lock is held: a
# process it started still has the descriptor (labs before this one
# handed it to their children). Never wait on it: a process of that lab
# command (LAB_LOCKED=its pid in its environment) is stopped, saying so.
# Anything else holding it is another command, which we wait for.
lock_holder_gone() { # lock-file
	local owner p fd holders=()
	owner=$(sed -n 's/^pid \([0-9]*\),.*/\1/p' "$1.owner" 2>/dev/null)
	[ -n "$owner" ] && ! kill -0 "$owner" 2>/dev/null || return 0
	for fd in /proc/[0-9]*/fd/*; do
		[ "$fd" -ef "$1" ] 2>/dev/null || continue
		p=${fd#/proc/} p=${p%%/*}
		[ "$p" != "$BASHPID" ] && [ "$p" != $$ ] && holders+=("$p")
	done
	[ ${#holders[@]} -gt 0 ] || return 0
	local killed_pids=()
	for p in $(printf '%s\n' "${holders[@]}" | sort -u); do
		tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "LAB_LOCKED=$owner" || continue
		warn "the lab command of pid $owner is gone, but pid $p ($(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | cut -c1-80)), which it started, still holds ${1#"$LAB_ROOT"/}: stopping it"
		kill -TERM "$p" 2>/dev/null && killed_pids+=("$p")
	done
	# stopped means gone (and the lock with it): SIGKILL after LIMIT_STOP
	local end=$((SECONDS + LIMIT_STOP))
	for p in "${killed_pids[@]}"; do
		while kill -0 "$p" 2>/dev/null && [ "$SECONDS" -lt "$end" ]; do sleep 0.05; done
		kill -KILL "$p" 2>/dev/null || true
	done
}
