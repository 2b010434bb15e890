# shellcheck shell=bash
# The one way a lab script takes its arguments:
#   parse_args "USAGE" SPEC... -- "$@"
# SPEC is --name (a switch: OPT[name]=1 when given, else 0) or --name=
# (it takes a value, "--name VALUE" or "--name=VALUE": OPT[name]=VALUE,
# else empty). Words that are not options are positional, in ARGS; after
# a "--" everything is, in REST (QEMU's arguments to boot.sh). An unknown
# option or a missing value prints "usage: USAGE" and exits 2.
# shellcheck disable=SC2034 # the callers read it
declare -gA OPT=()
parse_args() {
	local usage=$1 name
	local -A kind=()
	shift
	OPT=() ARGS=() REST=()
	while [ "$1" != -- ]; do
		name=${1#--} name=${name%=}
		if [[ $1 == *= ]]; then kind[$name]=value OPT[$name]=''; else kind[$name]=switch OPT[$name]=0; fi
		shift
	done
	shift
	while [ $# -gt 0 ]; do
		case $1 in
		--) shift; REST=("$@"); break ;;
		--*)
			name=${1#--} name=${name%%=*}
			case ${kind[$name]:-} in
			switch) [[ $1 != *=* ]] || usage_error "$usage"; OPT[$name]=1 ;;
			value)
				if [[ $1 == *=* ]]; then
					OPT[$name]=${1#*=}
				else
					[ $# -ge 2 ] || usage_error "$usage"
					OPT[$name]=$2
					shift
				fi
				;;
			*) usage_error "$usage" ;;
			esac
			;;
		*) ARGS+=("$1") ;;
		esac
		shift
	done
}
usage_error() { # usage
	printf 'usage: %s\n' "$1" >&2
	exit 2
}
