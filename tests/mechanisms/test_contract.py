"""The Mechanism contract: every shipped Mechanism subclass runs through the same checks.

For each subclass (found by walking ``Mechanism.__subclasses__()`` after importing every
module of the package, so a new mechanism without a case here fails the first test):

- a bad argument raises an ``InvalidParameterError`` naming that argument;
- ``release`` keeps the value's shape;
- the guarantee states ε > 0, δ in [0, 1), a :class:`Relation` and whether it is exact;
- releases with the same seed repeat (and a different seed differs), and no generator state
  is kept by the mechanism or its release;
- ``bias``/``variance``/``mse`` (defined once on the base class) match the empirical
  moments of the error at a fixed seed, within a stated tolerance that also rejects a
  variance 30% off. Mechanisms whose error law depends on the value (not additive noise)
  report NaN moments; they are listed in ``VALUE_DEPENDENT`` with the reason.
"""

from __future__ import annotations

import contextlib
import importlib
import math
import pkgutil
import warnings
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import pytest

import matrixdp
from matrixdp import PrivacyGuarantee, Relation
from matrixdp.audit.blackbox import draw_outputs
from matrixdp.errors import InvalidParameterError
from matrixdp.mechanisms.base import Mechanism

#: Draws for the moment checks (all entries of all draws are pooled).
N_DRAWS = 4000
#: Relative tolerance of the variance and mse checks (the sampling error of a pooled variance
#: with >= 12,000 entries is below 3% for Gaussian noise and below 6% for Wishart's heavier tails).
MOMENT_RTOL = 0.10

#: Abstract bases (no draw of their own).
ABSTRACT = {"ProjectorMechanism"}

#: Non-additive releases: the error law depends on the value, so there are no data-independent
#: moments (their noise_summary is NaN and the check asserts exactly that).
VALUE_DEPENDENT = {
    "JLSketchMechanism": "releases SᵀS/r, whose variance (Σ_ij² + Σ_ii Σ_jj)/r depends on Σ",
    "PPCAMechanism": "releases a projector drawn by the exponential mechanism on the value",
    "PPCAKMechanism": "releases a projector drawn by the exponential mechanism on the value",
    "ExponentialMechanism": "selects a public candidate by utilities computed from the data",
    "DAWAMechanism": "spreads noisy counts over buckets chosen from the value (a private partition)",
}

_GUARANTEE = PrivacyGuarantee(epsilon=1.0, delta=1e-5, calibration="test", mechanism="test")


@dataclass
class Case:
    build: Callable[..., Mechanism]
    kwargs: dict
    value: np.ndarray
    bad: tuple  # (argument, bad value): build(**{**kwargs, argument: bad value}) must raise
    extra: dict = field(default_factory=dict)


def _cases() -> dict[str, Case]:
    from matrixdp import baselines, mechanisms
    from matrixdp.queries import IdentityQuery

    ident = IdentityQuery(bounds=(0.0, 1.0), n_features=3, n_samples=4)
    score = np.diag([3.0, 1.0, 0.5])
    return {
        "LaplaceMechanism": Case(mechanisms.LaplaceMechanism,
                                 dict(epsilon=1.0, sensitivity=1.0), np.zeros(3),
                                 ("epsilon", -1.0)),
        "GaussianMechanism": Case(mechanisms.GaussianMechanism,
                                  dict(epsilon=1.0, delta=1e-5, sensitivity=1.0), np.zeros(3),
                                  ("delta", 2.0)),
        "R1SMGMechanism": Case(mechanisms.R1SMGMechanism,
                               dict(dim=5, epsilon=0.1, delta=1e-5, sensitivity=1.0,
                                    allow_unsafe=True), np.zeros(5), ("dim", 2)),
        "MVGMechanism": Case(mechanisms.MVGMechanism,
                             dict(shape=(4, 3), epsilon=1.0, delta=1e-5, sensitivity=ident,
                                  precision=[0.5, 0.3, 0.2]), np.full((4, 3), 0.5),
                             ("shape", (0, 3))),
        "FisherNoiseMechanism": Case(mechanisms.FisherNoiseMechanism,
                                     dict(lam=1.0, delta=1e-5, feature_ranges=[[0.0, 1.0]] * 2),
                                     np.full((20, 2), 0.5), ("kind", "uniform")),
        "ClassicGaussianBaseline": Case(baselines.ClassicGaussianBaseline,
                                        dict(epsilon=2.0, delta=1e-5, sensitivity=1.0),
                                        np.zeros(3), ("sensitivity", -1.0)),
        "SymmetricNoiseMechanism": Case(baselines.SymmetricNoiseMechanism,
                                        dict(dim=3, kind="gaussian", scale=0.5,
                                             privacy=_GUARANTEE), np.eye(3), ("kind", "uniform")),
        "WishartMechanism": Case(baselines.WishartMechanism,
                                 dict(dim=3, scale=0.2, privacy=_GUARANTEE), np.zeros((3, 3)),
                                 ("scale", -1.0)),
        "JLSketchMechanism": Case(baselines.JLSketchMechanism,
                                  dict(r=5, privacy=_GUARANTEE), np.eye(3) + 0.1, ("r", 0)),
        "PPCAMechanism": Case(baselines.PPCAMechanism, dict(epsilon=1.0), score,
                              ("epsilon", -1.0)),
        "ExponentialMechanism": Case(mechanisms.ExponentialMechanism,
                                     dict(epsilon=1.0, sensitivity=1.0),
                                     -np.abs(np.arange(12.0).reshape(2, 6) - 3.0),
                                     ("sensitivity", 0.0)),
        "HierarchicalHistogramMechanism": Case(baselines.HierarchicalHistogramMechanism,
                                               dict(shape=(5, 4), epsilon=1.0, branching=2),
                                               np.full((5, 4), 3.0), ("branching", 1)),
        "DAWAMechanism": Case(baselines.DAWAMechanism, dict(shape=(5, 4), epsilon=1.0),
                              np.arange(20.0).reshape(5, 4), ("ratio", 1.0)),
        "PPCAKMechanism": Case(baselines.PPCAKMechanism,
                               dict(epsilon=1.0, n_components=2, sweeps=2, privacy=_GUARANTEE),
                               score, ("sweeps", 0)),
    }


def _shipped_subclasses() -> set[str]:
    for info in pkgutil.walk_packages(matrixdp.__path__, "matrixdp."):
        if info.name.endswith("__main__"):
            continue
        importlib.import_module(info.name)
    found, todo = set(), [Mechanism]
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            if sub.__module__.startswith("matrixdp.") and sub.__name__ not in found:
                found.add(sub.__name__)
                todo.append(sub)
    return found - ABSTRACT


CASES = _cases()


def _build(case: Case, **changes) -> Mechanism:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # R1SMG's unsafe opt-in and Remark 1 warnings
        return case.build(**{**case.kwargs, **changes})


def _release(mech, value, rng):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # refuted-guarantee warnings (R1SMG)
        return mech.release(value, rng=rng)


def test_every_shipped_mechanism_has_a_contract_case():
    assert _shipped_subclasses() == set(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_construction_errors_name_the_argument(name):
    case = CASES[name]
    argument, bad = case.bad
    with pytest.raises(InvalidParameterError) as info:
        _build(case, **{argument: bad})
    assert info.value.argument == argument


@pytest.mark.parametrize("name", sorted(CASES))
def test_release_keeps_shape_and_states_its_guarantee(name):
    case = CASES[name]
    mech = _build(case)
    release = _release(mech, case.value, rng=0)
    assert np.shape(release.value) == case.value.shape
    assert np.all(np.isfinite(release.value))
    p = release.privacy
    assert isinstance(p, PrivacyGuarantee) and p == mech.privacy
    assert math.isfinite(p.epsilon) and p.epsilon > 0
    assert 0.0 <= p.delta < 1.0
    assert Relation(p.neighbouring) in Relation
    assert isinstance(p.exact, bool)


@pytest.mark.parametrize("name", sorted(CASES))
def test_release_is_charged_to_the_accountant_before_any_draw(name):
    """Every mechanism, baselines included, charges the same budget hook: a release that does
    not fit is refused (nothing returned, nothing recorded), and one that fits is recorded."""
    from matrixdp.accounting import Accountant
    from matrixdp.errors import BudgetExceededError

    case = CASES[name]
    mech = _build(case)
    p = mech.privacy
    unsafe = dict(allow_unsafe=True) if p.refuted else {}
    tight = Accountant(epsilon=p.epsilon / 2, delta=p.delta, **unsafe)
    roomy = Accountant(**unsafe)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(BudgetExceededError):
            mech.release(case.value, rng=0, accountant=tight)
        mech.release(case.value, rng=0, accountant=roomy)
    assert tight.total(delta=p.delta).epsilon == 0.0
    assert roomy.total(delta=p.delta).epsilon == pytest.approx(p.epsilon, rel=1e-6)


@pytest.mark.parametrize("name", sorted(CASES))
def test_seeded_releases_repeat(name):
    case = CASES[name]
    mech = _build(case)
    first = _release(mech, case.value, rng=7).value
    again = _release(_build(case), case.value, rng=7).value
    other = _release(mech, case.value, rng=8).value
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, other)


@pytest.mark.parametrize("name", sorted(CASES))
def test_bias_variance_mse_match_the_empirical_error(name):
    case = CASES[name]
    mech = _build(case)
    bias, var, mse = mech.bias, mech.variance, mech.mse
    if name in VALUE_DEPENDENT:
        assert math.isnan(var) and math.isnan(mse), VALUE_DEPENDENT[name]
        return
    err = draw_outputs(mech, case.value, N_DRAWS, rng=12345) - case.value
    m = err.size
    emp_bias = float(err.mean())
    emp_var = float(err.var(axis=0).mean())
    emp_mse = float(np.mean(err * err))
    assert abs(emp_bias - bias) <= 6 * math.sqrt(var / m) + 1e-12
    assert emp_var == pytest.approx(var, rel=MOMENT_RTOL)
    assert emp_mse == pytest.approx(mse, rel=MOMENT_RTOL)
    # the tolerance has power: a variance 30% off is rejected
    for wrong in (0.7, 1.3):
        assert emp_var != pytest.approx(wrong * var, rel=MOMENT_RTOL)


def _generators(obj, depth=0):
    """Generator / BitGenerator objects reachable from ``obj``'s attributes (a few levels deep)."""
    if isinstance(obj, (np.random.Generator, np.random.BitGenerator)):
        return [obj]
    if depth > 3:
        return []
    if isinstance(obj, dict):
        children = list(obj.values())
    elif isinstance(obj, (list, tuple)):
        children = list(obj)
    elif hasattr(obj, "__dict__") and type(obj).__module__.startswith("matrixdp"):
        children = list(vars(obj).values())
    else:
        return []
    return [g for child in children for g in _generators(child, depth + 1)]


@pytest.mark.parametrize("name", sorted(CASES))
def test_no_generator_state_outlives_a_release(name):
    """Pure configuration: no randomness is kept when built, nor after a seeded release."""
    case = CASES[name]
    mech = _build(case)
    assert _generators(mech) == []
    release = _release(mech, case.value, rng=np.random.default_rng(3))
    assert _generators(mech) == [] and _generators(release) == []


def _guarantee(epsilon=1.0, delta=1e-5):
    """A guarantee whose numbers are 0-d arrays the caller keeps (and can overwrite)."""
    return PrivacyGuarantee(epsilon=np.array(epsilon), delta=np.array(delta), calibration="test",
                            mechanism="test")


def _pair(dim=3):
    return (np.eye(dim), 2.0 * np.eye(dim))


def _mutable_cases() -> dict[str, Case]:
    """Cases that pass every non-scalar constructor argument as a mutable object the caller
    keeps: ndarrays, lists, a query, a DP eigen-decomposition, guarantees with array numbers."""
    from matrixdp import baselines, mechanisms
    from matrixdp.models.dp_directions import DPEigenDecomposition
    from matrixdp.queries import IdentityQuery

    w3 = np.linalg.qr(np.random.default_rng(5).standard_normal((3, 3)))[0]
    d = 300
    w300 = np.linalg.qr(np.random.default_rng(6).standard_normal((d, d)))[0]
    ranges = np.array([[0.0, 1.0], [0.0, 1.0]])
    x20 = np.full((20, 2), 0.5)
    mvg = mechanisms.MVGMechanism
    eig = DPEigenDecomposition(directions=w3.copy(), eigenvalues=np.array([3.0, 2.0, 1.0]),
                               noise_scale=1.0, sensitivity=1.0,
                               privacy=_guarantee(0.1, 1e-6))
    return {
        "FisherNoiseMechanism (gaussian)": Case(
            mechanisms.FisherNoiseMechanism,
            dict(lam=1.0, delta=1e-5, feature_ranges=ranges.copy(),
                 weights=np.array([[2.0, 0.3], [0.3, 1.0]])), x20, ()),
        "FisherNoiseMechanism (bounded)": Case(
            mechanisms.FisherNoiseMechanism,
            dict(lam=1.0, kind="bounded", feature_ranges=ranges.copy(), weights=np.array([1.0, 2.0]),
                 noise_support=np.array([[-1.0, 1.0], [-1.0, 1.0]]), n_grid=200), x20, ()),
        "MVGMechanism (query, directions, precision)": Case(
            mvg, dict(shape=[4, 3], epsilon=1.0, delta=1e-5,
                      sensitivity=IdentityQuery(bounds=(np.zeros(3), np.ones(3)),
                                                n_features=3, n_samples=4),
                      directions=w3.copy(), precision=np.array([0.5, 0.3, 0.2])),
            np.full((4, 3), 0.5), ()),
        # d >= 256: the directions are checked by the randomized certificate and the noise
        # factor is never formed, so the release reads the directions themselves
        "MVGMechanism (directions, d = 300)": Case(
            mvg, dict(shape=(2, d), epsilon=1.0, delta=1e-5,
                      sensitivity=IdentityQuery(bounds=(0.0, 1.0), n_features=d),
                      directions=w300), np.full((2, d), 0.5), ()),
        "MVGMechanism (dp_directions pair, max-pnr)": Case(
            mvg, dict(shape=(4, 3), epsilon=1.0, delta=1e-5,
                      sensitivity=IdentityQuery(bounds=(0.0, 1.0), n_features=3, n_samples=4),
                      dp_directions=(w3.copy(), _guarantee(0.1, 1e-6)), precision="max-pnr",
                      signal_variances=np.array([3.0, 2.0, 1.0]), gamma=10.0),
            np.full((4, 3), 0.5), ()),
        "MVGMechanism (DPEigenDecomposition)": Case(
            mvg, dict(shape=(4, 3), epsilon=1.0, delta=1e-5, sensitivity=1.0, axis=1, dp_directions=eig,
                      precision="max-pnr"), np.full((4, 3), 0.5), ()),
        "SymmetricNoiseMechanism": Case(
            baselines.SymmetricNoiseMechanism,
            dict(dim=3, kind="laplace", scale=0.5, privacy=_guarantee(), witness=_pair(),
                 entry_mechanism=mechanisms.LaplaceMechanism(epsilon=1.0, sensitivity=1.0)),
            np.eye(3), ()),
        "WishartMechanism": Case(baselines.WishartMechanism,
                                 dict(dim=3, scale=0.2, privacy=_guarantee(), witness=_pair()),
                                 np.zeros((3, 3)), ()),
        "JLSketchMechanism": Case(baselines.JLSketchMechanism,
                                  dict(r=5, privacy=_guarantee(), witness=_pair()),
                                  np.eye(3) + 0.1, ()),
        "PPCAMechanism": Case(baselines.PPCAMechanism,
                              dict(epsilon=1.0, privacy=_guarantee(), witness=_pair()),
                              np.diag([3.0, 1.0, 0.5]), ()),
        "PPCAKMechanism": Case(baselines.PPCAKMechanism,
                               dict(epsilon=1.0, n_components=2, sweeps=2, privacy=_guarantee(),
                                    witness=_pair()), np.diag([3.0, 1.0, 0.5]), ()),
        "DAWAMechanism": Case(baselines.DAWAMechanism, dict(shape=[5, 4], epsilon=1.0),
                              np.arange(20.0).reshape(5, 4), ()),
        "HierarchicalHistogramMechanism": Case(baselines.HierarchicalHistogramMechanism,
                                               dict(shape=[5, 4], epsilon=1.0),
                                               np.full((5, 4), 3.0), ()),
    }


MUTABLE = _mutable_cases()

#: Constructor parameters that only take immutable values (numbers, strings, booleans).
SCALAR_PARAMETERS = {
    "epsilon", "delta", "lam", "kind", "clip", "n_grid", "numerics", "granularity",
    "calibration", "neighbouring", "mode", "axis", "gamma", "pnr_rule", "dim", "allow_unsafe",
    "r", "name", "scale", "support_failure", "n_components", "sweeps", "ratio", "branching",
}
#: Scalar-only in these classes (an array or a query elsewhere: covered by a MUTABLE case there).
SCALAR_IN = {"sensitivity": {"GaussianMechanism", "LaplaceMechanism", "R1SMGMechanism",
                             "ExponentialMechanism", "ClassicGaussianBaseline",
                             "SymmetricNoiseMechanism"}}
#: Mechanisms passed to another mechanism: immutable configuration owning its own arrays
#: (OwnsConfiguration._pass_by_reference), kept by reference.
BY_REFERENCE = {"entry_mechanism"}


def _is_mutable(value) -> bool:
    return not isinstance(value, (type(None), bool, int, float, str, Mechanism))


def _constructor_parameters(cls) -> list[str]:
    import inspect

    return [p for p in inspect.signature(cls.__init__).parameters if p != "self"]


def test_every_array_parameter_is_exercised_by_a_mutation_case():
    """Derived from the signatures: every constructor parameter of every shipped mechanism is
    either scalar-only or passed as a mutable object by some case of MUTABLE (so a new array,
    list, dict or object parameter without a mutation case fails here)."""
    covered = {(c.build.__name__, k) for c in MUTABLE.values()
               for k, v in c.kwargs.items() if _is_mutable(v) or k in BY_REFERENCE}
    missing = []
    for name, case in CASES.items():
        for p in _constructor_parameters(case.build):
            if p in SCALAR_PARAMETERS or name in SCALAR_IN.get(p, ()):
                continue
            if (name, p) not in covered:
                missing.append(f"{name}.{p}")
    assert missing == [], f"array-like parameters without a mutation case: {missing}"


def _scribble(obj, depth=0) -> None:
    """Overwrite, in place, everything reachable in a caller-held argument: array entries,
    list items, a query's attributes (arrays scaled, numbers changed), a dataclass's arrays."""
    import dataclasses

    if depth > 4 or isinstance(obj, Mechanism):
        return
    if isinstance(obj, np.ndarray):
        if obj.flags.writeable:
            obj *= 1e-3
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                obj[i] = 2 * v
            else:
                _scribble(v, depth + 1)
    elif isinstance(obj, (tuple, dict)):
        for v in (obj.values() if isinstance(obj, dict) else obj):
            _scribble(v, depth + 1)
    elif dataclasses.is_dataclass(obj):
        for f in dataclasses.fields(obj):
            _scribble(getattr(obj, f.name), depth + 1)
    elif type(obj).__module__.startswith("matrixdp"):
        for k, v in list(vars(obj).items()):
            if isinstance(v, float):
                setattr(obj, k, 1e3 * v)      # e.g. a query's bounds or radius, reassigned
            elif isinstance(v, np.ndarray):
                setattr(obj, k, 1e3 * v)
            else:
                _scribble(v, depth + 1)


def _arrays(obj, depth=0, seen=None) -> list:
    """Every ndarray reachable from ``obj`` (attributes, containers, dataclass fields)."""
    import dataclasses

    seen = set() if seen is None else seen
    if id(obj) in seen or depth > 4:
        return []
    seen.add(id(obj))
    if isinstance(obj, np.ndarray):
        return [obj]
    if isinstance(obj, dict):
        children = list(obj.values())
    elif isinstance(obj, (list, tuple)):
        children = list(obj)
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        children = [getattr(obj, f.name) for f in dataclasses.fields(obj)]
    elif hasattr(obj, "__dict__") and type(obj).__module__.startswith("matrixdp"):
        children = list(vars(obj).values())
    else:
        return []
    return [a for child in children for a in _arrays(child, depth + 1, seen)]


def _metadata_equal(a: dict, b: dict) -> bool:
    if set(a) != set(b):
        return False
    for k in a:
        x, y = a[k], b[k]
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            if not np.array_equal(np.asarray(x), np.asarray(y)):
                return False
        elif isinstance(x, (int, float, str, bool, type(None))) and x != y:
            return False
    return True


@pytest.mark.parametrize("name", sorted(MUTABLE))
def test_array_arguments_are_owned_not_shared(name):
    """A mechanism keeps its own copy of every array/list/object it was configured with:
    changing the caller's objects after construction (directions, precisions, ranges, a query's
    bounds, a witness, a guarantee's numbers) cannot change the noise the calibration was
    computed for, the guarantee it charges, the metadata it reports or the witnesses it gives
    an auditor. A seeded release after the caller's objects are overwritten equals the release
    of a mechanism built from untouched deep copies."""
    import copy

    case = MUTABLE[name]
    kwargs = copy.deepcopy(case.kwargs)   # the caller's objects (the case's stay untouched)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reference = case.build(**copy.deepcopy(case.kwargs))
        mech = case.build(**kwargs)
    # nothing the mechanism keeps shares memory with what the caller passed (a mechanism passed
    # by reference, e.g. entry_mechanism, is configuration that owns its own arrays)
    passed = _arrays([v for v in kwargs.values() if not isinstance(v, Mechanism)])
    kept = _arrays(mech)
    assert not any(np.shares_memory(a, b) for a in kept for b in passed)
    for v in kwargs.values():
        _scribble(v)                       # the caller's objects, overwritten after construction
    assert mech.privacy == reference.privacy
    got = _release(mech, case.value, rng=11)
    want = _release(reference, case.value, rng=11)
    np.testing.assert_array_equal(got.value, want.value)
    assert got.privacy == want.privacy
    assert _metadata_equal(got.metadata, want.metadata)
    if hasattr(reference, "witnesses"):   # what an auditor is given: from the same configuration
        try:
            want_pairs = reference.witnesses()
        except InvalidParameterError:
            want_pairs = None
        if want_pairs is not None:
            got_pairs = mech.witnesses()
            assert len(got_pairs) == len(want_pairs)
            for (a, b), (c, d) in zip(got_pairs, want_pairs):
                np.testing.assert_array_equal(a, c)
                np.testing.assert_array_equal(b, d)


def test_a_widened_query_does_not_widen_the_release_bounds_check():
    """The consequence that matters for a query: the release's bounds check uses the bounds the
    noise was calibrated for, not the caller's query object as it is at release time."""
    from matrixdp import mechanisms
    from matrixdp.errors import OutOfBoundsError
    from matrixdp.queries import IdentityQuery

    q = IdentityQuery(bounds=(0.0, 1.0), n_features=3, n_samples=4)
    mech = mechanisms.MVGMechanism(shape=(4, 3), epsilon=1.0, delta=1e-5, sensitivity=q)
    with contextlib.suppress(ValueError):  # the caller widens its query after construction
        q.upper[:] = 1e3                   # (in place: refused now, its arrays are read-only)
    q.upper = np.full(3, 1e3)              # (rebinding the attribute)
    with pytest.raises(OutOfBoundsError):
        mech.release(np.full((4, 3), 500.0), rng=0)


@pytest.mark.parametrize("name", sorted(CASES) + [f"mutable: {k}" for k in sorted(MUTABLE)])
def test_arrays_a_mechanism_gives_back_are_read_only(name):
    """What a caller gets back from a mechanism (``mech.precisions``, ``mech.theta``,
    ``mech.feature_ranges``, ...) cannot be written into: a write would reach what the mechanism
    reads later (e.g. MVG's precisions are the ones its witnesses are built with)."""
    import copy
    import pickle

    case = CASES[name] if name in CASES else MUTABLE[name.removeprefix("mutable: ")]
    mech = _build(case)
    for obj in (mech, copy.deepcopy(mech), pickle.loads(pickle.dumps(mech))):
        writable = [k for k, v in vars(obj).items()
                    if isinstance(v, np.ndarray) and v.flags.writeable]
        assert writable == []


def test_big_arrays_are_copied_once_per_construction_and_never_per_release(monkeypatch):
    """The cost of owning: MVG's d x d directions (d = 300, the path where the release reads them)
    are copied once by the constructor seam (the mechanism's own validation does not copy them
    again) and not at all by a release."""
    from matrixdp import _owned, mechanisms
    from matrixdp.queries import IdentityQuery

    copies = []
    real = _owned.owned_array

    def counting(arr, **kw):
        out = real(arr, **kw)
        if out is not arr and out.size >= 1000:
            copies.append(out.shape)
        return out

    monkeypatch.setattr(_owned, "owned_array", counting)
    d = 300
    w = np.linalg.qr(np.random.default_rng(6).standard_normal((d, d)))[0]
    mech = mechanisms.MVGMechanism(shape=(2, d), epsilon=1.0, delta=1e-5, directions=w,
                                   sensitivity=IdentityQuery(bounds=(0.0, 1.0), n_features=d))
    assert copies == [(d, d)]
    assert not np.shares_memory(mech.directions, w) and not mech.directions.flags.writeable
    mech.release(np.full((2, d), 0.5), rng=1)
    assert copies == [(d, d)]


def test_no_shipped_mechanism_accepts_a_changed_configuration():
    # hunt HY: setting epsilon (or the scale) on a built mechanism changed its claim, not its noise
    import matrixdp
    from matrixdp.mechanisms import ExponentialMechanism, MVGMechanism
    for mech in (matrixdp.GaussianMechanism(epsilon=1.0, delta=1e-6, sensitivity=1.0),
                 matrixdp.LaplaceMechanism(epsilon=1.0, sensitivity=1.0),
                 MVGMechanism(shape=(2, 2), epsilon=1.0, delta=1e-6, sensitivity=1.0),
                 ExponentialMechanism(epsilon=1.0)):
        before = mech.privacy
        with pytest.raises(AttributeError, match="cannot be set after construction"):
            mech.epsilon = 0.1
        assert mech.privacy == before
