r"""Audit adapters for mechanisms that are functions of a dataset (the baselines, DP-SVD).

The auditor (:func:`~matrixdp.audit.audit_mechanism`) needs an object that draws
outputs under a query answer ``value``. The baselines in :mod:`matrixdp.baselines`
and :func:`matrixdp.models.dp_directions.dp_covariance_eigen` are functions of a dataset; the
adapters here expose the law of their *released matrix* (or of a sufficient
statistic of it with the value's shape) as a function of that answer, draw it in
one vectorised call (``release_batch`` / ``sample_noise_batch``), and carry the
guarantee the shipped function claims, the exact log-likelihood ratio where it is
known, the witness pair, and the exact privacy profile where there is a closed form.

Each adapter draws from the same sampler the shipped function uses, with the same
calibration (read from the shipped helpers, never re-derived here); the tests check
that a single draw equals the shipped function's output for the same seed, or, for
the exponential mechanisms, that the shipped function calls the same sampler with
the same concentration.

* :class:`SymmetricNoiseRelease` — value + symmetric noise whose upper triangle
  (diagonal included) is i.i.d. Gaussian or Laplace: MOD-SULQ, Analyze Gauss /
  ``symmetric_release``, ``dp_covariance_eigen``'s noisy Gram matrix.
* :class:`WishartRelease` — value + Wishart noise (the Wishart mechanism), with the
  exact log-likelihood ratio, which is ±∞ off the common support.
* :class:`GaussianSketchRelease` — the JL sketch of Blocki et al., reduced to its
  sufficient statistic SᵀS/r.
* :class:`ProjectorRelease` — the exponential-mechanism PCA (PPCA, PPCA-k), reduced to
  the released projector VVᵀ (sign- and rotation-free, a sufficient statistic).

Derivations: ``docs/derivations/baselines.md``; the catalogue rows: ``docs/audit.md``.

References
----------
.. [1] R. J. Muirhead (1982). Aspects of Multivariate Statistical Theory, Thm 3.2.12 (the
   Wishart support event).
.. [2] J. Blocki, A. Blum, A. Datta, O. Sheffet (2012). The Johnson–Lindenstrauss transform
   itself preserves differential privacy. FOCS.
.. [3] K. Chaudhuri, A. D. Sarwate, K. Sinha (2013). A near-optimal algorithm for
   differentially-private principal components. JMLR 14 (MOD-SULQ, PPCA).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ..baselines.symmetric import mirror_upper, upper_triangle
from ..errors import InvalidParameterError
from ..rng import make_rng

__all__ = ["SymmetricNoiseRelease", "WishartRelease", "GaussianSketchRelease",
           "ProjectorRelease", "upper_triangle", "mirror_upper"]


class _Adapter:
    """Shared plumbing: a name, the claimed guarantee, the witness pair."""

    def __init__(self, name, privacy, witness):
        self.name = name
        self._privacy = privacy
        self._witness = (np.asarray(witness[0], dtype=float), np.asarray(witness[1], dtype=float))

    @property
    def privacy(self):
        return self._privacy

    def witnesses(self):
        return [self._witness]


class SymmetricNoiseRelease(_Adapter):
    r"""value + N, N symmetric with an i.i.d. upper triangle (Gaussian σ or Laplace scale b).

    Parameters
    ----------
    name : str
    privacy : PrivacyGuarantee
        The shipped function's claim.
    witness : (ndarray, ndarray)
        The neighbouring query answers (d × d).
    kind : {"gaussian", "laplace"}
    scale : float
        σ (Gaussian) or b (Laplace) of each upper-triangular entry.
    draw_upper : callable
        ``draw_upper(n, d, rng) -> (n, d(d+1)/2)`` upper-triangle noise, drawn as the
        shipped function draws it (so the first of n draws equals a single release).
    sensitivity : float, optional
        The L2 sensitivity of the triangle the Gaussian calibration used; the exact
        profile is then the Gaussian one at that sensitivity (an upper bound on the
        witness's δ). Laplace: the exact profile on the witness's triangle difference.
    """

    def __init__(self, name, privacy, witness, *, kind: str, scale: float,
                 draw_upper: Callable, sensitivity: float | None = None):
        super().__init__(name, privacy, witness)
        if kind not in ("gaussian", "laplace"):
            raise InvalidParameterError("kind", f"must be 'gaussian' or 'laplace', got {kind!r}")
        self.kind = kind
        self.scale = float(scale)
        self.sensitivity = None if sensitivity is None else float(sensitivity)
        self._draw_upper = draw_upper
        self.d = self._witness[0].shape[0]

    def sample_noise_batch(self, n, shape, rng=None):
        upper = np.asarray(self._draw_upper(int(n), self.d, make_rng(rng)), dtype=float)
        return mirror_upper(upper, self.d).reshape((int(n),) + tuple(shape))

    def sample_noise(self, shape, rng=None):
        return self.sample_noise_batch(1, shape, rng)[0]

    def log_likelihood_ratio(self, outputs, value, value_prime):
        """log p(Y | value′) − log p(Y | value), on the free (upper-triangle) coordinates."""
        y = upper_triangle(np.asarray(outputs, dtype=float))
        ra = y - upper_triangle(value)
        rb = y - upper_triangle(value_prime)
        if self.kind == "gaussian":
            return np.sum(ra * ra - rb * rb, axis=-1) / (2.0 * self.scale ** 2)
        return np.sum(np.abs(ra) - np.abs(rb), axis=-1) / self.scale

    def privacy_profile(self, epsilon):
        if self.kind == "gaussian":
            from ..calibration.gaussian import gaussian_delta

            sens = self.sensitivity
            if sens is None:
                sens = float(np.linalg.norm(upper_triangle(self._witness[1] - self._witness[0])))
            return gaussian_delta(epsilon, self.scale, sens)
        from .laplace_profile import laplace_vector_delta

        return laplace_vector_delta(epsilon, self.scale,
                                    upper_triangle(self._witness[1] - self._witness[0]))


class WishartRelease(_Adapter):
    r"""value + W, W ~ Wishart_d(d + 1, c·I) (the Wishart mechanism of Jiang et al. 2016).

    The release's density under answer A is ∝ exp(−tr(Y − A)/(2c)) on {Y − A ≻ 0}, so
    the exact log-likelihood ratio of value′ against value is tr(value′ − value)/(2c)
    where both densities are positive, −∞ where Y − value′ is not positive definite
    and +∞ where Y − value is not. It is the indicator of the support event the
    refutation uses, so the black-box auditor sees the failure directly.
    """

    def __init__(self, name, privacy, witness, *, scale: float, support_failure: float):
        super().__init__(name, privacy, witness)
        self.scale = float(scale)
        self.d = self._witness[0].shape[0]
        self._support_failure = float(support_failure)

    def sample_noise_batch(self, n, shape, rng=None):
        from ..baselines.wishart import sample_wishart

        w = sample_wishart(self.d, self.d + 1, self.scale, size=int(n), rng=make_rng(rng))
        return w.reshape((int(n),) + tuple(shape))

    def sample_noise(self, shape, rng=None):
        return self.sample_noise_batch(1, shape, rng)[0]

    def log_likelihood_ratio(self, outputs, value, value_prime):
        y = np.asarray(outputs, dtype=float)
        a = np.asarray(value, dtype=float)
        b = np.asarray(value_prime, dtype=float)
        in_a = np.linalg.eigvalsh(y - a)[..., 0] > 0
        in_b = np.linalg.eigvalsh(y - b)[..., 0] > 0
        inside = (np.trace(b) - np.trace(a)) / (2.0 * self.scale)
        return np.where(in_a & in_b, inside, np.where(in_b, np.inf, -np.inf))

    def privacy_profile(self, epsilon):
        r"""Exact δ(ε′) on the witness (x = 0 against a unit record u), for every ε′ ≥ 0.

        Under A the release leaves the neighbour's support with probability
        1 − e^{−ε/3}, and on the common support p_A/p_A′ = e^{−ε/3} ≤ 1, so
        sup_S P_A(S) − e^{ε′} P_A′(S) = 1 − e^{−ε/3}; the other direction gives
        max(0, 1 − e^{ε′ − ε/3}), which is smaller.
        """
        return self._support_failure


class GaussianSketchRelease(_Adapter):
    r"""r i.i.d. N(0, Σ) rows (the JL sketch), released as the sufficient statistic SᵀS/r.

    ``value`` is the lifted covariance Σ = AᵀA + w²I. The sketch's likelihood depends
    on S only through G = SᵀS/r, so G has the same privacy loss distribution as S:

    log p(S | Σ′) − log p(S | Σ) = −(r/2)[log det(Σ⁻¹Σ′) − tr(Σ′⁻¹(Σ′ − Σ)Σ⁻¹ G)].
    """

    def __init__(self, name, privacy, witness, *, r: int):
        super().__init__(name, privacy, witness)
        self.r = int(r)

    def sketches(self, value, n, rng=None) -> np.ndarray:
        """``n`` sketches (n, r, d), drawn as the shipped function draws one."""
        chol = np.linalg.cholesky(np.asarray(value, dtype=float))
        return make_rng(rng).standard_normal((int(n), self.r, chol.shape[0])) @ chol.T

    def release_batch(self, value, n, rng=None):
        s = self.sketches(value, n, rng)
        return np.swapaxes(s, 1, 2) @ s / self.r

    def log_likelihood_ratio(self, outputs, value, value_prime):
        a = np.asarray(value, dtype=float)
        b = np.asarray(value_prime, dtype=float)
        diff = b - a
        inv_a_diff = np.linalg.solve(a, diff)
        _, logdet = np.linalg.slogdet(np.eye(a.shape[0]) + inv_a_diff)
        weight = np.linalg.solve(b, inv_a_diff.T).T  # Σ⁻¹ D Σ′⁻¹ (symmetric up to rounding)
        g = np.asarray(outputs, dtype=float)
        return -0.5 * self.r * (logdet - np.tensordot(g, weight, axes=([1, 2], [0, 1])))


class ProjectorRelease(_Adapter):
    r"""Exponential-mechanism PCA released as the projector VVᵀ onto the sampled subspace.

    The mechanism samples V with density ∝ etr((ε/2)VᵀSV), S = XᵀX/R² (``value``). The
    density depends on V only through VVᵀ, so the projector carries all of the
    output's information about the data. ``draw(value, n, rng)`` returns n draws of V
    (n, d, k) from the shipped sampler. The log-likelihood ratio is
    (ε/2)·tr((S′ − S)VVᵀ) up to an additive constant (the log ratio of the
    normalising constants), which does not change any threshold test.
    """

    def __init__(self, name, privacy, witness, *, epsilon: float, draw: Callable):
        super().__init__(name, privacy, witness)
        self.epsilon = float(epsilon)
        self._draw = draw

    def release_batch(self, value, n, rng=None):
        v = np.asarray(self._draw(np.asarray(value, dtype=float), int(n), make_rng(rng)), dtype=float)
        if v.ndim == 2:
            v = v[:, :, None]
        return v @ np.swapaxes(v, 1, 2)

    def log_likelihood_ratio(self, outputs, value, value_prime):
        diff = np.asarray(value_prime, dtype=float) - np.asarray(value, dtype=float)
        return 0.5 * self.epsilon * np.tensordot(np.asarray(outputs, dtype=float), diff,
                                                 axes=([1, 2], [0, 1]))
