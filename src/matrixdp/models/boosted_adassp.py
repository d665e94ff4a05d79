r"""Boosted AdaSSP (Tang et al. 2024): gradient boosting of AdaSSP on one released ``X̃ᵀX̃``.

AdaSSP's ``λ_min`` and ``X̃ᵀX̃`` are released once (as in :mod:`.adassp`) and give the fixed,
privately regularised solve ``Γ = (X̃ᵀX̃^ + λI)⁻¹``. Then, for ``T`` rounds, the residuals of the
current model ``r = ỹ - X̃θ`` are clipped to a public ``[-τ, τ]`` and ``X̃ᵀr`` is released with
Gaussian noise (L2 sensitivity ``2𝒳τ`` replace-one, ``𝒳τ`` add-remove); the model moves by
``η·Γ X̃ᵀr^`` (defaults ``T = 100``, ``η = 1``, ``τ = 𝒴/√T``). The ``T + 2`` Gaussian releases
compose in Gaussian DP: ``μ*²/3`` each to ``λ_min`` and ``X̃ᵀX̃``, ``μ*²/(3T)`` to each round, so
the fit is exactly (ε, δ)-DP (adaptive composition: each round's residuals depend on earlier
releases only through ``θ``). The math is in ``docs/regression.md`` §4b.
"""

from __future__ import annotations

import math
import numbers

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin

from ..calibration.gaussian import max_gaussian_shift
from .._validation import check_part_epsilon
from ..errors import InvalidParameterError
from ..mechanisms import GaussianMechanism
from ..rng import make_rng
from ._base import NoGeneratorStateMixin, charging, check_privacy_params, check_relation
from .adassp import adassp_design, adassp_ridge, check_rho, gram_mechanisms, release_gram
from .linear import LinearPredictorMixin

__all__ = ["BoostedAdaSSPRegression", "boosted_adassp_plan"]


def boosted_adassp_plan(epsilon: float, delta: float, feature_reach: float, residual_clip: float,
                        n_rounds: int, neighbouring: str = "replace-one"):
    """The Gaussian mechanisms of Boosted AdaSSP and their composed guarantee (public; no data).

    ``λ_min`` (sensitivity ``𝒳²``) and ``X̃ᵀX̃`` (Frobenius ``√2·𝒳²`` replace-one, ``𝒳²``
    add-remove) get the shift ``μ*/√3`` each, as in AdaSSP; each of the ``n_rounds`` releases of
    ``X̃ᵀr`` (``|r_i| <= τ``: ``2𝒳τ`` replace-one, ``𝒳τ`` add-remove) gets ``μ*/√(3T)``, so the
    rounds together cost what AdaSSP's one ``X̃ᵀỹ`` costs.

    Returns
    -------
    (mech_lambda, mech_gram, mech_round, total) : GaussianMechanism × 3, PrivacyGuarantee
        ``mech_round`` is used once per round; ``total`` composes all ``n_rounds + 2`` releases.
    """
    from ..accounting.composition import compose, gdp_epsilon

    mu = max_gaussian_shift(epsilon, delta)
    eps_third = check_part_epsilon(gdp_epsilon(mu / math.sqrt(3.0), delta), delta)
    eps_round = check_part_epsilon(gdp_epsilon(mu / math.sqrt(3.0 * n_rounds), delta), delta)
    mech_lambda, mech_gram = gram_mechanisms(eps_third, delta, feature_reach, neighbouring)
    mech_round = GaussianMechanism(epsilon=eps_round, delta=delta,
                                   sensitivity=(2.0 if neighbouring == "replace-one" else 1.0)
                                   * feature_reach * residual_clip, neighbouring=neighbouring)
    total = compose([mech_lambda.privacy, mech_gram.privacy] + [mech_round.privacy] * n_rounds,
                    delta=delta, method="gdp")
    return mech_lambda, mech_gram, mech_round, total


def _check_positive(value, name: str, upper: float = math.inf) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or \
            not (0 < float(value) <= upper) or not math.isfinite(float(value)):
        allowed = "> 0 and finite" if upper == math.inf else f"in (0, {upper:g}]"
        raise InvalidParameterError(name, f"must be {allowed}, got {value!r}")
    return float(value)


class BoostedAdaSSPRegression(LinearPredictorMixin, NoGeneratorStateMixin, RegressorMixin,
                              BaseEstimator):
    r"""Boosted AdaSSP DP linear regression (Tang et al. 2024), own implementation.

    Same public inputs, neighbouring relation, record clipping, ``λ_min`` release and ridge as
    :class:`~matrixdp.models.AdaSSPRegression`; instead of one release of ``X̃ᵀỹ`` it runs
    ``n_rounds`` rounds of gradient boosting on the squared loss, each releasing ``X̃ᵀr`` for the
    current residuals ``r`` clipped to ``[-residual_clip, residual_clip]`` and adding
    ``learning_rate · (X̃ᵀX̃^ + λI)⁻¹ X̃ᵀr^`` to the model. All ``n_rounds + 2`` Gaussian releases
    are composed exactly (Gaussian DP) into (ε, δ) and charged once, before any noise is drawn.
    The math, the budget split and the sensitivities are in ``docs/regression.md`` §4b.

    Parameters
    ----------
    epsilon : float, default 1.0
    delta : float, default 1e-6
    bounds_X : (lower, upper)
        Public feature bounds (scalars or one value per feature). Required.
    bounds_y : (lower, upper)
        Public target bounds. Required.
    n_rounds : int, default 100
        Boosting rounds ``T`` (the authors' reference code's default); each round's release of
        ``X̃ᵀr`` gets ``1/T`` of the third of ``μ*²`` that AdaSSP gives ``X̃ᵀỹ``.
    residual_clip : float or None, default None
        The public threshold ``τ`` residuals are clipped to in every round, in the target's units.
        ``None``: ``𝒴/√T``, with ``𝒴`` the target's public half-range (``(upper - lower)/2`` of
        ``bounds_y``; ``max |bound|`` without an intercept): the threshold at which the ``T``
        rounds' noise, each at ``1/T`` of the budget, has the standard deviation of AdaSSP's one
        release of ``X̃ᵀỹ`` (``τ√T = 𝒴``); with ``T = 1`` the fit is AdaSSP's. The paper clips
        labels and residuals at one threshold: ``residual_clip = 𝒴`` here (more noise per round,
        no clipping bias in round 1). Never read from the data (``docs/regression.md`` §4b).
    learning_rate : float in (0, 1], default 1.0
        The shrinkage ``η`` of each round's step (the paper's constant shrinkage 1).
    fit_intercept : bool, default True
    rho : float, default 0.05
        Failure probability of AdaSSP's high-probability bounds (sets ``λ``).
    neighbouring : {"replace-one", "add-remove"}, default "replace-one"
    clip : bool, default True
        Clip the records to their public boxes (``False``: raise if one lies outside).
    random_state : None, int or numpy.random.Generator
        ``None``: secure generator. A seeded fit is replayable by whoever knows the seed.
        Under ``sklearn.base.clone`` (``cross_val_score``, ``GridSearchCV``) an int seed gives
        every clone the same noise, so the difference of two folds' outputs is noise-free:
        use ``None`` there; a Generator gives each clone its own spawned stream.
    accountant : Accountant, Ledger or object with ``spend``, optional
        Charged the composed guarantee before any noise is drawn.
        ``None``: the accountants of enclosing ``with Accountant(...):`` blocks, if any.
        Every ``fit`` is a new release, charged again: ``cross_val_score`` with k folds spends
        k × (ε, δ); ``GridSearchCV`` one per fold and candidate, plus the refit. With no keeper
        (none given, no ``with`` block) nothing is recorded (``docs/security.md``, "Budget
        keepers are handles").

    Attributes
    ----------
    coef_, intercept_ : the boosted model in the original units
    ridge_ : the λ of the fixed solve (a function of the released ``λ_min`` only)
    privacy_ : PrivacyGuarantee of the whole fit ((ε, δ), composed by Gaussian DP)

    References
    ----------
    .. [1] S. Tang, S. Aydore, M. Kearns, S. Rho, A. Roth, Y. Wang, Y.-X. Wang, Z. S. Wu,
       "Improved Differentially Private Regression via Gradient Boosting", SaTML 2024,
       arXiv:2303.03451 (Boosted AdaSSP).
    .. [2] Y.-X. Wang, "Revisiting differentially private linear regression: optimal and adaptive
       prediction & estimation in unbounded domain", UAI 2018, Algorithm 2 (AdaSSP).
    .. [3] matrixdp, ``docs/regression.md`` §4b.
    """

    noise = "iid"  # the noise of its releases (not a choice; read by the shared checks)

    def __init__(self, *, epsilon=1.0, delta=1e-6, bounds_X=None, bounds_y=None, n_rounds=100,
                 residual_clip=None, learning_rate=1.0, fit_intercept=True, rho=0.05,
                 neighbouring="replace-one", clip=True, random_state=None, accountant=None):
        self.epsilon = epsilon
        self.delta = delta
        self.bounds_X = bounds_X
        self.bounds_y = bounds_y
        self.n_rounds = n_rounds
        self.residual_clip = residual_clip
        self.learning_rate = learning_rate
        self.fit_intercept = fit_intercept
        self.rho = rho
        self.neighbouring = neighbouring
        self.clip = clip
        self.random_state = random_state
        self.accountant = accountant

    def fit(self, X, y):
        """Release ``λ_min`` and ``X̃ᵀX̃`` once, then ``n_rounds`` clipped residual correlations."""
        eps, delta, _ = check_privacy_params(self)
        relation = check_relation(self.neighbouring)
        rho = check_rho(self.rho)
        T = self.n_rounds
        if isinstance(T, bool) or not isinstance(T, numbers.Integral) or T < 1:
            raise InvalidParameterError("n_rounds", f"must be an int >= 1, got {T!r}")
        T = int(T)
        eta = _check_positive(self.learning_rate, "learning_rate", 1.0)
        tau = None if self.residual_clip is None else _check_positive(self.residual_clip,
                                                                      "residual_clip")
        design = adassp_design(self, X, y)
        Xt, yc, k = design.Xt, design.yc, design.k
        if tau is None:
            tau = design.reach_y / math.sqrt(T)
        m_lam, m_gram, m_round, total = boosted_adassp_plan(eps, delta, design.reach_x, tau, T,
                                                            relation)
        theta = np.zeros(k)
        gen = make_rng(self.random_state)  # one stream for every draw; not kept
        label = f"{type(self).__name__}.fit"
        with charging(self.accountant, total, label=label):
            lam_noisy, gram_noisy = release_gram(Xt, m_lam, m_gram, gen)
            lam = adassp_ridge(lam_noisy, m_lam.sigma, m_gram.sigma, delta, k, rho)
            # the fixed solve of every round: post-processing of the two releases
            solve = np.linalg.pinv(gram_noisy + lam * np.eye(k), hermitian=True)
            for _ in range(T):
                r = np.clip(yc - Xt @ theta, -tau, tau)
                g = np.asarray(m_round.release(Xt.T @ r, rng=gen).value, dtype=np.float64)
                theta = theta + eta * (solve @ g)
        del gen
        self.coef_, self.intercept_ = design.coefficients(theta)
        self.ridge_ = lam
        self.privacy_ = total
        return self
