#!/usr/bin/env python3
"""Draw struct autofs_v5_packet as three x86 ABIs see it, from real debug info.

    layout-svg.py KERNEL_ELF I386_ELF X32_ELF OUT.svg [TRANSCRIPT]

Runs `gdb -batch -ex 'ptype /o struct autofs_v5_packet'` on the three ELF
files (the step's vmlinux, x86_64, and an i386 and an x32 guest program
built against the same <linux/auto_fs.h>) and draws the members row by
row, one column per ABI: offsets, sizes, and the tail padding that only
some of them have. x32 has 32-bit pointers and long but aligns __u64 to 8:
the picture says it has x86_64's layout although the kernel treats it as a
compat task, and the script refuses to draw when gdb says otherwise (or
when an ELF has no such struct, or the ABIs do not have the same members).
TRANSCRIPT, optional, is a guest transcript with autofs-layout's LAYOUT
lines; their alignof_u64 values go into the notes (their sizeof must match
gdb's). Every number in the picture comes from these files.

The SVG has no XML prolog, no blank line and no external reference, so it
can be inlined into a Markdown page (docs.sh does that with snippets).
Called by scripts/docs/docs.sh; stdlib only.
"""

import math
import os
import re
import subprocess
import sys
import textwrap

from labhost.limits import limit
from svg import Svg  # docs/generators/svg.py, next to this script

STRUCT = "autofs_v5_packet"

RE_MEMBER = re.compile(r"^/\*\s+(\d+)\s+\|\s+(\d+)\s+\*/\s+(.*)$")
RE_HOLE = re.compile(r"^/\*\s+XXX\s+(\d+)-byte\s+(padding|hole)\s*\*/$")
RE_TOTAL = re.compile(r"/\*\s+total size \(bytes\):\s+(\d+)\s+\*/")
RE_CLOSE = re.compile(r"^\}\s*(\w+)?\s*;?$")


def die(msg):
    sys.exit("layout-svg.py: " + msg)


def ptype(elf):
    """The text of `ptype /o struct STRUCT` in ELF, from gdb."""
    cmd = ["gdb", "-batch", "-nx", "-ex", "ptype /o struct " + STRUCT, elf]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=limit("LIMIT_SHORT"))
    except (OSError, subprocess.TimeoutExpired) as e:
        die("%s: %s" % (" ".join(cmd), e))
    if out.returncode != 0 or "total size" not in out.stdout:
        die("gdb found no struct %s in %s:\n%s%s" % (STRUCT, elf, out.stdout, out.stderr))
    return out.stdout


def parse(text):
    """Leaf members, padding and the total size of a `ptype /o` listing.

    Returns (rows, total): rows are dicts with offset, size, name (dotted
    for members of nested structs), decl (type and name as gdb printed
    them) and kind "field" or "padding"/"hole".
    """
    rows, stack, totals = [], [], []
    for raw in text.splitlines():
        line = raw.strip()
        m = RE_MEMBER.match(line)
        if m:
            off, size, decl = int(m.group(1)), int(m.group(2)), m.group(3).strip()
            if decl.endswith("{"):
                # a nested struct: its name only comes with the closing brace
                stack.append({"offset": off, "size": size, "rows": len(rows)})
                continue
            decl = decl.rstrip(";").strip()
            name = re.sub(r"\[.*$", "", decl.split()[-1]).lstrip("*")
            rows.append({"offset": off, "size": size, "decl": decl,
                         "name": name, "prefix": len(stack), "kind": "field"})
            continue
        m = RE_HOLE.match(line)
        if m:
            size = int(m.group(1))
            last = rows[-1] if rows else None
            off = last["offset"] + last["size"] if last else 0
            rows.append({"offset": off, "size": size, "decl": "",
                         "name": "", "prefix": len(stack), "kind": m.group(2)})
            continue
        m = RE_TOTAL.search(line)
        if m:
            totals.append(int(m.group(1)))
            continue
        m = RE_CLOSE.match(line)
        if m and stack:
            nested = stack.pop()
            outer = m.group(1)      # None for an anonymous struct or union
            for r in rows[nested["rows"]:]:
                if r["kind"] == "field" and r["prefix"] > len(stack):
                    if outer:
                        r["name"] = outer + "." + r["name"]
                        r["decl"] = re.sub(r"(\S+)$", outer + r".\1", r["decl"])
                    r["prefix"] -= 1
            continue
        if ":" in line and line.startswith("/*") and "|" in line:
            die("bit-fields are not supported: " + line)
    if not rows or not totals:
        die("could not parse the ptype /o output:\n" + text)
    # the last total is the outer struct's; the rows must cover it exactly
    total = totals[-1]
    end = max(r["offset"] + r["size"] for r in rows)
    if end != total:
        die("the members and padding end at byte %d, but the total size is %d:\n%s"
            % (end, total, text))
    return rows, total


def alignments(transcript):
    """{abi: alignof_u64} from autofs-layout's LAYOUT lines, if any."""
    found = {}
    if not transcript:
        return found
    try:
        with open(transcript, encoding="utf-8", errors="replace") as f:
            for line in f:
                m = re.match(r"LAYOUT abi=(\S+) sizeof=(\d+) .*? alignof_u64=(\d+)", line)
                if m:
                    found[m.group(1)] = (int(m.group(2)), int(m.group(3)))
    except OSError:
        pass
    return found


COL_FIELD = "#dbe9f6"
COL_STROKE = "#3d5f8f"
COL_INO = "#fde8b0"
COL_INO_STROKE = "#a57a00"
COL_PAD = "#f6b8b0"
COL_PAD_STROKE = "#b42318"

# the columns, left to right: (abi, who, what the kernel makes of it)
ABIS = (("x86_64", "the kernel", "native"),
        ("i386", "the 32-bit daemon", "a compat task"),
        ("x32", "the x32 daemon", "a compat task"))


def row_height(size):
    # grows with the size, but a 4-byte field stays readable and a
    # 256-byte array does not swallow the picture
    return round(26 + 4.2 * math.sqrt(size))


def text_width(s, size, mono=False):
    # an upper estimate: DejaVu Sans Mono is 0.602 em, DejaVu Sans less
    return len(s) * size * (0.61 if mono else 0.58)


def fit(s, size, width, mono=False):
    """The font size at most SIZE that makes S fit in WIDTH pixels."""
    return min(size, round(width / max(text_width(s, 1, mono), 1), 1))


def words(names):
    names = list(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def grouped(pairs):
    """[(value, [abi, ...])] for [(abi, value)], in the order values appear."""
    groups = []
    for abi, value in pairs:
        for v, abis in groups:
            if v == value:
                abis.append(abi)
                break
        else:
            groups.append((value, [abi]))
    return groups


def merge(layouts):
    """One row per member, in order, and one per padding after a member.

    Each row is a dict: kind ("field" or "padding"), name, decl (the
    kernel's), and cells: one row of ptype's per ABI, or None where that
    ABI has no such padding. The ABIs must have the same members.
    """
    names = [[r["name"] for r in L["rows"] if r["kind"] == "field"] for L in layouts]
    for L, n in zip(layouts[1:], names[1:]):
        if n != names[0]:
            die("%s and %s do not have the same members of struct %s:\n  %s: %s\n  %s: %s"
                % (layouts[0]["abi"], L["abi"], STRUCT, layouts[0]["abi"],
                   " ".join(names[0]), L["abi"], " ".join(n)))
    # per ABI: fields[i], and the padding rows after field i (-1: before any)
    split = []
    for L in layouts:
        fields, pads = [], {-1: []}
        for r in L["rows"]:
            if r["kind"] == "field":
                fields.append(r)
                pads[len(fields) - 1] = []
            else:
                pads[len(fields) - 1].append(r)
        split.append((fields, pads))
    rows = []
    for i in range(-1, len(names[0])):
        if i >= 0:
            cells = [f[i] for f, _ in split]
            rows.append({"kind": "field", "name": cells[0]["name"],
                         "decl": cells[0]["decl"], "cells": cells})
        for j in range(max(len(p[i]) for _, p in split)):
            cells = [p[i][j] if j < len(p[i]) else None for _, p in split]
            # gdb's word for it: "padding" or "hole"
            what = next(c for c in cells if c)["kind"]
            tail = all(c is None or c["offset"] + c["size"] == L["total"]
                       for c, L in zip(cells, layouts))
            rows.append({"kind": "padding", "name": "", "decl": "", "cells": cells,
                         "what": "tail padding" if tail else what, "tail": tail})
    return rows


def same_layout(a, b):
    """Die unless layouts A and B have the same members at the same offsets,
    of the same sizes, and the same sizeof (so the same padding too)."""
    def members(L):
        return {r["name"]: (r["offset"], r["size"]) for r in L["rows"] if r["kind"] == "field"}
    ma, mb = members(a), members(b)
    names = [r["name"] for r in a["rows"] if r["kind"] == "field"]
    names += [n for n in mb if n not in ma]

    def show(m):
        return "offset %d, %d bytes" % m if m else "no such member"
    diff = ["  %-18s %s: %-22s %s: %s" % (n, a["abi"], show(ma.get(n)), b["abi"],
                                          show(mb.get(n)))
            for n in names if ma.get(n) != mb.get(n)]
    if a["total"] != b["total"]:
        diff.append("  %-18s %s: %-22d %s: %d" % ("sizeof", a["abi"], a["total"],
                                                  b["abi"], b["total"]))
    if diff:
        die("the picture says %s has %s's layout, but gdb says otherwise (%s, %s):\n%s"
            % (b["abi"], a["abi"], b["elf"], a["elf"], "\n".join(diff)))


def colours(r):
    """(fill, stroke) of a member or padding row: padding red, ino, whose
    alignment makes the padding, apart from the other fields."""
    if r["kind"] != "field":
        return COL_PAD, COL_PAD_STROKE
    if r["name"] == "ino":
        return COL_INO, COL_INO_STROKE
    return COL_FIELD, COL_STROKE


def draw(layouts, aligns):
    W = 760
    svg = Svg(W, "layout", text_size=14, rx=3)
    LX = 16                     # margin
    OW = 56                     # left column: the offsets
    OX = LX + OW / 2
    DX = LX + OW + 8            # the member column: its declaration
    BW, GAP = 130, 8            # a box: one ABI's field
    AX = W - LX - 3 * BW - 2 * GAP
    DW = AX - 8 - DX
    cols = [AX + i * (BW + GAP) for i in range(len(layouts))]
    abis = [L["abi"] for L in layouts]
    totals = [L["total"] for L in layouts]
    rows = merge(layouts)

    nsizes = len(set(totals))
    svg.text(W / 2, 28, "struct %s: the same fields, %s" % (
        STRUCT, {1: "one size", 2: "two sizes"}.get(nsizes, "%d sizes" % nsizes)),
        size=19, anchor="middle", weight="bold")
    svg.text(W / 2, 50, "gdb ptype /o of the kernel and of the i386 and x32 daemons, "
             "all built from the same <linux/auto_fs.h>", size=13, anchor="middle",
             fill="#444")

    y = 80
    svg.text(OX, y, "offset", size=14, anchor="middle", weight="bold", fill="#444")
    svg.text(DX, y, "member", size=14, weight="bold", fill="#444")
    for (abi, who, kind), x in zip(ABIS, cols):
        svg.text(x + BW / 2, y, abi, size=16, anchor="middle", weight="bold")
        svg.text(x + BW / 2, y + 17, who, size=fit(who, 12.5, BW - 4), anchor="middle",
                 fill="#333")
        svg.text(x + BW / 2, y + 32, kind, size=11.5, anchor="middle", fill="#666",
                 italic=True)
    y += 46

    decl_size = min(fit(r["decl"], 13.5, DW - 30, mono=True) for r in rows if r["decl"])
    for row in rows:
        cells = row["cells"]
        present = [c for c in cells if c]
        h = row_height(max(c["size"] for c in present))
        mid = y + h / 2
        offsets = set(c["offset"] for c in present)
        differ = len(offsets) > 1
        # the offset column: once if every ABI has the row at the same offset
        if differ:
            svg.text(OX, mid + 5, "\u2260", size=17, anchor="middle", weight="bold",
                     fill=COL_PAD_STROKE)
        else:
            whole = len(present) == len(cells)
            svg.text(OX, mid + 5, str(present[0]["offset"]), size=15, anchor="middle",
                     mono=True, weight="normal" if whole else "bold",
                     fill="#1a1a1a" if whole else COL_PAD_STROKE)
        # the member column
        if row["kind"] == "field":
            label = row["decl"]
            svg.text(DX, mid + 5, label, size=decl_size, mono=True)
            lead = DX + text_width(label, decl_size, mono=True) + 8
        else:
            label = row["what"]
            svg.text(DX, mid + 5, label, size=13.5, weight="bold", fill=COL_PAD_STROKE)
            lead = DX + text_width(label, 13.5) + 8
        if lead < AX - 16:
            svg.line(lead, mid, AX, mid, "#b8c4d6")
        # one box per ABI
        for c, x, L in zip(cells, cols, layouts):
            if c is None:
                # another ABI has padding here, this one does not
                svg.rect(x + 5, y + 4, BW - 10, h - 8, "#ffffff", "#9a9a9a", dash="5 4")
                note = "none: ends at %d" % L["total"] if row["tail"] else "no " + row["what"]
                svg.text(x + BW / 2, mid + 4.5, note, size=fit(note, 12.5, BW - 20),
                         anchor="middle", fill="#666", italic=True)
                continue
            fill, stroke = colours(c)
            svg.rect(x, y, BW, h, fill, stroke, sw=2 if c["kind"] != "field" else 1.2)
            size = "%d B" % c["size"]
            bold = "bold" if c["kind"] != "field" else "normal"
            # on the left, in red: the offset if the ABIs disagree on it, and
            # the type if this ABI declares the member otherwise
            left = ["at %d" % c["offset"]] if differ else []
            if c["kind"] == "field" and c["decl"] != row["decl"]:
                left.append(c["decl"].rsplit(None, 1)[0])
            if left:
                left = " ".join(left)
                svg.text(x + 8, mid + 5, left, mono=True, weight="bold", fill=COL_PAD_STROKE,
                         size=fit(left, 13, BW - 24 - text_width(size, 13, True), True))
                svg.text(x + BW - 8, mid + 5, size, size=13, anchor="end", mono=True,
                         weight=bold, fill="#333")
            else:
                svg.text(x + BW / 2, mid + 5, size, size=13.5, anchor="middle", mono=True,
                         weight=bold, fill="#333")
        y += h

    # the end of each struct
    y += 30
    svg.text(DX, y, "sizeof", size=18, weight="bold")
    for total, x in zip(totals, cols):
        big = total != min(totals)
        svg.text(x + BW / 2, y, str(total), size=19, anchor="middle", weight="bold",
                 fill=COL_PAD_STROKE if big else "#1a1a1a")
        if big:
            svg.text(x + BW - 6, y, "%+d" % (total - min(totals)), size=13, anchor="end",
                     weight="bold", fill=COL_PAD_STROKE)

    # to scale: one bar per ABI
    y += 36
    svg.text(LX, y, "To scale, byte 0 to the end:", size=14, weight="bold")
    y += 12
    x0 = LX + 60
    scale = (W - 2 * LX - 60 - 36) / max(totals)
    top = y
    ends = []
    for L in layouts:
        svg.text(LX, y + 17, L["abi"], size=13, mono=True)
        for r in L["rows"]:
            fill, stroke = colours(r)
            svg.rect(x0 + r["offset"] * scale, y, r["size"] * scale, 24, fill, stroke,
                     sw=0.8, rx=0)
            if r["name"] == "name":
                svg.text(x0 + (r["offset"] + r["size"] / 2) * scale, y + 17,
                         r["decl"].split()[-1], size=12.5, anchor="middle", mono=True)
        svg.text(x0 + L["total"] * scale + 4, y + 17, str(L["total"]), size=12.5,
                 mono=True, weight="bold",
                 fill=COL_PAD_STROKE if L["total"] != min(totals) else "#1a1a1a")
        ends.append((L["abi"], max(r["offset"] + r["size"] for r in L["rows"]
                                   if r["kind"] == "field")))
        y += 32
    # a tick where the fields end
    groups = grouped(ends)
    if len(groups) == 1:
        x_end = x0 + groups[0][0] * scale
        svg.line(x_end, top - 6, x_end, y - 2, COL_PAD_STROKE, 1.2, dash="3 3")
        tick = "fields end at byte %d in all %s" % (
            groups[0][0], {2: "two", 3: "three"}.get(len(ends), str(len(ends))))
    else:
        for i, (abi, end) in enumerate(ends):
            x_end = x0 + end * scale
            svg.line(x_end, top + 32 * i - 4, x_end, top + 32 * i + 28, COL_PAD_STROKE, 1.2,
                     dash="3 3")
        tick = "fields end at byte " + ", ".join(
            "%d on %s" % (end, words(a)) for end, a in groups)
    svg.text(x0 + max(e for _, e in ends) * scale, y + 12, tick, size=12.5, anchor="end",
             fill=COL_PAD_STROKE)

    # why
    y += 40
    same = all(len(set(c["offset"] for c in r["cells"] if c)) == 1
               for r in rows if r["kind"] == "field")
    # all but the tail: every row in every ABI, at the same offset, same size
    inner = all(None not in r["cells"] and len(set((c["offset"], c["size"])
                                                   for c in r["cells"])) == 1
                for r in rows if not r.get("tail"))
    tails = [(abi, sum(r["cells"][i]["size"] for r in rows
                       if r.get("tail") and r["cells"][i]))
             for i, abi in enumerate(abis)]
    notes = []
    if inner:
        notes.append("Every member sits at the same offset in all three ABIs; %s" % (
            "only the end differs." if nsizes > 1 else "so does the end."))
    elif same:
        notes.append("Every member sits at the same offset in all three ABIs.")
    else:
        notes.append("The members marked \u2260 sit at different offsets: each box "
                     "gives its own offset.")
    for L in layouts:
        if L["abi"] in aligns and aligns[L["abi"]][0] != L["total"]:
            die("the transcript says sizeof %d on %s, gdb says %d (%s)"
                % (aligns[L["abi"]][0], L["abi"], L["total"], L["elf"]))
    if all(a in aligns for a in abis):
        al = grouped((abi, aligns[abi][1]) for abi in abis)
        note = ("__u64 ino is %s (alignof_u64 printed by autofs-layout)" % " and ".join(
            "%d-byte aligned on %s" % (a, words(g)) for a, g in al))
        if all(L["total"] % aligns[L["abi"]][1] == 0 for L in layouts):
            note += (", and sizeof rounds the struct up to a multiple of that: %s."
                     % ", ".join("%d on %s" % (t, words(g))
                                 for t, g in grouped(zip(abis, totals))))
        else:
            note += "."
        notes.append(note)
    else:
        notes.append("sizeof rounds the struct up to a multiple of its alignment, which "
                     "is that of __u64 ino.")
    # same_layout() made sure the picture can say this
    notes.append("x32 has x86_64's layout (sizeof %d) although the kernel treats an x32 "
                 "task as a compat task, like an i386 one (sizeof %d): the size follows "
                 "the alignment of __u64, not compat." % (layouts[2]["total"],
                                                          layouts[1]["total"]))
    for n in notes:
        for line in textwrap.wrap(n, 96):
            svg.text(LX, y, line, size=13.5, fill="#333")
            y += 20
        y += 4

    # where it comes from
    y += 8
    svg.text(LX, y, "Drawn from gdb's ptype /o of:", size=12.5, fill="#555")
    y += 18
    for L in layouts:
        svg.text(LX + 12, y, L["abi"], size=11.5, mono=True, fill="#555")
        svg.text(LX + 72, y, L["label"], size=fit(L["label"], 11.5, W - 2 * LX - 72, True),
                 mono=True, fill="#555")
        y += 16
    y += 6

    title = "struct %s on %s" % (STRUCT, words(
        "%s (sizeof %d)" % (abi, t) for abi, t in zip(abis, totals)))
    desc = ("Field by field layout from gdb ptype /o: %s offsets, %s."
            % ("identical" if same else "different",
               "; ".join("%s on %s" % ("%d bytes of tail padding" % p if p else
                                       "no tail padding", words(g))
                         for p, g in grouped(tails))))
    return svg.render(y, title, desc)


def main(argv):
    if len(argv) not in (5, 6):
        die("usage: layout-svg.py KERNEL_ELF I386_ELF X32_ELF OUT.svg [TRANSCRIPT]")
    elfs, out = argv[1:4], argv[4]
    transcript = argv[5] if len(argv) == 6 else None

    def label(path):
        rel = os.path.relpath(path)
        return path if rel.startswith("..") else rel
    layouts = []
    for (abi, _, _), elf in zip(ABIS, elfs):
        rows, total = parse(ptype(elf))
        layouts.append({"abi": abi, "rows": rows, "total": total, "elf": elf,
                        "label": label(elf)})
    same_layout(layouts[0], layouts[2])
    svg = draw(layouts, alignments(transcript))
    with open(out + ".tmp", "w", encoding="utf-8") as f:
        f.write(svg)
    os.replace(out + ".tmp", out)
    print("layout-svg.py: %s: %s, %s rows" % (
        out, ", ".join("%s sizeof %d" % (L["abi"], L["total"]) for L in layouts),
        " + ".join(str(len(L["rows"])) for L in layouts)))


if __name__ == "__main__":
    main(sys.argv)
