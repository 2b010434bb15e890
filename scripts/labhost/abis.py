"""The ABIs of the lab's guests and of the scan, with their roles in the
scan: guest/abis, read here for Python (the step model, the scanner) and,
through the model, for the shell. guest/Makefile reads the same file."""

import os

from labhost import ROOT


def read(root=None):
    """[(abi, gcc flag, role)] in the file's order."""
    out = []
    with open(os.path.join(root or ROOT, "guest", "abis"), encoding="utf-8") as f:
        for line in f:
            words = line.split("#", 1)[0].split()
            if words:
                abi, flag, role = words
                out.append((abi, flag, role))
    return out


ABIS = [a for a, _, _ in read()]
FLAG = {a: f for a, f, _ in read()}
ROLE = {r: a for a, _, r in read()}  # the scanner compares by role
