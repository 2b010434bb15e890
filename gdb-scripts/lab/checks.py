# lab-value: the values a step script prints for make test, by name.

import re

import gdb


def value_text(v):
    """A gdb.Value as one word: integers in decimal, char arrays as text."""
    t = v.type.strip_typedefs()
    if t.code == gdb.TYPE_CODE_ARRAY and t.target().sizeof == 1:
        return v.string(length=t.sizeof).split("\0", 1)[0]
    if t.code in (gdb.TYPE_CODE_INT, gdb.TYPE_CODE_BOOL, gdb.TYPE_CODE_ENUM,
                  gdb.TYPE_CODE_CHAR, gdb.TYPE_CODE_PTR):
        return str(int(v))
    return str(v)


def emit(name, text):
    """One named record; scripts/tests/gdbcheck.py finds the values by name."""
    if not re.match(r"^[a-z][a-z0-9_]*$", name):
        raise gdb.GdbError("lab: value names are lower_case words, not %r" % name)
    gdb.write("LAB-VALUE %s=%s\n" % (name, text))


class Value(gdb.Command):
    """Print an expression as a named record for the lab's checks.

Usage: lab-value NAME EXPR
Prints "LAB-VALUE NAME=VALUE": integers in decimal, char arrays as text.
make test compares the values with the step's gdb-checks file, by name."""

    def __init__(self):
        super().__init__("lab-value", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        name, _, expr = arg.strip().partition(" ")
        if not expr:
            raise gdb.GdbError("usage: lab-value NAME EXPR")
        emit(name, value_text(gdb.parse_and_eval(expr)))


Value()
