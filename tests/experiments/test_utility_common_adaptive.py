"""experiments/_utility_common.py's hooks into the adaptive package (task EX): the research knobs go
into ``options=`` (``adaptive_keywords``, ``adaptive_options``), and a diagnosis' spy reaches every
module of the package that calls the function (``set_adaptive``)."""

from __future__ import annotations

import collections
import importlib
import sys
from pathlib import Path

import numpy as np

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"
sys.path.insert(0, str(EXPERIMENTS))

uc = importlib.import_module("_utility_common")


def test_adaptive_keywords_moves_the_knobs_only_and_merges_with_given_options():
    from matrixdp.models.adaptive import AdaptiveOptions

    kw = uc.adaptive_keywords({"kind": "pca", "branch": "moments", "tie_ratio": 0.5})
    assert kw == {"kind": "pca", "options": AdaptiveOptions(branch="moments", tie_ratio=0.5)}
    kw = uc.adaptive_keywords({"options": AdaptiveOptions(far_tail=True), "decision_z": 3.0})
    assert kw == {"options": AdaptiveOptions(far_tail=True, decision_z=3.0)}
    assert uc.adaptive_keywords({"kind": "pca", "refine": True}) == {"kind": "pca", "refine": True}


def test_nested_adaptive_options_blocks_combine_their_knobs():
    from matrixdp.models import adaptive
    from matrixdp.models.adaptive import AdaptiveOptions

    seen = []
    orig = adaptive.adaptive_covariance
    adaptive.adaptive_covariance = lambda *a, **k: seen.append(k)
    try:
        with uc.adaptive_options(branch="coinpress"):
            with uc.adaptive_options(noise_pairs="normalised", projection="none"):
                adaptive.adaptive_covariance(None, None, None, kind="pca")
    finally:
        adaptive.adaptive_covariance = orig
    assert adaptive.adaptive_covariance is orig
    assert seen == [{"kind": "pca", "projection": "none",
                     "options": AdaptiveOptions(branch="coinpress", noise_pairs="normalised")}]


def test_set_adaptive_reaches_every_module_that_calls_the_function_and_restores_it():
    from matrixdp.models import adaptive
    from matrixdp.models.adaptive import counts, losses, release, steps

    calls = collections.Counter()
    orig = {name: getattr(adaptive, name) for name in ("read_counts", "whitening")}

    def spy_of(name):
        def spy(*a, **k):
            calls[(name, sys._getframe(1).f_code.co_filename.rsplit("/", 1)[-1])] += 1
            return orig[name](*a, **k)
        return spy

    rng = np.random.default_rng(0)
    X = np.clip(rng.normal(0.0, 1.0, (3000, 4)), -10.0, 10.0)
    lo, hi = np.full(4, -10.0), np.full(4, 10.0)
    try:
        for name in orig:
            uc.set_adaptive(name, spy_of(name))
        for seed in range(4):
            adaptive.adaptive_covariance(X, lo, hi, epsilon=5.0, delta=1e-6, rng=seed,
                                         loss_statistic="median")
            adaptive.adaptive_covariance(X, lo, hi, epsilon=5.0, delta=1e-6, rng=seed,
                                         refine=True,
                                         options=adaptive.AdaptiveOptions(branch="coinpress"))
    finally:
        for name, fn in orig.items():
            uc.set_adaptive(name, fn)
    assert calls[("whitening", "release.py")] > 0 and calls[("whitening", "steps.py")] > 0
    assert calls[("read_counts", "release.py")] > 0
    for module in (adaptive, counts, release, steps):
        assert module.read_counts is orig["read_counts"]
    for module in (adaptive, release, steps):
        assert module.whitening is orig["whitening"]
    assert losses.read_counts is orig["read_counts"]
