#!/usr/bin/env bash
# abi-scan: find every uapi struct/union whose layout differs between i386,
# x86_64 and x32 (the autofs v5 packet's problem and its relatives).
#
#   abi-scan.sh --uapi DIR --ksrc DIR --out DIR [--quiet] [--only GLOBS]
#
#   --uapi   installed uapi headers (make headers_install), e.g. the
#            pristine step's, which make abi-scan scans
#   --ksrc   kernel source tree, grepped for how the kernel copes (compat code)
#   --out    output and cache directory (report.txt, report.tsv, where-else-*.md)
#   --quiet  print only the one-line result
#   --only   comma-separated globs of header paths to compile (default: all)
#
# Each header is compiled stand-alone (#include <X.h>) with -m32, -m64 and
# -mx32 into OUT/cache/obj/ABI/: does it compile, the files it read (-MD)
# and how it opened them (-H). Its layouts come from one object per group
# of headers that read their files alike (abiscan/groups.py), with
# pahole's layout dump beside each object. A compile is redone only when
# its key changes: compiler and pahole versions, flags, and the content of
# the header and of every file it included. scan.py does the planning and
# the analysis. Every gcc batch and Python stage runs under the lab's
# supervisor (scripts/lib/supervise.sh), its time limit LIMIT_SCAN_STAGE
# cut to the lab command's deadline.
# shellcheck source=../lib/core.sh
. "$(dirname "$0")/../lib/core.sh"
lab_setup

HERE=$SCRIPTS/abi-scan
CFLAGS_CHECK="-S -H -MD"

# Compile jobs, 5 words each: ABI FLAG HEADER OBJBASE PRELUDE (comma-separated
# headers to include first, or -). Each job is a tiny OBJBASE.c; consecutive
# jobs of one ABI go to one gcc (a quarter less CPU than one gcc each; gcc
# goes on after a file that fails). Writes OBJBASE.{s,d,err,tree,status};
# .status last, so a job that was killed is redone next time.
compile_jobs() {
	local flag bflag="" base pre p src i
	local -a batch=() old=()
	# one rm for all the jobs' old outputs: a fork per file is most of the
	# system time of a cold scan
	for ((i = 4; i <= $#; i += 5)); do
		old+=("${!i}".{s,d,err,tree,status})
	done
	rm -f "${old[@]}"
	while [ $# -ge 5 ]; do
		flag=$2 base=$4 pre=$5 src=""
		if [ "$pre" != - ]; then
			for p in ${pre//,/ }; do src+="#include <$p>"$'\n'; done
		fi
		src+="#include <$3>"$'\n'
		printf '%s' "$src" >"$base.c"
		if [ ${#batch[@]} -gt 0 ] && [ "$flag" != "$bflag" ]; then
			compile_batch "$bflag" "${batch[@]}"
			batch=()
		fi
		bflag=$flag
		batch+=("$base")
		shift 5
	done
	[ ${#batch[@]} -eq 0 ] || compile_batch "$bflag" "${batch[@]}"
}

# compile_batch FLAG OBJBASE...: all in one directory (one per ABI)
compile_batch() {
	local flag=$1 dir b st
	shift
	dir=$(dirname "$1")
	local -a srcs=("${@/%/.c}")
	# shellcheck disable=SC2086 # CFLAGS_CHECK is a list of flags
	# (bounded by the limit of the whole xargs, run_jobs)
	(cd "$dir" && LC_ALL=C gcc "$flag" $CFLAGS_CHECK -I "$UAPI" "${srcs[@]##*/}") \
		2>"$1.batch-err" || true
	# -H's lines (". FILE", a dot per level; a unit's first is its header,
	# then gcc's list of files without a guard) go to the unit's .tree.
	# gcc's messages name the file they come from ("... from X.c:1:"):
	# give each file its own .err (an include chain's first line waits for it)
	awk -v dir="$dir" -v uapi="$UAPI/" '
		/^\.+ / {
			if ($1 == ".") {
				if (tree != "") close(tree)
				t = substr($0, 3 + length(uapi))
				gsub("/", "__", t)
				tree = dir "/" t ".tree"
			}
			print > tree
			listing = 0
			next
		}
		/^Multiple include guards may be useful for:$/ { print > tree; listing = 1; next }
		listing && /^\/[^:]*$/ { print > tree; next }
		{ listing = 0 }
		{
			hit = ""
			for (i = 1; i <= NF; i++)
				if ($i ~ /^[^\/]+\.c:[0-9]+[:,]/) { hit = $i; sub(/\.c:.*/, "", hit) }
		}
		/^In file included from / && hit == "" { pend = pend $0 "\n"; next }
		hit != "" { cur = hit }
		cur != "" { printf "%s%s\n", pend, $0 > (dir "/" cur ".err"); pend = "" }' "$1.batch-err"
	rm -f "$1.batch-err"
	for b in "$@"; do
		st=fail
		[ ! -f "$b.s" ] || st=ok
		echo "$st" >"$b.status"
		echo "$b $st" >>"$PROGRESS"
	done
}

# Run a jobs file with one gcc per core; a line every 3 s while it runs.
run_jobs() {
	local jobs=$1 what=$2 total mon
	total=$(wc -l <"$jobs")
	[ "$total" -gt 0 ] || return 0
	: >"$PROGRESS"
	if [ "$QUIET" = 0 ]; then
		# shellcheck disable=SC2016 # the inner bash expands them
		start_child bash -c 'while sleep 3; do printf "  %s %d/%d\n" "$1" "$(wc -l <"$2")" "$3"; done' \
			progress "$what" "$PROGRESS" "$total"
		mon=$CHILD_PID
	fi
	export -f compile_jobs compile_batch
	export UAPI PROGRESS CFLAGS_CHECK
	# 40 jobs per bash and gcc; the whole run bounded
	run_child "$LIMIT_SCAN_STAGE" xargs -P "$JOBS" -n 200 bash -c 'compile_jobs "$@"' _ <"$jobs" ||
		die "compiling failed or timed out (see $OUT/cache/obj/*/*.err)"
	[ -z "${mon:-}" ] || stop_child "$mon"
	[ "$QUIET" = 1 ] || printf '  %s %d/%d\n' "$what" "$(wc -l <"$PROGRESS")" "$total"
}

# -m32 and -mx32 need the multilib libc headers (gnu/stubs-32.h,
# stubs-x32.h); checked only when there is something to compile
check_multilib() {
	local f
	for f in -m32 -mx32 -m64; do
		echo '#include <linux/types.h>' | run_child "$LIMIT_SHORT" gcc "$f" -I "$UAPI" -x c -c - -o /dev/null 2>/dev/null ||
			die "gcc $f cannot compile '#include <linux/types.h>': install gcc-multilib (it brings libc6-dev-i386 and libc6-dev-x32)"
	done
}

need() { # need TOOL DEBIAN-PACKAGE
	command -v "$1" >/dev/null 2>&1 ||
		die "'$1' not found: install the Debian package $2 (apt-get install $2)"
}

usage="abi-scan.sh --uapi DIR --ksrc DIR --out DIR [--quiet] [--only GLOBS]"
parse_args "$usage" --uapi= --ksrc= --out= --only= --quiet -- "$@"
UAPI=${OPT[uapi]} KSRC=${OPT[ksrc]} OUT=${OPT[out]} QUIET=${OPT[quiet]} ONLY=${OPT[only]}
if [ -z "$UAPI" ] || [ -z "$KSRC" ] || [ -z "$OUT" ] || [ ${#ARGS[@]} -gt 0 ]; then usage_error "$usage"; fi
[ -d "$UAPI" ] || die "--uapi $UAPI: no such directory (the lab installs it with make: $(out_file "$(step_out "$(pristine_step)")" uapi))"
[ -f "$UAPI/linux/types.h" ] || die "--uapi $UAPI has no linux/types.h: not a headers_install output"
[ -d "$KSRC" ] || die "--ksrc $KSRC: no such directory (the lab's kernel tree is build/linux)"
[ -f "$KSRC/Makefile" ] || die "--ksrc $KSRC has no Makefile: not a kernel tree"

need gcc gcc
need pahole dwarves
need "$LAB_PYTHON" python3
need xargs findutils
if [ -d "$KSRC/.git" ]; then need git git; fi

mkdir -p "$OUT/cache"
UAPI=$(cd "$UAPI" && pwd)
OUT=$(cd "$OUT" && pwd)
KSRC=$(cd "$KSRC" && pwd)
PROGRESS=$OUT/cache/progress
TOOLKEY="$(gcc --version | head -1) $(gcc -dumpmachine) pahole $(pahole --version)"
start=$SECONDS
# the cache key names the whole recipe of compile_jobs, not just gcc's flags
args=(--uapi "$UAPI" --out "$OUT" --toolkey "$TOOLKEY" --cflags "$CFLAGS_CHECK X.c")
[ -z "$ONLY" ] || args+=(--only "$ONLY")
q=()
[ "$QUIET" = 0 ] || q=(--quiet)

note() { [ "$QUIET" = 1 ] || printf '%s\n' "$*"; }
note "abi-scan: headers $UAPI, kernel tree $KSRC, output $OUT"
plan=$(run_child "$LIMIT_SCAN_STAGE" "$LAB_PYTHON" "$HERE/scan.py" plan "${args[@]}" </dev/null) || die "planning the scan failed"
note "$plan"
[ ! -s "$OUT/cache/jobs.txt" ] || check_multilib
run_jobs "$OUT/cache/jobs.txt" compiled
probe=$(run_child "$LIMIT_SCAN_STAGE" "$LAB_PYTHON" "$HERE/scan.py" probe objects "${args[@]}" </dev/null) ||
	die "reading the layouts failed"
[ -z "$probe" ] || note "$probe"
note "analysing..."
run_child "$LIMIT_SCAN_STAGE" "$LAB_PYTHON" "$HERE/scan.py" analyze "${args[@]}" --ksrc "$KSRC" "${q[@]}" </dev/null ||
	die "the analysis failed"
note "abi-scan: done in $((SECONDS - start)) s"
