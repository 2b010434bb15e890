# $lab_in_compat_syscall(): is the current task in a 32-bit syscall?

import gdb

from lab import constants


class InCompatSyscall(gdb.Function):
    """$lab_in_compat_syscall(): 1 if the current task is in a 32-bit syscall.

What in_compat_syscall() would return at this point of the kernel: the
TS_COMPAT bit (from this step's tree) of the current task's thread_info."""

    def __init__(self):
        super().__init__("lab_in_compat_syscall")

    def invoke(self):
        # CPU 0 given explicitly: the lab kernel has one CPU, and on a
        # !SMP kernel lx_current cannot find a task's CPU under kgdb.
        task = gdb.parse_and_eval("$lx_current(0)")
        return 1 if int(task["thread_info"]["status"]) & constants.get().LAB_TS_COMPAT else 0


InCompatSyscall()
