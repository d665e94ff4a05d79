"""Noise on a symmetric matrix: perturb the upper triangle, mirror it ("Analyze Gauss").

For a symmetric query such as the covariance XᵀX/n only the d(d+1)/2 upper-triangular
entries (diagonal included) carry information. Releasing them with any mechanism and
mirroring is post-processing, so the guarantee is that of the mechanism on the upper
triangle; the caller passes that triangle's sensitivity
(:func:`covariance_upper_sensitivity`).

Derivation: ``docs/baselines.md``.
"""

from __future__ import annotations

import math


import numpy as np

from .._validation import check_finite_array, check_positive, check_square_matrix
from ..errors import InvalidParameterError, InvalidShapeError
from ..calibration.gaussian import gaussian_delta
from ..calibration.laplace_profile import laplace_vector_delta
from ..mechanisms.base import Mechanism, NoiseSummary, PrivacyGuarantee
from ..mechanisms.draw import charged_noise
from ..rng import make_rng
from ._given import GivenClaimMixin

__all__ = ["symmetric_release", "covariance_upper_sensitivity", "augmented_upper_sensitivity",
           "analyze_gauss", "upper_triangle", "mirror_upper", "SymmetricNoiseMechanism"]


def upper_triangle(matrices) -> np.ndarray:
    """The upper triangles (diagonal included) of ``(..., d, d)`` matrices, as ``(..., m)`` vectors."""
    a = np.asarray(matrices, dtype=float)
    rows, cols = np.triu_indices(a.shape[-1])
    return a[..., rows, cols]


def mirror_upper(upper, d: int) -> np.ndarray:
    """Symmetric ``(..., d, d)`` matrices from their upper-triangle vectors ``(..., m)``."""
    u = np.asarray(upper, dtype=float)
    rows, cols = np.triu_indices(int(d))
    out = np.zeros(u.shape[:-1] + (int(d), int(d)))
    out[..., rows, cols] = u
    out[..., cols, rows] = u
    return out


def covariance_upper_sensitivity(d: int, bound: float, n: int, *, norm: int) -> float:
    r"""Sensitivity of the upper triangle of XᵀX/n under replace-one, entries in [−c, c].

    One record x (|x_i| ≤ c) replaced by x' changes the upper triangle of xxᵀ/n by at
    most 2c²/n per entry, so over the d(d+1)/2 entries:

    * ``norm=1``: 2c² · d(d+1)/2 / n (e.g. d = 4, c = 100, n = 10,176 gives 19.65);
    * ``norm=2``: the MVG paper's Frobenius bound 2·sqrt(Σ_{d²} c⁴)/n = 2dc²/n (an upper
      bound for the triangle too; e.g. 8·10⁴/10,176 = 7.8616).

    Both bounds also hold under the weaker record constraint ‖x‖² ≤ d·c² (a ball, e.g. for
    centred data whose entries may leave [−c, c]): Σ_{i≤j}|x_i x_j| ≤ ((Σ|x_i|)² + ‖x‖²)/2 ≤
    (d + 1)‖x‖²/2 ≤ c²·d(d+1)/2 and ‖xxᵀ‖_F = ‖x‖² ≤ d·c².

    Neither is tight (hunt HW; so a baseline calibrated with them is noisier than it needs to
    be, a comparison in matrixdp's favour). On the box the exact L1 sensitivity is half of
    ``norm=1``: with ``a = x − x'``, ``b = x + x'`` (``|a_i| + |b_i| = 2 max(|x_i|, |x'_i|) ≤ 2c``)
    each entry's change is ``|a_i b_j + b_i a_j|/2``, so the triangle's L1 change is at most
    ``((Σ|a_i|)(Σ|b_j|) + Σ|a_i||b_i|)/2 ≤ (d²c² + dc²)/2``, i.e. ``c²·d(d+1)/(2n)``, attained by
    ``x = (c, …, c)``, ``x' = 0`` (a grid search over [−1, 1]^d, d = 2, 3, 4, finds 3, 6, 10 =
    d(d+1)/2). On the ball the exact value lies between ``(d+2)R²/(2n)`` (two orthogonal
    half-supported records) and ``(d+1)R²/n`` (``mvg_exp2_movement``'s search finds ≈ 0.72 of
    it at d = 4). The exact L2 sensitivity of the triangle is at most ``√2·d·c²/n`` (the ball
    of radius ``√d·c``; :func:`~matrixdp.baselines.mod_sulq.unit_ball_upper_sensitivity`), so
    ``norm=2`` is at least √2 too large; no experiment row uses it (``mvg_exp2_movement``
    reports it as the paper's value), and the benchmarks' Analyze Gauss uses ``√2·R²/n``.

    References
    ----------
    .. [1] T. Chanyaswad et al. (2018), MVG mechanism, CCS, Experiment II.
    """
    if int(d) != d or d < 1:
        raise InvalidParameterError("d", f"must be a positive integer, got {d!r}")
    if int(n) != n or n < 1:
        raise InvalidParameterError("n", f"must be a positive integer, got {n!r}")
    c = check_positive(bound, "bound")
    if norm == 1:
        return 2.0 * c * c * d * (d + 1) / 2.0 / n
    if norm == 2:
        return 2.0 * d * c * c / n
    raise InvalidParameterError("norm", f"must be 1 or 2, got {norm!r}")


def augmented_upper_sensitivity(half_widths, t: float, n: int) -> float:
    r"""Exact L2 sensitivity of the upper triangle of ``(1/n) Σ z zᵀ``, ``z = (x - c, t)``,
    records ``x`` in the public box ``[c - h, c + h]``, replace-one: ``(‖h‖² + t²)/n = R²/n``.

    The centred, mean-augmented second moments of the benchmarks (``z`` with a public constant
    ``t``). Replacing ``z`` by ``z'`` changes the matrix by ``D = (z zᵀ - z'z'ᵀ)/n =
    (p qᵀ + q pᵀ)/(2n)`` with ``p = z - z'`` (last entry 0) and ``q = z + z'`` (last entry
    ``2t``); the triangle's squared norm is ``(‖D‖_F² + Σ_i D_ii²)/2``, i.e. ``n²`` times
    ``T = ‖p‖²‖q‖²/4 + (pᵀq)²/4 + Σ_i p_i² q_i²/2``. With ``P_i = |p_i|``, ``Q_i = |q_i|``
    (``P_i + Q_i = 2 max(|u_i|, |u'_i|) <= 2h_i``; ``T`` grows with each, so take equality,
    ``P_i = 2h_i s_i``, ``Q_i = 2h_i (1 - s_i)``) and ``α = Σ h_i² s_i²``, ``β = Σ h_i² (1-s_i)²``,
    ``γ = Σ h_i² s_i (1-s_i)`` (so ``α + β + 2γ = H = ‖h‖²`` and ``γ² <= αβ``):
    ``T <= 4(αβ + t²α + 3γ²)`` (``Σ h_i⁴ s_i²(1-s_i)² <= γ²``). For ``S = α + β`` (``H/2 <= S <= H``
    by ``γ² <= αβ``), ``αβ + t²α <= (S + t²)²/4``, and ``(S + t²)²/4 + 3(H - S)²/4`` is convex
    in ``S``, so at most its value at an end: ``(H + t²)²/4`` (S = H) or
    ``(H² + Ht² + t⁴)/4`` (S = H/2). Hence ``T <= (H + t²)² = R⁴``: the sensitivity is at most
    ``R²/n``, for any ``t``. It is attained when two box vertices have ``uᵀu' = -t²`` (then
    ``‖D‖_F² = 2R⁴/n²`` and every ``D_ii = 0``), which
    :func:`~matrixdp.models._moments.balanced_constant` arranges. The whole matrix's Frobenius
    sensitivity is ``√2·R²/n``: calibrating the mirrored triangle (Analyze Gauss) to that value
    gives √2 the noise needed (hunt HW).

    Parameters
    ----------
    half_widths : array_like (d,)
        Public half-widths ``h`` of the box (``>= 0``).
    t : float
        The public constant coordinate (``>= 0``).
    n : int
        Public number of records.

    Returns
    -------
    float

    References
    ----------
    .. [1] C. Dwork, K. Talwar, A. Thakurta, L. Zhang (2014). Analyze Gauss: optimal
       bounds for privacy-preserving principal component analysis. STOC.
    """
    h = check_finite_array(half_widths, "half_widths").ravel()
    if np.any(h < 0):
        raise InvalidParameterError("half_widths", "must be >= 0")
    t = float(t)
    if not (math.isfinite(t) and t >= 0):
        raise InvalidParameterError("t", f"must be a finite number >= 0, got {t!r}")
    if int(n) != n or n < 1:
        raise InvalidParameterError("n", f"must be a positive integer, got {n!r}")
    return float(h @ h + t * t) / int(n)


def symmetric_release(matrix, mechanism: Mechanism, rng=None, *, accountant=None, ledger=None,
                      label: str = "symmetric release") -> np.ndarray:
    """Release a symmetric matrix by perturbing its upper triangle and mirroring it.

    Parameters
    ----------
    matrix : array_like of shape (d, d)
        A symmetric query answer (e.g. a covariance).
    mechanism : Mechanism
        Calibrated to the sensitivity of the **upper triangle** (diagonal included).
    rng : None, int or Generator
        ``None`` (default) draws from the per-process secure stream; a seed or a Generator makes the
        draws reproducible, so a seeded release is replayable by anyone who knows the seed (they
        regenerate the noise and subtract it).
    accountant, ledger, label
        Budget keepers charged with ``mechanism``'s guarantee before any noise is drawn (as
        :meth:`~matrixdp.mechanisms.Mechanism.release`; default: those of an enclosing ``with``
        block). Task PA (session 18): the noise was drawn with ``mechanism.sample_noise``, the
        uncharged auditing path, so no budget keeper ever saw this release.

    Returns
    -------
    ndarray of shape (d, d)
        Symmetric: noise N_ij = N_ji, one draw per upper-triangular entry.
    """
    a = check_square_matrix(matrix, "matrix")
    if not np.allclose(a, a.T, rtol=1e-10, atol=1e-12 * max(1.0, float(np.abs(a).max()))):
        raise InvalidParameterError("matrix", "must be symmetric")
    d = a.shape[0]
    # the upper triangle released through the mechanism (charged first, then one draw per
    # entry, the same draws sample_noise made), mirrored
    released = mechanism.release(upper_triangle(a), rng=make_rng(rng), accountant=accountant,
                                 ledger=ledger, label=label)
    return mirror_upper(released.value, d)


def analyze_gauss(matrix, *, sigma: float, rng=None, privacy: PrivacyGuarantee | None = None
                  ) -> np.ndarray:
    """Analyze Gauss (Dwork, Talwar, Thakurta, Zhang 2014): A + E, E symmetric, i.i.d. N(0, σ²)
    upper triangle. ``sigma`` must come from a calibration for the upper triangle's L2
    sensitivity (e.g. :func:`~matrixdp.baselines.dwork_roth_sigma`).

    Guarantee: that of the Gaussian mechanism on the upper triangle for the sensitivity and
    neighbouring relation ``sigma`` was calibrated to (replace-one in the experiments);
    exact only when ``sigma`` is the analytic σ for the triangle's exact sensitivity.

    References
    ----------
    .. [1] C. Dwork, K. Talwar, A. Thakurta, L. Zhang (2014). Analyze Gauss: optimal
       bounds for privacy-preserving principal component analysis. STOC.

    ``rng``: ``None`` (default) draws from the per-process secure stream; a seed or a Generator
    makes the draws reproducible, so a seeded release is replayable by anyone who knows the seed
    (they regenerate the noise and subtract it).

    ``privacy``: the guarantee ``sigma`` was calibrated for; the noise is drawn through
    :func:`~matrixdp.mechanisms.draw.charged_noise`, which charges it to the enclosing
    ``with Accountant(...)`` / ``with Ledger(...)`` block first. Without it the function cannot
    state its guarantee, so it charges an unbounded one (ε = ∞): refused inside any budget
    block, uncharged outside.
    """
    s = check_positive(sigma, "sigma")
    a = check_finite_array(matrix, "matrix", ndim=2)
    if a.shape[0] != a.shape[1] or not np.allclose(a, a.T):
        raise InvalidShapeError("matrix", f"must be square and symmetric, got shape {a.shape}")
    if privacy is None:
        privacy = PrivacyGuarantee(epsilon=math.inf, delta=1.0, calibration="caller's sigma",
                                   exact=False, mechanism="analyze-gauss",
                                   notes=("sigma given without its guarantee: none is claimed",))
    d = a.shape[0]
    with charged_noise(privacy, rng, label="analyze-gauss") as src:
        upper = np.triu(src.gaussian((d, d), s))
    return a + upper + np.triu(upper, 1).T




class SymmetricNoiseMechanism(GivenClaimMixin, Mechanism):
    r"""``value + N`` for a symmetric ``d × d`` value, ``N`` symmetric with an i.i.d. upper triangle.

    The noise of MOD-SULQ, Analyze Gauss / :func:`symmetric_release` and the noisy Gram
    matrix of :func:`~matrixdp.models.dp_directions.dp_covariance_eigen`: the upper
    triangle (diagonal included) is i.i.d. Gaussian N(0, σ²) or Laplace(b) and mirrored,
    so the release is as private as the noisy triangle. Its draws are those of the
    shipped functions for the same seed.

    Parameters
    ----------
    dim : int
        ``d``.
    kind : {"gaussian", "laplace"}
    scale : float
        σ (Gaussian) or b (Laplace) of each upper-triangular entry.
    privacy : PrivacyGuarantee
        The guarantee of the shipped function this noise belongs to (public).
    entry_mechanism : Mechanism, optional
        Draw the triangle as ``entry_mechanism.sample_noise((n, d(d+1)/2))``
        (:func:`symmetric_release`); default: ``np.triu(standard_normal((d, d))) · σ``
        (MOD-SULQ, Analyze Gauss, ``dp_covariance_eigen``).
    sensitivity : float, optional
        L2 sensitivity of the triangle the Gaussian σ was calibrated for: the exact profile
        is then the Gaussian one at that sensitivity.
    witness : (ndarray, ndarray), optional
        Public neighbouring values (``d × d``): :meth:`witnesses`, and the difference the
        profile is evaluated on when ``sensitivity`` is not given (always for Laplace).
    name : str

    References
    ----------
    .. [1] C. Dwork, K. Talwar, A. Thakurta, L. Zhang (2014). Analyze Gauss. STOC.
    .. [2] K. Chaudhuri, A. D. Sarwate, K. Sinha (2013). A near-optimal algorithm for
       differentially-private principal components. JMLR 14 (MOD-SULQ).
    """

    name = "symmetric-noise"

    def __init__(self, *, dim: int, kind: str, scale: float, privacy: PrivacyGuarantee,
                 entry_mechanism: Mechanism | None = None, sensitivity: float | None = None,
                 witness=None, name: str | None = None):
        if isinstance(dim, bool) or int(dim) != dim or dim < 1:
            raise InvalidParameterError("dim", f"must be a positive integer, got {dim!r}")
        if kind not in ("gaussian", "laplace"):
            raise InvalidParameterError("kind", f"must be 'gaussian' or 'laplace', got {kind!r}")
        if entry_mechanism is None and kind != "gaussian":
            raise InvalidParameterError("entry_mechanism", "Laplace noise is drawn through its "
                                                           "LaplaceMechanism")
        if not isinstance(privacy, PrivacyGuarantee):
            raise InvalidParameterError("privacy", "must be a PrivacyGuarantee")
        self.dim = int(dim)
        self.kind = kind
        self.scale = check_positive(scale, "scale")
        self._privacy = privacy
        self.entry_mechanism = entry_mechanism
        self.sensitivity = None if sensitivity is None else check_positive(sensitivity,
                                                                           "sensitivity")
        self._witness = None if witness is None else _check_pair(witness, self.dim)
        if name is not None:
            self.name = str(name)

    def _draw_upper(self, n: int, rng) -> np.ndarray:
        d = self.dim
        if self.entry_mechanism is not None:
            return self.entry_mechanism.sample_noise((n, d * (d + 1) // 2), rng=rng)
        return upper_triangle(rng.standard_normal((n, d, d))) * self.scale

    def sample_noise_batch(self, n, shape, rng=None) -> np.ndarray:
        """``n`` independent noise matrices, one vectorised draw.

        ``rng``: ``None`` (default) draws from the per-process secure stream; a seed or a Generator
        makes the draws reproducible, so a seeded release is replayable by anyone who knows the seed
        (they regenerate the noise and subtract it).
        """
        upper = np.asarray(self._draw_upper(int(n), make_rng(rng)), dtype=float)
        return mirror_upper(upper, self.dim).reshape((int(n),) + tuple(shape))

    def _noise(self, shape, rng) -> np.ndarray:
        if tuple(shape) != (self.dim, self.dim):
            raise InvalidShapeError("value", f"must be {self.dim} x {self.dim}, got {shape}")
        return self.sample_noise_batch(1, shape, rng)[0]

    def _check_value(self, value) -> np.ndarray:
        return check_finite_array(value, "value", ndim=2, shape=(self.dim, self.dim))

    def _moment_shape(self) -> tuple[int, ...]:
        return (self.dim, self.dim)

    def noise_summary(self, shape) -> NoiseSummary:
        var = self.scale ** 2 * (1.0 if self.kind == "gaussian" else 2.0)
        return NoiseSummary(self.kind, self.scale, var, var * self.dim * self.dim)

    def log_likelihood_ratio(self, outputs, value, value_prime):
        """log p(Y | value′) − log p(Y | value), on the free (upper-triangle) coordinates."""
        y = upper_triangle(np.asarray(outputs, dtype=float))
        ra = y - upper_triangle(value)
        rb = y - upper_triangle(value_prime)
        if self.kind == "gaussian":
            return np.sum(ra * ra - rb * rb, axis=-1) / (2.0 * self.scale ** 2)
        return np.sum(np.abs(ra) - np.abs(rb), axis=-1) / self.scale

    def privacy_profile(self, epsilon) -> float:
        """δ(ε) of the noisy triangle: Gaussian at ``sensitivity`` (or the witness), Laplace on the witness."""
        if self.kind == "gaussian":
            sens = self.sensitivity
            if sens is None:
                a, b = self.witnesses()[0]
                sens = float(np.linalg.norm(upper_triangle(b - a)))
            return gaussian_delta(epsilon, self.scale, sens)
        a, b = self.witnesses()[0]
        return laplace_vector_delta(epsilon, self.scale, upper_triangle(b - a))


def _check_pair(pair, dim: int) -> tuple[np.ndarray, np.ndarray]:
    try:
        a, b = pair
    except (TypeError, ValueError):
        raise InvalidParameterError("witness", "must be a pair of values") from None
    return (check_finite_array(a, "witness", ndim=2, shape=(dim, dim)),
            check_finite_array(b, "witness", ndim=2, shape=(dim, dim)))
