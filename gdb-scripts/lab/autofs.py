# The autofs packet as an i386 guest program of the step has it:
# lab-ptype-i386, lab-i386, and lab-pahole for both ABIs.

import os
import re
import subprocess

import gdb

from lab.checks import emit
from lab.given import limit, step_file


def i386_program(prog):
    path = os.path.join(step_file("guest"), "i386", prog)
    if not os.path.isfile(path):
        raise gdb.GdbError("lab: no i386 program %s" % path)
    return path


def in_i386(prog, command):
    """Run a gdb command with an i386 guest program of this step loaded as
    a second inferior, so that the kernel's symbols stay as they are."""
    path = i386_program(prog)
    kernel = gdb.selected_inferior().num
    # quoted as gdb's own argument splitter (buildargv) reads it: a
    # BUILD_DIR may have spaces
    quoted = '"%s"' % path.replace("\\", "\\\\").replace('"', '\\"')
    gdb.execute("add-inferior -no-connection -exec " + quoted, to_string=True)
    other = max(i.num for i in gdb.inferiors())
    try:
        gdb.execute("inferior %d" % other, to_string=True)
        gdb.execute(command)
    finally:
        gdb.execute("inferior %d" % kernel, to_string=True)
        gdb.execute("remove-inferiors %d" % other, to_string=True)


class PtypeI386(gdb.Command):
    """ptype /o TYPE as compiled into an i386 guest program of this step.

Usage: lab-ptype-i386 PROGRAM TYPE
PROGRAM is a file in build/steps/SLUG/guest/i386/."""

    def __init__(self):
        super().__init__("lab-ptype-i386", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        prog, _, typ = arg.partition(" ")
        if not typ:
            raise gdb.GdbError("usage: lab-ptype-i386 PROGRAM TYPE")
        gdb.write("%s in %s (i386):\n" % (typ, i386_program(prog)))
        in_i386(prog, "ptype /o " + typ)


class I386(gdb.Command):
    """Run a gdb command against an i386 guest program of this step.

Usage: lab-i386 PROGRAM COMMAND
For instance: lab-i386 systemd-style lab-value i386_sizeof sizeof(struct autofs_v5_packet)"""

    def __init__(self):
        super().__init__("lab-i386", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        prog, _, command = arg.strip().partition(" ")
        if not command:
            raise gdb.GdbError("usage: lab-i386 PROGRAM COMMAND")
        in_i386(prog, command)


class Pahole(gdb.Command):
    """pahole -C STRUCT of this step's vmlinux, and of an i386 program.

Usage: lab-pahole STRUCT [PROGRAM]
Also prints the size and the padding pahole found as lab-value records
(pahole_size_x86_64, pahole_padding_i386, ...).
--suppress_packed: pahole assumes 8-byte alignment for __u64 and so
would call the 300-byte i386 layout __packed__, which it is not."""

    def __init__(self):
        super().__init__("lab-pahole", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        args = arg.split()
        if not args:
            raise gdb.GdbError("usage: lab-pahole STRUCT [PROGRAM]")
        files = [(step_file("vmlinux"), "x86_64")]
        if len(args) > 1:
            files.append((i386_program(args[1]), "i386"))
        for path, abi in files:
            gdb.write("pahole -C %s %s (%s):\n" % (args[0], path, abi))
            try:
                out = subprocess.run(["pahole", "--suppress_packed", "-C", args[0], path],
                                     capture_output=True, text=True, timeout=limit("short"))
            except (OSError, subprocess.TimeoutExpired) as e:
                raise gdb.GdbError("lab-pahole: %s" % e)
            gdb.write(out.stdout + out.stderr)
            size = re.search(r"/\* size: (\d+),", out.stdout)
            pad = re.search(r"/\* padding: (\d+) \*/", out.stdout)
            emit("pahole_size_" + abi, size.group(1) if size else "none")
            emit("pahole_padding_" + abi, pad.group(1) if pad else "0")


PtypeI386()
I386()
Pahole()
