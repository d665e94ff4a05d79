"""The exact working-set SVM solver against the full Clarabel QP (docs/fisher.md §6).

Each comparison is on the same data: objective within 1e-8 relative, the same training accuracy,
and every KKT residual of (2) below a stated tolerance. Speed is measured in
benchmarks/bench_svm_fit.py, never here.
"""

from __future__ import annotations

import numpy as np
import pytest

from matrixdp.errors import InvalidParameterError, InvalidShapeError
from matrixdp.models import _svm_solvers
from matrixdp.models.svm import fit_svm, hinge_objective

#: KKT residuals of (2) (multipliers and margins are O(1)); stationarity is relative to |X^T c|.
KKT_TOL = 1e-8


def raw_scale_overlapping(seed=0, q=3000, p=5):
    """Overlapping classes with columns on scales 1 .. 1e5 (like Adult's raw features)."""
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(q) < 0.3, 1.0, -1.0)
    X = rng.standard_normal((q, p)) + 0.7 * y[:, None]
    return X * np.logspace(0, 5, p), y


@pytest.fixture(scope="module")
def wdbc():
    from sklearn.datasets import load_breast_cancer

    data = load_breast_cancer()
    return data.data, np.where(data.target == 0, 1.0, -1.0)


@pytest.fixture(scope="module")
def adult_numeric(data_home):
    """Adult's 6 numeric columns, raw (age, fnlwgt, education-num, capital-gain/-loss, hours)."""
    from matrixdp.datasets import load_adult

    ds = load_adult(split="both", data_home=data_home, progress=False)
    frame = ds.frame
    cols = ["age", "fnlwgt", "education-num", "capital-gain", "capital-loss", "hours-per-week"]
    X = frame[cols].to_numpy(dtype=float)
    return X, np.where(np.asarray(ds.target) == 1, 1.0, -1.0)


def assert_kkt(fit, X, y, tol=KKT_TOL):
    res = fit.kkt_residuals(X, y)
    scale = max(1.0, float(np.abs(X.T @ np.abs(fit.dual_coef)).max()))
    res["stationarity_alpha"] /= scale
    assert max(res.values()) < tol, res


def assert_same_solution(X, y, **kwargs):
    ref = fit_svm(X, y, solver="clarabel")
    new = fit_svm(X, y, solver="working-set", **kwargs)
    assert new.solver == "working-set" and ref.solver == "clarabel"
    assert abs(new.objective - ref.objective) <= 1e-8 * abs(ref.objective)
    assert new.accuracy(X, y) == ref.accuracy(X, y)
    assert_kkt(new, X, y)
    # the full QP's interior point, where the polish cannot read its split, is accurate only to
    # ~1e-5 in complementarity (noisy raw-scale Adult); the working set is held to KKT_TOL
    assert_kkt(ref, X, y, tol=1e-4)
    return ref, new


@pytest.mark.parametrize("seed", [0, 1])
def test_matches_clarabel_on_raw_scale_data(seed):
    X, y = raw_scale_overlapping(seed)
    ref, new = assert_same_solution(X, y)
    np.testing.assert_allclose(new.omega, ref.omega, atol=1e-7)


def test_small_working_set_forces_resplits_and_growth():
    """A working set of 20 records and a far-off start: re-splits, line searches, growth."""
    X, y = raw_scale_overlapping(2)
    Z = _svm_solvers.augmented_margins_matrix(X, y)
    ref = fit_svm(X, y, solver="clarabel")
    w0 = -np.append(ref.alpha, ref.beta) * 3.0  # the wrong side of every record
    for recentre in (8, 1):  # 1: no re-split, only the monotone growth of the working set
        w, omega, status, rounds = _svm_solvers.working_set_solve(
            Z, 1e-2, 1.0, 1e-10, w0=w0, size=20, recentre_rounds=recentre)
        assert omega is not None and rounds > 1
        obj = hinge_objective(w[:-1], w[-1], X, y, rho=1e-2, theta=1.0)
        assert abs(obj - ref.objective) <= 1e-8 * ref.objective


def test_warm_start_changes_speed_not_solution():
    X, y = raw_scale_overlapping(3)
    cold = fit_svm(X, y)
    other = fit_svm(*raw_scale_overlapping(4))
    for start in (other, np.append(other.alpha, other.beta), np.zeros(X.shape[1] + 1)):
        warm = fit_svm(X, y, warm_start=start)
        assert warm.objective == pytest.approx(cold.objective, rel=1e-12)
        np.testing.assert_allclose(warm.alpha, cold.alpha, rtol=1e-8, atol=1e-14)


def test_auto_solver_and_wdbc(wdbc):
    X, y = wdbc
    ref, new = assert_same_solution(X, y)
    assert fit_svm(X, y).solver == "working-set"           # auto with rho > 0
    assert fit_svm(X, y, rho=0.0).solver == "clarabel"      # the plain soft margin (1)
    assert round(new.accuracy(X, y), 4) == 0.9613
    assert new.n_support == ref.n_support == 60


def test_adult_subset_matches_clarabel(adult_numeric):
    X, y = adult_numeric
    assert_same_solution(X[:6000], y[:6000])


@pytest.mark.slow
def test_adult_full_matches_clarabel(adult_numeric):
    X, y = adult_numeric
    ref, new = assert_same_solution(X, y)
    rng = np.random.default_rng(0)
    noisy = X + rng.standard_normal(X.shape) * 3.0
    assert_same_solution(noisy, y, warm_start=new)


def test_polish_rejects_an_inconsistent_split():
    """Margins read off a wrong point give no consistent split within one round."""
    X, y = raw_scale_overlapping(5, q=400)
    Z = _svm_solvers.augmented_margins_matrix(X, y)
    fit = fit_svm(X, y)
    w = np.append(fit.alpha, fit.beta)
    good = _svm_solvers.polish_partition(Z, 1e-2, 1.0, Z @ w)
    assert good is not None
    np.testing.assert_allclose(good[1], fit.omega, atol=1e-9)
    assert _svm_solvers.polish_split(Z, 1e-2, 1.0, Z @ (0.5 * w), max_rounds=1) is None


def test_polish_recovers_the_exact_point_from_an_inaccurate_one():
    """Margins off by ~1e-5 (the full QP's on noisy Adult: ~1e-6) and a band holding more than
    p+1 records: S0 is capped at the p+1 nearest, and the exact split and point are found."""
    X, y = raw_scale_overlapping(6, q=5000)
    Z = _svm_solvers.augmented_margins_matrix(X, y)
    fit = fit_svm(X, y)
    w = np.append(fit.alpha, fit.beta)
    rng = np.random.default_rng(1)
    margins = Z @ (w * (1 + 1e-5 * rng.standard_normal(w.size)))
    assert (np.abs(margins - 1) <= 1e-2).sum() > w.size
    for out in (_svm_solvers.polish_split(Z, 1e-2, 1.0, margins, band=1e-2),
                _svm_solvers.polish_partition(Z, 1e-2, 1.0, margins)):
        assert out is not None
        np.testing.assert_allclose(out[0], w, rtol=1e-9)
        np.testing.assert_allclose(out[1], fit.omega, atol=1e-9)


def test_bad_solver_arguments():
    X, y = raw_scale_overlapping(0, q=50)
    with pytest.raises(InvalidParameterError):
        fit_svm(X, y, solver="newton")
    with pytest.raises(InvalidParameterError):
        fit_svm(X, y, rho=0.0, solver="working-set")
    with pytest.raises(InvalidShapeError):
        fit_svm(X, y, warm_start=np.zeros(3))
