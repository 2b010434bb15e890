"""The compile cache: which (header, ABI) compiles exist and are still
valid (compiler, flags and the content of every header they included),
and the jobs file abi-scan.sh compiles."""

import fnmatch
import functools
import glob
import hashlib
import json
import os

from labhost.abis import ABIS, FLAG as ABI_FLAG  # guest/abis, their one list

from .fileinfo import read
# objects (objects.py): the debug information keeps every type even
# though nothing uses it; pahole reads it
OBJ_FLAGS = ["-g", "-fno-eliminate-unused-debug-types", "-c"]
OBJ_RECIPE = " ".join(OBJ_FLAGS) + " | pahole -F dwarf -I -E | pahole -F dwarf --sizes"
# Bump when the meaning of cached files changes.
SCHEMA = "abi-scan-3"


def _self_hash():
    """The scanner's own code: a change reruns the analysis."""
    here = os.path.dirname(os.path.abspath(__file__))
    h = hashlib.sha256()
    for p in sorted(glob.glob(os.path.join(here, "*.py")) + [os.path.join(here, "..", "scan.py")]):
        with open(p, "rb") as f:
            h.update(f.read())
    return h.hexdigest()


SELF_HASH = _self_hash()


def sha(data):
    return hashlib.sha256(data if isinstance(data, bytes) else data.encode()).hexdigest()


def save_json(path, data, **kw):
    """A cache file, replaced whole. json.dumps, not json.dump: dump
    encodes in Python, several times slower on parsed.json's 17 MB."""
    with open(path + ".tmp", "w") as f:
        f.write(json.dumps(data, **kw))
    os.replace(path + ".tmp", path)


def load_json(path):
    """A cache file's contents, or {} when it is missing or unreadable."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


@functools.cache
def file_hash(path):
    """A file's content hash (None if unreadable), each read once per run."""
    try:
        with open(path, "rb") as f:
            return hashlib.sha1(f.read()).hexdigest()
    except OSError:
        return None


class Ctx:
    def __init__(self, a):
        self.uapi = os.path.abspath(a.uapi)
        self.out = os.path.abspath(a.out)
        self.cache = os.path.join(self.out, "cache")
        self.cflags = a.cflags
        self.toolkey = a.toolkey
        self.only = a.only
        self.quiet = a.quiet
        self.ksrc = os.path.abspath(a.ksrc) if a.ksrc else None
        self.index_path = os.path.join(self.cache, "index.json")
        self.hash = file_hash
        self.index = load_json(self.index_path)
        self.dirty = False

    def save_index(self):
        if self.dirty:                      # a warm run: 5 MB not rewritten
            save_json(self.index_path, self.index, sort_keys=True)

    def base_key(self, abi, prelude=()):
        # compiler version + flags + ABI (+ the headers included first: an
        # object of its own)
        return sha("\0".join([SCHEMA, self.toolkey, OBJ_RECIPE if prelude else self.cflags,
                              ABI_FLAG[abi], self.uapi, ",".join(prelude)]))

    def objbase(self, abi, hdr, prelude=()):
        return os.path.join(self.cache, "obj", abi, unit_file(hdr, prelude))

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
        # a stand-alone compile leaves the files it opened; one with a
        # prelude is an object of its own (objects.py)
        b = self.objbase(abi, e["hdr"], prelude)
        done = (".pa", ".sizes") if prelude else (".tree",)
        return all(os.path.exists(b + x) for x in (done if e["ok"] else (".err",)))

    def ingest(self, jobs_file):
        """Record the compiles of a jobs file in the index."""
        jobs = [l.split() for l in (read(jobs_file) or "").split("\n") if l.strip()]
        for j in jobs:
            abi, _flag, hdr, base = j[:4]
            ok = (read(base + ".status") or "").strip() == "ok"
            self.record(abi, hdr, tuple(j[4].split(",")) if j[4] != "-" else (), ok)

    def record(self, abi, hdr, prelude, ok):
        """One compile in the index, with the content of every header it
        read (from its .d)."""
        d = read(self.objbase(abi, hdr, prelude) + ".d") or ""
        deps = {p for p in d.replace("\\\n", " ").split()[1:] if p.endswith(".h")}
        deps.add(os.path.join(self.uapi, hdr))
        self.dirty = True
        self.index[jobkey(abi, hdr, prelude)] = {
            "hdr": hdr, "abi": abi, "prelude": list(prelude),
            "base": self.base_key(abi, prelude), "ok": ok,
            "deps": {p: self.hash(p) for p in sorted(deps)}}


def unit_file(hdr, prelude=()):
    """A header's file name under obj/ABI/ and proof/ABI/ (one with a
    prelude is a unit of its own)."""
    return hdr.replace("/", "__") + ("+pre" if prelude else "")


def jobkey(abi, hdr, prelude=()):
    return f"{abi}:{hdr}" + ("|" + ",".join(prelude) if prelude else "")


def job_line(ctx, abi, hdr, prelude=()):
    base = ctx.objbase(abi, hdr, prelude)
    os.makedirs(os.path.dirname(base), exist_ok=True)
    return " ".join([abi, ABI_FLAG[abi], hdr, base, ",".join(prelude) or "-"]) + "\n"


def cmd_plan(ctx):
    os.makedirs(ctx.cache, exist_ok=True)
    hdrs = ctx.headers()
    lines = [job_line(ctx, abi, h) for abi in ABIS for h in hdrs   # ABI-major: gcc batches
             if not ctx.valid(jobkey(abi, h), abi)]
    with open(os.path.join(ctx.cache, "jobs.txt"), "w") as f:
        f.writelines(lines)
    print(f"{len(hdrs)} headers x {len(ABIS)} ABIs: {len(lines)} to compile, "
          f"{len(hdrs) * len(ABIS) - len(lines)} cached")
