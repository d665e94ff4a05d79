"""Checks on a fitted synthetic-data model that warn before a degenerate table is produced,
and the up-front memory check of a large ``sample`` call.

Everything here looks only at released (DP) quantities or at public sizes.
"""

from __future__ import annotations

import os
import warnings

import numpy as np

from ..errors import InvalidParameterError

__all__ = ["NoiseDominatedWarning", "surviving_directions", "warn_if_noise_dominated",
           "available_memory", "check_sample_memory", "TABLE_ADVICE"]

#: Relative eigenvalue threshold under which a direction of the DP covariance counts as lost.
RANK_TOLERANCE = 1e-10
#: Fraction of the available memory a single ``sample`` call may use.
MEMORY_FRACTION = 0.5


class NoiseDominatedWarning(UserWarning):
    """The DP covariance lost directions to the PSD repair: the noise dominated the signal."""


def surviving_directions(covariance: np.ndarray) -> int:
    """How many eigenvalues of a (released, repaired) covariance are clearly above zero."""
    vals = np.linalg.eigvalsh(np.asarray(covariance, dtype=np.float64))
    top = float(np.max(np.abs(vals))) if vals.size else 0.0
    if top <= 0.0:
        return 0
    return int(np.sum(vals > RANK_TOLERANCE * top))


def warn_if_noise_dominated(covariances, names=None, stacklevel: int = 3) -> None:
    """Warn once for each DP covariance that lost directions in the PSD repair.

    Parameters
    ----------
    covariances : ndarray of shape (p, p) or (k, p, p)
        The released covariance(s) after the symmetric/PSD repair.
    names : list of str, optional
        One label per covariance (e.g. the public class names).
    """
    stack = np.asarray(covariances, dtype=np.float64)
    if stack.ndim == 2:
        stack = stack[None]
    for j, cov in enumerate(stack):
        p = cov.shape[0]
        kept = surviving_directions(cov)
        if kept == p:
            continue
        where = f" (class {names[j]!r})" if names is not None else ""
        what = ("every direction was lost: the synthetic records are all zero" if kept == 0 else
                f"only {kept} of {p} directions survived: the synthetic records vary along "
                f"{kept} direction(s) only")
        warnings.warn(
            f"the DP covariance{where} is rank-deficient after the PSD repair; {what}. The noise "
            "dominated the signal: use more records, a larger epsilon or a smaller dim.",
            NoiseDominatedWarning, stacklevel=stacklevel)


def available_memory() -> int | None:
    """Bytes of memory available now (Linux/macOS via sysconf), or None when unknown."""
    try:
        pages = os.sysconf("SC_AVPHYS_PAGES")
        size = os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):  # pragma: no cover - e.g. Windows
        return None
    if pages <= 0 or size <= 0:  # pragma: no cover
        return None
    return int(pages) * int(size)


#: What a table generator's ``sample`` refusal advises (DPCopula, DPTreeCopula: no batches
#: iterator; their ``sample_to_parquet`` writes chunk by chunk in bounded memory).
TABLE_ADVICE = ("write them in chunks with sample_to_parquet(path, n_samples, chunk_rows=...) "
                "(bounded memory), or `matrixdp synth`, which streams to its output file")


def check_sample_memory(n_samples: int, n_columns: int, *, what: str = "sample",
                        available: int | None = None, advice: str | None = None) -> None:
    """Refuse a ``sample(n_samples)`` call that cannot fit in memory, before allocating.

    The draw holds about three float64 arrays of ``n_samples x n_columns`` at its peak
    (the standard normals, their image and the output). ``advice``: what the message tells the
    caller to do instead (default: ``{what}_batches``, RON-Gauss's iterator, or the CLI).
    """
    need = 3 * 8 * int(n_samples) * max(int(n_columns), 1)
    avail = available_memory() if available is None else available
    if avail is not None and need > MEMORY_FRACTION * avail:
        if advice is None:
            advice = (f"draw them in batches with {what}_batches(n_samples, batch_size) (an "
                      "iterator), or `matrixdp synth`, which streams to its output file")
        raise InvalidParameterError(
            "n_samples", f"{n_samples} records need about {need / 2**30:.1f} GiB but only "
                         f"{avail / 2**30:.1f} GiB of memory is available; {advice}")
