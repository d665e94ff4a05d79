"""The boosted fit of :class:`~matrixdp.models.DPLinearRegression`: a plan, and one run of it.

:func:`plan_boosted_fit` turns public inputs (the task, (ε, δ), the noise, the validated
``boost_rounds``/``boost_clip``) into a :class:`BoostedFitPlan`: the joint release's mechanism,
the rounds' mechanism and ``total``, their composed guarantee. :func:`run_boosted_fit` charges
``total`` once, before any draw, and inside that one charge draws the joint release, solves it,
takes the decision the option asks for (§4e residual scale, §4f predicted count, §4g/§4h
least-squares rounds; post-processing of the release) and spends the rest of the budget on the
rounds or on a second joint release. It returns the release, the solution and a
:class:`BoostedFit` record, which the estimator copies onto itself in one place
(:meth:`BoostedFit.fitted_attributes`). The pieces (the rounds, the decisions, the design
constants ``BOOST_*``) live in :mod:`~matrixdp.models.boosting`; the math in
``docs/regression.md`` §4c-§4k (§4i: the opt-in late clip; §4j: the consistent clip, the
rounds' default clip since task RC2; both per round from the release and the previous round).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from .._record_sums import residual_correlation_sums
from ..rng import make_rng
from ._base import charging
from ._moments import release_second_moment
# the design constants are read on their module at fit time (``boosting.BOOST_*``), so a constant
# pinned there reaches the fit (see models/linear.py for why the import names the full path)
import matrixdp.models.boosting as boosting
from .boosting import (bias_gate, bias_gate_reading, boost_decision, boost_rounds,
                       boost_unit_widths, boosted_covariance, boosted_plan, consistent_clip_switch, growing_clip, late_clip_switch, predicted_boost_losses,
                       lift_gate, lift_kept_share, released_r2,
                       residual_cap, residual_scale, second_joint_release, signal_gate)
from .normal_equations import coefficient_noise_std, solve_moments

__all__ = ["BOOST_RULES", "BoostedFitPlan", "BoostedFit", "SINGLE_RELEASE", "plan_boosted_fit",
           "run_boosted_fit", "boosted_noise_std"]

#: What decides the rounds after the joint release (the validated ``boost_rounds``):
#: ``"rounds"`` (an int ``T``, or ``"auto"`` with ``boosting.BOOST_AUTO_ADAPTIVE`` off: no
#: decision), ``"auto"`` (§4e), ``"predict"`` (§4f), ``"ls-fallback"`` (§4g), ``"ls-signal"``
#: (§4h), ``"bias-gated"`` (§4k).
BOOST_RULES = ("rounds", "auto", "predict", "ls-fallback", "ls-signal", "bias-gated",
               "lift-gated")


@dataclass(frozen=True, eq=False)
class BoostedFitPlan:
    """Everything the boosted fit needs but the records and the generator: public.

    ``joint`` is the joint release's ``(plan, candidates)`` (:func:`~matrixdp.models._moments.
    plan_second_moment`) at the share ``boosting.BOOST_JOINT_SHARE`` of ``μ*²``;
    ``mech_round`` the mechanism of each of the ``rounds`` planned rounds at clip ``clip``;
    ``total`` their Gaussian-DP composition, exactly (ε, δ): the one charge. A rule that picks
    other rounds after the joint release (:meth:`rounds_mechanism`) keeps their total shift, so
    the charge holds whatever it picks. The rest is the public geometry of the task (the boxes,
    centres, ``t``, the coordinates' reach ``widths``) and of the solve (``alpha``, ``shrink``,
    ``projection``, ``scale``: ``n`` replace-one, 1 add-remove).
    """

    rule: str
    rounds: int
    clip: float
    clip_rule: str
    joint: tuple
    mech_round: object
    total: object
    task: object
    epsilon: float
    delta: float
    noise: str
    fit_intercept: bool
    n: float
    t: float
    scale: float
    lower: np.ndarray
    upper: np.ndarray
    centre: np.ndarray
    half_y: float
    widths: np.ndarray
    alpha: float
    shrink: float
    projection: object
    level_shrinkage: str = "switch"

    @property
    def joint_epsilon(self) -> float:
        """The ε of the joint release's own guarantee (its share of ``μ*²``)."""
        return self.joint[0].mechanism.privacy.epsilon

    @property
    def n_public_intercept(self) -> bool:
        """Replace-one (``n`` public) with an intercept: where ``level_shrinkage`` applies."""
        return self.fit_intercept and self.task.n_samples is not None

    @property
    def d(self) -> int:
        """The number of features."""
        return self.lower.size - 1

    def rounds_mechanism(self, n_rounds: int, tau: float):
        """The mechanism of ``n_rounds`` rounds at clip ``tau`` chosen after the joint release:
        each at ``μ*√((1 − s)/T)``, the same total, so the charge made for ``total`` holds."""
        _, mech, total_T = boosted_plan(self.task, self.epsilon, self.delta, self.noise,
                                        n_rounds, tau, boosting.BOOST_JOINT_SHARE,
                                        self.fit_intercept)
        if total_T.mu > self.total.mu * (1 + 1e-9):  # pragma: no cover
            raise RuntimeError("the chosen rounds exceed the charged budget")
        return mech

    def in_sums(self, rel):
        """The release's value and entry variances in the units of sums (``× scale``,
        ``× scale²``), which the decisions' readings of it take. Post-processing."""
        return rel.value * self.scale, rel.entry_variance * self.scale * self.scale

    def residual_scale(self, rel, beta0, n_rel: float, **kw) -> dict:
        """The released residual scale at ``β₀``
        (:func:`~matrixdp.models.boosting.residual_scale` of :meth:`in_sums`). Post-processing."""
        return residual_scale(*self.in_sums(rel), beta0, self.fit_intercept, n_rel, **kw)

    def solve(self, G, entry_variance, *, shrink=None):
        """The released normal equations' solve (``solve_moments``) of ``G`` (the release's own
        units, rescaled by ``scale``): ``(β, λ, M)``. Post-processing."""
        return solve_moments(G * self.scale, entry_variance, self.task, self.n, self.t,
                             fit_intercept=self.fit_intercept, alpha=self.alpha,
                             shrink=self.shrink if shrink is None else shrink,
                             projection=self.projection, return_normal=True,
                             # "minimax": the intercept free here; the fit's final level is
                             # shrunk once, after the rounds (linear.py, docs/regression.md §3a)
                             lift_intercept=False if self.level_shrinkage == "minimax"
                             and self.n_public_intercept else None)


@dataclass(frozen=True, eq=False)
class BoostedFit:
    """What the boosted fit did (a function of public inputs and its releases).

    ``branch``, ``rounds``, ``clip``, ``clips``, ``residual_scale``, ``predicted_loss``,
    ``signal`` and ``bias_gate`` are the estimator's ``boost_*_`` attributes
    (:meth:`fitted_attributes`).
    ``linearised``: ``(β₀, K, R, σ_r, T)`` of the linearised rounds for the error bars
    (:func:`boosted_noise_std`), ``None`` without rounds.
    """

    branch: str
    rounds: int
    clip: float | None
    clips: tuple | None = None
    residual_scale: dict | None = None
    predicted_loss: dict | None = None
    signal: dict | None = None
    bias_gate: dict | None = None
    linearised: tuple | None = None

    def fitted_attributes(self) -> dict:
        """``{name: value}`` of the estimator's ``boost_*_`` attributes."""
        return {"boost_branch_": self.branch, "boost_rounds_": self.rounds,
                "boost_clip_": self.clip, "boost_clips_": self.clips,
                "boost_residual_scale_": self.residual_scale,
                "boost_predicted_loss_": self.predicted_loss, "boost_signal_": self.signal,
                "boost_bias_gate_": self.bias_gate}


#: The record of a fit without boosting: the single joint release at ``μ*``.
SINGLE_RELEASE = BoostedFit(branch="single-release", rounds=0, clip=None)


def plan_boosted_fit(task, epsilon: float, delta: float, noise: str, *, rule: str, rounds: int,
                     clip: float, clip_rule: str, fit_intercept: bool, n, t: float, lower, upper,
                     centre, half_y: float, alpha: float, shrink: float,
                     projection, level_shrinkage="switch") -> BoostedFitPlan:
    """The plan of the boosted fit from public inputs only (no data, no randomness).

    ``rule`` (:data:`BOOST_RULES`), ``rounds`` (``T > 0``), ``clip`` (``τ₀``) and ``clip_rule``
    (``"fixed"`` or ``"grow"``) are the estimator's validated ``boost_rounds``/``boost_clip``;
    ``lower``/``upper``/``centre``: the public boxes and centres of ``[x y]``; ``half_y``: the
    target's public half-width ``h_y``. The mechanisms and ``total`` are
    :func:`~matrixdp.models.boosting.boosted_plan`'s (``docs/regression.md`` §4c).
    """
    if rule not in BOOST_RULES:  # pragma: no cover - the estimator validates boost_rounds
        raise ValueError(f"rule must be one of {BOOST_RULES}, got {rule!r}")
    joint, mech_round, total = boosted_plan(task, epsilon, delta, noise, rounds, clip,
                                            boosting.BOOST_JOINT_SHARE, fit_intercept)
    relation = task.neighbouring
    return BoostedFitPlan(
        rule=rule, rounds=int(rounds), clip=clip, clip_rule=clip_rule, joint=joint,
        mech_round=mech_round, total=total, task=task, epsilon=epsilon, delta=delta,
        noise=noise, fit_intercept=fit_intercept, n=n, t=t,
        scale=float(n) if relation == "replace-one" else 1.0, lower=np.asarray(lower),
        upper=np.asarray(upper), centre=np.asarray(centre), half_y=half_y,
        widths=boost_unit_widths(task, fit_intercept), alpha=alpha, shrink=shrink,
        projection=projection, level_shrinkage=level_shrinkage)


def run_boosted_fit(plan: BoostedFitPlan, records, value, *, rng, accountant, label: str):
    """Run ``plan`` on the records: one charge of ``plan.total``, then every draw.

    ``records``: ``[x y]`` in rows (``ColumnStack`` in memory, or Dask records), read only by
    the rounds' clipped residual correlation; ``value``: the task's exact second moments (already
    reduced from the records). Inside one ``charging(accountant, plan.total)`` block, before
    which nothing is drawn: the joint release and its solve ``β₀``; the rule's decision from the
    release and public inputs only (:data:`BOOST_RULES`); then ``T`` rounds
    (:func:`~matrixdp.models.boosting.boost_rounds`) or, where the decision says they will not
    help, the second joint release averaged with the first
    (:func:`~matrixdp.models.boosting.second_joint_release`). One generator (``make_rng(rng)``:
    ``None`` secure, an int seed or a ``numpy.random.Generator``) serves every draw and is
    dropped on return; a seeded run is replayable by whoever knows the seed.

    Returns
    -------
    (release, (β, λ, M), BoostedFit)
        The release the model is read from (``privacy`` = ``plan.total``), the coefficients in
        the task's centred coordinates with the adaptive ridge ``λ`` and the matrix ``M`` the
        solve inverted (the joint release's, with rounds; the averaged release's otherwise) and
        the record of what ran.

    References
    ----------
    .. [1] matrixdp, ``docs/regression.md`` §4c (the rounds), §4d (the growing clip), §4e (the
       decision and the second joint release), §4f (the predicted count), §4g/§4h (the
       least-squares rounds), §4k (the bias gate: ``"auto"`` since task RW), §4i (the late
       clip, opt-in), §4j (the consistent clip, the
       default).
    .. [2] J. Dong, A. Roth, W. Su, "Gaussian Differential Privacy", JRSS-B 2022 (the adaptive
       composition that makes the one charge hold whatever the decision picks).
    """
    task, w = plan.task, plan.widths
    gen = make_rng(rng)  # one stream for every draw; not kept
    with charging(accountant, plan.total, label=label):
        rel = release_second_moment(None, task, epsilon=plan.joint_epsilon, delta=plan.delta,
                                    noise=plan.noise, rng=gen, value=value, plan=plan.joint)
        beta0, ridge, normal = plan.solve(rel.value, rel.entry_variance)
        n_rel = _released_count(plan, rel)
        choice = _choose(plan, rel, beta0, normal, n_rel)
        if choice.branch == "second-release":  # the rounds' budget buys a second joint release
            rel = second_joint_release(rel, value, task, plan.epsilon, plan.delta, plan.noise,
                                       gen, plan.total)
        else:
            beta, _, Minv, taus = boost_rounds(
                _correlation(plan, records, choice.clip), beta0, normal, w, choice.mech_round,
                choice.rounds, boosting.BOOST_STEP, gen,
                penalty=_ridge_penalty(plan, beta0.size),
                clip=_round_clip(plan, choice, rel, beta0, n_rel, normal))
        del gen, records
    if choice.branch == "second-release":  # the averaged release: the single one's law
        return rel, plan.solve(rel.value, rel.entry_variance), replace(
            choice.record, rounds=0, clip=None)
    taus = [choice.clip if tk is None else tk for tk in taus]
    total = plan.total
    if total.exact and not rel.privacy.exact:
        total = replace(total, exact=False, notes=total.notes + tuple(
            m for m in rel.privacy.notes if m not in total.notes))
    rel = replace(rel, privacy=total)
    # for the error bars: the matrix the solve inverted without the adaptive lift (the
    # release's own estimate of the Gram the rounds contract against); post-processing
    M0 = plan.solve(rel.value, rel.entry_variance, shrink=0.0)[2]
    linearised = (beta0, np.eye(Minv.shape[0]) - Minv @ M0, Minv * w,
                  [choice.mech_round.sigma * tk / choice.clip for tk in taus], choice.rounds)
    return rel, (beta, ridge, normal), replace(choice.record, clips=tuple(taus),
                                               clip=float(taus[-1]), linearised=linearised)


@dataclass(frozen=True, eq=False)
class _Choice:
    """The decision after the joint release: the branch, the rounds' count, clip, clip rule and
    mechanism, and the record so far (the decision's readings)."""

    branch: str
    rounds: int
    clip: float
    clip_rule: str
    mech_round: object
    record: BoostedFit


def _correlation(plan, records, tau0: float):
    """``correlation(β, τ = τ₀)``: the exact clipped residual correlation of the records on the
    unit box, block by block (:func:`~matrixdp._record_sums.residual_correlation_sums`)."""
    w = plan.widths
    unit = np.where(w > 0, 1.0 / np.where(w > 0, w, 1.0), 0.0)
    t_record = plan.t if plan.fit_intercept else 0.0

    def correlation(b, tau=tau0):
        return residual_correlation_sums(records, plan.lower, plan.upper, plan.centre,
                                         t_record, b, tau, unit)
    return correlation


def _released_count(plan, rel) -> float:
    """The count the decisions read: public ``n`` (replace-one), the release's ``n̂`` (add-remove
    with the constant; post-processing), or 0 (add-remove without it: no released count)."""
    if plan.task.neighbouring == "replace-one":
        return float(plan.n)
    if plan.fit_intercept:
        d, t = plan.d, plan.t
        return max(float(rel.value[d + 1, d + 1]) / (t * t), 0.0)
    return 0.0


def _choose(plan, rel, beta0, normal, n_rel) -> _Choice:
    """The rule's decision from the joint release and public inputs only (post-processing):
    rounds (their count, clip and mechanism) or the second joint release."""
    scale, intercept, tau = plan.scale, plan.fit_intercept, plan.clip
    n_rounds, mech_round, branch = plan.rounds, plan.mech_round, "rounds"
    clip_rule = plan.clip_rule
    scales = loss = signal = gate = None
    rounds = True
    if plan.rule != "rounds":  # §4e: the released residual scale against τ₀
        scales = plan.residual_scale(rel, beta0, n_rel)
        rounds = boost_decision(scales, tau)
    if plan.rule == "predict":  # §4f: T and τ from the release and public inputs only
        M0 = plan.solve(rel.value, rel.entry_variance, shrink=0.0)[2]
        Ms = plan.solve(rel.value, rel.entry_variance * boosting.BOOST_JOINT_SHARE)[2]
        half = 0.5 * (plan.upper[:plan.d] - plan.lower[:plan.d])
        C0 = coefficient_noise_std(beta0, normal, rel.entry_variance, scale, plan.centre[:plan.d],
                                   plan.t if intercept else None,
                                   widths=np.append(half, plan.t) if intercept else half,
                                   return_cov=True)
        # the clip: τ₀ where the decision says few residuals are clipped, else the
        # least-squares clip (no residual of a fit inside the box is clipped)
        tau_c = tau if rounds else min(boosting.BOOST_COUNT_CLIP * plan.half_y,
                                       residual_cap(beta0, plan.widths, plan.half_y))
        sig1 = mech_round.sigma / (tau * math.sqrt(n_rounds))  # σ_r at τ = 1, T = 1
        loss = predicted_boost_losses(beta0, normal, M0, Ms, C0, plan.widths, sig1, tau_c,
                                      boosting.BOOST_COUNTS, boosting.BOOST_JOINT_SHARE,
                                      bias=boosting.BOOST_COUNT_BIAS)
        T_best = min(loss, key=lambda k: (loss[k], k))
        rounds = T_best > 0
        if rounds:  # the same μ_r·√T per round set: the charge is unchanged
            n_rounds, tau = int(T_best), float(tau_c)
            mech_round = plan.rounds_mechanism(n_rounds, tau)
            clip_rule = "fixed"  # the chosen τ, whatever BOOST_CLIP_RULE is
    if not rounds and plan.rule == "ls-signal":  # §4h: the gate reads the release only
        signal = released_r2(*plan.in_sums(rel), beta0, intercept, n_rel, plan.t,
                             count_released=plan.task.neighbouring != "replace-one")
    if not rounds and plan.rule in ("ls-fallback", "ls-signal") and (
            plan.rule == "ls-fallback" or signal_gate(signal)):
        # §4g: T_ls least-squares rounds instead of the second release; τ from public inputs
        # and the release only; the same μ*√(1 − s) in total
        n_rounds = int(boosting.BOOST_LS_ROUNDS)
        tau = min(plan.half_y, residual_cap(beta0, plan.widths, plan.half_y))
        mech_round = plan.rounds_mechanism(n_rounds, tau)
        branch, rounds = "ls-rounds", True
        clip_rule = "fixed"  # the least-squares τ, whatever BOOST_CLIP_RULE is
    if not rounds and plan.rule in ("bias-gated", "lift-gated"):
        # §4k: T least-squares rounds iff the shrinkage bias they are predicted to remove
        # exceeds the noise they are predicted to add; read from the release and public
        # inputs only; the same μ*√(1 − s) in total whichever branch runs
        T_bg = int(boosting.BOOST_BIAS_GATE_ROUNDS)
        tau_bg = min(plan.half_y, residual_cap(beta0, plan.widths, plan.half_y))
        mech_bg = plan.rounds_mechanism(T_bg, tau_bg)
        M0 = plan.solve(rel.value, rel.entry_variance, shrink=0.0)[2]
        C0 = None
        if boosting.BOOST_BIAS_GATE_BIAS == "debiased":
            half = 0.5 * (plan.upper[:plan.d] - plan.lower[:plan.d])
            C0 = coefficient_noise_std(beta0, normal, rel.entry_variance, scale,
                                       plan.centre[:plan.d], plan.t if intercept else None,
                                       widths=np.append(half, plan.t) if intercept else half,
                                       return_cov=True)
        sigma2 = float(scales["point"]) ** 2  # NaN without a released count: gate shut
        reading = bias_gate_reading(beta0, normal, M0, plan.widths, mech_bg.sigma, T_bg, C0,
                                    sigma2=sigma2)
        gate = {**reading, "rounds": T_bg, "clip": float(tau_bg)}
        opened = bias_gate(reading)
        if not opened and plan.rule == "lift-gated":
            # §4m: where the bias gate stays shut, the same rounds iff the lift holds back most
            # of the release's spectrum while the release still shows signal (post-processing)
            kept = lift_kept_share(M0, normal, intercept)
            r2 = released_r2(*plan.in_sums(rel), beta0, intercept, n_rel, plan.t,
                             count_released=plan.task.neighbouring != "replace-one")
            opened = lift_gate(kept, r2)
            gate.update(kept_share=kept, r2_lower=float(r2["lower"]), lift_opened=opened)
        if opened:
            n_rounds, tau, mech_round = T_bg, float(tau_bg), mech_bg
            branch, rounds = "ls-rounds", True
            clip_rule = "fixed"  # the least-squares τ, whatever BOOST_CLIP_RULE is
    if not rounds:
        branch = "second-release"
    record = BoostedFit(branch=branch, rounds=n_rounds, clip=tau, residual_scale=scales,
                        predicted_loss=loss, signal=signal, bias_gate=gate)
    return _Choice(branch=branch, rounds=n_rounds, clip=tau, clip_rule=clip_rule,
                   mech_round=mech_round, record=record)


def _ridge_penalty(plan, size: int) -> np.ndarray:
    """DPRidge: the rounds step on the ridge's gradient (public ``α`` on the features)."""
    pen = np.zeros(size)
    pen[:plan.d] = plan.alpha
    return pen


def _round_clip(plan, choice, rel, beta0, n_rel, normal):
    """``boost_clip="grow"`` (§4d), ``"late"`` (§4i) or ``"consistent"`` (§4j): each round's ``(τ_k, mechanism)`` from
    public inputs, the release and the current ``β``; ``None``: every round at the choice's clip
    (also where the rule chose the clip after the joint release: ``"predict"``'s, the
    least-squares rounds')."""
    if choice.clip_rule not in ("grow", "late", "consistent"):
        return None
    tau, mech_round = choice.clip, choice.mech_round
    if choice.clip_rule in ("late", "consistent"):
        # §4i: τ₀ until the round's noise at the cap is negligible against the residual
        # variance; §4j: ... against least squares' own sampling error σ̂² p / n
        late = choice.clip_rule == "late"
        z = boosting.BOOST_LATE_Z if late else boosting.BOOST_CONSISTENT_Z
        switch = late_clip_switch if late else consistent_clip_switch
        spread = plan.residual_scale(rel, beta0, n_rel, z=z)["lower"]
        Minv = np.linalg.pinv(0.5 * (normal + normal.T), hermitian=True)

        def late_clip(b):
            cap = residual_cap(b, plan.widths, plan.half_y)
            if not switch(mech_round.sigma, tau, cap, Minv, plan.widths, n_rel, spread):
                return tau, mech_round
            # the same (ε, δ) (the same μ_r) at the sensitivity of the cap: no residual clipped
            return cap, mech_round.with_sensitivity(mech_round.sensitivity * cap / tau)
        return late_clip
    # the released residual scale √(RSS(β₀)/n) at its LOWER confidence value
    # (post-processing): a noisy σ̂ never lifts τ where nothing needs it (task R3)
    spread = plan.residual_scale(rel, beta0, n_rel, z=boosting.BOOST_CLIP_SPREAD_Z)["lower"]
    spread = 0.0 if math.isnan(spread) else spread
    tau_grow = growing_clip(tau, plan.half_y, plan.epsilon, plan.delta, choice.rounds,
                            boosting.BOOST_JOINT_SHARE, n_rel, plan.widths,
                            plan.task.neighbouring, spread)

    def grow_clip(b):  # never above the largest residual any record has
        tk = min(tau_grow, residual_cap(b, plan.widths, plan.half_y))
        # the same (ε, δ) (the same μ_r) at the sensitivity of this τ
        return tk, mech_round.with_sensitivity(mech_round.sensitivity * tk / tau)
    return grow_clip


def boosted_noise_std(fit: BoostedFit, normal, entry_variance, scale: float, cx, t,
                      fit_intercept: bool, half) -> tuple:
    """``(coef_std, intercept_std)`` of the boosted model: the joint release's delta-method
    covariance at the start ``β₀`` contracted by the linearised rounds, plus the rounds' own
    noise (:func:`~matrixdp.models.boosting.boosted_covariance`, ``docs/regression.md`` §4c).
    Post-processing of the release and public quantities."""
    beta0, K, R, sigma_r, rounds = fit.linearised
    d = len(cx)
    C0 = coefficient_noise_std(beta0, normal, entry_variance, scale, cx,
                               t if fit_intercept else None,
                               widths=np.append(half, t) if fit_intercept else half,
                               return_cov=True)
    cov = boosted_covariance(C0, K, R, sigma_r, rounds)
    coef_std = np.sqrt(np.clip(np.diag(cov)[:d], 0.0, None))
    g = np.append(-cx, t)
    intercept_std = math.sqrt(max(float(g @ cov @ g), 0.0)) if fit_intercept else 0.0
    return coef_std, intercept_std
