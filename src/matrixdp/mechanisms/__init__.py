"""Noise mechanisms: each is pure configuration plus ``release(value, rng=None) -> Release``.

* :mod:`.base` — :class:`Mechanism`, :class:`Release`, :class:`PrivacyGuarantee`,
  :class:`NoiseSummary` and the :class:`Relation` enum of neighbouring relations.
* :mod:`.laplace`, :mod:`.gaussian` — the scalar/vector workhorses.
* :mod:`.r1smg` — rank-1 singular multivariate Gaussian (gated unsafe).
* :mod:`.mvg` (+ :mod:`.mvg_sampler`) — matrix-variate Gaussian noise.
* :mod:`.exponential` — the exponential mechanism over public candidates (DP quantiles).
* :mod:`.fisher` (+ :mod:`.fisher_bounded`) — Farokhi's whole-table Fisher-optimal noise.
"""

from .base import Mechanism, NoiseSummary, PrivacyGuarantee, Relation, Release
from .exponential import ExponentialMechanism
from .fisher import FisherNoiseMechanism
from .gaussian import GaussianMechanism
from .laplace import LaplaceMechanism
from .mvg import MVGMechanism
from .r1smg import R1SMGMechanism

__all__ = [
    "Mechanism",
    "NoiseSummary",
    "PrivacyGuarantee",
    "Relation",
    "Release",
    "ExponentialMechanism",
    "FisherNoiseMechanism",
    "GaussianMechanism",
    "LaplaceMechanism",
    "MVGMechanism",
    "R1SMGMechanism",
]
