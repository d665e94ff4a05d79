"""PPCA for k components: the exponential mechanism on the Stiefel manifold, by Gibbs sampling.

The exponential mechanism of Chaudhuri, Sarwate, Sinha (2012/2013) for a k-dimensional
subspace samples V ∈ V_{d,k} (orthonormal columns) with density ∝ exp((ε/2)·tr(VᵀXᵀXV)/R²),
a matrix Bingham law. The score Σ_i ‖Vᵀx_i‖²/R² changes by at most 1 under replace-one
(each term lies in [0, 1]), so *an exact draw* is pure ε-DP. No exact sampler is known; as
in the paper, Hoff's (2009) column-wise Gibbs sampler is used: column j given the others
is N_j z, N_j an orthonormal basis of their orthogonal complement and z a vector Bingham
draw with concentration N_jᵀMN_j, sampled exactly by :func:`~matrixdp.baselines.sample_bingham`.

**The guarantee is approximate**: a finite chain's output law is not the mechanism's, so ε
holds only in the limit of infinitely many sweeps (``privacy.exact`` is False and the
guarantee carries a note). The chain starts from a Haar-random (data-independent) point.

Derivation: ``docs/baselines.md`` (section PPCA for k components).
"""

from __future__ import annotations

import numpy as np

from .._validation import check_epsilon, check_finite_array
from ..errors import InvalidParameterError
from ..mechanisms.base import PrivacyGuarantee
from ..mechanisms.draw import charged_noise, public_randomness
from ..rng import haar_from_gaussian
from .pca_release import PCARelease, ProjectorMechanism, unit_ball_second_moment
from .ppca import sample_bingham

__all__ = ["sample_matrix_bingham_gibbs", "ppca_components", "PPCAKMechanism"]

APPROXIMATION_NOTE = (
    "PPCA-k samples the exponential mechanism with a finite Gibbs chain (Hoff 2009); pure "
    "ε-DP holds for the chain's stationary law only, not for the finite-sweep output, whose "
    "distance to stationarity is not bounded. Treat the guarantee as approximate.")


def _complement_basis(others: np.ndarray) -> np.ndarray:
    """Orthonormal basis (d × (d − r)) of the orthogonal complement of r orthonormal columns."""
    d, r = others.shape
    if r == 0:
        return np.eye(d)
    q, _ = np.linalg.qr(others, mode="complete")
    return q[:, r:]


def sample_matrix_bingham_gibbs(concentration, n_components: int, *, sweeps: int, rng=None,
                                init=None) -> np.ndarray:
    r"""Run Hoff's column-wise Gibbs sampler for V ∈ V_{d,k} with density ∝ etr(VᵀMV).

    Parameters
    ----------
    concentration : array_like of shape (d, d)
        Symmetric M.
    n_components : int
        k, 1 ≤ k < d (k = d is the uniform law on O(d) since tr(VᵀMV) = tr M).
    sweeps : int
        Number of full passes over the k columns (public, data-independent).
    rng : None, int or Generator
        ``None`` (default) draws from the per-process secure stream; a seed or a Generator makes the
        draws reproducible, so a seeded release is replayable by anyone who knows the seed (they
        regenerate the noise and subtract it).
    init : array_like of shape (d, k), optional
        Starting point with orthonormal columns; by default a Haar-random one (drawn from
        ``rng``). A data-dependent start would leak beyond the mechanism.

    Returns
    -------
    ndarray of shape (d, k)
        The chain's state after ``sweeps`` sweeps: an approximate draw.

    Notes
    -----
    For k = 1 a single sweep is an exact draw (the conditional is the target).

    References
    ----------
    .. [1] P. D. Hoff (2009). Simulation of the matrix Bingham–von Mises–Fisher
       distribution, with applications to multivariate and relational data. J. Comput.
       Graph. Stat. 18(2), 438–456.
    """
    m = check_finite_array(concentration, "concentration", ndim=2)
    d = m.shape[0]
    if m.shape != (d, d) or not np.allclose(m, m.T):
        raise InvalidParameterError("concentration", "must be a symmetric square matrix")
    if int(n_components) != n_components or not 1 <= n_components < max(d, 2):
        raise InvalidParameterError("n_components", f"must be an integer in [1, {d - 1}], got {n_components!r}")
    if int(sweeps) != sweeps or sweeps < 1:
        raise InvalidParameterError("sweeps", f"must be a positive integer, got {sweeps!r}")
    k = int(n_components)
    src = public_randomness(rng)  # a charged NoiseSource (ppca_components) passes through
    if init is None:
        v = haar_from_gaussian(src.gaussian((d, d)))[:, :k]  # the law of random_orthonormal_basis
    else:
        v = check_finite_array(init, "init", ndim=2, shape=(d, k)).copy()
        if not np.allclose(v.T @ v, np.eye(k), atol=1e-8):
            raise InvalidParameterError("init", "must have orthonormal columns")
    for _ in range(int(sweeps)):
        for j in range(k):
            basis = _complement_basis(np.delete(v, j, axis=1))
            local = basis.T @ m @ basis
            z = sample_bingham(0.5 * (local + local.T), 1, rng=src)[0]
            v[:, j] = basis @ z
    return v


def ppca_components(X, *, epsilon: float, n_components: int, row_norm_bound: float,
                    sweeps: int = 30, rng=None) -> PCARelease:
    r"""PPCA for k components: a k-dimensional principal subspace by the exponential mechanism.

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
        Records in rows (the paper uses columns), ‖x‖₂ ≤ ``row_norm_bound`` (checked).
    epsilon : float
        Privacy parameter of the exponential mechanism (δ = 0), replace-one.
    n_components : int
        k, 1 ≤ k < d.
    row_norm_bound : float
        Public bound R; records are scaled by 1/R.
    sweeps : int, default 30
        Gibbs sweeps (public). The guarantee is approximate for any finite value.
    rng : None, int or Generator
        ``None`` (default) draws from the per-process secure stream; a seed or a Generator makes the
        draws reproducible, so a seeded release is replayable by anyone who knows the seed (they
        regenerate the noise and subtract it).

    Returns
    -------
    PCARelease
        ``components`` spans the released subspace. The law is invariant under V → VQ
        (Q ∈ O(k)), so the columns are in no particular order: use them as a subspace.
        ``covariance`` is None; ``privacy.exact`` is False with a note.

    References
    ----------
    .. [1] K. Chaudhuri, A. D. Sarwate, K. Sinha (2013). A near-optimal algorithm for
       differentially-private principal components. JMLR 14, 2905–2943.
    .. [2] P. D. Hoff (2009). Simulation of the matrix Bingham–von Mises–Fisher
       distribution. J. Comput. Graph. Stat. 18(2), 438–456.
    """
    eps = check_epsilon(epsilon)
    a, n = unit_ball_second_moment(X, row_norm_bound)
    concentration = 0.5 * eps * n * a
    privacy = PrivacyGuarantee(epsilon=eps, delta=0.0, calibration="exponential mechanism (Gibbs)",
                               exact=False, mechanism="ppca-k", notes=(APPROXIMATION_NOTE,))
    with charged_noise(privacy, rng, label="ppca-k") as src:
        v = sample_matrix_bingham_gibbs(concentration, n_components, sweeps=sweeps, rng=src)
    return PCARelease(components=v, covariance=None, privacy=privacy, noise_scale=float("nan"),
                      metadata={"sweeps": int(sweeps), "row_norm_bound": float(row_norm_bound)})


class PPCAKMechanism(ProjectorMechanism):
    r"""PPCA for k components as a mechanism on the score S = XᵀX/R², released as VVᵀ.

    Each draw runs its own Gibbs chain (:func:`sample_matrix_bingham_gibbs`, ``sweeps``
    passes) on the concentration (ε/2)·S, as :func:`ppca_components` does for the same
    seed; the guarantee is approximate for any finite number of sweeps.

    Parameters
    ----------
    epsilon : float
    n_components : int
        ``k``.
    sweeps : int
        Gibbs sweeps per draw (public).
    privacy : PrivacyGuarantee
        The claim of :func:`ppca_components` (public).
    witness : (ndarray, ndarray), optional
    name : str
    """

    name = "ppca-k"

    def __init__(self, *, epsilon: float, n_components: int, sweeps: int,
                 privacy: PrivacyGuarantee, witness=None, name: str | None = None):
        super().__init__(epsilon=epsilon, privacy=privacy, witness=witness, name=name)
        if isinstance(n_components, bool) or int(n_components) != n_components or n_components < 1:
            raise InvalidParameterError("n_components", f"must be a positive integer, got "
                                                        f"{n_components!r}")
        if isinstance(sweeps, bool) or int(sweeps) != sweeps or sweeps < 1:
            raise InvalidParameterError("sweeps", f"must be a positive integer, got {sweeps!r}")
        self.n_components = int(n_components)
        self.sweeps = int(sweeps)

    def _draw(self, score, n, rng):
        concentration = 0.5 * self.epsilon * score
        return np.stack([sample_matrix_bingham_gibbs(concentration, self.n_components,
                                                     sweeps=self.sweeps, rng=rng)
                         for _ in range(n)])
