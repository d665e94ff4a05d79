"""`import matrixdp` stays light: no subpackage, scipy, pandas, scikit-learn or matplotlib at import.

Issue #27 (import CPU time): the heavy dependencies load lazily, on first use. Checked in a fresh
interpreter (the structure, not a timing; the time is in BENCHMARKS.md, "import matrixdp").
"""

import subprocess
import sys


def test_import_matrixdp_loads_no_heavy_dependency():
    code = ("import sys, matrixdp; "
            "print(','.join(m for m in ('scipy', 'pandas', 'sklearn', 'matplotlib', 'dask', "
            "'matrixdp.mechanisms', 'matrixdp.queries') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
