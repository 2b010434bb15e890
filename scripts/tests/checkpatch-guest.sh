#!/usr/bin/env bash
# The guest's C (guest/*.c, guest/*.h, guest/tests/*) under the kernel
# tree's own checkpatch.pl, as a file of userspace code: no errors and no
# warnings, but for the false positives guest/checkpatch.ignore lists
# with their reasons. One TAP test per file (scripts/lib/tap.sh); exits 1 if
# any failed.
#   checkpatch-guest.sh KERNEL-TREE
# shellcheck source=../lib/core.sh
. "$(dirname "$0")/../lib/core.sh"
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
tap_begin

parse_args "checkpatch-guest.sh KERNEL-TREE" -- "$@"
[ ${#ARGS[@]} -eq 1 ] || usage_error "checkpatch-guest.sh KERNEL-TREE"
ksrc=${ARGS[0]}
checkpatch=$ksrc/scripts/checkpatch.pl
root=$LAB_ROOT
ignore_file=$root/guest/checkpatch.ignore
[ -f "$checkpatch" ] || { echo "checkpatch-guest.sh: no $checkpatch" >&2; exit 2; }

# TYPE, the files it is ignored in, and why: the why is not optional
types=() globs=()
while read -r type glob reason; do
	case $type in '' | '#'*) continue ;; esac
	if [ -z "$reason" ]; then
		echo "checkpatch-guest.sh: $ignore_file: $type $glob has no reason" >&2
		exit 2
	fi
	types+=("$type")
	globs+=("$glob")
done <"$ignore_file"

cd "$root"
for f in guest/*.c guest/*.h guest/tests/*.c guest/tests/*.h; do
	[ -f "$f" ] || continue
	ignore=()
	for i in "${!types[@]}"; do
		# shellcheck disable=SC2053 # the glob is a pattern on purpose
		[[ $f == ${globs[i]} ]] && ignore+=("${types[i]}")
	done
	args=(--no-tree -f --terse --show-types --color=never)
	[ ${#ignore[@]} -eq 0 ] || args+=(--ignore "$(
		IFS=,
		echo "${ignore[*]}"
	)")
	rc=0
	out=$(perl "$checkpatch" "${args[@]}" "$f" 2>&1) || rc=$?
	# --terse prints nothing at all for a clean file
	if [ "$rc" -eq 0 ] && ! grep -qE ': (ERROR|WARNING|CHECK):' <<<"$out"; then
		pass "checkpatch: $f"
	else
		fail "checkpatch: $f
$(grep -v '^total:' <<<"$out")"
	fi
done
finish
