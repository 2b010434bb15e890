"""How the kernel copes with a flagged type: one grep of the kernel tree
(cached) for compat twins, compat_ioctl handlers and the compat helpers
near a use. A heuristic, not a proof."""

import concurrent.futures
import os
import re
import subprocess
import sys
import time

from labhost.limits import limit

from .cache import sha
from .fileinfo import read

def ksrc_key(ksrc):
    """Identity of the kernel tree: path + git HEAD (the lab's build/linux
    switches branches) or, without git, the Makefile's version lines."""
    parts = [ksrc]
    if os.path.isdir(os.path.join(ksrc, ".git")):
        try:
            r = subprocess.run(["git", "-C", ksrc, "rev-parse", "HEAD"], capture_output=True,
                               text=True, timeout=limit("LIMIT_SHORT"))
            parts.append(r.stdout.strip())
        except (OSError, subprocess.TimeoutExpired):
            pass
    mk = read(os.path.join(ksrc, "Makefile"))
    if mk is not None:
        parts.append(mk[:400])
    return sha("\0".join(parts))


FIXED_WORDS = ["compat_ioctl", "compat_ptr_ioctl", "compat_need_64bit_alignment_fixup",
               "in_compat_syscall", "in_ia32_syscall"]


def twin_names(n):
    return [f"compat_{n}", f"{n}32", f"{n}_32", f"compat_{n}32", f"{n}_compat"]


def kernel_grep(ctx, names):
    """One pass over *.c/*.h for the names and the compat words (cached)."""
    words = sorted(set(FIXED_WORDS + [w for n in names for w in [n] + twin_names(n)]))
    key = sha("\0".join([ksrc_key(ctx.ksrc)] + words))
    path = os.path.join(ctx.cache, "kgrep.txt")
    head, _, rest = (read(path) or "").partition("\n")
    if head.strip() == key:
        return rest.splitlines()
    wf = os.path.join(ctx.cache, "kgrep-words.txt")
    with open(wf, "w") as f:
        f.write("\n".join(words) + "\n")
    t0 = time.time()
    # GNU grep -F over slices of the file list, one per core (git grep with
    # this many -w patterns takes a minute; GNU grep's -F matcher seconds)
    skip = ("tools/", "samples/", "Documentation/", "usr/")
    if os.path.isdir(os.path.join(ctx.ksrc, ".git")):
        r = subprocess.run(["git", "-C", ctx.ksrc, "ls-files", "-z", "--", "*.c", "*.h"],
                           capture_output=True, timeout=limit("LIMIT_SHORT"))
        files = [f for f in r.stdout.decode(errors="replace").split("\0")
                 if f and not f.startswith(skip) and os.path.isfile(os.path.join(ctx.ksrc, f))]
    else:
        files = []
        for root, dirs, fns in os.walk(ctx.ksrc):
            rel = os.path.relpath(root, ctx.ksrc)
            if rel == ".":
                dirs[:] = [d for d in dirs if d + "/" not in skip and d != ".git"]
            files += [os.path.normpath(os.path.join(rel, f)) for f in fns if f.endswith((".c", ".h"))]
    n = max(1, len(files) // (4 * (os.cpu_count() or 2)) + 1)
    cmds = [["grep", "-nIwFH", "-f", wf, "--"] + files[i:i + n] for i in range(0, len(files), n)]

    def run(cmd):
        r = subprocess.run(cmd, cwd=ctx.ksrc, capture_output=True, timeout=limit("LIMIT_SCAN_STAGE"))
        if r.returncode not in (0, 1):
            sys.exit(f"error: {cmd[0]} in {ctx.ksrc} failed: {r.stderr.decode()[:300]}")
        return r.stdout.decode(errors="replace")

    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as ex:
        out = "".join(ex.map(run, cmds))
    lines = out.splitlines()
    with open(path, "w") as f:
        f.write(key + "\n" + "\n".join(lines) + "\n")
    if not ctx.quiet:
        print(f"kernel tree grep: {len(lines)} lines in {time.time() - t0:.1f} s")
    return lines


def annotate(ctx, flagged, texts):
    """Heuristic notes on how the kernel copes with each class 1/2 type."""
    names = sorted({t.name for t in flagged})
    lines = kernel_grep(ctx, names)
    byfile = {}
    for l in lines:
        parts = l.split(":", 2)
        if len(parts) == 3 and parts[1].isdigit():
            byfile.setdefault(parts[0], []).append((int(parts[1]), parts[2]))
    for t in flagged:
        n = t.name
        use = re.compile(rf"\b(?:struct|union)\s+{re.escape(n)}\b|\bsizeof\s*\(\s*{re.escape(n)}\b")
        twin = re.compile(r"\b(?:struct|union)\s+(" + "|".join(map(re.escape, twin_names(n))) + r")\s*\{")
        notes, uses = [], {}
        for fn, ls in byfile.items():
            for ln, txt in ls:
                m = twin.search(txt)
                if m:
                    notes.append(f"compat twin: struct {m.group(1)} ({fn}:{ln})")
                if "/uapi/" not in fn and use.search(txt):      # include/uapi/ too
                    uses.setdefault(fn, []).append(ln)
        for fn, lns in sorted(uses.items()):
            fl = byfile[fn]
            near = [(ln, txt) for ln, txt in fl if any(abs(ln - u) <= 60 for u in lns)]
            fix = [ln for ln, txt in near if "compat_need_64bit_alignment_fixup" in txt]
            cc = [(ln, m.group(1)) for ln, txt in near
                  for m in [re.search(r"\b(in_compat_syscall|in_ia32_syscall)\b", txt)] if m]
            if fix:
                notes.append(f"compat_need_64bit_alignment_fixup() near a use ({fn}:{fix[0]})")
            elif cc:
                notes.append(f"{cc[0][1]}() near a use ({fn}:{cc[0][0]})")
            ioc = [(ln, txt) for ln, txt in fl if re.search(r"\bcompat_ioctl\b", txt)]
            if ioc and fn.endswith(".c"):
                if all("compat_ptr_ioctl" in txt for _ln, txt in ioc):
                    notes.append(f"compat_ioctl = compat_ptr_ioctl only, no layout fix ({fn})")
                else:
                    notes.append(f"compat_ioctl handler in a file that uses it ({fn}:{ioc[0][0]})")
        if t.packing:
            # the type is flagged all the same: the annotation fixes nothing
            notes.append(f"{t.packing} annotation in {t.decl}, which does not fix it")
        t.uses = sorted(uses)
        t.notes = notes
        t.handling = summarize_notes(notes)


NO_FIX = ("compat_ptr_ioctl only", "packed/aligned, no fix")


def summarize_notes(notes):
    """The kinds of handling found, in order; "nothing found" when all
    there is fixes no layout."""
    kinds = []
    for n in notes:
        if n.endswith("which does not fix it"):
            k = NO_FIX[1]
        elif n.startswith("compat_ioctl = compat_ptr_ioctl only"):
            k = NO_FIX[0]
        else:
            k = n.split(" (")[0].split(":")[0]
        if k not in kinds:
            kinds.append(k)
    real = [k for k in kinds if k not in NO_FIX]
    if real:
        return ", ".join(real)
    return "nothing found" + (f" ({', '.join(kinds)})" if kinds else "")


PACK_RE = re.compile(r"__packed\b|__attribute__\s*\(\(\s*_*packed|__aligned\b|"
                     r"__attribute__\s*\(\(\s*_*aligned|\b_*EPOLL_PACKED\b|__aligned_u64|__aligned_[su]64")


def definition_annotation(text, line):
    """packed/aligned annotations in the definition starting at line."""
    ls = text.splitlines()[max(0, line - 1):]
    depth, body = 0, []
    for l in ls[:400]:
        body.append(l)
        depth += l.count("{") - l.count("}")
        if depth <= 0 and "}" in l:
            break
    return "/".join(sorted({"packed" if "PACKED" in x.upper() else "aligned"
                            for x in PACK_RE.findall("\n".join(body))}))
