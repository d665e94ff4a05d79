r"""Black-box privacy auditing: a statistically valid lower bound on a mechanism's ε.

The auditor treats a mechanism as a sampler. It draws outputs under two
neighbouring values, reduces each output to a scalar with a test statistic,
picks a threshold on one half of the samples, and on the other half bounds the
test's false-positive and false-negative rates with exact Clopper–Pearson
bounds. Any (ε, δ)-DP mechanism satisfies, for every output set S,
P[M(x′) ∈ S] ≤ e^ε P[M(x) ∈ S] + δ, so

.. math:: \varepsilon \ge \ln\frac{1 - \delta - \mathrm{FNR}}{\mathrm{FPR}},

and replacing the rates by their upper confidence bounds gives a lower bound on
ε that holds with the stated confidence (Bonferroni over every test and bound
evaluated). The method is described in ``docs/audit.md``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from .._validation import check_delta, check_epsilon, check_finite_array, check_probability
from ..errors import InvalidParameterError, InvalidShapeError
from ..rng import make_rng
from .clopper_pearson import clopper_pearson_upper
from .pairs import check_pair
from .statistics import distance_ratio, log_likelihood_ratio_for, projection

__all__ = ["AuditResult", "TestOutcome", "audit_mechanism", "draw_outputs", "threshold_tests"]

#: Largest number of float64 entries drawn in one vectorised call (memory cap).
_CHUNK_ENTRIES = 1 << 22


@dataclass(frozen=True)
class TestOutcome:
    """One evaluated test: a statistic, a tail, its threshold and held-out counts.

    The rejection region is ``{statistic > threshold}`` for ``tail="upper"``
    (guessing ``value_prime``) and ``{statistic < threshold}`` for ``tail="lower"``
    (guessing ``value``); "false positives" are draws from the other value
    that land in the region, "false negatives" draws of the guessed value that miss it.
    """

    statistic_name: str
    tail: str
    threshold: float
    n_evaluation: int
    false_positives: int
    false_negatives: int
    fpr_upper: float
    fnr_upper: float
    epsilon_lower_bound: float


@dataclass(frozen=True)
class AuditResult:
    """Outcome of :func:`audit_mechanism`.

    Attributes
    ----------
    epsilon_lower_bound : float
        ε_lb ≥ 0: with probability at least ``confidence`` the mechanism is not
        (ε, δ)-DP for any ε < ε_lb at the claimed δ.
    claimed_epsilon, claimed_delta : float
        The guarantee under audit.
    passed : bool
        ``epsilon_lower_bound <= claimed_epsilon`` (the audit found no violation;
        this is evidence, not proof, of privacy).
    statistic_name, tail, threshold : str, str, float
        The test that gave the bound.
    false_positives, false_negatives, n_evaluation : int
        Its held-out counts (per value).
    fpr_upper, fnr_upper : float
        Its Clopper–Pearson upper bounds.
    n_samples, n_selection : int
        Draws per value, and how many of them chose the thresholds.
    confidence : float
    n_tests : int
        Number of tests evaluated (Bonferroni: each rate bound is at level
        (1 − confidence)/(2·n_tests)).
    tests : tuple of TestOutcome
        Every evaluated test.
    mechanism : str
    pair_checked : bool
        Whether the pair was checked against a declared sensitivity (see
        :func:`~matrixdp.audit.pairs.check_pair`); False for a mechanism that declares none.
    pair_neighbouring : bool
        False only for a pair outside the declared sensitivity audited with
        ``allow_non_neighbouring=True``: the bound then measures the mechanism on that pair
        and is no verdict on its claim (``passed`` is then True by convention).
    """

    epsilon_lower_bound: float
    claimed_epsilon: float
    claimed_delta: float
    passed: bool
    statistic_name: str
    tail: str
    threshold: float
    false_positives: int
    false_negatives: int
    n_evaluation: int
    fpr_upper: float
    fnr_upper: float
    n_samples: int
    n_selection: int
    confidence: float
    n_tests: int
    tests: tuple = field(default=(), repr=False)
    mechanism: str = ""
    pair_checked: bool = False
    pair_neighbouring: bool = True

    @property
    def counts(self) -> dict:
        """The winning test's held-out counts."""
        return {"false_positives": self.false_positives, "false_negatives": self.false_negatives,
                "n_evaluation": self.n_evaluation, "n_selection": self.n_selection}

    def __str__(self) -> str:
        verdict = "consistent" if self.passed else "REFUTED"
        if not self.pair_neighbouring:
            verdict = "no verdict: the pair is not neighbouring"
        return (f"{self.mechanism or 'mechanism'}: epsilon >= {self.epsilon_lower_bound:.4g} "
                f"(claimed {self.claimed_epsilon:.4g}, delta {self.claimed_delta:.3g}; "
                f"{self.statistic_name}, {self.tail} tail; confidence {self.confidence:g}) "
                f"-> {verdict}")


#: Bytes the threshold search holds per statistic value: the value (8), its sorted copy and
#: the counts over candidate thresholds. Measured peak: about 23 bytes per value (Gaussian,
#: 2 statistics, 4e6 draws per value: about +350 MB, results/defect_hunt_hy_probes.md); 64 leaves a
#: margin for other statistics.
_BYTES_PER_VALUE = 64


def _physical_memory() -> int | None:
    try:
        import os

        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, OSError, ValueError):  # pragma: no cover - not POSIX
        return None


def _check_memory(n: int, n_statistics: int) -> None:
    """Refuse an audit whose statistic values alone cannot fit in this machine's memory.

    The draws are made in chunks, but every draw's statistic values are kept for the threshold
    search: ``n_samples=10**12`` used to run until the operating system killed the process.
    """
    need = 2 * n * n_statistics * _BYTES_PER_VALUE
    total = _physical_memory()
    if total is not None and need > total:
        raise InvalidParameterError(
            "n_samples", f"{n} draws per value need about {need / 2**30:.3g} GiB for the "
                         f"statistics of {n_statistics} test(s), more than this machine's "
                         f"{total / 2**30:.3g} GiB; audit with fewer draws")


# ------------------------------------------------------------------ sampling
def _draw_noise(mechanism, n: int, shape: tuple, rng) -> np.ndarray:
    """``n`` independent noise draws of ``shape``, vectorised when the mechanism allows."""
    from ..mechanisms import GaussianMechanism, LaplaceMechanism

    batch = getattr(mechanism, "sample_noise_batch", None)
    if callable(batch):
        return np.asarray(batch(n, shape, rng=rng), dtype=float)
    if isinstance(mechanism, (GaussianMechanism, LaplaceMechanism)) or getattr(
            mechanism, "noise_is_elementwise_iid", False):
        return np.asarray(mechanism.sample_noise((n,) + shape, rng=rng), dtype=float)
    # Generic mechanism: one draw per call (correct for any noise law, slower).
    return np.stack([np.asarray(mechanism.sample_noise(shape, rng=rng), dtype=float)
                     for _ in range(n)])


def draw_outputs(mechanism, value, n: int, rng=None) -> np.ndarray:
    """``n`` independent outputs of ``mechanism`` on ``value``, shape ``(n, *value.shape)``.

    Uses ``mechanism.release_batch(value, n, rng)`` when the mechanism has one (a
    vectorised sampler of its output law, e.g. the non-additive baselines of
    :mod:`matrixdp.baselines`), ``value + noise`` for additive mechanisms
    (those with ``sample_noise``), otherwise ``mechanism.release(value, rng).value``
    one at a time.

    ``rng``: ``None`` (default) draws from the per-process secure stream; a seed makes the draws
    reproducible (replayable by anyone who knows it; an audit draws noise on public witnesses only).

    Nothing is charged: inside a budget keeper's ``with`` block it is refused before any draw
    (:func:`~matrixdp.mechanisms.base.refuse_uncharged_batch`), as ``release_batch`` is: ``value``
    could be a private answer released ``n`` times past the keeper. Audit outside the block.
    """
    from ..mechanisms.base import refuse_uncharged_batch

    refuse_uncharged_batch(getattr(mechanism, "name", type(mechanism).__name__), "draw_outputs")
    gen = make_rng(rng)
    arr = np.asarray(value, dtype=float)
    batch = getattr(mechanism, "release_batch", None)
    if callable(batch):
        out = np.asarray(batch(arr, n, rng=gen), dtype=float)
        if out.shape != (n,) + arr.shape:
            raise InvalidShapeError("release_batch", f"must return shape {(n,) + arr.shape}, "
                                                     f"got {out.shape}")
        return out
    if hasattr(mechanism, "sample_noise"):
        return arr + _draw_noise(mechanism, n, arr.shape, gen)
    return np.stack([np.asarray(mechanism.release(arr, rng=gen).value, dtype=float)
                     for _ in range(n)])


def _statistic_values(mechanism, statistics, draw_value, pair, n, rng) -> list[np.ndarray]:
    """Draw ``n`` outputs under ``draw_value``; reduce them with each statistic (chunked)."""
    per_draw = max(1, int(np.asarray(draw_value).size))
    chunk = max(1, min(n, _CHUNK_ENTRIES // per_draw))
    parts: list[list[np.ndarray]] = [[] for _ in statistics]
    done = 0
    while done < n:
        k = min(chunk, n - done)
        outputs = draw_outputs(mechanism, draw_value, k, rng)
        for j, stat in enumerate(statistics):
            parts[j].append(np.asarray(stat(outputs, *pair), dtype=float).reshape(k))
        done += k
    return [np.concatenate(p) for p in parts]


# ---------------------------------------------------------- threshold search
def _epsilon_bound(fp: np.ndarray, fn: np.ndarray, n: int, delta: float, alpha: float) -> np.ndarray:
    fpr_hi = clopper_pearson_upper(fp, np.full_like(fp, n), alpha)
    fnr_hi = clopper_pearson_upper(fn, np.full_like(fn, n), alpha)
    num = 1.0 - delta - np.asarray(fnr_hi)
    with np.errstate(divide="ignore", invalid="ignore"):
        eps = np.where(num > 0, np.log(np.maximum(num, 1e-300)) - np.log(fpr_hi), 0.0)
    return np.maximum(eps, 0.0), np.asarray(fpr_hi), np.asarray(fnr_hi)


def _candidate_thresholds(null: np.ndarray, alt: np.ndarray) -> np.ndarray:
    """Order statistics of both samples at ranks spread geometrically from each tail."""
    cands = []
    for sample in (null, alt):
        s = np.sort(sample[np.isfinite(sample)])
        if s.size == 0:
            continue
        ranks = np.unique(np.geomspace(1, s.size, 48).astype(int)) - 1
        cands.append(s[ranks])
        cands.append(s[s.size - 1 - ranks])
    if not cands:
        return np.array([0.0])
    return np.unique(np.concatenate(cands))


def _counts(null: np.ndarray, alt: np.ndarray, thresholds: np.ndarray):
    """Region {T > t}: null draws inside (false positives), alt draws outside (false negatives)."""
    null_sorted = np.sort(null)
    alt_sorted = np.sort(alt)
    fp = null.size - np.searchsorted(null_sorted, thresholds, side="right")
    fn = np.searchsorted(alt_sorted, thresholds, side="right")
    return fp.astype(np.int64), fn.astype(np.int64)


def _quantise(t_a: np.ndarray, t_b: np.ndarray, resolution: float, n_sel: int):
    """Round both samples to a common grid ``resolution`` × (99th percentile of |T|).

    The grid is set from the selection halves only, so that the test's region does
    not depend on the evaluation draws.

    This removes floating-point artefacts of the last few bits (e.g. the rounding
    of ``value + noise``, Mironov 2012), which would otherwise be detected as tiny
    but real violations: the auditor tests the mechanism's distribution, not its
    bit-level representation.
    """
    pooled = np.abs(np.concatenate([t_a[:n_sel], t_b[:n_sel]]))
    pooled = pooled[np.isfinite(pooled)]
    scale = float(np.percentile(pooled, 99)) if pooled.size else 1.0
    q = resolution * (scale if scale > 0 else 1.0)
    with np.errstate(invalid="ignore", over="ignore"):
        return np.round(t_a / q) * q, np.round(t_b / q) * q


def _select_threshold(null_sel, alt_sel, delta, alpha) -> float:
    thresholds = _candidate_thresholds(null_sel, alt_sel)
    fp, fn = _counts(null_sel, alt_sel, thresholds)
    eps, _, _ = _epsilon_bound(fp, fn, null_sel.size, delta, alpha)
    return float(thresholds[int(np.argmax(eps))])


def threshold_tests(samples, *, delta: float, confidence: float,
                    resolution: float = 1e-9) -> list:
    r"""Selected-then-evaluated threshold tests on scalar statistic samples (steps 3–5 of
    ``docs/audit.md`` §2); the core that :func:`audit_mechanism` and
    :func:`matrixdp.audit.estimators.audit_estimator` share.

    Parameters
    ----------
    samples : sequence of (name, t_a, t_b)
        For each statistic, its values on ``n`` independent outputs under the first and under the
        second neighbour (equal lengths ``n >= 2``). The first ``n // 2`` of each choose the
        thresholds, the rest evaluate them, so the caller must not have chosen the statistic
        with the evaluation halves.
    delta : float
        The claimed δ.
    confidence : float
        All rate bounds hold together with at least this probability: each Clopper–Pearson bound
        uses level (1 − confidence)/(4k) for k statistics (two tails each).
    resolution : float
        Relative rounding grid of the values (see :func:`audit_mechanism`).

    Returns
    -------
    list of TestOutcome
        Two per statistic (upper, then lower tail); each ``epsilon_lower_bound`` is
        ln((1 − δ − FNR_hi)/FPR_hi) clamped at 0.

    References
    ----------
    .. [1] Z. Ding, Y. Wang, G. Wang, D. Zhang and D. Kifer, "Detecting Violations of
       Differential Privacy", CCS 2018.
    """
    samples = list(samples)
    if not samples:
        raise InvalidParameterError("samples", "need at least one statistic")
    n = int(np.asarray(samples[0][1]).size)
    if n < 2 or any(np.asarray(a).size != n or np.asarray(b).size != n for _, a, b in samples):
        raise InvalidShapeError("samples", "every statistic needs n >= 2 values under each "
                                           "neighbour, the same n throughout")
    n_sel = n // 2
    n_eval = n - n_sel
    alpha = (1.0 - confidence) / (2 * 2 * len(samples))
    outcomes = []
    for name, t_a, t_b in samples:
        t_a = np.asarray(t_a, dtype=float).reshape(n)
        t_b = np.asarray(t_b, dtype=float).reshape(n)
        if resolution > 0:
            t_a, t_b = _quantise(t_a, t_b, resolution, n_sel)
        # Upper tail guesses value_prime: null = draws under value. Lower tail: negate and swap.
        for tail, null, alt in (("upper", t_a, t_b), ("lower", -t_b, -t_a)):
            null = np.nan_to_num(null, nan=0.0, posinf=np.inf, neginf=-np.inf)
            alt = np.nan_to_num(alt, nan=0.0, posinf=np.inf, neginf=-np.inf)
            thr = _select_threshold(null[:n_sel], alt[:n_sel], delta, alpha)
            fp, fn = _counts(null[n_sel:], alt[n_sel:], np.array([thr]))
            eps_lb, fpr_hi, fnr_hi = _epsilon_bound(fp, fn, n_eval, delta, alpha)
            outcomes.append(TestOutcome(
                statistic_name=name, tail=tail, threshold=thr if tail == "upper" else -thr,
                n_evaluation=n_eval, false_positives=int(fp[0]), false_negatives=int(fn[0]),
                fpr_upper=float(fpr_hi[0]), fnr_upper=float(fnr_hi[0]),
                epsilon_lower_bound=float(eps_lb[0])))
    return outcomes


# -------------------------------------------------------------------- audit
def _resolve_statistics(mechanism, statistic) -> list:
    if statistic is None:
        first = log_likelihood_ratio_for(mechanism) or projection
        return [first, distance_ratio]
    items = statistic if isinstance(statistic, (list, tuple)) else [statistic]
    named = {"projection": projection, "distance-ratio": distance_ratio,
             "distance_ratio": distance_ratio}
    out = []
    for item in items:
        if isinstance(item, str):
            if item in ("llr", "log-likelihood-ratio"):
                llr = log_likelihood_ratio_for(mechanism)
                if llr is None:
                    raise InvalidParameterError(
                        "statistic", f"{type(mechanism).__name__} gives no log-likelihood ratio")
                out.append(llr)
            elif item in named:
                out.append(named[item])
            else:
                raise InvalidParameterError(
                    "statistic", f"unknown statistic {item!r}; use 'llr', 'projection', "
                                 "'distance-ratio' or a callable")
        elif callable(item):
            out.append(item)
        else:
            raise InvalidParameterError("statistic", f"must be a name or a callable, got {item!r}")
    return out


def audit_mechanism(mechanism, value, value_prime, *, epsilon=None, delta=None,
                    n_samples: int = 20_000, confidence: float = 0.95,
                    statistic: str | Callable | Sequence | None = None, rng=None,
                    resolution: float = 1e-9, query=None,
                    allow_non_neighbouring: bool = False) -> AuditResult:
    r"""Audit ``mechanism`` on one pair of neighbouring values; return a lower bound on ε.

    Parameters
    ----------
    mechanism : object
        Anything with ``release_batch(value, n, rng)`` (n outputs at once, each of
        the value's shape), ``sample_noise(shape, rng)`` (additive noise; a
        ``sample_noise_batch(n, shape, rng)`` makes it fast for non-i.i.d. noise) or
        ``release(value, rng)``.
    value, value_prime : array_like
        Query answers on neighbouring datasets (e.g. from
        :func:`~matrixdp.audit.default_witnesses`). The pair is checked against the
        mechanism's declared sensitivity (and ``query``'s, when given): a pair further
        apart is refused, since no DP claim speaks about it.
    epsilon, delta : float, optional
        The claim to audit; default ``mechanism.privacy.epsilon`` / ``.delta``.
    n_samples : int
        Draws under each value (half choose thresholds, half evaluate them). A count whose
        statistic values cannot fit in the machine's memory (about 64 bytes per draw and
        statistic) is refused before anything is drawn.
    confidence : float
        The bound holds with at least this probability.
    statistic : None, str, callable or sequence of them
        Test statistics (see :mod:`matrixdp.audit.statistics`). Default: the
        mechanism's log-likelihood ratio when known (otherwise the projection onto
        ``value_prime − value``) and the distance-ratio statistic.
    rng : None, int or numpy.random.Generator
        Randomness of the audit's draws. ``None`` uses the per-process secure stream; a seed
        makes the audit reproducible (an audit draws only noise on public witnesses, so a
        seed here replays no release).
    resolution : float
        Statistic values are rounded to this relative resolution before
        thresholding, so that floating-point artefacts of the last bits are not
        reported as violations (set 0 to audit the bit-level implementation).
    query : object, optional
        The query whose answers ``value`` and ``value_prime`` are: each must pass its
        ``check_value`` and the pair must lie within its ``sensitivity_l2``.
    allow_non_neighbouring : bool, default False
        Audit a pair outside the declared sensitivity anyway (to measure the mechanism on
        it, e.g. for group privacy): a :class:`UserWarning` is issued and the result is
        marked ``pair_neighbouring=False`` with no verdict on the claim.

    Returns
    -------
    AuditResult

    Raises
    ------
    InvalidParameterError
        For a pair outside the declared sensitivity (unless ``allow_non_neighbouring``), and
        for invalid arguments.

    Notes
    -----
    For each statistic and each tail a threshold is chosen on the first half of
    the draws (maximising the bound the second half would give at the same counts)
    and evaluated once on the second half: ε_lb(test) = ln((1 − δ − FNR_hi)/FPR_hi),
    clamped at 0. The reported bound is the maximum over the 2·k tests; every
    Clopper–Pearson bound uses level (1 − confidence)/(4k), so all hold together
    with probability ≥ ``confidence`` and the maximum is a valid lower bound.

    References
    ----------
    .. [1] Z. Ding, Y. Wang, G. Wang, D. Zhang and D. Kifer, "Detecting Violations of
       Differential Privacy", CCS 2018.
    .. [2] M. Jagielski, J. Ullman and A. Oprea, "Auditing Differentially Private
       Machine Learning: How Private is Private SGD?", NeurIPS 2020.
    """
    privacy = getattr(mechanism, "privacy", None)
    if epsilon is None:
        if privacy is None:
            raise InvalidParameterError("epsilon", "give the claimed epsilon (the mechanism has no .privacy)")
        epsilon = privacy.epsilon
    if delta is None:
        delta = privacy.delta if privacy is not None else 0.0
    eps = check_epsilon(epsilon)
    dlt = check_delta(delta, allow_zero=True)
    conf = check_probability(confidence, "confidence")
    if isinstance(n_samples, bool) or not isinstance(n_samples, (int, np.integer)) or n_samples < 20:
        raise InvalidParameterError("n_samples", f"must be an integer >= 20, got {n_samples!r}")
    if not (isinstance(resolution, (int, float)) and 0 <= resolution < 1):
        raise InvalidParameterError("resolution", f"must be in [0, 1), got {resolution!r}")
    a = check_finite_array(value, "value")
    b = check_finite_array(value_prime, "value_prime")
    if a.shape != b.shape:
        raise InvalidShapeError("value_prime", f"must have the shape of value {a.shape}, got {b.shape}")
    if np.array_equal(a, b):
        raise InvalidParameterError("value_prime", "must differ from value")
    pair = check_pair(mechanism, a, b, query=query)
    if not pair.neighbouring:
        message = (f"{pair.reason}. Audit a pair within the declared sensitivity (e.g. from "
                   "matrixdp.audit.default_witnesses), or pass allow_non_neighbouring=True to "
                   "measure the mechanism on this pair without a verdict on its claim")
        if not allow_non_neighbouring:
            raise InvalidParameterError("value_prime", message)
        warnings.warn(message, UserWarning, stacklevel=2)

    gen = make_rng(rng)
    stats_list = _resolve_statistics(mechanism, statistic)
    n = int(n_samples)
    _check_memory(n, len(stats_list))
    n_sel = n // 2
    n_eval = n - n_sel
    n_tests = 2 * len(stats_list)

    under_a = _statistic_values(mechanism, stats_list, a, (a, b), n, gen)
    under_b = _statistic_values(mechanism, stats_list, b, (a, b), n, gen)

    outcomes = threshold_tests(
        [(getattr(stat, "name", getattr(stat, "__name__", "statistic")), t_a, t_b)
         for stat, t_a, t_b in zip(stats_list, under_a, under_b)],
        delta=dlt, confidence=conf, resolution=resolution)
    best = max(outcomes, key=lambda o: o.epsilon_lower_bound)
    return AuditResult(
        epsilon_lower_bound=best.epsilon_lower_bound, claimed_epsilon=eps, claimed_delta=dlt,
        passed=bool(best.epsilon_lower_bound <= eps or not pair.neighbouring),
        statistic_name=best.statistic_name,
        tail=best.tail, threshold=best.threshold, false_positives=best.false_positives,
        false_negatives=best.false_negatives, n_evaluation=n_eval, fpr_upper=best.fpr_upper,
        fnr_upper=best.fnr_upper, n_samples=n, n_selection=n_sel, confidence=conf,
        n_tests=n_tests, tests=tuple(outcomes),
        mechanism=getattr(mechanism, "name", type(mechanism).__name__),
        pair_checked=pair.checked, pair_neighbouring=pair.neighbouring)
