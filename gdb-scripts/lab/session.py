# The end of a step script: lab-done marks it, lab-howto tells the
# learner at the prompt what to do next, lab-release lets the guest go.

import gdb

from lab.given import limit, step_slug, transport


def end_session():
    """Let the guest run on and close the connection, losing nothing.

    Under kgdb, gdb's detach is a packet kgdb answers ("D", then "OK"),
    and gdb acknowledges that answer with a "+" just before it closes
    the connection; kgdb waits for that byte with interrupts off, and a
    QEMU that sees a socket's hang-up first drops it (--tcp; the lab's
    FIFOs keep it). gdb's kill sends "k",
    which kgdb takes as a detach that needs no answer: gdb closes only
    after kgdb has acknowledged it. Under QEMU's gdbstub, kill would end
    QEMU itself, and detach is safe."""
    if transport() == "kgdb":
        gdb.write("lab: ending the kgdb session with gdb's kill: kgdb takes its 'k' as a "
                  "detach that needs no answer, so nothing of gdb's is left in flight "
                  "when gdb closes; the guest runs on\n")
        gdb.execute("kill")
    else:
        gdb.execute("detach")


class Done(gdb.Command):
    """Mark the end of a step script (scripts/gdb/gdb.sh looks for it)."""

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
        if (arg.strip() or transport()) == "kgdb":
            # nothing in the guest has ttyS1 open, so no interrupt
            # brings a 0x03 from gdb to kgdb while the kernel runs
            stop = "Ctrl-C does not stop it under kgdb: break first"
            ending = """
Under kgdb, quit, detach and lab-release all end the session with gdb's
kill: kgdb takes its 'k' packet as a detach that needs no answer, so
the kernel runs on and nothing of gdb's is in flight when gdb closes.
(gdb's own detach is answered with OK, and gdb's acknowledgement of that
answer, its very last byte, can be lost at a socket's hang-up, as with
LAB_GDB_TCP=1: kgdb would wait for it for ever.) gdb calls it "killed"; the guest lives on.
"""
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
            ending = ""
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
%s%s""" % (s, stop, s, s, clock, ending))


class Release(gdb.Command):
    """Delete all breakpoints and end the session, so that the guest runs
to its end (under kgdb with gdb's kill, which kgdb takes as a detach that
needs no answer; see lab-howto)."""

    def __init__(self):
        super().__init__("lab-release", gdb.COMMAND_SUPPORT)

    def invoke(self, arg, from_tty):
        if not gdb.selected_inferior().pid:
            gdb.write("lab-release: gdb is not attached to the guest any more\n")
            return
        gdb.execute("delete")
        end_session()


class KgdbDetach(gdb.Command):
    """Under kgdb: end the session with gdb's kill, not its detach.

kgdb takes the 'k' packet as a detach that needs no answer: breakpoints
removed, the kernel runs on. gdb's own detach ('D') is answered with OK,
and gdb's acknowledgement of that answer, sent just before gdb closes the
connection, can be lost; kgdb would then wait for it for ever."""

    def __init__(self):
        super().__init__("detach", gdb.COMMAND_RUNNING)

    def invoke(self, arg, from_tty):
        if arg.strip():
            raise gdb.GdbError("lab: under kgdb, detach takes no argument")
        end_session()


Done()
Howto()
Release()
if transport() == "kgdb":
    KgdbDetach()
