"""Fit one Gaussian (a DP mean and a DP second moment) to one group of records, under the
replace-one relation (n public; the paper's mechanism) or the add/remove relation (a DP count,
DP sums; the spec's strict variant, section 3.3 (c)).

RON-Gauss uses one group for the unsupervised and regression tasks and one group per public class
for classification. Derivations: ``docs/ron_gauss.md``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..mechanisms import LaplaceMechanism
from .covariance import (
    aug_cov_sensitivity,
    cov_sensitivity,
    make_symmetric_psd,
    noisy_second_moment,
)
from .preprocessing import centred_scatter, dp_mean_from_sum, unit_row_pass

__all__ = ["GroupFit", "GroupCalibration", "MeanRelease", "release_group_mean",
           "release_group_moment", "fit_group", "fit_group_replace_one", "fit_group_add_remove",
           "scatter_sensitivity_add_remove", "GROUP_CHANGE_FACTOR"]


@dataclass(frozen=True)
class GroupFit:
    """The released statistics of one group.

    ``mean_scale`` and ``cov_scale`` are the Laplace scales on the released mean and second
    moment (for add/remove: on the sums, divided by the released count); the sensitivities
    are those of the statistic the noise was added to.
    """

    mean: np.ndarray
    covariance_raw: np.ndarray
    covariance: np.ndarray
    mean_scale: float
    cov_scale: float
    mean_sensitivity: float
    cov_sensitivity: float
    count: float


def scatter_sensitivity_add_remove(p: int, label_bound: float | None = None) -> float:
    r"""Entry-wise L1 sensitivity of the scatter :math:`\sum_i u_i u_i^\top` under add/remove.

    Adding a row u changes the scatter by :math:`uu^\top`, whose L1 norm is
    :math:`\|u\|_1^2`: at most p for :math:`\|u\|_2 \le 1` in R^p (tight for
    :math:`u = \mathbf 1/\sqrt p`), and :math:`(\sqrt p + a)^2` for u = (x̃, y), |y| <= a.
    """
    if label_bound is None:
        return float(p)
    return (math.sqrt(p) + float(label_bound)) ** 2


#: How much one neighbouring change can move the counts, sums and scatters of the groups, as a
#: multiple of one record's contribution: 1 under add/remove (one record enters or leaves one
#: group); 2 under replace-one when the replaced record may change group (it leaves one group and
#: enters another: the class sizes stay private).
GROUP_CHANGE_FACTOR = {"add-remove": 1.0, "replace-one": 2.0}


@dataclass(frozen=True)
class GroupCalibration:
    """Public configuration of one group's two releases (its mean, then its second moment).

    ``sizes_private=False``: the group size n is public (replace-one, the paper's relation):
    the DP mean and the DP second moment are released with the n-scaled sensitivities of
    :func:`~matrixdp.synth.preprocessing.mean_sensitivity` and
    :func:`~matrixdp.synth.covariance.cov_sensitivity` (or
    :func:`~matrixdp.synth.covariance.aug_cov_sensitivity` with a ``label_bound``).
    ``sizes_private=True``: a DP count, a DP sum and a DP scatter, divided as post-processing,
    with the sensitivities of :func:`fit_group_add_remove` under ``relation``.

    The in-memory fit (:func:`fit_group`) and the blockwise Dask fit
    (:mod:`matrixdp.synth._dask`) compute the reduced statistics (n, Σ x̂_i, Σ u_i u_iᵀ) in
    their own ways and hand them to :func:`release_group_mean` and
    :func:`release_group_moment`, so both use this one calibration and draw the same noise
    from the same generator.
    """

    epsilon_mean: float
    epsilon_cov: float
    epsilon_counts: float = 0.0
    relation: str = "replace-one"
    sizes_private: bool = False
    label_bound: float | None = None
    mode: str = "corrected"
    noise: str = "full"
    psd: str = "clip"
    numerics: str = "float"


@dataclass(frozen=True)
class MeanRelease:
    """The first release of a group: its DP mean, and its size (n if public, else a DP count).

    ``scale`` is the Laplace scale on the mean (for private sizes: on the sum, divided by the
    released count); ``sensitivity`` that of the statistic the noise was added to.
    """

    mean: np.ndarray
    count: float
    scale: float
    sensitivity: float


def release_group_mean(cal: GroupCalibration, n: int, total: np.ndarray, rng) -> MeanRelease:
    """Release a group's mean from its reduced statistics: ``n`` records whose unit rows sum
    to ``total`` (private values; the noise is drawn here, from ``rng``).

    Public size: ``μ = total/n + Lap(2√m/(n ε_μ))`` (:func:`~matrixdp.synth.preprocessing.
    dp_mean_from_sum`). Private size: ``ñ = n + Lap(f/ε_n)``, then
    ``μ = (total + Lap(f√m/ε_μ)) / max(ñ, 1)``, f from :data:`GROUP_CHANGE_FACTOR`.

    ``rng``: ``None`` (default) draws from the per-process secure stream; a seed or a Generator
    makes the draws reproducible, so a seeded release is replayable by anyone who knows the seed
    (they regenerate the noise and subtract it).
    """
    total = np.asarray(total, dtype=np.float64)
    if not cal.sizes_private:
        mu, mech = dp_mean_from_sum(total, int(n), cal.epsilon_mean, rng, mode=cal.mode,
                                    numerics=cal.numerics)
        return MeanRelease(mu, float(n), mech.scale, mech.sensitivity)
    factor = GROUP_CHANGE_FACTOR[cal.relation]
    count_mech = LaplaceMechanism(epsilon=cal.epsilon_counts, sensitivity=factor,
                                  neighbouring=cal.relation, numerics=cal.numerics)
    count = float(count_mech.release(float(n), rng=rng).value)
    denom = max(count, 1.0)
    sum_mech = LaplaceMechanism(epsilon=cal.epsilon_mean,
                                sensitivity=factor * math.sqrt(total.shape[0]),
                                neighbouring=cal.relation, numerics=cal.numerics)
    mu = np.asarray(sum_mech.release(total, rng=rng).value) / denom
    return MeanRelease(mu, count, sum_mech.scale / denom, sum_mech.sensitivity)


def release_group_moment(cal: GroupCalibration, first: MeanRelease, scatter: np.ndarray,
                         rng) -> GroupFit:
    """Release a group's second moment from its scatter ``Σ u_i u_iᵀ`` (private; u_i the centred,
    re-normalised, projected rows, with the centred label appended when ``cal.label_bound`` is
    set), after :func:`release_group_mean` gave ``first``.

    Public size: ``scatter/n`` + Laplace noise of the replace-one sensitivity. Private size:
    ``(scatter + Lap(f·S/ε_Σ)) / max(ñ, 1)`` with S from :func:`scatter_sensitivity_add_remove`.

    ``rng``: ``None`` (default) draws from the per-process secure stream; a seed or a Generator
    makes the draws reproducible, so a seeded release is replayable by anyone who knows the seed
    (they regenerate the noise and subtract it).
    """
    scatter = np.asarray(scatter, dtype=np.float64)
    p = scatter.shape[0] - (0 if cal.label_bound is None else 1)
    if not cal.sizes_private:
        n = int(first.count)
        sens = (cov_sensitivity(p, n, cal.mode, cal.noise) if cal.label_bound is None
                else aug_cov_sensitivity(p, cal.label_bound, n, cal.mode, cal.noise))
        raw, mech = noisy_second_moment(scatter / n, epsilon=cal.epsilon_cov, sensitivity=sens,
                                        noise=cal.noise, rng=rng, numerics=cal.numerics)
        return GroupFit(first.mean, raw, make_symmetric_psd(raw, cal.psd), first.scale,
                        mech.scale, first.sensitivity, sens, first.count)
    sens = GROUP_CHANGE_FACTOR[cal.relation] * scatter_sensitivity_add_remove(p, cal.label_bound)
    raw_sum, mech = noisy_second_moment(scatter, epsilon=cal.epsilon_cov, sensitivity=sens,
                                        noise="full", rng=rng, numerics=cal.numerics)
    denom = max(first.count, 1.0)
    raw = raw_sum / denom
    return GroupFit(first.mean, raw, make_symmetric_psd(raw, cal.psd), first.scale,
                    mech.scale / denom, first.sensitivity, sens, first.count)


def fit_group(cal: GroupCalibration, X, W, *, labels=None, rng, stats=None) -> GroupFit:
    """Fit one in-memory group: Algorithm 1's statistics in one blocked pass, the mean's
    release, the scatter of the centred projection (``centred_scatter``: a second blocked pass
    for ``X @ mu``), the second moment's release.

    ``stats``: ``unit_row_pass(X, W)`` already computed (RON-Gauss runs it before charging, so
    that it also checks the records' finiteness without spending anything).

    ``labels`` (regression): the checked labels, centred at the public range's middle, appended
    to the projected rows (``cal.label_bound`` bounds them).

    ``rng``: ``None`` (default) draws from the per-process secure stream; a seed or a Generator
    makes the draws reproducible, so a seeded release is replayable by anyone who knows the seed
    (they regenerate the noise and subtract it).
    """
    # Algorithm 1 and the projection in one blocked pass plus X @ mu (see centred_projection);
    # equal to data_preprocessing(X, ...)[0] @ W up to summation order.
    r, total, Y = unit_row_pass(X, W) if stats is None else stats
    first = release_group_mean(cal, X.shape[0], total, rng)
    scatter = centred_scatter(X, W, r, Y, first.mean, labels)
    return release_group_moment(cal, first, scatter, rng)


def fit_group_replace_one(X, W, *, labels=None, label_bound=None, epsilon_mean, epsilon_cov,
                          mode="corrected", noise="full", psd="clip", rng,
                          numerics="float") -> GroupFit:
    """Algorithm 1 + the DP second moment for n public records (the paper's relation).

    ``rng``: ``None`` (default) draws from the per-process secure stream; a seed or a Generator
    makes the draws reproducible, so a seeded release is replayable by anyone who knows the seed
    (they regenerate the noise and subtract it).
    """
    cal = GroupCalibration(epsilon_mean=epsilon_mean, epsilon_cov=epsilon_cov,
                           label_bound=label_bound if labels is not None else None, mode=mode,
                           noise=noise, psd=psd, numerics=numerics)
    return fit_group(cal, X, W, labels=labels, rng=rng)


def fit_group_add_remove(X, W, *, labels=None, label_bound=None, epsilon_counts, epsilon_mean,
                         epsilon_cov, psd="clip", rng, relation="add-remove",
                         numerics="float") -> GroupFit:
    r"""DP count, DP sum of unit rows, DP scatter; ratios as post-processing (group size private).

    With ``relation="add-remove"`` (the strict variant):

    * count ñ = n + Lap(1/ε_n) (sensitivity 1);
    * mean μ = (Σ x_i + Lap(√m/ε_μ)^m) / max(ñ, 1) (a unit row has L1 norm <= √m);
    * second moment (Σ x̃ x̃^T + Lap(S/ε_Σ)^{p×p}) / max(ñ, 1), with S from
      :func:`scatter_sensitivity_add_remove`.

    With ``relation="replace-one"`` (one record replaced by another that may belong to another
    group, as for RON-Gauss classes with private class sizes) every sensitivity doubles: over
    the vector of all groups' statistics, the replaced record leaves one group and its
    replacement enters another (counts 2, sums 2√m, scatters 2S), and a replacement within a
    group moves it by at most as much (‖x − x′‖₁ ≤ 2√m, ‖uuᵀ − u′u′ᵀ‖₁ ≤ √2·p ≤ 2p). Applied to
    every group with the same budgets, the releases are jointly (ε_n + ε_μ + ε_Σ)-DP.

    Works for an empty group (n = 0): nothing here depends on n being public.

    ``rng``: ``None`` (default) draws from the per-process secure stream; a seed or a Generator
    makes the draws reproducible, so a seeded release is replayable by anyone who knows the seed
    (they regenerate the noise and subtract it).
    """
    cal = GroupCalibration(epsilon_mean=epsilon_mean, epsilon_cov=epsilon_cov,
                           epsilon_counts=epsilon_counts, relation=relation, sizes_private=True,
                           label_bound=label_bound if labels is not None else None, psd=psd,
                           numerics=numerics)
    return fit_group(cal, X, W, labels=labels, rng=rng)
