"""abi-scan's parts: the layout model and pahole parser (layout.py), the
comparison (compare.py), the compile cache and header probing (cache.py,
probe.py), what a header file does to macros (fileinfo.py), which headers
share an object and the objects (groups.py, objects.py), the kernel-tree
grep (kernel.py), how a type crosses the boundary (crossing.py), the
compiler's proof of the numbers (proof.py), the analysis (analyze.py) and
the reports (report.py)."""
