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
from .preprocessing import centred_projection, dp_mean_from_sum, unit_row_pass

__all__ = ["GroupFit", "fit_group_replace_one", "fit_group_add_remove",
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


def _augment(Xt, labels):
    return Xt if labels is None else np.hstack([Xt, labels[:, None]])


def fit_group_replace_one(X, W, *, labels=None, label_bound=None, epsilon_mean, epsilon_cov,
                          mode="corrected", noise="full", psd="clip", rng,
                          numerics="float") -> GroupFit:
    """Algorithm 1 + the DP second moment for n public records (the paper's relation).

    ``rng``: ``None`` (default) draws from the per-process secure stream; a seed or a Generator
    makes the draws reproducible, so a seeded release is replayable by anyone who knows the seed
    (they regenerate the noise and subtract it).
    """
    n = X.shape[0]
    p = W.shape[1]
    # Algorithm 1 and the projection in one blocked pass plus X @ mu (see centred_projection);
    # equal to data_preprocessing(X, ...)[0] @ W up to summation order.
    r, total, Y = unit_row_pass(X, W)
    mu_dp, mean_mech = dp_mean_from_sum(total, n, epsilon_mean, rng, mode=mode,
                                         numerics=numerics)
    Xt = _augment(centred_projection(X, W, r, Y, mu_dp), labels)
    sens = (cov_sensitivity(p, n, mode, noise) if labels is None
            else aug_cov_sensitivity(p, label_bound, n, mode, noise))
    raw, cov_mech = noisy_second_moment(Xt.T @ Xt / n, epsilon=epsilon_cov, sensitivity=sens,
                                        noise=noise, rng=rng, numerics=numerics)
    return GroupFit(mu_dp, raw, make_symmetric_psd(raw, psd), mean_mech.scale, cov_mech.scale,
                    mean_mech.sensitivity, sens, float(n))


#: How much one neighbouring change can move the counts, sums and scatters of the groups, as a
#: multiple of one record's contribution: 1 under add/remove (one record enters or leaves one
#: group); 2 under replace-one when the replaced record may change group (it leaves one group and
#: enters another: the class sizes stay private).
GROUP_CHANGE_FACTOR = {"add-remove": 1.0, "replace-one": 2.0}


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
    factor = GROUP_CHANGE_FACTOR[relation]
    n, m = X.shape
    p = W.shape[1]
    count_mech = LaplaceMechanism(epsilon=epsilon_counts, sensitivity=factor,
                                  neighbouring=relation, numerics=numerics)
    count = float(count_mech.release(float(n), rng=rng).value)
    denom = max(count, 1.0)
    r, total, Y = unit_row_pass(X, W)
    sum_mech = LaplaceMechanism(epsilon=epsilon_mean, sensitivity=factor * math.sqrt(m),
                                neighbouring=relation, numerics=numerics)
    mu_dp = np.asarray(sum_mech.release(total, rng=rng).value) / denom
    Xt = _augment(centred_projection(X, W, r, Y, mu_dp), labels)
    sens = factor * scatter_sensitivity_add_remove(p, label_bound if labels is not None else None)
    raw_sum, cov_mech = noisy_second_moment(Xt.T @ Xt, epsilon=epsilon_cov, sensitivity=sens,
                                            noise="full", rng=rng, numerics=numerics)
    raw = raw_sum / denom
    return GroupFit(mu_dp, raw, make_symmetric_psd(raw, psd), sum_mech.scale / denom,
                    cov_mech.scale / denom, sum_mech.sensitivity, sens, count)
