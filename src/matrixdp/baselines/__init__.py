"""Baseline mechanisms the papers compare against (MVG spec §8.4), reusable outside the experiments.

* :class:`ClassicGaussianBaseline` / :func:`dwork_roth_sigma` — i.i.d. Gaussian with the
  Dwork–Roth σ, accepted at ε ≥ 1 only when the exact profile confirms it.
* :func:`analyze_gauss`, :func:`symmetric_release`, :func:`covariance_upper_sensitivity`,
  :func:`augmented_upper_sensitivity` — symmetric noise on a covariance (Dwork, Talwar, Thakurta,
  Zhang 2014).
* :func:`ppca_top_component`, :func:`sample_bingham` — the exponential mechanism for the
  first principal direction (Chaudhuri, Sarwate, Sinha 2012).
* :func:`mod_sulq` — Gaussian noise on the second-moment matrix, the paper's β checked against
  the exact Gaussian profile (Chaudhuri, Sarwate, Sinha 2013).
* :func:`wishart_pca`, :func:`sample_wishart` — the Wishart mechanism (Jiang, Xie, Zhang 2016);
  its pure ε-DP claim is refuted, so it needs ``allow_unsafe=True``.
* :func:`ppca_components`, :func:`sample_matrix_bingham_gibbs` — PPCA for k components by
  Hoff's Gibbs sampler (approximate guarantee).
* :func:`blocki_jl_covariance` — the JL transform as a private covariance sketch (Blocki,
  Blum, Datta, Sheffet 2012).
* :class:`HierarchicalHistogramMechanism` — H_b, the hierarchical histogram of a 2-D grid of
  counts with constrained inference (Qardaji, Yang, Li 2013; Hay et al. 2010), pure ε-DP.
* :class:`DAWAMechanism` — DAWA (Li, Hay, Miklau, Wang 2014) for a 2-D grid of counts and the
  identity workload: private dyadic partition in Hilbert order, then noisy bucket counts.
* :func:`uniform_predictions`, :func:`random_unit_vector`, :func:`random_orthonormal_basis` —
  random-guess floors.

The functions above take a dataset. The law of what each releases, as a function of its
query answer, is a :class:`~matrixdp.mechanisms.base.Mechanism` subclass, which is what the
auditor audits (same draws for the same seed): :class:`SymmetricNoiseMechanism` (MOD-SULQ,
Analyze Gauss, ``symmetric_release``, DP-SVD's noisy Gram matrix), :class:`WishartMechanism`,
:class:`JLSketchMechanism`, :class:`PPCAMechanism`, :class:`PPCAKMechanism`.

i.i.d. Laplace is :class:`matrixdp.LaplaceMechanism`; the analytic Gaussian is
:class:`matrixdp.GaussianMechanism`. Baselines the paper names but does not specify well
enough to reproduce are listed in :data:`NOT_REPRODUCED` with the reason.
"""

from .dawa import DAWAMechanism, dyadic_deviations, dyadic_partition, hilbert_order
from .hierarchical import (HierarchicalHistogramMechanism, consistent_leaves, hb_branching,
                           hb_leaf_variance, hb_levels, level_counts)
from .iid import ClassicGaussianBaseline, dwork_roth_sigma
from .jl import JLCovariance, JLSketchMechanism, blocki_jl_covariance, blocki_w
from .mod_sulq import mod_sulq, mod_sulq_beta, mod_sulq_sigma, unit_ball_upper_sensitivity
from .pca_release import PCARelease, ProjectorMechanism, top_eigenvectors, unit_ball_second_moment
from .ppca import PPCAMechanism, ppca_top_component, sample_bingham
from .ppca_k import PPCAKMechanism, ppca_components, sample_matrix_bingham_gibbs
from .random_guess import random_orthonormal_basis, random_unit_vector, uniform_predictions
from .symmetric import (SymmetricNoiseMechanism, analyze_gauss, augmented_upper_sensitivity,
                        covariance_upper_sensitivity, symmetric_release)
from .wishart import (WishartMechanism, sample_wishart, wishart_pca, wishart_scale,
                      wishart_support_failure)

#: Baselines of the MVG paper that matrixdp does not reproduce, and why.
NOT_REPRODUCED: dict[str, str] = {
    "jl-upadhyay": (
        "JL transform (Upadhyay 2014, 'Circulant matrices and differential privacy'), the MVG "
        "paper's JL row in Tables 3 and 5: the paper gives no parameters, and the mechanism "
        "(structured circulant projections for queries whose singular values exceed a "
        "threshold) cannot be pinned down from the citation alone (spec mvg.md §8.4)."),
    "exponential-blr": (
        "Exponential mechanism of Blum, Ligett, Roth (2013), the 'Exponential' row of Tables 3 "
        "and 5: it samples a synthetic database from a finite net with probability "
        "∝ exp(−ε·n·error/2); how the paper applied it to real-valued identity queries (the "
        "net, the error measure) is unspecified, so any implementation would be a guess "
        "(spec mvg.md §8.4: low fidelity)."),
}

__all__ = [
    "ClassicGaussianBaseline",
    "DAWAMechanism",
    "HierarchicalHistogramMechanism",
    "JLCovariance",
    "JLSketchMechanism",
    "PPCAKMechanism",
    "PPCAMechanism",
    "ProjectorMechanism",
    "SymmetricNoiseMechanism",
    "WishartMechanism",
    "NOT_REPRODUCED",
    "PCARelease",
    "analyze_gauss",
    "augmented_upper_sensitivity",
    "blocki_jl_covariance",
    "blocki_w",
    "consistent_leaves",
    "covariance_upper_sensitivity",
    "dwork_roth_sigma",
    "dyadic_deviations",
    "dyadic_partition",
    "hb_branching",
    "hb_leaf_variance",
    "hb_levels",
    "hilbert_order",
    "level_counts",
    "mod_sulq",
    "mod_sulq_beta",
    "mod_sulq_sigma",
    "ppca_components",
    "ppca_top_component",
    "random_orthonormal_basis",
    "random_unit_vector",
    "sample_bingham",
    "sample_matrix_bingham_gibbs",
    "sample_wishart",
    "symmetric_release",
    "top_eigenvectors",
    "uniform_predictions",
    "unit_ball_second_moment",
    "unit_ball_upper_sensitivity",
    "wishart_pca",
    "wishart_scale",
    "wishart_support_failure",
]
