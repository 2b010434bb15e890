#!/usr/bin/env python3
"""abi-scan analysis: find uapi structs whose layout differs between i386,
x86_64 and x32, classify the difference, look in a kernel tree for how the
kernel copes, and have the compiler confirm every number reported.
abi-scan.sh runs the phases in order (probe and objects in one process):

  plan     which (header, ABI) stand-alone compiles are missing or stale
           -> jobs.txt (abi-scan.sh compiles them)
  probe    record the compiles; for headers that fail stand-alone, find the
           header they need first
  objects  group the headers that read their files alike, compile one
           object per group and ABI (and one per header with a prelude)
           and let pahole read each
  analyze  read the layouts, compare, annotate, prove, write the reports

Layouts come from pahole (Debian: dwarves), not libabigail or readelf:
pahole is already a lab dependency, `-E` prints every member of every
struct with its offset and size with nested types expanded, `-I` gives the
declaring file:line. A process start costs more here than a header's
compile, hence the groups: about 100 objects instead of 2,800.
The parts are in abiscan/ (see its __init__.py). Python stdlib only.
"""

import argparse
import importlib

from abiscan.cache import Ctx

# phase -> module: imported when run (a warm scan starts Python thrice)
PHASES = {"plan": "cache", "probe": "probe", "objects": "objects", "analyze": "analyze"}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("phases", nargs="+", choices=list(PHASES))
    p.add_argument("--uapi", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--ksrc")
    p.add_argument("--cflags", required=True, help="compile flags (part of the cache key)")
    p.add_argument("--toolkey", required=True, help="compiler and pahole versions (cache key)")
    p.add_argument("--only", help="comma-separated globs of headers to scan")
    p.add_argument("--quiet", action="store_true")
    a = p.parse_args()
    ctx = Ctx(a)
    for phase in a.phases:
        getattr(importlib.import_module("abiscan." + PHASES[phase]), "cmd_" + phase)(ctx)


if __name__ == "__main__":
    main()
