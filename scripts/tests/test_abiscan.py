"""abi-scan's unit tests (abi-scan/unit-tests.py, which make check runs
as a program) for `python3 -m unittest discover -s tests`, which looks
here only: that file loaded under a name Python accepts, its abiscan/
package on the path."""

import importlib.util
import os
import sys

import labenv  # tests/, on the path of unittest discover -s tests

ABISCAN = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "abi-scan")
sys.path.insert(0, ABISCAN)
_spec = importlib.util.spec_from_file_location("abiscan_unit_tests", os.path.join(ABISCAN, "unit-tests.py"))
_units = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_units)

setUpModule = labenv.limits  # unittest reads it from the test's own module: this one


class AbiScanUnits(_units.Units):
    pass
