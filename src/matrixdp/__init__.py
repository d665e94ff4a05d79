"""matrixdp: differential privacy for matrix-valued data.

The public API is re-exported here; see the README for a tour and
``docs/`` for the derivation behind each mechanism.
"""

from . import calibration, errors, queries, rng
from ._version import __version__
from .mechanisms import (
    GaussianMechanism,
    LaplaceMechanism,
    Mechanism,
    MVGMechanism,
    NoiseSummary,
    PrivacyGuarantee,
    Release,
)
from .mechanisms import R1SMGMechanism
from . import audit
from .synth import RONGauss
from .release import FisherNoiseRelease

__all__ = [
    "__version__",
    "calibration",
    "errors",
    "rng",
    "queries",
    "GaussianMechanism",
    "LaplaceMechanism",
    "MVGMechanism",
    "Mechanism",
    "NoiseSummary",
    "PrivacyGuarantee",
    "Release",
    "R1SMGMechanism",
    "audit",
    "RONGauss",
    "FisherNoiseRelease",
]

# MVG core: the matrix-variate Gaussian sampler and noise directions / precision allocation.
from . import directions, mvg  # noqa: E402

__all__ += ["directions", "mvg"]

# scikit-learn DP estimators with public bounds (docs/mvg.md, "When MVG noise wins").
from . import models  # noqa: E402
from .models import (DPCovariance, DPLinearRegression, DPMean, DPPCA, DPRidge,  # noqa: E402
                     DPStandardScaler)

__all__ += ["models", "DPCovariance", "DPPCA", "DPLinearRegression", "DPRidge", "DPMean",
            "DPStandardScaler"]
