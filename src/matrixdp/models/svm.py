r"""Farokhi's soft-margin linear SVM with a small ridge ρ, solved with its Lagrange multipliers,
and the correlated noise of Theorem 2.10 that leaves the retrained classifier unchanged.

The SVM (problem (2) of the paper) is

.. math:: \min_{\alpha,\beta,\xi}\ \tfrac12\|\alpha\|^2+\tfrac\rho2(\beta^2+\|\xi\|^2)+\theta\mathbb 1^\top\xi
          \quad\text{s.t.}\quad y_i(\alpha^\top x_i+\beta)\ge1-\xi_i,\ \ \xi_i\ge0 .

It is solved exactly, multipliers :math:`\omega` of the margin constraints included, by default
with a working-set method (``models/_svm_solvers.py``): Clarabel, an interior-point QP solver, on
the records near the margin with the others condensed into a (p+1)x(p+1) quadratic, the result
checked against the KKT conditions on every record; ``solver="clarabel"`` solves the full QP.
First-order solvers of the dual stall here (spec §2.1), and the correlated noise needs accurate,
KKT-consistent multipliers. Clarabel is maintained, ships wheels on PyPI with only numpy and scipy
as dependencies, and has accurate duals. See ``docs/fisher.md`` §6.

**The correlated noise has no differential-privacy guarantee.** It is computed from the private
data (the classifier and its multipliers). It moves each record only along the separating
hyperplane, so it reveals :math:`\alpha^{*\top}x_i` exactly for every record. See
``docs/fisher.md``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._owned import OwnsConfiguration
from .._validation import check_finite_array, check_positive
from ..errors import InvalidParameterError, InvalidShapeError, MatrixDPError, UnsafeMechanismError
from ..mechanisms.base import NoiseSummary, PrivacyGuarantee, Release
from ..mechanisms.draw import charged_noise
from ..rng import make_rng
from ..calibration.fisher import check_weights
from ._svm_solvers import (
    augmented_margins_matrix,
    clarabel_qp,
    polish_partition,
    ridge_diagonal,
    working_set_solve,
)

__all__ = [
    "SolverError",
    "SVMFit",
    "fit_svm",
    "svm_objective",
    "hinge_objective",
    "correlated_svm_noise",
    "correlated_noise_projector",
    "correlated_privacy_level",
    "CorrelatedSVMNoise",
]


class SolverError(MatrixDPError, RuntimeError):
    """The QP solver did not reach an optimal solution."""


@dataclass(frozen=True)
class SVMFit:
    """A solved SVM (2): weights, bias, slacks and the margin multipliers.

    Attributes
    ----------
    alpha : ndarray (p,)
    beta : float
    xi : ndarray (q,)
        Slacks, :math:`\\max(0, 1-y_i f(x_i))`.
    omega : ndarray (q,)
        Multipliers of the margin constraints (:math:`\\alpha=\\sum_i\\omega_iy_ix_i`).
    dual_coef : ndarray (q,)
        :math:`c=\\omega\\circ y`.
    rho, theta : float
    objective : float
        Value of (2) at the solution.
    status : str
        Clarabel's status (on the last reduced QP for the working-set solver).
    solver : str
        ``"working-set"`` or ``"clarabel"`` (see :func:`fit_svm`).
    """

    alpha: np.ndarray
    beta: float
    xi: np.ndarray
    omega: np.ndarray
    dual_coef: np.ndarray
    rho: float
    theta: float
    objective: float
    status: str
    solver: str = "clarabel"

    def decision_function(self, X) -> np.ndarray:
        """:math:`f(x)=\\alpha^\\top x+\\beta` for each row of ``X``."""
        return np.asarray(X, dtype=float) @ self.alpha + self.beta

    def predict(self, X) -> np.ndarray:
        """Labels in {-1, +1} (ties, f = 0, go to +1)."""
        return np.where(self.decision_function(X) >= 0, 1.0, -1.0)

    def accuracy(self, X, y) -> float:
        """The paper's success rate: share of rows with :math:`y_if(x_i)>0`."""
        return float(np.mean(np.asarray(y, dtype=float) * self.decision_function(X) > 0))

    @property
    def n_support(self) -> int:
        """Number of records with a positive multiplier (relative to max(omega) * 1e-6)."""
        scale = max(float(self.omega.max(initial=0.0)), self.theta)
        return int(np.count_nonzero(self.omega > 1e-6 * scale))

    def kkt_residuals(self, X, y) -> dict:
        """Max absolute residuals of stationarity, primal feasibility and complementarity."""
        X = np.asarray(X, dtype=float)
        y = np.asarray(y, dtype=float)
        margin = y * self.decision_function(X)
        return {
            "stationarity_alpha": float(np.abs(self.alpha - X.T @ self.dual_coef).max()),
            "stationarity_beta": float(abs(self.rho * self.beta - self.dual_coef.sum())),
            "slack_formula": float(np.abs(self.xi * self.rho
                                          - np.maximum(self.omega - self.theta, 0.0)).max())
            if self.rho > 0 else 0.0,
            "feasibility": float(np.maximum(1.0 - self.xi - margin, 0.0).max()),
            "dual_feasibility": float(np.maximum(-self.omega, 0.0).max()),
            "complementarity": float(np.abs(self.omega * (margin - 1.0 + self.xi)).max()),
        }


def _check_xy(X, y):
    X = check_finite_array(X, "X", ndim=2)
    y = check_finite_array(y, "y", ndim=1)
    if y.shape[0] != X.shape[0]:
        raise InvalidShapeError("y", "must have one entry per row of X")
    if not np.isin(y, (-1.0, 1.0)).all():
        raise InvalidParameterError("y", "labels must be -1 or +1")
    return X, y


def fit_svm(X, y, *, rho: float = 1e-2, theta: float = 1.0, tol: float = 1e-10,
            polish: bool = True, solver: str = "auto", warm_start=None) -> SVMFit:
    r"""Solve the paper's SVM (2) (or (1) when ``rho=0``) exactly, multipliers included.

    Parameters
    ----------
    X : array_like (q, p)
        Features, one record per row.
    y : array_like (q,)
        Labels in {-1, +1}.
    rho : float, default 1e-2
        Ridge on β and ξ (> 0 makes the solution unique; 0 solves the plain soft margin (1)).
    theta : float, default 1
        Hinge weight.
    tol : float
        Clarabel's tolerance (gap and feasibility) on the QP it solves.
    polish : bool, default True
        When ``rho > 0``, solve the KKT linear system of (2) exactly on the split of the records
        (below / on / above the margin) read off the solver's point (an equilibrated
        (p+1+|S0|)-square solve, for any number of records); the polished point is kept only if
        it satisfies every KKT sign condition on every record, so it is never worse.
    solver : {"auto", "working-set", "clarabel"}
        ``"working-set"``: Clarabel on a reduced QP over the records near the margin, the others
        condensed into a (p+1)x(p+1) quadratic, checked on every record and repeated until the
        check passes (then it is the exact solution of (2); ``docs/fisher.md`` §6). Needs
        ``rho > 0``; on Adult it is ~10-100x faster than the full QP. ``"clarabel"``: the full
        QP (2) with all q slacks (the reference). ``"auto"`` (default): ``"working-set"`` when
        ``rho > 0``, else ``"clarabel"``.
    warm_start : None, SVMFit or array_like (p+1,)
        A starting :math:`(\alpha,\beta)` for the working-set solver (e.g. the fit on a similar
        data set). It changes only the speed, never the solution; ignored by ``"clarabel"``.

    Returns
    -------
    SVMFit

    References
    ----------
    .. [1] F. Farokhi, problem (2) and KKT (15), with the spec's fix
       :math:`\xi_i=\max(\omega_i-\theta,0)/\rho`.
    .. [2] P. J. Goulart and Y. Chen, "Clarabel: An interior-point solver for conic programs
       with quadratic objectives", 2024.
    .. [3] T. Joachims, "Making large-scale SVM learning practical", 1999 (working sets).
    """
    X, y = _check_xy(X, y)
    if not (math.isfinite(rho) and rho >= 0):
        raise InvalidParameterError("rho", f"must be finite and >= 0, got {rho!r}")
    theta = check_positive(theta, "theta")
    if solver not in ("auto", "working-set", "clarabel"):
        raise InvalidParameterError("solver", f"must be 'auto', 'working-set' or 'clarabel', "
                                               f"got {solver!r}")
    if solver == "working-set" and rho == 0:
        raise InvalidParameterError("solver", "'working-set' needs rho > 0 (use 'clarabel')")
    if solver == "auto":
        solver = "working-set" if rho > 0 else "clarabel"
    q, p = X.shape
    Z = augmented_margins_matrix(X, y)
    omega = None
    if solver == "working-set":
        w0 = None
        if warm_start is not None:
            w0 = (np.append(warm_start.alpha, warm_start.beta) if isinstance(warm_start, SVMFit)
                  else check_finite_array(warm_start, "warm_start", ndim=1))
            if w0.shape != (p + 1,):
                raise InvalidShapeError("warm_start", f"must have p+1 = {p + 1} entries")
        w, omega, status, _ = working_set_solve(Z, rho, theta, tol, w0=w0)
        if omega is None:  # not reached in practice: fall back on the full QP
            solver = "clarabel"
    if solver == "clarabel":
        w, omega, status = clarabel_qp(Z, np.diag(ridge_diagonal(p + 1, rho)), np.zeros(p + 1),
                                       rho, theta, tol)
        if status not in ("Solved", "AlmostSolved"):
            raise SolverError(f"Clarabel did not solve the SVM QP: {status}")
    alpha, beta = w[:p].copy(), float(w[p])
    if polish and rho > 0:
        polished = polish_partition(Z, rho, theta, Z @ w)
        if polished is not None:
            # keep the solved w: recomputing alpha = X^T(omega y) cancels catastrophically on
            # raw columns of scale 1e5-1e6 (Adult's fnlwgt) and would move margins by ~1e-4
            w, omega = polished
            alpha, beta = w[:p].copy(), float(w[p])
    xi = np.maximum(0.0, 1.0 - y * (X @ alpha + beta))
    obj = svm_objective(alpha, beta, xi, rho=rho, theta=theta)
    return SVMFit(alpha=alpha, beta=beta, xi=xi, omega=omega, dual_coef=omega * y,
                  rho=float(rho), theta=theta, objective=obj, status=status, solver=solver)


def svm_objective(alpha, beta, xi, *, rho: float, theta: float) -> float:
    r"""Objective of (2): :math:`\frac12\|\alpha\|^2+\frac\rho2(\beta^2+\|\xi\|^2)+\theta\mathbb 1^\top\xi`."""
    alpha = np.asarray(alpha, dtype=float)
    xi = np.asarray(xi, dtype=float)
    return float(0.5 * alpha @ alpha + 0.5 * rho * (beta * beta + xi @ xi) + theta * xi.sum())


def hinge_objective(alpha, beta, X, y, *, rho: float, theta: float) -> float:
    r"""The equivalent hinge form of (2): :math:`\frac12\|\alpha\|^2+\frac\rho2\beta^2+\sum_i(\theta h_i+\frac\rho2h_i^2)`."""
    h = np.maximum(0.0, 1.0 - np.asarray(y, float) * (np.asarray(X, float) @ alpha + beta))
    return svm_objective(alpha, beta, h, rho=rho, theta=theta)


# -------------------------------------------------------------- correlated noise
def correlated_svm_noise(fit: SVMFit, m: float, rng=None) -> np.ndarray:
    r"""Draw Theorem 2.10's correlated noise :math:`W` (q, p) in O(qp), never forming Ψ.

    :math:`\mathrm{vec}(W)\sim\mathcal N(0,mP)` with :math:`P=(I_q-cc^\top/\|c\|^2)\otimes P_\alpha`,
    :math:`P_\alpha=I-\alpha\alpha^\top/\|\alpha\|^2` and :math:`c=\omega\circ y`: the orthogonal
    projector onto :math:`\mathrm{null}(\Omega)`. Every row is orthogonal to α and
    :math:`\sum_ic_iw_i=0`, so retraining on :math:`X+W` gives the same classifier.

    **No differential-privacy guarantee.** The noise is built from the private data (the fit and
    its multipliers) and leaves :math:`\alpha^{*\top}x_i` of every record exactly visible; use
    :class:`CorrelatedSVMNoise` (explicit opt-in) for a release that says so.

    References
    ----------
    .. [1] F. Farokhi, Theorem 2.10 and Proposition 2.9; spec §3.4 (closed form).

    ``rng``: ``None`` (default) draws from the per-process secure stream; a seed or a Generator
    makes the draws reproducible, so a seeded release is replayable by anyone who knows the seed
    (they regenerate the noise and subtract it).
    """
    m = check_positive(m, "m")
    alpha, c = fit.alpha, fit.dual_coef
    # no DP guarantee to charge: the refuted claim is charged, so a budget keeper refuses it
    with charged_noise(_correlated_privacy(), rng, label=CorrelatedSVMNoise.name) as src:
        g = src.gaussian((c.size, alpha.size))
    a2 = float(alpha @ alpha)
    if a2 > 0:
        g -= np.outer(g @ alpha, alpha / a2)
    c2 = float(c @ c)
    if c2 > 0:
        g -= np.outer(c / c2, c @ g)
    return math.sqrt(m) * g


def _alpha_projector(alpha: np.ndarray) -> np.ndarray:
    a2 = float(alpha @ alpha)
    eye = np.eye(alpha.size)
    return eye if a2 == 0 else eye - np.outer(alpha, alpha) / a2


def correlated_noise_projector(fit: SVMFit) -> np.ndarray:
    """The dense (qp, qp) projector P onto null(Ω) (row-major stacking). For small problems and tests."""
    c = fit.dual_coef
    c2 = float(c @ c)
    left = np.eye(c.size) - (np.outer(c, c) / c2 if c2 > 0 else 0.0)
    return np.kron(left, _alpha_projector(fit.alpha))


def correlated_privacy_level(fit: SVMFit, m: float, weights=None) -> float:
    r"""The privacy number the paper reports for the correlated noise: :math:`\min_i m\,\mathrm{Tr}(\Pi P_{ii})`.

    Equals :math:`m(1-\max_ir_i)\mathrm{Tr}(\Pi P_\alpha)` with :math:`r_i=c_i^2/\|c\|^2`;
    :math:`28.413m` on raw WDBC (the paper's ":math:`\ge28.4m`"). This is the error of the
    efficient estimator :math:`\hat x=\bar x` *within* the null space; the components along α
    (and :math:`\sum_ic_ix_i`) are revealed exactly, so the Fisher information is infinite
    there and no DP guarantee follows (spec A21).
    """
    m = check_positive(m, "m")
    pi = check_weights(weights, fit.alpha.size)
    c = fit.dual_coef
    c2 = float(c @ c)
    max_r = float((c ** 2).max() / c2) if c2 > 0 else 0.0
    return m * (1.0 - max_r) * float(np.trace(pi @ _alpha_projector(fit.alpha)))


_CORRELATED_NOTES = (
    "NO differential-privacy guarantee: the correlated noise of Theorem 2.10 is computed from the "
    "private data (the SVM and its multipliers) and moves records only along the separating "
    "hyperplane, so alpha*^T x_i is revealed exactly for every record, as is sum_i c_i x_i.",
    "privacy is only the Fisher/CRB level min_i m Tr(Pi P_ii) in metadata['privacy_level'], an "
    "estimation-error bound within the noise's null space, not a DP guarantee.",
)


def _correlated_privacy() -> PrivacyGuarantee:
    return PrivacyGuarantee(epsilon=math.inf, delta=1.0, neighbouring="local",
                            calibration="none", exact=False, mechanism=CorrelatedSVMNoise.name,
                            refuted=True, notes=_CORRELATED_NOTES)


class CorrelatedSVMNoise(OwnsConfiguration):
    """Release a training set with Theorem 2.10's correlated noise (utility-preserving, NOT DP).

    Construction raises :class:`~matrixdp.errors.UnsafeMechanismError` unless
    ``allow_unsafe=True``: the release has no differential-privacy guarantee (see the module
    docstring). Its :class:`~matrixdp.Release` carries ``privacy.epsilon = inf``,
    ``privacy.exact = False``, ``privacy.refuted = True`` and notes saying so.

    Parameters
    ----------
    m : float
        Covariance cap, :math:`V_{ww}\\preceq mI` (larger m, more noise).
    rho, theta : float
        SVM parameters (paper: 1e-2 and 1).
    weights : None or array_like
        Π for the reported privacy level.
    allow_unsafe : bool
        Must be True to construct.

    The randomness is given to :meth:`release` (``rng=``); the object keeps no generator. Its
    configuration is copied on the way in (``weights``, read again by :meth:`release` for the
    reported privacy level, is a read-only copy).
    """

    name = "farokhi-correlated-svm"

    def __init__(self, *, m: float, rho: float = 1e-2, theta: float = 1.0, weights=None,
                 allow_unsafe: bool = False):
        if not allow_unsafe:
            raise UnsafeMechanismError(
                "the correlated SVM noise (Farokhi, Theorem 2.10) has no differential-privacy "
                "guarantee: it depends on the private data and reveals alpha^T x_i of every "
                "record exactly; pass allow_unsafe=True to use it anyway")
        self.m = check_positive(m, "m")
        self.rho, self.theta, self.weights = rho, theta, weights

    @property
    def privacy(self) -> PrivacyGuarantee:
        return _correlated_privacy()

    def release(self, X, y, rng=None) -> Release:
        """Fit the SVM on (X, y), add the correlated noise to X; labels are returned untouched.

        Parameters
        ----------
        X, y : array_like
            Records in rows; labels in {-1, +1}.
        rng : None, int or numpy.random.Generator
            ``None`` (default) draws from the per-process secure stream, which nothing returned
            keeps. A seed or a Generator makes the release reproducible, and so replayable by
            anyone who knows the seed.

        Returns
        -------
        Release
            ``value`` is the noisy X; ``metadata`` has ``y``, ``fit`` and ``privacy_level``.
            ``metadata["fit"]`` (the SVM and its multipliers) is computed from the private
            data: keep it private.
        """
        import warnings

        from ..errors import RefutedGuaranteeWarning

        X, y = _check_xy(X, y)
        gen = make_rng(rng)
        fit = fit_svm(X, y, rho=self.rho, theta=self.theta)
        W = correlated_svm_noise(fit, self.m, gen)
        warnings.warn("correlated SVM noise release: NO differential-privacy guarantee "
                      "(alpha^T x_i is revealed exactly)", RefutedGuaranteeWarning, stacklevel=2)
        q, p = X.shape
        per_entry = self.m * _null_space_dimension(fit) / (q * p)
        noise = NoiseSummary(distribution="degenerate-gaussian", scale=math.sqrt(per_entry),
                             per_entry_variance=per_entry,
                             expected_squared_error=per_entry * q * p)
        return Release(value=X + W, privacy=self.privacy, noise=noise,
                       metadata={"y": y, "fit": fit, "m": self.m,
                                 "privacy_level": correlated_privacy_level(fit, self.m,
                                                                           self.weights)})


def _null_space_dimension(fit: SVMFit) -> int:
    """Tr(P) = dim null(Omega) = (q - [c != 0]) (p - [alpha != 0])."""
    q, p = fit.dual_coef.size, fit.alpha.size
    kq = q - (1 if float(fit.dual_coef @ fit.dual_coef) > 0 else 0)
    kp = p - (1 if float(fit.alpha @ fit.alpha) > 0 else 0)
    return kq * kp
