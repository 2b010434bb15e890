# shellcheck shell=sh
# The RESULT line of the guest's shell scripts (init.sh, debian-run.sh),
# in the format of result.c (guest/README.md), with sizes not measured
# (-). Sourced by busybox sh.
result_line() { # step verdict cause reader abi comm detail
	printf 'RESULT step=%s reader=%s abi=%s comm=%s verdict=%s cause=%s packets=0 queued=- want=- got=- detail="%s"\n' \
		"$1" "$4" "$5" "$6" "$2" "$3" "$(printf '%s' "$7" | tr '"\n' "' ")"
}
