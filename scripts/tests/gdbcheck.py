#!/usr/bin/env python3
"""Check the values a step's gdb script printed against its gdb-checks file.

    gdbcheck.py --label LABEL CHECKS GDB_LOG TRANSCRIPT

The script prints records "LAB-VALUE name=value" (lab-value in
gdb-scripts/lab/checks.py). CHECKS has one line per value that must be so:

    name   expected

where expected is a number (decimal or 0x..), a word, or
"requester PROG ABI N": the pid that PROG (built for ABI) logged as the
process behind its request N, in TRANSCRIPT, the guest transcript of the
same boot. A value that was not printed, or printed more than once, fails.
One TAP line per check (labhost/tap.py); exit 1 on any failure.
"""

import argparse
import os
import re
import sys

from labhost.tap import Tap

RE_VALUE = re.compile(r"^LAB-VALUE ([a-z][a-z0-9_]*)=(.*)$")
# a run's first line in the transcript, and its daemon's log of a request
RE_RUN = re.compile(r"^\$ (\S+) .*#\s*(\S+), (\S+) build\s*$")
RE_REQUEST = re.compile(r"^\S+: request (\d+) \((lookup \S+|expire) by pid (\d+)\)")


def requesters(path, prog, abi):
    """{request number: pid} that a daemon's log in a transcript names:
    the processes whose lookups and expires it served (serve.c)."""
    out, inside = {}, False
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = RE_RUN.match(line)
            if m:
                inside = (m.group(2), m.group(3)) == (prog, abi)
                continue
            m = RE_REQUEST.match(line) if inside else None
            if m:
                out.setdefault(int(m.group(1)), int(m.group(3)))
    return out


def values(log):
    out = {}
    with open(log, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = RE_VALUE.match(line.rstrip("\r\n"))
            if m:
                out.setdefault(m.group(1), []).append(m.group(2))
    return out


def same(expected, got):
    try:
        return int(expected, 0) == int(got, 0)
    except ValueError:
        return expected == got


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--label", required=True)
    ap.add_argument("checks")
    ap.add_argument("log")
    ap.add_argument("transcript")
    a = ap.parse_args(argv)
    tap = Tap()
    try:
        seen = values(a.log)
    except OSError as e:
        tap.check(False, "%s: no gdb log: %s" % (a.label, e))
        return tap.status()
    with open(a.checks, encoding="utf-8") as f:
        rows = [(i, line.split("#", 1)[0].split()) for i, line in enumerate(f, 1)]
    rows = [(i, w) for i, w in rows if w]
    if not rows:
        tap.check(False, "%s: %s lists no checks" % (a.label, a.checks))
    for lineno, words in rows:
        name, want = words[0], " ".join(words[1:])
        what = "%s (%s:%d)" % (name, os.path.basename(a.checks), lineno)
        if words[1:2] == ["requester"]:
            if len(words) != 5 or not words[4].isdigit():
                tap.check(False, "%s: %s: use 'requester PROG ABI N'" % (a.label, what))
                continue
            try:
                pid = requesters(a.transcript, words[2], words[3]).get(int(words[4]))
            except OSError as e:
                tap.check(False, "%s: %s: %s" % (a.label, what, e))
                continue
            if pid is None:
                tap.check(False, "%s: %s: %s %s logged no request %s in %s"
                          % (a.label, what, words[2], words[3], words[4], a.transcript))
                continue
            want = str(pid)
        got = seen.get(name, [])
        if len(got) != 1:
            tap.check(False, "%s: %s printed %d times, expected %s"
                      % (a.label, what, len(got), want))
        elif same(want, got[0]):
            tap.check(True, "%s: %s = %s" % (a.label, name, got[0]))
        else:
            tap.check(False, "%s: %s = %s, expected %s" % (a.label, what, got[0], want))
    return tap.status()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
