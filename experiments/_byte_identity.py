"""Byte-identity checks of seeded outputs recorded before and after a refactor.

Shared by ``adaptive_split_check.py`` (task EX) and ``experimental_options_check.py`` (task XP):
records are ``np.savez`` archives of named arrays; two archives are compared key by key, byte for
byte, with a negative control (a one-ulp change of one entry of every float array must be
flagged) and a digest of what was compared.
"""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

import numpy as np

__all__ = ["same", "source_commit", "pair"]


def same(a: np.ndarray, b: np.ndarray) -> bool:
    """``a`` and ``b`` have the same dtype, shape and bytes (NaN equal to NaN)."""
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind in "fc":
        return bool(np.array_equal(a, b, equal_nan=True)) and a.tobytes() == b.tobytes()
    return bool(np.array_equal(a, b)) and a.tobytes() == b.tobytes()


def source_commit(src: str, *, dirty: bool = False) -> str:
    """The short commit of the checkout that holds ``src`` (``"?"`` outside git); with
    ``dirty``, marked when ``src/`` has uncommitted changes."""
    root = Path(src).parents[2]
    try:
        out = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, check=True).stdout.strip()
        if dirty:
            changed = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--",
                                      "src"], capture_output=True, text=True,
                                     check=True).stdout.strip()
            out += " + uncommitted src changes" if changed else ""
        return out
    except (OSError, subprocess.CalledProcessError):
        return "?"


def pair(A, B, meta=frozenset({"__source__"})) -> dict:
    """Compare two loaded archives (keys in ``meta`` skipped): the keys only in one, the keys
    that differ, the float arrays and how many of them the one-ulp control flags, the fits
    (keys up to their last ``|``), the refusals (keys ending ``|error``) and a digest."""
    ka, kb = set(A.files) - set(meta), set(B.files) - set(meta)
    common = sorted(ka & kb)
    differ = [k for k in common if not same(A[k], B[k])]
    floats = [k for k in common if A[k].dtype.kind == "f" and A[k].size]
    flagged = 0
    for k in floats:  # negative control: one ulp of one entry of each float array
        x = np.array(B[k], copy=True, order="C")
        finite = np.flatnonzero(np.isfinite(x.ravel()))
        if finite.size:
            x.ravel()[finite[0]] = np.nextafter(x.ravel()[finite[0]], np.inf)
        else:  # every entry NaN or infinite: one entry made finite
            x.ravel()[0] = 0.0
        flagged += not same(A[k], x)
    digest = hashlib.sha256()
    for k in common:
        digest.update(k.encode())
        digest.update(A[k].tobytes())
    return {"missing": sorted(ka - kb), "extra": sorted(kb - ka), "common": common,
            "differ": differ, "floats": len(floats), "flagged": flagged,
            "fits": len({k.rsplit("|", 1)[0] for k in common}),
            "errors": sum(1 for k in common if k.endswith("|error")),
            "digest": digest.hexdigest()[:16]}
