#!/usr/bin/env python3
"""abi-scan analysis: find uapi structs whose layout differs between i386,
x86_64 and x32, classify the difference, and look in a kernel tree for how
the kernel copes. abi-scan.sh runs the phases in order:

  plan     which (header, ABI) objects are missing or stale -> jobs.txt
  probe    record the compiles; for headers that fail stand-alone, find the
           header they need first and plan a compile with it -> jobs2.txt
  analyze  read the layouts, compare, annotate, write the reports

Layouts come from pahole (Debian: dwarves), not libabigail or readelf:
pahole is already a lab dependency, `-E` prints every member of every
struct with its offset and size with nested types expanded (so a nested
struct's members are compared too), `-I` gives the declaring file:line,
and one pahole run per object is fast (about 1 ms). abidw's XML would need
a type-graph walk to get the same flat view; readelf's DWARF dump even more.
Python stdlib only.
"""

import argparse
import concurrent.futures
import fnmatch
import hashlib
import json
import os
import re
import subprocess
import sys
import time

ABIS = ["i386", "x86_64", "x32"]
ABI_FLAG = {"i386": "-m32", "x86_64": "-m64", "x32": "-mx32"}
CLASS_NAME = {1: "tail padding only", 2: "members shifted", 3: "member sizes differ"}
# Bump when the meaning of cached files changes.
SCHEMA = "abi-scan-2"
# libc headers a uapi header may silently rely on (tried in this order).
LIBC_CANDIDATES = ["stddef.h", "stdint.h", "sys/types.h", "sys/socket.h",
                   "sys/time.h", "time.h", "signal.h"]
AUTOFS = "autofs_v5_packet"
with open(__file__, "rb") as _f:
    SELF_HASH = hashlib.sha256(_f.read()).hexdigest()


def sha(data):
    return hashlib.sha256(data if isinstance(data, bytes) else data.encode()).hexdigest()


class Hasher:
    """Content hashes of files, each read once per run."""

    def __init__(self):
        self.memo = {}

    def __call__(self, path):
        if path not in self.memo:
            try:
                with open(path, "rb") as f:
                    self.memo[path] = hashlib.sha1(f.read()).hexdigest()
            except OSError:
                self.memo[path] = None
        return self.memo[path]


class Ctx:
    def __init__(self, a):
        self.uapi = os.path.abspath(a.uapi)
        self.out = os.path.abspath(a.out)
        self.cache = os.path.join(self.out, "cache")
        self.cflags = a.cflags
        self.toolkey = a.toolkey
        self.only = a.only
        self.quiet = getattr(a, "quiet", False)
        self.ksrc = os.path.abspath(a.ksrc) if getattr(a, "ksrc", None) else None
        self.index_path = os.path.join(self.cache, "index.json")
        self.hash = Hasher()
        try:
            with open(self.index_path) as f:
                self.index = json.load(f)
        except (OSError, ValueError):
            self.index = {}

    def save_index(self):
        tmp = self.index_path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(self.index, f, sort_keys=True)
        os.replace(tmp, self.index_path)

    def base_key(self, abi, prelude=()):
        # compiler version + flags + ABI (+ the headers included first)
        return sha("\0".join([SCHEMA, self.toolkey, self.cflags, ABI_FLAG[abi],
                              self.uapi, ",".join(prelude)]))

    def objbase(self, abi, hdr, prelude=()):
        name = hdr.replace("/", "__")
        if prelude:
            name += "+pre"
        return os.path.join(self.cache, "obj", abi, name)

    def headers(self):
        """Headers compiled stand-alone: every *.h but asm-generic/*.h,
        which the kernel's own header test also skips (they are reached
        through asm/*.h; their types count when something includes them)."""
        out = []
        for root, dirs, files in os.walk(self.uapi, followlinks=True):
            dirs.sort()
            for fn in sorted(files):
                if not fn.endswith(".h"):
                    continue
                rel = os.path.relpath(os.path.join(root, fn), self.uapi)
                if rel.startswith("asm-generic/"):
                    continue
                if self.only and not any(fnmatch.fnmatch(rel, p) for p in self.only.split(",")):
                    continue
                out.append(rel)
        return out

    def valid(self, key, abi, prelude=()):
        e = self.index.get(key)
        if not e or e.get("base") != self.base_key(abi, prelude):
            return False
        if any(self.hash(p) != h for p, h in e["deps"].items()):
            return False
        b = self.objbase(abi, e["hdr"], prelude)
        return all(os.path.exists(b + x) for x in ((".pa", ".sizes") if e["ok"] else (".err",)))

    def ingest(self, jobs_file):
        """Record the compiles of a jobs file in the index (deps from .d)."""
        try:
            with open(jobs_file) as f:
                jobs = [l.split() for l in f if l.strip()]
        except OSError:
            return
        for j in jobs:
            abi, _flag, hdr, base = j[:4]
            prelude = tuple(j[4].split(",")) if j[4] != "-" else ()
            try:
                with open(base + ".status") as f:
                    status = f.read().strip()
            except OSError:
                status = "missing"
            deps = set()
            try:
                with open(base + ".d") as f:
                    deps.update(p for p in f.read().replace("\\\n", " ").split()[1:]
                                if p.endswith(".h"))
            except OSError:
                pass
            deps.add(os.path.join(self.uapi, hdr))
            self.index[jobkey(abi, hdr, prelude)] = {
                "hdr": hdr, "abi": abi, "prelude": list(prelude),
                "base": self.base_key(abi, prelude), "ok": status == "ok",
                "deps": {p: self.hash(p) for p in sorted(deps)}}


def jobkey(abi, hdr, prelude=()):
    return f"{abi}:{hdr}" + ("|" + ",".join(prelude) if prelude else "")


def job_line(ctx, abi, hdr, prelude=()):
    base = ctx.objbase(abi, hdr, prelude)
    os.makedirs(os.path.dirname(base), exist_ok=True)
    return " ".join([abi, ABI_FLAG[abi], hdr, base, ",".join(prelude) or "-"]) + "\n"


def write_jobs(path, lines):
    with open(path, "w") as f:
        f.writelines(lines)


# ---------------------------------------------------------------- plan

def cmd_plan(ctx):
    os.makedirs(ctx.cache, exist_ok=True)
    hdrs = ctx.headers()
    lines = [job_line(ctx, abi, h) for abi in ABIS for h in hdrs   # ABI-major: gcc batches
             if not ctx.valid(jobkey(abi, h), abi)]
    write_jobs(os.path.join(ctx.cache, "jobs.txt"), lines)
    print(f"{len(hdrs)} headers x {len(ABIS)} ABIs: {len(lines)} to compile, "
          f"{len(hdrs) * len(ABIS) - len(lines)} cached")


# ---------------------------------------------------------------- probe

ERR_ID_RES = [
    re.compile(r"unknown type name '(\w+)'"),
    re.compile(r"'(\w+)' undeclared"),
    re.compile(r"incomplete (?:element )?type '(struct \w+|union \w+|enum \w+)'"),
]


def first_error(path):
    try:
        with open(path, errors="replace") as f:
            for line in f:
                if " error: " in line or "fatal error:" in line:
                    return line.strip()
    except OSError:
        pass
    return "(no error message; see the .err file)"


def missing_ident(err):
    for r in ERR_ID_RES:
        m = r.search(err)
        if m:
            return m.group(1)
    return None


def uapi_texts(ctx):
    texts = {}
    for root, _dirs, files in os.walk(ctx.uapi, followlinks=True):
        for fn in files:
            if fn.endswith(".h"):
                p = os.path.join(root, fn)
                with open(p, errors="replace") as f:
                    texts[os.path.relpath(p, ctx.uapi)] = f.read()
    return texts


def uapi_definers(texts, ident, exclude):
    """uapi headers that define ident (macro, typedef, struct tag)."""
    if ident.startswith(("struct ", "union ", "enum ")):
        kind, name = ident.split()
        r = re.compile(rf"\b{kind}\s+{re.escape(name)}\s*\{{")
    else:
        r = re.compile(rf"#\s*define\s+{re.escape(ident)}\b|typedef\b[^;]*\b{re.escape(ident)}\s*;")
    return sorted(h for h, t in texts.items()
                  if h != exclude and not h.startswith("asm-generic/") and r.search(t))[:3]


def try_compile(ctx, abi, prelude, hdr):
    """(ok, first error line) of #include-ing prelude then hdr."""
    src = "".join(f"#include <{p}>\n" for p in list(prelude) + [hdr])
    try:
        r = subprocess.run(["gcc", ABI_FLAG[abi], "-fsyntax-only", "-I", ctx.uapi, "-x", "c", "-"],
                           input=src.encode(), capture_output=True, timeout=60,
                           env=dict(os.environ, LC_ALL="C"))
    except subprocess.TimeoutExpired:
        return False, "timeout"
    err = next((l for l in r.stderr.decode(errors="replace").splitlines() if " error: " in l), "")
    return r.returncode == 0, err


def find_prelude(ctx, texts, hdr, err):
    """Greedy: for the identifier the first error misses, add the first
    uapi or libc header that makes that error go away without a new clash;
    repeat with the next error (at most 6 rounds). Returns (prelude or
    None, what blocked: the missing identifier and a clash, if any)."""
    prelude = []
    for _ in range(6):
        ident = missing_ident(err)
        if not ident:
            return None, {"prelude": prelude, "err": err}
        clash = None
        for c in uapi_definers(texts, ident, hdr) + LIBC_CANDIDATES:
            if c in prelude:
                continue
            ok, new = try_compile(ctx, "x86_64", prelude + [c], hdr)
            if ok:
                return prelude + [c], None
            if re.search(r"redefinition|conflicting|redeclar", new):
                clash = clash or (c, shorten(new, ctx.uapi).split(": error: ")[-1])
            elif ident not in new:
                prelude.append(c)
                err = new
                break
        else:
            return None, {"prelude": prelude, "ident": ident, "clash": clash}
    return None, {"prelude": prelude, "err": err}


def cmd_probe(ctx):
    ctx.ingest(os.path.join(ctx.cache, "jobs.txt"))
    hdrs = ctx.headers()
    failing = [h for h in hdrs if any(not ctx.index.get(jobkey(a, h), {}).get("ok", True) for a in ABIS)]
    texts = None
    todo = []
    for h in failing:
        failed_abis = [a for a in ABIS if not ctx.index[jobkey(a, h)]["ok"]]
        pkey = "probe:" + h
        want = sha(json.dumps([SELF_HASH] + [ctx.index[jobkey(a, h)] for a in ABIS], sort_keys=True))
        if ctx.index.get(pkey, {}).get("key") == want:
            continue
        if len(failed_abis) < len(ABIS):     # arch-specific: nothing to probe
            ctx.index[pkey] = {"key": want, "prelude": None}
            continue
        if texts is None:
            texts = uapi_texts(ctx)
        todo.append((h, pkey, want, first_error(ctx.objbase("x86_64", h) + ".err")))

    def probe(item):
        h, pkey, want, err = item
        return (pkey, want) + find_prelude(ctx, texts, h, err)

    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as ex:
        for pkey, want, pre, blocked in ex.map(probe, todo):
            ctx.index[pkey] = {"key": want, "prelude": pre, "blocked": blocked}

    lines = []
    for h in failing:
        pre = ctx.index["probe:" + h]["prelude"]
        if pre:
            lines += [job_line(ctx, a, h, tuple(pre)) for a in ABIS
                      if not ctx.valid(jobkey(a, h, tuple(pre)), a, tuple(pre))]
    write_jobs(os.path.join(ctx.cache, "jobs2.txt"), lines)
    ctx.save_index()
    if failing:
        print(f"{len(failing)} headers do not compile stand-alone; "
              f"{len(lines)} compiles with the headers they need first")


# ---------------------------------------------------------------- pahole parsing

DECL_RE = re.compile(r"^/\* <[0-9a-f]+> (.*):(\d+) \*/$")
START_RE = re.compile(r"^(struct|union) (\w+) \{$")
TAIL_RE = re.compile(r"/\*\s*(\d+)(?::\s*(\d+))?\s+(\d+)\s*\*/\s*$")
SIZE_RE = re.compile(r"^/\* size: (\d+),")
TYPEDEF_RE = re.compile(r"^/\* typedef (.*?) \*/\s*")
OPEN_RE = re.compile(r"^(struct|union|enum)\s*(\w+)?\s*(?:__attribute__.*)?\{$")
ATTR_RE = re.compile(r"\s*__attribute__\(\(.*\)\)\s*$")
NAME_RE = re.compile(r"(\w+)\s*((?:\[\d*\])*)\s*(?::\s*\d+)?\s*$")
FNPTR_RE = re.compile(r"\(\s*\*\s*(\w+)\s*\)")


def parse_pahole(text, uapi, keep=lambda decl: True, sizes=None):
    """pahole -I -E output -> {name: type} for types declared under uapi.

    A type is {kind, size, decl, line, leaves, nested}; leaves are
    [path, offset, bitoffset, size, type] of every scalar/array member with
    nested structs flattened (pahole prints absolute offsets for them);
    nested are [path, tag, offset, size] of members of struct/union type."""
    types = {}
    prefix = uapi.rstrip("/") + "/"
    decl = None
    cur = None
    stack = []
    for line in text.splitlines():
        if cur is None:
            m = DECL_RE.match(line)
            if m:
                decl = m.groups()
                continue
            m = START_RE.match(line)
            if m:
                rel = decl and decl[0].startswith(prefix) and os.path.normpath(decl[0][len(prefix):])
                if rel and keep(rel):
                    cur = {"kind": m.group(1), "name": m.group(2), "size": None,
                           "decl": rel,
                           "line": int(decl[1])}
                    stack = [{"kind": m.group(1), "tag": m.group(2), "leaves": [], "nested": []}]
                else:
                    cur = {"skip": True}
                    stack = [None]
                decl = None
            continue
        s = line.strip()
        if not s:
            continue
        if cur.get("skip"):
            if line.startswith("}"):
                cur = None
            continue
        if s.startswith("/*") and s.find("*/") == len(s) - 2:
            m = SIZE_RE.match(s)
            if m and len(stack) == 1:
                cur["size"] = int(m.group(1))
            continue
        if line.startswith("}"):
            top = stack.pop()
            cur["leaves"] = top["leaves"]
            cur["nested"] = top["nested"]
            if cur["size"] is None and sizes:
                cur["size"] = sizes.get(cur["name"])
            if cur["size"] is not None:
                types[cur["name"]] = cur
            cur = None
            continue
        if s.startswith("}"):
            frame = stack.pop()
            tail = TAIL_RE.search(s)
            if not tail:
                continue
            body = ATTR_RE.sub("", s[1:tail.start()].strip().rstrip(";").strip())
            m = NAME_RE.search(body)
            name = (m.group(1) + m.group(2)) if m else ""
            off, bit, size = int(tail.group(1)), tail.group(2), int(tail.group(3))
            parent = stack[-1]
            if frame["kind"] == "enum":
                parent["leaves"].append([name, off, bit, size, "enum " + (frame["tag"] or "")])
                continue
            pre = name + "." if name else ""
            for lf in frame["leaves"]:
                parent["leaves"].append([pre + lf[0]] + lf[1:])
            for nd in frame["nested"]:
                parent["nested"].append([pre + nd[0]] + nd[1:])
            parent["nested"].append([name, f"{frame['kind']} {frame['tag'] or '(anonymous)'}", off, size])
            continue
        if s.endswith("{"):
            body = TYPEDEF_RE.sub("", s)
            m = OPEN_RE.match(body)
            stack.append({"kind": m.group(1) if m else "struct",
                          "tag": m.group(2) if m else None, "leaves": [], "nested": []})
            continue
        if stack[-1]["kind"] == "enum":
            continue
        tail = TAIL_RE.search(s)
        if not tail:
            continue                      # unnamed bitfield padding
        body = s[:tail.start()].strip().rstrip(";").strip()
        td = TYPEDEF_RE.match(body)
        typedef = td.group(1) if td else None
        body = TYPEDEF_RE.sub("", body)
        m = FNPTR_RE.search(body)
        if m:
            name, ctype = m.group(1), "function pointer"
        else:
            body = ATTR_RE.sub("", body)
            m = NAME_RE.search(body)
            if not m:
                continue
            name = m.group(1) + m.group(2)
            ctype = body[:m.start()].strip()
        if typedef:
            ctype = f"{typedef} ({ctype})"
        stack[-1]["leaves"].append([name, int(tail.group(1)), tail.group(2),
                                    int(tail.group(3)), ctype])
    return types


def shape(t):
    """What a layout comparison looks at: sizeof and every member's place
    and size. A nested member's own sizeof is not part of it: a union of
    differing structs that is the same size everywhere, with every member
    in place, does not differ for a program."""
    return [t["size"], [l[:4] for l in t["leaves"]]]


def layout_sig(t):
    return sha(json.dumps([t["kind"]] + shape(t)))


# ---------------------------------------------------------------- compare

def compare(a, b):
    """Class of the difference from layout a to layout b (0: same)."""
    if shape(a) == shape(b):
        return 0, ""
    la = {l[0]: l for l in a["leaves"]}
    lb = {l[0]: l for l in b["leaves"]}
    common = [p for p in la if p in lb]
    sized = [p for p in common if la[p][3] != lb[p][3]]
    gone = [p for p in la if p not in lb] + [p for p in lb if p not in la]
    shifted = [p for p in common if la[p][1:3] != lb[p][1:3]]
    if sized:
        d = "; ".join(f"{p} {la[p][3]}->{lb[p][3]} ({lb[p][4] or la[p][4]})" for p in sized[:3])
        more = f" (+{len(sized) - 3} more)" if len(sized) > 3 else ""
        return 3, "member sizes: " + d + more
    if gone:
        return 3, "members differ per ABI (#if on the architecture): " + ", ".join(gone[:4])
    if shifted:
        p = shifted[0]
        return 2, (f"{p} at {la[p][1]}->{lb[p][1]} ({la[p][4]}); "
                   f"{len(shifted)} member(s) shifted; sizeof {a['size']}->{b['size']}")
    return 1, f"sizeof {a['size']}->{b['size']}, all members in place"


def x32_relation(t):
    s = {abi: layout_sig(t[abi]) for abi in ABIS}
    if s["x32"] == s["x86_64"] and s["x32"] == s["i386"]:
        return "all"
    if s["x32"] == s["x86_64"]:
        return "x86_64"
    if s["x32"] == s["i386"]:
        return "i386"
    return "own"


# ---------------------------------------------------------------- kernel tree annotations

def ksrc_key(ksrc):
    """Identity of the kernel tree: path + git HEAD (the lab's build/linux
    switches branches) or, without git, the Makefile's version lines."""
    parts = [ksrc]
    if os.path.isdir(os.path.join(ksrc, ".git")):
        try:
            r = subprocess.run(["git", "-C", ksrc, "rev-parse", "HEAD"], capture_output=True,
                               text=True, timeout=30)
            parts.append(r.stdout.strip())
        except (OSError, subprocess.TimeoutExpired):
            pass
    try:
        with open(os.path.join(ksrc, "Makefile")) as f:
            parts.append(f.read(400))
    except OSError:
        pass
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
    try:
        with open(path, errors="replace") as f:
            if f.readline().strip() == key:
                return f.read().splitlines()
    except OSError:
        pass
    wf = os.path.join(ctx.cache, "kgrep-words.txt")
    with open(wf, "w") as f:
        f.write("\n".join(words) + "\n")
    t0 = time.time()
    # GNU grep -F over slices of the file list, one per core (git grep with
    # this many -w patterns takes a minute; GNU grep's -F matcher seconds)
    skip = ("tools/", "samples/", "Documentation/", "usr/")
    if os.path.isdir(os.path.join(ctx.ksrc, ".git")):
        r = subprocess.run(["git", "-C", ctx.ksrc, "ls-files", "-z", "--", "*.c", "*.h"],
                           capture_output=True, timeout=120)
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
        r = subprocess.run(cmd, cwd=ctx.ksrc, capture_output=True, timeout=300)
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


def is_uapi_path(p):
    return "/uapi/" in p or p.startswith("include/uapi/")


def annotate(ctx, flagged, texts):
    """Heuristic notes on how the kernel copes with each class 1/2 type."""
    names = sorted({t["name"] for t in flagged})
    lines = kernel_grep(ctx, names)
    byfile = {}
    for l in lines:
        parts = l.split(":", 2)
        if len(parts) == 3 and parts[1].isdigit():
            byfile.setdefault(parts[0], []).append((int(parts[1]), parts[2]))
    for t in flagged:
        n = t["name"]
        use = re.compile(rf"\b(?:struct|union)\s+{re.escape(n)}\b|\bsizeof\s*\(\s*{re.escape(n)}\b")
        twin = re.compile(r"\b(?:struct|union)\s+(" + "|".join(map(re.escape, twin_names(n))) + r")\s*\{")
        notes, uses = [], {}
        for fn, ls in byfile.items():
            for ln, txt in ls:
                m = twin.search(txt)
                if m:
                    notes.append(f"compat twin: struct {m.group(1)} ({fn}:{ln})")
                if not is_uapi_path(fn) and use.search(txt):
                    uses.setdefault(fn, []).append(ln)
        for fn, lns in sorted(uses.items()):
            fl = byfile[fn]
            fix = [ln for ln, txt in fl if "compat_need_64bit_alignment_fixup" in txt
                   and any(abs(ln - u) <= 60 for u in lns)]
            if fix:
                notes.append(f"compat_need_64bit_alignment_fixup() near a use ({fn}:{fix[0]})")
            cc = [(ln, m.group(1)) for ln, txt in fl
                  for m in [re.search(r"\b(in_compat_syscall|in_ia32_syscall)\b", txt)]
                  if m and any(abs(ln - u) <= 60 for u in lns)]
            if cc and not fix:
                notes.append(f"{cc[0][1]}() near a use ({fn}:{cc[0][0]})")
            ioc = [(ln, txt) for ln, txt in fl if re.search(r"\bcompat_ioctl\b", txt)]
            if ioc and fn.endswith(".c"):
                if all("compat_ptr_ioctl" in txt for _ln, txt in ioc):
                    notes.append(f"compat_ioctl = compat_ptr_ioctl only, no layout fix ({fn})")
                else:
                    notes.append(f"compat_ioctl handler in a file that uses it ({fn}:{ioc[0][0]})")
        packed = t["packing"]
        if packed:
            notes.append(f"{packed} annotation in {t['decl']}")
        t["uses"] = sorted(uses)
        t["notes"] = notes
        t["handling"] = summarize_notes(notes)


def summarize_notes(notes):
    kinds = []
    for n in notes:
        k = n.split(" (")[0].split(":")[0]
        k = {"compat_ioctl = compat_ptr_ioctl only, no layout fix": "compat_ptr_ioctl only"}.get(k, k)
        if n.startswith(("__packed", "__attribute__((packed", "packed", "aligned", "__aligned")):
            k = "packed/aligned"
        if k not in kinds:
            kinds.append(k)
    real = [k for k in kinds if k != "compat_ptr_ioctl only"]
    if not real:
        return "nothing found" + (" (compat_ptr_ioctl only)" if kinds else "")
    return ", ".join(kinds)


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
    m = PACK_RE.findall("\n".join(body))
    if not m:
        return ""
    kinds = sorted({("packed" if "PACKED" in x.upper() else "aligned") for x in m})
    return "/".join(kinds)


# ---------------------------------------------------------------- analyze

def load_layouts(ctx, hdrs):
    """{abi: {(name, decl): type}}. Every object repeats the types of the
    headers it includes, so each type is taken from the object of its own
    header; only types whose header has no object for that ABI (asm-generic,
    headers that fail) are taken from the objects that include them.
    Parsed results are cached per object in cache/parsed.json."""
    pcache_path = os.path.join(ctx.cache, "parsed.json")
    try:
        with open(pcache_path) as f:
            pcache = json.load(f)
    except (OSError, ValueError):
        pcache = {}
    jobs = []
    for h in hdrs:
        for abi in ABIS:
            e = ctx.index.get(jobkey(abi, h))
            pre = ()
            if e and not e["ok"]:
                p = ctx.index.get("probe:" + h, {}).get("prelude")
                if p:
                    pre = tuple(p)
                    e = ctx.index.get(jobkey(abi, h, pre))
            if e and e["ok"]:
                jobs.append((abi, h, pre, sha(json.dumps(e, sort_keys=True))))
    own = {(abi, h) for abi, h, _p, _k in jobs}
    okey = sha(json.dumps(sorted(own)))
    todo = [(abi, h, ctx.objbase(abi, h, pre)) for abi, h, pre, k in jobs
            if pcache.get(jobkey(abi, h, pre), {}).get("k") != k + okey]
    parsed = {}
    if todo:                                # parsing is CPU-bound: one process per core
        import multiprocessing
        with multiprocessing.Pool(os.cpu_count() or 2, _pool_init, (ctx.uapi, own)) as pool:
            for (abi, h, _b), types in zip(todo, pool.map(_parse_obj, todo, chunksize=16)):
                parsed[(abi, h)] = types
    out = {abi: {} for abi in ABIS}
    newcache = {}
    for abi, h, pre, k in jobs:
        jk = jobkey(abi, h, pre)
        types = parsed[(abi, h)] if (abi, h) in parsed else pcache[jk]["t"]
        newcache[jk] = {"k": k + okey, "t": types}
        for name, t in types.items():
            key = (name, t["decl"])
            if key not in out[abi] or t["decl"] == h:
                out[abi][key] = dict(t, prelude=list(pre))
    tmp = pcache_path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(newcache, f)
    os.replace(tmp, pcache_path)
    return out


_POOL = {}


def _pool_init(uapi, own):
    _POOL["uapi"], _POOL["own"] = uapi, own


def _parse_obj(job):
    abi, h, base = job
    sizes = {}
    with open(base + ".sizes", errors="replace") as f:
        for l in f:
            p = l.split("\t")
            if len(p) >= 2 and p[1].isdigit():
                sizes[p[0]] = int(p[1])
    own = _POOL["own"]
    with open(base + ".pa", errors="replace") as f:
        return parse_pahole(f.read(), _POOL["uapi"],
                            lambda d: d == h or (abi, d) not in own, sizes)


def cmd_analyze(ctx):
    t0 = time.time()
    ctx.ingest(os.path.join(ctx.cache, "jobs2.txt"))
    ctx.save_index()
    hdrs = ctx.headers()
    hset = set(hdrs)
    relevant = {k: v for k, v in ctx.index.items()
                if v.get("hdr") in hset or k.startswith("probe:")}
    rkey = sha(json.dumps([relevant, SELF_HASH, ksrc_key(ctx.ksrc), ctx.only or ""], sort_keys=True))
    rpath = os.path.join(ctx.cache, "result.json")
    outputs = ["report.txt", "report.tsv", "all-types.tsv", "failed.txt", "where-else-table.md",
               "where-else-counts.md", "where-else-failed.md", "where-else-nothing.md"]
    try:
        with open(rpath) as f:
            res = json.load(f)
        if res["key"] == rkey and all(os.path.exists(os.path.join(ctx.out, o)) for o in outputs):
            if not ctx.quiet:
                print(res["summary"], end="")
            print(res["oneline"] + " (cached)")
            return
    except (OSError, ValueError, KeyError):
        pass

    layouts = load_layouts(ctx, hdrs)
    t_parse = time.time() - t0
    texts = uapi_texts(ctx)

    # Merge the ABIs; dedupe: same name + same layouts in several headers.
    keys = sorted(set().union(*[set(layouts[a]) for a in ABIS]))
    # A name declared in a different header per ABI (x86's asm/msgbuf.h
    # has its own msqid64_ds for x32 only) is one type if each ABI has
    # exactly one declaration of it.
    perabi = {}
    for k in keys:
        for a in ABIS:
            if k in layouts[a]:
                perabi.setdefault(k[0], {}).setdefault(a, []).append(k)
    partial, merged, groups = [], {}, []
    for key in keys:
        if all(key in layouts[a] for a in ABIS):
            groups.append({a: key for a in ABIS})
        else:
            pa = perabi[key[0]]
            if all(len(pa.get(a, [])) == 1 for a in ABIS):
                g = {a: pa[a][0] for a in ABIS}
                if g not in groups:
                    groups.append(g)
            else:
                partial.append((key, [a for a in ABIS if key in layouts[a]]))
    for g in groups:
        t = {abi: layouts[abi][g[abi]] for abi in ABIS}
        key = g["x86_64"]
        where = f"{key[1]}:{t['x86_64']['line']}"
        other = sorted({f"{a}: {g[a][1]}" for a in ABIS if g[a] != key})
        sig = (key[0],) + tuple(layout_sig(t[a]) for a in ABIS)
        if sig in merged:
            merged[sig]["decls"].append(where)
            continue
        merged[sig] = {"name": key[0], "kind": t["x86_64"]["kind"], "decl": key[1],
                       "line": t["x86_64"]["line"], "decls": [where], "per_abi_decl": other,
                       "abi": t, "prelude": t["x86_64"]["prelude"]}
    types = sorted(merged.values(), key=lambda x: (x["name"], x["decl"]))
    byname = {}
    for t in types:
        byname.setdefault(t["name"], []).append(t)
        t["sizes"] = [t["abi"][a]["size"] for a in ABIS]
        t["cls"], t["detail"] = compare(t["abi"]["i386"], t["abi"]["x86_64"])
        if t["per_abi_decl"]:
            t["detail"] += f" (declared elsewhere for {', '.join(t['per_abi_decl'])})"
        t["x32"] = x32_relation(t["abi"])
        t["c_i386_x32"], _ = compare(t["abi"]["i386"], t["abi"]["x32"])
        t["c_x32_x86_64"], _ = compare(t["abi"]["x32"], t["abi"]["x86_64"])
        t["packing"] = definition_annotation(texts.get(t["decl"], ""), t["line"])
        t["notes"], t["handling"], t["uses"] = [], "", []
    # Propagate: name the members whose own struct/union type differs.
    for t in types:
        if not t["cls"]:
            continue
        bytag = {}
        a, b = t["abi"]["i386"], t["abi"]["x86_64"]
        nb = {n[0]: n for n in b["nested"]}
        for n in a["nested"]:
            m = nb.get(n[0])
            tag = n[1].split(" ", 1)[1] if " " in n[1] else n[1]
            if m and n[3] != m[3] and tag != "(anonymous)":
                bytag.setdefault(n[1], []).append(n[0])
        t["propagated"] = []
        for tag, members in bytag.items():
            sub = byname.get(tag.split(" ", 1)[1], [{}])[0]
            more = f", +{len(members) - 3} more" if len(members) > 3 else ""
            t["propagated"].append(f"{tag} (class {sub.get('cls', '?')}) in "
                                   f"{', '.join(members[:3])}{more}")
    flagged = [t for t in types if t["cls"]]
    annotate(ctx, [t for t in flagged if t["cls"] in (1, 2)], texts)
    for t in flagged:
        if t["cls"] == 3:
            t["handling"] = "-"
    failed = failures(ctx, hdrs, texts)
    summary, oneline = write_reports(ctx, types, flagged, failed, partial, len(hdrs))
    res = {"key": rkey, "summary": summary, "oneline": oneline}
    with open(rpath, "w") as f:
        json.dump(res, f)
    if not ctx.quiet:
        print(summary, end="")
    print(f"{oneline} (analysis {time.time() - t0:.1f} s, of which reading layouts {t_parse:.1f} s)")


def failures(ctx, hdrs, texts):
    nohdrtest = set()
    if ctx.ksrc:
        try:
            with open(os.path.join(ctx.ksrc, "usr/include/Makefile")) as f:
                nohdrtest = set(re.findall(r"^no-header-test \+= (\S+)", f.read(), re.M))
        except OSError:
            pass
    out = []
    for h in hdrs:
        bad = [a for a in ABIS if not ctx.index.get(jobkey(a, h), {}).get("ok", True)]
        if not bad:
            continue
        err = first_error(ctx.objbase(bad[0], h) + ".err")
        probe = ctx.index.get("probe:" + h, {})
        pre = probe.get("prelude")
        reason = classify_failure(h, bad, err, pre, texts, probe.get("blocked"))
        out.append({"hdr": h, "abis": bad, "err": shorten(err, ctx.uapi), "reason": reason,
                    "prelude": pre, "kernel_skips": h in nohdrtest})
    return out


def shorten(err, uapi):
    return err.replace(uapi.rstrip("/") + "/", "")


def classify_failure(h, bad, err, pre, texts, blocked):
    if len(bad) < len(ABIS):
        return f"arch-specific: fails for {', '.join(bad)} only"
    if "#error" in err:
        return "deliberately not for direct inclusion (#error)"
    m = re.search(r"fatal error: (\S+): No such file", err)
    if m:
        return f"includes <{m.group(1)}>, which headers_install does not export (kernel-internal)"
    ident = missing_ident(err)
    what = f"'{ident}'" if ident else "a type"
    if pre:
        kinds = {"uapi" if p in texts else "libc" for p in pre}
        lib = " and ".join(sorted(kinds))
        return f"needs {lib} headers first: <{'>, <'.join(pre)}> (first miss: {what})"
    b = blocked or {}
    got = f" (after <{'>, <'.join(b['prelude'])}>)" if b.get("prelude") else ""
    if b.get("clash"):
        return (f"needs libc headers first, but they clash with uapi's own definitions: "
                f"<{b['clash'][0]}> for '{b['ident']}'{got} gives '{b['clash'][1]}'")
    if b.get("ident"):
        return (f"uses '{b['ident']}'{got}, which no uapi or usual libc header defines "
                f"(a kernel-internal type)")
    return "does not compile stand-alone (see the first error)"


# ---------------------------------------------------------------- reports

def md(s):
    """Plain text for a Markdown table cell: nothing in it is markup."""
    s = str(s).replace("\\", "\\\\")
    for c in "`*_[]|":
        s = s.replace(c, "\\" + c)
    return s.replace("<", "&lt;").replace(">", "&gt;")


def write_reports(ctx, types, flagged, failed, partial, nhdrs):
    counts = {c: sum(1 for t in flagged if t["cls"] == c) for c in (1, 2, 3)}
    x32c = {c: {r: sum(1 for t in flagged if t["cls"] == c and t["x32"] == r)
                for r in ("i386", "x86_64", "own")} for c in (1, 2, 3)}
    nosep = [t for t in flagged if t["cls"] == 3 and t["c_i386_x32"] == 3]
    c12 = [t for t in flagged if t["cls"] in (1, 2)]
    handled = {k: sum(1 for t in c12 if k in t["handling"]) for k in
               ("compat twin", "compat_ioctl handler", "compat_need_64bit_alignment_fixup()",
                "in_compat_syscall()", "in_ia32_syscall()", "packed/aligned")}
    nothing = [t for t in c12 if t["handling"].startswith("nothing found")]
    autofs = [t for t in types if t["name"] == AUTOFS]
    ndecl = len({t["decl"] for t in types})

    def row_sizes(t):
        return "/".join(str(s) for s in t["sizes"])

    S = []
    S.append(f"abi-scan: {nhdrs} headers compiled for i386, x86_64 and x32; "
             f"{len(types)} named structs/unions from {ndecl} headers compared "
             f"({len(failed)} headers do not compile stand-alone).")
    for c in (1, 2, 3):
        S.append(f"  class {c} ({CLASS_NAME[c]}): {counts[c]:4d}   x32 like i386 {x32c[c]['i386']}, "
                 f"like x86_64 {x32c[c]['x86_64']}, own layout {x32c[c]['own']}")
    S.append(f"  class 1+2 kernel handling (heuristic): " +
             ", ".join(f"{k} {v}" for k, v in handled.items()) + f", nothing found {len(nothing)}")
    S.append(f"  x32 does not separate the causes for {len(nosep)} class-3 types "
             f"(member sizes differ between i386 and x32 too)")
    for t in autofs:
        S.append(f"  {AUTOFS}: class {t['cls']}, sizes {row_sizes(t)} (i386/x86_64/x32), "
                 f"x32 like {t['x32']}, kernel: {t['handling']}")
    S.append(f"  reports: {ctx.out}/report.txt, report.tsv, where-else-table.md")
    summary = "\n".join(S) + "\n"
    oneline = (f"abi-scan: class 1 {counts[1]}, class 2 {counts[2]}, class 3 {counts[3]}, "
               f"failed headers {len(failed)}")

    order = sorted(flagged, key=lambda t: (t["cls"], t["name"], t["decl"]))
    # report.tsv: one row per flagged type
    cols = ["name", "kind", "header", "line", "size_i386", "size_x86_64", "size_x32", "class",
            "class_name", "x32_like", "class_i386_x32", "class_x32_x86_64", "kernel_handling",
            "detail", "propagated", "notes", "also_declared_in", "compiled_after"]
    with open(os.path.join(ctx.out, "report.tsv"), "w") as f:
        f.write("\t".join(cols) + "\n")
        for t in order:
            f.write("\t".join(str(x).replace("\t", " ") for x in [
                t["name"], t["kind"], t["decl"], t["line"], *t["sizes"], t["cls"],
                CLASS_NAME[t["cls"]], t["x32"], t["c_i386_x32"], t["c_x32_x86_64"], t["handling"],
                t["detail"], "; ".join(t["propagated"]), "; ".join(t["notes"]),
                ",".join(t["decls"][1:]), ",".join(t["prelude"])]) + "\n")
    # all-types.tsv: every type compared, flagged or not (tests use it)
    with open(os.path.join(ctx.out, "all-types.tsv"), "w") as f:
        f.write("name\tkind\theader\tline\tsize_i386\tsize_x86_64\tsize_x32\tclass\tx32_like\tpacking\n")
        for t in types:
            f.write("\t".join(str(x) for x in [t["name"], t["kind"], t["decl"], t["line"], *t["sizes"],
                                                t["cls"], t["x32"], t["packing"] or "-"]) + "\n")
    # failed.txt
    with open(os.path.join(ctx.out, "failed.txt"), "w") as f:
        f.write("# header\tABIs\treason\tkernel's header test skips it too\tfirst error\n")
        for x in failed:
            f.write(f"{x['hdr']}\t{','.join(x['abis'])}\t{x['reason']}\t"
                    f"{'yes' if x['kernel_skips'] else 'no'}\t{x['err']}\n")

    # report.txt
    R = [summary, "",
         "Classes compare i386 (-m32) with x86_64 (-m64); x32 (-mx32) is shown beside them.",
         "  1 tail padding only: every member at the same offset and size, only sizeof differs",
         "  2 members shifted: a member moves (alignment of a 64-bit member), member sizes equal",
         "  3 member sizes differ: long, pointers, __kernel_long_t, time types (or #if per arch)",
         "Kernel handling is a heuristic grep of the kernel tree, not a proof: a compat_ twin",
         "struct, a compat_ioctl handler in a file that uses the type (compat_ptr_ioctl alone",
         "does not count: it fixes no layout), compat_need_64bit_alignment_fixup(),",
         "in_compat_syscall() or in_ia32_syscall() within 60 lines of a use, a packed/aligned",
         "annotation in the",
         "definition. 'nothing found' means none of these, not that there is a bug.", ""]
    for c in (1, 2, 3):
        R.append(f"== class {c}: {CLASS_NAME[c]} ({counts[c]})")
        for t in [t for t in order if t["cls"] == c]:
            R.append(f"{t['kind']} {t['name']}  [{t['decl']}:{t['line']}]  sizes {row_sizes(t)}  "
                     f"x32 like {t['x32']}")
            R.append(f"    {t['detail']}")
            for p in t["propagated"]:
                R.append(f"    contains {p}")
            if c in (1, 2):
                R.append(f"    kernel: {t['handling']}")
                for n in t["notes"]:
                    R.append(f"      - {n}")
            elif t["c_i386_x32"] == 3:
                R.append("    x32 does not separate the causes (sizes differ i386->x32 too)")
        R.append("")
    R.append(f"== headers that do not compile stand-alone ({len(failed)})")
    for x in failed:
        R.append(f"{x['hdr']} [{','.join(x['abis'])}]: {x['reason']}"
                 + ("; the kernel's own header test skips it too" if x["kernel_skips"] else ""))
        R.append(f"    {x['err']}")
    if partial:
        R += ["", f"== types defined for some ABIs only ({len(partial)})"]
        R += [f"{k[0]} [{k[1]}]: {', '.join(a)}" for k, a in partial]
    with open(os.path.join(ctx.out, "report.txt"), "w") as f:
        f.write("\n".join(R) + "\n")

    # Markdown fragments for docs/where-else.md
    M = ["| Class | What differs between i386 and x86_64 | Types | x32 like i386 | x32 like x86_64 "
         "| x32 own layout |", "|---|---|---:|---:|---:|---:|"]
    for c in (1, 2, 3):
        M.append(f"| {c} | {CLASS_NAME[c]} | {counts[c]} | {x32c[c]['i386']} | {x32c[c]['x86_64']} "
                 f"| {x32c[c]['own']} |")
    M += ["", md(f"The scan compiled {nhdrs} headers for each ABI and compared {len(types)} named "
             f"structs and unions from {ndecl} headers; {len(failed)} headers do not compile "
             f"stand-alone. Of the {len(c12)} class 1 and 2 types, the kernel-tree grep "
             f"found: " + ", ".join(f"{k} for {v}" for k, v in handled.items()) +
             f"; nothing for {len(nothing)}. For {len(nosep)} class-3 types x32 does not "
             f"separate the causes: their member sizes differ between i386 and x32 as well."), ""]
    for t in autofs:
        M.append(f"`struct {AUTOFS}`: class {t['cls']}, {row_sizes(t)} bytes "
                 f"(i386/x86\\_64/x32), x32 like {md(t['x32'])}; the kernel-tree grep: "
                 f"{md(t['handling'])}.")
    write(ctx, "where-else-counts.md", M)

    T = ["| Type | Header | i386 | x86_64 | x32 | Class | x32 like | Kernel handling (heuristic) "
         "| What differs |", "|---|---|---:|---:|---:|---|---|---|---|"]
    for t in order:
        cells = [f"`{t['kind']} {t['name']}`", f"`{t['decl']}`", *t["sizes"], t["cls"], md(t["x32"]),
                 md(t["handling"]), md(t["detail"] + ("; contains " + "; ".join(t["propagated"])
                                                       if t["propagated"] else ""))]
        if t["name"] == AUTOFS:                    # the lab's struct, in bold
            cells = [f"**{c}**" for c in cells]
        T.append("| " + " | ".join(str(c) for c in cells) + " |")
    write(ctx, "where-else-table.md", T)

    F = ["| Header | ABIs | Why (classified from the first error) | Kernel's header test skips it "
         "| First error |", "|---|---|---|---|---|"]
    for x in failed:
        F.append(f"| `{x['hdr']}` | {md(', '.join(x['abis']))} | {md(x['reason'])} | "
                 f"{'yes' if x['kernel_skips'] else 'no'} | `{x['err'].replace('`', '')}` |")
    write(ctx, "where-else-failed.md", F)

    N = ["| Type | Header | i386 | x86_64 | x32 | Class | Used in (kernel .c files) |",
         "|---|---|---:|---:|---:|---|---|"]
    for t in sorted(nothing, key=lambda t: t["name"]):
        uses = [u for u in t["uses"] if u.endswith(".c")]
        N.append(f"| `{t['name']}` | `{t['decl']}` | {' | '.join(map(str, t['sizes']))} | {t['cls']} | "
                 + (", ".join(f"`{u}`" for u in uses[:4]) + (" …" if len(uses) > 4 else "")
                    if uses else "no direct use found") + " |")
    write(ctx, "where-else-nothing.md", N)
    return summary, oneline


def write(ctx, name, lines):
    with open(os.path.join(ctx.out, name), "w") as f:
        f.write("\n".join(lines) + "\n")


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
