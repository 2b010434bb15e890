"""The lab's time limits for Python: the table is scripts/lib/limits.sh,
which lab_setup exports (LIMIT_*), with the whole command's deadline
(LAB_DEADLINE, seconds since 1970)."""

import os
import time


def limit(name):
    """Seconds a child may take: the table's NAME, cut to what is left of
    the lab command's deadline. A name the table has not exported is an
    error, never a default of our own."""
    try:
        value = int(os.environ[name])
    except (KeyError, ValueError):
        raise SystemExit("labhost: %s is not in the environment: run this through the lab, "
                         "whose lib/limits.sh is the table" % name)
    deadline = os.environ.get("LAB_DEADLINE")
    if deadline:
        left = int(deadline) - time.time()
        if left <= 0:
            raise SystemExit("the lab command's time limit (LIMIT_RUN) is used up")
        value = min(value, left)
    return value
