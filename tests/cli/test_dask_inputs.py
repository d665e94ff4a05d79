"""`matrixdp release` and `matrixdp synth` on a directory or glob of Parquet/CSV files (Dask)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from matrixdp.cli import main

pytest.importorskip("dask.dataframe")
pytest.importorskip("pyarrow")

BOUNDS = ["--bounds", "age=18:90", "--bounds", "bmi=15:45", "--bounds", "bp=80:200"]


def _parts(tmp_path, kind="parquet", n_files=3, n=1_500):
    rng = np.random.default_rng(0)
    folder = tmp_path / "parts"
    folder.mkdir()
    frames = []
    for i in range(n_files):
        age = rng.uniform(10, 95, n)  # some outside the public range: clipped
        bmi = np.clip(22 + 0.1 * (age - 50) + rng.normal(0, 4, n), 15, 45)
        bp = 90 + 0.5 * age + 0.8 * bmi + rng.normal(0, 10, n)
        frame = pd.DataFrame({"age": age, "bmi": bmi, "bp": bp})
        frames.append(frame)
        if kind == "parquet":
            frame.to_parquet(folder / f"part{i}.parquet", index=False)
        else:
            frame.to_csv(folder / f"part{i}.csv", index=False)
    whole = tmp_path / "whole.csv"
    pd.concat(frames).to_csv(whole, index=False)
    return folder, whole


def _release(argv, capsys):
    code = main(["release", *map(str, argv)])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out, err


@pytest.mark.parametrize("query", ["covariance", "mean", "linreg"])
def test_release_of_a_directory_equals_the_in_memory_release(query, tmp_path, capsys):
    folder, whole = _parts(tmp_path)
    extra = ["--target", "bp"] if query == "linreg" else []
    common = ["--query", query, *BOUNDS, *extra, "--epsilon", "1", "--seed", "5"]
    _release([folder, *common, "--out", tmp_path / "d.json"], capsys)
    _release([whole, *common, "--out", tmp_path / "m.json"], capsys)
    d = json.loads((tmp_path / "d.json").read_text())
    m = json.loads((tmp_path / "m.json").read_text())
    assert d["parameters"]["n_records"] == m["parameters"]["n_records"] == 4_500
    assert d["guarantee"] == m["guarantee"]
    flat = lambda r: np.concatenate([np.ravel(np.asarray(list(v.values()) if isinstance(v, dict)
                                                         else v, dtype=float))
                                     for v in r["released"].values()])
    np.testing.assert_allclose(flat(d), flat(m), rtol=1e-9, atol=1e-9)
    other = main(["release", str(whole), *common[:-1], "6", "--out", str(tmp_path / "o.json")])
    assert other == 0
    capsys.readouterr()
    o = json.loads((tmp_path / "o.json").read_text())
    assert not np.allclose(flat(o), flat(m), rtol=1e-6)


def test_release_of_a_csv_glob_and_progress_forced(tmp_path, capsys, monkeypatch):
    folder, whole = _parts(tmp_path, kind="csv")
    monkeypatch.setenv("MATRIXDP_PROGRESS", "never")
    out, err = _release([str(folder / "part*.csv"), "--query", "gram", *BOUNDS, "--epsilon", "1",
                         "--out", tmp_path / "g.json"], capsys)
    assert "wrote" in out and err == ""
    doc = json.loads((tmp_path / "g.json").read_text())
    assert doc["parameters"]["n_records"] == 4_500


def test_one_file_with_dask_flag_and_missing_column(tmp_path, capsys):
    folder, whole = _parts(tmp_path)
    _release([whole, "--dask", "--query", "mean", *BOUNDS, "--epsilon", "1",
              "--out", tmp_path / "x.json"], capsys)
    code = main(["release", str(folder), "--query", "mean", "--bounds", "weight=0:200",
                 "--epsilon", "1", "--out", str(tmp_path / "y.json")])
    _, err = capsys.readouterr()
    assert code == 1 and "weight" in err and "Traceback" not in err
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["release", str(empty), "--query", "mean", *BOUNDS, "--epsilon", "1",
                 "--out", str(tmp_path / "z.json")]) == 1
    assert "is a directory with no Parquet or CSV file" in capsys.readouterr().err


def test_synth_from_parts_writes_parquet_partitions(tmp_path, capsys):
    folder, whole = _parts(tmp_path)
    out_dir = tmp_path / "syn"
    code = main(["synth", str(folder), "--epsilon", "2", "--dim", "1", "--task", "regression",
                 "--target", "bp", "--label-bound", "80,200", "--clip-labels", "--seed", "3",
                 "--out", str(out_dir), "--quiet"])
    out, err = capsys.readouterr()
    assert code == 0, err
    table = pd.read_parquet(out_dir)
    assert list(table.columns) == ["z1", "bp"] and len(table) == 4_500
    assert "4500 records" in out
    assert "its DP mean (--label-mean dp)" in out  # the default, on Dask input too
    # the same fit in memory: identical first synthetic CSV rows for the same seed
    assert main(["synth", str(folder), "--epsilon", "2", "--dim", "1", "--seed", "3",
                 "--out", str(tmp_path / "a.csv"), "--n", "50"]) == 0
    assert main(["synth", str(whole), "--epsilon", "2", "--dim", "1", "--seed", "3",
                 "--out", str(tmp_path / "b.csv"), "--n", "50"]) == 0
    capsys.readouterr()
    np.testing.assert_allclose(pd.read_csv(tmp_path / "a.csv"), pd.read_csv(tmp_path / "b.csv"),
                               rtol=1e-8, atol=1e-10)


def test_synth_classification_from_parts(tmp_path, capsys):
    """Classification on Dask input: Parquet partitions out, and the same fit as in memory."""
    folder, whole = _parts(tmp_path)
    for i, part in enumerate(sorted(folder.iterdir())):  # add a class column to every part
        frame = pd.read_parquet(part)
        frame["risk"] = np.where(frame.bp > 150, "high", "low")
        frame.to_parquet(part, index=False)
    table = pd.read_csv(whole)
    table["risk"] = np.where(table.bp > 150, "high", "low")
    table.to_csv(whole, index=False)
    common = ["--epsilon", "2", "--dim", "1", "--task", "classification", "--target", "risk",
              "--classes", "low,high", "--seed", "4", "--quiet"]
    code = main(["synth", str(folder), *common, "--out", str(tmp_path / "syn")])
    out, err = capsys.readouterr()
    assert code == 0, err
    synthetic = pd.read_parquet(tmp_path / "syn")
    assert list(synthetic.columns) == ["z1", "risk"] and len(synthetic) == 4_500
    assert set(synthetic.risk) <= {"low", "high"} and "DP class counts" in out
    assert main(["synth", str(folder), *common, "--out", str(tmp_path / "a.csv"), "--n", "60"]) == 0
    assert main(["synth", str(whole), *common, "--out", str(tmp_path / "b.csv"), "--n", "60"]) == 0
    capsys.readouterr()
    a, b = pd.read_csv(tmp_path / "a.csv"), pd.read_csv(tmp_path / "b.csv")
    assert list(a.risk) == list(b.risk)
    np.testing.assert_allclose(a.z1, b.z1, rtol=0, atol=1e-8)
    # add/remove neighbours: the number of records is private, the output size is its DP count
    assert main(["synth", str(folder), *common, "--neighbouring", "add-remove",
                 "--out", str(tmp_path / "ar")]) == 0
    out, _ = capsys.readouterr()
    assert "private under add/remove" in out and "4500 records" not in out
    assert abs(len(pd.read_parquet(tmp_path / "ar")) - 4_500) < 200


@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_coded_categories_read_with_dask_as_in_memory(kind, tmp_path, capsys):
    # task BB: with Dask, a CSV's integer codes are read as floats (assume_missing), so
    # g = { categories = [1, 2, 3] } never matched "1.0", and string codes ("07") were parsed as
    # numbers: `release --dask` refused a table the in-memory release accepts ("holds values
    # outside its public categories"). Both now read as in memory, with the same release.
    rng = np.random.default_rng(8)
    folder = tmp_path / "parts"
    folder.mkdir()
    frames = []
    for i in range(3):
        frame = pd.DataFrame({"x": rng.uniform(0, 10, 500), "g": rng.integers(1, 4, 500),
                              "zip": rng.choice(["07", "10"], 500)})
        frames.append(frame)
        if kind == "csv":
            frame.to_csv(folder / f"part{i}.csv", index=False)
        else:
            frame.to_parquet(folder / f"part{i}.parquet", index=False)
    whole = tmp_path / "whole.csv"
    pd.concat(frames).to_csv(whole, index=False)
    bounds = tmp_path / "b.toml"
    bounds.write_text('[columns]\nx = { lo = 0, hi = 10 }\ng = { categories = [1, 2, 3] }\n'
                      'zip = { categories = ["07", "10"] }\n')
    common = ["--query", "mean", "--bounds", bounds, "--epsilon", "1", "--seed", "3"]
    _release([folder, *common, "--out", tmp_path / "d.json"], capsys)
    _release([whole, *common, "--out", tmp_path / "m.json"], capsys)
    d = json.loads((tmp_path / "d.json").read_text())
    m = json.loads((tmp_path / "m.json").read_text())
    assert d["columns"] == m["columns"] == ["x", "g=1", "g=2", "g=3", "zip=07", "zip=10"]
    np.testing.assert_allclose(d["released"]["values"], m["released"]["values"], rtol=1e-9,
                               atol=1e-12)


def test_text_in_a_later_csv_part_is_one_line_that_quotes_no_record(tmp_path, capsys):
    # task BB: Dask infers a CSV column's type from the first part; text in a later part made
    # `release` print dask's 17-line "Mismatched dtypes" report, which quotes the value
    # ("could not convert string to float: 'SECRET_VALUE'"): a record in a log. Now one line
    # naming DATA and the likely cause, without the library's message.
    folder = tmp_path / "parts"
    folder.mkdir()
    (folder / "p1.csv").write_text("x,y\n1,2\n3,4\n")
    (folder / "p2.csv").write_text("x,y\n5,SECRET_VALUE\n7,8\n")
    out = tmp_path / "r.json"
    code = main(["release", str(folder), "--query", "mean", "--bounds", "x=0:9", "--bounds",
                 "y=0:9", "--epsilon", "1", "--out", str(out)])
    err = capsys.readouterr().err
    lines = [line for line in err.strip().splitlines() if line]
    assert code == 1 and len(lines) == 1, err
    assert "DATA" in lines[0] and "not numeric" in lines[0]
    assert "SECRET" not in err and not out.exists()


@pytest.mark.parametrize("model", ["copula", "tree-copula"])
def test_synth_table_models_read_a_directory_as_in_memory(model, tmp_path, capsys):
    # task BB: docs/scaling.md says `matrixdp synth` accepts a directory or glob of parts, and
    # DPCopula/DPTreeCopula fit Dask frames; but --model copula (the default) and tree-copula
    # refused them ("INPUT: parts is a directory, not a file"; --dask: "applies to --model
    # ron-gauss only"). Now read with Dask; a seeded fit gives the in-memory synthetic table.
    rng = np.random.default_rng(9)
    folder = tmp_path / "parts"
    folder.mkdir()
    frames = []
    for i in range(3):
        x = rng.uniform(0, 100, 400)
        frame = pd.DataFrame({"x": x, "g": rng.integers(1, 4, 400),
                              "zip": rng.choice(["07", "10"], 400),
                              "y": np.where(x + rng.normal(0, 20, 400) > 50, "hi", "lo")})
        frames.append(frame)
        frame.to_csv(folder / f"part{i}.csv", index=False)
    whole = tmp_path / "whole.csv"
    pd.concat(frames).to_csv(whole, index=False)
    bounds = tmp_path / "b.toml"
    bounds.write_text('target = "y"\n[columns]\nx = { lo = 0, hi = 100 }\n'
                      'g = { categories = [1, 2, 3] }\nzip = { categories = ["07", "10"] }\n'
                      'y = { categories = ["lo", "hi"] }\n')
    outs = []
    for source in (folder, whole):
        out = tmp_path / f"{source.name}.csv"
        code = main(["synth", str(source), "--model", model, "--bounds", str(bounds),
                     "--epsilon", "2", "--seed", "4", "--out", str(out), "--quiet"])
        assert code == 0, capsys.readouterr().err
        outs.append(pd.read_csv(out, dtype=str))
    capsys.readouterr()
    dask_table, memory_table = outs
    assert list(dask_table.columns) == ["x", "g", "zip", "y"]
    assert len(dask_table) == len(memory_table)
    np.testing.assert_allclose(dask_table["x"].astype(float), memory_table["x"].astype(float),
                               rtol=1e-6)
    for column in ("g", "zip", "y"):
        assert (dask_table[column] == memory_table[column]).all()
    assert set(dask_table["zip"]) <= {"07", "10"} and set(dask_table["g"]) <= {"1", "2", "3"}
