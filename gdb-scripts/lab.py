# gdb helpers of the autofs ABI lab: only what the kernel's own
# scripts/gdb (lx-dmesg, lx-ps, $lx_current(), ...) does not cover.
# steps/lib/gdb.sh sources this after build/kbuild/vmlinux-gdb.py.
#
#   lab-pipe-buf EXPR          a struct pipe_buffer with its flags named
#   $lab_in_compat_syscall()   in_compat_syscall() of the current task
#   lab-ptype-i386 PROG TYPE   ptype /o TYPE as an i386 guest program has it
#   lab-pahole STRUCT [PROG]   pahole of STRUCT in vmlinux (and PROG, i386)
#   lab-done / lab-howto / lab-release   end of a step script

import os
import subprocess

import gdb

# include/linux/pipe_fs_i.h. These are macros, so the DWARF of a kernel
# built without -g3 cannot name them for us.
PIPE_BUF_FLAGS = (
    (0x01, "PIPE_BUF_FLAG_LRU"),
    (0x02, "PIPE_BUF_FLAG_ATOMIC"),
    (0x04, "PIPE_BUF_FLAG_GIFT"),
    (0x08, "PIPE_BUF_FLAG_PACKET"),
    (0x10, "PIPE_BUF_FLAG_CAN_MERGE"),
    (0x20, "PIPE_BUF_FLAG_WHOLE"),
    (0x40, "PIPE_BUF_FLAG_LOSS"),
)

# arch/x86/include/asm/thread_info.h: set while a 32-bit syscall runs
TS_COMPAT = 0x0002


class PacketFlagParam(gdb.Parameter):
    """Whether this kernel defines PIPE_BUF_FLAG_PACKET (0x08).

Steps 1-3 run a kernel from which kernel-patches/0001 removed packet
mode and the flag with it; their scripts turn this off so that the lab
does not name a flag the kernel does not have."""

    set_doc = "Set whether the kernel has PIPE_BUF_FLAG_PACKET."
    show_doc = "Show whether the kernel has PIPE_BUF_FLAG_PACKET."

    def __init__(self):
        super().__init__("lab-packet-flag", gdb.COMMAND_DATA, gdb.PARAM_BOOLEAN)
        self.value = True

    def get_show_string(self, svalue):
        return "PIPE_BUF_FLAG_PACKET in this kernel: " + svalue


packet_flag = PacketFlagParam()


def step_dir():
    """build/steps/N of the vmlinux gdb was started with."""
    vmlinux = gdb.current_progspace().filename
    if not vmlinux:
        raise gdb.GdbError("lab: no vmlinux loaded")
    return os.path.dirname(os.path.abspath(vmlinux))


def flag_names(flags):
    names = []
    for bit, name in PIPE_BUF_FLAGS:
        if not flags & bit:
            continue
        if bit == 0x08 and not packet_flag.value:
            name = "0x08, which this kernel does not define"
        names.append(name)
    rest = flags & ~sum(bit for bit, _ in PIPE_BUF_FLAGS)
    if rest:
        names.append("0x%x" % rest)
    return "|".join(names) if names else "none"


class PipeBuf(gdb.Command):
    """Print a struct pipe_buffer with its flags named.

Usage: lab-pipe-buf EXPR
EXPR is a struct pipe_buffer or a pointer to one."""

    def __init__(self):
        super().__init__("lab-pipe-buf", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        buf = gdb.parse_and_eval(arg)
        if buf.type.strip_typedefs().code == gdb.TYPE_CODE_PTR:
            buf = buf.dereference()
        flags = int(buf["flags"])
        gdb.write("pipe_buffer: offset = %d, len = %d, flags = 0x%02x (%s)\n" %
                  (int(buf["offset"]), int(buf["len"]), flags, flag_names(flags)))


class InCompatSyscall(gdb.Function):
    """$lab_in_compat_syscall(): 1 if the current task is in a 32-bit syscall.

What in_compat_syscall() would return at this point of the kernel: the
TS_COMPAT bit of the current task's thread_info (x86-64, no x32)."""

    def __init__(self):
        super().__init__("lab_in_compat_syscall")

    def invoke(self):
        # CPU 0 given explicitly: the lab kernel has one CPU, and on a
        # !SMP kernel lx_current cannot find a task's CPU under kgdb.
        task = gdb.parse_and_eval("$lx_current(0)")
        return 1 if int(task["thread_info"]["status"]) & TS_COMPAT else 0


class PtypeI386(gdb.Command):
    """ptype /o TYPE as compiled into an i386 guest program of this step.

Usage: lab-ptype-i386 PROGRAM TYPE
PROGRAM is a file in build/steps/N/guest/i386/. It is loaded as a
second inferior, so the kernel's symbols stay as they are."""

    def __init__(self):
        super().__init__("lab-ptype-i386", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        prog, _, typ = arg.partition(" ")
        path = os.path.join(step_dir(), "guest", "i386", prog)
        if not typ or not os.path.isfile(path):
            raise gdb.GdbError("usage: lab-ptype-i386 PROGRAM TYPE (%s)" % path)
        kernel = gdb.selected_inferior().num
        gdb.execute("add-inferior -no-connection -exec " + path, to_string=True)
        other = max(i.num for i in gdb.inferiors())
        try:
            gdb.execute("inferior %d" % other, to_string=True)
            gdb.write("%s in %s (i386):\n" % (typ, path))
            gdb.execute("ptype /o " + typ)
        finally:
            gdb.execute("inferior %d" % kernel, to_string=True)
            gdb.execute("remove-inferiors %d" % other, to_string=True)


class Pahole(gdb.Command):
    """pahole -C STRUCT of this step's vmlinux, and of an i386 program.

Usage: lab-pahole STRUCT [PROGRAM]
--suppress_packed: pahole assumes 8-byte alignment for __u64 and so
would call the 300-byte i386 layout __packed__, which it is not."""

    def __init__(self):
        super().__init__("lab-pahole", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        args = arg.split()
        if not args:
            raise gdb.GdbError("usage: lab-pahole STRUCT [PROGRAM]")
        files = [(os.path.join(step_dir(), "vmlinux"), "x86_64")]
        if len(args) > 1:
            files.append((os.path.join(step_dir(), "guest", "i386", args[1]), "i386"))
        for path, abi in files:
            gdb.write("pahole -C %s %s (%s):\n" % (args[0], path, abi))
            try:
                out = subprocess.run(["pahole", "--suppress_packed", "-C", args[0], path],
                                     capture_output=True, text=True, timeout=60)
            except (OSError, subprocess.TimeoutExpired) as e:
                raise gdb.GdbError("lab-pahole: %s" % e)
            gdb.write(out.stdout + out.stderr)


def step_number():
    return os.path.basename(step_dir())


class Done(gdb.Command):
    """Mark the end of a step script (steps/lib/gdb.sh looks for it)."""

    def __init__(self):
        super().__init__("lab-done", gdb.COMMAND_SUPPORT)

    def invoke(self, arg, from_tty):
        gdb.write("LAB-GDB-DONE step=%s\n" % step_number())


class Howto(gdb.Command):
    """What to do at the prompt where a step script leaves the learner.

Usage: lab-howto gdbstub|kgdb"""

    def __init__(self):
        super().__init__("lab-howto", gdb.COMMAND_SUPPORT)

    def invoke(self, arg, from_tty):
        n = step_number()
        if arg.strip() == "kgdb":
            # nothing in the guest has ttyS1 open, so no interrupt
            # brings a 0x03 from gdb to kgdb while the kernel runs
            stop = "Ctrl-C does not stop it under kgdb: break first"
            clock = """
Under kgdb the guest's clock runs on while the kernel is stopped. Stay
here for more than about 20 s and, once the guest continues, the
daemon's watchdog (26 s) or init's 30 s timeout fires and the demo
reports a broken run. Under gdbstub (make gdb) QEMU pauses the whole
machine, clock included: take your time there.
"""
        else:
            stop = "Ctrl-C stops it again"
            clock = ""
        gdb.write("""
The guest is stopped at step %s's moment. Look around, for instance:
  bt                              how the kernel got here
  p $lx_current(0)->comm          which task this is (lx-ps lists them all)
  lx-dmesg                        the kernel log
  apropos lab-                    the lab-* commands of gdb-scripts/lab.py
Then:
  continue   (c)                  let the guest run on
                                  (%s)
  lab-release                     remove the breakpoints, let the guest finish
  quit       (q)                  leave gdb; the guest runs to its end
Run it again from the start: make gdb STEP=%s (or make kgdb STEP=%s)
%s""" % (n, stop, n, n, clock))


class Release(gdb.Command):
    """Delete all breakpoints and detach, so that the guest runs to its end."""

    def __init__(self):
        super().__init__("lab-release", gdb.COMMAND_SUPPORT)

    def invoke(self, arg, from_tty):
        if not gdb.selected_inferior().pid:
            gdb.write("lab-release: gdb is not attached to the guest any more\n")
            return
        gdb.execute("delete")
        gdb.execute("detach")


PipeBuf()
InCompatSyscall()
PtypeI386()
Pahole()
Done()
Howto()
Release()
