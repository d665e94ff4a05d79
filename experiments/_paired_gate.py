"""The paired per-cell gate for a candidate default (``docs/decision_rules.md``, "The paired gate").

Adopted for every NEW rule from session 13 on (task GN's proposal, ``results/gate_noise_floor.md``);
no past verdict is re-judged. A cell compares a candidate with a reference (today's default, or the
best row) on the SAME trial seeds: per trial ``l_i = log(candidate_i / reference_i)``.

- :func:`worse_than`: the cell FAILS iff the one-sided Wilcoxon signed-rank test of
  ``H0: pseudo-median(l) <= log(ratio)`` against ``H1: > log(ratio)`` rejects at ``alpha``
  (``ratio = 1.10``, ``alpha = 0.01`` by default). Evidence of a loss, not a noisy median, fails it:
  a candidate equal in law to the reference fails a 95-cell gate ~0.1-0.6% of the time where the
  ratio-of-medians gate failed it 96% (``gate_noise_floor.md``).
- :func:`pseudo_median_ratio`: ``exp`` of the Hodges-Lehmann estimate of ``l``, the size of a
  difference (reported beside the ratio of medians).
- :func:`upper_bound_ratio`: the one-sided ``1 - alpha`` upper confidence bound of that ratio
  (the exact signed-rank interval, normal approximation for large n): a cell whose bound exceeds
  1.20 is "inconclusive" and says so.

Power needs pairing: a candidate should keep the reference's stream position for every release it
shares, drawing any new quantity after them or from a spawned child stream (``docs/decision_rules.md``).
"""

from __future__ import annotations

import math

import numpy as np

GATE_RATIO = 1.10
ALPHA = 0.01
INCONCLUSIVE_RATIO = 1.20


def log_ratios(candidate, reference) -> np.ndarray:
    """Per-trial ``log(candidate / reference)``; both positive, same length (same trial seeds)."""
    c = np.asarray(candidate, dtype=float)
    r = np.asarray(reference, dtype=float)
    if c.shape != r.shape or c.ndim != 1:
        raise ValueError("candidate and reference must be 1-d arrays of the same length "
                         "(one value per shared trial seed)")
    if not (np.all(c > 0) and np.all(r > 0)):
        raise ValueError("errors must be > 0 to take log-ratios")
    return np.log(c) - np.log(r)


def wilcoxon_p(candidate, reference, ratio: float = GATE_RATIO) -> float:
    """One-sided p-value of ``H1: pseudo-median(candidate/reference) > ratio``."""
    from scipy.stats import wilcoxon

    d = log_ratios(candidate, reference) - math.log(ratio)
    if np.all(d == 0):
        return 1.0
    return float(wilcoxon(d, alternative="greater").pvalue)


def worse_than(candidate, reference, ratio: float = GATE_RATIO, alpha: float = ALPHA) -> bool:
    """True iff the paired test finds the candidate worse than ``ratio`` × the reference."""
    return wilcoxon_p(candidate, reference, ratio) < alpha


def _walsh(l):
    i, j = np.triu_indices(l.size)
    return np.sort((l[i] + l[j]) / 2.0)


def pseudo_median_ratio(candidate, reference) -> float:
    """``exp`` of the Hodges-Lehmann estimate (median of the Walsh averages) of the log-ratios."""
    return float(math.exp(np.median(_walsh(log_ratios(candidate, reference)))))


def upper_bound_ratio(candidate, reference, alpha: float = ALPHA) -> float:
    """One-sided ``1 - alpha`` upper confidence bound of the pseudo-median ratio.

    The signed-rank interval: the ``(N - k)``-th smallest Walsh average, ``N = n(n+1)/2`` and
    ``k`` the lower ``alpha`` quantile of the signed-rank statistic (normal approximation,
    Hollander & Wolfe 1999, §3.3)."""
    from scipy.stats import norm

    w = _walsh(log_ratios(candidate, reference))
    n = int(round((math.sqrt(8 * w.size + 1) - 1) / 2))
    big_n = w.size
    k = int(math.floor(big_n / 2.0 - norm.ppf(1 - alpha)
                       * math.sqrt(n * (n + 1) * (2 * n + 1) / 24.0)))
    k = min(max(k, 0), big_n - 1)
    return float(math.exp(w[big_n - 1 - k]))


def cell_verdict(candidate, reference, ratio: float = GATE_RATIO, alpha: float = ALPHA) -> dict:
    """One cell: ``fail`` (evidence of > ``ratio``), ``p``, ``ratio_of_medians``,
    ``pseudo_median_ratio``, ``upper`` and ``inconclusive`` (``upper`` > 1.20 without a fail)."""
    c = np.asarray(candidate, dtype=float)
    r = np.asarray(reference, dtype=float)
    p = wilcoxon_p(c, r, ratio)
    up = upper_bound_ratio(c, r, alpha)
    fail = p < alpha
    return {"fail": fail, "p": p, "ratio_of_medians": float(np.median(c) / np.median(r)),
            "pseudo_median_ratio": pseudo_median_ratio(c, r), "upper": up,
            "inconclusive": (not fail) and up > INCONCLUSIVE_RATIO}


def verdict_label(verdict: dict) -> str:
    """``"FAIL"``, ``"inconclusive"`` or ``"pass"`` for a :func:`cell_verdict` result."""
    return "FAIL" if verdict["fail"] else ("inconclusive" if verdict["inconclusive"] else "pass")


# References
# - Wilcoxon, F. (1945). Individual comparisons by ranking methods. Biometrics Bulletin 1(6), 80-83.
# - Hodges, J. L. and Lehmann, E. L. (1963). Estimates of location based on rank tests.
#   Annals of Mathematical Statistics 34(2), 598-611.
# - Hollander, M. and Wolfe, D. A. (1999). Nonparametric Statistical Methods, 2nd ed. Wiley, §3.3.
