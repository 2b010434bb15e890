"""The lab's host side in Python, one module per subject:

    steps    the step model: steps/ read and checked (the shell asks it
             through model.py, once per lab command)
    model    the model's answers for the shell, as bash declarations
    abis     the guest ABIs, their compiler flags and roles (guest/abis)
    layout   where a build keeps a step's output (build/steps/SLUG)
    limits   the time limits of scripts/lib/limits.sh, as lab_setup exports them
    results  the guests' RESULT lines, checked against history
    sources  docs/sources.yml
    tap      the Python tests' one TAP line printer (lib/tap.sh numbers them)

Every module is run, or imported, by the lab's shell (lib/core.sh: it
puts scripts/ on PYTHONPATH and says where the lab is in LAB_ROOT), or
by the tests (scripts/tests/), which do the same."""

import os


def _root():
    root = os.environ.get("LAB_ROOT")
    if not root:
        raise SystemExit("labhost: LAB_ROOT is not set: run this through the lab "
                         "(make, or scripts/lab.sh), which sets it")
    return root


# The lab's checkout: the shell's LAB_ROOT, its one home (lib/core.sh).
ROOT = _root()
