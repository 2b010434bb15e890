#!/usr/bin/env python3
"""The Python tests' TAP (labhost/tap.py, tests/tapunit.py) as lib/tap.sh
reads it: each check one test, a message's other lines comments, a SKIP
with its reason, a crash named, and a command's stderr never a test.
Run by `python3 -m unittest` (from scripts/, LAB_ROOT set), or as a
program: one TAP line a test."""

import io
import os
import subprocess
import sys
import unittest
from contextlib import redirect_stdout

import labenv  # tests/, which Python puts first for a script there
import tapunit
from labhost.limits import limit
from labhost.tap import Tap

SCRIPTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def sample():
    """A TestCase with checks of each kind (out of the module's namespace,
    where unittest would run it for real)."""
    class Sample(tapunit.Checks):
        def test_checks(self):
            self.check(True, "one")
            self.check(False, "two", got=[2])
            self.skip("three", "a reason")

        def test_plain(self):
            """a test without checks"""

        def test_crash(self):
            raise ValueError("boom")
    return Sample


def tap_sh(program):
    """lib/tap.sh's stream of a Python program (its source)."""
    return subprocess.run(["bash", os.path.join(SCRIPTS, "lib", "tap.sh"), sys.executable, "-c", program],
                          capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=SCRIPTS),
                          timeout=limit("LIMIT_SHORT")).stdout


setUpModule = labenv.limits  # under unittest, outside the lab


class TapLines(unittest.TestCase):
    def test_printer(self):
        """Tap prints each check as tap.sh's tap_point would, and counts"""
        buf, tap = io.StringIO(), Tap()
        with redirect_stdout(buf):
            tap.check(True, "a")
            tap.check(False, "b\nwhy\nmore")
            tap.skip("c", "no tree")
        self.assertEqual(buf.getvalue(), "ok - a\nnot ok - b\n#   why\n#   more\nok - c # SKIP no tree\n")
        self.assertEqual((tap.passed, tap.failed, tap.skipped, tap.status()), (1, 1, 1, 1))

    def test_result(self):
        """a TestCase's checks, a test without checks and a crash, as TAP lines"""
        buf, result = io.StringIO(), tapunit.TapResult()
        with redirect_stdout(buf):
            unittest.defaultTestLoader.loadTestsFromTestCase(sample()).run(result)
        lines = [x for x in buf.getvalue().splitlines() if not x.startswith("#   ")]
        self.assertEqual(lines[:3] + lines[4:], ["ok - one", "not ok - two", "ok - three # SKIP a reason",
                                                 "ok - a test without checks"])
        self.assertRegex(lines[3], r"^not ok - \S*Sample\.test_crash ran to its end$")
        self.assertIn("#   got [2]\n", buf.getvalue())
        self.assertIn("#   ValueError: boom\n", buf.getvalue())
        self.assertEqual(result.tap.status(), 1)

    def test_tap_sh(self):
        """tap.sh counts the printer's lines, and an "ok" on stderr is a comment"""
        out = tap_sh("import sys\nfrom labhost.tap import Tap\nt = Tap()\nt.check(True, 'a')\n"
                     "t.check(False, 'b\\nok - in a message')\nt.skip('c', 'why')\n"
                     "print('ok - on stderr', file=sys.stderr)\nsys.exit(t.status())\n")
        self.assertEqual(out.splitlines()[-1], "1 passed, 1 failed, 1 skipped", out)
        self.assertIn("\n#   ok - in a message\n", out)
        self.assertIn("\n# ok - on stderr\n", out)

    def test_tap_sh_crash(self):
        """a crash's last stderr line is named in the failure tap.sh adds"""
        out = tap_sh("print('ok - a')\nraise SystemExit('labhost: no table')\n")
        self.assertEqual(out.splitlines()[-1], "1 passed, 1 failed", out)
        self.assertIn("ran to its end (exit 1: labhost: no table)", out)


if __name__ == "__main__":
    sys.exit(tapunit.main())
