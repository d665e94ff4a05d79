r"""End-to-end black-box audit of a whole ESTIMATOR: a lower bound on ε from many fits.

:func:`audit_mechanism` audits one mechanism on a pair of query answers. A composite estimator
(a joint release and adaptive rounds, a statistic choosing a branch, a synthesizer's releases
and sampling) is audited here as the user sees it: the estimator is fitted ``n_fits`` times
with distinct seeds on each of two neighbouring datasets D and D′, each fit is reduced to a
vector of its published outputs (e.g. ``coef_`` and ``intercept_``), and

1. a *pilot* set of ``n_pilot`` further fits per side (never counted) fixes the scalar test
   statistic: the projection of the output vector on the Fisher direction
   ``w = (S + λI)⁻¹ (m′ − m)`` (``m``, ``m′`` the pilot means, ``S`` their pooled covariance) —
   the likelihood-ratio direction when the outputs are Gaussian;
2. the ``n_fits`` statistic values per side go through the same selected-then-evaluated
   Clopper–Pearson threshold tests as :func:`~matrixdp.audit.audit_mechanism`
   (:func:`~matrixdp.audit.blackbox.threshold_tests`): thresholds on the first half, counts on the
   second half, ε_lb = ln((1 − δ − FNR_hi)/FPR_hi).

The bound is valid at the stated confidence for ANY estimator, whatever the statistic, because
the statistic and the thresholds are fixed before the evaluation fits are counted. It is a lower
bound, never a proof of privacy: an end-to-end audit of a correct estimator is loose (its power
is that of a threshold test on ~10⁴ fits, far from the δ = 10⁻⁶ tail), see ``docs/audit.md``
§6.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .._validation import check_delta, check_epsilon, check_probability
from ..errors import InvalidParameterError, InvalidShapeError
from .blackbox import AuditResult, threshold_tests

__all__ = ["EstimatorAuditResult", "audit_estimator", "fitted_outputs", "fisher_direction"]

#: Ridge of the pilot covariance, relative to its mean diagonal (keeps the solve defined when an
#: output coordinate is constant, e.g. a pinned coefficient).
FISHER_RIDGE = 1e-6


@dataclass(frozen=True)
class EstimatorAuditResult:
    """Outcome of :func:`audit_estimator`.

    Attributes
    ----------
    name : str
        What was audited.
    result : AuditResult
        The threshold tests' outcome (``epsilon_lower_bound``, ``passed``, counts, every test).
    n_fits, n_pilot : int
        Fits per dataset that were counted, and pilot fits per dataset that fixed the statistic.
    n_outputs : int
        Length of the output vector the statistic projects.
    direction : numpy.ndarray
        The pilot's projection direction (public: fitted on audit fits only).
    seconds : float
        Wall time of all fits.
    """

    name: str
    result: AuditResult
    n_fits: int
    n_pilot: int
    n_outputs: int
    direction: np.ndarray
    seconds: float

    @property
    def epsilon_lower_bound(self) -> float:
        return self.result.epsilon_lower_bound

    @property
    def passed(self) -> bool:
        return self.result.passed

    @property
    def verdict(self) -> str:
        return "consistent" if self.result.passed else "REFUTED"

    def __str__(self) -> str:
        r = self.result
        return (f"{self.name}: epsilon >= {r.epsilon_lower_bound:.4g} (claimed "
                f"{r.claimed_epsilon:.4g}, delta {r.claimed_delta:.3g}; {self.n_fits} fits per "
                f"dataset, {r.statistic_name}, {r.tail} tail; confidence {r.confidence:g}) -> "
                f"{self.verdict}")


def fitted_outputs(estimator) -> np.ndarray:
    """The default output vector of a fitted estimator (what it publishes): ``coef_`` and
    ``intercept_`` when present, else ``covariance_`` (and ``location_``), else the projector
    ``components_ᵀ components_``, ``explained_variance_`` and ``mean_``; then the upper triangle
    of the published release ``moments_`` when there is one. Raises for anything else (give
    ``output=``)."""
    if hasattr(estimator, "coef_"):
        parts = [np.ravel(estimator.coef_), np.ravel(getattr(estimator, "intercept_", 0.0))]
    elif hasattr(estimator, "covariance_"):
        parts = [np.ravel(estimator.covariance_)]
        if getattr(estimator, "location_", None) is not None:
            parts.append(np.ravel(estimator.location_))
    elif hasattr(estimator, "components_"):
        v = np.atleast_2d(np.asarray(estimator.components_, dtype=float))
        parts = [np.ravel(v.T @ v), np.ravel(getattr(estimator, "explained_variance_", [])),
                 np.ravel(getattr(estimator, "mean_", []))]
    else:
        raise InvalidParameterError("output", f"{type(estimator).__name__} has no coef_, "
                                              "covariance_ or components_; give output=")
    moments = getattr(estimator, "moments_", None)
    if moments is not None:  # the published joint release (its upper triangle)
        G = np.asarray(moments, dtype=float)
        if G.ndim == 2 and G.shape[0] == G.shape[1]:
            parts.append(G[np.triu_indices(G.shape[0])])
    return np.concatenate([np.asarray(p, dtype=float) for p in parts])


def fisher_direction(pilot_a: np.ndarray, pilot_b: np.ndarray,
                     ridge: float = FISHER_RIDGE) -> np.ndarray:
    r"""``w = (S + λ·mean(diag S)·I)⁻¹ (m_b − m_a)``, normalised to unit length (the Fisher
    discriminant of the two pilot samples, rows = fits). The zero vector's direction is
    undefined: then the first coordinate is returned (the audit still runs, with no power)."""
    a = np.asarray(pilot_a, dtype=float)
    b = np.asarray(pilot_b, dtype=float)
    diff = b.mean(axis=0) - a.mean(axis=0)
    k = diff.size
    if a.shape[0] > 1 and b.shape[0] > 1:
        S = 0.5 * (np.atleast_2d(np.cov(a, rowvar=False)) + np.atleast_2d(np.cov(b, rowvar=False)))
    else:
        S = np.eye(k)
    scale = float(np.mean(np.diag(S)))
    S = S + ridge * (scale if scale > 0 else 1.0) * np.eye(k)
    w = np.linalg.lstsq(S, diff, rcond=None)[0]
    norm = float(np.linalg.norm(w))
    if not np.isfinite(norm) or norm == 0.0:
        w = np.zeros(k)
        w[0] = 1.0
        return w
    return w / norm


def _check_count(value, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise InvalidParameterError(name, f"must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _as_data(data, name: str) -> tuple:
    if not isinstance(data, tuple) or not data:
        raise InvalidParameterError(name, "must be a non-empty tuple of fit() arguments, e.g. "
                                          "(X, y) or (X,)")
    return data


def _same(data, data_prime) -> bool:
    if len(data) != len(data_prime):
        return False
    for u, v in zip(data, data_prime):
        if u is None and v is None:
            continue
        if u is None or v is None:
            return False
        try:
            a, b = np.asarray(u), np.asarray(v)
        except Exception:  # pragma: no cover - exotic inputs: treat as different
            return False
        if a.shape != b.shape or not np.array_equal(a, b):
            return False
    return True


def _outputs(make, output, data, seeds, n_out=None) -> np.ndarray:
    """One fit per seed; the stacked output vectors (rows = fits)."""
    rows = []
    for s in seeds:  # fits, not records: each fit is a whole estimator run
        est = make(int(s))
        fitted = est.fit(*data)
        vec = np.asarray(output(fitted if fitted is not None else est), dtype=float).ravel()
        if n_out is None:
            n_out = vec.size
            if n_out == 0:
                raise InvalidShapeError("output", "must return at least one number")
        if vec.size != n_out:
            raise InvalidShapeError("output", f"returned {vec.size} numbers after {n_out} on an "
                                              "earlier fit; it must return a fixed-length vector")
        if not np.all(np.isfinite(vec)):
            raise InvalidParameterError("output", "returned a non-finite value; the audit needs "
                                                  "finite outputs")
        rows.append(vec)
    return np.vstack(rows)


def audit_estimator(make: Callable, data: tuple, data_prime: tuple, *, epsilon: float,
                    delta: float, output: Callable | None = None, n_fits: int = 20_000,
                    n_pilot: int = 1_000, confidence: float = 0.95, seed: int = 0,
                    name: str | None = None, resolution: float = 1e-9) -> EstimatorAuditResult:
    r"""Audit an estimator end to end on a neighbouring pair of datasets; a lower bound on ε.

    Parameters
    ----------
    make : callable
        ``make(seed) -> estimator``: a NEW unfitted estimator with the fixed public parameters
        under audit and ``random_state=seed``; ``estimator.fit(*data)`` must run its release.
    data, data_prime : tuple
        The ``fit`` arguments on D and on D′, neighbours under the estimator's relation (e.g.
        ``(X, y)`` and ``(X′, y)`` with one record moved to the opposite corner of the public box
        under replace-one, or one record added under add/remove). The caller is responsible for
        the pair being neighbouring: a pair further apart makes the bound no verdict.
    epsilon, delta : float
        The estimator's claimed guarantee.
    output : callable, optional
        ``output(fitted) -> 1-D array``: the published numbers the statistic may look at
        (default :func:`fitted_outputs`). For a synthesizer, features of its sample (e.g. the
        share of synthetic records in the cell of the differing record).
    n_fits : int, default 20000
        Counted fits per dataset (half choose thresholds, half evaluate them).
    n_pilot : int, default 1000
        Further fits per dataset that fix the projection direction (:func:`fisher_direction`);
        they are never counted.
    confidence : float, default 0.95
        The bound holds with at least this probability.
    seed : int, default 0
        The audit's fits use the seeds ``seed·10⁷ + j`` for distinct j (both datasets, pilot and
        counted fits all distinct). A seeded audit is replayable by whoever knows the seed; it
        releases nothing private (the datasets are the auditor's own).
    name : str, optional
        Label of the result (default the estimator's class name).
    resolution : float
        Relative rounding grid of the statistic (see :func:`~matrixdp.audit.audit_mechanism`).

    Returns
    -------
    EstimatorAuditResult

    Raises
    ------
    InvalidParameterError
        For a non-callable ``make``, datasets that are not tuples or are identical, too few fits,
        an invalid claim or confidence, or non-finite outputs.

    Notes
    -----
    Validity: the direction is a function of the pilot fits only and the thresholds of the first
    half of the counted fits only, so the second-half counts are exact binomials for the fixed
    region and the Clopper–Pearson bounds hold (two tails, Bonferroni); see ``docs/audit.md`` §2
    and §6. Power: roughly that of the best threshold test on ~``n_fits``/2 draws: for an
    estimator whose outputs are Gaussian with Gaussian-DP shift μ, ε = 1, δ = 10⁻⁶ (μ ≈ 0.24) and
    ``n_fits`` = 20000 the expected bound is 0.29, and a bug has to multiply the whole
    estimator's μ by 2 to 2.5 before the bound exceeds the claimed ε = 1 (``docs/audit.md`` §6,
    ``results/estimator_audit_power.md``).

    References
    ----------
    .. [1] M. Jagielski, J. Ullman and A. Oprea, "Auditing Differentially Private Machine
       Learning: How Private is Private SGD?", NeurIPS 2020.
    .. [2] Z. Ding, Y. Wang, G. Wang, D. Zhang and D. Kifer, "Detecting Violations of
       Differential Privacy", CCS 2018.
    .. [3] R. A. Fisher, "The use of multiple measurements in taxonomic problems", Annals of
       Eugenics 7(2), 1936.
    """
    if not callable(make):
        raise InvalidParameterError("make", "must be a callable make(seed) -> estimator")
    if output is None:
        output = fitted_outputs
    elif not callable(output):
        raise InvalidParameterError("output", "must be a callable output(fitted) -> array")
    data = _as_data(data, "data")
    data_prime = _as_data(data_prime, "data_prime")
    if _same(data, data_prime):
        raise InvalidParameterError("data_prime", "must differ from data (a neighbouring dataset)")
    eps = check_epsilon(epsilon)
    dlt = check_delta(delta, allow_zero=True)
    conf = check_probability(confidence, "confidence")
    n = _check_count(n_fits, "n_fits", 20)
    n_pil = _check_count(n_pilot, "n_pilot", 2)
    base = _check_count(seed, "seed", 0) * 10_000_000
    if not (isinstance(resolution, (int, float)) and 0 <= resolution < 1):
        raise InvalidParameterError("resolution", f"must be in [0, 1), got {resolution!r}")

    start = time.monotonic()
    pil_a = _outputs(make, output, data, base + np.arange(n_pil))
    k = pil_a.shape[1]
    pil_b = _outputs(make, output, data_prime, base + n_pil + np.arange(n_pil), k)
    w = fisher_direction(pil_a, pil_b)
    first = base + 2 * n_pil
    t_a = _outputs(make, output, data, first + np.arange(n), k) @ w
    t_b = _outputs(make, output, data_prime, first + n + np.arange(n), k) @ w
    seconds = time.monotonic() - start

    outcomes = threshold_tests([("fisher-projection", t_a, t_b)], delta=dlt, confidence=conf,
                               resolution=resolution)
    best = max(outcomes, key=lambda o: o.epsilon_lower_bound)
    label = name or type(make(base)).__name__
    res = AuditResult(
        epsilon_lower_bound=best.epsilon_lower_bound, claimed_epsilon=eps, claimed_delta=dlt,
        passed=bool(best.epsilon_lower_bound <= eps), statistic_name=best.statistic_name,
        tail=best.tail, threshold=best.threshold, false_positives=best.false_positives,
        false_negatives=best.false_negatives, n_evaluation=best.n_evaluation,
        fpr_upper=best.fpr_upper, fnr_upper=best.fnr_upper, n_samples=n, n_selection=n // 2,
        confidence=conf, n_tests=len(outcomes), tests=tuple(outcomes), mechanism=label,
        pair_checked=False, pair_neighbouring=True)
    return EstimatorAuditResult(name=label, result=res, n_fits=n, n_pilot=n_pil, n_outputs=k,
                                direction=w, seconds=seconds)
