"""Farokhi's whole-table noise: :class:`FisherNoiseMechanism`, the Fisher-information-optimal release
of a whole training set with the exact local-DP guarantee it carries, and its noise samplers
(:func:`sample_optimal_gaussian`, :func:`sample_fisher_matched_laplace`).
"""

from __future__ import annotations

import math
from functools import cached_property

import numpy as np

from .._validation import (check_choice, check_delta, check_epsilon, check_finite_array,
                           check_in_bounds)
from ..calibration.fisher import (
    check_lam,
    check_weights,
    crb,
    design_objective,
    laplace_fisher,
    laplace_fisher_matched_scales,
    optimal_gaussian_cov,
    optimal_gaussian_factor,
    privacy_measure,
    spd_power,
)
from ..calibration.fisher_ldp import (
    gaussian_ldp_epsilon,
    lambda_for_laplace_ldp,
    lambda_for_ldp,
    ldp_sensitivity_factor,
    laplace_factor,
    paper_ldp_epsilon,
)
from ..calibration.gaussian import gaussian_delta
from ..errors import InvalidParameterError, InvalidShapeError
from ..rng import make_rng
from .base import Mechanism, NoiseSummary, PrivacyGuarantee, Release
from .lattice import check_granularity, check_numerics
from .fisher_bounded import BoundedOptimalNoise

__all__ = ["FisherNoiseMechanism", "DEFAULT_REPORT_DELTA", "sample_optimal_gaussian",
           "sample_fisher_matched_laplace"]

_KINDS = ("gaussian", "bounded", "laplace")

#: δ at which the ε of a release given by ``lam`` alone is reported (the exact profile
#: :meth:`FisherNoiseMechanism.privacy_profile` gives every other (ε, δ) pair).
DEFAULT_REPORT_DELTA = 1e-5

_LABEL_NOTE = ("labels are not perturbed (as in the paper): the guarantee covers each record's "
               "features only; release labels only if they are public or not sensitive")


def _check_feature_ranges(feature_ranges) -> np.ndarray:
    if feature_ranges is None:
        raise InvalidParameterError(
            "feature_ranges", "public per-feature bounds [(low, high), ...] are required; they "
                              "must come from domain knowledge, never from the private data")
    arr = check_finite_array(feature_ranges, "feature_ranges")
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise InvalidShapeError("feature_ranges",
                                f"must be an (n_features, 2) array of (low, high), got {arr.shape}")
    if not (arr[:, 1] > arr[:, 0]).all():
        raise InvalidParameterError("feature_ranges", "every high must exceed its low")
    return arr  # read again at release (the bounds check): the constructor seam copied it


class FisherNoiseMechanism(Mechanism):
    r"""Release a training set's features with Farokhi's Fisher-information-optimal noise.

    Each record (row of ``X``) gets i.i.d. noise :math:`n_i`, and the labels are left unchanged,
    as in the paper. The noise minimises :math:`\mathrm{Tr}(\Pi^{-1}\mathcal I)+\lambda\mathrm{Tr}(V_{nn})`:

    * ``kind="gaussian"`` (Theorem 2.4): :math:`n_i\sim\mathcal N(0,\Pi^{-1/2}/\sqrt\lambda)`. The release
      is (ε, δ)-**locally** DP for the public ``feature_ranges``. ε comes from the exact
      analytic-Gaussian profile, not from the paper's Theorem 2.5, which is false at low privacy.
    * ``kind="laplace"``: the Fisher-matched Laplace baseline (spec §5.5). It has the same Fisher
      information and Cramér–Rao level, twice the variance, and is pure ε-LDP.
    * ``kind="bounded"`` (Theorem 2.6 / Corollary 2.7): the optimal density supported on the box
      ``noise_support`` (diagonal Π only). It carries **no** finite-ε LDP guarantee (shifting a
      record moves mass out of the support). Only the Fisher/CRB level holds.

    Parameters
    ----------
    lam : float, optional
        Utility weight λ > 0 (larger λ, less noise). Give either ``lam`` or ``epsilon``.
    epsilon, delta : float, optional
        Target LDP guarantee. λ is then the largest that meets it: exact analytic calibration for
        ``"gaussian"`` (needs δ); pure ε for ``"laplace"`` (δ must be None or 0). With ``lam``,
        ``delta`` (default :data:`DEFAULT_REPORT_DELTA`) sets where ε is reported.
    weights : None, float, 1-D or 2-D array_like
        The privacy weighting Π (identity by default, as in all the paper's experiments).
    feature_ranges : array_like (n_features, 2)
        Public ``(low, high)`` bounds per feature. Required; never derive them from the data.
    kind : {"gaussian", "bounded", "laplace"}
    clip : bool, default False
        Clip ``X`` to ``feature_ranges`` instead of raising :class:`~matrixdp.errors.OutOfBoundsError`.
    noise_support : array_like (n_features, 2), optional
        The box support of the noise, required for ``kind="bounded"``.
    n_grid : int
        Grid nodes per coordinate for ``kind="bounded"``.
    numerics : {"float", "exact"}, default "float"
        ``"float"``: Gaussian noise in floating point (the guarantee assumes idealised real
        arithmetic). ``"exact"`` (``kind="gaussian"`` only): each record is whitened in float64,
        released on a public lattice with exact discrete Gaussian noise and coloured back, at the
        same (ε, δ); the noise is then σ_W (≈ 1.05–1.1) times the optimal noise of ``lam``
        (``noise_summary`` and the guarantee's notes say so). See ``docs/numerics.md``.
    granularity : float, optional
        Exact numerics only: the lattice step in whitened units (a power of two).

    Attributes
    ----------
    lam : float
    weights : ndarray (p, p)
    fisher : ndarray (p, p)
        Fisher information of the noise.
    crb : float
        The Cramér–Rao privacy level :math:`\mathrm{Tr}(\Pi\mathcal I^{-1})` (what the paper reports).
    cost : float
        The design objective at this noise.

    Raises
    ------
    InvalidParameterError
        λ <= 0, both or neither of ``lam`` / ``epsilon``, missing or malformed ranges, an unknown
        ``kind``; :class:`~matrixdp.errors.NotPositiveSemidefiniteError` for a Π that is not
        positive definite; :class:`~matrixdp.errors.OutOfBoundsError` at release for data
        outside the ranges (unless ``clip=True``).

    References
    ----------
    .. [1] F. Farokhi, "Privacy-Preserving Public Release of Datasets for Support Vector Machine
       Classification", IEEE Trans. Big Data, 2020 (Theorems 2.4–2.6).
    .. [2] B. Balle and Y.-X. Wang, "Improving the Gaussian Mechanism for Differential Privacy:
       Analytical Calibration and Optimal Denoising", ICML 2018.
    .. [3] ``docs/fisher.md``.
    """

    name = "farokhi-fisher"

    def __init__(self, *, lam=None, epsilon=None, delta=None, weights=None, feature_ranges=None,
                 kind: str = "gaussian", clip: bool = False, noise_support=None,
                 n_grid: int = 4000, numerics: str = "float", granularity=None):
        check_choice(kind, _KINDS, "kind")
        self.kind = kind
        self.numerics = check_numerics(numerics)
        self.granularity = check_granularity(granularity)
        if self.numerics == "exact" and kind != "gaussian":
            raise InvalidParameterError(
                "numerics", f"'exact' is offered for kind='gaussian' only, got kind={kind!r}")
        if kind != "gaussian" and delta is not None and delta != 0:
            # never silently ignore a delta (or a NaN one): only the Gaussian kind has one
            raise InvalidParameterError(
                "delta", f"kind={kind!r} has no delta (Laplace is pure epsilon-LDP, bounded noise "
                         f"has no LDP guarantee); pass delta=None, got {delta!r}")
        self.feature_ranges = _check_feature_ranges(feature_ranges)
        p = self.feature_ranges.shape[0]
        self.widths = self.feature_ranges[:, 1] - self.feature_ranges[:, 0]
        self.weights = check_weights(weights, p)
        self.clip = bool(clip)
        if (lam is None) == (epsilon is None):
            raise InvalidParameterError("lam", "give exactly one of lam or (epsilon, delta)")
        if lam is not None:
            self.lam = check_lam(lam)
            self.delta = None
        else:
            eps = check_epsilon(epsilon)
            if kind == "gaussian":
                if delta is None:
                    raise InvalidParameterError("delta", "Gaussian noise needs delta in (0, 1)")
                self.lam = lambda_for_ldp(eps, check_delta(delta), self.weights, self.widths)
            elif kind == "laplace":
                if delta not in (None, 0, 0.0):
                    raise InvalidParameterError("delta", "Laplace noise is pure epsilon-LDP; "
                                                         "delta must be None or 0")
                self.lam = lambda_for_laplace_ldp(eps, self.weights, self.widths)
            else:
                raise InvalidParameterError(
                    "epsilon", "bounded-support noise has no finite-epsilon LDP guarantee; "
                               "give lam instead")
        if kind == "gaussian":
            self.delta = check_delta(DEFAULT_REPORT_DELTA if delta is None else delta)
        self._bounded = None
        if kind == "bounded":
            if noise_support is None:
                raise InvalidParameterError("noise_support", "kind='bounded' needs the noise's "
                                                             "box support as (n_features, 2)")
            box = check_finite_array(noise_support, "noise_support")
            if box.shape != (p, 2):
                raise InvalidShapeError("noise_support", f"must have shape ({p}, 2), got {box.shape}")
            self._bounded = BoundedOptimalNoise(self.lam, box[:, 0], box[:, 1],
                                                weights=self.weights, n_grid=n_grid)
        elif noise_support is not None:
            raise InvalidParameterError("noise_support", "only used with kind='bounded'")
        self._lattice = None
        if self.numerics == "exact":
            from .record_lattice import max_box_norm, record_lattice_plan

            eps_claim = gaussian_ldp_epsilon(self.lam, self.delta, self.weights, self.widths)
            self._lattice = record_lattice_plan(
                spd_power(self.weights, 0.25) * self.lam ** 0.25,
                optimal_gaussian_factor(self.lam, self.weights), self.widths,
                max_box_norm(self.feature_ranges[:, 0], self.feature_ranges[:, 1]),
                eps_claim, self.delta, self.granularity)

    # -------------------------------------------------------------- noise law
    @property
    def n_features(self) -> int:
        return self.feature_ranges.shape[0]

    @property
    def fisher(self) -> np.ndarray:
        if self.kind == "bounded":
            return self._bounded.fisher
        if self.kind == "laplace":
            return laplace_fisher(*laplace_fisher_matched_scales(self.lam, self.weights))
        return math.sqrt(self.lam) * spd_power(self.weights, 0.5)

    @property
    def second_moment(self) -> np.ndarray:
        """Raw second moment :math:`V_{nn}=\\mathbb E[nn^\\top]` of one record's noise."""
        if self.kind == "bounded":
            mean = self._bounded.mean
            v = np.outer(mean, mean)
            np.fill_diagonal(v, self._bounded.second_moment)
            return v
        cov = optimal_gaussian_cov(self.lam, self.weights)
        return 2.0 * cov if self.kind == "laplace" else cov

    @property
    def crb(self) -> float:
        return crb(self.weights, self.fisher)

    @property
    def privacy_measure(self) -> float:
        return privacy_measure(self.weights, self.fisher)

    @property
    def cost(self) -> float:
        return design_objective(self.weights, self.fisher, self.second_moment, self.lam)

    @cached_property
    def whitened_sensitivity(self) -> float:
        return self.lam ** 0.25 * ldp_sensitivity_factor(self.weights, self.widths)

    def privacy_profile(self, epsilon) -> float:
        """Exact δ(ε) of the Gaussian release as a local mechanism (``kind="gaussian"`` only)."""
        if self.kind != "gaussian":
            raise InvalidParameterError("kind", "the Gaussian privacy profile needs kind='gaussian'")
        if self._lattice is not None:      # exact numerics: the discrete Gaussian's proven bound
            from ..calibration.discrete import discrete_gaussian_delta

            lat = self._lattice.lattice
            return discrete_gaussian_delta(check_epsilon(epsilon), lat.sigma2, lat.sensitivity)
        return gaussian_delta(check_epsilon(epsilon), 1.0, self.whitened_sensitivity)

    def to_dp_event(self):
        """The ``dp_accounting.GaussianDpEvent`` of one record's release (``kind="gaussian"``).

        After whitening, each record's release is a unit-variance Gaussian mechanism with L2
        sensitivity :attr:`whitened_sensitivity`, so the event has noise multiplier
        ``1 / whitened_sensitivity`` (conservative when the sensitivity is an upper bound).
        Needs ``matrixdp[accounting]``.
        """
        if self.kind != "gaussian":
            raise InvalidParameterError("kind", "a dp_accounting event is only provided for "
                                                "kind='gaussian'")
        import dp_accounting

        if self._lattice is not None:
            lat = self._lattice.lattice
            return dp_accounting.ZCDpEvent(rho=lat.sensitivity / (2 * float(lat.sigma2)))
        return dp_accounting.GaussianDpEvent(noise_multiplier=1.0 / self.whitened_sensitivity)

    # -------------------------------------------------------------- guarantee
    @cached_property
    def privacy(self) -> PrivacyGuarantee:
        if self.kind == "gaussian" and self._lattice is not None:
            eps = gaussian_ldp_epsilon(self.lam, self.delta, self.weights, self.widths)
            notes = (self._lattice.note(), _LABEL_NOTE,
                     f"the noise is {self._lattice.noise_scale:.6g} x the optimal Gaussian noise of "
                     f"lam={self.lam:.6g} (the float path's epsilon at this lam, met by the discrete "
                     "Gaussian's proven bound); fisher/crb/cost describe the float noise")
            return PrivacyGuarantee(epsilon=eps, delta=self.delta, neighbouring="local",
                                    calibration="discrete-zcdp", exact=False, mechanism=self.name,
                                    notes=notes)
        if self.kind == "gaussian":
            k, exact = ldp_sensitivity_factor(self.weights, self.widths, return_exact=True)
            eps = gaussian_ldp_epsilon(self.lam, self.delta, self.weights, self.widths)
            paper = paper_ldp_epsilon(self.lam, self.delta, self.weights, self.widths)
            paper_holds = gaussian_delta(paper, 1.0, self.whitened_sensitivity) <= self.delta * (1 + 1e-9)
            notes = (
                _LABEL_NOTE,
                f"exact epsilon from the analytic Gaussian profile (whitened sensitivity "
                f"{self.whitened_sensitivity:.4g}); the paper's Theorem 2.5 gives {paper:.4g}, "
                + ("which holds here but is looser" if paper_holds else
                   "which is FALSE here (refuted by the exact profile)"),
            )
            if not exact:
                notes += ("||Pi^{1/4} diag(R)||_{inf,2} was upper-bounded (non-diagonal Pi, "
                          "p > 20): epsilon is a sufficient bound",)
            return PrivacyGuarantee(epsilon=eps, delta=self.delta, neighbouring="local",
                                    calibration="analytic", exact=exact, mechanism=self.name,
                                    notes=notes, mu=self.whitened_sensitivity)
        if self.kind == "laplace":
            k1, exact = laplace_factor(self.weights, self.widths)
            notes = (_LABEL_NOTE, "pure epsilon-LDP of independent Laplace noise in Pi's "
                                  "eigenbasis, Fisher-matched to the optimal Gaussian")
            return PrivacyGuarantee(epsilon=self.lam ** 0.25 * k1, delta=0.0, neighbouring="local",
                                    calibration="laplace", exact=exact, mechanism=self.name,
                                    notes=notes)
        return PrivacyGuarantee(
            epsilon=math.inf, delta=1.0, neighbouring="local", calibration="none", exact=False,
            mechanism=self.name,
            notes=(_LABEL_NOTE,
                   "NO differential-privacy guarantee: bounded-support noise is not (epsilon, "
                   "delta)-LDP for any useful pair (a shift of a record moves probability mass "
                   "outside the noise's support); only the Fisher-information / Cramer-Rao "
                   f"level {self.crb:.4g} holds"))

    def noise_summary(self, shape) -> NoiseSummary:
        q = int(shape[0]) if len(shape) else 1
        v = self.second_moment
        if self.kind == "bounded":
            mean = self._bounded.mean
            per_entry_var = float(np.mean(self._bounded.second_moment - mean ** 2))
            bias = float(np.mean(mean))
        else:
            if self._lattice is not None:
                v = v * self._lattice.noise_scale ** 2
            per_entry_var = float(np.trace(v)) / self.n_features
            bias = 0.0
        return NoiseSummary(distribution=self.kind, scale=math.sqrt(per_entry_var),
                            per_entry_variance=per_entry_var,
                            expected_squared_error=q * float(np.trace(v)), bias=bias)

    def _moment_shape(self) -> tuple[int, ...]:
        return (1, self.n_features)

    # ---------------------------------------------------------------- release
    def _noise(self, shape, rng) -> np.ndarray:
        q = int(shape[0])
        if self.kind == "bounded":
            return self._bounded.sample(q, rng)
        if self.kind == "laplace":
            scales, basis = laplace_fisher_matched_scales(self.lam, self.weights)
            return (rng.laplace(0.0, 1.0, size=(q, self.n_features)) * scales) @ basis.T
        factor = optimal_gaussian_factor(self.lam, self.weights)
        return rng.standard_normal((q, self.n_features)) @ factor.T

    def _release_exact(self, arr, gen):
        from .record_lattice import record_lattice_release

        return record_lattice_release(arr, self._lattice, gen)

    def _release_batch_exact(self, value, n, rng=None):
        from .record_lattice import record_lattice_release

        X = self._check_value(value)
        stacked = np.broadcast_to(X, (int(n),) + X.shape).reshape(-1, X.shape[1])
        out = record_lattice_release(stacked, self._lattice, make_rng(rng))
        return out.reshape((int(n),) + X.shape)

    def _check_value(self, value) -> np.ndarray:
        X = check_finite_array(value, "X", ndim=2)
        if X.shape[1] != self.n_features:
            raise InvalidShapeError("X", f"must have {self.n_features} columns (one per feature "
                                         f"range), got {X.shape[1]}")
        low, high = self.feature_ranges[:, 0], self.feature_ranges[:, 1]
        if self.clip:
            return np.clip(X, low, high)
        check_in_bounds(X, low, high, "X")
        return X

    def release(self, X, rng=None, *, accountant=None, ledger=None, label: str = "") -> Release:
        """Return the noisy features ``X + N`` (labels are not touched; release them yourself).

        Parameters
        ----------
        X : array_like (n_samples, n_features)
            Records in rows, within ``feature_ranges`` (or clipped when ``clip=True``).
        rng : None, int or numpy.random.Generator
            ``None`` (default) draws from the per-process secure stream; nothing that drew the
            noise is kept on the mechanism or the Release. An int seed or a Generator makes the
            release reproducible, and so replayable: anyone who knows the seed (or the
            generator's state) can regenerate the noise and subtract it.
        accountant, ledger, label :
            Budget keepers charged before the noise (see :meth:`Mechanism.release`); the
            guarantee is local DP, so they must account under the ``"local"`` relation (or
            charge ``matrixdp.accounting.local_as_replace_one(self.privacy)`` yourself).
        """
        return super().release(X, rng=rng, accountant=accountant, ledger=ledger, label=label)

    def _metadata(self) -> dict:
        return {"lam": self.lam, "kind": self.kind, "crb": self.crb,
                "privacy_measure": self.privacy_measure, "cost": self.cost,
                "weights": self.weights, "feature_ranges": self.feature_ranges}


def sample_optimal_gaussian(n_samples: int, lam, weights=None, n_features: int | None = None,
                            rng=None) -> np.ndarray:
    r"""Draw ``n_samples`` i.i.d. rows :math:`n_i\sim\mathcal N(0,\Pi^{-1/2}/\sqrt\lambda)`.

    Returns
    -------
    ndarray, (n_samples, p)

    ``rng``: ``None`` (default) draws from the per-process secure stream; a seed or a Generator
    makes the draws reproducible, so a seeded release is replayable by anyone who knows the seed
    (they regenerate the noise and subtract it).
    """
    factor = optimal_gaussian_factor(lam, weights, n_features)
    gen = make_rng(rng)
    g = gen.standard_normal((int(n_samples), factor.shape[0]))
    return g @ factor.T


def sample_fisher_matched_laplace(n_samples: int, lam, weights=None,
                                  n_features: int | None = None, rng=None) -> np.ndarray:
    """Draw ``n_samples`` rows of the Fisher-matched Laplace baseline noise (spec §5.5).

    ``rng``: ``None`` (default) draws from the per-process secure stream; a seed or a Generator
    makes the draws reproducible, so a seeded release is replayable by anyone who knows the seed
    (they regenerate the noise and subtract it).
    """
    scales, basis = laplace_fisher_matched_scales(lam, weights, n_features)
    gen = make_rng(rng)
    z = gen.laplace(0.0, 1.0, size=(int(n_samples), scales.size)) * scales
    return z @ basis.T
