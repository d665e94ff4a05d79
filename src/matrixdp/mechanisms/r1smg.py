r"""The rank-1 singular multivariate Gaussian (R1SMG) mechanism of Ji & Li (2024) — UNSAFE.

Faithful to the paper, and **not differentially private as claimed**: the
paper's Theorem 5 is unsound (``docs/r1smg.md``). It ships only for
reproduction, behind ``allow_unsafe=True``.
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_delta, check_epsilon, check_finite_array, check_sensitivity
from ..calibration.r1smg import (
    check_r1smg_dim,
    r1smg_equivalent_gaussian_epsilon,
    r1smg_privacy_loss,
    r1smg_psi,
    r1smg_sigma_star,
    r1smg_true_delta,
)
from ..errors import InvalidShapeError, UnsafeMechanismError
from .base import Mechanism, NoiseSummary, PrivacyGuarantee, check_neighbouring

__all__ = ["R1SMGMechanism", "R1SMG_DOCS"]

#: The page that explains why R1SMG's calibration is not private.
R1SMG_DOCS = "docs/r1smg.md"

_REFUTED_NOTE = ("claimed (epsilon, delta) per Ji & Li 2024 Theorem 5; NOT a valid DP guarantee "
                 f"(see {R1SMG_DOCS}; matrixdp.audit.exact_delta gives the true delta)")


class R1SMGMechanism(Mechanism):
    r"""Rank-1 singular multivariate Gaussian noise (Ji & Li 2024) — **not (ε, δ)-DP**.

    Adds :math:`n = \sqrt{\sigma^*}\,z\,v` with :math:`z \sim N(0, 1)` and
    :math:`v = g/\|g\|`, :math:`g \sim N(0, I_M)` (uniform on the unit sphere,
    the paper's Theorem 6), fresh on every release, and
    :math:`\sigma^* = 2\Delta^2/(\varepsilon\psi)` (Theorem 5). A matrix query of
    shape (M, N) is flattened to dimension M·N, and the noise is reshaped back.

    The paper's calibration does **not** give (ε, δ)-DP: the noise has a radial
    density spike at the true value, and the real δ(ε) at the paper's σ* is
    typically 0.1–0.97 (see ``docs/r1smg.md``, and
    :meth:`privacy_profile` for the true profile). Constructing this mechanism
    therefore requires ``allow_unsafe=True``; every release is marked
    ``privacy.refuted=True``, ``privacy.exact=False`` and warns
    :class:`~matrixdp.errors.RefutedGuaranteeWarning`.

    Parameters
    ----------
    dim : int
        Number of released entries M > 2 (M·N for an M×N matrix).
    epsilon : float
        The paper's ε > 0 (its Remark 1 asks for ε < 1/M; a warning is issued
        otherwise).
    delta : float
        The paper's δ in (0, 1).
    sensitivity : float
        L2 (Frobenius) sensitivity Δ > 0, a public bound.
    allow_unsafe : bool, default False
        Must be True: acknowledges that the claimed guarantee does not hold.
    neighbouring : str, default "replace-one"

    Attributes
    ----------
    sigma_star : float
        σ* = E‖n‖² (the nonzero eigenvalue of the conditional covariance σ* v vᵀ).
    psi : float
        The paper's ψ.
    per_entry_variance : float
        σ*/M (the unconditional covariance is (σ*/M) I).

    Raises
    ------
    UnsafeMechanismError
        Without ``allow_unsafe=True``.

    References
    ----------
    .. [1] T. Ji and P. Li, "Less is More: Revisiting the Gaussian Mechanism for
       Differential Privacy", USENIX Security 2024 (arXiv:2306.02256v3),
       Definition 8, Theorems 5-6.
    .. [2] matrixdp, ``docs/r1smg.md`` (counterexample and true profile).
    """

    name = "r1smg"

    def __init__(self, *, dim, epsilon, delta, sensitivity, allow_unsafe: bool = False,
                 neighbouring: str = "replace-one"):
        if allow_unsafe is not True:
            raise UnsafeMechanismError(
                "R1SMGMechanism: the paper's calibration (Ji & Li 2024, Theorem 5) does not give "
                "(epsilon, delta)-differential privacy - its true delta at the claimed epsilon is "
                "typically 0.1-0.97, not the stated delta. It is available for reproduction only, "
                f"with allow_unsafe=True. See {R1SMG_DOCS} for the counterexample.")
        self.dim = check_r1smg_dim(dim)
        self.epsilon = check_epsilon(epsilon)
        self.delta = check_delta(delta)
        self.sensitivity = check_sensitivity(sensitivity)
        self.neighbouring = check_neighbouring(neighbouring)
        self.allow_unsafe = True
        self.psi = r1smg_psi(self.dim, self.delta)
        self.sigma_star = r1smg_sigma_star(self.epsilon, self.delta, self.sensitivity, self.dim)

    # ------------------------------------------------------------ properties
    @property
    def per_entry_variance(self) -> float:
        return self.sigma_star / self.dim

    def _moment_shape(self) -> tuple[int, ...]:
        return (self.dim,)

    @property
    def equivalent_gaussian_epsilon(self) -> float:
        """ε of the classic Gaussian with the same per-entry variance (spec §8.1.5)."""
        return r1smg_equivalent_gaussian_epsilon(self.epsilon, self.delta, self.dim)

    @property
    def privacy(self) -> PrivacyGuarantee:
        return PrivacyGuarantee(epsilon=self.epsilon, delta=self.delta,
                                neighbouring=self.neighbouring, calibration="r1smg-paper",
                                exact=False, mechanism=self.name, refuted=True,
                                notes=(_REFUTED_NOTE,))

    def privacy_profile(self, epsilon) -> float:
        """The TRUE δ(ε) of this noise on a worst-case pair (‖f(x) − f(x′)‖ = Δ).

        Computed by quadrature (:func:`~matrixdp.calibration.r1smg.r1smg_true_delta`);
        compare with the claimed :attr:`delta`.
        """
        return r1smg_true_delta(epsilon, self.dim, self.sigma_star, self.sensitivity)

    def noise_summary(self, shape) -> NoiseSummary:
        return NoiseSummary("r1smg", math.sqrt(self.per_entry_variance), self.per_entry_variance,
                            self.sigma_star)

    # --------------------------------------------------------------- sampling
    def _check_value(self, value) -> np.ndarray:
        arr = check_finite_array(value, "value")
        if arr.size != self.dim:
            raise InvalidShapeError(
                "value", f"has {arr.size} entries but the mechanism was built for dim={self.dim}")
        return arr

    def _noise(self, shape, rng):
        if int(np.prod(shape)) != self.dim:
            raise InvalidShapeError("shape", f"must have {self.dim} entries, got {tuple(shape)}")
        return self._batch(1, rng)[0].reshape(shape)

    def _batch(self, n: int, rng) -> np.ndarray:
        g = rng.standard_normal((n, self.dim))
        norms = np.linalg.norm(g, axis=1)
        bad = norms == 0.0
        while bad.any():  # probability 0; kept for exactness
            g[bad] = rng.standard_normal((int(bad.sum()), self.dim))
            norms[bad] = np.linalg.norm(g[bad], axis=1)
            bad = norms == 0.0
        z = rng.standard_normal(n)
        g *= (math.sqrt(self.sigma_star) * z / norms)[:, None]
        return g

    def sample_noise_batch(self, n_samples: int, shape=None, rng=None) -> np.ndarray:
        """Draw ``n_samples`` independent noise values (fresh v and z each) in one pass.

        Returns an array of shape ``(n_samples, *shape)`` (``shape`` defaults to ``(dim,)``).

        ``rng``: ``None`` (default) draws from the per-process secure stream; a seed or a Generator
        makes the draws reproducible, so a seeded release is replayable by anyone who knows the seed
        (they regenerate the noise and subtract it).
        """
        from ..rng import make_rng

        shape = (self.dim,) if shape is None else tuple(int(k) for k in np.atleast_1d(shape))
        if int(np.prod(shape)) != self.dim:
            raise InvalidShapeError("shape", f"must have {self.dim} entries, got {shape}")
        return self._batch(int(n_samples), make_rng(rng)).reshape((int(n_samples),) + shape)

    def log_likelihood_ratio(self, outputs, value, value_prime) -> np.ndarray:
        """Exact log p(output | value_prime) − log p(output | value) (v marginalised out).

        ``outputs`` has shape ``(n, *value.shape)``; returns shape ``(n,)``.
        """
        out = np.asarray(outputs, dtype=float).reshape(len(outputs), -1)
        a = np.linalg.norm(out - np.ravel(value), axis=1)
        b = np.linalg.norm(out - np.ravel(value_prime), axis=1)
        return -r1smg_privacy_loss(a, b, self.dim, self.sigma_star)

    def to_dp_event(self):
        """Refused: R1SMG's claim is not a valid (ε, δ), so it must not enter an accountant.

        Raises
        ------
        UnsafeMechanismError
        """
        raise UnsafeMechanismError(
            "R1SMGMechanism has no valid DP event: its claimed (epsilon, delta) does not hold, "
            f"so composing it in an accountant would be meaningless (see {R1SMG_DOCS})")

    def _metadata(self) -> dict:
        return {"sigma_star": self.sigma_star, "psi": self.psi, "dim": self.dim,
                "claimed": (self.epsilon, self.delta), "docs": R1SMG_DOCS}
