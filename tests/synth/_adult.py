"""Adult with one-hot categoricals and public scaling, for the end-to-end tests (test helper)."""

from __future__ import annotations

import numpy as np

from matrixdp.datasets import load_adult

#: Public scaling of the numeric columns: domain bounds from adult.names / common knowledge,
#: never read from the records (fnlwgt is a census weight and is dropped).
PUBLIC_SCALE = {"age": 100.0, "education-num": 16.0, "capital-gain": 1e5, "capital-loss": 5e3,
                "hours-per-week": 100.0}


def _scale(data: np.ndarray, names: list[str]) -> np.ndarray:
    keep = [j for j, name in enumerate(names) if name != "fnlwgt"]
    data = np.asarray(data, dtype=float)[:, keep]
    divisors = np.array([PUBLIC_SCALE.get(names[j], 1.0) for j in keep])
    return data / divisors


def load_adult_xy(data_home):
    """(X_train, y_train, X_test, y_test, source): one-hot layout from adult.names, >50K is 1."""
    train = load_adult(split="train", one_hot=True, data_home=data_home)
    test = load_adult(split="test", one_hot=True, data_home=data_home)
    return (_scale(train.data, list(train.feature_names)), np.asarray(train.target),
            _scale(test.data, list(test.feature_names)), np.asarray(test.target),
            "matrixdp.datasets")
