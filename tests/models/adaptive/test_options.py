"""AdaptiveOptions: the research knobs of adaptive_covariance in one frozen, validated object
(task EX; ``src/matrixdp/models/adaptive/options.py``)."""

from __future__ import annotations

import contextlib
import dataclasses

import numpy as np
import pytest

from matrixdp.errors import InvalidParameterError
from matrixdp.models.adaptive import AdaptiveOptions, adaptive_covariance
from matrixdp.models.adaptive.options import FIRST_MIX, FIRST_SHARE


def _table(n=1500, seed=0):
    """Records filling a small part of a wide box (the whitened step is in play)."""
    rng = np.random.default_rng(seed)
    X = np.clip(rng.normal(0.0, 1.0, (n, 4)), -10.0, 10.0)
    return X, np.full(4, -10.0), np.full(4, 10.0)


def test_the_default_object_is_the_shipped_release_byte_for_byte():
    X, lo, hi = _table()
    for seed in range(3):
        a = adaptive_covariance(X, lo, hi, epsilon=1.0, delta=1e-6, rng=seed)
        b = adaptive_covariance(X, lo, hi, epsilon=1.0, delta=1e-6, rng=seed,
                                options=AdaptiveOptions())
        assert a.choice == b.choice and a.mus == b.mus and a.predicted == b.predicted
        np.testing.assert_array_equal(a.covariance, b.covariance)
        np.testing.assert_array_equal(a.location, b.location)
    assert AdaptiveOptions().first_share == FIRST_SHARE and AdaptiveOptions().first_mix == FIRST_MIX


def test_a_knob_reaches_the_release():
    """A forced branch is obeyed both ways (so the object is read, not ignored)."""
    X, lo, hi = _table()
    got = {br: adaptive_covariance(X, lo, hi, epsilon=1.0, delta=1e-6, rng=0,
                                   options=AdaptiveOptions(branch=br)).choice
           for br in ("moments", "coinpress")}
    assert got == {"moments": "moments", "coinpress": "coinpress"}


def test_it_is_frozen():
    opts = AdaptiveOptions(tie_ratio=0.5)
    with pytest.raises(dataclasses.FrozenInstanceError):
        opts.tie_ratio = 1.0
    assert dataclasses.replace(opts, tie_ratio=1.0) == AdaptiveOptions()


@pytest.mark.parametrize("knobs, name", [
    ({"first_mix": 0.0}, "first_mix"), ({"first_mix": 1.0}, "first_mix"),
    ({"tie_ratio": 0.0}, "tie_ratio"), ({"tie_ratio": float("inf")}, "tie_ratio"),
    ({"decision_z": -1.0}, "decision_z"), ({"decision_z": float("nan")}, "decision_z"),
    ({"noise_pairs": "mean"}, "noise_pairs"), ({"pca_gaps": "bbp"}, "pca_gaps"),
    ({"pca_unresolved": "always"}, "pca_unresolved"), ({"branch": "box"}, "branch"),
    ({"decision": "trace"}, "decision"), ({"select_units": "pixels"}, "select_units"),
    ({"first_share": 0.0}, "first_share"), ({"first_share": 0.99, "bias_share": 0.02},
                                            "first_share"),
    ({"far_tail": "yes"}, "far_tail"), ({"first_share": 0.01, "far_tail": True}, "first_share"),
    ({"moments_triangle": "yes"}, "moments_triangle"),
])
def test_each_knob_is_validated_once_when_the_object_is_made(knobs, name):
    with pytest.raises(InvalidParameterError, match=name) as info:
        AdaptiveOptions(**knobs)
    assert info.value.argument == name


def test_the_defaults_and_the_values_the_experiments_use_are_accepted():
    for knobs in ({}, {"tie_ratio": 0.5}, {"decision_z": 3.0}, {"far_tail": True},
                  {"noise_pairs": "normalised"}, {"noise_pairs": "unfloored"},
                  {"pca_gaps": "spiked"}, {"pca_unresolved": "step"}, {"first_mix": 0.5},
                  {"decision": "clipping-loss", "select_units": "unit-box"},
                  {"first_share": 1 / 16}, {"branch": "moments"}, {"diagonal_noise": True},
                  {"resolution_guard": True}, {"mean_margin": True}, {"margin": 2.0},
                  {"moments_triangle": True}):
        AdaptiveOptions(**knobs)


def test_a_wrong_options_argument_is_refused_before_any_charge():
    X, lo, hi = _table(200)
    entered = []

    def charging(guarantee):
        entered.append(guarantee)
        return contextlib.nullcontext()

    with pytest.raises(InvalidParameterError, match="options"):
        adaptive_covariance(X, lo, hi, epsilon=1.0, delta=1e-6, rng=0, charging=charging,
                            options={"tie_ratio": 0.5})
    with pytest.raises(InvalidParameterError, match="far_tail"):  # a cross-check with kind
        adaptive_covariance(X, lo, hi, epsilon=1.0, delta=1e-6, rng=0, charging=charging,
                            kind="pca", options=AdaptiveOptions(far_tail=True))
    assert entered == []
