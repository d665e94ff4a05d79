"""experiments/_pca_gate.py: the shared runner/analyser of pca_mixed_first.py,
pca_bias_records_gate.py and pca_bias_one_record_gate.py. Their committed reports re-render byte for byte from the committed
trials through it, and its per-cell summary counts what its columns say."""

from __future__ import annotations

import csv
import importlib
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "experiments"))

pcg = importlib.import_module("_pca_gate")


@pytest.mark.parametrize("module, stage", [("pca_mixed_first", "gate"),
                                           ("pca_mixed_first", "explore"),
                                           ("pca_bias_records_gate", "gate"),
                                           ("pca_bias_one_record_gate", "gate")])
def test_committed_reports_rerender_identically(tmp_path, module, stage):
    """``analyse`` on a copy of the committed trials writes the committed .md and .csv exactly
    (a changed column, order, format or verdict line would fail)."""
    m = importlib.import_module(module)
    name = f"{m.NAME}_{stage}"
    shutil.copy(ROOT / "results" / f"{name}_trials.csv", tmp_path)
    m.analyse(stage, tmp_path)
    for ext in (".md", ".csv"):
        assert (tmp_path / f"{name}{ext}").read_bytes() == (ROOT / "results" / f"{name}{ext}").read_bytes()


@pytest.mark.parametrize("module", ["pca_noise_pairs_gate", "pca_noise_unfloored_gate",
                                    "pca_spiked_gaps_gate", "pca_unresolved_step_gate"])
def test_option_gates_rerender_their_committed_reports(tmp_path, module):
    """The four ranking-option gates share :class:`_pca_gate.OptionGate`: each re-renders its
    committed report and per-cell CSV byte for byte from its committed trials."""
    gate = importlib.import_module(module).GATE
    name = f"{gate.name}_gate"
    shutil.copy(ROOT / "results" / f"{name}_trials.csv", tmp_path)
    gate.analyse("gate", tmp_path)
    for ext in (".md", ".csv"):
        assert (tmp_path / f"{name}{ext}").read_bytes() == (ROOT / "results" / f"{name}{ext}").read_bytes()


def _trials(path, candidate, cand_vals, dflt_vals, choices=("moments", "coinpress")):
    with path.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=pcg.FIELDS)
        w.writeheader()
        for row, vals in (("default", dflt_vals), (candidate, cand_vals)):
            for i, v in enumerate(vals):
                w.writerow({"group": "benchmark", "table": "adult", "k": 2, "epsilon": 1.0,
                            "row": row, "trial": i, "seed": i, "deficit": repr(float(v)),
                            "choice": choices[i % 2]})


def test_summarise_counts_changed_trials_and_flags_a_loss(tmp_path):
    """A candidate 2x the default in every trial but one: 19 changed trials, a paired-gate FAIL,
    ratio of medians 2; equal to the default: 0 changed, no FAIL, ratio 1."""
    base = np.exp(np.random.default_rng(1).normal(0.0, 0.3, 20))
    worse = 2.0 * base
    worse[0] = base[0]
    path = tmp_path / "t_trials.csv"
    _trials(path, "cand", worse, base)
    (s,) = pcg.summarise(path, "cand", ("moments",), changed=True)
    assert s["changed trials"] == 19 and s["verdict"] == "FAIL"
    assert s["ratio of medians"] == pytest.approx(float(np.median(worse) / np.median(base)))
    assert s["default chose cp"] == s["cand chose cp"] == 10
    assert "default/best ref" not in s  # no reference row ran
    _trials(path, "cand", base, base)
    (s,) = pcg.summarise(path, "cand", ("moments",), changed=True)
    assert s["changed trials"] == 0 and s["verdict"] != "FAIL" and s["ratio of medians"] == 1.0
    (s,) = pcg.summarise(path, "cand", ("moments",))
    assert "changed trials" not in s


def test_run_first_extends_a_shorter_run_on_the_same_seeds(tmp_path):
    """``cfg["first"]``: a run of trials 2..3 writes exactly the rows (seeds, trial indices,
    deficits) that a run of trials 0..3 wrote for them, and nothing for trials 0..1 (a fake fitter:
    the components are a function of the seed only; one cell, liver k = 2 at one ε)."""
    def fit_row(row, t, eps, k):
        return lambda s: (np.random.default_rng(s).standard_normal((k, t.d)), "")

    keep = lambda j: pcg.cells(False)[j][1:] == ("liver", 2)  # noqa: E731
    read = lambda p: list(csv.DictReader(p.open()))  # noqa: E731
    full = pcg.run("full", {"seed": 5, "trials": 4, "measurement": False}, "s", tmp_path,
                   (1.0,), (pcg.DEFAULT,), fit_row, keep)
    ext = pcg.run("ext", {"seed": 5, "trials": 4, "measurement": False, "first": 2}, "s",
                  tmp_path, (1.0,), (pcg.DEFAULT,), fit_row, keep)
    a, b = read(full), read(ext)
    assert [int(r["trial"]) for r in a] == [0, 1, 2, 3] and [int(r["trial"]) for r in b] == [2, 3]
    assert b == a[2:]
    assert len({r["deficit"] for r in a}) == 4  # the seeds differ, so do the deficits


def test_pca_cells_power_rerenders_its_committed_report(tmp_path, monkeypatch):
    """``pca_cells_power.analyse`` on a copy of the committed trials (and the benchmark's
    ``utility_pca.csv``, read for the reproduction check and the peers' medians) writes the
    committed report and per-cell CSV byte for byte."""
    m = importlib.import_module("pca_cells_power")
    for f in ("pca_cells_power_trials.csv", m.SNAPSHOT):
        shutil.copy(ROOT / "results" / f, tmp_path)
    monkeypatch.setattr(m, "RESULTS", tmp_path)
    m.analyse(100)
    for f in ("pca_cells_power.md", "pca_cells_power.csv"):
        assert (tmp_path / f).read_bytes() == (ROOT / "results" / f).read_bytes(), f
