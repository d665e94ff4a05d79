"""Shared linear algebra of the bottom layer (no randomness, no privacy logic).

``vec``/``unvec`` (column stacking), covariance checks (:func:`check_covariance`,
:func:`covariance_eigenvalues`, :func:`psd_error`), covariances given by their
eigen-decomposition (:class:`EigenCov`), orthonormal directions
(:func:`check_directions`) and :func:`cite`, the one helper that appends a shared
References section to docstrings.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Integral

import numpy as np

from ._validation import check_finite_array
from .errors import InvalidParameterError, InvalidShapeError, NotPositiveSemidefiniteError

__all__ = [
    "DIRECTIONS_REFERENCES",
    "MVG_REFERENCES",
    "ORTHONORMAL_ATOL",
    "PROBE_FALSE_ACCEPT",
    "PSD_RTOL",
    "SYMMETRY_RTOL",
    "EigenCov",
    "ProbeCertificate",
    "check_covariance",
    "check_dim",
    "check_directions",
    "cite",
    "orthonormal_by_probes",
    "probe_count",
    "covariance_eigenvalues",
    "psd_error",
    "standard_directions",
    "unvec",
    "vec",
]


def cite(references: str):
    """A decorator appending the shared ``references`` section to a function's docstring."""

    def decorate(func):
        func.__doc__ = (func.__doc__ or "").rstrip() + "\n" + references
        return func

    return decorate


#: References of the MVG sampler and covariance helpers (appended by :func:`cite`).
MVG_REFERENCES = """
    References
    ----------
    .. [1] T. Chanyaswad, A. Dytso, H. V. Poor and P. Mittal, "A Differential
       Privacy Mechanism Design Under Matrix-Valued Query", arXiv:1802.10077,
       Definition 2, Lemmas 6-7 and Sec. 6.3. See ``docs/mvg.md``.
    .. [2] A. K. Gupta and D. K. Nagar, "Matrix Variate Distributions",
       Chapman & Hall/CRC, 2000, Ch. 2.
"""

#: References of directional noise (directions, allocations).
DIRECTIONS_REFERENCES = """
    References
    ----------
    .. [1] T. Chanyaswad, A. Dytso, H. V. Poor and P. Mittal, "A Differential
       Privacy Mechanism Design Under Matrix-Valued Query", arXiv:1802.10077,
       Sec. 5-7 (directional noise, Algorithms 1-2, Theorem 7). Our fixes:
       ``docs/mvg.md``.
"""

_cite = cite(MVG_REFERENCES)
_cite_directions = cite(DIRECTIONS_REFERENCES)


#: Relative tolerance of the symmetry check, ``max|A - Aᵀ| <= tol * max|A|``.
SYMMETRY_RTOL = 1e-8


#: Relative tolerance of the PSD check, ``λ_min >= -tol * λ_max``.
PSD_RTOL = 1e-10


def vec(matrix: np.ndarray) -> np.ndarray:
    """Column-stacking ``vec`` (Fortran order): ``vec(Z)`` has covariance Ψ ⊗ Σ."""
    return np.asarray(matrix).reshape(-1, order="F")


def unvec(vector: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """Inverse of :func:`vec`: reshape a length ``m*n`` vector to ``shape`` column-major."""
    return np.asarray(vector).reshape(shape, order="F")


def check_covariance(cov, argument: str = "cov") -> np.ndarray:
    """Validate a covariance matrix: 2-D, square, finite and symmetric (within tolerance).

    Returns the exactly symmetrised float64 copy ``(A + Aᵀ)/2``. Positive
    semi-definiteness is checked when it is factored (:func:`covariance_factor`)
    or decomposed (:func:`covariance_eigenvalues`), where it comes for free.

    Raises
    ------
    InvalidShapeError
        Not a square 2-D array.
    NonFiniteInputError
        NaN or infinite entries.
    NotPositiveSemidefiniteError
        Not symmetric within ``SYMMETRY_RTOL``.
    """
    arr = check_finite_array(cov, argument, ndim=2)
    if arr.shape[0] != arr.shape[1] or arr.shape[0] == 0:
        raise InvalidShapeError(argument, f"a covariance must be a non-empty square matrix, "
                                          f"got shape {arr.shape}")
    scale = float(np.max(np.abs(arr)))
    asym = float(np.max(np.abs(arr - arr.T)))
    if asym > SYMMETRY_RTOL * scale:
        raise NotPositiveSemidefiniteError(
            argument, f"a covariance must be symmetric; max|A - A^T| = {asym:.3g} exceeds "
                      f"{SYMMETRY_RTOL:g} * max|A| = {SYMMETRY_RTOL * scale:.3g}")
    if asym == 0.0:
        return arr if arr.flags.writeable else arr.copy()
    return 0.5 * (arr + arr.T)


def psd_error(argument: str, lam_min: float, lam_max: float) -> NotPositiveSemidefiniteError:
    return NotPositiveSemidefiniteError(
        argument, f"a covariance must be positive semi-definite; its smallest eigenvalue is "
                  f"{lam_min:.6g} (largest {lam_max:.6g})")


@_cite
def covariance_eigenvalues(cov, argument: str = "cov", *, require_definite: bool = False) -> np.ndarray:
    """Eigenvalues (ascending) of a validated covariance (or :class:`EigenCov`).

    Parameters
    ----------
    cov : array_like or EigenCov
        Symmetric PSD matrix.
    argument : str
        Name used in error messages.
    require_definite : bool
        If True, also reject singular matrices (eigenvalue <= 0).

    Returns
    -------
    ndarray
        Eigenvalues, ascending; tiny negative rounding (within ``PSD_RTOL``) is
        clipped to 0.

    Raises
    ------
    NotPositiveSemidefiniteError
        Not symmetric, not PSD, or (``require_definite``) singular.
    """
    if isinstance(cov, EigenCov):
        lam = np.sort(cov.variances)
    else:
        lam = np.linalg.eigvalsh(check_covariance(cov, argument))
    lam_max = float(max(lam[-1], 0.0))
    if lam[0] < -PSD_RTOL * lam_max or (lam_max == 0.0 and lam[0] < 0):
        raise psd_error(argument, float(lam[0]), lam_max)
    lam = np.clip(lam, 0.0, None)
    if require_definite and not lam[0] > 0:
        raise NotPositiveSemidefiniteError(
            argument, "must be positive definite (the privacy conditions use its inverse); "
                      "it is singular")
    return lam


@dataclass(frozen=True)
class EigenCov:
    """A covariance given by its eigen-decomposition ``W diag(variances) Wᵀ``.

    Parameters
    ----------
    variances : array_like, shape (d,)
        Eigenvalues (noise variance along each direction), finite and >= 0.
    directions : array_like, shape (d, d), optional
        Orthonormal columns (direction ``i`` is ``directions[:, i]`` and carries
        ``variances[i]``). ``None`` means the standard basis (a diagonal covariance).

    Notes
    -----
    Its factor ``W diag(√variances)`` costs one column scaling, no decomposition:
    the fast path of the MVG mechanism, which builds Σ this way (Algorithms 1-2).
    """

    variances: np.ndarray
    directions: np.ndarray | None = None

    def __post_init__(self):
        lam = check_finite_array(self.variances, "variances", ndim=1)
        if lam.size == 0:
            raise InvalidShapeError("variances", "must be non-empty")
        if np.any(lam < 0):
            raise NotPositiveSemidefiniteError(
                "variances", f"covariance eigenvalues must be >= 0, got min {lam.min():.6g}")
        object.__setattr__(self, "variances", lam)
        if self.directions is not None:
            object.__setattr__(self, "directions",
                               check_directions(self.directions, lam.size, "directions"))

    @classmethod
    def validated(cls, variances, directions=None) -> "EigenCov":
        """Build from directions the caller has already passed through :func:`check_directions`.

        Checks the variances as the constructor does but skips the O(d³) orthonormality check
        (the MVG mechanism validates its directions once, when it is built).
        """
        if directions is None:
            return cls(variances)
        obj = cls(variances)  # validates the variances
        object.__setattr__(obj, "directions", np.asarray(directions, dtype=np.float64))
        if obj.directions.shape != (obj.variances.size, obj.variances.size):
            raise InvalidShapeError("directions", f"must have shape {(obj.variances.size,) * 2}, "
                                                  f"got {obj.directions.shape}")
        return obj

    @property
    def dim(self) -> int:
        """Side of the covariance matrix."""
        return int(self.variances.size)

    def matrix(self) -> np.ndarray:
        """The dense covariance ``W diag(λ) Wᵀ`` (symmetric)."""
        if self.directions is None:
            return np.diag(self.variances)
        w = self.directions
        cov = (w * self.variances) @ w.T
        return 0.5 * (cov + cov.T)

    def diagonal(self) -> np.ndarray:
        """The covariance's diagonal ``Σ_k W_ik² λ_k`` (O(d²), without the dense matrix)."""
        if self.directions is None:
            return self.variances.copy()
        return (self.directions * self.directions) @ self.variances

    def factor(self) -> np.ndarray:
        """A factor ``B = W diag(√λ)`` with ``B Bᵀ`` equal to the covariance."""
        root = np.sqrt(self.variances)
        if self.directions is None:
            return np.diag(root)
        return self.directions * root

    def inverse_eigenvalues(self) -> np.ndarray:
        """``1/λ_i`` (inf where λ_i = 0), in the order of the directions."""
        with np.errstate(divide="ignore"):
            return 1.0 / self.variances


#: Tolerance of the orthonormality check ``max|WᵀW - I| <= atol``.
ORTHONORMAL_ATOL = 1e-8


def check_dim(dim, argument: str = "dim") -> int:
    """Validate a dimension: a positive integer (``argument`` names it in the error)."""
    if isinstance(dim, bool) or not isinstance(dim, (Integral, np.integer)) or dim < 1:
        raise InvalidParameterError(argument, f"must be a positive integer, got {dim!r}")
    return int(dim)


#: Bound on the probability that :func:`orthonormal_by_probes` accepts columns with
#: ``max|WᵀW - I| > atol`` (with the number of probes of :func:`probe_count`).
PROBE_FALSE_ACCEPT = 1e-19

#: The unit roundoff of float64, ``u = 2**-53``.
_U = 2.0 ** -53


def _probe_chunk(d: int) -> int:
    """``s = ceil(sqrt(d))``: the certificate sums every inner product of length ``d`` as
    ``ceil(d/s)`` pieces of length ``<= s``."""
    return math.isqrt(d - 1) + 1 if d > 1 else 1


def _probe_gamma(d: int) -> float:
    """``γ_m = m u / (1 - m u)``, ``m = s + ceil(d/s) - 1`` (``s`` of :func:`_probe_chunk`).

    The rounding factor of an inner product of length ``d`` computed as ``ceil(d/s)`` inner
    products of length ``<= s`` (each in any order, e.g. by BLAS: ``γ_s``) that are then added
    (``ceil(d/s) - 1`` additions): ``(1 + θ_s)(1 + θ_{ceil(d/s)-1}) = 1 + θ_m`` (Higham, Lemma
    3.3). ``m ≈ 2 sqrt(d)`` instead of ``d`` for one unsplit inner product.
    """
    s = _probe_chunk(d)
    m = s + -(-d // s) - 1
    return m * _U / (1.0 - m * _U)


def _probe_threshold(d: int) -> float:
    """``τ(d) = 2 γ_m (d + sqrt(d))``: the certified bound on ``|(E v)_i|`` a probe must meet.

    About twice the rounding bound of :func:`orthonormal_by_probes` for orthonormal ``W`` and a
    standard normal probe (``γ_m ‖W_:,i‖ (‖W‖_F ‖v‖ + ‖Wv‖)`` with ``‖v‖ ≈ ‖Wv‖ ≈ sqrt(d)``, so
    orthonormal directions pass unless ``‖v‖ > 1.9 sqrt(d)``); it depends on ``d`` only, fixed
    before the probes are drawn. It does not depend on the tolerance being certified: that
    enters only through the number of probes (:func:`probe_count`).
    """
    return 2.0 * _probe_gamma(int(d)) * (d + math.sqrt(d))


def probe_count(dim: int, atol: float = ORTHONORMAL_ATOL) -> int:
    """Probes :func:`orthonormal_by_probes` needs for a false acceptance <= ``PROBE_FALSE_ACCEPT``.

    Each probe passes a matrix with ``max|WᵀW - I| > atol`` with probability at most
    ``q = sqrt(2/pi) τ(d)/atol`` (:func:`_probe_threshold`); ``k = ceil(log(1e-19)/log q)``
    (8 at ``d = 2000``, 14 at ``d = 10000``). 0 when ``q >= 1/2`` (``d`` above about 58000:
    rounding alone is near ``atol``): use the exact check.
    """
    q = float(np.sqrt(2.0 / np.pi)) * _probe_threshold(int(dim)) / atol
    if q >= 0.5:
        return 0
    return int(np.ceil(np.log(PROBE_FALSE_ACCEPT) / np.log(q)))


def orthonormal_by_probes(w: np.ndarray, probes: np.ndarray) -> bool:
    r"""A randomized certificate that ``max|WᵀW - I| <= atol``, in O(k d²) (Freivalds-style).

    The decision does not depend on ``atol``; the tolerance it certifies, with false acceptance
    at most :data:`PROBE_FALSE_ACCEPT`, is set by the number of probes ``k = probe_count(d, atol)``.

    With ``E = WᵀW - I`` and ``k`` independent standard normal probes ``v`` (drawn independently
    of ``W``), it computes ``r = Wᵀ(W v) - v`` and a rigorous bound ``e`` on the rounding error
    of ``r`` against ``E v``, and returns True only when ``|r| + e <= τ`` everywhere, so
    ``|(E v)_i| <= τ`` for every row ``i`` and probe; ``τ = 2 γ_m (d + sqrt(d))`` depends on
    ``d`` only (:func:`_probe_threshold`). Every inner product of length ``d`` is computed as
    ``ceil(d/s)`` products of length ``<= s = ceil(sqrt(d))`` that are then added, so its
    rounding error is at most ``γ_m Σ|terms|`` with ``m = s + ceil(d/s) - 1 ≈ 2 sqrt(d)``
    whatever order BLAS sums in (instead of ``γ_d``): with ``ŷ = fl(W v)`` and ``ẑ = fl(Wᵀ ŷ)``,

    .. math:: |(Ev)_i - r_i| \le γ_m \|W_{:,i}\| (\|W\|_F \|v\| + \|ŷ\|) + u |ẑ_i - v_i|

    (``Σ_l |W_li| ‖W_l,:‖ <= ‖W_:,i‖ ‖W‖_F`` by Cauchy-Schwarz), computed from the actual norms.
    If some ``|E_ij| > atol``, row ``i`` has ``(E v)_i ~ N(0, s²)`` with ``s >= |E_ij| > atol``,
    which lies in ``[-τ, τ]`` with probability at most ``q = sqrt(2/pi) τ/atol`` per probe
    (0.0032 at ``d = 2000``): all ``k`` probes pass with probability at most ``q^k``, at most
    :data:`PROBE_FALSE_ACCEPT` (1e-19) with ``k = probe_count(d)`` (8 at ``d = 2000``). False
    means "not certified" (the caller runs the exact check), never "not orthonormal". Derivation:
    ``docs/mvg.md``, Part III, Sec. 3.2.

    Parameters
    ----------
    w : ndarray (d, d)
        Float64 matrix (NaN or inf entries make the certificate fail).
    probes : ndarray (d, k)
        Independent standard normal draws, independent of ``w``; ``k = probe_count(d, atol)``
        for the tolerance ``atol`` to be certified.

    Returns
    -------
    bool

    References
    ----------
    .. [1] R. Freivalds, "Probabilistic Machines Can Use Less Running Time", IFIP Congress 1977.
    .. [2] N. J. Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed., SIAM 2002,
       Sec. 3.1 and 3.5, Lemma 3.3 (error bounds of inner products and matrix products).
    """
    return ProbeCertificate(w, probes).passed()


class ProbeCertificate:
    """:func:`orthonormal_by_probes` in two steps, so that its second pass over ``W`` can carry
    other products with ``W``.

    The constructor computes ``ŷ = fl(W v)`` (the first pass, by column blocks of ``W``);
    :meth:`project` returns ``rows @ W`` for a caller's rows *and* the certificate's
    ``ẑᵀ = ŷᵀ W`` from one product per row block (one read of ``W`` for both);
    :meth:`passed` finishes (running the second pass alone if :meth:`project` was not called) and
    returns the decision of :func:`orthonormal_by_probes`, which is this class's only use of the
    probes: the rows given to :meth:`project` do not enter it.

    Parameters
    ----------
    w : ndarray (d, d)
        Float64 matrix.
    probes : ndarray (d, k)
        Independent standard normal draws, independent of ``w`` (``k`` sets the certified
        tolerance, as in :func:`orthonormal_by_probes`).
    """

    def __init__(self, w: np.ndarray, probes: np.ndarray):
        v = np.asarray(probes, dtype=np.float64)
        d = w.shape[0]
        if v.ndim != 2 or v.shape[0] != d or v.shape[1] < 1:
            raise InvalidShapeError("probes", f"must have shape ({d}, k), got {v.shape}")
        self._w, self._s = w, _probe_chunk(d)
        # the probes as rows (k x d): the products have the wide shape BLAS runs fastest
        self._vt = vt = np.ascontiguousarray(v.T)
        s = self._s
        self._yt = yt = np.zeros((vt.shape[0], d))       # ŷᵀ = (W v)ᵀ, over W's column blocks
        for start in range(0, d, s):
            yt += vt[:, start:start + s] @ w[:, start:start + s].T
        self._zt = None

    @property
    def finite(self) -> bool:
        """Whether ``ŷ`` is finite (False when ``W`` has a NaN or infinite entry)."""
        return bool(np.isfinite(self._yt).all())

    def project(self, rows: np.ndarray) -> np.ndarray:
        """``rows @ W`` for ``rows`` of shape ``(r, d)``, summed by the certificate's row blocks
        together with its second product (the first call only; later calls multiply directly)."""
        rows = np.asarray(rows, dtype=np.float64)
        w = self._w
        if self._zt is not None:
            return rows @ w
        k, s = self._yt.shape[0], self._s
        stacked = np.concatenate([self._yt, rows])
        out = np.zeros((stacked.shape[0], w.shape[1]))
        for start in range(0, w.shape[0], s):
            out += stacked[:, start:start + s] @ w[start:start + s]
        self._zt = out[:k]
        return out[k:]

    def passed(self) -> bool:
        """The certificate's decision (see :func:`orthonormal_by_probes`)."""
        w, vt, yt = self._w, self._vt, self._yt
        d = w.shape[0]
        if self._zt is None:  # ẑᵀ = (Wᵀ ŷ)ᵀ, over W's row blocks: the second pass alone
            self.project(np.empty((0, d)))
        zt = self._zt.copy()
        u = _U
        gamma = _probe_gamma(d)
        tau = _probe_threshold(d)
        col_sq = np.einsum("ij,ij->j", w, w)             # Σ_l W_li² (one pass, no temporary)
        col = np.sqrt(col_sq)                            # ‖W_:,i‖₂
        frob = float(np.sqrt(np.sum(col_sq)))            # ‖W‖_F
        v_norm = np.sqrt(np.einsum("ij,ij->i", vt, vt))  # ‖v‖₂ per probe
        y_norm = np.sqrt(np.einsum("ij,ij->i", yt, yt))  # ‖ŷ‖₂ per probe
        # the factor 1.01 covers the rounding of the norms and of this bound (relative <= ~d u)
        err = 1.01 * (gamma * (frob * v_norm + y_norm)[:, None] * col[None, :]
                      + 2 * u * (np.abs(zt) + np.abs(vt)))
        zt -= vt
        np.abs(zt, out=zt)
        zt += err
        # NaN/inf anywhere in W reach ẑ or the norms (v has no zero entry almost surely): max is
        # then NaN or inf and the comparison fails. (1 - 4u): the rounding of |r| + e itself.
        return bool(np.max(zt) <= tau * (1.0 - 4 * u))


@_cite_directions
def check_directions(directions, dim, argument: str = "directions", *,
                     atol: float = ORTHONORMAL_ATOL, probes=None) -> np.ndarray:
    """Validate a matrix of orthonormal directions (columns) and return it as float64.

    Without ``probes`` the check forms ``WᵀW`` (O(d³)). With ``probes`` (a ``(dim, k)`` array of
    independent standard normal draws, drawn *after* and independently of ``W``) it first tries
    the O(k d²) certificate of :func:`orthonormal_by_probes`; when the certificate does not pass,
    the exact check decides. So the result is the exact check's except with probability at most
    ``(sqrt(2/pi) τ/atol) ** k`` (``k = probes.shape[1]``; at most ``PROBE_FALSE_ACCEPT`` with
    ``k = probe_count(dim)``) that columns with ``max|WᵀW - I| > atol`` are accepted; never does
    it reject directions the exact check accepts.

    Parameters
    ----------
    directions : array_like, shape (dim, dim)
        Square matrix whose columns are the noise directions.
    dim : int
        The required side.
    argument : str
        Name used in error messages.
    atol : float
        Tolerance of ``max|WᵀW - I|``.
    probes : ndarray (dim, k), optional
        Fresh standard normal probes for the randomized certificate (see above).

    Returns
    -------
    ndarray

    Raises
    ------
    InvalidShapeError
        Not ``(dim, dim)``.
    NonFiniteInputError
        NaN or infinite entries.
    InvalidParameterError
        Columns not orthonormal within ``atol``.
    """
    dim = check_dim(dim)
    if probes is not None:
        # a certified W is finite (a NaN/inf entry makes the products or the column norms
        # non-finite and the certificate fail), so its finiteness pass is needed only after
        w = check_finite_array(directions, argument, ndim=2, shape=(dim, dim), finite=False)
        if orthonormal_by_probes(w, probes):
            return w
    w = check_finite_array(directions, argument, ndim=2, shape=(dim, dim))
    gram = w.T @ w
    gram[np.diag_indices(dim)] -= 1.0
    err = float(np.max(np.abs(gram)))
    if not err <= atol:   # NaN (an overflow of WᵀW summing +inf and -inf) is refused too
        raise InvalidParameterError(
            argument, f"columns must be orthonormal (W^T W = I); max|W^T W - I| = {err:.3g} "
                      f"exceeds {atol:g}")
    return w


def standard_directions(dim) -> np.ndarray:
    """The standard basis ``I_dim`` (the default directions)."""
    return np.eye(check_dim(dim))
