#!/usr/bin/env bash
# The lab's documentation site: docs/pages and mkdocs.yml, built with
# Debian's mkdocs and mkdocs-material, offline (no web fonts, no CDN).
#   docs.sh build   generate the diagrams and include files, then
#                   mkdocs build --strict into build/site
#   docs.sh serve   the same, then mkdocs serve on 127.0.0.1:8000
#                   (LAB_DOCS_ADDR=host:port to change it)
# The pages include the lab's real files with pymdownx.snippets: the
# kernel patches, and the transcripts, gdb logs and matrix of the last
# `make`. This script only reads them: it boots nothing and scans
# nothing. What `make` makes must be there (else: run make first); what
# other commands record (the gdb sessions: make test, make gdb; the
# scan: make abi-scan) shows as a note naming the command where it is
# missing, and the site is built all the same, with the list printed at
# the end. Everything generated goes to build/docs-gen/ (never to
# docs/), by the generators in docs/generators:
#   mkdocs.yml        the config: the repository's plus the nav (site.py)
#   steps-table.md, timeline.md, sources-table.md, history-SLUG.md
#                     from steps/*/step.conf and docs/sources.yml (site.py)
#   layout.svg        struct autofs_v5_packet in i386, x86_64 and x32, from
#                     gdb's ptype /o of a step's vmlinux, i386 and x32 daemons
#   pipe.svg          stream pipe vs packet pipe, from the RESULT lines of
#                     a stream-pipe step and a packet-pipe step
#   gdb-SLUG.md,      the gdb session logs of `make gdb`/`make kgdb`
#   kgdb-SLUG.md      (or of make test's batch sessions)
#   commands-SLUG.md  the QEMU and gdb command lines of the step's last
#                     runs (build/steps/SLUG/*.cmdline)
#   where-else-*.md   make abi-scan's tables (build/abi-scan/)
#   bench.md          the timings of the last make, and build/bench.txt
#   root/build        a link to the build dir: the pages say build/...
#                     and this keeps that true for any BUILD_DIR=
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
lib=$LAB_ROOT/scripts
generators=$LAB_ROOT/docs/generators
gen=$BUILD_DIR/docs-gen
site=$BUILD_DIR/site

mode=${1:-}
case $mode in
build | serve) ;;
*) die "usage: docs.sh build|serve" ;;
esac

# Reading the lab's output only needs the lock shared with other readers.
lab_lock shared
"$lib/deps.sh"
command -v gdb >/dev/null || die "gdb is missing; the layout diagram needs it (run make first)"
rel() { echo "${1#"$LAB_ROOT"/}"; }
# a file of the build directory as the pages name it: build/...
in_build() { echo "build/${1#"$BUILD_DIR"/}"; }

# 1. The lab must have run: every step's transcript, the debug info the
# layout diagram is drawn from.
need() {
	[ -s "$1" ] || die "the lab has not run yet: $(rel "$1") is missing (run make first)"
}
mapfile -t steps < <(step_slugs)
[ ${#steps[@]} -gt 0 ] || die "no steps/NN-*/ directories in $LAB_ROOT"
stream=() packet=()
for s in "${steps[@]}"; do
	need "$(step_out "$s")/transcript.txt"
	case $(step_conf "$s" pipe) in
	stream) stream+=("$s") ;;
	packet) packet+=("$s") ;;
	esac
done
if [ ${#stream[@]} -eq 0 ] || [ ${#packet[@]} -eq 0 ]; then
	die "the pipe diagram needs a step with 'pipe: stream' and one with 'pipe: packet' in its step.conf"
fi
# the layout is drawn from the first step that runs autofs-layout
layout=
for s in "${steps[@]}"; do
	grep -q '^autofs-layout ' "$(step_out "$s")/programs" 2>/dev/null && { layout=$s; break; }
done
[ -n "$layout" ] || die "no step runs autofs-layout (steps/*/runs): nothing to draw the layout from"
need "$(step_out "$layout")/vmlinux"
need "$(step_out "$layout")/guest/i386/systemd-style"
need "$(step_out "$layout")/guest/x32/systemd-style"

# The matrix page is build/matrix.md: made again from the steps' results
# (and expectations) every time, so it shows the last runs, whichever
# target made them.
"$lib/verdicts.sh" matrix >/dev/null || true

# 2. Generated inputs.
say "docs: generating the nav, tables, diagrams and includes in $(rel "$gen")"
mkdir -p "$gen/root"
ln -sfn "$BUILD_DIR" "$gen/root/build"
# (the generators import the step model and results.py from scripts/)
PYTHONPATH=$lib python3 "$generators/site.py" "$gen" "$site" | sed 's/^/    /'
python3 "$generators/layout-svg.py" "$(step_out "$layout")/vmlinux" \
	"$(step_out "$layout")/guest/i386/systemd-style" \
	"$(step_out "$layout")/guest/x32/systemd-style" "$gen/layout.svg" \
	"$(step_out "$layout")/transcript.txt" | sed 's/^/    /'
numbers() { local s out=(); for s in "$@"; do out+=("$(step_number "$s")"); done; local IFS=,; echo "${out[*]}"; }
PYTHONPATH=$lib python3 "$generators/pipe-svg.py" "step $(step_number "${stream[0]}")" \
	"$(step_out "${stream[0]}")/transcript.txt" "step $(step_number "${packet[0]}")" \
	"$(step_out "${packet[0]}")/transcript.txt" \
	"steps $(numbers "${stream[@]}" | sed 's/,/, /g')" "$gen/pipe.svg" | sed 's/^/    /'

# What other commands than make record: an include of the lab's file
# where it exists, else a note that names the command that makes it.
# (The single quotes hold Markdown, whose `code spans` are not command
# substitutions.)
missing=()
# shellcheck disable=SC2016
not_yet() { # include-name file command [more Markdown]
	missing+=("$(in_build "$2"): $3")
	printf '!!! note "Not recorded on this machine yet"\n' >"$gen/$1.md"
	printf '    This part shows `%s`, which this build directory does not have (whole) yet. `%s` makes it%s;\n' \
		"$(in_build "$2")" "$3" "${4:-}" >>"$gen/$1.md"
	printf '    then run `make docs` again.\n' >>"$gen/$1.md"
}

# What shows a note, one line per command that would make it.
not_yet_summary() {
	[ ${#missing[@]} -gt 0 ] || return 0
	say "some parts show a note instead: this build directory does not have them yet. The commands that make them:"
	printf '%s\n' "${missing[@]}" | awk -F': ' '!seen[$2]++ { printf "    %s   (%s)\n", $2, $1 }'
	info "make test records all of them at once; then make docs again"
}

# A step page shows its real gdb sessions, as `make test` (in batch
# mode) or `make gdb`/`make kgdb` recorded them.
# shellcheck disable=SC2016
log_include() { # transport slug make-target
	local t=$1 s=$2 target=$3 log name n
	n=$(step_number "$s")
	log=$(step_out "$s")/gdb-$t.log
	name=$( [ "$t" = gdbstub ] && echo gdb || echo kgdb)-$s
	if ! grep -qs '^LAB-GDB-DONE' "$log"; then
		not_yet "$name" "$log" "scripts/gdb.sh $t $n --batch" \
			" (so does \`make $target STEP=$n\` with a \`quit\` at its prompt, and \`make test\` for every step)"
		return
	fi
	{
		printf 'Recorded by `make %s STEP=%s`, file `build/steps/%s/gdb-%s.log`' "$target" "$n" "$s" "$t"
		printf ' (the script'"'"'s commands are the lines starting with `+`):\n\n'
		printf '```text\n--8<-- "build/steps/%s/gdb-%s.log"\n```\n' "$s" "$t"
	} >"$gen/$name.md"
}
# The commands the step's last runs ran, as V=1 prints them: its plain
# boot, and its boot under the gdbstub with the gdb that drove it (for
# the first step: the debugging page shows them).
# shellcheck disable=SC2016
commands_include() { # slug
	local s=$1 n out f
	n=$(step_number "$s") out=$(step_out "$s")
	for f in qemu-demo qemu-gdbstub gdb-gdbstub; do
		[ -s "$out/$f.cmdline" ] && continue
		case $f in
		qemu-demo) not_yet "commands-$s" "$out/$f.cmdline" "make run STEP=$n" ;;
		*) not_yet "commands-$s" "$out/$f.cmdline" "scripts/gdb.sh gdbstub $n --batch" \
			" (so does \`make gdb STEP=$n\`, and \`make test\` for every step)" ;;
		esac
		return
	done
	{
		printf 'The boot of the last `make run STEP=%s` (or `make`), `build/steps/%s/qemu-demo.cmdline`:\n\n' "$n" "$s"
		printf '```sh\n--8<-- "build/steps/%s/qemu-demo.cmdline"\n```\n\n' "$s"
		printf 'The last gdbstub session (`make gdb STEP=%s`, or `make test`'"'"'s, which adds `-batch` and `-ex lab-release`):' "$n"
		printf ' first QEMU, waiting at reset for the debugger, `build/steps/%s/qemu-gdbstub.cmdline`:\n\n' "$s"
		printf '```sh\n--8<-- "build/steps/%s/qemu-gdbstub.cmdline"\n```\n\n' "$s"
		printf 'then gdb, `build/steps/%s/gdb-gdbstub.cmdline`:\n\n' "$s"
		printf '```sh\n--8<-- "build/steps/%s/gdb-gdbstub.cmdline"\n```\n' "$s"
	} >"$gen/commands-$s.md"
}
for s in "${steps[@]}"; do
	step_has_gdb "$s" || continue
	log_include gdbstub "$s" gdb
	log_include kgdb "$s" kgdb
done
commands_include "$(first_step)"

# The "Where else?" page: the tables of make abi-scan (one command for
# the four).
for t in counts failed table nothing; do
	f=$BUILD_DIR/abi-scan/where-else-$t.md
	if [ -s "$f" ]; then
		printf -- '--8<-- "%s"\n' "$(in_build "$f")" >"$gen/where-else-$t.md"
	else
		not_yet "where-else-$t" "$f" "make abi-scan"
	fi
done

# The time limits, from their one table (scripts/limits.sh).
# shellcheck disable=SC2016
{
	printf 'From `scripts/limits.sh`, the one table of the lab'"'"'s time limits; each ends before the one after it.\n\n'
	printf '| limit | seconds | what it bounds |\n|---|---|---|\n'
	printf '| `LIMIT_READ_MS` | %s | a daemon'"'"'s wait for one packet or one child (milliseconds): what tells a stall from a slow guest |\n' "$(awk "BEGIN { print $LIMIT_READ_MS / 1000 }")"
	printf '| `LIMIT_WATCHDOG` | %s | a daemon'"'"'s whole run, then 2 s for its cleanup |\n' "$LIMIT_WATCHDOG"
	printf '| `LIMIT_PROGRAM` | %s | init'"'"'s limit per program (a SIGKILL follows 2 s later) |\n' "$LIMIT_PROGRAM"
	printf '| boot | %s + programs × %s | a boot: `LIMIT_BOOT_BASE` plus each program'"'"'s limit and kill |\n' "$LIMIT_BOOT_BASE" "$((LIMIT_PROGRAM + 2))"
	printf '| batch gdb session | boot + %s | `make test`'"'"'s debugger sessions (`LIMIT_GDB_EXTRA`) |\n' "$LIMIT_GDB_EXTRA"
	printf '| `LIMIT_INTERACTIVE` | %s | `make gdb`, `make kgdb`, `make shell` |\n' "$LIMIT_INTERACTIVE"
	printf '| `LIMIT_KERNEL_BUILD` | %s | one kernel make |\n' "$LIMIT_KERNEL_BUILD"
	printf '| `LIMIT_RUN` | %s | a whole lab command (`make`, `make test`) |\n' "$LIMIT_RUN"
} >"$gen/limits.md"

# The workshop agenda's timings: what the last make measured, for every
# step (its kernel build, ccache hits and all, and its boot), and the
# cold-build figures of make bench when it has run. (Markdown in single
# quotes again.)
# shellcheck disable=SC2016
{
	printf 'Measured by the last `make` on this machine: each step'"'"'s kernel build'
	printf ' (`build/steps/SLUG/kernel-build-seconds`; the first build of a fresh machine is'
	printf ' cold, later ones reuse ccache and the shared build directory) and its boot to'
	printf ' verdict (`build/steps/SLUG/boot-seconds`), under the accelerator the lab chose'
	printf ' (`build/steps/SLUG/boot-accel`: tcg is software emulation).\n\n'
	printf '| step | kernel build, s | boot to verdict, s | accelerator |\n|---|---|---|---|\n'
	for s in "${steps[@]}"; do
		printf '| %s | %s | %s | %s |\n' "$s" \
			"$(cat "$(step_out "$s")/kernel-build-seconds" 2>/dev/null || echo 'not measured')" \
			"$(cat "$(step_out "$s")/boot-seconds")" \
			"$(cat "$(step_out "$s")/boot-accel" 2>/dev/null || echo tcg)"
	done
	if [ -s "$BUILD_DIR/bench.txt" ]; then
		printf '\nMeasured by `make bench` (`build/bench.txt`), with a cold kernel build:\n\n'
		printf '```text\n--8<-- "build/bench.txt"\n```\n'
	else
		printf '\n`make bench` adds a cold kernel build (ccache off) and `make test`.\n'
	fi
} >"$gen/bench.md"

# 3. mkdocs, with the generated config. The snippets base path puts
# $gen/root first, so build/... in a page is this BUILD_DIR; everything
# else is relative to the repository.
cd "$LAB_ROOT"
export LAB_DOCS_ROOT=$gen/root
# Jinja's lexer warns about its own regexes on Python 3.11: noise only
export PYTHONWARNINGS=ignore::DeprecationWarning
case $mode in
build)
	mkdocs build --strict --quiet --config-file "$gen/mkdocs.yml"
	say "site built: $(rel "$site")/index.html (open it in a browser, no server needed)"
	not_yet_summary
	;;
serve)
	addr=${LAB_DOCS_ADDR:-127.0.0.1:8000}
	not_yet_summary
	say "serving on http://$addr/ (Ctrl-C stops it); rerun to redraw the diagrams"
	exec 9>&- # a server runs for long: it does not keep the build locked
	exec mkdocs serve --strict --config-file "$gen/mkdocs.yml" --dev-addr "$addr" \
		--watch kernel-patches --watch steps
	;;
esac
