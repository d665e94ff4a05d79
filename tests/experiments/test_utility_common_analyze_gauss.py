"""The benchmarks' Analyze Gauss peer (``experiments/_utility_common.analyze_gauss_covariance``)
gets its tightest valid noise (task AG, session 20): the analytic Gaussian σ at the exact
replace-one sensitivity ``R²/n`` of the mirrored upper triangle it releases
(``matrixdp.baselines.augmented_upper_sensitivity``), not the whole matrix's ``√2·R²/n`` with the
classic σ; and the release charges its (ε, δ) to an enclosing accountant."""

from __future__ import annotations

import importlib
import math
import sys
from pathlib import Path

import numpy as np
import pytest

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"
sys.path.insert(0, str(EXPERIMENTS))

uc = importlib.import_module("_utility_common")

from matrixdp.accounting import Accountant  # noqa: E402
from matrixdp.baselines import dwork_roth_sigma  # noqa: E402
from matrixdp.calibration import analytic_gaussian_sigma  # noqa: E402
from matrixdp.errors import BudgetExceededError  # noqa: E402

# a box with unequal widths (so t, the rms half-width, differs from every h_i)
LO = np.array([0.0, -2.0, 10.0])
HI = np.array([1.0, 2.0, 16.0])


def _records(n=400, seed=0):
    return np.random.default_rng(seed).uniform(LO, HI, (n, LO.size))


@pytest.mark.parametrize("eps", [0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0])
def test_sigma_is_the_analytic_sigma_at_the_triangle_sensitivity(eps):
    n, delta = 400, 1e-6
    _, _, h, t = uc.augmented(_records(n), LO, HI)
    r2 = float(h @ h + t * t)
    sigma = uc.analyze_gauss_sigma(h, t, n, eps, delta)
    assert sigma == pytest.approx(analytic_gaussian_sigma(eps, delta, r2 / n), rel=1e-12)
    # the whole matrix's sensitivity would give sqrt 2 times this: rejected
    whole = analytic_gaussian_sigma(eps, delta, math.sqrt(2.0) * r2 / n)
    assert whole / sigma == pytest.approx(math.sqrt(2.0), rel=1e-9)
    assert sigma != pytest.approx(whole, rel=0.25)  # 29% apart: the check tells them apart
    # and it is below the old calibration (classic sigma where valid, at sqrt2 R^2/n)
    try:
        old = dwork_roth_sigma(eps, delta, math.sqrt(2.0) * r2 / n)
    except Exception:  # classic sigma refused at this epsilon: the old code fell back to analytic
        old = whole
    assert sigma <= old / math.sqrt(2.0) * (1 + 1e-12)


def test_released_mean_noise_has_the_analytic_sigma_not_sqrt2_times_it():
    """The released mean is ``c + G[:d, d]/t``, so its noise is ``E[:d, d]/t`` with
    ``E_ij ~ N(0, σ²)``: its empirical sd times ``t`` must be σ (4,500 draws: the sd's relative
    standard error is ~1.1%; tolerance 5%), and √2·σ (41% off) must be rejected."""
    n, eps, delta = 400, 1.0, 1e-6
    X = _records(n)
    _, c, h, t = uc.augmented(X, LO, HI)
    true_mean = X.mean(axis=0)
    sigma = uc.analyze_gauss_sigma(h, t, n, eps, delta)
    dev = np.stack([uc.analyze_gauss_covariance(X, LO, HI, eps, delta,
                                                np.random.default_rng(s))[1] - true_mean
                    for s in range(1500)])
    sd = float(np.sqrt(np.mean(dev ** 2))) * t
    assert sd == pytest.approx(sigma, rel=0.05)
    assert abs(sd / (math.sqrt(2.0) * sigma) - 1.0) > 0.2


def test_release_charges_its_epsilon_delta():
    X = _records(200)
    with Accountant(epsilon=1.0, delta=1e-6) as acc:
        uc.analyze_gauss_covariance(X, LO, HI, 1.0, 1e-6, np.random.default_rng(0))
    assert len(acc.spends) == 1
    g = acc.spends[0][1]
    assert g.epsilon == pytest.approx(1.0) and g.delta == pytest.approx(1e-6)
    assert g.calibration == "analytic" and g.exact
    with Accountant(epsilon=0.5, delta=1e-6) as acc:  # a budget it does not fit: refused
        with pytest.raises(BudgetExceededError):
            uc.analyze_gauss_covariance(X, LO, HI, 1.0, 1e-6, np.random.default_rng(0))
    assert acc.spends == ()
