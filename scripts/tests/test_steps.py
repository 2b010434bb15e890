#!/usr/bin/env python3
"""Host tests of the step model (labhost/steps.py) on the lab's steps and
on made-up labs in a temporary directory: each rule must be able to fail,
and a steps/ that breaks one must stop every consumer alike: the model,
its answers for the shell (labhost/model.py), lib/model.sh's helpers (so
every shell script, the guest build among them) and the inventory checks.
Each check is a subtest of StepModel (tests/tapunit.py): `python3 -m
unittest` runs them (from scripts/, LAB_ROOT set), and so does this file
run as a program, one TAP line a check (labhost/tap.py) that make check's
suite "model" numbers (lib/tap.sh's tap_run); exit 1 if any failed."""

import os
import subprocess
import sys
import tempfile

import labenv  # tests/, which Python puts first for a script there
import tapunit
from labhost import results
from labhost import steps as model
from labhost.limits import limit

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(HERE)

CONF = "# a step\ntitle: A step\nkernel: does a thing\nhistory: 5c0a32fc2cd0\npipe: stream\n"
SHARED_RUNS = "# program abi name\nsystemd-style i386 systemd-style  # inline comment\n\n" \
              "automount-style   x86_64   automount\n"
OWN_RUNS = "autofs-layout i386 autofs-layout\n"
EXPECTED = "# program abi name verdict cause sizes\n" \
           "autofs-layout i386 autofs-layout measured none\n" \
           "systemd-style i386 systemd-style broken leftover got=4 want=300\n" \
           "automount-style x86_64 automount ok none\n"


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
    for d in ("docs", "kernel-patches", "gdb-scripts", "guest"):
        os.symlink(os.path.join(model.ROOT, d), os.path.join(root, d))
    for d in ("lib", "labhost", "guest", "source"):
        os.symlink(os.path.join(SCRIPTS, d), os.path.join(root, "scripts", d))
    return root


def model_error(root):
    """The StepError the model raises for this lab, or None."""
    try:
        model.steps(root)
    except model.StepError as e:
        return str(e)
    return None


def lab_env(root):
    env = dict(os.environ, BUILD_DIR=os.path.join(root, "build"), LAB_ROOT=root,
               PYTHONPATH=SCRIPTS)
    for k in ("LAB_LOCKED", "LAB_DEADLINE", "LAB_MODEL"):
        env.pop(k, None)
    return env


def cli(root, *args):
    """labhost.model's answers for the fake lab's shell."""
    p = subprocess.run([sys.executable, "-m", "labhost.model", "shell", "--root", root,
                        "--build", os.path.join(root, "build")] + list(args),
                       capture_output=True, text=True, timeout=limit("LIMIT_SHORT"), env=lab_env(root))
    return p.returncode, p.stdout, p.stderr


def shell(root, script, *args):
    """A bash script run after the fake lab's lib/core.sh and lab_setup."""
    p = subprocess.run(["bash", "-c", '. "$0/scripts/lib/core.sh"; lab_setup; ' + script, root]
                       + list(args), capture_output=True, text=True, timeout=limit("LIMIT_SHORT"),
                       env=lab_env(root))
    return p.returncode, p.stdout, p.stderr


def inventory(root):
    p = subprocess.run([sys.executable, os.path.join(HERE, "inventory.py"), "--root", root,
                        "--build", os.path.join(root, "build")],
                       capture_output=True, text=True, timeout=limit("LIMIT_SHORT"), env=lab_env(root))
    return p.returncode, p.stdout


# Each group of checks is given tc, the test that runs it (StepModel, below).
def the_lab(tc):
    s = model.steps()
    tc.check(s and all(model.SLUG.match(x.slug) for x in s),
             "the lab's steps read as the model says (%s)" % " ".join(x.slug for x in s))
    tc.check(all(not (set(model.REQUIRED) - set(x.conf)) for x in s),
             "every step.conf of the lab has %s" % ", ".join(model.REQUIRED))
    p = model.pristine()
    tc.check(p.conf["pristine"], "a step says pristine: (%s): abi-scan reads its headers" % p.slug)
    last = s[-1]
    rc, o, e = shell(model.ROOT, 'for a in "$@"; do resolve_step "$a"; done', str(last.number),
                     "%02d" % last.number, last.slug)
    tc.check(rc == 0 and o == (last.slug + "\n") * 3,
             "STEP=%d, STEP=%02d and STEP=%s are the same step (%r %r)"
             % (last.number, last.number, last.slug, o, e))
    for a in (str(len(s) + 1), "packet", "", "4x"):
        rc, o, e = shell(model.ROOT, 'resolve_step "$1"', a)
        tc.check(rc == 2 and o == "" and "unknown step" in e, "STEP=%s is no step: exit 2" % a)
    tc.check(results.parse_expected is model.parse_expected,
             "results.py reads expected files with the model's parse_expected")


def good_fake(tc, top):
    root = fake_lab(top, "good")
    s = model.steps(root)
    tc.check([x.slug for x in s] == ["01-a", "02-b"], "a fake lab's slugs: 01-a 02-b")
    tc.check(s[0].runs == [("autofs-layout", "i386", "autofs-layout"),
                            ("systemd-style", "i386", "systemd-style"),
                            ("automount-style", "x86_64", "automount")],
             "runs: the step's own first, then steps/runs; comments and blank lines skipped")
    tc.check(s[1].programs() == "systemd-style i386 systemd-style\nautomount-style x86_64 automount\n",
             "programs: one 'program abi name' line per run, single spaces")
    tc.check(s[0].conf["history"] == "5c0a32fc2cd0" and s[0].title == "Step 01-a"
             and "pristine" not in s[0].conf, "step.conf: key: value, comments skipped")
    rows = s[0].expected()
    tc.check([r.key() for r in rows] == [r for r in s[0].runs] and rows[1].sizes == {"got": 4, "want": 300},
             "expected: one row per run, with its sizes")
    rc, o, e = cli(root)
    tc.check(rc == 0 and "declare -ga STEP_SLUGS=(01-a 02-b)\n" in o,
             "labhost.model shell declares the slugs (exit %d: %r)" % (rc, e))
    rc, o, e = shell(root, 'step_slugs; first_step; step_title 01-a; step_pipe 02-b; step_number 02-b; '
                     'step_pristine_paths 02-b; resolve_step 02-b; resolve_step 2; step_programs 02-b')
    tc.check(rc == 0 and o == "01-a\n02-b\n01-a\nStep 01-a\nstream\n2\n\n02-b\n02-b\n"
             "systemd-style i386 systemd-style\nautomount-style x86_64 automount\n",
             "lib/model.sh: step_slugs, first_step, step_title, step_pipe, step_number, "
             "step_pristine_paths, resolve_step, step_programs (exit %d: %r %r)" % (rc, o, e))
    rc, o, e = shell(root, 'resolve_step 7')
    tc.check(rc == 2 and o == "" and e.startswith('error: unknown step "7". Valid steps')
             and "  STEP=2   STEP=02-b                 Step 02-b\n" in e,
             "resolve_step 7: lists the valid steps, exit 2 (%r)" % e)
    rc, o, e = shell(root, 'step_out 02-b; guest_abis | tr "\\n" " "; is_debian_program debian-automount && echo deb')
    tc.check(rc == 0 and o == os.path.join(root, "build", "steps", "02-b") + "\ni386 x86_64 x32 deb\n",
             "lib/model.sh: step_out (labhost/layout.py), guest_abis (guest/abis), "
             "is_debian_program (%r %r)" % (o, e))
    write(os.path.join(root, "steps", "01-a", "01-a.gdb"), "echo 01-a\n")
    rc, o, e = shell(root, 'step_gdb_script 01-a; step_gdb_script 02-b; '
                     'for s in 01-a 02-b; do step_has_gdb "$s" && echo "$s"; done; echo end')
    tc.check(rc == 0 and o == os.path.join(root, "steps", "01-a", "01-a.gdb") + "\n\n01-a\nend\n",
             "lib/model.sh: step_gdb_script and step_has_gdb: steps/01-a/01-a.gdb, none for 02-b (%r %r)"
             % (o, e))
    os.remove(os.path.join(root, "steps", "01-a", "01-a.gdb"))
    rc, o, e = shell(root, 's=$(resolve_step 7); echo "went on with [$s]"')
    tc.check(rc == 2 and "went on" not in o, "lib/model.sh: s=$(resolve_step 7) stops the script, exit 2")
    rc, o, e = shell(root, 's=$(pristine_step); echo "went on with [$s]"')
    tc.check(rc == 1 and "went on" not in o and "no step says 'pristine:'" in e,
             "lib/model.sh: s=$(pristine_step) without one stops the script")
    # one python3 for every step question of a command, its children included
    counter = os.path.join(top, "python3-starts")
    wrap = os.path.join(top, "bin", "python3")
    write(wrap, '#!/bin/sh\necho x >>"%s"\nexec "%s" "$@"\n' % (counter, sys.executable))
    os.chmod(wrap, 0o755)
    rc, o, e = shell(root, 'LAB_PYTHON=%s; export LAB_PYTHON; : >"%s"; LAB_MODEL= lab_setup; '
                     'for s in $(step_slugs); do step_title "$s"; step_out "$s"; resolve_step "$s"; '
                     'step_programs "$s"; done >/dev/null; '
                     'bash -c \'. "$1/scripts/lib/core.sh"; lab_setup; step_slugs\' - "$0"; '
                     'wc -l <"%s"' % (wrap, counter, counter))
    tc.check(rc == 0 and o.split()[-1:] == ["1"],
             "twenty step questions and a script of its own take one python3 start (%r %r)" % (o, e))
    # and that start is Debian's python3, not the first one on PATH
    debian = "the lab's python3 is Debian's, not a python3 first on PATH"
    if not os.access("/usr/bin/python3", os.X_OK):
        tc.skip(debian, "this machine has no /usr/bin/python3 (Debian's) to prefer")
    else:
        open(counter, "w").close()
        env = dict(lab_env(root), PATH=os.path.dirname(wrap) + ":" + os.environ["PATH"])
        env.pop("LAB_PYTHON", None)
        p = subprocess.run(["bash", "-c", '. "$0/scripts/lib/core.sh"; lab_setup; step_slugs >/dev/null; '
                            'echo "$LAB_PYTHON"', root], capture_output=True, text=True,
                           timeout=limit("LIMIT_SHORT"), env=env)
        with open(counter) as f:
            starts = len(f.read().split())
        tc.check(p.returncode == 0 and p.stdout == "/usr/bin/python3\n" and starts == 0,
                 "%s (%r, %d starts of it)" % (debian, p.stdout + p.stderr, starts))


def bad(tc, top, name, change, says):
    """A fake lab broken by change(root): every consumer fails and says so."""
    root = fake_lab(top, name)
    change(root)
    e = model_error(root)
    tc.check(e is not None and says in e, "%s: the model says '%s' (%s)" % (name, says, e))
    rc, o, err = cli(root)
    tc.check(rc == 1 and o == "" and says in err, "%s: labhost.model fails (exit %d)" % (name, rc))
    rc, o, err = shell(root, 'for s in $(step_slugs); do echo "step $s"; done; echo went on')
    tc.check(rc == 1 and o == "" and says in err,
             "%s: a script's lab_setup stops at once (exit %d: %s)" % (name, rc, err.strip()))
    p = subprocess.run([os.path.join(root, "scripts", "guest", "guest-build.sh"), "01-a"],
                       capture_output=True, text=True, timeout=limit("LIMIT_SHORT"), env=lab_env(root))
    tc.check(p.returncode == 1 and says in p.stderr,
             "%s: guest-build.sh refuses (exit %d)" % (name, p.returncode))
    return root


def bad_fakes(tc, top):
    # the two disagreements of issue 19: one answer, an error, everywhere
    root = bad(tc, top, "uppercase-slug", lambda r: write(os.path.join(r, "steps", "06-Foo", "step.conf"),
                                                          CONF), "steps/06-Foo: not a step name")
    rc, o = inventory(root)
    tc.check(rc == 1 and "not ok - steps/ reads as the step model says: steps/06-Foo" in o,
             "uppercase-slug: inventory.py fails, naming steps/06-Foo")
    root = bad(tc, top, "repeated-key", lambda r: write(os.path.join(r, "steps", "02-b", "step.conf"),
                                                        CONF + "title: Another\n"),
               "steps/02-b/step.conf:6: 'title' again (first on line 2)")
    rc, o = inventory(root)
    tc.check(rc == 1 and "not ok - steps/ reads as the step model says: steps/02-b/step.conf:6" in o,
             "repeated-key: inventory.py fails, naming steps/02-b/step.conf:6")
    bad(tc, top, "unknown-key", lambda r: write(os.path.join(r, "steps", "02-b", "step.conf"),
                                                CONF + "pipes: stream\n"),
        "steps/02-b/step.conf:6: unknown key 'pipes'")
    bad(tc, top, "not-key-value", lambda r: write(os.path.join(r, "steps", "02-b", "step.conf"),
                                                  CONF + "  title: indented\n"),
        "steps/02-b/step.conf:6: not a 'key: value' line")
    bad(tc, top, "no-step-conf", lambda r: os.remove(os.path.join(r, "steps", "02-b", "step.conf")),
        "steps/02-b/step.conf: missing")
    bad(tc, top, "same-number", lambda r: write(os.path.join(r, "steps", "02-c", "step.conf"), CONF),
        "two steps numbered 2")
    bad(tc, top, "two-field-run", lambda r: write(os.path.join(r, "steps", "01-a", "runs"),
                                                  "# x\nautofs-layout i386\n"),
        "steps/01-a/runs:2: a run is 'program abi name'")
    bad(tc, top, "debian-x32", lambda r: write(os.path.join(r, "steps", "runs"),
                                               SHARED_RUNS + "debian-automount x32 automount\n"),
        "steps/runs:5: debian-automount for x32: Debian ships i386 and amd64 only")
    bad(tc, top, "caller-same-abi", lambda r: write(os.path.join(r, "steps", "runs"),
                                                    SHARED_RUNS + "systemd-style+i386 i386 systemd-style\n"),
        "steps/runs:5: systemd-style+i386: a caller's ABI must be another of guest/abis")
    bad(tc, top, "unknown-abi", lambda r: write(os.path.join(r, "steps", "runs"),
                                                SHARED_RUNS + "systemd-style arm64 systemd-style\n"),
        "steps/runs:5: no ABI 'arm64' (guest/abis has: i386 x86_64 x32)")
    bad(tc, top, "no-runs", lambda r: write(os.path.join(r, "steps", "runs"), "# none\n"),
        "steps/02-b: no runs")
    # not steps, for every reader: no error
    root = fake_lab(top, "not-steps")
    for d in ("6-foo", "notes", "1x-bar"):
        os.makedirs(os.path.join(root, "steps", d))
    write(os.path.join(root, "steps", "07-file"), "a file, not a directory\n")
    tc.check([s.slug for s in model.steps(root)] == ["01-a", "02-b"],
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
        tc.check(e is not None and says in e, "expected: %r is an error: %s"
                 % (text, e and e.replace(top, "TMP")))


setUpModule = labenv.limits  # under unittest, outside the lab


class StepModel(tapunit.Checks):
    """The checks above, each a subtest: as unittest runs them, and as TAP."""

    def test_lab(self):
        the_lab(self)

    def test_good_fake(self):
        with tempfile.TemporaryDirectory() as top:
            good_fake(self, top)

    def test_bad_fakes(self):
        with tempfile.TemporaryDirectory() as top:
            bad_fakes(self, top)


if __name__ == "__main__":
    sys.exit(tapunit.main())
