"""One private release of a second-moment matrix, with the noise allocation chosen for a task's loss.

Every estimator in :mod:`matrixdp.models` that needs second moments (covariance, correlation,
PCA, linear regression) releases the matrix ``G = (1/n) Σ_k z_k z_kᵀ`` of *public-box* records
``z`` (features centred at the middle of their public range, optionally a target, optionally a
public constant coordinate ``t`` that carries the mean) through exactly one mechanism:

- ``"iid"``: :class:`~matrixdp.mechanisms.GaussianMechanism` (analytic calibration) at the exact
  Frobenius sensitivity of this same query (``CovarianceQuery.sensitivity_l2``);
- ``"mvg"``: :class:`~matrixdp.mechanisms.MVGMechanism`, equi-modal ``Σ = Ψ = diag(v)``, exact
  calibration, precision shares ``θ_i ∝ h_i √w_i`` (the closed form minimising the task's loss
  ``Σ_ij w_i w_j Var(Ẑ_ij)`` under the linear precision budget; ``docs/mvg.md`` ("When MVG noise
  wins"));
- ``"auto"``: the candidate (i.i.d., task-weighted MVG, Frobenius-MSE-optimal MVG) with the smallest
  *exact expected loss* computed from public information only (bounds, ``n``, shape, the task's
  weights). It is therefore never worse than ``"iid"`` in expected loss.

The loss is evaluated on the released matrix after symmetrisation: an entry's variance is
``V_ij = v_i v_j / 2`` off the diagonal and ``v_i²`` on it (``σ²/2`` and ``σ²`` for i.i.d. noise).
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass, field

import numpy as np

from .._budget import suspended
from ..errors import InvalidParameterError
from ..mechanisms import GaussianMechanism, MVGMechanism, NoiseSummary, PrivacyGuarantee
from ..queries import CovarianceQuery

__all__ = ["NOISE_CHOICES", "MomentTask", "MomentRelease", "release_second_moment",
           "plan_second_moment", "task_shares"]

#: Accepted values of the estimators' ``noise`` parameter.
NOISE_CHOICES = ("auto", "mvg", "iid")


@dataclass(frozen=True)
class MomentTask:
    """Public description of a second-moment release and of the loss it serves.

    Attributes
    ----------
    lower, upper : ndarray (k,)
        Public bounds of the (centred) records ``z``; a constant coordinate has ``lower == upper``.
    n_samples : int
        Public number of records (replace-one neighbours).
    weights : ndarray (k,)
        Per-coordinate weights ``w`` of the product-form approximation ``W ≈ w wᵀ`` of the loss
        (used for the closed-form allocation).
    loss_matrix : ndarray (k, k)
        The loss ``Σ_ij W_ij (Ĝ_ij - G_ij)²`` the expected losses are computed with (0 where an
        entry of ``G`` is not used, e.g. a known corner).
    loss : str
        Name of the loss, for messages and metadata.
    """

    lower: np.ndarray
    upper: np.ndarray
    n_samples: int
    weights: np.ndarray
    loss_matrix: np.ndarray
    loss: str = "frobenius"

    @property
    def reach(self) -> np.ndarray:
        return np.maximum(np.abs(self.lower), np.abs(self.upper))

    def query(self) -> CovarianceQuery:
        # clip=True only absorbs rounding: callers clip to the public box before centring
        return CovarianceQuery(bounds=(self.lower, self.upper), n_samples=self.n_samples,
                               clip=True)


@dataclass(frozen=True)
class MomentRelease:
    """A released (symmetrised) second-moment matrix and what is known about its noise.

    Attributes
    ----------
    value : ndarray (k, k)
        ``Ĝ``, symmetric.
    privacy : PrivacyGuarantee
    noise : NoiseSummary
        The mechanism's summary of the raw (unsymmetrised) noise.
    entry_variance : ndarray (k, k)
        Exact variance of each entry of ``Ĝ - G`` (after symmetrisation).
    expected_loss : float
        ``Σ_ij W_ij V_ij`` for the task's loss matrix ``W``.
    noise_choice : str
        ``"iid"`` or ``"mvg"`` (what ``"auto"`` chose).
    candidates : dict
        Expected loss of every candidate considered (public numbers).
    """

    value: np.ndarray
    privacy: PrivacyGuarantee
    noise: NoiseSummary
    entry_variance: np.ndarray
    expected_loss: float
    noise_choice: str
    allocation: str
    candidates: dict = field(default_factory=dict)


def balanced_constant(half_widths, target_sq: float, *, max_enumeration: int = 16,
                      max_ratio: float = 2.5) -> float:
    r"""A public constant ``t`` for the mean coordinate that keeps the Frobenius sensitivity tight.

    For records ``z = (u, t)`` with ``u`` in the symmetric box ``[-h, h]``, ``‖zzᵀ - z'z'ᵀ‖_F² =
    ‖z‖⁴ + ‖z'‖⁴ - 2(zᵀz')² <= 2(‖h‖² + t²)²``, with equality iff two vertices have
    ``uᵀu' = Σ_j s_j h_j² = -t²``. So ``t²`` is taken among the achievable ``|Σ_j s_j h_j²|``
    (signs ``s``), the one closest to ``target_sq`` in ratio: the i.i.d. calibration is then exact
    (the library's ``2R⁴`` bound is attained) rather than an upper bound. When no achievable value
    is within ``max_ratio`` of the target (very unequal ranges), ``t² = target_sq`` and the
    Frobenius sensitivity used is the certified upper bound (``privacy_.exact`` is then False).
    """
    h2 = np.sort(np.asarray(half_widths, dtype=np.float64) ** 2)[::-1]
    h2 = h2[h2 > 0]
    if h2.size == 0:
        return math.sqrt(target_sq)
    if h2.size <= max_enumeration:
        signs = 1 - 2 * ((np.arange(2 ** h2.size)[:, None] >> np.arange(h2.size)) & 1)
        sums = np.abs(signs @ h2)
    else:  # greedy partitions towards a few targets: enough achievable values to choose from
        sums = []
        for goal in target_sq * np.geomspace(0.25, 4.0, 33):
            acc = 0.0
            for v in h2:
                acc = acc - v if acc + v > goal and abs(acc - v - goal) < abs(acc + v - goal) \
                    else acc + v
            sums.append(abs(acc))
        sums = np.asarray(sums)
    sums = sums[sums > 1e-12 * h2.sum()]
    if sums.size == 0:
        return math.sqrt(target_sq)
    best = sums[np.argmin(np.abs(np.log(sums / target_sq)))]
    if not 1.0 / max_ratio <= best / target_sq <= max_ratio:
        return math.sqrt(target_sq)
    return float(math.sqrt(best))


def task_shares(task: MomentTask) -> np.ndarray:
    r"""Closed-form precision shares ``θ_i ∝ h_i √w_i`` for the task's product-form loss.

    Minimises ``Σ_i w_i v_i`` (hence ``(Σ_i w_i v_i)² = Σ_ij w_i w_j v_i v_j``) subject to the
    equi-modal linear budget ``Σ_i h_i²/v_i = B`` (Lagrange: ``v_i ∝ h_i/√w_i``); the precision
    ``p_i = 1/v_i = θ_i B / h_i²`` gives ``θ_i ∝ h_i √w_i``.
    """
    h = task.reach
    w = np.maximum(task.weights, 0.0)
    raw = h * np.sqrt(w)
    if not np.any(raw > 0):
        raw = h.copy()
    # a coordinate with zero weight still needs a (small) positive share to be samplable
    floor = 1e-6 * raw.max()
    raw = np.where(raw > 0, raw, floor)
    return raw / math.fsum(raw)


def _symmetrised_variance(v_row: np.ndarray) -> np.ndarray:
    """Entry variances of ``(Z + Zᵀ)/2`` for ``Z ~ MVG(0, diag(v), diag(v))``."""
    out = 0.5 * np.outer(v_row, v_row)
    np.fill_diagonal(out, v_row * v_row)
    return out


@dataclass(frozen=True)
class _Plan:
    mechanism: object
    entry_variance: np.ndarray
    expected_loss: float
    noise_choice: str
    allocation: str


def _plan_iid(task, epsilon, delta, query) -> _Plan:
    mech = GaussianMechanism(epsilon=epsilon, delta=delta, sensitivity=query.sensitivity_l2)
    k = task.lower.size
    var = _symmetrised_variance(np.full(k, mech.sigma))
    return _Plan(mech, var, float(np.sum(task.loss_matrix * var)), "iid", "iid")


def _plan_mvg(task, epsilon, delta, query, shares, allocation) -> _Plan:
    k = task.lower.size
    mech = MVGMechanism(shape=(k, k), epsilon=epsilon, delta=delta, sensitivity=query,
                        mode="equimodal", precision=shares)
    var = _symmetrised_variance(np.asarray(mech.variances, dtype=np.float64))
    return _Plan(mech, var, float(np.sum(task.loss_matrix * var)), "mvg", allocation)


def plan_second_moment(task: MomentTask, *, epsilon, delta, noise: str = "auto"):
    """Choose the mechanism for ``task`` from public information only (no data involved).

    Returns
    -------
    (plan, candidates) : (_Plan, dict)
        The chosen plan and ``{allocation name: expected loss}`` of every candidate.
    """
    if noise not in NOISE_CHOICES:
        raise InvalidParameterError("noise", f"must be one of {NOISE_CHOICES}, got {noise!r}")
    query = task.query()
    plans = []
    if noise in ("auto", "iid"):
        plans.append(_plan_iid(task, epsilon, delta, query))
    if noise in ("auto", "mvg"):
        plans.append(_plan_mvg(task, epsilon, delta, query, task_shares(task), "task-weighted"))
    if noise == "auto":
        h = task.reach
        plans.append(_plan_mvg(task, epsilon, delta, query, h / math.fsum(h), "mse-optimal"))
    candidates = {p.allocation: p.expected_loss for p in plans}
    best = min(plans, key=lambda p: p.expected_loss)
    return best, candidates


def release_second_moment(Z: np.ndarray, task: MomentTask, *, epsilon, delta, noise="auto",
                          rng=None, before_release=None, value=None) -> MomentRelease:
    """Release ``(1/n) Zᵀ Z`` for records ``Z`` inside the task's public box.

    ``Z`` must already be clipped to ``[task.lower, task.upper]`` (up to rounding). ``value``,
    when given, is that matrix already reduced from the records (e.g. summed block by block on a
    Dask cluster) and ``Z`` is ignored: the release is the same.
    ``before_release(privacy)`` is called with the guarantee before any noise is drawn (the
    accountant hook); it may raise to stop the release.
    """
    plan, candidates = plan_second_moment(task, epsilon=epsilon, delta=delta, noise=noise)
    if before_release is not None:
        before_release(plan.mechanism.privacy)
    if value is None:
        value = task.query().compute(Z)
    # charged by the hook already: the mechanism's release is not charged again
    with suspended() if before_release is not None else contextlib.nullcontext():
        rel = plan.mechanism.release(value, rng=rng)
    released = np.asarray(rel.value, dtype=np.float64)
    released = 0.5 * (released + released.T)
    return MomentRelease(released, rel.privacy, rel.noise, plan.entry_variance,
                         plan.expected_loss, plan.noise_choice, plan.allocation, candidates)
