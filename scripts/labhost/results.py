"""The one reader of the guests' RESULT lines, and what they are checked against.

A guest transcript has one "LAB-PLAN runs=N" line and then one RESULT line
per program run (format: guest/README.md, written by guest/result.c and by
result_line() in guest/init.sh). A step's `expected` file has one row per
run: program, ABI, the name it runs as, the verdict and cause history
predicts, and optionally sizes (key=value) that must match too.

Its command line (python3 -m labhost.results, with scripts/ on PYTHONPATH):

    results.py check [--skip-on-error] --number N --label LABEL EXPECTED TRANSCRIPT
        one "ok - ..." / "not ok - ..." line per check; exit 1 on any failure
        (--skip-on-error: exit 125 when a run ended in an error, for git bisect run)
    results.py matrix [--txt FILE] [--md FILE] --step LABEL TITLE EXPECTED TRANSCRIPT ...
        the outcome matrix of the given steps, measured, against history
    results.py show TRANSCRIPT
        the parsed RESULT lines, one per line (for a quick look)
    results.py judge --base LABEL TRANSCRIPT --goal LABEL EXPECTED TRANSCRIPT
        make try's verdict: a learner's kernel's runs side by side with a
        base step's and the goal's predictions, and which differ, and why;
        exit 1 if any does

Other scripts (the docs' pipe diagram) import parse_transcript() and
cell_text() from here. The expected file is the step model's to read
(labhost/steps.py: parse_expected); this file reads transcripts and
checks them against its rows. Stdlib only.
"""

import argparse
import re
import sys

# the expected file's reader, and the sizes both formats name
from .steps import SIZES, VALUES, number, parse_expected
from .tap import Tap

# The fields of a RESULT line, in their order; the last is the quoted detail.
FIELDS = ("step", "reader", "abi", "comm", "verdict", "cause", "packets",
          "queued", "want", "got")
RE_RESULT = re.compile(
    r'^RESULT ' + " ".join(r"%s=(?P<%s>[^\s\"=]+)" % (f, f) for f in FIELDS) +
    r'(?P<values>(?: [a-z_]+=[^\s"=]+)*) detail="(?P<detail>[^"]*)"$')
RE_PLAN = re.compile(r"^LAB-PLAN runs=(\d+)$")


class Result(dict):
    """One RESULT line: its fields as strings, sizes as int or None;
    its values (VALUES) in .values, as printed."""

    def size(self, key):
        v = self[key]
        return None if v == "-" else int(v)

    def value(self, key):
        """A value as a number; None if not measured ("-") or not there."""
        v = self.values.get(key, "-")
        return None if v == "-" else number(v)

    def key(self):
        return (self["reader"], self["abi"], self["comm"])


def parse_line(line):
    """A Result, or None if the line is not a RESULT line. A line that starts
    like one but does not have the format raises ValueError."""
    line = line.rstrip("\r\n")
    if not line.startswith("RESULT "):
        return None
    m = RE_RESULT.match(line)
    if not m:
        raise ValueError("malformed RESULT line: " + line)
    fields = m.groupdict()
    r = Result((k, v) for k, v in fields.items() if k != "values")
    for k in SIZES:
        if r[k] != "-" and not r[k].isdigit():
            raise ValueError("%s=%s is not a size in: %s" % (k, r[k], line))
    r.values = {}
    for w in fields["values"].split():
        k, _, v = w.partition("=")
        if k not in VALUES or k in r.values or (v != "-" and number(v) is None):
            raise ValueError("%s is not one of %s=N, once each, in: %s"
                             % (w, "|".join(VALUES), line))
        r.values[k] = v
    return r


def parse_transcript(path):
    """(plans, results, problems): every LAB-PLAN count, every RESULT, and
    the lines that looked like either but were malformed."""
    plans, results, problems = [], [], []
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError as e:
        return plans, results, ["cannot read the transcript: %s" % e]
    for line in lines:
        m = RE_PLAN.match(line)
        if m:
            plans.append(int(m.group(1)))
            continue
        try:
            r = parse_line(line)
        except ValueError as e:
            problems.append(str(e))
            continue
        if r is not None:
            results.append(r)
    return plans, results, problems


def by_run(results):
    """{run key: [its results]}: a run may have printed none, one or more."""
    out = {}
    for r in results:
        out.setdefault(r.key(), []).append(r)
    return out


def cell_text(r):
    """How a measured run reads in the matrix: the verdict, and what was
    observed behind it: "broken (leftover 4)", "broken (stall at 300 of 304)"."""
    if r is None:
        return "missing"
    v, c = r["verdict"], r["cause"]
    q, w, g = r.size("queued"), r.size("want"), r.size("got")
    if c == "none":
        return v
    if c == "leftover":
        n = g if g is not None else q
        what = "leftover %d" % n if n is not None else "leftover"
    elif c in ("stall", "short") and g is not None and w is not None:
        what = "%s at %d of %d" % (c, g, w) if c == "stall" else "short %d of %d" % (g, w)
    elif c == "garbled" and g is not None:
        what = "garbled, %d bytes" % g
    elif c == "dropped" and q is not None and g is not None:
        what = "dropped %d" % (q - g)
    elif c in ("exact", "padded") and g is not None:
        what = "%s %d" % (c, g)
    elif c == "misplaced" and r.value("seen") is not None and r.value("read_at") is not None:
        what = "%s at %d" % (r.values["seen"], r.value("read_at"))
    elif c == "lost" and r.value("seen") is not None:
        what = "lost, %s" % r.values["seen"]
    else:
        what = c
    return "%s (%s)" % (v, what)


def matches(row, r):
    """None if the measured run r is what row predicts, else what differs."""
    if r["verdict"] != row.verdict or r["cause"] != row.cause:
        return "verdict %s, cause %s" % (r["verdict"], r["cause"])
    for k, v in sorted(row.sizes.items()):
        if r.size(k) != v:
            return "%s=%s where %d was predicted" % (k, r[k], v)
    for k, (v, text) in sorted(row.values.items()):
        if r.value(k) != v:
            return "%s=%s where %s was predicted" % (k, r.values.get(k, "(none)"), text)
    return None


def check(number, label, expected, transcript):
    """[(passed, message)] for one step."""
    out = []
    try:
        rows = parse_expected(expected)
    except (OSError, ValueError) as e:
        return [(False, "%s: expected file: %s" % (label, e))]
    if not rows:
        return [(False, "%s: %s has no rows: nothing would be checked" % (label, expected))]
    keys = [row.key() for row in rows]
    for k in set(keys):
        if keys.count(k) > 1:
            out.append((False, "%s: %s lists the run %s %s as %s %d times"
                        % ((label, expected) + k + (keys.count(k),))))
    plans, results, problems = parse_transcript(transcript)
    out += [(False, "%s: %s" % (label, p)) for p in problems]
    if len(plans) != 1:
        out.append((False, "%s: the guest printed %d LAB-PLAN lines, not 1 (%s)"
                    % (label, len(plans), transcript)))
    else:
        plan = plans[0]
        out.append((plan == len(results) == len(rows),
                    "%s: the guest planned %d runs and printed %d RESULT lines; %s lists %d"
                    % (label, plan, len(results), expected, len(rows))))
    for r in results:
        if r["step"] != str(number):
            out.append((False, "%s: %s %s as %s says step=%s" % ((label,) + r.key() + (r["step"],))))
    for row in rows:
        got = [r for r in results if r.key() == row.key()]
        if not got:
            out.append((False, "%s: %s: no RESULT line (history says %s)"
                        % (label, row.run(), row.prediction())))
        elif len(got) > 1:
            out.append((False, "%s: %s: %d RESULT lines, one expected"
                        % (label, row.run(), len(got))))
        else:
            diff = matches(row, got[0])
            if diff is None:
                out.append((True, "%s: %s: %s" % (label, row.run(), cell_text(got[0]))))
            else:
                out.append((False, "%s: %s: measured %s, history says %s (%s; detail: %s)"
                            % (label, row.run(), cell_text(got[0]), row.prediction(), diff,
                               got[0]["detail"])))
    for r in results:
        if r.key() not in keys:
            out.append((False, "%s: unexpected RESULT line for %s %s as %s: %s (%s)"
                        % ((label,) + r.key() + (cell_text(r), r["detail"]))))
    return out


def cmd_check(args):
    tap = Tap()
    for ok, msg in check(args.number, args.label, args.expected, args.transcript):
        tap.check(ok, msg)
    if not tap.failed:
        return 0
    if args.skip_on_error:
        plans, runs, problems = parse_transcript(args.transcript)
        if problems or len(plans) != 1 or any(r["verdict"] == "error" for r in runs):
            return 125
    return 1


def cmd_matrix(args):
    steps, order, titles = [], [], []  # steps: (label, rows by key, results by key)
    debian = set()  # the autofs versions Debian's automount reported
    for label, title, expected, transcript in args.step:
        titles.append("%s: %s" % (label, title))
        with open(transcript, encoding="utf-8", errors="replace") as f:
            debian.update(re.findall(r"# Debian's autofs (\S+), ", f.read()))
        try:
            rows = parse_expected(expected)
        except (OSError, ValueError) as e:
            return error(str(e))
        _, results, _ = parse_transcript(transcript)
        for row in rows:
            if row.key() not in order:
                order.append(row.key())
        steps.append((label, {row.key(): row for row in rows}, by_run(results)))
    if not steps:
        return error("no step has run yet")
    cells = diffs = 0
    head = "%-44s" % "run (program, ABI, name the kernel sees)"
    md = ["| run | " + " | ".join(t.replace("|", "\\|") for t in titles) + " |",
          "|---|" + "---|" * len(steps)]
    text = titles + ["", (head + "".join("%-32s" % s[0] for s in steps)).rstrip()]
    for key in order:
        line = "%-44s" % ("%s %s as %s" % key)
        mdline = "| %s %s as `%s` |" % key
        for label, rows, by_key in steps:
            row = rows.get(key)
            if row is None:
                line += "%-32s" % "·"
                mdline += " · |"
                continue
            cells += 1
            got = by_key.get(key, [])
            r = got[0] if len(got) == 1 else None
            measured = "%d results" % len(got) if len(got) > 1 else cell_text(r)  # None: missing
            if r is not None and matches(row, r) is None:
                line += "%-32s" % (measured + " ✓")
                mdline += " %s ✓ |" % measured
            else:
                diffs += 1
                line += "%-32s" % ("%s ✗ history: %s" % (measured, row.prediction()))
                mdline += " **%s** ✗ history: %s |" % (measured, row.prediction())
        text.append(line.rstrip())
        md.append(mdline)
    text.append("measured in the guest; ✓ = as history predicts, ✗ = differs "
                "(steps/*/expected); · = not run in that step")
    if debian:
        note = ("Debian's automount rows ran autofs %s (as `automount -V` "
                "reported it in the guest)" % " and ".join(sorted(debian)))
        text.append(note.replace("`", ""))
        md += ["", note]
    text.append("all %d cells match history" % cells if not diffs
                else "%d of %d cells differ from history" % (diffs, cells))
    out = "\n".join(text) + "\n"
    sys.stdout.write(out)
    if args.txt:
        with open(args.txt, "w", encoding="utf-8") as f:
            f.write(out)
    if args.md:
        with open(args.md, "w", encoding="utf-8") as f:
            f.write("\n".join(md) + "\n")
    return 1 if diffs else 0


def error(msg):
    """A matrix that cannot be made: exit 2 (1 is a matrix with cells
    that differ from history)."""
    sys.stderr.write("results.py: %s\n" % msg)
    return 2


def cmd_show(args):
    plans, results, problems = parse_transcript(args.transcript)
    print("plan: %s" % (", ".join(map(str, plans)) or "none"))
    for r in results:
        print("%-16s %-7s %-14s %s" % (r["reader"], r["abi"], r["comm"], cell_text(r)))
    for p in problems:
        print("problem: " + p)
    return 1 if problems else 0


def judge(base, goal, goal_expected, tried):
    """make try's verdict on a learner's kernel: (lines, differing) where
    lines is the side-by-side table (run | base measured | yours | the
    goal's prediction) and differing the runs whose result is not the
    goal's, each (run text, yours, goal's, why)."""
    rows = parse_expected(goal_expected)
    _, base_runs, _ = parse_transcript(base[1]) if base[1] else ([], [], [])
    _, mine, problems = parse_transcript(tried)
    by_base = {r.key(): r for r in base_runs}
    by_mine = by_run(mine)
    width = max([len(row.run()) for row in rows] + [10])
    head = "%-*s  %-30s %-30s %s" % (width, "run (program, ABI, name)", base[0], "your kernel",
                                    goal + " (history)")
    lines, differing = [head, "-" * len(head)], []
    for row in rows:
        b = by_base.get(row.key())
        got = by_mine.get(row.key(), [])
        if len(got) == 1:
            yours = cell_text(got[0])
            why = matches(row, got[0])
            why = why and "%s; detail: %s" % (why, got[0]["detail"])
        else:
            yours = "missing" if not got else "%d RESULT lines" % len(got)
            why = "no one RESULT line for it"
        lines.append("%-*s  %-30s %-30s %s%s" % (width, row.run(), cell_text(b) if b else "·", yours,
                                                  row.prediction(), "" if why is None else "   <- differs"))
        if why is not None:
            differing.append((row, yours, why))
    differing += [(None, "", p) for p in problems]
    return lines, differing


def cmd_judge(args):
    goal_label, goal_expected = args.goal
    lines, differing = judge(args.base, goal_label, goal_expected, args.transcript)
    print("\n".join(lines))
    print()
    n = len(lines) - 2
    if not differing:
        print("VERDICT: every run as the goal, %s: %d of %d" % (goal_label, n, n))
        return 0
    # a run whose daemon takes its lookups from another ABI (DAEMON+ABI)
    # that differs while the same daemon's own run does not: the packet
    # followed the ABI of the process that walked in
    rows = {row.key(): row for row, _, _ in differing if row is not None}
    caller = sorted(row.run() for k, row in rows.items()
                    if "+" in k[0] and (k[0].split("+")[0], k[1], k[2]) not in rows)
    print("VERDICT: %d of %d runs differ from the goal, %s:" % (len(differing), n, goal_label))
    for row, yours, why in differing:
        if row is None:
            print("  the transcript: %s" % why)
        else:
            print("  %s: yours %s, the goal %s (%s)" % (row.run(), yours, row.prediction(), why))
    # x32 rows that differ where the same run's x86_64 row is as the
    # goal: x32 has x86_64's layout, yet the kernel takes it for a compat
    # task (the trap of 2012's step 2 and of today's step 6)
    goal = {row.key() for row in parse_expected(goal_expected)}
    x32 = sorted(row.run() for k, row in rows.items()
                 if k[1] == "x32" and (k[0], "x86_64", k[2]) in goal
                 and (k[0], "x86_64", k[2]) not in rows)
    if x32:
        print("  An x32 run differs where its x86_64 twin is as the goal (%s): x32 programs"
              " lay out a __u64 as x86_64 does, yet in_compat_syscall() is true for them."
              " Is your fix asking whether the caller is 32-bit, when what matters is"
              " its layout (i386's)?" % "; ".join(x32))
    if caller:
        print("  A lucky fix? %s differ%s where the same daemon with its own lookups is as the"
              " goal: the packet followed the ABI of the process that walked into the mount,"
              " not the daemon's. Whose ABI counts is the daemon's, known when it mounts or"
              " sets its pipe, not in_compat_syscall() when the packet is written."
              % ("; ".join(caller), "s" if len(caller) == 1 else ""))
    return 1


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("check")
    c.add_argument("--number", type=int, required=True)
    c.add_argument("--skip-on-error", action="store_true")
    c.add_argument("--label", required=True)
    c.add_argument("expected")
    c.add_argument("transcript")
    m = sub.add_parser("matrix")
    m.add_argument("--txt")
    m.add_argument("--md")
    m.add_argument("--step", nargs=4, action="append", default=[],
                   metavar=("LABEL", "TITLE", "EXPECTED", "TRANSCRIPT"))
    s = sub.add_parser("show")
    s.add_argument("transcript")
    j = sub.add_parser("judge")
    j.add_argument("--base", nargs=2, metavar=("LABEL", "TRANSCRIPT"), required=True)
    j.add_argument("--goal", nargs=2, metavar=("LABEL", "EXPECTED"), required=True)
    j.add_argument("transcript")
    args = ap.parse_args(argv)
    return {"check": cmd_check, "matrix": cmd_matrix, "show": cmd_show, "judge": cmd_judge}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
