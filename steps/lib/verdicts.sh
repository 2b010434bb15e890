#!/usr/bin/env bash
# Compare the RESULT lines a guest printed with the step's expectations.
#   verdicts.sh check N   one line per expected run, "ok" or "not ok";
#                         exits non-zero if any run differs from history
#   verdicts.sh matrix    the outcome matrix of every step that has run,
#                         measured, with history's word where it differs;
#                         also written to build/matrix.txt and matrix.md
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

# measured verdict of one expected run, from a results file
measured() { # results program abi name
	awk -v prog="$2" -v abi="$3" -v name="$4" '
		function field(k,   i) {
			for (i = 2; i <= NF; i++)
				if (index($i, k "=") == 1) return substr($i, length(k) + 2)
			return ""
		}
		$1 == "RESULT" && (field("demo") == prog ||
			(field("reader") == prog && field("abi") == abi && field("comm") == name)) {
			v = field("verdict")
		}
		END { print (v == "" ? "missing" : v) }' "$1"
}

# expected runs of a step: program abi name verdict (verdict "-" = none)
expected_runs() {
	awk '!/^#/ && NF >= 4 && $4 != "-" { print $1, $2, $3, $4 }' "$(step_dir "$1")/expected"
}

check() {
	local n=$1 res fails=0 prog abi name want got
	res=$(step_out "$n")/results.txt
	[ -f "$res" ] || die "step $n has not run: no $res"
	while read -r prog abi name want; do
		got=$(measured "$res" "$prog" "$abi" "$name")
		if [ "$got" = "$want" ]; then
			echo "ok - step $n: $prog $abi as $name: $got"
		else
			echo "not ok - step $n: $prog $abi as $name: measured $got, history says $want"
			fails=$((fails + 1))
		fi
	done < <(expected_runs "$n")
	return $((fails > 0))
}

matrix() {
	local steps=() n row prog abi name want got line md diffs=0 cells=0
	for n in $(step_numbers); do
		[ -f "$(step_out "$n")/results.txt" ] && steps+=("$n")
	done
	[ ${#steps[@]} -gt 0 ] || die "no step has run yet"
	line=$(printf '%-42s' "run (program, ABI, name the kernel sees)")
	md="| run |"
	for n in "${steps[@]}"; do
		line+=$(printf '%-24s' "step $n")
		md+=" step $n |"
	done
	printf '%s\n' "$line"
	md+=$'\n|---|'"$(printf -- '---|%.0s' "${steps[@]}")"
	# the rows: every run named by the first step, in its order
	while read -r prog abi name _; do
		row=$(printf '%-42s' "$prog $abi as $name")
		md+=$'\n'"| $prog $abi as \`$name\` |"
		for n in "${steps[@]}"; do
			want=$(expected_runs "$n" | awk -v p="$prog" -v a="$abi" -v c="$name" \
				'$1 == p && $2 == a && $3 == c { print $4 }')
			got=$(measured "$(step_out "$n")/results.txt" "$prog" "$abi" "$name")
			cells=$((cells + 1))
			if [ "$got" = "$want" ]; then
				row+=$(printf '%-24s' "$got ✓")
				md+=" $got ✓ |"
			else
				row+=$(printf '%-24s' "$got ✗ history: ${want:-?}")
				md+=" **$got** ✗ history: ${want:-?} |"
				diffs=$((diffs + 1))
			fi
		done
		printf '%s\n' "$row"
	done < <(expected_runs "${steps[0]}")
	echo "measured in the guest; ✓ = as history predicts, ✗ = differs (steps/*/expected)"
	if [ "$diffs" -eq 0 ]; then
		echo "all $cells cells match history"
	else
		echo "$diffs of $cells cells differ from history"
	fi
	printf '%s\n' "$md" >"$BUILD_DIR/matrix.md"
	return $((diffs > 0))
}

case ${1:-} in
check) check "$2" ;;
matrix) matrix | sed "s/[[:space:]]*$//" | tee "$BUILD_DIR/matrix.txt" ;;
*) die "usage: verdicts.sh check N | matrix" ;;
esac
