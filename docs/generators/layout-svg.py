#!/usr/bin/env python3
"""Draw a struct as three x86 ABIs see it, from real debug info.

    layout-svg.py [options] KERNEL_ELF I386_ELF X32_ELF OUT.svg [TRANSCRIPT]

Runs `gdb -batch -ex 'ptype /o EXPR'` on the three ELF files (the step's
vmlinux, x86_64, and an i386 and an x32 guest program built against the
same uapi header) and draws the members row by row, one column per ABI:
offsets, sizes, the holes and the tail padding that only some of them
have. EXPR is struct autofs_v5_packet unless --ptype says otherwise.
x32 has 32-bit pointers and long but aligns __u64 to 8: the picture says
it has x86_64's layout although the kernel treats it as a compat task, and
the script refuses to draw when gdb says otherwise (or when an ELF has no
such type, or the ABIs do not have the same members).

Options (all optional; without them, the autofs picture of step 1):
  --ptype EXPR     what follows `ptype /o`, e.g. a struct inside another
                   type: '((union bpf_attr *) 0)->link_create.tracing'
  --within TYPE    draw offsets as bytes of TYPE, not of EXPR: EXPR must
                   then be ((TYPE *) 0)->MEMBER, and gdb also prints where
                   MEMBER starts (print &(EXPR)), in each ELF
  --title TEXT     what the picture calls the struct (default: EXPR, or
                   "MEMBER of TYPE" with --within)
  --subtitle TEXT  the line under the title
  --program WORD   what the guest ELFs are: "the 32-bit WORD", "the x32
                   WORD" in the column captions (default: daemon)
  --highlight NAME the member drawn apart (default: ino, whose alignment
                   makes autofs's padding)
TRANSCRIPT, optional and autofs only, is a guest transcript with
autofs-layout's LAYOUT lines; their alignof_u64 values go into the notes
(their sizeof must match gdb's). Every number in the picture comes from
these files.

The SVG has no XML prolog, no blank line and no external reference, so it
can be inlined into a Markdown page (docs.sh does that with snippets).
Called by scripts/docs/docs.sh; stdlib only.
"""

import argparse
import math
import os
import re
import subprocess
import sys
import textwrap

from labhost.limits import limit
from svg import Svg  # docs/generators/svg.py, next to this script

PTYPE = "struct autofs_v5_packet"
SUBTITLE = ("gdb ptype /o of the kernel and of the i386 and x32 daemons, "
            "all built from the same <linux/auto_fs.h>")

RE_MEMBER = re.compile(r"^/\*\s+(\d+)\s+\|\s+(\d+)\s+\*/\s+(.*)$")
RE_HOLE = re.compile(r"^/\*\s+XXX\s+(\d+)-byte\s+(padding|hole)\s*\*/$")
RE_TOTAL = re.compile(r"/\*\s+total size \(bytes\):\s+(\d+)\s+\*/")
RE_CLOSE = re.compile(r"^\}\s*(\w+)?\s*;?$")


def die(msg):
    sys.exit("layout-svg.py: " + msg)


def gdb(elf, command):
    """What gdb prints for COMMAND in ELF (and its return code, stderr)."""
    cmd = ["gdb", "-batch", "-nx", "-ex", command, elf]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=limit("LIMIT_SHORT"))
    except (OSError, subprocess.TimeoutExpired) as e:
        die("%s: %s" % (" ".join(cmd), e))
    return out


def ptype(elf, expr):
    """The text of `ptype /o EXPR` in ELF, from gdb."""
    out = gdb(elf, "ptype /o " + expr)
    if out.returncode != 0 or "total size" not in out.stdout:
        die("gdb found no %s in %s:\n%s%s" % (expr, elf, out.stdout, out.stderr))
    return out.stdout


def offset_of(elf, expr):
    """Where EXPR, ((TYPE *) 0)->MEMBER, starts in TYPE: gdb's &(EXPR)."""
    command = "print/d (unsigned long) &(%s)" % expr
    out = gdb(elf, command)
    m = re.match(r"^\$\d+ = (\d+)$", out.stdout.strip())
    if out.returncode != 0 or not m:
        die("gdb could not %s in %s:\n%s%s" % (command, elf, out.stdout, out.stderr))
    return int(m.group(1))


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


def merge(layouts, subject):
    """One row per member, in order, and one per padding after a member.

    Each row is a dict: kind ("field" or "padding"), name, decl (the
    kernel's), and cells: one row of ptype's per ABI, or None where that
    ABI has no such padding. The ABIs must have the same members.
    """
    names = [[r["name"] for r in L["rows"] if r["kind"] == "field"] for L in layouts]
    for L, n in zip(layouts[1:], names[1:]):
        if n != names[0]:
            die("%s and %s do not have the same members of %s:\n  %s: %s\n  %s: %s"
                % (layouts[0]["abi"], L["abi"], subject, layouts[0]["abi"],
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
            tail = all(c is None or c["offset"] + c["size"] == L["end"]
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


def colours(r, highlight):
    """(fill, stroke) of a member or padding row: padding red, HIGHLIGHT
    (autofs: ino, whose alignment makes the padding) apart from the other
    fields."""
    if r["kind"] != "field":
        return COL_PAD, COL_PAD_STROKE
    if r["name"] == highlight:
        return COL_INO, COL_INO_STROKE
    return COL_FIELD, COL_STROKE


def draw(layouts, aligns, o):
    W = 760
    # the ids of the SVG's title and desc: OUT.svg's name, unique per page
    svg = Svg(W, o.ident, text_size=14, rx=3)
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
    ends = [L["end"] for L in layouts]
    bases = [L["base"] for L in layouts]
    rows = merge(layouts, o.title)
    # "of union bpf_attr" after an offset, with --within
    of = " of " + o.within if o.within else ""

    nsizes = len(set(totals))
    svg.text(W / 2, 28, "%s: the same fields, %s" % (
        o.title, {1: "one size", 2: "two sizes"}.get(nsizes, "%d sizes" % nsizes)),
        size=19, anchor="middle", weight="bold")
    svg.text(W / 2, 50, o.subtitle, size=13, anchor="middle", fill="#444")

    y = 80
    svg.text(OX, y, "offset", size=14, anchor="middle", weight="bold", fill="#444")
    svg.text(DX, y, "member", size=14, weight="bold", fill="#444")
    if o.within:
        # where the offsets count from, as gdb printed it
        starts = grouped(zip(abis, bases))
        for i, line in enumerate(("offsets are bytes of %s:" % o.within,
                                  "%s is at %s" % (o.member, ", ".join(
                                      "%d on %s" % (b, words(g)) if len(starts) > 1 else
                                      str(b) for b, g in starts)))):
            svg.text(DX, y + 17 + 15 * i, line, size=fit(line, 12, DW), fill="#666",
                     italic=True)
    captions = (("the kernel", "native"),
                ("the 32-bit " + o.program, "a compat task"),
                ("the x32 " + o.program, "a compat task"))
    for abi, (who, kind), x in zip(abis, captions, cols):
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
                note = "none: ends at %d" % L["end"] if row["tail"] else "no " + row["what"]
                svg.text(x + BW / 2, mid + 4.5, note, size=fit(note, 12.5, BW - 20),
                         anchor="middle", fill="#666", italic=True)
                continue
            fill, stroke = colours(c, o.highlight)
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

    # the end of each struct: its size, and with --within where it ends
    y += 30
    for label, values in (("sizeof", totals),) + ((("ends at", ends),) if o.within else ()):
        svg.text(DX, y, label, size=18, weight="bold")
        for v, x in zip(values, cols):
            big = v != min(values)
            svg.text(x + BW / 2, y, str(v), size=19, anchor="middle", weight="bold",
                     fill=COL_PAD_STROKE if big else "#1a1a1a")
            if big:
                svg.text(x + BW - 6, y, "%+d" % (v - min(values)), size=13, anchor="end",
                         weight="bold", fill=COL_PAD_STROKE)
        y += 30
    y -= 30

    # to scale: one bar per ABI, from the lowest start to the highest end
    y += 36
    b0 = min(bases)
    svg.text(LX, y, "To scale, byte %d%s to the end:" % (b0, of), size=14, weight="bold")
    y += 12
    x0 = LX + 60
    scale = (W - 2 * LX - 60 - 36) / (max(ends) - b0)
    top = y
    fends = []
    for L in layouts:
        svg.text(LX, y + 17, L["abi"], size=13, mono=True)
        for r in L["rows"]:
            fill, stroke = colours(r, o.highlight)
            svg.rect(x0 + (r["offset"] - b0) * scale, y, r["size"] * scale, 24, fill, stroke,
                     sw=0.8, rx=0)
            # its name, where it fits (autofs: name[256] only); holes too
            label = (r["decl"].split()[-1] if r["kind"] == "field" else
                     r["kind"] if r["kind"] == "hole" else "")
            if label and text_width(label, 12.5, True) + 8 <= r["size"] * scale:
                svg.text(x0 + (r["offset"] - b0 + r["size"] / 2) * scale, y + 17, label,
                         size=12.5, anchor="middle", mono=True,
                         fill=COL_PAD_STROKE if r["kind"] == "hole" else "#1a1a1a")
        svg.text(x0 + (L["end"] - b0) * scale + 4, y + 17, str(L["end"]), size=12.5,
                 mono=True, weight="bold",
                 fill=COL_PAD_STROKE if L["total"] != min(totals) else "#1a1a1a")
        fends.append((L["abi"], max(r["offset"] + r["size"] for r in L["rows"]
                                    if r["kind"] == "field")))
        y += 32
    # a tick where the fields end
    groups = grouped(fends)
    if len(groups) == 1:
        x_end = x0 + (groups[0][0] - b0) * scale
        svg.line(x_end, top - 6, x_end, y - 2, COL_PAD_STROKE, 1.2, dash="3 3")
        tick = "fields end at byte %d in all %s" % (
            groups[0][0], {2: "two", 3: "three"}.get(len(fends), str(len(fends))))
    else:
        for i, (abi, end) in enumerate(fends):
            x_end = x0 + (end - b0) * scale
            svg.line(x_end, top + 32 * i - 4, x_end, top + 32 * i + 28, COL_PAD_STROKE, 1.2,
                     dash="3 3")
        tick = "fields end at byte " + ", ".join(
            "%d on %s" % (end, words(a)) for end, a in groups)
    svg.text(x0 + (max(e for _, e in fends) - b0) * scale, y + 12, tick, size=12.5,
             anchor="end", fill=COL_PAD_STROKE)

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
    holes = [(abi, sum(r["cells"][i]["size"] for r in rows
                       if r["kind"] == "padding" and not r["tail"] and r["cells"][i]))
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
    # what each hole (gdb's word: padding inside the struct) does
    for k, row in enumerate(rows):
        if row["kind"] != "padding" or row["tail"]:
            continue
        after = next((r for r in rows[k + 1:] if r["kind"] == "field"), None)
        if after is None:
            continue
        have = [(abi, c["size"]) for abi, c in zip(abis, row["cells"]) if c]
        lack = [(abi, f["offset"]) for abi, c, f in zip(abis, row["cells"], after["cells"])
                if c is None]
        note = "On %s, a %s puts %s at byte %s%s" % (
            words(words(g) for _, g in grouped(have)),
            " or ".join("%d-byte %s" % (n, row["what"]) for n, _ in grouped(have)),
            after["decl"], " or ".join(str(off) for off, _ in grouped(
                (abi, f["offset"]) for abi, c, f in zip(abis, row["cells"], after["cells"])
                if c)), of)
        if lack:
            note += "; %s %s none and %s it at %s" % (
                words(a for a, _ in lack), "has" if len(lack) == 1 else "have",
                "puts" if len(lack) == 1 else "put",
                " or ".join(str(off) for off, _ in grouped(lack)))
        notes.append(note + ".")
    for L in layouts:
        if L["abi"] in aligns and aligns[L["abi"]][0] != L["total"]:
            die("the transcript says sizeof %d on %s, gdb says %d (%s)"
                % (aligns[L["abi"]][0], L["abi"], L["total"], L["elf"]))
    hl = next((r["decl"] for r in rows if r["name"] == o.highlight), o.highlight)
    if all(a in aligns for a in abis):
        al = grouped((abi, aligns[abi][1]) for abi in abis)
        note = ("%s is %s (alignof_u64 printed by autofs-layout)" % (hl, " and ".join(
            "%d-byte aligned on %s" % (a, words(g)) for a, g in al)))
        if all(L["total"] % aligns[L["abi"]][1] == 0 for L in layouts):
            note += (", and sizeof rounds the struct up to a multiple of that: %s."
                     % ", ".join("%d on %s" % (t, words(g))
                                 for t, g in grouped(zip(abis, totals))))
        else:
            note += "."
        notes.append(note)
    elif any(p for _, p in tails):
        notes.append("sizeof rounds the struct up to a multiple of its alignment, which "
                     "is that of %s." % hl)
    if o.within:
        notes.append("So %s is %s, and ends at byte %s." % (
            o.member, ", ".join("%d bytes on %s" % (t, words(g))
                                for t, g in grouped(zip(abis, totals))),
            ", ".join("%d%s on %s" % (e, of if i == 0 else "", words(g))
                      for i, (e, g) in enumerate(grouped(zip(abis, ends))))))
    # same_layout() made sure the picture can say this
    notes.append("x32 has x86_64's layout (sizeof %d) although the kernel treats an x32 "
                 "task as a compat task, like an i386 one (sizeof %d): the %s follows "
                 "the alignment of __u64, not compat." % (layouts[2]["total"],
                                                          layouts[1]["total"],
                                                          "size" if same else "layout"))
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

    title = "%s on %s" % (o.title, words(
        "%s (sizeof %d)" % (abi, t) for abi, t in zip(abis, totals)))
    desc = ("Field by field layout from gdb ptype /o: %s offsets, %s."
            % ("identical" if same else "different",
               "; ".join("%s on %s" % ("%d bytes of tail padding" % p if p else
                                       "no tail padding", words(g))
                         for p, g in grouped(tails))))
    if any(p for _, p in holes):
        desc = desc[:-1] + "; %s." % "; ".join(
            "%s on %s" % ("%d bytes of holes" % p if p else "no hole", words(g))
            for p, g in grouped(holes))
    return svg.render(y, title, desc)


def options(argv):
    ap = argparse.ArgumentParser(
        prog="layout-svg.py", description="Draw a struct as x86_64, i386 and x32 see it, "
        "from gdb's ptype /o of three ELF files.")
    ap.add_argument("--ptype", default=PTYPE, metavar="EXPR",
                    help="what follows `ptype /o` (default: %(default)s)")
    ap.add_argument("--within", metavar="TYPE",
                    help="draw offsets as bytes of TYPE; EXPR must be ((TYPE *) 0)->MEMBER")
    ap.add_argument("--title", metavar="TEXT", help="what the picture calls the struct")
    ap.add_argument("--subtitle", metavar="TEXT", help="the line under the title")
    ap.add_argument("--program", default="daemon", metavar="WORD",
                    help="what the i386 and x32 ELFs are (default: %(default)s)")
    ap.add_argument("--highlight", default="ino", metavar="MEMBER",
                    help="the member drawn apart (default: %(default)s)")
    ap.add_argument("elfs", nargs=3, metavar="ELF", help="KERNEL_ELF I386_ELF X32_ELF")
    ap.add_argument("out", metavar="OUT.svg")
    ap.add_argument("transcript", nargs="?", metavar="TRANSCRIPT",
                    help="autofs only: a transcript with autofs-layout's LAYOUT lines")
    o = ap.parse_args(argv[1:])
    o.member = None
    if o.within:
        m = re.match(r"^\(\(\s*%s\s*\*\s*\)\s*0\s*\)\s*->\s*(\S.*)$"
                     % re.escape(o.within).replace(r"\ ", r"\s+"), o.ptype.strip())
        if not m:
            die("--within %s: --ptype must be ((%s *) 0)->MEMBER, not %s"
                % (o.within, o.within, o.ptype))
        o.member = m.group(1).strip()
    if o.title is None:
        o.title = "%s of %s" % (o.member, o.within) if o.within else o.ptype
    if o.subtitle is None:
        o.subtitle = SUBTITLE if o.ptype == PTYPE and o.program == "daemon" else (
            "gdb ptype /o of the kernel and of the i386 and x32 %ss" % o.program)
    o.ident = re.sub(r"[^A-Za-z0-9_-]", "-", os.path.basename(o.out).rsplit(".svg", 1)[0])
    if not re.match(r"^[A-Za-z]", o.ident):
        o.ident = "layout-" + o.ident
    return o


def main(argv):
    o = options(argv)

    def label(path):
        rel = os.path.relpath(path)
        return path if rel.startswith("..") else rel
    layouts = []
    for abi, elf in zip(("x86_64", "i386", "x32"), o.elfs):
        rows, total = parse(ptype(elf, o.ptype))
        # with --within, every offset is one of TYPE: MEMBER's start, from gdb
        base = offset_of(elf, o.ptype) if o.within else 0
        for r in rows:
            r["offset"] += base
        layouts.append({"abi": abi, "rows": rows, "total": total, "base": base,
                        "end": base + total, "elf": elf, "label": label(elf)})
    if not any(r["name"] == o.highlight for r in layouts[0]["rows"] if r["kind"] == "field"):
        die("--highlight %s: %s has no such member" % (o.highlight, o.title))
    same_layout(layouts[0], layouts[2])
    svg = draw(layouts, alignments(o.transcript), o)
    out = o.out
    with open(out + ".tmp", "w", encoding="utf-8") as f:
        f.write(svg)
    os.replace(out + ".tmp", out)
    print("layout-svg.py: %s: %s, %s rows" % (
        out, ", ".join("%s sizeof %d" % (L["abi"], L["total"]) for L in layouts),
        " + ".join(str(len(L["rows"])) for L in layouts)))


if __name__ == "__main__":
    main(sys.argv)
