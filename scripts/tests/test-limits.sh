#!/usr/bin/env bash
# The guest takes its time limits from the kernel command line only
# (limits_cmdline of scripts/lib/limits.sh, which boot.sh passes): a default
# of its own in a guest program or script would sooner or later
# disagree with the table, as init.sh's read_ms=2000 once did. Fails,
# naming the line and the table's value, on:
#   shell  NAME=123, ${NAME:-123} (or :=, -, =)
#   C      NAME = a number or anything with one or a macro in it, but 0
#          (0 is "not given": an option gives the value), and
#          #define ...TIMEOUT/READ_MS/WATCHDOG/LIMIT... 123
#   both   --timeout-ms 123, --watchdog-s 123, lab.read_ms=123 (a hint)
# where NAME is a variable that carries a limit; and unless init.sh
# reads every limit of the kernel command line.
#   test-limits.sh [GUEST-DIR]   (default guest/; e.g. an old tree's)
# shellcheck source=../lib/core.sh
. "$(dirname "$0")/../lib/core.sh"
guest=${1:-$LAB_ROOT/guest}

# The guest's names for each limit: its kernel argument's, init.sh's
# and the programs' (variables, struct fields, options).
declare -A limit_of=(
	[read_ms]=LIMIT_READ_MS [READ_MS]=LIMIT_READ_MS [timeout_ms]=LIMIT_READ_MS [timeout-ms]=LIMIT_READ_MS
	[watchdog]=LIMIT_WATCHDOG [watchdog_s]=LIMIT_WATCHDOG [watchdog-s]=LIMIT_WATCHDOG
	[prog_timeout]=LIMIT_PROGRAM
)
names=$(IFS='|'; echo "${!limit_of[*]}")
bad=0
scan() { # file extended-regex: say what each match sets, against the table
	local hit text name table value why
	while IFS= read -r hit; do
		text=${hit#*:*:} why="a limit of the guest's own"
		if [[ $text =~ ($names)[[:space:]=:-]*([^}]*[^}[:space:]]) ]]; then
			name=${BASH_REMATCH[1]} value=${BASH_REMATCH[2]} table=${limit_of[${BASH_REMATCH[1]}]}
			[ "$value" != 0 ] || continue # 0: "not given", until an option gives it
			if [[ ! $value =~ ^[0-9]+$ ]]; then
				why="a default of $name, made up from something else; the table has $table=${!table}"
			elif [ "$value" = "${!table}" ]; then
				why="a default of $name: a second copy of $table=${!table}, which the table may change alone"
			else
				why="a default of $name that disagrees with the table's $table=${!table}"
			fi
		fi
		echo "${hit%%:*}:$(cut -d: -f2 <<<"$hit"): $text: $why"
		bad=1
	done < <(grep -nHoE -e "$2" "$1")
}

# 1. Every limit on the kernel command line is read by init.sh, and
# has a guest name above.
for kv in $(limits_cmdline); do
	k=${kv%%=*} k=${k#lab.}
	table=${limit_of[$k]:-}
	if [ -z "$table" ] || [ "$kv" != "lab.$k=${!table}" ]; then
		echo "limits_cmdline passes $kv, which this test does not know (add it to limit_of)"
		bad=1
	fi
	grep -q "^[[:space:]]*lab\.$k=\*)" "$guest/init.sh" ||
		{ echo "guest/init.sh does not read lab.$k= from the kernel command line"; bad=1; }
done

# 2. No default anywhere in the guest.
hint="--(timeout-ms|watchdog-s)[ =]+[0-9]+|lab\.(read_ms|watchdog|prog_timeout)=[0-9]+"
for f in "$guest"/*.sh; do
	scan "$f" "\<($names)=[0-9]+|\<($names)=[^[:space:];]*[:]?[-=][0-9]+|\\$\{($names):?[-=][0-9]+\}?|$hint"
done
for f in "$guest"/*.c "$guest"/*.h; do
	scan "$f" "\<($names)[[:space:]]*=[[:space:]]*[^=;,)}]*[0-9A-Z][^;,)}]*|^[[:space:]]*#[[:space:]]*define[[:space:]]+[A-Z0-9_]*(TIMEOUT|READ_MS|WATCHDOG|LIMIT)[A-Z0-9_]*[[:space:]]+\(?[0-9]+|$hint"
done

# 3. The host side waits on literal numbers nowhere either: a time limit
# there comes from lib/limits.sh too (a command's timeout, gdb's
# remotetimeout, a Python socket's or subprocess's timeout, a default
# seconds argument). The tests themselves may shrink one.
if [ "$guest" = "$LAB_ROOT/guest" ]; then
	host='\<timeout( -[a-zA-Z] [^ ]+)* [0-9]+|remotetimeout [0-9]+|settimeout\([0-9.]+\)|timeout=[0-9.]+|(seconds|limit|timeout)=[0-9.]+\)'
	while IFS= read -r hit; do
		echo "$hit: a time limit of the host's own (scripts/lib/limits.sh is their table)"
		bad=1
	done < <(cd "$LAB_ROOT" && git ls-files -- scripts gdb-scripts docs/generators ':!scripts/tests' |
		grep -E '\.(sh|py|gdb)$' | xargs grep -nHE -e "$host" | grep -vE ':[0-9]+:[[:space:]]*#')
fi

if [ "$bad" = 0 ]; then
	echo "the guest has no limit of its own: $(limits_cmdline), from the kernel command line; the host none outside lib/limits.sh"
else
	echo "the guest takes its limits from the kernel command line only (scripts/lib/limits.sh, limits_cmdline)"
fi
exit "$bad"
