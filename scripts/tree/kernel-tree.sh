#!/usr/bin/env bash
# Make build/linux: the pristine Debian linux-source as a "baseline"
# commit, then one branch per step, each the previous step's branch plus
# `git am` of the step's patches. Reruns only redo what changed.
# shellcheck source=../lib/core.sh
. "$(dirname "$0")/../lib/core.sh"
lab_setup

# 1. The baseline: re-extract when the linux-source changed.
"$SCRIPTS/source/linux-source.sh"
LINUX_TARBALL=$(linux_source_tarball)
# ("tree 2": the tree whose commits are dated by the source, with the
# build dir inside it; an older layout is made again)
src_id="tree 2 $(linux_source_version) $(stat -c '%s %Y' "$LINUX_TARBALL" 2>/dev/null)" ||
	die "$LINUX_TARBALL not found (see $BUILD_DIR/linux-source.txt)"
if [ "$(cat "$KSRC/.git/lab-source-id" 2>/dev/null)" != "$src_id" ]; then
	say "kernel tree: extracting $LINUX_TARBALL (linux-source $(linux_source_version))"
	rm -rf "$KSRC" "$KSRC.tmp" "$(steps_out "$BUILD_DIR")"
	mkdir -p "$KSRC.tmp"
	run_logged "extract" "$LOGS/kernel-extract.log" "$LIMIT_KERNEL_BUILD" \
		tar -xf "$LINUX_TARBALL" -C "$KSRC.tmp" --strip-components=1
	(
		cd "$KSRC.tmp"
		git init -q -b baseline-branch
		git config user.name "ABI Lab"
		git config user.email "abi-lab@example.org"
		git config gc.auto 0
		git config advice.detachedHead false
	)
	# Dated by the source itself (the tarball keeps the package's build
	# date as every file's time), so that every machine makes the same
	# commits, and the step kernels, dated by them, the same bytes.
	date="@$(stat -c %Y "$KSRC.tmp/Makefile") +0000"
	# shellcheck disable=SC2016 # expanded by the inner sh
	GIT_AUTHOR_DATE=$date GIT_COMMITTER_DATE=$date \
		run_logged "git baseline commit" "$LOGS/kernel-baseline.log" "$LIMIT_KERNEL_BUILD" \
		sh -c 'cd "$1" && git add -A -f . && git commit -q -m "baseline: Debian linux-source-6.1 $2" && git tag baseline' \
		sh "$KSRC.tmp" "$(linux_source_version)"
	echo "$src_id" >"$KSRC.tmp/.git/lab-source-id"
	mv "$KSRC.tmp" "$KSRC"
fi

# 2. Recover from an interrupted run before touching branches.
[ -d "$KSRC/.git/rebase-apply" ] && git_k am --abort >/dev/null 2>&1
if [ -n "$(git_k status --porcelain --untracked-files=no)" ]; then
	die "build/linux has local changes (see: git -C $KSRC status).
Commit them on a branch of your own or discard them (git -C $KSRC checkout -f), then rerun."
fi

# 3. One branch per step, named as the step: its base (the previous
# step's branch, or baseline: step.conf) plus its patches, rebuilt only
# when the base or the patches changed.
for s in $(step_slugs); do
	branch=$s
	parent=$(step_base "$s")
	dir=$(step_dir "$s")
	patches=()
	shopt -s nullglob
	for p in "$dir"/*.patch; do
		[ -e "$p" ] || die "${p#"$LAB_ROOT"/}: broken link, no such patch in kernel-patches/"
		patches+=("$p")
	done
	shopt -u nullglob
	key=$( { git_k rev-parse "$parent"; cat "${patches[@]}" /dev/null; } | sha256sum | cut -c1-16)
	if git_k rev-parse -q --verify "refs/heads/$branch" >/dev/null &&
		[ "$(git_k config --get "lab.$branch.key" || true)" = "$key" ]; then
		continue
	fi
	say "kernel tree: branch $branch = $parent + ${#patches[@]} patch(es)"
	git_k checkout -q --detach "$parent"
	for p in "${patches[@]}"; do
		if ! out=$(run_shown git -C "$KSRC" am -q --committer-date-is-author-date "$(readlink -f "$p")" 2>&1); then
			git_k am --abort >/dev/null 2>&1 || true
			git_k checkout -q -f --detach "$parent"
			die "patch $(basename "$(readlink -f "$p")") (step $s) does not apply to linux-source-6.1 $(linux_source_version).
git am said:
$(grep -e '^error:' -e '^Patch failed' <<<"$out")"
		fi
		info "applied $(basename "$(readlink -f "$p")")"
	done
	git_k branch -f -q "$branch" HEAD
	git_k checkout -q "$branch"
	git_k config "lab.$branch.key" "$key"
done

# 4. Branches the lab made for steps that are gone (or renamed) would
# only confuse a git branch listing: drop them.
current=" $(step_slugs | tr '\n' ' ') "
head=$(git_k symbolic-ref -q --short HEAD || true)
[[ "$current" == *" $head "* ]] || git_k checkout -q "$(first_step)"
git_k config --get-regexp '^lab\..*\.key$' | while read -r k _; do
	b=${k#lab.}
	b=${b%.key}
	[[ "$current" == *" $b "* ]] && continue
	git_k branch -q -D "$b" >/dev/null 2>&1 || true
	git_k config --unset "$k" || true
	info "removed the branch $b of a step that no longer exists"
done
