r"""The estimator audit catalogue: composite estimators end to end, and planted bugs beside them.

Each :class:`EstimatorEntry` fixes an estimator's public parameters, a worst-case neighbouring
pair of tiny datasets under its relation and the outputs the statistic may look at;
:func:`run_estimator_catalogue` audits them with :func:`~matrixdp.audit.estimators.audit_estimator`
and :func:`format_estimator_table` prints what ``matrixdp audit --estimators`` shows. The entries
marked ``planted`` audit a deliberately BROKEN copy of an estimator (one release calibrated to a
fraction of its true sensitivity, patched in for the run and restored after it): the power check.
A planted bug the audit cannot see is reported as "missed (power)", never as a pass.

The planted bugs patch module attributes of :mod:`matrixdp.models.boosted_fit` /
:mod:`matrixdp.synth.tree_copula` for the duration of their row: run the catalogue in its own
process (as ``matrixdp audit --estimators`` does), never beside threads that fit real data.

Pairs (public constructions, ``docs/audit.md`` §6):

- regression (replace-one; d = 1, X in [-1, 1], y in [-1, 1]): n − 1 fixed records with
  y = 0 (residuals near 0) and a last record at x = 1 with y = +1 in D and y = −1 in D′: the
  joint release's x·y and y·t entries flip, and the boosting rounds' clipped residual sum
  Σ u_i clip(r_i, ±τ) moves by its full sensitivity 2τ·√2 (u = (1, 1), r from +τ to −τ);
- covariance and PCA (replace-one; d = 2, box [-1, 1]²): a last record at (1, 1) in D and at
  (−1, −1) (covariance: the location and the cross terms with t flip) or (1, −1) (PCA: the
  principal direction turns) in D′;
- synthesizers (add/remove; columns a in [0, 10] and b in [0, 100000], so b is "wide" for
  ``histogram_tree`` and ``bin_edges="geometric-wide"``): 40 records in the middle of the box
  in D, D′ adds one record at the top corner (9.99, 99990); the outputs are the shares of 2,000
  synthetic records in the top cells (1/32 and 1/8 of each range, and their joint corners).
"""

from __future__ import annotations

import contextlib
import warnings
from dataclasses import dataclass, field, replace
from typing import Callable

import numpy as np

from ..errors import InvalidParameterError
from .estimators import EstimatorAuditResult, audit_estimator

__all__ = ["EstimatorEntry", "EstimatorRow", "estimator_catalogue", "run_estimator_catalogue",
           "format_estimator_table", "FAST_FITS", "FULL_FITS", "regression_pair",
           "regression_pair_added", "covariance_pair", "synth_pair", "synth_outputs", "scaled_gaussian"]

#: Counted fits per dataset: the default run and ``--fast`` (fewer fits: weaker bounds).
FULL_FITS = 20_000
FAST_FITS = 2_000
#: Pilot fits per dataset (fix the statistic; never counted).
FULL_PILOT = 1_000
FAST_PILOT = 200

#: The claims audited (small ε, where an end-to-end audit has some power).
EPSILON = 1.0
DELTA_MODELS = 1e-6
DELTA_SYNTH = 1e-9
#: Synthetic records drawn per synthesizer fit (the statistic's shares).
SYNTH_SAMPLES = 2_000


# --------------------------------------------------------------------------- pairs
def regression_pair(n: int = 500, noisy: bool = False):
    """``((X, y), (X, y′))``: n − 1 records at public x on a grid with y = 0 (``noisy``: y = ±0.8
    alternating, so the released residual scale is large and the ``"grow"`` clip grows), and a
    last record at x = 1 with y = +1 in D and y = −1 in D′ (replace-one neighbours)."""
    x = np.linspace(-0.9, 0.9, n - 1)
    y = 0.8 * np.where(np.arange(n - 1) % 2 == 0, 1.0, -1.0) if noisy else np.zeros(n - 1)
    X = np.append(x, 1.0)[:, None]
    return (X, np.append(y, 1.0)), (X, np.append(y, -1.0))


def regression_pair_added(n: int = 500, noisy: bool = False):
    """``((X, y), (X′, y′))`` under add/remove: the n − 1 records of :func:`regression_pair` in
    D, and D′ adds the record x = 1, y = +1 (its residual clipped at +τ in every round)."""
    (X, y), _ = regression_pair(n, noisy)
    return (X[:-1], y[:-1]), (X, y)


def covariance_pair(n: int = 20, flip: str = "both"):
    """``((X,), (X′,))`` in [-1, 1]²: n − 1 records on a fixed ellipse-like pattern and a last
    record at (1, 1) in D; at (−1, −1) (``flip="both"``) or (1, −1) (``flip="second"``) in D′."""
    s = np.linspace(0.0, 2.0 * np.pi, n - 1, endpoint=False)
    base = np.c_[0.6 * np.cos(s), 0.2 * np.sin(s)]
    other = (-1.0, -1.0) if flip == "both" else (1.0, -1.0)
    return (np.vstack([base, (1.0, 1.0)]),), (np.vstack([base, other]),)


SYNTH_BOUNDS = {"a": (0.0, 10.0), "b": (0.0, 100_000.0)}
SYNTH_RECORD = (9.99, 99_990.0)


def synth_pair(n: int = 40):
    """``((frame,), (frame′,))``: n records in the middle of the public box; D′ adds one record at
    the top corner ``SYNTH_RECORD`` (add/remove neighbours)."""
    import pandas as pd

    g = np.linspace(0.0, 1.0, n)
    frame = pd.DataFrame({"a": 4.0 + 2.0 * g, "b": 40_000.0 + 20_000.0 * g[::-1]})
    extra = pd.DataFrame({"a": [SYNTH_RECORD[0]], "b": [SYNTH_RECORD[1]]})
    return (frame,), (pd.concat([frame, extra], ignore_index=True),)


def synth_outputs(adapter) -> np.ndarray:
    """What a fitted synthesizer publishes about the differing record's cell: the shares of its
    sample in the top cells of each column (1/32 and 1/8 of its public range) and in their joint
    top corners (6 numbers), then the model's released top-bin probabilities (``marginals_``, the
    bin that holds the record whatever the binning) and its raw correlation release."""
    s = adapter.sample_
    m = adapter.model
    out = [float(np.asarray(m.marginals_[c])[0, -1]) for c in SYNTH_BOUNDS]
    out += list(np.ravel(np.asarray(m.correlation_raw_, dtype=float)))
    for frac in (1.0 / 32.0, 1.0 / 8.0):
        ins = []
        for c, (lo, hi) in SYNTH_BOUNDS.items():
            inside = np.asarray(s[c], dtype=float) >= hi - frac * (hi - lo)
            ins.append(inside)
            out.append(inside.mean())
        out.append(np.logical_and(*ins).mean())
    return np.asarray(out)


class _FitSample:
    """A synthesizer fitted with seed 2s and sampled with seed 2s + 1 (distinct streams per fit);
    ``sample_`` is the synthetic table."""

    def __init__(self, model, seed: int, n_samples: int):
        self.model, self.seed, self.n_samples = model, int(seed), int(n_samples)

    def fit(self, X, y=None):
        self.model.fit(X, y)
        self.sample_ = self.model.sample(self.n_samples, random_state=2 * self.seed + 1)
        return self


# ---------------------------------------------------------------------- planted bugs
def scaled_gaussian(mech, factor: float):
    """A GaussianMechanism with ``mech``'s (ε, δ), calibration and relation but ``factor`` times
    its sensitivity: its noise is ``factor`` times too small for the claim (a planted bug)."""
    return mech.with_sensitivity(mech.sensitivity * factor)


@contextlib.contextmanager
def _patched(module, attr: str, value):
    old = getattr(module, attr)
    setattr(module, attr, value)
    try:
        yield
    finally:
        setattr(module, attr, old)


def _bug_boost(rounds: float = 1.0, joint: float = 1.0):
    """Patch ``models.boosted_fit.boosted_plan`` (what the boosted fit plans with): the rounds'
    and/or the joint release's mechanism at a fraction of its sensitivity (the composed claim
    unchanged)."""
    from ..models import boosted_fit

    original = boosted_fit.boosted_plan

    def broken(*args, **kwargs):
        (plan, candidates), mech_round, total = original(*args, **kwargs)
        if joint != 1.0:
            plan = replace(plan, mechanism=scaled_gaussian(plan.mechanism, joint))
        if rounds != 1.0:
            mech_round = scaled_gaussian(mech_round, rounds)
        return (plan, candidates), mech_round, total

    return _patched(boosted_fit, "boosted_plan", broken)


def _bug_tree_histograms(factor: float):
    """Patch ``synth.tree_copula``'s histogram sensitivities (flat and tree) by ``factor``."""
    from ..synth import tree_copula

    stack = contextlib.ExitStack()
    flat, tree = tree_copula.histogram_sensitivity, tree_copula.tree_histogram_sensitivity
    stack.enter_context(_patched(tree_copula, "histogram_sensitivity",
                                 lambda *a: factor * flat(*a)))
    stack.enter_context(_patched(tree_copula, "tree_histogram_sensitivity",
                                 lambda *a: factor * tree(*a)))
    return stack


# --------------------------------------------------------------------------- entries
@dataclass(frozen=True)
class EstimatorEntry:
    """One auditable estimator configuration.

    Attributes
    ----------
    name : str
    description : str
    make : callable
        ``make(seed) -> estimator`` with the public parameters under audit.
    pair : callable
        ``pair() -> (data, data_prime)``: the fit arguments on D and D′.
    relation : str
        The neighbouring relation of the pair.
    epsilon, delta : float
        The claim.
    output : callable, optional
        Outputs the statistic may look at (default :func:`~matrixdp.audit.estimators.fitted_outputs`).
    planted : callable, optional
        ``planted() -> context manager`` that installs a deliberate bug for the run: the entry is
        a power check, expected REFUTED (``expect_refuted``) or, when the bug is too small for the
        audit's power, "missed (power)".
    expect_refuted : bool
        For a planted entry: whether the bug is large enough that the audit should refute it.
    fast, full : bool
        Included in ``--fast`` / in the default (full) run.
    """

    name: str
    description: str
    make: Callable
    pair: Callable
    relation: str
    epsilon: float = EPSILON
    delta: float = DELTA_MODELS
    output: Callable | None = None
    planted: Callable | None = None
    expect_refuted: bool = False
    fast: bool = True
    full: bool = True


@dataclass(frozen=True)
class EstimatorRow:
    """One audited entry: the entry and its :class:`EstimatorAuditResult`."""

    entry: EstimatorEntry
    audit: EstimatorAuditResult = field(repr=False)

    @property
    def verdict(self) -> str:
        refuted = not self.audit.passed
        if self.entry.planted is None:
            return "REFUTED" if refuted else "consistent"
        if refuted:
            return "planted bug REFUTED"
        return "planted bug missed (power)"

    @property
    def privacy_bug(self) -> bool:
        """An UNMODIFIED estimator refuted: a privacy bug."""
        return self.entry.planted is None and not self.audit.passed

    @property
    def power_failure(self) -> bool:
        """A planted bug the audit was expected to refute and did not."""
        return self.entry.planted is not None and self.entry.expect_refuted and self.audit.passed


def _grow():
    """``RegressionOptions(boost_clip="grow")``: the growing clip's entries (docs/regression.md
    §4d)."""
    from ..models import RegressionOptions
    return RegressionOptions(boost_clip="grow")


def _reg(cls_name, **params):
    def make(seed):
        from .. import models
        return getattr(models, cls_name)(epsilon=EPSILON, delta=DELTA_MODELS, bounds_X=(-1.0, 1.0),
                                         bounds_y=(-1.0, 1.0), random_state=seed, **params)
    return make


def _cov(cls_name, *args, **params):
    def make(seed):
        from .. import models
        return getattr(models, cls_name)(*args, epsilon=EPSILON, delta=DELTA_MODELS,
                                         bounds=(-1.0, 1.0), random_state=seed, **params)
    return make


def _synth(cls_name, **params):
    def make(seed):
        from ..synth.schema import TableSchema
        if cls_name == "DPCopula":
            from ..synth.copula import DPCopula as cls
        else:
            from ..synth.tree_copula import DPTreeCopula as cls
        model = cls(schema=TableSchema(bounds=dict(SYNTH_BOUNDS)), epsilon=EPSILON,
                    delta=DELTA_SYNTH, random_state=2 * int(seed), **params)
        return _FitSample(model, seed, SYNTH_SAMPLES)
    return make


def estimator_catalogue() -> list:
    """Every entry: the composite estimators at their defaults and the named opt-ins, then the
    planted bugs."""
    reg, reg_noisy = regression_pair, (lambda: regression_pair(noisy=True))
    cov, pca = covariance_pair, (lambda: covariance_pair(flip="second"))
    E = EstimatorEntry
    return [
        E("DPLinearRegression", "default on a pair whose release picks the rounds: joint release "
                                "+ 2 boosting rounds (fixed clip), GDP",
          _reg("DPLinearRegression"), reg, "replace-one"),
        E("DPLinearRegression[second release]", "default on a pair whose release picks the "
                                                "fallback: joint release + a second joint release "
                                                "averaged with it (docs/regression.md 4e)",
          _reg("DPLinearRegression"), reg_noisy, "replace-one", fast=False),
        E("DPLinearRegression[grow]", "boost_clip='grow' (tau from the joint release)",
          _reg("DPLinearRegression", experimental=_grow()), reg_noisy, "replace-one",
          fast=False),
        E("DPLinearRegression[add-remove]", "neighbouring='add-remove' (one record added)",
          _reg("DPLinearRegression", neighbouring="add-remove"), regression_pair_added,
          "add-remove", fast=False),
        E("DPLinearRegression[grow, add-remove]", "boost_clip='grow', neighbouring='add-remove' "
          "(tau from the released count)",
          _reg("DPLinearRegression", experimental=_grow(), neighbouring="add-remove"),
          lambda: regression_pair_added(noisy=True), "add-remove", fast=False),
        E("DPRidge", "default alpha=1, boosted", _reg("DPRidge"), reg, "replace-one", fast=False),
        E("AdaSSPRegression", "lambda_min + X'X + X'y releases, GDP",
          _reg("AdaSSPRegression"), reg, "replace-one", fast=False),
        E("BoostedAdaSSPRegression", "100 rounds of clipped X'r", _reg("BoostedAdaSSPRegression"),
          reg, "replace-one", fast=False),
        # method pinned: the default (method="auto") is "adaptive" here, audited by the
        # DPCovariance[adaptive] entry (the same release draw for draw)
        E("DPCovariance", "method='moments'", _cov("DPCovariance", method="moments"), cov,
          "replace-one"),
        E("DPCovariance[coinpress]", "method='coinpress'", _cov("DPCovariance", method="coinpress"),
          cov, "replace-one", fast=False),
        E("DPCovariance[adaptive]", "method='adaptive' (a statistic picks the branch)",
          _cov("DPCovariance", method="adaptive"), cov, "replace-one", fast=False),
        # the default (method="auto") is "adaptive" under replace-one since task PX; the
        # moments release it replaced is DPCovariance's (PCA is its post-processing)
        E("DPPCA", "n_components=1 (default method: adaptive)", _cov("DPPCA", 1), pca,
          "replace-one", fast=False),
        E("DPCopula", "default", _synth("DPCopula"), synth_pair, "add-remove",
          delta=DELTA_SYNTH, output=synth_outputs, fast=False),
        E("DPTreeCopula", "default", _synth("DPTreeCopula"), synth_pair, "add-remove",
          delta=DELTA_SYNTH, output=synth_outputs),
        E("DPTreeCopula[histogram_tree=4]", "histogram_tree=4, histogram_tree_max_drop=None "
          "(the tree always released: at n=41 the default cut would fall back to flat)",
          _synth("DPTreeCopula", histogram_tree=4, histogram_tree_max_drop=None), synth_pair, "add-remove", delta=DELTA_SYNTH,
          output=synth_outputs, fast=False),
        E("DPTreeCopula[geometric-wide]", "bin_edges='geometric-wide'",
          _synth("DPTreeCopula", bin_edges="geometric-wide"), synth_pair, "add-remove",
          delta=DELTA_SYNTH, output=synth_outputs, fast=False),
        # ---- planted bugs (power check): a broken copy, patched in for the run only
        E("PLANTED DPLinearRegression rounds x0.1", "both rounds at 0.1x their sensitivity",
          _reg("DPLinearRegression"), reg, "replace-one", planted=lambda: _bug_boost(rounds=0.1),
          expect_refuted=True, fast=False),
        E("PLANTED DPLinearRegression rounds x0.5", "both rounds at half their sensitivity "
          "(whole-fit mu x1.38: below this audit's power)", _reg("DPLinearRegression"), reg,
          "replace-one", planted=lambda: _bug_boost(rounds=0.5), fast=False),
        E("PLANTED DPLinearRegression joint x0.2", "joint release at 0.2x its sensitivity",
          _reg("DPLinearRegression"), reg, "replace-one", planted=lambda: _bug_boost(joint=0.2),
          expect_refuted=True, fast=False),
        E("PLANTED DPTreeCopula histograms x0.1", "one-way histograms at 0.1x their sensitivity",
          _synth("DPTreeCopula"), synth_pair, "add-remove", delta=DELTA_SYNTH,
          output=synth_outputs, planted=lambda: _bug_tree_histograms(0.1), expect_refuted=True,
          fast=False),
        E("PLANTED DPTreeCopula histograms x0.3", "one-way histograms at 0.3x their sensitivity "
          "(below this audit's power at delta=1e-9)", _synth("DPTreeCopula"), synth_pair,
          "add-remove", delta=DELTA_SYNTH, output=synth_outputs,
          planted=lambda: _bug_tree_histograms(0.3), fast=False),
        # ---- gross planted bugs for --fast (2,000 fits have power only for these)
        E("PLANTED DPLinearRegression joint x0.05", "joint release at 0.05x its sensitivity",
          _reg("DPLinearRegression"), reg, "replace-one", planted=lambda: _bug_boost(joint=0.05),
          expect_refuted=True, full=False),
        E("PLANTED DPTreeCopula histograms x0.02", "one-way histograms at 0.02x their "
          "sensitivity", _synth("DPTreeCopula"), synth_pair, "add-remove", delta=DELTA_SYNTH,
          output=synth_outputs, planted=lambda: _bug_tree_histograms(0.02), expect_refuted=True,
          full=False),
    ]


def _select(entries, names):
    if names is None:
        return entries
    by = {e.name: e for e in entries}
    unknown = [n for n in names if n not in by]
    if unknown:
        raise InvalidParameterError("names", f"unknown estimator entry {unknown[0]!r}; one of "
                                             f"{sorted(by)}")
    return [by[n] for n in names]


def run_estimator_catalogue(*, n_fits: int = FULL_FITS, n_pilot: int = FULL_PILOT,
                            fast: bool = False, seed: int = 0, confidence: float = 0.95,
                            names=None, progress: Callable | None = None) -> list:
    """Audit the catalogue (``fast``: the entries marked ``fast``, else those marked ``full``;
    ``names``: exactly these entries); a list of :class:`EstimatorRow`. ``progress(row)`` is
    called after each entry. The planted rows patch library modules while they run: use a
    process of its own, with no other thread fitting estimators on real data."""
    entries = estimator_catalogue()
    if names is None:
        entries = [e for e in entries if (e.fast if fast else e.full)]
    rows = []
    for e in _select(entries, names):
        data, data_prime = e.pair()
        ctx = e.planted() if e.planted is not None else contextlib.nullcontext()
        with ctx, warnings.catch_warnings():
            warnings.simplefilter("ignore")  # tiny tables: the estimators' small-n warnings
            res = audit_estimator(e.make, data, data_prime, epsilon=e.epsilon, delta=e.delta,
                                  output=e.output, n_fits=n_fits, n_pilot=n_pilot,
                                  confidence=confidence, seed=seed, name=e.name)
        row = EstimatorRow(e, res)
        rows.append(row)
        if progress is not None:
            progress(row)
    return rows


def format_estimator_table(rows) -> str:
    """The table ``matrixdp audit --estimators`` prints."""
    head = ("estimator", "relation", "eps", "delta", "fits", "statistic", "eps_lb", "verdict")
    body = []
    for r in rows:
        a = r.audit.result
        body.append((r.entry.name, r.entry.relation, f"{a.claimed_epsilon:g}",
                     f"{a.claimed_delta:.0e}", f"{r.audit.n_fits}",
                     f"{a.statistic_name} ({a.tail})", f"{a.epsilon_lower_bound:.3f}", r.verdict))
    widths = [max(len(h), *(len(b[i]) for b in body)) if body else len(h)
              for i, h in enumerate(head)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(head, widths)),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(c.ljust(w) for c, w in zip(b, widths)) for b in body]
    return "\n".join(lines)
