# Constants from the step's own kernel tree. scripts/kernel/kernel-build.sh runs
# gdb-scripts/lab/constants.py.in through that tree's C preprocessor, as
# the kernel does for scripts/gdb/linux/constants.py.in, and writes
# build/steps/SLUG/lab_constants.py next to the step's vmlinux; that
# module has gdb evaluate each macro's expansion (gdb.parse_and_eval) as
# it is loaded. Nothing here is typed in by hand: a macro the tree does
# not define (the steps that take packet mode out have no
# PIPE_BUF_FLAG_PACKET) is simply absent.

import importlib.util
import os

import gdb

from lab.given import step_file


_loaded = {}


def get():
    """The module of this step's constants: PIPE_BUF_FLAGS, LAB_TS_COMPAT, LAB_O_DIRECT."""
    path = step_file("constants")
    if path not in _loaded:
        if not os.path.isfile(path):
            raise gdb.GdbError("lab: %s is missing (run make)" % path)
        spec = importlib.util.spec_from_file_location("lab_step_constants", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        _loaded[path] = mod
    return _loaded[path]


class Constant(gdb.Function):
    """$lab_constant("NAME"): a constant of this step's kernel tree, by name.

NAME is one of LAB_* (without the prefix) or a PIPE_BUF_FLAG_* name, as
gdb-scripts/lab/constants.py.in takes them from the tree."""

    def __init__(self):
        super().__init__("lab_constant")

    def invoke(self, name):
        name = name.string()
        mod = get()
        flags = dict(mod.PIPE_BUF_FLAGS)
        if name in flags:
            return flags[name]
        if hasattr(mod, "LAB_" + name):
            return getattr(mod, "LAB_" + name)
        raise gdb.GdbError("lab: this step's kernel does not define %s" % name)


Constant()
