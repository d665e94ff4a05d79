"""experiments/pca_dp_bounds_gate.py (task PB): the candidates' fits, the winner rule, the
reproduction note and a tiny run."""

from __future__ import annotations

import csv
import importlib
import sys
from pathlib import Path

import numpy as np
import pytest

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"
sys.path.insert(0, str(EXPERIMENTS))

pb = importlib.import_module("pca_dp_bounds_gate")
uc = importlib.import_module("_utility_common")


def _table():
    rng = np.random.default_rng(0)
    X = np.clip(rng.normal(0.0, 1.0, (3000, 4)) * [1.0, 2.0, 0.5, 1.0], -10.0, 10.0)
    lo, hi = np.full(4, -10.0), np.full(4, 10.0)
    return uc.Table("toy", X, None, list("abcd"), None, lo, hi, None, None, "toy")


@pytest.mark.parametrize("cand", ["P1", "P2"])
def test_candidates_fit_with_dp_bounds_inside_the_public_box_at_the_full_budget(cand):
    """The candidate is DPPCA with DPBounds over the table's public box: the released bounds lie
    inside the box, the guarantee is (ε, δ) with 0.1ε of it pure, and the fit equals a moments
    fit at 0.9ε with the released bounds given as public bounds (same seed)."""
    from matrixdp.models import DPPCA

    t = _table()
    b = pb.spec(cand, t)
    assert b.fraction == 0.1 and b.method == ("median-mad" if cand == "P1" else "quantiles")
    # the moments release, as when task PB ran (DPPCA() is adaptive since task PX; the gate pins it)
    est = DPPCA(n_components=2, epsilon=2.0, delta=uc.DELTA, bounds=b, method="moments",
                random_state=4).fit(t.X)
    lo, hi = est.bounds_
    assert np.all(lo >= t.lo) and np.all(hi <= t.hi) and np.all(lo < hi)
    assert est.privacy_.epsilon == pytest.approx(2.0) and est.privacy_.delta == uc.DELTA
    assert est.bounds_privacy_.epsilon == pytest.approx(0.2) and est.bounds_privacy_.delta == 0
    ref = DPPCA(n_components=2, epsilon=1.8, delta=uc.DELTA, bounds=(lo, hi), method="moments",
                random_state=4).fit(t.X)
    np.testing.assert_array_equal(est.components_, ref.components_)
    V, choice = pb.fitter(cand, t, 2.0, 2)(4)
    np.testing.assert_array_equal(V, est.components_)
    assert choice is None


def test_winner_is_the_passing_candidate_with_more_d2_cells_tie_p1():
    assert pb.winner_of({"P1": (True, 50, []), "P2": (True, 52, [])}) == "P2"
    assert pb.winner_of({"P1": (True, 51, []), "P2": (True, 51, [])}) == "P1"
    assert pb.winner_of({"P1": (False, 60, []), "P2": (True, 50, [])}) == "P2"
    assert pb.winner_of({"P1": (False, 60, []), "P2": (False, 60, [])}) is None


def test_reproduction_note_counts_identical_peer_rows(tmp_path):
    old = tmp_path / "old.csv"
    base = {"dataset": "a", "n": 1, "d": 2, "task": "pca k=2", "epsilon": 1.0, "trial": 0,
            "seed": 7, "choice": "", "seconds": "0.1"}
    rows = [dict(base, method="auto", deficit=repr(0.5)),
            dict(base, method="coinpress", deficit=repr(0.25)),
            dict(base, method="P1", deficit=repr(0.1))]
    with open(old, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows([rows[0], dict(rows[1], deficit=repr(0.3)), rows[2]])
    text = "\n".join(pb.reproduction_lines([{k: str(v) for k, v in r.items()} for r in rows],
                                           old))
    assert "`auto`: 1 of 1" in text and "`coinpress`: 0 of 1" in text
    assert "`iid, unit box`: 0 of 0" in text and "P1" not in text


def test_tiny_gate_run_writes_every_row_and_the_verdicts(tmp_path, data_home):
    assert pb.main(["--datasets", "liver", "--epsilons", "1", "--ks", "2", "--trials", "3",
                    "--out", str(tmp_path)]) == 0
    with open(tmp_path / "pca_dp_bounds_gate_trials.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert sorted({r["method"] for r in rows}) == sorted(pb.METHODS) and len(rows) == 15
    assert all(0.0 <= float(r["deficit"]) <= 1.0 for r in rows)
    text = (tmp_path / "pca_dp_bounds_gate.md").read_text()
    assert "### P1: **" in text and "### P2: **" in text and "(D3)" in text
    assert "Probe (disclosed; before the candidates" in text


def test_diagnosis_arithmetic_width_clipping_and_variance_lost():
    diag = importlib.import_module("pca_dp_bounds_diagnosis")
    X = np.array([[0.0, 0.0], [0.0, 1.0], [0.0, 2.0], [4.0, 3.0]])
    np.testing.assert_allclose(diag.mode_share(X), [0.75, 0.25])
    plo, phi = np.array([0.0, 0.0]), np.array([4.0, 4.0])
    w_med, w_min, clipped, lost = diag.clip_stats(X, np.array([0.0, 0.0]),
                                                  np.array([2.0, 4.0]), plo, phi)
    assert (w_med, w_min) == (0.75, 0.5)
    assert clipped == 1 / 8  # the single 4.0 of column 0
    # column 0: variance 3 -> 0.75 after clipping 4 -> 2; column 1 (1.25) unchanged
    assert lost == pytest.approx(1 - (0.75 + 1.25) / (3.0 + 1.25))
