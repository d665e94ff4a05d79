"""The bounds schema and table reading behind ``matrixdp release``."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from matrixdp.cli._tables import (bounds_arrays, design_matrix, parse_bound_options, read_schema,
                                  read_table, template_text)
from matrixdp.errors import InvalidParameterError

#: The ONE wording of an atom refusal (``matrixdp._validation.check_atoms``): the same fragments
#: as tests/synth/test_atoms.py asserts for TableSchema.
OUTSIDE, DUPLICATE = "is outside its public range", "duplicate atoms"
NOT_INTEGER = "is not an integer \\(the column is an integer column\\)"
NOT_NUMBER, NOT_LIST = "must be a number", "atoms must be a list of numbers"


def test_template_round_trips_awkward_column_names(tmp_path):
    names = ["age", "blood pressure", 'say "hi"', "x-1", "naïve"]
    text = template_text(names)
    filled = text.replace("nan, hi = nan", "0, hi = 1")
    (tmp_path / "b.toml").write_text(filled, encoding="utf-8")
    schema = read_schema(tmp_path / "b.toml")
    assert schema.names == names
    assert all((c.lo, c.hi) == (0.0, 1.0) for c in schema.columns)


@pytest.mark.parametrize("body, fragment", [
    ("[columns]\na = { lo = 0 }\n", "needs both lo and hi"),
    ("[columns]\na = { lo = 1, hi = 0 }\n", "lo <= hi"),
    ("[columns]\na = { lo = 0, hi = inf }\n", "finite"),
    ("[columns]\na = { lo = \"0\", hi = 1 }\n", "must be a number"),
    ("[columns]\na = { categories = [] }\n", "PUBLIC categories"),
    ("[columns]\na = { categories = [\"x\", \"x\"] }\n", "duplicate"),
    ("[columns]\na = { lo = 0, hi = 1, step = 2 }\n", "unknown key"),
    ("[columns]\na = 3\n", "expected"),
    ("target = 3\n[columns]\na = { lo = 0, hi = 1 }\n", "target"),
    ("[colums]\na = { lo = 0, hi = 1 }\n", "unknown key"),
    ("[columns\n", "not valid TOML"),
])
def test_schema_errors_name_bounds(tmp_path, body, fragment):
    (tmp_path / "b.toml").write_text(body)
    with pytest.raises(InvalidParameterError, match=fragment) as info:
        read_schema(tmp_path / "b.toml")
    assert info.value.argument == "--bounds"


def test_bound_options():
    schema = parse_bound_options(["a=0:1", "b c=-5:5.5"])
    assert schema.names == ["a", "b c"] and schema.column("b c").lo == -5.0
    for bad in (["a=1"], ["a:1"], ["a=x:1"], ["a=0:1", "a=0:2"]):
        with pytest.raises(InvalidParameterError):
            parse_bound_options(bad)


def test_design_matrix_clips_and_one_hot_encodes():
    frame = pd.DataFrame({"x": [-1.0, 0.5, 9.0], "c": ["b", "a", "b"]})
    (tmp := parse_bound_options(["x=0:1"]))
    from matrixdp.cli._tables import Column

    cols = [tmp.column("x"), Column("c", categories=("a", "b"))]
    X = design_matrix(frame, cols)
    assert np.array_equal(X, [[0.0, 0.0, 1.0], [0.5, 1.0, 0.0], [1.0, 0.0, 1.0]])
    lo, hi, names = bounds_arrays(cols)
    assert names == ["x", "c=a", "c=b"] and lo.tolist() == [0, 0, 0] and hi.tolist() == [1, 1, 1]
    with pytest.raises(InvalidParameterError, match="outside its public range"):
        design_matrix(frame, cols[:1], clip=False)


def test_read_table_keeps_the_schema_order_and_refuses_unnamed_columns(tmp_path):
    (tmp_path / "t.csv").write_text("a,b,c\n1,2,3\n4,5,6\n")
    assert list(read_table(tmp_path / "t.csv", columns=["c", "a"]).columns) == ["c", "a"]
    (tmp_path / "u.csv").write_text("a,,c\n1,2,3\n")
    with pytest.raises(InvalidParameterError, match="without a name"):
        read_table(tmp_path / "u.csv")


def test_a_non_utf8_file_is_refused_without_quoting_its_bytes(tmp_path):
    (tmp_path / "t.csv").write_bytes(b"name,x\n\xe9\xff\xfe,1\n")
    with pytest.raises(InvalidParameterError, match="not valid UTF-8") as info:
        read_table(tmp_path / "t.csv")
    assert "xe9" not in str(info.value) and "0xff" not in str(info.value)


def test_split_public_constants_is_the_shared_rule_of_synth_and_audit():
    """Numeric lo == hi (not the target, not categorical) is split off in file order; the rest
    keeps its order and the target; a file of constants only is refused."""
    from matrixdp.cli._tables import Column, Schema, split_public_constants

    schema = Schema(columns=(Column("a", lo=0.0, hi=1.0), Column("site", lo=7.0, hi=7.0),
                             Column("one", categories=("x",)), Column("zero", lo=0.0, hi=0.0),
                             Column("label", categories=(0, 1))), target="label")
    constants, modelled = split_public_constants(schema)
    assert constants == {"site": 7.0, "zero": 0.0}
    assert modelled.names == ["a", "one", "label"] and modelled.target == "label"
    # unresolved dp = true columns (no range yet) are not constants
    dp = Schema(columns=(Column("d", dp=True), Column("b", lo=1.0, hi=2.0)))
    assert split_public_constants(dp)[0] == {}
    only = Schema(columns=(Column("site", lo=7.0, hi=7.0), Column("label", categories=(0, 1))),
                  target="label")
    with pytest.raises(InvalidParameterError, match="every feature column is a public constant"):
        split_public_constants(only)


def test_atoms_are_parsed_sorted_and_kept_in_the_json(tmp_path):
    (tmp_path / "b.toml").write_text(
        "[columns]\nearn = { lo = 0, hi = 100, atoms = [100, 0] }\n"
        "k = { lo = 0, hi = 9, integer = true, atoms = [0] }\nx = { lo = 0, hi = 1 }\n")
    schema = read_schema(tmp_path / "b.toml")
    assert schema.column("earn").atoms == (0.0, 100.0)
    assert schema.column("k").atoms == (0.0,) and schema.column("x").atoms == ()
    assert schema.to_json()["columns"]["earn"]["atoms"] == [0.0, 100.0]
    assert "atoms" not in schema.to_json()["columns"]["x"]


@pytest.mark.parametrize("spec, fragment", [
    ("{ categories = [\"a\", \"b\"], atoms = [0] }", "not to categories"),
    ("{ dp = true, lo = 0, hi = 10, atoms = [0] }", "not to a dp range"),
    # the ONE wording of _validation.check_atoms (tests/synth/test_atoms.py asserts the same)
    ("{ lo = 0, hi = 10, atoms = [11] }", OUTSIDE),
    ("{ lo = 0, hi = 10, atoms = [0, 0] }", DUPLICATE),
    ("{ lo = 0, hi = 10, atoms = 0 }", NOT_LIST),
    ("{ lo = 0, hi = 10, atoms = { a = 0 } }", NOT_LIST),
    ("{ lo = 0, hi = 10, atoms = [\"0\"] }", NOT_NUMBER),
    ("{ lo = 0, hi = 10, integer = true, atoms = [0.5] }", NOT_INTEGER),
])
def test_bad_atoms_are_refused_naming_the_column(tmp_path, spec, fragment):
    (tmp_path / "b.toml").write_text(f"[columns]\nearn = {spec}\n")
    with pytest.raises(InvalidParameterError, match=fragment) as info:
        read_schema(tmp_path / "b.toml")
    assert "'earn'" in str(info.value) and str(info.value).startswith("--bounds: ")


def test_template_mentions_atoms():
    assert "atoms = [0]" in template_text(["a"])


@pytest.mark.parametrize("command", ["release", "synth"])
def test_a_header_naming_a_column_twice_is_refused(tmp_path, capsys, command):
    # task BB: pandas renames a repeated header name ("a,a,b" reads as a, a.1, b), so bounds
    # for 'a' silently applied to the first of the two columns; the header is now refused
    from matrixdp.cli import main

    path = tmp_path / "dup.csv"
    path.write_text('a,"a",b\n1,2,3\n4,5,6\n7,8,9\n')
    bounds = tmp_path / "b.toml"
    bounds.write_text("[columns]\na = { lo = 0, hi = 9 }\nb = { lo = 0, hi = 9 }\n")
    out = tmp_path / ("o.json" if command == "release" else "o.csv")
    extra = ["--query", "mean"] if command == "release" else []
    code = main([command, str(path), *extra, "--bounds", str(bounds), "--epsilon", "1",
                 "--out", str(out)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and len(err) == 1 and "'a'" in err[0] and "twice" in err[0], err
    assert not out.exists()
    # a repeated name that is a number may be a record's value (a missing header): not shown
    path.write_text("a,17,17\n1,2,3\n4,5,6\n")
    assert main([command, str(path), *extra, "--bounds", str(bounds), "--epsilon", "1",
                 "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "twice" in err and "17" not in err.replace(str(tmp_path), "")
    # a name that only looks like pandas' renaming is a column of its own
    path.write_text("a,a.1,b\n1,2,3\n4,5,6\n7,8,9\n")
    code = main([command, str(path), *extra, "--bounds", str(bounds), "--epsilon", "1",
                 "--out", str(out), "--quiet"])
    assert code == 0, capsys.readouterr().err


def test_categories_text_quotes_each_category():
    from matrixdp.cli._tables import categories_text

    assert categories_text(["Paris, TX", "Paris"]) == '"Paris, TX", "Paris"'
    assert categories_text([7, 'a "b"']) == '"7", "a \\"b\\""'
