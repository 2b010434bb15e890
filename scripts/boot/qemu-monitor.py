#!/usr/bin/env python3
"""Ask a running QEMU's human monitor, on a unix socket, one command and
print its answer. boot.sh asks a guest that ran out of time where its CPU
is ("info registers") before it stops QEMU, so that a hang names a place.

    qemu-monitor.py SOCKET COMMAND SECONDS

SECONDS is LIMIT_MONITOR of scripts/lib/limits.sh: the limit has no
default here. Exit status 1, with the reason, when the monitor does not answer in time."""

import re
import socket
import sys

PROMPT = b"(qemu) "
# the monitor's line editor echoes the command with terminal escapes
ESCAPE = re.compile(r"\x1b\[[0-9;]*[A-Za-z]|\r")


def until_prompt(s):
    buf = b""
    while not buf.endswith(PROMPT):
        chunk = s.recv(65536)
        if not chunk:
            raise OSError("the monitor closed the connection")
        buf += chunk
    return buf[:-len(PROMPT)]


def ask(path, command, seconds):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(seconds)
        s.connect(path)
        until_prompt(s)  # the banner
        s.sendall(command.encode() + b"\n")
        text = ESCAPE.sub("", until_prompt(s).decode(errors="replace"))
    # the first line is the echo of the command
    return text.split("\n", 1)[1].lstrip("\n") if "\n" in text else ""


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    try:
        sys.stdout.write(ask(argv[0], argv[1], float(argv[2])))
    except (OSError, ValueError) as e:
        sys.stderr.write("qemu-monitor.py: %s: %s\n" % (argv[0], e))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
