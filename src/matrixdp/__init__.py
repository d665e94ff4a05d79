"""matrixdp: differential privacy for matrix-valued data.

The classes and functions users call are importable from here (loaded on first access); the subpackages
(``calibration``, ``queries``, ``mechanisms``, ``accounting``, ``models``, ``synth``,
``baselines``, ``audit``, ``datasets``, ``cli``) and the bottom modules (``errors``, ``rng``) load
on first attribute access, so ``import matrixdp; matrixdp.datasets.load_adult``
works without importing everything up front. See ``docs/index.md`` for the layout
and the README for a tour.
"""

from __future__ import annotations

import importlib

from ._version import __version__

#: Subpackages and modules loaded lazily on first access (``matrixdp.<name>``).
SUBMODULES = ("accounting", "audit", "baselines", "calibration", "cli", "datasets", "errors",
              "mechanisms", "models", "queries", "rng", "synth")

#: Public names of subpackages, loaded lazily: ``matrixdp.RONGauss`` imports ``matrixdp.synth``.
#: The mechanisms and queries load on first access too (issue #27: ``import matrixdp`` itself
#: imports neither numpy nor any subpackage; ``matrixdp.GaussianMechanism`` loads what it needs).
_LAZY_NAMES = {
    "FisherNoiseMechanism": "mechanisms",
    "GaussianMechanism": "mechanisms",
    "LaplaceMechanism": "mechanisms",
    "Mechanism": "mechanisms",
    "MVGMechanism": "mechanisms",
    "NoiseSummary": "mechanisms",
    "PrivacyGuarantee": "mechanisms",
    "R1SMGMechanism": "mechanisms",
    "Relation": "mechanisms",
    "Release": "mechanisms",
    "CovarianceQuery": "queries",
    "FrobeniusBall": "queries",
    "IdentityQuery": "queries",
    "KernelQuery": "queries",
    "RONGauss": "synth",
    "DPDirectionsMVG": "models",
    "Accountant": "accounting",
    "Ledger": "accounting",
    "audit_mechanism": "audit",
    "exact_delta": "audit",
    # scikit-learn DP estimators with public bounds (docs/when_mvg_wins.md)
    "DPCovariance": "models",
    "DPPCA": "models",
    "DPLinearRegression": "models",
    "DPRidge": "models",
    "DPMean": "models",
    "DPStandardScaler": "models",
}

__all__ = [
    "__version__",
    "Accountant",
    "Ledger",
    "CovarianceQuery",
    "DPCovariance",
    "DPDirectionsMVG",
    "DPLinearRegression",
    "DPMean",
    "DPPCA",
    "DPRidge",
    "DPStandardScaler",
    "FisherNoiseMechanism",
    "FrobeniusBall",
    "GaussianMechanism",
    "IdentityQuery",
    "KernelQuery",
    "LaplaceMechanism",
    "MVGMechanism",
    "Mechanism",
    "NoiseSummary",
    "PrivacyGuarantee",
    "R1SMGMechanism",
    "RONGauss",
    "Relation",
    "Release",
    "audit_mechanism",
    "exact_delta",
    *SUBMODULES,
]


def __getattr__(name: str):
    if name in SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    if name in _LAZY_NAMES:
        module = importlib.import_module(f".{_LAZY_NAMES[name]}", __name__)
        return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
