"""What the private-PCA baselines return, and the helpers they share.

The baselines (:func:`~matrixdp.baselines.mod_sulq`, :func:`~matrixdp.baselines.wishart_pca`,
:func:`~matrixdp.baselines.ppca_components`) work on the second-moment matrix
A = XᵀX/(n R²) of records scaled into the unit ball by a public norm bound R. This module
holds the result type and the two steps they have in common: checking the bound and taking
the top eigenvectors of a (noisy) symmetric matrix.

Derivation: ``docs/baselines.md``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._validation import check_finite_array, check_positive, check_row_norms, check_square_matrix
from ..errors import InvalidParameterError
from ..mechanisms.base import Mechanism, NoiseSummary, PrivacyGuarantee, refuse_uncharged_batch
from ..rng import make_rng
from ._given import GivenClaimMixin

__all__ = ["PCARelease", "ProjectorMechanism", "unit_ball_second_moment", "top_eigenvectors"]


@dataclass(frozen=True)
class PCARelease:
    """A private PCA output.

    Attributes
    ----------
    components : ndarray of shape (n_features, n_components)
        Orthonormal columns, the released principal directions (sign arbitrary).
    covariance : ndarray of shape (n_features, n_features) or None
        The noisy second-moment matrix in the data's units (× R²), for the mechanisms that
        release one (MOD-SULQ, Wishart); None for PPCA, which releases directions only.
    privacy : PrivacyGuarantee
    noise_scale : float
        Per-entry noise standard deviation on the unit-ball matrix A (MOD-SULQ: β;
        Wishart: the standard deviation of an off-diagonal entry of W; PPCA: nan).
    metadata : dict
    """

    components: np.ndarray
    covariance: np.ndarray | None
    privacy: PrivacyGuarantee
    noise_scale: float
    metadata: dict = field(default_factory=dict)


def unit_ball_second_moment(X, row_norm_bound: float) -> tuple[np.ndarray, int]:
    """Return (A, n) with A = XᵀX/(n R²), after checking ‖x_i‖₂ ≤ R for every row.

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
    row_norm_bound : float
        Public bound R on the row norms (never derived from X).

    Raises
    ------
    OutOfBoundsError
        If a row has norm above R (no silent clipping).
    """
    x = check_finite_array(X, "X", ndim=2)
    r = check_positive(row_norm_bound, "row_norm_bound")
    check_row_norms(x, r, "X")
    n = x.shape[0]
    return (x.T @ x) / (n * r * r), n


def top_eigenvectors(matrix: np.ndarray, n_components: int) -> np.ndarray:
    """Eigenvectors of the symmetric part of ``matrix`` for its ``n_components`` largest eigenvalues.

    Returns
    -------
    ndarray of shape (d, n_components), columns in decreasing eigenvalue order.
    """
    d = matrix.shape[0]
    if int(n_components) != n_components or not 1 <= n_components <= d:
        raise InvalidParameterError("n_components", f"must be an integer in [1, {d}], got {n_components!r}")
    _, vec = np.linalg.eigh(0.5 * (matrix + matrix.T))
    return vec[:, ::-1][:, : int(n_components)]


class ProjectorMechanism(GivenClaimMixin, Mechanism):
    r"""Exponential-mechanism PCA on a score matrix S, released as the projector VVᵀ.

    The mechanism samples ``V`` (``d × k``, orthonormal) with density ∝ etr((ε/2)VᵀSV),
    ``S = XᵀX/R²`` (``value``). The density depends on V only through VVᵀ, so the
    projector carries all of the output's information about the data. The
    log-likelihood ratio is (ε/2)·tr((S′ − S)VVᵀ) up to an additive constant (the log
    ratio of the normalising constants), which does not change any threshold test.
    Subclasses draw V: :class:`~matrixdp.baselines.ppca.PPCAMechanism` (k = 1, exact
    sampler) and :class:`~matrixdp.baselines.ppca_k.PPCAKMechanism` (Gibbs chain).

    Not additive: the law of VVᵀ depends on the value, so :meth:`noise_summary` has no
    data-independent moments (NaN).
    """

    name = "projector"

    def __init__(self, *, epsilon: float, privacy: PrivacyGuarantee, witness=None,
                 name: str | None = None):
        if not isinstance(privacy, PrivacyGuarantee):
            raise InvalidParameterError("privacy", "must be a PrivacyGuarantee")
        self.epsilon = check_positive(epsilon, "epsilon")
        self._privacy = privacy
        self._witness = None if witness is None else tuple(
            check_finite_array(w, "witness", ndim=2) for w in witness)
        if name is not None:
            self.name = str(name)

    def _draw(self, score: np.ndarray, n: int, rng) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def release_batch(self, value, n, rng=None) -> np.ndarray:
        """``n`` independent projectors VVᵀ on the score ``value``, shape ``(n, d, d)``.

        ``rng``: ``None`` (default) draws from the per-process secure stream; a seed or a Generator
        makes the draws reproducible, so a seeded release is replayable by anyone who knows the seed
        (they regenerate the noise and subtract it). Nothing is charged (the auditor's sampler):
        refused inside a budget keeper's ``with`` block (``mechanisms.base.refuse_uncharged_batch``).
        """
        refuse_uncharged_batch(self.name)
        v = np.asarray(self._draw(np.asarray(value, dtype=float), int(n), make_rng(rng)),
                       dtype=float)
        if v.ndim == 2:
            v = v[:, :, None]
        return v @ np.swapaxes(v, 1, 2)

    def _check_value(self, value) -> np.ndarray:
        return check_square_matrix(value, "value")

    def _randomise(self, arr: np.ndarray, gen: np.random.Generator) -> np.ndarray:
        """One draw of the projector VVᵀ for the score matrix ``arr`` (what :meth:`release` returns)."""
        return self.release_batch(arr, 1, gen)[0]

    def _noise(self, shape, rng) -> np.ndarray:
        raise InvalidParameterError("value", "the exponential mechanism is not additive noise: "
                                             "use release or release_batch on a value")

    def noise_summary(self, shape) -> NoiseSummary:
        nan = float("nan")
        return NoiseSummary("exponential-mechanism", nan, nan, nan, bias=nan)

    def log_likelihood_ratio(self, outputs, value, value_prime):
        diff = np.asarray(value_prime, dtype=float) - np.asarray(value, dtype=float)
        return 0.5 * self.epsilon * np.tensordot(np.asarray(outputs, dtype=float), diff,
                                                 axes=([1, 2], [0, 1]))
