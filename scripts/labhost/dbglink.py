#!/usr/bin/env python3
"""The debugger's channel to a guest, as the lab's Python opens it.

An endpoint is one of:
  fifo:BASE    kgdb's channel: two FIFOs, BASE.in (to the guest) and
               BASE.out (from it), which QEMU opens as -chardev pipe
  PATH         a unix socket (QEMU's gdbstub: -chardev socket,path=PATH)
  HOST:PORT    TCP (make gdb LAB_GDB_TCP=1)

Why FIFOs for kgdb: QEMU's 16550 sends what kgdb writes one byte at a
time, one write() each. A unix stream socket charges every write a whole
buffer (about 770 bytes here), so it is full after 278 of them, and a
register reply is 316 bytes: if gdb does not read while kgdb sends it
(a busy host), QEMU gets EAGAIN, retries a few times and drops bytes.
A pipe merges small writes into its pages: 64 KiB wait for the reader.

    dbglink.py relay fifo:BASE

is gdb's side of it ("target remote | dbglink.py relay fifo:BASE"):
stdin to BASE.in, BASE.out to stdout, until gdb closes stdin (every byte
gdb wrote is in the FIFO by then, where QEMU reads it) or QEMU ends.

    dbglink.py ready fifo:BASE

says (status 0) whether QEMU has the FIFOs open, that is, listens."""

import errno
import fcntl
import os
import select
import socket
import sys


class Link:
    """A two-way byte channel: recv(timeout) and send(data)."""

    def __init__(self, endpoint, timeout):
        self.sock = None
        if endpoint.startswith("fifo:"):
            base = endpoint[len("fifo:"):]
            # QEMU opens both FIFOs read-write: with it gone, BASE.in has
            # no reader (ENXIO here, EPIPE later) and BASE.out no writer
            # (end of file), so we see QEMU go as we would a socket close
            self.wfd = os.open(base + ".in", os.O_WRONLY | os.O_NONBLOCK)
            fcntl.fcntl(self.wfd, fcntl.F_SETFL, 0)
            self.rfd = os.open(base + ".out", os.O_RDONLY | os.O_NONBLOCK)
            return
        if ":" in endpoint and not endpoint.startswith("/"):
            host, port = endpoint.rsplit(":", 1)
            self.sock = socket.create_connection((host, int(port)), timeout=timeout)
        else:
            self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.sock.settimeout(timeout)
            self.sock.connect(endpoint)
        self.sock.settimeout(None)
        self.rfd = self.wfd = self.sock.fileno()

    def recv(self, timeout):
        """What arrives within timeout s: b"" if nothing did; EOFError
        when the other side closed (QEMU gone, for a FIFO too)."""
        ready, _, _ = select.select([self.rfd], [], [], max(timeout, 0))
        if not ready:
            return b""
        try:
            data = os.read(self.rfd, 65536)
        except BlockingIOError:
            return b""
        if not data:
            raise EOFError
        return data

    def send(self, data):
        while data:
            data = data[os.write(self.wfd, data):]

    def close(self):
        if self.sock:
            self.sock.close()
        else:
            os.close(self.wfd)
            os.close(self.rfd)


def relay(endpoint):
    link = Link(endpoint, 5)
    stdin, stdout = sys.stdin.fileno(), sys.stdout.fileno()
    try:
        while True:
            ready, _, _ = select.select([stdin, link.rfd], [], [])
            if link.rfd in ready:
                data = link.recv(0)
                while data:
                    data = data[os.write(stdout, data):]
            if stdin in ready:
                data = os.read(stdin, 65536)
                if not data:
                    return 0
                link.send(data)
    except (EOFError, BrokenPipeError):
        return 0  # QEMU, or gdb, has gone


def ready(endpoint):
    try:
        Link(endpoint, 1).close()
    except OSError as e:
        if e.errno in (errno.ENXIO, errno.ENOENT, errno.ECONNREFUSED):
            return 1
        raise
    return 0


def main(argv):
    if len(argv) != 2 or argv[0] not in ("relay", "ready"):
        sys.stderr.write(__doc__)
        return 2
    return relay(argv[1]) if argv[0] == "relay" else ready(argv[1])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
