# Constants from the step's own kernel tree. scripts/kernel-build.sh runs
# gdb-scripts/lab/constants.py.in through that tree's C preprocessor, as
# the kernel does for scripts/gdb/linux/constants.py.in, and writes
# build/steps/SLUG/lab_constants.py next to the step's vmlinux. Nothing
# here is typed in by hand: a macro the tree does not define (the steps
# that take packet mode out have no PIPE_BUF_FLAG_PACKET) is simply absent.

import importlib.util
import os

import gdb

from lab.paths import step_out


def c_int(text):
    """A C integer constant as the preprocessor left it: 0x10, 00040000,
    (1 << 4), 0x01 | 0x02."""
    t = text.replace("(", " ( ").replace(")", " ) ").replace("U", "").replace("L", "")
    out = []
    for tok in t.split():
        if tok[0].isdigit():
            if tok.startswith(("0x", "0X")):
                tok = str(int(tok, 16))
            elif len(tok) > 1 and tok.startswith("0"):
                tok = str(int(tok, 8))
        elif tok not in ("(", ")", "<<", ">>", "|", "&", "~", "+", "-"):
            raise ValueError("not a C integer constant: %r" % text)
        out.append(tok)
    return int(eval(" ".join(out), {"__builtins__": {}}))  # noqa: S307 (checked tokens)


_loaded = {}


def get():
    """The module of this step's constants: PIPE_BUF_FLAGS, LAB_TS_COMPAT, LAB_O_DIRECT."""
    path = os.path.join(step_out(), "lab_constants.py")
    if path not in _loaded:
        if not os.path.isfile(path):
            raise gdb.GdbError("lab: %s is missing (run make)" % path)
        spec = importlib.util.spec_from_file_location("lab_step_constants", path)
        mod = importlib.util.module_from_spec(spec)
        mod.lab_c_int = c_int
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
