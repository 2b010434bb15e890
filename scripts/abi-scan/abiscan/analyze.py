"""The analysis: read every object's layouts, merge the ABIs per type,
compare, annotate, prove, and write the reports."""

import json
import multiprocessing
import os
import time
from dataclasses import dataclass, field

from .cache import SELF_HASH, jobkey, load_json, sha
from .compare import ABIS, Verdict, compare, layout_sig, x32_relation
from .crossing import crossing, ioctl_types
from .kernel import annotate, definition_annotation, ksrc_key
from .layout import Layout, parse_pahole, read_sizes
from .probe import failures, uapi_texts
from .proof import prove
from .report import OUTPUTS, write_reports


@dataclass
class Finding:
    """One type, merged over the ABIs, and what the scan says of it."""
    name: str
    kind: str
    decl: str
    line: int
    abi: dict                       # {abi: Layout}
    decls: list
    per_abi_decl: list
    verdict: Verdict = None
    sizes: list = field(default_factory=list)
    x32: str = ""
    c_i386_x32: int = 0
    c_x32_x86_64: int = 0
    packing: str = ""
    propagated: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    handling: str = ""
    uses: list = field(default_factory=list)
    crossing: str = ""
    proof: list = field(default_factory=list)

    @property
    def cls(self):
        return self.verdict.cls

    @property
    def prelude(self):
        return self.abi["x86_64"].prelude


def load_layouts(ctx, hdrs):
    """{abi: {(name, decl): Layout}}. Every object repeats the types of the
    headers it includes, so each type is taken from the object of its own
    header; only types whose header has no object for that ABI (asm-generic,
    headers that fail) are taken from the objects that include them.
    Parsed results are cached per object in cache/parsed.json."""
    pcache_path = os.path.join(ctx.cache, "parsed.json")
    pcache = load_json(pcache_path)
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
    okey = sha(json.dumps(sorted(own)) + SELF_HASH)
    todo = [(abi, h, ctx.objbase(abi, h, pre)) for abi, h, pre, k in jobs
            if pcache.get(jobkey(abi, h, pre), {}).get("k") != k + okey]
    parsed = {}
    if todo:                                # parsing is CPU-bound: one process per core
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
                lay = Layout.from_json(t)
                lay.prelude, lay.obj = list(pre), h
                out[abi][key] = lay
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
    own = _POOL["own"]
    with open(base + ".pa", errors="replace") as f:
        types = parse_pahole(f.read(), _POOL["uapi"],
                             lambda d: d == h or (abi, d) not in own, read_sizes(base + ".sizes"))
    return {n: t.to_json() for n, t in types.items()}


def merge(layouts):
    """Findings, one per type: the same name and layouts in several
    headers count once; a name declared in a different header per ABI
    (x86's asm/msgbuf.h has its own msqid64_ds for x32) is one type if
    each ABI has exactly one declaration of it. Also returns the types
    some ABIs lack."""
    keys = sorted(set().union(*[set(layouts[a]) for a in ABIS]))
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
        where = f"{key[1]}:{t['x86_64'].line}"
        sig = (key[0],) + tuple(layout_sig(t[a]) for a in ABIS)
        if sig in merged:
            merged[sig].decls.append(where)
            continue
        merged[sig] = Finding(key[0], t["x86_64"].kind, key[1], t["x86_64"].line, t, [where],
                              sorted({f"{a}: {g[a][1]}" for a in ABIS if g[a] != key}))
    return sorted(merged.values(), key=lambda x: (x.name, x.decl)), partial


def classify(types, texts):
    for t in types:
        t.sizes = [t.abi[a].size for a in ABIS]
        t.verdict = compare(t.abi["i386"], t.abi["x86_64"])
        if t.per_abi_decl:
            t.verdict.detail += f" (declared elsewhere for {', '.join(t.per_abi_decl)})"
        t.x32 = x32_relation(t.abi)
        t.c_i386_x32 = compare(t.abi["i386"], t.abi["x32"]).cls
        t.c_x32_x86_64 = compare(t.abi["x32"], t.abi["x86_64"]).cls
        t.packing = definition_annotation(texts.get(t.decl, ""), t.line)


def propagate(types):
    """Name the members whose own struct/union type differs; return
    {(kind, name): [(kind, name) of the types that contain it]}."""
    byname = {}
    for t in types:
        byname.setdefault(t.name, []).append(t)
    containers = {}
    for t in types:
        for n in t.abi["x86_64"].nested:
            kind, _, tag = n.tag.partition(" ")
            if tag != "(anonymous)":
                containers.setdefault((kind, tag), []).append((t.kind, t.name))
        if not t.cls:
            continue
        bytag = {}
        nb = {n.path: n for n in t.abi["x86_64"].nested}
        for n in t.abi["i386"].nested:
            m = nb.get(n.path)
            if m and n.size != m.size and not n.tag.endswith("(anonymous)"):
                bytag.setdefault(n.tag, []).append(n.path)
        for tag, members in bytag.items():
            sub = byname.get(tag.split(" ", 1)[1], [None])[0]
            more = f", +{len(members) - 3} more" if len(members) > 3 else ""
            t.propagated.append(f"{tag} (class {sub.cls if sub else '?'}) in "
                                f"{', '.join(members[:3])}{more}")
    return containers


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
    try:
        with open(rpath) as f:
            res = json.load(f)
        if res["key"] == rkey and all(os.path.exists(os.path.join(ctx.out, o)) for o in OUTPUTS):
            if not ctx.quiet:
                print(res["summary"], end="")
            print(res["oneline"] + " (cached)")
            return
    except (OSError, ValueError, KeyError):
        pass

    layouts = load_layouts(ctx, hdrs)
    t_parse = time.time() - t0
    texts = uapi_texts(ctx)
    types, partial = merge(layouts)
    classify(types, texts)
    containers = propagate(types)
    flagged = [t for t in types if t.cls]
    annotate(ctx, [t for t in flagged if t.cls in (1, 2)], texts)
    for t in flagged:
        if t.cls == 3:
            t.handling = "-"
    ioc = ioctl_types(texts)
    for t in flagged:
        t.crossing = crossing(t, ioc, containers)
    t1 = time.time()
    ncomp, nfiles = prove(ctx, flagged)
    t_proof = time.time() - t1
    failed = failures(ctx, hdrs, texts)
    summary, oneline = write_reports(ctx, types, flagged, failed, partial, len(hdrs))
    res = {"key": rkey, "summary": summary, "oneline": oneline}
    with open(rpath, "w") as f:
        json.dump(res, f)
    if not ctx.quiet:
        print(summary, end="")
    print(f"{oneline} (analysis {time.time() - t0:.1f} s, of which reading layouts {t_parse:.1f} s, "
          f"proving {t_proof:.1f} s: {ncomp} of {nfiles} assertion files compiled)")
