"""The objects pahole reads: one per group of headers (groups.py) and ABI,
and one per header that compiles only after a prelude (probe.py).

A header's stand-alone compile says whether it compiles and which files
it opened; its layouts are read from its group's object, restricted to
those files (analyze.py). OBJBASE.o of each header links to its group's
object, so that `pahole -C NAME` on it still works."""

import concurrent.futures
import json
import os
import subprocess
import sys

from labhost.limits import limit

from .cache import ABI_FLAG, OBJ_FLAGS, OBJ_RECIPE, SCHEMA, SELF_HASH, jobkey, sha
from labhost.abis import ABIS  # guest/abis, their one list
from .fileinfo import parse_tree, read
from .groups import Model, Planner, split


class Unit:
    """One translation unit: #include each of hdrs in order."""

    def __init__(self, abi, hdrs, base, group):
        self.abi, self.hdrs, self.base, self.group = abi, list(hdrs), base, group


def group_base(ctx, abi, hdrs):
    return os.path.join(ctx.cache, group_name(abi, hdrs))


def group_name(abi, hdrs):
    """A group's object under cache/, and its key in the index."""
    return os.path.join("obj", abi, "group-" + sha("\n".join(hdrs))[:16])


def read_tree(ctx, abi, h):
    return parse_tree(read(ctx.objbase(abi, h) + ".tree") or "")


def ok_headers(ctx, abi, hdrs):
    return [h for h in hdrs if ctx.index.get(jobkey(abi, h), {}).get("ok")]


def plan_key(ctx, abi, ok):
    return sha(json.dumps([SELF_HASH, abi, [ctx.index[jobkey(abi, h)] for h in ok]], sort_keys=True))


def unit_key(ctx, u):
    """The unit's flags and the content of every file its headers read."""
    deps = {}
    for h in u.hdrs:
        deps.update(ctx.index.get(jobkey(u.abi, h), {}).get("deps", {}))
    return sha(json.dumps([SCHEMA, ctx.toolkey, OBJ_RECIPE, ABI_FLAG[u.abi], ctx.uapi, u.hdrs, deps],
                          sort_keys=True))


def build(ctx, u):
    """Compile u and let pahole read it: True if both worked. pahole exits
    1 on an object without types (a header of macros only)."""
    for x in (".o", ".d", ".pa", ".sizes", ".err"):
        if os.path.lexists(u.base + x):
            os.remove(u.base + x)
    with open(u.base + ".c", "w") as f:
        f.write("".join(f"#include <{h}>\n" for h in u.hdrs))
    env = dict(os.environ, LC_ALL="C")
    gcc = ["gcc", ABI_FLAG[u.abi]] + OBJ_FLAGS + ["-MD", "-I", ctx.uapi, u.base + ".c", "-o", u.base + ".o"]
    try:
        with open(u.base + ".err", "w") as err:
            if subprocess.run(gcc, stderr=err, env=env, timeout=limit("LIMIT_SCAN_STAGE")).returncode:
                return False
            rcs = []
            for x, flags in ((".pa", ["-I", "-E"]), (".sizes", ["--sizes"])):
                with open(u.base + x, "w") as out:
                    rcs.append(subprocess.run(["pahole", "-F", "dwarf"] + flags + [u.base + ".o"],
                                              stdout=out, stderr=err, env=env, timeout=limit("LIMIT_SCAN_STAGE")).returncode)
    except subprocess.TimeoutExpired:
        return False
    with open(u.base + ".err", errors="replace") as f:
        return rcs == [0, 0] or "has no dwarf type information" in f.read()


def build_all(ctx, units, planner):
    """Build units on every core, the largest first. A group the compiler
    refuses (two headers clash) is split and its parts built instead.
    Returns {unit: ok}."""
    done = {}
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as ex:
        pending = {ex.submit(build, ctx, u): u for u in sorted(units, key=lambda u: -len(u.hdrs))}
        while pending:
            finished, _ = concurrent.futures.wait(pending, return_when=concurrent.futures.FIRST_COMPLETED)
            for fut in finished:
                u = pending.pop(fut)
                ok = fut.result()
                if ok or not u.group:
                    done[u] = ok
                elif len(u.hdrs) == 1:
                    sys.exit(f"abi-scan: error: {u.hdrs[0]} compiles alone but not into an object "
                             f"({u.base}.err)")
                else:
                    for hs in split(planner(u.abi), u.hdrs, ctx.uapi + "/"):
                        v = Unit(u.abi, hs, group_base(ctx, u.abi, hs), True)
                        pending[ex.submit(build, ctx, v)] = v
    return done


def link(path, target):
    """path -> target (a relative symlink), unless it is one already."""
    if os.path.islink(path) and os.readlink(path) == target:
        return
    if os.path.lexists(path):
        os.remove(path)
    os.symlink(target, path)


class Planners:
    """A Planner per ABI, made when first needed: a warm scan reads no
    tree and no header."""

    def __init__(self, ctx, oks):
        self.ctx, self.oks, self.model, self.planners = ctx, oks, None, {}

    def __call__(self, abi):
        if abi not in self.planners:
            if self.model is None:
                self.trees = {a: {h: read_tree(self.ctx, a, h) for h in self.oks[a]} for a in ABIS}
                self.model = Model({(a, h): t for a in ABIS for h, t in self.trees[a].items()})
            self.planners[abi] = Planner(self.trees[abi], self.model)
        return self.planners[abi]


def units_to_build(ctx, hdrs, oks, keys, planners):
    """Every ABI's groups (the cached plan if nothing changed) and the
    headers with a prelude."""
    units = []
    for abi in ABIS:
        cached = ctx.index.get("groups:" + abi, {})
        plan = cached["groups"] if cached.get("key") == keys[abi] else \
            planners(abi).plan(oks[abi], ctx.uapi + "/")
        units += [Unit(abi, g, group_base(ctx, abi, g), True) for g in plan]
        for h in hdrs:
            pre = ctx.index.get("probe:" + h, {}).get("prelude")
            if pre and not ctx.index.get(jobkey(abi, h), {}).get("ok", True):
                units.append(Unit(abi, pre + [h], ctx.objbase(abi, h, tuple(pre)), False))
    return units


def cmd_objects(ctx):
    hdrs = ctx.headers()
    oks = {abi: ok_headers(ctx, abi, hdrs) for abi in ABIS}
    keys = {abi: plan_key(ctx, abi, oks[abi]) for abi in ABIS}
    planners = Planners(ctx, oks)
    units = units_to_build(ctx, hdrs, oks, keys, planners)
    kept = [u for u in units if fresh(ctx, u)]
    done = build_all(ctx, [u for u in units if u not in kept], planners)
    for u, ok in done.items():
        if u.group:
            ctx.index["unit:" + group_name(u.abi, u.hdrs)] = {"key": unit_key(ctx, u)}
        else:
            ctx.record(u.abi, u.hdrs[-1], tuple(u.hdrs[:-1]), ok)
    for abi in ABIS:
        groups = sorted(u.hdrs for u in kept + list(done) if u.abi == abi and u.group)
        plan = {"key": keys[abi], "groups": groups}
        if ctx.index.get("groups:" + abi) != plan:
            ctx.index["groups:" + abi] = plan
            ctx.dirty = True
        for g in groups:
            target = os.path.basename(group_base(ctx, abi, g)) + ".o"
            for h in g:
                link(ctx.objbase(abi, h) + ".o", target)
    ctx.dirty = ctx.dirty or bool(done)
    ctx.save_index()
    if not ctx.quiet:
        ngroups = sum(len(ctx.index["groups:" + abi]["groups"]) for abi in ABIS)
        print(f"objects: {len(done)} compiled, {len(kept)} cached; "
              f"{sum(len(oks[a]) for a in ABIS)} stand-alone compiles read from {ngroups} groups")


def fresh(ctx, u):
    if u.group:
        return (ctx.index.get("unit:" + group_name(u.abi, u.hdrs), {}).get("key") == unit_key(ctx, u) and
                all(os.path.exists(u.base + x) for x in (".pa", ".sizes")))
    pre = tuple(u.hdrs[:-1])
    return ctx.valid(jobkey(u.abi, u.hdrs[-1], pre), u.abi, pre)
