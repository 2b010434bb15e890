"""Compare two layouts of one type (compat's with native's, say) and
classify the difference."""

import hashlib
import json
from dataclasses import dataclass

from labhost.abis import ROLE

# the ABIs of the roles the scan compares (guest/abis says why each)
NATIVE, COMPAT, ALIGNED64 = ROLE["native"], ROLE["compat"], ROLE["aligned64"]

CLASS_NAME = {1: "tail padding only", 2: "members shifted", 3: "member sizes differ"}
# class 3 in two: a member is wider on one ABI but every byte other members
# use is in the same place, or the layout really differs
SAME_BYTES = "member types differ, bytes identical"
REAL = "layout differs"


@dataclass
class Verdict:
    cls: int                 # 0: no difference
    detail: str = ""
    same_bytes: bool = False
    members: tuple = ()      # paths of the members the detail is about


def shape(t):
    """What a comparison looks at: sizeof and every member's place and
    size. A nested member's own sizeof is not part of it: a union of
    differing structs that is the same size everywhere, with every member
    in place, does not differ for a program."""
    return [t.size, [m.place() for m in t.members]]


def layout_sig(t):
    return hashlib.sha256(json.dumps([t.kind] + shape(t)).encode()).hexdigest()


def _in_padding(m, other):
    """m (a member one ABI has and the other not) lies in bytes that no
    member of the other ABI's layout uses: an #ifdef'd padding member."""
    end = m.offset + max(m.size, 1)
    if end > (other.size or 0):
        return False
    return not any(o.offset < end and m.offset < o.offset + max(o.size, 1) for o in other.members)


def _widened_alone(p, la, lb):
    """The member p is wider on one ABI, and on the narrower one no member
    starts in the extra bytes (a union sibling that overlaps p already
    does not count): a pointer or long in an 8-byte slot."""
    na, nb = (la, lb) if la[p].size < lb[p].size else (lb, la)
    lo, hi = na[p].offset + na[p].size, nb[p].offset + nb[p].size
    return not any(lo <= m.offset < hi for m in na.values())


def compare(a, b):
    """The difference from layout a to layout b, as a Verdict."""
    if shape(a) == shape(b):
        return Verdict(0)
    la = {m.path: m for m in a.members}
    lb = {m.path: m for m in b.members}
    gone = [p for p in la if p not in lb and not _in_padding(la[p], b)] + \
           [p for p in lb if p not in la and not _in_padding(lb[p], a)]
    common = [p for p in la if p in lb]
    sized = [p for p in common if la[p].size != lb[p].size]
    shifted = [p for p in common if (la[p].offset, la[p].bit) != (lb[p].offset, lb[p].bit)]
    if not gone and not sized and not shifted and a.size == b.size:
        return Verdict(0)
    if sized:
        same = (a.size == b.size and not gone and not shifted
                and all(_widened_alone(p, la, lb) for p in sized))
        d = "; ".join(f"{p} {la[p].size}->{lb[p].size} ({lb[p].ctype or la[p].ctype})" for p in sized[:3])
        more = f" (+{len(sized) - 3} more)" if len(sized) > 3 else ""
        return Verdict(3, "member sizes: " + d + more, same, tuple(sized[:3]))
    if gone:
        return Verdict(3, "members differ per ABI (#if on the architecture): " + ", ".join(gone[:4]),
                       False, ())
    if shifted:
        p = shifted[0]
        return Verdict(2, f"{p} at {la[p].offset}->{lb[p].offset} ({la[p].ctype}); "
                          f"{len(shifted)} member(s) shifted; sizeof {a.size}->{b.size}",
                       False, tuple(shifted[:3]))
    return Verdict(1, f"sizeof {a.size}->{b.size}, all members in place")


def aligned64_relation(t):
    """Which layout ALIGNED64 shares: "all", NATIVE's or COMPAT's (that
    ABI's name) or its "own"."""
    like = [abi for abi in (NATIVE, COMPAT) if compare(t[abi], t[ALIGNED64]).cls == 0]
    if len(like) == 2:
        return "all"
    return like[0] if like else "own"
