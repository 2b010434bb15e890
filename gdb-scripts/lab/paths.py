# Where things are: the step whose vmlinux gdb has loaded, and the lab.

import os

import gdb

LAB_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def step_out():
    """build/steps/SLUG of the vmlinux gdb was started with."""
    vmlinux = gdb.current_progspace().filename
    if not vmlinux:
        raise gdb.GdbError("lab: no vmlinux loaded")
    return os.path.dirname(os.path.abspath(vmlinux))


def step_slug():
    return os.path.basename(step_out())
