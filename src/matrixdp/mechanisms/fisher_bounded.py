r"""Bounded-support optimal noise (Farokhi, Theorem 2.6 / Corollary 2.7, with the spec's fixes).

For a diagonal Π and a box support :math:`\prod_j[\underline n_j,\overline n_j]`, the optimal density
is a product :math:`\gamma(n)=\prod_j v_j(n_j)^2`, where :math:`v_j` is the ground state of the
harmonic oscillator in a box (Weber's equation, not Airy's as the paper says)

.. math:: H_j=-\frac{4}{\vartheta_j}\frac{d^2}{dt^2}+\lambda t^2,\qquad v_j=0\ \text{on the box ends},

and the optimal per-coordinate cost :math:`\mathcal I_{jj}/\vartheta_j+\lambda\mathbb E n_j^2` is its
ground energy :math:`E_{0,j}`. We solve it by second-order finite differences on a grid (a
tridiagonal eigenproblem), then sample by inverse CDF. As λ → 0 the density tends to
:math:`\frac2L\sin^2(\pi(t-\underline n)/L)`, the :math:`\cos^2` law centred on the box; for a box much wider
than :math:`(\lambda\vartheta)^{-1/4}` around 0 it tends to Theorem 2.4's Gaussian. The noise has a
nonzero mean when the box is not symmetric. See ``docs/fisher.md``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import check_finite_array
from ..errors import InvalidParameterError, InvalidShapeError
from ..rng import make_rng
from ..calibration.fisher import check_lam, check_weights

__all__ = ["BoxGroundState", "box_ground_state", "BoundedOptimalNoise"]


@dataclass(frozen=True)
class BoxGroundState:
    """The optimal bounded-support density of one coordinate, tabulated on a grid.

    Attributes
    ----------
    energy : float
        Ground energy :math:`E_0` = optimal cost :math:`\\mathcal I/\\vartheta+\\lambda\\mathbb E n^2`.
    grid, pdf, cdf : ndarray
        Nodes (box ends included), density and cumulative distribution on them.
    fisher : float
        Fisher information :math:`4\\int v'^2`.
    mean, second_moment : float
        :math:`\\mathbb E n` and the raw :math:`\\mathbb E n^2`.
    """

    energy: float
    grid: np.ndarray
    pdf: np.ndarray
    cdf: np.ndarray
    fisher: float
    mean: float
    second_moment: float

    @property
    def variance(self) -> float:
        return self.second_moment - self.mean ** 2


def box_ground_state(lam, theta: float, lower: float, upper: float,
                     n_grid: int = 4000) -> BoxGroundState:
    r"""Ground state of :math:`-\frac4\vartheta\frac{d^2}{dt^2}+\lambda t^2` on ``[lower, upper]``.

    Parameters
    ----------
    lam : float
        λ > 0.
    theta : float
        The coordinate's weight :math:`\vartheta>0` (diagonal entry of Π).
    lower, upper : float
        The support; ``upper > lower`` (0 need not lie inside).
    n_grid : int
        Interior grid nodes (second-order accurate; 4000 gives ~1e-7 relative in E0).

    References
    ----------
    .. [1] F. Farokhi, Corollary 2.7 (corrected: coefficient :math:`\lambda\vartheta/4` in the
       n-variable), spec §3.3.
    """
    from scipy.integrate import cumulative_trapezoid, trapezoid  # lazy: ~0.5 s of import
    from scipy.linalg import eigh_tridiagonal

    lam = check_lam(lam)
    if not (np.isfinite(lower) and np.isfinite(upper) and upper > lower):
        raise InvalidParameterError("bounds", f"need finite lower < upper, got [{lower}, {upper}]")
    n = int(n_grid)
    if n < 16:
        raise InvalidParameterError("n_grid", f"must be >= 16, got {n_grid}")
    h = (upper - lower) / (n + 1)
    t = lower + h * np.arange(1, n + 1)
    kinetic = 4.0 / theta
    diag = 2.0 * kinetic / h ** 2 + lam * t ** 2
    off = np.full(n - 1, -kinetic / h ** 2)
    energy, vecs = eigh_tridiagonal(diag, off, select="i", select_range=(0, 0))
    grid = np.concatenate([[lower], t, [upper]])
    v = np.concatenate([[0.0], np.abs(vecs[:, 0]), [0.0]])
    v /= np.sqrt(trapezoid(v ** 2, grid))
    pdf = v ** 2
    cdf = cumulative_trapezoid(pdf, grid, initial=0.0)
    cdf /= cdf[-1]
    fisher = 4.0 * trapezoid(np.gradient(v, grid) ** 2, grid)
    return BoxGroundState(energy=float(energy[0]), grid=grid, pdf=pdf, cdf=cdf,
                          fisher=float(fisher), mean=float(trapezoid(grid * pdf, grid)),
                          second_moment=float(trapezoid(grid ** 2 * pdf, grid)))


class BoundedOptimalNoise:
    r"""Optimal i.i.d. noise with support in a box (problem :math:`\overline{\mathbf P}(\lambda)`).

    Parameters
    ----------
    lam : float
        λ > 0.
    lower, upper : float or array_like, (p,)
        The noise support per coordinate (``upper > lower``). This is the support of the
        *noise*; it does not keep :math:`x+n` inside the feature ranges (spec A16).
    weights : None, float, 1-D or diagonal 2-D array_like
        Diagonal Π (a non-diagonal Π does not separate on a box: InvalidParameterError).
    n_features : int, optional
        Needed when ``lower``, ``upper`` and ``weights`` are all scalars.
    n_grid : int
        Finite-difference nodes per coordinate.

    Attributes
    ----------
    states : list of BoxGroundState
    fisher : ndarray (p, p)
        Diagonal Fisher information.
    mean, second_moment : ndarray (p,)
    cost : float
        :math:`\mathrm{Tr}(\Pi^{-1}\mathcal I)+\lambda\mathrm{Tr}(V_{nn})=\sum_j E_{0,j}`.

    References
    ----------
    .. [1] F. Farokhi, Theorem 2.6 and Corollary 2.7; ``docs/fisher.md``.
    """

    def __init__(self, lam, lower, upper, *, weights=None, n_features: int | None = None,
                 n_grid: int = 4000):
        self.lam = check_lam(lam)
        lo = check_finite_array(lower, "lower")
        hi = check_finite_array(upper, "upper")
        sizes = [a.size for a in (lo, hi) if a.ndim > 0]
        if weights is not None and np.ndim(weights) > 0:
            sizes.append(np.shape(weights)[0])
        if n_features is not None:
            sizes.append(int(n_features))
        if not sizes:
            raise InvalidParameterError("n_features", "is needed when bounds and weights are scalars")
        if len(set(sizes)) != 1:
            raise InvalidShapeError("upper", f"bounds, weights and n_features disagree on p: {sizes}")
        p = sizes[0]
        pi = check_weights(weights, p)
        if np.count_nonzero(pi - np.diag(np.diag(pi))):
            raise InvalidParameterError(
                "weights", "bounded-support noise needs a diagonal Pi (a box does not separate "
                           "in a rotated basis)")
        self.lower = np.broadcast_to(lo, (p,)).astype(float)
        self.upper = np.broadcast_to(hi, (p,)).astype(float)
        if not (self.upper > self.lower).all():
            raise InvalidParameterError("upper", "must exceed lower in every coordinate")
        self.theta = np.diag(pi).copy()
        self.states = [box_ground_state(self.lam, th, a, b, n_grid)
                       for th, a, b in zip(self.theta, self.lower, self.upper)]

    @property
    def n_features(self) -> int:
        return len(self.states)

    @property
    def fisher(self) -> np.ndarray:
        return np.diag([s.fisher for s in self.states])

    @property
    def mean(self) -> np.ndarray:
        return np.array([s.mean for s in self.states])

    @property
    def second_moment(self) -> np.ndarray:
        return np.array([s.second_moment for s in self.states])

    @property
    def energies(self) -> np.ndarray:
        return np.array([s.energy for s in self.states])

    @property
    def cost(self) -> float:
        return float(np.sum(np.diag(self.fisher) / self.theta) + self.lam * self.second_moment.sum())

    def pdf(self, points) -> np.ndarray:
        """Density at ``points`` (shape (..., p)); zero outside the box."""
        pts = check_finite_array(points, "points")
        if pts.shape[-1] != self.n_features:
            raise InvalidShapeError("points", f"last axis must be {self.n_features}")
        out = np.ones(pts.shape[:-1])
        for j, s in enumerate(self.states):
            out = out * np.interp(pts[..., j], s.grid, s.pdf, left=0.0, right=0.0)
        return out

    def sample(self, n_samples: int, rng=None) -> np.ndarray:
        """Draw ``n_samples`` i.i.d. rows by inverse CDF (linear interpolation of the grid CDF).

        ``rng``: ``None`` (default) draws from the per-process secure stream; a seed or a Generator
        makes the draws reproducible, so a seeded release is replayable by anyone who knows the seed
        (they regenerate the noise and subtract it).
        """
        gen = make_rng(rng)
        u = gen.random((int(n_samples), self.n_features))
        cols = [np.interp(u[:, j], s.cdf, s.grid) for j, s in enumerate(self.states)]
        return np.column_stack(cols)
