#!/usr/bin/env python3
"""The step model (labhost/steps.py) for the shell: scripts/common.sh's
step helpers call this and parse nothing themselves.

    step-model.py [--root LAB_ROOT] slugs            every step's slug, in order
    step-model.py [--root LAB_ROOT] conf SLUG KEY    a step.conf value (nothing if unset)
    step-model.py [--root LAB_ROOT] resolve ARG      the slug of STEP=ARG (number or slug)
    step-model.py [--root LAB_ROOT] pristine         the step that says "pristine:"
    step-model.py [--root LAB_ROOT] programs SLUG    what its guest runs: program abi name
    step-model.py [--root LAB_ROOT] gdb-script SLUG  its gdb script (nothing if it has none)

Anything in steps/ that breaks a rule: "error: ..." naming the file and
line, exit 1. An unknown STEP= lists the valid ones and exits 2."""

import argparse
import sys

from labhost import steps as model


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", help="the lab's root (default: this checkout)")
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("slugs")
    c = sub.add_parser("conf")
    c.add_argument("slug")
    c.add_argument("key")
    r = sub.add_parser("resolve")
    r.add_argument("arg")
    sub.add_parser("pristine")
    p = sub.add_parser("programs")
    p.add_argument("slug")
    g = sub.add_parser("gdb-script")
    g.add_argument("slug")
    a = ap.parse_args(argv)
    try:
        if a.cmd == "slugs":
            out = "".join(s.slug + "\n" for s in model.steps(a.root))
        elif a.cmd == "conf":
            if a.key not in model.KEYS:
                raise model.StepError("step.conf has no key '%s' (the keys: %s)"
                                      % (a.key, ", ".join(model.KEYS)))
            value = model.step(a.slug, a.root).conf.get(a.key)
            out = "" if value is None else value + "\n"
        elif a.cmd == "resolve":
            s = model.resolve(a.arg, a.root)
            if s is None:
                lines = ['error: unknown step "%s". Valid steps (STEP= takes either form):' % a.arg]
                lines += ["  STEP=%-3s STEP=%-20s %s" % (s.number, s.slug, s.title)
                          for s in model.steps(a.root)]
                sys.stderr.write("\n".join(lines) + "\n")
                return 2
            out = s.slug + "\n"
        elif a.cmd == "pristine":
            out = model.pristine(a.root).slug + "\n"
        elif a.cmd == "gdb-script":
            s = model.step(a.slug, a.root)
            out = s.gdb_script + "\n" if s.has_gdb() else ""
        else:
            out = model.step(a.slug, a.root).programs()
    except (model.StepError, OSError) as e:
        sys.stderr.write("error: %s\n" % e)
        return 1
    sys.stdout.write(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
