#!/usr/bin/env python3
"""Unit tests of abi-scan's parts on canned input, no kernel tree needed:
the pahole parser and the comparison on testdata/pahole/ABI.pa (pahole's
output for testdata/synthetic.h, with its path written as /UAPI/), the
ioctl finder on synthetic.h, the handling summary. Prints "ok - ..." or
"not ok - ..." per check, which test.sh numbers (scripts/tap.sh); exit 1
if any failed."""

import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from abiscan.compare import ABIS, compare, x32_relation  # noqa: E402
from abiscan.crossing import ioctl_types  # noqa: E402
from abiscan.kernel import summarize_notes  # noqa: E402
from abiscan.layout import parse_pahole, read_sizes  # noqa: E402
from abiscan.proof import compile_joined  # noqa: E402

TD = os.path.join(HERE, "testdata")
results = []


def check(ok, what, got=None):
    results.append(ok)
    print(("ok - " if ok else "not ok - ") + what)
    if not ok and got is not None:
        print(f"#   got {got!r}")


def expected():
    rows = []
    with open(os.path.join(TD, "expected.tsv")) as f:
        for l in f:
            if l.strip() and not l.startswith("#"):
                name, cls, sizes, member, offs = l.rstrip("\n").split("\t")
                rows.append((name, int(cls), sizes.split("/"), member, offs.split("/")))
    return rows


def joined_checks():
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
        got = compile_joined("x86_64", paths, d, d)
        ok = {os.path.basename(p): rc for p, (rc, _e) in got.items()}
        check(ok == {"a.c": 1, "b.c": 1, "c.c": 0}, "proof: joined files keep their own verdicts, "
              "a clash is compiled apart", ok)
        err = got[paths[1]][1]             # b.c went through a joined unit with c.c
        check(err.startswith(paths[1] + ":2:"), "proof: an assertion's message names its own file "
              "and line", err[:120])


def main():
    lay = {}
    for abi in ABIS:
        with open(os.path.join(TD, "pahole", abi + ".pa")) as f:
            lay[abi] = parse_pahole(f.read(), "/UAPI", sizes=read_sizes(os.path.join(TD, "pahole", abi + ".sizes")))
    for name, cls, sizes, member, offs in expected():
        t = {abi: lay[abi].get(name) for abi in ABIS}
        if not all(t.values()):
            check(False, f"parser: {name} is parsed on every ABI")
            continue
        got = [str(t[a].size) for a in ABIS]
        check(got == sizes, f"parser: {name} is {'/'.join(sizes)} bytes", got)
        got = [str(next((m.offset for m in t[a].members if m.path == member), None)) for a in ABIS]
        check(got == offs, f"parser: {name}.{member} is at {'/'.join(offs)}", got)
        v = compare(t["i386"], t["x86_64"])
        check(v.cls == cls, f"compare: {name} is class {cls}", (v.cls, v.detail))
    t = {abi: lay[abi]["abiscan_slot"] for abi in ABIS}
    check(compare(t["i386"], t["x86_64"]).same_bytes, "compare: abiscan_slot's bytes are identical")
    t = {abi: lay[abi]["abiscan_long"] for abi in ABIS}
    check(not compare(t["i386"], t["x86_64"]).same_bytes, "compare: abiscan_long's layout differs")
    check(x32_relation(t) == "i386", "x32: abiscan_long has the i386 layout on x32", x32_relation(t))
    t = {abi: lay[abi]["abiscan_bound"] for abi in ABIS}
    names = sorted({m.path for a in ABIS for m in t[a].members})
    check(names == ["a", "m"], "parser: an array's bound is not part of its name", names)
    v = compare(lay["i386"]["abiscan_flexarr"], lay["x86_64"]["abiscan_flexarr"])
    check("items[1]" in v.detail, "compare: abiscan_flexarr names items[1] as moved", v.detail)
    with open(os.path.join(TD, "synthetic.h")) as f:
        ioc = ioctl_types({"abiscan/synthetic.h": f.read()})
    check(list(ioc) == [("struct", "abiscan_ioctl")], "crossing: the _IOR in synthetic.h takes "
          "struct abiscan_ioctl", list(ioc))
    h = summarize_notes(["aligned annotation in x.h, which does not fix it"])
    check(h.startswith("nothing found"), "handling: an annotation that fixes nothing is no handling", h)
    h = summarize_notes(["compat twin: struct compat_x (a.c:1)", "packed annotation in x.h, which does not fix it"])
    check(h == "compat twin", "handling: a twin counts, the annotation does not", h)
    joined_checks()
    return 1 if False in results else 0


if __name__ == "__main__":
    sys.exit(main())
