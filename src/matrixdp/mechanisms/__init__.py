"""Noise mechanisms: each is pure configuration plus ``release(value, rng=None) -> Release``."""

from .base import NEIGHBOURING_RELATIONS, Mechanism, NoiseSummary, PrivacyGuarantee, Release
from .gaussian import GaussianMechanism
from .laplace import LaplaceMechanism
from .mvg import MVGMechanism
from .r1smg import R1SMGMechanism

__all__ = [
    "NEIGHBOURING_RELATIONS",
    "Mechanism",
    "NoiseSummary",
    "PrivacyGuarantee",
    "Release",
    "GaussianMechanism",
    "LaplaceMechanism",
    "MVGMechanism",
    "R1SMGMechanism",
]
