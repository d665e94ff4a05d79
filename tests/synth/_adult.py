"""Adult with one-hot categoricals and public scaling, for the end-to-end tests (test helper)."""

from __future__ import annotations

import numpy as np

#: Public scaling of the numeric columns: domain bounds from adult.names / common knowledge,
#: never read from the records (fnlwgt is a census weight and is dropped).
PUBLIC_SCALE = {"age": 100.0, "education-num": 16.0, "capital-gain": 1e5, "capital-loss": 5e3,
                "hours-per-week": 100.0}
COLUMNS = ["age", "workclass", "fnlwgt", "education", "education-num", "marital-status",
           "occupation", "relationship", "race", "sex", "capital-gain", "capital-loss",
           "hours-per-week", "native-country", "income"]
CATEGORICAL = ["workclass", "education", "marital-status", "occupation", "relationship", "race",
               "sex", "native-country"]


def _scale(data: np.ndarray, names: list[str]) -> tuple[np.ndarray, list[str]]:
    keep = [j for j, name in enumerate(names) if name != "fnlwgt"]
    data = data[:, keep].astype(float)
    names = [names[j] for j in keep]
    for j, name in enumerate(names):
        if name in PUBLIC_SCALE:
            data[:, j] /= PUBLIC_SCALE[name]
    return data, names


def load_adult_xy(data_home):
    """(X_train, y_train, X_test, y_test, source) with income >50K as 1."""
    try:
        from matrixdp.datasets import load_adult
    except ImportError:
        load_adult = None
    if load_adult is not None:
        train = load_adult(split="train", one_hot=True, data_home=data_home)
        test = load_adult(split="test", one_hot=True, data_home=data_home)
        Xtr, _ = _scale(np.asarray(train.data), list(train.feature_names))
        Xte, _ = _scale(np.asarray(test.data), list(test.feature_names))
        return Xtr, np.asarray(train.target), Xte, np.asarray(test.target), "matrixdp.datasets"
    import pandas as pd

    def read(name, skip):
        frame = pd.read_csv(data_home / "adult" / name, names=COLUMNS, skipinitialspace=True,
                            skiprows=skip, na_values="?")
        y = frame["income"].str.rstrip(".").eq(">50K").to_numpy(dtype=int)
        return frame, y

    train, ytr = read("adult.data", 0)
    test, yte = read("adult.test", 1)
    # Fallback while matrixdp.datasets is not on main: the category layout comes from the
    # training file (the loader uses the published category lists instead).
    dummies = pd.get_dummies(train[CATEGORICAL].astype(str), dtype=float)
    test_dummies = pd.get_dummies(test[CATEGORICAL].astype(str), dtype=float).reindex(
        columns=dummies.columns, fill_value=0.0)
    numeric = ["age", "fnlwgt", "education-num", "capital-gain", "capital-loss", "hours-per-week"]
    names = numeric + list(dummies.columns)
    Xtr, _ = _scale(np.hstack([train[numeric].to_numpy(float), dummies.to_numpy()]), names)
    Xte, _ = _scale(np.hstack([test[numeric].to_numpy(float), test_dummies.to_numpy()]), names)
    return Xtr, ytr, Xte, yte, "pandas"
