"""One private release of a second-moment matrix, its noise allocation chosen for a task's loss.

Every estimator in :mod:`matrixdp.models` that needs second moments (covariance, correlation,
PCA, linear regression) releases the matrix ``G = (1/n) Σ_k z_k z_kᵀ`` of *public-box* records
``z`` (features centred at the middle of their public range, optionally a target, optionally a
public constant coordinate ``t`` that carries the mean) through exactly one mechanism:

- ``"iid"``: :class:`~matrixdp.mechanisms.GaussianMechanism` (analytic calibration) at the exact
  Frobenius sensitivity of this same query (``CovarianceQuery.sensitivity_l2``), a full ``k × k``
  draw, symmetrised. (Research allocation, not shipped: ``"iid-triangle"``, the same mechanism on
  the weighted upper triangle ``(√x_i G_ii ; G_ij, i < j)`` at that vector's own L2 sensitivity,
  task TR, ``docs/when_mvg_wins.md`` §9; switch ``IID_TRIANGLE``, off: measured through the
  estimators it is mixed, ``results/triangle_side_by_side.md``, and as ``noise="iid"`` it would
  beat ``"auto"``, whose candidates are the full draws, in some cells);
- ``"mvg"``: :class:`~matrixdp.mechanisms.MVGMechanism`, equi-modal ``Σ = Ψ = diag(v)``, exact
  calibration, precision shares ``θ_i ∝ h_i √w_i`` (the closed form minimising the task's loss
  ``Σ_ij w_i w_j Var(Ẑ_ij)`` under the linear precision budget;
  ``docs/when_mvg_wins.md``);
- ``"auto"``: the candidate (i.i.d., task-weighted MVG, Frobenius-MSE-optimal MVG, and i.i.d. in
  units of the public half-widths — the unit-box recipe, an MVG with equal precision shares) with
  the smallest
  *exact expected loss* computed from public information only (bounds, ``n``, shape, the task's
  weights). It is therefore never worse than ``"iid"`` in expected loss.

The loss is evaluated on the released matrix after symmetrisation: an entry's variance is
``V_ij = v_i v_j / 2`` off the diagonal and ``v_i²`` on it (``σ²/2`` and ``σ²`` for i.i.d. noise);
for the triangle releases ``σ_T²`` off the diagonal and ``σ_T²/x_i`` on it.
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass, field, replace

import numpy as np

from .._validation import check_finite_array, check_part_epsilon
from ..calibration.mvg_exact import AxisPrecision, DirectionCosts, ShiftBound
from ..queries.geometry import box_quadratic_max
from ..errors import InvalidParameterError, InvalidShapeError
from ..mechanisms import GaussianMechanism, MVGMechanism, NoiseSummary, PrivacyGuarantee
from ..queries import CovarianceQuery, SensitivityStructure

__all__ = ["NOISE_CHOICES", "RELATIONS", "SumOfOuterProducts", "MomentTask", "MomentRelease",
           "apply_plan", "augmented_task", "average_releases", "combined_variance",
           "release_second_moment",
           "plan_second_moment", "task_shares"]

#: Accepted values of the estimators' ``noise`` parameter.
NOISE_CHOICES = ("auto", "mvg", "iid")
#: ``noise`` values :func:`plan_second_moment` also accepts: one allocation forced by its name
#: (DPPCA's ``noise="unit-box"``: i.i.d. Gaussian noise on the records rescaled to the unit box).
FORCED_NOISE = ("unit-box",)
#: The noise allocations ``"auto"`` chooses from (``allocation_`` of a fitted estimator).
ALLOCATIONS = ("iid", "task-weighted", "mse-optimal", "unit-box", "iid-unit-box", "iid-triangle",
               "iid-unit-box-triangle", "task-weighted-triangle", "mse-optimal-triangle")
#: What ``"auto"`` compares unless a task names its own candidates.
DEFAULT_CANDIDATES = ("iid", "task-weighted", "mse-optimal", "unit-box")
#: The triangle counterpart of each full-draw allocation (task TR, ``docs/when_mvg_wins.md`` §9).
TRIANGLE_OF = {"iid": "iid-triangle", "iid-unit-box": "iid-unit-box-triangle",
               "unit-box": "iid-unit-box-triangle", "task-weighted": "task-weighted-triangle",
               "mse-optimal": "mse-optimal-triangle"}
#: Switch, OFF: when True, ``noise="auto"`` also considers, for each of its candidates, the
#: weighted-triangle release of the same records (:data:`TRIANGLE_OF`) — but only where it
#: DOMINATES that candidate entry by entry (task TG's rule, ``docs/when_mvg_wins.md`` §9, "The
#: rule in auto"): replace-one, the triangle bound attained (so ``x = x_max`` at ``Δ_F/√2`` of the
#: rescaled query), every entry variance at most the candidate's and one strictly below. Where
#: no triangle is admitted, or none has the smallest expected loss, the plan is the old one, bit
#: for bit (:func:`_dominating_triangle`). OFF: it FAILED issue #24's dev gate (task TG,
#: ``results/triangle_auto_gate.md``: 25 of 355 cells worse than 1.10x, PCA up to 90x), not
#: through the release (the plain moments release did not lose a cell,
#: ``results/triangle_auto_moments_reading.md``) but through the adaptive/CoinPress post-processing,
#: which reads the first look's noise scale from the diagonal entry variances (``√V_ii``; a
#: triangle's diagonal is much quieter than its off-diagonals): ``results/triangle_auto_margin_reading.md``.
#: Task TG2: with that reading fixed (a triangle first look read in the product form,
#: ``coinpress.first_noise_scale(product_form=True)``) the gate still FAILS, narrowly
#: (``results/triangle_auto_gate2.md``: 0 cells fail, G2 0.993, PCA k = 2 1.048; correlation 1.027).
AUTO_TRIANGLES = False
#: Research switch, OFF: when True, ``noise="iid"`` releases the weighted upper triangle
#: (``"iid-triangle"``) instead of the full symmetrised draw. Off because measured through the
#: estimators it is mixed (``results/triangle_side_by_side.md``: adult's covariance 1.25-1.36x
#: worse where the bound is not attained) and because the explicit option would then beat
#: ``"auto"`` (whose candidates are the full draws) in some cells; ``AUTO_TRIANGLES`` needs its
#: gate first.
IID_TRIANGLE = False
#: Neighbouring relations the second-moment estimators support.
RELATIONS = ("replace-one", "add-remove")


class SumOfOuterProducts(SensitivityStructure):
    r"""``S = Σ_k z_k z_kᵀ`` of records in a public box, under **add-remove** neighbours.

    Adding or removing one record changes ``S`` by ``±z zᵀ``, so for noise precisions ``A = Σ⁻¹``,
    ``B = Ψ⁻¹``:

    .. math:: \mu(zz^\top)^2 = \|A^{1/2} z z^\top B^{1/2}\|_F^2 = (z^\top A z)(z^\top B z),

    whose supremum over the box is ``(sup_z zᵀAz)²`` for equi-modal noise ``A = B`` — exact for a
    diagonal ``A`` (the farthest vertex) and for ``k <= 16`` (vertex enumeration; see
    :func:`~matrixdp.calibration.mvg_exact.box_quadratic_max`). Otherwise the product of the two
    suprema is a certified upper bound, exact when one vertex attains both. Hence ``s₂ = R²``
    (``R² = Σ_i h_i²``, exact) and, with standard-basis precisions ``p``, the equi-modal budget
    ``μ² <= (Σ_i p_i h_i²)²`` holds with equality.
    """

    symmetric = True
    psd = True
    neighbouring = "add-remove"
    feature_axis = 0

    def __init__(self, lower, upper):
        self.lower = np.asarray(lower, dtype=np.float64)
        self.upper = np.asarray(upper, dtype=np.float64)
        self.reach = np.maximum(np.abs(self.lower), np.abs(self.upper))
        self.n_samples = None
        k = self.lower.size
        self.shape = (k, k)

    @property
    def sensitivity_l2(self) -> float:
        return float(self.reach @ self.reach)

    @property
    def gamma(self) -> float:  # pragma: no cover - the theorem calibrations are not used here
        raise InvalidParameterError("gamma", "a sum over a private number of records is unbounded")

    def compute(self, Z) -> np.ndarray:
        z = check_finite_array(Z, "Z", ndim=2)
        if z.shape[1] != self.shape[0]:
            raise InvalidShapeError("Z", f"must have {self.shape[0]} columns")
        z = np.clip(z, self.lower, self.upper)  # rounding only: callers clip to the box first
        out = z.T @ z
        return 0.5 * (out + out.T)

    def _quad_max(self, ap: AxisPrecision):
        if ap.directions is None:
            value = float(np.dot(ap.precisions, self.reach ** 2))
            far = np.where(np.abs(self.upper) >= np.abs(self.lower), self.upper, self.lower)
            return value, True, value, far
        return box_quadratic_max(ap.matrix(), self.lower, self.upper)

    def shift_bound(self, row, col) -> ShiftBound:
        qa, ea, la, za = self._quad_max(row)
        if row.same_as(col):
            return ShiftBound(qa * qa, ea, la * la, np.outer(za, za), "sum-outer-equimodal")
        qb, eb, lb, zb = self._quad_max(col)
        upper = qa * qb
        best, wit = -1.0, None
        a_mat, b_mat = row.matrix(), col.matrix()
        for z in (za, zb):
            val = float(z @ a_mat @ z) * float(z @ b_mat @ z)
            if val > best:
                best, wit = val, z
        exact = ea and eb and best >= upper * (1 - 1e-12)
        return ShiftBound(best if exact else upper, bool(exact), best, np.outer(wit, wit),
                          "sum-outer-product")

    def direction_costs(self, row_dirs=None, col_dirs=None, *, axis=None, equimodal=False,
                        shape=None) -> DirectionCosts:
        dirs = row_dirs if row_dirs is not None else col_dirs
        h = self.reach if dirs is None else np.abs(np.asarray(dirs)).T @ self.reach
        if equimodal:
            return DirectionCosts(h * h, power=2, exact=dirs is None,
                                  description="sum of outer products, add-remove, Psi = Sigma: "
                                              "mu^2 = (sum_i p_i h_i^2)^2")
        r2 = float(self.reach @ self.reach)
        return DirectionCosts(r2 * h * h, exact=False,
                              description="sum of outer products, add-remove, one axis identity")

    def witnesses(self, *, row_cov=None, col_cov=None):
        """Pairs ``(S, S + zzᵀ)``: the empty-vs-one-record difference at the farthest vertex."""
        far = np.where(np.abs(self.upper) >= np.abs(self.lower), self.upper, self.lower)
        base = np.zeros(self.shape)
        return [(base, base + np.outer(far, far))]

    def __repr__(self) -> str:
        return f"SumOfOuterProducts(k={self.shape[0]}, add-remove)"


@dataclass(frozen=True)
class MomentTask:
    """Public description of a second-moment release and of the loss it serves.

    Attributes
    ----------
    lower, upper : ndarray (k,)
        Public bounds of the (centred) records ``z``; a constant coordinate has ``lower == upper``.
    n_samples : int or None
        Public number of records (replace-one; the release is ``(1/n) ZᵀZ``), or None under
        add-remove (the release is the sum ``ZᵀZ``; ``n`` is private).
    weights : ndarray (k,)
        Per-coordinate weights ``w`` of the product-form approximation ``W ≈ w wᵀ`` of the loss
        (used for the closed-form allocation).
    loss_matrix : ndarray (k, k)
        The loss ``Σ_ij W_ij (Ĝ_ij - G_ij)²`` the expected losses are computed with (0 where an
        entry of ``G`` is not used, e.g. a known corner).
    loss : str
        Name of the loss, for messages and metadata.
    neighbouring : str
    candidates : tuple of str
        The allocations ``noise="auto"`` compares (``"iid-unit-box"``: i.i.d. Gaussian on the
        records rescaled by the public half-widths to the unit box, mapped back).
    """

    lower: np.ndarray
    upper: np.ndarray
    n_samples: int
    weights: np.ndarray
    loss_matrix: np.ndarray
    loss: str = "frobenius"
    neighbouring: str = "replace-one"
    candidates: tuple = DEFAULT_CANDIDATES

    @property
    def reach(self) -> np.ndarray:
        return np.maximum(np.abs(self.lower), np.abs(self.upper))

    def query(self):
        if self.neighbouring == "add-remove":
            return SumOfOuterProducts(self.lower, self.upper)
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
    return positive_shares(raw if np.any(raw > 0) else h)


def positive_shares(raw: np.ndarray) -> np.ndarray:
    """``raw`` normalised to precision shares that are all positive (public post-processing).

    A coordinate with zero weight or zero reach (a column whose public bounds are equal: it is
    public and carries no information) still needs a positive share for the mechanism to be
    samplable; it gets ``1e-6`` of the largest share (all equal if every entry is 0).
    """
    raw = np.asarray(raw, dtype=np.float64)
    if not np.any(raw > 0):
        return np.full(raw.size, 1.0 / raw.size)
    raw = np.where(raw > 0, raw, 1e-6 * raw.max())
    return raw / math.fsum(raw)


def _symmetrised_variance(v_row: np.ndarray) -> np.ndarray:
    """Entry variances of ``(Z + Zᵀ)/2`` for ``Z ~ MVG(0, diag(v), diag(v))``."""
    out = 0.5 * np.outer(v_row, v_row)
    np.fill_diagonal(out, v_row * v_row)
    return out


#: The note of a guarantee whose sensitivity is a certified upper bound, not attained.
CERTIFIED_NOTE = "sensitivity: certified upper bound (not attained)"


@dataclass(frozen=True)
class _Plan:
    mechanism: object
    entry_variance: np.ndarray
    expected_loss: float
    noise_choice: str
    allocation: str
    scale: np.ndarray | None = None  # released on the records rescaled by this public vector
    #: False when the sensitivity the mechanism was calibrated to is only an upper bound
    sensitivity_exact: bool = True
    #: the weighted upper triangle the mechanism releases (None: the full matrix)
    triangle: "_TriangleLayout | None" = None

    @property
    def privacy(self):
        """The mechanism's guarantee, marked an upper bound (``exact=False``) when its
        sensitivity is only a certified bound: known before the release, so what is charged
        (and composed with other releases) is the same claim the release reports."""
        privacy = self.mechanism.privacy
        if privacy.exact and not self.sensitivity_exact:
            privacy = replace(privacy, exact=False,
                              notes=privacy.notes + (CERTIFIED_NOTE,))
        return privacy


@dataclass(frozen=True)
class _TriangleLayout:
    """Public layout of a weighted upper-triangle release (:func:`_plan_iid_triangle`)."""

    rows: np.ndarray  # released entries (i <= j), in np.triu_indices order
    cols: np.ndarray
    root_x: np.ndarray  # √x_i on a diagonal entry, 1 off the diagonal


def _triangle_option(task, epsilon, delta, x, sens, exact, allocation, scale):
    """One weighted-triangle plan: diagonal weights ``x``, L2 sensitivity ``sens``."""
    k = task.lower.size
    mech = GaussianMechanism(epsilon=epsilon, delta=delta, sensitivity=sens,
                             neighbouring=task.neighbouring)
    rows, cols = np.triu_indices(k)
    root_x = np.where(rows == cols, np.sqrt(x[rows]), 1.0)
    s2 = mech.sigma ** 2
    var = np.full((k, k), s2)
    np.fill_diagonal(var, s2 / x)
    loss = float(np.sum(task.loss_matrix * var))  # task in the released units
    if scale is not None:
        var = var / np.outer(scale, scale) ** 2
    layout = _TriangleLayout(rows, cols, root_x)
    return _Plan(mech, var, loss, "iid", allocation, scale, sensitivity_exact=bool(exact),
                 triangle=layout)


def _plan_iid_triangle(task, epsilon, delta, *, shares=None, name: str = "iid-triangle") -> _Plan:
    """i.i.d. Gaussian noise on the weighted upper triangle (task TR; ``docs/when_mvg_wins.md`` §9).

    The vector ``(√x_i G_ii ; G_ij, i < j)`` is released by one Gaussian mechanism at its own L2
    sensitivity and the diagonal divided back (post-processing). Two public options, the one of
    smaller expected loss is kept:

    - ``x_i = 1/2`` at ``Δ_F/√2`` (the law of the full symmetrised draw at the Frobenius
      sensitivity);
    - replace-one: ``x_i = 1/2 + (H/2 + T²)/r_i²`` at ``R²/n``
      (:func:`~matrixdp.models._triangle.replace_one_triangle`; ``= Δ_F/√2`` when the Frobenius
      bound is attained; a constant coordinate's diagonal, which never changes, keeps
      ``x = 1/2``: its noise is the old one and costs no sensitivity, and no entry has variance
      0, which the consumers of ``entry_variance`` divide by); add-remove: the loss-optimal
      weights at their exact sensitivity (:func:`~matrixdp.models._triangle.add_remove_weights`).

    Seeded replay: one standard normal per released entry, in ``np.triu_indices`` order.

    ``shares``: the same on the records rescaled by ``√θ_i / r_i`` (public; mapped back), the
    rescaling under which an equi-modal MVG ``Σ = Ψ = diag(v)`` with precision shares ``θ`` is
    i.i.d. noise: equal shares give the unit box (``"iid-unit-box-triangle"``), the
    task-weighted or MSE-optimal shares the triangle versions of those MVG allocations.
    """
    import dataclasses

    from ._triangle import add_remove_triangle_sq, add_remove_weights, replace_one_triangle

    scale = None
    t = task  # in the released units: the task's own, or the unit box (loss matrix rescaled)
    if shares is not None:
        h = task.reach
        scale = np.where(h > 0, np.sqrt(shares) / np.where(h > 0, h, 1.0), 1.0)
        t = dataclasses.replace(task, lower=task.lower * scale, upper=task.upper * scale,
                                loss_matrix=task.loss_matrix / np.outer(scale, scale) ** 2)
    query = t.query()
    k = t.lower.size
    q_exact = bool(getattr(query, "sensitivity_l2_exact", True))
    half = np.full(k, 0.5)
    if t.neighbouring == "add-remove":
        x = add_remove_weights(t.reach, t.loss_matrix)
        options = [(half, query.sensitivity_l2 / math.sqrt(2.0), q_exact),
                   (x, math.sqrt(add_remove_triangle_sq(t.reach, x)), True)]
    else:
        bound_sq, x_max, fixed = replace_one_triangle(t.lower, t.upper)
        n = t.n_samples
        sens_r = math.sqrt(bound_sq) / n
        attained = q_exact and abs(query.sensitivity_l2 ** 2 - 2.0 * sens_r ** 2) <= \
            1e-9 * 2.0 * sens_r ** 2
        options = [(half, query.sensitivity_l2 / math.sqrt(2.0), q_exact),
                   (np.where(fixed, 0.5, x_max), sens_r, attained)]
    plans = [_triangle_option(t, epsilon, delta, x, sens, exact, name, scale)
             for x, sens, exact in options]
    return min(plans, key=lambda p: p.expected_loss)


def _dominating_triangle(task, epsilon, delta, base: _Plan, shares, name: str):
    """The weighted-triangle plan of ``base``'s records if it dominates ``base`` entry by entry
    (task TG's rule for ``noise="auto"``; ``docs/when_mvg_wins.md`` §9, "The rule in auto"), else
    None. From public inputs only.

    Admitted only under replace-one, only with diagonal weights above ``1/2`` (the ``x = x_max``
    option of ``_plan_iid_triangle``), and only if every entry variance is at most ``base``'s and
    one is strictly below: for the i.i.d. candidate exactly where the triangle bound ``R²/n``
    equals the Frobenius sensitivity ``Δ_F/√2`` (off-diagonal noise as the full draw's, diagonal
    noise smaller); for the MVG candidates where the triangle on their rescaled records is
    quieter in every entry than their calibration. Then the released matrix has the law of the triangle's
    plus independent noise on the diagonal alone: no post-processing is asked to trade one
    entry's noise for another's, the trade task TG found mis-priced by the public expected loss
    on adult (``results/triangle_adult_diagnosis.md``).
    """
    if task.neighbouring != "replace-one":
        return None
    tri = _plan_iid_triangle(task, epsilon, delta, shares=shares, name=name)
    lay = tri.triangle
    if lay is None or not np.any(lay.root_x[lay.rows == lay.cols] > math.sqrt(0.5) * (1 + 1e-12)):
        return None  # the bound is not attained, or the x = 1/2 option (the old law) was kept
    V, B = tri.entry_variance, base.entry_variance
    if np.all(V <= B * (1.0 + 1e-9)) and np.any(V < B * (1.0 - 1e-9)):
        return tri
    return None


def dominating_triangle_of(task, epsilon, delta, base: _Plan):
    """The weighted-triangle plan (:data:`TRIANGLE_OF`) of ``base``'s records at ``(epsilon,
    delta)`` if it dominates ``base`` entry by entry (:func:`_dominating_triangle`), else None.
    From public inputs only: ``base``'s allocation names its rescaling of the records."""
    name = TRIANGLE_OF.get(base.allocation)
    if name is None:
        return None
    h = task.reach
    shares = {"iid": None, "iid-unit-box": np.full(h.size, 1.0 / h.size),
              "unit-box": np.full(h.size, 1.0 / h.size)}.get(base.allocation)
    if base.allocation == "task-weighted":
        shares = task_shares(task)
    elif base.allocation == "mse-optimal":
        shares = positive_shares(h)
    return _dominating_triangle(task, epsilon, delta, base, shares, name)


def _plan_iid(task, epsilon, delta, query) -> _Plan:
    mech = GaussianMechanism(epsilon=epsilon, delta=delta, sensitivity=query.sensitivity_l2,
                             neighbouring=task.neighbouring)
    k = task.lower.size
    var = _symmetrised_variance(np.full(k, mech.sigma))
    return _Plan(mech, var, float(np.sum(task.loss_matrix * var)), "iid", "iid",
                 sensitivity_exact=bool(getattr(query, "sensitivity_l2_exact", True)))


def _plan_iid_unit_box(task, epsilon, delta) -> _Plan:
    """i.i.d. Gaussian on the records rescaled to the unit box (public scaling), mapped back."""
    import dataclasses

    h = task.reach
    scale = np.where(h > 0, 1.0 / np.where(h > 0, h, 1.0), 1.0)
    unit = dataclasses.replace(task, lower=task.lower * scale, upper=task.upper * scale)
    unit_query = unit.query()
    mech = GaussianMechanism(epsilon=epsilon, delta=delta, sensitivity=unit_query.sensitivity_l2,
                             neighbouring=task.neighbouring)
    k = task.lower.size
    var = _symmetrised_variance(np.full(k, mech.sigma)) / np.outer(scale, scale) ** 2
    return _Plan(mech, var, float(np.sum(task.loss_matrix * var)), "iid", "iid-unit-box", scale,
                 sensitivity_exact=bool(getattr(unit_query, "sensitivity_l2_exact", True)))


def _plan_mvg(task, epsilon, delta, query, shares, allocation) -> _Plan:
    k = task.lower.size
    mech = MVGMechanism(shape=(k, k), epsilon=epsilon, delta=delta, sensitivity=query,
                        mode="equimodal", precision=shares, neighbouring=task.neighbouring)
    var = _symmetrised_variance(np.asarray(mech.variances, dtype=np.float64))
    return _Plan(mech, var, float(np.sum(task.loss_matrix * var)), "mvg", allocation)


def plan_second_moment(task: MomentTask, *, epsilon, delta, noise: str = "auto",
                       allocation: str | None = None):
    """Choose the mechanism for ``task`` from public information only (no data involved).

    ``allocation`` (``"iid"``, ``"task-weighted"`` or ``"mse-optimal"``, e.g. a fitted
    estimator's ``allocation_``) rebuilds that one plan instead of choosing.

    Returns
    -------
    (plan, candidates) : (_Plan, dict)
        The chosen plan and ``{allocation name: expected loss}`` of every candidate.
    """
    if noise not in NOISE_CHOICES + FORCED_NOISE:
        raise InvalidParameterError("noise", f"must be one of {NOISE_CHOICES + FORCED_NOISE}, "
                                             f"got {noise!r}")
    if allocation is not None and allocation not in ALLOCATIONS:
        raise InvalidParameterError("allocation", f"must be None or one of {ALLOCATIONS}, got "
                                                  f"{allocation!r}")
    check_part_epsilon(epsilon, delta)  # a part of a split budget (e.g. the adaptive first look)
    query = task.query()
    h = task.reach
    builders = {
        "iid": lambda: _plan_iid(task, epsilon, delta, query),
        "task-weighted": lambda: _plan_mvg(task, epsilon, delta, query, task_shares(task),
                                           "task-weighted"),
        "mse-optimal": lambda: _plan_mvg(task, epsilon, delta, query, positive_shares(h),
                                         "mse-optimal"),
        # MVG noise in units of the public half-widths with equal precision shares (noise
        # variance ∝ h_i²)
        "unit-box": lambda: _plan_mvg(task, epsilon, delta, query, np.full(h.size, 1.0 / h.size),
                                      "unit-box"),
        # the Gaussian mechanism, i.i.d. on the records rescaled to the unit box, mapped back
        "iid-unit-box": lambda: _plan_iid_unit_box(task, epsilon, delta),
        # the Gaussian mechanism on the weighted upper triangle at its own sensitivity (task TR)
        "iid-triangle": lambda: _plan_iid_triangle(task, epsilon, delta),
        "iid-unit-box-triangle": lambda: _plan_iid_triangle(
            task, epsilon, delta, shares=np.full(h.size, 1.0 / h.size),
            name="iid-unit-box-triangle"),
        # the MVG allocations' rescalings with the triangle release (options, measured only)
        "task-weighted-triangle": lambda: _plan_iid_triangle(
            task, epsilon, delta, shares=task_shares(task), name="task-weighted-triangle"),
        "mse-optimal-triangle": lambda: _plan_iid_triangle(
            task, epsilon, delta, shares=positive_shares(h), name="mse-optimal-triangle"),
    }
    if allocation is not None:
        names = [allocation]
    else:
        names = {"iid": ["iid-triangle" if IID_TRIANGLE else "iid"], "mvg": ["task-weighted"],
                 "unit-box": ["unit-box"],
                 "auto": list(task.candidates)}[noise]
    plans = [builders[name]() for name in names]
    if allocation is None and noise == "auto" and AUTO_TRIANGLES:
        extra = []
        for base in plans:
            name = TRIANGLE_OF.get(base.allocation)
            if name is None or name in {p.allocation for p in plans + extra}:
                continue
            tri = dominating_triangle_of(task, epsilon, delta, base)
            if tri is not None:
                extra.append(tri)
        plans = plans + extra
    candidates = {p.allocation: p.expected_loss for p in plans}
    best = min(plans, key=lambda p: p.expected_loss)
    return best, candidates


def release_second_moment(Z: np.ndarray, task: MomentTask, *, epsilon, delta, noise="auto",
                          rng=None, charging=None, value=None, plan=None) -> MomentRelease:
    """Release ``(1/n) Zᵀ Z`` (replace-one) or ``ZᵀZ`` (add-remove) for records ``Z`` in the box.

    ``Z`` must already be clipped to ``[task.lower, task.upper]`` (up to rounding).
    ``charging(privacy)`` returns the context manager the release runs in (the accountant hook,
    :func:`matrixdp.models._base.charging`); it may raise on entry to stop the release before any
    noise is drawn. ``value``, when given, is that matrix already reduced from the records (e.g.
    summed block by block on a Dask cluster) and ``Z`` is ignored: the release is the same.
    ``plan``: ``(plan, candidates)`` of :func:`plan_second_moment` for these arguments, already
    computed by the caller (e.g. to compose its guarantee with another release before charging).
    """

    if plan is None:
        plan = plan_second_moment(task, epsilon=epsilon, delta=delta, noise=noise)
    plan, candidates = plan
    if value is None:
        value = task.query().compute(Z)
    ctx = contextlib.nullcontext() if charging is None else charging(plan.privacy)
    with ctx:
        released, rel = apply_plan(plan, value, rng)
    privacy = rel.privacy
    if privacy.exact and not plan.sensitivity_exact:
        # the noise is the smallest for the declared sensitivity, but that sensitivity is only
        # a certified upper bound on the query's: the claim holds, it is not tight
        privacy = replace(privacy, exact=False, notes=privacy.notes + (CERTIFIED_NOTE,))
    return MomentRelease(released, privacy, rel.noise, plan.entry_variance,
                         plan.expected_loss, plan.noise_choice, plan.allocation, candidates)


def apply_plan(plan: _Plan, value, rng):
    """Draw one planned release of the second-moment matrix ``value``: ``(Ĝ, rel)``.

    The ONE place a plan of :func:`plan_second_moment` meets its mechanism: the public rescaling
    (``plan.scale``) and, for a triangle plan, the weighted upper triangle as one vector (one draw
    per entry, ``np.triu_indices`` order), mirrored and divided back; ``Ĝ`` is symmetrised.
    Callers that release a planned matrix themselves (the adaptive and CoinPress first looks)
    go through here: a triangle plan's mechanism is calibrated for the triangle vector, not for
    the full matrix (task TG).
    """
    if plan.scale is not None:
        value = value * np.outer(plan.scale, plan.scale)
    lay = plan.triangle
    if lay is not None:  # the weighted upper triangle as one vector (one draw per entry)
        value = np.asarray(value, dtype=np.float64)
        rel = plan.mechanism.release(value[lay.rows, lay.cols] * lay.root_x, rng=rng)
        released = np.empty_like(value)
        tri = np.asarray(rel.value, dtype=np.float64) / lay.root_x
        released[lay.rows, lay.cols] = tri
        released[lay.cols, lay.rows] = tri
    else:
        rel = plan.mechanism.release(value, rng=rng)
        released = np.asarray(rel.value, dtype=np.float64)
    if plan.scale is not None:
        released = released / np.outer(plan.scale, plan.scale)
    return 0.5 * (released + released.T), rel


def average_releases(G1, V1, G2, V2):
    r"""Entry-by-entry inverse-variance average of two independent releases of the same
    second moments: ``Ĝ = (G₁/V₁ + G₂/V₂) / (1/V₁ + 1/V₂)`` and its exact entry variance
    ``V = 1 / (1/V₁ + 1/V₂)``.

    ``V₁``, ``V₂`` are the public entry variances (``MomentRelease.entry_variance``), so the
    weights are public and the average is post-processing of the two releases. With the same
    allocation shape (``V₂ = c V₁`` for a scalar ``c``, e.g. Gaussian-DP shifts ``μ₁``, ``μ₂`` of one
    plan) the weights are the scalars ``μ₁²/(μ₁² + μ₂²)``, ``μ₂²/(μ₁² + μ₂²)`` and the average has
    exactly the law of one release of that plan at ``μ = √(μ₁² + μ₂²)``: splitting the budget
    loses nothing (``docs/coinpress.md``, Adaptive; ``docs/regression.md`` §4e).
    """
    w1, w2 = _inverse_variances(V1, V2)
    G = (w1 * np.asarray(G1, dtype=np.float64) + w2 * np.asarray(G2, dtype=np.float64)) / (w1 + w2)
    return G, 1.0 / (w1 + w2)


def _inverse_variances(V1, V2):
    return (1.0 / np.maximum(np.asarray(V1, dtype=np.float64), 1e-300),
            1.0 / np.maximum(np.asarray(V2, dtype=np.float64), 1e-300))


def combined_variance(V1, V2) -> np.ndarray:
    """The entry variance ``1 / (1/V₁ + 1/V₂)`` of :func:`average_releases`' average, without
    the releases (a prediction from the public entry variances alone)."""
    w1, w2 = _inverse_variances(V1, V2)
    return 1.0 / (w1 + w2)


def noise_scale(entry_variance) -> np.ndarray:
    r"""Public per-coordinate noise scale ``s`` of a release: ``s_i s_j / 2 >= V_ij`` off the
    diagonal and ``s_i² >= V_ii``, the metric in which the regression solvers size the noise
    (the adaptive ridge's edge ``√(2k)`` assumes whitened off-diagonal variance ``1/2``).

    For the full symmetrised draws (i.i.d. and equi-modal MVG, ``V_ij = v_i v_j / 2``) this is
    the diagonal's standard deviation ``√V_ii``, returned bit for bit. A triangle release
    (task TR, ``docs/when_mvg_wins.md`` §9) has a quieter diagonal (``V_ii = σ_T² a_i²/x_i``,
    ``V_ij = σ_T² a_i a_j``): its off-diagonals exceed the diagonal's product form, and ``s`` is
    then their product form ``√2 σ_T a_i`` (fitted in log space, scaled up so that every
    inequality holds), not the diagonal's smaller sd.
    """
    V = np.asarray(entry_variance, dtype=np.float64)
    dsd = np.sqrt(np.maximum(np.diagonal(V), 0.0))
    live = np.flatnonzero(dsd > 0)  # rows a caller zeroed (pinned coordinates) are left out
    if live.size < dsd.size:
        out = dsd.copy()
        if live.size:
            out[live] = noise_scale(V[np.ix_(live, live)])
        return out
    k = V.shape[0]
    if k < 3:
        return dsd
    off = ~np.eye(k, dtype=bool)
    with np.errstate(divide="ignore"):
        ld = np.log(np.maximum(dsd, 1e-300))
        L = np.log(np.maximum(2.0 * V, 1e-300))
    excess = np.where(off, L - ld[:, None] - ld[None, :], -np.inf)
    if not np.max(excess) > 1e-9:  # the diagonal's product form covers every entry
        return dsd
    Lo = np.where(off, L, 0.0)
    total = float(np.sum(Lo)) / (2.0 * (k - 1))  # Σ_j l_j of an exact product form
    lpf = (np.sum(Lo, axis=1) - total) / (k - 2)
    lo = np.maximum(lpf, ld)
    gap = float(np.max(np.where(off, L - lo[:, None] - lo[None, :], -np.inf)))
    return np.exp(lo + max(gap, 0.0) / 2.0)


def keep_release(estimator, rel: MomentRelease) -> None:
    """Set the fitted attributes every second-moment estimator reports about its release:
    ``privacy_``, ``noise_``, ``allocation_``, ``noise_summary_``, ``expected_loss_``,
    ``entry_variance_`` and ``noise_candidates_`` (all public: no data, no noise), and
    ``moments_``, the released (DP) second-moment matrix itself (the output of the mechanism,
    from which everything else the estimator reports is post-processing)."""
    estimator.moments_ = np.array(rel.value, dtype=np.float64, copy=True)
    estimator.privacy_ = rel.privacy
    estimator.noise_ = rel.noise_choice
    estimator.allocation_ = rel.allocation
    estimator.noise_summary_ = rel.noise
    estimator.expected_loss_ = rel.expected_loss
    estimator.entry_variance_ = rel.entry_variance
    estimator.noise_candidates_ = dict(rel.candidates)


def augmented_task(lower, upper, n_samples, kind: str, neighbouring: str = "replace-one",
                   n_components: int | None = None) -> tuple[MomentTask, np.ndarray, float]:
    r"""The public second-moment task behind ``kind``: records ``z = (x - c, t)``.

    ``c`` is the middle of the public box and ``t`` a public constant close to the root-mean-square
    half-width, chosen (replace-one) so that the Frobenius sensitivity bound is attained
    (:func:`~matrixdp.models._moments.balanced_constant`); ``G[:d, d] / t`` is the mean of
    ``x - c``. Replace-one ``kind="gram"`` releases ``(1/n) XᵀX`` directly (no centring, no
    constant). Under add-remove the release is the sum ``ZᵀZ`` and the corner ``n t²`` carries the
    (private) number of records, so every kind keeps the constant (``gram``: ``z = (x, t)``).

    Loss weights (see ``docs/when_mvg_wins.md`` §4):

    - ``"covariance"`` / ``"gram"``: Frobenius error in the original units (``w_i = 1``);
    - ``"correlation"``: Frobenius error in units of the public half-widths (``w_i = 1/h_i²``),
      i.e. the loss of the problem rescaled to the unit box, which correlation is invariant to.

    - ``"pca"`` (:class:`~matrixdp.models.DPPCA`; the covariance is released as for
      ``"covariance"``): the unit-box weights of ``"correlation"``. A subspace's error is driven by
      the noise relative to each feature's scale, whose public proxy is its range; measured on
      tables with unequal ranges this captures more variance than the Frobenius weights
      (``results/when_mvg_wins.md``, PCA rows at ε = 0.01 and 0.1).

    The mean coordinate's weight accounts for the first-order error ``δm mᵀ + m δmᵀ`` it puts into
    the covariance, with the public prior ``E m_i² = h_i²/3`` (mean uniform in the box); under
    add-remove the corner's weight accounts for ``G δn / n`` with the prior ``G ≈ diag(h²/3)``.

    Returns
    -------
    (task, center, t)
    """
    lo = np.asarray(lower, dtype=np.float64)
    hi = np.asarray(upper, dtype=np.float64)
    d = lo.size
    add_remove = neighbouring == "add-remove"
    n = None if add_remove else n_samples
    if kind == "gram" and not add_remove:
        w = np.ones(d)
        return (MomentTask(lo, hi, n, w, np.ones((d, d)), "frobenius (original units)"),
                np.zeros(d), 0.0)
    if kind == "gram":
        center = np.zeros(d)
        h = np.maximum(np.abs(lo), np.abs(hi))
        lo_f, hi_f = lo, hi
    else:
        center = 0.5 * (lo + hi)
        h = 0.5 * (hi - lo)
        lo_f, hi_f = -h, h
    if not np.any(h > 0):
        raise InvalidParameterError("bounds", "at least one feature must have lower < upper")
    target = float(np.mean(h * h))
    t = math.sqrt(target) if add_remove else balanced_constant(h, target)
    # loss units per original unit, per feature
    s = np.ones(d) if kind not in ("correlation", "pca") else \
        np.where(h > 0, 1.0 / np.where(h > 0, h, 1.0), 1.0)
    hs2 = (s * h) ** 2
    # loss per unit variance of the mean of coordinate i (the gram does not use the mean)
    a = np.zeros(d) if kind == "gram" else (2.0 / 3.0) * (hs2.sum() + hs2)
    k = d + 1
    loss = np.zeros((k, k))
    loss[:d, :d] = np.outer(s * s, s * s)
    loss[:d, d] = loss[d, :d] = a * s * s / (2.0 * t * t)
    weights = np.empty(k)
    weights[:d] = s * s
    weights[d] = max(float(np.mean(a)) / (2.0 * t * t), 0.0)
    if add_remove:  # δn = δG_tt / t² moves every estimate by G δn / n
        loss[d, d] = float(np.sum(hs2 / 3.0) ** 2) / t ** 4
        weights[d] = max(weights[d], math.sqrt(loss[d, d]))
    lo_z = np.append(lo_f, t)
    hi_z = np.append(hi_f, t)
    name = "frobenius (units of the public half-widths)" if kind in ("correlation", "pca") else \
        "frobenius (original units)"
    return (MomentTask(lo_z, hi_z, n, weights, loss, name, neighbouring), center, t)
