"""Wishart mechanism (Jiang, Xie, Zhang 2016): Wishart noise on the second-moment matrix.

Records scaled into the unit ball by a public bound R; A = XᵀX/(nR²); release A + W with
W ~ Wishart_d(d + 1, C), C = (3/(2nε))·I, and the top eigenvectors of A + W. The paper
claims pure ε-DP. **That claim is refuted**: the noise density is supported on the positive
definite cone, so the release's support {Y : Y − A ≻ 0} depends on the data. For the
neighbour that adds a unit record u (x = 0 replaced by u) the event {Y − A − uuᵀ/n is not
positive definite} has probability exactly 1 − exp(−ε/3) under A and 0 under the neighbour
(uᵀW⁻¹u·(uᵀC⁻¹u)⁻¹ is a reciprocal χ²₂, Muirhead Thm 3.2.12). So no (ε', δ) with
δ < 1 − e^{−ε/3} holds; what does hold is (ε/3, 1 − e^{−ε/3})-DP, useless for δ ≪ ε.
The mechanism is therefore an explicit opt-in (``allow_unsafe=True``).

Derivation: ``docs/baselines.md`` (section Wishart mechanism).
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_epsilon, check_finite_array, check_positive
from ..errors import InvalidParameterError, UnsafeMechanismError
from ..mechanisms.base import Mechanism, NoiseSummary, PrivacyGuarantee
from ..mechanisms.draw import charged_noise, public_randomness
from ..rng import make_rng
from ._given import GivenClaimMixin
from .pca_release import PCARelease, top_eigenvectors, unit_ball_second_moment

__all__ = ["wishart_scale", "sample_wishart", "wishart_support_failure", "wishart_pca",
           "WishartMechanism"]

REFUTATION = (
    "Wishart noise is supported on the positive definite cone, so the support of A + W depends "
    "on A: adding a unit record u makes {Y − A − uuᵀ/n not PD} an event of probability "
    "1 − exp(−ε/3) under one neighbour and 0 under the other. The paper's pure ε-DP fails; "
    "the exact guarantee is (ε/3, 1 − exp(−ε/3))-DP, and no δ < 1 − exp(−ε/3) is achievable.")


def wishart_scale(n: int, epsilon: float) -> float:
    """The paper's scale c in C = c·I: c = 3/(2nε) for records with ‖x‖₂ ≤ 1 and A = XᵀX/n.

    References
    ----------
    .. [1] W. Jiang, C. Xie, Z. Zhang (2016). Wishart mechanism for differentially private
       principal components analysis. AAAI.
    """
    if int(n) != n or n < 1:
        raise InvalidParameterError("n", f"must be a positive integer, got {n!r}")
    return 3.0 / (2.0 * int(n) * check_epsilon(epsilon))


def sample_wishart(d: int, dof: int, scale, size: int | None = None, rng=None) -> np.ndarray:
    r"""Draw W ~ Wishart_d(dof, C) as W = G Gᵀ, G = L Z, LLᵀ = C, Z a d × dof standard normal.

    Parameters
    ----------
    d : int
        Dimension.
    dof : int
        Degrees of freedom m ≥ 1 (integer, so the Bartlett-free G Gᵀ construction is exact).
    scale : float or array_like of shape (d, d)
        C: a positive scalar (C = scale·I) or a symmetric positive definite matrix.
    size : int, optional
        Number of draws; None for one matrix.
    rng : None, int or Generator
        ``None`` (default) draws from the per-process secure stream; a seed or a Generator makes the
        draws reproducible, so a seeded release is replayable by anyone who knows the seed (they
        regenerate the noise and subtract it).

    Returns
    -------
    ndarray of shape (d, d) or (size, d, d)

    Notes
    -----
    E[W] = m·C and Var(W_ij) = m(C_ij² + C_ii C_jj).

    References
    ----------
    .. [1] R. J. Muirhead (1982). Aspects of Multivariate Statistical Theory, §3.2.
    """
    if int(d) != d or d < 1:
        raise InvalidParameterError("d", f"must be a positive integer, got {d!r}")
    if int(dof) != dof or dof < 1:
        raise InvalidParameterError("dof", f"must be a positive integer, got {dof!r}")
    d, dof = int(d), int(dof)
    if np.ndim(scale) == 0:
        chol = math.sqrt(check_positive(scale, "scale")) * np.eye(d)
    else:
        c = check_finite_array(scale, "scale", ndim=2, shape=(d, d))
        if not np.allclose(c, c.T):
            raise InvalidParameterError("scale", "must be symmetric")
        try:
            chol = np.linalg.cholesky(c)
        except np.linalg.LinAlgError as exc:
            raise InvalidParameterError("scale", "must be positive definite") from exc
    src = public_randomness(rng)  # a charged NoiseSource (wishart_pca) passes through
    count = 1 if size is None else int(size)
    g = chol @ src.gaussian((count, d, dof))
    w = g @ np.swapaxes(g, 1, 2)
    return w[0] if size is None else w


def wishart_support_failure(epsilon: float) -> float:
    r"""Exact worst-case probability 1 − exp(−ε/3) of the support-violating event.

    Under A, P(A + W − A' is not PD) for the neighbour A' = A + uuᵀ/n (‖u‖ = 1) equals
    P(χ²₂ ≤ 2ε/3) = 1 − exp(−ε/3); every other neighbour gives less (W − (x'x'ᵀ − xxᵀ)/n ⪰
    W − x'x'ᵀ/n). This is the smallest δ any (ε', δ) guarantee of the mechanism can have.
    """
    eps = check_epsilon(epsilon)
    return -math.expm1(-eps / 3.0)


def wishart_pca(X, *, epsilon: float, n_components: int, row_norm_bound: float,
                allow_unsafe: bool = False, rng=None) -> PCARelease:
    r"""The Wishart mechanism: top-k eigenvectors of XᵀX/(nR²) + W, W ~ W_d(d+1, 3/(2nε)·I).

    Guarantee: the paper claims pure ε-DP under replace-one neighbours; that claim is
    **refuted** (the output's support depends on the data), so the result is marked
    ``privacy.refuted``; what holds is (ε/3, 1 − e^{−ε/3})-DP.

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
        Records in rows (the paper uses columns), ‖x‖₂ ≤ ``row_norm_bound`` (checked).
    epsilon : float
        The paper's ε (its claimed pure ε-DP is refuted, see below).
    n_components : int
    row_norm_bound : float
        Public bound R; records are scaled by 1/R.
    allow_unsafe : bool, default False
        Must be True: the mechanism's claim is refuted, and it is only available to
        reproduce the papers that compare against it.
    rng : None, int or Generator
        ``None`` (default) draws from the per-process secure stream; a seed or a Generator makes the
        draws reproducible, so a seeded release is replayable by anyone who knows the seed (they
        regenerate the noise and subtract it).

    Returns
    -------
    PCARelease
        ``privacy.refuted`` is True; its notes give the guarantee that does hold,
        (ε/3, 1 − e^{−ε/3}).

    Raises
    ------
    UnsafeMechanismError
        Unless ``allow_unsafe=True``.

    References
    ----------
    .. [1] W. Jiang, C. Xie, Z. Zhang (2016). Wishart mechanism for differentially private
       principal components analysis. AAAI.
    .. [2] R. J. Muirhead (1982). Aspects of Multivariate Statistical Theory, Thm 3.2.12.
    """
    eps = check_epsilon(epsilon)
    if not allow_unsafe:
        raise UnsafeMechanismError("Wishart mechanism: " + REFUTATION + " Pass allow_unsafe=True to run it anyway.")
    a, n = unit_ball_second_moment(X, row_norm_bound)
    d = a.shape[0]
    c = wishart_scale(n, eps)
    holds = wishart_support_failure(eps)
    privacy = PrivacyGuarantee(
        epsilon=eps, delta=0.0, calibration="paper (Jiang et al. 2016)", exact=False,
        mechanism="wishart", refuted=True,
        notes=(REFUTATION, f"holds: ({eps / 3:.4g}, {holds:.4g})-DP"))
    # charged like every release (a keeper refuses the refuted claim unless it allows unsafe)
    with charged_noise(privacy, rng, label="wishart") as src:
        noisy = a + sample_wishart(d, d + 1, c, rng=src)
    r2 = float(row_norm_bound) ** 2
    return PCARelease(components=top_eigenvectors(noisy, n_components), covariance=noisy * r2,
                      privacy=privacy, noise_scale=c * math.sqrt(d + 1),
                      metadata={"scale": c, "dof": d + 1, "row_norm_bound": float(row_norm_bound)})


class WishartMechanism(GivenClaimMixin, Mechanism):
    r"""``value + W``, ``W ~ Wishart_d(d + 1, c·I)``: the noise of the Wishart mechanism (Jiang et al. 2016).

    The release's density under answer A is ∝ exp(−tr(Y − A)/(2c)) on {Y − A ≻ 0}, so
    the exact log-likelihood ratio of value′ against value is tr(value′ − value)/(2c)
    where both densities are positive, −∞ where Y − value′ is not positive definite
    and +∞ where Y − value is not: the indicator of the support event that refutes
    the paper's pure ε claim (``docs/baselines.md``), so a black-box audit
    sees the failure directly. Draws are those of :func:`wishart_pca` for the same seed.

    Parameters
    ----------
    dim : int
        ``d``.
    scale : float
        ``c`` (:func:`wishart_scale`).
    privacy : PrivacyGuarantee
        The (refuted) claim of :func:`wishart_pca` (public).
    support_failure : float, optional
        The exact δ on the witness (:func:`wishart_support_failure`), returned by
        :meth:`privacy_profile` for every ε′.
    witness : (ndarray, ndarray), optional
        Public neighbouring values (``d × d``) for :meth:`witnesses`.
    name : str
    """

    name = "wishart"

    def __init__(self, *, dim: int, scale: float, privacy: PrivacyGuarantee,
                 support_failure: float | None = None, witness=None, name: str | None = None):
        if isinstance(dim, bool) or int(dim) != dim or dim < 1:
            raise InvalidParameterError("dim", f"must be a positive integer, got {dim!r}")
        if not isinstance(privacy, PrivacyGuarantee):
            raise InvalidParameterError("privacy", "must be a PrivacyGuarantee")
        self.dim = int(dim)
        self.scale = check_positive(scale, "scale")
        self._privacy = privacy
        self._support_failure = None if support_failure is None else float(support_failure)
        self._witness = None if witness is None else tuple(
            check_finite_array(w, "witness", ndim=2, shape=(self.dim, self.dim)) for w in witness)
        if name is not None:
            self.name = str(name)

    def sample_noise_batch(self, n, shape, rng=None) -> np.ndarray:
        """``n`` Wishart draws in one call.

        ``rng``: ``None`` (default) draws from the per-process secure stream; a seed or a Generator
        makes the draws reproducible, so a seeded release is replayable by anyone who knows the seed
        (they regenerate the noise and subtract it).
        """
        w = sample_wishart(self.dim, self.dim + 1, self.scale, size=int(n), rng=make_rng(rng))
        return w.reshape((int(n),) + tuple(shape))

    def _noise(self, shape, rng) -> np.ndarray:
        return self.sample_noise_batch(1, shape, rng)[0]

    def _check_value(self, value) -> np.ndarray:
        return check_finite_array(value, "value", ndim=2, shape=(self.dim, self.dim))

    def _moment_shape(self) -> tuple[int, ...]:
        return (self.dim, self.dim)

    def noise_summary(self, shape) -> NoiseSummary:
        """E[W] = m c I, Var(W_ij) = m c²(1 + [i = j]) with m = d + 1 (biased noise)."""
        d, m, c = self.dim, self.dim + 1, self.scale
        var = m * c * c * (d + 1) / d
        total = d * (m * c) ** 2 + m * c * c * d * (d + 1)
        return NoiseSummary("wishart", c, var, total, bias=m * c / d)

    def log_likelihood_ratio(self, outputs, value, value_prime):
        y = np.asarray(outputs, dtype=float)
        a = np.asarray(value, dtype=float)
        b = np.asarray(value_prime, dtype=float)
        in_a = np.linalg.eigvalsh(y - a)[..., 0] > 0
        in_b = np.linalg.eigvalsh(y - b)[..., 0] > 0
        inside = (np.trace(b) - np.trace(a)) / (2.0 * self.scale)
        return np.where(in_a & in_b, inside, np.where(in_b, np.inf, -np.inf))

    def privacy_profile(self, epsilon) -> float:
        r"""Exact δ(ε′) on the witness (x = 0 against a unit record u), for every ε′ ≥ 0.

        Under A the release leaves the neighbour's support with probability
        1 − e^{−ε/3}, and on the common support p_A/p_A′ = e^{−ε/3} ≤ 1, so
        sup_S P_A(S) − e^{ε′} P_A′(S) = 1 − e^{−ε/3}; the other direction gives
        max(0, 1 − e^{ε′ − ε/3}), which is smaller.
        """
        if self._support_failure is None:
            raise InvalidParameterError("support_failure", "needed for the exact profile")
        return self._support_failure
