"""Farokhi's SVM on WDBC: the optimal Gaussian noise beats the Fisher-matched Laplace (slow)."""

from __future__ import annotations

import numpy as np
import pytest

from matrixdp.models.svm import fit_svm


@pytest.fixture(scope="module")
def wdbc():
    from sklearn.datasets import load_breast_cancer

    data = load_breast_cancer()
    return data.data, np.where(data.target == 0, 1.0, -1.0)  # malignant = +1


@pytest.mark.slow
def test_gaussian_beats_laplace_on_wdbc(wdbc):
    from matrixdp.mechanisms.fisher import sample_fisher_matched_laplace, sample_optimal_gaussian

    X, y = wdbc
    for lam in (1e-4, 1.0):
        g, l_ = [], []
        for seed in range(40):
            g.append(fit_svm(X + sample_optimal_gaussian(569, lam, n_features=30, rng=seed), y,
                             polish=False).accuracy(X, y))
            l_.append(fit_svm(X + sample_fisher_matched_laplace(569, lam, n_features=30, rng=seed),
                              y, polish=False).accuracy(X, y))
        # one-sided: Gaussian mean accuracy at least Laplace's (paired seeds)
        assert np.mean(g) >= np.mean(l_)
