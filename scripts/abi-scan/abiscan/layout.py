"""The layout of one struct or union as pahole prints it, and the parser
of `pahole -F dwarf -I -E` output."""

import math
import os
import re
from dataclasses import asdict, dataclass, field


@dataclass
class Member:
    """A scalar or array member, nested structs flattened: path is the C
    member designator (a.b, items[1].x; no array bounds), offset is
    absolute, bit is the bit offset of a bitfield or None."""
    path: str
    offset: int
    bit: str | None
    size: int
    ctype: str

    def place(self):
        return (self.path, self.offset, self.bit, self.size)


@dataclass
class Nested:
    """A member of struct/union type: its path, tag ("struct x" or
    "struct (anonymous)"), offset and size."""
    path: str
    tag: str
    offset: int
    size: int


@dataclass
class Layout:
    kind: str
    name: str
    size: int | None
    decl: str
    line: int
    members: list = field(default_factory=list)
    nested: list = field(default_factory=list)
    prelude: list = field(default_factory=list)
    obj: str = ""                   # the header whose object it was read from

    def to_json(self):
        return asdict(self)

    @classmethod
    def from_json(cls, d):
        d = dict(d)
        d["members"] = [Member(**m) for m in d["members"]]
        d["nested"] = [Nested(**n) for n in d["nested"]]
        return cls(**d)


DECL_RE = re.compile(r"^/\* <[0-9a-f]+> (.*):(\d+) \*/$")
START_RE = re.compile(r"^(struct|union) (\w+) \{$")
TAIL_RE = re.compile(r"/\*\s*(\d+)(?::\s*(\d+))?\s+(\d+)\s*\*/\s*$")
SIZE_RE = re.compile(r"^/\* size: (\d+),")
TYPEDEF_RE = re.compile(r"^/\* typedef (.*?) \*/\s*")
OPEN_RE = re.compile(r"^(struct|union|enum)\s*(\w+)?\s*(?:__attribute__.*)?\{$")
# one __attribute__((...)) (pahole may print one before and one after a name)
ATTR_RE = re.compile(r"\s*__attribute__\(\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\)\)\s*")
NAME_RE = re.compile(r"(\w+)\s*((?:\[\d*\])*)\s*(?::\s*\d+)?\s*$")
FNPTR_RE = re.compile(r"\(\s*\*\s*(\w+)\s*\)")


def dims(text):
    """[4, 2] for "[4][2]"; a flexible array's bound is 0."""
    return [int(d or 0) for d in re.findall(r"\[(\d*)\]", text)]


class _Frame:
    def __init__(self, kind, tag):
        self.kind, self.tag = kind, tag
        self.members, self.nested = [], []


def _close_nested(frame, parent, s, sizes):
    """A nested struct/union ends ("} name[dims]; /* off size */"): move
    its members into the parent under name. For an array of structs,
    element 1 goes in too, so that a stride that differs per ABI shows."""
    tail = TAIL_RE.search(s)
    if not tail:
        return
    body = ATTR_RE.sub(" ", s[1:tail.start()].strip().rstrip(";")).strip()
    m = NAME_RE.search(body)
    name, bounds = (m.group(1), dims(m.group(2))) if m else ("", [])
    off, size = int(tail.group(1)), int(tail.group(3))
    if frame.kind == "enum":
        parent.members.append(Member(name, off, tail.group(2), size, "enum " + (frame.tag or "")))
        return
    copies = [("", 0)]
    if bounds:
        count = math.prod(bounds)
        if count:
            stride = size // count
        else:                               # flexible: the element's own sizeof
            stride = sizes.get(frame.tag) if frame.tag else None
        copies = [("[0]" * len(bounds), 0)]
        if stride and (count == 0 or count > 1):
            copies.append(("[0]" * (len(bounds) - 1) + "[1]", stride))
    for idx, shift in copies:
        pre = name + idx + "." if name else ""
        for mb in frame.members:
            parent.members.append(Member(pre + mb.path, mb.offset + shift, mb.bit, mb.size, mb.ctype))
        if not shift:
            for nd in frame.nested:
                parent.nested.append(Nested(pre + nd.path, nd.tag, nd.offset, nd.size))
    parent.nested.append(Nested(name, f"{frame.kind} {frame.tag or '(anonymous)'}", off, size))


def _member(s):
    """A scalar/array member line -> Member, or None (unnamed bitfield)."""
    tail = TAIL_RE.search(s)
    if not tail:
        return None
    body = s[:tail.start()].strip().rstrip(";").strip()
    td = TYPEDEF_RE.match(body)
    typedef = td.group(1) if td else None
    body = TYPEDEF_RE.sub("", body)
    m = FNPTR_RE.search(body)
    if m:
        name, ctype = m.group(1), "function pointer"
    else:
        body = ATTR_RE.sub(" ", body).strip()
        m = NAME_RE.search(body)
        if not m:
            return None
        # the bound is part of the size, not of the name: "m[4]" on one
        # ABI and "m[2]" on another is one member
        name, ctype = m.group(1), body[:m.start()].strip() + m.group(2)
    if typedef:
        ctype = f"{typedef} ({ctype})"
    return Member(name, int(tail.group(1)), tail.group(2), int(tail.group(3)), ctype)


def parse_pahole(text, uapi, keep=lambda decl: True, sizes=None):
    """pahole -I -E output -> {name: Layout} for the types declared under
    uapi (and accepted by keep). sizes: pahole --sizes, for unions (whose
    size -E does not print) and flexible arrays of structs."""
    sizes = sizes or {}
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
                    cur = Layout(m.group(1), m.group(2), None, rel, int(decl[1]))
                    stack = [_Frame(m.group(1), m.group(2))]
                else:
                    cur = "skip"
                decl = None
            continue
        s = line.strip()
        if cur == "skip":
            if line.startswith("}"):
                cur = None
            continue
        if not s:
            continue
        if s.startswith("/*") and s.find("*/") == len(s) - 2:
            m = SIZE_RE.match(s)
            if m and len(stack) == 1:
                cur.size = int(m.group(1))
            continue
        if line.startswith("}"):
            top = stack.pop()
            cur.members, cur.nested = top.members, top.nested
            if cur.size is None:
                cur.size = sizes.get(cur.name)
            if cur.size is not None:
                types[cur.name] = cur
            cur = None
            continue
        if s.startswith("}"):
            frame = stack.pop()
            _close_nested(frame, stack[-1], s, sizes)
            continue
        if s.endswith("{"):
            m = OPEN_RE.match(TYPEDEF_RE.sub("", s))
            stack.append(_Frame(m.group(1) if m else "struct", m.group(2) if m else None))
            continue
        if stack[-1].kind == "enum":
            continue
        mb = _member(s)
        if mb:
            stack[-1].members.append(mb)
    return types


def read_sizes(path):
    """pahole --sizes output: {name: sizeof}."""
    out = {}
    with open(path, errors="replace") as f:
        for l in f:
            p = l.split("\t")
            if len(p) >= 2 and p[1].isdigit():
                out[p[0]] = int(p[1])
    return out
