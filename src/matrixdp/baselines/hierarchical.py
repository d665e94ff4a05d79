"""H_b: the hierarchical histogram of Qardaji, Yang & Li (2013) on a 2-D grid of counts, with the
constrained inference of Hay, Rastogi, Miklau & Suciu (2010).

Each level of a b×b-ary tree over the (zero-padded) grid gets Laplace noise with an equal
share of ε; the least-squares consistent leaves are released. The release is
``counts + L(η)`` with ``L`` linear and ``η`` data-independent, so it is an additive
:class:`~matrixdp.mechanisms.base.Mechanism`.

Derivation (sensitivity, tightness, the inference and the leaf variance): ``docs/baselines.md``.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_epsilon, check_finite_array
from ..errors import InvalidParameterError
from ..mechanisms.base import Mechanism, NoiseSummary, PrivacyGuarantee, Relation, check_neighbouring

__all__ = ["HierarchicalHistogramMechanism", "hb_branching", "hb_levels", "level_counts",
           "consistent_leaves", "hb_leaf_variance"]


def hb_levels(n: int, branching: int) -> int:
    """Number of measured levels h: the smallest h with ``branching**h >= n`` (at least 1)."""
    n, b = int(n), int(branching)
    h, side = 1, b
    while side < n:
        h, side = h + 1, side * b
    return h


def hb_branching(n: int) -> int:
    r"""The per-axis branching b of H_b for an n×n grid: argmin over b in [2, n] of b·h(b)².

    h(b) = ⌈log_b n⌉ is the number of measured levels (:func:`hb_levels`). This is the 2-D
    rule of Qardaji et al. (2013), §5, as the reference code the R1SMG paper points to
    applies it (the n − 1 factor of its variance expression does not change the argmin);
    ties go to the smaller b. For n = 89 it gives b = 10, h = 2.

    Parameters
    ----------
    n : int
        The grid's side (the larger side for a rectangular grid), ≥ 2.

    Returns
    -------
    int

    References
    ----------
    .. [1] W. Qardaji, W. Yang, N. Li (2013). Understanding hierarchical methods for
       differentially private histograms. PVLDB 6(14), 1954–1965.
    """
    n = int(n)
    if n < 2:
        raise InvalidParameterError("n", f"must be >= 2, got {n}")
    return min(range(2, n + 1), key=lambda b: (b * hb_levels(n, b) ** 2, b))


def _block_sum(a: np.ndarray, b: int) -> np.ndarray:
    """Sum the b×b blocks of the last two axes (each a multiple of b)."""
    *lead, r, c = a.shape
    return a.reshape(*lead, r // b, b, c // b, b).sum(axis=(-3, -1))


def _expand(a: np.ndarray, b: int) -> np.ndarray:
    """Repeat every entry of the last two axes over a b×b block (the adjoint of the block sum)."""
    return np.repeat(np.repeat(a, b, axis=-2), b, axis=-1)


def level_counts(grid, branching: int, levels: int) -> list[np.ndarray]:
    """The exact counts of every measured level: leaves first, the b×b top level last.

    ``grid`` (shape ``(..., r, c)``) is zero-padded to side ``branching**levels``; level j
    has side ``branching**(levels - j)``.
    """
    a = np.asarray(grid, dtype=float)
    b, h = int(branching), int(levels)
    side = b ** h
    *lead, r, c = a.shape
    padded = np.zeros((*lead, side, side))
    padded[..., :r, :c] = a
    out = [padded]
    for _ in range(1, h):
        out.append(_block_sum(out[-1], b))
    return out


def consistent_leaves(noisy_levels, branching: int) -> np.ndarray:
    r"""Least-squares consistent leaves of noisy level counts (Hay et al. 2010, Theorem 3).

    Every measured node has the same noise variance; the unmeasured root leaves the b×b top
    nodes free, so each top node roots its own k-ary tree, k = b². Bottom-up,
    z = α_ℓ·ỹ + (1 − α_ℓ)·Σ_children z with α_ℓ = (k^ℓ − k^{ℓ−1})/(k^ℓ − 1) at height ℓ
    (leaves ℓ = 1); top-down, ȳ_child = z_child + (ȳ_parent − Σ_siblings z)/k.
    One vectorised pass per level; leading batch axes are kept.

    Parameters
    ----------
    noisy_levels : list of ndarray
        As :func:`level_counts` returns them (leaves first), with noise.
    branching : int

    Returns
    -------
    ndarray
        The consistent padded leaves (the ordinary least-squares estimate; every parent equals
        the sum of its children).

    References
    ----------
    .. [1] M. Hay, V. Rastogi, G. Miklau, D. Suciu (2010). Boosting the accuracy of
       differentially private histograms through consistency. PVLDB 3(1), 1021–1032.
    """
    b = int(branching)
    k = float(b * b)
    z = [np.asarray(noisy_levels[0], dtype=float)]
    for j in range(1, len(noisy_levels)):
        ell = j + 1
        alpha = (k ** ell - k ** (ell - 1)) / (k ** ell - 1.0)
        z.append(alpha * np.asarray(noisy_levels[j], dtype=float)
                 + (1.0 - alpha) * _block_sum(z[j - 1], b))
    est = z[-1]
    for j in range(len(z) - 2, -1, -1):
        est = z[j] + _expand((est - _block_sum(z[j], b)) / k, b)
    return est


def hb_leaf_variance(branching: int, levels: int, scale: float) -> float:
    r"""Variance of every consistent leaf when each node has Laplace(scale) noise.

    The OLS covariance is σ²(TᵀT)⁻¹ with σ² = 2·scale². In one top node's tree (k = b², h
    levels, k^{h−1} leaves) TᵀT has eigenvalues λ_m = (k^{m+1} − 1)/(k − 1) on the vectors
    constant on the level-m blocks with zero sum in each level-(m+1) block (dimension
    k^{h−1−m} − k^{h−2−m}; the top one, m = h − 1, has dimension 1), and every leaf weighs
    each eigenspace equally, so Var = σ² Σ_m dim_m / (λ_m k^{h−1}).
    """
    k = float(int(branching) ** 2)
    h = int(levels)
    leaves = k ** (h - 1)
    total = 0.0
    for m in range(h):
        dim = 1.0 if m == h - 1 else k ** (h - 1 - m) - k ** (h - 2 - m)
        total += dim / ((k ** (m + 1) - 1.0) / (k - 1.0))
    return 2.0 * float(scale) ** 2 * total / leaves


class HierarchicalHistogramMechanism(Mechanism):
    r"""H_b (Qardaji, Yang & Li 2013) for a 2-D grid of counts: pure ε-DP, constrained inference.

    The grid is zero-padded to side L = b^h and split b×b-ary (every node has k = b² children):
    h measured levels, from the leaves (the cells) to the b×b top nodes; the root (the total)
    is not measured. Each measured node gets i.i.d. Laplace noise of scale Δ₁/ε, where one
    record moves one node per level: Δ₁ = h under add/remove and 2h under replace-one (the
    record leaves one cell and enters another; both are in different top nodes for some
    pair, so the bound is attained). This is the budget split ε/h per level with the
    per-level sensitivity 1 (or 2). The released grid is the least-squares consistent leaf
    estimate (Hay et al. 2010), cropped to the grid: post-processing, so the release is pure
    ε-DP, and the bound is tight (``docs/baselines.md``). The released value is
    ``counts + L(η)`` (the inference is linear and returns exact counts unchanged), so
    :meth:`sample_noise` draws the whole error.

    Parameters
    ----------
    shape : tuple of int
        The grid's shape (r, c), public.
    epsilon : float
        > 0.
    branching : int, optional
        Per-axis branching b ≥ 2. Default: :func:`hb_branching` of the larger side (b = 10,
        h = 2 for the 89 × 89 Uber grid).
    neighbouring : {"replace-one", "add-remove"}, default "replace-one"
        The relation of the sensitivity; replace-one (the R1SMG paper's Δ² = 2) doubles it.

    Attributes
    ----------
    branching, levels : int
        b and h.
    sensitivity : float
        Δ₁ of the stacked level counts (h or 2h).
    scale : float
        The Laplace scale Δ₁/ε of every node.

    References
    ----------
    .. [1] W. Qardaji, W. Yang, N. Li (2013). Understanding hierarchical methods for
       differentially private histograms. PVLDB 6(14), 1954–1965.
    .. [2] M. Hay, V. Rastogi, G. Miklau, D. Suciu (2010). Boosting the accuracy of
       differentially private histograms through consistency. PVLDB 3(1), 1021–1032.
    """

    name = "hb"

    def __init__(self, shape, *, epsilon, branching: int | None = None,
                 neighbouring: str = "replace-one"):
        try:
            shape = tuple(int(s) for s in shape)
        except TypeError:
            raise InvalidParameterError("shape", f"must be a pair of ints, got {shape!r}") from None
        if len(shape) != 2 or min(shape) < 1 or max(shape) < 2:
            raise InvalidParameterError("shape", f"must be (rows, cols) with a side >= 2, got {shape}")
        self.shape = shape
        self.epsilon = check_epsilon(epsilon)
        self.neighbouring = check_neighbouring(neighbouring)
        if self.neighbouring == Relation.LOCAL:
            raise InvalidParameterError("neighbouring", "must be 'replace-one' or 'add-remove'")
        side = max(shape)
        if branching is None:
            branching = hb_branching(side)
        if isinstance(branching, bool) or int(branching) != branching or int(branching) < 2:
            raise InvalidParameterError("branching", f"must be an int >= 2, got {branching!r}")
        self.branching = int(branching)
        self.levels = hb_levels(side, self.branching)
        per_level = 2 if self.neighbouring == Relation.REPLACE_ONE else 1
        self.sensitivity = float(per_level * self.levels)
        self.scale = self.sensitivity / self.epsilon

    @property
    def privacy(self) -> PrivacyGuarantee:
        return PrivacyGuarantee(
            epsilon=self.epsilon, delta=0.0, neighbouring=self.neighbouring,
            calibration=f"laplace (hierarchy b={self.branching}, h={self.levels}, "
                        f"L1 sensitivity {self.sensitivity:g})",
            exact=True, mechanism=self.name,
            notes=(f"each of the {self.levels} levels spends epsilon/{self.levels}; the released "
                   "leaves are the least-squares consistent estimate (post-processing)",))

    def _check_value(self, value) -> np.ndarray:
        return check_finite_array(value, "value", ndim=2, shape=self.shape)

    def noise_summary(self, shape) -> NoiseSummary:
        var = hb_leaf_variance(self.branching, self.levels, self.scale)
        size = int(np.prod(shape))
        return NoiseSummary("laplace-hierarchy", float(np.sqrt(var)), var, var * size)

    def _moment_shape(self):
        return self.shape

    def noisy_levels(self, value, rng=None) -> list[np.ndarray]:
        """The noisy level counts before inference (leaves first), for inspection and tests.

        ``rng``: ``None`` draws from the secure stream; a seed makes the draws replayable.
        """
        from ..mechanisms.draw import charged_noise

        arr = self._check_value(value)
        # a release of the value's levels: charged like ``release``
        with charged_noise(self.privacy, rng, label=self.name) as src:
            return [lvl + src.laplacian(lvl.shape, self.scale)
                    for lvl in level_counts(arr, self.branching, self.levels)]

    def _noise_batch(self, lead: tuple, rng: np.random.Generator) -> np.ndarray:
        b, h = self.branching, self.levels
        side = b ** h
        eta = [rng.laplace(0.0, self.scale, size=lead + (side // b ** j,) * 2) for j in range(h)]
        r, c = self.shape
        return consistent_leaves(eta, b)[..., :r, :c]

    def _noise(self, shape, rng):
        shape = tuple(shape)
        if shape[-2:] != self.shape:
            raise InvalidParameterError("shape", f"must end with {self.shape}, got {shape}")
        return self._noise_batch(shape[:-2], rng)

    def sample_noise_batch(self, n, shape, rng=None):
        """``n`` independent noise draws of ``shape`` (the grid's) in one vectorised pass.

        ``rng``: ``None`` draws from the secure stream; a seed makes the draws replayable.
        """
        from ..rng import make_rng

        return self._noise((int(n),) + tuple(shape), make_rng(rng))

    def witnesses(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """The worst-case neighbouring grids: one record in the first cell, and moved to the last
        cell (replace-one, different top nodes) or removed (add/remove)."""
        x = np.zeros(self.shape)
        x[0, 0] = 1.0
        x_prime = np.zeros(self.shape)
        if self.neighbouring == Relation.REPLACE_ONE:
            x_prime[-1, -1] = 1.0
        return [(x, x_prime)]

    def _metadata(self) -> dict:
        return {"branching": self.branching, "levels": self.levels}
