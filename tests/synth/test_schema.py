"""``TableSchema`` encoding errors: one message per cause, never a value of the data."""

import numpy as np
import pandas as pd
import pytest

from matrixdp.errors import InvalidParameterError
from matrixdp.synth import DPCopula, TableSchema

SCHEMA = TableSchema(bounds={"x": (0.0, 1.0)}, categories={"g": ["a", "b"]})


def _fit(g):
    frame = pd.DataFrame({"x": np.linspace(0, 1, len(g)), "g": g})
    return DPCopula(schema=SCHEMA, epsilon=1.0, random_state=0).fit(frame)


def test_a_missing_category_cell_is_reported_as_missing_not_as_an_undeclared_category():
    with pytest.raises(InvalidParameterError, match="column 'g' has missing values") as err:
        _fit(["a", None, "b", "a"])
    assert "category list" not in str(err.value)
    with pytest.raises(InvalidParameterError, match="not in the public category list") as err:
        _fit(["a", "zz_secret", "b", "a"])
    assert "zz_secret" not in str(err.value)
    assert _fit(["a", "b", "b", "a"]).n_features_in_ == 2


def test_an_integer_column_needs_an_integer_inside_its_bounds():
    # task HZ: bounds (0.5, 0.9) on an integer column were accepted, and DPCopula and
    # DPTreeCopula then wrote 0 for every synthetic value: outside the public range
    with pytest.raises(InvalidParameterError, match=r"integer.*'a'.*no integer"):
        TableSchema(bounds={"a": (0.5, 0.9), "b": (0, 1)}, integer=("a",))
    TableSchema(bounds={"a": (0.5, 1.0), "b": (0, 1)}, integer=("a",))  # 1 is inside: accepted
    TableSchema(bounds={"a": (0.5, 0.9), "b": (0, 1)})  # continuous: accepted
    schema = TableSchema(bounds={"a": (0.5, 3.2), "b": (0, 1)}, integer=("a",))
    frame = pd.DataFrame({"a": np.full(50, 0.7), "b": np.linspace(0, 1, 50)})
    values = DPCopula(schema=schema, epsilon=1.0, random_state=0).fit(frame).sample(
        500, random_state=0)["a"]
    assert values.between(0.5, 3.2).all() and set(values) <= {1, 2, 3}
