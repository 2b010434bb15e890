#!/usr/bin/env bash
# The lab's documentation site: docs/pages and mkdocs.yml, built with
# Debian's mkdocs and mkdocs-material, offline (no web fonts, no CDN).
#   docs.sh           generate the diagrams and include files, then
#                     mkdocs build --strict into build/site
#   docs.sh --serve   the same, then mkdocs serve on 127.0.0.1:8000
#                     (LAB_DOCS_ADDR=host:port to change it)
# A transcript older than the kernel, initramfs, limits or QEMU it
# describes is refused (the matrix would show another lab than this one).
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
#   layout-SLUG.svg   the same for union bpf_attr's link_create.tracing, from
#                     the step that runs bpf-cookie (step 6)
#   pipe.svg          stream pipe vs packet pipe, from the RESULT lines of
#                     a stream-pipe step and a packet-pipe step
#   gdb-SLUG.md, kgdb-SLUG.md, commands-SLUG.md, where-else-*.md,
#   limits.md, bench.md
#                     what other commands recorded (gdb sessions, QEMU
#                     and gdb lines, the scan), the limits, the timings,
#                     and not-yet.txt: what shows a note (includes.py)
#   root/build        a link to the build dir: the pages say build/...
#                     and this keeps that true for any BUILD_DIR=
# shellcheck source=../lib/core.sh
. "$(dirname "$0")/../lib/core.sh"
lab_setup
generators=$LAB_ROOT/docs/generators
gen=$BUILD_DIR/docs-gen
site=$BUILD_DIR/site

parse_args "docs.sh [--serve]" --serve -- "$@"
[ ${#ARGS[@]} -eq 0 ] || usage_error "docs.sh [--serve]"
# shellcheck source=../lib/inputs.sh
. "$SCRIPTS/lib/inputs.sh"

# Reading the lab's output only needs the lock shared with other readers.
lab_lock shared
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
	need "$(run_file "$(step_out "$s")" transcript)"
	case $(step_pipe "$s") in
	stream) stream+=("$s") ;;
	packet) packet+=("$s") ;;
	esac
done
if [ ${#stream[@]} -eq 0 ] || [ ${#packet[@]} -eq 0 ]; then
	die "the pipe diagram needs a step with 'pipe: stream' and one with 'pipe: packet' in its step.conf"
fi
# The matrix page is build/matrix.md, made again from the steps' results
# (and expectations) every time. It must describe the kernels that are
# here now: a transcript from another kernel, initramfs, limits or QEMU
# than this build's (lib/inputs.sh) is refused, with what changed.
stale=()
for s in "${steps[@]}"; do
	why=$(transcript_current "$(step_out "$s")") || stale+=("step $(step_number "$s") ($s): its transcript was $why")
done
[ ${#stale[@]} -eq 0 ] || die "the outcome matrix would be older than the kernels it describes:
$(printf '  %s\n' "${stale[@]}")
Boot them again first: make (every step), or make run STEP=N."
# (status 1: cells that differ from history, which the page marks)
rc=0
"$SCRIPTS/verdict/verdicts.sh" matrix >/dev/null || rc=$?
[ "$rc" -le 1 ] || die "the outcome matrix could not be made (verdicts.sh matrix: exit $rc)"

# the layout is drawn from the first step that runs autofs-layout
layout=
for s in "${steps[@]}"; do
	grep -q '^autofs-layout ' "$(out_file "$(step_out "$s")" programs)" 2>/dev/null && { layout=$s; break; }
done
[ -n "$layout" ] || die "no step runs autofs-layout (steps/*/runs): nothing to draw the layout from"
lvml=$(out_file "$(step_out "$layout")" vmlinux) lguest=$(out_file "$(step_out "$layout")" guest)
for f in "$lvml" "$lguest/i386/systemd-style" "$lguest/x32/systemd-style"; do need "$f"; done

# 2. Generated inputs.
say "docs: generating the nav, tables, diagrams and includes in $(rel "$gen")"
mkdir -p "$gen/root"
ln -sfn "$BUILD_DIR" "$gen/root/build"
# (the generators import labhost, on PYTHONPATH since lab_setup)
run_child "$LIMIT_SHORT" "$LAB_PYTHON" "$generators/site.py" "$gen" "$site" | sed 's/^/    /'
run_child "$LIMIT_SHORT" "$LAB_PYTHON" "$generators/layout-svg.py" "$lvml" \
	"$lguest/i386/systemd-style" "$lguest/x32/systemd-style" "$gen/layout.svg" \
	"$(run_file "$(step_out "$layout")" transcript)" | sed 's/^/    /'
# today's break, link_create.tracing of union bpf_attr, from the step that
# runs bpf-cookie: its vmlinux and its i386 and x32 bpf-cookie (its page
# includes layout-SLUG.svg); no such step, no such page to draw for
cookie=
for s in "${steps[@]}"; do
	grep -q '^bpf-cookie ' <<<"$(step_programs "$s")" && { cookie=$s; break; }
done
if [ -n "$cookie" ]; then
	cvml=$(out_file "$(step_out "$cookie")" vmlinux) cguest=$(out_file "$(step_out "$cookie")" guest)
	for f in "$cvml" "$cguest/i386/bpf-cookie" "$cguest/x32/bpf-cookie"; do need "$f"; done
	sub="gdb ptype /o of the kernel and of the i386 and x32 programs, all built from the same <linux/bpf.h>"
	run_child "$LIMIT_SHORT" "$LAB_PYTHON" "$generators/layout-svg.py" \
		--ptype '((union bpf_attr *) 0)->link_create.tracing' --within 'union bpf_attr' \
		--program program --highlight cookie --subtitle "$sub" "$cvml" \
		"$cguest/i386/bpf-cookie" "$cguest/x32/bpf-cookie" \
		"$gen/layout-$cookie.svg" | sed 's/^/    /'
fi
numbers() { local s out=(); for s in "$@"; do out+=("$(step_number "$s")"); done; local IFS=,; echo "${out[*]}"; }
run_child "$LIMIT_SHORT" "$LAB_PYTHON" "$generators/pipe-svg.py" "step $(step_number "${stream[0]}")" \
	"$(run_file "$(step_out "${stream[0]}")" transcript)" "step $(step_number "${packet[0]}")" \
	"$(run_file "$(step_out "${packet[0]}")" transcript)" \
	"steps $(numbers "${stream[@]}" | sed 's/,/, /g')" "$gen/pipe.svg" | sed 's/^/    /'

# What other commands than make record (the gdb sessions, the QEMU and
# gdb lines, the scan's tables), the limits and the timings: includes of
# the lab's files, or a note naming the command that makes one.
inc_args=()
for s in "${steps[@]}"; do
	inc_args+=(--step "$s=$(step_number "$s")")
	! step_has_gdb "$s" || inc_args+=(--gdb "$s")
done
for l in $(limit_names); do
	inc_args+=(--limit "$l=${!l}")
done
inc_args+=(--limit "BOOT_PER_PROGRAM=$(($(boot_limit 1) - $(boot_limit 0)))")
run_child "$LIMIT_SHORT" "$LAB_PYTHON" "$generators/includes.py" "$gen" "$BUILD_DIR" "$(first_step)" "${inc_args[@]}"

# 3. mkdocs, with the generated config. The snippets base path puts
# $gen/root first, so build/... in a page is this BUILD_DIR; everything
# else is relative to the repository.
cd "$LAB_ROOT"
export LAB_DOCS_ROOT=$gen/root
# Jinja's lexer warns about its own regexes on Python 3.11: noise only
export PYTHONWARNINGS=ignore::DeprecationWarning
if [ "${OPT[serve]}" = 0 ]; then
	run_child "$LIMIT_SHORT" mkdocs build --strict --quiet --config-file "$gen/mkdocs.yml" </dev/null ||
		die "mkdocs build failed (its messages are above)"
	say "site built: $(rel "$site")/index.html (open it in a browser, no server needed)"
	cat "$gen/not-yet.txt"
else
	addr=${LAB_DOCS_ADDR:-127.0.0.1:8000}
	cat "$gen/not-yet.txt"
	say "serving on http://$addr/ (Ctrl-C stops it); rerun to redraw the diagrams"
	exec 9>&- # a server runs for long: it does not keep the build locked
	run_foreground "$LIMIT_INTERACTIVE" mkdocs serve --strict --config-file "$gen/mkdocs.yml" \
		--dev-addr "$addr" --watch kernel-patches --watch steps
fi
