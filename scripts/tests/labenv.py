"""What lab_setup would have exported, for a test that `python3 -m
unittest` runs outside the lab (make check's suites run inside it):
lib/limits.sh's table, read from the table itself, so that
labhost/limits.py finds it and no test has a default of its own.

    setUpModule = labenv.limits   (in a test module)
"""

import os
import subprocess

TABLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib", "limits.sh")


def limits():
    """Export the table's LIMIT_* that this process lacks (a value
    already set is kept, as lib/limits.sh keeps it)."""
    out = subprocess.run(["bash", "-c", '. "$0"; for n in $(limit_names); do echo "$n=${!n}"; done',
                          TABLE], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        name, _, value = line.partition("=")
        os.environ.setdefault(name, value)
