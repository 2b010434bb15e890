"""unittest's side of the Python tests' TAP (labhost/tap.py), so that one
test file runs either way: found by `python3 -m unittest`, or run as a
program whose lines make check's suite numbers (lib/tap.sh's tap_run).

    Checks   a TestCase whose check() is a subtest of its own: a check
             that fails is named, and the test goes on to the next
    main()   runs a program's TestCases, each check (or a test without
             checks) one TAP line; its exit status
"""

import sys
import traceback
import unittest

from labhost.tap import Tap


class Checks(unittest.TestCase):
    longMessage = False  # a failure says the check's own words, no more

    def check(self, ok, what, got=None):
        """One check, a subtest of its own; when it fails, what was GOT."""
        with self.subTest(what):
            self.assertTrue(ok, what if got is None else "%s\ngot %r" % (what, got))

    def skip(self, what, why):
        """A check that cannot be made here, and why."""
        with self.subTest(what):
            self.skipTest(why)


def _what(test):
    # a subtest's words (unittest keeps them as _message), else the test's
    return getattr(test, "_message", None) or test.shortDescription() or test.id()


class TapResult(unittest.TestResult):
    """Each check a TAP line as it ends; a test without checks, one line."""

    def __init__(self):
        super().__init__()
        self.tap = Tap()
        self.test, self.checks = None, 0

    def startTest(self, test):
        super().startTest(test)
        self.test, self.checks = test, 0

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        self.checks += 1
        what = _what(subtest)
        if err is None:
            self.tap.check(True, what)
            return
        # check()'s failure is its words (and what it got); any other, a trace
        why = str(err[1]) if issubclass(err[0], test.failureException) else _trace(err)
        self.tap.check(False, why if why.startswith(what) else "%s\n%s" % (what, why))

    def addSuccess(self, test):
        super().addSuccess(test)
        if not self.checks:
            self.tap.check(True, _what(test))

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self.checks += test is not self.test  # a check's skip, not the test's
        self.tap.skip(_what(test), reason)

    # outside a check: the test stopped there, and says where
    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.tap.check(False, "%s ran to its end\n%s" % (test.id(), _trace(err)))

    def addError(self, test, err):
        super().addError(test, err)
        self.tap.check(False, "%s ran to its end\n%s" % (test.id(), _trace(err)))


def _trace(err):
    return "".join(traceback.format_exception(*err)).rstrip("\n")


def main(module="__main__"):
    """Run MODULE's TestCases as TAP lines; 1 if any check failed."""
    result = TapResult()
    unittest.defaultTestLoader.loadTestsFromModule(sys.modules[module]).run(result)
    return result.tap.status()
