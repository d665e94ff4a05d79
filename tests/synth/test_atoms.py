"""Public atoms (point masses) of numeric columns: TableSchema validation, the cell layout of
NumericCells, DPCopula keeping a declared point mass, the unchanged charge, byte-identical
outputs without atoms (docs/copula.md, "Public atoms"). DPTreeCopula's atoms:
tests/synth/test_tree_copula_atoms.py."""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd
import pytest

from matrixdp.accounting import Accountant
from matrixdp.errors import InvalidParameterError
from matrixdp.synth.copula import DPCopula
from matrixdp.synth.schema import NumericCells, TableSchema
from matrixdp.synth.tree_copula import DPTreeCopula


# ------------------------------------------------------------------ schema validation
BOUNDS = {"x": (0.0, 10.0), "k": (0, 12)}


#: The ONE wording of an atom refusal (``_validation.check_atoms``), shared with the bounds-file
#: parser's test (tests/cli/test_tables.py asserts the same fragments).
OUTSIDE, DUPLICATE = "is outside its public range", "duplicate atoms"
NOT_INTEGER = "is not an integer \\(the column is an integer column\\)"
NOT_NUMBER, NOT_LIST = "must be a number", "atoms must be a list of numbers"


@pytest.mark.parametrize("atoms, fragment", [
    ({"x": [11.0]}, OUTSIDE),
    ({"x": [-0.5]}, OUTSIDE),
    ({"x": [0.0, 0.0]}, DUPLICATE),
    ({"c": [0]}, "is categorical"),
    ({"nope": [0]}, "not a numeric column"),
    ({"k": [2.5]}, NOT_INTEGER),
    ({"x": ["0"]}, NOT_NUMBER),
    ({"x": [float("nan")]}, OUTSIDE),
    ({"x": 0.0}, NOT_LIST),
    ({"x": "0"}, NOT_LIST),
])
def test_schema_refuses_bad_atoms_naming_the_column(atoms, fragment):
    with pytest.raises(InvalidParameterError, match=fragment) as info:
        TableSchema(bounds=BOUNDS, categories={"c": ["a", "b"]}, integer=("k",), atoms=atoms)
    assert repr(next(iter(atoms))) in str(info.value)


def test_schema_keeps_atoms_sorted_as_floats_and_none_by_default():
    s = TableSchema(bounds=BOUNDS, integer=("k",), atoms={"x": [10, 0, 2.5], "k": [0]})
    assert s.atoms == {"x": (0.0, 2.5, 10.0), "k": (0.0,)}
    assert s.atoms_of("x") == (0.0, 2.5, 10.0) and s.atoms_of("k") == (0.0,)
    plain = TableSchema(bounds=BOUNDS)
    assert plain.atoms == {} and plain.atoms_of("x") == ()


# ------------------------------------------------------------------ cell layout
def test_cells_without_atoms_are_the_bins():
    e = np.linspace(0, 4, 5)
    cells = NumericCells(e)
    assert cells.size == 4
    np.testing.assert_array_equal(cells.lo, e[:-1])
    np.testing.assert_array_equal(cells.hi, e[1:])
    x = np.array([0.0, 0.99, 1.0, 3.5, 4.0])
    np.testing.assert_array_equal(cells.code(x), [0, 0, 1, 3, 3])


def test_atom_cells_sit_in_value_order_and_decode_to_the_atom():
    # bins [0,1) [1,2) [2,3) [3,4]; atoms 0 (below bin 0's midpoint: before it), 2.7 (above
    # bin 2's midpoint: after it), 4 (the upper bound: after the last bin)
    cells = NumericCells(np.linspace(0, 4, 5), [4.0, 0.0, 2.7])
    assert cells.size == 7
    np.testing.assert_array_equal(cells.lo, [0, 0, 1, 2, 2.7, 3, 4])
    np.testing.assert_array_equal(cells.hi, [0, 1, 2, 3, 2.7, 4, 4])
    np.testing.assert_array_equal(cells.is_atom(), [1, 0, 0, 0, 1, 0, 1])
    x = np.array([0.0, 1e-9, 0.5, 2.7, 2.70001, 3.9, 4.0, 1.0])
    np.testing.assert_array_equal(cells.code(x), [0, 1, 1, 4, 3, 5, 6, 2])
    # the lower ends of the cells are non-decreasing: value order
    assert np.all(np.diff(cells.lo) >= 0)


# ------------------------------------------------------------------ DPCopula
def _zero_inflated(n=20_000, seed=0):
    """x: 60% exactly 0, else uniform on (0, 10]; z: 60% exactly its upper bound 10; k: an
    integer 0..12 that is 0 in 60% of records; a categorical column; labels."""
    rng = np.random.default_rng(seed)
    y = np.where(rng.uniform(size=n) < 0.4, "yes", "no")
    x = np.where(rng.uniform(size=n) < 0.6, 0.0, rng.uniform(0.01, 10.0, n))
    z = np.where(rng.uniform(size=n) < 0.6, 10.0, rng.uniform(0.0, 9.9, n))
    k = np.where(rng.uniform(size=n) < 0.6, 0, rng.integers(1, 13, n))
    c = np.where(rng.uniform(size=n) < 0.5, "a", "b")
    return pd.DataFrame({"x": x, "z": z, "k": k, "c": c}), y


def _schema(atoms=None):
    return TableSchema(bounds={"x": (0.0, 10.0), "z": (0.0, 10.0), "k": (0, 12)},
                       categories={"c": ["a", "b"]}, integer=("k",), atoms=atoms or {})


ATOMS = {"x": [0.0], "z": [10.0], "k": [0]}


def test_declared_atoms_keep_the_point_masses_at_high_epsilon():
    X, y = _zero_inflated()
    fit = DPCopula(schema=_schema(ATOMS), epsilon=10.0, classes=["no", "yes"],
                   random_state=1).fit(X, y)
    S, _ = fit.sample(20_000, random_state=2)
    # real shares 0.60 each; tolerance 0.03 (histogram noise at eps=10 on 20,000 records is
    # about 10 records per cell; sampling sd ~0.0035)
    assert abs(np.mean(S["x"] == 0.0) - np.mean(X["x"] == 0.0)) < 0.03
    assert abs(np.mean(S["z"] == 10.0) - np.mean(X["z"] == 10.0)) < 0.03
    assert abs(np.mean(S["k"] == 0) - np.mean(X["k"] == 0)) < 0.03
    # the integer column stays integral and its dtype integer
    assert pd.api.types.is_integer_dtype(S["k"]) and S["k"].between(0, 12).all()
    # the rest of x is spread over its bins, not piled at 0: its mean matches within 10%
    assert S["x"][S["x"] > 0].mean() == pytest.approx(X["x"][X["x"] > 0].mean(), rel=0.1)


def test_without_atoms_the_continuous_point_masses_are_lost():
    """The behaviour atoms fix: a point mass is smeared uniformly over its bin."""
    X, y = _zero_inflated()
    fit = DPCopula(schema=_schema(), epsilon=10.0, classes=["no", "yes"], random_state=1).fit(X, y)
    S, _ = fit.sample(20_000, random_state=2)
    assert np.mean(S["x"] == 0.0) == 0.0 and np.mean(S["z"] == 10.0) == 0.0


def test_atoms_do_not_change_the_charge():
    X, y = _zero_inflated(n=3000)
    spent = []
    for atoms in (None, ATOMS):
        acc = Accountant(epsilon=5.0, delta=1e-6)
        fit = DPCopula(schema=_schema(atoms), epsilon=1.0, classes=["no", "yes"], random_state=1,
                       accountant=acc).fit(X, y)
        spent.append((acc.spends, acc.remaining(), fit.privacy_, fit.marginal_sigma_, fit.correlation_sigma_,
                      fit.marginal_sensitivity_, fit.correlation_sensitivity_))
    assert spent[0] == spent[1]
    with_atoms = DPCopula(schema=_schema(ATOMS), epsilon=1.0, classes=["no", "yes"],
                          random_state=1).fit(X, y)
    # one more cell per atom, 32 bins each
    assert with_atoms.marginals_["x"].shape == (2, 33) and with_atoms.marginals_["k"].shape == (2, 33)


def test_atom_outside_the_bounds_is_refused_before_any_charge():
    acc = Accountant(epsilon=5.0, delta=1e-6)
    with pytest.raises(InvalidParameterError, match="outside"):
        DPCopula(schema=_schema({"x": [12.0]}), epsilon=1.0, accountant=acc)
    assert acc.spends == () and acc.remaining() == (5.0, 1e-6)


def test_dask_fit_with_atoms_equals_the_in_memory_fit():
    dd = pytest.importorskip("dask.dataframe")
    X, y = _zero_inflated(n=3000)
    kw = dict(schema=_schema(ATOMS), epsilon=1.0, classes=["no", "yes"], random_state=4)
    ref = DPCopula(**kw).fit(X, y)
    frame = dd.from_pandas(X.assign(label=y), npartitions=3)
    got = DPCopula(**kw).fit(frame[list(X.columns)], frame["label"])
    for c in ref.columns_:
        np.testing.assert_allclose(got.marginal_counts_[c], ref.marginal_counts_[c], atol=1e-9)
    np.testing.assert_allclose(got.correlation_, ref.correlation_, atol=1e-10)


# ------------------------------------------------------------------ unchanged without atoms
_DIGEST_SCHEMA = TableSchema(bounds={"age": (18, 90), "income": (0.0, 200.0),
                                     "score": (-3.0, 3.0)},
                             categories={"colour": ["red", "green", "blue"]}, integer=("age",))


def _digest_table(n=3001, seed=5):
    rng = np.random.default_rng(seed)
    y = np.where(rng.uniform(size=n) < 0.3, "yes", "no")
    pos = y == "yes"
    age = np.clip(np.round(30 + 15 * pos + 10 * rng.standard_normal(n)), 18, 90).astype(int)
    income = np.where(rng.uniform(size=n) < 0.4, 0.0,
                      np.clip(50 + 40 * pos + 20 * rng.standard_normal(n), 0, 250))
    score = rng.standard_normal(n) + 0.5 * pos
    colour = np.where(rng.uniform(size=n) < 0.5 + 0.3 * pos, "red",
                      np.where(rng.uniform(size=n) < 0.5, "green", "blue"))
    return pd.DataFrame({"age": age, "income": income, "score": score, "colour": colour}), y


def _digest(model, X, y) -> str:
    h = hashlib.sha256()
    m = model.fit(X, y)
    for c in m.columns_:
        h.update(np.round(np.asarray(m.marginals_[c], dtype=float), 12).tobytes())
    Xs, ys = m.sample(500, random_state=3)
    for c in Xs.columns:
        v = Xs[c].to_numpy()
        h.update(np.round(v.astype(float), 12).tobytes() if v.dtype.kind in "fi"
                 else "|".join(map(str, v)).encode())
        h.update(str(Xs[c].dtype).encode())
    h.update("|".join(map(str, ys)).encode())
    return h.hexdigest()[:16]


#: Digests of the seeded fits and samples recorded at the commit before atoms existed
#: (10d93f5, this environment's numpy/scipy): with no atoms declared, nothing changed.
BEFORE = {"copula": "8500ea3ec1c8ab63", "tree": "9526ab5b793556d6",
          "copula-dask": "d026d6aff78cfd50"}


def test_without_atoms_seeded_outputs_are_byte_identical_to_before():
    X, y = _digest_table()
    kw = dict(schema=_DIGEST_SCHEMA, epsilon=1.0, classes=["no", "yes"], random_state=7)
    assert _digest(DPCopula(**kw), X, y) == BEFORE["copula"]
    assert _digest(DPTreeCopula(**kw), X, y) == BEFORE["tree"]
    dd = pytest.importorskip("dask.dataframe")
    frame = dd.from_pandas(X.assign(y=y), npartitions=3)
    assert _digest(DPCopula(**kw), frame[list(X.columns)], frame["y"]) == BEFORE["copula-dask"]
