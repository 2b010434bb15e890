#!/usr/bin/env bash
# make try: your own fix of 2012, judged by the same matrix as history's.
#   try.sh --patch FILE|DIR [--on STEP] [--goal STEP]
#   try.sh --ref BRANCH [--on STEP] [--goal STEP]
# --patch: one patch, or a directory of them (git format-patch mails, or
#   plain diffs), applied to a throw-away branch, lab-try, made afresh
#   from the branch of step --on (default: the first step);
# --ref: a branch of your own in build/linux (its commits, as they are).
# A step with a goal of its own (step.conf: goal, as step 6 has) is
# judged against it, with its own runs and kernel config.
# The kernel is built in the lab's shared build dir (so only what the
# patch touches is compiled again), the goal's guests against its
# headers, and the goal step's runs booted; then every run is shown
# side by side with the base step's measurement and the goal's
# prediction (--goal, default: the step whose kernel is the pristine
# source again, where every daemon works), and one verdict line: every
# run as the goal, or which differ and why. Each way a patch can fail
# ends in one error that says where to look. The branches, kernels and
# transcripts of the steps are left as they were; build/linux is put
# back on the branch it had. Files: build/try/.
# shellcheck source=../lib/core.sh
. "$(dirname "$0")/../lib/core.sh"
lab_setup
# shellcheck source=../lib/inputs.sh
. "$SCRIPTS/lib/inputs.sh"
lab_lock exclusive

usage="make try PATCH=FILE|DIR [ON=STEP] [GOAL=STEP], or REF=BRANCH (try.sh --patch P | --ref B [--on S] [--goal S])"
parse_args "$usage" --patch= --ref= --on= --goal= -- "$@"
[ ${#ARGS[@]} -eq 0 ] || usage_error "$usage"
{ [ -n "${OPT[patch]}" ] && [ -z "${OPT[ref]}" ]; } || { [ -z "${OPT[patch]}" ] && [ -n "${OPT[ref]}" ]; } ||
	usage_error "$usage"
lab_imported && die "make try builds a kernel: this build dir holds an imported bundle, with no kernel tree or compiler. Build from source in another one:
  make try PATCH=... BUILD_DIR=build-src   (after make BUILD_DIR=build-src)"
on=$(resolve_step "${OPT[on]:-$(first_step)}")
# the goal: its runs (a step) and what they should print (a file)
if [ -z "${OPT[goal]}" ] && [ -n "$(step_goal "$on")" ]; then
	goal=$on goal_file=$(step_goal "$on") goal_label="step $(step_number "$on")'s goal"
else
	goal=$(resolve_step "${OPT[goal]:-$(pristine_step)}")
	goal_file=$(step_expected "$goal") goal_label="step $(step_number "$goal")"
fi
out=$BUILD_DIR/try

# the tree and the steps' branches as make would have them
"$SCRIPTS/tree/kernel-tree.sh" >"$LOGS/try-tree.log" 2>&1 ||
	die "the kernel tree could not be made: $(tail -n 3 "$LOGS/try-tree.log")"
# build/linux goes back to what it had checked out, whatever happens
was=$(git_k symbolic-ref -q --short HEAD || git_k rev-parse HEAD)
# shellcheck disable=SC2317 # run by the trap
put_back() {
	[ ! -d "$KSRC/.git/rebase-apply" ] || git_k am --abort >/dev/null 2>&1 || true
	git_k checkout -q -f "$was" 2>/dev/null || true
}
trap 'put_back; lab_cleanup' EXIT
rm -rf "$out"
mkdir -p "$out"

# 1. The kernel to try, checked out.
patches=()
if [ -n "${OPT[ref]}" ]; then
	git_k rev-parse -q --verify "${OPT[ref]}^{commit}" >/dev/null ||
		die "REF=${OPT[ref]}: no such branch or commit in ${KSRC#"$LAB_ROOT"/} (git -C ${KSRC#"$LAB_ROOT"/} branch lists them)"
	git_k checkout -q --detach "${OPT[ref]}"
	what="${OPT[ref]} ($(git_k log -1 --format='%h %s'))"
else
	p=${OPT[patch]}
	if [ -d "$p" ]; then
		mapfile -t patches < <(find "$(realpath "$p")" -maxdepth 1 -type f \( -name '*.patch' -o -name '*.diff' \) | LC_ALL=C sort)
		[ ${#patches[@]} -gt 0 ] || die "PATCH=$p: a directory with no *.patch or *.diff in it"
	elif [ -f "$p" ]; then
		patches=("$(realpath "$p")")
	else
		die "PATCH=$p: no such file or directory"
	fi
	git_k checkout -q -f -B lab-try "$on"
	for f in "${patches[@]}"; do
		failed=0
		# a git format-patch mail, or a plain diff (committed as yours)
		if head -n 1 "$f" | grep -q '^From '; then
			CHILD_CMDLINE=$out/git-am.cmdline run_shown git -C "$KSRC" am -q --committer-date-is-author-date "$f" \
				>"$out/apply.log" 2>&1 || failed=1
		else
			{ run_shown git -C "$KSRC" apply --index "$f" &&
				git_k -c user.name="make try" -c user.email=try@lab.invalid commit -q -m "try: ${f##*/}"; } \
				>"$out/apply.log" 2>&1 || failed=1
		fi
		if [ "${failed:-0}" = 1 ]; then
			where=$(sed -n 's/^error: patch failed: \(.*\):\([0-9]*\)$/\1, the hunk at line \2/p' "$out/apply.log" | head -n 1)
			die "${f#"$LAB_ROOT"/} does not apply to step $(step_number "$on")'s tree ($on, linux-source $(linux_source_version)): ${where:-$(grep -m 1 -E '^(error|fatal):' "$out/apply.log")}
$(grep -E '^(error|fatal|Patch failed|Applying)' "$out/apply.log" | head -n 6 | sed 's/^/  /')
(the tree: git -C ${KSRC#"$LAB_ROOT"/} show $on:FILE; your patch must be against it)"
		fi
		info "applied ${f##*/}: $(git_k log -1 --format=%s)"
	done
	what="step $(step_number "$on") + ${#patches[@]} patch(es)"
fi
say "try: $what, judged against $goal_label (${goal_file#"$LAB_ROOT"/})"

# 2. The kernel's own style checker: shown, not a verdict.
for f in "${patches[@]}"; do
	cp=$( (cd "$KSRC" && run_child "$LIMIT_SHORT" scripts/checkpatch.pl --terse --no-summary "$f" </dev/null) 2>&1 || true)
	if [ -n "$cp" ]; then
		info "checkpatch.pl on ${f##*/} (advice, not the verdict):"
		head -n 15 <<<"$cp" | sed 's/^/      /'
	else
		info "checkpatch.pl: ${f##*/} is clean"
	fi
done

# 3. Build it (incrementally in the shared build dir) and boot the
# goal's runs on it: the pipeline. A compile error is shown as the
# compiler's own lines, not a page of make.
rc=0
"$SCRIPTS/pipeline.sh" point "$goal" --out "$out" --run try --config-of "$on" 2>/dev/null || rc=$?
stage_log() { run_file "$out" "$1" try; }
case $rc in
0) ;;
3)
	log=$(kernel_log "$(basename "$out")")
	# the compiler's own lines, else the linker's, else make's last ones
	errs=$(grep -E -A3 '^[^ :]+:[0-9]+(:[0-9]+)?: (fatal )?error: ' "$log" 2>/dev/null | grep -v '^--$' | head -n 24 || true)
	[ -z "$errs" ] || die "the kernel does not compile with your change. The compiler said:
  ${errs//$'\n'/$'\n'  }
(whole log: ${log#"$LAB_ROOT"/})"
	errs=$(grep -E 'undefined reference to|modpost: .*undefined' "$log" 2>/dev/null | head -n 8 || true)
	[ -z "$errs" ] || die "the kernel does not link with your change. The linker said:
  ${errs//$'\n'/$'\n'  }
(whole log: ${log#"$LAB_ROOT"/})"
	die "the kernel did not build: $(tail -n 5 "$(stage_log kernel_log)" | sed 's/^/  /')" ;;
4) die "the guest programs did not build against your kernel's headers: $(tail -n 5 "$(stage_log guest_log)")" ;;
5)
	serial=$(run_file "$out" serial try)
	panic=$(grep -m 1 -E 'Kernel panic|BUG:|Oops|general protection' "$serial" 2>/dev/null || true)
	die "your kernel did not run the guest to its end: $(grep -m 1 '^error: ' "$(stage_log boot_log)" | sed 's/^error: //')${panic:+
The kernel said: $panic}
The serial log's last lines (${serial#"$LAB_ROOT"/}):
$(tr -d '\r' <"$serial" 2>/dev/null | tail -n 12 | sed 's/^/  /')" ;;
*) die "the pipeline stopped (exit $rc)" ;;
esac

# 4. The verdict, beside the base step's measurement (booted again when
# its transcript is not of its kernel as built now) and the goal's
# prediction.
base=$(step_out "$on")
transcript_current "$base" >/dev/null || "$SCRIPTS/boot/boot.sh" demo "$on" >"$out/base-boot.log" 2>&1 ||
	warn "step $on could not be booted for the base column (${out#"$LAB_ROOT"/}/base-boot.log)"
echo
rc=0
"$LAB_PYTHON" -m labhost.results judge --base "step $(step_number "$on") (measured)" "$(run_file "$base" transcript)" \
	--goal "$goal_label" "$goal_file" "$(run_file "$out" transcript try)" |
	tee "$out/verdict.txt" || rc=$?
info "files: ${out#"$LAB_ROOT"/}/ ($(basename "$(run_file "$out" transcript try)"), $(basename "$(run_file "$out" serial try)"), verdict.txt); the branch: lab-try"
exit "$rc"
