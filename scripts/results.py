#!/usr/bin/env python3
"""The command line of labhost/results.py, the one reader of the guests'
RESULT lines: results.py check|matrix|show ... (see there)."""

import sys

from labhost.results import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
