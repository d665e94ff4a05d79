"""method='adaptive' (issue 24): a private first look decides between the box and CoinPress."""

from __future__ import annotations

import contextlib
import math

import numpy as np
import pytest

from matrixdp.calibration.gaussian import max_gaussian_shift
from matrixdp.errors import InvalidParameterError
from matrixdp.models import DPCovariance, DPPCA
from matrixdp.models.adaptive import (AdaptiveOptions, COUNT_Z, DECISION_Z, adaptive_covariance,
                                      capped_level, clipping_loss_bins, clipping_loss_counts,
                                      read_counts)
from matrixdp.models.coinpress import whitening
from matrixdp.models.experimental import CovarianceOptions, PCAOptions


def concentrated_table(n, seed=0):
    """Gaussian records whose spread is a small part of the public box [-10, 10]^4."""
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(4, 4))
    cov = a @ a.T / 4 + 0.2 * np.eye(4)
    return np.clip(rng.multivariate_normal([1.0, -2.0, 0.5, 3.0], cov, size=n), -10, 10)


def filling_table(n, seed=0):
    """Records spread over the whole public box [-10, 10]^4 (nothing to shrink)."""
    return np.random.default_rng(seed).uniform(-10, 10, (n, 4))


def tailed_table(n, frac=0.05, seed=0):
    """Concentrated records (sd 0.5 in [-10, 10]^4), but a fraction ``frac`` of them has its
    first feature far out, in [5, 10]: the whitened step would clip that tail away."""
    rng = np.random.default_rng(seed)
    X = rng.normal(0.0, 0.5, (n, 4))
    far = rng.random(n) < frac
    X[far, 0] = rng.uniform(5.0, 10.0, int(far.sum()))
    return np.clip(X, -10, 10)


@pytest.mark.parametrize("make", [concentrated_table, filling_table, tailed_table])
@pytest.mark.parametrize("decision", ["counts", "clipping-loss"])
def test_the_three_releases_compose_to_the_budget(make, decision):
    """Exact GDP composition: √(μ₁² + μ_b² + μ₂²) equals μ*(ε, δ) (the whole budget is used and
    never exceeded), whichever statistic was released (or none) and whichever kind the last
    release is."""
    X = make(3000)
    lo, hi = np.full(4, -10.0), np.full(4, 10.0)
    for eps in (0.3, 2.0):
        res = adaptive_covariance(X, lo, hi, epsilon=eps, delta=1e-6, rng=1,
                                  options=AdaptiveOptions(decision=decision))
        mu_star = max_gaussian_shift(eps, 1e-6)
        total = math.sqrt(sum(m * m for m in res.mus))
        assert total <= mu_star * (1 + 1e-9)
        assert total == pytest.approx(mu_star, rel=1e-6)
        assert res.privacy.mu == pytest.approx(mu_star)
        assert (res.privacy.epsilon, res.privacy.delta) == (eps, 1e-6)
        assert not res.privacy.exact


def test_charges_once_before_noise_and_is_reproducible():
    from matrixdp.accounting import Accountant

    X = concentrated_table(2000)
    acc = Accountant(epsilon=5.0, delta=1e-5)
    est = DPCovariance(epsilon=1.0, bounds=(-10, 10), method="adaptive", random_state=4,
                       accountant=acc).fit(X)
    assert est.noise_ == "adaptive"
    assert est.adaptive_choice_ in ("moments", "coinpress")
    assert set(est.adaptive_predicted_) == {"moments", "coinpress", "clipping_loss",
                                           "clipping_loss_sd", "statistic", "ranking",
                                           "reading", "clipping_loss_reading_sd",
                                           "reading_level", "coinpress_bias", "bias",
                                           # the median ranking (task CV, the default)
                                           "loss_statistic", "moments_median",
                                           "coinpress_median", "median_threshold",
                                           "clipping_loss_median", "clipping_loss_median_sd",
                                           "reading_level_median"}
    assert est.adaptive_predicted_["ranking"] == "frobenius"  # the covariance path
    assert len(acc.spends) == 1 and acc.spends[0][1] == est.privacy_
    assert est.privacy_.mu == pytest.approx(max_gaussian_shift(1.0, 1e-6))
    again = DPCovariance(epsilon=1.0, bounds=(-10, 10), method="adaptive",
                         random_state=4).fit(X)
    np.testing.assert_array_equal(est.covariance_, again.covariance_)
    other = DPCovariance(epsilon=1.0, bounds=(-10, 10), method="adaptive",
                         random_state=5).fit(X)
    assert not np.array_equal(est.covariance_, other.covariance_)


def test_rejects_what_it_does_not_support():
    X = np.zeros((10, 2))
    with pytest.raises(InvalidParameterError, match="method"):
        DPCovariance(bounds=(0, 1), method="adaptive", kind="gram").fit(X)
    with pytest.raises(InvalidParameterError, match="method"):
        DPCovariance(bounds=(0, 1), method="adaptive", neighbouring="add-remove").fit(X)
    with pytest.raises(InvalidParameterError, match="method"):
        DPPCA(bounds=(0, 1), method="adaptive", neighbouring="add-remove").fit(X)
    with pytest.raises(InvalidParameterError, match="share"):
        adaptive_covariance(X, [0, 0], [1, 1], epsilon=1.0, delta=1e-6,
                            options=AdaptiveOptions(first_share=0.99, bias_share=0.02))


def test_the_moments_branch_has_the_stated_noise_scale():
    """When the records fill the box the last release is a second moments release, averaged
    with the first by inverse variances. The released mean's error, divided by the exact
    standard deviation the result states, has unit variance: 300 fits × 4 features = 1200
    z-scores, whose standard deviation is checked in [0.9, 1.1] (its sampling error is ~0.02;
    a ±30% wrong scale gives 0.7 or 1.3 and fails)."""
    X = filling_table(400, seed=3)
    lo, hi = np.full(4, -10.0), np.full(4, 10.0)
    truth = X.mean(axis=0)
    z = []
    for s in range(300):
        res = adaptive_covariance(X, lo, hi, epsilon=1.0, delta=1e-6, rng=s)
        assert res.choice == "moments"
        t2 = res.entry_variance.shape[0] - 1
        sd_mean = np.sqrt(res.entry_variance[:t2, t2]) / _t(lo, hi, X.shape[0])
        z.append((res.location - truth) / sd_mean)
    z = np.concatenate(z)
    assert abs(float(np.mean(z))) < 0.1
    assert 0.9 < float(np.std(z)) < 1.1


def _t(lo, hi, n):
    from matrixdp.models._moments import augmented_task

    return augmented_task(np.asarray(lo), np.asarray(hi), n, "covariance")[2]


def test_the_moments_branch_loses_little_where_there_is_nothing_to_shrink():
    """Records that fill the box: adaptive spends the rest on the moments release and its error
    stays within 15% of the one-shot default (measured median ratio ~1.0; the averaged release
    has 1/0.97 of the one-shot variance, the clipping-loss scalar took 3% of μ²)."""
    X = filling_table(5000, seed=1)
    truth = np.cov(X.T, bias=True)
    med = {}
    for method in ("moments", "adaptive"):
        errs = [np.linalg.norm(DPCovariance(epsilon=1.0, bounds=(-10, 10), method=method,
                                            random_state=s).fit(X).covariance_ - truth)
                for s in range(30)]
        med[method] = float(np.median(errs))
    assert med["adaptive"] < 1.15 * med["moments"], med


def test_it_shrinks_the_box_where_the_records_are_concentrated():
    """Records in a small ellipsoid of a wide box, large ε n: the private first look sees it,
    the last release is the whitened CoinPress step, and the error is well below the one-shot
    default's (measured ratio ~0.3 at these seeds; the check is < 0.6) and close to CoinPress'."""
    X = concentrated_table(20000)
    truth = np.cov(X.T, bias=True)
    med, chosen = {}, []
    for method in ("moments", "coinpress", "adaptive"):
        errs = []
        for s in range(10):
            est = DPCovariance(epsilon=2.0, bounds=(-10, 10), method=method,
                               random_state=s).fit(X)
            errs.append(np.linalg.norm(est.covariance_ - truth))
            if method == "adaptive":
                chosen.append(est.adaptive_choice_)
        med[method] = float(np.median(errs))
    assert chosen.count("coinpress") == len(chosen)
    assert med["adaptive"] < 0.6 * med["moments"], med
    assert med["adaptive"] < 1.3 * med["coinpress"], med


def test_pca_adaptive_gives_orthonormal_components_near_pca():
    X = concentrated_table(5000)
    est = DPPCA(n_components=2, epsilon=5.0, bounds=(-10, 10), method="adaptive",
                random_state=0).fit(X)
    np.testing.assert_allclose(est.components_ @ est.components_.T, np.eye(2), atol=1e-10)
    assert est.noise_ == "adaptive"
    assert est.privacy_.mu == pytest.approx(max_gaussian_shift(5.0, 1e-6))
    lam, vec = np.linalg.eigh(np.cov(X.T, bias=True))
    top = vec[:, ::-1][:, :2]
    captured = np.trace(est.components_ @ np.cov(X.T, bias=True) @ est.components_.T)
    assert captured > 0.95 * lam[::-1][:2].sum()
    assert top.shape == (4, 2)


def _public_whitening(X, lo, hi, seed):
    """A whitening as the first release would give it (computed from a noisy summary; for the
    sensitivity check only the fact that it is fixed across neighbours matters)."""
    rng = np.random.default_rng(seed)
    h = 0.5 * (hi - lo)
    c = 0.5 * (lo + hi)
    m = X.mean(axis=0) - c + rng.normal(0, 0.05, h.size) * h
    C = np.cov(X.T, bias=True)
    Q = np.diag(0.01 * h)
    return c, m, whitening(C, Q, m, h)


def test_the_counts_have_sensitivity_sqrt2():
    """Replace-one neighbours: with the public whitening, bins and weights fixed, replacing one
    record changes the count vector by at most √2 in L2 norm, and the bound is attained (a record
    moved between two bins). 2000 replacements, among them records at the box's corners (the
    largest clipping loss), at the centre and uniform ones; a cumulative histogram or a bin
    scheme that counts a record twice would exceed √2 and fail."""
    rng = np.random.default_rng(7)
    lo, hi = np.full(4, -10.0), np.full(4, 10.0)
    X = tailed_table(1500, frac=0.1, seed=2)
    c, m, (S, A, A_inv, r2) = _public_whitening(X, lo, hi, 3)
    h = 0.5 * (hi - lo)
    for weights in (np.ones(4), 1.0 / h):
        cap = float(np.sum((weights * (h + np.abs(m))) ** 2))
        edges = clipping_loss_bins(0.01 * cap, cap)
        assert edges.size > 4
        base = clipping_loss_counts(X, c, m, A, r2, weights, edges)
        assert base.sum() > 0  # some records are clipped: the check is not vacuous
        worst = 0.0
        for trial in range(1000):
            i = int(rng.integers(X.shape[0]))
            kind = trial % 3
            if kind == 0:
                x_new = rng.choice([-10.0, 10.0], size=4)
            elif kind == 1:
                x_new = c + m + rng.normal(0, 0.01, 4)
            else:
                x_new = rng.uniform(-10, 10, 4)
            X2 = X.copy()
            X2[i] = x_new
            diff = clipping_loss_counts(X2, c, m, A, r2, weights, edges) - base
            assert np.all(np.abs(diff) <= 1)
            worst = max(worst, float(np.linalg.norm(diff)))
        assert worst <= math.sqrt(2) + 1e-12
        assert worst == pytest.approx(math.sqrt(2))


def test_the_bins_cover_every_loss_up_to_the_cap():
    """Every record's loss in ``(τ_0, cap]`` falls in exactly one bin: the counts sum to the
    number of records whose loss exceeds ``τ_0`` (computed directly here)."""
    lo, hi = np.full(4, -10.0), np.full(4, 10.0)
    X = tailed_table(2000, frac=0.2, seed=5)
    c, m, (S, A, A_inv, r2) = _public_whitening(X, lo, hi, 4)
    h = 0.5 * (hi - lo)
    w = np.ones(4)
    cap = float(np.sum((h + np.abs(m)) ** 2))
    edges = clipping_loss_bins(0.5, cap)
    assert edges[-1] >= cap and edges[-2] < cap
    a = X - c - m
    y = a @ A
    f = np.minimum(1.0, math.sqrt(r2) / np.linalg.norm(y, axis=1))
    g = np.sum(a * a, axis=1) * (1 - f * f)
    assert g.max() <= cap
    counts = clipping_loss_counts(X, c, m, A, r2, w, edges)
    assert counts.sum() == np.sum(g > edges[0]) > 0
    # the loss read from the bins' upper edges bounds the true mean loss above τ_0
    assert float(np.sum(edges[1:] * counts)) >= float(np.sum(g[g > edges[0]]))


def _branch_counts(make, reps, eps=1.0, n=5000, **kw):
    lo, hi = np.full(4, -10.0), np.full(4, 10.0)
    out = []
    for s in range(reps):
        X = make(n, seed=100 + s)
        res = adaptive_covariance(X, lo, hi, epsilon=eps, delta=1e-6, rng=s, **kw)
        out.append(res.choice)
    return out


def small_box_table(n, seed=0):
    """Gaussian records filling 5% of each side of the public box [-10, 10]^4: the ±2 sd range
    of every feature is 1.0 (5% of the range 20), around an off-centre mean."""
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(4, 4))
    corr = np.corrcoef(a @ a.T + 4 * np.eye(4))
    cov = 0.25 ** 2 * corr
    return np.clip(rng.multivariate_normal([2.0, -3.0, 1.0, 4.0], cov, size=n), -10, 10)


def test_the_choice_is_coinpress_where_the_records_fill_5_percent_of_the_box():
    """n = 5000, ε = 1, 60 repetitions (data and noise seeds fixed): the whitened step is the
    right branch (measured on one such table, 20 seeds: median relative error 1.35 for
    ``method="coinpress"`` against 7.45 for the one-shot release), and the private choice takes it in at least 90% of the repetitions."""
    choices = _branch_counts(small_box_table, 60)
    assert choices.count("coinpress") >= 0.9 * len(choices), choices


def test_the_choice_is_moments_where_the_records_fill_the_box():
    """Uniform records over the whole box (nothing to shrink), n = 5000, ε = 1, 60 repetitions:
    the moments release is chosen in at least 90% of them."""
    choices = _branch_counts(filling_table, 60)
    assert choices.count("moments") >= 0.9 * len(choices), choices


def test_the_counts_see_a_heavy_tail_the_whitened_step_would_clip():
    """Concentrated records with 5% of them far out on one feature (n = 20000, ε = 2): the
    CoinPress step would clip the tail and lose most of that feature's variance (measured
    relative error ~0.19 against ~0.07 for the moments release), the counts see it, and the
    moments release is chosen in at least 90% of 50 repetitions. The radius is the fixed rate
    ``beta=0.1`` this was measured with: the default ``"auto"`` radius at this ``n μ`` is wider
    and clips less of the tail (``docs/coinpress.md`` § The clipping radius)."""
    choices = _branch_counts(tailed_table, 50, eps=2.0, n=20000, beta=0.1)
    assert choices.count("moments") >= 0.9 * len(choices), choices


def test_old_decision_is_still_available_and_reported():
    X = concentrated_table(3000)
    lo, hi = np.full(4, -10.0), np.full(4, 10.0)
    old = adaptive_covariance(X, lo, hi, epsilon=1.0, delta=1e-6, rng=0,
                              options=AdaptiveOptions(decision="clipping-loss"))
    assert old.predicted["statistic"] == "clipping-loss"
    with pytest.raises(InvalidParameterError, match="decision"):
        adaptive_covariance(X, lo, hi, epsilon=1.0, delta=1e-6,
                            options=AdaptiveOptions(decision="trace"))


def test_the_capped_level_gives_the_reading_its_stated_noise():
    """``capped_level``: the capped reading's noise sd ``σ√(Σ min(τ_j, L)²)/n`` equals the
    threshold over ``COUNT_Z`` whenever ``L`` is below the top edge, and is at most that when every
    bin is read in full (``L = τ_J``). 300 random (edges, σ, n, threshold) cases."""
    rng = np.random.default_rng(11)
    below = 0
    for _ in range(300):
        thr = float(10 ** rng.uniform(-3, 3))
        cap = thr * float(10 ** rng.uniform(0, 6))
        edges = clipping_loss_bins(thr, cap)
        sigma = float(10 ** rng.uniform(0, 2.5))
        n = int(10 ** rng.uniform(2, 5.5))
        L = capped_level(edges, sigma, n, thr)
        w = np.minimum(edges[1:], L)
        sd = sigma * math.sqrt(float(np.sum(w * w))) / n
        if L < edges[-1]:
            below += 1
            assert sd == pytest.approx(thr / COUNT_Z, rel=1e-9)
        else:
            assert L == edges[-1] and sd <= thr / COUNT_Z * (1 + 1e-12)
    assert 30 < below < 270  # both cases occur


def _noisy_reads(exact, edges, sigma, n, thr, reading, draws=4000, seed=3):
    rng = np.random.default_rng(seed)
    noisy = exact[None, :] + rng.normal(0.0, sigma, (draws, exact.size))
    return np.array([read_counts(y, edges, sigma, n, thr, reading)[:2] for y in noisy])


def test_the_capped_reading_sees_a_thin_tail_that_the_threshold_reading_reads_as_zero():
    """A heavy tail of few records per bin (adult's shape: 130, 70, 40, 18, 2 records in the
    top bins, ~ the bins' noise sd 18): the threshold reading keeps only the bins above 3 sds and
    reads the tail as ~nothing; the capped reading is unbiased for ``Σ min(τ_j, L) n_j / n``
    (the resolved bins' excess only adds) with the noise sd it reports (±10%).
    4000 noise draws, fixed seed."""
    thr, n, sigma = 1.0, 32561, 18.2
    edges = clipping_loss_bins(thr, 1.6e4 * thr)
    exact = np.zeros(edges.size - 1)
    exact[-5:] = [130, 70, 40, 18, 2]
    L = capped_level(edges, sigma, n, thr)
    capped_part = float(np.sum(np.minimum(edges[1:], L) * exact)) / n
    true_upper = float(np.sum(edges[1:] * exact)) / n  # the tail read at the bins' upper edges
    assert true_upper > 4 * thr  # the whitened step's bias is far above the threshold
    cap_reads = _noisy_reads(exact, edges, sigma, n, thr, "capped")
    thr_reads = _noisy_reads(exact, edges, sigma, n, thr, "threshold")
    se = cap_reads[:, 0].std() / math.sqrt(len(cap_reads))
    assert cap_reads[:, 0].mean() >= capped_part - 4 * se
    # without the resolved bins' excess, the reading is unbiased with the sd it reports
    w = np.minimum(edges[1:], L)
    rng = np.random.default_rng(3)
    lin = (exact[None, :] + rng.normal(0.0, sigma, (4000, exact.size))) @ w / n
    assert lin.mean() == pytest.approx(capped_part, abs=4 * lin.std() / math.sqrt(4000))
    assert lin.std() == pytest.approx(cap_reads[0, 1], rel=0.1)
    assert cap_reads[0, 1] == pytest.approx(thr / COUNT_Z, rel=1e-9)
    # the choice: the whitened step only if b̂ + DECISION_Z sd < threshold
    choose_cp = cap_reads[:, 0] + DECISION_Z * cap_reads[:, 1] < thr
    assert choose_cp.mean() < 0.05
    # the previous reading misses most of the tail and would choose the whitened step often
    assert np.median(thr_reads[:, 0]) < 0.25 * true_upper
    assert (thr_reads[:, 0] < thr).mean() > 0.5


def test_an_empty_histogram_rarely_blocks_the_whitened_step():
    """No record is clipped (every count 0): the capped reading is pure noise of sd
    threshold/COUNT_Z, so ``b̂ + DECISION_Z·sd`` exceeds the threshold with probability
    ``P(Z > COUNT_Z − DECISION_Z) = 6.7%`` (plus the rare false resolution of a bin): at most 9%
    of 4000 draws, fixed seed."""
    thr, n, sigma = 1.0, 2126, 8.0
    edges = clipping_loss_bins(thr, 1.0e3 * thr)
    exact = np.zeros(edges.size - 1)
    reads = _noisy_reads(exact, edges, sigma, n, thr, "capped")
    blocked = reads[:, 0] + DECISION_Z * reads[:, 1] >= thr
    assert 0.04 < blocked.mean() < 0.09


def test_the_reading_is_chosen_by_kind_and_reported():
    X = tailed_table(20000)
    lo, hi = np.full(4, -10.0), np.full(4, 10.0)
    cov = adaptive_covariance(X, lo, hi, epsilon=2.0, delta=1e-6, rng=0)
    assert cov.predicted["statistic"] == "counts"
    assert cov.predicted["reading"] == "capped"
    assert cov.predicted["clipping_loss_reading_sd"] > 0
    old = adaptive_covariance(X, lo, hi, epsilon=2.0, delta=1e-6, rng=0, reading="threshold")
    assert old.predicted["reading"] == "threshold"
    with pytest.raises(InvalidParameterError, match="reading"):
        adaptive_covariance(X, lo, hi, epsilon=2.0, delta=1e-6, reading="median")


# --- task AC: the opt-in candidate choices (tie_ratio, decision_z) -----------------------------

def _fit(X, seed, **kw):
    lo, hi = np.full(X.shape[1], -10.0), np.full(X.shape[1], 10.0)
    return adaptive_covariance(X, lo, hi, epsilon=1.0, delta=1e-6, rng=seed, **kw)


def test_the_candidate_arguments_at_their_neutral_values_are_the_default_draw_for_draw():
    X = concentrated_table(3000)
    for seed in range(4):
        a = _fit(X, seed)
        b = _fit(X, seed, options=AdaptiveOptions(tie_ratio=1.0, decision_z=DECISION_Z))
        assert a.choice == b.choice
        np.testing.assert_array_equal(a.covariance, b.covariance)
        assert a.predicted == b.predicted


def test_a_tiny_tie_ratio_changes_the_choice_only():
    """Same first release and counts: the predictions are the default's, and the released
    covariance is the forced moments branch's, draw for draw."""
    X = concentrated_table(3000)
    seen_default_coinpress = 0
    for seed in range(6):
        d = _fit(X, seed)
        t = _fit(X, seed, options=AdaptiveOptions(tie_ratio=1e-12))
        m = _fit(X, seed, options=AdaptiveOptions(branch="moments"))
        seen_default_coinpress += d.choice == "coinpress"
        assert t.choice == "moments"
        assert t.predicted == d.predicted
        np.testing.assert_array_equal(t.covariance, m.covariance)
    assert seen_default_coinpress > 0  # the table exercises a changed choice


def test_a_larger_decision_z_only_removes_whitened_choices():
    """b̂ + z·sd is increasing in z: on the same draws, every whitened choice at z = 3 is one
    at the default z = 1.5, and the reading b̂ is the same."""
    X = tailed_table(4000, frac=0.01)
    n_default = n_z3 = 0
    for seed in range(20):
        d = _fit(X, seed)
        z = _fit(X, seed, options=AdaptiveOptions(decision_z=3.0))
        assert z.predicted["clipping_loss"] == d.predicted["clipping_loss"]
        assert z.predicted["coinpress"] >= d.predicted["coinpress"]
        if z.choice == "coinpress":
            assert d.choice == "coinpress"
        n_default += d.choice == "coinpress"
        n_z3 += z.choice == "coinpress"
    assert n_z3 <= n_default


def test_the_candidate_arguments_are_validated():
    X = concentrated_table(200)
    for bad in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(InvalidParameterError, match="tie_ratio"):
            _fit(X, 0, options=AdaptiveOptions(tie_ratio=bad))
    for bad in (-0.5, float("nan")):
        with pytest.raises(InvalidParameterError, match="decision_z"):
            _fit(X, 0, options=AdaptiveOptions(decision_z=bad))


# --- task CR: the branches ranked by the implied correlation's loss -------------------------

def _corr(C):
    s = np.sqrt(np.diagonal(C))
    return C / np.outer(s, s)


def _strong_corr_cov(d=4, rho=0.8):
    sd = np.array([1.0, 2.0, 0.5, 3.0])[:d]
    R = np.full((d, d), rho)
    np.fill_diagonal(R, 1.0)
    return R * np.outer(sd, sd), R, sd


def test_correlation_coinpress_loss_is_the_sample_correlation_law_at_s_equal_c():
    """At S = C the first-order variance of each δR_ij is σ²(1 − R_ij²)²/2 (the classical
    (1 − ρ²)² of a sample correlation), summed over i ≠ j."""
    from matrixdp.models.adaptive import correlation_coinpress_loss

    C, R, sd = _strong_corr_cov()
    sigma = 0.01
    got = correlation_coinpress_loss(C, sd, R, sigma)
    off = ~np.eye(4, dtype=bool)
    assert got == pytest.approx(sigma ** 2 * np.sum((1 - R[off] ** 2) ** 2) / 2, rel=1e-12)


def test_correlation_coinpress_loss_matches_monte_carlo():
    """The whitened step's noise S^{1/2} N S^{1/2} (N symmetrised: σ² on the diagonal, σ²/2
    off it), S inflated above C: the mean squared correlation error of 4000 draws (seed 0)
    is within 10% of the first-order prediction (small noise)."""
    from matrixdp.models.adaptive import correlation_coinpress_loss

    C, R, sd = _strong_corr_cov()
    S = C + 0.3 * np.diag(sd ** 2)
    w, V = np.linalg.eigh(S)
    half = (V * np.sqrt(w)) @ V.T
    sigma = 1e-3
    rng = np.random.default_rng(0)
    errs = []
    for _ in range(4000):
        Z = rng.normal(0.0, sigma, (4, 4))
        N = (Z + Z.T) / 2.0
        np.fill_diagonal(N, np.diagonal(Z))
        errs.append(np.sum((_corr(C + half @ N @ half) - R) ** 2))
    pred = correlation_coinpress_loss(S, sd, R, sigma)
    assert np.mean(errs) == pytest.approx(pred, rel=0.10)


def test_correlation_moments_loss_matches_monte_carlo():
    """Independent entry noise on the augmented release (here with no mean noise): the mean
    squared correlation error of 4000 draws (seed 1) is within 10% of the prediction, which
    is far (> 2×) from the off-diagonal-only term, so a missing diagonal term would fail."""
    from matrixdp.models.adaptive import correlation_moments_loss

    C, R, sd = _strong_corr_cov()
    k = 4
    V = np.zeros((k + 1, k + 1))
    V[:k, :k] = 1e-6 * (1.0 + np.arange(k)[:, None] + np.arange(k)[None, :])
    V[:k, :k] = 0.5 * (V[:k, :k] + V[:k, :k].T)
    rng = np.random.default_rng(1)
    errs = []
    for _ in range(4000):
        E = rng.normal(size=(k, k)) * np.sqrt(V[:k, :k])
        E = np.triu(E) + np.triu(E, 1).T
        errs.append(np.sum((_corr(C + E) - R) ** 2))
    pred = correlation_moments_loss(V, np.zeros(k), 1.0, np.zeros(k), sd, R)
    assert np.mean(errs) == pytest.approx(pred, rel=0.10)
    off = ~np.eye(k, dtype=bool)
    only_off = np.sum((V[:k, :k] / np.outer(sd ** 2, sd ** 2))[off])
    assert pred > 2.0 * only_off


def strong_table(n, seed=0):
    """Records filling the box [-10, 10]^4 along its diagonal: x_j = u + e_j with u uniform on
    [-9, 9] and e_j ~ N(0, 1) (correlations ≈ 0.96, sd ≈ 5.3)."""
    rng = np.random.default_rng(seed)
    u = rng.uniform(-9.0, 9.0, (n, 1))
    return np.clip(u + rng.normal(0.0, 1.0, (n, 4)), -10, 10)


def test_correlation_ranking_takes_the_step_where_correlations_are_strong():
    """Strong correlations (≈ 0.96), records filling the box's diagonal (n = 5000, ε = 1,
    20 repetitions): the correlation ranking takes the whitened step in at least 80% of the
    fits, where the covariance ranking keeps the moments release in at least 80%."""
    corr = _branch_counts(strong_table, 20, kind="pca", first_kind="pca",
                          ranking="correlation", reading="capped")
    cov = _branch_counts(strong_table, 20)
    assert corr.count("coinpress") >= 16, corr
    assert cov.count("moments") >= 16, cov


def test_correlation_ranking_needs_the_counts():
    X = filling_table(500)
    with pytest.raises(InvalidParameterError, match="ranking"):
        adaptive_covariance(X, np.full(4, -10.0), np.full(4, 10.0), epsilon=1.0, delta=1e-6, rng=0,
                            ranking="correlation",
                            options=AdaptiveOptions(decision="clipping-loss"))


def test_adaptive_correlation_post_processes_its_moments_branch_as_the_default():
    """DPCovariance(kind="correlation", method="adaptive"): on its moments branch the averaged
    release gets shrinkage="projected" (factors reported, a correlation matrix); on its
    whitened step no shrinkage. The same seed gives the same fit."""
    lo, hi = np.full(4, -10.0), np.full(4, 10.0)
    a = DPCovariance(bounds=(lo, hi), kind="correlation", method="adaptive", epsilon=1.0,
                     random_state=3).fit(filling_table(3000))
    assert a.adaptive_choice_ == "moments"
    assert a.shrinkage_ == "projected" and a.shrinkage_factors_ is not None
    np.testing.assert_allclose(np.diagonal(a.covariance_), 1.0)
    assert np.linalg.eigvalsh(a.covariance_).min() >= -1e-10
    b = DPCovariance(bounds=(lo, hi), kind="correlation", method="adaptive", epsilon=1.0,
                     random_state=3).fit(filling_table(3000))
    np.testing.assert_array_equal(a.covariance_, b.covariance_)
    c = DPCovariance(bounds=(lo, hi), kind="correlation", method="adaptive", epsilon=1.0,
                     random_state=3).fit(strong_table(5000))
    assert c.adaptive_choice_ == "coinpress"
    assert c.shrinkage_ == "none" and c.shrinkage_factors_ is None
    np.testing.assert_allclose(np.diagonal(c.covariance_), 1.0)


def test_resolve_z_keeps_the_moments_release_where_a_variance_is_not_resolved():
    """A feature with a spread of 0.1% of its half-width: the first look cannot resolve its
    variance (least ratio below 3 noise sds), so with resolve_z=3 the whitened step is not
    predicted (infinite), no statistic is released and the moments release is kept; with
    resolve_z=0 the same first look gives a finite prediction; the guarantee is unchanged."""
    X = strong_table(5000, seed=4)
    X[:, 3] = np.clip(0.01 * np.random.default_rng(5).normal(size=5000), -10, 10)
    lo, hi = np.full(4, -10.0), np.full(4, 10.0)
    kw = dict(epsilon=1.0, delta=1e-6, rng=2, kind="pca", first_kind="pca",
              ranking="correlation", reading="capped")
    on = adaptive_covariance(X, lo, hi, resolve_z=3.0, **kw)
    off = adaptive_covariance(X, lo, hi, resolve_z=0.0, **kw)
    assert on.predicted["resolved"] < 3.0
    assert on.predicted["resolved"] == off.predicted["resolved"]
    assert math.isinf(on.predicted["coinpress"]) and on.choice == "moments"
    assert on.predicted["statistic"] == "none"
    assert math.isfinite(off.predicted["coinpress"])
    assert on.privacy.mu == off.privacy.mu


def test_resolve_z_is_what_the_estimator_uses():
    from matrixdp.models import covariance as cv

    assert cv.CORRELATION_RESOLVE_Z == 3.0
    X = strong_table(5000)
    lo, hi = np.full(4, -10.0), np.full(4, 10.0)
    est = DPCovariance(bounds=(lo, hi), kind="correlation", method="adaptive", epsilon=1.0,
                       random_state=3).fit(X)
    assert est.adaptive_predicted_["resolved"] >= 3.0 and est.adaptive_choice_ == "coinpress"


# --- task CV: the branches ranked by their predicted medians (opt-in loss_statistic) ----------

def one_entry_table(n, seed=0, scale=50.0):
    """A covariance carried by one entry (a log-normal feature in a wide box [0, 1000], two
    features in [0, 1]): the moments release's error is about one Gaussian entry, as on adult."""
    rng = np.random.default_rng(seed)
    return np.column_stack([np.minimum(rng.lognormal(math.log(scale), 1.0, n), 1000.0),
                            rng.uniform(0, 1, n), rng.uniform(0, 1, n)])


_OE_LO, _OE_HI = np.zeros(3), np.array([1000.0, 1.0, 1.0])


def test_loss_statistic_mean_is_the_function_default_draw_for_draw():
    X = one_entry_table(5000)
    for seed in range(3):
        a = adaptive_covariance(X, _OE_LO, _OE_HI, epsilon=0.5, delta=1e-6, rng=seed)
        b = adaptive_covariance(X, _OE_LO, _OE_HI, epsilon=0.5, delta=1e-6, rng=seed,
                                loss_statistic="mean")
        np.testing.assert_array_equal(a.covariance, b.covariance)
        assert a.predicted == b.predicted and a.choice == b.choice
        assert "loss_statistic" not in a.predicted


def test_dpcovariance_ranks_by_the_median_by_default_and_mean_is_the_old_release():
    """Since task CV ``DPCovariance()`` is ``adaptive_ranking="median"``; ``"mean"`` is the
    release before it (``adaptive_covariance``'s default), draw for draw."""
    from matrixdp.feasible import project_feasible

    X = one_entry_table(5000)
    assert DPCovariance().get_params()["experimental"] is None
    assert CovarianceOptions().adaptive_ranking == "median"
    d = DPCovariance(epsilon=0.5, bounds=(_OE_LO, _OE_HI), random_state=3).fit(X)
    md = DPCovariance(epsilon=0.5, bounds=(_OE_LO, _OE_HI), random_state=3,
                      experimental=CovarianceOptions(adaptive_ranking="median")).fit(X)
    np.testing.assert_array_equal(d.covariance_, md.covariance_)
    assert d.adaptive_predicted_["loss_statistic"] == "median"
    mean = DPCovariance(epsilon=0.5, bounds=(_OE_LO, _OE_HI), random_state=3,
                        experimental=CovarianceOptions(adaptive_ranking="mean")).fit(X)
    old = adaptive_covariance(X, _OE_LO, _OE_HI, epsilon=0.5, delta=1e-6, rng=3, beta=0.1)
    np.testing.assert_array_equal(
        mean.covariance_, project_feasible(old.covariance, _OE_LO, _OE_HI, "covariance",
                                           units="original"))
    assert mean.adaptive_predicted_ == old.predicted


def test_adaptive_ranking_median_leaves_the_correlation_default_byte_identical():
    """The correlation's adaptive release has its own ranking: the option is ignored there."""
    X = one_entry_table(5000)
    d = DPCovariance(epsilon=1.0, bounds=(_OE_LO, _OE_HI), kind="correlation",
                     random_state=4).fit(X)
    m = DPCovariance(epsilon=1.0, bounds=(_OE_LO, _OE_HI), kind="correlation", random_state=4,
                     experimental=CovarianceOptions(adaptive_ranking="median")).fit(X)
    np.testing.assert_array_equal(d.covariance_, m.covariance_)
    assert d.adaptive_predicted_ == m.adaptive_predicted_


def test_the_median_ranking_changes_the_choice_only():
    """On the one-entry table at ε = 0.5, seed 5 is a near-tie the two rankings decide
    differently; on every seed the expected-loss predictions are the default's, and each
    release equals the last release forced to the branch it took (same first look, counts and
    stream position)."""
    X = one_entry_table(20000)
    flips = 0
    for seed in (4, 5, 6):
        d = adaptive_covariance(X, _OE_LO, _OE_HI, epsilon=0.5, delta=1e-6, rng=seed)
        c = adaptive_covariance(X, _OE_LO, _OE_HI, epsilon=0.5, delta=1e-6, rng=seed,
                                loss_statistic="median")
        f = adaptive_covariance(X, _OE_LO, _OE_HI, epsilon=0.5, delta=1e-6, rng=seed,
                                options=AdaptiveOptions(branch=c.choice))
        np.testing.assert_array_equal(c.covariance, f.covariance)
        assert c.mus[:2] == d.mus[:2] and c.mus[2] == pytest.approx(d.mus[2], rel=1e-12)
        for key in ("moments", "coinpress", "clipping_loss", "statistic"):
            assert c.predicted[key] == d.predicted[key]
        assert c.predicted["loss_statistic"] == "median"
        # the rule: the whitened step iff b̂ + DECISION_Z sd(b̂) < t_med (at the median level)
        b = c.predicted["clipping_loss_median"] + DECISION_Z * c.predicted[
            "clipping_loss_median_sd"]
        assert (c.choice == "coinpress") == (max(b, 0.0) < c.predicted["median_threshold"])
        flips += c.choice != d.choice
    assert flips == 1  # seed 5


def test_the_median_ranking_is_validated_before_any_charge():
    from matrixdp.accounting import Accountant

    X = one_entry_table(500)
    with pytest.raises(InvalidParameterError, match="loss_statistic"):
        adaptive_covariance(X, _OE_LO, _OE_HI, epsilon=1.0, delta=1e-6,
                            loss_statistic="mode")
    for bad in ({"kind": "pca"}, {"reading": "threshold"},
                {"options": AdaptiveOptions(tie_ratio=0.5)},
                {"options": AdaptiveOptions(far_tail=True)},
                {"options": AdaptiveOptions(decision="clipping-loss")}):
        with pytest.raises(InvalidParameterError, match="loss_statistic"):
            adaptive_covariance(X, _OE_LO, _OE_HI, epsilon=1.0, delta=1e-6,
                                loss_statistic="median", **bad)
    acc = Accountant(epsilon=5.0, delta=1e-5)
    with pytest.raises(InvalidParameterError, match="adaptive_ranking"):
        DPCovariance(epsilon=1.0, bounds=(_OE_LO, _OE_HI), accountant=acc,
                     experimental=CovarianceOptions(adaptive_ranking="median-ish")).fit(X)
    assert len(acc.spends) == 0


def test_satterthwaite_median_exact_cases():
    from scipy.stats import chi2

    from matrixdp.models.adaptive import satterthwaite_median

    # one Gaussian term (h = 1): the median of χ²_1 times the mean
    assert satterthwaite_median(2.0, 2.0 * 2.0 ** 2) == pytest.approx(2.0 * chi2.median(1),
                                                                      rel=1e-10)
    # h = 7 terms of equal weight g: g·median(χ²_7)
    g = 0.3
    assert satterthwaite_median(7 * g, 2 * 7 * g * g) == pytest.approx(g * chi2.median(7),
                                                                       rel=1e-10)
    assert satterthwaite_median(3.0, 0.0) == 3.0  # a fixed value
    assert satterthwaite_median(5.0, 1e-12) == pytest.approx(5.0, rel=1e-9)


def test_moments_loss_variance_matches_monte_carlo():
    """The variance of ‖δM − (δm mᵀ + m δmᵀ)‖² with independent entry noise, against 200 000
    simulated draws (fixed seed); a wrong factor (e.g. 2 for 4 on the off-diagonal) is > 30 %
    off."""
    from matrixdp.models.adaptive import moments_loss_variance

    rng = np.random.default_rng(0)
    k, t = 3, 2.0
    V = rng.uniform(0.2, 1.5, (k + 1, k + 1))
    V = 0.5 * (V + V.T)
    m = np.array([1.0, -0.5, 2.0])
    w = np.array([1.0, 2.0, 0.5])
    got = moments_loss_variance(V, m, w, t)
    N = 200_000
    iu = np.triu_indices(k + 1)
    E = rng.standard_normal((N, iu[0].size)) * np.sqrt(V[iu])
    G = np.zeros((N, k + 1, k + 1))
    G[:, iu[0], iu[1]] = E
    G[:, iu[1], iu[0]] = E
    dM = G[:, :k, :k]
    dm = G[:, :k, k] / t
    err = dM - (dm[:, :, None] * m[None, None, :] + m[None, :, None] * dm[:, None, :])
    err = err * w[None, :, None] * w[None, None, :]
    q = np.sum(err * err, axis=(1, 2))
    assert got == pytest.approx(float(np.var(q)), rel=0.05)


def test_coinpress_noise_variance_matches_monte_carlo():
    from matrixdp.models.adaptive import coinpress_noise_loss, coinpress_noise_variance

    rng = np.random.default_rng(1)
    k, sigma = 3, 0.7
    a = rng.normal(size=(k, k))
    S = a @ a.T + 0.3 * np.eye(k)
    w = np.array([1.0, 0.5, 2.0])
    lam, U = np.linalg.eigh(S)
    Sh = (U * np.sqrt(lam)) @ U.T
    N = 200_000
    Z = rng.standard_normal((N, k, k)) * sigma
    Nz = (Z + np.swapaxes(Z, 1, 2)) / 2.0  # σ²/2 off the diagonal...
    idx = np.arange(k)
    Nz[:, idx, idx] = Z[:, idx, idx]  # ... σ² on it
    E = Sh @ Nz @ Sh * w[None, :, None] * w[None, None, :]
    q = np.sum(E * E, axis=(1, 2))
    var, mu_max = coinpress_noise_variance(S, w, sigma)
    assert float(np.mean(q)) == pytest.approx(coinpress_noise_loss(S, w, sigma), rel=0.02)
    assert var == pytest.approx(float(np.var(q)), rel=0.05)
    assert mu_max == pytest.approx(np.linalg.eigvalsh(w[:, None] * S * w[None, :])[-1])


# --- task CG: correlation_rule="margin" (the bias term left out, the guard as a margin) -------

def _cg_table():
    """strong_table with a fourth feature whose spread is 0.1 % of its half-width: the first
    look cannot resolve its variance at ε = 5 (least ratio < 3)."""
    X = strong_table(5000, seed=4)
    X[:, 3] = np.clip(X[:, 0] * 0.002 + 0.003 * np.random.default_rng(5).normal(size=5000),
                      -10, 10)
    return X


_CG_KW = dict(delta=1e-6, rng=2, kind="pca", first_kind="pca", ranking="correlation",
              reading="capped")


def test_unresolved_margin_inflates_the_step_instead_of_blocking_it():
    """The guard (resolve_z = 3) blocks the step on an unresolved first look (infinite
    prediction, moments); with unresolved_margin = 10 and no bias term the same first look
    predicts the step at exactly 10x the unguarded noise-only prediction, takes it here, and
    releases no statistic; the guarantee and the total μ are unchanged."""
    X, lo, hi = _cg_table(), np.full(4, -10.0), np.full(4, 10.0)
    guard = adaptive_covariance(X, lo, hi, epsilon=5.0, resolve_z=3.0, **_CG_KW)
    margin = adaptive_covariance(X, lo, hi, epsilon=5.0, resolve_z=3.0, unresolved_margin=10.0,
                                 correlation_bias=0.0, **_CG_KW)
    free = adaptive_covariance(X, lo, hi, epsilon=5.0, resolve_z=0.0, correlation_bias=0.0,
                               **_CG_KW)
    assert guard.predicted["resolved"] < 3.0
    assert math.isinf(guard.predicted["coinpress"]) and guard.choice == "moments"
    assert margin.predicted["coinpress"] == pytest.approx(10.0 * free.predicted["coinpress"],
                                                          rel=1e-9)
    assert margin.choice == "coinpress"
    assert margin.predicted["statistic"] == "none" and margin.mus[1] == 0.0
    assert margin.privacy == guard.privacy
    assert math.hypot(*margin.mus) == pytest.approx(math.hypot(*guard.mus), rel=1e-12)
    assert math.hypot(*margin.mus) <= margin.privacy.mu * (1 + 1e-9)


def test_without_the_bias_term_no_statistic_is_released():
    """correlation_bias=0.0 on a resolved first look (strong correlations, ε = 1): the step's
    prediction is its noise term (coinpress_bias 0), no counts are released (μ_b = 0) where the
    bias term made the default release them, and the guarantee is the same."""
    X, lo, hi = strong_table(5000), np.full(4, -10.0), np.full(4, 10.0)
    with_b = adaptive_covariance(X, lo, hi, epsilon=1.0, resolve_z=3.0, **_CG_KW)
    without = adaptive_covariance(X, lo, hi, epsilon=1.0, resolve_z=3.0, correlation_bias=0.0,
                                  **_CG_KW)
    assert with_b.predicted["resolved"] >= 3.0
    assert with_b.predicted["statistic"] == "counts" and with_b.mus[1] > 0
    assert without.predicted["statistic"] == "none" and without.mus[1] == 0.0
    assert without.predicted["coinpress_bias"] == 0.0
    assert without.privacy == with_b.privacy
    assert math.hypot(*without.mus) == pytest.approx(math.hypot(*with_b.mus), rel=1e-12)


def test_correlation_rule_margin_is_the_default_release_and_guard_blocks_the_step():
    """DPCovariance(correlation_rule="margin") is the default draw for draw (since session 16);
    it (bias term at CORRELATION_BIAS, the margin for the unresolved look) takes the step the
    guard blocks on the unresolved table (ε = 5), with the same guarantee; its prediction is the
    adaptive release's with those two options."""
    X, b = _cg_table(), (np.full(4, -10.0), np.full(4, 10.0))
    d = DPCovariance(epsilon=5.0, bounds=b, kind="correlation", random_state=7).fit(X)
    g = DPCovariance(epsilon=5.0, bounds=b, kind="correlation", random_state=7,
                     experimental=CovarianceOptions(correlation_rule="guard")).fit(X)
    m = DPCovariance(epsilon=5.0, bounds=b, kind="correlation", random_state=7,
                     experimental=CovarianceOptions(correlation_rule="margin")).fit(X)
    np.testing.assert_array_equal(d.covariance_, m.covariance_)
    assert g.adaptive_choice_ == "moments"
    assert d.adaptive_choice_ == m.adaptive_choice_ == "coinpress" and m.shrinkage_ == "none"
    assert (m.privacy_.epsilon, m.privacy_.delta) == (d.privacy_.epsilon, d.privacy_.delta)
    assert m.privacy_.mu == d.privacy_.mu
    np.testing.assert_allclose(np.diagonal(m.covariance_), 1.0)
    from matrixdp.models import covariance as cv

    assert (cv.UNRESOLVED_MARGIN, cv.CORRELATION_BIAS) == (10.0, 0.1)
    direct = adaptive_covariance(X, *b, epsilon=5.0, resolve_z=3.0, unresolved_margin=10.0,
                                 correlation_bias=0.1, **{**_CG_KW, "rng": 7})
    assert direct.choice == m.adaptive_choice_
    assert direct.predicted["coinpress"] == m.adaptive_predicted_["coinpress"]


def test_correlation_rule_and_margin_are_validated_before_any_charge():
    from matrixdp.accounting import Accountant

    X, lo, hi = _cg_table(), np.full(4, -10.0), np.full(4, 10.0)
    acc = Accountant(epsilon=5.0, delta=1e-5)
    with pytest.raises(InvalidParameterError, match="correlation_rule"):
        DPCovariance(epsilon=1.0, bounds=(lo, hi), kind="correlation", accountant=acc,
                     experimental=CovarianceOptions(correlation_rule="loose")).fit(X)
    assert len(acc.spends) == 0
    for bad in ({"unresolved_margin": 0.5, "resolve_z": 3.0},
                {"unresolved_margin": math.inf, "resolve_z": 3.0},
                {"unresolved_margin": 10.0, "resolve_z": 0.0}):
        with pytest.raises(InvalidParameterError, match="unresolved_margin"):
            adaptive_covariance(X, lo, hi, epsilon=1.0, **_CG_KW, **bad)
    with pytest.raises(InvalidParameterError, match="unresolved_margin"):
        adaptive_covariance(X, lo, hi, epsilon=1.0, delta=1e-6, unresolved_margin=10.0,
                            resolve_z=3.0)
    with pytest.raises(InvalidParameterError, match="correlation_bias"):
        adaptive_covariance(X, lo, hi, epsilon=1.0, delta=1e-6, correlation_bias=0.0)
    for bad in (-0.1, math.nan, math.inf):
        with pytest.raises(InvalidParameterError, match="correlation_bias"):
            adaptive_covariance(X, lo, hi, epsilon=1.0, resolve_z=3.0, correlation_bias=bad,
                                **_CG_KW)


# ---- task BC (session 18): every plan that can refuse is built before the charge -----------------
@pytest.mark.parametrize("opts", [
    # the mixed first look's PCA part (a sixteenth of mu^2) is refused at delta = 0.1 while the
    # covariance part (3/16) is not: it was planned after the first release had drawn its noise
    {"kind": "pca", "n_components": 2, "first_kind": "mixed"},
    # a first look of 0.9 leaves the last moments release 0.07 of mu^2: refused at delta = 0.1
    {"kind": "covariance", "options": AdaptiveOptions(first_share=0.9)},
])
def test_a_part_refused_for_its_delta_is_refused_before_the_charge(opts):
    from matrixdp.errors import InvalidPrivacyParameterError

    X = np.random.default_rng(0).uniform(0, 1, (200, 4))
    lo, hi = np.zeros(4), np.ones(4)
    entered = []

    def charging(guarantee):
        entered.append(guarantee)
        return contextlib.nullcontext()

    with pytest.raises(InvalidPrivacyParameterError) as info:
        adaptive_covariance(X, lo, hi, epsilon=1.0, delta=0.1, rng=0, charging=charging, **opts)
    assert info.value.argument == "delta" and entered == []
    # a delta every part can take: charged once, the fit released
    res = adaptive_covariance(X, lo, hi, epsilon=1.0, delta=1e-6, rng=0, charging=charging,
                              **opts)
    assert len(entered) == 1 and entered[0] == res.privacy


def test_dppca_mixed_first_look_refused_delta_charges_nothing():
    from matrixdp import Accountant
    from matrixdp.errors import InvalidPrivacyParameterError

    X = np.random.default_rng(0).uniform(0, 1, (200, 4))
    acc = Accountant()
    with pytest.raises(InvalidPrivacyParameterError):
        DPPCA(2, epsilon=1.0, delta=0.1, bounds=(0, 1),
              experimental=PCAOptions(adaptive_first="mixed"), random_state=0,
              accountant=acc).fit(X)
    assert len(acc.spends) == 0


# --- task TG2: the product-form reading of a triangle first look, full draws unchanged ---------

import contextlib as _contextlib  # noqa: E402
import warnings as _warnings  # noqa: E402

from matrixdp.models import _moments as _mom  # noqa: E402
from matrixdp.models import coinpress as _cp  # noqa: E402
from matrixdp.models.adaptive import release as _release  # noqa: E402


def _tg2_data():
    rng = np.random.default_rng(11)
    X = rng.uniform(-1.0, 1.0, (3000, 4))
    X[:, 1] = 0.6 * X[:, 0] + 0.4 * X[:, 1]
    y = np.clip(X @ np.array([1.0, 0.5, -0.3, 0.2]) + 0.1 * rng.standard_normal(3000), -3, 3)
    return X, y, (np.full(4, -1.0), np.full(4, 1.0))


def _tg2_fits():
    from matrixdp.models import DPCovariance, DPLinearRegression, DPPCA
    from matrixdp.models.experimental import CovarianceOptions, PCAOptions
    X, y, b = _tg2_data()
    # the covariance's moments branch drawn in full (task CV, session 24, made its dominating
    # triangle the default; that draw also goes through _dominating_triangle, which the
    # "not admitted" case below switches off): these tests are about the first looks
    full = CovarianceOptions(adaptive_moments_triangle=False)
    return {
        "covariance": lambda s: DPCovariance(epsilon=1.0, bounds=b, random_state=s,
                                             experimental=full).fit(X).covariance_,
        "coinpress": lambda s: DPCovariance(epsilon=1.0, bounds=b, method="coinpress",
                                            random_state=s).fit(X).covariance_,
        "correlation": lambda s: DPCovariance(kind="correlation", epsilon=1.0, bounds=b,
                                              random_state=s).fit(X).covariance_,
        "pca": lambda s: DPPCA(n_components=2, epsilon=1.0, bounds=b,
                               random_state=s).fit(X).components_,
        "pca-mixed": lambda s: DPPCA(n_components=2, epsilon=1.0, bounds=b, random_state=s,
                                     experimental=PCAOptions(adaptive_first="mixed")
                                     ).fit(X).components_,
        "regression": lambda s: DPLinearRegression(epsilon=1.0, bounds_X=b, bounds_y=(-3.0, 3.0),
                                                   random_state=s).fit(X, y).coef_,
    }


@_contextlib.contextmanager
def _tg2_reader(calls, legacy, readings):
    """Spy on the first look's reader (its flags and its ``Q``); ``legacy``: main's reader (the
    diagonal, always)."""
    orig = _cp.first_noise_scale

    def spy(V, m, t, *, mean_noise=True, product_form=False):
        Q = orig(V, m, t, mean_noise=mean_noise, product_form=product_form and not legacy)
        calls.append(product_form)
        readings.append(np.diagonal(Q).copy())
        return Q
    _cp.first_noise_scale = _release.first_noise_scale = spy
    try:
        yield
    finally:
        _cp.first_noise_scale = _release.first_noise_scale = orig


@_contextlib.contextmanager
def _tg2_switch(on, admit=True):
    old, dom = _mom.AUTO_TRIANGLES, _mom._dominating_triangle
    _mom.AUTO_TRIANGLES = on
    if not admit:
        _mom._dominating_triangle = lambda *a, **k: None
    try:
        yield
    finally:
        _mom.AUTO_TRIANGLES, _mom._dominating_triangle = old, dom


def _tg2_fit(f, seed, on, admit=True, legacy=False, readings=None):
    calls = []
    readings = [] if readings is None else readings
    with _tg2_switch(on, admit), _tg2_reader(calls, legacy, readings), \
            _warnings.catch_warnings():
        _warnings.simplefilter("ignore")
        return np.asarray(f(seed)), calls


@pytest.mark.parametrize("family", ["covariance", "coinpress", "correlation", "pca", "pca-mixed",
                                    "regression"])
def test_full_draw_first_looks_are_unchanged_bit_for_bit(family):
    # AUTO_TRIANGLES off, and on with no triangle admitted: every fit equals main's (the
    # diagonal reader), bit for bit, and the reader is never asked for the product form
    f = _tg2_fits()[family]
    for seed in (3, 4):
        main, c0 = _tg2_fit(f, seed, on=False, legacy=True)
        off, c1 = _tg2_fit(f, seed, on=False)
        unadmitted, c2 = _tg2_fit(f, seed, on=True, admit=False)
        assert np.array_equal(off, main) and np.array_equal(unadmitted, main)
        assert not any(c1) and not any(c2)
        # the adaptive and CoinPress families do read the first look (the test exercises it)
        assert (len(c1) > 0) == (family != "regression")


@pytest.mark.parametrize("family", ["covariance", "coinpress", "correlation", "pca-mixed"])
def test_a_triangle_first_look_is_read_in_the_product_form(family):
    # with a triangle admitted the reader is asked for the product form, and its margin is
    # wider than the diagonal's (so the test above would see a wrong flag); CoinPress always
    # whitens, so there the fit itself changes
    f = _tg2_fits()[family]
    q_new, q_old = [], []
    new, calls = _tg2_fit(f, 3, on=True, readings=q_new)
    old, _ = _tg2_fit(f, 3, on=True, legacy=True, readings=q_old)
    assert calls and all(calls)
    assert np.all(q_new[0] > 1.5 * q_old[0])
    if family == "coinpress":
        assert not np.array_equal(new, old)
