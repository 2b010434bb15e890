#!/usr/bin/env python3
"""Host tests of the RESULT rules (results.py) and the gdb value checks
(gdbcheck.py), on made-up transcripts: each rule must be able to fail.
Each check is a subtest of Rules (tests/tapunit.py): `python3 -m
unittest` runs them (from scripts/, LAB_ROOT set), and so does this file
run as a program, one TAP line a check (labhost/tap.py) that make check's
suite "results" numbers (lib/tap.sh's tap_run); exit 1 if any failed."""

import io
import os
import sys
import tempfile
from contextlib import redirect_stderr, redirect_stdout

import gdbcheck  # scripts/, which Python puts first for a script there
import tapunit
from labhost import results

EXPECTED = """# program abi name verdict cause sizes
systemd-style    i386    systemd-style  broken  leftover  got=4 want=300
automount-style  i386    automount      ok      none      queued=304 got=304
"""


def line(reader, abi, comm, verdict, cause, q="-", w="-", g="-", step=1, detail="x"):
    return ('RESULT step=%d reader=%s abi=%s comm=%s verdict=%s cause=%s packets=2 '
            'queued=%s want=%s got=%s detail="%s"' % (step, reader, abi, comm, verdict,
                                                       cause, q, w, g, detail))


GOOD = [line("systemd-style", "i386", "systemd-style", "broken", "leftover", 4, 300, 4),
        line("automount-style", "i386", "automount", "ok", "none", 304, 304, 304)]


def run(expected, lines, plan=None):
    """results.check() on files made of these lines: (all ok, messages)."""
    with tempfile.TemporaryDirectory() as d:
        e, t = os.path.join(d, "expected"), os.path.join(d, "transcript.txt")
        with open(e, "w") as f:
            f.write(expected)
        with open(t, "w") as f:
            f.write("LAB-BEGIN step=1\n")
            if plan is not False:
                f.write("LAB-PLAN runs=%d\n" % (len(lines) if plan is None else plan))
            f.write("\n".join(lines) + "\nLAB-END step=1\n")
        out = results.check(1, "step 1", e, t)
    return all(ok for ok, _ in out), " | ".join(m for ok, m in out if not ok)


def fails(tc, desc, needle, expected, lines, plan=None):
    ok, why = run(expected, lines, plan)
    tc.check(not ok and needle in why, "%s (said: %s)" % (desc, why or "nothing"))


# Each group of checks is given tc, the test that runs it (Rules, below).
def rules(tc):
    ok, why = run(EXPECTED, GOOD)
    tc.check(ok, "a transcript that matches its expectations passes" + (" (%s)" % why if why else ""))
    fails(tc, "an error never matches an expected broken", "verdict error, cause watchdog",
          EXPECTED, [line("systemd-style", "i386", "systemd-style", "error", "watchdog"),
                     GOOD[1]])
    fails(tc, "broken for another cause fails", "verdict broken, cause stall", EXPECTED,
          [line("systemd-style", "i386", "systemd-style", "broken", "stall", 300, 304, 300),
           GOOD[1]])
    fails(tc, "the right cause with other sizes fails", "got=8 where 4 was predicted", EXPECTED,
          [line("systemd-style", "i386", "systemd-style", "broken", "leftover", 8, 300, 8),
           GOOD[1]])
    fails(tc, "a run without a RESULT line is named", "systemd-style i386 as systemd-style: no "
          "RESULT line", EXPECTED, GOOD[1:], plan=2)
    fails(tc, "a duplicate RESULT line is named", "automount-style i386 as automount: 2 RESULT",
          EXPECTED, GOOD + GOOD[1:])
    fails(tc, "an unexpected RESULT line is named", "unexpected RESULT line for systemd-style "
          "x86_64", EXPECTED, GOOD + [line("systemd-style", "x86_64", "systemd-style", "ok",
                                           "none", 304, 304, 304)])
    fails(tc, "an expected row too many fails", "no RESULT line", EXPECTED +
          "systemd-style x86_64 systemd-style ok none\n", GOOD)
    fails(tc, "an expected file with no rows fails", "has no rows", "# nothing\n", GOOD)
    fails(tc, "a plan that differs from the RESULT lines fails", "planned 3 runs", EXPECTED,
          GOOD, plan=3)
    fails(tc, "a transcript without a plan fails", "0 LAB-PLAN lines", EXPECTED, GOOD, plan=False)
    fails(tc, "a RESULT line of another step fails", "says step=2", EXPECTED,
          [GOOD[0], line("automount-style", "i386", "automount", "ok", "none", 304, 304,
                         304, step=2)])
    fails(tc, "a malformed RESULT line fails", "malformed RESULT line", EXPECTED,
          GOOD + ["RESULT step=1 reader=x verdict=ok"])
    fails(tc, "an expected file may not predict an error", "cannot be expected",
          EXPECTED.replace("broken  leftover", "error   leftover"), GOOD)


COOKIE = "bpf-cookie i386 bpf-cookie broken misplaced sent=0x1122334455667788 seen=0x0000000011223344 at=20 read_at=24\n"


def cookie(cause="misplaced", seen="0x0000000011223344", read_at="24", values=None, verdict="broken"):
    """A bpf-cookie RESULT line (step 6's): the values after got=."""
    v = values if values is not None else (
        "sent=0x1122334455667788 seen=%s at=20 read_at=%s" % (seen, read_at))
    return ('RESULT step=1 reader=bpf-cookie abi=i386 comm=bpf-cookie verdict=%s cause=%s '
            'packets=1 queued=- want=- got=-%s detail="x"' % (verdict, cause, " " + v if v else ""))


# Step 6's rows name values too: the cookie sent and seen, where the
# program put it and where the kernel read it. Each must be able to fail.
def values(tc):
    ok, why = run(COOKIE, [cookie()])
    tc.check(ok, "a cookie seen as history predicts passes" + (" (%s)" % why if why else ""))
    fails(tc, "a cookie lost (seen 0, read nowhere) where it should be misplaced fails",
          "cause lost", COOKIE, [cookie("lost", "0x0000000000000000", "-")])
    fails(tc, "misplaced, but another value seen, fails", "seen=0x5566778800000000 where",
          COOKIE, [cookie(seen="0x5566778800000000")])
    fails(tc, "the right value read at another offset fails", "read_at=28 where 24",
          COOKIE, [cookie(read_at="28")])
    fails(tc, "a line without the values history names fails", "at=(none) where",
          COOKIE, [cookie(values="")])
    fails(tc, "a value that is not a number is malformed", "is not one of",
          COOKIE, [cookie(values="sent=0x1122334455667788 seen=zz at=20 read_at=24")])
    fails(tc, "a value history does not know is malformed", "is not one of",
          COOKIE, [cookie(values="sent=1 bogus=2 seen=0x0000000011223344 at=20 read_at=24")])
    r = results.parse_line(cookie())
    tc.check(results.cell_text(r) == "broken (0x0000000011223344 at 24)",
             "the matrix says what the kernel read and where: %s" % results.cell_text(r))
    ok, why = run(COOKIE.replace("at=20", "at=0x14"), [cookie(values="sent=1234605616436508552 "
                                                                    "seen=0x11223344 at=20 read_at=24")])
    tc.check(ok, "a value is a number, in decimal or hex alike" + (" (%s)" % why if why else ""))


def cells(tc):
    r = results.parse_line(GOOD[0])
    tc.check(results.cell_text(r) == "broken (leftover 4)",
             "the matrix says broken (leftover 4): %s" % results.cell_text(r))
    r = results.parse_line(line("a", "i386", "a", "broken", "stall", 300, 304, 300))
    tc.check(results.cell_text(r) == "broken (stall at 300 of 304)",
             "the matrix says broken (stall at 300 of 304): %s" % results.cell_text(r))


# make's matrix and make try's verdict (results.py matrix, judge, show):
# only the build-tier suites run them, so their words are pinned here.
E2 = """automount-style  x86_64  automount      ok      none
automount-style  x32     automount      ok      none
automount-style  i386    automount      ok      none
automount-style+i386  x86_64  automount  ok     none
debian-automount i386    automount      ok      none
"""
T2 = ["LAB-PLAN runs=5",
      line("automount-style", "i386", "automount", "ok", "none", step=2)
      .replace("i386", "x86_64"),
      line("automount-style", "x32", "automount", "broken", "stall", 300, 304, 300, step=2),
      line("automount-style", "i386", "automount", "ok", "none", step=2),
      line("automount-style+i386", "x86_64", "automount", "broken", "short", 1, 304, 300, step=2),
      line("automount-style+i386", "x86_64", "automount", "ok", "none", step=2),
      "RESULT step=2 bad"]


def main_out(argv):
    buf = io.StringIO()
    with redirect_stdout(buf), redirect_stderr(io.StringIO()):
        rc = results.main(argv)
    return rc, buf.getvalue()


def commands(tc):
    with tempfile.TemporaryDirectory() as d:
        e1, t1, e2, t2, txt, md = (os.path.join(d, n) for n in ("e1", "t1", "e2", "t2", "txt", "md"))
        for path, text in ((e1, EXPECTED), (e2, E2), (t2, "\n".join(T2) + "\n"),
                           (t1, "LAB-PLAN runs=2\n# Debian's autofs 5.1.8, x\n" + "\n".join(GOOD) + "\n")):
            with open(path, "w") as f:
                f.write(text)
        rc, out = main_out(["matrix", "--txt", txt, "--md", md, "--step", "step 1", "one | a", e1, t1,
                            "--step", "step 2", "two", e2, t2])
        with open(txt) as f:
            tc.check(f.read() == out, "matrix --txt writes what it prints")
        want = [
            "step 1: one | a", "step 2: two", "",
            "run (program, ABI, name the kernel sees)    step 1                          step 2",
            "systemd-style i386 as systemd-style         broken (leftover 4) ✓           ·",
            "automount-style i386 as automount           ok ✓                            ok ✓",
            "automount-style x86_64 as automount         ·                               ok ✓",
            "automount-style x32 as automount            ·                               "
            "broken (stall at 300 of 304) ✗ history: ok (none)",
            "automount-style+i386 x86_64 as automount    ·                               "
            "2 results ✗ history: ok (none)",
            "debian-automount i386 as automount          ·                               "
            "missing ✗ history: ok (none)",
            "measured in the guest; ✓ = as history predicts, ✗ = differs (steps/*/expected); "
            "· = not run in that step",
            "Debian's automount rows ran autofs 5.1.8 (as automount -V reported it in the guest)",
            "3 of 7 cells differ from history"]
        tc.check(rc == 1 and out.splitlines() == want, "the matrix, as make prints it", out)
        with open(md) as f:
            out = f.read()
        tc.check(out.splitlines()[:2] == ["| run | step 1: one \\| a | step 2: two |", "|---|---|---|"]
                 and "| automount-style x32 as `automount` | · | **broken (stall at 300 of 304)** "
                 "✗ history: ok (none) |" in out and out.endswith(
                     "\n\nDebian's automount rows ran autofs 5.1.8 (as `automount -V` reported it "
                     "in the guest)\n"), "the matrix in markdown", out)
        rc, out = main_out(["matrix"])
        tc.check(rc == 2 and out == "", "a matrix of no step is an error")

        rc, out = main_out(["judge", "--base", "step 1 (measured)", t1, "--goal", "step 2", e2, t2])
        lines = out.splitlines()
        tc.check(rc == 1 and lines[0] == "run (program, ABI, name)                  step 1 (measured)"
                 "              your kernel                    step 2 (history)"
                 and lines[1] == "-" * len(lines[0])
                 and lines[3] == "automount-style x32 as automount          ·                   "
                 "           broken (stall at 300 of 304)   ok (none)   <- differs"
                 and lines[4] == "automount-style i386 as automount         ok                  "
                 "           ok                             ok (none)", "make try's table", out)
        for want in ("VERDICT: 4 of 5 runs differ from the goal, step 2:",
                     "  automount-style x32 as automount: yours broken (stall at 300 of 304), the goal "
                     "ok (none) (verdict broken, cause stall; detail: x)",
                     "  automount-style+i386 x86_64 as automount: yours 2 RESULT lines, the goal ok "
                     "(none) (no one RESULT line for it)",
                     "  the transcript: malformed RESULT line: RESULT step=2 bad",
                     "  An x32 run differs where its x86_64 twin is as the goal (automount-style x32 "
                     "as automount): x32",
                     "  A lucky fix? automount-style+i386 x86_64 as automount differs where"):
            tc.check(want in out, "make try's verdict says: " + want.strip()[:50], out)
        rc, out = main_out(["judge", "--base", "step 1", t1, "--goal", "step 1", e1, t1])
        tc.check(rc == 0 and out.endswith("\n\nVERDICT: every run as the goal, step 1: 2 of 2\n"),
                 "make try's verdict when every run is as the goal", out)

        rc, out = main_out(["show", t2])
        tc.check(rc == 1 and out.splitlines()[0] == "plan: 5" and out.splitlines()[4] ==
                 "automount-style+i386 x86_64  automount      broken (short 300 of 304)"
                 and out.endswith("problem: malformed RESULT line: RESULT step=2 bad\n"),
                 "results.py show", out)
        rc, out = main_out(["check", "--skip-on-error", "--number", "2", "--label", "s", e2, t2])
        tc.check(rc == 125, "check --skip-on-error: 125 for a transcript with a problem", out)


def gdb_values(tc):
    """gdbcheck: a value must be printed once and be as the checks say."""
    with tempfile.TemporaryDirectory() as d:
        checks, log, t = (os.path.join(d, n) for n in ("checks", "gdb.log", "t.txt"))
        with open(checks, "w") as f:
            f.write("size 304\nflags 0x10\npid requester systemd-style i386 1\n")
        with open(t, "w") as f:
            f.write("$ systemd-style --step 1   # systemd-style, i386 build\n"
                    "systemd-style: request 1 (lookup a by pid 71): kernel queued 304\n")
        for desc, text, needle in (
                ("gdb values as the checks say pass", "size=304\nflags=16\npid=71\n", None),
                ("a gdb value that differs fails", "size=300\nflags=16\npid=71\n",
                 "size (checks:1) = 300, expected 304"),
                ("a gdb value printed twice fails", "size=304\nsize=304\nflags=16\npid=71\n",
                 "printed 2 times"),
                ("a gdb value never printed fails", "flags=16\npid=71\n", "printed 0 times"),
                ("a packet naming another pid fails", "size=304\nflags=16\npid=72\n",
                 "pid (checks:3) = 72, expected 71")):
            with open(log, "w") as f:
                f.write("".join("LAB-VALUE " + x + "\n" for x in text.split()))
            buf = io.StringIO()
            with redirect_stdout(buf):
                rc = gdbcheck.main(["--label", "t", checks, log, t])
            out = buf.getvalue()
            good = rc == 0 if needle is None else (rc == 1 and needle in out)
            tc.check(good, "%s (said: %s)" % (desc, " | ".join(
                x for x in out.splitlines() if x.startswith("not ok")) or "all ok"))


class Rules(tapunit.Checks):
    """The checks above, each a subtest: as unittest runs them, and as TAP."""

    def test_rules(self):
        rules(self)

    def test_cells(self):
        cells(self)

    def test_values(self):
        values(self)

    def test_gdb_values(self):
        gdb_values(self)

    def test_commands(self):
        commands(self)


if __name__ == "__main__":
    sys.exit(tapunit.main())
