r"""Sequential and parallel composition of privacy guarantees: pure functions, no state.

Five ways to compose k releases, each an upper bound on the privacy of the sequence (so the
tightest valid one may be used), from the tightest to the always-available floor:

- ``"gdp"``: exact for Gaussian-shift releases (every guarantee carries ``mu``): k of them are
  one Gaussian shift with :math:`\mu = \sqrt{\sum_i \mu_i^2}` (Dong, Roth & Su 2022), whose
  profile is :func:`~matrixdp.calibration.gaussian.gaussian_delta`.
- ``"pld"``: privacy loss distributions through ``dp-accounting`` (optional): Gaussian events
  from ``mu``, Laplace events from the Laplace mechanism's ε, any other (ε, δ) claim by its
  worst case (the dominating pair of all (ε, δ)-DP mechanisms). Pessimistic discretisation.
- ``"rdp"``: Rényi DP (zCDP is its linear special case) for sequences of Gaussian and pure-ε
  releases, converted with Canonne, Kamath & Steinke (2020), Prop. 12.
- ``"advanced"``: Kairouz, Oh & Viswanath (2017): the optimal composition when every release
  has the same (ε, δ) (Thm 3.3, exact for the worst-case mechanisms), its closed form otherwise
  (Thm 3.5), and the optimal one at the largest (ε, δ) of the sequence; the smaller is used.
- ``"basic"``: :math:`(\sum \varepsilon_i, \sum \delta_i)` (Dwork & Roth 2014, Thm 3.16).

The derivations and when each is exact are in ``docs/accounting.md``.

References
----------
.. [1] J. Dong, A. Roth and W. J. Su, "Gaussian Differential Privacy", JRSS B 84(1), 2022.
.. [2] P. Kairouz, S. Oh and P. Viswanath, "The Composition Theorem for Differential Privacy",
   IEEE Trans. Inf. Theory 63(6), 2017.
.. [3] I. Mironov, "Rényi Differential Privacy", CSF 2017.
.. [4] C. Canonne, G. Kamath and T. Steinke, "The Discrete Gaussian for Differential Privacy",
   NeurIPS 2020, Proposition 12.
.. [5] S. Meiser and E. Mohammadi, "Tight on Budget? Tight Bounds for r-Fold Approximate
   Differential Privacy", CCS 2018 (privacy loss distributions).
"""

from __future__ import annotations

import math
from collections import Counter
from numbers import Real
from dataclasses import dataclass, replace

import numpy as np
from scipy.special import gammaln, logsumexp

from ..calibration.gaussian import gaussian_log_delta_for_shift
from ..errors import InvalidParameterError, UnsafeMechanismError
from ..mechanisms.base import PrivacyGuarantee

__all__ = ["METHODS", "Tally", "compose", "compose_tally", "within", "parallel", "basic_epsilon", "gdp_epsilon",
           "gdp_delta", "rdp_epsilon", "advanced_epsilon", "kov_optimal_delta",
           "kov_closed_form_epsilon", "pld_epsilon", "pld_available", "local_as_replace_one"]

#: Composition methods, tightest first ("auto" tries every valid one and keeps the smallest ε).
METHODS = ("gdp", "pld", "rdp", "advanced", "basic")

#: "auto" skips the PLD when the sequence has more distinct releases than this (each distinct
#: release costs a convolution; identical ones are self-composed at once).
PLD_MAX_GROUPS = 64

#: Default discretisation of the privacy loss for the PLD (dp-accounting's default).
PLD_DISCRETISATION = 1e-4

#: The PLD is skipped (``pld_epsilon`` returns ``inf``, a valid upper bound: the other methods
#: decide) when one release's privacy loss is too wide for its grid: an (ε, δ) pair or a
#: Laplace release with ε above ``PLD_MAX_EPSILON`` (past ε ≈ 709 dp-accounting's
#: ``math.exp(ε)`` overflows; a Laplace release of ε = 1000 took 132-190 s), or a Gaussian shift
#: with ``μ`` above ``PLD_MAX_MU`` (μ = 10: 17 s). Hunt HV (results/defect_hunt_hv.md): a budget
#: check of such a release raised ``OverflowError`` or hung for minutes instead of answering.
PLD_MAX_EPSILON = 50.0
PLD_MAX_MU = 10.0

#: Rényi orders for the RDP conversion.
RDP_ORDERS = np.concatenate([1.0 + np.arange(1, 100) / 10.0, np.arange(11, 64, dtype=float),
                             2.0 ** np.arange(6, 14)])


# ---------------------------------------------------------------------------------- the tally
@dataclass(frozen=True)
class _Key:
    epsilon: float
    delta: float
    mu: float | None
    laplace: bool


def is_laplace_mechanism(g: PrivacyGuarantee) -> bool:
    # The Laplace mechanism (L1 sensitivity): its loss is that of a 1-D Laplace shift of ε.
    return g.delta == 0 and g.calibration == "laplace" and g.mechanism == "laplace" \
        and not g.refuted


class Tally:
    """The releases of a sequence, grouped by what composition needs (identical ones counted).

    Built incrementally (``add``) by accountants and ledgers, or from a list (``of``).
    Every release must share the neighbouring relation; refuted guarantees need
    ``allow_unsafe=True``.
    """

    def __init__(self, relation: str | None = None, allow_unsafe: bool = False):
        self.relation = relation
        self.allow_unsafe = bool(allow_unsafe)
        self.counts: Counter = Counter()
        self.n = 0
        self.all_exact = True
        self.refuted = False

    @classmethod
    def of(cls, guarantees, relation=None, allow_unsafe=False) -> "Tally":
        t = cls(relation, allow_unsafe)
        for g in guarantees:
            t.add(g)
        return t

    def copy(self) -> "Tally":
        t = Tally(self.relation, self.allow_unsafe)
        t.counts = Counter(self.counts)
        t.n, t.all_exact, t.refuted = self.n, self.all_exact, self.refuted
        return t

    def validate(self, g) -> PrivacyGuarantee:
        """Raise if ``g`` cannot join this sequence (wrong type, relation or refuted)."""
        g = getattr(g, "privacy", g)  # a Release or a mechanism
        if not isinstance(g, PrivacyGuarantee):
            raise InvalidParameterError("guarantee", f"must be a PrivacyGuarantee or a Release, "
                                                     f"got {type(g).__name__}")
        if self.relation is not None and g.neighbouring != self.relation:
            raise InvalidParameterError(
                "neighbouring", f"a '{g.neighbouring}' guarantee cannot compose with "
                                f"'{self.relation}' ones (different neighbouring relations)")
        if g.refuted and not self.allow_unsafe:
            raise UnsafeMechanismError(
                f"the guarantee of {g.mechanism or 'this release'} is refuted (known not to "
                "hold) and refuses to compose; pass allow_unsafe=True to compose it knowingly "
                "(the total is then marked refuted)")
        numbers = (g.epsilon, g.delta) + (() if g.mu is None else (g.mu,))
        if not all(isinstance(x, (Real, np.integer, np.floating)) and not isinstance(x, bool)
                   for x in numbers):
            raise InvalidParameterError("guarantee", f"needs numbers for epsilon, delta and mu, "
                                                     f"got ({g.epsilon!r}, {g.delta!r}, "
                                                     f"{g.mu!r})")
        eps, dlt = float(g.epsilon), float(g.delta)
        mu = None if g.mu is None else float(g.mu)
        if not (eps >= 0 and 0 <= dlt <= 1):
            raise InvalidParameterError("guarantee", f"needs epsilon >= 0 and delta in [0, 1], "
                                                     f"got ({g.epsilon}, {g.delta})")
        # mu is what GDP composition sums: a NaN made the composition raise (and a ledger
        # stores it as NULL, so the entry read back without it), an infinite one never returned
        if mu is not None and not (0 <= mu < math.inf):
            raise InvalidParameterError("guarantee", f"needs mu finite and >= 0 (or None), got "
                                                     f"{g.mu!r}")
        return g

    def add(self, g, count: int = 1) -> PrivacyGuarantee:
        g = self.validate(g)
        if self.relation is None:
            self.relation = g.neighbouring
        mu = None if g.mu is None else float(g.mu)
        self.counts[_Key(float(g.epsilon), float(g.delta), mu, is_laplace_mechanism(g))] += int(count)
        self.n += int(count)
        self.all_exact = self.all_exact and bool(g.exact)
        self.refuted = self.refuted or bool(g.refuted)
        return g

    # arrays over the distinct releases
    def arrays(self):
        keys = list(self.counts)
        k = np.array([self.counts[x] for x in keys], dtype=np.float64)
        eps = np.array([x.epsilon for x in keys], dtype=np.float64)
        dlt = np.array([x.delta for x in keys], dtype=np.float64)
        mu = np.array([np.nan if x.mu is None else x.mu for x in keys], dtype=np.float64)
        lap = np.array([x.laplace for x in keys], dtype=bool)
        return k, eps, dlt, mu, lap

    @property
    def all_gdp(self) -> bool:
        return all(x.mu is not None for x in self.counts)

    @property
    def delta_sum(self) -> float:
        return min(1.0, math.fsum(c * x.delta for x, c in self.counts.items()))


# ---------------------------------------------------------------------------------- methods
def basic_epsilon(tally: Tally, delta: float) -> float:
    """Basic composition: Σε if ``delta >= Σδ``, else ``inf``."""
    if tally.n == 0:
        return 0.0
    if delta < tally.delta_sum * (1 - 1e-12):
        return math.inf
    return math.fsum(c * x.epsilon for x, c in tally.counts.items())


def gdp_delta(mu: float, epsilon: float) -> float:
    r"""δ(ε) of a μ-GDP release: the Gaussian profile at shift ``mu``."""
    return math.exp(gaussian_log_delta_for_shift(float(epsilon), float(mu)))


def gdp_epsilon(mu: float, delta: float) -> float:
    r"""Smallest ε with δ(ε) <= ``delta`` for a μ-GDP release (``inf`` for δ = 0 and μ > 0)."""
    mu = float(mu)
    if mu == 0:
        return 0.0
    if not mu < math.inf:  # no privacy (and the bracket below would never close)
        return math.inf
    if delta <= 0:
        return math.inf
    if delta >= 1:
        return 0.0
    target = math.log(delta)

    def f(e):
        return gaussian_log_delta_for_shift(e, mu) - target

    if f(0.0) <= 0:
        return 0.0
    hi = max(1.0, mu * mu)
    while f(hi) > 0:
        hi *= 2.0
    from scipy.optimize import brentq

    eps = brentq(f, 0.0, hi, xtol=1e-14, rtol=1e-15, maxiter=500)
    if eps < 1e-4:
        # the absolute xtol is coarse for a small root (at mu*(1e-6, 1e-9) the round trip gave
        # 1.0000000019e-6, which the synthetic-data generators' own budget check refused as an
        # accounting bug): refine within its bracket to relative precision. Larger roots are
        # left exactly as they were (seeded outputs pinned by tests stay bit-identical).
        a, b = max(eps - 2e-14, 0.0), eps + 2e-14
        if f(a) > 0 >= f(b):
            eps = brentq(f, a, b, xtol=1e-300, rtol=1e-15, maxiter=500)
    step = 1e-12 * max(eps, 1e-3) if eps >= 1e-4 else max(1e-12 * eps, 1e-300)
    # (the safe side of the root: δ falls as ε grows)
    while f(eps) > 0:
        eps += step
    return eps


def _gdp(tally: Tally, delta: float) -> tuple[float, float | None]:
    if not tally.all_gdp:
        return math.inf, None
    k, _, _, mu, _ = tally.arrays()
    mu_total = math.sqrt(math.fsum(k * mu ** 2))
    return gdp_epsilon(mu_total, delta), mu_total


def _rdp_curve(tally: Tally, orders: np.ndarray) -> np.ndarray | None:
    """Σ of each release's Rényi divergence at ``orders`` (None if some release has none)."""
    k, eps, dlt, mu, lap = tally.arrays()
    gauss = ~np.isnan(mu)
    pure = ~gauss & (dlt == 0)
    if not np.all(gauss | pure):
        return None
    a = orders[None, :]
    out = np.zeros(orders.shape)
    if gauss.any():
        out += np.sum(k[gauss, None] * a * mu[gauss, None] ** 2 / 2.0, axis=0)
    if pure.any():
        e = eps[pure, None]
        # Laplace mechanism (Mironov 2017, Prop. 6), in logs to avoid overflow
        lap_rdp = np.logaddexp(np.log(a / (2 * a - 1)) + (a - 1) * e,
                               np.log((a - 1) / (2 * a - 1)) - a * e) / (a - 1)
        # any pure ε-DP release: randomized response with ε dominates it (worst case)
        log_p, log_q = -np.log1p(np.exp(-e)), -np.log1p(np.exp(e))
        rr_rdp = np.logaddexp(a * log_p + (1 - a) * log_q, a * log_q + (1 - a) * log_p) / (a - 1)
        per = np.where(lap[pure, None], lap_rdp, rr_rdp)
        per = np.minimum(per, e)
        out += np.sum(k[pure, None] * per, axis=0)
    return out


def rdp_epsilon(tally: Tally, delta: float, orders=None) -> float:
    r"""RDP composition converted to (ε, δ): :math:`\min_\alpha R(\alpha) + \ln(1-1/\alpha)
    - (\ln\delta + \ln\alpha)/(\alpha-1)` (Canonne, Kamath & Steinke 2020, Prop. 12).

    Valid when every release is μ-GDP (RDP αμ²/2, i.e. μ²/2-zCDP) or pure ε-DP (the Laplace
    mechanism's exact RDP, or randomized response's for any other ε-DP release); ``inf``
    otherwise or for δ = 0.
    """
    if tally.n == 0:
        return 0.0
    if delta <= 0:
        return math.inf
    orders = RDP_ORDERS if orders is None else np.asarray(orders, dtype=np.float64)
    curve = _rdp_curve(tally, orders)
    if curve is None:
        return math.inf
    eps = curve + np.log1p(-1.0 / orders) - (math.log(delta) + np.log(orders)) / (orders - 1)
    return max(0.0, float(np.min(eps)))


def kov_optimal_delta(epsilon: float, delta: float, k: int, epsilon_total) -> np.ndarray:
    r"""Exact δ of k-fold composition of (ε, δ)-DP at ``epsilon_total`` (KOV 2017, Thm 3.3).

    The worst case of k (ε, δ)-DP releases is k independent randomized responses of ε, each
    failing with probability δ:

    .. math:: \delta_{tot}(\varepsilon') = 1 - (1-\delta)^k \Big(1 - \sum_{l:(k-2l)\varepsilon
              > \varepsilon'} \binom{k}{l} \frac{e^{(k-l)\varepsilon}
              - e^{\varepsilon'} e^{l\varepsilon}}{(1+e^\varepsilon)^k}\Big).

    Vectorised over ``epsilon_total``.
    """
    e_tot = np.atleast_1d(np.asarray(epsilon_total, dtype=np.float64))
    k = int(k)
    if k == 0 or epsilon == 0:
        rr = np.zeros_like(e_tot)
    else:
        l = np.arange(k + 1, dtype=np.float64)
        log_binom = gammaln(k + 1) - gammaln(l + 1) - gammaln(k - l + 1)
        log_p = -math.log1p(math.exp(-epsilon))
        # log q = −log(1 + e^ε); above ε ≈ 709 e^ε overflows: −ε − log(1 + e^−ε), the same value
        log_q = (-math.log1p(math.exp(epsilon)) if epsilon < 700.0
                 else -epsilon - math.log1p(math.exp(-epsilon)))
        loss = (k - 2 * l) * epsilon  # privacy loss of an outcome with l flips
        log_mass = log_binom + (k - l) * log_p + l * log_q
        gap = e_tot[:, None] - loss[None, :]  # < 0 where the outcome counts
        with np.errstate(divide="ignore", invalid="ignore"):
            term = log_mass[None, :] + np.log(-np.expm1(np.minimum(gap, 0.0)))
        term = np.where(gap < 0, term, -np.inf)
        rr = np.exp(logsumexp(term, axis=1))
    out = 1.0 - (1.0 - delta) ** k * (1.0 - np.minimum(rr, 1.0))
    return out if np.ndim(epsilon_total) else out[:1]


def _kov_optimal_epsilon(epsilon: float, delta: float, k: int, delta_total: float) -> float:
    """Smallest ε' with :func:`kov_optimal_delta` <= ``delta_total`` (bisection, safe side)."""
    if kov_optimal_delta(epsilon, delta, k, [k * epsilon])[0] > delta_total:
        return math.inf  # even Σε leaves more than delta_total (the δ_i alone exceed it)
    lo, hi = 0.0, k * epsilon
    if kov_optimal_delta(epsilon, delta, k, [0.0])[0] <= delta_total:
        return 0.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if kov_optimal_delta(epsilon, delta, k, [mid])[0] <= delta_total:
            hi = mid
        else:
            lo = mid
        if hi - lo <= 1e-12 * max(hi, 1e-9):
            break
    return hi


def kov_closed_form_epsilon(epsilons, deltas, delta_total: float, counts=None) -> float:
    r"""KOV (2017), Thm 3.5: the closed-form bound for heterogeneous (ε_i, δ_i) releases.

    With :math:`\tilde\delta = 1 - (1-\delta_{tot})/\prod(1-\delta_i)`,

    .. math:: \tilde\varepsilon = \min\Big\{\sum\varepsilon_i,\;
              \sum\frac{(e^{\varepsilon_i}-1)\varepsilon_i}{e^{\varepsilon_i}+1}
              + \sqrt{2\textstyle\sum\varepsilon_i^2\,\ln\big(e + \sqrt{\sum\varepsilon_i^2}
              /\tilde\delta\big)},\;
              \sum\frac{(e^{\varepsilon_i}-1)\varepsilon_i}{e^{\varepsilon_i}+1}
              + \sqrt{2\textstyle\sum\varepsilon_i^2\ln(1/\tilde\delta)}\Big\}.

    ``inf`` when the δ_i alone use up ``delta_total``.
    """
    eps = np.asarray(epsilons, dtype=np.float64)
    dlt = np.asarray(deltas, dtype=np.float64)
    c = np.ones_like(eps) if counts is None else np.asarray(counts, dtype=np.float64)
    log_keep = float(np.sum(c * np.log1p(-np.minimum(dlt, 1.0))))
    if delta_total >= 1:
        return 0.0
    # 1 - δ̃ = (1 - δ_tot) / Π(1 - δ_i)
    d_tilde = -math.expm1(math.log1p(-delta_total) - log_keep)
    total = float(np.sum(c * eps))
    if d_tilde <= 0:
        return math.inf if total > 0 or log_keep < math.log1p(-delta_total) else 0.0
    s2 = float(np.sum(c * eps ** 2))
    drift = float(np.sum(c * eps * np.tanh(eps / 2.0)))  # (e^ε - 1)/(e^ε + 1) = tanh(ε/2)
    b1 = drift + math.sqrt(2.0 * s2 * math.log(math.e + math.sqrt(s2) / d_tilde))
    b2 = drift + math.sqrt(2.0 * s2 * math.log(1.0 / d_tilde)) if d_tilde < 1 else drift
    return min(total, b1, b2)


def advanced_epsilon(tally: Tally, delta: float) -> float:
    """Advanced composition (KOV 2017): the optimal one when all releases share (ε, δ) (or at
    the largest (ε, δ) of the sequence), the heterogeneous closed form; the smaller."""
    if tally.n == 0:
        return 0.0
    if delta <= 0:
        return math.inf
    k, eps, dlt, _, _ = tally.arrays()
    closed = kov_closed_form_epsilon(eps, dlt, delta, counts=k)
    # every release is also (max ε, max δ)-DP: the optimal homogeneous composition applies
    optimal = _kov_optimal_epsilon(float(eps.max()), float(dlt.max()), int(k.sum()), delta) \
        if k.sum() <= 200_000 else math.inf
    return min(closed, optimal)


def pld_available() -> bool:
    """True when ``dp-accounting`` (the ``matrixdp[accounting]`` extra) is importable."""
    try:
        import dp_accounting  # noqa: F401
    except ImportError:
        return False
    return True


PLD_MISSING_MESSAGE = ("method='pld' needs the optional dependency dp-accounting "
                "(pip install 'matrixdp[accounting]'); method='auto' falls back to the gdp, rdp, "
                "advanced and basic compositions without it")


def pld_epsilon(tally: Tally, delta: float, discretisation: float = PLD_DISCRETISATION) -> float:
    """Composition through privacy loss distributions (``dp-accounting``, pessimistic estimate).

    Raises ImportError with an explanation when ``dp-accounting`` is absent.
    """
    if tally.n == 0:
        return 0.0
    try:
        from dp_accounting.pld import common, privacy_loss_distribution as pld
    except ImportError as exc:
        raise ImportError(PLD_MISSING_MESSAGE) from exc
    for key in tally.counts:  # too wide for the grid: not this method (a valid bound: inf)
        if (key.mu is not None and key.mu > PLD_MAX_MU) or (
                key.mu is None and key.epsilon > PLD_MAX_EPSILON):
            return math.inf
    total = None
    for key, count in tally.counts.items():
        if key.mu is not None:
            if key.mu == 0:
                continue
            one = pld.from_gaussian_mechanism(1.0, sensitivity=key.mu,
                                              value_discretization_interval=discretisation)
        elif key.laplace:
            if key.epsilon == 0:
                continue
            one = pld.from_laplace_mechanism(1.0 / key.epsilon, sensitivity=1.0,
                                             value_discretization_interval=discretisation)
        else:
            if math.isinf(key.epsilon) or key.delta >= 1:
                return math.inf
            one = pld.from_privacy_parameters(
                common.DifferentialPrivacyParameters(key.epsilon, key.delta),
                value_discretization_interval=discretisation)
        one = one.self_compose(count) if count > 1 else one
        total = one if total is None else total.compose(one)
    if total is None:
        return 0.0
    eps = float(total.get_epsilon_for_delta(delta))
    return max(0.0, eps)


# ---------------------------------------------------------------------------------- compose
def _candidate(method: str, tally: Tally, delta: float):
    if method == "gdp":
        return _gdp(tally, delta)[0]
    if method == "pld":
        return pld_epsilon(tally, delta)
    if method == "rdp":
        return rdp_epsilon(tally, delta)
    if method == "advanced":
        return advanced_epsilon(tally, delta)
    return basic_epsilon(tally, delta)


def compose_tally(tally: Tally, delta: float | None = None, method: str = "auto"
                  ) -> PrivacyGuarantee:
    """:func:`compose` on an already built :class:`Tally`."""
    if method != "auto" and method not in METHODS:
        raise InvalidParameterError("method", f"must be 'auto' or one of {METHODS}, got "
                                              f"{method!r}")
    if delta is None:
        delta = tally.delta_sum
    delta = float(delta)
    if not 0 <= delta <= 1:
        raise InvalidParameterError("delta", f"must be in [0, 1], got {delta!r}")
    if tally.n == 0:
        return PrivacyGuarantee(epsilon=0.0, delta=delta, neighbouring=tally.relation or
                                "replace-one", calibration="none", exact=True,
                                mechanism="composition of 0 releases", notes=("nothing spent",))
    notes = []
    if method == "auto":
        results = {}
        for m in METHODS:
            if m != "basic" and delta == 0:
                continue  # every other method needs delta > 0 (pure DP composes by basic)
            if m == "gdp" and not tally.all_gdp:
                continue
            if m == "pld":
                if not pld_available():
                    notes.append("pld skipped: dp-accounting is not installed")
                    continue
                if tally.all_gdp:
                    continue  # the GDP composition is already exact
                if len(tally.counts) > PLD_MAX_GROUPS:
                    notes.append(f"pld skipped: {len(tally.counts)} distinct releases "
                                 f"(> {PLD_MAX_GROUPS})")
                    continue
            results[m] = _candidate(m, tally, delta)
        chosen = min(results, key=lambda m: (results[m], METHODS.index(m)))
        eps = results[chosen]
        notes.insert(0, "auto: " + ", ".join(f"{m} {v:.6g}" for m, v in results.items())
                     + f"; used {chosen}")
    else:
        if method == "gdp" and not tally.all_gdp:
            raise InvalidParameterError("method", "'gdp' needs every guarantee to carry mu "
                                                  "(Gaussian-shift releases); use 'auto'")
        chosen, eps = method, _candidate(method, tally, delta)
    mu = _gdp(tally, delta)[1] if tally.all_gdp else None
    exact = chosen == "gdp" and tally.all_exact
    return PrivacyGuarantee(
        epsilon=float(eps), delta=delta, neighbouring=tally.relation or "replace-one",
        calibration=chosen, exact=bool(exact), mechanism=f"composition of {tally.n} releases",
        refuted=tally.refuted, mu=mu,
        notes=tuple(notes) + (("a composed guarantee includes a refuted one: NOT private as "
                               "claimed",) if tally.refuted else ()))


#: The order in which ``within`` tries methods: cheapest first (any one that fits decides).
_CHEAP_FIRST = ("rdp", "advanced", "pld")


def within(tally: Tally, delta: float, epsilon: float | None, method: str = "auto",
           rel_tol: float = 1e-12) -> bool:
    """True when the composed ``tally`` is within ``(epsilon, delta)`` by ``method``.

    Equivalent to ``compose_tally(tally, delta, method).epsilon <= epsilon`` (up to ``rel_tol``)
    but faster for budget checks: with ``"auto"`` the exact GDP profile decides a Gaussian-only
    sequence in one evaluation, otherwise methods are tried cheapest first and the first that
    fits decides (each is a valid upper bound).
    """
    if epsilon is None or tally.n == 0:
        return True
    limit = epsilon * (1 + rel_tol) + 1e-300
    if method != "auto":
        return compose_tally(tally, delta, method).epsilon <= limit
    if basic_epsilon(tally, delta) <= limit:  # the cheapest valid bound
        return True
    if tally.all_gdp:
        # exact for the Gaussian shifts: decisive (no other method can do better)
        k, _, _, mu, _ = tally.arrays()
        mu = math.sqrt(math.fsum(k * mu ** 2))
        return delta >= 1 or mu == 0 or (delta > 0 and
                                          gdp_delta(mu, limit) <= delta * (1 + rel_tol))
    for m in _CHEAP_FIRST:
        if m != "basic" and delta == 0:
            continue
        if m == "pld" and (not pld_available() or len(tally.counts) > PLD_MAX_GROUPS):
            continue
        if _candidate(m, tally, delta) <= limit:
            return True
    return False


def compose(guarantees, *, delta: float | None = None, method: str = "auto",
            allow_unsafe: bool = False) -> PrivacyGuarantee:
    """Compose a sequence of releases into one guarantee at ``delta``.

    Parameters
    ----------
    guarantees : iterable of PrivacyGuarantee or Release
        All under the same neighbouring relation (else ``InvalidParameterError``).
    delta : float, optional
        The δ of the composed guarantee; default Σδ_i (what basic composition spends).
    method : {"auto", "gdp", "pld", "rdp", "advanced", "basic"}
        ``"auto"`` evaluates every valid method and keeps the smallest ε; the result's
        ``calibration`` names the method used and its notes list every candidate.
    allow_unsafe : bool
        Compose refuted guarantees (the result is marked refuted); otherwise they raise
        :class:`~matrixdp.errors.UnsafeMechanismError`.

    Returns
    -------
    PrivacyGuarantee
        ``exact`` only for the GDP composition of exact Gaussian-shift guarantees; ``mu`` set
        when every release is μ-GDP.

    Examples
    --------
    >>> from matrixdp import GaussianMechanism
    >>> g = GaussianMechanism(epsilon=1.0, delta=1e-6, sensitivity=1.0).privacy
    >>> total = compose([g] * 4, delta=1e-5)
    >>> total.calibration, round(total.mu / g.mu, 12)
    ('gdp', 2.0)
    """
    return compose_tally(Tally.of(guarantees, allow_unsafe=allow_unsafe), delta, method)


def local_as_replace_one(guarantee: PrivacyGuarantee) -> PrivacyGuarantee:
    """A local-DP guarantee restated under replace-one neighbours, to compose with central ones.

    Each record is randomised on its own with an (ε, δ)-LDP channel, so replacing one record
    changes one channel's input: the whole output is (ε, δ)-DP under replace-one (the number
    of records being public, as replace-one assumes).
    """
    g = getattr(guarantee, "privacy", guarantee)
    if g.neighbouring != "local":
        raise InvalidParameterError("guarantee", f"must be a local-DP guarantee, got "
                                                 f"'{g.neighbouring}'")
    return replace(g, neighbouring="replace-one",
                   notes=g.notes + ("local DP per record, restated under replace-one neighbours",))


def parallel(guarantees, *, partition_public: bool) -> PrivacyGuarantee:
    """Parallel composition over disjoint record sets: the worst part's guarantee.

    Valid when the partition of the records is public (fixed without looking at the data, e.g.
    a public class list) and every pair of neighbouring datasets differs in one part only:
    always under add-remove; under replace-one only when a replaced record stays in its part
    (e.g. RON-Gauss's same-label neighbours). The caller asserts this with
    ``partition_public=True``.

    Returns ``(max ε, max δ)``, with ``max μ`` when every part is μ-GDP.
    """
    if partition_public is not True:
        raise InvalidParameterError(
            "partition_public", "parallel composition needs a public partition of the records "
                                "(chosen without looking at the data) in which neighbours differ "
                                "in one part only; pass partition_public=True to assert it")
    parts = [Tally().validate(g) for g in guarantees]
    if not parts:
        raise InvalidParameterError("guarantees", "needs at least one part")
    rel = {g.neighbouring for g in parts}
    if len(rel) > 1:
        raise InvalidParameterError("neighbouring", f"the parts mix neighbouring relations "
                                                    f"{sorted(rel)}")
    eps = max(g.epsilon for g in parts)
    dlt = max(g.delta for g in parts)
    mus = [g.mu for g in parts]
    mu = None if any(m is None for m in mus) else max(mus)
    exact = all(g.exact for g in parts) and any(g.epsilon == eps and g.delta == dlt
                                                for g in parts)
    return PrivacyGuarantee(
        epsilon=eps, delta=dlt, neighbouring=parts[0].neighbouring, calibration="parallel",
        exact=exact, mechanism=f"parallel composition of {len(parts)} parts", mu=mu,
        notes=("parallel composition over a public partition of the records (the worst part)",))
