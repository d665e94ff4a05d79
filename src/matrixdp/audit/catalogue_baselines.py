r"""Catalogue entries for the baselines (:mod:`matrixdp.baselines`) and DP-SVD (``dp_covariance_eigen``).

Every entry runs the *shipped* function once on its witness dataset to read the
calibration and the guarantee it claims, then audits the law of its released
matrix on the two neighbouring datasets through an adapter of
:mod:`matrixdp.audit.adapters` (vectorised draws from the same sampler).

Witnesses (records in rows, the rest of the dataset zero; ``R = 1``):

* unit-ball second moment (MOD-SULQ, DP-SVD, PPCA, JL): the record e₁ against e₂,
  which attains the exact L2 sensitivity √2/n of the upper triangle (and the largest
  change of the exponential mechanisms' score, range 2);
* Wishart: the zero record against a unit record u = e₁ (``docs/derivations/baselines.md``:
  the support event has probability 1 − e^{−ε/3} under one neighbour, 0 under the other);
* box-bounded covariance (Analyze Gauss, symmetric Laplace, entries in [−c, c]): the pair
  of records whose outer products' upper triangles are farthest apart (L2 for Gaussian
  noise, L1 for Laplace), :func:`box_corner_pair`.

The random-guess floors (``uniform_predictions``, ``random_unit_vector``,
``random_orthonormal_basis``) do not read the data and have nothing to audit.

References
----------
.. [1] W. Jiang, C. Xie, Z. Zhang (2016). Wishart mechanism for differentially private
   principal components analysis. AAAI.
.. [2] C. Dwork, K. Talwar, A. Thakurta, L. Zhang (2014). Analyze Gauss. STOC.
"""

from __future__ import annotations

import itertools

import numpy as np

from ..errors import InvalidParameterError
from ..mechanisms.base import PrivacyGuarantee
from .adapters import (GaussianSketchRelease, ProjectorRelease, SymmetricNoiseRelease,
                       WishartRelease, upper_triangle)
from .catalogue import CatalogueEntry

__all__ = ["baseline_entries", "unit_pair", "box_corner_pair", "enumerate_box_corner_pair",
           "PPCA_K_SAMPLES"]

#: Draws per value for PPCA-k: its Gibbs chain runs one Python loop per draw.
PPCA_K_SAMPLES = 2_000


def unit_pair(records: int, dim: int, *, first=0, second=1,
              background: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Two datasets of ``records`` rows whose row 0 is e_first (None: 0) resp. e_second.

    Rows 1..``background`` are e₁ in both (a shared background), the others zero.
    """
    n, d = int(records), int(dim)
    if not 0 <= int(background) < n:
        raise InvalidParameterError("background", f"must be in [0, {n - 1}], got {background!r}")
    x = np.zeros((n, d))
    x[1:1 + int(background), 0] = 1.0
    y = x.copy()
    if first is not None:
        x[0, first] = 1.0
    if second is not None:
        y[0, second] = 1.0
    return x, y


def box_corner_pair(dim: int, bound: float, *, norm: int) -> tuple[np.ndarray, np.ndarray]:
    r"""Records x, y in [−c, c]^d whose outer products' upper triangles are farthest apart.

    * ``norm=1``: x = c·1 against y = 0, every one of the d(d+1)/2 entries moves by c²
      (an entry can move by 2c² only across a sign cut, which reaches at most d²/4 of them);
    * ``norm=2``: x = c·1 against y = c·(1, …, 1, −1, …, −1) with ⌊d/2⌋ minus signs: the
      |S|(d − |S|) upper entries across the cut move by 2c², norm 2c²·sqrt(⌊d/2⌋⌈d/2⌉).

    The tests check both against an enumeration of {−c, 0, c}^d for small d.
    """
    d, c = int(dim), float(bound)
    x = np.full(d, c)
    if norm == 1:
        return x, np.zeros(d)
    if norm == 2:
        y = x.copy()
        y[d - d // 2:] = -c
        return x, y
    raise InvalidParameterError("norm", f"must be 1 or 2, got {norm!r}")


def enumerate_box_corner_pair(dim: int, bound: float, *, norm: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`box_corner_pair` by brute force over {−c, 0, c}^d (small d only; for the tests)."""
    d, c = int(dim), float(bound)
    points = np.array(list(itertools.product((-c, 0.0, c), repeat=d)))
    tri = upper_triangle(points[:, :, None] * points[:, None, :])
    diff = tri[:, None, :] - tri[None, :, :]
    dist = np.abs(diff).sum(-1) if norm == 1 else np.sqrt((diff * diff).sum(-1))
    i, j = np.unravel_index(int(np.argmax(dist)), dist.shape)
    return points[i], points[j]


def _second_moments(pair, scale: float):
    """(XᵀX·scale, YᵀY·scale) of a dataset pair."""
    return tuple(np.asarray(x).T @ np.asarray(x) * scale for x in pair)


def _with_datasets(adapter, datasets):
    adapter.datasets = tuple(datasets)
    return adapter


# ------------------------------------------------------------------ additive, Gaussian / Laplace
def _triu_stream(sigma: float):
    """Upper-triangle noise drawn as ``np.triu(standard_normal((d, d)) * sigma)`` (n at once)."""
    def draw(n, d, rng):
        return upper_triangle(rng.standard_normal((n, d, d))) * sigma
    return draw


def _mechanism_stream(mechanism):
    """Upper-triangle noise drawn as ``symmetric_release`` does: ``mechanism.sample_noise(m)``."""
    def draw(n, d, rng):
        return mechanism.sample_noise((n, d * (d + 1) // 2), rng=rng)
    return draw


def _mod_sulq(calibration):
    def build(epsilon, delta, dim, records):
        from ..baselines import mod_sulq, unit_ball_upper_sensitivity

        datasets = unit_pair(records, dim)
        rel = mod_sulq(datasets[0], epsilon=epsilon, delta=delta, n_components=1,
                       row_norm_bound=1.0, calibration=calibration, rng=0)
        n = int(records)
        return _with_datasets(SymmetricNoiseRelease(
            "mod-sulq" + ("" if calibration == "paper" else "-" + calibration), rel.privacy,
            _second_moments(datasets, 1.0 / n), kind="gaussian", scale=rel.noise_scale,
            draw_upper=_triu_stream(rel.noise_scale),
            sensitivity=unit_ball_upper_sensitivity(dim, n)), datasets)
    return build


def _dp_covariance_eigen(calibration):
    def build(epsilon, delta, dim, records):
        from ..directions import dp_covariance_eigen

        datasets = unit_pair(records, dim)
        res = dp_covariance_eigen(datasets[0], epsilon=epsilon, delta=delta, norm_bound=1.0,
                                  calibration=calibration, rng=0)
        return _with_datasets(SymmetricNoiseRelease(
            "dp-covariance-eigen" + ("" if calibration == "classic" else "-" + calibration),
            res.privacy, _second_moments(datasets, 1.0), kind="gaussian", scale=res.noise_scale,
            draw_upper=_triu_stream(res.noise_scale), sensitivity=res.sensitivity), datasets)
    return build


def _box_datasets(records, dim, bound, norm):
    x, y = box_corner_pair(dim, bound, norm=norm)
    first = np.zeros((int(records), int(dim)))
    second = first.copy()
    first[0], second[0] = x, y
    return first, second


def _analyze_gauss(epsilon, delta, dim, records):
    from ..baselines import ClassicGaussianBaseline, covariance_upper_sensitivity

    n = int(records)
    sens = covariance_upper_sensitivity(dim, 1.0, n, norm=2)
    mech = ClassicGaussianBaseline(epsilon=epsilon, delta=delta, sensitivity=sens)
    datasets = _box_datasets(records, dim, 1.0, 2)
    return _with_datasets(SymmetricNoiseRelease(
        "analyze-gauss", mech.privacy, _second_moments(datasets, 1.0 / n), kind="gaussian",
        scale=mech.sigma, draw_upper=_mechanism_stream(mech), sensitivity=sens), datasets)


def _symmetric_laplace(epsilon, dim, records):
    from ..baselines import covariance_upper_sensitivity
    from ..mechanisms import LaplaceMechanism

    n = int(records)
    mech = LaplaceMechanism(epsilon=epsilon,
                            sensitivity=covariance_upper_sensitivity(dim, 1.0, n, norm=1))
    datasets = _box_datasets(records, dim, 1.0, 1)
    return _with_datasets(SymmetricNoiseRelease(
        "symmetric-laplace", mech.privacy, _second_moments(datasets, 1.0 / n), kind="laplace",
        scale=mech.scale, draw_upper=_mechanism_stream(mech)), datasets)


# ------------------------------------------------------------------------------- Wishart
def _wishart(epsilon, dim, records):
    from ..baselines import wishart_pca, wishart_support_failure

    datasets = unit_pair(records, dim, first=None, second=0)
    rel = wishart_pca(datasets[0], epsilon=epsilon, n_components=1, row_norm_bound=1.0,
                      allow_unsafe=True, rng=0)
    return _with_datasets(WishartRelease(
        "wishart", rel.privacy, _second_moments(datasets, 1.0 / int(records)),
        scale=rel.metadata["scale"], support_failure=wishart_support_failure(epsilon)), datasets)


# ----------------------------------------------------------------------------- JL sketch
def _blocki_jl(epsilon, delta, dim, records, projections):
    from ..baselines import blocki_jl_covariance

    datasets = unit_pair(records, dim)
    res = blocki_jl_covariance(datasets[0], epsilon=epsilon, delta=delta, r=int(projections),
                               row_norm_bound=1.0, rng=0)
    lifted = tuple(a + res.w ** 2 * np.eye(int(dim))
                   for a in _second_moments(datasets, 1.0 / res.scale ** 2))
    privacy = PrivacyGuarantee(epsilon=float(epsilon), delta=float(delta),
                               calibration="Blocki et al. 2012 (w floor)", exact=False,
                               mechanism="blocki-jl")
    adapter = GaussianSketchRelease("blocki-jl", privacy, lifted, r=int(projections))
    adapter.w = res.w
    return _with_datasets(adapter, datasets)


# ------------------------------------------------------------------- exponential mechanism
#: Background records e₁ in PPCA's witness: with S concentrated on e₁ the normalising constants
#: no longer cancel and the loss at v = e₂ approaches ε (e₁ vs e₂ alone reaches only ε/2).
PPCA_BACKGROUND = 4


def _ppca(epsilon, dim, records):
    from ..baselines import sample_bingham

    datasets = unit_pair(records, dim, background=PPCA_BACKGROUND)
    privacy = PrivacyGuarantee(epsilon=float(epsilon), delta=0.0,
                               calibration="exponential mechanism (exact Bingham sampler)",
                               exact=True, mechanism="ppca")

    def draw(score, n, rng):
        return sample_bingham(0.5 * epsilon * score, n, rng=rng)

    return _with_datasets(ProjectorRelease("ppca", privacy, _second_moments(datasets, 1.0),
                                           epsilon=epsilon, draw=draw), datasets)


def _ppca_k(epsilon, dim, records, components, sweeps):
    from ..baselines import ppca_components

    datasets = unit_pair(records, dim)
    scores = _second_moments(datasets, 1.0)
    privacy = ppca_components(datasets[0], epsilon=epsilon, n_components=int(components),
                              row_norm_bound=1.0, sweeps=1, rng=0).privacy

    def draw(score, n, rng):
        # Faithful: the shipped function on the dataset whose score is `score`, one chain per draw.
        idx = [k for k, s in enumerate(scores) if np.array_equal(s, score)]
        if not idx:
            raise InvalidParameterError("value", "ppca-k adapter: not one of its witness answers")
        x = datasets[idx[0]]
        return np.stack([ppca_components(x, epsilon=epsilon, n_components=int(components),
                                         row_norm_bound=1.0, sweeps=int(sweeps),
                                         rng=rng).components for _ in range(n)])

    return _with_datasets(ProjectorRelease("ppca-k", privacy, scores, epsilon=epsilon, draw=draw),
                          datasets)


def _own_witness(mech, params):
    return mech.witnesses()


def baseline_entries() -> list[CatalogueEntry]:
    """The baseline rows of the catalogue (raises ImportError when the baselines are absent)."""
    import matrixdp.baselines  # noqa: F401  (feature detection)

    unit = {"epsilon": 1.0, "delta": 1e-5, "dim": 3, "records": 10}
    entries = [
        CatalogueEntry("wishart", "Wishart mechanism (Jiang et al. 2016), pure epsilon claim "
                       "(allow_unsafe); zero record vs unit record", _wishart,
                       {"epsilon": 1.0, "dim": 3, "records": 10}, _own_witness, unsafe=True),
        CatalogueEntry("mod-sulq", "MOD-SULQ, paper's beta (exact-profile checked); e1 vs e2",
                       _mod_sulq("paper"), dict(unit), _own_witness),
        CatalogueEntry("mod-sulq-analytic", "MOD-SULQ, analytic sigma at sensitivity sqrt(2)/n",
                       _mod_sulq("analytic"), dict(unit), _own_witness),
        CatalogueEntry("analyze-gauss", "Analyze Gauss: symmetric_release + classic Gaussian "
                       "baseline, entries in [-1, 1]", _analyze_gauss,
                       {"epsilon": 1.0, "delta": 1e-5, "dim": 4, "records": 10}, _own_witness),
        CatalogueEntry("symmetric-laplace", "symmetric_release + Laplace (L1 of the triangle), "
                       "entries in [-1, 1]", _symmetric_laplace,
                       {"epsilon": 1.0, "dim": 4, "records": 10}, _own_witness),
        CatalogueEntry("dp-covariance-eigen", "DP-SVD directions (dp_covariance_eigen), classic "
                       "sigma, norm bound 1", _dp_covariance_eigen("classic"),
                       dict(unit, epsilon=0.5), _own_witness),
        CatalogueEntry("dp-covariance-eigen-analytic", "DP-SVD directions, analytic sigma",
                       _dp_covariance_eigen("analytic"), dict(unit), _own_witness),
        CatalogueEntry("blocki-jl", "JL covariance sketch (Blocki et al. 2012), audited as S^T S/r",
                       _blocki_jl, dict(unit, projections=8), _own_witness),
        CatalogueEntry("ppca", "PPCA top component (exponential mechanism, exact sampler)",
                       _ppca, {"epsilon": 1.0, "dim": 3, "records": 10}, _own_witness),
        CatalogueEntry("ppca-k", "PPCA-k (Gibbs chain, approximate guarantee), k = 2 of d = 3, "
                       f"{PPCA_K_SAMPLES} draws", _ppca_k,
                       {"epsilon": 1.0, "dim": 3, "records": 10, "components": 2, "sweeps": 2},
                       _own_witness, max_samples=PPCA_K_SAMPLES),
    ]
    return entries
