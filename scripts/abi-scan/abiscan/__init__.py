"""abi-scan's parts: the layout model and pahole parser (layout.py), the
comparison (compare.py), the compile cache and header probing (cache.py,
probe.py), the kernel-tree grep (kernel.py), how a type crosses the
boundary (crossing.py), the compiler's proof of the numbers (proof.py),
the analysis (analyze.py) and the reports (report.py)."""
