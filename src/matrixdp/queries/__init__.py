"""Queries that know their public bounds, and so their sensitivity structure.

Public bounds -> sensitivities, sets of neighbouring differences, worst-case witnesses:

* :mod:`.base` — :class:`SensitivityStructure` (the interface) and :class:`FrobeniusBall`.
* :mod:`.records` — :class:`IdentityQuery` (release ``X``) and :class:`CovarianceQuery`
  (``(X - c)ᵀ(X - c)/n``) over records in a public box or ball.
* :mod:`.kernel` — :class:`KernelQuery` (a bounded kernel's Gram matrix).
* :mod:`.geometry` — the supremum of the MVG Mahalanobis shift over those differences.
"""

from .base import FrobeniusBall, SensitivityStructure, as_structure, is_structure
from .kernel import KernelQuery
from .records import CovarianceQuery, IdentityQuery

__all__ = ["SensitivityStructure", "FrobeniusBall", "IdentityQuery", "CovarianceQuery",
           "KernelQuery", "as_structure", "is_structure"]
