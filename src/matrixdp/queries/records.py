"""Queries that know their public bounds, and so their sensitivity structure.

A query here is *public* configuration: the bounds a record may take, how many
records there are, and what ``f(X)`` is. From that alone it derives the
Frobenius sensitivity ``s₂`` (:attr:`sensitivity_l2`), the MVG bound
``γ = sup_X ‖f(X)‖_F`` (:attr:`gamma`), whether ``f(X)`` is symmetric / PSD,
the set of differences ``f(X) - f(X')`` between neighbours (used by the exact
MVG calibration through :meth:`shift_bound` and :meth:`direction_costs`) and
worst-case neighbouring pairs for an auditor (:meth:`witnesses`). Bounds are
never read from the data: :meth:`compute` raises :class:`OutOfBoundsError`
for data outside them (or clips, with ``clip=True``).

Orientation: ``X`` is ``(n_samples, n_features)``, records in **rows**
(scikit-learn). The MVG papers store records in columns, so their
``m x n = features x records`` identity query is our ``X.T``; their row-wise
(feature) covariance Σ is our ``col_cov`` for :class:`IdentityQuery`, and their
covariance query ``XXᵀ/n`` is our ``XᵀX/n`` (:class:`CovarianceQuery`).
Neighbouring relation: replace one record (bounded DP), as in the papers.

Derivations: ``docs/mvg.md``.
"""

from __future__ import annotations

import math

import numpy as np

from .._record_sums import ball_record_sums, bounded_record_sums, is_dask_collection
from .._validation import check_finite_array, check_in_bounds, check_positive, check_row_norms
from ..calibration.mvg_exact import AxisPrecision, DirectionCosts, ShiftBound
from ..errors import InvalidParameterError, InvalidShapeError, OutOfBoundsError
from .base import SensitivityStructure, Witnesses, check_count, cost_dim, signed_permutation
from .geometry import direction_reach, outer_product_shift, record_box_shift

__all__ = ["IdentityQuery", "CovarianceQuery"]

# ----------------------------------------------------------------------------- Frobenius ball
# ----------------------------------------------------------------------------- identity query
def _parse_bounds(bounds, radius, n_features):
    if (bounds is None) == (radius is None):
        raise InvalidParameterError("bounds", "give exactly one of bounds=(lower, upper) (a box "
                                              "per feature) or radius= (an L2 ball per record)")
    if radius is not None:
        r = check_positive(radius, "radius")
        if n_features is None:
            raise InvalidParameterError("n_features", "is required with radius=")
        return None, None, r, int(n_features)
    try:
        lower, upper = bounds
    except (TypeError, ValueError):
        raise InvalidParameterError("bounds", f"must be a pair (lower, upper), got {bounds!r}") \
            from None
    lo = check_finite_array(lower, "bounds")
    hi = check_finite_array(upper, "bounds")
    if lo.ndim > 1 or hi.ndim > 1:
        raise InvalidShapeError("bounds", "lower and upper must be scalars or 1-D arrays")
    if n_features is None:
        if lo.ndim == 0 and hi.ndim == 0:
            raise InvalidParameterError("n_features", "is required with scalar bounds")
        n_features = max(lo.size if lo.ndim else 0, hi.size if hi.ndim else 0)
    try:
        lo = np.broadcast_to(lo, (int(n_features),)).astype(np.float64)
        hi = np.broadcast_to(hi, (int(n_features),)).astype(np.float64)
    except ValueError:
        raise InvalidShapeError("bounds", f"must broadcast to n_features={n_features}") from None
    if np.any(lo > hi):
        raise InvalidParameterError("bounds", "lower must be <= upper for every feature")
    if not np.any(hi > lo):
        raise InvalidParameterError("bounds", "at least one feature must have a non-empty range")
    return lo, hi, None, int(n_features)


class _RecordQuery(SensitivityStructure):
    """Shared record-bound handling (box or ball) and validation."""

    def __init__(self, bounds, radius, n_samples, n_features, clip):
        self.lower, self.upper, self.radius, self.n_features = _parse_bounds(
            bounds, radius, check_count(n_features, "n_features"))
        self.n_samples = check_count(n_samples, "n_samples")
        self.clip = bool(clip)

    @property
    def reach(self) -> np.ndarray:
        """``R_j = max(|lo_j|, |hi_j|)`` (box)."""
        return np.maximum(np.abs(self.lower), np.abs(self.upper))

    @property
    def max_record_norm_sq(self) -> float:
        """``R² = sup ‖x‖²`` over the record domain."""
        if self.radius is not None:
            return self.radius ** 2
        return float(self.reach @ self.reach)

    def _check_data(self, X, center=None) -> np.ndarray:
        """``X`` (minus the public ``center``, if given) checked against the public domain.

        The box bounds apply to the raw records, the ball's ``radius`` to ``x - center``.
        """
        x = check_finite_array(X, "X", ndim=2)
        if x.shape[1] != self.n_features:
            raise InvalidShapeError("X", f"must have n_features={self.n_features} columns, got "
                                         f"{x.shape[1]}")
        if self.n_samples is not None and x.shape[0] != self.n_samples:
            raise self._count_mismatch()
        if self.radius is not None:
            if center is not None:
                x = x - center
            return check_row_norms(x, self.radius, "X", bound_name="radius", clip=self.clip)
        if self.clip:
            x = np.clip(x, self.lower, self.upper)
        else:
            check_in_bounds(x, self.lower, self.upper, "X")
        return x if center is None else x - center

    def _record_sums(self, X, center=None):
        """Sums of the checked (and centred) records of ``X``, block by block.

        For Dask collections: each block is checked against the public box or ball where it
        lives and only the count, the sum and the Gram matrix reach the driver
        (:mod:`matrixdp._record_sums`). The count must be the public ``n_samples``.
        """
        if self.radius is not None:
            sums = ball_record_sums(X, self.radius, clip=self.clip, center=center,
                                    bound_name="radius")
        else:
            sums = bounded_record_sums(X, self.lower, self.upper, clip=self.clip, center=center)
        if self.n_samples is not None and sums.n != self.n_samples:
            raise self._count_mismatch()
        if sums.gram.shape != (self.n_features, self.n_features):
            raise InvalidShapeError("X", f"must have n_features={self.n_features} columns")
        return sums

    def _count_mismatch(self) -> InvalidShapeError:
        # the actual row count is not echoed: it may be private (add/remove neighbours)
        return InvalidShapeError("X", f"must have n_samples={self.n_samples} rows (the public "
                                      "count the query was built for); build the query with the "
                                      "data set's public size")

    def _need_n(self) -> int:
        if self.n_samples is None:
            raise InvalidParameterError("n_samples", "this needs the (public) number of records")
        return self.n_samples

    def _far_record(self) -> np.ndarray:
        if self.radius is not None:
            e = np.zeros(self.n_features)
            e[0] = self.radius
            return e
        return np.where(np.abs(self.upper) >= np.abs(self.lower), self.upper, self.lower)


class IdentityQuery(_RecordQuery):
    r"""Release ``X`` itself, ``(n_samples, n_features)``; replace-one changes one row.

    Differences are ``D = e_k dᵀ`` with ``d = x - x'`` in the box
    ``[-(hi - lo), hi - lo]`` (per-feature public ranges) or, with ``radius=r``
    (records with ``‖x‖ <= r``), the ball ``‖d‖ <= 2r``. Hence
    ``s₂ = ‖hi - lo‖`` (``2r``) and ``γ = sqrt(n Σ_j max(lo_j², hi_j²))`` (``sqrt(n) r``).
    The paper's layout (features x records) is ``X.T``: its feature directions
    are our column axis (``axis=1``, ``col_cov``).

    Parameters
    ----------
    bounds : (lower, upper), optional
        Public per-feature bounds (scalars or arrays of length ``n_features``).
    radius : float, optional
        Public bound on each record's L2 norm (instead of ``bounds``).
    n_samples : int, optional
        Public number of records (needed for ``gamma``, ``shape`` and ``witnesses``).
    n_features : int, optional
        Needed with scalar bounds or ``radius``.
    clip : bool
        Clip data to the bounds in :meth:`compute` instead of raising.

    Examples
    --------
    >>> q = IdentityQuery(bounds=(-1.0, 1.0), n_features=6, n_samples=248)
    >>> round(q.sensitivity_l2, 6)   # 2*sqrt(6), the paper's Exp. I
    4.898979

    References
    ----------
    .. [1] T. Chanyaswad et al., arXiv:1802.10077, Sec. 5.4.1 and 8.1.
    .. [2] matrixdp, ``docs/mvg.md``.
    """

    feature_axis = 1

    def __init__(self, bounds=None, *, radius=None, n_samples=None, n_features=None,
                 clip: bool = False):
        super().__init__(bounds, radius, n_samples, n_features, clip)

    def dp_direction_bounds(self, data: np.ndarray) -> tuple[np.ndarray, dict]:
        """The data and the public bounds to estimate DP directions with."""
        if self.radius is not None:
            return data, {"norm_bound": self.radius}
        return data, {"bounds": (self.lower, self.upper)}

    def check_value(self, value: np.ndarray) -> None:
        """The value is ``X`` itself: every record must lie in the public box / ball."""
        if self.radius is not None:
            check_row_norms(value, self.radius, "value", bound_name="radius")
        else:
            check_in_bounds(value, self.lower, self.upper, "value")

    @property
    def shape(self) -> tuple:
        return (self.n_samples, self.n_features)

    @property
    def half_widths(self) -> np.ndarray | None:
        """``w = hi - lo``: the box of ``x - x'`` is ``[-w, w]``."""
        return None if self.radius is not None else self.upper - self.lower

    @property
    def sensitivity_l2(self) -> float:
        if self.radius is not None:
            return 2.0 * self.radius
        return float(np.linalg.norm(self.half_widths))

    @property
    def gamma(self) -> float:
        return math.sqrt(self._need_n() * self.max_record_norm_sq)

    def compute(self, X) -> np.ndarray:
        """Validate ``X`` (finite, in bounds, public shape) and return it as float64."""
        return np.array(self._check_data(X), dtype=np.float64)

    def shift_bound(self, row, col) -> ShiftBound:
        if col.dim != self.n_features:
            raise InvalidShapeError("col_cov", f"must be {self.n_features} x {self.n_features} "
                                               "(the feature axis)")
        return record_box_shift(row, col, half_widths=self.half_widths, radius=self.radius)

    def direction_costs(self, row_dirs=None, col_dirs=None, *, axis=None, equimodal=False,
                        shape=None) -> DirectionCosts:
        if equimodal:
            raise InvalidParameterError("mode", "the identity query is not symmetric; equi-modal "
                                                "noise (Psi = Sigma) needs a symmetric query")
        width_sq = 4.0 * self.radius ** 2 if self.radius is not None else \
            float(self.half_widths @ self.half_widths)
        if row_dirs is not None or axis == 0:  # directional over the records, features identity
            if row_dirs is None:
                n = cost_dim(None, None, 0, shape, self.shape)
                costs = np.full(n, width_sq)
            else:
                u = np.asarray(row_dirs)
                costs = np.max(u * u, axis=0) * width_sq
            return DirectionCosts(costs, exact=costs.size == 1,
                                  description="identity query, record axis: "
                                              "mu^2 = max_k (Sigma^-1)_kk |w|^2")
        dirs = None if col_dirs is None else np.asarray(col_dirs)
        if self.radius is not None:
            costs = np.full(self.n_features, width_sq)
            return DirectionCosts(costs, exact=self.n_features == 1,
                                  description="identity query, ball records")
        h = direction_reach(dirs, self.half_widths)
        return DirectionCosts(h * h, exact=signed_permutation(dirs),
                              description="identity query, feature axis: "
                                          "c_j = (sum_k |v_jk| w_k)^2")

    def witnesses(self, *, row_cov=None, col_cov=None) -> Witnesses:
        """Worst-case pairs ``(X, X')`` differing in one row (list of ndarray pairs).

        Without covariances: the pair maximising ``‖X - X'‖_F`` (every feature at
        opposite ends). With ``row_cov`` / ``col_cov``: also the pair attaining the
        best known Mahalanobis shift for that noise (the exact worst case when
        :meth:`shift_bound` is exact).
        """
        n = self._need_n()
        pairs = []
        ds = [self._frobenius_worst()]
        if row_cov is not None or col_cov is not None:
            row, col = self._axis_precisions(row_cov, col_cov)
            self.shift_bound(row, col)  # validates the shapes
            # the dense search finds better witnesses than the eigen-form bound's candidates
            ds.append(record_box_shift(row, col, half_widths=self.half_widths, radius=self.radius,
                                       dense=True).witness)
        for d in ds:
            k = int(np.flatnonzero(np.any(d != 0, axis=1))[0]) if np.any(d) else 0
            x, x_prime = self._records_for(d[k])
            base = np.tile(self._base_record(), (n, 1))
            a, b = base.copy(), base.copy()
            a[k], b[k] = x, x_prime
            pairs.append((a, b))
        return pairs

    def _base_record(self) -> np.ndarray:
        if self.radius is not None:
            return np.zeros(self.n_features)
        return self.lower.copy()

    def _frobenius_worst(self) -> np.ndarray:
        d = np.zeros((self._need_n(), self.n_features))
        if self.radius is not None:
            d[0, 0] = 2.0 * self.radius
        else:
            d[0] = self.half_widths
        return d

    def _records_for(self, d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Two admissible records with ``x - x' = d``."""
        if self.radius is not None:
            return d / 2.0, -d / 2.0
        x = np.where(d >= 0, self.upper, self.lower)
        return x, x - d

    def __repr__(self) -> str:
        dom = f"radius={self.radius:g}" if self.radius is not None else \
            f"bounds=([{self.lower.min():g}..], [{self.upper.max():g}..])"
        return f"IdentityQuery({dom}, n_samples={self.n_samples}, n_features={self.n_features})"


# ----------------------------------------------------------------------------- covariance query
class CovarianceQuery(_RecordQuery):
    r"""Second-moment (Gram) matrix ``(1/n) (X - c)ᵀ (X - c)`` with a *public* centre ``c``.

    Replacing one record changes the value by ``D = (x xᵀ - x' x'ᵀ)/n`` with
    ``x, x'`` in the (shifted) record box or ball. With ``R² = sup ‖x‖²``:

    - ``γ = R²`` exactly (all records at a farthest vertex);
    - ``s₂ = sup ‖D‖_F = sqrt(sup ‖x‖⁴ + ‖x'‖⁴ - 2(xᵀx')²)/n <= √2 R²/n``, attained
      when two farthest records are orthogonal (e.g. ``[-c, c]^m`` with ``m`` even);
      ``sensitivity_bound="paper"`` gives the paper's looser ``2R²/n`` (Example 1:
      ``2 m c²/n``).

    The value is symmetric PSD, so Theorem 3 and equi-modal noise apply.
    Centring with the *private* mean would change every record's contribution
    (spec A13); only a public ``center`` is accepted.

    Parameters
    ----------
    bounds : (lower, upper), optional
        Public per-feature bounds of the raw records.
    radius : float, optional
        Public bound on ``‖x - c‖`` (instead of ``bounds``).
    n_samples : int
        Public number of records ``n``.
    n_features : int, optional
        Needed with scalar bounds or ``radius``.
    center : array_like, optional
        Public constant subtracted from every record (default 0).
    sensitivity_bound : {"tight", "paper"}
        Which ``s₂`` to report (see above).
    clip : bool
        Clip data to the bounds in :meth:`compute` instead of raising.

    Examples
    --------
    >>> q = CovarianceQuery(bounds=(-100, 100), n_features=4, n_samples=10176,
    ...                     sensitivity_bound="paper")
    >>> round(q.sensitivity_l2, 6), q.gamma     # spec's Exp. II values
    (7.861635, 40000.0)

    References
    ----------
    .. [1] T. Chanyaswad et al., arXiv:1802.10077, Sec. 4.4 (Example 1) and 8.2.
    .. [2] matrixdp, ``docs/mvg.md``.
    """

    symmetric = True
    psd = True

    def __init__(self, bounds=None, *, radius=None, n_samples, n_features=None, center=None,
                 sensitivity_bound: str = "tight", clip: bool = False):
        if n_samples is None:
            raise InvalidParameterError("n_samples", "is required (the public number of records)")
        super().__init__(bounds, radius, n_samples, n_features, clip)
        if sensitivity_bound not in ("tight", "paper"):
            raise InvalidParameterError("sensitivity_bound",
                                        f"must be 'tight' or 'paper', got {sensitivity_bound!r}")
        self.sensitivity_bound = sensitivity_bound
        self.center = np.zeros(self.n_features) if center is None else check_finite_array(
            np.broadcast_to(center, (self.n_features,)), "center").copy()
        # record domain after centring
        if self.radius is None:
            self._lo = self.lower - self.center
            self._hi = self.upper - self.center
        else:
            self._lo = self._hi = None
        self.scale = 1.0 / self.n_samples
        eye = AxisPrecision.identity(self.n_features)
        fro = outer_product_shift(eye, eye, scale=1.0, lower=self._lo, upper=self._hi,
                                  radius=self.radius)
        self._fro_sq, self._fro_exact, self._fro_records = fro.value_sq, fro.exact, fro.records

    @property
    def shape(self) -> tuple:
        return (self.n_features, self.n_features)

    @property
    def reach(self) -> np.ndarray:
        return np.maximum(np.abs(self._lo), np.abs(self._hi))

    @property
    def sensitivity_l2(self) -> float:
        if self.sensitivity_bound == "paper":
            return 2.0 * self.max_record_norm_sq * self.scale
        return self.scale * math.sqrt(self._fro_sq)

    @property
    def sensitivity_l2_exact(self) -> bool:
        return self.sensitivity_bound == "tight" and self._fro_exact

    @property
    def gamma(self) -> float:
        return self.max_record_norm_sq

    def check_value(self, value: np.ndarray) -> None:
        """A second-moment matrix has ``‖f(X)‖_F <= γ``; larger values cannot come from bounded data."""
        if np.linalg.norm(value) > self.gamma * (1 + 1e-9):
            raise OutOfBoundsError("value", f"Frobenius norm exceeds the public bound "
                                            f"gamma={self.gamma:.6g}; compute it with query.compute(X)")

    def dp_direction_bounds(self, data: np.ndarray) -> tuple[np.ndarray, dict]:
        """Centred data and the public bounds to estimate DP directions with."""
        if self.radius is not None:
            return data - self.center, {"norm_bound": self.radius}
        return data - self.center, {"bounds": (self._lo, self._hi)}

    def compute(self, X) -> np.ndarray:
        """``(X - c)ᵀ (X - c) / n`` after validating ``X`` against the public bounds.

        ``X`` may be a numpy array, a data frame, or a Dask array or data frame: Dask blocks are
        checked and summed where they live, and only the ``d x d`` Gram matrix reaches the
        driver (``docs/scaling.md``).
        """
        if is_dask_collection(X):
            out = self._record_sums(X, center=self.center).gram * self.scale
            return 0.5 * (out + out.T)
        x = self._check_data(X, center=self.center)
        out = (x.T @ x) * self.scale
        return 0.5 * (out + out.T)

    def shift_bound(self, row, col) -> ShiftBound:
        if row.dim != self.n_features or col.dim != self.n_features:
            raise InvalidShapeError("row_cov", f"covariances must be {self.n_features} x "
                                               f"{self.n_features}")
        return outer_product_shift(row, col, scale=self.scale, lower=self._lo, upper=self._hi,
                                   radius=self.radius)

    def direction_costs(self, row_dirs=None, col_dirs=None, *, axis=None, equimodal=False,
                        shape=None) -> DirectionCosts:
        dirs = row_dirs if row_dirs is not None else col_dirs
        dirs = None if dirs is None else np.asarray(dirs)
        p = self.n_features
        if self.radius is not None:
            h = np.full(p, self.radius)
        else:
            h = direction_reach(dirs, self.reach)
        if equimodal:
            return DirectionCosts(h * h, power=2, scale=2.0 * self.scale ** 2, exact=False,
                                  description="covariance query, Psi = Sigma: "
                                              "mu^2 <= 2 kappa^2 (sum_i p_i h_i^2)^2")
        r2 = self.max_record_norm_sq
        costs = self.scale ** 2 * np.minimum(4.0 * r2 * h * h, r2 * r2)
        return DirectionCosts(costs, exact=False,
                              description="covariance query, one axis identity: "
                                          "c_i = kappa^2 min(4 R^2 h_i^2, R^4)")

    def witnesses(self, *, row_cov=None, col_cov=None) -> Witnesses:
        """Worst-case pairs ``(f(X), f(X'))`` (list of ndarray pairs): datasets of ``n`` records.

        All records but one sit at a farthest point of the domain; the remaining
        one is ``x`` in ``X`` and ``x'`` in ``X'``, chosen to maximise ``‖D‖_F`` and,
        with covariances given, the best known Mahalanobis shift.
        """
        n = self.n_samples
        pairs_xy = [self._fro_records]
        if row_cov is not None or col_cov is not None:
            row, col = self._axis_precisions(row_cov, col_cov)
            recs = self.shift_bound(row, col).records
            if recs is not None:
                pairs_xy.append(recs)
        base = self._far_record_centered()
        out = []
        for a, b in pairs_xy:
            xs = np.tile(base, (n, 1))
            xs_prime = xs.copy()
            xs[0], xs_prime[0] = a, b
            out.append((self._value_centered(xs), self._value_centered(xs_prime)))
        return out

    def _far_record_centered(self) -> np.ndarray:
        if self.radius is not None:
            e = np.zeros(self.n_features)
            e[0] = self.radius
            return e
        return np.where(np.abs(self._hi) >= np.abs(self._lo), self._hi, self._lo)

    def _value_centered(self, xs: np.ndarray) -> np.ndarray:
        out = (xs.T @ xs) * self.scale
        return 0.5 * (out + out.T)

    def __repr__(self) -> str:
        return (f"CovarianceQuery(n_samples={self.n_samples}, n_features={self.n_features}, "
                f"{'radius=' + format(self.radius, 'g') if self.radius is not None else 'box'})")
