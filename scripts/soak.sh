#!/usr/bin/env bash
# make soak N=20: boot every step N times, as a long workshop day would,
# and report every run whose verdict or cause differs from that step's
# first run, and the slowest boot per step.
# Usage: soak.sh N
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
lab_lock exclusive
lib=$LAB_ROOT/scripts
n=${1:-}
[[ "$n" =~ ^[1-9][0-9]*$ ]] || die "usage: make soak N=20 (N: how many boots of each step)"
"$lib/lab.sh" build >/dev/null
report=$BUILD_DIR/soak.txt
: >"$report"
changed=0
# shellcheck disable=SC2016
say "soak: $n boots of each of $(step_slugs | wc -l) steps; results in ${report#"$LAB_ROOT"/}"
for s in $(step_slugs); do
	first='' slow=0 slowest=''
	for i in $(seq 1 "$n"); do
		if ! "$lib/boot.sh" demo "$s" --run soak >"$LOGS/soak-$s.log" 2>&1; then
			echo "step $s boot $i: the boot failed: $(tail -n 1 "$LOGS/soak-$s.log")" | tee -a "$report"
			changed=$((changed + 1))
			continue
		fi
		out=$(step_out "$s")
		got=$(python3 "$lib/results.py" show "$out/transcript-soak.txt")
		secs=$(cat "$out/boot-seconds-soak")
		if [ -z "$first" ]; then
			first=$got
		elif [ "$got" != "$first" ]; then
			changed=$((changed + 1))
			{
				echo "step $s boot $i differs from boot 1:"
				diff <(echo "$first") <(echo "$got") | sed 's/^/    /'
			} | tee -a "$report"
		fi
		if awk -v a="$secs" -v b="$slow" 'BEGIN { exit !(a > b) }'; then
			slow=$secs slowest=$i
		fi
		# progress: a step's N boots take minutes
		printf '    %s: boot %d of %d, %s s\n' "$s" "$i" "$n" "$secs"
	done
	printf 'step %-22s %d boots, slowest %s s (boot %s)\n' "$s" "$n" "$slow" "$slowest" | tee -a "$report"
done
if [ "$changed" -eq 0 ]; then
	say "soak: every boot of every step gave its step's first verdicts and causes"
else
	die "soak: $changed boot(s) differed, see ${report#"$LAB_ROOT"/}"
fi
