"""End-to-end estimator audits: planted bugs are refuted, correct estimators are consistent,
bad inputs raise clear errors (matrixdp.audit.estimators and .estimator_catalogue)."""

import warnings

import numpy as np
import pytest

from matrixdp.audit import blackbox
from matrixdp.audit.estimator_catalogue import (estimator_catalogue, format_estimator_table,
                                                regression_pair, run_estimator_catalogue,
                                                synth_pair)
from matrixdp.audit.estimators import audit_estimator, fisher_direction, fitted_outputs
from matrixdp.errors import InvalidParameterError, InvalidShapeError
from matrixdp.mechanisms import GaussianMechanism
from matrixdp.rng import make_rng

EPS, DELTA = 1.0, 1e-6


class ToyMean:
    """A tiny 'estimator': the mean of X clipped to [0, 1], released by one Gaussian mechanism
    (replace-one, sensitivity 1/n), with the mechanism built once per factory (fast fits)."""

    def __init__(self, mech, seed):
        self.mech, self.seed = mech, seed

    def fit(self, X):
        x = np.clip(np.asarray(X, dtype=float), 0.0, 1.0)
        self.mean_ = np.asarray(self.mech.release(x.mean(axis=0), rng=make_rng(self.seed)).value)
        return self


def toy_factory(n, factor=1.0, epsilon=EPS):
    """make(seed) for ToyMean on n records; ``factor`` < 1 plants a sensitivity bug."""
    mech = GaussianMechanism(epsilon=epsilon, delta=DELTA, sensitivity=factor / n)
    return lambda seed: ToyMean(mech, seed)


def toy_pair(n=10):
    X = np.full((n, 1), 0.5)
    Xp = X.copy()
    X[-1, 0], Xp[-1, 0] = 0.0, 1.0  # one record from one end of the public box to the other
    return (X,), (Xp,)


def out_mean(est):
    return est.mean_


# ------------------------------------------------------------------------ the auditor
def test_planted_bug_refuted_fast():
    # sensitivity at 0.1x: Gaussian-DP mu ~ 2.4 instead of 0.24; 1,500 evaluation draws suffice
    data, data_p = toy_pair()
    res = audit_estimator(toy_factory(10, factor=0.1), data, data_p, epsilon=EPS, delta=DELTA,
                          output=out_mean, n_fits=3000, n_pilot=100, seed=1)
    assert not res.passed and res.verdict == "REFUTED"
    assert res.epsilon_lower_bound > 1.5 * EPS  # well above the claim, not a borderline call
    assert res.n_fits == 3000 and res.n_pilot == 100 and res.n_outputs == 1
    assert "REFUTED" in str(res)


def test_correct_toy_estimator_consistent_and_not_vacuous():
    # correct calibration: consistent. At a tenfold larger epsilon (claim 10, mu ~ 3.9) the same
    # audit's bound is positive: the audit sees the signal, and still stays below the claim.
    data, data_p = toy_pair()
    ok = audit_estimator(toy_factory(10), data, data_p, epsilon=EPS, delta=DELTA,
                         output=out_mean, n_fits=3000, n_pilot=100, seed=2)
    assert ok.passed and ok.epsilon_lower_bound <= EPS
    loud = audit_estimator(toy_factory(10, epsilon=10.0), data, data_p, epsilon=10.0,
                           delta=DELTA, output=out_mean, n_fits=3000, n_pilot=100, seed=3)
    assert loud.passed and 1.0 < loud.epsilon_lower_bound <= 10.0


def test_bound_uses_the_blackbox_tests():
    # the counted statistic goes through blackbox.threshold_tests (one statistic, two tails)
    data, data_p = toy_pair()
    res = audit_estimator(toy_factory(10, factor=0.1), data, data_p, epsilon=EPS, delta=DELTA,
                          output=out_mean, n_fits=400, n_pilot=20, seed=4)
    r = res.result
    assert r.n_tests == 2 and len(r.tests) == 2
    assert {t.tail for t in r.tests} == {"upper", "lower"}
    assert r.n_selection == 200 and r.n_evaluation == 200
    assert r.epsilon_lower_bound == max(t.epsilon_lower_bound for t in r.tests)


def test_fisher_direction():
    rng = np.random.default_rng(0)
    a = rng.normal(size=(4000, 3)) * [1.0, 10.0, 1.0]
    b = a[::-1] + [0.0, 1.0, 1.0]  # shifted in a noisy and in a quiet coordinate
    w = fisher_direction(a, b)
    assert np.isclose(np.linalg.norm(w), 1.0)
    # Fisher weighs the quiet coordinate ~100x the noisy one (shift / variance)
    assert abs(w[2]) > 20 * abs(w[1]) and w[2] > 0
    same = fisher_direction(np.zeros((5, 2)), np.zeros((5, 2)))
    assert np.array_equal(same, [1.0, 0.0])


def test_fitted_outputs_reads_published_attributes():
    class Reg:
        coef_ = np.array([1.0, 2.0])
        intercept_ = 3.0
        moments_ = np.arange(9.0).reshape(3, 3)
    out = fitted_outputs(Reg())
    assert np.array_equal(out, [1, 2, 3, 0, 1, 2, 4, 5, 8])
    with pytest.raises(InvalidParameterError, match="output="):
        fitted_outputs(object())


def test_bad_inputs_raise_clear_errors():
    data, data_p = toy_pair()
    make = toy_factory(10)
    kw = dict(epsilon=EPS, delta=DELTA, output=out_mean, n_fits=20, n_pilot=2)
    with pytest.raises(InvalidParameterError, match="make"):
        audit_estimator("not callable", data, data_p, **kw)
    with pytest.raises(InvalidParameterError, match="tuple"):
        audit_estimator(make, data[0], data_p, **kw)
    with pytest.raises(InvalidParameterError, match="must differ"):
        audit_estimator(make, data, (data[0].copy(),), **kw)
    with pytest.raises(InvalidParameterError, match="n_fits"):
        audit_estimator(make, data, data_p, **{**kw, "n_fits": 10})
    with pytest.raises(InvalidParameterError, match="n_pilot"):
        audit_estimator(make, data, data_p, **{**kw, "n_pilot": 1})
    with pytest.raises(InvalidParameterError, match="epsilon"):
        audit_estimator(make, data, data_p, **{**kw, "epsilon": 0.0})
    with pytest.raises(InvalidParameterError, match="output"):
        audit_estimator(make, data, data_p, **{**kw, "output": 3})
    with pytest.raises(InvalidParameterError, match="non-finite"):
        audit_estimator(make, data, data_p, **{**kw, "output": lambda e: [np.nan]})
    calls = iter(range(10_000))
    with pytest.raises(InvalidShapeError, match="fixed-length"):
        audit_estimator(make, data, data_p,
                        **{**kw, "output": lambda e: np.zeros(1 + (next(calls) > 0))})


def test_threshold_tests_validates():
    with pytest.raises(InvalidParameterError):
        blackbox.threshold_tests([], delta=0.0, confidence=0.95)
    with pytest.raises(InvalidShapeError):
        blackbox.threshold_tests([("s", np.zeros(10), np.zeros(9))], delta=0.0, confidence=0.95)


# --------------------------------------------------------------------- the catalogue
def test_catalogue_entries_and_pairs():
    entries = estimator_catalogue()
    names = [e.name for e in entries]
    assert len(names) == len(set(names))
    for must in ("DPLinearRegression", "DPLinearRegression[grow]", "DPRidge", "AdaSSPRegression",
                 "BoostedAdaSSPRegression", "DPCovariance[coinpress]", "DPCovariance[adaptive]",
                 "DPPCA", "DPCopula", "DPTreeCopula", "DPTreeCopula[histogram_tree=4]",
                 "DPTreeCopula[geometric-wide]"):
        assert must in names
    assert any(e.planted is not None and e.fast for e in entries)
    assert any(e.planted is not None and e.full and e.expect_refuted for e in entries)
    # replace-one regression pair: same X, the last target flipped across the public box
    (X, y), (Xp, yp) = regression_pair()
    assert np.array_equal(X, Xp) and np.count_nonzero(y != yp) == 1 and y[-1] == -yp[-1] == 1
    # add/remove synth pair: D' = D plus one record
    (f,), (fp,) = synth_pair()
    assert len(fp) == len(f) + 1 and fp.iloc[:-1].equals(f)


def test_planted_bug_is_restored_after_the_run():
    from matrixdp.models import boosted_fit
    original = boosted_fit.boosted_plan
    entry = next(e for e in estimator_catalogue() if e.name == "PLANTED DPLinearRegression joint x0.05")
    with entry.planted():
        assert boosted_fit.boosted_plan is not original
    assert boosted_fit.boosted_plan is original


@pytest.mark.slow
def test_planted_linear_regression_bug_refuted_and_default_consistent():
    # the shipped default DPLinearRegression (joint release + 2 boosting rounds): consistent;
    # the same fit with its joint release at 0.05x its sensitivity: refuted, on the same pair
    names = ["DPLinearRegression", "PLANTED DPLinearRegression joint x0.05"]
    rows = run_estimator_catalogue(n_fits=600, n_pilot=60, names=names, seed=5)
    ok, bug = rows
    assert ok.verdict == "consistent" and not ok.privacy_bug
    assert bug.verdict == "planted bug REFUTED" and bug.audit.epsilon_lower_bound > 1.0
    from matrixdp.models import boosted_fit
    assert boosted_fit.boosted_plan.__name__ == "boosted_plan"  # the patch is gone
    table = format_estimator_table(rows)
    assert "planted bug REFUTED" in table and "consistent" in table


@pytest.mark.slow
def test_planted_tree_copula_histogram_bug_refuted():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rows = run_estimator_catalogue(n_fits=600, n_pilot=60, seed=6, names=[
            "DPTreeCopula", "PLANTED DPTreeCopula histograms x0.02"])
    assert rows[0].verdict == "consistent"
    assert rows[1].verdict == "planted bug REFUTED" and rows[1].audit.epsilon_lower_bound > 1.0
