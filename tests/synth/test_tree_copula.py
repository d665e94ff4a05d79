"""DPTreeCopula: charged before noise, calibrated from the public schema, keeps pairwise
dependence DPCopula loses, and its output passes (and a broken variant fails) the membership audit."""

import math

import numpy as np
import pandas as pd
import pytest

from matrixdp.accounting import Accountant
from matrixdp.audit.membership import membership_audit
from matrixdp.calibration.gaussian import max_gaussian_shift
from matrixdp.synth import DPCopula, TableSchema
from matrixdp.synth import tree_copula as tc
from matrixdp.synth.tree_copula import DPTreeCopula

CATS = [f"k{i}" for i in range(5)]
SCHEMA = TableSchema(bounds={"x": (0.0, 10.0), "z": (0.0, 100.0)},
                     categories={"a": CATS, "b": CATS, "c": ["u", "v"]}, integer=("z",))


def table(n, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 5, n)
    b = np.where(rng.random(n) < 0.9, a, rng.integers(0, 5, n))  # b follows a
    x = np.clip(2.0 * a + rng.normal(0, 0.7, n), 0, 10)            # x follows a
    z = np.clip(50 + 10 * rng.standard_normal(n), 0, 100).round()
    c = np.where(rng.random(n) < 0.5, "u", "v")
    y = (x + rng.normal(0, 2, n) > 5).astype(int)
    frame = pd.DataFrame({"x": x, "z": z.astype(int), "a": [CATS[i] for i in a],
                          "b": [CATS[i] for i in b], "c": c})
    return frame, y


def test_sigmas_follow_from_the_public_schema_and_the_gdp_split():
    X, y = table(2000)
    eps, delta, shares = 1.0, 1e-9, np.array([0.35, 0.25, 0.1, 0.3])
    m = DPTreeCopula(schema=SCHEMA, epsilon=eps, delta=delta, classes=[0, 1], random_state=0).fit(X, y)
    mu = max_gaussian_shift(eps, delta) * np.sqrt(shares / shares.sum())
    k, k_num, k_cat = 5, 2, 3
    C = math.sqrt(k_num)
    expected = {"histograms": math.sqrt(k) / mu[0],
                "correlation": C ** 2 * math.sqrt((1 - 1 / k_num) / 2) / mu[1],
                "scores": math.sqrt(k * (k - 1) / 2 - 1) / mu[2],  # all pairs but the numeric one
                "edges": math.sqrt(k_cat) / mu[3]}
    for name, sigma in expected.items():
        assert m.sigmas_[name] == pytest.approx(sigma, rel=1e-6), name
    assert m.privacy_.epsilon == pytest.approx(eps) and m.privacy_.delta == delta
    assert m.privacy_.neighbouring == "add-remove"


def test_released_edge_noise_has_the_calibrated_scale():
    X, y = table(3000)
    resid = []
    for seed in range(15):
        m = DPTreeCopula(schema=SCHEMA, epsilon=1.0, classes=[0, 1], random_state=seed).fit(X, y)
        codes = m._codes(m.columns_, *SCHEMA.encode(X))[1]
        for j in range(2):
            mask = y == j
            for (a, b), noisy in zip(m.tree_[j], m.edge_counts_[j]):
                ca, cb = m.columns_[a], m.columns_[b]
                true = np.zeros(noisy.shape)
                np.add.at(true, (codes[ca][mask], codes[cb][mask]), 1.0)
                resid.append((noisy - true).ravel())
    sd = np.concatenate(resid).std()
    sigma = m.sigmas_["edges"]
    assert 0.9 * sigma < sd < 1.1 * sigma  # rejects a scale off by 30%


def test_fit_is_charged_before_any_noise():
    X, y = table(500)
    tiny = Accountant(epsilon=0.1, delta=1e-9)
    model = DPTreeCopula(schema=SCHEMA, epsilon=1.0, classes=[0, 1], random_state=0)
    with pytest.raises(Exception):
        model.fit(X, y, accountant=tiny)
    assert not hasattr(model, "privacy_")
    ok = Accountant(epsilon=1.1, delta=1e-8)
    model.fit(X, y, accountant=ok)
    with pytest.raises(Exception):  # a second fit would overspend
        DPTreeCopula(schema=SCHEMA, epsilon=1.0, classes=[0, 1]).fit(X, y, accountant=ok)


def test_public_metadata_only():
    X, y = table(1000)
    Xs, ys = DPTreeCopula(schema=SCHEMA, epsilon=1.0, classes=[0, 1], random_state=0).fit(X, y).sample(
        800, random_state=1)
    assert list(Xs.columns) == list(X.columns)
    assert set(Xs["a"].astype(str)) <= set(CATS) and set(ys) <= {0, 1}
    assert Xs["z"].dtype == np.int64  # integer by the schema
    assert Xs["x"].dtype == np.float64
    X2 = X.copy()
    X2["x"] = X2["x"].round().astype(int)  # an integer dtype is NOT enough to round
    Xs2, _ = DPTreeCopula(schema=SCHEMA, epsilon=1.0, classes=[0, 1], random_state=0).fit(X2, y).sample(
        100, random_state=1)
    assert Xs2["x"].dtype == np.float64
    assert Xs["x"].between(0, 10).all() and Xs["z"].between(0, 100).all()


def test_neighbouring_tables_give_identical_public_attributes():
    X, y = table(800)
    m1 = DPTreeCopula(schema=SCHEMA, epsilon=1.0, classes=[0, 1], random_state=3).fit(X, y)
    m2 = DPTreeCopula(schema=SCHEMA, epsilon=1.0, classes=[0, 1], random_state=3).fit(X.iloc[1:], y[1:])
    assert m1.sigmas_ == m2.sigmas_ and m1.sensitivities_ == m2.sensitivities_
    assert m1.columns_ == m2.columns_


def test_keeps_categorical_dependence_that_dpcopula_loses():
    X, y = table(6000)
    agree = {}
    for cls in (DPCopula, DPTreeCopula):
        Xs, _ = cls(schema=SCHEMA, epsilon=1.0, classes=[0, 1], random_state=0).fit(X, y).sample(
            6000, random_state=1)
        agree[cls.__name__] = float(np.mean(Xs["a"].astype(str) == Xs["b"].astype(str)))
    real = float(np.mean(X["a"] == X["b"]))  # about 0.92
    assert abs(agree["DPTreeCopula"] - real) < 0.15
    assert agree["DPTreeCopula"] > agree["DPCopula"] + 0.25
    assert agree["DPCopula"] < real - 0.2


def test_sample_is_seeded_and_model_keeps_no_generator():
    X, y = table(500)
    m = DPTreeCopula(schema=SCHEMA, epsilon=1.0, classes=[0, 1], random_state=0).fit(X, y)
    a, _ = m.sample(50, random_state=5)
    b, _ = m.sample(50, random_state=5)
    pd.testing.assert_frame_equal(a, b)
    assert not any(isinstance(v, np.random.Generator) for v in vars(m).values())
    # unlabelled fit, only categorical columns
    s = TableSchema(categories={"a": CATS, "b": CATS})
    out = DPTreeCopula(schema=s, epsilon=1.0, random_state=0).fit(X[["a", "b"]]).sample(10, random_state=0)
    assert list(out.columns) == ["a", "b"]


# ----------------------------------------------------------------- the membership audit
SITES = [f"s{i}" for i in range(60)]
AUDIT_SCHEMA = TableSchema(bounds={"x": (0.0, 1.0)}, categories={"site": SITES})


def audit_tables():
    rng = np.random.default_rng(7)
    n = 400
    base = pd.DataFrame({"x": rng.random(n), "site": [SITES[i] for i in rng.integers(0, 10, n)]})
    # crafted canaries: each alone in a site no base record uses
    can = pd.DataFrame({"x": rng.random(50), "site": SITES[10:60]})
    return base, can


def fit_sample(frame, labels, seed):
    m = DPTreeCopula(schema=AUDIT_SCHEMA, epsilon=1.0, random_state=seed).fit(frame)
    return m.sample(4 * len(frame), random_state=seed + 1)


def test_audit_does_not_flag_the_correct_generator():
    base, can = audit_tables()
    res = membership_audit(fit_sample, base, schema=AUDIT_SCHEMA, canaries=can, n_runs=5,
                           attacks=("dcr",), epsilon=1.0, delta=1e-9, rng=0)
    assert not res[0].refuted and res[0].epsilon_lower_bound < 1.0


def test_audit_flags_noise_100x_too_small(monkeypatch):
    for name in ("histogram_sensitivity", "score_sensitivity", "pair_sensitivity",
                 "correlation_sensitivity"):
        f = getattr(tc, name)
        monkeypatch.setattr(tc, name, lambda *a, _f=f: _f(*a) / 100.0)
    base, can = audit_tables()
    res = membership_audit(fit_sample, base, schema=AUDIT_SCHEMA, canaries=can, n_runs=5,
                           attacks=("dcr",), epsilon=1.0, delta=1e-9, rng=0)
    assert res[0].refuted and res[0].epsilon_lower_bound > 1.5


# ----------------------------------------------------------------- Dask
def test_dask_fit_agrees_with_the_in_memory_fit_and_writes_parquet(tmp_path):
    dd = pytest.importorskip("dask.dataframe")
    X, y = table(3000)
    mem = DPTreeCopula(schema=SCHEMA, epsilon=1.0, classes=[0, 1], random_state=11).fit(X, y)
    Xd = dd.from_pandas(X, npartitions=4)
    yd = dd.from_pandas(pd.Series(y), npartitions=4)
    dsk = DPTreeCopula(schema=SCHEMA, epsilon=1.0, classes=[0, 1], random_state=11).fit(Xd, yd)
    assert dsk.tree_ == mem.tree_
    np.testing.assert_allclose(dsk.class_counts_, mem.class_counts_)
    for c in mem.columns_:
        np.testing.assert_allclose(dsk.marginals_[c], mem.marginals_[c])
    np.testing.assert_allclose(dsk.correlation_raw_, mem.correlation_raw_, rtol=1e-9, atol=1e-6)
    np.testing.assert_allclose(dsk.scores_raw_, mem.scores_raw_)
    for a, b in zip(dsk.edge_counts_, mem.edge_counts_):
        for s, t in zip(a, b):
            np.testing.assert_allclose(s, t)
    pd.testing.assert_frame_equal(dsk.sample(200, random_state=3)[0], mem.sample(200, random_state=3)[0])
    files = dsk.sample_to_parquet(tmp_path / "out", 1000, partitions=3, random_state=0)
    assert len(files) == 3
    back = pd.concat([pd.read_parquet(f) for f in files])
    assert len(back) == 1000 and set(back["y"]) <= {0, 1}
    assert back["x"].between(0, 10).all()


def test_ron_gauss_dask_classification_and_add_remove_already_exist():
    # round 2 landed RON-Gauss classification / add-remove on Dask: its tests live beside it
    import pathlib

    text = (pathlib.Path(__file__).parent / "test_ron_gauss_dask.py").read_text()
    assert "classification" in text and "add-remove" in text


def test_pickle_drops_a_generator_random_state():
    import pickle

    X, y = table(300)
    m = DPTreeCopula(schema=SCHEMA, epsilon=1.0, classes=[0, 1],
                     random_state=np.random.default_rng(0)).fit(X, y)
    back = pickle.loads(pickle.dumps(m))
    assert back.random_state is None
    assert back.sample(5, random_state=0)[0].shape == (5, 5)
