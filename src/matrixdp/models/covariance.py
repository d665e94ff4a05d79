"""DP covariance, Gram and correlation matrices with public per-feature bounds (scikit-learn API).

One release of the second moments of the records, centred at the middle of their public box and
augmented with a public constant coordinate that carries the mean, through the noise allocation that
minimises the task's expected loss (``docs/when_mvg_wins.md``).
"""

from __future__ import annotations

import math

import numpy as np
from sklearn.base import BaseEstimator

from ..errors import InvalidParameterError
from ._dask import augmented_moments, is_dask_collection
from ._base import (NoGeneratorStateMixin, bounded_records, charging, check_privacy_params,
                    finish_bounds, fit_bounds,
                    check_relation)
from ._moments import MomentTask, balanced_constant, release_second_moment, keep_release

__all__ = ["DPCovariance"]

KINDS = ("covariance", "gram", "correlation")


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


def fit_second_moments(estimator, X, lower, upper, kind, *, epsilon, delta, noise, label,
                       n_components=None):
    """Release the task's second moments of ``X`` (already validated and clipped).

    Returns ``(release, center, t)``. A Dask ``X`` is clipped (per ``estimator.clip``) and
    summed block by block; only the reduced matrix reaches the driver.
    """
    relation = check_relation(estimator.neighbouring)
    value = Z = None
    if is_dask_collection(X):  # t and the centre are public: they do not depend on n
        _, center, t = augmented_task(lower, upper, 1, kind, relation, n_components)
        n, value = augmented_moments(X, lower, upper, center, t, clip=estimator.clip,
                                     mean=relation != "add-remove")
        task, center, t = augmented_task(lower, upper, n, kind, relation, n_components)
    else:
        n = X.shape[0]
        task, center, t = augmented_task(lower, upper, n, kind, relation, n_components)
        if task.lower.size == X.shape[1]:  # replace-one gram: the records themselves
            Z = X
        else:
            Z = np.empty((n, X.shape[1] + 1))
            np.subtract(X, center, out=Z[:, :-1])
            Z[:, -1] = t
    rel = release_second_moment(
        Z, task, epsilon=epsilon, delta=delta, noise=noise, rng=estimator.random_state,
        charging=lambda p: charging(estimator.accountant, p, label=label), value=value)
    return rel, center, t


def project_psd(matrix: np.ndarray) -> np.ndarray:
    """Nearest (Frobenius) PSD matrix: negative eigenvalues set to 0 (post-processing)."""
    lam, vec = np.linalg.eigh(0.5 * (matrix + matrix.T))
    if lam[0] >= 0:
        return matrix
    out = (vec * np.maximum(lam, 0.0)) @ vec.T
    return 0.5 * (out + out.T)


def covariance_from_release(G: np.ndarray, center: np.ndarray, t: float, kind: str,
                            neighbouring: str = "replace-one"):
    """``(matrix, location)`` of ``kind`` from the released augmented second moments.

    Under add-remove ``G`` holds sums: it is divided by the released count ``n̂ = G_tt / t²``
    (floored at 1; post-processing).
    """
    d = center.size
    if neighbouring == "add-remove":
        G = G / max(G[d, d] / (t * t), 1.0)
    if kind == "gram":
        return (G if G.shape[0] == d else G[:d, :d]), None
    M = G[:d, :d]
    m = G[:d, d] / t
    cov = M - np.outer(m, m)
    return 0.5 * (cov + cov.T), center + m


def correlation_from_covariance(cov: np.ndarray) -> np.ndarray:
    """Correlation matrix of a (PSD-projected) covariance; a zero variance gives correlation 0."""
    sd = np.sqrt(np.maximum(np.diagonal(cov), 0.0))
    safe = np.where(sd > 0, sd, 1.0)
    corr = cov / np.outer(safe, safe)
    corr[sd == 0, :] = 0.0
    corr[:, sd == 0] = 0.0
    corr = np.clip(corr, -1.0, 1.0)
    np.fill_diagonal(corr, 1.0)
    return corr


class DPCovariance(NoGeneratorStateMixin, BaseEstimator):
    r"""Differentially private covariance, Gram or correlation matrix with public bounds.

    One (ε, δ)-DP release (replace-one neighbours; the number of records is public) of the second
    moments of the records clipped to the public box ``bounds``: for ``"covariance"`` and
    ``"correlation"`` the records are centred at the middle ``c`` of the box and augmented with a
    public constant ``t`` so that the same matrix also carries the mean; the covariance is
    ``M̂ - m̂ m̂ᵀ``. The noise is chosen by ``noise``:

    - ``"auto"`` (default): among i.i.d. Gaussian noise and MVG allocations, the one with the least
      exact expected loss for ``kind``, computed from the public bounds, ``n`` and the shape only
      (never from the data). Never worse than ``"iid"`` in expected loss; strictly better when the
      public ranges differ.
    - ``"mvg"``: matrix-variate Gaussian noise ``MVG(0, Σ, Σ)`` with the closed-form allocation for
      the task's loss (variance ∝ range for the Frobenius loss), exactly calibrated.
    - ``"iid"``: the analytic Gaussian mechanism at the Frobenius sensitivity of the same query
      (exact where attained, else the certified bound; ``privacy_.exact`` says which).

    For ``kind="correlation"`` the loss is measured in units of the public half-widths, which is the
    same as releasing the problem rescaled to the unit box (correlation is invariant to it): there
    the i.i.d.-in-rescaled-units allocation is what the task-weighted MVG allocation reduces to.

    Parameters
    ----------
    epsilon : float, default 1.0
        > 0.
    delta : float, default 1e-6
        In (0, 1).
    bounds : (lower, upper)
        Public bounds, scalars or one value per feature. Required; never derived from the data.
        Or ``"dp"`` / :class:`~matrixdp.models.dp_bounds.DPBounds`: a share (default 10%) of
        ``epsilon`` estimates them (exponential-mechanism quantiles over a PUBLIC grid, charged as
        its own entry; ``bounds_`` and ``bounds_privacy_`` after fit; see docs/bounds.md).
    kind : {"covariance", "gram", "correlation"}, default "covariance"
        ``"gram"`` is the raw second moment ``XᵀX/n``; ``"covariance"`` divides by ``n`` (as
        :class:`sklearn.covariance.EmpiricalCovariance`).
    noise : {"auto", "mvg", "iid"}, default "auto"
    neighbouring : {"replace-one", "add-remove"}, default "replace-one"
        Replace-one (the number of records ``n`` is public; the release is ``(1/n)ZᵀZ``) or
        add-remove (``n`` is private: the sum ``ZᵀZ`` is released, its corner carries the count, and
        one record's difference ``±zzᵀ`` has the exact sensitivity ``R²``).
    project_psd : bool, default True
        Project the released matrix onto the PSD cone (post-processing; never increases the
        Frobenius error of a covariance).
    clip : bool, default True
        Clip records to ``bounds`` (no warning: the bounds are public and the guarantee unchanged);
        ``False`` raises :class:`~matrixdp.errors.OutOfBoundsError` for data outside them.
    random_state : None, int or numpy.random.Generator
        ``None``: a fresh cryptographically secure generator (use it for real releases). An int
        makes the fit reproducible, and replayable by whoever knows the seed. Passed as ``rng=`` to
        the mechanisms. A Generator is dropped from pickles and copies of the fitted model (its
        state after the fit would replay the noise).
    accountant : Accountant, Ledger or object with ``spend(guarantee, label=...)``, optional
        Charged the fit's whole guarantee before any noise is drawn (a refusal stops the fit).
        ``None``: the accountants of enclosing ``with Accountant(...):`` blocks, if any.

    Attributes
    ----------
    covariance_ : ndarray (n_features, n_features)
        The released matrix of ``kind``.
    location_ : ndarray (n_features,)
        DP mean (``None`` for ``kind="gram"``).
    privacy_ : PrivacyGuarantee
        The guarantee of the whole fit.
    noise_ : str
        ``"iid"`` or ``"mvg"`` (what was used).
    noise_summary_ : NoiseSummary
        The mechanism's description of the raw noise (data-independent).
    expected_loss_ : float
        Exact expected loss of the released second moments for ``kind`` (public).
    noise_candidates_ : dict
        Expected loss of each allocation ``"auto"`` considered (public).
    allocation_ : str
        ``"iid"``, ``"task-weighted"`` or ``"mse-optimal"``.
    entry_variance_ : ndarray (k, k)
        Exact variance of each entry of the released (symmetrised) second-moment matrix of the
        records ``(x - c, t)`` (``(x)`` for ``"gram"``); public, data-independent.
    n_features_in_, feature_names_in_

    References
    ----------
    .. [1] T. Chanyaswad, A. Dytso, H. V. Poor and P. Mittal, "A Differential Privacy Mechanism
       Design Under Matrix-Valued Query", arXiv:1802.10077.
    .. [2] matrixdp, ``docs/when_mvg_wins.md`` and ``docs/mvg.md`` (the exact calibration).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).uniform(0, [1, 10, 1000], size=(5000, 3))
    >>> est = DPCovariance(epsilon=1.0, bounds=(0, [1, 10, 1000]), random_state=0).fit(X)
    >>> est.covariance_.shape, est.noise_
    ((3, 3), 'mvg')
    """

    def __init__(self, *, epsilon=1.0, delta=1e-6, bounds=None, kind="covariance", noise="auto",
                 neighbouring="replace-one", project_psd=True, clip=True, random_state=None,
                 accountant=None):
        self.neighbouring = neighbouring
        self.epsilon = epsilon
        self.delta = delta
        self.bounds = bounds
        self.kind = kind
        self.noise = noise
        self.project_psd = project_psd
        self.clip = clip
        self.random_state = random_state
        self.accountant = accountant

    def fit(self, X, y=None):
        """Release the matrix of ``kind`` for ``X`` (``y`` is ignored)."""
        eps, delta, noise = check_privacy_params(self)
        if self.kind not in KINDS:
            raise InvalidParameterError("kind", f"must be one of {KINDS}, got {self.kind!r}")
        X, lo, hi, eps = fit_bounds(self, X, eps)
        rel, center, t = fit_second_moments(self, X, lo, hi, self.kind, epsilon=eps, delta=delta,
                                            noise=noise, label="DPCovariance.fit")
        cov, loc = covariance_from_release(rel.value, center, t, self.kind, self.neighbouring)
        if self.project_psd or self.kind == "correlation":
            cov = project_psd(cov)
        if self.kind == "correlation":
            cov = correlation_from_covariance(cov)
        self.covariance_ = cov
        self.location_ = loc
        keep_release(self, rel)
        finish_bounds(self)
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = self.random_state is None
        return tags
