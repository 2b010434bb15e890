"""The analysis: read every object's layouts, merge the ABIs per type,
compare, annotate, prove, and write the reports."""

import json
import multiprocessing
import os
import time
from dataclasses import dataclass, field

from labhost.abis import ABIS

from .cache import SELF_HASH, jobkey, load_json, save_json, sha
from .compare import ALIGNED64, COMPAT, NATIVE, Verdict, aligned64_relation, compare, layout_sig
from .crossing import crossing, ioctl_types
from .kernel import annotate, definition_annotation, ksrc_key
from .layout import Layout, parse_pahole, read_sizes
from .objects import group_base, group_name, read_tree
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
    aligned64: str = ""              # aligned64_relation(): whose layout ALIGNED64 has
    c_compat_aligned64: int = 0
    c_aligned64_native: int = 0
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
        return self.abi[NATIVE].prelude


def load_layouts(ctx, hdrs):
    """{abi: {(name, decl): Layout}}. A header's types are those of the
    files its stand-alone compile opened (its .tree), read from its
    group's object (objects.py); each type is taken for its own header,
    or else for the first header that opened its file (asm-generic,
    headers that fail). A header that compiles only after a prelude has
    an object of its own."""
    units, own = object_units(ctx, hdrs)
    objtypes = parse_objects(ctx, units, own)
    group_of, bydecl = {}, {}               # group object: {decl: {name: type}}
    for abi, members, base, _k in units:
        for h in members:
            group_of[(abi, h)] = base
        for name, t in objtypes[base].items():
            bydecl.setdefault(base, {}).setdefault(t["decl"], {})[name] = t
    out = {abi: {} for abi in ABIS}
    for h in hdrs:
        for abi in ABIS:
            if (abi, h) not in group_of:
                continue
            base, pre = group_of[(abi, h)], ()
            if ctx.index.get(jobkey(abi, h), {}).get("ok"):
                types = {}
                for f in files_read(ctx, abi, h):
                    if f == h or (abi, f) not in own:
                        types.update(bydecl.get(base, {}).get(f, {}))
            else:
                pre, types = tuple(ctx.index["probe:" + h]["prelude"]), objtypes[base]
            for name, t in types.items():
                key = (name, t["decl"])
                if key not in out[abi] or t["decl"] == h:
                    lay = Layout.from_json(t)
                    lay.prelude, lay.obj = list(pre), h
                    out[abi][key] = lay
    return out


def object_units(ctx, hdrs):
    """[(abi, headers it is the object of, OBJBASE, cache key)], and the
    (abi, header) pairs that have an object."""
    units = []
    for abi in ABIS:
        for g in ctx.index.get("groups:" + abi, {}).get("groups", []):
            units.append((abi, tuple(g), group_base(ctx, abi, g),
                          ctx.index["unit:" + group_name(abi, g)]["key"]))
        for h in hdrs:
            e, pre = ctx.index.get(jobkey(abi, h)), ctx.index.get("probe:" + h, {}).get("prelude")
            if e and not e["ok"] and pre:
                e = ctx.index.get(jobkey(abi, h, tuple(pre)))
                if e and e["ok"]:
                    units.append((abi, (h,), ctx.objbase(abi, h, tuple(pre)),
                                  sha(json.dumps(e, sort_keys=True))))
    return units, {(abi, h) for abi, members, _b, _k in units for h in members}


def parse_objects(ctx, units, own):
    """{OBJBASE: {name: type}} of the types load_layouts can take from
    each object; cached in cache/parsed.json."""
    pcache_path = os.path.join(ctx.cache, "parsed.json")
    pcache = load_json(pcache_path)
    okey = sha(json.dumps(sorted(own)) + SELF_HASH)
    todo = sorted(((abi, members, base) for abi, members, base, k in units
                   if pcache.get(base, {}).get("k") != k + okey),
                  key=lambda j: -os.path.getsize(j[2] + ".pa"))     # the longest first
    parsed = {}
    if todo:                                # parsing is CPU-bound: one process per core
        with multiprocessing.Pool(os.cpu_count() or 2, _pool_init, (ctx.uapi, own)) as pool:
            for (_abi, _m, base), types in zip(todo, pool.map(_parse_obj, todo, chunksize=1)):
                parsed[base] = types
    newcache = {base: {"k": k + okey, "t": parsed[base] if base in parsed else pcache[base]["t"]}
                for _abi, _m, base, k in units}
    save_json(pcache_path, newcache)
    return {base: c["t"] for base, c in newcache.items()}


def files_read(ctx, abi, h):
    """The uapi files h's stand-alone compile opened, as relative paths."""
    prefix = ctx.uapi.rstrip("/") + "/"
    return {p[len(prefix):] for p, _d in read_tree(ctx, abi, h)[0] if p.startswith(prefix)}


_POOL = {}


def _pool_init(uapi, own):
    _POOL["uapi"], _POOL["own"] = uapi, own


def _parse_obj(job):
    """The types of an object's own headers, and of files no header owns
    (the only ones load_layouts takes from it)."""
    abi, members, base = job
    own = _POOL["own"]
    with open(base + ".pa", errors="replace") as f:
        types = parse_pahole(f.read(), _POOL["uapi"], lambda d: d in members or (abi, d) not in own,
                             read_sizes(base + ".sizes"))
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
        key = g[NATIVE]
        where = f"{key[1]}:{t[NATIVE].line}"
        sig = (key[0],) + tuple(layout_sig(t[a]) for a in ABIS)
        if sig in merged:
            merged[sig].decls.append(where)
            continue
        merged[sig] = Finding(key[0], t[NATIVE].kind, key[1], t[NATIVE].line, t, [where],
                              sorted({f"{a}: {g[a][1]}" for a in ABIS if g[a] != key}))
    return sorted(merged.values(), key=lambda x: (x.name, x.decl)), partial


def classify(types, texts):
    for t in types:
        t.sizes = [t.abi[a].size for a in ABIS]
        t.verdict = compare(t.abi[COMPAT], t.abi[NATIVE])
        if t.per_abi_decl:
            t.verdict.detail += f" (declared elsewhere for {', '.join(t.per_abi_decl)})"
        t.aligned64 = aligned64_relation(t.abi)
        t.c_compat_aligned64 = compare(t.abi[COMPAT], t.abi[ALIGNED64]).cls
        t.c_aligned64_native = compare(t.abi[ALIGNED64], t.abi[NATIVE]).cls
        t.packing = definition_annotation(texts.get(t.decl, ""), t.line)


def propagate(types):
    """Name the members whose own struct/union type differs; return
    {(kind, name): [(kind, name) of the types that contain it]}."""
    byname = {}
    for t in types:
        byname.setdefault(t.name, []).append(t)
    containers = {}
    for t in types:
        for n in t.abi[NATIVE].nested:
            kind, _, tag = n.tag.partition(" ")
            if tag != "(anonymous)":
                containers.setdefault((kind, tag), []).append((t.kind, t.name))
        if not t.cls:
            continue
        bytag = {}
        nb = {n.path: n for n in t.abi[NATIVE].nested}
        for n in t.abi[COMPAT].nested:
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
    hdrs = ctx.headers()
    hset = set(hdrs)
    relevant = {k: v for k, v in ctx.index.items()
                if v.get("hdr") in hset or k.startswith(("probe:", "groups:"))}
    rkey = sha(json.dumps([relevant, SELF_HASH, ksrc_key(ctx.ksrc), ctx.only or ""], sort_keys=True))
    rpath = os.path.join(ctx.cache, "result.json")
    res = load_json(rpath)
    if res.get("key") == rkey and all(os.path.exists(os.path.join(ctx.out, o)) for o in OUTPUTS):
        if not ctx.quiet:
            print(res["summary"], end="")
        print(res["oneline"] + " (cached)")
        return

    layouts = load_layouts(ctx, hdrs)
    t_parse = time.time() - t0
    texts = uapi_texts(ctx)
    types, partial = merge(layouts)
    classify(types, texts)
    containers = propagate(types)
    flagged = [t for t in types if t.cls]
    annotate(ctx, [t for t in flagged if t.cls in (1, 2)], texts)
    ioc = ioctl_types(texts)
    for t in flagged:
        t.crossing = crossing(t, ioc, containers)
        if t.cls == 3:
            t.handling = "-"
    t1 = time.time()
    ncomp, nfiles = prove(ctx, flagged)
    t_proof = time.time() - t1
    failed = failures(ctx, hdrs, texts)
    summary, oneline = write_reports(ctx, types, flagged, failed, partial, len(hdrs))
    res = {"key": rkey, "summary": summary, "oneline": oneline}
    save_json(rpath, res)
    if not ctx.quiet:
        print(summary, end="")
    print(f"{oneline} (analysis {time.time() - t0:.1f} s, of which reading layouts {t_parse:.1f} s, "
          f"proving {t_proof:.1f} s: {ncomp} of {nfiles} assertion files compiled)")
