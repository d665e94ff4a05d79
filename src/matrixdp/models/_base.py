"""Plumbing shared by the scikit-learn DP estimators: public bounds, validation, accountant hook.

Bounds are public inputs: they are parsed from the constructor's arguments only, never derived
from ``X``. Data outside them is clipped (``clip=True``, the default, as diffprivlib does; the
clipped records are still in the public box, so the guarantee is unchanged) or rejected
(``clip=False`` raises :class:`~matrixdp.errors.OutOfBoundsError`, whose message names no value
of the data).
"""

from __future__ import annotations

import contextlib

import numpy as np

from .._validation import (check_choice, check_delta, check_epsilon, check_finite_array,
                           check_in_bounds, check_n_records, min_records)
from ..errors import InvalidParameterError, InvalidShapeError
from ._dask import dask_records, is_dask_collection
from ._moments import NOISE_CHOICES, RELATIONS

try:  # scikit-learn >= 1.6
    from sklearn.utils.validation import validate_data as _sk_validate_data
except ImportError:  # pragma: no cover - older scikit-learn
    _sk_validate_data = None

__all__ = ["parse_bounds", "validate_X", "clip_to_bounds", "check_privacy_params",
           "check_relation", "charging", "NoGeneratorStateMixin", "fit_bounds", "finish_bounds",
           "fit_xy_bounds"]


class NoGeneratorStateMixin:
    """Pickling, ``copy.deepcopy`` and ``joblib.dump`` drop a Generator ``random_state``;
    ``sklearn.base.clone`` gives it a fresh child stream.

    After ``fit`` a Generator passed as ``random_state`` has drawn the released noise; its
    state would let the reader of a saved estimator rewind it and replay (subtract) that noise.
    An int seed is kept (scikit-learn convention): a seeded fit is replayable by design.
    Put the mixin before ``BaseEstimator`` in the bases.

    scikit-learn's clone deep-copies every parameter, so each clone of an estimator holding a
    Generator (every fold of ``cross_val_score``, every candidate of ``GridSearchCV``) started
    from the *same* generator state and drew the *same* noise: the difference of two folds'
    releases was then a noise-free function of the records that differ between them (hunt HY,
    session 19). A clone now gets ``random_state.spawn(1)[0]`` (:func:`~matrixdp.rng.clone_stream`):
    an independent stream, still reproducible from the original seed (children are spawned in
    order). A Generator without a seed sequence (it cannot spawn) keeps scikit-learn's copy. An
    int seed is copied as scikit-learn does: every clone then draws the same noise (see the
    estimators' ``random_state``).
    """

    def __sklearn_clone__(self):
        from ..rng import clone_stream

        new = super().__sklearn_clone__()
        child = clone_stream(getattr(self, "random_state", None))
        if child is not None:
            new.random_state = child
        return new

    def __getstate__(self):
        from .._budget import carry_block_keeper
        from ..rng import without_generators

        parent = getattr(super(), "__getstate__", None)
        state = parent() if parent is not None else self.__dict__.copy()
        # inside a `with` block, a copy on its way to a worker process carries the block's keeper
        return carry_block_keeper(without_generators(state))


#: The warning every ``score`` of a DP estimator gives (hunt DH2; docs/security.md, "Scores are
#: exact statistics"): the words only, never a value computed from the data.
EXACT_SCORE_WARNING = (
    "score is computed exactly from the X, y passed (no noise, no charge): on private records it "
    "is not differentially private, and neither are cross_val_score's scores nor GridSearchCV's "
    "choice among candidates (best_params_, best_score_, cv_results_) made from it; publish "
    "scores of public records only, or pass scoring= a DP metric (docs/security.md, 'Scores are "
    "exact statistics')")


class ExactScoreMixin:
    """``score`` (scikit-learn's, e.g. R² of ``RegressorMixin``) with a :class:`PrivacyLeakWarning`.

    The fit is a charged DP release; ``score(X, y)`` is not: it is an exact function of the
    records passed. scikit-learn's model selection calls it on held-out folds of the private
    table (``cross_val_score``'s default scoring, ``GridSearchCV``'s ranking and ``best_score_``),
    so every reported score and the chosen candidate are uncharged, non-private statistics
    unless those folds are public. The one place every DP estimator's ``score`` passes; put the
    mixin before scikit-learn's mixins in the bases.
    """

    def score(self, X, y, sample_weight=None):
        import warnings

        from ..errors import PrivacyLeakWarning

        warnings.warn(EXACT_SCORE_WARNING, PrivacyLeakWarning, stacklevel=2)
        return super().score(X, y, sample_weight=sample_weight)


#: Largest magnitude of a public bound, and inverse of the smallest positive width: the
#: estimators square the widths (the scaler takes their fourth power) and scale them by n, which
#: over- or underflows float64 from about 1e±100 (task BA, session 18: ``sensitivity ... got
#: inf``, ``OverflowError``, ``ZeroDivisionError``); 1e±50 leaves a wide margin on both sides.
BOUNDS_LIMIT = 1e50


def parse_bounds(bounds, n_features: int,
                 argument: str = "bounds") -> tuple[np.ndarray, np.ndarray]:
    """``(lower, upper)`` as float arrays of length ``n_features``; raise if missing or invalid.

    Scalars broadcast to every feature. A feature may have ``lower == upper`` (a public constant).
    """
    if bounds is None:
        raise InvalidParameterError(
            argument, "is required: pass public bounds=(lower, upper) (scalars or one value per "
                      "feature) from domain knowledge; bounds are never derived from the data")
    if isinstance(bounds, str) or type(bounds).__name__ == "DPBounds":
        raise InvalidParameterError(
            argument, "'dp' bounds are estimated in fit from a table in memory (not a Dask "
                      "collection, not this estimator); pass public bounds=(lower, upper)")
    try:
        lower, upper = bounds
    except (TypeError, ValueError):
        raise InvalidParameterError(argument, f"must be a pair (lower, upper), got a "
                                              f"{type(bounds).__name__}") from None
    lo = check_finite_array(lower, argument)
    hi = check_finite_array(upper, argument)
    if lo.ndim > 1 or hi.ndim > 1:
        raise InvalidShapeError(argument, "lower and upper must be scalars or 1-D arrays")
    try:
        lo = np.broadcast_to(lo, (n_features,)).astype(np.float64)
        hi = np.broadcast_to(hi, (n_features,)).astype(np.float64)
    except ValueError:
        raise InvalidShapeError(argument, f"must be scalars or arrays of length n_features="
                                          f"{n_features}") from None
    if np.any(lo > hi):
        raise InvalidParameterError(argument, "lower must be <= upper for every feature")
    width = hi - lo
    if np.any(np.maximum(np.abs(lo), np.abs(hi)) > BOUNDS_LIMIT) or \
            np.any((width > 0) & (width < 1.0 / BOUNDS_LIMIT)):
        raise InvalidParameterError(
            argument, f"must lie within +-{BOUNDS_LIMIT:g}, and each width upper - lower must be "
                      f"0 (a public constant) or at least {1.0 / BOUNDS_LIMIT:g}: beyond, the "
                      "second moments and sensitivities over- or underflow in float64; rescale "
                      "the data (e.g. to thousands or millionths of its unit)")
    return lo, hi


def parse_scalar_bounds(bounds, argument: str) -> tuple[float, float]:  # noqa: D401
    """A pair of finite scalars ``lower <= upper`` (e.g. ``bounds_y``)."""
    lo, hi = parse_bounds(bounds, 1, argument)
    return float(lo[0]), float(hi[0])


def clip_to_bounds(X: np.ndarray, lower, upper, clip: bool, argument: str = "X") -> np.ndarray:
    """Clip to the public box, or raise without revealing anything about the data.

    A Dask ``X`` is returned as it is: it is clipped (or checked) block by block where its
    statistics are summed (:mod:`matrixdp.models._dask`).
    """
    if is_dask_collection(X):
        return X
    if clip:
        return np.clip(X, lower, upper)
    check_in_bounds(X, lower, upper, argument)
    return X


def validate_X(estimator, X, *, reset: bool, y=None, supervised: bool = False, dtype=np.float64,
               **kwargs):
    """scikit-learn's input validation (sets ``n_features_in_`` / ``feature_names_in_`` on fit).

    ``supervised=True`` validates ``(X, y)`` together (and raises if ``y`` is None).
    A Dask ``X`` (unsupervised) stays lazy: see :func:`matrixdp.models._dask.dask_records`.
    """
    if is_dask_collection(X) and not supervised:
        return dask_records(estimator, X, reset=reset)
    if supervised and kwargs.get("y_numeric"):
        _check_numeric_target(y)
    for name, value in (("X", X), ("y", y)):
        # numpy.asarray drops a mask: the masked (missing) entries would be released
        if isinstance(value, np.ma.MaskedArray) and np.ma.getmaskarray(value).any():
            raise InvalidParameterError(name, "is a masked array with masked (missing) entries: "
                                              "impute or drop them before a private release")
    if reset:  # an empty table passes under add-remove (min_records; check_n_samples)
        kwargs.setdefault("ensure_min_samples",
                          min_records(getattr(estimator, "neighbouring", "replace-one")))
    try:
        if _sk_validate_data is not None:
            if not supervised:
                return _sk_validate_data(estimator, X, reset=reset, dtype=dtype, **kwargs)
            return _sk_validate_data(estimator, X, y, reset=reset, dtype=dtype, **kwargs)
        if not supervised:  # pragma: no cover - older scikit-learn
            return estimator._validate_data(X, reset=reset, dtype=dtype, **kwargs)
        return estimator._validate_data(X, y, reset=reset, dtype=dtype, **kwargs)  # pragma: no cover
    except ValueError as exc:
        raise _without_data(exc) from None
    except TypeError as exc:  # numpy's DTypePromotionError (a datetime column, ...)
        if type(exc).__name__ == "DTypePromotionError":
            raise InvalidParameterError("X", _NOT_NUMERIC) from None
        raise


_NOT_NUMERIC = ("must be numeric: one-hot encode categorical columns (with public categories) "
                "or drop them")

def _check_numeric_target(y) -> None:
    """A pandas target of categories or strings: scikit-learn's refusal ("could not convert
    string to float: '<the first label>'") quotes a label and names no argument, so it would be
    reported as X; refuse it here, naming y (the dtype is the public schema)."""
    if not type(y).__module__.startswith("pandas"):
        return
    from pandas.api.types import is_numeric_dtype

    dtypes = [y.dtype] if hasattr(y, "dtype") else list(getattr(y, "dtypes", []))
    if all(is_numeric_dtype(t) for t in dtypes):
        return
    if all(t == object for t in dtypes):  # numbers kept as objects convert; text does not
        try:
            np.asarray(y, dtype=np.float64)
            return
        except (TypeError, ValueError):
            pass
    raise InvalidParameterError("y", "must be numeric (a regression target): encode a "
                                     "categorical or text target first")


#: scikit-learn validation messages that quote the data, and what we say instead
#: (``argument`` None: ``"y"`` when the message is about ``Input y``, else ``"X"``).
_SCRUBBED = (
    ("Expected 2D array", InvalidShapeError, "X",
     "must be 2-D (n_samples, n_features). Reshape your data: X.reshape(-1, 1) for a single "
     "feature, X.reshape(1, -1) for a single sample"),
    ("Complex data not supported", InvalidParameterError, None,
     "must be real-valued (Complex data not supported)"),
    ("could not convert", InvalidParameterError, "X", _NOT_NUMERIC),
    ("inconsistent numbers of samples", InvalidShapeError, "y",
     "must have one entry per row of X"),
    ("Found array with 0 sample", InvalidShapeError, "X", "needs at least 1 sample"),
    ("y should be a 1d array", InvalidShapeError, "y",
     "must be 1-D (one label per row of X): multi-output regression is not supported; fit one "
     "estimator per target column"),
    ("NaN", InvalidParameterError, None,
     "contains NaN (missing) values: impute or drop them before a private release"),
    ("infinity", InvalidParameterError, None,
     "contains infinite values: clean them before a private release"),
)


def _data_argument(text: str) -> str:
    """The argument a scikit-learn validation message is about: ``y`` for ``Input y ...`` (a
    label), else ``X``. For complex data its message names neither: the array it prints is
    1-D for ``y`` (``[...]``) and 2-D for ``X`` (``[[...]]``)."""
    if "Input y" in text or "y contains" in text:
        return "y"
    if "Complex data not supported" in text:
        tail = text.split("supported", 1)[1].lstrip()
        return "X" if tail.startswith("[[") else "y"
    return "X"


def _without_data(exc: ValueError) -> ValueError:
    """scikit-learn's validation error with nothing of the data in its message.

    Some of its messages quote the input (``array=[...]``, the first unparsable string) or the
    number of samples; a message may reach a log, so it names the problem and the fix instead.
    Messages about the number of features (public: the schema) are kept as they are.
    """
    text = str(exc)
    for pattern, error, argument, message in _SCRUBBED:
        if pattern in text:
            return error(argument or _data_argument(text), message)
    if "array=" in text:
        return InvalidParameterError("X", text.split("array=")[0].strip().rstrip(":"))
    return exc


def check_privacy_params(estimator, extra_noise: tuple = ()) -> tuple[float, float, str]:
    """Validate ``epsilon``, ``delta``, ``noise`` and ``random_state`` at fit time (scikit-learn:
    not in ``__init__``). ``extra_noise``: choices of ``noise`` the estimator accepts beyond
    :data:`~matrixdp.models._moments.NOISE_CHOICES` (e.g. DPPCA's ``"unit-box"``).

    ``random_state`` must be None (secure generator, the default), an int seed or a
    :class:`numpy.random.Generator`; a Generator is dropped from pickles and copies of the fitted
    model (:class:`NoGeneratorStateMixin`), since its state after ``fit`` would replay the noise.
    """
    rs = estimator.random_state
    if rs is not None and not isinstance(rs, np.random.Generator) and (
            isinstance(rs, bool) or not isinstance(rs, (int, np.integer)) or rs < 0):
        raise InvalidParameterError(
            "random_state", "must be None (a fresh cryptographically secure generator), an int "
                            f"seed >= 0 or a numpy.random.Generator, got a {type(rs).__name__}")
    eps = check_epsilon(estimator.epsilon)
    delta = check_delta(estimator.delta)
    choices = NOISE_CHOICES + tuple(extra_noise)
    check_choice(estimator.noise, choices, "noise")
    return eps, delta, estimator.noise


def check_relation(relation) -> str:
    """``neighbouring`` of the second-moment and mean estimators: replace-one or add-remove."""
    check_choice(relation, RELATIONS, "neighbouring")
    return relation


def check_n_samples(n: int, relation: str = "replace-one") -> int:
    """The row count's check (:func:`matrixdp._validation.check_n_records`): an empty table is
    refused under replace-one (n is public) and released under add-remove (0 and 1 row are
    neighbours there: a refusal would tell them apart)."""
    return check_n_records(n, relation)


class _SpendKeeper:
    """Adapter: an object with only ``spend(guarantee, label=...)`` as a budget keeper."""

    def __init__(self, spend):
        self._spend = spend
        # the budget it spends on (e.g. the CLI's ledger), so that a block of the same budget
        # is not charged a second time (``matrixdp._budget.keepers_for``)
        self.keeper_identity = getattr(getattr(spend, "__self__", None), "keeper_identity", None)

    def check(self, guarantee) -> None:  # ``spend`` checks (and may refuse) on entry
        return None

    @contextlib.contextmanager
    def charge(self, guarantee, label: str = ""):
        try:
            self._spend(guarantee, label=label)
        except TypeError:
            self._spend(guarantee)
        yield guarantee


def _keeper(accountant):
    """The budget keeper ``charging`` charges: the accountant itself (``check`` + ``charge``), a
    ``spend``-only object wrapped, or None (the enclosing ``with`` blocks' keepers)."""
    if accountant is not None and not (callable(getattr(accountant, "check", None))
                                       and callable(getattr(accountant, "charge", None))):
        spend = getattr(accountant, "spend", None)
        if not callable(spend):
            raise InvalidParameterError("accountant", "must be None, a matrixdp.accounting "
                                                      "Accountant or Ledger, or an object with a "
                                                      "spend(guarantee, label=...) method")
        return _SpendKeeper(spend)
    return accountant


def check_whole_fit(estimator, epsilon: float) -> None:
    """Refuse a fit charged in several entries (DP bounds, then the release) before its first
    entry, when its whole (ε, δ) does not fit the budget keeper: the bounds' share used to be
    charged and the release refused, leaving the share spent for nothing. The check is of the
    whole (ε, δ) as one guarantee, which dominates its two entries (a conservative check)."""
    from .._budget import check
    from ..mechanisms.base import PrivacyGuarantee

    guarantee = PrivacyGuarantee(
        epsilon=float(epsilon), delta=check_delta(estimator.delta),
        neighbouring=str(getattr(estimator, "neighbouring", "replace-one")),
        calibration="basic composition", exact=False,
        mechanism=f"{type(estimator).__name__}.fit (DP bounds, then the release)")
    check(guarantee, accountant=_keeper(estimator.accountant))


def charging(accountant, privacy, *, label: str):
    """The single place where a fit spends budget: a context manager around the release.

    ``accountant=None`` (default): the budget keepers of enclosing ``with Accountant(...)`` /
    ``with Ledger(...)`` blocks, if any, are charged (:func:`matrixdp._budget.charge`); otherwise
    nothing is tracked and the fitted ``privacy_`` states the guarantee. A budget keeper
    (:class:`matrixdp.accounting.Accountant` or ``Ledger``: ``check`` + ``charge``) or any object
    with a ``spend(guarantee, label=...)`` method is charged the fit's whole (ε, δ) guarantee on
    entry and may refuse it (raising, e.g. ``BudgetExceededError``), in which case no noise is drawn
    and nothing is released. Inside the block the mechanisms the estimator calls are not charged a
    second time.
    """
    from .._budget import charge

    return charge(privacy, accountant=_keeper(accountant), label=label)


def bounded_records(estimator, X, *, clip_now: bool = True):
    """Validate ``X`` (``reset=True``), check its size, read the estimator's public ``bounds``
    and clip (or check) the records to them: ``(X, lower, upper)``. ``clip_now=False`` leaves
    the records unclipped, for callers that clip them chunk by chunk where they are summed."""
    X = validate_X(estimator, X, reset=True)
    check_n_samples(X.shape[0], getattr(estimator, "neighbouring", "replace-one"))
    lo, hi = parse_bounds(estimator.bounds, X.shape[1])
    if not clip_now:
        return X, lo, hi
    return clip_to_bounds(X, lo, hi, estimator.clip), lo, hi


def fit_bounds(estimator, X, epsilon: float, *, clip_now: bool = True):
    """:func:`bounded_records` with public bounds, or ``bounds="dp"`` (:mod:`.dp_bounds`).

    Returns ``(X, lower, upper, epsilon_left)``. With DP bounds a share of ``epsilon`` is spent
    first on exponential-mechanism quantiles over a public grid, charged as its own entry
    (label ``"<Estimator>.fit bounds"``) to the fit's budget keeper; ``bounds_`` and
    ``bounds_privacy_`` record the estimate and its guarantee, and :func:`finish_bounds` adds
    that guarantee to ``privacy_``. With public bounds ``bounds_privacy_`` is None.
    ``clip_now=False``: the records are returned unclipped (the caller clips them in chunks).
    """
    from .dp_bounds import as_dp_bounds, bounds_rng, dp_bounds, split_epsilon

    spec = as_dp_bounds(estimator.bounds)
    if spec is None:
        estimator.bounds_privacy_ = None
        X, lo, hi = bounded_records(estimator, X, clip_now=clip_now)
        return X, lo, hi, epsilon
    X = validate_X(estimator, X, reset=True)
    if is_dask_collection(X):
        raise InvalidParameterError("bounds", "'dp' needs the table in memory (not a Dask "
                                              "collection) in this version; pass public bounds")
    check_n_samples(X.shape[0], getattr(estimator, "neighbouring", "replace-one"))
    eps_bounds, eps_left = split_epsilon(epsilon, spec)
    check_whole_fit(estimator, epsilon)
    label = f"{type(estimator).__name__}.fit bounds"
    lo, hi, privacy = dp_bounds(
        X, epsilon=eps_bounds, spec=spec, neighbouring=str(getattr(estimator, "neighbouring",
                                                                   "replace-one")),
        rng=bounds_rng(estimator.random_state),
        charging=lambda p: charging(estimator.accountant, p, label=label), label=label)
    estimator.bounds_ = (lo, hi)
    estimator.bounds_privacy_ = privacy
    return (np.clip(X, lo, hi) if clip_now else X), lo, hi, eps_left


def finish_bounds(estimator) -> None:
    """Compose the DP bounds' guarantee (if any) into the fitted ``privacy_`` (basic composition:
    pure ε_bounds + (ε_fit, δ) = (ε, δ))."""
    extra = getattr(estimator, "bounds_privacy_", None)
    if extra is not None:
        estimator.privacy_ = extra + estimator.privacy_


def fit_xy_bounds(estimator, X, y, epsilon: float, label_range=None, fit_intercept=True):
    """``(lo_x, hi_x, lo_y, hi_y, epsilon_left)`` for a regression whose ``bounds_X`` and/or
    ``bounds_y`` may be ``"dp"``: the DP ones are estimated in one exponential-mechanism release
    (charged as ``"<Estimator>.fit bounds"``), the public ones parsed as usual. ``X`` and ``y``
    are validated arrays in memory. Sets ``bounds_privacy_`` (None without DP bounds).

    ``label_range="auto"`` (the argument, else the estimator's attribute; public box
    ``bounds_y``, public ``bounds_X``):
    where :func:`~matrixdp.models.dp_bounds.label_range_rule` says so from public inputs only (n
    under replace-one, ε), the label's range is estimated inside the public box
    (``DPBounds(domain=bounds_y, fraction=LABEL_RANGE_FRACTION, widen=LABEL_RANGE_WIDEN,
    n_points=LABEL_RANGE_POINTS)``); where that DP range is flat
    (the DP spread below the grid's resolution: few-valued labels; post-processing) the box is
    kept. Sets ``label_range_`` (``"public"``, ``"dp"`` or ``"flat"``: estimated, flat, the box
    kept; its share of ε is spent either way). Public ``bounds_X`` that leave no feature
    (``fit_intercept``: :func:`~matrixdp.models.joint_release.check_feature_box`) are refused
    before anything is charged."""
    from .dp_bounds import (LABEL_RANGE_FRACTION, LABEL_RANGE_POINTS, LABEL_RANGE_WIDEN, DPBounds,
                            as_dp_bounds, bounds_rng, dp_bounds, joint_spec, label_range_rule,
                            split_epsilon)

    d = X.shape[1]
    relation = str(getattr(estimator, "neighbouring", "replace-one"))
    spec_x = as_dp_bounds(estimator.bounds_X, "bounds_X")
    spec_y = as_dp_bounds(estimator.bounds_y, "bounds_y")
    if label_range is None:
        label_range = getattr(estimator, "label_range", "public")
    auto = check_label_range(label_range) == "auto"
    estimator.bounds_privacy_ = None
    estimator.label_range_ = "public" if spec_y is None else "dp"
    lo_x = hi_x = lo_y = hi_y = None
    if spec_x is None:
        lo_x, hi_x = parse_bounds(estimator.bounds_X, d, "bounds_X")
        # refused before a DP range of the label (or of y) is bought (hunt DH2)
        from .joint_release import check_feature_box
        check_feature_box(lo_x, hi_x, fit_intercept)
    if spec_y is None:
        lo_y, hi_y = parse_scalar_bounds(estimator.bounds_y, "bounds_y")
        if auto and spec_x is not None:
            raise InvalidParameterError(
                "label_range", "'auto' needs public bounds_X; with DP feature bounds pass "
                               "bounds_y=DPBounds(domain=(lo, hi)) to estimate the label's range")
        if auto and label_range_rule(X.shape[0], epsilon, relation):
            spec_y = DPBounds(domain=(lo_y, hi_y), fraction=LABEL_RANGE_FRACTION,
                              widen=LABEL_RANGE_WIDEN, n_points=LABEL_RANGE_POINTS)
        else:
            auto = False
    else:
        auto = False  # a DP label range was asked for explicitly
    if spec_x is None and spec_y is None:
        return lo_x, hi_x, lo_y, hi_y, epsilon
    if spec_x is not None and spec_y is not None:  # one release for [X, y]: each its own domain
        spec = joint_spec(spec_x, spec_y, d)
    else:
        spec = spec_x if spec_x is not None else spec_y
    cols = ([X] if spec_x is not None else []) + ([np.asarray(y)[:, None]] if spec_y is not None
                                                  else [])
    eps_bounds, eps_left = split_epsilon(epsilon, spec)
    check_whole_fit(estimator, epsilon)
    label = f"{type(estimator).__name__}.fit bounds"
    lo, hi, privacy, *flat = dp_bounds(
        np.hstack(cols), epsilon=eps_bounds, spec=spec, neighbouring=relation,
        rng=bounds_rng(estimator.random_state),
        charging=lambda p: charging(estimator.accountant, p, label=label), label=label,
        return_flat=auto)
    if spec_x is not None:
        lo_x, hi_x = lo[:d], hi[:d]
    if auto and bool(flat[0][-1]):  # read off the DP output: few-valued labels, keep the box
        estimator.label_range_ = "flat"
    elif spec_y is not None:
        lo_y, hi_y = float(lo[-1]), float(hi[-1])
        estimator.label_range_ = "dp"
    estimator.bounds_ = (lo_x, hi_x, lo_y, hi_y)
    estimator.bounds_privacy_ = privacy
    return lo_x, hi_x, lo_y, hi_y, eps_left


#: ``label_range`` of the regressions: ``"public"`` (the box ``bounds_y`` as given) or ``"auto"``.
LABEL_RANGES = ("public", "auto")


def check_label_range(value) -> str:
    """The validated ``label_range`` (``"public"`` or ``"auto"``)."""
    if not isinstance(value, str) or value not in LABEL_RANGES:
        raise InvalidParameterError("label_range", f"must be one of {LABEL_RANGES}, got "
                                                   f"{value!r}")
    return value
