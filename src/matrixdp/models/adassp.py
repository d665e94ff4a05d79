r"""AdaSSP (Wang 2018): sufficient-statistics perturbation with a privately chosen ridge.

Three Gaussian releases, composed sequentially (Gaussian DP: the shifts add in quadrature, so the
paper's equal ``ε/3`` split becomes an equal split of ``μ*²``):

1. a lower confidence bound of ``λ_min(X̃ᵀX̃)`` (sensitivity ``𝒳²``, Weyl's inequality),
2. ``X̃ᵀX̃`` (Frobenius sensitivity ``√2·𝒳²`` replace-one, ``𝒳²`` add-remove),
3. ``X̃ᵀỹ`` (L2 sensitivity ``2·𝒳𝒴`` replace-one, ``𝒳𝒴`` add-remove),

with ``x̃ = (x - c_x, t)`` (features centred in their public box, plus a public constant ``t`` for
the intercept), ``𝒳 = sup ‖x̃‖`` and ``𝒴 = sup |y - c_y|`` over the public boxes. The ridge is
``λ = max(0, σ₂·√(d' log(2d'²/ρ)) - λ̃_min)`` (the paper's high-probability bound of the noise's
spectral norm minus the private ``λ_min``) and ``θ = (X̃ᵀX̃^ + λI)⁻¹ X̃ᵀỹ^``. The math and how it
compares with :class:`~matrixdp.models.DPLinearRegression` are in ``docs/regression.md``.
"""

from __future__ import annotations

import math

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin

from .._validation import check_finite_array, check_part_epsilon
from ..calibration.gaussian import max_gaussian_shift
from ..errors import InvalidParameterError
from ..mechanisms import GaussianMechanism
from ..rng import make_rng
from ._base import (NoGeneratorStateMixin, charging, check_n_samples, check_privacy_params,
                    check_relation, clip_to_bounds, parse_bounds, parse_scalar_bounds, validate_X)
from .linear import LinearPredictorMixin

__all__ = ["AdaSSPRegression", "adassp_plan", "adassp_design", "adassp_ridge", "check_rho",
           "AdaSSPDesign", "gram_mechanisms", "release_gram"]


def adassp_plan(epsilon: float, delta: float, feature_reach: float, target_reach: float,
                n_coords: int, neighbouring: str = "replace-one", rho: float = 0.05):
    """The three Gaussian mechanisms of AdaSSP and their composed guarantee (public; no data).

    Returns
    -------
    (mech_lambda, mech_gram, mech_xy, total) : GaussianMechanism × 3, PrivacyGuarantee
    """
    from ..accounting.composition import compose, gdp_epsilon

    mu = max_gaussian_shift(epsilon, delta)
    eps_part = check_part_epsilon(gdp_epsilon(mu / math.sqrt(3.0), delta), delta)
    sens_xy = (2.0 if neighbouring == "replace-one" else 1.0) * feature_reach * target_reach
    mechs = [*gram_mechanisms(eps_part, delta, feature_reach, neighbouring),
             GaussianMechanism(epsilon=eps_part, delta=delta, sensitivity=sens_xy,
                               neighbouring=neighbouring)]
    total = compose([m.privacy for m in mechs], delta=delta, method="gdp")
    return (*mechs, total)


def gram_mechanisms(epsilon: float, delta: float, feature_reach: float,
                    neighbouring: str = "replace-one"):
    """``(mech_lambda, mech_gram)``: the Gaussian mechanisms of ``λ_min(X̃ᵀX̃)`` (sensitivity
    ``𝒳²``, Weyl) and of ``X̃ᵀX̃`` (Frobenius ``√2·𝒳²`` replace-one, ``𝒳²`` add-remove), each at
    ``epsilon`` (shared by AdaSSP and Boosted AdaSSP; public, no data)."""
    X2 = feature_reach * feature_reach
    sens = (X2, math.sqrt(2.0) * X2 if neighbouring == "replace-one" else X2)
    return tuple(GaussianMechanism(epsilon=epsilon, delta=delta, sensitivity=s,
                                   neighbouring=neighbouring) for s in sens)


def release_gram(Xt, mech_lambda, mech_gram, gen):
    """``(λ̃_min, X̃ᵀX̃^)``: the releases of ``λ_min`` and of the (symmetrised) Gram matrix of the
    records ``Xt``, in that order from ``gen``. The caller charges the fit before calling."""
    gram = Xt.T @ Xt
    gram = 0.5 * (gram + gram.T)
    lam_min = max(float(np.linalg.eigvalsh(gram)[0]), 0.0)
    lam_noisy = float(np.asarray(mech_lambda.release(np.array([lam_min]), rng=gen).value)[0])
    gram_noisy = np.asarray(mech_gram.release(gram, rng=gen).value, dtype=np.float64)
    return lam_noisy, 0.5 * (gram_noisy + gram_noisy.T)


def check_rho(rho) -> float:
    """``rho``, the failure probability of AdaSSP's high-probability bounds: in (0, 1)."""
    if isinstance(rho, bool) or not isinstance(rho, (int, float, np.floating)) or \
            not 0 < rho < 1:
        raise InvalidParameterError("rho", f"must be in (0, 1), got {rho!r}")
    return float(rho)


class AdaSSPDesign:
    """The records AdaSSP releases from, built from the public boxes only (shared by
    :class:`AdaSSPRegression` and :class:`~matrixdp.models.BoostedAdaSSPRegression`).

    ``Xt`` rows ``x̃ = (x - c_x, t)`` (``t`` only with an intercept), ``yc = y - c_y``, both
    clipped to their boxes; ``reach_x = sup ‖x̃‖`` and ``reach_y = sup |ỹ|`` over the boxes;
    ``k`` coordinates. Every attribute but ``Xt`` and ``yc`` is public.
    """

    def __init__(self, Xt, yc, cx, cy, t, reach_x, reach_y, fit_intercept):
        self.Xt, self.yc = Xt, yc
        self.cx, self.cy, self.t = cx, cy, t
        self.reach_x, self.reach_y = reach_x, reach_y
        self.fit_intercept = fit_intercept
        self.d = cx.shape[0]
        self.k = Xt.shape[1]
        self.fixed = None  # public constant features (lower == upper), set with an intercept

    def coefficients(self, beta):
        """``(coef_, intercept_)`` in the original units from ``β`` on ``x̃``.

        With an intercept, a public constant feature (``lower == upper``) is centred to 0 in
        every record, so its ``β`` is noise that no prediction in the box depends on: its
        ``coef_`` is 0 (a reparametrisation; predictions at ``x_j = lower_j`` are unchanged)."""
        d, coef = self.d, np.asarray(beta[:self.d], dtype=np.float64)
        if self.fixed is not None:
            coef = np.where(self.fixed, 0.0, coef)
        return coef, float(self.cy - self.cx @ coef
                           + (beta[d] * self.t if self.fit_intercept else 0.0))


def adassp_design(estimator, X, y) -> AdaSSPDesign:
    """Validate ``X``, ``y`` and the public boxes of ``estimator`` (``bounds_X``, ``bounds_y``,
    ``fit_intercept``, ``clip``) and centre the records in their boxes."""
    X, y = validate_X(estimator, X, y=y, reset=True, supervised=True, y_numeric=True)
    n, d = X.shape
    check_n_samples(n, estimator.neighbouring)
    lo_x, hi_x = parse_bounds(estimator.bounds_X, d, "bounds_X")
    lo_y, hi_y = parse_scalar_bounds(estimator.bounds_y, "bounds_y")
    X = clip_to_bounds(X, lo_x, hi_x, estimator.clip, "X")
    y = clip_to_bounds(check_finite_array(y, "y", ndim=1), lo_y, hi_y, estimator.clip, "y")
    if estimator.fit_intercept:
        cx, cy = 0.5 * (lo_x + hi_x), 0.5 * (lo_y + hi_y)
        hx, hy = 0.5 * (hi_x - lo_x), 0.5 * (hi_y - lo_y)
        t = float(np.sqrt(np.mean(hx * hx)))
    else:
        cx, cy = np.zeros(d), 0.0
        hx = np.maximum(np.abs(lo_x), np.abs(hi_x))
        hy = max(abs(lo_y), abs(hi_y))
        t = 0.0
    if hy <= 0 or not np.any(hx > 0):
        raise InvalidParameterError("bounds_X" if hy > 0 else "bounds_y",
                                    "must have lower < upper")
    k = d + (1 if estimator.fit_intercept else 0)
    Xt = np.empty((n, k))
    np.subtract(X, cx, out=Xt[:, :d])
    if estimator.fit_intercept:
        Xt[:, d] = t
    reach_x = math.sqrt(float(hx @ hx) + t * t)
    design = AdaSSPDesign(Xt, y - cy, cx, cy, t, reach_x, float(hy), bool(estimator.fit_intercept))
    if estimator.fit_intercept:
        design.fixed = lo_x == hi_x
    return design


def adassp_ridge(lam_noisy: float, sigma_lam: float, sigma_gram: float, delta: float, k: int,
                 rho: float) -> float:
    """Algorithm 2's ridge: a high-probability lower bound of the released ``λ_min``, then
    ``λ = max(0, σ₂·√(k log(2k²/ρ)) - λ̃_min)`` (a function of releases and public values)."""
    lam_low = max(0.0, lam_noisy - sigma_lam * math.sqrt(math.log(6.0 / delta)))
    return max(0.0, sigma_gram * math.sqrt(k * math.log(2.0 * k * k / rho)) - lam_low)


class AdaSSPRegression(LinearPredictorMixin, NoGeneratorStateMixin, RegressorMixin, BaseEstimator):
    r"""AdaSSP differentially private linear regression (Wang 2018, Algorithm 2), own implementation.

    Same public inputs, neighbouring relation and record clipping as
    :class:`~matrixdp.models.DPLinearRegression`; the budget is split between the three releases
    by sequential (Gaussian DP) composition and charged once, before any noise is drawn.

    Parameters
    ----------
    epsilon : float, default 1.0
    delta : float, default 1e-6
    bounds_X : (lower, upper)
        Public feature bounds (scalars or one value per feature). Required.
    bounds_y : (lower, upper)
        Public target bounds. Required.
    fit_intercept : bool, default True
    rho : float, default 0.05
        Failure probability of the paper's high-probability bounds (sets ``λ``).
    neighbouring : {"replace-one", "add-remove"}, default "replace-one"
    clip : bool, default True
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
    coef_, intercept_, privacy_, ridge_ (the λ used; a function of the releases only)

    References
    ----------
    .. [1] Y.-X. Wang, "Revisiting differentially private linear regression: optimal and adaptive
       prediction & estimation in unbounded domain", UAI 2018, Algorithm 2 (AdaSSP).
    .. [2] matrixdp, ``docs/regression.md``.
    """

    noise = "iid"  # the noise of its three releases (not a choice; read by the shared checks)

    def __init__(self, *, epsilon=1.0, delta=1e-6, bounds_X=None, bounds_y=None,
                 fit_intercept=True, rho=0.05, neighbouring="replace-one", clip=True,
                 random_state=None, accountant=None):
        self.epsilon = epsilon
        self.delta = delta
        self.bounds_X = bounds_X
        self.bounds_y = bounds_y
        self.fit_intercept = fit_intercept
        self.rho = rho
        self.neighbouring = neighbouring
        self.clip = clip
        self.random_state = random_state
        self.accountant = accountant

    def fit(self, X, y):
        """Release ``λ_min``, ``X̃ᵀX̃`` and ``X̃ᵀỹ`` and solve the privately regularised system."""
        eps, delta, _ = check_privacy_params(self)
        relation = check_relation(self.neighbouring)
        rho = check_rho(self.rho)
        design = adassp_design(self, X, y)
        Xt, yc, k = design.Xt, design.yc, design.k
        m_lam, m_gram, m_xy, total = adassp_plan(eps, delta, design.reach_x, design.reach_y, k,
                                                 relation, rho)
        gen = make_rng(self.random_state)  # one stream for the three draws; not kept
        label = f"{type(self).__name__}.fit"
        with charging(self.accountant, total, label=label):
            lam_noisy, gram_noisy = release_gram(Xt, m_lam, m_gram, gen)
            xty_noisy = np.asarray(m_xy.release(Xt.T @ yc, rng=gen).value, dtype=np.float64)
        del gen
        lam = adassp_ridge(lam_noisy, m_lam.sigma, m_gram.sigma, delta, k, rho)
        beta = np.linalg.lstsq(gram_noisy + lam * np.eye(k), xty_noisy, rcond=None)[0]
        self.coef_, self.intercept_ = design.coefficients(beta)
        self.ridge_ = lam
        self.privacy_ = total
        return self

