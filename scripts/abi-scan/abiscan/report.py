"""The reports: report.txt, report.tsv, all-types.tsv, failed.txt and the
Markdown fragments the "Where else?" page includes."""

import os

from labhost.abis import ABIS, FLAG

from .compare import ALIGNED64, CLASS_NAME, COMPAT, NATIVE, REAL, SAME_BYTES

AUTOFS = "autofs_v5_packet"
OUTPUTS = ["report.txt", "report.tsv", "all-types.tsv", "failed.txt", "where-else-table.md",
           "where-else-counts.md", "where-else-failed.md", "where-else-nothing.md"]
HANDLING_KINDS = ("compat twin", "compat_ioctl handler", "compat_need_64bit_alignment_fixup()",
                  "in_compat_syscall()", "in_ia32_syscall()")
# the rows of the counts: class 3 in two
ROWS = [(1, None, CLASS_NAME[1]), (2, None, CLASS_NAME[2]),
        (3, True, f"{CLASS_NAME[3]}: {SAME_BYTES}"), (3, False, f"{CLASS_NAME[3]}: {REAL}")]
SIZE_COLS = [f"size_{a}" for a in ABIS]
ABI_COLS, NUM_COLS = " | ".join(ABIS), "---:|" * len(ABIS)     # Markdown's sizes


def md(s):
    """Plain text for a Markdown table cell: nothing in it is markup."""
    s = str(s).replace("\\", "\\\\")
    for c in "`*_[]|":
        s = s.replace(c, "\\" + c)
    return s.replace("<", "&lt;").replace(">", "&gt;")


def class3_kind(t):
    if t.cls != 3:
        return "-"
    return SAME_BYTES if t.verdict.same_bytes else REAL


def in_row(t, row):
    c, same, _ = row
    return t.cls == c and (same is None or t.verdict.same_bytes == same)


def row_sizes(t):
    return "/".join(str(s) for s in t.sizes)


def proof_text(t):
    return "; ".join(t.proof) if t.proof else "ok"


def yes_no(b):
    return "yes" if b else "no"


def counts(flagged):
    out = []
    for row in ROWS:
        ts = [t for t in flagged if in_row(t, row)]
        out.append({"row": row, "n": len(ts),
                    "loud": sum(1 for t in ts if t.crossing.startswith("loud")),
                    "like": {r: sum(1 for t in ts if t.aligned64 == r)
                             for r in (COMPAT, NATIVE, "own")}})
    return out


def write_reports(ctx, types, flagged, failed, partial, nhdrs):
    cnt = counts(flagged)
    ncls = {c: sum(1 for t in flagged if t.cls == c) for c in (1, 2, 3)}
    nosep = [t for t in flagged if t.cls == 3 and t.c_compat_aligned64 == 3]
    c12 = [t for t in flagged if t.cls in (1, 2)]
    handled = {k: sum(1 for t in c12 if k in t.handling) for k in HANDLING_KINDS}
    nofix = sum(1 for t in c12 if "packed/aligned, no fix" in t.handling)
    nothing = [t for t in c12 if t.handling.startswith("nothing found")]
    unproven = [t for t in flagged if t.proof]
    autofs = [t for t in types if t.name == AUTOFS]
    ndecl = len({t.decl for t in types})

    S = [f"abi-scan: {nhdrs} headers compiled for {', '.join(ABIS[:-1])} and {ABIS[-1]}; "
         f"{len(types)} named structs/unions from {ndecl} headers compared "
         f"({len(failed)} headers do not compile stand-alone)."]
    for x in cnt:
        c, _same, name = x["row"]
        S.append(f"  class {c} ({name}): {x['n']:4d}   loud (ioctl) {x['loud']}, silent "
                 f"{x['n'] - x['loud']}; {ALIGNED64} like {COMPAT} {x['like'][COMPAT]}, like "
                 f"{NATIVE} {x['like'][NATIVE]}, own layout {x['like']['own']}")
    S.append("  class 1+2 kernel handling (heuristic): " +
             ", ".join(f"{k} {v}" for k, v in handled.items()) +
             f", nothing found {len(nothing)} (of which packed/aligned that fixes nothing {nofix})")
    S.append(f"  {ALIGNED64} does not separate the causes for {len(nosep)} class-3 types "
             f"(member sizes differ between {COMPAT} and {ALIGNED64} too)")
    S.append(f"  proof: {len(flagged) - len(unproven)} of {len(flagged)} flagged types' sizes and "
             f"offsets compile as _Static_assert on each ABI" +
             (f"; NOT: {', '.join(t.name for t in unproven[:5])}" if unproven else ""))
    for t in autofs:
        S.append(f"  {AUTOFS}: class {t.cls}, sizes {row_sizes(t)} ({'/'.join(ABIS)}), "
                 f"{ALIGNED64} like {t.aligned64}, kernel: {t.handling}, {t.crossing}")
    S.append(f"  reports: {ctx.out}/report.txt, report.tsv, where-else-table.md; "
             f"assertions in {ctx.out}/proof/")
    summary = "\n".join(S) + "\n"
    oneline = (f"abi-scan: class 1 {ncls[1]}, class 2 {ncls[2]}, class 3 {ncls[3]} "
               f"({cnt[2]['n']} with identical bytes), failed headers {len(failed)}, "
               f"unproven {len(unproven)}")

    order = sorted(flagged, key=lambda t: (t.cls, t.name, t.decl))
    _tsv(ctx, types, order)
    _failed_txt(ctx, failed)
    _report_txt(ctx, summary, order, ncls, failed, partial)
    _markdown(ctx, cnt, types, order, failed, nothing, handled, nofix, nosep, autofs, nhdrs, ndecl, c12)
    return summary, oneline


def _tsv(ctx, types, order):
    cols = ["name", "kind", "header", "line", *SIZE_COLS, "class",
            "class_name", "class3_kind", f"{ALIGNED64}_like", f"class_{COMPAT}_{ALIGNED64}",
            f"class_{ALIGNED64}_{NATIVE}", "kernel_handling", "crossing", "proof", "detail",
            "propagated", "notes", "also_declared_in", "compiled_after"]
    rows = [[t.name, t.kind, t.decl, t.line, *t.sizes, t.cls, CLASS_NAME[t.cls], class3_kind(t),
             t.aligned64, t.c_compat_aligned64, t.c_aligned64_native, t.handling, t.crossing,
             proof_text(t), t.verdict.detail, "; ".join(t.propagated), "; ".join(t.notes),
             ",".join(t.decls[1:]), ",".join(t.prelude)] for t in order]
    _write(ctx, "report.tsv", ["\t".join(str(x).replace("\t", " ") for x in r) for r in [cols] + rows])
    # every type compared, flagged or not (tests use it)
    cols = ["name", "kind", "header", "line", *SIZE_COLS, "class", f"{ALIGNED64}_like", "packing"]
    rows = [[t.name, t.kind, t.decl, t.line, *t.sizes, t.cls, t.aligned64, t.packing or "-"] for t in types]
    _write(ctx, "all-types.tsv", ["\t".join(map(str, r)) for r in [cols] + rows])


def _failed_txt(ctx, failed):
    _write(ctx, "failed.txt", ["# header\tABIs\treason\tkernel's header test skips it too\tfirst error"] +
           [f"{x['hdr']}\t{','.join(x['abis'])}\t{x['reason']}\t{yes_no(x['kernel_skips'])}\t{x['err']}"
            for x in failed])


def _report_txt(ctx, summary, order, ncls, failed, partial):
    R = [summary, "",
         f"Classes compare {COMPAT} ({FLAG[COMPAT]}) with {NATIVE} ({FLAG[NATIVE]}); {ALIGNED64} "
         f"({FLAG[ALIGNED64]}) is shown beside them.",
         "  1 tail padding only: every member at the same offset and size, only sizeof differs",
         "  2 members shifted: a member moves (alignment of a 64-bit member, or the stride",
         "    of an array of structs), member sizes equal",
         "  3 member sizes differ: long, pointers, __kernel_long_t, time types (or #if per arch);",
         f"    '{SAME_BYTES}': same sizeof and offsets, a wider member's",
         "    extra bytes are padding on the other ABI; otherwise 'layout differs'",
         "Crossing: 'loud' if an _IOR/_IOW/_IOWR in the uapi headers takes the type (or a type",
         f"that contains it) as its size: an {COMPAT} program's ioctl number then differs and it",
         "gets ENOTTY. 'silent' otherwise: read(), write(), setsockopt(), a syscall's struct,",
         "shared memory, or no crossing at all.",
         "Kernel handling is a heuristic grep of the kernel tree, not a proof: a compat_ twin",
         "struct, a compat_ioctl handler in a file that uses the type (compat_ptr_ioctl alone",
         "does not count: it fixes no layout), compat_need_64bit_alignment_fixup(),",
         "in_compat_syscall() or in_ia32_syscall() within 60 lines of a use. A packed/aligned",
         "annotation on a flagged type is shown but does not count: the type is flagged",
         "despite it. 'nothing found' means none of these, not that there is a bug.",
         "Proof: the sizes and offsets below are also _Static_asserts in proof/ABI/*.c,",
         "compiled with that ABI's flag; 'proof' names any that failed.", ""]
    for c in (1, 2, 3):
        R.append(f"== class {c}: {CLASS_NAME[c]} ({ncls[c]})")
        for t in [t for t in order if t.cls == c]:
            R.append(f"{t.kind} {t.name}  [{t.decl}:{t.line}]  sizes {row_sizes(t)}  "
                     f"{ALIGNED64} like {t.aligned64}  {t.crossing}"
                     + (f"  ({class3_kind(t)})" if c == 3 else ""))
            R.append(f"    {t.verdict.detail}")
            for p in t.propagated:
                R.append(f"    contains {p}")
            if t.proof:
                R.append(f"    PROOF FAILED: {proof_text(t)}")
            if c in (1, 2):
                R.append(f"    kernel: {t.handling}")
                for n in t.notes:
                    R.append(f"      - {n}")
            elif t.c_compat_aligned64 == 3:
                R.append(f"    {ALIGNED64} does not separate the causes (sizes differ "
                         f"{COMPAT}->{ALIGNED64} too)")
        R.append("")
    R.append(f"== headers that do not compile stand-alone ({len(failed)})")
    for x in failed:
        R.append(f"{x['hdr']} [{','.join(x['abis'])}]: {x['reason']}"
                 + ("; the kernel's own header test skips it too" if x["kernel_skips"] else ""))
        R.append(f"    {x['err']}")
    if partial:
        R += ["", f"== types defined for some ABIs only ({len(partial)})"]
        R += [f"{k[0]} [{k[1]}]: {', '.join(a)}" for k, a in partial]
    _write(ctx, "report.txt", R)


def _markdown(ctx, cnt, types, order, failed, nothing, handled, nofix, nosep, autofs, nhdrs, ndecl,
              c12):
    M = [f"| Class | What differs between {COMPAT} and {NATIVE} | Types | Loud (ioctl size) "
         f"| Silent | {ALIGNED64} like {COMPAT} | {ALIGNED64} like {NATIVE} | {ALIGNED64} own layout |",
         "|---|---|---:|---:|---:|---:|---:|---:|"]
    for x in cnt:
        c, _same, name = x["row"]
        M.append(f"| {c} | {name} | {x['n']} | {x['loud']} | {x['n'] - x['loud']} | "
                 f"{x['like'][COMPAT]} | {x['like'][NATIVE]} | {x['like']['own']} |")
    M += ["", md(f"The scan compiled {nhdrs} headers for each ABI and compared {len(types)} named "
             f"structs and unions from {ndecl} headers; {len(failed)} headers do not compile "
             f"stand-alone. Of the {len(c12)} class 1 and 2 types, the kernel-tree grep "
             f"found: " + ", ".join(f"{k} for {v}" for k, v in handled.items()) +
             f"; nothing for {len(nothing)} (for {nofix} of them a packed or aligned annotation "
             f"that does not fix the layout). For {len(nosep)} class-3 types {ALIGNED64} does not "
             f"separate the causes: their member sizes differ between {COMPAT} and {ALIGNED64} as "
             f"well."), ""]
    for t in autofs:
        M.append(f"`struct {AUTOFS}`: class {t.cls}, {row_sizes(t)} bytes "
                 f"({md('/'.join(ABIS))}), {md(ALIGNED64)} like {md(t.aligned64)}, {md(t.crossing)}; "
                 f"the kernel-tree grep: {md(t.handling)}.")
    _write(ctx, "where-else-counts.md", M)

    T = [f"| Type | Header | {ABI_COLS} | Class | {ALIGNED64} like | Crossing | Kernel handling "
         "(heuristic) | What differs |", f"|---|---|{NUM_COLS}---|---|---|---|---|"]
    for t in order:
        cls = f"{t.cls}" + (" (same bytes)" if t.cls == 3 and t.verdict.same_bytes else "")
        cells = [f"`{t.kind} {t.name}`", f"`{t.decl}`", *t.sizes, cls, md(t.aligned64),
                 md(t.crossing.split(":")[0]), md(t.handling),
                 md(t.verdict.detail + ("; contains " + "; ".join(t.propagated) if t.propagated else ""))]
        if t.name == AUTOFS:                    # the lab's struct, in bold
            cells = [f"**{c}**" for c in cells]
        T.append("| " + " | ".join(str(c) for c in cells) + " |")
    _write(ctx, "where-else-table.md", T)

    F = ["| Header | ABIs | Why (classified from the first error) | Kernel's header test skips it "
         "| First error |", "|---|---|---|---|---|"]
    for x in failed:
        F.append(f"| `{x['hdr']}` | {md(', '.join(x['abis']))} | {md(x['reason'])} | "
                 f"{yes_no(x['kernel_skips'])} | `{x['err'].replace('`', '')}` |")
    _write(ctx, "where-else-failed.md", F)

    N = [f"| Type | Header | {ABI_COLS} | Class | Crossing | Used in (kernel .c files) |",
         f"|---|---|{NUM_COLS}---|---|---|"]
    for t in sorted(nothing, key=lambda t: t.name):
        uses = [u for u in t.uses if u.endswith(".c")]
        N.append(f"| `{t.name}` | `{t.decl}` | {' | '.join(map(str, t.sizes))} | {t.cls} | "
                 f"{md(t.crossing.split(':')[0])} | "
                 + (", ".join(f"`{u}`" for u in uses[:4]) + (" …" if len(uses) > 4 else "")
                    if uses else "no direct use found") + " |")
    _write(ctx, "where-else-nothing.md", N)


def _write(ctx, name, lines):
    with open(os.path.join(ctx.out, name), "w") as f:
        f.write("\n".join(lines) + "\n")
