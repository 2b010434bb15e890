#!/usr/bin/env python3
"""Unit tests of abi-scan's parts on canned input, no kernel tree needed:
the pahole parser and the comparison on abi-scan/testdata/pahole/ABI.pa
(pahole's output for testdata/synthetic.h, with its path written as
/UAPI/), the ioctl finder on synthetic.h, the handling summary, which
headers may share an object (on headers and gcc -H trees written here).
Each check is a subtest of Units (tests/tapunit.py): `python3 -m unittest`
runs them (from scripts/, LAB_ROOT set), and so does this file run as a
program, one TAP line a check (labhost/tap.py) that make check's suite
"scan-units" numbers (lib/tap.sh's tap_run); exit 1 if any failed."""

import os
import sys
import tempfile

import labenv  # tests/, which Python puts first for a script there
import tapunit
from labhost.abis import ABIS

ABISCAN = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "abi-scan")
TD = os.path.join(ABISCAN, "testdata")
sys.path.insert(0, ABISCAN)  # the scanner's package, abiscan/, is there
from abiscan.compare import ALIGNED64, COMPAT, NATIVE, aligned64_relation, compare
from abiscan.crossing import ioctl_types
from abiscan.fileinfo import parse_tree
from abiscan.groups import Model, Planner, split
from abiscan.kernel import summarize_notes
from abiscan.layout import parse_pahole, read_sizes
from abiscan.proof import compile_joined

setUpModule = labenv.limits  # under unittest, outside the lab


def expected():
    rows = []
    with open(os.path.join(TD, "expected.tsv")) as f:
        for l in f:
            if l.strip() and not l.startswith("#"):
                name, cls, sizes, member, offs = l.rstrip("\n").split("\t")
                rows.append((name, int(cls), sizes.split("/"), member, offs.split("/")))
    return rows


def joined_checks(tc):
    """Assertions compiled as one unit are given back to their own file
    and line; two headers that clash are compiled apart."""
    with tempfile.TemporaryDirectory() as d:
        hdrs = {"a.h": "struct ja { __u32 x; __u64 y; };",
                "b.h": "struct jb { __u64 y; __u32 x; };",
                "c.h": "struct ja { int clash; };"}
        for h, body in hdrs.items():
            with open(os.path.join(d, h), "w") as f:
                f.write(f"#ifndef G_{h[0]}\n#define G_{h[0]}\n#include <linux/types.h>\n{body}\n#endif\n")
        srcs = {"a.c": "#include <a.h>\n_Static_assert(sizeof(struct ja) == 12, \"struct ja sizeof 12\");",
                "b.c": "#include <b.h>\n_Static_assert(sizeof(struct jb) == 12, \"struct jb sizeof 12\");",
                "c.c": "#include <c.h>\n_Static_assert(sizeof(struct ja) == 4, \"struct ja sizeof 4\");"}
        paths = []
        for n, t in srcs.items():
            paths.append(os.path.join(d, n))
            with open(paths[-1], "w") as f:
                f.write(t + "\n")
        got = compile_joined(NATIVE, paths, d, d)
        ok = {os.path.basename(p): rc for p, (rc, _e) in got.items()}
        tc.check(ok == {"a.c": 1, "b.c": 1, "c.c": 0}, "proof: joined files keep their own verdicts, "
                 "a clash is compiled apart", ok)
        err = got[paths[1]][1]             # b.c went through a joined unit with c.c
        tc.check(err.startswith(paths[1] + ":2:"), "proof: an assertion's message names its own file "
                 "and line", err[:120])


# headers for the grouping checks: NAME -> (text, files it opens; a dot
# more for each level deeper)
GROUP_HDRS = {
    "t.h": ("#define T_MAX 4\n", []),
    "a.h": ("#include <t.h>\nstruct a { int x[T_MAX]; };\n", ["t.h"]),
    "b.h": ("#include <t.h>\nstruct b { int y; };\n", ["t.h"]),
    "early.h": ("#ifdef T_MAX\nstruct e { int z; };\n#endif\n#include <t.h>\n", ["t.h"]),
    "be.h": ("#define BIG_BITFIELD\n", []),
    "ip.h": ("#ifdef BIG_BITFIELD\nstruct ip { int v:4, l:4; };\n#else\n"
             "struct ip { int l:4, v:4; };\n#endif\n", []),
    "gen.h": ("#ifndef KL\ntypedef long kl_t;\n#endif\n", []),
    "t64.h": ("#include <gen.h>\n", ["gen.h"]),
    "tx32.h": ("typedef long long kl_t;\n#define KL\n#include <t64.h>\n", ["t64.h", ".gen.h"]),
    "g1.h": ("struct g1 { int a; };\n", []),
    "g2.h": ("struct g2 { int b; };\n", []),
}


def tree_text(h, inc):
    """gcc -H's lines for compiling h alone."""
    lines = [f". /U/{h}"]
    for i in inc:
        name = i.lstrip(".")
        lines.append("." * (2 + len(i) - len(name)) + f" /U/{name}")
    return "\n".join(lines) + "\n"


def group_checks(tc):
    """A header shares an object only with headers whose macros cannot
    change how its files read."""
    texts = {}
    for h, (body, _inc) in GROUP_HDRS.items():
        guard = "G_SAME" if h in ("g1.h", "g2.h") else "G_" + h[:-2].upper()
        texts["/U/" + h] = f"#ifndef {guard}\n#define {guard}\n{body}#endif\n"
    trees = {h: parse_tree(tree_text(h, inc)) for h, (_b, inc) in GROUP_HDRS.items()}
    planner = Planner(trees, Model(trees, texts.get))
    groups = planner.plan(["b.h", "a.h", "early.h", "be.h", "ip.h", "t64.h", "tx32.h", "g1.h", "g2.h"],
                          "/U/")
    where = {h: i for i, g in enumerate(groups) for h in g}
    tc.check(where["a.h"] == where["b.h"], "groups: a header that uses t.h's macro after its #include "
             "joins a group that read t.h before", groups)
    tc.check(where["early.h"] != where["a.h"], "groups: a header that tests a macro before it "
             "includes its file does not join a group that read the file", groups)
    tc.check(where["be.h"] != where["ip.h"], "groups: a macro that flips bitfields keeps the "
             "header it would flip apart", groups)
    tc.check(where["g1.h"] != where["g2.h"], "groups: two headers with one include guard are "
             "apart", groups)
    tc.check(where["t64.h"] != where["tx32.h"], "groups: a file a group read before, that a header "
             "reads after its own macro, keeps the header apart", groups)
    parts = split(planner, ["a.h", "b.h", "be.h", "ip.h"], "/U/")
    tc.check(parts[0] == ["a.h", "b.h"] and sorted(h for g in parts for h in g) ==
             ["a.h", "b.h", "be.h", "ip.h"], "groups: a split keeps the first half, plans the rest", parts)


# Each group of checks is given tc, the test that runs it (Units, below).
def layout_checks(tc):
    lay = {}
    for abi in ABIS:
        with open(os.path.join(TD, "pahole", abi + ".pa")) as f:
            lay[abi] = parse_pahole(f.read(), "/UAPI", sizes=read_sizes(os.path.join(TD, "pahole", abi + ".sizes")))
    for name, cls, sizes, member, offs in expected():
        t = {abi: lay[abi].get(name) for abi in ABIS}
        if not all(t.values()):
            tc.check(False, f"parser: {name} is parsed on every ABI")
            continue
        got = [str(t[a].size) for a in ABIS]
        tc.check(got == sizes, f"parser: {name} is {'/'.join(sizes)} bytes", got)
        got = [str(next((m.offset for m in t[a].members if m.path == member), None)) for a in ABIS]
        tc.check(got == offs, f"parser: {name}.{member} is at {'/'.join(offs)}", got)
        v = compare(t[COMPAT], t[NATIVE])
        tc.check(v.cls == cls, f"compare: {name} is class {cls}", (v.cls, v.detail))
    t = {abi: lay[abi]["abiscan_slot"] for abi in ABIS}
    tc.check(compare(t[COMPAT], t[NATIVE]).same_bytes, "compare: abiscan_slot's bytes are identical")
    t = {abi: lay[abi]["abiscan_long"] for abi in ABIS}
    tc.check(not compare(t[COMPAT], t[NATIVE]).same_bytes, "compare: abiscan_long's layout differs")
    tc.check(aligned64_relation(t) == COMPAT, f"{ALIGNED64}: abiscan_long has the {COMPAT} layout "
             f"on {ALIGNED64}", aligned64_relation(t))
    t = {abi: lay[abi]["abiscan_bound"] for abi in ABIS}
    names = sorted({m.path for a in ABIS for m in t[a].members})
    tc.check(names == ["a", "m"], "parser: an array's bound is not part of its name", names)
    v = compare(lay[COMPAT]["abiscan_flexarr"], lay[NATIVE]["abiscan_flexarr"])
    tc.check("items[1]" in v.detail, "compare: abiscan_flexarr names items[1] as moved", v.detail)
    with open(os.path.join(TD, "synthetic.h")) as f:
        ioc = ioctl_types({"abiscan/synthetic.h": f.read()})
    tc.check(list(ioc) == [("struct", "abiscan_ioctl")], "crossing: the _IOR in synthetic.h takes "
             "struct abiscan_ioctl", list(ioc))
    h = summarize_notes(["aligned annotation in x.h, which does not fix it"])
    tc.check(h.startswith("nothing found"), "handling: an annotation that fixes nothing is no handling", h)
    h = summarize_notes(["compat twin: struct compat_x (a.c:1)", "packed annotation in x.h, which does not fix it"])
    tc.check(h == "compat twin", "handling: a twin counts, the annotation does not", h)


class Units(tapunit.Checks):
    """The checks above, each a subtest: as unittest runs them, and as TAP."""

    def test_layout(self):
        layout_checks(self)

    def test_joined(self):
        joined_checks(self)

    def test_groups(self):
        group_checks(self)


if __name__ == "__main__":
    sys.exit(tapunit.main())
