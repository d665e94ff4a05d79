"""The R1SMG case-study-II helpers: the PCA query's sensitivity (spec r1smg.md T-E4) and the
total-deviation metric (T-E5)."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "experiments"))

import r1smg_pca  # noqa: E402


def _frobenius_change(x, x_prime):
    """‖xxᵀ − x′x′ᵀ‖_F without forming the d x d matrices."""
    return math.sqrt((x @ x) ** 2 + (x_prime @ x_prime) ** 2 - 2 * (x @ x_prime) ** 2)


def test_swarm_sensitivity_is_attained_by_orthogonal_sign_vectors():
    """T-E4: s₂ = √2·d/n = 0.1413271 for Swarm (d = 2400, n = 24016), reached by x = 1, x′ = ±1 alternating."""
    d, n = 2400, 24016
    x = np.ones(d)
    x_prime = np.where(np.arange(d) % 2 == 0, 1.0, -1.0)
    assert _frobenius_change(x, x_prime) / n == pytest.approx(0.1413271, rel=1e-6)
    assert math.sqrt(2.0) * d / n == pytest.approx(0.1413271, rel=1e-6)


def test_no_pair_in_the_box_exceeds_the_sensitivity():
    rng = np.random.default_rng(3)
    d = 8
    worst = 0.0
    for i in range(2000):  # random vertex pairs, and vertex/interior pairs, of [-1, 1]^d
        x = rng.choice([-1.0, 1.0], d)
        x_prime = rng.choice([-1.0, 1.0], d) if i % 2 else rng.uniform(-1, 1, d)
        change = np.linalg.norm(np.outer(x, x) - np.outer(x_prime, x_prime))
        assert change == pytest.approx(_frobenius_change(x, x_prime), rel=1e-9)
        worst = max(worst, change)
    assert worst <= math.sqrt(2.0) * d + 1e-9
    assert worst == pytest.approx(math.sqrt(2.0) * d, rel=1e-12)  # reached: the bound is tight


def test_prepared_query_is_symmetric_psd_with_the_formula_sensitivity(data_home):
    ctx = r1smg_pca.prepare(data_home, svm_records=100)
    cov, n, d = ctx["cov"], ctx["n"], ctx["d"]
    assert np.allclose(cov, cov.T)
    assert np.linalg.eigvalsh(cov).min() > -1e-10
    assert ctx["sensitivity"] == pytest.approx(math.sqrt(2.0) * d / n, rel=1e-12)
    assert np.abs(ctx["data"]).max() <= 1.0 + 1e-12  # records in [-1, 1]^d, as the bound assumes


def test_total_deviation_is_zero_for_true_components_and_counts_swaps():
    """T-E5: Δ_tot = Σ|λ_i − v_iᵀCv_i| is 0 for the true PCs and 2|λ₁ − λ₂| when the first two swap."""
    rng = np.random.default_rng(0)
    q, _ = np.linalg.qr(rng.standard_normal((5, 5)))
    lam = np.array([5.0, 3.0, 2.0, 1.0, 0.5])
    cov = (q * lam) @ q.T
    ctx = {"cov": cov, "eigvals": lam, "d": 5}
    assert r1smg_pca.total_deviation(ctx, q) == pytest.approx(0.0, abs=1e-12)
    swapped = q[:, [1, 0, 2, 3, 4]]
    assert r1smg_pca.total_deviation(ctx, swapped) == pytest.approx(2 * (5.0 - 3.0), rel=1e-12)
