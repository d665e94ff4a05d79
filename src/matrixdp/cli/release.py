"""``matrixdp release``: a differentially private statistic of the curator's own table.

Reads a CSV or Parquet file, keeps the columns named in a PUBLIC bounds schema, clips them
into their public ranges and releases one statistic (mean, sum, covariance, Gram,
correlation, PCA or linear regression) with the (epsilon, delta) given. Writes a JSON file
with the released values, the guarantee, the expected error and every parameter needed to
reproduce the calibration (nothing read from the data but the public record count), and
optionally an HTML report with PNG plots. ``--ledger`` charges a budget ledger first.
"""

from __future__ import annotations

import contextlib
import json
import math
import platform
import sys
from pathlib import Path

import numpy as np

from .._version import __version__
from ..errors import InvalidParameterError
from ._paths import atomic_output, check_input_file, check_output_path
from ._tables import (Schema, bounds_arrays, category_groups, check_sep, design_matrix,
                      parse_bound_options, read_header, read_schema, read_table, template_text,
                      text_columns)
from ._options import seed as _seed

QUERIES = ("mean", "sum", "covariance", "gram", "correlation", "pca", "linreg")
NOISES = ("auto", "mvg", "iid")
#: Number representations: "float" (idealised real arithmetic) or "exact" (lattice + exact
#: discrete Gaussian noise; mean and sum only in this version, see docs/numerics.md).
NUMERICS = ("float", "exact")
#: Queries that can be released with exact numerics.
EXACT_QUERIES = ("mean", "sum")
#: Format version of RELEASE.json.
FORMAT_VERSION = 1


# ----------------------------------------------------------------------------- parameters
def _check_privacy(args) -> tuple[float, float]:
    eps = args.epsilon
    if eps is None:
        raise InvalidParameterError("--epsilon", "is required (the privacy budget of this release)")
    if not (math.isfinite(eps) and eps > 0):
        raise InvalidParameterError("--epsilon", f"must be a finite number > 0, got {eps:g}")
    delta = args.delta
    if not (0.0 < delta < 1.0):
        raise InvalidParameterError("--delta", f"must be in (0, 1), got {delta:g}")
    return float(eps), float(delta)


def _schema(args) -> Schema:
    if not args.bounds:
        raise InvalidParameterError(
            "--bounds", "is required: a bounds file (write one with `matrixdp release --template "
                        "DATA --out bounds.toml` and fill in the PUBLIC ranges) or COL=LO:HI "
                        "options")
    files = [b for b in args.bounds if "=" not in b]
    if files and len(args.bounds) > 1:
        raise InvalidParameterError("--bounds", "give either one bounds file or COL=LO:HI options")
    schema = read_schema(files[0]) if files else parse_bound_options(args.bounds)
    if args.target is not None:
        schema = Schema(schema.columns, target=args.target, source=schema.source)
    return schema


class _LedgerCharge:
    """The estimators' ``accountant=`` hook, spending on a ledger under the release's label."""

    def __init__(self, ledger, label: str):
        self.ledger = ledger
        self.label = label
        self.charged = []

    @property
    def keeper_identity(self):
        """The ledger's file: a ``with`` block of the same file is not charged again."""
        return self.ledger.keeper_identity

    def spend(self, guarantee, label: str = ""):
        entry = self.ledger.spend(guarantee, label=self.label)
        self.charged.append(entry)
        return entry


# ----------------------------------------------------------------------------- error bars
#: Coverage of the intervals written beside every released number.
LEVEL = 0.95
#: "Noise dominates" when a released number's expected error (noise std or RMS bound) exceeds
#: this fraction of its public range.
NOISE_DOMINATES = 0.10

_INTERVAL_NOTE = (
    "Each interval is the released value plus or minus the {pct} quantile of its noise, computed "
    "from the public noise scale only (never from the data). It is a noise-only interval: it "
    "ignores clipping bias (records outside the public ranges). When the release was projected "
    "onto the feasible set (post-processing, the default), the interval is centred on the "
    "projected value and cut to the public range of the entry; because the projection onto a "
    "convex set that contains the true value never moves the release away from it (entrywise "
    "for a box; in total, Frobenius norm, for a matrix), the box-projected intervals (means, "
    "sums) cover at least as often as the raw ones, while for projected matrices, and for means "
    "whose categorical shares were projected onto the simplex, the per-entry coverage is "
    "approximate. PCA's explained-variance intervals also reach out by the "
    "eigenvalues' second-order bias on the side the truth lies. Bars marked approximate are "
    "first-order or plug-in; their measured coverage is in results/error_bar_coverage.md of "
    "the matrixdp repository.")


def _bar(value, std, distribution, scale, *, lo=None, hi=None, approximate=False,
         what="noise standard deviation") -> dict:
    """Error bar of a released array: std, a LEVEL interval, and the error relative to ``scale``."""
    from ..mechanisms.base import noise_half_width

    value = np.asarray(value, dtype=np.float64)
    std = np.broadcast_to(np.asarray(std, dtype=np.float64), value.shape)
    half = noise_half_width(distribution if not approximate else "gaussian", std, LEVEL)
    lower, upper = value - half, value + half
    pinned = np.zeros(value.shape, dtype=bool)
    if lo is not None:
        lo_b = np.broadcast_to(np.asarray(lo, dtype=np.float64), value.shape)
        hi_b = np.broadcast_to(np.asarray(hi, dtype=np.float64), value.shape)
        lower = np.minimum(np.maximum(lower, lo_b), value)
        upper = np.maximum(np.minimum(upper, hi_b), value)
        # a public range of zero width (lower == upper in the bounds: a public constant) pins the
        # projected entry to its only possible value: no error is left (public: bounds only)
        pinned = lo_b == hi_b
        std = np.where(pinned, 0.0, std)
    scale = np.broadcast_to(np.asarray(scale, dtype=np.float64), value.shape)
    # an entry whose public range has zero width but which was not projected: any noise is all
    # of its range (reported as 100%, the cap)
    relative = np.where(scale > 0, std / np.where(scale > 0, scale, 1.0),
                        np.where(std > 0, 1.0, 0.0))
    return {"std": std.tolist(), "lower": lower.tolist(), "upper": upper.tolist(),
            "relative": relative.tolist(), "scale": scale.tolist(),
            "approximate": bool(approximate), "what": what}


def _project_means(value, lower, upper, groups, total=1.0):
    """The released means (or sums: ``total`` = n, bounds scaled) on their feasible set: each
    clamped to its public range, and each categorical column's shares (``groups``, public schema)
    projected onto the simplex (non-negative, summing to ``total``) from the raw release. One
    projection per categorical column of the schema, not per record or entry."""
    from ..feasible import clamp, project_simplex

    raw = np.asarray(value, dtype=np.float64)
    out = clamp(raw, lower, upper)
    for idx in groups:
        out[idx] = project_simplex(raw[idx], total)
    return out


def _covariance_noise_model(G, G_var, center, t, lower, upper):
    """``(V, m, u)``: the noise model of ``S = M - m mᵀ`` read from released augmented moments.

    ``V`` (``d x d``) holds the public noise variances of the released centred second moments
    ``M = G[:d, :d]`` (independent upper-triangle entries: i.i.d. and diagonal-MVG noise alike),
    ``u`` those of the mean offset ``G[:d, d] / t`` and ``m`` a plug-in of the (private) offset
    of the mean from the public centre, read from the release (:func:`~matrixdp.models.covariance.
    covariance_noise`; post-processing). Nothing is read from the data.
    """
    from ..models.covariance import covariance_noise

    d = len(lower)
    _, m, u = covariance_noise(G, G_var, center, t, lower, upper)
    return np.asarray(G_var, dtype=np.float64)[:d, :d], m, u


def _sym_outer_std(w, v, V, m, u) -> np.ndarray:
    """Noise std of ``f(S) = wᵀ S v`` for a covariance ``S`` released from augmented moments.

    ``S = M - m mᵀ`` is released from the moments ``M`` (symmetric noise ``E`` with independent
    upper-triangle entries of variances ``V``) and the mean offset ``m`` (independent noise ``δ``
    of variances ``u``), so ``dS = E - (m δᵀ + δ mᵀ) - δ δᵀ`` and, with ``W = (w vᵀ + v wᵀ)/2``
    and ``Q = V' + 2 u uᵀ`` (``V'``: ``V`` with its off-diagonal doubled, each pair being one
    draw)::

        var f = sum_ab W_ab² Q_ab + sum_j (w_j (v·m) + v_j (w·m))² u_j
              = ½ [(w²)ᵀ Q v² + (w∘v)ᵀ Q (w∘v)] + sum_j (w_j (v·m) + v_j (w·m))² u_j,

    exact given ``m`` (the mean's cross terms correlate the entries of ``S``: a sum of per-entry
    variances would miss them). ``w``, ``v``: arrays ``(..., d)``, broadcast. ``m`` is the
    release's plug-in (:func:`_covariance_noise_model`): public quantities and released values
    only (post-processing).
    """
    w, v = np.broadcast_arrays(np.asarray(w, dtype=np.float64), np.asarray(v, dtype=np.float64))
    Q = 2.0 * np.asarray(V, dtype=np.float64)
    np.fill_diagonal(Q, np.diagonal(V))
    Q = Q + 2.0 * np.outer(u, u)
    wv = w * v
    var = 0.5 * (np.einsum("...a,ab,...b->...", w * w, Q, v * v)
                 + np.einsum("...a,ab,...b->...", wv, Q, wv))
    var = var + np.einsum("...j,j->...", (w * (v @ m)[..., None] + v * (w @ m)[..., None]) ** 2,
                          u)
    return np.sqrt(np.clip(var, 0.0, None))


def _outer_var_rows(W, v, Q, m, u) -> np.ndarray:
    """:func:`_sym_outer_std`'s variance for every row ``w`` of ``W`` (shape ``(r, d)``) against
    one ``v``, with ``Q`` precomputed: matrix products, ``O(r d²)`` time and ``O(r d)`` memory
    (the broadcast form holds ``(r, d, d)`` arrays when called for many ``v``)."""
    term1 = (W * W) @ (Q @ (v * v))
    A = W * v[None, :]
    term2 = np.sum((A @ Q) * A, axis=1)
    term3 = ((W * (v @ m) + v[None, :] * (W @ m)[:, None]) ** 2) @ u
    return 0.5 * (term1 + term2) + term3


def _noise_q(V, u) -> np.ndarray:
    """``Q = V' + 2 u uᵀ`` of :func:`_sym_outer_std` (``V'``: ``V``, off-diagonal doubled)."""
    Q = 2.0 * np.asarray(V, dtype=np.float64)
    np.fill_diagonal(Q, np.diagonal(V))
    return Q + 2.0 * np.outer(u, u)


def _entry_std(V, m, u) -> np.ndarray:
    """Noise std of every entry ``S_ij`` of the covariance: :func:`_sym_outer_std` at
    ``w = e_i``, ``v = e_j``, in closed form (``O(d²)``; broadcasting the unit vectors cost
    ``O(d⁴)`` time and ``O(d³)`` memory)::

        var S_ij = ½ (Q_ij + [i = j] Q_ii) + u_i m_j² + u_j m_i² + 2 [i = j] u_i m_i²,

    ``Q = V' + 2 u uᵀ`` as there (``V'``: ``V`` with its off-diagonal doubled).
    """
    V, m, u = (np.asarray(a, dtype=np.float64) for a in (V, m, u))
    Q = _noise_q(V, u)
    var = 0.5 * Q + np.outer(u, m * m) + np.outer(m * m, u)
    var[np.diag_indices_from(var)] += 0.5 * np.diagonal(Q) + 2.0 * u * m * m
    return np.sqrt(np.clip(var, 0.0, None))


def _correlation_std(rho, S_diag, V, m, u) -> np.ndarray:
    """First-order noise std of each correlation ``ρ_ij = S_ij / sqrt(S_ii S_jj)`` (i ≠ j).

    ``dρ_ij = a dS_ij + b_i dS_ii + b_j dS_jj`` with ``a = 1/sqrt(S_ii S_jj)`` and
    ``b_i = -ρ_ij / (2 S_ii)``; its variance follows from the noise model of ``S``
    (:func:`_sym_outer_std`, the same three terms). ``rho`` and ``S_diag`` are the released
    correlations and variances (plug-ins, post-processing); entries with a zero variance get 1.
    """
    S_diag = np.asarray(S_diag, dtype=np.float64)
    pos = S_diag > 0
    sd = np.sqrt(np.where(pos, S_diag, 1.0))
    a = 1.0 / np.outer(sd, sd)
    b = -0.5 * rho / np.where(pos, S_diag, 1.0)[:, None]  # b[i, j] = b_i of the pair (i, j)
    bt = b.T  # b_j of the pair (i, j)
    Vd = np.diagonal(V)
    var = (a * a * (V + np.outer(u, u)) + b * b * (Vd + 2.0 * u * u)[:, None]
           + bt * bt * (Vd + 2.0 * u * u)[None, :]
           + u[:, None] * (a * m[None, :] + 2.0 * b * m[:, None]) ** 2
           + u[None, :] * (a * m[:, None] + 2.0 * bt * m[None, :]) ** 2)
    std = np.sqrt(np.clip(var, 0.0, None))
    return np.where(np.outer(pos, pos), std, 1.0)


def _moment_expected(est, what, loss_units) -> dict:
    summary = est.noise_summary_
    return {"noise": est.noise_, "allocation": getattr(est, "allocation_", None),
            "distribution": summary.distribution, "scale": summary.scale,
            "per_entry_variance": summary.per_entry_variance,
            "expected_squared_error": summary.expected_squared_error,
            "expected_loss": getattr(est, "expected_loss_", None),
            "noise_candidates": getattr(est, "noise_candidates_", {}),
            "loss_units": loss_units, "what": what}


def _project_scaled(M, lower, upper, unit):
    """Nearest PSD matrix within the entry box ``[lower, upper]`` (Frobenius in the units
    ``M / (unit unitᵀ)``), then made exactly feasible on the diagonal: a congruence ``D M D``
    with ``D <= 1`` brings any variance Dykstra's iterations left above its maximum (they converge
    slowly when the public scales differ by orders of magnitude) down to it and keeps the matrix
    PSD (post-processing)."""
    from ..feasible import project_psd_box

    unit = np.where(np.asarray(unit, dtype=np.float64) > 0, unit, 1.0)
    uu = np.outer(unit, unit)
    out = project_psd_box(M / uu, np.asarray(lower) / uu, np.asarray(upper) / uu) * uu
    dmax = np.diag(np.asarray(upper, dtype=np.float64))
    diag = np.diag(out)
    shrink = np.where(diag > dmax, np.sqrt(np.maximum(dmax, 0.0) / np.where(diag > 0, diag, 1.0)),
                      1.0)
    out = out * np.outer(shrink, shrink)
    return 0.5 * (out + out.T)


def _covariance_of(G, center, t):
    """``(M - m mᵀ, centre + m)`` from released augmented moments (post-processing)."""
    d = center.size
    m = G[:d, d] / t
    cov = G[:d, :d] - np.outer(m, m)
    return 0.5 * (cov + cov.T), center + m


def _entry_names(names):
    return [[f"{a}, {b}" for b in names] for a in names]


# ----------------------------------------------------------------------------- the queries
def _release_vector(query, X, lower, upper, epsilon, delta, noise, rng, keeper, project, n=None,
                    groups=()):
    """Mean (or sum = n x mean, post-processing with n public) through :class:`DPMean`."""
    from ..models import DPMean

    n = X.shape[0] if n is None else n
    # the raw release (project=False): the command projects it itself (clamp and simplex)
    est = DPMean(epsilon=epsilon, delta=delta, bounds=(lower, upper), noise=noise,
                 random_state=rng, accountant=keeper, project=False).fit(X)
    scale = float(n) if query == "sum" else 1.0
    value = np.asarray(est.mean_, dtype=np.float64)
    if project:
        value = _project_means(value, lower, upper, groups)
    value = scale * value
    std = scale * np.sqrt(np.asarray(est.noise_variance_, dtype=np.float64))
    summary = est.noise_summary_
    expected = {"noise": est.noise_, "allocation": getattr(est, "allocation_", None),
                "distribution": summary.distribution,
                "per_entry_variance": float(np.mean(std ** 2)),
                "expected_squared_error": float(np.sum(std ** 2)),
                "expected_loss": getattr(est, "expected_loss_", None),
                "noise_candidates": getattr(est, "noise_candidates_", {}),
                "loss_units": f"squared error of the {query}s, in the columns' units squared",
                "entry_std": std.tolist(),
                "what": f"standard deviation of the noise on each released {query}",
                # replace-one: one record moves the mean by at most ||upper - lower||_2 / n
                "sensitivity_l2": float(np.linalg.norm(upper - lower)) / (1.0 if query == "sum"
                                                                          else n)}
    bars = {"values": _bar(value, std, summary.distribution, scale * (upper - lower),
                           lo=scale * lower if project else None,
                           hi=scale * upper if project else None,
                           approximate=bool(project and len(groups)))}
    return {"values": value.tolist()}, est.privacy_, expected, bars


def _release_vector_exact(query, X, lower, upper, epsilon, delta, noise, rng, keeper, project,
                          groups=()):
    """Mean or sum with exact numerics: the lattice Gaussian mechanism at the public sensitivity."""
    from ..mechanisms import GaussianMechanism

    if noise == "mvg":
        raise InvalidParameterError("--noise", "--numerics exact releases i.i.d. discrete "
                                               "Gaussian noise: use --noise auto or iid")
    n = X.shape[0]
    # replace-one: one record moves the sum by at most ||upper - lower||_2 (the mean by 1/n of it)
    sensitivity = float(np.linalg.norm(upper - lower))
    value = X.sum(axis=0)
    scale = float(n) if query == "sum" else 1.0
    if query == "mean":
        sensitivity /= n
        value = np.clip(value / n, lower, upper)
    mech = GaussianMechanism(epsilon=epsilon, delta=delta, sensitivity=sensitivity,
                             numerics="exact")
    # the mechanism charges the ledger itself (its sigma depends on the value's size)
    kwargs = {} if keeper is None else {"ledger": keeper.ledger, "label": keeper.label}
    rel = mech.release(value, rng=rng, **kwargs)
    out = np.asarray(rel.value, dtype=np.float64)
    if project:
        out = _project_means(out, scale * lower, scale * upper, groups, total=scale)
    std = np.full(value.shape, rel.std)
    expected = {"noise": "iid", "allocation": None, "distribution": rel.noise.distribution,
                "scale": rel.noise.scale, "per_entry_variance": rel.noise.per_entry_variance,
                "expected_squared_error": rel.noise.expected_squared_error,
                "loss_units": f"squared error of the {query}s, in the columns' units squared",
                "entry_std": std.tolist(),
                "what": f"standard deviation of the noise on each released {query} (discrete "
                        "Gaussian on a lattice, rounding included)",
                "sensitivity_l2": sensitivity}
    bars = {"values": _bar(out, std, rel.noise.distribution, scale * (upper - lower),
                           lo=scale * lower if project else None,
                           hi=scale * upper if project else None,
                           approximate=bool(project and len(groups)))}
    return {"values": out.tolist()}, rel.privacy, expected, bars


def _pca_std(lam, vec, V, m, u):
    """First-order (perturbation) noise std of eigenvalues and eigenvector entries.

    ``lam``, ``vec`` are the released (projected) eigenpairs (columns) of the covariance and
    ``(V, m, u)`` its noise model (:func:`_covariance_noise_model`). To first order
    ``dλ_k = v_kᵀ dS v_k`` and ``dv_k[i] = w_kiᵀ dS v_k`` with
    ``w_ki = sum_{l≠k} v_l v_l[i] / (λ_k - λ_l)``: functionals ``wᵀ dS v`` whose std
    :func:`_sym_outer_std` gives, the mean's cross terms included. A plug-in approximation from
    released values only (post-processing); eigenvector entries are capped at 1 (they lie in
    [-1, 1]), which is what close eigenvalues give. Returns ``(lam_std (d,), comp_std (d, d))``,
    ``comp_std[k, i]`` the std of entry ``i`` of component ``k``.
    """
    d = vec.shape[0]
    V, m, u = (np.asarray(a, dtype=np.float64) for a in (V, m, u))
    lam_std = _sym_outer_std(vec.T, vec.T, V, m, u)
    gaps = lam[None, :] - lam[:, None]  # gaps[l, k] = lam_k - lam_l
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = np.where(np.eye(d, dtype=bool), 0.0, 1.0 / gaps)
    inv = np.where(np.isfinite(inv), inv, 1e150)  # equal eigenvalues: the loadings are free
    Q = _noise_q(V, u)
    comp_var = np.empty((d, d))
    with np.errstate(over="ignore", invalid="ignore"):
        # one component at a time (a loop over the d components, not over entries): O(d²)
        # memory; all at once the (d, d, d) array of the w_ki took O(d³) memory and O(d⁴) time
        for k in range(d):
            w = (vec * inv[:, k]) @ vec.T  # w[i] = sum_l v_l v_l[i] inv[l, k]
            comp_var[k] = _outer_var_rows(w, vec[:, k], Q, m, u)
        comp_std = np.sqrt(np.clip(comp_var, 0.0, None))
    comp_std = np.minimum(np.where(np.isfinite(comp_std), comp_std, 1.0), 1.0)
    return lam_std, comp_std


def _eigenvalue_bias(lam, vec, V, m, u):
    """Second-order bias of the released eigenvalues (a plug-in from the release).

    With ``σ²_lk = var(v_lᵀ dS v_k)`` (:func:`_sym_outer_std`), perturbation theory to second
    order gives ``E[dλ_k] = v_kᵀ E[dS] v_k + sum_{l≠k} σ²_lk / (λ_k - λ_l)``: noise spreads the
    eigenvalues apart (the top ones are inflated, the bottom ones deflated), and
    ``E[dS] = -diag(u)`` (the mean's own noise, ``-δ δᵀ``). Released eigenpairs and public noise
    variances only (post-processing); equal eigenvalues contribute nothing.
    """
    d = vec.shape[0]
    V, m, u = (np.asarray(a, dtype=np.float64) for a in (V, m, u))
    Q = _noise_q(V, u)
    pair = np.empty((d, d))  # pair[l, k] = var(v_lᵀ dS v_k), one k at a time (O(d²) memory)
    for k in range(d):
        pair[:, k] = np.clip(_outer_var_rows(vec.T, vec[:, k], Q, m, u), 0.0, None)
    gaps = lam[None, :] - lam[:, None]  # gaps[l, k] = lam_k - lam_l
    keep = ~np.eye(d, dtype=bool) & (gaps != 0)
    return (np.sum(np.where(keep, pair / np.where(keep, gaps, 1.0), 0.0), axis=0)
            - (vec * vec).T @ u)


def _widen(bar, bias, lo, hi):
    """Extend an interval on the side where a released value's second-order bias puts the truth
    (``truth ≈ value - bias``), cut to ``[lo, hi]``; post-processing of public quantities."""
    lower, upper = np.asarray(bar["lower"]), np.asarray(bar["upper"])
    bias = np.broadcast_to(np.asarray(bias, dtype=np.float64), lower.shape)
    bar["lower"] = np.maximum(lower - np.maximum(bias, 0.0), lo).tolist()
    bar["upper"] = np.minimum(upper - np.minimum(bias, 0.0), hi).tolist()
    return bar


def _release_matrix(query, X, lower, upper, epsilon, delta, noise, rng, keeper, args, names,
                    project, groups=()):
    from ..feasible import (covariance_entry_bounds, nearest_correlation, orthonormalise,
                            project_feasible, second_moment_entry_bounds)
    from ..models import DPCovariance, DPPCA
    from ..models.covariance import augmented_task, correlation_from_covariance

    d = len(lower)
    h = 0.5 * (upper - lower)
    hh = np.outer(h, h)
    if query == "pca":
        k = args.components
        # method="moments": the error bars below come from the moments release's public entry
        # variances (entry_variance_, moments_), which DPPCA's default (method="auto", adaptive
        # on in-memory replace-one input since task PX) does not have
        est = DPPCA(n_components=k, epsilon=epsilon, delta=delta, bounds=(lower, upper),
                    noise=noise, random_state=rng, accountant=keeper, method="moments").fit(X)
    else:
        # shrinkage="none": the command post-processes the raw release itself and its error
        # bars are those of the unshrunk matrices (the library's correlation default shrinks).
        # method="moments": the error bars and the expected loss below are computed from the
        # moments release's public entry variances (entry_variance_, moments_), which the
        # estimator's default for a covariance (method="adaptive", round 3e) does not have
        est = DPCovariance(epsilon=epsilon, delta=delta, bounds=(lower, upper), kind=query,
                           noise=noise, project_psd=False, random_state=rng,
                           accountant=keeper, shrinkage="none", method="moments").fit(X)
    dist = est.noise_summary_.distribution
    G_var = np.asarray(est.entry_variance_, dtype=np.float64)
    G = np.asarray(est.moments_, dtype=np.float64)
    bars = {}
    if query == "gram":
        mlo, mhi = second_moment_entry_bounds(lower, upper)
        matrix = _project_scaled(G, mlo, mhi, np.ones(d)) if project else 0.5 * (G + G.T)
        std = np.sqrt(G_var)
        released = {"matrix": matrix.tolist()}
        # projected: the noise std, but the Frobenius projection can move one entry away from
        # the truth (never the whole matrix): per entry the interval is approximate
        bars["matrix"] = _bar(matrix, std, dist, mhi - mlo, lo=mlo if project else None,
                              hi=mhi if project else None, approximate=project,
                              what="noise standard deviation" + (
                                  " (of the raw entry; the projected entry's error is "
                                  "usually smaller, per entry not always)" if project else "")
                              + "; the intervals are for X'X/n of the records clipped to the "
                                "public ranges")
        expected = _moment_expected(est, "standard deviation of the noise on each entry of the "
                                         "Gram matrix X'X/n", "squared Frobenius error of X'X/n, "
                                                               "in the columns' units squared")
        expected["entry_std"] = std.tolist()
        return released, est.privacy_, expected, bars
    _, center, t = augmented_task(lower, upper, 2, "covariance")  # public: bounds only
    # noise model of the covariance from public variances and the release (post-processing)
    V, m_off, u = _covariance_noise_model(G, G_var, center, t, lower, upper)
    B = _entry_std(V, m_off, u)
    cov, mean = _covariance_of(G, center, t)
    sd_mean = np.sqrt(G_var[:d, d]) / t
    if project:
        mean = _project_means(mean, lower, upper, groups)
        # PSD, variances in [0, h²], Cauchy-Schwarz, in the metric of the query's loss: Frobenius
        # in the original units for a covariance (in half-width units the projection moved noise
        # of the small-range columns into the large-range ones: results/projection_utility.md),
        # in units of the public half-widths for correlation and PCA (as DPPCA)
        cov_lo, cov_hi = covariance_entry_bounds(h * h)
        cov = _project_scaled(cov, cov_lo, cov_hi, h if query != "covariance" else np.ones(d))
    cov_lo, cov_hi = -hh.copy(), hh.copy()
    np.fill_diagonal(cov_lo, 0.0)
    mean_bar = _bar(mean, sd_mean, dist, upper - lower, lo=lower if project else None,
                    hi=upper if project else None, approximate=bool(project and len(groups)))
    if query == "covariance":
        released = {"matrix": cov.tolist(), "mean": mean.tolist()}
        width = 2.0 * hh  # off-diagonal entries lie in [-h_i h_j, h_i h_j], variances in [0, h_i²]
        np.fill_diagonal(width, h * h)
        bars["matrix"] = _bar(cov, B, dist, width,
                              lo=cov_lo if project else None, hi=cov_hi if project else None,
                              approximate=True,
                              what="noise standard deviation of each entry, the mean's noise "
                                   "included (its offset from the public centre read from the "
                                   "release: a plug-in); the intervals are for the covariance "
                                   "of the records clipped to the public ranges, divided by n "
                                   "(not n - 1)")
        bars["mean"] = mean_bar
        expected = _moment_expected(
            est, "noise standard deviation of each covariance entry (the mean's own noise "
                 "included, a plug-in from the release); the range of an entry is "
                 "[-h_i h_j, h_i h_j] with h the public half-widths",
            "squared Frobenius error of the covariance, in the columns' units squared")
        expected["entry_std"] = B.tolist()
        return released, est.privacy_, expected, bars
    if query == "correlation":
        corr = np.asarray(est.covariance_, dtype=np.float64) if not project else \
            nearest_correlation(correlation_from_covariance(cov))
        # first order with plug-ins (post-processing of the released correlations and
        # variances): d rho = d S_ij / (s_i s_j) - rho / 2 (d S_ii / S_ii + d S_jj / S_jj)
        # --no-project: the estimator's correlation comes from its covariance projected in
        # half-width units (DPCovariance always projects a correlation): its variances are the
        # plug-ins that match what is released
        var = np.clip(np.diag(cov if project else project_feasible(
            cov, lower, upper, "correlation", units="unit-box")), 0.0, None)
        std = np.minimum(_correlation_std(np.clip(corr, -1.0, 1.0), var, V, m_off, u), 1.0)
        np.fill_diagonal(std, 0.0)
        released = {"matrix": corr.tolist(), "mean": mean.tolist()}
        off = np.ones((d, d)) * -1.0
        np.fill_diagonal(off, 1.0)
        on = np.ones((d, d))
        if project:  # a public constant column's correlations are released as 0 exactly
            const = np.logical_or.outer(lower == upper, lower == upper) & ~np.eye(d, dtype=bool)
            off[const], on[const] = 0.0, 0.0
        bars["matrix"] = _bar(corr, std, dist, 2.0, lo=off, hi=on,
                              approximate=True, what="first-order noise std of each "
                                                     "correlation (plug-in from the released "
                                                     "correlations and variances; capped at 1); "
                                                     "for |correlation| near 1 the intervals "
                                                     "cover less than 95% "
                                                     "(results/error_bar_coverage_heldout.md); "
                                                     "the intervals are for the correlations "
                                                     "of the records clipped to the public "
                                                     "ranges")
        bars["mean"] = mean_bar
        expected = _moment_expected(
            est, "first-order noise std of each correlation, from the public noise variances "
                 "of the moments and the released correlations and variances (post-processing; "
                 "approximate, capped at 1)",
            "squared Frobenius error of the covariance in units of the public half-widths "
            "(dimensionless)")
        expected["entry_std"] = std.tolist()
        return released, est.privacy_, expected, bars
    # pca: eigenpairs of the (projected) covariance; components orthonormal
    k = est.n_components_
    if not project:
        # --no-project releases the estimator's own eigenvectors, which come from its covariance
        # projected in half-width units (DPPCA's default): the bars are computed from that same
        # matrix, so they describe what is released (post-processing of the release)
        cov = project_feasible(cov, lower, upper, "covariance", units=est.projection_)
    lam_all, vec_all = np.linalg.eigh(cov)
    order = np.argsort(lam_all)[::-1]
    lam_all, vec_all = lam_all[order], vec_all[:, order]
    if project:
        comps = orthonormalise(vec_all[:, :k]).T
        big = np.argmax(np.abs(comps), axis=1)
        comps = comps * np.sign(comps[np.arange(k), big])[:, None]
        lam = np.maximum(lam_all[:k], 0.0)
        total = float(np.trace(cov))
        ratio = lam / total if total > 0 else np.zeros(k)
    else:  # the estimator's own output (its PSD projection in half-width units only)
        comps = np.asarray(est.components_, dtype=np.float64)
        lam = np.asarray(est.explained_variance_, dtype=np.float64)
        ratio = np.asarray(est.explained_variance_ratio_, dtype=np.float64)
        mean = np.asarray(est.mean_, dtype=np.float64)
    lam_std, comp_std = _pca_std(lam_all, vec_all, V, m_off, u)
    released = {"components": comps.tolist(), "explained_variance": lam.tolist(),
                "explained_variance_ratio": ratio.tolist(), "mean": mean.tolist()}
    total_var = float(np.sum(h * h))  # the largest total variance the public box allows
    bars["components"] = _bar(comps, comp_std[:k], "gaussian", 2.0, lo=-1.0, hi=1.0,
                              approximate=True,
                              what="first-order (perturbation) noise std of each loading, capped "
                                   "at 1; indicative only: where eigenvalues are close or epsilon "
                                   "is low the intervals cover well under 95% "
                                   "(results/error_bar_coverage.md); the intervals are for the "
                                   "principal components of the records clipped to the public "
                                   "ranges (each component's sign is a convention)")
    bars["explained_variance"] = _bar(lam, lam_std[:k], "gaussian", total_var, lo=0.0,
                                      hi=total_var, approximate=True,
                                      what="first-order noise std of each eigenvalue; the "
                                           "interval also reaches out by the second-order bias "
                                           "(noise spreads the eigenvalues apart) on the side "
                                           "the truth lies; the intervals are for the "
                                           "eigenvalues of the covariance of the records clipped "
                                           "to the public ranges, divided by n (not n - 1)")
    # noise spreads the eigenvalues apart (second order): the interval reaches out on the side
    # the truth lies (measured: results/error_bar_coverage.md)
    _widen(bars["explained_variance"], _eigenvalue_bias(lam_all, vec_all, V, m_off, u)[:k], 0.0,
           total_var)
    bars["mean"] = mean_bar
    expected = _moment_expected(
        est, "first-order error of the loadings and explained variances, from the public "
             "noise variances of the moments (the mean's included, a plug-in from the "
             "release); entry_std: each covariance entry's noise std",
        "squared Frobenius error of the covariance in units of the public half-widths "
        "(dimensionless)")
    expected["entry_std"] = B.tolist()
    return released, est.privacy_, expected, bars


#: What ``error_bars.coef.penalty`` and ``penalty_relative`` are (public text, in the JSON).
PENALTY_UNITS = (
    "penalty: what the fit adds to each feature's sum of squares over the records, in that "
    "feature's units squared: the ridge regression minimises the sum of (y - intercept - "
    "x.coef)^2 over the records plus the sum over features of penalty_j coef_j^2 (scikit-learn's "
    "Ridge(alpha) is penalty_j = alpha); penalty_j = alpha + ridge x the public noise scale of "
    "feature j's released sum of squares. penalty_relative: penalty / (n x half-width^2), a "
    "share of the largest sum of squares about the middle of its range the feature's public "
    "range allows (records spread evenly over the range give 1/3): where the features are "
    "unrelated, a feature whose records' variance is v half-widths squared has its "
    "least-squares coefficient multiplied by about v / (v + penalty_relative)")


def _regression_estimand(est, alpha, lower, upper, n, project) -> dict:
    """What the regression bars are an interval FOR (``docs/regression.md`` §7,
    ``results/coef_bar_estimand.md``): the solve's own fit applied to the records' (clipped)
    moments, i.e. least squares, or ridge regression with the penalty the solve added
    (:func:`~matrixdp.models.normal_equations.feature_penalty`: ``--alpha`` plus the noise-aware
    ridge ``λ = ridge_`` times each feature's public noise scale). Post-processing of the
    release (``λ`` is read off it) and public inputs (noise variances, bounds, ``n`` public
    under replace-one); no value computed from the records."""
    from ..models.normal_equations import feature_penalty

    ridge = float(getattr(est, "ridge_", 0.0))
    # a public constant feature (lower == upper) is left out of the projected solve
    pinned = (lower == upper) if project else None
    penalty = feature_penalty(ridge, est.entry_variance_, n, len(lower), alpha=alpha,
                              pinned=pinned)
    top = n * (0.5 * (upper - lower)) ** 2  # the largest sum of squares about the middle: n h²
    relative = np.where(top > 0, penalty / np.where(top > 0, top, 1.0), 0.0)
    return {"estimand": "ridge" if ridge > 0.0 or alpha > 0.0 else "least-squares",
            "ridge": ridge, "alpha": float(alpha), "penalty": penalty.tolist(),
            "penalty_relative": relative.tolist(), "penalty_units": PENALTY_UNITS}


def _release_linreg(X, y, lower, upper, ylo, yhi, epsilon, delta, noise, rng, keeper, args,
                    names, target, project, n=None):
    from ..models import DPLinearRegression, DPRidge, RegressionOptions
    from ..models.normal_equations import PROJECTION_UNITS

    common = dict(epsilon=epsilon, delta=delta, bounds_X=(lower, upper), bounds_y=(ylo, yhi),
                  noise=noise, random_state=rng, accountant=keeper,
                  # --no-project solves the raw release the same way: the two arms differ only
                  # by the projection
                  projection=PROJECTION_UNITS if project else "none",
                  # the single release of [X y 1]'[X y 1] (the library's default before its
                  # boosting rounds, docs/regression.md §4c): this report states that one
                  # release's noise and its bars' coverage was measured for it
                  # (results/error_bar_coverage.md); the rounds' bars are not measured
                  experimental=RegressionOptions(boost_rounds=0))
    est = DPRidge(alpha=args.alpha, **common) if args.alpha else DPLinearRegression(**common)
    est.fit(X, y)
    G_var = np.asarray(est.entry_variance_, dtype=np.float64)
    coef, intercept = np.asarray(est.coef_, dtype=np.float64), float(est.intercept_)
    # delta-method error bars: post-processing the estimator computes from public variances
    coef_std, intercept_std = np.asarray(est.coef_std_), float(est.intercept_std_)
    released = {"coef": dict(zip(names, coef.tolist())), "intercept": intercept}
    std = np.sqrt(G_var).tolist()
    expected = _moment_expected(
        est, "standard deviation of the noise on each released sufficient statistic "
             "[X y 1]'[X y 1]/n (centred at the middle of the public ranges)",
        "squared coefficient error in units of the public half-widths (dimensionless)")
    expected["entry_std"] = std
    expected["entry_names"] = [*names, target, "1"]
    yw = float(yhi - ylo)
    xw = np.where(upper - lower > 0, upper - lower, 1.0)
    fit = _regression_estimand(est, float(args.alpha or 0.0), lower, upper,
                               float(X.shape[0] if n is None else n), project)
    ridge = fit["estimand"] == "ridge"
    what = ("delta-method (first-order) noise std of each coefficient, from the public noise "
            "variances of the released statistics (post-processing); 'error / public range' "
            "compares it with (range of the target) / (range of the feature). ")
    coef_for = (
        "The intervals are for the coefficients of a ridge regression on the records (clipped "
        "to the public ranges) with the penalty in error_bars.coef.penalty ("
        + ("--alpha plus " if fit["alpha"] > 0 else "") + "the noise-aware ridge the release "
        "chose), not for ordinary least squares: on a generated table with a collinear feature "
        "they covered that ridge fit in 93.5-100% of fits and ordinary least squares in as few "
        "as 22.5% (results/coef_bar_estimand.md, results/cli_bar_estimand.md)" if ridge else
        "No penalty was needed (ridge 0): the intervals are for the ordinary least-squares "
        "coefficients of the records (clipped to the public ranges); where the features' spread "
        "fills their public ranges they covered 93.5-96% (results/error_bar_coverage.md)")
    intercept_for = (
        "The interval is for the intercept of the same ridge regression on the records, not for "
        "ordinary least squares (" + (
            "here pulled towards the middle of the target's range as well: intercept_shrunk; "
            "coverage not measured in that case" if getattr(est, "intercept_shrunk_", False)
            else "covered in 99.5-100% of fits on the table of results/cli_bar_estimand.md")
        + ")" if ridge else
        "The interval is for the intercept of ordinary least squares on the records (clipped "
        "to the public ranges)")
    bars = {"coef": _bar(coef, coef_std, "gaussian", yw / xw, approximate=True,
                         what=what + coef_for),
            "intercept": _bar(np.array([intercept]), np.array([intercept_std]), "gaussian",
                              np.array([yw]), approximate=True, what=what + intercept_for)}
    # shrunk: the noise-aware ridge lifted the release (lambda > 0, read off the release:
    # public); both bars say what they are for, the coefficients' also the penalty per feature
    for key, bar in bars.items():
        bar["shrunk"] = fit["ridge"] > 0.0
        bar.update({k: v for k, v in fit.items() if key == "coef" or not k.startswith("penalty")})
    # the intercept itself lifted towards the centre of the target's range (a public rule) and
    # the largest bias that can cause over the target's public range (post-processing of the
    # release; docs/regression.md §3a)
    bars["intercept"]["intercept_shrunk"] = bool(getattr(est, "intercept_shrunk_", False))
    bars["intercept"]["bias_bound"] = float(getattr(est, "intercept_bias_bound_", 0.0))
    # The intercept is the prediction at x = 0. Where 0 lies outside a feature's public box it is
    # an extrapolation: the target's range does not bound it, so its error is not compared with
    # that range (no "noise dominates" verdict; the error bar itself is kept). Public: bounds only.
    outside = [c for c, a, b in zip(names, lower, upper) if not a <= 0.0 <= b]
    if outside:
        listed = ", ".join(outside[:3]) + (f" and {len(outside) - 3} more" if len(outside) > 3
                                           else "")
        bars["intercept"]["extrapolation"] = True
        bars["intercept"]["what"] = (
            f"{bars['intercept']['what']}. The intercept is the prediction at x = 0, outside the "
            f"public range of {listed}: an extrapolation, whose error the target's range does "
            "not bound (no 'noise dominates' verdict; centre the features to read a level inside "
            "the box)")
    return released, est.privacy_, expected, bars


# ----------------------------------------------------------------------------- noise warnings
def _bar_labels(query, key, names, shape, target=None):
    """Public labels of the entries of a released array (column names, never values)."""
    if key == "intercept":
        return ["intercept"]
    if key in ("values", "mean", "coef"):
        return [f"{query if key == 'values' else key}[{c}]" for c in names]
    if key == "matrix":
        return [f"{query}[{a}, {b}]" for a in names for b in names]
    if key == "components":
        return [f"PC{i + 1}[{c}]" for i in range(shape[0]) for c in names]
    if key == "explained_variance":
        return [f"explained variance of PC{i + 1}" for i in range(shape[0])]
    return [f"{key}[{i}]" for i in range(int(np.prod(shape)))]


def noise_warnings(doc: dict) -> list[str]:
    """One "noise dominates" line per released array whose expected error exceeds
    NOISE_DOMINATES of its public range (computed from public quantities only)."""
    out = []
    q, names = doc["query"], doc["columns"]
    for key, bar in doc["error_bars"].items():
        if bar.get("extrapolation"):  # e.g. an intercept at x = 0 outside the box: no range
            continue
        rel = np.asarray(bar["relative"], dtype=np.float64)
        over = rel > NOISE_DOMINATES
        if key == "matrix" and rel.ndim == 2:  # a symmetric matrix: count each pair once
            over = np.triu(over)
        if not over.any():
            continue
        labels = np.asarray(_bar_labels(q, key, names, rel.shape), dtype=object).reshape(rel.shape)
        worst = np.unravel_index(int(np.argmax(np.where(over, rel, -1.0))), rel.shape)
        total = int(np.triu(np.ones(rel.shape, bool)).sum()) if key == "matrix" and rel.ndim == 2 \
            else rel.size
        what = q if key in ("values", "matrix") else key.replace("_", " ")
        out.append(f"{what}: noise dominates {int(over.sum())} of the {total} released "
                   f"number{'' if total == 1 else 's'} (expected error above "
                   f"{NOISE_DOMINATES:.0%} of the public range; worst: {labels[worst]}, "
                   f"{float(rel[worst]):.0%} of its range); a larger epsilon, more records, "
                   "fewer columns or tighter public bounds reduce it")
    if any(bar.get("shrunk") for bar in doc["error_bars"].values()):
        ib = doc["error_bars"].get("intercept", {})
        out.append(f"{q}: the release was too noisy to solve unregularised, so the noise-aware "
                   "ridge shrank the estimates towards 0" + (
                       " (and the intercept towards the centre of the target's range)"
                       if ib.get("intercept_shrunk") else "")
                   + "; their intervals are for that ridge regression computed from the records "
                   "(penalty: error_bars.coef.penalty), not for "
                   "ordinary least squares, which they can miss far more often than 5% "
                   "(results/coef_bar_estimand.md, results/error_bar_coverage.md); a larger "
                   "epsilon, more records or tighter public bounds reduce the shrinkage" + (
                       "; the intercept's largest bias from it over the target's range is "
                       "error_bars.intercept.bias_bound (add it to the interval's half-width)"
                       if ib.get("intercept_shrunk") and ib.get("bias_bound", 0.0) > 0
                       else ""))
    return out


# ----------------------------------------------------------------------------- the command
def _guarantee_dict(g, numerics: str) -> dict:
    # the guarantee's own numerics note is the truth ("float" when any step was float)
    numerics = getattr(g, "numerics", numerics)
    return {"epsilon": g.epsilon, "delta": g.delta, "relation": g.neighbouring,
            "calibration": g.calibration, "exact": bool(g.exact), "numerics": numerics,
            "mechanism": g.mechanism, "refuted": bool(g.refuted), "notes": list(g.notes),
            "text": str(g)}


def _software() -> dict:
    import scipy
    import sklearn

    return {"name": "matrixdp", "version": __version__, "python": platform.python_version(),
            "numpy": np.__version__, "scipy": scipy.__version__, "scikit-learn": sklearn.__version__}


def write_template(args) -> int:
    data = args.template
    # the header row only: no data row is read
    names = read_header(data, option="--template", sep=check_sep(args.sep))
    text = template_text(names, data_name=Path(data).name)
    if args.out is None:
        sys.stdout.write(text)
        return 0
    out = check_output_path(args.out, force=args.force, inputs=[data])
    with atomic_output(out, "w") as fh:
        fh.write(text)
    print(f"wrote the bounds template for {len(names)} columns to {args.out}; fill in the PUBLIC "
          "ranges (from domain knowledge, never from the data) before releasing", file=sys.stderr)
    return 0


def run(args) -> int:
    if args.template is not None:
        if args.data is not None:
            raise InvalidParameterError("--template", "takes the data file itself: "
                                                      "matrixdp release --template DATA")
        return write_template(args)
    if args.data is None:
        raise InvalidParameterError("DATA", "give the data file (CSV or Parquet)")
    if args.query is None:
        raise InvalidParameterError("--query", f"is required: one of {', '.join(QUERIES)}")
    if args.numerics not in NUMERICS:
        raise InvalidParameterError("--numerics", f"must be one of {', '.join(NUMERICS)}, got "
                                                  f"{args.numerics!r}")
    if args.numerics == "exact" and args.query not in EXACT_QUERIES:
        raise InvalidParameterError(
            "--numerics", f"exact numerics are available for --query {' and '.join(EXACT_QUERIES)} "
                          "in this version; the matrix queries release in floating point "
                          "(--numerics float)")
    eps, delta = _check_privacy(args)
    if args.out is None:
        raise InvalidParameterError("--out", "is required: the RELEASE.json file to write")
    if args.components is not None and args.query != "pca":
        raise InvalidParameterError("--components", "applies to --query pca only")
    if args.alpha is not None and args.query != "linreg":
        raise InvalidParameterError("--alpha", "applies to --query linreg only")
    if args.alpha is not None and not (math.isfinite(args.alpha) and args.alpha >= 0):
        raise InvalidParameterError("--alpha", f"must be >= 0, got {args.alpha:g}")
    from ._dask import dask_input_files

    dask_files = dask_input_files(args.data, force=getattr(args, "dask", False))
    data = check_input_file(args.data, "DATA") if dask_files is None else Path(args.data)
    inputs = [data] if dask_files is None else dask_files
    out = check_output_path(args.out, force=args.force, inputs=inputs)
    report = None
    if args.report is not None:
        report = check_output_path(args.report, force=args.force, inputs=inputs,
                                   option="--report")
        if report.resolve() == out.resolve():
            raise InvalidParameterError("--report", "must differ from --out")
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise InvalidParameterError("--report", "needs matplotlib for its plots: "
                                                    "pip install 'matrixdp[plot]'") from None
    schema = _schema(args)
    if args.query == "linreg":
        if not schema.target:
            raise InvalidParameterError("--target", "--query linreg needs the label column: "
                                                    "--target COL or target = \"COL\" in the bounds file")
        if schema.target not in schema.names:
            raise InvalidParameterError("--bounds", f"the target {schema.target!r} needs a public "
                                                    "range too")
        if schema.column(schema.target).is_categorical:
            raise InvalidParameterError("--target", "must be a numeric column with a range")
    elif args.target is not None:
        raise InvalidParameterError("--target", "applies to --query linreg only")

    features = schema.features() if args.query == "linreg" else list(schema.columns)
    if not features:
        raise InvalidParameterError("--bounds", "lists no feature column")
    # linreg: reference coding (the first public category of each categorical feature is the
    # reference, absorbed in the intercept), so the design is not collinear
    reference = args.query == "linreg"
    lower, upper, names = bounds_arrays(features, drop_first=reference)
    # the one-hot blocks whose shares sum to 1 (public schema; linreg's reference coding has none)
    groups = [] if reference else category_groups(features)
    if not names:
        raise InvalidParameterError("--bounds", "lists no feature column with more than its "
                                                "reference category")
    project = not args.no_project
    session = contextlib.nullcontext()
    from ._dpbounds import DP_BOUNDS_FRACTION, dp_columns

    wants_dp_bounds = bool(dp_columns(schema))
    if wants_dp_bounds and dask_files is not None:
        raise InvalidParameterError("--bounds", "dp = true needs the table in memory (not a Dask "
                                                "input) in this version")
    if dask_files is None:
        frame = read_table(data, "DATA", columns=schema.names, sep=args.sep, quiet=args.quiet,
                           text_columns=text_columns(schema))
        n = int(frame.shape[0])
        X = None if wants_dp_bounds else design_matrix(frame, features, option="DATA",
                                                       clip=not args.no_clip, drop_first=reference)
    else:  # lazy: read, encoded and reduced partition by partition (cli/_dask.py)
        from ._dask import dask_design_frame, dask_session, read_dask_table

        frame = read_dask_table(dask_files, "DATA", columns=schema.names,
                                text_columns=text_columns(schema))
        encoded = dask_design_frame(frame, list(schema.columns), clip=not args.no_clip)
        X = encoded[names]
        session = dask_session(scheduler=args.scheduler, quiet=args.quiet)
    if args.components is not None and not 1 <= args.components <= len(names):
        raise InvalidParameterError("--components", f"must be in [1, {len(names)}] (the number "
                                                    f"of released columns), got {args.components}")

    ledger = keeper = None
    label = args.label or f"release {args.query} of {data.name}"
    if args.ledger is not None:
        from .budget import open_ledger

        ledger = open_ledger(args.ledger, dataset=args.dataset, data=args.data)
        if str(ledger.relation) != "replace-one":
            # the library's refusal named `neighbouring`, no option of this command
            relation = str(ledger.relation)
            ledger.close()
            raise InvalidParameterError(
                "--ledger", f"{args.ledger} was created for '{relation}' neighbours (`budget "
                            f"init --relation {relation}`); `matrixdp release` releases under "
                            "'replace-one' neighbours, which cannot be charged to it")
        keeper = _LedgerCharge(ledger, label)
    rng = args.seed  # None: the operating system's secure generator
    bounds_guarantee, dp_ranges = None, {}
    if wants_dp_bounds:  # a share of epsilon buys the missing ranges, charged as its own entry
        from ._dpbounds import resolve_dp_columns

        try:
            eps_bounds = DP_BOUNDS_FRACTION * eps
            eps -= eps_bounds
            schema, bounds_guarantee, dp_ranges = resolve_dp_columns(
                schema, frame, epsilon=eps_bounds, relation="replace-one", ledger=ledger,
                label=f"{label}: bounds", option="DATA", whole=(eps + eps_bounds, delta),
                rng=None if args.seed is None else np.random.default_rng([int(args.seed), 2]))
        except BaseException:
            if ledger is not None:
                ledger.close()
            raise
        features = schema.features() if args.query == "linreg" else list(schema.columns)
        lower, upper, names = bounds_arrays(features, drop_first=reference)
        groups = [] if reference else category_groups(features)
        X = design_matrix(frame, features, option="DATA", clip=not args.no_clip,
                          drop_first=reference)
    with session:
        try:
            if dask_files is not None:
                n = int(len(frame))  # public under replace-one, as in memory
            if args.numerics == "exact":
                if dask_files is not None:
                    raise InvalidParameterError("--numerics", "'exact' needs the table in memory "
                                                              "(not a Dask input) in this version")
                released, guarantee, expected, bars = _release_vector_exact(
                    args.query, X, lower, upper, eps, delta, args.noise, rng, keeper, project,
                    groups=groups)
            elif args.query in ("mean", "sum"):
                released, guarantee, expected, bars = _release_vector(
                    args.query, X, lower, upper, eps, delta, args.noise, rng, keeper, project,
                    n=n, groups=groups)
            elif args.query == "linreg":
                tcol = schema.column(schema.target)
                if dask_files is None:
                    y = design_matrix(frame, [tcol], option="DATA", clip=not args.no_clip)[:, 0]
                else:
                    y = encoded[schema.target]
                released, guarantee, expected, bars = _release_linreg(
                    X, y, lower, upper, tcol.lo, tcol.hi, eps, delta, args.noise, rng, keeper,
                    args, names, schema.target, project, n=n)
            else:
                released, guarantee, expected, bars = _release_matrix(
                    args.query, X, lower, upper, eps, delta, args.noise, rng, keeper, args,
                    names, project, groups=groups)
            ledger_state = _ledger_state(ledger) if ledger is not None else None
        finally:
            if ledger is not None:
                ledger.close()
    del X, frame  # nothing below reads the data
    if bounds_guarantee is not None:
        guarantee = bounds_guarantee + guarantee

    doc = {
        "format": "matrixdp-release", "format_version": FORMAT_VERSION,
        "query": args.query, "columns": names,
        "target": schema.target if args.query == "linreg" else None,
        "released": released,
        "projection": _projection_note(args.query, project, shares=bool(groups)),
        "guarantee": _guarantee_dict(guarantee, args.numerics),
        "expected_error": expected,
        "error_bars": bars,
        "error_bars_note": {"level": LEVEL,
                            "text": _INTERVAL_NOTE.format(pct=f"{LEVEL:.0%}")},
        "noise_dominates_fraction": NOISE_DOMINATES,
        "categorical_coding": ("reference: the first listed category of each categorical "
                               "feature is the reference (no column; absorbed in the intercept)"
                               if reference else "one 0/1 column per public category"),
        "parameters": {
            "epsilon": eps if bounds_guarantee is None else eps + bounds_guarantee.epsilon,
            "delta": delta, "noise": args.noise, "numerics": args.numerics,
            "bounds": schema.to_json(), "clip": not args.no_clip,
            "components": args.components, "alpha": args.alpha,
            "n_records": n,
            "n_records_note": "public under replace-one neighbouring (the record count is not "
                              "protected; it is part of the calibration)",
            "seeded": args.seed is not None,
            "source_file": data.name,
        },
        "software": _software(),
        "ledger": ledger_state,
    }
    if bounds_guarantee is not None:
        doc["dp_bounds"] = {"ranges": {k: list(v) for k, v in dp_ranges.items()},
                            "epsilon": bounds_guarantee.epsilon,
                            "guarantee": str(bounds_guarantee),
                            "method": "exponential-mechanism quartiles over a public grid, "
                                      "widened by 1.5 IQR (docs/bounds.md)"}
    doc["warnings"] = noise_warnings(doc)
    with atomic_output(out, "w") as fh:
        json.dump(doc, fh, indent=2, allow_nan=False, default=_plain_number)
        fh.write("\n")
    pngs = []
    if report is not None:
        from ._report import write_report

        pngs = write_report(doc, report)
    print(f"matrixdp release: {args.query} of {len(names)} column(s) from {data.name}")
    if bounds_guarantee is not None:
        print(f"DP bounds ({DP_BOUNDS_FRACTION:.0%} of --epsilon): {bounds_guarantee}")
        for name, (lo, hi) in dp_ranges.items():
            print(f"  - {name}: [{lo:.6g}, {hi:.6g}] (docs/bounds.md)")
    print(f"guarantee: {guarantee}")
    print(f"wrote {args.out}")
    if report is not None:
        print(f"wrote {args.report} (+ {len(pngs)} PNG plot(s))")
    if ledger_state is not None:
        print(f"ledger {args.ledger}: spent epsilon={ledger_state['spent']['epsilon']:.6g} of "
              f"{ledger_state['budget']['epsilon']:g}")
    for line in doc["warnings"]:
        print(f"warning: {line}", file=sys.stderr)
    if args.seed is not None:
        print("note: --seed makes the noise reproducible; a known seed voids the privacy "
              "guarantee (the seed is not written to the JSON file).")
    return 0


def _projection_note(query: str, project: bool, shares: bool = False) -> dict:
    """What the post-processing onto the feasible set did (public: it uses the bounds only).
    ``shares``: the schema has categorical columns, whose one-hot means (mean, sum, the
    covariance's mean) are projected onto the simplex."""
    simplex = ("; each categorical column's category shares projected onto the simplex "
               "(non-negative, summing to 1" + (", n for sums" if query == "sum" else "") +
               "; Euclidean, from the raw release)") if shares else ""
    what = {
        "mean": "means clamped to their public ranges" + simplex,
        "sum": "sums clamped to n times the public ranges" + simplex,
        "covariance": "mean clamped to the public ranges" + simplex + "; covariance "
                      "projected (Frobenius, in the columns' units) onto PSD matrices with "
                      "variances in [0, (hi-lo)^2/4] and Cauchy-Schwarz bounds |C_ij| <= "
                      "sqrt(v_i v_j)",
        "gram": "X'X/n projected (Frobenius, in the columns' units) onto PSD matrices whose "
                "entries lie between the public corner products",
        "correlation": "covariance projected onto the set of --query covariance (Frobenius in "
                       "units of the public half-widths), then the nearest valid correlation "
                       "matrix (PSD, unit diagonal)",
        "pca": "covariance projected onto the set of --query covariance (Frobenius in units of "
               "the public half-widths); components its orthonormal eigenvectors, explained "
               "variances its eigenvalues",
        "linreg": "released sufficient statistics projected onto PSD matrices within the "
                  "public entry bounds (means in range, variances at most their maxima, the "
                  "constant exact), as DPLinearRegression does (docs/regression.md); "
                  "coefficients solved on them with its noise-aware adaptive ridge "
                  "(--no-project: the same solve on the raw release)",
    }[query]
    return {"applied": bool(project), "what": what if project else "none (--no-project)",
            "note": "post-processing of the DP release using public bounds only: it costs no "
                    "privacy budget, and since the true statistic lies in the feasible set, the "
                    "projection never moves the release away from it (per entry for a box; in "
                    "the Euclidean norm of a block for the shares of a categorical column; for "
                    "a matrix in the Frobenius norm it is computed in, stated above)"}


def _plain_number(obj):
    """JSON for numpy scalars and arrays (everything else is an error)."""
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    raise TypeError(f"cannot write {type(obj).__name__} to the release file")


def _ledger_state(ledger) -> dict:
    spent = ledger.spent()
    return {
        "path": ledger.path.name,
        "budget": {"epsilon": ledger.epsilon, "delta": ledger.delta, "relation": ledger.relation},
        "spent": {"epsilon": spent.epsilon, "delta": spent.delta, "text": str(spent)},
        "remaining": dict(zip(("epsilon", "delta"), ledger.remaining())),
        "history": [{k: h[k] for k in ("id", "label", "status", "epsilon", "delta")}
                    for h in ledger.history()],
    }


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "release", help="release a DP statistic of your own CSV/Parquet table, with a report",
        description="Release a differentially private statistic of a CSV or Parquet table: the "
                    "columns named in a PUBLIC bounds schema are clipped into their ranges and "
                    "one statistic is released with (epsilon, delta)-DP under replace-one "
                    "neighbours (the record count is public). Start with `matrixdp release "
                    "--template DATA --out bounds.toml`, fill in the ranges from domain "
                    "knowledge, then release.")
    p.add_argument("data", nargs="?", metavar="DATA", help="the table (CSV with a header row, or "
                   ".parquet), or a directory or glob of such files (read with Dask)")
    p.add_argument("--template", metavar="DATA", default=None,
                   help="write a bounds file for DATA listing its column names only (no value "
                        "from the data) to --out, or to standard output")
    p.add_argument("--query", choices=QUERIES, default=None, help="what to release")
    p.add_argument("--sep", default=None, metavar="CHAR",
                   help="CSV delimiter (default ','; 'tab' for a tab)")
    p.add_argument("--bounds", action="append", default=[], metavar="BOUNDS.toml|COL=LO:HI",
                   help="public bounds: a TOML file from --template, or repeated COL=LO:HI")
    p.add_argument("--target", default=None,
                   help="label column of --query linreg (or target = \"COL\" in the bounds file)")
    p.add_argument("--epsilon", type=float, default=None, help="privacy budget of this release")
    p.add_argument("--delta", type=float, default=1e-6, help="delta (default 1e-6)")
    p.add_argument("--noise", choices=NOISES, default="auto",
                   help="auto (the least expected loss from public information), mvg "
                        "(matrix-variate Gaussian) or iid (analytic Gaussian)")
    p.add_argument("--numerics", default="float", metavar="{float,exact}",
                   help="float (the guarantee assumes idealised real arithmetic) or exact "
                        "(lattice + exact discrete Gaussian noise, floating-point safe; --query "
                        "mean and sum)")
    p.add_argument("--components", type=int, default=None,
                   help="number of principal components (--query pca; default all)")
    p.add_argument("--alpha", type=float, default=None,
                   help="ridge penalty (--query linreg; default: ordinary least squares)")
    p.add_argument("--no-project", action="store_true",
                   help="keep the raw noisy statistics: no projection onto the values the "
                        "statistic can take (by default means are clamped to their public "
                        "ranges, covariances made PSD within the variance and Cauchy-Schwarz "
                        "bounds, correlations valid, components orthonormal; post-processing, "
                        "free of budget)")
    p.add_argument("--no-clip", action="store_true",
                   help="refuse values outside the public ranges instead of clipping them")
    p.add_argument("--ledger", default=None, metavar="LEDGER",
                   help="budget ledger charged before any noise is drawn (the release is "
                        "refused if it does not fit)")
    p.add_argument("--label", default=None, help="public label of the ledger entry")
    p.add_argument("--dataset", default=None, metavar="NAME",
                   help="the dataset the --ledger was created for (`budget init --dataset`); "
                        "default: DATA's file name or stem must be that name")
    p.add_argument("--out", default=None, metavar="FILE",
                   help="RELEASE.json to write (with --template: the bounds file)")
    p.add_argument("--report", default=None, metavar="REPORT.html",
                   help="also write an HTML report with PNG plots beside it")
    p.add_argument("--force", action="store_true", help="replace existing output files")
    p.add_argument("--seed", type=_seed, default=None,
                   help="seed for reproducible noise (demonstrations only: a known seed voids "
                        "the guarantee; default: secure randomness)")
    p.add_argument("--quiet", action="store_true",
                   help="no progress bar (bars appear only on a terminal; "
                        "MATRIXDP_PROGRESS=always forces them)")
    p.add_argument("--dask", action="store_true",
                   help="read DATA with Dask, partition by partition (automatic when DATA is a "
                        "directory or a glob of Parquet/CSV files); see docs/scaling.md")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="with Dask: run on this existing distributed scheduler (e.g. "
                        "tcp://10.0.0.5:8786) instead of local threads")
    p.set_defaults(func=run)
