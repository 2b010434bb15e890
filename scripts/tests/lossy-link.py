#!/usr/bin/env python3
"""A link between gdb and a debugger socket that loses what QEMU's socket
chardev can lose: the bytes gdb wrote just before it closed.

    target remote | lossy-link.py ENDPOINT LOG

gdb talks to it on stdin and stdout (gdb's "target remote | COMMAND");
it talks to ENDPOINT (as scripts/labhost/dbglink.py opens it). Everything the stub sends is
passed on at once. What gdb sends is passed on at once too, except an
acknowledgement ("+" or "-") that is the last thing gdb wrote: that is
held until gdb writes more, and when gdb closes instead, it is dropped,
as QEMU 7.2 may drop a byte when it sees the hang-up first. The rule does
not depend on timing, so a session that ends with an acknowledgement
loses it every time, and one that ends with a packet loses nothing.
LOG gets one line at the end: "dropped N: BYTES"."""

import os
import selectors
import sys

from labhost.dbglink import Link


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    endpoint, log = argv
    link = Link(endpoint, 5)
    stdin, stdout = sys.stdin.fileno(), sys.stdout.fileno()
    sel = selectors.DefaultSelector()
    sel.register(stdin, selectors.EVENT_READ)
    sel.register(link.rfd, selectors.EVENT_READ)
    held = b""
    while True:
        for key, _ in sel.select():
            if key.fileobj == link.rfd:
                try:
                    data = link.recv(0)
                except EOFError:
                    held = b""  # nothing to drop: the stub has gone
                    return finish(log, held)
                os.write(stdout, data)
                continue
            data = os.read(stdin, 65536)
            if not data:  # gdb closed: what is held is lost
                link.close()
                return finish(log, held)
            data = held + data
            # an acknowledgement at the very end is held back
            tail = len(data)
            while tail > 0 and data[tail - 1:tail] in (b"+", b"-"):
                tail -= 1
            link.send(data[:tail])
            held = data[tail:]


def finish(log, held):
    with open(log, "w", encoding="ascii") as f:
        f.write("dropped %d: %s\n" % (len(held), held.decode("ascii", "replace")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
