"""The ABIs of the lab's guests and of the scan: guest/abis, read here for
Python (the step model, the scanner) and, through the model, for the
shell. guest/Makefile reads the same file."""

import os

from labhost import ROOT


def read(root=None):
    """[(abi, gcc flag)] in the file's order."""
    out = []
    with open(os.path.join(root or ROOT, "guest", "abis"), encoding="utf-8") as f:
        for line in f:
            words = line.split("#", 1)[0].split()
            if words:
                out.append((words[0], words[1]))
    return out


ABIS = [a for a, _ in read()]
FLAG = dict(read())
