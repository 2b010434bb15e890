#!/usr/bin/env bash
# The lab's documentation site: docs/ and mkdocs.yml, built with Debian's
# mkdocs and mkdocs-material, offline (no web fonts, no CDN).
#   docs.sh build   generate the diagrams and include files, then
#                   mkdocs build --strict into build/site
#   docs.sh serve   the same, then mkdocs serve on 127.0.0.1:8000
#                   (LAB_DOCS_ADDR=host:port to change it)
# The pages include the lab's real files with pymdownx.snippets: the
# kernel patches, and the transcripts, gdb logs and matrix of the last
# `make`. So the lab must have run first. Everything generated goes to
# build/docs-gen/ (never to docs/):
#   layout.svg        struct autofs_v5_packet in both ABIs, drawn from
#                     gdb's ptype /o of step 1's vmlinux and i386 daemon
#   pipe.svg          stream pipe vs packet pipe, with the numbers the
#                     guests printed in the first and last step
#   gdb-step-N.md,    the gdb session logs of `make gdb`/`make kgdb`,
#   kgdb-step-N.md    or a note that there is none yet
#   bench.md          build/bench.txt, or a note that it is missing
#   root/build        a link to the build dir: the pages say build/...
#                     and this keeps that true for any BUILD_DIR=
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
lib=$LAB_ROOT/steps/lib
gen=$BUILD_DIR/docs-gen
site=$BUILD_DIR/site

mode=${1:-}
case $mode in
build | serve) ;;
*) die "usage: docs.sh build|serve" ;;
esac

"$lib/deps.sh" docs
command -v gdb >/dev/null || die "gdb is missing; the layout diagram needs it (run make first)"
rel() { echo "${1#"$LAB_ROOT"/}"; }

# 1. The lab must have run: every step's transcript, the debug info the
# layout diagram is drawn from.
need() {
	[ -s "$1" ] || die "the lab has not run yet: $(rel "$1") is missing (run make first)"
}
mapfile -t steps < <(step_numbers)
[ ${#steps[@]} -gt 0 ] || die "no steps/NN-*/ directories in $LAB_ROOT"
first=${steps[0]}
last=${steps[${#steps[@]} - 1]}
for n in "${steps[@]}"; do
	need "$(step_out "$n")/transcript.txt"
	need "$(step_out "$n")/results.txt"
done
need "$(step_out "$first")/vmlinux"
need "$(step_out "$first")/guest/i386/systemd-style"

# The matrix page is build/matrix.md: made again from the steps' results
# (and expectations) every time, so it shows the last runs, whichever
# target made them.
"$lib/verdicts.sh" matrix >/dev/null || true

# 2. Generated inputs.
say "docs: generating diagrams and includes in $(rel "$gen")"
mkdir -p "$gen/root"
ln -sfn "$BUILD_DIR" "$gen/root/build"
python3 "$lib/layout-svg.py" "$(step_out "$first")/vmlinux" \
	"$(step_out "$first")/guest/i386/systemd-style" "$gen/layout.svg" \
	"$(step_out "$first")/transcript.txt" | sed 's/^/    /'
python3 "$lib/pipe-svg.py" "$(step_out "$first")/transcript.txt" \
	"$(step_out "$last")/transcript.txt" "$gen/pipe.svg" | sed 's/^/    /'

# A step page shows its real gdb sessions. Those `make test` or
# `make gdb`/`make kgdb` have not recorded yet are recorded here, in
# batch mode, so the site never shows a session that did not happen.
# The single quotes below hold Markdown, whose `code spans` are not
# command substitutions.
# shellcheck disable=SC2016
log_include() { # transport step-number make-target
	local t=$1 n=$2 target=$3 log out
	log=$(step_out "$n")/gdb-$t.log
	out=$gen/$( [ "$t" = gdbstub ] && echo gdb || echo kgdb)-step-$n.md
	if [ ! -s "$log" ] || ! grep -q '^LAB-GDB-DONE' "$log"; then
		info "recording the $t session of step $n (gdb.sh $t $n --batch)"
		"$lib/gdb.sh" "$t" "$n" --batch >/dev/null ||
			die "the $t session of step $n failed; see $(rel "$log")"
	fi
	{
		printf 'Recorded by `make %s STEP=%s`, file `build/steps/%s/gdb-%s.log`' "$target" "$n" "$n" "$t"
		printf ' (the script'"'"'s commands are the lines starting with `+`):\n\n'
		printf '```text\n--8<-- "build/steps/%s/gdb-%s.log"\n```\n' "$n" "$t"
	} >"$out"
}
for n in "${steps[@]}"; do
	step_has_gdb "$n" || continue
	log_include gdbstub "$n" gdb
	log_include kgdb "$n" kgdb
done

# The workshop agenda quotes make bench. (Markdown in single quotes again.)
# shellcheck disable=SC2016
if [ -s "$BUILD_DIR/bench.txt" ]; then
	printf 'Measured by `make bench` on this machine (`build/bench.txt`):\n\n```text\n--8<-- "build/bench.txt"\n```\n' \
		>"$gen/bench.md"
else
	{
		printf '!!! warning "TODO: no build/bench.txt yet"\n'
		printf '    Run `make bench` (a cold kernel build: many minutes) and rebuild this site;'
		printf ' the build times of the agenda come from there.\n'
		printf '    Boot to verdict, measured by the last `make` (`build/steps/N/boot-seconds`):\n\n'
		printf '    | step | seconds, TCG |\n    |---|---|\n'
		for n in "${steps[@]}"; do
			printf '    | %s | %s |\n' "$n" "$(cat "$(step_out "$n")/boot-seconds" 2>/dev/null || echo '?')"
		done
	} >"$gen/bench.md"
fi

# 3. mkdocs. The snippets base path puts $gen/root first, so build/...
# in a page is this BUILD_DIR; everything else is relative to the repo.
cd "$LAB_ROOT"
export LAB_DOCS_ROOT=$gen/root
# Jinja's lexer warns about its own regexes on Python 3.11: noise only
export PYTHONWARNINGS=ignore::DeprecationWarning
case $mode in
build)
	mkdocs build --strict --quiet --config-file mkdocs.yml --site-dir "$site"
	say "site built: $(rel "$site")/index.html (open it in a browser, no server needed)"
	;;
serve)
	addr=${LAB_DOCS_ADDR:-127.0.0.1:8000}
	say "serving on http://$addr/ (Ctrl-C stops it); rerun to redraw the diagrams"
	exec mkdocs serve --strict --config-file mkdocs.yml --dev-addr "$addr" \
		--watch kernel-patches --watch steps
	;;
esac
