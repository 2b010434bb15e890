# shellcheck shell=bash
# One lab command per build directory at a time: two would share the
# checked-out branch of build/linux and its build dir. The entry points
# take the lock (exclusive, or shared for what only reads the build);
# the scripts they run inherit it (LAB_LOCKED). The kernel releases a
# flock when its holder dies, so a crashed run never leaves it behind.
# LAB_DEADLINE, set with the lock, is the whole command's time limit,
# which every child's limit fits in (lib/supervise.sh).
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
	export LAB_DEADLINE=${LAB_DEADLINE:-$(($(date +%s) + LIMIT_RUN))}
}
