"""The compiler's word for the report's numbers: for every flagged type,
per ABI, a C file of _Static_assert(sizeof ...) and _Static_assert(offsetof
...) with the numbers the scan read from pahole, compiled with that ABI's
flag. A number that is wrong fails the compile."""

import concurrent.futures
import json
import os
import re
import subprocess

from labhost.limits import limit

from .cache import ABI_FLAG, jobkey, load_json, save_json, sha, unit_file
from labhost.abis import ABIS  # guest/abis, their one list

FAIL_RE = re.compile(r'static assertion failed: "([^"]*)"')
ERR_RE = re.compile(r"^[^:\n]+\.c:(\d+):\d+: error: (.*)$", re.M)
MAX_MEMBERS = 8


def asserted_members(t, abi):
    """The members whose place the report states: those the verdict
    names, those that move between ABIs, and the last one (where sizeof
    and the members end). No bitfields: offsetof cannot take them."""
    lay = t.abi[abi]
    byp = {m.path: m for m in lay.members if m.bit is None and m.path and ".." not in m.path
           and not m.path.startswith(".") and not m.path.endswith(".")}
    want = list(t.verdict.members)
    others = [t.abi[a] for a in ABIS if a != abi]
    for m in lay.members:
        if any((o_m.offset, o_m.size) != (m.offset, m.size)
               for o in others for o_m in o.members if o_m.path == m.path):
            want.append(m.path)
    if lay.members:
        want.append(lay.members[-1].path)
    return [byp[p] for p in dict.fromkeys(want) if p in byp][:MAX_MEMBERS]


def source(items):
    """C text for [(finding, layout, members)] of one header and ABI, and
    {line number: finding name} of its assertions."""
    lay = items[0][1]
    lines = [f"#include <{h}>" for h in ["stddef.h", *lay.prelude, lay.obj]]
    owner = {}
    for t, lay, members in items:
        ty = f"{t.kind} {t.name}"
        lines.append(f'_Static_assert(sizeof({ty}) == {lay.size}, "{ty} sizeof {lay.size}");')
        owner[len(lines)] = ty
        for m in members:
            lines.append(f'_Static_assert(offsetof({ty}, {m.path}) == {m.offset}, '
                         f'"{ty} offsetof {m.path} {m.offset}");')
            owner[len(lines)] = ty
    return "\n".join(lines) + "\n", owner


def _gcc(abi, paths, uapi):
    r = subprocess.run(["gcc", ABI_FLAG[abi], "-fsyntax-only", "-I", uapi] + paths,
                       capture_output=True, timeout=limit("LIMIT_SCAN_STAGE"), env=dict(os.environ, LC_ALL="C"))
    return r.stderr.decode(errors="replace").splitlines()


def compile_each(abi, paths, uapi):
    """One gcc for several files of one ABI (gcc goes on after a file that
    fails, and names the file in each message): {path: (rc, messages)}."""
    msgs = {p: [] for p in paths}
    for line in _gcc(abi, paths, uapi):
        p = line.split(":", 1)[0]
        if p in msgs:
            msgs[p].append(line)
    return {p: (1 if any(" error: " in l for l in m) else 0, "\n".join(m)) for p, m in msgs.items()}


def compile_joined(abi, paths, uapi, workdir):
    """The files as one translation unit: each header is read once (its
    guard keeps it from being read again), twenty times faster than one
    file at a time. Messages are given back to the file and line they came
    from. If anything but an assertion fails (two headers that clash),
    each half is tried the same way, down to single files."""
    if len(paths) == 1:
        return compile_each(abi, paths, uapi)
    text, where = [], []                    # where[n]: (path, line) of joined line n+1
    for p in paths:
        with open(p) as f:
            lines = f.read().splitlines()
        text += lines
        where += [(p, n + 1) for n in range(len(lines))]
    joined = os.path.join(workdir, f"joined-{abi}-{sha(paths[0])[:8]}.c")
    with open(joined, "w") as f:
        f.write("\n".join(text) + "\n")
    out = _gcc(abi, [joined], uapi)
    errs = [l for l in out if " error: " in l]
    if any(not l.startswith(joined + ":") or "static assertion failed" not in l for l in errs):
        os.remove(joined)
        half = len(paths) // 2
        return {**compile_joined(abi, paths[:half], uapi, workdir),
                **compile_joined(abi, paths[half:], uapi, workdir)}
    msgs = {p: [] for p in paths}
    for l in errs:
        n = int(l[len(joined) + 1:].split(":", 1)[0])
        p, ln = where[n - 1]
        msgs[p].append(f"{p}:{ln}:{l[len(joined) + 1:].split(':', 1)[1]}")
    return {p: (1 if m else 0, "\n".join(m)) for p, m in msgs.items()}


def prove(ctx, flagged):
    """Write and compile the assertions; set t.proof on each finding to
    "ok" or what failed. Cached by the C text and the headers it reads."""
    groups = {}
    for t in flagged:
        for abi in ABIS:
            lay = t.abi[abi]
            groups.setdefault((abi, lay.obj, tuple(lay.prelude)), []).append(
                (t, lay, asserted_members(t, abi)))
    cpath = os.path.join(ctx.cache, "proof.json")
    cache = load_json(cpath)
    todo, results, paths = [], {}, {}
    for (abi, obj, pre), items in sorted(groups.items()):
        src, owner = source(items)
        d = os.path.join(ctx.out, "proof", abi)
        os.makedirs(d, exist_ok=True)
        path = paths[(abi, obj, pre)] = os.path.join(d, unit_file(obj, pre) + ".c")
        with open(path, "w") as f:
            f.write(src)
        deps = ctx.index.get(jobkey(abi, obj, pre), {}).get("deps", {})
        key = sha(json.dumps([src, ctx.toolkey, abi, {p: ctx.hash(p) for p in deps}], sort_keys=True))
        if cache.get(path, {}).get("key") == key:
            results[path] = dict(cache[path], owner=owner)
        else:
            todo.append((path, abi, key))
            results[path] = {"owner": owner}
    batches = []                            # per ABI: files with a prelude alone
    for abi in ABIS:
        mine = [j for j in todo if j[1] == abi and "+pre" not in j[0]]
        batches += [(abi, mine[i:i + 80], True) for i in range(0, len(mine), 80)]
        pre = [j for j in todo if j[1] == abi and "+pre" in j[0]]
        batches += [(abi, pre, False)] if pre else []
    work = os.path.join(ctx.out, "proof")

    def run(b):
        paths = [j[0] for j in b[1]]
        return compile_joined(b[0], paths, ctx.uapi, work) if b[2] else \
            compile_each(b[0], paths, ctx.uapi)

    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as ex:
        for (abi, jobs, _j), out in zip(batches, ex.map(run, batches)):
            for path, _abi, key in jobs:
                rc, err = out[path]
                results[path].update(key=key, rc=rc, err=err[:20000])
    save_json(cpath, {p: {k: v for k, v in r.items() if k != "owner"} for p, r in results.items()})
    for t in flagged:
        t.proof = []
    for (abi, obj, pre), items in groups.items():
        r = results[paths[(abi, obj, pre)]]
        bad = {}                            # finding -> first error of its lines
        for m in ERR_RE.finditer(r["err"]):
            ty = r["owner"].get(int(m.group(1)))
            what = m.group(2)
            f = FAIL_RE.search(what)
            what = f"{f.group(1).split(' ', 2)[2]} is wrong" if f else f"not compiled ({what[:80]})"
            bad.setdefault(ty, what)
        if r["rc"] and not bad:
            bad[None] = "not compiled"
        for t, _lay, _m in items:
            ty = f"{t.kind} {t.name}"
            if ty in bad or None in bad:
                t.proof.append(f"{abi}: {bad.get(ty) or bad[None]}")
    return len(todo), len(groups)
