"""The first look's clipping statistic: the records' clipping losses in a whitened CoinPress step,
counted per public bin (sensitivity ``√2`` whatever the box), and the reading ``b̂`` of the
released counts (post-processing; ``docs/coinpress.md`` § Adaptive, "Reading").
"""

from __future__ import annotations

import math

import numpy as np

from ...errors import InvalidParameterError
from ..coinpress import whitened_records

__all__ = ["BIN_RATIO", "COUNT_Z", "READINGS", "DECISION_Z", "FIRST_EDGE", "clipping_loss_bins",
           "clipping_losses", "clipping_loss_counts", "capped_level", "read_counts"]

#: Ratio of consecutive bin edges of the clipping-loss histogram (a record's loss is known to a
#: factor ``√BIN_RATIO`` from its bin).
BIN_RATIO = 4.0
#: A released count is read as zero unless it exceeds ``COUNT_Z`` noise standard deviations
#: (a bin with no record passes with probability 0.13%).
COUNT_Z = 3.0
#: How the released counts are read into ``b̂`` (``docs/coinpress.md`` § Adaptive, "Reading"):
#: ``"capped"`` (default for ``kind="covariance"``): every bin, at ``min(τ_j, L)``, with the level
#: ``L`` the largest whose reading has noise sd at most ``threshold/COUNT_Z``, plus the excess
#: ``τ_j − L`` of the bins above ``L`` whose count exceeds ``COUNT_Z`` sds; ``"threshold"`` (the
#: previous reading, default for ``kind="pca"``): only the bins whose count exceeds ``COUNT_Z``
#: sds, at ``τ_j``.
READINGS = ("capped", "threshold")
#: The capped reading chooses the whitened step only if ``b̂ + DECISION_Z·sd(b̂)`` is below the
#: decision threshold (an upper confidence value: the reading misses the part of the records'
#: losses above ``L``, so an unresolved tail errs towards the moments release).
DECISION_Z = 1.5
#: Lower edge of the first bin, as a fraction of the decision threshold ``√(margin)``.
FIRST_EDGE = 1.0 / 16.0


def clipping_loss_bins(threshold: float, cap: float, *, ratio: float = BIN_RATIO,
                       first: float = FIRST_EDGE) -> np.ndarray:
    """Public bin edges ``τ_0 < τ_1 < … < τ_J`` of the clipping-loss histogram.

    ``τ_j = first·threshold·ratio^j``, the last edge the first one at or above ``cap`` (the
    largest loss a record in the box can have). Records with a loss ``<= τ_0`` are in no bin.
    Computed from public values only (the decision threshold is a function of the first release
    and public inputs).
    """
    t0 = first * threshold
    if not (t0 > 0 and math.isfinite(t0)) or cap <= t0:
        return np.array([max(t0, 0.0), max(t0, 0.0)])
    nb = max(1, min(64, int(math.ceil(math.log(cap / t0) / math.log(ratio)))))
    return t0 * ratio ** np.arange(nb + 1, dtype=np.float64)


def clipping_losses(Xl, center, m, A, r2, weights) -> np.ndarray:
    r"""Each record's clipping loss ``g = ‖D(x − c − m̂)‖²(1 − f²)`` in the whitened CoinPress
    clipping (``f = min(1, r/‖A(x − c − m̂)‖)``, ``D = diag(weights)``; private, never released
    as such: the histogram and the far-tail statistic are computed from it)."""
    _, f = whitened_records(Xl, center, m, A, r2)
    Dx = (Xl - center - m) * weights
    return np.einsum("ij,ij->i", Dx, Dx) * (1.0 - f * f)


def clipping_loss_counts(Xl, center, m, A, r2, weights, edges) -> np.ndarray:
    r"""Counts of records per bin of their clipping loss ``g = ‖D(x − c − m̂)‖²(1 − f²)``.

    ``f = min(1, r/‖A(x − c − m̂)‖)`` is the record's factor in the whitened CoinPress clipping
    and ``D = diag(weights)``. Bin ``j`` (``1 <= j <= J``) holds the records with
    ``τ_{j−1} < g <= τ_j``; records with ``g <= τ_0`` (every record the step would not clip) are
    counted nowhere. A record is in at most one bin, so replacing one record changes at most two
    counts by one: the L2 sensitivity of the vector is ``√2``, whatever the box.
    """
    g = clipping_losses(Xl, center, m, A, r2, weights)
    nb = edges.size - 1
    j = np.searchsorted(edges, g, side="left")  # edges[j-1] < g <= edges[j]
    j = np.minimum(j, nb)  # rounding above the last edge (cap) stays in the last bin
    counts = np.bincount(j, minlength=nb + 1)[1:].astype(np.float64)
    return counts


def capped_level(edges, sigma: float, n: int, threshold: float, z: float = COUNT_Z) -> float:
    r"""The level ``L`` of the capped reading (public: edges, noise sd, ``n``, threshold).

    The reading ``(1/n) Σ_j min(τ_j, L) ñ_j`` of counts released with i.i.d. noise of sd ``σ``
    has noise sd ``σ √(Σ_j min(τ_j, L)²) / n``, increasing in ``L``; ``L`` is the largest value
    at which it is at most ``threshold / z`` (``τ_J``, every bin read in full, if that is already
    the case at ``L = τ_J``). On ``[τ_{i−1}, τ_i]`` the sum is ``Σ_{j<i} τ_j² + (J − i + 1)L²``,
    so ``L`` is found in closed form on the first segment that holds it (vectorised over bins).
    """
    tau = np.asarray(edges, dtype=np.float64)[1:]
    J = tau.size
    if J == 0 or not (sigma > 0 and n > 0 and threshold > 0):
        return float(tau[-1]) if J else 0.0
    target = (n * threshold / (z * sigma)) ** 2  # the allowed Σ_j min(τ_j, L)²
    if float(np.sum(tau * tau)) <= target:
        return float(tau[-1])
    below = np.concatenate(([0.0], np.cumsum(tau * tau)[:-1]))  # Σ_{j<i} τ_j², i = 1 … J
    left = np.arange(J, 0, -1, dtype=np.float64)  # bins read at L on segment i: J − i + 1
    L = np.sqrt(np.maximum(target - below, 0.0) / left)
    i = int(np.argmax(L <= tau))  # the first segment whose L lies at or below its upper edge
    return float(L[i])


def read_counts(noisy, edges, sigma: float, n: int, threshold: float,
                reading: str = "capped", z: float = COUNT_Z) -> tuple[float, float, float]:
    r"""The reading ``b̂`` of the clipping loss from the released counts (post-processing).

    ``"threshold"``: ``b̂ = Σ_j τ_j ñ_j / n`` over the bins with ``ñ_j > z σ`` (others read as
    0); returns ``(b̂, 0, τ_J)`` (its noise is not used by the choice). ``"capped"``:
    ``b̂ = (1/n)[Σ_j min(τ_j, L) ñ_j + Σ_{j: τ_j > L, ñ_j > zσ} (τ_j − L) ñ_j]`` with
    ``L = capped_level(edges, σ, n, threshold, z)``: every bin is read (a tail of few records
    per bin is no longer read as zero), each record at most at ``L`` unless its bin is resolved;
    the first sum is unbiased for ``(1/n) Σ_j min(τ_j, L) n_j >= (1/n) Σ_i min(g_i, L)`` with
    noise sd ``s = σ √(Σ_j min(τ_j, L)²)/n <= threshold/z``. Returns ``(b̂, s, L)``.
    Functions of the released counts and public values only (``docs/coinpress.md``
    § Adaptive, "Reading").
    """
    y = np.asarray(noisy, dtype=np.float64).ravel()
    tau = np.asarray(edges, dtype=np.float64)[1:]
    kept = np.where(y > z * sigma, y, 0.0)
    if reading == "threshold":
        return float(np.sum(tau * kept)) / n, 0.0, float(tau[-1])
    if reading != "capped":
        raise InvalidParameterError("reading", f"must be one of {READINGS}, got {reading!r}")
    L = capped_level(edges, sigma, n, threshold, z)
    w = np.minimum(tau, L)
    b = (float(np.sum(w * y)) + float(np.sum((tau - w) * kept))) / n
    return b, float(sigma * math.sqrt(float(np.sum(w * w))) / n), L
