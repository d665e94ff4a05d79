"""The MVG mechanism: matrix-variate Gaussian noise, directional precision allocation, three calibrations."""

from __future__ import annotations

import contextlib
import copy
import math

import numpy as np

from .._linalg import EigenCov, ProbeCertificate, check_directions, probe_count
from .._validation import (check_choice, check_delta, check_epsilon, check_finite_array,
                           check_noise_scale, check_nonnegative_epsilon, check_positive)
from ..calibration.allocation import (PNR_RULES, check_precision_allocation,
                                      exact_max_pnr_allocation, max_pnr_allocation,
                                      mse_optimal_allocation, uniform_allocation)
from ..calibration.gaussian import gaussian_log_delta_for_shift, max_gaussian_shift
from ..calibration.mvg_exact import AxisPrecision, exact_precisions
from ..calibration.mvg_theorems import equimodal_precision_budget, unimodal_precision_budget
from ..errors import (
    InvalidParameterError,
    InvalidPrivacyParameterError,
    InvalidShapeError,
    NotPositiveSemidefiniteError,
)
from ..queries import as_structure, is_structure
from ..queries.geometry import memoised_reach
from .base import Mechanism, NoiseSummary, PrivacyGuarantee, check_neighbouring
from .lattice import check_granularity, check_numerics
from .mvg_sampler import MVGSampler

__all__ = ["MVGMechanism"]

_CALIBRATIONS = ("exact", "theorem2", "theorem3")
_MODES = ("iid", "unimodal", "equimodal")
_SUM_TOL = 1e-9
#: ``pnr_rule`` values accepted by the exact max-PNR allocation.
_EXACTPNR_RULES = ("floor", "waterfill")


def _check_shape(shape) -> tuple[int, int]:
    try:
        m, n = shape
    except (TypeError, ValueError):
        raise InvalidShapeError("shape", f"must be a pair (m, n), got {shape!r}") from None
    for k in (m, n):
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise InvalidShapeError("shape", f"must be two positive integers, got {shape!r}")
    return int(m), int(n)


@contextlib.contextmanager
def _renamed(inner: str, outer: str):
    """Re-raise an InvalidParameterError about a helper's ``inner`` argument as ``outer``'s."""
    try:
        yield
    except InvalidParameterError as exc:
        if exc.argument != inner:
            raise
        message = str(exc).split(": ", 1)[-1]
        raise InvalidParameterError(outer, message) from None


def _max_asymmetry(arr: np.ndarray, block: int = 256) -> float:
    """``max |A - Aᵀ|`` by row blocks (cache-friendly; no full transposed copy)."""
    worst = 0.0
    for start in range(0, arr.shape[0], block):
        rows = arr[start:start + block]
        cols = arr[:, start:start + block].T
        worst = max(worst, float(np.max(np.abs(rows - cols))))
    return worst


#: Below this side the exact O(d³) orthonormality check is cheap: no probes are drawn.
_PROBE_MIN_DIM = 256


def _orthonormality_probes(dim: int):
    """Fresh public probes for :func:`~matrixdp._linalg.orthonormal_by_probes` (None: exact check).

    They are public randomness (no data, nothing released): a check of public directions that
    affects no output except with probability <= 1e-19 (then it accepts directions the exact
    check would refuse). Drawn from a fresh generator keyed with OS entropy, independent of the
    directions and of the secure noise stream (no draw is taken from that stream, so seeded and
    secure releases are unaffected); no fixed probe set exists that directions could be (even
    accidentally) aligned with. The decision does not depend on the probes except with that
    probability: when they do not certify, the exact check decides.
    """
    k = probe_count(dim) if dim >= _PROBE_MIN_DIM else 0
    if k == 0:
        return None
    from .draw import public_randomness

    # (k, dim) drawn, returned as its (dim, k) transpose: the certificate works on probe rows
    return public_randomness(np.random.default_rng()).gaussian((k, dim)).T


class MVGMechanism(Mechanism):
    r"""Add matrix-variate Gaussian noise ``Z ~ MVG(0, Σ, Ψ)`` to an ``m x n`` query value.

    ``vec(Z) ~ N(0, Ψ ⊗ Σ)`` (column stacking): Σ = ``row_cov`` is the covariance
    between rows, Ψ = ``col_cov`` between columns. Noise can be i.i.d., directional
    along one axis (*unimodal*, the other axis identity; the paper's Algorithm 1)
    or along both with Ψ = Σ (*equimodal*, Algorithm 2, square symmetric queries).
    Along orthonormal ``directions`` u_i the noise variance is ``1/p_i``; the
    ``precision`` shares θ decide how the privacy budget is split between
    directions.

    Calibrations:

    - ``"exact"`` (default): the privacy loss of Gaussian noise is that of a 1-D
      Gaussian with shift ``μ(D) = ‖Σ^{-1/2} D Ψ^{-1/2}‖_F``, so the mechanism is
      (ε, δ)-DP iff the Mahalanobis sensitivity ``sup_D μ(D)`` is at most
      ``μ*(ε, δ)``. The supremum runs over the query's differences (a Frobenius
      ball for a bare number; a record box/ball or outer products for a query from
      :mod:`matrixdp.queries`). The precisions spend a budget linear in them,
      ``Σ c_i p_i <= B`` (shares θ_i of B), then are scaled so that ``sup μ = μ*``.
      Tight (``privacy.exact``) when the supremum is computed exactly and θ sums to 1.
    - ``"theorem2"`` / ``"theorem3"``: the paper's sufficient conditions
      (Theorems 2, 3, 5, 6), sound but very conservative; they need γ.

    Parameters
    ----------
    shape : (int, int)
        Shape ``(m, n)`` of the released value.
    epsilon, delta : float
        The total guarantee (including the DP-directions step, if any).
    sensitivity : float or SensitivityStructure
        A Frobenius sensitivity ``s₂`` (public) or a query structure from
        :mod:`matrixdp.queries` (:class:`~matrixdp.queries.IdentityQuery`,
        :class:`~matrixdp.queries.CovarianceQuery`, ...).
    calibration : {"exact", "theorem2", "theorem3"}
    mode : {"iid", "unimodal", "equimodal"}, optional
        Default: ``"iid"`` unless directions, a precision allocation or DP
        directions are given (then ``"unimodal"``; ``"equimodal"`` for theorem3).
    axis : {0, 1}, optional
        The directional axis in unimodal mode: 0 = rows (Σ directional, Ψ = I, the
        paper's layout), 1 = columns. Default 0, except 1 for an
        :class:`~matrixdp.queries.IdentityQuery` (its features are columns).
    directions : array_like (d, d), optional
        Orthonormal columns (default: the standard basis). The mechanism keeps a read-only
        copy: changing the caller's array afterwards does not change the noise.
    precision : None, "uniform", "mse-optimal", "max-pnr" or array_like (d,)
        Shares θ of the privacy budget (each > 0, sum <= 1; e.g.
        :func:`~matrixdp.calibration.allocation.binary_allocation`). Under the exact
        calibration direction ``i`` gets precision ``p_i = θ_i B / c_i`` (its
        share of the linear budget ``Σ c_i p_i <= B``, ``c_i`` its cost under the
        query), so a wide-range feature needs a larger share for the same noise;
        under the theorems ``1/λ_i² = θ_i P`` (Algorithms 1-2, equal costs).
        ``None``/``"uniform"``: equal shares (i.i.d. noise when costs are equal;
        use ``mode="iid"`` for isotropic noise); ``"mse-optimal"``: ``θ_i ∝ √c_i``,
        least total noise variance (exact calibration); ``"max-pnr"``:
        water-filling (Theorem 7) on ``signal_variances`` or the DP eigenvalues.
    gamma : float, optional
        ``sup_X ‖f(X)‖_F`` for the theorem calibrations (default: the query's).
    dp_directions : None, DPEigenDecomposition or (directions, PrivacyGuarantee)
        Directions already estimated privately (e.g. by
        :func:`~matrixdp.models.dp_directions.dp_covariance_eigen`), whose (ε, δ) is
        deducted from the total and composed into the reported guarantee by basic
        composition; the eigenvalues of a ``DPEigenDecomposition`` serve as the
        signal variances of ``"max-pnr"``. The mechanism draws nothing when built: to
        estimate the directions from private data (the paper's Exp. I) use
        :class:`~matrixdp.models.dp_directions.DPDirectionsMVG`.
    signal_variances : array_like, optional
        Public prior signal variances along the directions (for ``"max-pnr"``).
    pnr_rule : str
        How max-PNR keeps every share > 0 (``"floor"`` default; ``"waterfill"``
        raises if a share would be 0). The theorem calibrations also accept
        ``"mix"``, ``"proportional"`` and ``"closed_form"``
        (:func:`~matrixdp.calibration.allocation.max_pnr_allocation`).
    neighbouring : str
        Recorded in the guarantee (default ``"replace-one"``).
    numerics : {"float", "exact"}, default "float"
        ``"float"``: Gaussian noise in floating point (the guarantee assumes
        idealised real arithmetic). ``"exact"``: the whitened value
        ``W = Σ^{-1/2} F Ψ^{-1/2}`` is released on a lattice with exact discrete
        Gaussian noise and mapped back (floating-point safe; the float error of
        computing W is budgeted; needs γ, from the query or ``gamma=``). The noise
        is then about 1.1x the float path's (the discrete Gaussian's proven zCDP
        bound). See ``docs/numerics.md``.
    granularity : float, optional
        Exact numerics only: the lattice step in W units (a power of two).

    Attributes
    ----------
    row_cov, col_cov : ndarray
        Σ and Ψ.
    directions, variances, precisions : ndarray
        The directional axis's directions, variances (eigenvalues of its covariance)
        and inverse variances.
    precision_budget : float
        Right-hand side of the calibration's precision constraint: the linear
        budget ``B`` (exact; ``μ*²`` in iid mode) or the paper's ``P`` (theorems).
    mahalanobis_sensitivity : float
        ``sup_D ‖Σ^{-1/2} D Ψ^{-1/2}‖_F`` (or a certified upper bound when
        ``mahalanobis_sensitivity_exact`` is False).

    References
    ----------
    .. [1] T. Chanyaswad, A. Dytso, H. V. Poor and P. Mittal, "A Differential
       Privacy Mechanism Design Under Matrix-Valued Query", arXiv:1802.10077.
    .. [2] B. Balle and Y.-X. Wang, "Improving the Gaussian Mechanism for
       Differential Privacy", ICML 2018.
    .. [3] matrixdp, ``docs/mvg.md``: Part III (exact calibration) and Part II (the
       paper's theorems and our fixes).

    Examples
    --------
    >>> import numpy as np
    >>> from matrixdp.queries import IdentityQuery
    >>> q = IdentityQuery(bounds=(0.0, 1.0), n_features=3, n_samples=100)
    >>> mech = MVGMechanism(shape=(100, 3), epsilon=1.0, delta=1e-5, sensitivity=q,
    ...                     mode="unimodal", precision=[0.6, 0.2, 0.2])
    >>> bool(mech.privacy.exact), round(mech.privacy_profile(1.0) / 1e-5, 6)
    (True, 1.0)
    """

    name = "mvg"

    def __init__(self, *, shape, epsilon, delta, sensitivity, calibration: str = "exact",
                 mode: str | None = None, axis: int | None = None, directions=None,
                 precision=None, gamma=None, dp_directions=None,
                 signal_variances=None, pnr_rule: str = "floor",
                 neighbouring: str = "replace-one", numerics: str = "float", granularity=None):
        self.shape = _check_shape(shape)
        self.numerics = check_numerics(numerics)
        self.granularity = check_granularity(granularity)
        m, n = self.shape
        self.epsilon = check_epsilon(epsilon)
        self.delta = check_delta(delta)
        check_choice(calibration, _CALIBRATIONS, "calibration")
        self.calibration = calibration
        self.neighbouring = check_neighbouring(neighbouring)
        self._sensitivity_is_number = not is_structure(sensitivity)
        self.query = as_structure(sensitivity, self.shape)
        self._check_query_shape()
        if getattr(self.query, "feature_axis", 0) == 1 and \
                getattr(self.query, "n_samples", 0) is None:
            self.query = copy.copy(self.query)  # the value's shape fixes the public record count
            self.query.n_samples = m
        if not self._sensitivity_is_number and self.query.neighbouring != self.neighbouring:
            raise InvalidParameterError(
                "neighbouring", f"'{self.neighbouring}' differs from the relation the query's "
                                f"sensitivity was derived for ('{self.query.neighbouring}')")
        if mode is None:
            directional = directions is not None or precision is not None or \
                dp_directions is not None
            mode = ("equimodal" if calibration == "theorem3" else "unimodal") if directional \
                else "iid"
        check_choice(mode, _MODES, "mode")
        self.mode = mode
        if axis is None:
            axis = int(getattr(self.query, "feature_axis", 0))
        if axis not in (0, 1) or isinstance(axis, bool):
            raise InvalidParameterError("axis", f"must be 0 or 1, got {axis!r}")
        self.axis = int(axis)
        if mode == "equimodal" and m != n:
            raise InvalidShapeError("shape", f"equimodal noise (Psi = Sigma) needs a square value, "
                                             f"got {self.shape}")
        if mode == "iid" and (directions is not None or precision is not None
                              or dp_directions is not None):
            raise InvalidParameterError("mode", "directions/precision/dp_directions need "
                                                "mode='unimodal' or 'equimodal'")
        if mode == "equimodal" and not self._sensitivity_is_number and not self.query.symmetric:
            raise InvalidParameterError("mode", f"equimodal noise (Psi = Sigma) is for symmetric "
                                                f"queries; {self.query!r} is not symmetric")
        self._notes: list[str] = []
        self._iid_equimodal = False
        self._pnr = None
        self._mse_optimal = False
        if calibration == "theorem3":
            if mode == "unimodal":
                raise InvalidParameterError("mode", "theorem3 imposes Psi = Sigma: use "
                                                    "mode='equimodal' or 'iid'")
            if m != n:
                raise InvalidShapeError("shape", f"theorem3 needs a square symmetric PSD query, "
                                                 f"got {self.shape}")
            if not self._sensitivity_is_number and not self.query.psd:
                raise InvalidParameterError("calibration", f"theorem3 needs a query that is "
                                                           f"symmetric PSD for every dataset; "
                                                           f"{self.query!r} is not")
            if self._sensitivity_is_number:
                self._notes.append("theorem3: the caller asserts the query is symmetric PSD for "
                                   "every dataset (checked on each released value)")

        if self._sensitivity_is_number:
            # the i.i.d. noise scale sensitivity / mu*: refused by name when it under- or
            # overflows float64 (a precision of 0 or inf below gave ZeroDivisionError or a
            # "variances: contains NaN" message naming no argument)
            sens = float(sensitivity)
            check_noise_scale(sens / max_gaussian_shift(self.epsilon, self.delta),
                              self.epsilon, sens)

        # ---- privacy budget split for data-driven directions
        self._eps_mvg, self._delta_mvg = self.epsilon, self.delta
        self.dp_directions = None
        eigenvalues = None
        if dp_directions is not None:
            directions, eigenvalues = self._resolve_dp_directions(dp_directions, directions)

        # ---- directions and allocation of the directional axis
        self._dim = m if (mode == "equimodal" or self.axis == 0) else n
        self.directions, cert = None, None
        if mode != "iid" and directions is not None:
            self.directions, cert = self._start_directions_check(directions)
        try:
            theta = None if mode == "iid" else \
                self._resolve_precision(precision, signal_variances, eigenvalues, pnr_rule)
            self.theta = theta

            # ---- calibration
            if calibration == "exact":
                # |U|ᵀR once for the direction costs and the shift bound; the bound's product
                # with U in the same pass as the certificate's second product
                projector = None if cert is None else (self.directions, cert.project)
                with memoised_reach(projector):
                    self._calibrate_exact()
            else:
                self._calibrate_theorem(gamma)
        except Exception:
            self._finish_directions_check(cert)   # refused directions are reported first
            raise
        self._finish_directions_check(cert)
        self._finish()
        self._lattice = None
        if self.numerics == "exact":
            from .mvg_lattice import mvg_lattice_plan

            self._lattice = mvg_lattice_plan(self._row, self._col, self.mahalanobis_sensitivity,
                                             self._eps_mvg, self._delta_mvg, self._gamma(gamma),
                                             self.granularity)

    # ------------------------------------------------------------------ set-up helpers
    def _start_directions_check(self, directions):
        """Validated directions and, for ``d >= 256``, a started randomized certificate.

        Below 256 (or when the probes cannot help) the exact check runs here. Otherwise the
        certificate's first pass runs here and its decision is taken by
        :meth:`_finish_directions_check` after the calibration (which may share its second pass
        over the directions): nothing is released or returned before, and a refusal is raised
        before any error of the calibration.
        """
        probes = _orthonormality_probes(self._dim)
        if probes is None:
            return check_directions(directions, self._dim, "directions"), None
        # finiteness: a NaN/inf entry makes ŷ non-finite, and the exact check then raises.
        # The certificate checks the mechanism's own copy (the constructor seam copied the
        # caller's array): the release reads these directions (the noise factor is never
        # formed), so a caller's later change must not reach them.
        w = check_finite_array(directions, "directions", ndim=2, shape=(self._dim, self._dim),
                               finite=False)
        cert = ProbeCertificate(w, probes)
        if not cert.finite:
            return check_directions(w, self._dim, "directions"), None
        return w, cert

    def _finish_directions_check(self, cert) -> None:
        """The certificate's decision; when it does not certify, the exact check decides
        (raising for directions that are not orthonormal within 1e-8)."""
        if cert is not None and not cert.passed():
            check_directions(self.directions, self._dim, "directions")

    def _check_query_shape(self) -> None:
        qshape = getattr(self.query, "shape", None)
        if qshape is None:
            return
        for want, got in zip(qshape, self.shape):
            if want is not None and want != got:
                raise InvalidShapeError("shape", f"{self.shape} does not match the query's "
                                                 f"shape {qshape}")

    def _resolve_dp_directions(self, dp_directions, directions):
        if directions is not None:
            raise InvalidParameterError("directions", "give either directions or dp_directions")
        if isinstance(getattr(dp_directions, "privacy", None), PrivacyGuarantee) and \
                hasattr(dp_directions, "directions") and hasattr(dp_directions, "eigenvalues"):
            dirs, eig, spent = dp_directions.directions, dp_directions.eigenvalues, \
                dp_directions.privacy
        elif isinstance(dp_directions, tuple) and len(dp_directions) == 2 and \
                isinstance(dp_directions[1], PrivacyGuarantee):
            dirs, spent = np.asarray(dp_directions[0]), dp_directions[1]
            eig = None
        else:
            raise InvalidParameterError(
                "dp_directions", "must be a DPEigenDecomposition or (directions, PrivacyGuarantee) "
                                 "already computed; to estimate directions from private data use "
                                 "matrixdp.models.DPDirectionsMVG (the mechanism draws no "
                                 "randomness when it is built)")
        # The split goes through sequential composition (basic: the reported total stays the
        # caller's (epsilon, delta)): what the directions step spent, the MVG noise gets the rest.
        from ..accounting.accountant import Accountant
        from ..errors import BudgetExceededError

        budget = Accountant(epsilon=self.epsilon, delta=self.delta, relation=self.neighbouring,
                            method="basic")
        try:
            budget.spend(spent, label="dp directions")
        except BudgetExceededError:
            self._eps_mvg = self._delta_mvg = 0.0
        else:
            self._eps_mvg, self._delta_mvg = budget.remaining()
        if self._eps_mvg <= 0 or self._delta_mvg <= 0:
            raise InvalidPrivacyParameterError(
                "dp_directions", f"its spend ({spent.epsilon:g}, {spent.delta:g}) leaves nothing "
                                 f"of the total ({self.epsilon:g}, {self.delta:g})")
        self.dp_directions = spent
        self._notes.append(f"directions from a DP step spending ({spent.epsilon:.6g}, "
                           f"{spent.delta:.3g}); MVG noise at ({self._eps_mvg:.6g}, "
                           f"{self._delta_mvg:.3g}); basic composition")
        return dirs, eig

    def _resolve_precision(self, precision, signal_variances, eigenvalues, rule):
        d = self._dim
        if precision is None or (isinstance(precision, str) and precision == "uniform"):
            return uniform_allocation(d)
        if isinstance(precision, str):
            if precision == "mse-optimal":
                self._mse_optimal = True
                return None  # resolved during calibration (needs the costs)
            if precision not in ("max-pnr", "max_pnr"):
                raise InvalidParameterError("precision", "must be None, 'uniform', 'mse-optimal', "
                                                         "'max-pnr' or an array of shares, got "
                                                         f"{precision!r}")
            signal = signal_variances if signal_variances is not None else eigenvalues
            if signal is None:
                raise InvalidParameterError("precision", "'max-pnr' needs signal_variances= or "
                                                         "dp_directions=")
            rules = _EXACTPNR_RULES if self.calibration == "exact" else PNR_RULES
            if rule not in rules:
                raise InvalidParameterError("pnr_rule", f"must be one of {rules} with "
                                                        f"calibration={self.calibration!r}, "
                                                        f"got {rule!r}")
            self._pnr = (np.asarray(signal, dtype=np.float64), rule)
            return None  # resolved during calibration (needs the budget)
        return check_precision_allocation(precision, d, "precision")

    def _gamma(self, gamma) -> float:
        if gamma is not None:
            return check_positive(gamma, "gamma")
        try:
            return float(self.query.gamma)
        except InvalidParameterError:
            raise InvalidParameterError(
                "gamma", f"calibration={self.calibration!r} needs gamma = sup ||f(X)||_F (a public "
                         "bound); pass gamma= or a query from matrixdp.queries") from None

    def _axis_precisions(self, dir_prec: np.ndarray | float):
        """Row/col AxisPrecision for the mode, given the directional precisions."""
        m, n = self.shape
        if self.mode == "iid":
            return AxisPrecision.identity(m, float(dir_prec)), AxisPrecision.identity(n)
        ap = AxisPrecision(np.asarray(dir_prec, dtype=np.float64), self.directions)
        if self.mode == "equimodal":
            return ap, ap
        if self.axis == 0:
            return ap, AxisPrecision.identity(n)
        return AxisPrecision.identity(m), ap

    # ------------------------------------------------------------------ calibrations
    def _calibrate_exact(self) -> None:
        mu_star = max_gaussian_shift(self._eps_mvg, self._delta_mvg)
        self.max_shift = mu_star
        if self.mode == "iid":
            base = self.query.shift_bound(*self._axis_precisions(1.0))
            self._dir_prec = np.array(mu_star ** 2 / base.value_sq)
            # mu^2 is linear in the row precision: the final bound is this one scaled (no second
            # shift_bound, which is an eigendecomposition for record-box queries)
            self._scaled_bound = base.scaled(float(self._dir_prec))
            self.precision_budget = mu_star ** 2
            self._theta_sum = 1.0
            return
        equi = self.mode == "equimodal"
        dirs = self.directions  # None: the standard basis (never materialised)
        axis = 0 if equi else self.axis
        if axis == 0:
            costs = self.query.direction_costs(row_dirs=dirs, axis=0, equimodal=equi,
                                               shape=self.shape)
        else:
            costs = self.query.direction_costs(col_dirs=dirs, axis=1, equimodal=equi,
                                               shape=self.shape)
        self.direction_costs = costs
        self.precision_budget = costs.budget(mu_star)
        if self.theta is None and self._mse_optimal:
            self.theta = mse_optimal_allocation(costs)
        elif self.theta is None:  # max-PNR
            signal, rule = self._pnr
            with _renamed("rule", "pnr_rule"):
                self.theta = exact_max_pnr_allocation(signal, costs, self.precision_budget,
                                                      rule=rule)
            self._notes.append(f"max-PNR allocation (exact budget), pnr_rule={rule!r}")
        self._theta_sum = float(math.fsum(self.theta))
        p0 = exact_precisions(costs, self.theta, self._eps_mvg, self._delta_mvg)
        bound = self.query.shift_bound(*self._axis_precisions(p0))
        power = 2 if equi else 1
        target = (self._theta_sum ** power) * mu_star ** 2
        scale = (target / bound.value_sq) ** (1.0 / power)
        self._dir_prec = p0 * scale
        # mu^2 is linear in each axis's precisions (one axis scaled: x scale; equi-modal: both,
        # x scale^2), so the final bound is this one scaled: _finish needs no second shift_bound
        self._scaled_bound = bound.scaled(scale ** power)

    def _calibrate_theorem(self, gamma) -> None:
        g = self._gamma(gamma)
        s2 = self.query.sensitivity_l2
        if s2 > 2 * g:
            raise InvalidParameterError("gamma", f"gamma={g:.6g} < s2/2 = {s2 / 2:.6g} is "
                                                 "impossible (s2 <= 2 gamma always)")
        self.gamma = g
        m, n = self.shape
        eps, dlt = self._eps_mvg, self._delta_mvg
        theorem = 3 if self.calibration == "theorem3" else 2
        equi = self.mode == "equimodal" or (self.mode == "iid" and theorem == 3)
        if equi:
            budget = equimodal_precision_budget(eps, dlt, m, s2, g, theorem=theorem)
        else:
            dims = (m, n) if (self.mode == "iid" or self.axis == 0) else (n, m)
            budget = unimodal_precision_budget(eps, dlt, dims, s2, g)
        self.precision_budget = budget
        theta = self.theta
        if self.mode == "iid":
            d = m
            theta = np.full(d, 1.0 / d)
        elif theta is None and self._mse_optimal:
            theta = np.full(self._dim, 1.0 / self._dim)  # equal costs under the theorems
            self.theta = theta
        elif theta is None:
            signal, rule = self._pnr
            with _renamed("rule", "pnr_rule"):
                theta = max_pnr_allocation(signal, budget, rule=rule)
            self.theta = theta
            self._notes.append(f"max-PNR allocation (Theorem 7, L1 budget sqrt(P)), "
                               f"pnr_rule={rule!r}")
        self._theta_sum = float(math.fsum(theta))
        variances = 1.0 / np.sqrt(theta * budget)  # Algorithm 1/2 step 3
        if self.mode == "iid":
            self._dir_prec = np.array(1.0 / variances[0])
            self._iid_equimodal = equi
        else:
            self._dir_prec = 1.0 / variances
        self._notes.append(f"{self.calibration}: the paper's sufficient condition (sound, "
                           "very conservative); privacy_profile gives the exact delta(epsilon)")

    def _finish(self) -> None:
        m, n = self.shape
        if self.mode == "iid":
            p = float(self._dir_prec)
            if self._iid_equimodal:
                row, col = AxisPrecision.identity(m, p), AxisPrecision.identity(n, p)
            else:
                row, col = AxisPrecision.identity(m, p), AxisPrecision.identity(n)
        else:
            row, col = self._axis_precisions(self._dir_prec)
        self._row, self._col = row, col
        scaled = self.__dict__.pop("_scaled_bound", None)
        self._bound = scaled if scaled is not None else self.query.shift_bound(row, col)
        self.mahalanobis_sensitivity = self._bound.value
        self.mahalanobis_sensitivity_exact = bool(self._bound.exact)
        self.precisions = np.atleast_1d(np.asarray(self._dir_prec, dtype=np.float64))
        self.variances = 1.0 / self.precisions
        # the directions were validated once in __init__ (check_directions is O(d^3))
        self._row_eig = EigenCov.validated(1.0 / row.precisions, row.directions)
        self._col_eig = EigenCov.validated(1.0 / col.precisions, col.directions)
        self._sampler = MVGSampler(self._row_eig, self._col_eig)
        # safety net: the claim must hold for the exact (or upper-bounded) shift
        delta_now = self._delta_at(self._eps_mvg)
        if delta_now > self._delta_mvg * (1 + 1e-7):
            raise RuntimeError(f"MVG calibration bug: delta({self._eps_mvg}) = {delta_now:.6g} "
                               f"exceeds {self._delta_mvg:.6g}")
        if self._theta_sum < 1 - _SUM_TOL:
            self._notes.append(f"precision shares sum to {self._theta_sum:.6g} < 1: unused budget")
        if not self._bound.exact:
            self._notes.append(f"Mahalanobis sensitivity is an upper bound ({self._bound.method}; "
                               f"best witness {math.sqrt(self._bound.lower_sq):.6g} vs bound "
                               f"{self._bound.value:.6g})")

    # ------------------------------------------------------------------ public API
    @property
    def row_cov(self) -> np.ndarray:
        """Σ, the covariance between rows (m x m)."""
        return self._row_eig.matrix()

    @property
    def col_cov(self) -> np.ndarray:
        """Ψ, the covariance between columns (n x n)."""
        return self._col_eig.matrix()

    @property
    def privacy(self) -> PrivacyGuarantee:
        exact = (self.calibration == "exact" and self.mahalanobis_sensitivity_exact
                 and abs(self._theta_sum - 1) <= _SUM_TOL and self.dp_directions is None)
        if self.numerics == "exact":
            notes = (self._lattice.note(),) + tuple(self._notes)
            if self.dp_directions is not None and self.dp_directions.numerics != "exact":
                notes = ("numerics: float — the DP-directions step used floating-point noise "
                         "(idealised real arithmetic); only the MVG noise is exact",) + notes
            return PrivacyGuarantee(epsilon=self.epsilon, delta=self.delta,
                                    neighbouring=self.neighbouring, calibration="discrete-zcdp",
                                    exact=False, mechanism=self.name, notes=notes)
            # no mu: the discrete Gaussian's loss is not exactly a Gaussian shift's (docs/numerics.md)
        # A Gaussian shift of at most the (exact or certified) Mahalanobis sensitivity: mu-GDP,
        # whatever the calibration; a DP-directions step composes in exactly when it is GDP too.
        mu = self.mahalanobis_sensitivity
        if self.dp_directions is not None:
            mu = None if self.dp_directions.mu is None else math.hypot(mu, self.dp_directions.mu)
        return PrivacyGuarantee(epsilon=self.epsilon, delta=self.delta,
                                neighbouring=self.neighbouring, calibration=self.calibration,
                                exact=bool(exact), mechanism=self.name, notes=tuple(self._notes),
                                mu=mu)

    @property
    def noise_privacy(self) -> PrivacyGuarantee:
        """The guarantee of the MVG noise alone: :attr:`privacy` without a DP-directions step.

        With DP directions, the noise is calibrated to what the directions step left,
        ``(epsilon, delta)`` minus its spend; charge this when the directions step was charged
        on its own (as :class:`~matrixdp.models.DPDirectionsMVG` does).
        """
        if self.dp_directions is None:
            return self.privacy
        if self.numerics == "exact":
            # the lattice discrete Gaussian: its zCDP bound, its numerics note, and no mu
            # (its loss is not exactly a Gaussian shift's; docs/numerics.md)
            return PrivacyGuarantee(epsilon=self._eps_mvg, delta=self._delta_mvg,
                                    neighbouring=self.neighbouring, calibration="discrete-zcdp",
                                    exact=False, mechanism=f"{self.name} (noise step)",
                                    notes=(self._lattice.note(),) + tuple(self._notes))
        exact = (self.calibration == "exact" and self.mahalanobis_sensitivity_exact
                 and abs(self._theta_sum - 1) <= _SUM_TOL)
        return PrivacyGuarantee(epsilon=self._eps_mvg, delta=self._delta_mvg,
                                neighbouring=self.neighbouring, calibration=self.calibration,
                                exact=bool(exact), mechanism=f"{self.name} (noise step)",
                                mu=self.mahalanobis_sensitivity)

    def _delta_at(self, epsilon: float) -> float:
        if getattr(self, "_lattice", None) is not None:
            from ..calibration.discrete import discrete_gaussian_delta

            lat = self._lattice.lattice
            return discrete_gaussian_delta(epsilon, lat.sigma2, lat.sensitivity)
        return math.exp(gaussian_log_delta_for_shift(epsilon, self.mahalanobis_sensitivity))

    def privacy_profile(self, epsilon) -> float:
        """δ(ε) of the MVG noise for this query (exact when ``mahalanobis_sensitivity_exact``).

        Otherwise an upper bound on the exact δ(ε). A DP-directions step, if any, is
        not included (compose it separately).
        """
        return self._delta_at(check_nonnegative_epsilon(epsilon))

    def noise_summary(self, shape=None) -> NoiseSummary:
        m, n = self.shape
        total = float(np.sum(self._row_eig.variances) * np.sum(self._col_eig.variances))
        if self._lattice is not None:      # discrete Gaussian of std σ_W in W units
            total *= self._lattice.noise_scale ** 2
            per = total / (m * n)
            return NoiseSummary("mvg-discrete", math.sqrt(per), per, total)
        per = total / (m * n)
        return NoiseSummary("mvg", math.sqrt(per), per, total)

    def _check_value(self, value) -> np.ndarray:
        arr = check_finite_array(value, "value", ndim=2, shape=self.shape)
        needs_sym = self.mode == "equimodal" or self.calibration == "theorem3" or \
            self.query.symmetric
        if needs_sym:
            scale = max(float(np.max(np.abs(arr))), 1e-300)
            if _max_asymmetry(arr) > 1e-10 * scale:
                raise InvalidParameterError("value", "must be symmetric for equimodal noise / "
                                                     "theorem3 / a symmetric query")
        if self.calibration == "theorem3":
            lam_min = float(np.linalg.eigvalsh(0.5 * (arr + arr.T))[0])
            if lam_min < -1e-10 * max(float(np.max(np.abs(arr))), 1e-300):
                # the eigenvalue itself stays with the data: the message may reach a log
                raise NotPositiveSemidefiniteError(
                    "value", "theorem3 needs a positive semidefinite value (e.g. a covariance); "
                             "this one has a negative eigenvalue: release a PSD query answer or "
                             "use another calibration")
        self.query.check_value(arr)
        return arr

    def _noise(self, shape, rng) -> np.ndarray:
        if tuple(shape) != self.shape:
            raise InvalidShapeError("shape", f"this mechanism draws {self.shape} noise, got {shape}")
        if self._lattice is not None:      # exact numerics: the lattice noise, coloured
            from .exact_sampling import discrete_gaussian
            from .mvg_lattice import colour

            lat = self._lattice.lattice
            z = discrete_gaussian(self.shape, lat.sigma2, rng).astype(np.float64) * lat.granularity
            return colour(z, self._lattice)
        return self._sampler.sample(rng)

    def _release_exact(self, arr, gen):
        from .mvg_lattice import mvg_lattice_release

        return mvg_lattice_release(arr, self._lattice, gen)

    def _release_batch_exact(self, value, n, rng=None):
        from ..rng import make_rng
        from .mvg_lattice import mvg_lattice_release

        return mvg_lattice_release(self._check_value(value), self._lattice, make_rng(rng), n=n)

    def _entry_variance(self) -> np.ndarray:
        """Noise variance of each released entry, ``Σ_ii Ψ_jj`` (times the lattice's squared
        noise scale for exact numerics): public, computed once from the calibration."""
        cached = self.__dict__.get("_entry_var")
        if cached is None:
            cached = np.outer(self._row_eig.diagonal(), self._col_eig.diagonal())
            if self._lattice is not None:
                cached *= self._lattice.noise_scale ** 2
            cached.flags.writeable = False
            self._entry_var = cached
        return cached

    def _metadata(self) -> dict:
        # entry_variance: the per-entry noise variances (unequal for directional noise), which
        # Release.interval needs for a per-entry coverage (the RMS std under-covered the
        # noisiest entries: hunt HW, defect 1)
        return {"entry_variance": self._entry_variance(), "mode": self.mode, "axis": self.axis,
                "calibration": self.calibration, "directions": self.directions,
                "variances": self.variances, "theta": self.theta,
                "pnr_rule": None if self._pnr is None else self._pnr[1],
                "mahalanobis_sensitivity": self.mahalanobis_sensitivity,
                "mahalanobis_sensitivity_exact": self.mahalanobis_sensitivity_exact}

    def witnesses(self) -> list:
        """Worst-case neighbouring pairs ``[(value, value_prime), ...]`` for this noise.

        Delegates to the query's ``witnesses`` with this mechanism's Σ⁻¹, Ψ⁻¹ (no
        refactorisation): the last pair attains ``mahalanobis_sensitivity`` when it
        is exact (the best known witness otherwise).
        """
        return self.query.witnesses(row_cov=self._row, col_cov=self._col)

    def to_dp_event(self):
        """A ``dp_accounting.GaussianDpEvent`` with noise multiplier ``1/μ`` (the MVG part).

        The privacy loss of Gaussian noise with Mahalanobis sensitivity μ is that of
        the scalar Gaussian mechanism with ``σ/Δ = 1/μ``.
        """
        import dp_accounting

        if self._lattice is not None:      # exact numerics: the discrete Gaussian's zCDP
            lat = self._lattice.lattice
            return dp_accounting.ZCDpEvent(rho=lat.sensitivity / (2 * float(lat.sigma2)))
        return dp_accounting.GaussianDpEvent(noise_multiplier=1.0 / self.mahalanobis_sensitivity)
