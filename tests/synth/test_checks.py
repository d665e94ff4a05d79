"""Warnings before a degenerate synthetic table, and the memory check of a large ``sample``."""

import warnings

import numpy as np
import pytest

from matrixdp import RONGauss
from matrixdp.errors import InvalidParameterError
from matrixdp.synth import _checks
from matrixdp.synth._checks import (
    NoiseDominatedWarning,
    check_sample_memory,
    surviving_directions,
    warn_if_noise_dominated,
)


def test_surviving_directions_counts_the_clear_eigenvalues():
    assert surviving_directions(np.diag([3.0, 1.0, 0.0])) == 2
    assert surviving_directions(np.zeros((3, 3))) == 0
    assert surviving_directions(np.eye(4)) == 4


def test_warning_says_how_many_directions_survived():
    with pytest.warns(NoiseDominatedWarning, match="only 1 of 3 directions survived"):
        warn_if_noise_dominated(np.diag([2.0, 0.0, 0.0]))
    with pytest.warns(NoiseDominatedWarning, match="every direction was lost"):
        warn_if_noise_dominated(np.zeros((2, 2)))
    with pytest.warns(NoiseDominatedWarning, match="class 'b'"):
        warn_if_noise_dominated(np.stack([np.eye(2), np.diag([1.0, 0.0])]), names=["a", "b"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warn_if_noise_dominated(np.eye(3))  # full rank: silent


def test_fit_warns_when_the_noise_dominates_and_not_otherwise():
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(40, 6))
    with pytest.warns(NoiseDominatedWarning, match="of 5 directions survived"):
        RONGauss(dim=5, epsilon=0.05, random_state=0).fit(X)
    big = rng.uniform(size=(20000, 6))
    with warnings.catch_warnings():
        warnings.simplefilter("error", NoiseDominatedWarning)
        RONGauss(dim=2, epsilon=5.0, random_state=0).fit(big)


def test_unsupervised_fit_with_labels_warns():
    X = np.random.default_rng(1).uniform(size=(500, 4))
    with pytest.warns(UserWarning, match="y is ignored with task='unsupervised'"):
        RONGauss(dim=2, epsilon=2.0, random_state=0).fit(X, np.zeros(500))


def test_huge_sample_is_refused_before_allocating(monkeypatch):
    X = np.random.default_rng(2).uniform(size=(2000, 4))
    model = RONGauss(dim=2, epsilon=5.0, random_state=0).fit(X)
    monkeypatch.setattr(_checks, "available_memory", lambda: 2 ** 30)  # 1 GiB free
    with pytest.raises(InvalidParameterError, match="n_samples.*sample_batches"):
        model.sample(10 ** 9)
    assert model.sample(1000).shape == (1000, 2)  # small draws still work


def test_check_sample_memory_threshold():
    check_sample_memory(1000, 10, available=10 ** 6)  # needs 240 kB of 1 MB
    with pytest.raises(InvalidParameterError, match="GiB"):
        check_sample_memory(10 ** 4, 10, available=10 ** 6)  # needs 2.4 MB


def test_sample_batches_yields_every_record_in_bounded_batches():
    X = np.random.default_rng(3).uniform(size=(2000, 4))
    y = (X[:, 0] > 0.5).astype(int)
    model = RONGauss(dim=2, epsilon=5.0, task="classification", classes=[0, 1],
                     random_state=0).fit(X, y)
    batches = list(model.sample_batches(2500, batch_size=1000))
    assert [b[0].shape[0] for b in batches] == [1000, 1000, 500]
    assert all(len(b[1]) == b[0].shape[0] for b in batches)
    with pytest.raises(InvalidParameterError, match="batch_size"):
        next(model.sample_batches(10, batch_size=0))
