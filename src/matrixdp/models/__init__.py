"""scikit-learn estimators built on matrixdp's mechanisms (bounds are public, fits are (ε, δ)-DP)."""

# DP estimators with public bounds and noise="auto" | "mvg" | "iid" (docs/mvg.md, "When MVG noise wins")
from .covariance import DPCovariance
from .linear import DPLinearRegression, DPRidge
from .mean import DPMean, DPStandardScaler
from .pca import DPPCA

__all__ = ["DPCovariance", "DPPCA", "DPLinearRegression", "DPRidge", "DPMean", "DPStandardScaler"]
