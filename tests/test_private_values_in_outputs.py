"""No value computed from private data leaves through a message, a warning, a Release or metadata.

Private data carry planted markers: a feature value 987654.321, a label 4242, and a planted
number (1237) of invalid records. Errors raised on such data, warnings issued while fitting or
releasing it, the fields and metadata of the Release and the fitted attributes of a model (other
than its DP outputs) must not contain any of them: they say what is wrong and how to fix it, not
what the data holds.
"""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pytest

from matrixdp import FisherNoiseMechanism, GaussianMechanism, LaplaceMechanism, RONGauss

MARKER = 987654.321
LABEL = 4242
N_BAD = 1237
#: How the markers could be printed.
TEXTS = ("987654", "9.87654e+05", "9.8765e+05", "9.877e+05", "9.88e+05", "987,654", "4242",
         "1237", "1.237e+03")


def _clean(text: str, where: str) -> None:
    for t in TEXTS:
        assert t not in text, f"{where} shows a private value ({t!r}): {text!r}"


def _walk(obj, seen=None):
    seen = set() if seen is None else seen
    if id(obj) in seen:
        return
    seen.add(id(obj))
    yield obj
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _walk(k, seen)
            yield from _walk(v, seen)
    elif isinstance(obj, (list, tuple, set, frozenset)):
        for v in obj:
            yield from _walk(v, seen)
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            yield from _walk(getattr(obj, f.name), seen)
    elif hasattr(obj, "__dict__") and not isinstance(obj, type):
        for v in vars(obj).values():
            yield from _walk(v, seen)


def _assert_no_marker(obj, where: str) -> None:
    for item in _walk(obj):
        if isinstance(item, str):
            _clean(item, where)
        elif isinstance(item, (float, int, np.floating, np.integer)) and not isinstance(item, bool):
            assert not np.isclose(float(item), MARKER) and float(item) not in (LABEL, N_BAD), \
                f"{where} holds a private value {item!r}"
        elif isinstance(item, np.ndarray) and item.dtype.kind in "fiu":
            assert not np.isclose(item, MARKER).any(), f"{where} holds the planted feature value"
            assert not np.isclose(item, MARKER / 1e6, rtol=1e-12, atol=0).any(), \
                f"{where} holds the planted (scaled) feature value"
            assert not (item == LABEL).any(), f"{where} holds the planted label"
        elif isinstance(item, np.ndarray) and item.dtype.kind in "OUS":
            for v in item.ravel():
                _clean(str(v), where)


def _table(n=3000, m=4, low=0.0, high=1.0, seed=0):
    """Records inside [low, high] except N_BAD rows whose first feature is the marker."""
    X = np.random.default_rng(seed).uniform(low, high, size=(n, m))
    X[:N_BAD, 0] = MARKER
    return X


def _error_text(fn) -> str:
    with pytest.raises(Exception) as caught:  # noqa: PT011 - any refusal, we read its text
        fn()
    return f"{type(caught.value).__name__}: {caught.value}"


# ------------------------------------------------------------------------ errors
def _error_cases():
    X = _table()
    y_reg = np.zeros(X.shape[0])
    y_reg[:N_BAD] = LABEL
    y_cls = np.zeros(X.shape[0], dtype=int)
    y_cls[:N_BAD] = LABEL
    unit = [[0.0, 1.0]] * X.shape[1]
    yield "validation.check_in_bounds", lambda: __import__(
        "matrixdp._validation", fromlist=["x"]).check_in_bounds(X, 0.0, 1.0)
    inside_ball = _table(high=0.5)  # every unplanted row has norm <= 1
    yield "validation.check_row_norms", lambda: __import__(
        "matrixdp._validation", fromlist=["x"]).check_row_norms(inside_ball, 1.0)
    yield "FisherNoiseMechanism.release", lambda: FisherNoiseMechanism(
        lam=1.0, feature_ranges=unit).release(X, rng=0)
    yield "RONGauss regression labels", lambda: RONGauss(
        dim=2, epsilon=1.0, task="regression", label_bound=1.0).fit(X, y_reg)
    yield "RONGauss classification labels", lambda: RONGauss(
        dim=2, epsilon=1.0, task="classification", classes=[0, 1]).fit(X, y_cls)


    # queries: the data must lie in the query's public box / ball
    from matrixdp.queries import CovarianceQuery, IdentityQuery

    n, m = X.shape
    yield "IdentityQuery.compute", lambda: IdentityQuery(
        bounds=(0.0, 1.0), n_features=m, n_samples=n).compute(X)
    yield "CovarianceQuery.compute", lambda: CovarianceQuery(
        bounds=(0.0, 1.0), n_features=m, n_samples=n).compute(X)
    yield "IdentityQuery(radius).compute", lambda: IdentityQuery(
        radius=1.0, n_features=m, n_samples=n).compute(inside_ball)
    yield "IdentityQuery wrong row count", lambda: IdentityQuery(
        bounds=(0.0, 1.0), n_features=m, n_samples=n + 1).compute(X[:, :] * 0 + 0.5)
    # a mechanism whose calibration needs a PSD value: the negative eigenvalue is private
    from matrixdp.mechanisms import MVGMechanism
    from matrixdp.queries import FrobeniusBall

    not_psd = np.diag([-MARKER, 1.0, 2.0])
    yield "MVGMechanism theorem3 value", lambda: MVGMechanism(
        shape=(3, 3), epsilon=1.0, delta=1e-5,
        sensitivity=FrobeniusBall(1.0, symmetric=True, psd=True, gamma=1.0),
        calibration="theorem3").release(not_psd, rng=0)
    # estimators refusing out-of-bound records (clip=False)
    from matrixdp.models import DPCovariance, DPLinearRegression, DPMean, DPPCA

    yield "DPMean(clip=False)", lambda: DPMean(bounds=(0.0, 1.0), clip=False).fit(X)
    yield "DPCovariance(clip=False)", lambda: DPCovariance(bounds=(0.0, 1.0), clip=False).fit(X)
    yield "DPPCA(clip=False)", lambda: DPPCA(2, bounds=(0.0, 1.0), clip=False).fit(X)
    clean = np.random.default_rng(1).uniform(0.0, 1.0, size=X.shape)
    yield "DPLinearRegression(clip=False) labels", lambda: DPLinearRegression(
        bounds_X=(0.0, 1.0), bounds_y=(0.0, 1.0), clip=False).fit(clean, y_reg)
    yield "DPLinearRegression y length", lambda: DPLinearRegression(
        bounds_X=(0.0, 1.0), bounds_y=(0.0, 1.0)).fit(clean[:N_BAD], y_reg[:N_BAD + 1])
    one_d = np.full(5, MARKER / 1e6)  # a 1-D input: scikit-learn would quote it
    yield "DPMean on a 1-D array", lambda: DPMean(bounds=(0.0, 1.0)).fit(one_d)
    strings = np.array([["987654.321x", "0.5"]], dtype=object)  # an unparsable private string
    yield "DPMean on strings", lambda: DPMean(bounds=(0.0, 1.0)).fit(strings)
    # a baseline: records outside the public row-norm bound
    from matrixdp.baselines.mod_sulq import mod_sulq

    yield "baselines.mod_sulq", lambda: mod_sulq(inside_ball, epsilon=1.0, delta=1e-5,
                                                 row_norm_bound=1.0, n_components=1)
    # DP copula: labels outside the public classes, values outside the public categories, NaN
    import pandas as pd

    from matrixdp.synth.copula import DPCopula
    from matrixdp.synth.schema import TableSchema

    schema = TableSchema(bounds={"income": (0.0, 200.0)}, categories={"colour": ["red", "blue"]})
    frame = pd.DataFrame({"income": np.full(n, 50.0), "colour": ["red"] * n})
    odd_colour = frame.assign(colour=["red"] * (n - N_BAD) + ["purple4242"] * N_BAD)
    missing = frame.assign(income=[50.0] * (n - N_BAD) + [np.nan] * N_BAD)
    yield "DPCopula labels", lambda: DPCopula(schema=schema, epsilon=1.0, classes=[0, 1]).fit(
        frame, y_cls)
    yield "DPCopula categories", lambda: DPCopula(schema=schema, epsilon=1.0).fit(odd_colour)
    yield "DPCopula missing values", lambda: DPCopula(schema=schema, epsilon=1.0).fit(missing)


ERROR_CASES = list(_error_cases())


@pytest.mark.parametrize("name,call", ERROR_CASES, ids=[c[0] for c in ERROR_CASES])
def test_errors_on_private_data_say_what_to_fix_not_what_the_data_holds(name, call):
    from matrixdp.errors import MatrixDPError

    text = _error_text(call)
    # the refusal is matrixdp's own (about the data), not a failure of the case's set-up
    assert text.split(":")[0] in {c.__name__ for c in _subclasses(MatrixDPError)}, text
    _clean(text, name)


def _subclasses(cls):
    out = {cls}
    for sub in cls.__subclasses__():
        out |= _subclasses(sub)
    return out


def test_cli_release_errors_show_no_private_value(tmp_path, capsys):
    import pandas as pd

    from matrixdp.cli import main

    X = _table(n=2000)
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    path = tmp_path / "private.csv"
    frame.to_csv(path, index=False)
    bounds = [f"--bounds=f{j}=0:1" for j in range(X.shape[1])]
    code = main(["release", str(path), "--query", "mean", *bounds, "--epsilon", "1",
                 "--no-clip", "--out", str(tmp_path / "o.json")])
    captured = capsys.readouterr()
    assert code != 0
    _clean(captured.out + captured.err, "matrixdp release")


def test_cli_errors_show_no_private_value(tmp_path, capsys):
    import pandas as pd

    from matrixdp.cli import main

    X = _table(n=2000)
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    frame["label"] = 0
    frame.loc[:N_BAD - 1, "label"] = LABEL
    path = tmp_path / "private.csv"
    frame.to_csv(path, index=False)
    code = main(["synth", str(path), "--epsilon", "1", "--dim", "2", "--task", "classification",
                 "--target", "label", "--classes", "0,1", "--out", str(tmp_path / "o.csv")])
    captured = capsys.readouterr()
    assert code != 0
    _clean(captured.out + captured.err, "matrixdp synth")


# ------------------------------------------------ warnings, Release fields, fitted attributes
def _wide_table():
    """Valid private data (public bounds wide enough) that contain the marker."""
    return _table(low=-1.0, high=1.0)


def test_releases_carry_no_private_value_outside_the_noisy_value():
    X = _wide_table()
    # the Fisher release needs unit-scale ranges: its records carry the marker as 0.987654321
    unit = [[-1.0, 1.0]] * X.shape[1]
    mechanisms = [
        (LaplaceMechanism(epsilon=1.0, sensitivity=1.0), X[0]),
        (GaussianMechanism(epsilon=1.0, delta=1e-5, sensitivity=1.0), X[0]),
        (FisherNoiseMechanism(epsilon=1.0, delta=1e-5, feature_ranges=unit), X / 1e6),
    ]
    for mech, value in mechanisms:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            rel = mech.release(value, rng=1)
        for w in caught:
            _clean(str(w.message), f"{mech.name} warning")
        _assert_no_marker([rel.privacy, rel.noise, rel.metadata], f"{mech.name} Release")
        _assert_no_marker(mech, f"{mech.name} after release")


@pytest.mark.parametrize("task", ["unsupervised", "regression", "classification"])
def test_a_fitted_ron_gauss_model_holds_no_private_value_outside_its_dp_outputs(task):
    X = _wide_table()
    y = {"unsupervised": None,
         "regression": np.where(np.arange(X.shape[0]) < N_BAD, float(LABEL), 1.0),
         "classification": (X[:, 1] > 0).astype(int)}[task]
    kw = {"regression": {"label_bound": (0.0, 10000.0)},
          "classification": {"classes": [0, 1]}}.get(task, {})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = RONGauss(dim=2, epsilon=1.0, task=task, random_state=0, **kw).fit(X, y)
        model.sample(50)
    for w in caught:
        _clean(str(w.message), "RONGauss warning")
    dp_outputs = {"mean_", "covariance_", "covariance_raw_", "class_means_", "class_counts_",
                  "class_weights_", "n_records_", "mean_scale_", "cov_scale_"}
    public = {k: v for k, v in vars(model).items() if k not in dp_outputs}
    _assert_no_marker(public, f"RONGauss({task}) fitted attributes")
    _clean(repr(model) + str(model.privacy_) + " ".join(model.privacy_.notes), "RONGauss text")


def test_fitted_estimators_hold_no_private_value_outside_their_dp_outputs():
    from matrixdp.models import DPPCA, DPCovariance, DPMean

    X = _wide_table()
    wide = (-1e6, 1e6)
    for est in (DPMean(bounds=wide, random_state=0), DPCovariance(bounds=wide, random_state=0),
                DPPCA(2, bounds=wide, random_state=0)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            est.fit(X)
        for w in caught:
            _clean(str(w.message), f"{type(est).__name__} warning")
        dp_outputs = {"mean_", "covariance_", "components_", "explained_variance_",
                      "explained_variance_ratio_", "singular_values_", "scale_", "var_",
                      "precision_", "location_", "noise_candidates_", "expected_loss_"}
        public = {k: v for k, v in vars(est).items() if k.endswith("_") and k not in dp_outputs}
        _assert_no_marker(public, f"{type(est).__name__} fitted attributes")
