"""The far-tail statistic of the adaptive covariance (task AC2, issue #24; opt-in far_tail=True)."""

from __future__ import annotations

import contextlib
import math

import numpy as np
import pytest

from matrixdp.accounting import Accountant
from matrixdp.calibration.gaussian import max_gaussian_shift
from matrixdp.errors import InvalidParameterError
from matrixdp.models import _far_tail
from matrixdp.models import adaptive as ad
from matrixdp.models._base import charging
from matrixdp.models._far_tail import (FAR_SHARE, FAR_Z, far_excess, far_level, far_reading,
                                       release_far_excess)
from matrixdp.models.adaptive import AdaptiveOptions, DECISION_Z, adaptive_covariance, read_counts


def tailed_table(n, n_far, seed=0):
    """Concentrated records (sd 0.3 in [-10, 10]^4) and ``n_far`` records whose first feature
    is far out (in [6, 9]): a rank-one tail of a few records, as grunfeld's."""
    rng = np.random.default_rng(seed)
    X = rng.normal(0.0, 0.3, (n, 4))
    X[:n_far, 0] = rng.uniform(6.0, 9.0, n_far)
    return np.clip(X, -10, 10)


def test_the_excess_has_sensitivity_upper_minus_level():
    """Replacing one record moves E by at most U − L, and by exactly U − L for a record at 0
    replaced by one at or beyond U."""
    rng = np.random.default_rng(0)
    L, U, cap = 2.0, 7.0, 50.0
    worst = 0.0
    for _ in range(200):
        g = rng.uniform(0, cap, 30) * (rng.random(30) < 0.5)
        h = g.copy()
        h[rng.integers(30)] = rng.uniform(0, cap)
        worst = max(worst, abs(far_excess(g, L, U) - far_excess(h, L, U)))
    assert worst <= U - L + 1e-12
    g = np.zeros(5)
    h = g.copy()
    h[0] = cap
    assert far_excess(h, L, U) - far_excess(g, L, U) == pytest.approx(U - L)
    # the term: each record's loss above L, capped at U − L
    assert far_excess([1.0, 3.0, 6.0, 40.0], L, U) == pytest.approx(0 + 1 + 4 + 5)


def test_the_upper_level_gives_the_reading_its_stated_noise():
    for n, mu, thr, L, cap in ((220, 2.3, 0.05, 2.2, 63.0), (32561, 0.05, 0.05, 7.8, 295.0),
                               (100, 0.1, 0.01, 1.0, 1.5)):
        U = far_level(L, n, mu, thr, cap)
        assert L < U <= cap
        sd = (U - L) / (n * mu)
        assert sd <= thr / FAR_Z * (1 + 1e-12)
        if U < cap:
            assert sd == pytest.approx(thr / FAR_Z)
    assert far_level(5.0, 100, 1.0, 0.1, 5.0) == 5.0  # L at the cap: nothing above it


def test_the_release_has_the_stated_noise_scale():
    """2000 releases of the same E: the noise sd is (U − L)/μ within ±7% (a wrong scale, e.g.
    √2 or μ* in place of μ, is rejected) and the mean is E."""
    g = np.array([0.0, 1.0, 3.0, 12.0, 40.0])
    L, U, mu = 2.0, 10.0, 0.8
    gen = np.random.default_rng(11)
    draws = np.array([release_far_excess(g, L, U, mu, 1.0, 1e-6, gen)[0] for _ in range(2000)])
    E = far_excess(g, L, U)
    sd = (U - L) / mu
    assert np.std(draws) == pytest.approx(sd, rel=0.07)
    assert abs(np.mean(draws) - E) < 4 * sd / math.sqrt(2000)
    _, sigma, mu_got = release_far_excess(g, L, U, mu, 1.0, 1e-6, gen)
    assert sigma == pytest.approx(sd) and mu_got == pytest.approx(mu)
    with pytest.raises(ValueError):
        release_far_excess(g, L, L, mu, 1.0, 1e-6, gen)


def test_the_far_reading_sees_two_far_records_the_capped_reading_reads_at_L():
    """Two records with loss 9 in a bin above L whose noisy count (2) is not resolved (σ_c
    0.8): the capped reading counts them at L each, the far reading (without noise) at their
    losses up to U."""
    n, sigma_c, thr = 220, 0.8, 0.05
    edges = thr / 16 * 4.0 ** np.arange(7)  # 0.003 … 12.8
    g = np.r_[np.full(50, 0.01), 9.0, 9.0, np.zeros(n - 52)]
    j = np.minimum(np.searchsorted(edges, g, side="left"), edges.size - 1)
    counts = np.bincount(j, minlength=edges.size)[1:].astype(float)
    b_cap, s_cap, L = read_counts(counts, edges, sigma_c, n, thr)
    assert L < 9.0
    U = far_level(L, n, 2.3, thr, edges[-1])
    b_far, sd = far_reading(counts, edges, sigma_c, n, L, far_excess(g, L, U), U, 0.0)
    b_true = float(g.mean())
    assert b_cap < 0.8 * b_true  # the blind spot
    assert b_far >= b_true - 1e-12  # every record read at least at its loss (U above 9)
    assert b_far <= b_true + float(np.sum(np.minimum(edges[1:], L) * counts)) / n
    assert sd == pytest.approx(s_cap)  # without the far noise: the capped reading's


@pytest.mark.parametrize("n_far", [0, 3, 60])
def test_four_releases_compose_to_the_budget(n_far):
    X = tailed_table(2000, n_far)
    lo, hi = np.full(4, -10.0), np.full(4, 10.0)
    for eps in (0.5, 5.0, 50.0):
        res = adaptive_covariance(X, lo, hi, epsilon=eps, delta=1e-6, rng=3,
                                  options=AdaptiveOptions(far_tail=True))
        mu_star = max_gaussian_shift(eps, 1e-6)
        assert len(res.mus) == 4
        total = math.sqrt(sum(m * m for m in res.mus))
        assert total <= mu_star * (1 + 1e-9)
        assert total == pytest.approx(mu_star, rel=1e-6)
        assert res.mus[0] == pytest.approx(math.sqrt(ad.FIRST_SHARE - FAR_SHARE) * mu_star)
        if "far_excess" in res.predicted and math.isfinite(res.predicted["far_excess"]):
            assert res.mus[3] == pytest.approx(math.sqrt(FAR_SHARE) * mu_star)
        else:
            assert res.mus[3] == 0.0
        assert "4 Gaussian releases" in res.privacy.calibration


def test_charged_once_before_any_draw(monkeypatch):
    """The accountant is charged the whole (ε, δ) once, on entry, before the first release;
    the far statistic is released inside the same charge."""
    events = []
    from matrixdp.models.adaptive import release  # where adaptive_covariance calls them

    for mod, name in ((release, "_moment_release"), (release, "gdp_release"),
                      (release, "whitened_release"), (_far_tail, "gdp_release")):
        orig = getattr(mod, name)

        def spy(*a, _orig=orig, _name=f"{mod.__name__}.{name}", **kw):
            events.append(_name)
            return _orig(*a, **kw)
        monkeypatch.setattr(mod, name, spy)

    acc = Accountant(epsilon=100.0, delta=1e-5)

    @contextlib.contextmanager
    def charge_and_log(p):
        with charging(acc, p, label="far"):
            events.append("charged")
            yield

    X = tailed_table(2000, 3)
    res = adaptive_covariance(X, np.full(4, -10.0), np.full(4, 10.0), epsilon=50.0, delta=1e-6,
                              rng=0, charging=charge_and_log,
                              options=AdaptiveOptions(far_tail=True))
    assert events[0] == "charged" and events.count("charged") == 1
    assert "matrixdp.models._far_tail.gdp_release" in events  # the statistic was released
    assert len(acc.spends) == 1 and acc.spends[0][1] == res.privacy


def test_the_choice_uses_the_larger_of_the_two_readings():
    """The bias the whitened step's prediction adds is max(b̂ + 1.5 sd, b̂_far)²; a whitened
    choice has both below the threshold."""
    X = tailed_table(3000, 8)
    lo, hi = np.full(4, -10.0), np.full(4, 10.0)
    seen = 0
    for seed in range(12):
        r = adaptive_covariance(X, lo, hi, epsilon=20.0, delta=1e-6, rng=seed,
                                options=AdaptiveOptions(far_tail=True))
        p = r.predicted
        if p["statistic"] != "counts" or not math.isfinite(p.get("far_excess", math.nan)):
            continue
        seen += 1
        b_dec = max(p["clipping_loss"] + DECISION_Z * p["clipping_loss_reading_sd"], 0.0)
        assert math.sqrt(p["coinpress_bias"]) == pytest.approx(
            max(b_dec, p["clipping_loss_far"]), rel=1e-9)
        if r.choice == "coinpress":
            thr = math.sqrt(p["moments"] - (p["coinpress"] - p["coinpress_bias"]))
            assert p["clipping_loss_far"] < thr
    assert seen >= 6


def test_far_tail_is_validated():
    X = tailed_table(200, 2)
    lo, hi = np.full(4, -10.0), np.full(4, 10.0)
    with pytest.raises(InvalidParameterError, match="far_tail"):
        adaptive_covariance(X, lo, hi, epsilon=1.0, delta=1e-6, kind="pca",
                            options=AdaptiveOptions(far_tail=True))
    with pytest.raises(InvalidParameterError, match="far_tail"):
        adaptive_covariance(X, lo, hi, epsilon=1.0, delta=1e-6, reading="threshold",
                            options=AdaptiveOptions(far_tail=True))
    with pytest.raises(InvalidParameterError, match="far_tail"):
        adaptive_covariance(X, lo, hi, epsilon=1.0, delta=1e-6,
                            options=AdaptiveOptions(far_tail="yes"))
    with pytest.raises(InvalidParameterError, match="first_share"):
        adaptive_covariance(X, lo, hi, epsilon=1.0, delta=1e-6,
                            options=AdaptiveOptions(first_share=0.01, far_tail=True))
