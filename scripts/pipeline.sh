#!/usr/bin/env bash
# The lab's one pipeline: a kernel, its guest, a boot. Every command that
# makes a transcript goes through here (make, make run, make test's
# build, make try, the bisect helper); the stages are the programs of
# kernel/, guest/ and boot/, called with arguments.
#   pipeline.sh steps [--boot [--show]] SLUG...
#       the steps' branches (the tree made first). Kernels are built one
#       after the other (one checkout of build/linux, make -jJOBS each);
#       each step's guest, and its boot with --boot, runs beside the
#       next kernels, in a lane of its own (JOBS - 1 lanes, at least one;
#       none when JOBS is 1). A finished piece says so in one line
#       (--show: with its runs); its log is build/logs/piece-SLUG.log.
#       An imported bundle is checked instead of built, and booted.
#   pipeline.sh point SLUG --out DIR [--run RUN] [--config-of STEP]
#       what build/linux has checked out, with STEP's kernel config
#       (default: SLUG's), and SLUG's guest, booted as RUN: make try's,
#       a bisect's. Each stage is logged in DIR (kernel-RUN.log, ...);
#       one that fails exits 3 (kernel), 4 (guest) or 5 (boot).
#   pipeline.sh piece SLUG [--boot [--show]]
#       one step's guest and boot: a lane's work, run as a child
# shellcheck source=lib/core.sh
. "$(dirname "$0")/lib/core.sh"
lab_setup
# shellcheck source=lib/accel.sh
. "$SCRIPTS/lib/accel.sh"
lab_lock exclusive
usage="pipeline.sh steps [--boot [--show]] SLUG... | point SLUG --out DIR [--run RUN] [--config-of STEP] | piece SLUG [--boot [--show]]"
parse_args "$usage" --boot --show --out= --run= --config-of= -- "$@"
[ ${#ARGS[@]} -ge 2 ] || usage_error "$usage"
mode=${ARGS[0]}
slugs=()
for a in "${ARGS[@]:1}"; do slugs+=("$(resolve_step "$a")"); done

# One step's guest, then its boot; what it did in one write to fd 3
# (the terminal's, while the piece's own output goes to its log).
piece() { # slug
	local s=$1 out t msg a
	out=$(step_out "$s")
	lab_imported || "$SCRIPTS/guest/guest-build.sh" "$s"
	if [ "${OPT[boot]}" = 0 ]; then
		msg=$(say "step $(step_number "$s"): guest built ($(grep -c . "$(out_file "$out" programs)") runs)")
	else
		"$SCRIPTS/boot/boot.sh" demo "$s"
		t=$(run_file "$out" transcript)
		a=$(cat "$(run_file "$out" boot_accel)")
		msg=$(say "step $(step_number "$s"), $(step_title "$s"): booted in QEMU (${a^^}), guest finished in $(cat "$(run_file "$out" boot_seconds)") s; transcript: ${t#"$LAB_ROOT"/}"
			[ "${OPT[show]}" = 0 ] || "$LAB_PYTHON" -m labhost.results show "$t" | sed 's/^/    /')
	fi
	printf '%s\n' "$msg" >&3
}

# The lanes: the kernels' (one at a time) and the pieces' (LANE_WIDTH
# at a time), each piece started when its kernel is built and a lane is
# free. A child that failed ends the command (what still runs is
# stopped), a piece's with its log's last lines.
LANE_WIDTH=$((JOBS > 2 ? JOBS - 1 : 1))
declare -A PIECES=() # pid: slug
# Has the child ended? Then its status is collected (and it is forgotten).
ended() { # pid
	! kill -0 "$1" 2>/dev/null || return 1
	ENDED_RC=0
	wait_child "$1" 1 || ENDED_RC=$?
}
piece_ended() { # pid
	local log
	ended "$1" || return 1
	log=$(piece_log "${PIECES[$1]}")
	if [ "$ENDED_RC" -ne 0 ]; then
		tail -n 15 "$log" | sed 's/^/  /' >&2
		die "step ${PIECES[$1]}: its guest or boot failed (exit $ENDED_RC; log: ${log#"$LAB_ROOT"/})"
	fi
	unset "PIECES[$1]"
}
run_steps() { # piece-option...
	local kq=("${slugs[@]}") ready=() kpid='' ks pid
	# an imported bundle's kernels are built
	! lab_imported || kq=() ready=("${slugs[@]}")
	while [ ${#kq[@]} -gt 0 ] || [ -n "$kpid" ] || [ ${#ready[@]} -gt 0 ] || [ ${#PIECES[@]} -gt 0 ]; do
		if [ -n "$kpid" ] && ended "$kpid"; then
			[ "$ENDED_RC" -eq 0 ] || die "step $ks: its kernel did not build (exit $ENDED_RC)"
			kpid='' ready+=("$ks")
		fi
		if [ -z "$kpid" ] && [ ${#kq[@]} -gt 0 ]; then
			ks=${kq[0]} kq=("${kq[@]:1}")
			# niced: a guest's limits are for a guest with a core of its own
			# (a busy machine's Debian automount ran out of its 10 s)
			CHILD_WHAT="the kernel of $ks" start_child nice -n 10 "$SCRIPTS/kernel/kernel-build.sh" "$ks" </dev/null
			kpid=$CHILD_PID
		fi
		for pid in "${!PIECES[@]}"; do piece_ended "$pid" || true; done
		while [ ${#ready[@]} -gt 0 ] && [ ${#PIECES[@]} -lt "$LANE_WIDTH" ]; do
			# the accelerator once, before boots side by side ask for it
			[ "${OPT[boot]}" = 0 ] || [ -n "${ACCEL:-}" ] || choose_accel "$(out_file "$(step_out "${ready[0]}")" bzimage)"
			CHILD_WHAT="the guest of ${ready[0]}" start_child "$0" piece "${ready[0]}" "$@" \
				3>&1 </dev/null >"$(piece_log "${ready[0]}")" 2>&1
			PIECES[$CHILD_PID]=${ready[0]} ready=("${ready[@]:1}")
		done
		sleep 0.2
	done
}

case $mode in
steps)
	[ -z "${OPT[out]}${OPT[run]}${OPT[config-of]}" ] || usage_error "$usage"
	[ -z "${PLAIN_FOR:-}" ] || info "BUILD_DIR=\"$PLAIN_FOR\" has a space or a colon, which kbuild refuses in a path: the lab works in it as $BUILD_DIR, and keeps the kernel tree in $KSRC"
	opts=()
	[ "${OPT[boot]}" = 0 ] || opts+=(--boot)
	[ "${OPT[show]}" = 0 ] || opts+=(--show)
	if lab_imported; then
		"$SCRIPTS/bundle/bundle.sh" check
		[ "${OPT[boot]}" = 1 ] || exit 0
	else
		"$SCRIPTS/tree/kernel-tree.sh"
	fi
	if [ "$JOBS" -lt 2 ]; then # one thing at a time
		for s in "${slugs[@]}"; do
			lab_imported || "$SCRIPTS/kernel/kernel-build.sh" "$s"
			"$0" piece "$s" "${opts[@]}"
		done
	else
		run_steps "${opts[@]}"
	fi
	;;
point)
	{ [ ${#slugs[@]} -eq 1 ] && [ -n "${OPT[out]}" ] && [ "${OPT[boot]}${OPT[show]}" = 00 ]; } || usage_error "$usage"
	s=${slugs[0]} out=${OPT[out]} run=${OPT[run]:-$DEMO_RUN}
	mkdir -p "$out"
	stage() { # exit-code name command...
		local rc=$1 log
		log=$(run_file "$out" "$2_log" "$run")
		shift 2
		"$@" >"$log" 2>&1 || { warn "the ${log##*/} stage failed (exit $?; ${log#"$LAB_ROOT"/})"; exit "$rc"; }
	}
	stage 3 kernel "$SCRIPTS/kernel/kernel-build.sh" --out "$out" --config-of "${OPT[config-of]:-$s}"
	stage 4 guest "$SCRIPTS/guest/guest-build.sh" "$s" --out "$out"
	stage 5 boot "$SCRIPTS/boot/boot.sh" demo "$s" --out "$out" --run "$run"
	;;
piece)
	[ ${#slugs[@]} -eq 1 ] || usage_error "$usage"
	{ : >&3; } 2>/dev/null || exec 3>&1
	piece "${slugs[0]}"
	;;
*) usage_error "$usage" ;;
esac
