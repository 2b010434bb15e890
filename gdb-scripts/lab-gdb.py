# Loader of the lab's gdb helpers, as vmlinux-gdb.py is for the kernel's
# own (scripts/gdb/linux): scripts/gdb/gdb.sh sources this after
# build/steps/SLUG/gdb-helpers/vmlinux-gdb.py and the step's vmlinux. One module per
# subject in gdb-scripts/lab/:
#   lab.checks    lab-value: a named record for make test
#   lab.pipes     lab-pipe-buf: a struct pipe_buffer, its flags named
#   lab.compat    $lab_in_compat_syscall()
#   lab.autofs    lab-ptype-i386, lab-i386, lab-pahole: the packet's layout
#   lab.session   lab-done, lab-howto, lab-release: the end of a script
#   lab.constants $lab_constant("NAME"): the step's own kernel constants
# and lab/moments.gdb, the moments several step scripts stop at
# (lab-autofs-write, lab-daemon-read, lab-pipe-control).

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import gdb  # noqa: E402

import lab.autofs  # noqa: E402,F401
import lab.checks  # noqa: E402,F401
import lab.compat  # noqa: E402,F401
import lab.pipes  # noqa: E402,F401
import lab.constants  # noqa: E402,F401
import lab.session  # noqa: E402,F401

# each module registers its gdb commands as it is imported
REGISTERED = (lab.autofs, lab.checks, lab.compat, lab.pipes, lab.constants, lab.session)

gdb.execute("source " + os.path.join(os.path.dirname(os.path.abspath(__file__)), "lab",
                                     "moments.gdb"))
