"""Sampling the matrix-variate Gaussian MVG_{m,n}(0, Σ, Ψ) and its density (no privacy logic).

``Z ~ MVG(0, Σ, Ψ)`` means ``vec(Z) ~ N(0, Ψ ⊗ Σ)`` with ``vec`` stacking
columns; equivalently ``Z = B_Σ N B_Ψᵀ`` with ``N`` i.i.d. N(0, 1) and
``B Bᵀ`` the covariances. Σ (``row_cov``) is the covariance *between rows*
(shared by every column), Ψ (``col_cov``) the covariance between columns.
The math and the paper's conventions are in ``docs/mvg.md``.

Covariances are given as square arrays or, when their eigen-decomposition is
known (the mechanism builds Σ = W diag(λ) Wᵀ from directions and a precision
allocation), as :class:`EigenCov`, whose factor ``W diag(√λ)`` needs no
decomposition.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._linalg import (MVG_REFERENCES, PSD_RTOL, EigenCov, check_covariance, cite,
                       psd_error)
from .._validation import check_finite_array
from ..errors import InvalidParameterError, InvalidShapeError, NotPositiveSemidefiniteError
from ..rng import make_rng

__all__ = [
    "EigenCov",
    "MVGSampler",
    "KRONECKER_MAX_DIM",
    "covariance_factor",
    "sample_mvg",
    "sample_mvg_eig",
    "mvg_logpdf",
    "mvg_entropy",
]

#: Largest ``m*n`` for which the Kronecker route (an ``mn x mn`` factorisation) is allowed.
KRONECKER_MAX_DIM = 4096

# Below this side, BLAS trmm's call overhead outweighs its halved flops.
_TRMM_MIN_DIM = 512

# From this side on, an EigenCov's factor W diag(√λ) is not formed (a d x d copy per sampler):
# each draw is scaled by √λ instead (O(mn)); below it the formed factor keeps seeded draws as
# they were.
_EIGEN_FACTOR_MIN_DIM = 256

_cite = cite(MVG_REFERENCES)


# ----------------------------------------------------------------------------- factors
@dataclass(frozen=True)
class _Factor:
    """Internal: a validated factor; ``kind`` is "identity", "diag" (vector), "lower" (Cholesky),
    "full" or "eigen" (``value`` = orthonormal directions W, ``root`` = √λ: the factor
    ``W diag(√λ)`` is never formed; a draw scales its noise by ``root`` instead, O(mn))."""

    kind: str
    value: np.ndarray
    root: np.ndarray | None = None

    @property
    def dim(self) -> int:
        return int(self.value.shape[0])

    def dense(self) -> np.ndarray:
        if self.kind == "identity":
            return np.eye(self.value.shape[0])
        if self.kind == "diag":
            return np.diag(self.value)
        if self.kind == "eigen":
            return self.value * self.root
        return self.value


def _is_diagonal(arr: np.ndarray) -> bool:
    off = arr.copy()
    np.fill_diagonal(off, 0.0)
    return not off.any()


def _diag_factor(root: np.ndarray) -> _Factor:
    return _Factor("identity" if np.all(root == 1.0) else "diag", root)


def _factor(cov, argument: str) -> _Factor:
    if isinstance(cov, EigenCov):
        root = np.sqrt(cov.variances)
        if cov.directions is None:
            return _diag_factor(root)
        if root.size < _EIGEN_FACTOR_MIN_DIM:   # small: the factor costs nothing to form
            return _Factor("full", cov.directions * root)
        return _Factor("eigen", cov.directions, root)
    arr = check_covariance(cov, argument)
    if _is_diagonal(arr):
        diag = np.diagonal(arr)
        if diag.min() < 0:
            raise psd_error(argument, float(diag.min()), float(diag.max()))
        return _diag_factor(np.sqrt(diag))
    try:
        lower = _sla().cholesky(arr, lower=True, check_finite=False)
        # LAPACK only reads one triangle; a non-finite or non-positive pivot means failure
        if np.all(np.diagonal(lower) > 0):
            return _Factor("lower", lower)
    except np.linalg.LinAlgError:
        pass
    # singular (PSD) or indefinite: the eigen-decomposition decides and gives a valid factor
    lam, vecs = np.linalg.eigh(arr)
    lam_max = float(max(lam[-1], 0.0))
    if lam[0] < -PSD_RTOL * lam_max or (lam_max == 0.0 and lam[0] < 0):
        raise psd_error(argument, float(lam[0]), lam_max)
    # eigenvalues at rounding level are zeros of the exact matrix: no noise there
    lam = np.where(lam > arr.shape[0] * np.finfo(float).eps * lam_max, lam, 0.0)
    return _Factor("full", vecs * np.sqrt(lam))


@_cite
def covariance_factor(cov, argument: str = "cov") -> np.ndarray:
    """A validated factor ``B`` with ``B @ B.T == cov`` (up to rounding).

    Diagonal matrices give ``diag(√cov_ii)``; an :class:`EigenCov` gives
    ``W diag(√λ)`` without any decomposition; a positive definite matrix gives
    its lower Cholesky factor; a singular PSD (or numerically ill-conditioned)
    matrix falls back to ``V diag(√λ)`` from its eigen-decomposition.

    Parameters
    ----------
    cov : array_like or EigenCov
        A symmetric positive semi-definite matrix.
    argument : str
        Name used in error messages (e.g. ``"row_cov"``).

    Returns
    -------
    ndarray, shape (d, d)

    Raises
    ------
    InvalidShapeError
        Not square.
    NonFiniteInputError
        NaN or infinite entries.
    NotPositiveSemidefiniteError
        Not symmetric (relative tolerance ``SYMMETRY_RTOL``) or with an eigenvalue
        below ``-PSD_RTOL * λ_max``.
    """
    return _factor(cov, argument).dense()


# ----------------------------------------------------------------------------- sampling
def _apply_affine(noise: np.ndarray, row: _Factor, col: _Factor) -> np.ndarray:
    """``B_row @ noise @ B_colᵀ`` for a (m, n) or (k, m, n) ``noise``, consuming ``noise``."""
    if row.kind == "diag":
        noise *= row.value[:, None]
    elif row.kind == "eigen":      # W diag(√λ) N = W (√λ ⊙ N): scale the noise, not W
        noise *= row.root[:, None]
    if col.kind == "diag":
        noise *= col.value
    elif col.kind == "eigen":
        noise *= col.root
    if (noise.ndim == 2 and noise.flags.c_contiguous and min(noise.shape) >= _TRMM_MIN_DIM
            and "lower" in (row.kind, col.kind)):
        return _apply_affine_trmm(noise, row, col)
    if row.kind in ("lower", "full", "eigen"):
        noise = row.value @ noise
    if col.kind in ("lower", "full", "eigen"):
        noise = noise @ col.value.T
    return noise


def _apply_affine_trmm(noise: np.ndarray, row: _Factor, col: _Factor) -> np.ndarray:
    # Work on the Fortran view F = noiseᵀ (n x m, no copy): Zᵀ = B_col F B_rowᵀ.
    # Triangular factors use BLAS trmm (half the flops of a general product, in place).
    trmm = _sla().blas.dtrmm
    f = noise.T
    if col.kind == "lower":
        # L_col @ F: pass L_colᵀ (F-contiguous, upper) with trans_a
        f = trmm(1.0, col.value.T, f, side=0, lower=0, trans_a=1, overwrite_b=1)
    elif col.kind in ("full", "eigen"):
        f = col.value @ f
    if row.kind == "lower":
        f = np.asfortranarray(f)
        # F @ L_rowᵀ: L_rowᵀ is upper; pass it F-contiguous without transposition
        f = trmm(1.0, row.value.T, f, side=1, lower=0, trans_a=0, overwrite_b=1)
    elif row.kind in ("full", "eigen"):
        f = f @ row.value.T
    return f.T


def _check_size(size) -> int | None:
    if size is None:
        return None
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 1:
        raise InvalidParameterError("size", f"must be None or a positive integer, got {size!r}")
    return int(size)


class MVGSampler:
    """Draws from MVG_{m,n}(0, Σ, Ψ); validates and factors the covariances once.

    Parameters
    ----------
    row_cov : array_like (m, m) or EigenCov
        Σ, the row-wise covariance (between the rows of a draw).
    col_cov : array_like (n, n) or EigenCov
        Ψ, the column-wise covariance.
    method : {"affine", "kronecker"}
        ``"affine"`` (default): ``Z = B_Σ N B_Ψᵀ`` (Lemma 7), O(m²n + mn²) per draw.
        ``"kronecker"``: draw ``vec(Z) ~ N(0, Ψ ⊗ Σ)`` and reshape column-major
        (Sec. 6.3.1); O((mn)³) set-up, allowed only for ``m*n <= KRONECKER_MAX_DIM``;
        a reference implementation for tests.

    Attributes
    ----------
    shape : tuple of int
        ``(m, n)``.
    row_factor, col_factor : ndarray
        ``B_Σ``, ``B_Ψ`` (affine method).
    """

    def __init__(self, row_cov, col_cov, method: str = "affine"):
        if method not in ("affine", "kronecker"):
            raise InvalidParameterError("method", f"must be 'affine' or 'kronecker', got {method!r}")
        self.method = method
        self._row = _factor(row_cov, "row_cov")
        self._col = _factor(col_cov, "col_cov")
        self.shape = (self._row.dim, self._col.dim)
        self._kron: _Factor | None = None
        if method == "kronecker":
            m, n = self.shape
            if m * n > KRONECKER_MAX_DIM:
                raise InvalidShapeError(
                    "shape", f"the Kronecker route factors an (mn x mn) = ({m * n} x {m * n}) "
                             f"matrix, allowed only for m*n <= {KRONECKER_MAX_DIM}; use "
                             "method='affine'")
            row_dense = self._row.dense() @ self._row.dense().T
            col_dense = self._col.dense() @ self._col.dense().T
            self._kron = _factor(np.kron(col_dense, row_dense), "kron(col_cov, row_cov)")

    @property
    def row_factor(self) -> np.ndarray:
        return self._row.dense()

    @property
    def col_factor(self) -> np.ndarray:
        return self._col.dense()

    def sample(self, rng=None, size: int | None = None) -> np.ndarray:
        """Draw one matrix ``(m, n)`` or ``size`` of them ``(size, m, n)``.

        Parameters
        ----------
        rng : None, int or numpy.random.Generator
            ``None`` draws from the per-process secure stream; a seed makes the draw
            reproducible, so a seeded release is replayable by anyone who knows the seed.
        size : int, optional
            Number of independent draws.
        """
        size = _check_size(size)
        gen = make_rng(rng)
        m, n = self.shape
        if self.method == "kronecker":
            k = 1 if size is None else size
            draws = gen.standard_normal((k, m * n)) @ self._kron.dense().T
            out = draws.reshape(k, n, m).transpose(0, 2, 1)  # column-major unvec
            return out[0].copy() if size is None else np.ascontiguousarray(out)
        lead = () if size is None else (size,)
        return _apply_affine(gen.standard_normal(lead + (m, n)), self._row, self._col)


@_cite
def sample_mvg(row_cov, col_cov, rng=None, method: str = "affine", size: int | None = None) -> np.ndarray:
    """Draw ``Z ~ MVG_{m,n}(0, Σ, Ψ)``, i.e. ``vec(Z) ~ N(0, Ψ ⊗ Σ)`` (vec stacks columns).

    Parameters
    ----------
    row_cov : array_like (m, m) or EigenCov
        Σ, the row-wise covariance: ``E[Z Zᵀ] = tr(Ψ) Σ``.
    col_cov : array_like (n, n) or EigenCov
        Ψ, the column-wise covariance: ``E[Zᵀ Z] = tr(Σ) Ψ``.
    rng : None, int or numpy.random.Generator
        ``None`` (default) draws from the per-process secure stream; a seed makes the
        draw reproducible, so a seeded release is replayable by anyone who knows the seed.
    method : {"affine", "kronecker"}
        See :class:`MVGSampler`.
    size : int, optional
        Number of independent draws (then the result has shape ``(size, m, n)``).

    Returns
    -------
    ndarray, shape (m, n) or (size, m, n)

    Raises
    ------
    NotPositiveSemidefiniteError
        A covariance is not symmetric or not PSD (the message names ``row_cov``
        or ``col_cov``).
    InvalidShapeError
        A covariance is not square, or ``method="kronecker"`` with ``m*n`` too large.
    NonFiniteInputError
        Non-finite entries.

    Examples
    --------
    >>> import numpy as np
    >>> z = sample_mvg(np.eye(3), np.diag([1.0, 4.0]), rng=0)
    >>> z.shape
    (3, 2)
    """
    return MVGSampler(row_cov, col_cov, method=method).sample(rng, size=size)


@_cite
def sample_mvg_eig(row_directions, row_variances, col_directions=None, col_variances=None,
                   rng=None, size: int | None = None) -> np.ndarray:
    """Draw MVG noise with covariances in eigen-form, ``Σ = W_Σ diag(λ_Σ) W_Σᵀ`` (likewise Ψ).

    The factors are ``W diag(√λ)``: no decomposition. ``None`` directions mean
    the standard basis; ``col_variances=None`` means Ψ = I_n with
    ``n = len(col_directions)`` (so at least one of the two must be given).

    Parameters
    ----------
    row_directions : array_like (m, m) or None
        Orthonormal columns (validated).
    row_variances : array_like (m,)
        Variances along them, >= 0.
    col_directions : array_like (n, n) or None
    col_variances : array_like (n,) or None
    rng : None, int or numpy.random.Generator
        ``None`` (default) draws from the per-process secure stream; a seed makes the
        draw reproducible, so a seeded release is replayable by anyone who knows the seed.
    size : int, optional

    Returns
    -------
    ndarray, shape (m, n) or (size, m, n)
    """
    row = EigenCov(row_variances, row_directions)
    if col_variances is None:
        if col_directions is None:
            raise InvalidParameterError("col_variances", "give the column variances (or "
                                                         "col_directions for Psi = I_n)")
        n = np.shape(col_directions)[0]
        col_variances = np.ones(n)
    col = EigenCov(col_variances, col_directions)
    return MVGSampler(row, col).sample(rng, size=size)


# ----------------------------------------------------------------------------- density
@_cite
def mvg_logpdf(x, row_cov, col_cov, mean=None) -> float:
    """Log-density of MVG_{m,n}(M, Σ, Ψ) at ``x`` (Definition 2).

    ``-½ tr[Ψ⁻¹ (X-M)ᵀ Σ⁻¹ (X-M)] - (mn/2) log 2π - (m/2) log|Ψ| - (n/2) log|Σ|``,
    equal to the N(vec M, Ψ ⊗ Σ) log-density of ``vec(x)``. Σ and Ψ must be
    positive definite.
    """
    row = _definite_cholesky(row_cov, "row_cov")
    col = _definite_cholesky(col_cov, "col_cov")
    m, n = row.shape[0], col.shape[0]
    d = check_finite_array(x, "x", ndim=2, shape=(m, n))
    if mean is not None:
        d = d - check_finite_array(mean, "mean", ndim=2, shape=(m, n))
    # whiten: L_Σ⁻¹ D L_Ψ⁻ᵀ has squared Frobenius norm tr[Ψ⁻¹ Dᵀ Σ⁻¹ D]
    w = _sla().solve_triangular(row, d, lower=True)
    w = _sla().solve_triangular(col, w.T, lower=True)
    logdet_row = 2.0 * np.sum(np.log(np.diagonal(row)))
    logdet_col = 2.0 * np.sum(np.log(np.diagonal(col)))
    return float(-0.5 * np.sum(w * w) - 0.5 * m * n * math.log(2 * math.pi)
                 - 0.5 * m * logdet_col - 0.5 * n * logdet_row)


@_cite
def mvg_entropy(row_cov, col_cov) -> float:
    """Differential entropy ``½ log((2πe)^{mn} |Ψ|^m |Σ|^n)`` of MVG(·, Σ, Ψ) (nats)."""
    row = _definite_cholesky(row_cov, "row_cov")
    col = _definite_cholesky(col_cov, "col_cov")
    m, n = row.shape[0], col.shape[0]
    logdet_row = 2.0 * np.sum(np.log(np.diagonal(row)))
    logdet_col = 2.0 * np.sum(np.log(np.diagonal(col)))
    return float(0.5 * m * n * math.log(2 * math.pi * math.e) + 0.5 * m * logdet_col
                 + 0.5 * n * logdet_row)


def _definite_cholesky(cov, argument: str) -> np.ndarray:
    arr = cov.matrix() if isinstance(cov, EigenCov) else check_covariance(cov, argument)
    try:
        return _sla().cholesky(arr, lower=True, check_finite=False)
    except np.linalg.LinAlgError:
        raise NotPositiveSemidefiniteError(
            argument, "must be positive definite for the density to exist") from None


def _sla():
    """scipy.linalg, imported on first use (keeps scipy out of ``import matrixdp``)."""
    import scipy.linalg

    return scipy.linalg
