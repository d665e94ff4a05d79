"""The parameter protocol shared by every generator (``synth/_params.py``)."""

import pickle

import numpy as np
import pytest

from matrixdp.errors import InvalidParameterError
from matrixdp.synth import DPCopula, DPTreeCopula, RONGauss, TableSchema

SCHEMA = TableSchema(bounds={"a": (0, 10)}, categories={"c": ["x", "y"]})


@pytest.mark.parametrize("make", [lambda: DPCopula(schema=SCHEMA, epsilon=1.0, classes=[0, 1]),
                                  lambda: DPTreeCopula(schema=SCHEMA, epsilon=1.0, classes=[0, 1]),
                                  lambda: RONGauss(dim=2)])
def test_every_generator_shares_the_protocol(make):
    model = make()
    name = type(model).__name__
    params = model.get_params()
    assert "epsilon" in params and "random_state" in params
    assert model.set_params(epsilon=0.25) is model and model.epsilon == 0.25
    assert repr(model).startswith(f"{name}(") and "epsilon=0.25" in repr(model)
    with pytest.raises(InvalidParameterError, match=f"is not a parameter of {name}"):
        model.set_params(not_a_parameter=1)
    # a Generator random_state is dropped on pickling (it would replay the noise); an int is kept
    model.set_params(random_state=np.random.default_rng(0))
    assert pickle.loads(pickle.dumps(model)).random_state is None
    model.set_params(random_state=7)
    assert pickle.loads(pickle.dumps(model)).random_state == 7
