"""The step model: steps/ read here and nowhere else (format: steps/README.md).

A step is a directory steps/NN-name (its slug); its number is NN without
leading zeros. It has a step.conf ("key: value" lines), optionally its own
runs (before the shared steps/runs: "program abi name" per line) and an
expected file (what history predicts for each run). Every rule about these
files is here, and a file that breaks one is an error that names the file
and line (StepError), for every consumer alike: the shell's helpers in
lib/model.sh (through labhost/model.py), the guest build, the
inventory checks, results.py and the docs generators. Stdlib only."""

import os
import re

from labhost import ROOT
from labhost.abis import read as read_abis

# A directory under steps/ that starts with two digits and a dash means to
# be a step; its name must then be a slug (a kernel branch, a file name
# and a URL alike). Anything else there (README.md, runs) is not a step.
SLUG = re.compile(r"^([0-9][0-9])-[a-z0-9][a-z0-9-]*$")
CLAIMS_STEP = re.compile(r"^[0-9][0-9]-")

# step.conf: the keys steps/README.md documents, each at most once.
KEYS = ("title", "kernel", "history", "pipe", "pristine", "base", "config", "shared-runs", "goal")
REQUIRED = ("title", "kernel", "history", "pipe")
PIPES = ("stream", "packet")
# base: the branch a step's patches go on top of: the previous step's by
# default, or the pristine source ("baseline": the tree's first commit)
BASELINE = "baseline"
CONF_LINE = re.compile(r"^([a-z][a-z0-9_-]*):[ \t]*(.*?)\s*$")

# runs: Debian's own automount is run from its i386 or amd64 package only
DEBIAN_PROGRAMS = ("debian-automount", "debian-automount-2.6")
DEBIAN_ABIS = ("i386", "x86_64")

# expected: the words of guest/README.md a row may use. The sizes are
# those of the RESULT line too (labhost/results.py takes them from here);
# "error" is never a prediction: it means the experiment did not happen.
SIZES = ("packets", "queued", "want", "got")
# ... and the values a RESULT line may add (guest/README.md): a number in
# decimal or 0x-hex, as the program printed it (the bpf cookie of step 6)
VALUES = ("sent", "seen", "at", "read_at")
PREDICTABLE = {"ok", "broken", "packetized", "stream", "unsupported", "measured"}


class StepError(ValueError):
    """Something in steps/ breaks a rule of the model; says where."""


def _lines(path):
    """(line number, line without its comment) of the lines that have words."""
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if line:
                yield n, line


def read_conf(path, where):
    """A step.conf as {key: value}; errors name it WHERE. A line that is not
    "key: value", a key steps/README.md does not document, or a key given
    twice is an error."""
    conf, line_of = {}, {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            m = CONF_LINE.match(line)
            if not m:
                raise StepError("%s:%d: not a 'key: value' line: %s" % (where, n, line.strip()))
            key, value = m.groups()
            if key not in KEYS:
                raise StepError("%s:%d: unknown key '%s' (the keys: %s; steps/README.md)"
                                % (where, n, key, ", ".join(KEYS)))
            if key in conf:
                raise StepError("%s:%d: '%s' again (first on line %d): each key is given once"
                                % (where, n, key, line_of[key]))
            conf[key], line_of[key] = value, n
    return conf


def read_runs(path, where, abis):
    """The runs of a runs file: [(program, abi, name)], in order; errors
    name it WHERE. ABIS: those of the lab's guest/abis."""
    runs = []
    for n, line in _lines(path):
        words = line.split()
        if len(words) != 3:
            raise StepError("%s:%d: a run is 'program abi name', not: %s" % (where, n, line))
        prog, abi, _ = words
        if abi not in abis:
            raise StepError("%s:%d: no ABI '%s' (guest/abis has: %s)"
                            % (where, n, abi, " ".join(abis)))
        # DAEMON+ABI: the daemon, its lookups made by a program of another
        # ABI (guest/init.sh runs /lab/ABI/client for them)
        daemon, plus, caller = prog.partition("+")
        if plus and (caller not in abis or caller == abi or daemon in DEBIAN_PROGRAMS):
            raise StepError("%s:%d: %s: a caller's ABI must be another of guest/abis (%s) than the run's"
                            " (%s), for a daemon of the lab's" % (where, n, prog, " ".join(abis), abi))
        if prog in DEBIAN_PROGRAMS and abi not in DEBIAN_ABIS:
            raise StepError("%s:%d: %s for %s: Debian ships i386 and amd64 only"
                            % (where, n, prog, abi))
        runs.append(tuple(words))
    return runs


class Row:
    """One row of an expected file: the run (program, abi, name), the
    verdict and cause history predicts, and sizes and values that must
    match too."""

    def __init__(self, path, lineno, words):
        self.where = "%s:%d" % (path, lineno)
        if len(words) < 5:
            raise StepError("%s: a row needs program, abi, name, verdict, cause: %s"
                            % (self.where, " ".join(words)))
        self.prog, self.abi, self.name, self.verdict, self.cause = words[:5]
        self.sizes, self.values = {}, {}
        for w in words[5:]:
            k, sep, v = w.partition("=")
            if sep and k in SIZES and v.isdigit():
                self.sizes[k] = int(v)
            elif sep and k in VALUES and number(v) is not None:
                self.values[k] = (number(v), v)
            else:
                raise StepError("%s: '%s' is not one of %s=N, or %s=N (decimal or 0x-hex)"
                                % (self.where, w, "|".join(SIZES), "|".join(VALUES)))
        if self.verdict not in PREDICTABLE:
            raise StepError("%s: verdict '%s' cannot be expected (one of: %s)"
                            % (self.where, self.verdict, " ".join(sorted(PREDICTABLE))))

    def key(self):
        return (self.prog, self.abi, self.name)

    def run(self):
        return "%s %s as %s" % self.key()

    def prediction(self):
        extra = " ".join(["%s=%d" % kv for kv in sorted(self.sizes.items())] +
                         ["%s=%s" % (k, self.values[k][1]) for k in VALUES if k in self.values])
        return "%s (%s%s)" % (self.verdict, self.cause, " " + extra if extra else "")


def number(text):
    """A value's number: decimal or 0x-hex digits, else None."""
    if re.fullmatch(r"[0-9]+|0x[0-9a-f]+", text):
        return int(text, 0 if text.startswith("0x") else 10)
    return None


def parse_expected(path):
    """The rows of an expected file (any path: results.py checks a file it
    is given). OSError if it cannot be read, StepError if a row is wrong."""
    return [Row(path, n, line.split()) for n, line in _lines(path)]


class Step:
    """One step directory, its step.conf and its runs read and checked."""

    def __init__(self, root, slug):
        self.root, self.slug = root, slug
        self.number = int(slug[:2])
        self.dir = os.path.join(root, "steps", slug)
        conf = os.path.join(self.dir, "step.conf")
        where = os.path.relpath(conf, root)
        if not os.path.isfile(conf):
            raise StepError("%s: missing (every step has one: steps/README.md)" % where)
        self.conf = read_conf(conf, where)
        self.title = self.conf.get("title", "")
        self.history = self.conf.get("history", "").split()
        # its own runs first, then those of every step (the guest's order),
        # unless it says "shared-runs: no"
        shared = self.conf.get("shared-runs", "yes")
        if shared not in ("yes", "no"):
            raise StepError("steps/%s/step.conf: shared-runs: yes or no, not %s" % (slug, shared))
        self.runs = []
        abis = [a for a, _, _ in read_abis(root)]
        paths = [os.path.join(self.dir, "runs")]
        if shared == "yes":
            paths.append(os.path.join(root, "steps", "runs"))
        for path in paths:
            if os.path.isfile(path):
                self.runs += read_runs(path, os.path.relpath(path, root), abis)
        if not self.runs:
            raise StepError("steps/%s: no runs (steps/runs, steps/%s/runs)" % (slug, slug))
        self.config = self._own_file("config")
        self.goal = self._own_file("goal")

    def _own_file(self, key):
        """The file of this step's directory that step.conf's KEY names
        (a name, not a path), or None; missing: StepError."""
        name = self.conf.get(key)
        if not name:
            return None
        path = os.path.join(self.dir, name)
        if "/" in name or not os.path.isfile(path):
            raise StepError("steps/%s/step.conf: %s: %s is not a file of steps/%s"
                            % (self.slug, key, name, self.slug))
        return path

    @property
    def gdb_script(self):
        """Where its gdb script is (steps/SLUG/SLUG.gdb), whether or not it
        has one (a step a learner adds may not)."""
        return os.path.join(self.dir, self.slug + ".gdb")

    def has_gdb(self):
        return os.path.exists(self.gdb_script)

    @property
    def expected_path(self):
        """Its expected file: what history predicts for its runs."""
        return os.path.join(self.dir, "expected")

    def expected(self):
        """The rows of its expected file (read when asked: only the checks need it)."""
        return parse_expected(self.expected_path)

    def programs(self):
        """What the guest runs (/lab/programs): "program abi name" lines."""
        return "".join("%s %s %s\n" % r for r in self.runs)


def steps(root=None):
    """Every step, in order. Raises StepError for the first thing in steps/
    that breaks a rule."""
    root = root or ROOT
    top = os.path.join(root, "steps")
    names = sorted(n for n in os.listdir(top)
                   if CLAIMS_STEP.match(n) and os.path.isdir(os.path.join(top, n)))
    by_number = {}
    for n in names:
        if not SLUG.match(n):
            raise StepError("steps/%s: not a step name: NN-name, the name of a-z, 0-9 and '-' "
                            "(steps/README.md)" % n)
        if n[:2] in by_number:
            raise StepError("steps/%s and steps/%s: two steps numbered %d"
                            % (by_number[n[:2]], n, int(n[:2])))
        by_number[n[:2]] = n
    out = [Step(root, n) for n in names]
    for i, st in enumerate(out):
        st.base = st.conf.get("base") or (out[i - 1].slug if i else BASELINE)
        earlier = [BASELINE] + [o.slug for o in out[:i]]
        if st.base not in earlier:
            raise StepError("steps/%s/step.conf: base: %s is neither %s nor an earlier step"
                            % (st.slug, st.base, BASELINE))
    return out


def pristine(root=None):
    """The first step whose step.conf says "pristine:" (its kernel is the
    pristine source again); StepError if none does."""
    for s in steps(root):
        if s.conf.get("pristine"):
            return s
    raise StepError("no step says 'pristine:' in its step.conf")
