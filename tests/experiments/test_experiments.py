"""Tests of the reproduction harness (experiments/, not installed): metrics, tables, end-to-end runs.

The end-to-end runs use the fast mode (a few trials) and check the parts of the tables
that do not depend on the noise: the non-private rows against the spec's reference values,
and orderings that hold by construction with the stated bounds.
"""

from __future__ import annotations

import csv
import importlib
import math
import sys
from pathlib import Path

import numpy as np
import pytest

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"
sys.path.insert(0, str(EXPERIMENTS))


def _load(name: str):
    """Import an experiment module by name from experiments/ (as the scripts import each other)."""
    return importlib.import_module(name)


common = _load("_common")
metrics = _load("_metrics")


def _rows(path: Path) -> dict[str, dict]:
    with open(path, newline="") as fh:
        return {row["method"]: row for row in csv.DictReader(fh)}


# ----------------------------------------------------------------------------- metrics

def test_metrics_zero_at_truth_and_nonnegative():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((50, 4))
    cov = a.T @ a / 50
    assert metrics.captured_variance_error(metrics.top_eigenvector(cov), cov) == pytest.approx(0, abs=1e-12)
    for _ in range(20):
        v = rng.standard_normal(4)
        assert metrics.captured_variance_error(v, cov) >= -1e-12
    assert metrics.residual_sum_of_squares(metrics.sorted_eigenvectors(cov), cov) == pytest.approx(0, abs=1e-20)
    q, _ = np.linalg.qr(rng.standard_normal((4, 4)))
    assert metrics.residual_sum_of_squares(q, cov) > 1e-4
    assert metrics.rmse(np.arange(3.0), np.arange(3.0)) == 0.0
    assert metrics.rmse(np.zeros(4), np.full(4, 2.0)) == pytest.approx(2.0)


# ----------------------------------------------------------------------------- harness

def test_trial_stats_and_reproducible_trials():
    stats = common.TrialStats.of([1.0, 2.0, 3.0, 4.0])
    assert stats.mean == 2.5 and stats.trials == 4
    assert stats.ci95 == pytest.approx(1.959964 * np.std([1, 2, 3, 4], ddof=1) / 2, rel=1e-6)
    a = common.run_trials(lambda rng: rng.standard_normal(), 6, seed=7, desc="", progress=False)
    b = common.run_trials(lambda rng: rng.standard_normal(), 6, seed=7, desc="", progress=False)
    assert a == b
    assert common.TrialStats.exact(3.0).ci95 == 0.0


def test_write_results_columns(tmp_path):
    rows = [common.Row("A", 1.0, 0.01, common.TrialStats.of([1.0, 1.2]), paper=1.0, noise_std=2.0),
            common.Row("B", paper=3.0, status=common.STATUS_NOT_REPRODUCED, notes="why")]
    md, csv_path = common.write_results("t", "T", rows, tmp_path, metric="m", unit=1e-2, unit_label="×10⁻²")
    header = csv_path.read_text().splitlines()[0].split(",")
    for column in ("method", "ours", "paper", "difference", "noise_std"):
        assert column in header
    data = _rows(csv_path)
    assert float(data["A"]["difference"]) == pytest.approx(0.1)
    assert data["B"]["status"] == "not reproduced" and data["B"]["ours"] == ""
    text = md.read_text()
    assert "| A | 1 | 0.01 | 110.000 ± " in text and "**B**: why" in text


# ----------------------------------------------------------------------------- end to end (fast mode)

@pytest.fixture(scope="module")
def exp2_tables(tmp_path_factory, data_home):
    out = tmp_path_factory.mktemp("exp2")
    _load("mvg_exp2_movement").main(["--trials", "3", "--out", str(out), "--no-progress"])
    return _rows(out / "mvg_exp2_movement.csv"), _rows(out / "mvg_exp2_movement_c1.csv"), out


def test_exp2_runs_and_orders(exp2_tables):
    paper_setting, consistent, out = exp2_tables
    assert (out / "mvg_exp2_movement.md").is_file()
    for table in (paper_setting, consistent):
        assert float(table["Non-private"]["ours"]) == pytest.approx(0.0, abs=1e-12)
        for method, row in table.items():
            if row["ours"]:
                assert float(row["ours"]) >= -1e-12, method
    # Random guess on the native scale: λ₁ − tr/4 ≈ 0.40 (the paper's 0.437 fits this scale).
    assert float(consistent["Random guess"]["ours"]) == pytest.approx(0.40, abs=0.15)
    # With the consistent range c = 1 the Gaussian noise (σ ≈ 2.7e-3) barely moves the PC...
    gauss = "Gaussian (Analyze Gauss, Dwork et al. [25], classic σ)"
    assert float(consistent[gauss]["ours"]) < 0.01
    # s₂ is the tight √2·R²/n with R = 2c (not the paper's 2R²/n = 8c²/n).
    assert float(consistent[gauss]["noise_std"]) == pytest.approx(
        math.sqrt(2) * 4 / 13197 * math.sqrt(2 * math.log(1.25 * 13197)), rel=1e-9)
    # ... while the paper's c = 100 makes the noise 10⁴ times larger (σ ≈ 27).
    assert float(paper_setting[gauss]["noise_std"]) == pytest.approx(
        1e4 * float(consistent[gauss]["noise_std"]), rel=1e-9)
    for mvg_row in [m for m in paper_setting if m.startswith("MVG")]:
        assert paper_setting[mvg_row]["status"] in ("ok", "not yet run")


def test_exp3_runs_end_to_end(tmp_path, data_home):
    _load("mvg_exp3_ctg").main(["--trials", "2", "--out", str(tmp_path), "--no-progress"])
    table = _rows(tmp_path / "mvg_exp3_ctg.csv")
    assert float(table["Non-private"]["ours"]) == pytest.approx(0.0, abs=1e-12)
    assert float(table["Random guess"]["ours"]) > 0.01
    assert table["JL transform (Upadhyay [46])"]["status"] == "not reproduced"
    gauss = table["Gaussian (Dwork et al. [2], classic σ)"]
    assert float(gauss["noise_std"]) == pytest.approx(math.sqrt(21) * math.sqrt(2 * math.log(1.25 * 2126)))
    assert float(gauss["paper"]) == pytest.approx(7.029e-2)


def test_exp1_non_private_matches_table3(tmp_path, data_home):
    _load("mvg_exp1_liver").main(["--trials", "2", "--out", str(tmp_path), "--no-progress"])
    table = _rows(tmp_path / "mvg_exp1_liver.csv")
    # Spec mvg.md §8.1: with the global scaling the non-private RMSE is ≈ 1.226e-2 (Table 3).
    # Stated tolerance: 10% (the split and the KRR hyper-parameters are unspecified).
    assert float(table["Non-private"]["ours"]) == pytest.approx(1.226e-2, rel=0.10)
    # Per-feature scaling would give ~0.2: the global scale is what makes this match.
    assert float(table["Random guess"]["ours"]) > float(table["Non-private"]["ours"])
    gauss = table["Gaussian (Dwork et al. [2], classic σ)"]
    assert float(gauss["noise_std"]) == pytest.approx(
        2 * math.sqrt(6) * math.sqrt(2 * math.log(1.25 * 248)), rel=1e-9)
    assert float(table["Laplace (Dwork et al. [3])"]["noise_std"]) == pytest.approx(12 * math.sqrt(2))


def test_exp2_mvg_and_iid_rows_share_one_sensitivity(tmp_path, data_home):
    """Every Gaussian and MVG row of Exp. II is calibrated to the same tight s₂ = √2·R²/n: the
    exact MVG with i.i.d. noise then has exactly the analytic Gaussian's σ (it would differ by
    √2 if either used the paper's 2R²/n), and the directional row's noise is a reallocation of
    the same budget, not a smaller sensitivity."""
    mvg_rows = _load("_mvg_rows")
    if not mvg_rows.mvg_available():
        pytest.skip("matrixdp.MVGMechanism not in this checkout")
    _load("mvg_exp2_movement").main(["--trials", "4", "--bounds", "1", "--out", str(tmp_path),
                                     "--no-progress", "--seed", "11"])
    table = _rows(tmp_path / "mvg_exp2_movement_c1.csv")
    analytic = table["Gaussian (Analyze Gauss, analytic σ)"]
    iid = table["MVG, i.i.d. (exact calibration)"]
    exact = table["MVG, binary allocation {ANC0, ANC3} (exact calibration)"]
    assert iid["status"] == exact["status"] == "ok"
    assert float(iid["noise_std"]) == pytest.approx(float(analytic["noise_std"]), rel=1e-6)
    n, radius = 13197, 2.0
    assert "s₂ = " + format(math.sqrt(2) * radius ** 2 / n, ".4g") in exact["notes"]
    # The paper's Theorem 2 calibration over-noises by orders of magnitude (spec §10 A1).
    thm2 = table["MVG, binary allocation {ANC0, ANC3} (Theorem 2)"]
    assert float(thm2["noise_std"]) > 1000 * float(exact["noise_std"])


#: The direction orderings results/mvg_fig4_directions.md reports for the exact calibration
#: (REPRODUCTION.md, "MVG Figure 4"), as (panel prefix, ε values, labels from best to worst).
FIG4_ORDERINGS = [
    ("Exp. II (", (0.25, 0.5, 1.0, 2.0, 4.0), ("i.i", "(d)", "(a)", "(c)", "(b)")),
    ("Exp. III (", (0.25, 0.5, 1.0, 2.0, 4.0), ("(c)", "(d)", "(a)")),
    ("Exp. I (", (2.0, 4.0), ("(c)", "(a)", "(b)")),
]


def _fig4_means(records, panel, eps):
    return {r["directions"][:3]: float(r["mean"]) for r in records
            if r["panel"].startswith(panel) and r["calibration"] == "exact"
            and float(r["epsilon"]) == eps}


def _assert_fig4_orderings(records, where):
    for panel, epsilons, order in FIG4_ORDERINGS:
        for eps in epsilons:
            means = _fig4_means(records, panel, eps)
            values = [means[label] for label in order]
            assert all(a < b for a, b in zip(values, values[1:])), (
                f"{where}: {panel} ε={eps}: expected {' < '.join(order)}, got {means}")


def test_fig4_committed_results_report_the_direction_orderings():
    """The committed 100-trial Figure 4 results show the orderings REPRODUCTION.md describes."""
    path = Path(__file__).resolve().parents[2] / "results" / "mvg_fig4_directions.csv"
    with open(path, newline="") as fh:
        records = list(csv.DictReader(fh))
    assert {int(r["trials"]) for r in records} == {100}
    _assert_fig4_orderings(records, "committed results")


def test_fig4_runs_and_writes_plot(tmp_path, data_home):
    if not _load("_mvg_rows").mvg_available():
        pytest.skip("matrixdp.MVGMechanism not in this checkout")
    assert _load("mvg_fig4_directions").main(["--trials", "3", "--out", str(tmp_path), "--no-progress"]) == 0
    with open(tmp_path / "mvg_fig4_directions.csv", newline="") as fh:
        records = list(csv.DictReader(fh))
    # 3 panels x 2 calibrations x (5 + 5 + 3) direction sets (i.i.d. in every panel) x 5 epsilons
    assert len(records) == 2 * (5 + 5 + 3) * 5
    iid = {r["panel"] for r in records if r["directions"].startswith("i.i.d.")
           or r["directions"].startswith("(c) i.i.d.")}
    assert len(iid) == 3
    # The harness reproduces the committed orderings (fixed seed, 3 trials).
    _assert_fig4_orderings(records, "3-trial harness run")
    exact = [r for r in records if r["panel"].startswith("Exp. II (") and r["calibration"] == "exact"
             and r["directions"].startswith("(a)")]
    # Exact calibration: more budget, less noise, smaller error.
    stds = [float(r["noise_std"]) for r in sorted(exact, key=lambda r: float(r["epsilon"]))]
    assert all(a > b for a, b in zip(stds, stds[1:]))
    png = tmp_path / "mvg_fig4_directions.png"
    pytest.importorskip("matplotlib")
    assert png.is_file() and png.stat().st_size > 10_000


def test_r1smg_uber_case_study(tmp_path, data_home):
    import matrixdp
    if not hasattr(matrixdp, "R1SMGMechanism"):
        pytest.skip("matrixdp.R1SMGMechanism not in this checkout")
    assert _load("r1smg_uber").main(["--trials", "40", "--out", str(tmp_path), "--no-progress"]) == 0
    table = _rows(tmp_path / "r1smg_uber.csv")
    notes = table["Non-private"]["notes"]
    assert "300 valid cells" in notes  # the window = the file's first 3,829 rows (base B02512)
    r1 = table["R1SMG (Ji & Li) — claim REFUTED"]
    analytic = table["Analytic Gaussian (Balle & Wang)"]
    classic = table["Classic Gaussian (Dwork & Roth)"]
    assert r1["status"] == "ok (claim refuted)"
    # Expected ℒ over 300 cells: R1SMG 300·σ*/M ≈ 1.52e4; analytic 300·σ_A² ≈ 4.86e4; classic ≈ 7.84e4.
    assert float(analytic["ours"]) == pytest.approx(300 * float(analytic["noise_std"]) ** 2, rel=0.05)
    assert float(classic["ours"]) == pytest.approx(300 * float(classic["noise_std"]) ** 2, rel=0.05)
    assert float(r1["ours"]) == pytest.approx(300 * float(r1["noise_std"]) ** 2, rel=0.35)
    assert float(r1["ours"]) < float(analytic["ours"]) < float(classic["ours"])
    assert "true δ" in r1["notes"]
    # H_b: pure ε (δ = 0), b = 10, h = 2, Laplace 8 per node, leaf variance 0.990·2·8² = 126.7
    hb = next(row for name, row in table.items() if name.startswith("H_b"))
    assert float(hb["delta"]) == 0.0 and float(hb["epsilon"]) == 0.5
    assert float(hb["noise_std"]) == pytest.approx(np.sqrt(2 * 64 * (99 + 1 / 101) / 100), rel=1e-9)
    assert float(hb["ours"]) == pytest.approx(300 * float(hb["noise_std"]) ** 2, rel=0.05)


def test_r1smg_pca_case_study_on_adult(tmp_path, data_home):
    import matrixdp
    if not hasattr(matrixdp, "R1SMGMechanism"):
        pytest.skip("matrixdp.R1SMGMechanism not in this checkout")
    assert _load("r1smg_pca").main(["--trials", "2", "--out", str(tmp_path), "--no-progress",
                                    "--svm-records", "2000"]) == 0
    with open(tmp_path / "r1smg_pca.csv", newline="") as fh:
        records = list(csv.DictReader(fh))
    assert records[0]["method"] == "Non-private" and float(records[0]["total_deviation"]) == 0.0
    analytic = [float(r["total_deviation"]) for r in records if r["method"] == "Analytic Gaussian"]
    assert len(analytic) == 8 and analytic[0] > analytic[-1]  # more ε, less deviation
    methods = {r["method"]: r for r in records}
    assert "MOD-SULQ (paper β)" in methods and "Wishart — claim REFUTED" in methods
    ppca = [r for r in records if r["method"].startswith("PPCA-20")]
    assert len(ppca) == 8 and all(r["total_deviation"] == "" and float(r["top20_deficit"]) > 0 for r in ppca)
    assert "holds only" in methods["Wishart — claim REFUTED"]["notes"]


def test_theorem3_no_worse_than_theorem2_on_exp2(tmp_path, data_home):
    """Spec §11 item 17: MVG with Theorem 3 ≤ MVG with Theorem 2 on Exp. II (consistent range c = 1)."""
    if not _load("_mvg_rows").mvg_available():
        pytest.skip("matrixdp.MVGMechanism not in this checkout")
    _load("mvg_exp2_movement").main(["--trials", "30", "--bounds", "1", "--out", str(tmp_path),
                                     "--no-progress", "--seed", "3"])
    table = _rows(tmp_path / "mvg_exp2_movement_c1.csv")
    thm2 = table["MVG, binary allocation {ANC0, ANC3} (Theorem 2)"]
    thm3 = table["MVG, binary allocation {ANC0, ANC3} (Theorem 3)"]
    assert float(thm3["noise_std"]) < float(thm2["noise_std"])
    assert float(thm3["ours"]) <= float(thm2["ours"])


def test_write_results_extra_columns(tmp_path):
    rows = [common.Row("A", stats=common.TrialStats.exact(1.0), extra={"true δ": 0.25}),
            common.Row("B", stats=common.TrialStats.exact(2.0))]
    md, csv_path = common.write_results("x", "X", rows, tmp_path, metric="m", unit=1.0, unit_label="raw")
    data = _rows(csv_path)
    assert float(data["A"]["true δ"]) == 0.25 and data["B"]["true δ"] == ""
    assert "| true δ |" in md.read_text() and "| 0.25 |" in md.read_text()
