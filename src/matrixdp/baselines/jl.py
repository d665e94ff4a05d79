"""The Johnson–Lindenstrauss transform as a private covariance sketch (Blocki, Blum, Datta, Sheffet 2012).

Records are rows x with ‖x‖₂ ≤ R (public). Scaled by 1/(2R), two neighbouring datasets
(replace-one) differ in one row by a vector of norm ≤ 1, the relation of [1]. The
singular values of the scaled A are lifted, A'ᵀA' = AᵀA + w²I with
w = 16·sqrt(r ln(2/δ))/ε · ln(16r/δ), and r Gaussian projections of A' are released:
M·A' with M ∈ R^{r×(n+d)} i.i.d. N(0, 1). Each row of M·A' is N(0, AᵀA + w²I), so it is
drawn directly from that covariance (same distribution, O(d³) instead of O(rnd)).
The estimate of XᵀX/n is ((M A')ᵀ(M A')/r − w²I)·(2R)²/n.

Derivation: ``docs/baselines.md``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._validation import (check_delta, check_epsilon, check_finite_array, check_positive,
                           check_row_norms, check_square_matrix)
from ..errors import InvalidParameterError
from ..mechanisms.base import Mechanism, NoiseSummary, PrivacyGuarantee, refuse_uncharged_batch
from ..mechanisms.draw import charged_noise
from ..rng import make_rng
from ._given import GivenClaimMixin

__all__ = ["JLCovariance", "JLSketchMechanism", "blocki_jl_covariance", "blocki_w"]


def blocki_w(r: int, epsilon: float, delta: float) -> float:
    """The singular-value floor w = 16·sqrt(r ln(2/δ))/ε · ln(16r/δ) of Blocki et al. (2012)."""
    eps = check_epsilon(epsilon)
    d = check_delta(delta)
    if int(r) != r or r < 1:
        raise InvalidParameterError("r", f"must be a positive integer, got {r!r}")
    return 16.0 * math.sqrt(r * math.log(2.0 / d)) / eps * math.log(16.0 * r / d)


@dataclass(frozen=True)
class JLCovariance:
    """Result of :func:`blocki_jl_covariance`.

    Attributes
    ----------
    sketch : ndarray of shape (r, d)
        The released projections M·A' (in the scaled units).
    covariance : ndarray of shape (d, d)
        The debiased estimate of XᵀX/n in the original units (post-processing).
    w : float
        The singular-value floor.
    scale : float
        The row scaling 2R applied before sketching.
    """

    sketch: np.ndarray
    covariance: np.ndarray
    w: float
    scale: float


def blocki_jl_covariance(X, *, epsilon: float, delta: float, r: int, row_norm_bound: float,
                         rng=None) -> JLCovariance:
    """Release an (ε, δ)-DP JL sketch of X and the covariance estimate it implies.

    Guarantee: (ε, δ)-DP under replace-one neighbours for rows in the public R-ball, by the
    theorem of [1] (a sufficient bound; no exact profile is known, so the auditor checks it
    black-box only). No ``PrivacyGuarantee`` object is attached to the result; the sketch is
    drawn through :func:`~matrixdp.mechanisms.draw.charged_noise`, so the enclosing
    ``with Accountant(...)`` / ``with Ledger(...)`` block is charged (ε, δ) before the draw.

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
        Records in rows, ‖x‖₂ ≤ ``row_norm_bound`` (checked).
    epsilon, delta : float
        Privacy parameters (the theorem of [1]).
    r : int
        Number of projections (the method's free variable).
    row_norm_bound : float
        Public bound R on row norms.
    rng : None, int or Generator
        ``None`` (default) draws from the per-process secure stream; a seed or a Generator makes the
        draws reproducible, so a seeded release is replayable by anyone who knows the seed (they
        regenerate the noise and subtract it).

    Returns
    -------
    JLCovariance

    References
    ----------
    .. [1] J. Blocki, A. Blum, A. Datta, O. Sheffet (2012). The Johnson–Lindenstrauss
       transform itself preserves differential privacy. FOCS.
    """
    x = check_finite_array(X, "X", ndim=2)
    big_r = check_positive(row_norm_bound, "row_norm_bound")
    check_row_norms(x, big_r, "X")
    w = blocki_w(r, epsilon, delta)
    n, d = x.shape
    scale = 2.0 * big_r
    a = x / scale
    lifted = a.T @ a + (w * w) * np.eye(d)
    chol = np.linalg.cholesky(lifted)
    privacy = _blocki_privacy(epsilon, delta)
    with charged_noise(privacy, rng, label="blocki-jl") as src:
        sketch = src.gaussian((int(r), d)) @ chol.T
    estimate = (sketch.T @ sketch / r - (w * w) * np.eye(d)) * (scale * scale) / n
    return JLCovariance(sketch=sketch, covariance=estimate, w=w, scale=scale)


def _blocki_privacy(epsilon: float, delta: float) -> PrivacyGuarantee:
    return PrivacyGuarantee(epsilon=float(epsilon), delta=float(delta),
                            calibration="Blocki et al. 2012 (w floor)", exact=False,
                            mechanism="blocki-jl")


class JLSketchMechanism(GivenClaimMixin, Mechanism):
    r"""The JL sketch of Blocki et al. as a mechanism on its lifted covariance, released as SᵀS/r.

    ``value`` is the lifted covariance Σ = AᵀA + w²I of the scaled records A
    (:func:`blocki_jl_covariance` builds it from the data); the sketch S has r i.i.d.
    N(0, Σ) rows, drawn as :func:`blocki_jl_covariance` draws them for the same seed. Its
    likelihood depends on S only through G = SᵀS/r, so the release G has the same privacy
    loss distribution as S:

    log p(S | Σ′) − log p(S | Σ) = −(r/2)[log det(Σ⁻¹Σ′) − tr(Σ′⁻¹(Σ′ − Σ)Σ⁻¹ G)].

    Not additive: G is unbiased for Σ with ``Var(G_ij) = (Σ_ij² + Σ_ii Σ_jj)/r``, which
    depends on the value, so :meth:`noise_summary` has no data-independent variance (NaN).

    Parameters
    ----------
    r : int
        Number of projections.
    privacy : PrivacyGuarantee
        The claim of the theorem of [1] for the chosen (ε, δ) (public).
    witness : (ndarray, ndarray), optional
        Public neighbouring lifted covariances for :meth:`witnesses`.
    name : str

    References
    ----------
    .. [1] J. Blocki, A. Blum, A. Datta, O. Sheffet (2012). The Johnson–Lindenstrauss
       transform itself preserves differential privacy. FOCS.
    """

    name = "blocki-jl"

    def __init__(self, *, r: int, privacy: PrivacyGuarantee, witness=None, name: str | None = None):
        if isinstance(r, bool) or int(r) != r or r < 1:
            raise InvalidParameterError("r", f"must be a positive integer, got {r!r}")
        if not isinstance(privacy, PrivacyGuarantee):
            raise InvalidParameterError("privacy", "must be a PrivacyGuarantee")
        self.r = int(r)
        self._privacy = privacy
        self._witness = None if witness is None else tuple(
            check_finite_array(w, "witness", ndim=2) for w in witness)
        if name is not None:
            self.name = str(name)

    def sketches(self, value, n, rng=None) -> np.ndarray:
        """``n`` sketches (n, r, d), drawn as :func:`blocki_jl_covariance` draws one.

        ``rng``: ``None`` (default) draws from the per-process secure stream; a seed or a Generator
        makes the draws reproducible, so a seeded release is replayable by anyone who knows the seed
        (they regenerate the noise and subtract it). Nothing is charged (the auditor's sampler,
        also behind :meth:`release_batch`): refused inside a budget keeper's ``with`` block
        (``mechanisms.base.refuse_uncharged_batch``).
        """
        refuse_uncharged_batch(self.name, "sketches")
        return self._draw_sketches(value, n, make_rng(rng))

    def _draw_sketches(self, value, n, gen) -> np.ndarray:
        chol = np.linalg.cholesky(np.asarray(value, dtype=float))
        return gen.standard_normal((int(n), self.r, chol.shape[0])) @ chol.T

    def release_batch(self, value, n, rng=None) -> np.ndarray:
        """``n`` independent releases SᵀS/r on ``value``, shape ``(n, d, d)``.

        ``rng``: ``None`` (default) draws from the per-process secure stream; a seed or a Generator
        makes the draws reproducible, so a seeded release is replayable by anyone who knows the seed
        (they regenerate the noise and subtract it).
        """
        s = self.sketches(value, n, rng)
        return np.swapaxes(s, 1, 2) @ s / self.r

    def _check_value(self, value) -> np.ndarray:
        return check_square_matrix(value, "value")

    def _randomise(self, arr: np.ndarray, gen: np.random.Generator) -> np.ndarray:
        """One draw of SᵀS/r for the lifted covariance ``arr`` (what :meth:`release` returns)."""
        return self.release_batch(arr, 1, gen)[0]

    def _metadata(self) -> dict:
        return {"r": self.r}

    def _noise(self, shape, rng) -> np.ndarray:
        raise InvalidParameterError("value", "the JL sketch is not additive noise: use release "
                                             "or release_batch on a value")

    def noise_summary(self, shape) -> NoiseSummary:
        nan = float("nan")
        return NoiseSummary("gaussian-sketch", nan, nan, nan, bias=0.0)

    def log_likelihood_ratio(self, outputs, value, value_prime):
        a = np.asarray(value, dtype=float)
        b = np.asarray(value_prime, dtype=float)
        diff = b - a
        inv_a_diff = np.linalg.solve(a, diff)
        _, logdet = np.linalg.slogdet(np.eye(a.shape[0]) + inv_a_diff)
        weight = np.linalg.solve(b, inv_a_diff.T).T  # Σ⁻¹ D Σ′⁻¹ (symmetric up to rounding)
        g = np.asarray(outputs, dtype=float)
        return -0.5 * self.r * (logdet - np.tensordot(g, weight, axes=([1, 2], [0, 1])))
