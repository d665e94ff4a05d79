"""The MVG rows of Tables 3–5 (the paper's calibrations and matrixdp's exact calibration).

These rows need :class:`matrixdp.MVGMechanism`. When it is not available in this checkout,
each row is written with status "not yet run" so the tables stay complete and honest.
"""

from __future__ import annotations

import _common as common


def mvg_available() -> bool:
    """True when this checkout of matrixdp provides the MVG mechanism."""
    try:
        import matrixdp
    except ImportError:  # pragma: no cover
        return False
    return hasattr(matrixdp, "MVGMechanism")


_REASON = "matrixdp.MVGMechanism is not in this checkout yet; the row is produced once it lands"


def _pending(specs: list[tuple[str, float | None]], delta: float) -> list[common.Row]:
    return [common.Row(method, 1.0, delta, paper=paper, status=common.STATUS_NOT_RUN, notes=_REASON)
            for method, paper in specs]


def experiment1_rows(ctx, args, score, paper) -> list[common.Row]:
    """Table 3's MVG rows (binary {ALT, Y} and DP-SVD + max-PNR), paper and exact calibration."""
    specs = [("MVG, binary allocation {ALT, Y} (Theorem 2)", paper["mvg-binary"]),
             ("MVG, DP-SVD directions + max-PNR allocation (Theorem 2)", paper["mvg-maxpnr"]),
             ("MVG, binary allocation {ALT, Y} (exact calibration)", None),
             ("MVG, DP-SVD directions + max-PNR allocation (exact calibration)", None)]
    return _pending(specs, ctx["delta"])


def experiment2_rows(ctx, args, paper) -> list[common.Row]:
    """Table 4's MVG rows (Theorem 2 and Theorem 3, binary {ANC0, ANC3}) and the exact calibration."""
    specs = [("MVG, binary allocation {ANC0, ANC3} (Theorem 2)", paper["mvg-thm2"]),
             ("MVG, binary allocation {ANC0, ANC3} (Theorem 3)", paper["mvg-thm3"]),
             ("MVG, binary allocation {ANC0, ANC3} (exact calibration)", None)]
    return _pending(specs, ctx["delta"])


def experiment3_rows(ctx, args, paper) -> list[common.Row]:
    """Table 5's MVG row (binary {FHR, ASV, ALV}) and the exact calibration."""
    specs = [("MVG, binary allocation {FHR, ASTV, ALTV} (Theorem 2)", paper["mvg"]),
             ("MVG, binary allocation {FHR, ASTV, ALTV} (exact calibration)", None)]
    return _pending(specs, ctx["delta"])
