"""Private release of a whole training set: Farokhi's Fisher-information-optimal noise.

* :mod:`.fisher` — Fisher information, the Cramér–Rao privacy level, the design objective, the
  optimal Gaussian noise (Theorem 2.4) and the Fisher-matched Laplace baseline.
* :mod:`.bounded` — optimal noise with a box support (Theorem 2.6 / Corollary 2.7).
* :mod:`.ldp` — the local-DP guarantee: the paper's Theorem 2.5 and the exact analytic ε.
* :mod:`.svm` — the paper's SVM with its multipliers and the correlated noise of Theorem 2.10
  (no DP guarantee).
* :mod:`.ridge` — regression on the released set (§2.4).
* :class:`FisherNoiseRelease` — the high-level API.

Derivations and the paper's errors: ``docs/release/fisher.md``.
"""

from .bounded import BoundedOptimalNoise, BoxGroundState, box_ground_state
from .fisher import (
    check_weights,
    crb,
    design_objective,
    gaussian_fisher,
    laplace_fisher,
    laplace_fisher_matched_scales,
    optimal_cost,
    optimal_gaussian_cov,
    privacy_measure,
    sample_fisher_matched_laplace,
    sample_optimal_gaussian,
    utility_lower_bound,
)
from .ldp import (
    crb_for_ldp,
    gaussian_ldp_delta,
    gaussian_ldp_epsilon,
    lambda_for_laplace_ldp,
    lambda_for_ldp,
    laplace_ldp_epsilon,
    norm_inf1,
    norm_inf2,
    paper_ldp_epsilon,
    whitened_sensitivity,
)
from .noise_release import DEFAULT_REPORT_DELTA, FisherNoiseRelease
from .ridge import fit_ridge, ridge_gradient, ridge_loss
from .svm import (
    CorrelatedSVMNoiseRelease,
    SVMFit,
    correlated_noise_projector,
    correlated_privacy_level,
    correlated_svm_noise,
    fit_svm,
    hinge_objective,
    svm_objective,
)

__all__ = [
    "BoundedOptimalNoise", "BoxGroundState", "box_ground_state",
    "check_weights", "crb", "design_objective", "gaussian_fisher", "laplace_fisher",
    "laplace_fisher_matched_scales", "optimal_cost", "optimal_gaussian_cov", "privacy_measure",
    "sample_fisher_matched_laplace", "sample_optimal_gaussian", "utility_lower_bound",
    "crb_for_ldp", "gaussian_ldp_delta", "gaussian_ldp_epsilon", "lambda_for_laplace_ldp", "lambda_for_ldp",
    "laplace_ldp_epsilon", "norm_inf1", "norm_inf2", "paper_ldp_epsilon", "whitened_sensitivity",
    "DEFAULT_REPORT_DELTA", "FisherNoiseRelease",
    "fit_ridge", "ridge_gradient", "ridge_loss",
    "CorrelatedSVMNoiseRelease", "SVMFit", "correlated_noise_projector",
    "correlated_privacy_level", "correlated_svm_noise", "fit_svm", "hinge_objective",
    "svm_objective",
]
