#!/usr/bin/env bash
# Does a step's kernel depend on where it is built? Build the step again,
# from a git worktree of build/linux in another directory, into another
# output dir, and compare the bytes of what a bundle carries: bzImage,
# vmlinux, the step's initramfs part, the headers and the gdb constants.
# One TAP line per file and step; run by make test. The worktree goes
# afterwards, the other output only when all is the same.
# Usage: repro-check.sh SLUG...
# shellcheck source=../lib/core.sh
. "$(dirname "$0")/../lib/core.sh"
lab_setup
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
tap_begin

[ $# -gt 0 ] || die "usage: repro-check.sh SLUG..."
# another path, of another length, than build/linux and build/steps/SLUG
other=$BUILD_DIR/repro/built-elsewhere
wtree=$other/linux
# the worktree goes in any case; the other output stays if it differs
drop_tree() {
	git -C "$KSRC" worktree remove --force "$wtree" >/dev/null 2>&1 || true
	git -C "$KSRC" worktree prune
	rm -rf "$wtree"
}
trap 'drop_tree; lab_cleanup' EXIT

# a directory's files and their hashes, as one hash
tree_sum() { (cd "$1" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -c1-64); }
same() { # label what (out_file's)
	local a b
	a=$(out_file "$out" "$2") b=$(out_file "$other/out" "$2")
	if [ -d "$a" ]; then
		a=$(tree_sum "$a") b=$(tree_sum "$b")
	else
		a=$(sha256sum <"$a" | cut -c1-64) b=$(sha256sum <"$b" | cut -c1-64)
	fi
	if [ "$a" = "$b" ]; then
		pass "step $s built in another directory: $1, the same bytes (sha256 ${a:0:16})"
	else
		fail "step $s built in another directory: $1, different bytes (${a:0:16} in ${out#"$LAB_ROOT"/}, ${b:0:16} in ${other#"$LAB_ROOT"/}/out)"
	fi
}

for s in "$@"; do
	s=$(resolve_step "$s")
	out=$(step_out "$s")
	drop_tree
	rm -rf "$other"
	mkdir -p "$other"
	# the builds' progress as TAP comments; a failed build ends the stream
	# before its plan, which make test reports
	{
		run_logged "git worktree of $s" "$LOGS/repro-worktree.log" "$LIMIT_KERNEL_BUILD" \
			git -C "$KSRC" worktree add --detach "$wtree" "$s"
		# without ccache: a cached object would be the first build's own
		# bytes, whatever path it might have named (a cold build: minutes)
		CCACHE_DISABLE=1 "$SCRIPTS/kernel/kernel-build.sh" --tree "$wtree" --out "$other/out" --config-of "$s"
		"$SCRIPTS/guest/guest-build.sh" "$s" --out "$other/out"
	} 2>&1 | sed -u 's/^/# /'
	same bzImage bzimage
	same vmlinux vmlinux
	same "the step's initramfs part" initramfs_lab
	same "the uapi headers" uapi
	same "the gdb constants" gdb_constants
	same "the kernel's gdb helpers" gdb_helpers
	[ "$failed" -eq 0 ] || break
done
[ "$failed" -ne 0 ] || rm -rf "$other"
finish
