"""The Python tests' TAP lines, written here and nowhere else.

A Python test program prints one plain line per check and lib/tap.sh's
tap_run numbers them ("ok - WHAT", "not ok - WHAT", "ok - WHAT # SKIP
WHY"; any other line is a comment). This is their one printer, so that
every program writes them as tap.sh's tap_point does: a message's lines
after the first are "#   " comments, and a line of output (a command's,
quoted in a message) is never read as a test. Stdlib only, and no
unittest (its side is tests/tapunit.py): results.py prints make run's verdict
with it too.
"""


def line(ok, what, skip=None):
    """The text of one check: WHAT's first line after "ok - " or "not ok - "
    (and " # SKIP " and why), its other lines as comments."""
    first, _, rest = str(what).partition("\n")
    text = ("ok - " if ok else "not ok - ") + first + ("" if skip is None else " # SKIP " + skip)
    return text + ("\n#   " + rest.replace("\n", "\n#   ") if rest else "")


class Tap:
    """One program's checks, each printed as it is made, and counted:
    status() is the program's exit status."""

    def __init__(self):
        self.passed = self.failed = self.skipped = 0

    def check(self, ok, what):
        print(line(ok, what))  # sys.stdout as it is now: redirect_stdout holds
        if ok:
            self.passed += 1
        else:
            self.failed += 1

    def skip(self, what, why):
        print(line(True, what, why))
        self.skipped += 1

    def status(self):
        return 1 if self.failed else 0

