"""The sensitivity structure of a query: its set of neighbouring differences and public bounds.

:class:`SensitivityStructure` is the interface the mechanisms and the auditor use
(``shift_bound``, ``direction_costs``, ``witnesses``, ``check_value``, ``compute``);
:class:`FrobeniusBall` is what a bare Frobenius sensitivity means. Derivations:
``docs/mvg.md``.
"""

from __future__ import annotations

import abc

import numpy as np

from .._linalg import check_directions
from .._owned import OwnsConfiguration
from .._validation import check_positive, check_sensitivity
from ..calibration.mvg_exact import AxisPrecision, DirectionCosts, ShiftBound
from ..errors import InvalidParameterError
from .geometry import frobenius_ball_shift

__all__ = ["SensitivityStructure", "FrobeniusBall", "Witnesses", "as_structure", "is_structure",
           "check_count", "cost_dim", "signed_permutation"]


#: A list of worst-case neighbouring pairs ``(f(X), f(X'))``.
Witnesses = list


def _check_dirs(dirs, dim: int, argument: str):
    if dirs is None:
        return None
    return check_directions(dirs, dim, argument)


def signed_permutation(dirs) -> bool:
    if dirs is None:
        return True
    # dense directions fail on their first column: no pass over the whole matrix
    if np.count_nonzero(np.abs(dirs[:, 0]) > 1e-12) != 1:
        return False
    return bool(np.all(np.count_nonzero(np.abs(dirs) > 1e-12, axis=0) == 1))


class SensitivityStructure(OwnsConfiguration, abc.ABC):
    """The set of differences ``f(X) - f(X')`` over neighbouring datasets, with its public bounds.

    Configuration is copied on the way in (:class:`~matrixdp._owned.OwnsConfiguration`):
    the bounds, center and counts a query keeps are its own, and a mechanism built on a query
    keeps its own copy (its public attributes may be reassigned by the caller afterwards).

    Attributes
    ----------
    sensitivity_l2 : float
        Frobenius sensitivity ``s₂ = sup ‖f(X) - f(X')‖_F``.
    sensitivity_l2_exact : bool
        Whether ``sensitivity_l2`` is the supremum (True) or an upper bound.
    gamma : float
        ``sup_X ‖f(X)‖_F`` (needed by the MVG paper's Theorems 2-3).
    shape : tuple
        Shape of ``f(X)`` (entries may be ``None`` when unknown).
    symmetric, psd : bool
        Structural properties of ``f(X)`` for every dataset.
    neighbouring : str
        ``"replace-one"``.
    feature_axis : int
        The axis of ``f(X)`` indexing features (1 for :class:`IdentityQuery`, else 0);
        the MVG mechanism's default directional axis.

    Methods used by the mechanism and the auditor: :meth:`shift_bound`
    (Mahalanobis sensitivity of given noise precisions), :meth:`direction_costs`
    (linear precision budget), :meth:`witnesses` (worst-case neighbouring pairs,
    a ``list`` of ``(ndarray, ndarray)`` query values), :meth:`check_value` and
    :meth:`compute`. Any object with ``shift_bound`` and ``direction_costs`` is
    accepted as a structure (:func:`is_structure`).
    """

    _pass_by_reference = False
    neighbouring = "replace-one"
    symmetric = False
    psd = False
    sensitivity_l2_exact = True
    #: The axis of ``f(X)`` that indexes features (the natural directional axis).
    feature_axis = 0

    def check_value(self, value: np.ndarray) -> None:
        """Raise if a (claimed) query value is impossible under the public bounds (default: no check)."""

    @property
    @abc.abstractmethod
    def sensitivity_l2(self) -> float:
        """Frobenius sensitivity."""

    @property
    @abc.abstractmethod
    def gamma(self) -> float:
        """``sup_X ‖f(X)‖_F``."""

    @abc.abstractmethod
    def shift_bound(self, row: AxisPrecision, col: AxisPrecision) -> ShiftBound:
        """``sup_D μ(D)²`` for noise precisions ``row`` (Σ⁻¹) and ``col`` (Ψ⁻¹)."""

    @abc.abstractmethod
    def direction_costs(self, row_dirs=None, col_dirs=None, *, axis=None, equimodal: bool = False,
                        shape=None) -> DirectionCosts:
        """The linear precision budget along one axis's directions (see :class:`DirectionCosts`).

        ``row_dirs`` (``col_dirs``) makes the rows (columns) directional with those
        orthonormal directions, the other axis being the identity; with neither,
        ``axis`` (0 or 1) names the directional axis and the standard basis is used
        (never materialised). ``equimodal=True``: Ψ = Σ with ``row_dirs``.
        """

    @abc.abstractmethod
    def witnesses(self, *, row_cov=None, col_cov=None) -> Witnesses:
        """Worst-case neighbouring pairs ``[(f(X), f(X')), ...]`` (list of ndarray pairs)."""

    def compute(self, X) -> np.ndarray:  # pragma: no cover - overridden
        raise NotImplementedError

    def _axis_precisions(self, row_cov, col_cov) -> tuple[AxisPrecision, AxisPrecision]:
        m, n = self.shape
        row = (row_cov if isinstance(row_cov, AxisPrecision) else
               AxisPrecision.identity(m) if row_cov is None else
               AxisPrecision.from_covariance(row_cov, "row_cov"))
        col = (col_cov if isinstance(col_cov, AxisPrecision) else
               AxisPrecision.identity(n) if col_cov is None else
               AxisPrecision.from_covariance(col_cov, "col_cov"))
        return row, col


def is_structure(obj) -> bool:
    """Duck-typed check: anything with ``shift_bound`` and ``direction_costs`` is a structure."""
    return callable(getattr(obj, "shift_bound", None)) and \
        callable(getattr(obj, "direction_costs", None))


def as_structure(sensitivity, shape=None) -> SensitivityStructure:
    """A number becomes a :class:`FrobeniusBall`; a structure is returned unchanged."""
    if is_structure(sensitivity):
        return sensitivity
    return FrobeniusBall(sensitivity, shape=shape)


class FrobeniusBall(SensitivityStructure):
    r"""Generic structure: every difference with ``‖D‖_F <= s₂`` (what a bare number means).

    The exact Mahalanobis sensitivity is ``s₂/sqrt(λ_min(Σ)λ_min(Ψ))``: the ball is
    rotation invariant, so directional noise cannot beat i.i.d. noise on it.

    Parameters
    ----------
    s2 : float
        Frobenius sensitivity, > 0 (a public bound).
    shape : tuple of int, optional
        Shape of the query value (for :meth:`witnesses`).
    gamma : float, optional
        ``sup ‖f(X)‖_F`` if known.
    symmetric, psd : bool
        What the caller asserts about the query.

    References
    ----------
    .. [1] matrixdp, ``docs/mvg.md`` §3.1.
    """

    def __init__(self, s2, *, shape=None, gamma=None, symmetric: bool = False, psd: bool = False):
        self.s2 = check_sensitivity(s2)
        self.shape = None if shape is None else tuple(int(k) for k in shape)
        self._gamma = None if gamma is None else check_positive(gamma, "gamma")
        self.symmetric = bool(symmetric or psd)
        self.psd = bool(psd)

    @property
    def sensitivity_l2(self) -> float:
        return self.s2

    @property
    def gamma(self) -> float:
        if self._gamma is None:
            raise InvalidParameterError("gamma", "a bare Frobenius sensitivity carries no bound "
                                                 "on sup ||f(X)||_F; pass gamma explicitly")
        return self._gamma

    def shift_bound(self, row, col) -> ShiftBound:
        return frobenius_ball_shift(self.s2, row, col)

    def direction_costs(self, row_dirs=None, col_dirs=None, *, axis=None, equimodal=False,
                        shape=None) -> DirectionCosts:
        dim = cost_dim(row_dirs, col_dirs, axis, shape, self.shape)
        if equimodal:
            return DirectionCosts(np.full(dim, self.s2), power=2, exact=dim == 1,
                                  description="Frobenius ball, Psi = Sigma: mu^2 <= (s2 * sum p)^2")
        return DirectionCosts(np.full(dim, self.s2 ** 2), exact=dim == 1,
                              description="Frobenius ball: mu^2 = s2^2 max p <= s2^2 sum p")

    def witnesses(self, *, row_cov=None, col_cov=None) -> Witnesses:
        if self.shape is None or None in self.shape:
            raise InvalidParameterError("shape", "FrobeniusBall needs a shape to build witnesses")
        row, col = self._axis_precisions(row_cov, col_cov)
        d = self.shift_bound(row, col).witness
        base = np.zeros(self.shape)
        return [(base, base + d)]

    def __repr__(self) -> str:
        return f"FrobeniusBall(s2={self.s2:.6g})"


def cost_dim(row_dirs, col_dirs, axis, shape, own_shape) -> int:
    for d in (row_dirs, col_dirs):
        if d is not None:
            return int(np.asarray(d).shape[0])
    shp = shape or own_shape
    if shp is None:
        raise InvalidParameterError("shape", "give directions or a shape")
    return int(shp[0 if axis is None else axis])


def check_count(value, argument):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise InvalidParameterError(argument, f"must be a positive integer, got {value!r}")
    return int(value)
