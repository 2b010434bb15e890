#!/usr/bin/env python3
"""The lab's static checks of its own parts: one TAP line per check
(labhost/tap.py), numbered by make check's suite "inventory" (lib/tap.sh's
tap_run); exit 1 if any failed.

    inventory.py [--build BUILD_DIR] [--root LAB_ROOT]

Inventory: steps/ reads as the step model says (labhost/steps.py: the
slugs, step.conf, runs), every step directory has each of its parts
(steps/README.md),
every patch in kernel-patches/ belongs to exactly one step and in step
order, every gdb script and step page has its step, and the expected
rows of a step are exactly its runs.

Sources: every commit id that docs/, steps/ and kernel-patches/ mention
is in docs/sources.yml; every date a docs page or a step README states
(day month year, or month year) is a date of an entry there; a patch that
replays an upstream commit carries that commit's author, author date and
subject; and, if build/linux exists, each step's branch shows the
patches' authors and dates (git am kept them)."""

import argparse
import os
import re
import subprocess
import sys

from labhost import steps as model
from labhost.limits import limit
from labhost.sources import DAY, sources
from labhost.tap import Tap

ROOT = model.ROOT  # --root: another lab (the unit tests' fakes)

LAB_AUTHOR = "ABI Lab <abi-lab@example.org>"
LAB_DATE = "Thu, 3 Dec 2026 05:46:00 +0000"   # the lab's own patches, fixed
MONTH = re.compile(r"\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]* (\d{4})\b")
HEXID = re.compile(r"(?<![0-9A-Za-z_./+=-])([0-9a-f]{7,40})(?![0-9A-Za-z_+=@-])")

TAP = Tap()
check = TAP.check


def rel(p):
    return os.path.relpath(p, ROOT)


def inventory(src_ids):
    try:
        steps = model.steps(ROOT)
        check(True, "steps/ reads as the step model says (slugs, step.conf, runs)")
    except (model.StepError, OSError) as e:
        check(False, "steps/ reads as the step model says: %s" % e)
        steps = []
    all_patches = sorted(p for p in os.listdir(os.path.join(ROOT, "kernel-patches"))
                         if p.endswith(".patch"))
    owner = {p: [] for p in all_patches}
    last_patch = ""
    for s in steps:
        where = "steps/%s" % s.slug
        missing = [k for k in model.REQUIRED if not s.conf.get(k)]
        check(not missing, "%s/step.conf has %s%s"
              % (where, ", ".join(model.REQUIRED[:-1]) + " and " + model.REQUIRED[-1],
                 " (missing: %s)" % ", ".join(missing) if missing else ""))
        check(s.conf.get("pipe") in model.PIPES, "%s/step.conf: pipe is %s, not %r"
              % (where, " or ".join(model.PIPES), s.conf.get("pipe")))
        unknown = [i for i in s.history if i not in src_ids]
        check(not unknown, "%s/step.conf: every history id is in docs/sources.yml%s"
              % (where, " (not: %s)" % " ".join(unknown) if unknown else ""))
        check(os.path.isfile(os.path.join(s.dir, "README.md")), "%s/README.md exists" % where)
        page = os.path.join(s.dir, "page.md")
        want = os.path.join(ROOT, "docs", "pages", "steps", s.slug + ".md")
        check(os.path.islink(page) and os.path.realpath(page) == os.path.realpath(want)
              and os.path.isfile(want), "%s/page.md links to %s" % (where, rel(want)))
        patches = sorted(n for n in os.listdir(s.dir) if n.endswith(".patch"))
        # a kernel of its own: patches, or the pristine source with a
        # config of its own (step.conf: base baseline, config)
        check(patches or (s.base == model.BASELINE and s.config),
              "%s has at least one patch, or is the pristine source with a config of its own" % where)
        for n in patches:
            p = os.path.join(s.dir, n)
            target = os.path.realpath(p)
            ok = (os.path.islink(p) and os.path.dirname(target) ==
                  os.path.realpath(os.path.join(ROOT, "kernel-patches")) and os.path.isfile(target))
            check(ok, "%s/%s links to a patch in kernel-patches/" % (where, n))
            if ok:
                owner.setdefault(os.path.basename(target), []).append(s.slug)
        if patches:
            check(patches[0] > last_patch, "%s: its patches come after the previous step's (%s)"
                  % (where, patches[0]))
            last_patch = patches[-1]
        script = s.gdb_script
        checks = os.path.join(s.dir, "gdb-checks")
        if os.path.lexists(script) or os.path.exists(checks):
            gdbfile = os.path.join(ROOT, "gdb-scripts", s.slug + ".gdb")
            check(os.path.islink(script) and os.path.realpath(script) == os.path.realpath(gdbfile)
                  and os.path.isfile(gdbfile), "%s/%s.gdb links to %s" % (where, s.slug, rel(gdbfile)))
            check(os.path.isfile(checks), "%s has gdb-checks for its gdb script" % where)
        others = [n for n in os.listdir(s.dir) if n.endswith(".gdb") and n != s.slug + ".gdb"]
        check(not others, "%s has no gdb script under another name%s"
              % (where, " (%s)" % " ".join(others) if others else ""))
        try:
            rows = s.expected()
        except (OSError, ValueError) as e:
            check(False, "%s/expected parses: %s" % (where, e))
            continue
        exp = sorted(r.key() for r in rows)
        runs = sorted(s.runs)
        check(exp == runs, "%s/expected predicts exactly the step's runs%s" % (where, "" if exp == runs
              else " (runs without a prediction: %s; predictions without a run: %s)" % (
                  sorted(set(runs) - set(exp)) or "none", sorted(set(exp) - set(runs)) or "none")))
    for p, o in sorted(owner.items()):
        check(len(o) == 1, "kernel-patches/%s belongs to exactly one step (%s)"
              % (p, ", ".join(o) or "none"))
    slugs = {s.slug for s in steps}
    for d, ext in (("gdb-scripts", ".gdb"), (os.path.join("docs", "pages", "steps"), ".md")):
        for n in sorted(os.listdir(os.path.join(ROOT, d))):
            if n.endswith(ext) and model.CLAIMS_STEP.match(n):
                check(n[:-len(ext)] in slugs, "%s/%s has its step" % (d, n))
    broken = []
    for dirpath, _, files in os.walk(os.path.join(ROOT, "steps")):
        broken += [rel(os.path.join(dirpath, f)) for f in files
                   if os.path.islink(os.path.join(dirpath, f))
                   and not os.path.exists(os.path.join(dirpath, f))]
    check(not broken, "no broken link in steps/%s" % (" (%s)" % " ".join(broken) if broken else ""))


def texts():
    """(path, text) of everything whose commit ids must be sourced. In the
    patches only the mail header and message count: not the diff."""
    for top in ("docs", "steps", "kernel-patches"):
        for dirpath, _, files in os.walk(os.path.join(ROOT, top)):
            if "generators" in dirpath.split(os.sep):
                continue
            for f in sorted(files):
                p = os.path.join(dirpath, f)
                if os.path.islink(p) or not f.endswith((".md", ".patch", ".conf", ".gdb")) \
                        and f not in ("expected", "gdb-checks", "runs"):
                    continue
                with open(p, encoding="utf-8", errors="replace") as fh:
                    t = fh.read()
                if f.endswith(".patch"):
                    t = t.split("\n---\n", 1)[0]
                yield p, t


def known_id(hexid, entries):
    for e in entries:
        for full in (e["id"], e.get("sha", "")):
            if full and (full.startswith(hexid) or hexid.startswith(full)):
                return True
    return False


def sources_checks(entries, build):
    all_texts = list(texts())
    for p, t in all_texts:
        ids = sorted({m.group(1) for m in HEXID.finditer(t)
                      if re.search(r"[a-f]", m.group(1)) and re.search(r"[0-9]", m.group(1))})
        unknown = [i for i in ids if not known_id(i, entries)]
        check(not unknown, "%s: every commit id it mentions is in docs/sources.yml%s"
              % (rel(p), " (not: %s)" % " ".join(unknown) if unknown else ""))
    days, months = set(), set()
    for e in entries:
        for field in ("date", "date_is", "release"):
            for m in DAY.finditer(str(e.get(field, ""))):
                days.add((int(m.group(1)), m.group(2), m.group(3)))
                months.add((m.group(2), m.group(3)))
            for m in MONTH.finditer(str(e.get(field, ""))):
                months.add((m.group(1), m.group(2)))
    pages = [(p, t) for p, t in all_texts if p.endswith(".md")]
    for p, t in pages:
        bad = sorted({m.group(0) for m in DAY.finditer(t)
                      if (int(m.group(1)), m.group(2), m.group(3)) not in days})
        bad += sorted({m.group(0) for m in MONTH.finditer(t)
                       if (m.group(1), m.group(2)) not in months})
        check(not bad, "%s: every date it states is a date in docs/sources.yml%s"
              % (rel(p), " (not: %s)" % "; ".join(bad) if bad else ""))
    by_sha = {e["sha"]: e for e in entries if e.get("sha")}
    patch_meta = {}
    pdir = os.path.join(ROOT, "kernel-patches")
    for p, t in all_texts:
        if os.path.dirname(p) != pdir or not p.endswith(".patch"):
            continue
        n = os.path.basename(p)
        head, _, body = t.partition("\n\n")
        head = head.replace("\n ", " ")
        frm = re.search(r"^From: (.*)$", head, re.M).group(1)
        date = re.search(r"^Date: (.*)$", head, re.M).group(1)
        subj = re.sub(r"^\[PATCH[^]]*\] ", "", re.search(r"^Subject: (.*)$", head, re.M).group(1))
        patch_meta[subj] = (frm, date)
        up = re.search(r"^commit ([0-9a-f]{40}) upstream\.$", body, re.M)
        if up:
            e = by_sha.get(up.group(1))
            check(e is not None, "%s replays %s, which docs/sources.yml lists" % (n, up.group(1)))
            if e:
                check(frm == e.get("author") and subj == e["title"],
                      "%s keeps the upstream author and subject (%s, %s)" % (n, frm, subj))
                if e.get("date_is") == "author date":
                    check(date == e["date"], "%s keeps the upstream author date %s (has %s)"
                          % (n, e["date"], date))
                else:
                    check("stand-in" in t and "not seen" in t,
                          "%s says that its Date is a stand-in (%s)" % (n, e.get("date_is")))
        elif frm != LAB_AUTHOR:
            e = next((x for x in entries if x.get("title", "").endswith(subj)), None)
            check(e is not None and frm == e.get("author") and date == e.get("date"),
                  "%s: a patch by %s that is not the lab's is a listed source (author, date)"
                  % (n, frm))
        else:
            check(date == LAB_DATE, "%s is the lab's own, with the lab's fixed date" % n)
    ksrc = os.path.join(build, "linux")
    if not os.path.isdir(os.path.join(ksrc, ".git")):
        return
    try:
        steps = model.steps(ROOT)
    except (model.StepError, OSError):
        steps = []  # (inventory() said why)
    for s in steps:
        try:
            log = subprocess.run(["git", "-C", ksrc, "log", "--format=%an <%ae>|%aD|%s",
                                  "baseline.." + s.slug], capture_output=True, text=True,
                                 check=True, timeout=limit("LIMIT_SHORT")).stdout
        except (subprocess.SubprocessError, OSError):
            check(False, "git log of the branch %s in %s" % (s.slug, rel(ksrc)))
            continue
        bad = []
        for line in log.splitlines():
            a, d, subj = line.split("|", 2)
            frm, date = patch_meta.get(subj, (None, None))
            if (a, d) != (frm, date):
                bad.append("%s: %s, %s" % (subj, a, d))
        check(not bad, "git log %s shows each patch's author and date%s"
              % (s.slug, " (differs: %s)" % "; ".join(bad) if bad else ""))


# A page that points into the kernel tree names a file, and a function
# in it, never a line: line numbers move between 6.1 point releases, and
# a learner's tree is whichever linux-source-6.1 their apt offers. What
# the page says is there, it says in an HTML comment:
#   code: FILE = TEXT           (TEXT is a line of FILE)
#   code: FILE FUNCTION() = TEXT  (... of FUNCTION's body in FILE)
# and the lab's 6.1 tree (build/linux, its baseline: the pristine source)
# must hold it. A FILE:LINE in a page is an error.
CODE_LINE = re.compile(r"`((?:arch|block|drivers|fs|include|init|ipc|kernel|lib|mm|net|security|"
                       r"sound|usr|tools)/[A-Za-z0-9_./-]+):(\d+)`")
CODE_SAYS = re.compile(r"^code: (\S+)(?: (\w+)\(\))? = (.+)$", re.M)


def function_body(lines, func):
    """The lines of FUNC's definition in kernel style (its name at the
    start of a declaration that is not a prototype, up to the first
    closing brace in column 0), or [] when there is none."""
    head = re.compile(r"^[A-Za-z_].*\b%s\(" % re.escape(func))
    for i, line in enumerate(lines):
        if head.match(line) and not line.rstrip().endswith(";"):
            for j in range(i + 1, len(lines)):
                if lines[j].startswith("}"):
                    return lines[i:j + 1]
    return []


def code_refs(build):
    ksrc = os.path.join(build, "linux")
    pages = [(p, t) for p, t in texts() if p.endswith(".md")]
    if not os.path.isdir(os.path.join(ksrc, ".git")):
        TAP.skip("source references in the pages point at the code they quote",
                 "no kernel tree in %s (make builds it)" % rel(ksrc))
        return
    flat = lambda s: " ".join(s.split())
    for p, t in pages:
        for f, n in sorted(set(CODE_LINE.findall(t))):
            check(False, "%s: `%s:%s` names a line; name the function instead (lines move "
                  "between 6.1 point releases)" % (rel(p), f, n))
        for f, func, text in CODE_SAYS.findall(t):
            try:
                lines = subprocess.run(["git", "-C", ksrc, "show", "baseline:" + f], capture_output=True,
                                       text=True, check=True, timeout=limit("LIMIT_SHORT")).stdout.split("\n")
            except (subprocess.SubprocessError, OSError):
                lines = []
            where = "%s %s()" % (f, func) if func else f
            body = function_body(lines, func) if func else lines
            if not lines:
                why = "; the tree has no such file"
            elif not body:
                why = "; the file defines no %s()" % func
            else:
                why = ""
            found = any(flat(line) == flat(text) for line in body)
            check(found, "%s: %s in the lab's 6.1 tree holds the line the page quotes (%r%s)"
                  % (rel(p), where, text.strip(), why or ("" if found else "; it does not")))


def main(argv):
    global ROOT
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", help="default: LAB_ROOT/build")
    ap.add_argument("--root", help="the lab to check (default: this checkout)")
    ap.add_argument("--code-refs", action="store_true",
                    help="only the pages' references to lines of the kernel tree")
    a = ap.parse_args(argv)
    ROOT = a.root or ROOT
    if a.code_refs:
        code_refs(a.build or os.path.join(ROOT, "build"))
        return TAP.status()
    entries = sources(ROOT)
    ids = [e["id"] for e in entries]
    check(len(ids) == len(set(ids)), "docs/sources.yml lists each id once")
    for e in entries:
        miss = [k for k in ("id", "kind", "title", "date", "url", "seen") if not e.get(k)]
        check(not miss, "docs/sources.yml: %s has %s" % (e.get("id"), "every field" if not miss
                                                         else "no " + ", ".join(miss)))
    inventory(set(ids))
    sources_checks(entries, a.build or os.path.join(ROOT, "build"))
    return TAP.status()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
