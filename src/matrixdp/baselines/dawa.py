"""DAWA (Li, Hay, Miklau & Wang 2014) for a 2-D grid of counts and the identity workload.

Two stages on the cells in Hilbert-curve order: a private partition into dyadic intervals that
minimises the noisy L1 cost (ρε), then noisy bucket counts spread uniformly over each bucket
((1 − ρ)ε). The release depends on the data through the partition, so it is not additive noise.

Derivation (the sensitivities we prove, how they differ from the paper's, the identity-workload
reduction of stage 2): ``docs/baselines.md``.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_epsilon, check_finite_array
from ..errors import InvalidParameterError
from ..mechanisms.base import (Mechanism, NoiseSummary, PrivacyGuarantee, Relation,
                               check_neighbouring, refuse_uncharged_batch)
from ..rng import make_rng

__all__ = ["DAWAMechanism", "hilbert_order", "dyadic_deviations", "dyadic_partition"]


def hilbert_order(shape) -> np.ndarray:
    """Flat (row-major) cell indices of a grid in the order of the Hilbert curve.

    The curve runs over the 2^k × 2^k square that covers the grid (k = ⌈log₂ max side⌉);
    cells outside the grid are skipped. One vectorised pass per bit of k.
    """
    r, c = (int(s) for s in shape)
    side = 1
    while side < max(r, c):
        side *= 2
    y, x = (a.ravel() for a in np.indices((r, c)))
    x, y = x.copy(), y.copy()
    d = np.zeros(r * c, dtype=np.int64)
    s = side // 2
    while s > 0:
        rx = (x & s) > 0
        ry = (y & s) > 0
        d += s * s * ((3 * rx.astype(np.int64)) ^ ry.astype(np.int64))
        flip = ~ry & rx
        x = np.where(flip, side - 1 - x, x)
        y = np.where(flip, side - 1 - y, y)
        x, y = np.where(~ry, y, x), np.where(~ry, x, y)
        s //= 2
    return np.argsort(d, kind="stable")


def _dyadic_levels(n: int) -> int:
    """L = ⌈log₂ n⌉: the dyadic intervals have lengths 2^0, ..., 2^L."""
    levels, size = 0, 1
    while size < int(n):
        levels, size = levels + 1, size * 2
    return levels


def dyadic_deviations(x) -> tuple[list[np.ndarray], list[np.ndarray]]:
    r"""L1 deviations dev(B) = Σ_{i∈B} |x_i − x̄_B| and sizes of every dyadic interval of ``x``.

    Level j holds the intervals [m·2^j, (m + 1)·2^j) ∩ [0, n), m = 0, ..., 2^{L−j} − 1 (some
    empty at the end); level 0 are the cells (deviation 0). One vectorised pass per level.

    Returns
    -------
    (deviations, sizes) : two lists of L + 1 arrays, level 0 first.
    """
    x = np.asarray(x, dtype=float)
    n = x.size
    levels = _dyadic_levels(n)
    padded = np.zeros(2 ** levels)
    padded[:n] = x
    real = np.zeros(2 ** levels)
    real[:n] = 1.0
    devs, sizes = [], []
    for j in range(levels + 1):
        xs = padded.reshape(-1, 2 ** j)
        ms = real.reshape(-1, 2 ** j)
        size = ms.sum(axis=1)
        mean = xs.sum(axis=1) / np.maximum(size, 1.0)
        devs.append((ms * np.abs(xs - mean[:, None])).sum(axis=1))
        sizes.append(size)
    return devs, sizes


def dyadic_partition(costs, sizes) -> np.ndarray:
    """The partition of [0, n) into dyadic intervals of least total cost (a tree dynamic program).

    Parameters
    ----------
    costs, sizes : lists of L + 1 arrays, level 0 (the cells) first
        The cost of making each dyadic interval a bucket, and its number of cells; empty
        intervals are never buckets and cost nothing.

    Returns
    -------
    ndarray of int, shape (n,)
        The bucket of every cell, numbered 0, 1, ... in order.
    """
    levels = len(costs) - 1
    best = np.where(sizes[0] > 0, costs[0], 0.0)
    keep = [sizes[0] > 0]
    for j in range(1, levels + 1):
        split = best.reshape(-1, 2).sum(axis=1)
        own = np.where(sizes[j] > 0, costs[j], 0.0)
        take = (own <= split) & (sizes[j] > 0)
        keep.append(take)
        best = np.where(take, own, split)
    # Top-down: a node is a bucket when it is kept and no ancestor is one.
    covered = np.zeros(1, dtype=bool)
    bucket_level = np.full(2 ** levels, -1)
    for j in range(levels, -1, -1):
        is_bucket = keep[j] & ~covered
        bucket_level = np.where((bucket_level < 0) & np.repeat(is_bucket, 2 ** j), j, bucket_level)
        covered = np.repeat(covered | is_bucket, 2) if j > 0 else covered
    n = int(np.sum(sizes[0]))
    lvl = bucket_level[:n]
    start = (np.arange(n) >> lvl) << lvl
    return np.concatenate([[0], np.cumsum(start[1:] != start[:-1])])


class DAWAMechanism(Mechanism):
    r"""DAWA (Li, Hay, Miklau & Wang 2014) for a 2-D grid of counts, identity workload: pure ε-DP.

    The cells are put in Hilbert-curve order (:func:`hilbert_order`). Stage 1 (budget ρε) picks a
    partition into dyadic intervals that minimises Σ_B [dev(B) + Lap(s₁)] + s₂ per bucket,
    floored at s₂ (post-processing of the noisy costs), by :func:`dyadic_partition`. The noise
    goes on the deviation of every dyadic interval of ≥ 2 cells, at the L1 sensitivity of that
    whole vector: s₁ = Δ_cost/(ρε). Each record lies in L of these intervals, n ≤ 2^L cells, and
    a deviation moves by at most 2, so Δ_cost = 2L under add/remove and 2(2L − 1) under
    replace-one. Stage 2 ((1 − ρ)ε) adds Lap(s₂), s₂ = Δ_count/((1 − ρ)ε), to every bucket count
    (Δ_count = 1 add/remove, 2 replace-one) and spreads each noisy count uniformly over the
    bucket's cells. For the identity workload (the R1SMG loss ‖noise‖²_F over cells) the bucket
    counts are the optimal strategy among DAWA's stage-2 strategies, so the GreedyH step reduces
    to them (``docs/baselines.md``). Sequential composition gives pure ε-DP. ``exact=False``,
    because the sensitivities are upper bounds.

    **Not the reference code's calibration.** DAWA's reference code puts noise of scale about
    2/(ρε) on every interval's cost. Its argument for that comes from the DAWA paper and is not the
    Laplace mechanism on the cost vector. We could not check that argument, so we use the scale
    proved here: L (add/remove) to 2L − 1 (replace-one) times larger (``docs/baselines.md``).

    Parameters
    ----------
    shape : tuple of int
        The grid's shape (r, c), public.
    epsilon : float
        > 0, the total budget.
    ratio : float, default 0.25
        ρ, the share of ε spent on the partition (DAWA's default).
    neighbouring : {"replace-one", "add-remove"}, default "replace-one"

    Attributes
    ----------
    levels : int
        L = ⌈log₂(r·c)⌉.
    cost_sensitivity, count_sensitivity : float
        Δ_cost and Δ_count.
    cost_scale, count_scale : float
        s₁ and s₂.

    References
    ----------
    .. [1] C. Li, M. Hay, G. Miklau, Y. Wang (2014). A data- and workload-aware algorithm for
       range queries under differential privacy. PVLDB 7(5), 341–352.
    """

    name = "dawa"

    def __init__(self, shape, *, epsilon, ratio: float = 0.25, neighbouring: str = "replace-one"):
        try:
            shape = tuple(int(s) for s in shape)
        except TypeError:
            raise InvalidParameterError("shape", f"must be a pair of ints, got {shape!r}") from None
        if len(shape) != 2 or min(shape) < 1 or shape[0] * shape[1] < 2:
            raise InvalidParameterError("shape", f"must be (rows, cols) with >= 2 cells, got {shape}")
        self.shape = shape
        self.epsilon = check_epsilon(epsilon)
        ratio = float(ratio)
        if not 0.0 < ratio < 1.0:
            raise InvalidParameterError("ratio", f"must be in (0, 1), got {ratio!r}")
        self.ratio = ratio
        self.neighbouring = check_neighbouring(neighbouring)
        if self.neighbouring == Relation.LOCAL:
            raise InvalidParameterError("neighbouring", "must be 'replace-one' or 'add-remove'")
        self.levels = _dyadic_levels(shape[0] * shape[1])
        replace = self.neighbouring == Relation.REPLACE_ONE
        self.cost_sensitivity = float(2 * (2 * self.levels - 1) if replace else 2 * self.levels)
        self.count_sensitivity = 2.0 if replace else 1.0
        self.cost_scale = self.cost_sensitivity / (self.ratio * self.epsilon)
        self.count_scale = self.count_sensitivity / ((1.0 - self.ratio) * self.epsilon)
        self._order = hilbert_order(shape)

    @property
    def privacy(self) -> PrivacyGuarantee:
        return PrivacyGuarantee(
            epsilon=self.epsilon, delta=0.0, neighbouring=self.neighbouring,
            calibration=f"laplace (DAWA: partition {self.ratio:g}·ε, L1 cost sensitivity "
                        f"{self.cost_sensitivity:g}; counts {1 - self.ratio:g}·ε, sensitivity "
                        f"{self.count_sensitivity:g})",
            exact=False, mechanism=self.name,
            notes=("sequential composition of the noisy dyadic costs (partition) and the noisy "
                   "bucket counts; the sensitivities are upper bounds",))

    def _check_value(self, value) -> np.ndarray:
        return check_finite_array(value, "value", ndim=2, shape=self.shape)

    def partition(self, value, rng=None) -> np.ndarray:
        """Stage 1 alone: the bucket of every cell (grid-shaped), spending ρε.

        The ρε is charged (to the enclosing ``with Accountant(...)`` / ``with Ledger(...)``
        block) before the noise is drawn, as :meth:`release` charges the whole ε.
        ``rng``: ``None`` draws from the secure stream; a seed makes the draws replayable.
        """
        from .._budget import charge

        arr = self._check_value(value)
        out = np.empty(arr.size, dtype=np.int64)
        stage = PrivacyGuarantee(
            epsilon=self.ratio * self.epsilon, delta=0.0, neighbouring=self.neighbouring,
            calibration=f"laplace (DAWA partition, L1 cost sensitivity {self.cost_sensitivity:g})",
            exact=False, mechanism=f"{self.name} partition")
        with charge(stage, label=f"{self.name} partition"):
            out[self._order] = self._partition(arr.ravel()[self._order], make_rng(rng))
        return out.reshape(self.shape)

    def _partition(self, x: np.ndarray, gen: np.random.Generator) -> np.ndarray:
        devs, sizes = dyadic_deviations(x)
        costs = []
        for dev, size in zip(devs, sizes):
            noise = gen.laplace(0.0, self.cost_scale, size=dev.shape)
            noisy = np.where(size >= 2, dev + noise, 0.0)  # one cell: deviation 0, public
            costs.append(np.maximum(noisy + self.count_scale, self.count_scale))
        return dyadic_partition(costs, sizes)

    def _randomise(self, arr: np.ndarray, gen: np.random.Generator) -> np.ndarray:
        x = arr.ravel()[self._order]
        bucket = self._partition(x, gen)
        m = int(bucket[-1]) + 1
        counts = np.bincount(bucket, weights=x, minlength=m)
        sizes = np.bincount(bucket, minlength=m)
        noisy = counts + gen.laplace(0.0, self.count_scale, size=m)
        out = np.empty(arr.size)
        out[self._order] = (noisy / sizes)[bucket]
        return out.reshape(self.shape)

    def release_batch(self, value, n, rng=None) -> np.ndarray:
        """``n`` independent releases of ``value`` (one partition each), shape ``(n, r, c)``.

        ``rng``: ``None`` draws from the secure stream; a seed makes the draws replayable. Nothing
        is charged (the auditor's sampler): refused inside a budget keeper's ``with`` block
        (``mechanisms.base.refuse_uncharged_batch``).
        """
        refuse_uncharged_batch(self.name)
        arr = self._check_value(value)
        gen = make_rng(rng)
        return np.stack([self._randomise(arr, gen) for _ in range(int(n))])

    def _noise(self, shape, rng):
        raise InvalidParameterError("value", "DAWA's error depends on the data (its partition): "
                                             "use release or release_batch on a value")

    def noise_summary(self, shape) -> NoiseSummary:
        nan = float("nan")
        return NoiseSummary("dawa (data-dependent)", nan, nan, nan, bias=nan)

    def _moment_shape(self):
        return self.shape

    def witnesses(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """Neighbouring grids for the audit: one record moved from the first to the last cell
        (replace-one) or removed (add/remove), on top of one record in every cell."""
        x = np.ones(self.shape)
        x_prime = x.copy()
        x_prime[0, 0] -= 1.0
        if self.neighbouring == Relation.REPLACE_ONE:
            x_prime[-1, -1] += 1.0
        return [(x, x_prime)]

    def _metadata(self) -> dict:
        return {"ratio": self.ratio, "levels": self.levels, "order": "hilbert"}
