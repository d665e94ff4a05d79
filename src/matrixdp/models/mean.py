r"""DP mean and standard scaling with public per-feature bounds (scikit-learn API).

:class:`DPMean` releases the mean vector; :class:`DPStandardScaler` releases, in the same single
release, the mean and the mean square about the public centre of the box. Their set of
neighbouring differences is computed exactly (:class:`_MomentVectorQuery`), so both the i.i.d.
Gaussian and the MVG allocation are calibrated to the tight sensitivity
(``docs/when_mvg_wins.md``).
"""

from __future__ import annotations

import math

import numpy as np
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from ..calibration.mvg_exact import DirectionCosts, ShiftBound
from ..queries.geometry import record_box_shift
from ..errors import InvalidParameterError, InvalidShapeError, OutOfBoundsError
from .._validation import check_choice
from ..mechanisms import GaussianMechanism, MVGMechanism
from ..queries import SensitivityStructure
from ._dask import column_moments, is_dask_collection
from ._base import (NoGeneratorStateMixin, charging, check_privacy_params,
                    finish_bounds, fit_bounds,
                    check_relation, validate_X)

__all__ = ["DPMean", "DPStandardScaler"]

#: ``DPMean(loss=...)``: the error the noise allocation minimises (in half-width units, or in
#: the columns' own units).
MEAN_LOSSES = ("relative", "original")


def _max_square_term(h: np.ndarray, p: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""``max_{a, b ∈ [-h, h]} p (a - b)² + q (a² - b²)²`` per feature, and its ``u = a - b``.

    With ``u = a - b`` and ``s = a + b`` (``|u| + |s| <= 2h``) the term is ``u² (p + q s²)``,
    maximal on ``s = 2h - u``: ``f(u) = u² (p + q (2h - u)²)`` on ``[0, 2h]``. Its interior critical
    points solve ``u² - 3hu + 2h² + p/(2q) = 0``: ``u = (3h ± sqrt(h² - 2p/q))/2``.
    """
    h = np.asarray(h, dtype=np.float64)
    cands = [2.0 * h]
    with np.errstate(divide="ignore", invalid="ignore"):
        disc = h * h - 2.0 * np.where(q > 0, p / np.where(q > 0, q, 1.0), np.inf)
        root = np.sqrt(np.where(disc >= 0, disc, 0.0))
        for sign in (1.0, -1.0):
            u = 0.5 * (3.0 * h + sign * root)
            cands.append(np.where((disc >= 0) & (u >= 0) & (u <= 2 * h), u, 2.0 * h))
    us = np.stack(cands)
    vals = us * us * (p + q * (2.0 * h - us) ** 2)
    k = np.argmax(vals, axis=0)
    cols = np.arange(h.size)
    return vals[k, cols], us[k, cols]


class _MomentVectorQuery(SensitivityStructure):
    r"""The vector ``(mean(x), mean((x - c)²))`` (or the mean alone) of ``n`` records in a box.

    Value shape ``(1, k)`` (``k = d`` or ``2d``). Replacing record ``x`` by ``x'`` changes the
    mean part by ``(a - b)/n`` and the square part by ``(a² - b²)/n`` with ``a = x - c``,
    ``b = x' - c`` in ``[-h, h]``. For standard-basis precisions ``p`` (means), ``q`` (squares)
    the supremum of ``μ²`` is ``n⁻² Σ_j max_u u²(p_j + q_j(2h_j - u)²)`` (exact, closed form in
    :func:`_max_square_term`); for rotated precisions, the product-box bound (upper bound).

    Add-remove (``n`` private): the value is the vector of *sums* ``(Σ(x - c), Σ(x - c)², n t)``
    with a public constant ``t``; one record changes it by its own ``(a, a², t)``, so the supremum
    for diagonal precisions is ``Σ_j p_j h_j² + q_j h_j⁴ + p_t t²`` (exact, at ``a = ±h``).
    """

    feature_axis = 1

    def __init__(self, lower, upper, n_samples, squares: bool, neighbouring="replace-one",
                 count_scale: float = 1.0):
        self.lower = np.asarray(lower, dtype=np.float64)
        self.upper = np.asarray(upper, dtype=np.float64)
        self.center = 0.5 * (self.lower + self.upper)
        self.h = 0.5 * (self.upper - self.lower)
        self.n_samples = 1  # one released row (the MVG mechanism's record axis)
        self.neighbouring = neighbouring
        self.add_remove = neighbouring == "add-remove"
        self.n_records = None if self.add_remove else int(n_samples)
        self.count_scale = float(count_scale)
        self.squares = bool(squares)
        d = self.h.size
        self.shape = (1, (2 * d if squares else d) + (1 if self.add_remove else 0))
        if not np.any(self.h > 0):
            raise InvalidParameterError("bounds", "at least one feature must have lower < upper")

    @property
    def widths(self) -> np.ndarray:
        """Per-coordinate half-widths of the product box holding every difference."""
        if self.add_remove:
            w = self.h.copy()
            if self.squares:
                w = np.concatenate([w, self.h * self.h])
            return np.append(w, self.count_scale)
        w = 2.0 * self.h / self.n_records
        if self.squares:
            w = np.concatenate([w, self.h * self.h / self.n_records])
        return w

    def _sup(self, p: np.ndarray, q: np.ndarray | None) -> tuple[float, np.ndarray]:
        if self.add_remove:
            w = self.widths[:-1]
            return float(np.sum(p * w[:p.size] ** 2) + (0.0 if q is None else
                                                         np.sum(q * w[p.size:] ** 2))), w
        n2 = float(self.n_records) ** 2
        if q is None:
            u = 2.0 * self.h
            return float(np.sum(p * u * u)) / n2, u / self.n_records
        vals, u = _max_square_term(self.h, p, q)
        s = 2.0 * self.h - u
        return float(vals.sum()) / n2, np.concatenate([u, u * s]) / self.n_records

    @property
    def sensitivity_l2(self) -> float:
        if self.add_remove:
            return float(np.linalg.norm(self.widths))
        d = self.h.size
        value, _ = self._sup(np.ones(d), np.ones(d) if self.squares else None)
        return math.sqrt(value)

    @property
    def gamma(self) -> float:  # pragma: no cover - only used by the theorem calibrations
        reach = np.maximum(np.abs(self.lower), np.abs(self.upper))
        g = float(reach @ reach)
        if self.squares:
            g += float(np.sum(self.h ** 4))
        return math.sqrt(g)

    def check_value(self, value: np.ndarray) -> None:
        if self.add_remove:  # sums over a private number of records: no public range
            return
        d = self.h.size
        v = np.asarray(value)
        slack = 1e-9 * (1.0 + np.abs(self.lower) + np.abs(self.upper))
        ok = np.all(v[0, :d] >= self.lower - slack) and np.all(v[0, :d] <= self.upper + slack)
        if self.squares:
            ok = ok and np.all(v[0, d:] >= -slack) and \
                np.all(v[0, d:] <= self.h * self.h * (1 + 1e-9) + slack)
        if not ok:
            raise OutOfBoundsError("value", "is not a mean (square) of records in the public box")

    def shift_bound(self, row, col) -> ShiftBound:
        if col.dim != self.shape[1]:
            raise InvalidShapeError("col_cov", f"must be {self.shape[1]} x {self.shape[1]}")
        if col.directions is not None:
            box = record_box_shift(row, col, half_widths=self.widths)
            if self.squares or self.add_remove:  # the product box is a superset of the differences
                return ShiftBound(box.value_sq, False, 0.0, None, "moment-vector-product-box")
            return box
        d = self.h.size
        if self.add_remove:
            w = self.widths
            value = row.max * float(np.dot(col.precisions, w * w))
            return ShiftBound(value, True, value, w[None, :], "moment-vector-add-remove")
        p = col.precisions[:d]
        q = col.precisions[d:2 * d] if self.squares else None
        value, wit = self._sup(p, q)
        value *= row.max
        return ShiftBound(value, True, value, wit[None, :], "moment-vector-exact")

    def direction_costs(self, row_dirs=None, col_dirs=None, *, axis=None, equimodal=False,
                        shape=None) -> DirectionCosts:
        if equimodal or row_dirs is not None or axis == 0:
            raise InvalidParameterError("mode", "the moment vector takes directional noise along "
                                                "its coordinates only (axis=1)")
        w = self.widths
        if col_dirs is not None:
            w = np.abs(np.asarray(col_dirs)).T @ w
        exact = (self.add_remove or not self.squares) and col_dirs is None
        return DirectionCosts(w * w, exact=exact,
                              description="moment vector: product-box linear budget")

    def witnesses(self, *, row_cov=None, col_cov=None):
        raise NotImplementedError("audit the moment vector with data-driven pairs")


def _release_vector(estimator, value, query, weights, *, epsilon, delta, noise, label):
    """Release the ``(1, k)`` moment vector with the least-expected-loss noise (public choice)."""
    k = query.shape[1]
    plans = []
    if noise in ("auto", "iid"):
        mech = GaussianMechanism(epsilon=epsilon, delta=delta, sensitivity=query.sensitivity_l2,
                                 neighbouring=query.neighbouring)
        plans.append(("iid", "iid", mech, np.full(k, mech.variance)))
    if noise in ("auto", "mvg"):
        w = query.widths
        raw = w * np.sqrt(weights)
        raw = np.where(raw > 0, raw, 1e-6 * raw.max())
        allocs = [("task-weighted", raw)]
        if noise == "auto":
            allocs.append(("mse-optimal", np.where(w > 0, w, 1e-6 * w.max())))
        for name, r in allocs:
            mech = MVGMechanism(shape=(1, k), epsilon=epsilon, delta=delta, sensitivity=query,
                                mode="unimodal", axis=1, precision=r / math.fsum(r),
                                neighbouring=query.neighbouring)
            plans.append(("mvg", name, mech, np.asarray(mech.variances, dtype=np.float64)))
    losses = {name: float(np.dot(weights, var)) for _, name, _, var in plans}
    choice, alloc, mech, var = min(plans, key=lambda p: losses[p[1]])
    with charging(estimator.accountant, mech.privacy, label=label):
        rel = mech.release(value[None, :], rng=estimator.random_state)
    out = dict(value=np.asarray(rel.value, dtype=np.float64)[0], privacy=rel.privacy,
               noise_summary=rel.noise, noise=choice, allocation=alloc, variance=var,
               expected_loss=losses[alloc], candidates=losses)
    return out


def _fit_moment_vector(estimator, X, lo, hi, squares: bool, *, relative: bool, epsilon, delta,
                       noise, label):
    """Release the mean (and mean square about the box centre) of ``X``.

    Returns ``(mean, mean_square or None, out, query)``. Loss weights: 1 (errors in the original
    units, ``DPMean``) or relative to the half-widths (``1/h²``, ``1/h⁴``; the scaler)."""
    n, d = X.shape
    relation = check_relation(estimator.neighbouring)
    sum_c = sq_c = None  # sums about the box centre, when reduced block by block (Dask)
    if is_dask_collection(X):
        n, sum_c, sq_c = column_moments(X, lo, hi, clip=estimator.clip, squares=squares,
                                         relation=relation)
    h = 0.5 * (hi - lo)
    hs = np.where(h > 0, h, 1.0)
    if relative:
        base = np.concatenate([1.0 / hs ** 2, 1.0 / hs ** 4]) if squares else 1.0 / hs ** 2
        prior = (4.0 if squares else 3.0) * d / 9.0  # E‖(m', s')‖² in half-width units
    else:
        base = np.ones(d)
        prior = float(np.sum(h * h)) / 3.0  # E‖m - c‖² for a mean uniform in the box
    if relation == "add-remove":
        t = float(np.sqrt(np.mean(h * h)))
        query = _MomentVectorQuery(lo, hi, None, squares=squares, neighbouring=relation,
                                   count_scale=t)
        if sum_c is None:
            Xc = X - query.center
            sum_c, sq_c = Xc.sum(axis=0), (np.sum(Xc * Xc, axis=0) if squares else None)
        parts = [sum_c] + ([sq_c] if squares else []) + [[n * t]]
        value = np.concatenate(parts)
        weights = np.append(base, prior / (t * t))  # δn = δ(n t)/t moves the means by m δn/n
    else:
        query = _MomentVectorQuery(lo, hi, n, squares=squares)
        mean = np.clip(X.mean(axis=0) if sum_c is None else query.center + sum_c / n, lo, hi)
        value = mean
        if squares:
            sq = np.mean((X - query.center) ** 2, axis=0) if sq_c is None else sq_c / n
            sq = np.clip(sq, 0.0, h * h)
            value = np.concatenate([mean, sq])
        weights = base
    out = _release_vector(estimator, value, query, weights, epsilon=epsilon, delta=delta,
                          noise=noise, label=label)
    released = out["value"]
    if relation == "add-remove":
        n_hat = max(released[-1] / query.count_scale, 1.0)
        mean = query.center + released[:d] / n_hat
        sq = released[d:2 * d] / n_hat if squares else None
    else:
        mean = released[:d]
        sq = released[d:2 * d] if squares else None
    return mean, sq, out, query


def _set_release_attributes(estimator, out):
    estimator.privacy_ = out["privacy"]
    estimator.noise_ = out["noise"]
    estimator.allocation_ = out["allocation"]
    estimator.noise_summary_ = out["noise_summary"]
    estimator.noise_variance_ = out["variance"]
    estimator.expected_loss_ = out["expected_loss"]
    estimator.noise_candidates_ = dict(out["candidates"])


def _fit_moments(estimator, X, squares: bool, *, relative: bool, label: str):
    """The whole fit of :class:`DPMean` and :class:`DPStandardScaler`: check the privacy
    parameters, resolve the bounds (public, or ``"dp"`` charged first), release the moment
    vector (:func:`_fit_moment_vector`), set the release attributes and compose the bounds'
    guarantee into ``privacy_``. Returns ``(mean, mean_square or None, query)``."""
    eps, delta, noise = check_privacy_params(estimator)
    X, lo, hi, eps = fit_bounds(estimator, X, eps)
    mean, sq, out, query = _fit_moment_vector(estimator, X, lo, hi, squares, relative=relative,
                                              epsilon=eps, delta=delta, noise=noise, label=label)
    # a public constant (lower == upper) has its only possible mean, and no spread, whatever
    # noise its released coordinate got (post-processing with public bounds)
    fixed = lo == hi
    mean = np.where(fixed, lo, mean)
    if sq is not None:
        sq = np.where(fixed, 0.0, sq)
    if estimator.project:
        # the mean of records in the box lies in the box, and their mean square about its
        # centre in [0, h²]: projecting the released values there is post-processing with the
        # public bounds and never moves them further from the truth (issue #24)
        mean = np.clip(mean, lo, hi)
        if sq is not None:
            sq = np.clip(sq, 0.0, (0.5 * (hi - lo)) ** 2)
    _set_release_attributes(estimator, out)
    finish_bounds(estimator)
    return mean, sq, query


class DPMean(NoGeneratorStateMixin, BaseEstimator):
    r"""Differentially private mean vector with public per-feature bounds.

    One (ε, δ)-DP release (replace-one neighbours, ``n`` public) of the mean of the records clipped
    to ``bounds``. A neighbouring difference lies in the box ``[-w, w]/n`` (``w`` = upper - lower):
    i.i.d. noise at the tight sensitivity ``‖w‖/n`` has total variance ``d‖w‖²σ₁²``, the MVG
    allocation (variance ∝ ``w_j``) ``(Σ_j w_j)²σ₁²`` (Cauchy-Schwarz;
    ``docs/when_mvg_wins.md`` §2).

    Parameters
    ----------
    epsilon : float, default 1.0
    delta : float, default 1e-6
    bounds : (lower, upper)
        Public bounds, scalars or one value per feature. Required.
        Or ``"dp"`` / :class:`~matrixdp.models.dp_bounds.DPBounds`: a share (default 10%) of
        ``epsilon`` estimates them (exponential-mechanism quantiles over a PUBLIC grid, charged as
        its own entry; ``bounds_`` and ``bounds_privacy_`` after fit; see docs/bounds.md).
    noise : {"auto", "mvg", "iid"}, default "auto"
        ``"auto"``: the least exact expected squared error (in the units ``loss`` names) from the
        public bounds; ``"mvg"``: the allocation weighted by that loss.
    neighbouring : {"replace-one", "add-remove"}, default "replace-one"
        Replace-one (``n`` public) or add-remove (``n`` private: the sums and ``n·t`` are released,
        one record's vector ``(x - c, t)`` is the difference; ``mean_ = c + Σ(x - c) / n̂``).
    clip : bool, default True
    project : bool, default True
        Project the released mean onto the public box ``[lower, upper]`` (and, in
        :class:`DPStandardScaler`, the mean square about the box's centre onto ``[0, h²]``):
        post-processing with the public bounds, never further from the truth. ``False`` keeps
        the raw release (unbiased; ``matrixdp release`` takes it and projects it itself).
    loss : {"relative", "original"}, default "relative"
        The squared error the noise is allocated to minimise. ``"relative"``: each feature's
        error in units of its public half-width, ``Σ_j (err_j / h_j)²``, so the release does not
        depend on the units a column is written in (a column in grams and the same column in
        kilograms, with bounds to match, get the same relative noise) and a narrow column (a
        0/1 share beside an income) is not sacrificed to a wide one. ``"original"``:
        ``Σ_j err_j²`` in the columns' own units (the only choice before session 23; right when
        every column is in one common unit). Public either way.
    random_state : None, int or numpy.random.Generator
        ``None``: secure generator. A seeded fit is replayable by whoever knows the seed; a
        Generator is dropped from pickles and copies of the fitted model.
        Under ``sklearn.base.clone`` (``cross_val_score``, ``GridSearchCV``) an int seed gives
        every clone the same noise, so the difference of two folds' outputs is noise-free:
        use ``None`` there; a Generator gives each clone its own spawned stream.
    accountant : Accountant, Ledger or object with ``spend(guarantee, label=...)``, optional
        Charged the fit's whole guarantee before any noise is drawn (a refusal stops the fit).
        ``None``: the accountants of enclosing ``with Accountant(...):`` blocks, if any.
        Every ``fit`` is a new release, charged again: ``cross_val_score`` with k folds spends
        k × (ε, δ); ``GridSearchCV`` one per fold and candidate, plus the refit. With no keeper
        (none given, no ``with`` block) nothing is recorded (``docs/security.md``, "Budget
        keepers are handles").

    Attributes
    ----------
    mean_ : ndarray (n_features,)
        Within the public box with ``project=True``: the released mean projected onto
        ``[lower, upper]`` (where every record's mean lies; post-processing). A public
        constant feature (``lower == upper``) gets its only possible value, ``lower`` (the noise
        its coordinate got is dropped).
    privacy_ : PrivacyGuarantee
    noise_variance_ : ndarray
        Exact noise variance of each released entry (public): of the released mean (before its
        projection onto the box) under replace-one; of the released sums (then the count
        ``n t``) under add-remove.
    noise_, allocation_, noise_summary_, expected_loss_, noise_candidates_
        As in :class:`~matrixdp.models.DPCovariance`.

    References
    ----------
    .. [1] matrixdp, ``docs/when_mvg_wins.md``.
    """

    def __init__(self, *, epsilon=1.0, delta=1e-6, bounds=None, noise="auto",
                 neighbouring="replace-one", clip=True, random_state=None, accountant=None,
                 project=True, loss="relative"):
        self.project = project
        self.loss = loss
        self.neighbouring = neighbouring
        self.epsilon = epsilon
        self.delta = delta
        self.bounds = bounds
        self.noise = noise
        self.clip = clip
        self.random_state = random_state
        self.accountant = accountant

    def fit(self, X, y=None):
        """Release the mean of ``X``."""
        check_choice(self.loss, MEAN_LOSSES, "loss")
        self.mean_, _, _ = _fit_moments(self, X, False, relative=self.loss == "relative",
                                        label="DPMean.fit")
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = self.random_state is None
        return tags


class DPStandardScaler(NoGeneratorStateMixin, OneToOneFeatureMixin, TransformerMixin,
                       BaseEstimator):
    r"""Differentially private standardisation with public per-feature bounds.

    One (ε, δ)-DP release (replace-one, ``n`` public) of the vector
    ``(mean(x), mean((x - c)²))`` of the records clipped to ``bounds`` (``c`` the box centre), at
    its exact sensitivity (:class:`_MomentVectorQuery`); then ``var_ = mean((x-c)²) - (mean_ - c)²``
    floored at 0 and ``scale_ = sqrt(var_)`` (1 where it is 0, as scikit-learn does). The
    allocation ``"auto"`` minimises the expected error in units of the public half-widths (relative
    errors of the mean and the second moment).

    Parameters
    ----------
    epsilon : float, default 1.0
    delta : float, default 1e-6
    bounds : (lower, upper)
        Public bounds, scalars or one value per feature. Required.
        Or ``"dp"`` / :class:`~matrixdp.models.dp_bounds.DPBounds`: a share (default 10%) of
        ``epsilon`` estimates them (exponential-mechanism quantiles over a PUBLIC grid, charged as
        its own entry; ``bounds_`` and ``bounds_privacy_`` after fit; see docs/bounds.md).
    with_mean, with_std : bool, default True
        As :class:`sklearn.preprocessing.StandardScaler`. ``with_std=False`` releases the mean only.
    noise : {"auto", "mvg", "iid"}, default "auto"
    neighbouring : {"replace-one", "add-remove"}, default "replace-one"
        As in :class:`DPMean` (add-remove releases the sums, the sums of squares and ``n·t``).
    clip : bool, default True
    project : bool, default True
        Project the released mean onto the public box ``[lower, upper]`` (and, in
        :class:`DPStandardScaler`, the mean square about the box's centre onto ``[0, h²]``):
        post-processing with the public bounds, never further from the truth. ``False`` keeps
        the raw release (unbiased; ``matrixdp release`` takes it and projects it itself).
    random_state : None, int or numpy.random.Generator
        ``None``: secure generator. A seeded fit is replayable by whoever knows the seed; a
        Generator is dropped from pickles and copies of the fitted model.
        Under ``sklearn.base.clone`` (``cross_val_score``, ``GridSearchCV``) an int seed gives
        every clone the same noise, so the difference of two folds' outputs is noise-free:
        use ``None`` there; a Generator gives each clone its own spawned stream.
    accountant : Accountant, Ledger or object with ``spend(guarantee, label=...)``, optional
        Charged the fit's whole guarantee before any noise is drawn (a refusal stops the fit).
        ``None``: the accountants of enclosing ``with Accountant(...):`` blocks, if any.
        Every ``fit`` is a new release, charged again: ``cross_val_score`` with k folds spends
        k × (ε, δ); ``GridSearchCV`` one per fold and candidate, plus the refit. With no keeper
        (none given, no ``with`` block) nothing is recorded (``docs/security.md``, "Budget
        keepers are handles").

    Attributes
    ----------
    mean_, var_, scale_ : ndarray (n_features,)
        (``var_`` and ``scale_`` are None with ``with_std=False``.) A public constant feature
        (``lower == upper``) gets ``mean_ = lower``, ``var_ = 0``, ``scale_ = 1``.
    n_samples_seen_ : int or None
        The number of records under replace-one (public there); ``None`` under add-remove,
        where the count is private.
    privacy_ : PrivacyGuarantee
        The guarantee of the whole fit.
    noise_, allocation_, noise_summary_, noise_variance_, expected_loss_, noise_candidates_
        As in :class:`DPMean`.

    References
    ----------
    .. [1] matrixdp, ``docs/when_mvg_wins.md``.
    """

    def __init__(self, *, epsilon=1.0, delta=1e-6, bounds=None, with_mean=True, with_std=True,
                 noise="auto", neighbouring="replace-one", clip=True, random_state=None,
                 accountant=None, project=True):
        self.project = project
        self.neighbouring = neighbouring
        self.epsilon = epsilon
        self.delta = delta
        self.bounds = bounds
        self.with_mean = with_mean
        self.with_std = with_std
        self.noise = noise
        self.clip = clip
        self.random_state = random_state
        self.accountant = accountant

    def fit(self, X, y=None):
        """Release the mean (and second moment) of ``X``."""
        squares = bool(self.with_std)
        self.mean_, sq, query = _fit_moments(self, X, squares, relative=True,
                                             label="DPStandardScaler.fit")
        if squares:
            var = sq - (self.mean_ - query.center) ** 2
            self.var_ = np.maximum(var, 0.0)
            self.scale_ = np.where(self.var_ > 0, np.sqrt(self.var_), 1.0)
        else:
            self.var_ = None
            self.scale_ = None
        # public n under replace-one; None under add-remove, where n is private (in memory and
        # on Dask alike: the exact count would tell neighbours apart with certainty)
        self.n_samples_seen_ = query.n_records
        return self

    def transform(self, X):
        """``(X - mean_) / scale_`` (each step only if enabled)."""
        check_is_fitted(self, "mean_")
        X = validate_X(self, X, reset=False, copy=True)
        if self.with_mean:
            X -= self.mean_
        if self.with_std:
            X /= self.scale_
        return X

    def inverse_transform(self, X):
        """Undo :meth:`transform`."""
        check_is_fitted(self, "mean_")
        X = np.array(X, dtype=np.float64, copy=True)
        if X.ndim != 2 or X.shape[1] != self.n_features_in_:
            raise InvalidShapeError("X", f"must be 2-D with {self.n_features_in_} columns (the "
                                         f"features DPStandardScaler was fitted on), got "
                                         f"{X.ndim}-D with {X.shape[-1] if X.ndim else 0}")
        if self.with_std:
            X *= self.scale_
        if self.with_mean:
            X += self.mean_
        return X

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = self.random_state is None
        return tags
