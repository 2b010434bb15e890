"""The step model's answers for the shell, all at once, as bash
declarations that lib/model.sh evaluates: one python3 per lab command
answers every step question of that command.

    python3 -m labhost.model shell --build BUILD_DIR [--root LAB_ROOT]

declares STEP_SLUGS (in order), and per slug STEP_NUMBER, STEP_TITLE,
STEP_PIPE, STEP_PRISTINE_PATHS, STEP_GDB (the gdb script, empty if it has
none), STEP_PROGRAMS (what the guest runs: "program abi name" lines),
STEP_OUT (its output, relative to a build dir: labhost/layout.py),
STEP_BASE (the branch its patches go on), STEP_CONFIG (its own kernel
config fragment, empty if none), STEP_KBUILD (its kernel's build dir,
relative to the kernel tree), STEP_GOAL (what make try ON=SLUG aims at:
its goal file, empty for the pristine step's expected), STEP_EXPECTED
(its expected file); OUT_FILE (the files of a build), RUN_FILE and
DEMO_RUN (the files of a boot: layout.py), STEPS_REL (where the steps'
outputs are, relative to a build dir);
PRISTINE_STEP; DEBIAN_PROGRAMS and GUEST_ABIS, with GUEST_ABI_FLAG.
Anything in steps/ that breaks a rule: "error: ..." naming the file and
line, exit 1."""

import argparse
import os
import shlex
import sys

from labhost import abis, layout
from labhost import steps as model


def declare_map(name, pairs):
    return "declare -gA %s=(%s)\n" % (
        name, " ".join("[%s]=%s" % (shlex.quote(k), shlex.quote(v)) for k, v in pairs))


def declare_list(name, items):
    return "declare -ga %s=(%s)\n" % (name, " ".join(shlex.quote(i) for i in items))


def shell(root, build):
    all_steps = model.steps(root)
    try:
        pristine = model.pristine(root).slug
    except model.StepError:
        pristine = ""
    pairs = [(a, f) for a, f, _ in abis.read(root)]
    return "".join([
        declare_list("STEP_SLUGS", [s.slug for s in all_steps]),
        declare_map("STEP_NUMBER", [(s.slug, str(s.number)) for s in all_steps]),
        declare_map("STEP_TITLE", [(s.slug, s.title) for s in all_steps]),
        declare_map("STEP_PIPE", [(s.slug, s.conf.get("pipe", "")) for s in all_steps]),
        declare_map("STEP_PRISTINE_PATHS", [(s.slug, s.conf.get("pristine", "")) for s in all_steps]),
        declare_map("STEP_GDB", [(s.slug, s.gdb_script if s.has_gdb() else "") for s in all_steps]),
        declare_map("STEP_PROGRAMS", [(s.slug, s.programs()) for s in all_steps]),
        declare_map("STEP_OUT", [(s.slug, os.path.relpath(layout.step_out(build, s.slug), build))
                                 for s in all_steps]),
        declare_map("STEP_BASE", [(s.slug, s.base) for s in all_steps]),
        declare_map("STEP_CONFIG", [(s.slug, s.config or "") for s in all_steps]),
        declare_map("STEP_KBUILD", [(s.slug, layout.kbuild(s.slug, s.config)) for s in all_steps]),
        declare_map("STEP_GOAL", [(s.slug, s.goal or "") for s in all_steps]),
        declare_map("STEP_EXPECTED", [(s.slug, s.expected_path) for s in all_steps]),
        declare_map("OUT_FILE", sorted(layout.OUT_FILES.items())),
        declare_map("RUN_FILE", sorted(layout.RUN_FILES.items())),
        "declare -g DEMO_RUN=%s\n" % shlex.quote(layout.DEMO_RUN),
        "declare -g STEPS_REL=%s\n" % shlex.quote(os.path.relpath(layout.steps_dir(build), build)),
        "declare -g PRISTINE_STEP=%s\n" % shlex.quote(pristine),
        declare_list("DEBIAN_PROGRAMS", model.DEBIAN_PROGRAMS),
        declare_list("GUEST_ABIS", [a for a, _ in pairs]),
        declare_map("GUEST_ABI_FLAG", pairs),
    ])


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    sh = sub.add_parser("shell")
    sh.add_argument("--build", required=True, help="the build directory (BUILD_DIR)")
    sh.add_argument("--root", help="the lab's root (default: LAB_ROOT)")
    a = ap.parse_args(argv)
    try:
        out = shell(a.root, a.build)
    except (model.StepError, OSError) as e:
        sys.stderr.write("error: %s\n" % e)
        return 1
    sys.stdout.write(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
