#!/usr/bin/env python3
"""The safety net at the end of a kgdb session: make sure the guest is not
left waiting for a debugger that has gone, and say so if it was.

    kgdb-closer.py ENDPOINT SECONDS

ENDPOINT is the debugger's channel (fifo:BASE, or HOST:PORT for --tcp
sessions: scripts/labhost/dbglink.py); gdb has closed its connection to it. kgdb in 6.1 can be left
in two waits that never end on their own (kernel/debug/gdbstub.c):
  - put_packet(): it sent a reply and polls the serial port for gdb's
    "+"; any other byte but "$" makes it send the reply again, and "$"
    (a new packet) makes it give up on it;
  - gdb_serial_stub(): it is stopped and polls for gdb's next packet.
So: send "-" (a NAK). A packet in answer is the first wait: kgdb re-sent
its last reply, and "+" releases it. No answer: send "$k#6b" (gdb's kill,
which kgdb takes as a detach without a reply); a "+" in answer is the
second wait, released by the k; a "-" is the first wait, answered late,
and released by the "$". Silence means the kernel runs, as it should.

Prints one line, the first word the state found:
  running            nothing was waiting (the normal end)
  unacknowledged P   kgdb was waiting for the acknowledgement of P
  stopped            kgdb was stopped with no debugger
  ended              QEMU closed the connection: the guest ran to its end
  unreachable WHY    the channel could not be reached (the guest has gone)
then keeps the connection open until it is stopped (the lab stops it when
the guest ends): a socket closed right after its last byte can lose that
byte, which is the bug this exists for (QEMU 7.2; a FIFO keeps it)."""

import re
import signal
import sys
import time

from labhost.dbglink import Link

PACKET = re.compile(rb"\$([^#]*)#[0-9a-fA-F]{2}")


def read_for(link, seconds, done):
    """What arrives within SECONDS, or until done(bytes) says enough;
    EOFError when QEMU closed the connection (the guest has ended)."""
    got = b""
    end = time.monotonic() + seconds
    while not done(got):
        left = end - time.monotonic()
        if left <= 0:
            break
        got += link.recv(left)
    return got


def probe(link, seconds):
    link.send(b"-")
    got = read_for(link, seconds, PACKET.search)
    m = PACKET.search(got)
    if m:
        link.send(b"+")
        return "unacknowledged " + m.group(0).decode("ascii", "replace")
    link.send(b"$k#6b")
    got = read_for(link, seconds, lambda b: b"+" in b or b"-" in b)
    if b"+" in got:
        return "stopped"
    if b"-" in got:
        return "unacknowledged (kgdb answered late; released by a new packet)"
    return "running"


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    seconds = float(argv[1])
    try:
        link = Link(argv[0], seconds)
    except (OSError, ValueError) as e:
        print("unreachable %s" % e, flush=True)
        return 0
    try:
        state = probe(link, seconds)
    except (EOFError, BrokenPipeError, ConnectionResetError):
        print("ended", flush=True)
        return 0
    print(state, flush=True)
    # hold the connection until we are stopped or the guest closes it
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        while True:
            link.recv(3600)
    except (EOFError, OSError):
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
