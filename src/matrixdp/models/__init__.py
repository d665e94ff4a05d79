"""Estimators built on mechanisms: DP directions for MVG noise, and Farokhi's models on a released set.

* :mod:`.dp_directions` — :func:`dp_covariance_eigen` / :func:`dp_svd_directions` (SuLQ DP
  eigen-decomposition of ``Xᵀ X``) and :class:`DPDirectionsMVG` (DP directions drawn in ``fit``,
  then MVG noise along them).
* :mod:`.svm` — the paper's SVM with its multipliers and the correlated noise of Theorem 2.10
  (no DP guarantee).
* :mod:`.ridge` — regression on the released set (§2.4).

The whole-table Fisher noise itself is :class:`matrixdp.mechanisms.fisher.FisherNoiseMechanism`;
its math is in :mod:`matrixdp.calibration.fisher` and :mod:`matrixdp.calibration.fisher_ldp`.
"""

from .dp_directions import (
    DPDirectionsMVG,
    DPEigenDecomposition,
    dp_covariance_eigen,
    dp_svd_directions,
    gram_sensitivity,
)
from .ridge import fit_ridge, ridge_gradient, ridge_loss
from .svm import (
    CorrelatedSVMNoise,
    SVMFit,
    correlated_noise_projector,
    correlated_privacy_level,
    correlated_svm_noise,
    fit_svm,
    hinge_objective,
    svm_objective,
)

__all__ = [
    "DPDirectionsMVG", "DPEigenDecomposition", "dp_covariance_eigen", "dp_svd_directions",
    "gram_sensitivity",
    "fit_ridge", "ridge_gradient", "ridge_loss",
    "CorrelatedSVMNoise", "SVMFit", "correlated_noise_projector",
    "correlated_privacy_level", "correlated_svm_noise", "fit_svm", "hinge_objective",
    "svm_objective",
]

# DP estimators with public bounds, noise="auto" | "mvg" | "iid"
# (docs/when_mvg_wins.md)
from .covariance import DPCovariance
from .linear import DPLinearRegression, DPRidge
from .adassp import AdaSSPRegression
from .boosted_adassp import BoostedAdaSSPRegression
from .mean import DPMean, DPStandardScaler
from .pca import DPPCA
# the estimators' research knobs, passed as experimental= (docs/experimental.md)
from .experimental import CovarianceOptions, PCAOptions, RegressionOptions

__all__ += ["DPCovariance", "DPPCA", "DPLinearRegression", "DPRidge", "AdaSSPRegression",
            "BoostedAdaSSPRegression", "DPMean", "DPStandardScaler", "RegressionOptions",
            "CovarianceOptions", "PCAOptions"]
