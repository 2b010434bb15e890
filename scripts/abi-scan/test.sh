#!/usr/bin/env bash
# Tests of the abi-scan scanner on known cases. Every check reads the
# output of a real scan (report.tsv, all-types.tsv, failed.txt, the
# Markdown fragments), so each one fails when the scanner gets it wrong.
#
#   test.sh --uapi DIR --ksrc DIR --out DIR
#
# Scans DIR (reusing its cache) and, in OUT/synthetic, the header
# testdata/synthetic.h, whose expected numbers (testdata/expected.tsv) are
# compiled as _Static_asserts too. One TAP test per check
# (scripts/lib/tap.sh); exits non-zero if a check failed. (The unit tests
# on canned pahole output, tests/test_abiscan.py, need no kernel: make check.)
# shellcheck source=../lib/core.sh
. "$(dirname "$0")/../lib/core.sh"
lab_setup
# shellcheck source=../lib/tap.sh
. "$SCRIPTS/lib/tap.sh"
tap_begin

HERE=$SCRIPTS/abi-scan
usage="test.sh --uapi DIR --ksrc DIR --out DIR"
parse_args "$usage" --uapi= --ksrc= --out= -- "$@"
UAPI=${OPT[uapi]} KSRC=${OPT[ksrc]} OUT=${OPT[out]}
if [ -z "$UAPI" ] || [ -z "$KSRC" ] || [ -z "$OUT" ]; then usage_error "$usage"; fi
check() { # check DESCRIPTION COMMAND...: ok if the command succeeds; what it said follows a failure
	local what=$1 out
	shift
	if out=$("$@" 2>&1); then pass "$what"; else fail "$what${out:+$'\n'$out}"; fi
}

# field FILE NAME COLUMN: the column (by header name) of the first row for NAME
field() {
	[ -f "$1" ] || return 0
	awk -F'\t' -v n="$2" -v c="$3" '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$1 == n { print $col[c]; exit }' "$1"
}
sizes() { # sizes FILE NAME: in the order of guest/abis (i386/x86_64/x32)
	local abi out=()
	for abi in "${GUEST_ABIS[@]}"; do out+=("$(field "$1" "$2" "size_$abi")"); done
	local IFS=/
	printf '%s' "${out[*]}"
}
eq() { # eq GOT WANT, saying what differs
	[ "$1" = "$2" ] && return 0
	echo "got '$1', want '$2'"
	return 1
}
contains() { # contains TEXT PART
	case $1 in *"$2"*) return 0 ;; esac
	echo "'$1' does not contain '$2'"
	return 1
}

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
log=$OUT/test-scan.log

# proves ABI FILE: gcc with ABI's flag accepts FILE (-I UAPI_DIR)
proves() {
	run_child "$LIMIT_SHORT" gcc "${GUEST_ABI_FLAG[$1]}" -fsyntax-only -I "$3" "$2" </dev/null 2>"$2.err"
}
refuted() { ! proves "$@"; }

# --- the real headers
rc=0
run_child "$LIMIT_SCAN" "$HERE/abi-scan.sh" --uapi "$UAPI" --ksrc "$KSRC" --out "$OUT" --quiet </dev/null >"$log" 2>&1 || rc=$?
check "abi-scan.sh scans $UAPI" eq "$rc" 0
[ "$rc" = 0 ] || tail -20 "$log" | sed 's/^/#   /'
R=$OUT/report.tsv A=$OUT/all-types.tsv

check "autofs_v5_packet is class 1 (tail padding only)" eq "$(field "$R" autofs_v5_packet class)" 1
check "autofs_v5_packet is 300/304/304 bytes (i386/x86_64/x32)" eq "$(sizes "$R" autofs_v5_packet)" 300/304/304
check "autofs_v5_packet: x32 has the x86_64 layout" eq "$(field "$R" autofs_v5_packet x32_like)" x86_64
check "gpioevent_data is flagged (class 1)" eq "$(field "$R" gpioevent_data class)" 1
check "gpioevent_data is annotated with compat_need_64bit_alignment_fixup()" \
	contains "$(field "$R" gpioevent_data kernel_handling)" compat_need_64bit_alignment_fixup
check "epoll_event is scanned: 12/12/12, no difference" eq "$(sizes "$A" epoll_event) $(field "$A" epoll_event class)" "12/12/12 0"
check "epoll_event's definition is seen as packed" eq "$(field "$A" epoll_event packing)" packed
check "epoll_event is not in report.tsv" eq "$(field "$R" epoll_event class)" ""
check "sysinfo (__kernel_long_t members) is class 3, not 1 or 2" eq "$(field "$R" sysinfo class)" 3
check "sysinfo is 64/112/112: x32's __kernel_long_t is 64-bit" eq "$(sizes "$R" sysinfo)" 64/112/112
# shellcheck disable=SC2016 # backquotes are Markdown, not a command
check "the where-else table shows the autofs row in bold" \
	grep -q '^| \*\*`struct autofs_v5_packet`\*\* |' "$OUT/where-else-table.md"
check "failed.txt names linux/patchkey.h and its #error" \
	grep -q '^linux/patchkey.h	.*#error' "$OUT/failed.txt"
check "union bpf_attr is flagged (class 2: link_create.tracing.cookie moves)" \
	eq "$(field "$R" bpf_attr class)" 2
h=$(field "$R" bpf_attr kernel_handling)
check "union bpf_attr's aligned(8) does not count as handling ($h)" \
	test "${h#nothing found}" != "$h"
check "union bpf_attr is silent (no ioctl number carries its size)" eq "$(field "$R" bpf_attr crossing)" silent
# the other struct Arnd Bergmann named (docs/pages/where-else.md)
check "bpf_cgroup_storage_key is class 1, 12/16/16, x32 like x86_64" \
	eq "$(field "$R" bpf_cgroup_storage_key class) $(sizes "$R" bpf_cgroup_storage_key) $(field "$R" bpf_cgroup_storage_key x32_like)" \
	"1 12/16/16 x86_64"
check "ib_user_mad_reg_req (an expression as bound, 16 bytes at 4 everywhere) is not flagged" \
	eq "$(field "$R" ib_user_mad_reg_req class)$(field "$A" ib_user_mad_reg_req class)" 0
unproven=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["proof"] != "ok" { print $1 }' "$R" | head -5 | tr '\n' ' ')
check "every flagged type's sizes and offsets compile as _Static_asserts${unproven:+ (not: $unproven)}" \
	test -z "$unproven" -a -s "$R"
check "the counts split class 3 into identical bytes and real differences" \
	grep -q '^| 3 | .*bytes identical | [0-9]' "$OUT/where-else-counts.md"
check "the counts show loud and silent per class" grep -q '| Loud (ioctl size) | Silent |' \
	"$OUT/where-else-counts.md"
# one number off in a copy of the autofs proof must fail
pf=$(grep -l 'struct autofs_v5_packet sizeof 300' "$OUT"/proof/i386/*.c 2>/dev/null | head -1)
if [ -n "$pf" ]; then
	sed 's/== 300, "struct autofs_v5_packet sizeof 300"/== 301, "wrong on purpose"/' "$pf" >"$OUT/wrong.c"
	check "a proof file compiles for i386 as written" proves i386 "$pf" "$UAPI"
	check "the same file with sizeof 301 fails to compile" refuted i386 "$OUT/wrong.c" "$UAPI"
else
	check "the i386 proof files assert sizeof(struct autofs_v5_packet) == 300" false
fi

# --- a rerun with nothing changed uses the cache: it compiles nothing.
# (How long it takes is make bench's to measure, on an idle machine: a
# timed check fails on a busy one.)
t0=$(date +%s%N)
run_child "$LIMIT_SCAN" "$HERE/abi-scan.sh" --uapi "$UAPI" --ksrc "$KSRC" --out "$OUT" </dev/null >"$log.2" 2>&1 || true
ms=$((($(date +%s%N) - t0) / 1000000))
check "a rerun compiles nothing (it took $ms ms)" grep -q ': 0 to compile' "$log.2"

# --- missing inputs give a clear error
err=$(run_child "$LIMIT_SHORT" "$HERE/abi-scan.sh" --uapi "$OUT/no-such-dir" --ksrc "$KSRC" --out "$OUT/x" </dev/null 2>&1 || true)
check "a missing --uapi directory is a clear error" contains "$err" "no such directory"

# --- the synthetic header, in a uapi tree of links plus abiscan/synthetic.h
syn=$OUT/synthetic
rm -rf "$syn/uapi"
mkdir -p "$syn/uapi/abiscan"
for e in "$(cd "$UAPI" && pwd)"/*; do ln -s "$e" "$syn/uapi/"; done
cp "$HERE/testdata/synthetic.h" "$syn/uapi/abiscan/"
rc=0
run_child "$LIMIT_SCAN" "$HERE/abi-scan.sh" --uapi "$syn/uapi" --ksrc "$KSRC" --out "$syn" --only 'abiscan/*' \
	--quiet </dev/null >"$log.3" 2>&1 || rc=$?
check "abi-scan.sh scans testdata/synthetic.h" eq "$rc" 0
[ "$rc" = 0 ] || tail -20 "$log.3" | sed 's/^/#   /'
R=$syn/report.tsv A=$syn/all-types.tsv
check "synthetic: abiscan_tail is class 1, 12/16/16" \
	eq "$(field "$R" abiscan_tail class) $(sizes "$R" abiscan_tail)" "1 12/16/16"
check "synthetic: abiscan_shift is class 2, 12/16/16" \
	eq "$(field "$R" abiscan_shift class) $(sizes "$R" abiscan_shift)" "2 12/16/16"
check "synthetic: abiscan_shift names the moved member b" \
	contains "$(field "$R" abiscan_shift detail)" "b at 4->8"
check "synthetic: abiscan_long is class 3, 8/16/8, x32 like i386" \
	eq "$(field "$R" abiscan_long class) $(sizes "$R" abiscan_long) $(field "$R" abiscan_long x32_like)" \
	"3 8/16/8 i386"
check "synthetic: abiscan_packed is 12/12/12 and not flagged" \
	eq "$(sizes "$A" abiscan_packed) $(field "$A" abiscan_packed class) $(field "$R" abiscan_packed class)" \
	"12/12/12 0 "
check "synthetic: abiscan_nested is class 1 through its member" \
	eq "$(field "$R" abiscan_nested class) $(field "$R" abiscan_nested propagated)" \
	"1 struct abiscan_tail (class 1) in t"
# testdata/expected.tsv: each row's class and sizes in the scan's output
while IFS=$'\t' read -r name cls sz _m _o; do
	case $name in '#'* | '') continue ;; esac
	check "synthetic: $name is class $cls, $sz" \
		eq "$(field "$A" "$name" class) $(sizes "$A" "$name")" "$cls $sz"
done <"$HERE/testdata/expected.tsv"
check "synthetic: abiscan_notfixed's aligned(8) is not its handling" \
	contains "$(field "$R" abiscan_notfixed kernel_handling)" "nothing found"
check "synthetic: abiscan_slot is class 3 with identical bytes" \
	eq "$(field "$R" abiscan_slot class3_kind)" "member types differ, bytes identical"
check "synthetic: abiscan_ioctl is loud" contains "$(field "$R" abiscan_ioctl crossing)" "loud"
check "synthetic: abiscan_tail is silent" eq "$(field "$R" abiscan_tail crossing)" silent
unproven=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["proof"] != "ok" { print $1 }' "$R" | tr '\n' ' ')
check "synthetic: every flagged type's numbers compile as _Static_asserts${unproven:+ (not: $unproven)}" \
	test -z "$unproven" -a -s "$R"
# the fixture's own numbers, compiled: a wrong number in expected.tsv fails
for i in "${!GUEST_ABIS[@]}"; do
	abi=${GUEST_ABIS[i]}
	awk -F'\t' -v i="$((i + 1))" '
		BEGIN { print "#include <stddef.h>\n#include <abiscan/synthetic.h>" }
		/^#/ || NF < 5 { next }
		{ split($3, s, "/"); split($5, o, "/")
		  printf "_Static_assert(sizeof(struct %s) == %s, \"%s\");\n", $1, s[i], $1
		  printf "_Static_assert(offsetof(struct %s, %s) == %s, \"%s.%s\");\n", $1, $4, o[i], $1, $4 }
	' "$HERE/testdata/expected.tsv" >"$syn/expected-$abi.c"
	check "synthetic: testdata/expected.tsv's numbers compile as _Static_asserts for $abi" \
		proves "$abi" "$syn/expected-$abi.c" "$syn/uapi"
	[ ! -s "$syn/expected-$abi.c.err" ] || grep -m3 'error' "$syn/expected-$abi.c.err" | sed 's/^/#   /'
done

finish
