"""The adaptive release itself: :func:`adaptive_covariance` spends a first look, a clipping
statistic and the rest of the budget, composed exactly under GDP, and chooses the last release
from the first ones (the orchestration of the other modules of this package).
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from ..._validation import check_choice, check_nonnegative, check_part_epsilon, check_unit_interval
from ...calibration.gaussian import gaussian_epsilon, max_gaussian_shift
from ...errors import InvalidParameterError
from ...feasible import project_covariance, project_feasible
from ...mechanisms import PrivacyGuarantee
from ...rng import make_rng
from .._far_tail import FAR_SHARE, far_level, far_reading, release_far_excess
from .._moments import (apply_plan, augmented_task, average_releases, combined_variance,
                        dominating_triangle_of, plan_second_moment)
from ..coinpress import (BETA, check_beta, first_noise_scale, gdp_release, unwhiten,
                         whitened_noise_sd, whitened_records, whitened_release, whitening)
from .options import AdaptiveOptions
from .counts import (COUNT_Z, DECISION_Z, READINGS, clipping_loss_bins, clipping_loss_counts,
                     clipping_losses, read_counts)
from .frame import (SHARE_Z, coinpress_pair_variance, first_look_noise_level,
                    moments_pair_variance, noise_level_margin, pca_frame, pca_frame_resolution,
                    unresolved_share)
from .pca_losses import (pca_bias_model, pca_bias_one_record, pca_deficit, pca_deficit_diagonal,
                         pca_deficit_normalised, resolution_guard_loss)
from .losses import (coinpress_noise_loss, correlation_coinpress_loss, correlation_moments_loss,
                     correlation_scale, median_choice, moments_loss,
                     triangle_moments_prediction)
from .steps import CHECK_SHARE, checked_step, first_look_reuse, refine_prediction, refined_step
from .tails import gap_shrink_bias, tail_reading

__all__ = ["RANKINGS", "FRAME_PROJECTIONS", "BIASES", "ONE_RECORD", "LOSS_STATISTICS",
           "FIRST_KINDS", "REFINES", "AdaptiveResult", "adaptive_covariance"]

#: How the two branches are ranked: ``"frobenius"`` (expected squared Frobenius error of the
#: covariance) or ``"pca-loss"`` (expected captured-variance deficit of the top-q subspace;
#: ``docs/coinpress.md`` § Adaptive (PCA)).
RANKINGS = ("frobenius", "pca-loss", "correlation")
#: The post-processings of the released covariance the PCA-loss frame can be read after
#: (:func:`adaptive_covariance`'s ``projection``; DPPCA's choices).
FRAME_PROJECTIONS = ("unit-box", "original", "none")
#: How the PCA-loss ranking predicts the whitened step's clipping bias (``docs/coinpress.md``
#: § Adaptive (PCA), "The clipping bias, modelled"): ``"model"`` (the default until session 18,
#: round 3b): a rank-one
#: bias of size ``b̂/√BIN_RATIO`` (the bins' geometric middles) along a direction drawn from the
#: first release's Gaussian model, its expected pair couplings put through the pairwise
#: deficit, capped by the bound (:func:`pca_bias_model`); ``"bound"`` (round 3): the worst case
#: ``min(c b̂², sat)``; ``"records"`` (task HP, opt-in): the model with the direction drawn from
#: the first look's model of the records, its covariance projected onto the feasible set, in place
#: of the whitening ``S`` (which adds the first look's noise margin), capped by the bound
#: (``docs/coinpress.md`` § Adaptive (PCA), "The bias direction from the records (task HP)"; its
#: dev gate passed, its pre-registered check failed: ``results/pca_bias_records_check.md``);
#: ``"one-record"`` (task PB, the default since session 18): ``"records"``, except where the
#: released counts read ONE clipped record: then its far part lies along an eigen-direction of the
#: records' model that can hold it and the record is typical in the others
#: (:func:`pca_bias_one_record`; ``docs/coinpress.md`` § Adaptive (PCA), "One clipped record
#: (task PB)"; dev gate and pre-registered check passed: ``results/pca_bias_one_record_gate.md``,
#: ``results/pca_bias_one_record_check.md``).
BIASES = ("model", "bound", "records", "one-record")
#: ``bias="one-record"``: the released counts read one clipped record when the counts kept by the
#: reading (those above ``COUNT_Z`` noise sds) sum to at least ``ONE_RECORD[0]`` and below
#: ``ONE_RECORD[1]`` (one record, rounded; public: a post-processing of the released counts).
ONE_RECORD = (0.5, 1.5)
#: What the Frobenius ranking compares (task CV, issue #24; ``docs/coinpress.md`` § Adaptive,
#: "Ranking by the predicted median (task CV)"): ``"mean"`` (default), the expected squared
#: errors; ``"median"`` (opt-in), their predicted medians, with the capped reading's level set
#: from the median threshold.
LOSS_STATISTICS = ("mean", "median")
#: What the first look can be allocated for (``first_kind``).
FIRST_KINDS = ("covariance", "pca", "mixed")
#: ``first_kind="mixed"``: the spawn key of the side stream its PCA-allocated part is drawn from
#: (an int ``rng``), so every other release keeps its position in the main stream.
_MIX_SPAWN_KEY = (0x504B,)
#: ``split_look`` (task PS): the spawn key of the side stream its ``W`` is drawn from.
_SPLIT_SPAWN_KEY = (0x5053,)
#: The values of ``refine``: the one-step whitened branch (``False``, default), the refined step
#: of task HC (``True``) and the refined step with the clipping reading of task HR
#: (``"checked"``).
REFINES = (False, True, "checked")


@dataclass(frozen=True)
class AdaptiveResult:
    """What :func:`adaptive_covariance` releases (all post-processing of DP outputs).

    Attributes
    ----------
    covariance : ndarray (d, d)
        Symmetric, not projected (the estimators project it onto the feasible set).
    location : ndarray (d,)
        The DP mean, clipped to the public box.
    privacy : PrivacyGuarantee
        The composed guarantee of the three releases.
    choice : str
        ``"moments"`` or ``"coinpress"``: what the second half of the budget was spent on.
    predicted : dict
        ``"moments"``, ``"coinpress"``: the expected squared errors (in the loss units of the
        choice) it compared; ``"clipping_loss"``: the reading ``b̂`` of the clipping loss (from
        the counts, or the released scalar floored at 0; 0 when no statistic was released);
        ``"clipping_loss_sd"``: the statistic's noise standard deviation (in records for the
        counts; public); ``"statistic"``: ``"counts"``, ``"clipping-loss"`` or ``"none"`` (the
        first release decided); ``"ranking"``: ``"frobenius"`` or ``"pca-loss"`` (what the
        two predictions measure); ``"reading"``: ``"capped"``, ``"threshold"`` or ``"none"``;
        ``"clipping_loss_reading_sd"``: the noise sd of the capped reading ``b̂`` (0 for the
        others; the capped ``b̂`` is not floored, it may be negative) and ``"reading_level"``
        its level ``L`` (NaN without counts); ``"coinpress_bias"``: the clipping-bias term
        added to the whitened step's prediction and ``"bias"``: how it was predicted
        (``"model"`` or ``"bound"``; always ``"bound"`` for the Frobenius ranking);
        ``ranking="correlation"``, or ``resolve_z > 0``: ``"resolved"``, the least projected
        first-look variance in its noise sds (``resolve_z``). All
        functions of DP releases and public inputs only.
    allocation : str
        The noise allocation of the last moments release (``"coinpress"`` when that step was
        chosen).
    mus : tuple of float
        The GDP parameters of the three releases; ``√Σ μ_i² <= privacy.mu``.
    entry_variance : ndarray (k + 1, k + 1) or None
        Moments branch: the exact variance of each entry of the averaged release of
        ``(x - c, t)`` (live features only; public). ``None`` for the CoinPress branch.
    """

    covariance: np.ndarray
    location: np.ndarray
    privacy: PrivacyGuarantee
    choice: str
    predicted: dict
    allocation: str
    mus: tuple = ()
    entry_variance: np.ndarray | None = None
    #: Moments branch: the released mean of ``x - c`` (live features; not clipped to the box),
    #: which with ``covariance`` and the public ``t`` gives back the averaged release.
    mean: np.ndarray | None = None


def _side_stream(rng, spawn_key=_MIX_SPAWN_KEY):
    """The generator of ``first_kind="mixed"``'s PCA-allocated part: an int ``rng`` gives a child
    of its seed (spawn key ``_MIX_SPAWN_KEY``), a Generator its own spawned child, ``None`` a
    fresh secure generator (never kept: the caller drops it after the one release)."""
    from ...rng import fresh_secure_rng

    if rng is None:
        return fresh_secure_rng()
    if isinstance(rng, np.random.Generator):
        try:
            return rng.spawn(1)[0]
        except (TypeError, ValueError, AttributeError):  # no seed sequence to spawn from
            return fresh_secure_rng()
    return np.random.Generator(np.random.PCG64(
        np.random.SeedSequence(int(rng), spawn_key=spawn_key)))


def _moment_release(plan, value, gen):
    """Release ``value`` (the task's second moments) with a planned mechanism; returns the
    symmetrised matrix and the release's GDP parameter."""
    out, rel = apply_plan(plan, value, gen)  # scale and triangle layout (task TG)
    return out, float(rel.privacy.mu)


def _resolved_arguments(kind, first_kind, ranking, projection, reading, bias, resolve_z,
                        resolve_share, loss_statistic, correlation_bias, unresolved_margin, refine,
                        options):
    """:func:`adaptive_covariance`'s arguments checked against one another (each knob of
    ``options`` is checked alone by :class:`AdaptiveOptions`), the defaults that depend on other
    arguments resolved. Returns ``(options, first_kind, ranking, reading, select_units,
    far_share, checked)``. Public inputs only: it raises before anything is charged."""
    if options is None:
        options = AdaptiveOptions()
    if not isinstance(options, AdaptiveOptions):
        raise InvalidParameterError("options", f"must be None or an AdaptiveOptions, got "
                                               f"{type(options).__name__}")
    select_units, decision = options.select_units, options.decision
    tie_ratio, far_tail = options.tie_ratio, options.far_tail
    if first_kind is None:
        first_kind = "covariance" if decision == "counts" else kind
    check_choice(first_kind, FIRST_KINDS, "first_kind")
    if first_kind == "mixed" and kind != "pca":
        raise InvalidParameterError("first_kind", "'mixed' needs kind='pca' (it mixes the "
                                                  "covariance's and the PCA task's allocations)")
    if options.split_look and first_kind == "mixed":
        raise InvalidParameterError("split_look", "splits a one-plan first look; not with "
                                                  "first_kind='mixed'")
    if ranking is None:
        ranking = "pca-loss" if (kind == "pca" and decision == "counts") else "frobenius"
    check_choice(ranking, RANKINGS, "ranking")
    if ranking == "pca-loss" and (kind != "pca" or decision != "counts"):
        raise InvalidParameterError("ranking", "'pca-loss' needs kind='pca' and "
                                               "decision='counts'")
    if ranking == "correlation" and decision != "counts":
        raise InvalidParameterError("ranking", "'correlation' needs decision='counts'")
    check_choice(projection, FRAME_PROJECTIONS, "projection")
    if reading is None:
        reading = "capped" if kind == "covariance" else "threshold"
    check_choice(reading, READINGS, "reading")
    check_nonnegative(resolve_z, "resolve_z")
    if unresolved_margin is not None:
        if ranking != "correlation" or not resolve_z > 0:
            raise InvalidParameterError("unresolved_margin", "needs ranking='correlation' and "
                                                             "resolve_z > 0")
        if not (unresolved_margin >= 1 and math.isfinite(unresolved_margin)):
            raise InvalidParameterError("unresolved_margin", f"must be a finite number >= 1, "
                                                             f"got {unresolved_margin!r}")
    if not (correlation_bias >= 0 and math.isfinite(correlation_bias)):
        raise InvalidParameterError("correlation_bias", f"must be a finite number >= 0, got "
                                                        f"{correlation_bias!r}")
    if correlation_bias != 1.0 and ranking != "correlation":
        raise InvalidParameterError("correlation_bias", "needs ranking='correlation'")
    if resolve_share is not None:
        check_unit_interval(resolve_share, "resolve_share")
        if ranking != "pca-loss":
            raise InvalidParameterError("resolve_share", "the share guard needs "
                                                         "ranking='pca-loss' (kind='pca')")
    check_choice(bias, BIASES, "bias")
    if select_units is None:
        select_units = "unit-box" if (kind == "pca" and decision == "clipping-loss") else \
            "original"
    if ranking == "pca-loss" and select_units == "unit-box":
        raise InvalidParameterError("ranking", "'pca-loss' is measured in the original units "
                                               "(select_units='original')")
    if kind not in ("covariance", "pca"):
        raise InvalidParameterError("kind", f"must be 'covariance' or 'pca', got {kind!r}")
    far_share = FAR_SHARE if far_tail else 0.0
    if far_tail and not (kind == "covariance" and decision == "counts" and reading == "capped"
                         and ranking == "frobenius"):
        raise InvalidParameterError("far_tail", "the far-tail statistic needs kind='covariance', "
                                                "decision='counts' and reading='capped'")
    check_choice(loss_statistic, LOSS_STATISTICS, "loss_statistic")
    if loss_statistic == "median" and not (
            kind == "covariance" and decision == "counts" and reading == "capped"
            and ranking == "frobenius" and not far_tail and tie_ratio == 1.0):
        raise InvalidParameterError("loss_statistic", "'median' needs kind='covariance', "
                                                      "decision='counts', reading='capped', "
                                                      "ranking='frobenius', tie_ratio=1 and "
                                                      "far_tail=False")
    if not (isinstance(refine, (bool, np.bool_)) or (isinstance(refine, str)
                                                     and refine == "checked")):
        raise InvalidParameterError("refine", f"must be one of {REFINES}, got {refine!r}")
    if options.tail_bias != "none" and ranking != "pca-loss":
        raise InvalidParameterError("tail_bias", "'gap-shrink' needs ranking='pca-loss' "
                                                 "(kind='pca')")
    checked = isinstance(refine, str)
    if refine and (ranking == "pca-loss" or far_tail):
        raise InvalidParameterError("refine", "the refined step needs ranking='frobenius' or "
                                              "'correlation' and far_tail=False")
    return options, first_kind, ranking, reading, select_units, far_share, checked


def _composed_guarantee(epsilon, delta, mu_star, n_rel, options, first_kind, refine, checked,
                        far_share) -> PrivacyGuarantee:
    """The guarantee of the composed releases, its notes saying how ``μ*²`` is split (public
    inputs only)."""
    first_share, bias_share, first_mix = options.first_share, options.bias_share, options.first_mix
    decision, far_tail = options.decision, options.far_tail
    return PrivacyGuarantee(
        epsilon=float(epsilon), delta=float(delta), neighbouring="replace-one",
        calibration=f"analytic, exact GDP composition of {n_rel} Gaussian releases",
        exact=False, mechanism="adaptive", mu=mu_star,
        notes=((f"sequential composition: GDP shares {first_share:g} (first look"
                + (f": {first_mix * first_share:g} allocated for the covariance, "
                   f"{(1 - first_mix) * first_share:g} for the PCA task"
                   if first_kind == "mixed" else "")
                + f"), {bias_share:g} and the "
                f"rest of mu^2; the decision statistic is {decision!r}; the last release's kind "
                "is chosen from the first ones (post-processing)"
                + ("; a whitened last release may be split in two steps at 1/4 and 3/4 of its "
                   "mu^2 (refine=True)" if refine and not checked else "")
                + ("; a whitened last release may be split in a refinement at 1/4, a clipping "
                   f"reading at {CHECK_SHARE:g} and a final step at the rest of its mu^2 "
                   "(refine='checked')" if checked else "")
                + ("; the first look is released in two independent halves at mu^2/2 each "
                   "(split_look=True), the second skipped from the first's predictions and its "
                   "mu^2 then spent on the last release" if options.split_look else ""),)
               if not far_tail else
               (f"sequential composition: GDP shares {first_share - far_share:g} (first "
                f"release), {bias_share:g} (counts), {far_share:g} (far-tail excess) and the "
                "rest of mu^2; the last release's kind is chosen from the first three "
                "(post-processing)",)))


def adaptive_covariance(X, lower, upper, *, epsilon, delta, kind: str = "covariance",
                        n_components=None, rng=None, charging=None, beta=BETA,
                        first_kind: str | None = None, ranking: str | None = None,
                        projection: str = "unit-box", reading: str | None = None,
                        bias: str = "one-record", resolve_z: float = 0.0,
                        resolve_share: float | None = None, loss_statistic: str = "mean",
                        correlation_bias: float = 1.0, unresolved_margin: float | None = None,
                        refine: bool = False,
                        options: AdaptiveOptions | None = None) -> AdaptiveResult:
    r"""DP covariance and mean that spend the budget where the records are (replace-one, public n).

    Three Gaussian releases composed exactly under Gaussian differential privacy to ``μ*``, the
    largest shift that is (ε, δ)-DP:

    1. the one-shot release of the mean-augmented second moments (``noise="auto"``, the
       allocation of least expected loss for ``first_kind``) at ``μ₁² = first_share·μ*²``. From it
       (post-processing): the CoinPress whitening ``S``
       (:func:`~matrixdp.models.coinpress.whitening`), the expected loss of a second moments
       release averaged with the first, ``P_mom``, and the
       noise part of the expected loss of a whitened step, ``P_cp``, both at the rest of the
       budget;
    2. at ``μ_b² = bias_share·μ*²``, the decision statistic. ``decision="counts"``: if
       ``P_mom <= P_cp`` (moments win whatever the clipping) or the largest possible clipping
       loss is below ``√(P_mom − P_cp)`` (CoinPress wins whatever the data), no statistic is
       needed and ``μ_b`` goes to the last release; otherwise the histogram of the records'
       clipping losses ``g = ‖D(x − c − m̂)‖²(1 − f²)`` in geometric bins placed around the
       decision threshold ``√(P_mom − P_cp)`` (:func:`clipping_loss_counts`, sensitivity
       ``√2``), read into ``b̂`` (``reading``: ``"capped"``, every bin at
       ``min(τ_j, L)`` with noise sd at most the threshold over ``COUNT_Z``, or ``"threshold"``,
       ``Σ_j τ_j ñ_j / n`` over the bins whose noisy count exceeds ``COUNT_Z`` noise sds, ``τ_j``
       the bin's upper edge). ``decision="clipping-loss"``
       (the first version): the scalar ``b = (1/n) Σ g`` with sensitivity
       ``Σ_i D_i²(h_i + |m̂_i|)²/n``. ``b`` bounds the Frobenius norm of the clipping bias;
    3. with the rest, ``μ₂² = μ*² − μ₁² − μ_b²``: the CoinPress step if
       ``P_cp + b̂² < P_mom`` (``"capped"``: ``b̂ + DECISION_Z·sd(b̂)`` in place of ``b̂``),
       else a second moments release with the same allocation averaged
       with the first entry by entry with inverse-variance weights.

    Parameters
    ----------
    X : ndarray (n, d)
        Records, already clipped to ``[lower, upper]``.
    lower, upper : ndarray (d,)
        Public bounds.
    epsilon, delta : float
        The whole budget.
    kind : {"covariance", "pca"}
        The task the noise of the moments releases is allocated for (Frobenius loss in the
        original units, or the PCA task in units of the public half-widths, as
        :class:`~matrixdp.models.DPPCA`).
    n_components : int, optional
        Passed to the task (PCA).
    rng : None, int or Generator
        ``None``: a fresh cryptographically secure generator; an int makes the fit reproducible
        (and replayable by whoever knows the seed). One generator for all releases, not kept.
    charging : callable, optional
        ``charging(guarantee)`` returns the context manager the releases run in. It is entered
        once, after the moments releases' plans are built (public inputs only), so a ``delta``
        too large for a part of the split is refused before anything is charged.
    beta : float, "auto" or "late", default BETA (0.1)
        The whitened radius of :func:`~matrixdp.models.coinpress.coinpress_covariance`; ``"auto"``
        and ``"late"`` (opt-in) are taken
        at the whitened step's GDP parameter when the statistic is released,
        ``μ₂ = √(μ*² − μ₁² − μ_b²)`` (the radius is fixed before the statistic, which counts the
        records it clips; ``docs/coinpress.md`` § The clipping radius). A float: the fixed
        per-record rate (``0.1`` is the behaviour before ``"auto"``).
    resolve_z : float, default 0.0
        The resolution guard (task CR's second candidate for ``ranking="correlation"``; task PA2
        extended it to every ranking, opt-in there: ``DPPCA(adaptive_resolve_z=...)``): the
        whitened step is predicted only if every released variance of the first look, projected
        onto the feasible covariances in the original units, is at least ``resolve_z`` times
        its noise sd ``Q_ii`` (:func:`~matrixdp.models.coinpress.first_noise_scale`;
        ``predicted["resolved"]`` is the least ratio, reported for the correlation ranking and
        whenever ``resolve_z >
        0``); otherwise its prediction is infinite and the rest of the budget goes to the
        moments release (no statistic is released; the same releases and stream as a fit whose
        predictions make the counts unnecessary). ``0`` (default): no such condition, and the
        fit is the one before the option (byte for byte). The first-order losses of every
        ranking assume the noise small against each variance (``docs/coinpress.md``
        § Adaptive (correlation) and § Adaptive (PCA), "The resolve_z guard (task PA2)").
        Post-processing of the first release.
    correlation_bias : float >= 0, default 1.0
        ``ranking="correlation"`` only: the coefficient of the counts' clipping-bias term in the
        whitened step's prediction. ``1`` (default): as the Frobenius ranking (the fit before
        task CG, byte for byte). Task CG (``DPCovariance(correlation_rule="margin")``, its default
        ``CORRELATION_BIAS`` = 0.1): a clipping in the whitened frame of ``S ≈ C`` shrinks the
        records by a common factor to first order, which the correlation's normalisation
        removes; measured, the bias term (coefficient 1) made the step's prediction 1.4–6,800×
        its measured correlation loss where the first look resolves every variance, while the
        noise term alone was 0.70–1.5× in 15 of those 19 cells (0.011–0.44× on adult ε ≥ 1 and
        movement_aal ε = 5, where the bias is a real part of the loss;
        ``results/correlation_guard_diagnosis.md``). ``0``: no bias term, so no statistic is
        released (the counts' share of μ² goes to the last release); it loses up to 34× at large
        ε where the bias does not fall with ε (``results/correlation_guard_high_eps.md``).
        Post-processing of the first look and the counts (``docs/coinpress.md`` § Adaptive
        (correlation), "The guard and the bias term (task CG)").
    unresolved_margin : float >= 1 or None, default None
        ``ranking="correlation"`` with ``resolve_z > 0`` only (task CG). ``None``: an
        unresolved first look (least ratio below ``resolve_z``) blocks the step (``resolve_z``
        above). A number ``M``: such a first look does not block the step; its predicted noise
        loss is multiplied by ``M`` instead (task CG, ``covariance.UNRESOLVED_MARGIN`` = 10:
        where the unguarded step was taken and lost, lending_club ε = 0.5, 1, charity ε = 0.5,
        crime1 ε = 1, its first-order noise loss under-predicted the measured one 6–18×, the
        moments loss 1.7–6×: ``results/correlation_guard_diagnosis.md``). Post-processing
        of the first release.
    resolve_share : float in [0, 1] or None, default None
        ``ranking="pca-loss"`` only (task PA3, issue #24, opt-in): the resolution guard on the
        top-``n_components`` subspace instead of on every feature. The features whose projected
        first-look variance is below ``z`` of its noise sds are unresolved (``z = resolve_z`` if
        it is > 0, else :data:`SHARE_Z` = 3); the whitened step is predicted only if their share
        ``s`` of the projected first look's top-q variance (:func:`unresolved_share`) is at most
        ``resolve_share``; otherwise, as ``resolve_z``, its prediction is infinite and the rest of
        the budget goes to the moments release (no statistic released). With it, ``resolve_z``
        sets only ``z`` (the all-features condition is not applied). ``predicted`` gains
        ``"resolved"`` and ``"unresolved_share"``. ``None``: no such condition (the fit before
        the option, byte for byte). Post-processing of the first release and public inputs
        (``docs/coinpress.md`` § Adaptive (PCA), "The share guard (task PA3)"). Failed its dev
        gate at 1/2 and 1/4 (45 and 43 of 60 benchmark cells within 1.2× of the best, needs
        50; ``results/adaptive_pca_share.md``).
    first_kind : {"covariance", "pca", "mixed"}, optional
        The task the first release's noise is allocated for. Default ``"covariance"`` (original
        units, as CoinPress' first step: the whitening and the centre of the CoinPress step are
        then accurate for the features that dominate the original units); ``kind`` with
        ``decision="clipping-loss"`` (the first version). The moments branch averages it with a
        second release allocated for ``kind``. ``"mixed"`` (task PK, issue #24, opt-in;
        ``kind="pca"`` only): the first look is two moments releases, ``first_mix`` of its
        ``μ₁²`` allocated for the covariance and the rest for the PCA task (the latter drawn
        from a side stream: a child of an int ``rng``'s seed, a spawned child of a Generator, a
        fresh secure generator for ``None``, so every later release keeps its place in the main
        stream), combined entry by entry with inverse-variance weights (public); the whitening,
        the predictions and the moments branch read the combination, so that branch combines
        three releases. The composition adds one Gaussian release at the same total ``μ₁``
        (``docs/coinpress.md`` § Adaptive (PCA), "The mixed first look (task PK)").
    ranking : {"frobenius", "pca-loss", "correlation"}, optional
        What the two branches are ranked by. ``"correlation"`` (task CR; what
        ``DPCovariance(kind="correlation", method="adaptive")`` uses): the first-order expected
        squared Frobenius error of the implied correlation (:func:`correlation_moments_loss`,
        :func:`correlation_coinpress_loss`, with the first look's :func:`correlation_scale`),
        the clipping loss counted in units of the first look's standard deviations
        (``docs/coinpress.md`` § Adaptive (correlation)). ``"frobenius"``: the expected squared
        Frobenius error of the covariance (default for ``kind="covariance"`` and for
        ``decision="clipping-loss"``). ``"pca-loss"`` (default for ``kind="pca"`` with the
        counts): the expected captured-variance deficit of the top ``n_components`` subspace,
        ``Σ_{i<q<=j} (g_ij/2)(1 − g_ij/√(g_ij² + 4 s_ij))`` over the first release's
        eigen-frame, with the gaps ``g`` from the first release's spectrum after the noise's
        expected inflation is removed (:func:`pca_frame`) and ``s`` each branch's noise variance
        in that frame (:func:`moments_pair_variance`, :func:`coinpress_pair_variance`); the
        whitened step's clipping bias ``b`` enters as ``bias`` says (by default the
        one-direction model of :func:`pca_bias_model`, capped by the concavity bound
        ``(b²/2)·max ∂/∂s``; ``docs/coinpress.md`` § Adaptive (PCA)). Post-processing of the
        first release and public inputs only: the releases and their shares are unchanged.
    reading : {"capped", "threshold"}, optional
        How ``decision="counts"`` reads the released counts (:func:`read_counts`). Default
        ``"capped"`` for ``kind="covariance"``: every bin read at ``min(τ_j, L)`` (the level
        ``L`` set so that the reading's noise sd is at most the decision threshold over
        ``COUNT_Z``), plus the excess above ``L`` of the resolved bins, and the whitened step
        chosen only if ``b̂ + DECISION_Z·sd(b̂)`` is below the threshold. ``"threshold"``
        (default for ``kind="pca"``, whose ranking was not re-measured with the new reading):
        only the bins whose count exceeds ``COUNT_Z`` sds, at their upper edges.
    projection : {"unit-box", "original", "none"}, default "unit-box"
        ``ranking="pca-loss"`` only: the post-processing the caller applies to the released
        covariance before its eigendecomposition (:class:`~matrixdp.models.DPPCA`'s
        ``projection``; ``"noise"`` falls back to ``"unit-box"`` there for this method). The
        prediction's eigen-frame and gaps are read from the first release post-processed the
        same way (:func:`~matrixdp.feasible.project_feasible` with the public bounds;
        ``docs/coinpress.md`` § Adaptive (PCA), "The frame of the projected release").
    bias : {"model", "bound", "records", "one-record"}, default "one-record"
        ``ranking="pca-loss"`` only: how the whitened step's clipping bias enters its predicted
        deficit (:data:`BIASES`): ``"model"`` (the default until session 18), the
        one-direction model of :func:`pca_bias_model` capped by the bound; ``"bound"``, the worst
        case ``min(c b̂², sat)`` (round 3; the Frobenius ranking always uses it); ``"records"``
        (task HP, opt-in): the one-direction model with the direction drawn from the first
        look's covariance projected onto the feasible set (the records' model) instead of the
        whitening ``S``, capped by the bound (``docs/coinpress.md`` § Adaptive (PCA), "The
        bias direction from the records (task HP)"; ``results/pca_high_eps_diagnosis.md``). Dev gate
        passed, pre-registered check failed (58 of 64 cells within 1.2× of the best, the
        default 59; ``results/pca_bias_records_check.md``). ``"one-record"`` (task PB, the
        default since session 18): ``"records"``, except where the released counts read one
        clipped record
        (:data:`ONE_RECORD`): then :func:`pca_bias_one_record` (its far part along an
        eigen-direction of the records' model that can hold it, typical in the others; the
        records' term if none can), capped by the bound (``docs/coinpress.md`` § Adaptive
        (PCA), "One clipped record (task PB)"; ``results/pca_bias_rank_diagnosis.md``). Its dev
        gate passed (``results/pca_bias_one_record_gate.md``: 264 cells, no FAIL, median 0.955
        over the 22 changed cells) and its pre-registered check on five never-seen tables
        passed (``results/pca_bias_one_record_check.md``: no FAIL, median 0.570 over the 2
        changed cells, within 1.2× of the best row in 70 of 72 cells as the old default); every
        change measured there comes from the records' direction (the one-record rule acted in
        none of their trials, ``results/pca_bias_one_record_vs_records.md``).
        Post-processing: the guarantee and the releases are the same.

    loss_statistic : {"mean", "median"}, default "mean"
        Task CV (issue #24, opt-in candidate): what the Frobenius ranking compares when the
        counts are released. ``"mean"``: the expected squared errors (the rule before the
        option, byte for byte). ``"median"``: their predicted medians, each branch's squared
        error taken as a Gaussian quadratic form and its median read from the scaled chi-square
        with the same mean and variance (:func:`satterthwaite_median`; the moments branch's
        variance :func:`moments_loss_variance`, the whitened step's
        :func:`coinpress_noise_variance` with its bias ``b``); the whitened step is chosen iff
        the capped reading, with its level set from the bias ``t_med`` at which the two medians
        are equal (:func:`median_threshold`; the same counts, post-processing), gives
        ``b̂ + DECISION_Z·sd(b̂) < t_med``. A moments error carried by few entries has a median
        well below its root mean square (0.67× for one entry) while a whitened step's clipping
        bias is fixed, so near-ties in expectation go to the moments release. When the counts
        are not released the choice is the default's. ``kind="covariance"`` with the capped
        reading, the Frobenius ranking, ``tie_ratio=1`` and no far tail only; ``predicted``
        gains ``"loss_statistic"``, ``"moments_median"``, ``"coinpress_median"``,
        ``"median_threshold"``, ``"clipping_loss_median"``, ``"clipping_loss_median_sd"`` and
        ``"reading_level_median"`` (NaN without counts). Post-processing of the releases
        (``docs/coinpress.md`` § Adaptive, "Ranking by the predicted median (task CV)").
    refine : {False, True, "checked"}, default False
        Task HC (issue #24, opt-in candidate): when the whitened branch is taken, spend its
        ``μ₂`` on TWO CoinPress steps (a refinement at ``REFINE_SHARE`` = 1/4 of ``μ₂²`` from the
        first look's whitening, then the final step whitened by the refinement's estimate,
        :func:`refined_step`) instead of one, if :func:`refine_prediction` predicts the two
        steps' noise loss below the one step's (the ranking's own noise loss; the first look's
        margin is what a refinement removes). The choice between the branches, the counts and
        every release before the last are unchanged (same stream position); the composition
        is exact GDP of up to four Gaussian releases, ``√(μ_a² + μ_f²) = μ₂``. ``predicted``
        gains ``"refined"`` (bool), ``"refine_one"`` and ``"refine_two"`` (the two noise
        losses; NaN when the moments branch is taken). ``ranking`` ``"frobenius"`` or
        ``"correlation"`` only; ``False``: the fit before the option, byte for byte
        (``docs/coinpress.md`` § Adaptive, "The refined step (task HC)"). The prediction leaves
        out the clipping bias, which the refined whitening (without the first look's margin)
        raises: failed its dev gate (304 cells, 7 FAIL, up to 2.64× on ctg correlation ε = 100
        and 1.65× on lending_club covariance ε = 2; median 1.000 over the 63 changed cells; 23
        cells below 0.9×, to 0.36×; ``results/adaptive_refine_gate.md``,
        ``results/adaptive_refine_clipping.md``).
        ``"checked"`` (task HR, opt-in candidate): the same refinement with a clipping reading
        between its two steps (:func:`checked_step`: counts under the refined whitening at
        ``CHECK_SHARE`` = 0.04 of ``μ₂²``; the final step refined only where the read clipping
        bias does not outweigh its predicted noise gain, else the default's one-step release
        averaged with the refinement); ``predicted`` also gains ``"checked"``,
        ``"check_one"``, ``"check_two"``, ``"check_reading"`` and ``"check_statistic"``
        (``docs/coinpress.md`` § Adaptive, "The checked refinement (task HR)"). Failed its dev
        gate too (``results/adaptive_refine_checked_gate.md``: 2 FAIL cells, lending_club
        covariance ε = 2 1.69× and charity covariance ε = 2 1.18×, where the capped reading
        misses a far tail, ``results/adaptive_refine_checked_reading.md``; median 1.000 over
        the 59 changed cells; 18 cells below 0.9×, to 0.34×).

    options : AdaptiveOptions, optional
        The research knobs (the budget split, the first version's statistic, a forced branch and
        the failed candidates kept to reproduce committed results); ``None``: every default
        (:class:`AdaptiveOptions`).

    Returns
    -------
    AdaptiveResult

    References
    ----------
    .. [1] S. Biswas, Y. Dong, G. Kamath and J. Ullman, "CoinPress: Practical Private Mean and
       Covariance Estimation", NeurIPS 2020.
    .. [2] J. Dong, A. Roth and W. J. Su, "Gaussian Differential Privacy", JRSS B 2022.
    .. [3] matrixdp, ``docs/coinpress.md`` (section "Adaptive").
    .. [4] F. E. Satterthwaite, "An approximate distribution of estimates of variance
       components", Biometrics Bulletin 2(6), 1946.
    """
    return _adaptive_release(
        X, lower, upper, epsilon=epsilon, delta=delta, kind=kind, n_components=n_components,
        rng=rng, charging=charging, beta=beta, first_kind=first_kind, ranking=ranking,
        projection=projection, reading=reading, bias=bias, resolve_z=resolve_z,
        resolve_share=resolve_share, loss_statistic=loss_statistic,
        correlation_bias=correlation_bias, unresolved_margin=unresolved_margin, refine=refine,
        options=options)


def _adaptive_release(X, lower, upper, *, epsilon, delta, kind, n_components, rng, charging,
                      beta, first_kind, ranking, projection, reading, bias, resolve_z,
                      resolve_share, loss_statistic, correlation_bias, unresolved_margin, refine,
                      options, look=None, probe=False):
    """:func:`adaptive_covariance`'s body. ``look``: ``None`` (the first look drawn here) or
    ``(G₁, V₁, μ₁)``, a first look already released (``split_look``'s ``Y₁``); ``probe``: return
    the split look's verdict from the first look's predictions (``True``: skip ``Y₂``), before
    any further release (nothing drawn, nothing charged; the caller passes ``charging=None``)."""
    options, first_kind, ranking, reading, select_units, far_share, checked = _resolved_arguments(
        kind, first_kind, ranking, projection, reading, bias, resolve_z, resolve_share,
        loss_statistic, correlation_bias, unresolved_margin, refine, options)
    # the research knobs, each validated once by AdaptiveOptions; read under their own names
    first_share, bias_share, margin = options.first_share, options.bias_share, options.margin
    decision, branch = options.decision, options.branch
    mean_margin, first_mix = options.mean_margin, options.first_mix
    tie_ratio, decision_z, far_tail = options.tie_ratio, options.decision_z, options.far_tail
    diagonal_noise, noise_pairs = options.diagonal_noise, options.noise_pairs
    pca_gaps, pca_unresolved = options.pca_gaps, options.pca_unresolved
    resolution_guard, gap_inflation = options.resolution_guard, options.gap_inflation
    step_margin = options.step_margin
    tail_shrink = options.tail_bias == "gap-shrink"
    moments_triangle = options.moments_triangle
    triangle_prediction = options.triangle_prediction
    step_reuse = options.step_reuse
    reuse = {"first_look_weight": math.nan} if step_reuse else {}
    if step_margin != "none" and loss_statistic != "mean":
        raise InvalidParameterError("step_margin", "the noise-level margin acts on the mean "
                                                   "ranking (loss_statistic='mean') only")
    ranking_used = ranking
    n_rel = (4 if far_tail else 3) + (first_kind == "mixed") + bool(refine) + checked
    beta = check_beta(beta, ("auto", "late"))
    X = np.asarray(X, dtype=np.float64)
    lo = np.asarray(lower, dtype=np.float64)
    hi = np.asarray(upper, dtype=np.float64)
    n, d = X.shape
    mu_star = max_gaussian_shift(epsilon, delta)
    guarantee = _composed_guarantee(epsilon, delta, mu_star, n_rel, options, first_kind, refine,
                                    checked, far_share)
    h = 0.5 * (hi - lo)
    live = h > 0
    k = int(live.sum())
    if k == 0:
        raise InvalidParameterError("bounds", "at least one feature must have lower < upper")
    hl = h[live]
    weights = np.ones(k) if select_units == "original" else 1.0 / hl
    c = 0.5 * (lo + hi)
    cov = np.zeros((d, d))
    loc = c.copy()
    lo_l, hi_l = lo[live], hi[live]
    Xl = X[:, live]
    # the plans of the moments releases (public: the bounds, n, the shares) are built, and so
    # checked, before the guarantee is charged: a delta too large for a part of the split is
    # refused (naming delta) with nothing charged and no noise drawn
    task, center, t = augmented_task(lo_l, hi_l, n, kind, n_components=n_components)
    kind1 = "covariance" if first_kind == "mixed" else first_kind
    task1 = task if kind1 == kind else \
        augmented_task(lo_l, hi_l, n, kind1, n_components=n_components)[0]
    share1 = (first_share - far_share) * (first_mix if first_kind == "mixed" else 1.0)
    eps1 = gaussian_epsilon(delta, 1.0, math.sqrt(share1) * mu_star)
    plan1, candidates = plan_second_moment(task1, epsilon=eps1, delta=delta, noise="auto")
    mu1_plan = float(plan1.privacy.mu)
    if first_kind == "mixed":
        eps1b = gaussian_epsilon(delta, 1.0, math.sqrt(first_share - far_share - share1)
                                 * mu_star)
        plan1b = plan_second_moment(task, epsilon=eps1b, delta=delta, noise="auto")[0]
        mu1_plan = math.hypot(mu1_plan, float(plan1b.privacy.mu))
    # the last moments release's smallest GDP parameter (the statistics' shares all released)
    mu_last_min = math.sqrt(max(mu_star ** 2 - mu1_plan ** 2
                                - (bias_share + far_share) * mu_star ** 2, 0.0))
    if mu_last_min > 0:
        check_part_epsilon(gaussian_epsilon(delta, 1.0, mu_last_min), delta)
    gen = make_rng(rng)
    ctx = contextlib.nullcontext() if charging is None else charging(guarantee)
    with ctx:
        # 1. the one-shot moments release at μ₁, with the allocation of least expected loss
        # for ``kind`` (planned above)
        Z = np.empty((n, k + 1))
        np.subtract(Xl, center, out=Z[:, :k])
        Z[:, k] = t
        value = task.query().compute(Z)
        if look is not None:  # the split look's Y₁, released by the caller
            G1, V1, mu1 = look
        else:
            G1, mu1 = _moment_release(plan1, value, gen)
            V1 = plan1.entry_variance
        if options.split_look and look is None:
            # task PS: Y₁ = G₁ + W, W the same plan's noise from a side stream, is a release at
            # μ₁/√2, and so is Y₂ = G₁ − W, independent of it (Z + W and Z − W are uncorrelated
            # jointly Gaussian); (Y₁ + Y₂)/2 = G₁. Y₂ is skipped only where Y₁'s own predictions
            # say so (docs/coinpress.md § "The split first look (task PS)"); then the fit runs
            # from Y₁ and G₁ is dropped, else from G₁ (post-processing of Y₁ and Y₂), byte for
            # byte the default's fit
            side = _side_stream(rng, _SPLIT_SPAWN_KEY)
            Y1 = G1 + apply_plan(plan1, np.zeros_like(value), side)[0]
            del side
            first = (Y1, 2.0 * V1, mu1 / math.sqrt(2.0))
            split_skip = _adaptive_release(
                X, lower, upper, epsilon=epsilon, delta=delta, kind=kind,
                n_components=n_components, rng=None, charging=None, beta=beta,
                first_kind=first_kind, ranking=ranking, projection=projection, reading=reading,
                bias=bias, resolve_z=resolve_z, resolve_share=resolve_share,
                loss_statistic=loss_statistic, correlation_bias=correlation_bias,
                unresolved_margin=unresolved_margin, refine=refine,
                options=dataclasses.replace(options, split_look=False), look=first, probe=True)
            if split_skip:
                G1, V1, mu1 = first
            del Y1, first
        if first_kind == "mixed":
            # task PK: the rest of the first look allocated for the PCA task (as the second
            # release), drawn from a side stream so the later releases keep their place in the
            # main one; the two combined entry by entry with inverse-variance weights (public),
            # the first look everything below reads (docs/coinpress.md § Adaptive (PCA), "The
            # mixed first look (task PK)")
            side = _side_stream(rng)
            G1b, mu1b = _moment_release(plan1b, value, side)
            del side
            G1, V1 = average_releases(G1, plan1.entry_variance, G1b, plan1b.entry_variance)
            mu1 = math.sqrt(mu1 ** 2 + mu1b ** 2)
            del G1b
        m = G1[:k, k] / t
        C = G1[:k, :k] - np.outer(m, m)
        # step_margin="noise-level" (task PK2): the first look's noise norm over its top
        # eigenvalue and the margin the step's prediction must beat the moments release's by
        # (public: post-processing of the first look; docs/coinpress.md § Adaptive (PCA), "A
        # margin for a noise-level first look (task PK2)")
        if step_margin == "noise-level":
            rho_first = first_look_noise_level(C, V1, m, t)
            step_mult = noise_level_margin(rho_first)
        else:
            rho_first, step_mult = math.nan, 1.0
        # a first look released through a weighted-triangle plan (AUTO_TRIANGLES) is read in
        # the product-form metric: its diagonal is much quieter than its off-diagonals, and the
        # diagonal's sd would make the whitening margin, the correlation scales' floor and the
        # resolve guards too tight (task TG2, docs/when_mvg_wins.md §9); full draws unchanged
        tri1 = plan1.triangle is not None or (first_kind == "mixed"
                                              and plan1b.triangle is not None)
        Q = first_noise_scale(V1, m, t, mean_noise=mean_margin, product_form=tri1)
        # the radius' step budget: μ₂, the whitened step's GDP parameter when the statistic is
        # released (public: μ₁ is the first release's calibration)
        mu_cp = math.sqrt(max(mu_star ** 2 - mu1 ** 2 - (bias_share + far_share) * mu_star ** 2,
                              0.0))
        S, A, A_inv, r2 = whitening(C, Q, m, hl, margin=margin, beta=beta, n=n,
                                    mu=max(mu_cp, 1e-300))
        # the first look's projected variances in their noise sds (public: post-processing of
        # the first look), read by the correlation ranking and by the resolution guards
        var_p = C_p = None
        if ranking == "correlation":
            # the loss of the implied correlation: the clipping loss in units of the first
            # look's standard deviations (docs/coinpress.md § Adaptive (correlation))
            s_hat, R_hat, var_p = correlation_scale(C, Q, hl)
            weights = 1.0 / s_hat
        elif resolve_z > 0 or resolve_share is not None:
            C_p = project_covariance(C, variance_max=hl * hl)
            var_p = np.diagonal(C_p)
        ratio = None if var_p is None else var_p / np.maximum(np.diagonal(Q), 1e-300)
        resolved = math.nan if ratio is None else float(np.min(ratio))
        # resolve_z: the whitened step is not predicted (infinite) unless every variance is
        # resolved by the first look (docs/coinpress.md § Adaptive (correlation), § Adaptive
        # (PCA), "The resolve_z guard (task PA2)"); resolve_share (pca-loss ranking only): unless
        # the unresolved features carry at most that share of the projected first look's top-q
        # variance ("The share guard (task PA3)")
        if resolve_share is not None:
            share = unresolved_share(C_p, ratio < (resolve_z if resolve_z > 0 else SHARE_Z),
                                     k if n_components is None else min(int(n_components), k))
            unresolved = not share <= resolve_share
        else:
            unresolved = resolve_z > 0 and not resolved >= resolve_z
        del C_p, ratio
        # the largest loss a record in the box can lose to the clipping (public)
        cap = float(np.sum((weights * (hl + np.abs(m))) ** 2))
        mu_b = math.sqrt(bias_share) * mu_star
        sel_task = task if (select_units == "original") == (kind == "covariance") else \
            augmented_task(lo_l, hi_l, n, "covariance" if select_units == "original" else "pca",
                           n_components=n_components)[0]

        q = k if n_components is None else min(int(n_components), k)
        if ranking == "pca-loss" and q < k:
            # the first release's eigen-frame and its gaps, the noise's inflation removed, read
            # from the first release post-processed as the caller will post-process the last
            # one (post-processing of the first release and the public bounds;
            # docs/coinpress.md § Adaptive (PCA))
            C_frame = C if projection == "none" else project_feasible(
                C, lo_l, hi_l, "covariance", units=projection)
            # gap_inflation="projected-noise" (task PG): the gaps de-inflated against a public
            # parametric bootstrap of the first look through the same projection
            # (docs/coinpress.md § Adaptive (PCA), "Gaps against the projected noise (task PG)")
            project = None if gap_inflation == "pair" else (
                (lambda M: 0.5 * (M + M.T)) if projection == "none" else
                (lambda M: project_feasible(M, lo_l, hi_l, "covariance", units=projection)))
            U1, gaps = pca_frame(C_frame, V1, m, t, q, top_cap=noise_pairs == "normalised",
                                 floor=noise_pairs != "unfloored",
                                 spiked=pca_gaps == "spiked", project=project)
            del project
            # the default pairwise frame's own resolution (task PT; public: post-processing of
            # the first look), read and reported by pca_unresolved="step" only
            frame_res = (pca_frame_resolution(C_frame, V1, m, t, q)
                         if pca_unresolved != "rank" else None)
            if resolution_guard:
                # the frame's top variances and the first look's noise sd on them (public)
                lam_top = np.einsum("ai,ab,bi->i", U1[:, :q], C_frame, U1[:, :q])
                sd_top = np.sqrt(moments_pair_variance(V1, m, t, U1,
                                                       q)[1][:q])
            del C_frame
        else:
            ranking_used = "correlation" if ranking == "correlation" else "frobenius"

        pair_cp = [None]  # the whitened step's pair noise variances (pca-loss ranking)

        def predictions(mu_last, first_var=None):
            """(P_mom, P_cp noise part, the moments plan, the clipping bias' coefficient c and
            its saturation: the bias b adds at most min(c b², sat) to P_cp) for a last release
            at ``mu_last`` (and a first look of entry variances ``first_var``, default ``V1``)."""
            sig = whitened_noise_sd(r2, k, n, mu_last)
            plan = plan_second_moment(task, epsilon=gaussian_epsilon(delta, 1.0, mu_last),
                                      delta=delta, noise="auto")[0]
            var = combined_variance(V1 if first_var is None else first_var,
                                    plan.entry_variance)
            if ranking_used == "pca-loss":
                s_mom = moments_pair_variance(var, m, t, U1, q)[0]
                s_cp, d_cp = coinpress_pair_variance(S, U1, q, sig)
                s_mom, s_cp = s_mom[:, q:], s_cp[:, q:]
                f_mom, _ = pca_deficit(gaps, s_mom)
                f_cp, df_cp = pca_deficit(gaps, s_cp)
                if diagonal_noise:
                    # the whitened step's noise on the released variances too: a pair whose
                    # variances swap loses its gap, and the step's estimate is projected onto
                    # the PSD cone in the original units before the caller's projection, so a
                    # top direction pushed below 0 is removed (docs/coinpress.md § Adaptive
                    # (PCA), "The diagonal noise"). The moments branch is read after the
                    # caller's projection alone, which repairs such a variance (round 2).
                    f_cp = np.where(gaps > 0, pca_deficit_diagonal(
                        gaps, s_cp, d_cp[:q, None] + d_cp[None, q:]), 0.0)
                pair_cp[0] = s_cp
                # a deterministic B with ‖B‖_F <= b puts at most b²/2 on the pairs i < q <= j;
                # f is concave in s, so the bias adds at most (b²/2)·max ∂f/∂s
                if resolution_guard:
                    # a top variance the step's noise can push below 0 is removed by its PSD
                    # projection (original units): the worst case over what the first look
                    # allows (docs/coinpress.md § Adaptive (PCA), "The resolution guard")
                    f_guard = resolution_guard_loss(lam_top, sd_top,
                                                    np.sqrt(d_cp[:q]))
                    guard = float(f_guard.sum())
                else:
                    guard = 0.0
                # what the bias can still add: up to g/2 per pair through the off-diagonal
                # coupling; with the diagonal noise a pair can lose its whole gap
                room = np.maximum(gaps - f_cp, 0.0) if diagonal_noise else 0.5 * gaps - f_cp
                if noise_pairs != "sum":
                    # one unit vector per top direction (task PN; docs/coinpress.md § Adaptive
                    # (PCA), "The pairs of one direction (task PN)")
                    p_mom, p_cp = pca_deficit_normalised(gaps, f_mom), \
                        pca_deficit_normalised(gaps, f_cp)
                else:
                    p_mom, p_cp = float(f_mom.sum()), float(f_cp.sum())
                return (p_mom, math.inf if unresolved else p_cp + guard, plan,
                        0.5 * float(df_cp.max(initial=0.0)),
                        float(np.sum(room)))
            if ranking_used == "correlation":
                # resolve_z: the first-order losses need every variance resolved by the first
                # look; otherwise the whitened step is not predicted (the moments release),
                # or (unresolved_margin, task CG) its prediction is multiplied by the margin
                if unresolved and unresolved_margin is None:
                    p_cp = math.inf
                else:
                    p_cp = correlation_coinpress_loss(S, s_hat, R_hat, sig) * (
                        unresolved_margin if unresolved else 1.0)
                # correlation_bias (task CG): the bias term's coefficient (0: none, so no
                # statistic can change the choice and none is released)
                return (correlation_moments_loss(var, m, t, v_first, s_hat, R_hat),
                        p_cp, plan, float(correlation_bias), math.inf)
            p_cp = math.inf if unresolved else coinpress_noise_loss(S, weights, sig)
            if decision == "clipping-loss":  # the first version: the task's prior mean
                return float(np.sum(sel_task.loss_matrix * var)), p_cp, plan, 1.0, math.inf
            return moments_loss(var, m, weights, t, v_first), p_cp, plan, 1.0, math.inf

        v_first = V1[:k, k] / (t * t)  # the variance of m̂ (public)
        mu_rest = math.sqrt(max(mu_star ** 2 - mu1 ** 2, 0.0))
        mu_e = math.sqrt(far_share) * mu_star  # the far-tail statistic (0 without it)
        mu2 = math.sqrt(max(mu_rest ** 2 - mu_b ** 2 - mu_e ** 2, 0.0))
        if mu2 <= 0:  # pragma: no cover - the shares leave a positive remainder
            raise RuntimeError("no budget left for the last release")
        pred_mom, noise_cp, plan2, coef, sat = predictions(mu2)
        b_hat, sigma_b, mu_b_got = 0.0, 0.0, 0.0
        read_one = False  # bias="one-record": the released counts read one clipped record
        tail_b = None  # tail_bias="gap-shrink": the counts' upper reading of the clipped mass
        b_sd, level = 0.0, math.nan
        med_step = None  # loss_statistic="median": the choice it makes when the counts decide
        med = {}
        mu_e_got, far = 0.0, {}
        stat = "none"
        Y = None
        if probe and (decision == "clipping-loss" or (
                pred_mom - noise_cp > 0 and coef * cap * cap >= pred_mom - noise_cp
                and sat >= pred_mom - noise_cp)):
            return False  # the choice needs a statistic: draw Y₂
        if decision == "clipping-loss":
            # 2. the first version: the mean clipping loss, sensitivity = the box's reach / n
            Y, f = whitened_records(Xl, center, m, A, r2)
            Dx = (Xl - center - m) * weights
            lost = np.einsum("ij,ij->i", Dx, Dx) * (1.0 - f * f)
            del Dx
            b, sigma_b, mu_b_got = gdp_release(np.array([[float(np.mean(lost))]]), cap / n,
                                               mu_b, epsilon, delta, gen)
            b_hat = max(float(b[0, 0]), 0.0)
            del lost
            stat = "clipping-loss"
        else:
            gap = pred_mom - noise_cp
            if gap > 0 and coef * cap * cap >= gap and sat >= gap:
                # 2. the counts of records per bin of clipping loss around the decision
                # threshold √(gap/c) of b (sensitivity √2)
                edges = clipping_loss_bins(math.sqrt(gap / coef), cap)
                counts = clipping_loss_counts(Xl, center, m, A, r2, weights, edges)
                noisy, sigma_b, mu_b_got = gdp_release(counts, math.sqrt(2.0), mu_b, epsilon,
                                                       delta, gen)
                del counts
                # each bin read at its upper edge (an upper bound of its records' losses), so
                # the choice errs towards the moments release; "capped": every bin, each record
                # at most at the level L whose reading has noise sd <= threshold/COUNT_Z
                # (docs/coinpress.md § Adaptive, "Reading")
                b_hat, b_sd, level = read_counts(noisy, np.minimum(edges, cap), sigma_b, n,
                                                 math.sqrt(gap / coef), reading)
                kept = float(np.sum(np.where(noisy > COUNT_Z * sigma_b, noisy, 0.0)))
                if tail_shrink and ranking_used == "pca-loss":
                    # task HT: the same counts read without assuming the tail resolved
                    # (docs/coinpress.md § "Heavy tails: the clipping bias as gap shrinkage")
                    tail_b = tail_reading(noisy, np.minimum(edges, cap), sigma_b, n,
                                          math.sqrt(gap / coef))
                read_one = ONE_RECORD[0] <= kept < ONE_RECORD[1]
                if reading == "capped":
                    z_dec = DECISION_Z if decision_z is None else float(decision_z)
                    b_dec = max(b_hat + z_dec * b_sd, 0.0)
                else:
                    b_dec = b_hat
                stat = "counts"
                if loss_statistic == "median":
                    # task CV: the branches' predicted medians; the counts read again with the
                    # level set from the median threshold (docs/coinpress.md § Adaptive,
                    # "Ranking by the predicted median (task CV)")
                    V2_med, pred_med = plan2.entry_variance, pred_mom
                    if triangle_prediction:
                        # task AB: the moments branch predicted with the release it will draw
                        # (the dominating triangle where there is one; public: the plans);
                        # only this choice reads it, the bins above were placed from the plan's
                        # prediction (docs/coinpress.md § "The moments branch predicted as it
                        # is drawn (task AB)")
                        V2_med, pred_med = triangle_moments_prediction(
                            task, delta, plan2, V1, m, weights, t, v_first, pred_mom)
                    med_step, med = median_choice(
                        V1, V2_med, m, weights, t, v_first,
                        pred_med, noise_cp, S, r2, k, n, mu2, cap, noisy, edges, sigma_b,
                        DECISION_Z if decision_z is None else float(decision_z))
                if far_tail:
                    # 2b. the far tail (task AC2): the records' clipped excess over L, up to
                    # the public U (sensitivity U − L), read with the counts; the whitened step
                    # also needs the far reading below the threshold (docs/coinpress.md
                    # § Adaptive, "The far tail (task AC2)")
                    upper = far_level(level, n, mu_e, math.sqrt(gap / coef), cap)
                    if upper > level:
                        g = clipping_losses(Xl, center, m, A, r2, weights)
                        ex, sigma_e, mu_e_got = release_far_excess(g, level, upper, mu_e,
                                                                   epsilon, delta, gen)
                        del g
                        b_far, sd_far = far_reading(noisy, np.minimum(edges, cap), sigma_b, n,
                                                    level, ex, upper, sigma_e, z=COUNT_Z)
                        b_dec = max(b_dec, b_far)
                        far = {"far_excess": ex / n, "far_excess_sd": sigma_e / n,
                               "far_level": upper, "clipping_loss_far": b_far,
                               "clipping_loss_far_sd": sd_far}
                    else:
                        # L already reads every bin in full: nothing is released, μ_e goes to
                        # the last release (as μ_b when no statistic is needed)
                        mu2 = math.sqrt(mu2 ** 2 + mu_e ** 2)
                        pred_mom, noise_cp, plan2, coef, sat = predictions(mu2)
                        far = {"far_excess": math.nan, "far_excess_sd": 0.0,
                               "far_level": upper, "clipping_loss_far": math.nan,
                               "clipping_loss_far_sd": 0.0}
            else:
                # no statistic can change the choice: μ_b goes to the last release (one
                # Gaussian release at √(μ_b² + μ₂²) is a post-processing of two releases of the
                # same value at μ_b and μ₂, so the composition below is unchanged)
                mu2 = mu_rest
                pred_mom, noise_cp, plan2, coef, sat = predictions(mu2)
        if stat != "counts":
            b_dec = b_hat
        bias_cp = min(coef * b_dec * b_dec, sat)
        if ranking_used == "pca-loss" and bias != "bound" and bias_cp > 0:
            # the expected bias under the one-direction model, capped by the bound
            # (docs/coinpress.md § Adaptive (PCA), "The clipping bias, modelled"); "records"
            # (task HP): the direction drawn from the first look's model of the records, not
            # from the whitening S = Π(C) + margin·√(2k)·Q, whose noise margin puts the clipped
            # mass on the small directions (post-processing of the first look; "The bias
            # direction from the records (task HP)")
            S_dir = S if bias == "model" else project_covariance(C, variance_max=hl * hl)
            # "one-record" (task PB): where the counts read one clipped record, its far part
            # along an eigen-direction of the records' model that can hold it, typical in the
            # others ("One clipped record (task PB)")
            one = pca_bias_one_record(b_dec, S_dir, S, U1, q, gaps, pair_cp[0], n, weights) \
                if (bias == "one-record" and read_one) else None
            bias_cp = min(bias_cp, one if one is not None else
                          pca_bias_model(b_dec, S_dir, U1, q, gaps, pair_cp[0], weights))
        tail = {}
        if tail_b is not None:
            # task HT: the clipped mass taken from the frame's gaps (worst case per pair), at
            # most the room the bias has (post-processing of the counts and the first look)
            shrink = min(gap_shrink_bias(gaps, pair_cp[0], tail_b), sat)
            tail = {"tail_reading": tail_b, "tail_bias": shrink}
            bias_cp = max(bias_cp, shrink)
        elif tail_shrink:
            tail = {"tail_reading": math.nan, "tail_bias": 0.0}
        pred_cp = noise_cp + bias_cp
        # 3. the rest of the budget where the expected loss is smaller
        if branch is not None:
            take_step = branch == "coinpress"
        elif (ranking_used == "pca-loss" and pca_unresolved == "step"
              and frame_res[0] == 0):
            # task PT: the first look resolves no gap of the frame: the whitened step
            # (docs/coinpress.md § Adaptive (PCA), "Unresolved frames (task PT)")
            take_step = True
        elif med_step is not None:
            take_step = med_step
        else:
            take_step = pred_cp * step_mult < tie_ratio * pred_mom
        if probe:
            if take_step:
                return False
            # the moments branch's predicted loss in this look's frame: with this look (the
            # split's Y₁, μ₁/√2) and the rest of the budget, against the whole first look
            # (entry variances V₁/2, μ₁) and the rest (no statistic released in either)
            p_whole = predictions(math.sqrt(max(mu_star ** 2 - 2.0 * mu1 ** 2, 0.0)),
                                  first_var=0.5 * V1)[0]
            return bool(pred_mom < p_whole)
        refined = {}
        if take_step and refine:
            # task HC: one step or a refinement and the final step, by the ranking's noise loss
            # (post-processing of the first look; docs/coinpress.md § Adaptive, "The refined
            # step (task HC)")
            if ranking_used == "correlation":
                def step_loss(S_, sig_):
                    return correlation_coinpress_loss(S_, s_hat, R_hat, sig_)
            else:
                def step_loss(S_, sig_):
                    return coinpress_noise_loss(S_, weights, sig_)
            one, two = refine_prediction(C, S, m, hl, r2=r2, k=k, n=n, mu2=mu2, margin=margin,
                                         beta=beta, loss=step_loss,
                                         check=CHECK_SHARE if checked else 0.0)
            refined = {"refined": bool(two < one), "refine_one": one, "refine_two": two}
        elif refine:
            refined = {"refined": False, "refine_one": math.nan, "refine_two": math.nan}
        if take_step and refined.get("refined") and checked:
            # task HR: a clipping reading between the refinement and the final step
            # (docs/coinpress.md § Adaptive, "The checked refinement (task HR)")
            C, m, mu2_got, info = checked_step(
                Xl, center, m, A, A_inv, S, r2, hl, mu2, epsilon, delta, gen, Z, margin=margin,
                beta=beta, n=n, weights=weights, loss=step_loss,
                cap=cap, Y=Y,
                decision_z=DECISION_Z if decision_z is None else float(decision_z))
            refined.update(info)
            C = project_covariance(C, variance_max=hl * hl)
            choice, allocation, V = "coinpress", "coinpress", None
        elif take_step and refined.get("refined"):
            C, m, mu2_got = refined_step(Xl, center, m, A, A_inv, S, r2, hl, mu2, epsilon,
                                         delta, gen, Z, margin=margin, beta=beta, n=n, Y=Y)
            C = project_covariance(C, variance_max=hl * hl)
            choice, allocation, V = "coinpress", "coinpress", None
        elif take_step:
            Gy, sig2, mu2_got = whitened_release(Xl, center, m, A, r2, mu2, epsilon, delta, gen,
                                                 Z, Y=Y)
            C_step, m_step = unwhiten(Gy, r2, m, A_inv)
            if step_reuse:
                # task PC: the first look (C, m) averaged into the step, entry by entry with
                # public inverse-variance weights (post-processing; docs/coinpress.md § "The
                # first look reused by the step (task PC)")
                C_step, reuse_w = first_look_reuse(C_step, S, sig2, C, V1, m, t)
                reuse = {"first_look_weight": float(np.median(reuse_w))}
            C, m = C_step, m_step
            # as CoinPress: the feasible set in the original units first (post-processing)
            C = project_covariance(C, variance_max=hl * hl)
            choice, allocation, V = "coinpress", "coinpress", None
        else:
            if moments_triangle:
                # task CV (session 24): the same records' weighted triangle where it dominates
                # plan2 entry by entry, at plan2's (ε, δ); the choice above is unchanged
                eps2 = gaussian_epsilon(delta, 1.0, float(plan2.privacy.mu))
                plan2 = dominating_triangle_of(task, eps2, delta, plan2) or plan2
            G2, mu2_got = _moment_release(plan2, value, gen)
            G, V = average_releases(G1, V1, G2, plan2.entry_variance)
            m = G[:k, k] / t
            C = G[:k, :k] - np.outer(m, m)
            C = 0.5 * (C + C.T)
            choice, allocation = "moments", plan2.allocation
    del gen, Y, Z
    extra = {"resolved": resolved} if (ranking_used == "correlation" or resolve_z > 0
                                       or resolve_share is not None) else {}
    if resolve_share is not None:
        extra["unresolved_share"] = share
    if ranking_used == "pca-loss" and pca_unresolved != "rank":
        # the first look's resolution of the frame (post-processing of the first release); only
        # under the option, so the default's report is unchanged
        extra.update({"frame_pairs_resolved": frame_res[0], "frame_top_resolved": frame_res[1],
                      "unresolved_step": bool(frame_res[0] == 0)})
    if step_margin != "none":
        extra.update({"noise_level": rho_first, "step_margin": step_mult})
    if options.split_look:
        # the split look's path (public: chosen from Y₁); only under the option
        extra.update({"split_look": "skipped" if split_skip else "drawn"})
    extra.update(tail)
    if loss_statistic == "median":
        nan = math.nan
        extra.update({"loss_statistic": "median", "moments_median": nan,
                      "coinpress_median": nan, "median_threshold": nan,
                      "clipping_loss_median": nan, "clipping_loss_median_sd": nan,
                      "reading_level_median": nan, **med})
    mu_used = math.sqrt(mu1 ** 2 + mu_b_got ** 2 + mu2_got ** 2 + mu_e_got ** 2)
    if mu_used > mu_star * (1 + 1e-9):  # pragma: no cover - the shares are built to sum to μ*²
        raise RuntimeError("adaptive releases exceeded the budget")
    cov[np.ix_(live, live)] = C
    loc[live] = np.clip(center + m, lo_l, hi_l)
    return AdaptiveResult(cov, loc, guarantee, choice,
                          {"moments": float(pred_mom), "coinpress": float(pred_cp),
                           "clipping_loss": b_hat, "clipping_loss_sd": float(sigma_b),
                           "statistic": stat, "ranking": ranking_used,
                           "reading": reading if stat == "counts" else "none",
                           "clipping_loss_reading_sd": b_sd, "reading_level": level,
                           "coinpress_bias": float(bias_cp),
                           "bias": bias if ranking_used == "pca-loss" else "bound",
                           **far, **extra, **refined, **reuse},
                          allocation,
                          (mu1, mu_b_got, mu2_got) + ((mu_e_got,) if far_tail else ()), V,
                          m if choice == "moments" else None)
