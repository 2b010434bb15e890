# shellcheck shell=bash
# What a demo boot's verdicts depend on: the kernel, the initramfs, the
# limits on the kernel command line and QEMU. boot.sh writes them next
# to each transcript it makes (transcript.inputs); a transcript whose
# inputs are those of now needs no boot again (make test after make),
# and one whose inputs changed is out of date (make docs refuses to show
# it). Sourced after lib/core.sh.

# The inputs of a demo boot of the guest in OUT, one "what value" line each.
boot_inputs() { # out-dir [more kernel command line]
	printf 'kernel sha256:%s\n' "$(sha256sum <"$(out_file "$1" bzimage)" | cut -c1-64)"
	printf 'initramfs sha256:%s\n' "$(sha256sum <"$(out_file "$1" initramfs)" | cut -c1-64)"
	printf 'command line %s%s\n' "$(limits_cmdline)" "${2:+ $2}"
	printf 'qemu %s\n' "$(qemu-system-x86_64 --version | head -n 1)"
}

# Is the transcript in OUT (of the run RUN) from a boot of what is there now?
# Says what changed when not.
transcript_current() { # out-dir [run]
	local t rec changed
	t=$(run_file "$1" transcript "${2:-}") rec=$(run_file "$1" inputs "${2:-}")
	[ -s "$t" ] || { echo "no transcript"; return 1; }
	[ -f "$rec" ] || { echo "no record of what it was booted from"; return 1; }
	changed=$(diff <(boot_inputs "$1") "$rec" | sed -n 's/^> \([a-z]*\).*/\1/p' | tr '\n' ' ')
	[ -z "$changed" ] || { echo "booted from another ${changed% }"; return 1; }
}
