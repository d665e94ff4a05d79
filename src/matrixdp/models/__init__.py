"""scikit-learn estimators on matrixdp's mechanisms (bounds are public; every fit is (ε, δ)-DP)."""

# DP estimators with public bounds, noise="auto" | "mvg" | "iid"
# (docs/derivations/when_mvg_wins.md)
from .covariance import DPCovariance
from .linear import DPLinearRegression, DPRidge
from .mean import DPMean, DPStandardScaler
from .pca import DPPCA

__all__ = ["DPCovariance", "DPPCA", "DPLinearRegression", "DPRidge", "DPMean", "DPStandardScaler"]
