"""Tests of ``matrixdp reproduce``: listing, running a script, and the errors outside a checkout."""

from __future__ import annotations

import pytest

from matrixdp.cli import main
from matrixdp.cli import reproduce


def test_reproduce_list(capsys):
    assert main(["reproduce", "list"]) == 0
    out = capsys.readouterr().out
    for name in ("mvg-exp1", "mvg-exp2", "mvg-exp3"):
        assert name in out


def test_reproduce_runs_a_script(tmp_path, data_home, capsys):
    assert main(["reproduce", "mvg-exp3", "--trials", "2", "--out", str(tmp_path), "--no-progress"]) == 0
    assert (tmp_path / "mvg_exp3_ctg.md").is_file() and (tmp_path / "mvg_exp3_ctg.csv").is_file()
    assert "wrote" in capsys.readouterr().out


def test_reproduce_unknown_name_is_one_line(capsys):
    assert main(["reproduce", "no-such-table"]) == 1
    err = capsys.readouterr().err
    assert "unknown experiment" in err and "mvg-exp1" in err and "Traceback" not in err


def test_reproduce_outside_a_checkout(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(reproduce, "_SOURCE_EXPERIMENTS", tmp_path / "nowhere")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(reproduce.ExperimentsNotFoundError, match="source checkout"):
        reproduce.find_experiments_dir()
    assert main(["reproduce", "mvg-exp1"]) == 1
    assert "source checkout" in capsys.readouterr().err


def test_reproduce_all_runs_every_experiment(tmp_path, monkeypatch, capsys):
    calls = []
    monkeypatch.setattr(reproduce, "run_experiment", lambda name, argv: calls.append((name, argv)) or 0)
    assert main(["reproduce", "all", "--trials", "3", "--out", str(tmp_path)]) == 0
    assert [c[0] for c in calls] == list(reproduce.EXPERIMENTS)
    assert all(c[1] == ["--trials", "3", "--out", str(tmp_path)] for c in calls)


@pytest.fixture(autouse=True)
def _restore_imports(monkeypatch):
    """run_experiment imports scripts by name: keep a stub out of later tests' imports."""
    import sys

    monkeypatch.setattr(sys, "path", list(sys.path))
    saved = dict(sys.modules)
    yield
    for name in list(sys.modules):
        if name.startswith("matrixdp"):
            continue  # the library's own modules stay (one class identity per run)
        if name not in saved:
            del sys.modules[name]
        elif sys.modules[name] is not saved[name]:
            sys.modules[name] = saved[name]


def fake_checkout(root, trials=100):
    """A checkout with one stub experiment that records its argv, and committed results."""
    experiments = root / "repo" / "experiments"
    experiments.mkdir(parents=True)
    (experiments / "_common.py").write_text("")
    (experiments / "mvg_exp3_ctg.py").write_text(
        "import os\nCALLS = []\n"
        "def main(argv):\n"
        "    from matrixdp.errors import DatasetError\n"
        "    if '--fail-data' in os.environ.get('STUB_MODE', ''):\n"
        "        raise DatasetError('CTG: file missing')\n"
        "    print('stub ran', argv, os.environ.get('MATRIXDP_DATA'))\n"
        "    return 0\n")
    results = root / "repo" / "results"
    results.mkdir()
    (results / "mvg_exp3_ctg.csv").write_text(
        f"method,epsilon,delta,ours,ci95,sd,trials\nmvg,1,1e-5,0.1,0.01,0.05,{trials}\n")
    return experiments, results


def test_reproduce_keeps_committed_results_with_more_trials(tmp_path, monkeypatch, capsys):
    experiments, results = fake_checkout(tmp_path)
    monkeypatch.setattr(reproduce, "_SOURCE_EXPERIMENTS", experiments)
    before = (results / "mvg_exp3_ctg.csv").read_text()
    for argv in (["--trials", "5"], [], ["--trials", "5", "--out", str(results)]):
        assert main(["reproduce", "mvg-exp3", *argv]) == 1
        err = capsys.readouterr().err
        assert "--out" in err and "--force" in err and "100 trials" in err
        assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert (results / "mvg_exp3_ctg.csv").read_text() == before
    # elsewhere, forced, or with at least as many trials: runs
    assert main(["reproduce", "mvg-exp3", "--trials", "5", "--out", str(tmp_path / "scratch")]) == 0
    assert main(["reproduce", "mvg-exp3", "--trials", "5", "--force"]) == 0
    assert main(["reproduce", "mvg-exp3", "--trials", "100"]) == 0
    assert capsys.readouterr().out.count("stub ran") == 3


def test_committed_trials_reads_csv_then_markdown(tmp_path):
    (tmp_path / "a.csv").write_text("method,trials\nx,1\ny,100\nz,\n")
    assert reproduce.committed_trials(tmp_path, "a") == 100
    (tmp_path / "b.csv").write_text("lam,acc\n1,0.5\n")
    (tmp_path / "b.md").write_text("- setup; 40 noise draws per lambda\n")
    assert reproduce.committed_trials(tmp_path, "b") == 40
    assert reproduce.committed_trials(tmp_path, "c") is None


def test_reproduce_finds_shared_datasets_beside_the_checkout(tmp_path, monkeypatch, capsys):
    experiments, _ = fake_checkout(tmp_path)
    shared = tmp_path / "shared" / "datasets"
    shared.mkdir(parents=True)
    monkeypatch.setattr(reproduce, "_SOURCE_EXPERIMENTS", experiments)
    monkeypatch.delenv("MATRIXDP_DATA", raising=False)
    assert reproduce.find_data_home(experiments) == shared
    assert main(["reproduce", "mvg-exp3", "--out", str(tmp_path / "o")]) == 0
    assert str(shared) in capsys.readouterr().out
    monkeypatch.setenv("MATRIXDP_DATA", str(tmp_path / "mine"))
    assert reproduce.find_data_home(experiments) == tmp_path / "mine"


def test_missing_data_error_says_how_to_point_at_it(tmp_path, monkeypatch, capsys):
    experiments, _ = fake_checkout(tmp_path)
    monkeypatch.setattr(reproduce, "_SOURCE_EXPERIMENTS", experiments)
    monkeypatch.setenv("STUB_MODE", "--fail-data")
    assert main(["reproduce", "mvg-exp3", "--out", str(tmp_path / "o")]) == 1
    err = capsys.readouterr().err
    assert "file missing" in err and "--data-home" in err and "MATRIXDP_DATA" in err
    assert "--download" in err and "Traceback" not in err


def test_download_calls_the_experiments_loaders(tmp_path, monkeypatch):
    import matrixdp.datasets as datasets

    calls = []
    monkeypatch.setattr(datasets, "load_liver",
                        lambda **kw: calls.append(("liver", kw["download"], kw["data_home"])))
    reproduce.download_datasets("mvg-exp1", tmp_path)
    assert calls == [("liver", True, tmp_path)]
    assert set(reproduce.DATASETS) == set(reproduce.EXPERIMENTS)


def test_an_output_folder_that_cannot_be_made_is_refused_before_any_trial(tmp_path, monkeypatch,
                                                                          capsys):
    # the scripts make --out when they write, after the last trial: a run of hours was lost to
    # "[Errno 20] Not a directory" (a path under a file), which did not name --out
    calls = []
    monkeypatch.setattr(reproduce, "run_experiment", lambda name, argv: calls.append(name) or 0)
    (tmp_path / "a_file").write_text("")
    assert main(["reproduce", "mvg-exp1", "--trials", "2",
                 "--out", str(tmp_path / "a_file" / "sub")]) == 1
    err = capsys.readouterr().err
    assert "--out" in err and "cannot create the folder" in err and "Traceback" not in err
    assert calls == []
    # a new nested folder is made first, then the run goes ahead
    assert main(["reproduce", "mvg-exp1", "--trials", "2", "--out", str(tmp_path / "n" / "m")]) == 0
    assert calls == ["mvg-exp1"] and (tmp_path / "n" / "m").is_dir()
