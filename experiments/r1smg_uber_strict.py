"""R1SMG paper, Appendix D / Fig. 10: case study I with every mechanism at ε = 1e-5, δ = 1e-7.

The same protocol as ``r1smg_uber.py`` (which this runs with ``--strict``); writes
``results/r1smg_uber_strict.{md,csv}`` and its heat maps / ℒ histograms.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import r1smg_uber  # noqa: E402


def main(argv=None) -> int:
    return r1smg_uber.main(["--strict", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    raise SystemExit(main())
