#!/usr/bin/env python3
"""Host tests of the step model (labhost/steps.py) on the lab's steps and
on made-up labs in a temporary directory: each rule must be able to fail,
and a steps/ that breaks one must stop every consumer alike: the model,
its CLI (step-model.py), common.sh's helpers (so every shell script, the
guest build among them) and the inventory checks. One "ok - ..." /
"not ok - ..." line per test, numbered by scripts/tap.sh (make test runs
`tap.sh python3 test_steps.py`); exit 1 if any failed."""

import os
import subprocess
import sys
import tempfile

from labhost import results
from labhost import steps as model

HERE = os.path.dirname(os.path.abspath(__file__))
out = []

CONF = "# a step\ntitle: A step\nkernel: does a thing\nhistory: 5c0a32fc2cd0\npipe: stream\n"
SHARED_RUNS = "# program abi name\nsystemd-style i386 systemd-style  # inline comment\n\n" \
              "automount-style   x86_64   automount\n"
OWN_RUNS = "autofs-layout i386 autofs-layout\n"
EXPECTED = "# program abi name verdict cause sizes\n" \
           "autofs-layout i386 autofs-layout measured none\n" \
           "systemd-style i386 systemd-style broken leftover got=4 want=300\n" \
           "automount-style x86_64 automount ok none\n"


def check(ok, what):
    out.append((bool(ok), what))


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def fake_lab(top, name):
    """A lab root with two good steps, 01-a (with runs of its own) and
    02-b, and links to the real scripts, docs and patches the shell and
    the inventory need."""
    root = os.path.join(top, name)
    write(os.path.join(root, "steps", "runs"), SHARED_RUNS)
    write(os.path.join(root, "steps", "README.md"), "# Steps\n")
    for slug in ("01-a", "02-b"):
        write(os.path.join(root, "steps", slug, "step.conf"), CONF.replace("A step", "Step " + slug))
        write(os.path.join(root, "steps", slug, "expected"), EXPECTED if slug == "01-a"
              else "\n".join(EXPECTED.splitlines()[2:]) + "\n")
    write(os.path.join(root, "steps", "01-a", "runs"), OWN_RUNS)
    os.makedirs(os.path.join(root, "scripts"))
    for d in ("docs", "kernel-patches", "gdb-scripts"):
        os.symlink(os.path.join(model.ROOT, d), os.path.join(root, d))
    for f in ("common.sh", "limits.sh", "step-model.py", "guest-build.sh", "labhost"):
        os.symlink(os.path.join(HERE, f), os.path.join(root, "scripts", f))
    return root


def model_error(root):
    """The StepError the model raises for this lab, or None."""
    try:
        model.steps(root)
    except model.StepError as e:
        return str(e)
    return None


def cli(root, *args):
    p = subprocess.run([sys.executable, os.path.join(HERE, "step-model.py"), "--root", root]
                       + list(args), capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def shell(root, script, *args):
    """A bash script run after sourcing the fake lab's common.sh."""
    env = dict(os.environ, BUILD_DIR=os.path.join(root, "build"))
    for k in ("LAB_LOCKED", "LAB_DEADLINE", "STEP_SLUGS"):
        env.pop(k, None)
    p = subprocess.run(["bash", "-c", '. "$0/scripts/common.sh"; ' + script, root] + list(args),
                       capture_output=True, text=True, timeout=60, env=env)
    return p.returncode, p.stdout, p.stderr


def inventory(root):
    p = subprocess.run([sys.executable, os.path.join(HERE, "inventory.py"), "--root", root,
                        "--build", os.path.join(root, "build")],
                       capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout


def the_lab():
    s = model.steps()
    check(s and all(model.SLUG.match(x.slug) for x in s),
          "the lab's steps read as the model says (%s)" % " ".join(x.slug for x in s))
    check(all(not (set(model.REQUIRED) - set(x.conf)) for x in s),
          "every step.conf of the lab has %s" % ", ".join(model.REQUIRED))
    p = model.pristine()
    check(p.conf["pristine"], "a step says pristine: (%s): abi-scan reads its headers" % p.slug)
    last = s[-1]
    got = [model.resolve(a) for a in (str(last.number), "%02d" % last.number, last.slug)]
    check(all(g is not None and g.slug == last.slug for g in got),
          "STEP=%d, STEP=%02d and STEP=%s are the same step" % (last.number, last.number, last.slug))
    check(model.resolve(str(len(s) + 1)) is None and model.resolve("packet") is None
          and model.resolve("") is None and model.resolve("4x") is None,
          "STEP=%d, STEP=packet, STEP= and STEP=4x are no step" % (len(s) + 1))
    check(results.parse_expected is model.parse_expected,
          "results.py reads expected files with the model's parse_expected")


def good_fake(top):
    root = fake_lab(top, "good")
    s = model.steps(root)
    check([x.slug for x in s] == ["01-a", "02-b"], "a fake lab's slugs: 01-a 02-b")
    check(s[0].runs == [("autofs-layout", "i386", "autofs-layout"),
                        ("systemd-style", "i386", "systemd-style"),
                        ("automount-style", "x86_64", "automount")],
          "runs: the step's own first, then steps/runs; comments and blank lines skipped")
    check(s[1].programs() == "systemd-style i386 systemd-style\nautomount-style x86_64 automount\n",
          "programs: one 'program abi name' line per run, single spaces")
    check(s[0].conf["history"] == "5c0a32fc2cd0" and s[0].title == "Step 01-a"
          and "pristine" not in s[0].conf, "step.conf: key: value, comments skipped")
    rows = s[0].expected()
    check([r.key() for r in rows] == [r for r in s[0].runs] and rows[1].sizes == {"got": 4, "want": 300},
          "expected: one row per run, with its sizes")
    rc, o, e = cli(root, "slugs")
    check(rc == 0 and o == "01-a\n02-b\n", "step-model.py slugs (exit %d: %r %r)" % (rc, o, e))
    rc, o, e = cli(root, "conf", "02-b", "pipe")
    check(rc == 0 and o == "stream\n", "step-model.py conf 02-b pipe: stream")
    rc, o, e = cli(root, "conf", "02-b", "pristine")
    check(rc == 0 and o == "", "step-model.py conf of an unset key prints nothing")
    rc, o, e = cli(root, "conf", "02-b", "titel")
    check(rc == 1 and "no key 'titel'" in e, "step-model.py conf of an unknown key fails")
    rc, o, e = cli(root, "conf", "03-c", "title")
    check(rc == 1 and "no step 03-c" in e, "step-model.py conf of an unknown step fails")
    rc, o, e = cli(root, "resolve", "2")
    check(rc == 0 and o == "02-b\n", "step-model.py resolve 2: 02-b")
    rc, o, e = cli(root, "resolve", "7")
    check(rc == 2 and o == "" and e.startswith('error: unknown step "7". Valid steps')
          and "  STEP=2   STEP=02-b                 Step 02-b\n" in e,
          "step-model.py resolve 7: lists the valid steps, exit 2 (%r)" % e)
    write(os.path.join(root, "steps", "01-a", "01-a.gdb"), "echo 01-a\n")
    rc, o, e = cli(root, "gdb-script", "01-a")
    check(rc == 0 and o == os.path.join(root, "steps", "01-a", "01-a.gdb") + "\n",
          "step-model.py gdb-script 01-a: steps/01-a/01-a.gdb (%r %r)" % (o, e))
    rc, o, e = cli(root, "gdb-script", "02-b")
    check(rc == 0 and o == "", "step-model.py gdb-script of a step without one prints nothing")
    rc, o, e = shell(root, 'for s in 01-a 02-b; do step_has_gdb "$s" && echo "$s"; done; echo end')
    check(rc == 0 and o == "01-a\nend\n", "common.sh: step_has_gdb asks the model (%r %r)" % (o, e))
    os.remove(os.path.join(root, "steps", "01-a", "01-a.gdb"))
    rc, o, e = cli(root, "pristine")
    check(rc == 1 and "no step says 'pristine:'" in e, "step-model.py pristine without one fails")
    rc, o, e = shell(root, 'step_slugs; first_step; step_title 01-a; resolve_step 02-b')
    check(rc == 0 and o == "01-a\n02-b\n01-a\nStep 01-a\n02-b\n",
          "common.sh: step_slugs, first_step, step_title, resolve_step (exit %d: %r %r)" % (rc, o, e))
    rc, o, e = shell(root, 's=$(resolve_step 7); echo "went on with [$s]"')
    check(rc == 2 and "went on" not in o, "common.sh: s=$(resolve_step 7) stops the script, exit 2")
    rc, o, e = shell(root, 's=$(pristine_step); echo "went on with [$s]"')
    check(rc == 1 and "went on" not in o and "no step says 'pristine:'" in e,
          "common.sh: s=$(pristine_step) without one stops the script")


def bad(top, name, change, says):
    """A fake lab broken by change(root): every consumer fails and says so."""
    root = fake_lab(top, name)
    change(root)
    e = model_error(root)
    check(e is not None and says in e, "%s: the model says '%s' (%s)" % (name, says, e))
    rc, o, err = cli(root, "slugs")
    check(rc == 1 and o == "" and says in err, "%s: step-model.py slugs fails (exit %d)" % (name, rc))
    rc, o, err = shell(root, 'for s in $(step_slugs); do echo "step $s"; done; echo went on')
    check(rc == 1 and o == "" and says in err,
          "%s: a script sourcing common.sh stops at once (exit %d: %s)" % (name, rc, err.strip()))
    env = dict(os.environ, BUILD_DIR=os.path.join(root, "build"))
    env.pop("STEP_SLUGS", None)
    p = subprocess.run([os.path.join(root, "scripts", "guest-build.sh"), "01-a"],
                       capture_output=True, text=True, timeout=60, env=env)
    check(p.returncode == 1 and says in p.stderr,
          "%s: guest-build.sh refuses (exit %d)" % (name, p.returncode))
    return root


def bad_fakes(top):
    # the two disagreements of issue 19: one answer, an error, everywhere
    root = bad(top, "uppercase-slug", lambda r: write(os.path.join(r, "steps", "06-Foo", "step.conf"),
                                                      CONF), "steps/06-Foo: not a step name")
    rc, o = inventory(root)
    check(rc == 1 and "not ok - steps/ reads as the step model says: steps/06-Foo" in o,
          "uppercase-slug: inventory.py fails, naming steps/06-Foo")
    root = bad(top, "repeated-key", lambda r: write(os.path.join(r, "steps", "02-b", "step.conf"),
                                                    CONF + "title: Another\n"),
               "steps/02-b/step.conf:6: 'title' again (first on line 2)")
    rc, o = inventory(root)
    check(rc == 1 and "not ok - steps/ reads as the step model says: steps/02-b/step.conf:6" in o,
          "repeated-key: inventory.py fails, naming steps/02-b/step.conf:6")
    bad(top, "unknown-key", lambda r: write(os.path.join(r, "steps", "02-b", "step.conf"),
                                            CONF + "pipes: stream\n"),
        "steps/02-b/step.conf:6: unknown key 'pipes'")
    bad(top, "not-key-value", lambda r: write(os.path.join(r, "steps", "02-b", "step.conf"),
                                              CONF + "  title: indented\n"),
        "steps/02-b/step.conf:6: not a 'key: value' line")
    bad(top, "no-step-conf", lambda r: os.remove(os.path.join(r, "steps", "02-b", "step.conf")),
        "steps/02-b/step.conf: missing")
    bad(top, "same-number", lambda r: write(os.path.join(r, "steps", "02-c", "step.conf"), CONF),
        "two steps numbered 2")
    bad(top, "two-field-run", lambda r: write(os.path.join(r, "steps", "01-a", "runs"),
                                              "# x\nautofs-layout i386\n"),
        "steps/01-a/runs:2: a run is 'program abi name'")
    bad(top, "debian-x32", lambda r: write(os.path.join(r, "steps", "runs"),
                                           SHARED_RUNS + "debian-automount x32 automount\n"),
        "steps/runs:5: debian-automount for x32: Debian ships i386 and amd64 only")
    bad(top, "no-runs", lambda r: write(os.path.join(r, "steps", "runs"), "# none\n"),
        "steps/02-b: no runs")
    # not steps, for every reader: no error
    root = fake_lab(top, "not-steps")
    for d in ("6-foo", "notes", "1x-bar"):
        os.makedirs(os.path.join(root, "steps", d))
    write(os.path.join(root, "steps", "07-file"), "a file, not a directory\n")
    check([s.slug for s in model.steps(root)] == ["01-a", "02-b"],
          "6-foo, notes, 1x-bar and a file 07-file in steps/ are not steps")
    # expected rows, read by results.py and inventory.py through the model
    for text, says in (("a b c ok\n", "expected:1: a row needs"),
                       ("# c\na b c error none\n", "expected:2: verdict 'error' cannot be expected"),
                       ("a b c ok none size=3\n", "expected:1: 'size=3' is not one of")):
        path = os.path.join(top, "expected")
        write(path, text)
        try:
            model.parse_expected(path)
            e = None
        except model.StepError as x:
            e = str(x)
        check(e is not None and says in e, "expected: %r is an error: %s"
              % (text, e and e.replace(top, "TMP")))


def main():
    the_lab()
    with tempfile.TemporaryDirectory() as top:
        good_fake(top)
        bad_fakes(top)
    for ok, what in out:
        print(("ok - " if ok else "not ok - ") + what)
    return 0 if all(ok for ok, _ in out) else 1


if __name__ == "__main__":
    sys.exit(main())
