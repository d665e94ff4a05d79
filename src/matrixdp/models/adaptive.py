"""Adaptive covariance: a private first look decides between the box and a shrunk ellipsoid.

CoinPress (:mod:`matrixdp.models.coinpress`) wins when the records fill a small part of their
public box and loses when they do not; which case holds depends on the private data, so it cannot
be decided from public facts. Here the decision is itself part of the DP release: a first Gaussian
release (the one-shot ``noise="auto"`` release at a quarter of the budget) and a private scalar
(how much a CoinPress whitening step would clip) give both candidates' expected error, and the rest
of the budget goes either to a second moments release (averaged with the first one, which loses
nothing under exact GDP composition) or to a CoinPress whitened step. The math is in
``docs/coinpress.md`` (section "Adaptive").
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass

import numpy as np

from ..calibration.gaussian import gaussian_epsilon, max_gaussian_shift
from ..errors import InvalidParameterError
from ..feasible import project_covariance
from ..mechanisms import PrivacyGuarantee
from ..rng import make_rng
from ._moments import augmented_task, plan_second_moment
from .coinpress import (BETA, gdp_release, unwhiten, whitened_records, whitened_release,
                        whitening)

__all__ = ["AdaptiveResult", "adaptive_covariance", "FIRST_SHARE", "BIAS_SHARE"]

#: Share of ``μ²`` of the first (one-shot moments) release; the same as CoinPress' first step.
FIRST_SHARE = 0.25
#: Share of ``μ²`` of the private clipping-loss scalar.
BIAS_SHARE = 0.03


@dataclass(frozen=True)
class AdaptiveResult:
    """What :func:`adaptive_covariance` releases (all post-processing of DP outputs).

    Attributes
    ----------
    covariance : ndarray (d, d)
        Symmetric, not projected (the estimators project it onto the feasible set).
    location : ndarray (d,)
        The DP mean, clipped to the public box.
    privacy : PrivacyGuarantee
        The composed guarantee of the three releases.
    choice : str
        ``"moments"`` or ``"coinpress"``: what the second half of the budget was spent on.
    predicted : dict
        ``"moments"``, ``"coinpress"``: the expected squared errors (in the loss units of the
        choice) it compared; ``"clipping_loss"``: the released clipping-loss scalar ``b̂``
        (floored at 0); ``"clipping_loss_sd"``: its noise's standard deviation (public). All
        functions of DP releases and public inputs only.
    allocation : str
        The noise allocation of the last moments release (``"coinpress"`` when that step was
        chosen).
    mus : tuple of float
        The GDP parameters of the three releases; ``√Σ μ_i² <= privacy.mu``.
    entry_variance : ndarray (k + 1, k + 1) or None
        Moments branch: the exact variance of each entry of the averaged release of
        ``(x - c, t)`` (live features only; public). ``None`` for the CoinPress branch.
    """

    covariance: np.ndarray
    location: np.ndarray
    privacy: PrivacyGuarantee
    choice: str
    predicted: dict
    allocation: str
    mus: tuple = ()
    entry_variance: np.ndarray | None = None


def _moment_release(plan, value, gen):
    """Release ``value`` (the task's second moments) with a planned mechanism; returns the
    symmetrised matrix and the release's GDP parameter."""
    if plan.scale is not None:
        value = value * np.outer(plan.scale, plan.scale)
    rel = plan.mechanism.release(value, rng=gen)
    out = np.asarray(rel.value, dtype=np.float64)
    if plan.scale is not None:
        out = out / np.outer(plan.scale, plan.scale)
    return 0.5 * (out + out.T), float(rel.privacy.mu)


def coinpress_noise_loss(S, weights, sigma):
    r"""Expected squared Frobenius norm of ``D S^{1/2} N S^{1/2} D`` for the symmetrised i.i.d.
    noise ``N`` of a whitened step (variance ``σ²`` on the diagonal, ``σ²/2`` off it) and the
    loss weights ``D = diag(weights)``: ``(σ²/2)(tr(M)² + tr(M²))`` with ``M = D S D``."""
    M = weights[:, None] * S * weights[None, :]
    return 0.5 * sigma * sigma * (float(np.trace(M)) ** 2 + float(np.sum(M * M)))


def adaptive_covariance(X, lower, upper, *, epsilon, delta, kind: str = "covariance",
                        n_components=None, rng=None, charging=None,
                        first_share: float = FIRST_SHARE, bias_share: float = BIAS_SHARE,
                        margin: float = 1.0, beta: float = BETA,
                        select_units: str | None = None) -> AdaptiveResult:
    r"""DP covariance and mean that spend the budget where the records are (replace-one, public n).

    Three Gaussian releases composed exactly under Gaussian differential privacy to ``μ*``, the
    largest shift that is (ε, δ)-DP:

    1. the one-shot release of the mean-augmented second moments (``noise="auto"``, the
       allocation of least expected loss for ``kind``) at ``μ₁² = first_share·μ*²``;
    2. the CoinPress whitening ``S`` is computed from it (:func:`~.coinpress.whitening`), and the
       mean, over records, of the squared norm the whitened clipping would remove,
       ``b = (1/n)Σ ‖D(x − c − m̂)‖²(1 − f²)`` (``f`` the record's clipping factor, ``D`` the loss
       weights), is released with Gaussian noise at ``μ_b² = bias_share·μ*²`` (sensitivity
       ``Σ_i D_i²(h_i + |m̂_i|)²/n``). It bounds the clipping bias: ``‖bias‖_F <= b``;
    3. with the rest, ``μ₂² = μ*² − μ₁² − μ_b²``, whichever of these has the smaller expected
       squared error (computed from the releases above and public inputs only, so the choice is
       post-processing): a second moments release with the same allocation, averaged with the
       first entry by entry with inverse-variance weights (the average has the variance of one
       release at ``√(μ₁² + μ₂²)``), or a CoinPress whitened step (expected loss
       ``(σ²/2)(tr(DSD)² + tr((DSD)²)) + b̂²``).

    Parameters
    ----------
    X : ndarray (n, d)
        Records, already clipped to ``[lower, upper]``.
    lower, upper : ndarray (d,)
        Public bounds.
    epsilon, delta : float
        The whole budget.
    kind : {"covariance", "pca"}
        The loss: Frobenius in the original units, or in units of the public half-widths (the
        loss :class:`~matrixdp.models.DPPCA` allocates its noise for).
    n_components : int, optional
        Passed to the task (PCA).
    rng : None, int or Generator
        ``None``: a fresh cryptographically secure generator; an int makes the fit reproducible
        (and replayable by whoever knows the seed). One generator for all releases, not kept.
    charging : callable, optional
        ``charging(guarantee)`` returns the context manager the releases run in.
    first_share, bias_share : float
        Shares of ``μ*²`` of releases 1 and 2 (utility only; the total never exceeds ``μ*``).
    margin, beta : float
        The whitening parameters of :func:`~.coinpress.coinpress_covariance`.

    Returns
    -------
    AdaptiveResult

    References
    ----------
    .. [1] S. Biswas, Y. Dong, G. Kamath and J. Ullman, "CoinPress: Practical Private Mean and
       Covariance Estimation", NeurIPS 2020.
    .. [2] J. Dong, A. Roth and W. J. Su, "Gaussian Differential Privacy", JRSS B 2022.
    .. [3] matrixdp, ``docs/coinpress.md`` (section "Adaptive").
    """
    if select_units is None:
        select_units = "original" if kind == "covariance" else "unit-box"
    if select_units not in ("original", "unit-box"):
        raise InvalidParameterError("select_units", f"must be 'original' or 'unit-box', got "
                                                    f"{select_units!r}")
    if kind not in ("covariance", "pca"):
        raise InvalidParameterError("kind", f"must be 'covariance' or 'pca', got {kind!r}")
    if not (0 < first_share and 0 < bias_share and first_share + bias_share < 1):
        raise InvalidParameterError("first_share", "first_share and bias_share must be > 0 "
                                                   "with a sum < 1")
    X = np.asarray(X, dtype=np.float64)
    lo = np.asarray(lower, dtype=np.float64)
    hi = np.asarray(upper, dtype=np.float64)
    n, d = X.shape
    mu_star = max_gaussian_shift(epsilon, delta)
    guarantee = PrivacyGuarantee(
        epsilon=float(epsilon), delta=float(delta), neighbouring="replace-one",
        calibration="analytic, exact GDP composition of 3 Gaussian releases",
        exact=False, mechanism="adaptive", mu=mu_star,
        notes=(f"sequential composition: GDP shares {first_share:g}, {bias_share:g} and the rest "
               "of mu^2; the last release's kind is chosen from the first two (post-processing)",))
    h = 0.5 * (hi - lo)
    live = h > 0
    k = int(live.sum())
    if k == 0:
        raise InvalidParameterError("bounds", "at least one feature must have lower < upper")
    hl = h[live]
    weights = np.ones(k) if select_units == "original" else 1.0 / hl
    c = 0.5 * (lo + hi)
    cov = np.zeros((d, d))
    loc = c.copy()
    lo_l, hi_l = lo[live], hi[live]
    Xl = X[:, live]
    gen = make_rng(rng)
    ctx = contextlib.nullcontext() if charging is None else charging(guarantee)
    with ctx:
        # 1. the one-shot moments release at μ₁, with the allocation of least expected loss
        # for ``kind``
        task, center, t = augmented_task(lo_l, hi_l, n, kind, n_components=n_components)
        eps1 = gaussian_epsilon(delta, 1.0, math.sqrt(first_share) * mu_star)
        plan1, candidates = plan_second_moment(task, epsilon=eps1, delta=delta, noise="auto")
        Z = np.empty((n, k + 1))
        np.subtract(Xl, center, out=Z[:, :k])
        Z[:, k] = t
        value = task.query().compute(Z)
        G1, mu1 = _moment_release(plan1, value, gen)
        m = G1[:k, k] / t
        C = G1[:k, :k] - np.outer(m, m)
        Q = np.diag(np.sqrt(np.diagonal(plan1.entry_variance))[:k])
        # 2. the clipping loss of the whitened step, at μ_b
        S, A, A_inv, r2 = whitening(C, Q, m, hl, margin=margin, beta=beta)
        Y, f = whitened_records(Xl, center, m, A, r2)
        Dx = (Xl - center - m) * weights
        lost = np.einsum("ij,ij->i", Dx, Dx) * (1.0 - f * f)
        del Dx
        cap = float(np.sum((weights * (hl + np.abs(m))) ** 2))
        mu_b = math.sqrt(bias_share) * mu_star
        b_hat, sigma_b, mu_b_got = gdp_release(np.array([[float(np.mean(lost))]]), cap / n, mu_b,
                                         epsilon, delta, gen)
        b_hat = max(float(b_hat[0, 0]), 0.0)
        del lost
        # 3. the rest of the budget where the expected loss is smaller
        mu2 = math.sqrt(max(mu_star ** 2 - mu1 ** 2 - mu_b_got ** 2, 0.0))
        if mu2 <= 0:  # pragma: no cover - the shares leave a positive remainder
            raise RuntimeError("no budget left for the last release")
        sigma2 = math.sqrt(2.0) * (r2 + r2 / k) / (n * mu2)
        pred_cp = coinpress_noise_loss(S, weights, sigma2) + b_hat * b_hat
        eps2 = gaussian_epsilon(delta, 1.0, mu2)
        plan2, _ = plan_second_moment(task, epsilon=eps2, delta=delta, noise="auto")
        V = 1.0 / (1.0 / np.maximum(plan1.entry_variance, 1e-300)
                   + 1.0 / np.maximum(plan2.entry_variance, 1e-300))
        sel_task = task if (select_units == "original") == (kind == "covariance") else \
            augmented_task(lo_l, hi_l, n, "covariance" if select_units == "original" else "pca",
                           n_components=n_components)[0]
        pred_mom = float(np.sum(sel_task.loss_matrix * V))
        if pred_cp < pred_mom:
            Gy, _, mu2_got = whitened_release(Xl, center, m, A, r2, mu2, epsilon, delta, gen, Z,
                                              Y=Y)
            C, m = unwhiten(Gy, r2, m, A_inv)
            # as CoinPress: the feasible set in the original units first (post-processing)
            C = project_covariance(C, variance_max=hl * hl)
            choice, allocation, V = "coinpress", "coinpress", None
        else:
            G2, mu2_got = _moment_release(plan2, value, gen)
            w1 = 1.0 / np.maximum(plan1.entry_variance, 1e-300)
            w2 = 1.0 / np.maximum(plan2.entry_variance, 1e-300)
            G = (w1 * G1 + w2 * G2) / (w1 + w2)
            m = G[:k, k] / t
            C = G[:k, :k] - np.outer(m, m)
            C = 0.5 * (C + C.T)
            choice, allocation = "moments", plan2.allocation
    del gen, Y, Z
    mu_used = math.sqrt(mu1 ** 2 + mu_b_got ** 2 + mu2_got ** 2)
    if mu_used > mu_star * (1 + 1e-9):  # pragma: no cover - the shares are built to sum to μ*²
        raise RuntimeError("adaptive releases exceeded the budget")
    cov[np.ix_(live, live)] = C
    loc[live] = np.clip(center + m, lo_l, hi_l)
    return AdaptiveResult(cov, loc, guarantee, choice,
                          {"moments": float(pred_mom), "coinpress": float(pred_cp),
                           "clipping_loss": b_hat, "clipping_loss_sd": float(sigma_b)},
                          allocation,
                          (mu1, mu_b_got, mu2_got), V)
