"""Loud or silent: does a type cross the boundary in an ioctl whose number
encodes its size (_IOR/_IOW/_IOWR: an i386 program's number differs from
the one a 64-bit kernel knows, and it gets ENOTTY), or some other way
(read(), write(), setsockopt(), a syscall's own struct: a wrong layout
goes unnoticed, like autofs's)?"""

import re

IOC_RE = re.compile(r"\b\w*_IO(?:WR|R|W)(?:_BAD)?\s*\(")
TYPE_RE = re.compile(r"\b(struct|union)\s+(\w+)\s*(?:\[[^]]*\]\s*)?\)?\s*$")


def _args(text, start):
    """The text of a macro call's arguments from just after its "("."""
    depth, i = 1, start
    while i < len(text) and depth:
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        i += 1
    return text[start:i - 1]


def ioctl_types(texts):
    """{(kind, name): [header, ...]} of the types an _IOR/_IOW/_IOWR in
    the uapi headers takes as its size argument (the last one)."""
    out = {}
    for hdr, text in texts.items():
        for m in IOC_RE.finditer(text):
            last = _args(text, m.end()).split(",")[-1].strip()
            t = TYPE_RE.search(last)
            if t:
                out.setdefault((t.group(1), t.group(2)), []).append(hdr)
    return out


def crossing(t, ioc, containers):
    """"loud: ..." or "silent" for a Finding. containers: the types that
    have t as a member (a size check on the outer type covers it too)."""
    key = (t.kind, t.name)
    if key in ioc:
        return f"loud: _IOC size in {ioc[key][0]}"
    for outer in containers.get(key, []):
        if outer in ioc:
            return f"loud: inside {outer[0]} {outer[1]} (_IOC size in {ioc[outer][0]})"
    return "silent"
