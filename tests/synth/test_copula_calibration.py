"""DPCopula's noise scales derived independently from docs/copula.md, not from the library.

μ* solves the Balle–Wang equation δ = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (here with scipy's
normal CDF and a root finder, not ``matrixdp.calibration``); with marginal fraction f,
σ₁ = √k / (μ*√f) on every histogram count and σ₂ = C²√((1 − 1/k)/2) / (μ*√(1 − f)) on every
off-diagonal score sum, C = clip_scale·√k. The released noise (released value minus the exact
statistic) must have these standard deviations: within 10% with ~5,000 draws each (the sd's
relative standard error is about 1%), and a scale 0.7× too small is rejected — checked below by
running the same check on a DPCopula whose draws are shrunk by 0.7.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import brentq
from scipy.stats import norm

import matrixdp.synth.copula as copula_module
from matrixdp.synth.copula import DPCopula, interval_score_moments
from matrixdp.synth.schema import TableSchema

SCHEMA = TableSchema(bounds={"age": (18, 90), "income": (0.0, 200.0)},
                     categories={"colour": ["red", "green", "blue"]})
EPS, DELTA, FRAC, BINS = 1.0, 1e-6, 0.4, 16
K = 3


def _mu_star(eps: float, delta: float) -> float:
    def excess(mu):
        return norm.cdf(-eps / mu + mu / 2) - math.exp(eps) * norm.cdf(-eps / mu - mu / 2) - delta
    return brentq(excess, 1e-6, 50.0, xtol=1e-14, rtol=1e-14)


def expected_sigmas() -> tuple[float, float]:
    mu = _mu_star(EPS, DELTA)
    clip = 1.0 * math.sqrt(K)
    sigma_hist = math.sqrt(K) / (mu * math.sqrt(FRAC))
    sigma_scores = clip ** 2 * math.sqrt((1 - 1 / K) / 2) / (mu * math.sqrt(1 - FRAC))
    return sigma_hist, sigma_scores


def _table(n=80, seed=0):
    rng = np.random.default_rng(seed)
    y = (rng.uniform(size=n) < 0.4).astype(int)
    age = np.clip(30 + 15 * y + 10 * rng.standard_normal(n), 18, 90)
    income = np.clip(50 + 40 * y + 20 * rng.standard_normal(n), 0, 200)
    colour = rng.choice(["red", "green", "blue"], n)
    return pd.DataFrame({"age": age, "income": income, "colour": colour}), y


def _bins(model, frame, col):
    e = model.bin_edges_[col]
    return np.clip(np.searchsorted(e, np.clip(frame[col], *SCHEMA.bounds[col]), side="right") - 1,
                   0, BINS - 1)


def released_noise(n_fits=80):
    """(histogram noise, score-sum noise): released values minus the exact statistics."""
    X, y = _table()
    codes_all = pd.Categorical(X["colour"], categories=["red", "green", "blue"]).codes
    iu = np.triu_indices(K, 1)
    hist, scores = [], []
    for seed in range(n_fits):
        model = DPCopula(schema=SCHEMA, epsilon=EPS, delta=DELTA, marginal_fraction=FRAC,
                         n_bins=BINS, classes=[0, 1], random_state=seed).fit(X, y)
        for col in ("age", "income"):
            b = _bins(model, X, col)
            true = np.stack([np.bincount(b[y == j], minlength=BINS) for j in (0, 1)])
            hist.append((model.marginal_counts_[col] - true).ravel())
        true = np.stack([np.bincount(codes_all[y == j], minlength=3) for j in (0, 1)])
        hist.append((model.marginal_counts_["colour"] - true).ravel())
        clip = math.sqrt(K)
        for j in (0, 1):
            Xc = X[y == j]
            S = np.empty((len(Xc), K))
            for i, col in enumerate(("age", "income")):
                S[:, i] = interval_score_moments(model.marginals_[col][j])[1][_bins(model, Xc, col)]
            order = model.orders_["colour"][j]
            pos = np.empty(3, dtype=int)
            pos[order] = np.arange(3)
            codes = codes_all[y == j]
            S[:, 2] = interval_score_moments(model.marginals_["colour"][j][order])[1][pos[codes]]
            S *= np.minimum(1.0, clip / np.maximum(np.linalg.norm(S, axis=1), 1e-300))[:, None]
            scores.append(model.correlation_raw_[j] - (S.T @ S)[iu])
    return np.concatenate(hist), np.concatenate(scores)


def _sd(x):
    return float(np.sqrt(np.mean(np.square(x))))


def _matches(sd, sigma) -> bool:
    return abs(sd / sigma - 1) < 0.10


@pytest.fixture(scope="module")
def noise():
    return released_noise()


def test_the_independent_scales_are_those_the_model_reports():
    X, y = _table()
    model = DPCopula(schema=SCHEMA, epsilon=EPS, delta=DELTA, marginal_fraction=FRAC,
                     n_bins=BINS, classes=[0, 1], random_state=0).fit(X, y)
    s_hist, s_scores = expected_sigmas()
    assert model.marginal_sigma_ == pytest.approx(s_hist, rel=1e-9)
    assert model.correlation_sigma_ == pytest.approx(s_scores, rel=1e-9)


def test_histogram_noise_has_the_independently_derived_scale(noise):
    hist, _ = noise
    s_hist, _ = expected_sigmas()
    assert hist.size >= 5000
    assert _matches(_sd(hist), s_hist)
    assert not _matches(_sd(hist), 0.7 * s_hist) and not _matches(_sd(hist), 1.3 * s_hist)


def test_score_sum_noise_has_the_independently_derived_scale(noise):
    _, scores = noise
    _, s_scores = expected_sigmas()
    assert scores.size >= 480
    # 480 draws: the sd's relative standard error is about 3.2%; 0.7x lies 30% away
    assert abs(_sd(scores) / s_scores - 1) < 0.15
    assert abs(_sd(scores) / (0.7 * s_scores) - 1) > 0.15


def test_the_check_rejects_noise_0_7_times_too_small(monkeypatch):
    """A DPCopula whose draws are 0.7x too small (its reported scales unchanged, so no runtime
    check of the library sees it) fails the same check."""
    import contextlib

    real = copula_module.charged_noise

    class Shrunk:
        def __init__(self, src):
            self._src = src

        def gaussian(self, shape, sigma=1.0):
            return 0.7 * self._src.gaussian(shape, sigma)

    @contextlib.contextmanager
    def shrunk(*args, **kwargs):
        with real(*args, **kwargs) as src:
            yield Shrunk(src)

    monkeypatch.setattr(copula_module, "charged_noise", shrunk)
    hist, scores = released_noise(n_fits=40)
    s_hist, s_scores = expected_sigmas()
    assert not _matches(_sd(hist), s_hist)
    assert abs(_sd(scores) / s_scores - 1) > 0.15
