#!/usr/bin/env python3
"""abi-scan analysis: find uapi structs whose layout differs between i386,
x86_64 and x32, classify the difference, look in a kernel tree for how the
kernel copes, and have the compiler confirm every number reported.
abi-scan.sh runs the phases in order:

  plan     which (header, ABI) objects are missing or stale -> jobs.txt
  probe    record the compiles; for headers that fail stand-alone, find the
           header they need first and plan a compile with it -> jobs2.txt
  analyze  read the layouts, compare, annotate, prove, write the reports

Layouts come from pahole (Debian: dwarves), not libabigail or readelf:
pahole is already a lab dependency, `-E` prints every member of every
struct with its offset and size with nested types expanded, `-I` gives the
declaring file:line, and one pahole run per object is fast (about 1 ms).
The parts are in abiscan/ (see its __init__.py). Python stdlib only.
"""

import argparse

from abiscan.analyze import cmd_analyze
from abiscan.cache import Ctx, cmd_plan
from abiscan.probe import cmd_probe


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("phase", choices=["plan", "probe", "analyze"])
    p.add_argument("--uapi", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--ksrc")
    p.add_argument("--cflags", required=True, help="compile flags (part of the cache key)")
    p.add_argument("--toolkey", required=True, help="compiler and pahole versions (cache key)")
    p.add_argument("--only", help="comma-separated globs of headers to scan")
    p.add_argument("--quiet", action="store_true")
    a = p.parse_args()
    ctx = Ctx(a)
    {"plan": cmd_plan, "probe": cmd_probe, "analyze": cmd_analyze}[a.phase](ctx)


if __name__ == "__main__":
    main()
