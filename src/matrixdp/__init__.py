"""matrixdp: differential privacy for matrix-valued data.

The public API is re-exported here; see the README for a tour and
``docs/`` for the derivation behind each mechanism.
"""

from . import calibration, errors, rng
from ._version import __version__
from .mechanisms import (
    GaussianMechanism,
    LaplaceMechanism,
    Mechanism,
    NoiseSummary,
    PrivacyGuarantee,
    Release,
)
from .release import FisherNoiseRelease

__all__ = [
    "__version__",
    "calibration",
    "errors",
    "rng",
    "GaussianMechanism",
    "LaplaceMechanism",
    "Mechanism",
    "NoiseSummary",
    "PrivacyGuarantee",
    "Release",
    "FisherNoiseRelease",
]
