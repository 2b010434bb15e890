#!/usr/bin/env python3
"""Draw struct autofs_v5_packet as two ABIs see it, from real debug info.

    layout-svg.py KERNEL_ELF I386_ELF OUT.svg [TRANSCRIPT]

Runs `gdb -batch -ex 'ptype /o struct autofs_v5_packet'` on both ELF files
(the step's vmlinux, x86_64, and an i386 guest program built against the
same <linux/auto_fs.h>) and draws the fields side by side: offsets, sizes,
and the tail padding that only one of them has. TRANSCRIPT, optional, is a
guest transcript with autofs-layout's LAYOUT lines; its alignof_u64 values
go into the caption. Every number in the picture comes from these files.

The SVG has no XML prolog, no blank line and no external reference, so it
can be inlined into a Markdown page (docs.sh does that with snippets).
Called by steps/lib/docs.sh; stdlib only.
"""

import math
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from svg import Svg  # noqa: E402  (steps/lib/svg.py)

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
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
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
                m = re.match(r"LAYOUT abi=(\S+) sizeof=(\d+) .*alignof_u64=(\d+)", line)
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


def draw(k_rows, k_total, i_rows, i_total, k_label, i_label, aligns):
    W = 760
    svg = Svg(W, "layout", text_size=14, rx=3)
    LX, MW = 16, 110            # margin; middle column: the offsets
    BW = (W - 2 * LX - MW) / 2  # a box: one ABI's field
    MX = LX + BW
    RX = MX + MW                # right box (i386)

    svg.text(W / 2, 28, "struct autofs_v5_packet: the same fields, two sizes",
             size=19, anchor="middle", weight="bold")
    svg.text(W / 2, 50, "gdb ptype /o of the kernel and of the 32-bit daemon, "
             "both built from the same <linux/auto_fs.h>", size=13, anchor="middle",
             fill="#444")

    y = 78
    svg.text(LX + BW / 2, y, "x86_64: the kernel", size=16, anchor="middle", weight="bold")
    svg.text(RX + BW / 2, y, "i386: the 32-bit daemon", size=16, anchor="middle",
             weight="bold")
    svg.text(MX + MW / 2, y, "offset", size=14, anchor="middle", weight="bold", fill="#444")
    y += 18
    svg.text(LX + BW / 2, y, k_label, size=11.5, anchor="middle", fill="#555", mono=True)
    svg.text(RX + BW / 2, y, i_label, size=11.5, anchor="middle", fill="#555", mono=True)
    y += 14

    # rows keyed by (offset, kind, name): fields of both, and padding of either
    keys = []
    for r in k_rows + i_rows:
        key = (r["offset"], r["kind"] != "field", r["name"])
        if key not in keys:
            keys.append(key)
    keys.sort()
    kmap = {(r["offset"], r["kind"] != "field", r["name"]): r for r in k_rows}
    imap = {(r["offset"], r["kind"] != "field", r["name"]): r for r in i_rows}

    for key in keys:
        kr, ir = kmap.get(key), imap.get(key)
        ref = kr or ir
        h = row_height(ref["size"])
        for r, x in ((kr, LX), (ir, RX)):
            if r is None:
                # the other ABI has this row, this one does not
                svg.rect(x + 6, y + 4, BW - 12, h - 8, "#ffffff", "#9a9a9a", dash="5 4")
                svg.text(x + BW / 2, y + h / 2 + 5, "nothing: sizeof stops at %d" % (
                    i_total if x == RX else k_total), size=13, anchor="middle",
                    fill="#666", italic=True)
                continue
            if r["kind"] != "field":
                fill, stroke = COL_PAD, COL_PAD_STROKE
                label = "%d bytes of tail padding" % r["size"] if r["offset"] + r["size"] == (
                    k_total if x == LX else i_total) else "%d-byte hole" % r["size"]
            elif r["name"] == "ino":
                fill, stroke, label = COL_INO, COL_INO_STROKE, r["decl"]
            else:
                fill, stroke, label = COL_FIELD, COL_STROKE, r["decl"]
            svg.rect(x, y, BW, h, fill, stroke, sw=2 if r["kind"] != "field" else 1.2)
            svg.text(x + 10, y + h / 2 + 5, label, size=13.5, mono=r["kind"] == "field",
                     weight="bold" if r["kind"] != "field" else "normal")
            svg.text(x + BW - 10, y + h / 2 + 5, "%d B" % r["size"], size=13,
                     anchor="end", fill="#333", mono=True)
        # middle: the offset, once if both agree
        if kr and ir and kr["offset"] == ir["offset"]:
            svg.text(MX + MW / 2, y + h / 2 + 5, str(ref["offset"]), size=15,
                     anchor="middle", mono=True)
            svg.line(LX + BW, y + h / 2, MX + MW / 2 - 22, y + h / 2, "#b8c4d6")
            svg.line(MX + MW / 2 + 22, y + h / 2, RX, y + h / 2, "#b8c4d6")
        else:
            svg.text(MX + MW / 2, y + h / 2 + 5, str(ref["offset"]), size=15,
                     anchor="middle", mono=True, weight="bold", fill=COL_PAD_STROKE)
        y += h

    # the end of each struct
    y += 24
    svg.text(LX + BW / 2, y, "sizeof = %d" % k_total, size=18, anchor="middle",
             weight="bold", fill=COL_PAD_STROKE if k_total != i_total else "#1a1a1a")
    svg.text(RX + BW / 2, y, "sizeof = %d" % i_total, size=18, anchor="middle",
             weight="bold")
    svg.text(MX + MW / 2, y, "%+d" % (k_total - i_total), size=16, anchor="middle",
             weight="bold", fill=COL_PAD_STROKE)

    # to scale: one bar per ABI
    y += 34
    svg.text(LX, y, "To scale, byte 0 to the end:", size=14, weight="bold")
    y += 12
    scale = (W - 2 * LX - 60 - 36) / max(k_total, i_total)
    for rows, total, abi in ((k_rows, k_total, "x86_64"), (i_rows, i_total, "i386")):
        svg.text(LX, y + 17, abi, size=13, mono=True)
        x0 = LX + 60
        for r in rows:
            if r["kind"] != "field":
                fill, stroke = COL_PAD, COL_PAD_STROKE
            elif r["name"] == "ino":
                fill, stroke = COL_INO, COL_INO_STROKE
            else:
                fill, stroke = COL_FIELD, COL_STROKE
            svg.rect(x0 + r["offset"] * scale, y, r["size"] * scale, 24, fill, stroke,
                     sw=0.8, rx=0)
            if r["name"] == "name":
                svg.text(x0 + (r["offset"] + r["size"] / 2) * scale, y + 17,
                         "name[256]", size=12.5, anchor="middle", mono=True)
        svg.text(x0 + total * scale + 4, y + 17, str(total), size=12.5, mono=True,
                 weight="bold", fill=COL_PAD_STROKE if total != min(k_total, i_total) else "#1a1a1a")
        y += 32
    # tick under the bars where the fields end
    fields_end = max(r["offset"] + r["size"] for r in k_rows if r["kind"] == "field")
    x_end = LX + 60 + fields_end * scale
    svg.line(x_end, y - 70, x_end, y - 2, COL_PAD_STROKE, 1.2, dash="3 3")
    svg.text(x_end, y + 12, "fields end at byte %d on both" % fields_end, size=12.5,
             anchor="end", fill=COL_PAD_STROKE)

    # why
    y += 40
    notes = ["Every member sits at the same offset in both ABIs; only the end differs."]
    if "x86_64" in aligns and "i386" in aligns:
        notes.append("__u64 ino is %d-byte aligned on x86_64 and %d-byte aligned on i386 "
                     "(alignof_u64 printed by autofs-layout)," % (aligns["x86_64"][1],
                                                                 aligns["i386"][1]))
        notes.append("and sizeof rounds the struct up to a multiple of that: "
                     "%d on x86_64, %d on i386." % (k_total, i_total))
    else:
        notes.append("sizeof rounds the struct up to a multiple of its alignment, which "
                     "is that of __u64 ino.")
    for n in notes:
        svg.text(LX, y, n, size=13.5, fill="#333")
        y += 20
    y += 6
    title = "struct autofs_v5_packet on x86_64 (sizeof %d) and i386 (sizeof %d)" % (
        k_total, i_total)
    desc = ("Field by field layout from gdb ptype /o: identical offsets, "
            "%d bytes of tail padding only on x86_64." % (k_total - i_total))
    return svg.render(y, title, desc)


def main(argv):
    if len(argv) not in (4, 5):
        die("usage: layout-svg.py KERNEL_ELF I386_ELF OUT.svg [TRANSCRIPT]")
    kernel, i386, out = argv[1], argv[2], argv[3]
    transcript = argv[4] if len(argv) == 5 else None
    k_rows, k_total = parse(ptype(kernel))
    i_rows, i_total = parse(ptype(i386))
    def label(path):
        rel = os.path.relpath(path)
        return path if rel.startswith("..") else rel
    svg = draw(k_rows, k_total, i_rows, i_total, label(kernel), label(i386),
               alignments(transcript))
    with open(out + ".tmp", "w", encoding="utf-8") as f:
        f.write(svg)
    os.replace(out + ".tmp", out)
    print("layout-svg.py: %s: x86_64 sizeof %d, i386 sizeof %d, %d + %d rows"
          % (out, k_total, i_total, len(k_rows), len(i_rows)))


if __name__ == "__main__":
    main(sys.argv)
