"""Headers that do not compile stand-alone: find the header they need
first (probe; objects.py compiles them with it), and say why the others
fail (failures)."""

import concurrent.futures
import json
import os
import re
import subprocess

from labhost.limits import limit

from .cache import ABI_FLAG, SELF_HASH, jobkey, sha
from .compare import NATIVE
from .fileinfo import read
from labhost.abis import ABIS  # guest/abis, their one list

# libc headers a uapi header may silently rely on (tried in this order).
LIBC_CANDIDATES = ["stddef.h", "stdint.h", "sys/types.h", "sys/socket.h",
                   "sys/time.h", "time.h", "signal.h"]

ERR_ID_RES = [
    re.compile(r"unknown type name '(\w+)'"),
    re.compile(r"'(\w+)' undeclared"),
    re.compile(r"incomplete (?:element )?type '(struct \w+|union \w+|enum \w+)'"),
]


def first_error(path):
    for line in (read(path) or "").split("\n"):
        if " error: " in line or "fatal error:" in line:
            return line.strip()
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
                           input=src.encode(), capture_output=True, timeout=limit("LIMIT_SHORT"),
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
            ok, new = try_compile(ctx, NATIVE, prelude + [c], hdr)
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
    todo = []
    for h in failing:
        pkey = "probe:" + h
        want = sha(json.dumps([SELF_HASH] + [ctx.index[jobkey(a, h)] for a in ABIS], sort_keys=True))
        if ctx.index.get(pkey, {}).get("key") == want:
            continue
        if any(ctx.index[jobkey(a, h)]["ok"] for a in ABIS):     # arch-specific: nothing to probe
            ctx.index[pkey] = {"key": want, "prelude": None}
            ctx.dirty = True
            continue
        todo.append((h, pkey, want, first_error(ctx.objbase(NATIVE, h) + ".err")))
    texts = uapi_texts(ctx) if todo else None

    def probe(item):
        h, pkey, want, err = item
        return (pkey, want) + find_prelude(ctx, texts, h, err)

    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as ex:
        for pkey, want, pre, blocked in ex.map(probe, todo):
            ctx.index[pkey] = {"key": want, "prelude": pre, "blocked": blocked}
            ctx.dirty = True

    ctx.save_index()
    if failing:
        n = sum(1 for h in failing if ctx.index["probe:" + h]["prelude"])
        print(f"{len(failing)} headers do not compile stand-alone; "
              f"{n} of them are compiled again with the headers they need first")


def failures(ctx, hdrs, texts):
    mk = read(os.path.join(ctx.ksrc, "usr/include/Makefile")) if ctx.ksrc else None
    nohdrtest = set(re.findall(r"^no-header-test \+= (\S+)", mk or "", re.M))
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
