#!/usr/bin/env python3
"""A debugger that reads slowly: does kgdb's register reply arrive whole?

    kgdb-pause.py ENDPOINT PAUSE N

Talks to a guest stopped in kgdb (kgdbwait) through ENDPOINT (as
scripts/labhost/dbglink.py opens it): N times, asks for the registers
("g") and reads nothing for PAUSE seconds while kgdb sends them, as a
gdb that a busy host does not run would; then takes the reply. Prints
one line per reply ("reply I: LEN hex digits, checksum ok|bad"; whole:
the right length and checksum) and a last one: "whole W of N". Ends the session with "k" (kgdb detaches).
Exit status 0 when every reply came whole (2: no stop reply at all)."""

import re
import sys
import time

from labhost.dbglink import Link

PACKET = re.compile(rb"\$([^#$]*)#([0-9a-f]{2})")
# x86_64 kgdb: 17 registers of 8 bytes and 5 of 4 (NUMREGBYTES), in hex
REGS_HEX = 2 * (17 * 8 + 5 * 4)


def packet(body):
    return b"$%s#%02x" % (body, sum(body) % 256)


def reply(link, seconds):
    """The first packet within seconds: (body, checksum as sent), or None."""
    got = b""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        m = PACKET.search(got)
        if m:
            return m.group(1), int(m.group(2), 16)
        got += link.recv(end - time.monotonic())
    return None


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    link = Link(argv[0], 10)
    pause, n = float(argv[1]), int(argv[2])
    # asked again every 2 s, as gdb does: what is sent before the guest
    # sets its serial port up is lost when the port's FIFO is reset
    for _ in range(30):
        link.send(packet(b"?"))
        if reply(link, 2) is not None:
            break
    else:
        print("no stop reply from kgdb within 60 s")
        return 2
    link.send(b"+")
    whole = 0
    for i in range(1, n + 1):
        link.send(packet(b"g"))
        time.sleep(pause)
        r = reply(link, 20)
        if r is None:
            print("reply %d: none within 20 s" % i)
            continue
        body, sent = r
        summed = sum(body) % 256 == sent
        whole += summed and len(body) == REGS_HEX
        print("reply %d: %d hex digits, checksum %s" % (i, len(body), "ok" if summed else "bad"))
        link.send(b"+")
    link.send(packet(b"k"))
    print("whole %d of %d" % (whole, n))
    return 0 if whole == n else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
