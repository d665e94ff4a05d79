"""The whitened step's clipping bias as a shrinkage of the PCA frame's gaps, read without
assuming the tail is resolved (task HT, opt-in; pure formulas of released values and public
inputs; ``docs/coinpress.md`` § "Heavy tails: the clipping bias as gap shrinkage (task HT)").
"""

from __future__ import annotations

import numpy as np

from .counts import DECISION_Z, read_counts

__all__ = ["TAIL_BIASES", "pair_tilt", "gap_shrink_bias", "tail_reading"]

#: ``AdaptiveOptions.tail_bias``: ``"none"`` (default), the PCA-loss ranking's clipping bias as
#: before; ``"gap-shrink"`` (opt-in), also the upper reading of the clipped mass taken from the
#: frame's gaps (:func:`gap_shrink_bias`, :func:`tail_reading`).
TAIL_BIASES = ("none", "gap-shrink")


def pair_tilt(g, s):
    r"""``sin²θ`` of a pair's released top vector, ``(1/2)(1 − g/√(g² + 4s))``, for a released
    gap ``g >= 0`` and an off-diagonal noise variance ``s >= 0`` (the 2 × 2 block of
    :func:`~.pca_losses.pca_deficit`, whose loss is ``g·sin²θ``). ``1/2`` where ``g = 0`` (the
    two directions are tied: the released vector is as likely either). Elementwise."""
    g = np.asarray(g, dtype=np.float64)
    s = np.asarray(s, dtype=np.float64)
    R = np.sqrt(g * g + 4.0 * s)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(R > 0, 0.5 * (1.0 - g / np.maximum(R, 1e-300)), np.where(g > 0, 0.0, 0.5))


def gap_shrink_bias(gaps, s_cp, b) -> float:
    r"""The increase of the whitened step's captured-variance deficit when its clipping removes
    the mass ``b`` (trace of the clipping bias ``P``, original units) from ONE top direction of
    the frame: that direction's gaps ``g_ij`` to the complement shrink to ``g' = max(g − b, 0)``
    while the loss of a tilt is still charged at the records' gap ``g``, so pair ``(i, j)`` loses
    ``g·sin²θ(g', s)`` (:func:`pair_tilt`) in place of ``g·sin²θ(g, s)``; the direction is the
    one where this costs most.

    The clipping bias ``P = (1/n) Σ_i (1 − f_i²) a_i a_iᵀ`` is PSD with ``tr P = b``; a clipped
    record far along a top direction ``u_i`` (a heavy tail carries variance, so it lies near an
    eigen-direction) lowers ``λ_i`` by up to ``b`` and leaves the complement's variances as they
    are. The rank-one case (all of ``b`` from one direction) is the bound's case
    (:func:`~.pca_losses.pca_bias_model` takes it for the off-diagonal couplings and leaves this
    diagonal out). Never negative; at most ``g/2`` per pair of that direction above the noise's
    loss (a tilt of 1/2). Public inputs: the frame's gaps ``gaps`` and the step's pair noise
    variances ``s_cp`` ((q, k − q)), a reading ``b``.
    """
    g = np.asarray(gaps, dtype=np.float64)
    s = np.asarray(s_cp, dtype=np.float64)
    if not (b > 0) or g.size == 0:
        return 0.0
    shrunk = np.maximum(g - float(b), 0.0)
    extra = np.where(g > 0, np.maximum(g * (pair_tilt(shrunk, s) - pair_tilt(g, s)), 0.0), 0.0)
    return float(np.max(np.sum(extra, axis=-1)))


def tail_reading(noisy, edges, sigma: float, n: int, threshold: float,
                 z: float = DECISION_Z) -> float:
    r"""The upper reading of the clipped mass from the released counts: the capped reading
    (:func:`~.counts.read_counts`, ``"capped"``: every bin read, each record at most at the level
    ``L``, unbiased up to ``L``) plus ``z`` of its noise sds, floored at 0.

    The PCA ranking's default reading (``"threshold"``) counts only the bins whose noisy count
    exceeds ``COUNT_Z`` noise sds, so a tail of a few far records (on mathpnl, 3 of 1645 records
    carrying a third of the top-2 variance) reads as 0 (``results/step_tails_diagnosis.md``).
    This reading assumes nothing of the tail's law: what it cannot resolve it bounds by ``L``
    per record and by the noise's upper value. Post-processing of the released counts.
    """
    b, sd, _ = read_counts(noisy, edges, sigma, n, threshold, "capped")
    return max(float(b) + z * float(sd), 0.0)
