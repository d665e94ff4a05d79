"""Saved objects reveal no released noise: a replay attack on every fitted model and mechanism.

The attack is what a reader of a pickle (or of a ``copy.deepcopy``, or of a ``joblib.dump``)
can do: walk the saved object graph, collect every random generator state it finds, rewind
each one by 0..K draws and regenerate the noise in the order the release drew it. With a
cryptographically secure generator (AES in counter mode) the state is the key and the counter,
so a kept generator lets the reader regenerate the noise exactly and subtract it. The tests
assert the attack FAILS: no saved object holds a generator that produced released noise, nor
the realised noise itself.
"""

from __future__ import annotations

import copy
import dataclasses
import io
import pickle

import joblib
import numpy as np
import pytest

from matrixdp import FisherNoiseMechanism, GaussianMechanism, LaplaceMechanism, RONGauss
from matrixdp.rng import secure_bit_generator

#: How far back the attacker rewinds each generator it finds (64-bit draws). A fit or release
#: below uses far fewer draws than this.
REWIND = 3000


# ----------------------------------------------------------------------------- the attack
def saved_copies(obj, tmp_path):
    """The object as a reader of each saving route gets it back."""
    path = tmp_path / "saved.joblib"
    joblib.dump(obj, path)
    buffer = io.BytesIO()
    pickle.dump(obj, buffer)
    return {"pickle": pickle.loads(buffer.getvalue()), "deepcopy": copy.deepcopy(obj),
            "joblib": joblib.load(path)}


def walk(obj, seen=None):
    """Every object reachable from ``obj`` (attributes, containers, dataclass fields)."""
    seen = set() if seen is None else seen
    if id(obj) in seen:
        return
    seen.add(id(obj))
    yield obj
    if isinstance(obj, np.random.Generator):
        yield from walk(obj.bit_generator, seen)
        return
    if isinstance(obj, (np.random.BitGenerator, np.random.RandomState, str, bytes)):
        return
    if isinstance(obj, np.ndarray):
        if obj.dtype == object:
            for item in obj.ravel():
                yield from walk(item, seen)
        return
    if isinstance(obj, dict):
        for key, value in obj.items():
            yield from walk(key, seen)
            yield from walk(value, seen)
        return
    if isinstance(obj, (list, tuple, set, frozenset)):
        for item in obj:
            yield from walk(item, seen)
        return
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            yield from walk(getattr(obj, f.name, None), seen)
    for value in getattr(obj, "__dict__", {}).values():
        yield from walk(value, seen)


def found_bit_generators(obj) -> list:
    """Every bit-generator state in the graph (also bare state dicts and legacy RandomState)."""
    found = []
    for item in walk(obj):
        if isinstance(item, np.random.BitGenerator):
            found.append(item)
        elif isinstance(item, np.random.RandomState):
            found.append(item._bit_generator)
        elif isinstance(item, dict) and "bit_generator" in item and "state" in item:
            found.append(_from_state(item))
    return [b for b in found if b is not None]


def _from_state(state: dict):
    import randomgen

    name = str(state["bit_generator"]).rsplit(".", 1)[-1]
    cls = getattr(np.random, name, None) or getattr(randomgen, name, None)
    if cls is None:
        return None
    bit_generator = cls()
    bit_generator.state = state
    return bit_generator


def rewound(bit_generator, k: int) -> np.random.Generator:
    """A generator at the found state moved back by ``k`` raw draws."""
    clone = type(bit_generator)()
    clone.state = bit_generator.state
    if k:
        clone.advance(-k)
    return np.random.Generator(clone)


def replay_attack(obj, replay) -> bool:
    """True when some generator found in ``obj``, rewound, regenerates the released noise.

    ``replay(start)`` regenerates the noise in the release's order from the generators that
    ``start()`` returns (each call a new one at the same point) and says whether it matches.
    """
    for bit_generator in found_bit_generators(obj):
        for k in range(REWIND):
            if replay(lambda: rewound(bit_generator, k)):
                return True
    return False


def holds_array(obj, target: np.ndarray) -> bool:
    """True when an array of the graph equals ``target`` (the realised noise)."""
    target = np.asarray(target, dtype=float)
    for item in walk(obj):
        if isinstance(item, np.ndarray) and item.shape == target.shape and item.dtype.kind == "f":
            if np.allclose(item, target, rtol=0, atol=1e-12):
                return True
    return False


def noise_replayer(mechanism, noise: np.ndarray):
    def replay(start) -> bool:
        return np.allclose(mechanism._noise(noise.shape, start()), noise, rtol=0, atol=1e-9)
    return replay


class GeneratorKeeper:
    """A deliberately broken holder (the pattern the library must not have)."""


# ----------------------------------------------------------------------------- mechanisms
UNIT3 = [[0.0, 1.0]] * 3


def _mechanisms():
    from matrixdp.mechanisms import MVGMechanism, R1SMGMechanism
    from matrixdp.queries import FrobeniusBall

    yield "laplace", LaplaceMechanism(epsilon=1.0, sensitivity=1.0), np.full(4, 0.25)
    yield ("mvg", MVGMechanism(shape=(3, 2), epsilon=1.0, delta=1e-5, sensitivity=FrobeniusBall(1.0)),
           np.full((3, 2), 0.25))
    yield ("r1smg", R1SMGMechanism(dim=4, epsilon=1.0, delta=1e-5, sensitivity=1.0,
                                   allow_unsafe=True), np.full(4, 0.25))
    yield ("gaussian", GaussianMechanism(epsilon=1.0, delta=1e-5, sensitivity=1.0),
           np.full(4, 0.25))
    yield ("fisher-gaussian", FisherNoiseMechanism(lam=1.0, delta=1e-5, feature_ranges=UNIT3),
           np.full((5, 3), 0.5))
    yield ("fisher-laplace", FisherNoiseMechanism(lam=1.0, feature_ranges=UNIT3, kind="laplace"),
           np.full((5, 3), 0.5))


MECHANISMS = list(_mechanisms())


@pytest.mark.parametrize("name,mechanism,value", MECHANISMS, ids=[m[0] for m in MECHANISMS])
def test_a_mechanism_after_its_release_does_not_replay_its_noise(name, mechanism, value, tmp_path):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # R1SMG warns that its claim is refuted
        released = mechanism.release(value)  # the secure default, as a real user releases
    noise = np.asarray(released.value) - value
    replay = noise_replayer(mechanism, noise)
    for route, saved in saved_copies(mechanism, tmp_path).items():
        assert not replay_attack(saved, replay), f"{name}: the {route} copy replays the noise"
        assert not holds_array(saved, noise), f"{name}: the {route} copy holds the noise"
    for route, saved in saved_copies(released, tmp_path).items():
        assert not replay_attack(saved, replay), f"{name}: the Release's {route} copy replays it"
        assert not holds_array(saved, noise), f"{name}: the Release's {route} copy holds the noise"


def test_the_attack_works_when_a_generator_is_kept(tmp_path):
    """The attack is real: an object that keeps the secure generator it drew from is broken."""
    mechanism = LaplaceMechanism(epsilon=1.0, sensitivity=1.0)
    gen = np.random.Generator(secure_bit_generator())
    noise = mechanism.release(np.zeros(4), rng=gen).value

    keeper = GeneratorKeeper()
    keeper.gen = gen
    for saved in saved_copies(keeper, tmp_path).values():
        assert replay_attack(saved, noise_replayer(mechanism, noise))


def test_correlated_svm_release_keeps_no_generator(tmp_path):
    import warnings

    from matrixdp.models.svm import CorrelatedSVMNoise, correlated_svm_noise

    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(-1, 0.5, (20, 2)), rng.normal(1, 0.5, (20, 2))])
    y = np.repeat([-1.0, 1.0], 20)
    mechanism = CorrelatedSVMNoise(m=1.0, allow_unsafe=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        released = mechanism.release(X, y)
    noise = released.value - X
    fit = released.metadata["fit"]

    def replay(start) -> bool:
        return np.allclose(correlated_svm_noise(fit, 1.0, start()), noise, rtol=0, atol=1e-9)

    for route, saved in saved_copies(mechanism, tmp_path).items():
        assert not replay_attack(saved, replay), f"the {route} copy replays the noise"


# ----------------------------------------------------------------------------- RON-Gauss
def _data(task, n=300, m=6, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, m)) + 0.3
    if task == "regression":
        return X, np.clip(X[:, 0], -2, 2)
    if task == "classification":
        return X, (X[:, 0] > 0.3).astype(int)
    return X, None


def _ron_gauss(task, random_state=None):
    extra = {"regression": {"label_bound": 2.0},
             "classification": {"classes": [0, 1]}}.get(task, {})
    return RONGauss(dim=3, epsilon=1.0, task=task, random_state=random_state, **extra)


def _released(model):
    """The noisy outputs of a fit (the released DP statistics and the public projection)."""
    return [np.asarray(model.projection_), np.asarray(model.mean_),
            np.asarray(model.covariance_raw_)]


def ron_gauss_replayer(model, X, y, task):
    """Regenerate the projection (the fit's first draws) and, where it matches, refit with the
    rewound generator: the draws come in the fit's order and do not depend on the data, so an
    exact match of every released statistic means the noise was regenerated."""
    from matrixdp.synth.projection import ron_matrix

    target = _released(model)
    m, p = model.projection_.shape

    def replay(start) -> bool:
        import warnings

        if not np.allclose(ron_matrix(m, p, start(), "haar"), model.projection_, rtol=0, atol=1e-12):
            return False
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            refit = _ron_gauss(task, random_state=start()).fit(X, y)
        return all(a.shape == b.shape and np.allclose(a, b, rtol=0, atol=1e-12)
                   for a, b in zip(_released(refit), target))

    return replay


@pytest.mark.parametrize("task", ["unsupervised", "regression", "classification"])
@pytest.mark.parametrize("state", ["default", "secure-generator"])
def test_a_fitted_ron_gauss_model_does_not_replay_its_noise(task, state, tmp_path):
    X, y = _data(task)
    random_state = None if state == "default" else np.random.Generator(secure_bit_generator())
    model = _ron_gauss(task, random_state).fit(X, y)
    model.sample(10)  # a used model, as users save it
    replay = ron_gauss_replayer(model, X, y, task)
    for route, saved in saved_copies(model, tmp_path).items():
        assert not replay_attack(saved, replay), f"{task}/{state}: the {route} copy replays the fit"


def test_ron_gauss_attack_recovers_the_exact_private_mean_only_from_a_kept_generator(tmp_path):
    """The concrete harm: with the fit's generator an attacker subtracts the mean's Laplace noise
    and gets the exact private mean of the normalised records. A fixed model gives no generator."""
    from matrixdp.synth.preprocessing import normalize_rows
    from matrixdp.synth.projection import ron_matrix

    X, _ = _data("unsupervised", n=400, m=5)
    model = _ron_gauss("unsupervised").fit(X)
    true_mean = normalize_rows(X).mean(axis=0)
    m, p = model.projection_.shape

    def recover(gen):
        if not np.allclose(ron_matrix(m, p, gen, "haar"), model.projection_, rtol=0, atol=1e-12):
            return None
        return model.mean_ - gen.laplace(0.0, model.mean_scale_, size=m)

    recovered = None
    for saved in saved_copies(model, tmp_path).values():
        for bit_generator in found_bit_generators(saved):
            for k in range(REWIND):
                recovered = recover(rewound(bit_generator, k))
                if recovered is not None:
                    break
    assert recovered is None, (
        "a saved RON-Gauss model let the attacker recover the private mean "
        f"(max error {np.abs(recovered - true_mean).max():.2e})")


# ----------------------------------------------------------------------------- DP directions
def test_a_fitted_dp_directions_model_does_not_replay_its_noise(tmp_path):
    from matrixdp.models import DPDirectionsMVG
    from matrixdp.queries import IdentityQuery

    X = np.random.default_rng(2).uniform(-1, 1, size=(60, 4))
    query = IdentityQuery(bounds=(-1, 1), n_features=4, n_samples=60)

    def fit(random_state):
        return DPDirectionsMVG(shape=(60, 4), epsilon=1.0, delta=1e-5, sensitivity=query,
                               random_state=random_state).fit(X)

    model = fit(np.random.Generator(secure_bit_generator()))
    target = model.directions_.eigenvalues

    def replay(start) -> bool:
        return np.allclose(fit(start()).directions_.eigenvalues, target, rtol=0, atol=1e-12)

    for route, saved in saved_copies(model, tmp_path).items():
        assert not replay_attack(saved, replay), f"the {route} copy replays the DP directions"
        assert saved.random_state is None, route


# ----------------------------------------------------------------------------- estimators
def _estimators():
    from matrixdp.models import (DPPCA, AdaSSPRegression, BoostedAdaSSPRegression, DPCovariance,
                                 DPLinearRegression, DPMean, DPRidge, DPStandardScaler)

    box = {"bounds": (0.0, 1.0)}
    xy = {"bounds_X": (0.0, 1.0), "bounds_y": (-1.0, 1.0)}
    yield "DPMean", lambda rs: DPMean(random_state=rs, **box), False
    yield "DPStandardScaler", lambda rs: DPStandardScaler(random_state=rs, **box), False
    yield "DPCovariance", lambda rs: DPCovariance(random_state=rs, **box), False
    yield "DPPCA", lambda rs: DPPCA(2, random_state=rs, **box), False
    yield "DPLinearRegression", lambda rs: DPLinearRegression(random_state=rs, **xy), True
    yield "DPRidge", lambda rs: DPRidge(random_state=rs, **xy), True
    yield "AdaSSPRegression", lambda rs: AdaSSPRegression(random_state=rs, **xy), True
    yield "BoostedAdaSSPRegression", lambda rs: BoostedAdaSSPRegression(
        n_rounds=10, random_state=rs, **xy), True


ESTIMATORS = list(_estimators())


def _fitted_arrays(estimator) -> list:
    return [np.asarray(v) for k, v in sorted(vars(estimator).items())
            if k.endswith("_") and isinstance(v, np.ndarray) and v.dtype.kind == "f"]


@pytest.mark.parametrize("name,build,supervised", ESTIMATORS, ids=[e[0] for e in ESTIMATORS])
def test_a_fitted_estimator_with_a_generator_seed_does_not_replay_its_noise(name, build, supervised,
                                                                           tmp_path):
    rng = np.random.default_rng(3)
    X = rng.uniform(0, 1, size=(300, 3))
    y = np.clip(X @ [0.5, -0.3, 0.2], -1, 1)
    args = (X, y) if supervised else (X,)
    model = build(np.random.Generator(secure_bit_generator())).fit(*args)
    target = _fitted_arrays(model)
    assert target, name

    def replay(start) -> bool:
        refit = _fitted_arrays(build(start()).fit(*args))
        return all(a.shape == b.shape and np.allclose(a, b, rtol=0, atol=1e-12)
                   for a, b in zip(refit, target))

    for route, saved in saved_copies(model, tmp_path).items():
        assert not replay_attack(saved, replay), f"{name}: the {route} copy replays the fit"
        assert saved.random_state is None, f"{name}: the {route} copy keeps the Generator"


def test_a_fitted_dp_copula_with_a_generator_seed_does_not_replay_its_noise(tmp_path):
    import pandas as pd

    from matrixdp.synth.copula import DPCopula
    from matrixdp.synth.schema import TableSchema

    rng = np.random.default_rng(5)
    schema = TableSchema(bounds={"a": (0.0, 1.0), "b": (0.0, 1.0)},
                         categories={"c": ["x", "y"]})
    X = pd.DataFrame({"a": rng.uniform(size=200), "b": rng.uniform(size=200),
                      "c": rng.choice(["x", "y"], size=200)})

    def fit(random_state):
        return DPCopula(schema=schema, epsilon=1.0, random_state=random_state).fit(X)

    model = fit(np.random.Generator(secure_bit_generator()))
    target = _fitted_arrays(model)

    def replay(start) -> bool:
        return all(np.allclose(a, b, rtol=0, atol=1e-12)
                   for a, b in zip(_fitted_arrays(fit(start())), target))

    for route, saved in saved_copies(model, tmp_path).items():
        assert not replay_attack(saved, replay), f"the {route} copy replays the DP copula"
        assert saved.random_state is None, route
