"""Statistical validity of the black-box lower bound: thresholds chosen on one half and evaluated
on the other, Clopper-Pearson bounds at the Bonferroni level, and the rate at which independent
audits of a correct, tight mechanism put the bound above the true epsilon."""

import math

import numpy as np
import pytest

import matrixdp
from matrixdp.audit import audit_mechanism, clopper_pearson_upper
from matrixdp.audit import blackbox as bb
from matrixdp.audit import catalogue as cat


class Replay:
    """A 'mechanism' whose batch draws replay preset noise blocks in order (one per value)."""

    noise_is_elementwise_iid = False

    def __init__(self, blocks):
        self.blocks = list(blocks)
        self.privacy = matrixdp.PrivacyGuarantee(epsilon=1.0, delta=0.0)

    def sample_noise(self, shape, rng=None):  # pragma: no cover - batch path is used
        raise AssertionError("batch path expected")

    def sample_noise_batch(self, n, shape, rng=None):
        block = self.blocks.pop(0)
        assert block.shape == (n,) + tuple(shape)
        return block


def test_thresholds_depend_only_on_the_selection_half():
    n, n_sel = 2000, 1000
    rng = np.random.default_rng(0)
    noise_a = rng.laplace(size=(n, 1))
    noise_b = rng.laplace(size=(n, 1))
    a, b = np.zeros(1), np.ones(1)

    def run(na, nb):
        return audit_mechanism(Replay([na, nb]), a, b, n_samples=n, statistic="projection",
                               resolution=0)

    base = run(noise_a, noise_b)
    # Replace the evaluation halves by adversarial draws: thresholds must not move, counts must.
    adv_a, adv_b = noise_a.copy(), noise_b.copy()
    adv_a[n_sel:] = 10.0        # every evaluation draw of value lands in the upper region
    adv_b[n_sel:] = -10.0       # and every draw of value_prime outside it
    moved = run(adv_a, adv_b)
    for t0, t1 in zip(base.tests, moved.tests):
        assert t0.threshold == t1.threshold
    upper = moved.tests[0]
    assert upper.tail == "upper" and upper.false_positives == n - n_sel
    assert upper.false_negatives == n - n_sel and upper.epsilon_lower_bound == 0.0
    # And replacing the selection half does move them (the test can fail).
    sel_a, sel_b = noise_a.copy(), noise_b.copy()
    sel_a[:n_sel] *= 3.0
    assert [t.threshold for t in run(sel_a, sel_b).tests] != [t.threshold for t in base.tests]


@pytest.mark.parametrize("statistic,n_stats", [(None, 2), ("llr", 1), (["llr", "projection", "distance-ratio"], 3)])
def test_every_rate_bound_is_clopper_pearson_at_the_bonferroni_level(statistic, n_stats):
    mech = matrixdp.GaussianMechanism(epsilon=1.0, delta=1e-5, sensitivity=1.0)
    conf = 0.9
    res = audit_mechanism(mech, np.zeros(3), np.eye(3)[0], n_samples=3001, confidence=conf,
                          statistic=statistic, rng=1)
    assert res.n_tests == 2 * n_stats == len(res.tests)
    alpha = (1 - conf) / (2 * res.n_tests)      # two rate bounds per test
    for t in res.tests:
        assert t.n_evaluation == 3001 - 1500
        assert t.fpr_upper == pytest.approx(clopper_pearson_upper(t.false_positives, t.n_evaluation, alpha))
        assert t.fnr_upper == pytest.approx(clopper_pearson_upper(t.false_negatives, t.n_evaluation, alpha))
        num = 1 - 1e-5 - t.fnr_upper
        expected = max(0.0, math.log(num / t.fpr_upper)) if num > 0 else 0.0
        assert t.epsilon_lower_bound == pytest.approx(expected, abs=1e-12)


def test_catalogue_splits_confidence_across_witness_pairs(monkeypatch):
    seen = []
    real = cat.audit_mechanism

    def spy(*args, **kwargs):
        seen.append(kwargs["confidence"])
        return real(*args, **kwargs)

    monkeypatch.setattr(cat, "audit_mechanism", spy)
    entry = cat.CatalogueEntry(
        "three-pairs", "Gaussian on three witness pairs",
        lambda epsilon: matrixdp.GaussianMechanism(epsilon=epsilon, delta=1e-5, sensitivity=1.0),
        {"epsilon": 1.0},
        lambda mech, params: [(np.zeros(2), np.eye(2)[0]), (np.zeros(2), np.eye(2)[1]),
                              (np.zeros(2), -np.eye(2)[0])])
    row = cat.run_entry(entry, n_samples=500, confidence=0.95)
    assert seen == [pytest.approx(1 - 0.05 / 3)] * 3
    assert row.result.confidence == pytest.approx(1 - 0.05 / 3)


@pytest.mark.parametrize("mech", [
    matrixdp.LaplaceMechanism(epsilon=1.0, sensitivity=1.0),
    matrixdp.GaussianMechanism(epsilon=1.0, delta=1e-2, sensitivity=1.0),
], ids=["laplace", "analytic-gaussian"])
def test_bound_exceeds_the_true_epsilon_at_most_at_the_stated_rate(mech):
    # Both mechanisms are tight: their true epsilon at the claimed delta is exactly 1, so any
    # bound above 1 is a false accusation. The stated rate is 1 - confidence = 10%; with 150
    # independent audits allow 3 binomial standard deviations above it.
    conf, runs, n = 0.9, 150, 1000
    a, b = np.zeros(1), np.ones(1)
    bounds = np.array([audit_mechanism(mech, a, b, n_samples=2 * n, confidence=conf,
                                       statistic="llr", rng=s).epsilon_lower_bound
                       for s in range(runs)])
    rate = np.mean(bounds > 1.0)
    assert rate <= (1 - conf) + 3 * math.sqrt(conf * (1 - conf) / runs)
    # The bounds are informative (not trivially 0), so the rate check has something to bite on.
    assert np.median(bounds) > 0.5


def _true_rates(mu, tail, threshold):
    """Exact FPR, FNR of the region for i.i.d. Gaussian noise: LLR ~ N(-+mu^2/2, mu^2)."""
    from scipy.stats import norm

    if tail == "upper":   # region {T > t} guesses value_prime
        return norm.sf((threshold + mu * mu / 2) / mu), norm.cdf((threshold - mu * mu / 2) / mu)
    return norm.cdf((threshold - mu * mu / 2) / mu), norm.sf((threshold + mu * mu / 2) / mu)


def test_each_rate_bound_covers_the_true_rate_of_its_selected_region():
    # Sharper than the epsilon-level check (which Bonferroni makes very conservative): for the
    # Gaussian the true FPR/FNR of the region the audit SELECTED is known exactly, so we can count
    # how often each Clopper-Pearson upper bound falls below it. With held-out evaluation each
    # bound misses with probability <= alpha = (1 - conf)/(2 n_tests) = 0.1 here, and all four
    # hold together with probability >= conf.
    mech = matrixdp.GaussianMechanism(epsilon=1.0, delta=1e-2, sensitivity=1.0)
    mu = 1.0 / mech.sigma
    conf, runs, n = 0.6, 300, 1000
    alpha = (1 - conf) / 4
    a, b = np.zeros(1), np.ones(1)
    slack = 3 * math.sqrt(alpha * (1 - alpha) / runs)
    misses = []
    for s in range(runs):
        res = audit_mechanism(mech, a, b, n_samples=2 * n, confidence=conf, statistic="llr", rng=s)
        row = []
        for t in res.tests:
            fpr, fnr = _true_rates(mu, t.tail, t.threshold)
            row += [t.fpr_upper < fpr, t.fnr_upper < fnr]
        misses.append(row)
    misses = np.array(misses)
    assert np.all(misses.mean(axis=0) <= alpha + slack)
    assert misses.any(axis=1).mean() <= (1 - conf) + 3 * math.sqrt(conf * (1 - conf) / runs)

    # Power: choosing the threshold on the very draws that evaluate it (the mistake the split
    # prevents) makes the bounds miss far more often, and this check sees it.
    stat = matrixdp.audit.log_likelihood_ratio_for(mech)
    leaky = []
    for s in range(runs):
        g = np.random.default_rng(s)
        ta = stat(bb.draw_outputs(mech, a, n, g), a, b)
        tb = stat(bb.draw_outputs(mech, b, n, g), a, b)
        row = []
        for tail, null, alt in (("upper", ta, tb), ("lower", -tb, -ta)):
            thr = bb._select_threshold(null, alt, 1e-2, alpha)
            fp, fn = bb._counts(null, alt, np.array([thr]))
            fpr, fnr = _true_rates(mu, tail, thr if tail == "upper" else -thr)
            row += [clopper_pearson_upper(int(fp[0]), n, alpha) < fpr,
                    clopper_pearson_upper(int(fn[0]), n, alpha) < fnr]
        leaky.append(row)
    assert np.max(np.mean(leaky, axis=0)) > alpha + slack
