"""The kernel (Gram) matrix query of the MVG paper's Theorem 4 (Example 2)."""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_finite_array, check_in_bounds, check_positive
from ..calibration.mvg_exact import DirectionCosts, ShiftBound
from ..errors import InvalidParameterError, InvalidShapeError
from .base import SensitivityStructure, Witnesses, check_count
from .geometry import frobenius_ball_shift

__all__ = ["KernelQuery"]


class KernelQuery(SensitivityStructure):
    r"""Kernel (Gram) matrix ``K_ij = k(x_i, x_j)`` of ``n`` records with a public bound ``|k| <= c``.

    Replacing record ``k`` changes row and column ``k`` only: ``2n - 1`` entries,
    each by at most ``2c``, so ``s₂ <= c sqrt(8n - 4)`` and ``γ = sup ‖K‖_F <= n c``
    (the paper's Theorem 4, Example 2; both are upper bounds, since a PSD kernel
    cannot always swing every entry by ``2c``). ``K`` is symmetric, and PSD for a
    positive-definite kernel (``psd=True``, required by Theorem 3).

    Parameters
    ----------
    kernel : callable
        ``kernel(X) -> (n, n)`` array for records ``X`` of shape ``(n, n_features)``.
    kernel_bound : float
        Public ``c`` with ``|k(x, x')| <= c`` for all records.
    n_samples : int
        Public number of records ``n``.
    psd : bool
        Whether the kernel is positive semi-definite (default True).

    References
    ----------
    .. [1] T. Chanyaswad et al., arXiv:1802.10077, Sec. 4.4, Example 2.
    .. [2] matrixdp, ``docs/mvg.md``.
    """

    symmetric = True
    sensitivity_l2_exact = False

    def __init__(self, kernel, *, kernel_bound, n_samples, psd: bool = True):
        if not callable(kernel):
            raise InvalidParameterError("kernel", "must be callable: kernel(X) -> (n, n) array")
        self.kernel = kernel
        self.kernel_bound = check_positive(kernel_bound, "kernel_bound")
        self.n_samples = check_count(n_samples, "n_samples")
        if self.n_samples is None:
            raise InvalidParameterError("n_samples", "is required")
        self.psd = bool(psd)

    @property
    def shape(self) -> tuple:
        return (self.n_samples, self.n_samples)

    @property
    def sensitivity_l2(self) -> float:
        return self.kernel_bound * math.sqrt(8.0 * self.n_samples - 4.0)

    @property
    def gamma(self) -> float:
        return self.n_samples * self.kernel_bound

    def compute(self, X) -> np.ndarray:
        """``kernel(X)``, checked: shape ``(n, n)``, finite, symmetric, ``|K| <= c``."""
        x = check_finite_array(X, "X", ndim=2)
        if x.shape[0] != self.n_samples:
            raise InvalidShapeError("X", f"must have n_samples={self.n_samples} rows (the public "
                                         "count the query was built for)")
        k = check_finite_array(self.kernel(x), "kernel(X)", ndim=2, shape=self.shape)
        check_in_bounds(k, -self.kernel_bound, self.kernel_bound, "kernel(X)")
        return 0.5 * (k + k.T)

    def shift_bound(self, row, col) -> ShiftBound:
        """Upper bound ``s₂² λ_max(Σ⁻¹) λ_max(Ψ⁻¹)`` (the Frobenius ball holding every difference)."""
        ball = frobenius_ball_shift(self.sensitivity_l2, row, col)
        return ShiftBound(ball.value_sq, False, 0.0, ball.witness, "kernel-frobenius-bound")

    def direction_costs(self, row_dirs=None, col_dirs=None, *, axis=None, equimodal=False,
                        shape=None) -> DirectionCosts:
        dim = self.n_samples
        s2 = self.sensitivity_l2
        if equimodal:
            return DirectionCosts(np.full(dim, s2), power=2, exact=False,
                                  description="kernel query (Frobenius bound), Psi = Sigma")
        return DirectionCosts(np.full(dim, s2 ** 2), exact=False,
                              description="kernel query (Frobenius bound)")

    def witnesses(self, *, row_cov=None, col_cov=None) -> Witnesses:
        """Kernel matrices are not free to move entry by entry; no admissible worst pair is known."""
        raise NotImplementedError("KernelQuery cannot build admissible worst-case pairs without "
                                  "knowing the kernel's geometry; audit with data-driven pairs")

    def __repr__(self) -> str:
        return f"KernelQuery(kernel_bound={self.kernel_bound:g}, n_samples={self.n_samples})"
