"""DP linear and ridge regression from one release of the sufficient statistics ``[X y 1]ᵀ[X y 1]``.

The records ``z = (x - c_x, y - c_y, t)`` (centred at the middle of their public boxes, plus a
public constant ``t`` for the intercept) have second moments that hold ``XᵀX``, ``Xᵀy``, the
means and ``n``-normalised sums; one (ε, δ)-DP release of them (``models._moments``) is solved for
the coefficients. Everything after the release is post-processing, except the boosting rounds
(``boost_rounds``, the default): a few further releases of the clipped residual correlation,
composed with the joint release in Gaussian DP (``docs/regression.md`` §4c), or, where the joint
release says the rounds will not help, a second joint release in their place (the default
``boost_rounds="auto"`` decides, §4e).

This module holds the estimators (:class:`DPLinearRegression`, :class:`DPRidge`); the pieces
they put together live beside it: :mod:`~matrixdp.models.joint_release` (the public task, the
release with a dedicated target mean, and what is read off the release: the constant model, the
risk selection, the level's posterior), :mod:`~matrixdp.models.normal_equations` (the projection,
the noise-aware ridge solve and its error bars, :func:`coefficient_noise_std`, re-exported here),
:mod:`~matrixdp.models.boosting` (the rounds, the second joint release and the decisions between
them) and :mod:`~matrixdp.models.boosted_fit` (the boosted fit: its plan from public inputs and
its run under one charge).
"""

from __future__ import annotations

import math

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from .._validation import check_choice, check_finite_array
from ..errors import InvalidParameterError
from .._record_sums import ColumnStack
from ._dask import augmented_moments, dask_target_records, is_dask_collection
from ._base import (ExactScoreMixin, NoGeneratorStateMixin, charging, check_n_samples,
                    check_privacy_params, check_label_range, check_relation, clip_to_bounds,
                    finish_bounds, fit_xy_bounds, parse_bounds, parse_scalar_bounds, validate_X)
from ._moments import keep_release, noise_scale, release_second_moment
# the design constants are read on their module (``boosting.BOOST_*``), so a constant pinned
# there reaches the fit. By its full name: tests/test_layering.py reads ``from . import
# boosting`` as an import of the package's ``__init__`` (which imports this module), a cycle
import matrixdp.models.boosting as boosting
import matrixdp.models.risk_shrink as risk_shrink
from .boosted_fit import SINGLE_RELEASE, boosted_noise_std, plan_boosted_fit, run_boosted_fit
from .joint_release import (LEVEL_PRIOR_BOX, auto_level_share, combine_target_mean,
                            constant_model, level_posterior, place_level, regression_task,
                            release_with_target_mean, risk_selection, solve_divergence)
from .normal_equations import (PROJECTION_UNITS, coefficient_noise_std, intercept_bias_bound,
                               intercept_lifted, task_level_factor,
                               pinned_coordinates, shrink_level, solve_moments)
from .experimental import (DEPRECATED, LEVEL_PRIORS, SELECTIONS, SLOPE_SHRINKS, RegressionOptions,
                           resolve_experimental)

__all__ = ["DPLinearRegression", "DPRidge", "coefficient_noise_std"]

#: The values of the estimators' ``projection`` parameter (``"none"``: solve the raw release).
PROJECTIONS = ("noise", "half-width", "original", "none")
#: The research knobs' defaults (the fields of :class:`~matrixdp.models.RegressionOptions`, whose
#: module holds their value sets ``SELECTIONS``, ``LEVEL_PRIORS``, ``SLOPE_SHRINKS``).
#: ``select``: ``"none"`` (always the fitted slopes) or ``"risk"`` (the fit or the constant model,
#: whichever has the lower estimated out-of-sample risk; post-processing; docs/regression.md §3b).
SELECT = "none"
#: ``level_share``: the share of the budget (of ``μ*²`` in Gaussian DP) spent on a dedicated
#: Gaussian DP mean of the target (docs/regression.md §3b); 0 = the joint release only.
LEVEL_SHARE = 0.0
#: ``level_prior``: ``"none"`` (the release's level as it is; where the release cannot place the
#: target's mean the adaptive ridge pulls the intercept to the box centre), ``"box"`` (the
#: posterior mean of the level under the public prior "uniform in the box", given the released
#: level and its public Gaussian noise: a truncated normal) or ``"gauss"`` (under the Gaussian
#: prior ``N(c_y, h_y²/3)``, the box prior's variance: a constant weight). A float ``ρ > 0``:
#: the Gaussian prior ``N(c_y, ρ h_y²)``. docs/regression.md §3c.
LEVEL_PRIOR = "none"
#: ``slope_shrink``: ``"none"`` (the fit as solved) or ``"sure"`` (a further ridge on the fitted
#: coefficients, ``λ ∈ [0, ∞]`` chosen by an unbiased estimate of the prediction risk from the
#: release and its public noise; post-processing; docs/regression.md §3d).
SLOPE_SHRINK = "none"
#: ``label_range``: ``"public"`` (clip the label to the public box ``bounds_y``) or ``"auto"``
#: (estimate the label's range inside that box with a share of ε where a public rule says it
#: pays; docs/regression.md §8b, docs/bounds.md).
LABEL_RANGE = "public"


class LinearPredictorMixin(ExactScoreMixin):
    """``predict``, the warned exact ``score`` (:class:`~matrixdp.models._base.ExactScoreMixin`)
    and the scikit-learn tags shared by the DP linear regressions (``coef_``, ``intercept_``,
    ``random_state``)."""

    def predict(self, X):
        """``X @ coef_ + intercept_``."""
        check_is_fitted(self, "coef_")
        X = validate_X(self, X, reset=False)
        return X @ self.coef_ + self.intercept_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = self.random_state is None
        # DP noise at scikit-learn's tiny test sizes (n = 200, epsilon = 1) cannot promise R² > 0.5
        tags.regressor_tags.poor_score = True
        return tags


class DPLinearRegression(LinearPredictorMixin, NoGeneratorStateMixin, RegressorMixin,
                         BaseEstimator):
    r"""Differentially private least squares from released sufficient statistics.

    One (ε, δ)-DP release (replace-one neighbours; ``n`` public) of the second moments of
    ``(x - c_x, y - c_y, t)``, records clipped to the public boxes ``bounds_X`` and ``bounds_y``;
    the release is then projected onto the sums the public boxes allow (PSD, entry ranges;
    :mod:`matrixdp.feasible`; Frobenius in the noise's own metric) and the normal equations are
    solved with a noise-aware adaptive ridge that shrinks only the directions the noise swamps,
    with the intercept not penalised where the release places the target's mean (a public
    rule; post-processing; ``docs/regression.md`` §2-3). By default (``boost_rounds="auto"``)
    that release gets 70% of the budget and, where the release's residual scale says few
    residuals would be clipped (§4e), two boosting rounds spend the rest: each releases
    the features' correlation with the residuals clipped to a public ``±τ`` and corrects the
    model through the fixed solve, which removes most of the bias the noisy Gram and the
    adaptive ridge leave (``docs/regression.md`` §4c); elsewhere (mostly 0/1 and ±1 targets,
    where the rounds' Huber fit stops improving with ε) the rest buys a second joint release,
    averaged with the first into the single release's law. Everything composes exactly to
    (ε, δ).
    ``noise`` chooses the allocation as in :class:`~matrixdp.models.DPCovariance`, for the
    regression loss (the target column weighs more than the features'; ``docs/when_mvg_wins.md``);
    ``"auto"`` also considers i.i.d. noise on the records rescaled to the unit box.

    Parameters
    ----------
    epsilon : float, default 1.0
    delta : float, default 1e-6
    bounds_X : (lower, upper) or "dp"
        Public feature bounds, scalars or one value per feature. Required.
    bounds_y : (lower, upper) or "dp"
        Public target bounds (scalars). Required.
        Either may be ``"dp"`` (or a :class:`~matrixdp.models.dp_bounds.DPBounds`): a share
        (default 10%) of ``epsilon`` estimates it in memory (exponential-mechanism quantiles over
        a PUBLIC grid, charged as its own entry; ``bounds_``, ``bounds_privacy_``; docs/bounds.md).
    fit_intercept : bool, default True
    noise : {"auto", "mvg", "iid"}, default "auto"
    neighbouring : {"replace-one", "add-remove"}, default "replace-one"
        Replace-one (``n`` public) or add-remove (``n`` private; the sums are released and solved,
        ``n`` is never needed).
    clip : bool, default True
        Clip ``X`` and ``y`` to their bounds, or raise (``False``).
    random_state : None, int or numpy.random.Generator
        ``None``: secure generator. A seeded fit is replayable by whoever knows the seed; a
        Generator is dropped from pickles and copies of the fitted model.
        Under ``sklearn.base.clone`` (``cross_val_score``, ``GridSearchCV``) an int seed gives
        every clone the same noise, so the difference of two folds' outputs is noise-free:
        use ``None`` there; a Generator gives each clone its own spawned stream.
    accountant : Accountant, Ledger or object with ``spend(guarantee, label=...)``, optional
        Charged the fit's whole guarantee before any noise is drawn (a refusal stops the fit).
        ``None``: the accountants of enclosing ``with Accountant(...):`` blocks, if any.
        Every ``fit`` is a new release, charged again: ``cross_val_score`` with k folds spends
        k × (ε, δ); ``GridSearchCV`` one per fold and candidate, plus the refit. With no keeper
        (none given, no ``with`` block) nothing is recorded (``docs/security.md``, "Budget
        keepers are handles").
    projection : {"noise", "half-width", "original", "none"}, default "noise"
        The norm in which the release is projected onto the sums its public boxes allow before
        the solve (the noise's own metric by default; ``results/projection_regression.md``), or
        ``"none"``: solve the raw release. Post-processing either way.
    experimental : RegressionOptions, optional
        The research knobs, in one frozen object (:class:`~matrixdp.models.RegressionOptions`:
        ``level_share``, ``select``, ``level_prior``, ``slope_shrink``, ``boost_rounds``,
        ``boost_clip``, ``label_range``, ``level_shrinkage``; ``docs/experimental.md``). ``None``:
        the shipped fit
        (every knob at its default). Each is an opt-in candidate of issue #24 kept so that the
        committed experiments stay reproducible; most FAILED their gate or check. Example:
        ``DPLinearRegression(..., experimental=RegressionOptions(boost_rounds=0))`` (the single
        joint release).

    Deprecated parameters
        ``level_share``, ``select``, ``level_prior``, ``slope_shrink``, ``boost_rounds``,
        ``boost_clip``, ``label_range``: the fields of ``experimental`` that were keywords until
        0.1 (``level_shrinkage``, added later, is an ``experimental`` field only).
        Passing one still fits the same (it is mapped into a ``RegressionOptions``) but emits a
        :class:`FutureWarning`; they are removed in 0.4. Passing one together with
        ``experimental`` raises.

    Attributes
    ----------
    coef_ : ndarray (n_features,)
    intercept_ : float
    coef_std_ : ndarray (n_features,)
        First-order (delta-method) noise standard deviation of each coefficient, from the public
        noise variances of the released statistics and the matrix the solve inverted (the adaptive
        ridge read as fixed): post-processing, no budget. An approximation, best where the noise
        is small against the data (:func:`coefficient_noise_std`, ``docs/regression.md`` §7). It
        ignores the feasible projection, which can only pull the release towards the feasible
        set: where the projection binds, the bar overstates the spread. It is the NOISE only: the
        adaptive ridge's shrinkage (``ridge_ > 0``) is a bias it leaves out, and there intervals
        ``coef_ ± 1.96·coef_std_`` cover the least-squares fit far less than 95% (measured 18–68%
        on wdbc, ctg and liver, 95% on a well-conditioned table; ``results/boosted_bar_coverage.md``).
        For the single release they are intervals for the ridge fit of the records with the
        solve's penalty (:func:`~matrixdp.models.normal_equations.feature_penalty`): covered in
        94–100% of fits on a generated table (``results/coef_bar_estimand.md``, §7).
        With boosting rounds
        (``boost_rounds_ > 0``) it is the linearised rounds' covariance: the joint release's
        delta-method covariance contracted by the rounds plus the rounds' own noise
        (:func:`~matrixdp.models.boosting.boosted_covariance`, ``docs/regression.md`` §4c).
    intercept_std_ : float
        The same for the intercept (0 without ``fit_intercept``). Where the released level is
        noise-dominated (its noise sd at least the target's public half-width; a public fact) the
        adaptive ridge also shrinks the intercept towards the centre of the target's box, and
        this bar leaves that bias out too: with the truth far from the centre it covered 0 of 12
        seeds (``results/regression_intercept_rise_diagnosis.md``, ``docs/regression.md`` §3a).
        ``intercept_shrunk_`` says when, and ``intercept_bias_bound_`` bounds that bias: read
        ``intercept_ ± (1.96·intercept_std_ + intercept_bias_bound_)``.
    intercept_shrunk_ : bool
        Whether the solve's rule lets the shrinkage reach the intercept (towards the centre of the
        target's public box): the shipped rule lifts the constant coordinate where the released
        level's public noise sd is at least the target's public half-width, and always under
        add-remove (:func:`~matrixdp.models.normal_equations.intercept_lifted`); with
        ``level_shrinkage="minimax"`` wherever its factor ``c < 1``. A function of public inputs
        only (the allocation's noise, the bounds, the relation). False without an intercept or
        where the constant model was selected. How much it moved (0 where the adaptive ridge's
        ``λ`` is 0) is in ``intercept_bias_bound_``.
    intercept_bias_bound_ : float
        The largest ``|bias|`` that this shrinkage can add to the level (the prediction at the
        released feature means; with the slopes fixed, the intercept's) while the target's mean
        is anywhere in its public box: ``(1 - c')(|m̂_x·β_x| + h_y)`` for the lifted constant
        (``c' = n t²/(n t² + λ s_t)``, read at the joint release's solve, with boosting rounds at
        their start), ``(1 - c) h_y`` for ``"minimax"``, 0 where nothing is shrunk
        (:func:`~matrixdp.models.normal_equations.intercept_bias_bound`, ``docs/regression.md``
        §3a). NaN where ``level_prior`` or ``slope_shrink`` moved the level afterwards (not
        derived there). Post-processing of the release and public inputs. On the ε scan's cell at
        ε = 0.1 (truth near the box's edge) ``1.96·intercept_std_ + intercept_bias_bound_`` covered
        100 of 100 seeds, the bar alone 0 and the bound 30% smaller 54
        (``results/regression_level_shrinkage.md``). A worst case over the box: loose where the
        truth is near the centre.
    privacy_ : PrivacyGuarantee
    noise_, allocation_, noise_summary_, expected_loss_, noise_candidates_, entry_variance_
        As in :class:`~matrixdp.models.DPCovariance`.
    ridge_ : float
        The adaptive ridge ``λ`` of the solve (a function of the release only). Dimensionless:
        the solve adds ``λ s_j`` to feature ``j``'s released sum of squares, ``s_j`` its public
        noise scale (:func:`~matrixdp.models.normal_equations.feature_penalty`, §7).
    moments_ : ndarray (k, k)
        The released (DP) second moments of ``(x - c_x, y - c_y, t)`` (sums under add-remove);
        ``coef_`` and ``intercept_`` are solved from it (post-processing). With a level share,
        its target-mean entry ``(y, t)`` (and that entry of ``entry_variance_``) is the
        inverse-variance combination of the joint release and ``target_mean_``.
    level_share_ : float
        The share of ``μ*²`` spent on the dedicated DP mean (0: none).
    target_mean_, target_mean_variance_ : float or None
        The dedicated DP mean of the target (original units) and its public noise variance
        (``None`` without a level share).
    selected_ : {"fit", "constant"}
        What ``coef_``/``intercept_`` are: the solved slopes, or the constant model (``coef_ = 0``,
        the released mean of the target) chosen by ``select="risk"`` or by ``level_share="auto"``
        where the slopes are hopeless.
    level_weight_ : float
        The local weight ``w = ∂L/∂L̂`` of the posterior level in the released one (1: no prior;
        ``level_prior``; for ``"gauss"`` a public constant). ``intercept_std_`` is then first
        order with the level's noise scaled by ``w``; the prior's bias towards ``c_y`` is not in
        it.
    boost_rounds_ : int
        The rounds the fit ran (0: the single joint release, or the fallback of the default's
        decision).
    boost_branch_ : {"rounds", "second-release", "single-release", "ls-rounds"}
        What the budget after the joint release bought: the boosting rounds, the second joint
        release averaged with the first (the decision's fallback, §4e; the error bars
        and ``entry_variance_`` are then the single release's), or nothing (one release at μ*).
        ``"ls-rounds"`` (``boost_rounds="ls-fallback"``, ``"ls-signal"``, ``"bias-gated"``,
        ``"lift-gated"`` and ``"auto"``, §4g, §4h, §4k, §4m): the least-squares rounds that
        replaced the fallback's second release.
        A function of the release (post-processing).
    boost_residual_scale_ : dict or None
        ``boost_rounds="auto"``/``"adaptive"`` (and ``"predict"``, ``"ls-fallback"``,
        ``"ls-signal"``, which read it too) with rounds planned: the released residual scale
        ``σ̂`` the decision read, ``{"point", "lower", "upper"}`` (NaN without a released count);
        ``None`` otherwise (an int ``boost_rounds``, or no rounds planned).
    boost_signal_ : dict or None
        ``boost_rounds="ls-signal"`` where §4e falls back: the released ``R̂²``
        ``{"point", "lower", "upper"}`` the gate read (a function of the release; NaN where it
        cannot be read); ``None`` otherwise.
    boost_bias_gate_ : dict or None
        ``boost_rounds="auto"``/``"bias-gated"`` where §4e falls back: what §4k's gate read,
        ``{"bias", "noise", "sampling", "rounds", "clip"}`` (sums units; a function of the
        release and public inputs); with ``"lift-gated"`` where §4k's gate stayed shut also
        ``"kept_share"``, ``"r2_lower"`` and ``"lift_opened"`` (§4m); ``None`` otherwise.
    boost_predicted_loss_ : dict or None
        ``boost_rounds="predict"``: the predicted loss ``{T: loss}`` (sums units) the count was
        chosen by — a function of the release (post-processing); ``None`` otherwise.
    boost_clip_ : float or None
        Their residual clip ``τ`` (the last round's; ``None`` without rounds).
    boost_clips_ : tuple of float or None
        Each round's ``τ_k`` (all equal unless ``boost_clip="grow"``; then a function of the
        public inputs and the earlier releases: post-processing).
    sure_ridge_ : float or None
        ``slope_shrink="sure"``: the chosen ``λ`` in the grid's units (0: the fit kept; ``inf``:
        the level only); a function of the release. ``None`` otherwise.
    risk_estimates_ : dict or None
        ``select="risk"``: the two corrected risk estimates (up to a common constant).
    label_range_ : {"public", "dp", "flat"}
        The label's clipping range: the public box (``"public"``; nothing spent on it), a DP
        range (``"dp"``: ``bounds_``' last two entries, ``bounds_privacy_`` its guarantee), or a
        DP range that came out flat, the box kept (``"flat"``, ``label_range="auto"`` only; its
        share of ε was spent). A function of public inputs and the DP output only.
    n_features_in_, feature_names_in_

    References
    ----------
    .. [1] O. Sheffet, "Differentially Private Ordinary Least Squares", ICML 2017 (sufficient
       statistics release).
    .. [2] matrixdp, ``docs/when_mvg_wins.md``, ``docs/regression.md``.
    .. [3] Y.-X. Wang, "Revisiting differentially private linear regression: optimal and adaptive
       prediction & estimation in unbounded domain", UAI 2018 (the adaptive ridge).
    .. [4] C. L. Mallows, "Some comments on Cp", Technometrics 1973; C. M. Stein, "Estimation of
       the mean of a multivariate normal distribution", Ann. Statist. 1981 (``select="risk"``).
    .. [5] J. Dong, A. Roth, W. Su, "Gaussian Differential Privacy", JRSS-B 2022 (the level
       share's composition).
    .. [6] B. Efron, "Tweedie's formula and selection bias", JASA 2011 (``level_prior``: the
       posterior mean of a Gaussian location and its derivative, ``level_weight_``).
    .. [7] S. Tang, S. Aydore, M. Kearns, S. Rho, A. Roth, Y. Wang, Y.-X. Wang, Z. S. Wu,
       "Improved Differentially Private Regression via Gradient Boosting", SaTML 2024,
       arXiv:2303.03451 (boosting rounds on one released Gram; ``boost_rounds``,
       ``docs/regression.md`` §4c).
    """

    def __init__(self, *, epsilon=1.0, delta=1e-6, bounds_X=None, bounds_y=None,
                 fit_intercept=True, noise="auto", neighbouring="replace-one", clip=True,
                 random_state=None, accountant=None, projection=PROJECTION_UNITS,
                 experimental=None, level_share=DEPRECATED, select=DEPRECATED,
                 level_prior=DEPRECATED, boost_rounds=DEPRECATED, boost_clip=DEPRECATED,
                 slope_shrink=DEPRECATED, label_range=DEPRECATED):
        self.experimental = experimental
        self.label_range = label_range
        self.slope_shrink = slope_shrink
        self.boost_rounds = boost_rounds
        self.boost_clip = boost_clip
        self.level_prior = level_prior
        self.level_share = level_share
        self.select = select
        self.projection = projection
        self.neighbouring = neighbouring
        self.epsilon = epsilon
        self.delta = delta
        self.bounds_X = bounds_X
        self.bounds_y = bounds_y
        self.fit_intercept = fit_intercept
        self.noise = noise
        self.clip = clip
        self.random_state = random_state
        self.accountant = accountant

    #: Target of the adaptive lift of the released Gram's smallest eigenvalue, in units of the
    #: noise's spectral edge (``solve_released_normal_equations``); public, fixed.
    _shrink = 1.0

    def _ridge_alpha(self) -> float:
        return 0.0

    def _level_share(self, opts, task, t, n, lo_y, hi_y, eps, delta, noise, relation,
                     intercept) -> tuple[float, bool]:
        """``(share, hopeless)``: the share of ``μ*²`` spent on the dedicated DP mean of the
        target (``opts.level_share``, validated by :class:`RegressionOptions`; 0 where it does not
        apply: add-remove, no intercept) and, for ``"auto"``, whether the slopes are hopeless
        (:func:`~matrixdp.models.joint_release.auto_level_share`). Public inputs only."""
        s = opts.level_share
        if relation != "replace-one" or not intercept:
            return 0.0, False
        if s == "auto":
            return auto_level_share(task, t, n, lo_y, hi_y, eps, delta, noise)
        return float(s), False

    def _level_prior(self, opts, relation, intercept):
        """The prior of the target's mean (``opts.level_prior``, validated by
        :class:`RegressionOptions`): ``None`` (no prior; also where it does not apply:
        add-remove, no intercept), ``"box"`` (uniform in the box) or a float ``ρ`` (the Gaussian
        prior's variance in units of ``h_y²``). Public."""
        p = opts.level_prior
        if isinstance(p, str):
            prior = {"none": None, "box": "box", "gauss": LEVEL_PRIOR_BOX}[p]
        else:
            prior = float(p)
        if relation != "replace-one" or not intercept:
            return None
        return prior

    def _boost(self, opts, hy: float):
        """``(T, τ, clip rule, rule)``: the validated ``boost_rounds`` (``"auto"``:
        ``boosting.BOOST_ROUNDS`` unless one of the level opt-ins ``level_share``, ``select``,
        ``level_prior`` is set, then 0), the residual clip (``boost_clip`` or
        ``boosting.BOOST_CLIP · h_y``, ``h_y`` the target's public half-width), its rule
        (``"fixed"`` or ``"grow"``) and what decides the rounds after the joint release
        (:data:`~matrixdp.models.boosted_fit.BOOST_RULES`); ``(0, None, None, None)``: no
        boosting. Public inputs only."""
        T = opts.boost_rounds
        opt_ins = [(name, value) for name, value, off in (
            ("level_share", opts.level_share, LEVEL_SHARE), ("select", opts.select, SELECT),
            ("level_prior", opts.level_prior, LEVEL_PRIOR))
            if not (isinstance(value, type(off)) or isinstance(off, float)) or value != off]
        rule = "rounds"  # an int T: exactly T rounds, no decision
        if isinstance(T, str) and T in ("ls-fallback", "ls-signal", "bias-gated",
                                        "lift-gated"):  # §4g/h/k/m
            if opts.boost_clip is not None:  # rounds as the fallback (ls-signal: gated)
                raise InvalidParameterError("boost_clip", f"must be None with "
                                                          f"boost_rounds={T!r} (it sets "
                                                          f"the clip), got {opts.boost_clip!r}")
            rule = T
            T = 0 if opt_ins else boosting.BOOST_ROUNDS
        elif isinstance(T, str) and T == "predict":  # the count chosen per fit (§4f; opt-in)
            if opts.boost_clip is not None:
                raise InvalidParameterError("boost_clip", "must be None with "
                                                          "boost_rounds='predict' (it chooses "
                                                          f"the clip), got {opts.boost_clip!r}")
            rule = "predict"
            T = 0 if opt_ins else boosting.BOOST_ROUNDS
        elif isinstance(T, str) and T in ("auto", "adaptive"):
            # "auto": §4e's decision and, in its fallback, §4k's bias gate (BOOST_AUTO_RULE,
            # since task RW); "adaptive": §4e's decision alone (the default before task RW)
            if T == "adaptive":
                rule = "auto"
            else:
                rule = boosting.BOOST_AUTO_RULE if boosting.BOOST_AUTO_ADAPTIVE else "rounds"
            T = 0 if opt_ins else boosting.BOOST_ROUNDS
        elif isinstance(T, bool) or not isinstance(T, (int, np.integer)) or T < 0:
            raise InvalidParameterError("boost_rounds", f"must be 'auto', 'adaptive', 'predict', "
                                                        f"'ls-fallback', 'ls-signal', "
                                                        f"'bias-gated', 'lift-gated' or an "
                                                        f"int >= 0, "
                                                        f"got {T!r}")
        if T == 0:
            return 0, None, None, None
        if opt_ins:
            name, value = opt_ins[0]
            raise InvalidParameterError(name, f"cannot be combined with boost_rounds > 0 (use "
                                              f"boost_rounds=0), got {value!r}")
        tau = opts.boost_clip
        if tau is None:
            tau = boosting.BOOST_CLIP_RULE
        if isinstance(tau, str):
            if tau not in boosting.BOOST_CLIP_RULES:
                raise InvalidParameterError("boost_clip", f"must be None, one of "
                                                          f"{boosting.BOOST_CLIP_RULES} or a "
                                                          f"finite number > 0, got {tau!r}")
            return int(T), float(boosting.BOOST_CLIP * hy), tau, rule
        elif isinstance(tau, bool) or not isinstance(tau, (int, float, np.integer, np.floating)) \
                or not np.isfinite(tau) or not float(tau) > 0:
            raise InvalidParameterError("boost_clip", f"must be None or a finite number > 0, "
                                                      f"got {tau!r}")
        return int(T), float(tau), "fixed", rule

    def _projection_units(self):
        """The validated ``projection`` (``None`` for ``"none"``)."""
        check_choice(self.projection, PROJECTIONS, "projection")
        return None if self.projection == "none" else self.projection

    def fit(self, X, y):
        """Release the sufficient statistics of ``(X, y)`` and solve for the coefficients.

        The steps: the public task and the exact moments (:meth:`_task_moments`); the options
        (public); the release and its solve — the boosted fit planned from public inputs and run
        under one charge (:mod:`~matrixdp.models.boosted_fit`), or the joint release alone
        (:meth:`_release`); the post-processing of the level (:meth:`_select_level`); the error
        bars (:meth:`_set_error_bars`)."""
        eps, delta, noise = check_privacy_params(self)
        opts = resolve_experimental(self, RegressionOptions)
        alpha = self._ridge_alpha()
        projection = self._projection_units()
        relation = check_relation(self.neighbouring)
        intercept = bool(self.fit_intercept)
        (task, cx, cy, t, n, records, value, eps,
         (lo_x, hi_x, lo_y, hi_y)) = self._task_moments(X, y, eps, relation, intercept,
                                                         opts.label_range)
        label = f"{type(self).__name__}.fit"
        select = opts.select
        sure = opts.slope_shrink == "sure"
        rho = self._level_prior(opts, relation, intercept)
        share, hopeless = self._level_share(opts, task, t, n, lo_y, hi_y, eps, delta, noise,
                                            relation, intercept)
        self.level_share_ = share
        self.target_mean_ = self.target_mean_variance_ = None
        hy = 0.5 * (hi_y - lo_y) if intercept else max(abs(lo_y), abs(hi_y))
        n_rounds, tau, clip_rule, rule = self._boost(opts, hy)
        scale = float(n) if relation == "replace-one" else 1.0
        if n_rounds > 0:  # the joint release and the rounds (or a second release), one charge
            plan = plan_boosted_fit(
                task, eps, delta, noise, rule=rule, rounds=n_rounds, clip=tau,
                clip_rule=clip_rule, fit_intercept=intercept, n=n, t=t,
                lower=np.append(lo_x, lo_y), upper=np.append(hi_x, hi_y),
                centre=np.append(cx, cy), half_y=hy, alpha=alpha, shrink=self._shrink,
                projection=projection, level_shrinkage=opts.level_shrinkage)
            rel, (beta, self.ridge_, normal), boost = run_boosted_fit(
                plan, records, value, rng=self.random_state, accountant=self.accountant,
                label=label)
        else:
            rel = self._release(value, task, t, n, lo_y, hi_y, cy, share, eps, delta, noise,
                                label)
            beta, self.ridge_, normal = solve_moments(
                rel.value * scale, rel.entry_variance, task, n, t, fit_intercept=intercept,
                alpha=alpha, shrink=self._shrink, projection=projection, return_normal=True,
                level_shrinkage=opts.level_shrinkage)
            boost = SINGLE_RELEASE
        for name, fitted in boost.fitted_attributes().items():  # boost_*_: set here only
            setattr(self, name, fitted)
        beta, level_post = self._select_level(
            rel, beta, normal, task, n, t, lo_y, hi_y, scale, alpha, projection, intercept,
            relation, rho, select, hopeless, boosted=n_rounds > 0,
            level_shrinkage=opts.level_shrinkage)
        d = len(cx)
        half = 0.5 * (hi_x - lo_x)
        self.sure_ridge_ = None
        shrunk_cov = None
        if sure and self.selected_ == "fit" and level_post is None:
            beta, self.sure_ridge_, shrunk_cov = self._sure_shrink(
                rel, beta, normal, boost, task, n, t, cx, half, scale, intercept, projection)
        if (n_rounds > 0 and opts.level_shrinkage == "minimax" and intercept
                and relation == "replace-one" and self.selected_ == "fit"
                and level_post is None and self.sure_ridge_ is None):
            # §3a: the boosted fit's final level shrunk once towards c_y (its solves were free)
            c = task_level_factor(rel.entry_variance, task, t)
            beta = shrink_level(beta, np.asarray(normal, dtype=np.float64)[d, :d] / (n * t), t, c)
        coef = beta[:d]
        if self.fit_intercept:
            self.intercept_ = float(cy - cx @ coef + beta[d] * t)
        else:
            self.intercept_ = 0.0
        self.coef_ = coef
        self._set_error_bars(rel, beta, normal, boost, level_post, task, n, t, cx,
                             half, scale, intercept, projection)
        if shrunk_cov is not None:  # the shrunk fit's first-order noise (S Ω Sᵀ, λ read as fixed)
            self.coef_std_ = np.sqrt(np.clip(np.diag(shrunk_cov)[:d], 0.0, None))
            if intercept:
                g = np.append(-cx, t)
                self.intercept_std_ = math.sqrt(max(float(g @ shrunk_cov @ g), 0.0))
        self._set_intercept_shrinkage(opts, rel, beta, normal, boost, level_post, task, n, t,
                                      0.5 * (hi_y - lo_y), scale, intercept, relation)
        keep_release(self, rel)
        finish_bounds(self)
        return self

    def _task_moments(self, X, y, eps, relation, intercept, label_range="public"):
        """The public task and the exact (private) second moments of the records: ``(task, c_x,
        c_y, t, n, records, value, ε, bounds)``. ``records``: ``[X y]`` in rows (Dask records
        or a ``ColumnStack``: the boosting rounds read them again); ``ε``: what is left after
        ``bounds="dp"`` (docs/bounds.md); ``bounds``: ``(lo_x, hi_x, lo_y, hi_y)``."""
        if is_dask_collection(X):  # [X y] clipped and summed block by block
            d = validate_X(self, X, reset=True).shape[1]
            self.bounds_privacy_ = None
            check_label_range(label_range)
            self.label_range_ = "public"  # DP ranges need the table in memory
            lo_x, hi_x = parse_bounds(self.bounds_X, d, "bounds_X")
            lo_y, hi_y = parse_scalar_bounds(self.bounds_y, "bounds_y")
            # the centres and t are public: they do not depend on n
            _, cx, cy, t = regression_task(lo_x, hi_x, lo_y, hi_y, 1, intercept, relation)
            records = dask_target_records(X, y)
            n, value = augmented_moments(records, np.append(lo_x, lo_y),
                                         np.append(hi_x, hi_y), np.append(cx, cy),
                                         t if intercept else 0.0, clip=self.clip,
                                         mean=relation == "replace-one")
            task, cx, cy, t = regression_task(lo_x, hi_x, lo_y, hi_y, n, intercept, relation)
        else:
            X, y = validate_X(self, X, y=y, reset=True, supervised=True, y_numeric=True)
            n, d = X.shape
            check_n_samples(n, relation)
            # public bounds, or "dp": a share of epsilon estimates them (docs/bounds.md)
            lo_x, hi_x, lo_y, hi_y, eps = fit_xy_bounds(self, X, check_finite_array(
                y, "y", ndim=1), eps, label_range=label_range, fit_intercept=intercept)
            y = check_finite_array(y, "y", ndim=1)
            if not self.clip:  # records outside the box raise (before any sum), as before
                clip_to_bounds(X, lo_x, hi_x, False, "X")
                clip_to_bounds(y, lo_y, hi_y, False, "y")
            task, cx, cy, t = regression_task(lo_x, hi_x, lo_y, hi_y, n, intercept, relation)
            # [X y] clipped, centred and summed in row chunks (matrixdp._record_sums): neither
            # a clipped copy of X nor the augmented table is ever built whole
            records = ColumnStack(X, y)
            _, value = augmented_moments(records, np.append(lo_x, lo_y),
                                         np.append(hi_x, hi_y), np.append(cx, cy),
                                         t if intercept else 0.0, clip=True,
                                         mean=relation == "replace-one")
        return task, cx, cy, t, n, records, value, eps, (lo_x, hi_x, lo_y, hi_y)

    def _release(self, value, task, t, n, lo_y, hi_y, cy, share, eps, delta, noise, label):
        """The joint release at the whole budget, or (``share > 0``) the joint release and a
        dedicated DP mean of the target composed in Gaussian DP (§3b; sets ``target_mean_``,
        ``target_mean_variance_``). Charged once, before any draw."""
        def spend(p):
            return charging(self.accountant, p, label=label)
        if share > 0:
            rel, mean_rel, v_mean = release_with_target_mean(
                value, task, t, n, lo_y, hi_y, share, epsilon=eps, delta=delta, noise=noise,
                rng=self.random_state, charging=spend)
            self.target_mean_ = float(cy + mean_rel)
            self.target_mean_variance_ = float(v_mean)
            return combine_target_mean(rel, mean_rel, v_mean, t)
        return release_second_moment(None, task, epsilon=eps, delta=delta, noise=noise,
                                     rng=self.random_state, charging=spend, value=value)

    def _select_level(self, rel, beta, normal, task, n, t, lo_y, hi_y, scale, alpha, projection,
                      intercept, relation, rho, select, hopeless, *, boosted,
                      level_shrinkage="switch"):
        """Post-processing of the release (no budget): the constant model where the slopes are
        hopeless or ``select="risk"`` keeps it, and the level's posterior mean under the public
        prior (§3b, §3c). Sets ``selected_``, ``risk_estimates_``, ``level_weight_``; returns
        ``(β, the posterior level or None)``. A boosted fit keeps its model (the level opt-ins
        exclude the rounds)."""
        d = task.lower.size - (2 if intercept else 1)
        self.level_weight_, level_post = 1.0, None
        if rho is not None:
            level_post, self.level_weight_ = level_posterior(
                float(rel.value[d, d + 1]) / t, float(rel.entry_variance[d, d + 1]) / (t * t),
                0.5 * (hi_y - lo_y), rho)
        self.selected_ = "fit"
        self.risk_estimates_ = None
        if boosted:
            pass
        elif hopeless:  # public: no slope can rise above the noise (auto_level_share)
            beta = constant_model(rel.value, beta, t, intercept)
            self.selected_ = "constant"
        elif select == "risk" and relation == "replace-one":
            def resolve(Gh):
                return solve_moments(Gh * scale, rel.entry_variance, task, n, t,
                                     fit_intercept=intercept, alpha=alpha, shrink=self._shrink,
                                     projection=projection,
                                     level_shrinkage=level_shrinkage)[0]
            div = solve_divergence(rel.value, rel.entry_variance, beta, resolve, intercept)
            keep, self.risk_estimates_ = risk_selection(rel.value, rel.entry_variance, beta,
                                                        normal / scale, t, intercept,
                                                        divergence=div)
            if not keep:  # the intercept-only (or zero) model: post-processing of the release
                beta = constant_model(rel.value, beta, t, intercept)
                self.selected_ = "constant"
        if level_post is not None:  # the slopes are kept; the level is the posterior mean
            beta[d] = level_post / t if self.selected_ == "constant" else \
                place_level(beta, normal, n, t, level_post)
        return beta, level_post

    def _sure_shrink(self, rel, beta, normal, boost, task, n, t, cx, half, scale, intercept,
                     projection):
        """``slope_shrink="sure"`` (§3d): the fitted ``β̃`` shrunk by the ridge ``λ ∈ [0, ∞]``
        (noise metric of the released Gram's diagonal; the constant not penalised, refitted to
        the released means) that minimises the unbiased risk estimate
        (:func:`~matrixdp.models.risk_shrink.sure_ridge`), with ``Ω`` the fit's first-order noise
        covariance (the joint release's delta method, contracted by the rounds where they ran)
        and ``W`` the released second moments of ``(x − c_x, t)``. Returns ``(β, λ, S Ω Sᵀ)``.
        Post-processing of the release and public inputs (no budget)."""
        from .boosting import boosted_covariance

        d = len(cx)
        pinned = pinned_coordinates(task)[:d] if projection is not None else np.zeros(d, dtype=bool)
        V = np.array(rel.entry_variance, dtype=np.float64, copy=True)
        V[np.flatnonzero(pinned), :] = 0.0
        V[:, np.flatnonzero(pinned)] = 0.0
        widths = np.append(half, t) if intercept else half
        tt = t if intercept else None
        if boost.linearised is not None:
            beta0, K, R, sigma_r, rounds = boost.linearised
            C0 = coefficient_noise_std(beta0, normal, V, scale, cx, tt, widths=widths,
                                       return_cov=True)
            cov = boosted_covariance(C0, K, R, sigma_r, rounds)
        else:
            cov = coefficient_noise_std(beta, normal, V, scale, cx, tt, widths=widths,
                                        return_cov=True)
        idx = list(range(d)) + ([d + 1] if intercept else [])
        Wm = np.asarray(rel.value, dtype=np.float64)[np.ix_(idx, idx)] * (scale / n if
                                                                            scale != 1.0 else 1.0)
        if intercept and scale != 1.0:
            Wm[-1, -1] = t * t  # the public Σ t² / n
        w, U = np.linalg.eigh(0.5 * (Wm + Wm.T))
        Wm = (U * np.clip(w, 0.0, None)) @ U.T
        if risk_shrink.SURE_METRIC == "gram":  # the standardised ridge: the solve's own diagonal
            pdiag = np.diag(np.asarray(normal, dtype=np.float64))[:d]
        else:  # the noise metric of the adaptive ridge: the released Gram's diagonal noise sd
            pdiag = noise_scale(V)[:d] * scale  # (task TR: the triangle's off-diagonals)
        penalty = np.append(np.where(pinned, 0.0, np.maximum(pdiag, 0.0)),
                            [0.0] if intercept else [])
        b_new, lam, _, S = risk_shrink.sure_ridge(beta, normal, cov, Wm, penalty,
                                      n_free=1 if intercept else 0)
        return b_new, lam, S @ cov @ S.T

    def _set_intercept_shrinkage(self, opts, rel, beta, normal, boost, level_post, task, n, t,
                                 half_y, scale, intercept, relation):
        """``intercept_shrunk_`` (public: the solve's rule read from public inputs only) and
        ``intercept_bias_bound_`` (the largest ``|bias|`` of the level the intercept's shrinkage
        can cause while the target's mean is anywhere in its public box;
        :func:`~matrixdp.models.normal_equations.intercept_bias_bound`, ``docs/regression.md``
        §3a). Read at the solve of the joint release (with rounds, at their start ``β₀``).
        Post-processing of the release and public inputs; no budget."""
        self.intercept_shrunk_, self.intercept_bias_bound_ = False, 0.0
        if not intercept or self.selected_ == "constant":
            return
        minimax = opts.level_shrinkage == "minimax" and relation == "replace-one"
        d = task.lower.size - 2
        if minimax:
            c = task_level_factor(rel.entry_variance, task, t)
            self.intercept_shrunk_ = c < 1.0
            self.intercept_bias_bound_ = intercept_bias_bound(None, None, 0.0, 0.0, t, half_y,
                                                              factor=c)
        elif intercept_lifted(rel.entry_variance, task, t):
            self.intercept_shrunk_ = True
            beta0 = beta if boost.linearised is None else boost.linearised[0]
            nsd_t = float(noise_scale(rel.entry_variance)[d + 1]) * scale
            self.intercept_bias_bound_ = intercept_bias_bound(beta0, normal, self.ridge_, nsd_t,
                                                              t, half_y)
        if level_post is not None or self.sure_ridge_ is not None:
            # level_prior moved the level / SURE refitted it: not this bound's shrinkage
            self.intercept_bias_bound_ = math.nan

    def _set_error_bars(self, rel, beta, normal, boost, level_post, task, n, t, cx, half, scale,
                        intercept, projection):
        """``coef_std_``, ``intercept_std_``: first-order noise standard deviations from the
        release's public entry variances (:func:`coefficient_noise_std`; with rounds
        :func:`~matrixdp.models.boosted_fit.boosted_noise_std`; §7). Post-processing."""
        d = len(cx)
        # a public constant feature (lower == upper) at its centre 0 (the centred task, with an
        # intercept): the projection fixed its rows of the released sums at their known value 0,
        # so no noise is left there: its coefficient is 0 with a zero bar, and its rows add no
        # variance to the others' or the intercept's bars
        pinned = pinned_coordinates(task)[:d] if projection is not None else np.zeros(d, dtype=bool)
        V_bars = np.array(rel.entry_variance, dtype=np.float64, copy=True)
        V_bars[np.flatnonzero(pinned), :] = 0.0
        V_bars[:, np.flatnonzero(pinned)] = 0.0
        if boost.linearised is not None:  # the start's noise contracted by the rounds, and theirs
            self.coef_std_, self.intercept_std_ = boosted_noise_std(
                boost, normal, V_bars, scale, cx, t, intercept, half)
        else:
            self.coef_std_, self.intercept_std_ = coefficient_noise_std(
                beta, normal, V_bars, scale, cx, t if intercept else None,
                widths=np.append(half, t) if intercept else half)
        if projection is not None:
            self.coef_std_ = np.where(pinned, 0.0, self.coef_std_)
        if level_post is not None and self.selected_ != "constant":
            # intercept = c_y + L - (c_x + m̂_x)·β_x: to first order its noise is the level's
            # (variance v, scaled by the local weight w), the slopes' and the released feature
            # means'; their correlations are ignored, and the prior's bias towards c_y is not a
            # noise and is not in the bar (docs/regression.md §3c)
            V = V_bars
            v = max(float(V[d, d + 1]), 0.0) / (t * t)
            cov = coefficient_noise_std(beta, normal, V, scale, cx, t, widths=np.append(
                half, t), return_cov=True)[:d, :d]
            g = cx + np.asarray(normal, dtype=np.float64)[d, :d] / (n * t)
            var = self.level_weight_ ** 2 * v + float(g @ cov @ g) + float(
                np.sum(beta[:d] ** 2 * np.maximum(V[np.arange(d), d + 1], 0.0)) / (t * t))
            self.intercept_std_ = math.sqrt(max(var, 0.0))
        if self.selected_ == "constant":
            self.coef_std_ = np.zeros(d)
            self.intercept_std_ = self.level_weight_ * math.sqrt(max(float(
                rel.entry_variance[d, d + 1]), 0.0)) / t if intercept else 0.0


class DPRidge(DPLinearRegression):
    r"""Differentially private ridge regression: :class:`DPLinearRegression` with ``+ alpha·I``.

    Minimises ``‖y - Xw - b‖² + alpha ‖w‖²`` (scikit-learn's :class:`~sklearn.linear_model.Ridge`
    convention; the intercept is not penalised) on the released sufficient statistics. The ridge
    term is post-processing: the guarantee is that of the release.

    Parameters
    ----------
    alpha : float, default 1.0
        >= 0, in the units of ``XᵀX`` (sums over the ``n`` records).
    epsilon, delta, bounds_X, bounds_y, fit_intercept, noise, neighbouring, clip, random_state, projection, experimental
        As in :class:`DPLinearRegression` (a seeded fit is replayable by whoever knows the seed;
        ``experimental`` a :class:`~matrixdp.models.RegressionOptions`).
        The boosting rounds step on the ridge's gradient ``Xᵀr - alpha·w`` (``alpha`` public),
        so they converge to the ridge solution, not to least squares.
    accountant
        As in :class:`DPLinearRegression`.

    Deprecated parameters
        ``level_share``, ``select``, ``level_prior``, ``boost_rounds``, ``boost_clip``,
        ``slope_shrink``, ``label_range``: as in
        :class:`DPLinearRegression` (the fields of
        ``experimental``; a :class:`FutureWarning`, removed in 0.4).
    """

    def __init__(self, alpha=1.0, *, epsilon=1.0, delta=1e-6, bounds_X=None, bounds_y=None,
                 fit_intercept=True, noise="auto", neighbouring="replace-one", clip=True,
                 random_state=None, accountant=None, projection=PROJECTION_UNITS,
                 experimental=None, level_share=DEPRECATED, select=DEPRECATED,
                 level_prior=DEPRECATED, boost_rounds=DEPRECATED, boost_clip=DEPRECATED,
                 slope_shrink=DEPRECATED, label_range=DEPRECATED):
        super().__init__(epsilon=epsilon, delta=delta, bounds_X=bounds_X, bounds_y=bounds_y,
                         fit_intercept=fit_intercept, noise=noise, neighbouring=neighbouring,
                         clip=clip, random_state=random_state, accountant=accountant,
                         projection=projection, experimental=experimental,
                         level_share=level_share, select=select,
                         level_prior=level_prior, boost_rounds=boost_rounds,
                         boost_clip=boost_clip, slope_shrink=slope_shrink,
                         label_range=label_range)
        self.alpha = alpha

    def _ridge_alpha(self) -> float:
        a = self.alpha
        if isinstance(a, bool) or not isinstance(a, (int, float, np.integer, np.floating)) or \
                not np.isfinite(a) or a < 0:
            raise InvalidParameterError("alpha", f"must be a finite number >= 0, got {a!r}")
        return float(a)
