"""Which headers may share one object for their layouts.

Every header is compiled alone once per ABI (gcc -S -H: does it compile,
which files did it open, nested). Its layouts then come from one object
per group of headers, one `#include` after another: a process start
costs more than the compile of a header, and most headers read the same
few files. A header joins a group only if each file it opens sees the
same macros as when the header is compiled alone: every file defining a
macro the file uses (directly or through another macro) was opened
before it, around it or inside it in both units alike. That is what can
change a layout: big_endian.h before linux/ip.h flips bitfields,
<netinet/in.h> before linux/in6.h drops in6_addr through libc-compat.h,
asm/posix_types_32.h before anything else changes every __kernel_* type.
Nor may a file define a struct, typedef or function a file of the group
defines, unless the header reads both alone. The compiler has the last
word: objects.py splits a group it refuses (split())."""

from .fileinfo import FileInfo, read


class Model:
    """The files of all trees (gcc -H: {key: ([(path, depth)], noguard)}),
    what they do to macros, and what each file's macros depend on."""

    def __init__(self, trees, read_file=read):
        self.info, self.noguard = {}, set()
        for events, noguard in trees.values():
            self.noguard |= noguard
            seen = set()
            for p, _d in events:
                if p in seen:                   # opened twice in one unit: no guard gcc knows
                    self.noguard.add(p)
                seen.add(p)
                if p not in self.info:
                    text = read_file(p)
                    self.info[p] = FileInfo(text) if text is not None else None
        self.definers = {}
        for p, fi in self.info.items():
            for m in fi.defs if fi else ():
                self.definers.setdefault(m, set()).add(p)
        self._exp, self._rel = {}, {}

    def expands(self, m):
        """m and every macro its replacement lists may expand to."""
        if m not in self._exp:
            seen, todo = {m}, [m]
            while todo:
                x = todo.pop()
                for p in self.definers.get(x, ()):
                    for y in self.info[p].repl.get(x, ()):
                        if y in self.definers and y not in seen:
                            seen.add(y)
                            todo.append(y)
            self._exp[m] = seen
        return self._exp[m]

    def rel(self, f):
        """The files that define a macro f uses (f itself too, unless its
        only macro of its own is its guard)."""
        if f not in self._rel:
            r = set()
            for i in self.info[f].first:
                if i in self.definers:
                    for m in self.expands(i):
                        r |= self.definers[m]
            if self.info[f].guarded:
                r.discard(f)
            self._rel[f] = frozenset(r)
        return self._rel[f]

    def reopens(self, p):
        """Does an #include of p read it again?"""
        return p in self.noguard and not self.info[p].guarded

    def env(self, events, i):
        """What event i's file sees of the files in rel: ('A', chain) an
        ancestor, ('B', n) opened n times before it, ('D', child) opened
        inside it through its child."""
        f, d = events[i]
        anc, need = [], d - 1
        for j in range(i - 1, -1, -1):
            if need == 0:
                break
            if events[j][1] == need:
                anc.insert(0, events[j][0])
                need -= 1
        rel, sig = self.rel(f), {}
        for r, _d in events[:i]:
            if r in rel:
                if r in anc:
                    sig[r] = ("A", tuple(anc[anc.index(r):]))
                else:
                    again = r in sig and sig[r][0] == "B" and self.reopens(r)
                    sig[r] = ("B", sig[r][1] + 1 if again else 1)
        child = None
        for r, dj in events[i + 1:]:
            if dj <= d:
                break
            if dj == d + 1:
                child = r
            if r in rel and r not in sig:
                sig[r] = ("D", child)
        return sig

    def agree(self, f, joined, alone):
        """Does f see the same macros? Also when the joined unit read a
        file before f that f alone opens itself, if no use of its macros
        in f precedes the #include that opens it."""
        for r in set(joined) | set(alone):
            a, b = joined.get(r), alone.get(r)
            if a == b:
                continue
            if a and b and a[0] == "B" and b[0] == "D":
                inc = [n for n, tgt in self.info[f].includes if b[1].endswith("/" + tgt)]
                uses = [n for i, n in self.info[f].first.items()
                        if i in self.definers and self.expands(i) & self.info[r].defs]
                if inc and min(uses, default=max(inc) + 1) > max(inc):
                    continue
            return False
        return True


class Group:
    def __init__(self):
        self.hdrs, self.events, self.opened, self.env, self.names = [], [], set(), {}, {}


class Planner:
    """Greedy: each header, in order, goes to the first group it fits."""

    def __init__(self, trees, model):
        self.trees, self.m = trees, model
        self.alone = {h: [model.env(events, i) for i in range(len(events))]
                      for h, (events, _) in trees.items() if not self.lone(h)}

    def lone(self, h):
        """A header that gets an object of its own: no tree, an unreadable
        file, or a file that reads something else in a joined unit."""
        events = self.trees.get(h, ([], None))[0]
        return (not events or events[0][1] != 1 or not events[0][0].endswith("/" + h) or
                any(self.m.info.get(p) is None or self.m.info[p].bound for p, _d in events))

    def _append(self, g, h):
        """h's events in g: fresh (opened now), skip (read before: by g,
        or inside a file g read before, so its macros must agree), noop
        (read before by h itself), gone (inside a file g read before, but
        g did not read it); and the joined unit's events."""
        out, inside, opened, mine = [], None, set(g.opened), set()
        events = list(g.events)
        for (p, d), env in zip(self.trees[h][0], self.alone[h]):
            if inside is not None and d <= inside:
                inside = None
            first = p not in mine
            mine.add(p)
            if inside is not None or (p in opened and not self.m.reopens(p)):
                out.append((p, "gone" if p not in opened else "skip" if first else "noop", env, None))
                inside = d if inside is None else inside
                continue
            opened.add(p)
            out.append((p, "fresh", env, len(events)))
            events.append((p, d))
        return out, events

    def fits(self, g, h):
        out, events = self._append(g, h)
        mine = {p for p, _d in self.trees[h][0]}
        envs = dict(g.env)
        for p, kind, env, i in out:
            if kind == "fresh":
                if any(f not in mine for n in self.m.info[p].names for f in g.names.get(n, ())):
                    return False
                here = self.m.env(events, i)
                envs.setdefault(p, here)
                if not self.m.agree(p, here, env):
                    return False
            elif kind == "gone" or kind == "skip" and not self.m.agree(p, envs[p], env):
                return False
        return True

    def add(self, g, h):
        out, g.events = self._append(g, h)
        for p, kind, _env, i in out:
            if kind == "fresh" and p not in g.opened:
                g.opened.add(p)
                g.env[p] = self.m.env(g.events, i)
                for n in self.m.info[p].names:
                    g.names.setdefault(n, set()).add(p)
        g.hdrs.append(h)

    def plan(self, hdrs, uapi):
        """Groups (lists of headers) for hdrs. Headers that read only uapi
        files go first: libc's macros stay out of their groups."""
        pure = {h for h in hdrs if all(p.startswith(uapi) for p, _d in self.trees.get(h, ([], 0))[0])}
        groups, lone = [], []
        for h in sorted(hdrs, key=lambda x: x not in pure):
            if h not in self.alone:
                lone.append([h])
                continue
            g = next((g for g in groups if self.fits(g, h)), None)
            if g is None:
                g = Group()
                groups.append(g)
            self.add(g, h)
        order = {h: i for i, h in enumerate(hdrs)}
        return sorted([g.hdrs for g in groups] + lone, key=lambda g: order[g[0]])


def split(planner, hdrs, uapi):
    """A group the compiler refused (two of its headers clash): its first
    half is still a group (each header sees what it saw), the second half
    is planned again."""
    half = len(hdrs) // 2
    return [hdrs[:half]] + planner.plan(hdrs[half:], uapi)
