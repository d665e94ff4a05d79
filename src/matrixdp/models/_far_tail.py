"""The far-tail statistic of the adaptive covariance (task AC2, issue #24; opt-in).

The capped reading of the clipping-loss counts (:func:`~.adaptive.read_counts`) reads every
record at most at the level ``L``; a few records far above ``L`` sit in bins whose noisy counts
are not resolved, so the part of the clipping bias ``b`` above ``L`` is not seen (grunfeld
ε = 100: 2 records, ``b̂ + 1.5 sd`` 0.034 against a true ``b`` of 0.076;
``results/adaptive_step_diagnosis.md``). This module releases ONE more statistic, the records'
clipped excess over ``L``,

    E = Σ_i min((g_i − L)₊, U − L),

a sum of per-record terms in ``[0, U − L]`` (replace-one sensitivity ``U − L``), with the public
upper level ``U`` set so that the reading's noise sd is at most the decision threshold over
:data:`FAR_Z` (the capped reading's standard), and reads ``b`` as the counts' part up to ``L``
plus ``Ẽ/n`` plus the resolved bins' part above ``U`` (``docs/coinpress.md`` § Adaptive,
"The far tail (task AC2)"). A scalar has sensitivity ``U − L`` where the histogram's bins above
``L`` read without a threshold have ``√2·√(Σ_j (τ_j − L)₊²)``, so the same budget reaches a level
several times farther out.

The release goes through :func:`~.coinpress.gdp_release` (a ``GaussianMechanism``) inside the
adaptive fit's single charge; the calibration helpers at the bottom are pure functions of public
values.
"""

from __future__ import annotations

import math

import numpy as np

from .coinpress import gdp_release

__all__ = ["FAR_SHARE", "FAR_Z", "far_excess", "release_far_excess", "far_level", "far_reading"]

#: Share of ``μ*²`` of the far-tail statistic, taken from the first release's share (the first
#: look as a whole keeps ``FIRST_SHARE + BIAS_SHARE`` of ``μ*²``).
FAR_SHARE = 0.02
#: The far reading's noise sd is at most the decision threshold over ``FAR_Z``.
FAR_Z = 3.0


def far_excess(g, level: float, upper: float) -> float:
    """``Σ_i min((g_i − L)₊, U − L)``: the records' clipping losses above ``L``, each capped
    at ``U − L`` (the private value the statistic releases; vectorised)."""
    g = np.asarray(g, dtype=np.float64)
    return float(np.sum(np.clip(g - level, 0.0, upper - level)))


def release_far_excess(g, level: float, upper: float, mu: float, epsilon: float, delta: float,
                       gen):
    """Release :func:`far_excess` with a Gaussian mechanism at GDP ``mu``.

    Replace-one sensitivity ``U − L`` (each record's term lies in ``[0, U − L]``; ``L`` and ``U``
    are public). Returns ``(Ẽ, σ, μ)``: the noisy sum, its noise sd and the release's GDP
    parameter. ``upper > level`` is required (the caller releases nothing otherwise).
    """
    sens = float(upper) - float(level)
    if not sens > 0:
        raise ValueError("the far statistic needs upper > level")
    out, sigma, mu_got = gdp_release(np.array([[far_excess(g, level, upper)]]), sens, mu,
                                     epsilon, delta, gen)
    return float(out[0, 0]), float(sigma), float(mu_got)


# --- calibration: pure functions of public values ------------------------------------------


def far_level(level: float, n: int, mu: float, threshold: float, cap: float,
              z: float = FAR_Z) -> float:
    """The public upper level ``U = min(cap, L + n·μ·threshold/z)`` of the far statistic.

    The reading ``Ẽ/n`` has noise sd ``(U − L)/(n μ)``, at most ``threshold/z``; ``U`` never
    exceeds ``cap`` (the largest loss a record in the box can have). Returns ``level`` when
    ``level >= cap`` (nothing to read above it).
    """
    if not (level < cap) or not (n > 0 and mu > 0 and threshold > 0):
        return float(level)
    return float(min(cap, level + n * mu * threshold / z))


def far_reading(noisy, edges, sigma_c: float, n: int, level: float, excess: float,
                upper: float, sigma_e: float, z: float = 3.0) -> tuple[float, float]:
    r"""The far reading of the clipping bias ``b`` and its noise sd (post-processing).

    ``b̂_far = (1/n)[Σ_j min(τ_j, L) ñ_j + Ẽ + Σ_{j: τ_j > U, ñ_j > zσ_c} (τ_j − U) ñ_j]``:
    each record's ``min(g, L)`` from the counts (at most its bin's upper edge), its
    ``min((g − L)₊, U − L)`` from the far statistic (unbiased), and the part above ``U`` of the
    bins whose count is resolved. Noise sd ``√(σ_c² Σ_j min(τ_j, L)² + σ_e²)/n``; the part of the
    losses above ``U`` in unresolved bins is not seen.
    """
    y = np.asarray(noisy, dtype=np.float64).ravel()
    tau = np.asarray(edges, dtype=np.float64)[1:]
    w = np.minimum(tau, level)
    above = np.maximum(tau - upper, 0.0)
    kept = np.where(y > z * sigma_c, y, 0.0)
    b = (float(np.sum(w * y)) + float(excess) + float(np.sum(above * kept))) / n
    sd = math.sqrt(sigma_c * sigma_c * float(np.sum(w * w)) + sigma_e * sigma_e) / n
    return b, sd
