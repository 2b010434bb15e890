# The end of a step script: lab-done marks it, lab-howto tells the
# learner at the prompt what to do next, lab-release lets the guest go.

import gdb

from lab.paths import step_slug


def limit(name):
    """A time limit of scripts/limits.sh, in seconds, as scripts/gdb.sh
    passes it: $lab_limit_NAME (? when gdb was started without it)."""
    v = gdb.convenience_variable("lab_limit_" + name)
    return "?" if v is None else str(int(v))


class Done(gdb.Command):
    """Mark the end of a step script (scripts/gdb.sh looks for it)."""

    def __init__(self):
        super().__init__("lab-done", gdb.COMMAND_SUPPORT)

    def invoke(self, arg, from_tty):
        gdb.write("LAB-GDB-DONE step=%s\n" % step_slug())


class Howto(gdb.Command):
    """What to do at the prompt where a step script leaves the learner.

Usage: lab-howto gdbstub|kgdb"""

    def __init__(self):
        super().__init__("lab-howto", gdb.COMMAND_SUPPORT)

    def invoke(self, arg, from_tty):
        s = step_slug()
        if arg.strip() == "kgdb":
            # nothing in the guest has ttyS1 open, so no interrupt
            # brings a 0x03 from gdb to kgdb while the kernel runs
            stop = "Ctrl-C does not stop it under kgdb: break first"
            clock = """
Under kgdb the guest's clock runs on while the kernel is stopped. Stay
here long and, once the guest continues, the daemon's watchdog (%s s
for its whole run) or init's limit (%s s per program) fires and the
demo reports an error. Under gdbstub (make gdb) QEMU pauses the whole
machine, clock included: take your time there.
""" % (limit("watchdog"), limit("program"))
        else:
            stop = "Ctrl-C stops it again"
            clock = ""
        gdb.write("""
The guest is stopped at the moment of step %s. Look around, for instance:
  bt                              how the kernel got here
  p $lx_current(0)->comm          which task this is (lx-ps lists them all)
  lx-dmesg                        the kernel log
  apropos lab-                    the lab-* commands of gdb-scripts/lab
Then:
  continue   (c)                  let the guest run on
                                  (%s)
  lab-release                     remove the breakpoints, let the guest finish
  quit       (q)                  leave gdb; the guest runs to its end
Run it again from the start: make gdb STEP=%s (or make kgdb STEP=%s)
%s""" % (s, stop, s, s, clock))


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


Done()
Howto()
Release()
