#!/usr/bin/env bash
# The lab's TAP as a real consumer reads it: Perl's TAP::Parser, which
# prove uses. A stream written by tap.sh on purpose (a pass, skips,
# failures, a stream taken in that stopped early, a command that
# crashed), then each saved suite log given: version 13, a plan its tests
# match, no parse error, and the parser's passed, failed and skipped are
# the counts the stream's last line states. One TAP test per check.
#   test-tap.sh [LOG...]
# shellcheck source=../lib/core.sh
. "$(dirname "$0")/../lib/core.sh"
# shellcheck source=../lib/tap.sh
. "$SCRIPTS/lib/tap.sh"
tap_begin
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# What TAP::Parser makes of a stream: "version plan passed failed
# skipped unknown-lines" (passed without the skips, as tap.sh counts),
# then its parse errors, one a line.
parsed() { # file
	perl -MTAP::Parser -e '
		open my $f, "<", $ARGV[0] or die "$ARGV[0]: $!\n";
		my $p = TAP::Parser->new({ tap => do { local $/; <$f> } });
		my $unknown = 0;
		while (my $r = $p->next) { $unknown++ if $r->is_unknown }
		printf "%s %s %d %d %d %d\n", $p->version, $p->plan || "none",
			scalar($p->passed) - scalar($p->skipped), scalar($p->failed),
			scalar($p->skipped), $unknown;
		print "$_\n" for $p->parse_errors;' "$1" 2>&1
}

# A stream's checks: TAP::Parser's view is what its last line says.
reads() { # file what
	local out want v plan p f s unknown errors
	out=$(parsed "$1") || true
	read -r v plan p f s unknown <<<"${out%%$'\n'*}"
	errors=$(tail -n +2 <<<"$out")
	want=$(awk '/^[0-9]+ passed, [0-9]+ failed/ { w = $1 " " $3 + 0 " " ($5 == "" ? 0 : $5) } END { print w }' "$1")
	if [ "$v" = 13 ] && [ "$plan" = "1..$((p + f + s))" ] && [ -z "$errors" ] && [ "$p $f $s" = "$want" ]; then
		pass "TAP::Parser reads $2: version 13, plan $plan, $p passed, $f failed, $s skipped, as its last line says"
		UNKNOWN=$unknown
	else
		fail "TAP::Parser reads $2 as its last line says ($want): it says $out"
		UNKNOWN=
	fi
}

# shellcheck disable=SC2016 # the inner bash expands them
bash -c '. "$1/tap.sh"
	tap_begin
	pass one
	skip two "a reason"
	fail "three
with a second line"
	tap_include "a stream that stopped early" < <(printf "%s\n" "TAP version 13" \
		"ok 1 - four" "ok 2 global.five # SKIP six" "1..3")
	tap_run sh -c "echo ok - seven; echo it crashed; exit 3"
	finish' tap "$SCRIPTS/lib" >"$tmp/tap.out" || true
reads "$tmp/tap.out" "a stream tap.sh wrote"
if [ "$(tail -n 1 "$tmp/tap.out")" = "3 passed, 3 failed, 2 skipped" ] && [ "$UNKNOWN" = 1 ]; then
	pass "tap.sh counts skips apart, an early stop and a crash as failures, and writes every other line but its last as a comment"
else
	fail "tap.sh counts skips apart, an early stop and a crash as failures, and writes every other line but its last as a comment: $UNKNOWN lines not TAP in
$(cat "$tmp/tap.out")"
fi

for log in "$@"; do
	reads "$log" "${log##*/}"
done
finish
