"""Every query owns its public configuration: a caller's bounds, center or shape cannot change
the sensitivity it was built with, the bounds its checks use or the witnesses it gives.

For each shipped :class:`SensitivityStructure` subclass (found by walking the subclasses after
importing every module of the package, so a new query without a case fails the first test), a
case passes every non-scalar constructor argument as an object the caller keeps; the caller
then overwrites them in place, and every public answer of the query (sensitivity, gamma, shape,
direction costs, shift bound, witnesses, ``compute``, ``check_value``) must equal that of a query
built from untouched copies; nothing the query keeps shares memory with the caller's arrays, and
the arrays it keeps (what a caller gets back) are read-only.
"""

from __future__ import annotations

import copy
import importlib
import inspect
import pkgutil

import numpy as np
import pytest

import matrixdp
from matrixdp.calibration.mvg_exact import AxisPrecision
from matrixdp.errors import MatrixDPError
from matrixdp.queries.base import SensitivityStructure

#: Abstract or internal bases with no constructor of their own to exercise.
ABSTRACT = {"_RecordQuery"}

#: Constructor parameters that only take immutable values (numbers, strings, booleans) or code.
SCALAR_PARAMETERS = {"s2", "gamma", "symmetric", "psd", "kernel_bound", "n_samples", "n_features",
                     "radius", "clip", "sensitivity_bound", "squares", "neighbouring",
                     "count_scale", "kernel"}


def _kernel(x):
    return np.clip(x @ x.T, -1.0, 1.0)


def _cases():
    from matrixdp.models._moments import SumOfOuterProducts
    from matrixdp.models.mean import _MomentVectorQuery
    from matrixdp.queries import CovarianceQuery, FrobeniusBall, IdentityQuery, KernelQuery

    x = np.array([[0.2, 0.5, 0.9], [0.1, 0.4, 0.3], [0.8, 0.7, 0.6], [0.5, 0.5, 0.5]])
    return {
        "FrobeniusBall": (FrobeniusBall, (1.0,), dict(shape=[3, 3], gamma=4.0), None),
        "IdentityQuery": (IdentityQuery, ([np.zeros(3), np.ones(3)],),
                          dict(n_samples=4, n_features=3), x),
        "CovarianceQuery": (CovarianceQuery, ((np.zeros(3), np.ones(3)),),
                            dict(n_samples=4, center=np.full(3, 0.5)), x),
        "KernelQuery": (KernelQuery, (_kernel,), dict(kernel_bound=1.0, n_samples=4), x),
        "_MomentVectorQuery": (_MomentVectorQuery, (np.zeros(3), np.ones(3), 4, True), {}, None),
        "SumOfOuterProducts": (SumOfOuterProducts, (np.zeros(3), np.ones(3)), {}, x),
    }


CASES = _cases()


def _shipped_subclasses() -> dict[str, type]:
    for info in pkgutil.walk_packages(matrixdp.__path__, "matrixdp."):
        if info.name.endswith("__main__"):
            continue
        importlib.import_module(info.name)
    found, todo = {}, [SensitivityStructure]
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            if sub.__module__.startswith("matrixdp.") and sub.__name__ not in found:
                found[sub.__name__] = sub
                todo.append(sub)
    return {k: v for k, v in found.items() if k not in ABSTRACT}


def _is_mutable(value) -> bool:
    return not (value is None or callable(value)
                or isinstance(value, (bool, int, float, str)))


def test_every_query_and_every_array_parameter_has_a_case():
    shipped = _shipped_subclasses()
    assert set(shipped) == set(CASES)
    missing = []
    for name, (cls, args, kwargs, _) in CASES.items():
        bound = inspect.signature(cls.__init__).bind(None, *args, **kwargs).arguments
        for p in inspect.signature(cls.__init__).parameters:
            if p == "self" or p in SCALAR_PARAMETERS:
                continue
            if not _is_mutable(bound.get(p)):
                missing.append(f"{name}.{p}")
    assert missing == [], f"array-like query parameters without a mutable value: {missing}"


def _scribble(obj) -> None:
    if isinstance(obj, np.ndarray):
        if obj.flags.writeable:
            obj *= 1e-3
            obj -= 5.0
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                obj[i] = 2 * v
            else:
                _scribble(v)
    elif isinstance(obj, tuple):
        for v in obj:
            _scribble(v)


def _arrays(obj) -> list:
    if isinstance(obj, np.ndarray):
        return [obj]
    if isinstance(obj, (list, tuple)):
        return [a for v in obj for a in _arrays(v)]
    return []


def _answers(q, x):
    """Every public answer of ``q`` as comparable values (an error counts as an answer)."""
    def attempt(f):
        try:
            out = f()
        except (MatrixDPError, NotImplementedError) as exc:
            return ("error", type(exc).__name__)
        return out

    d = q.shape[getattr(q, "feature_axis", 0)]
    other = q.shape[1 - getattr(q, "feature_axis", 0)]
    p = np.linspace(1.0, 2.0, d)
    ap = AxisPrecision(p)
    eye = AxisPrecision.identity(other) if other is not None else AxisPrecision.identity(1)
    row, col = (ap, eye) if getattr(q, "feature_axis", 0) == 0 else (eye, ap)
    if q.symmetric:
        row = col = ap
    out = {
        "sensitivity_l2": attempt(lambda: q.sensitivity_l2),
        "gamma": attempt(lambda: q.gamma),
        "shape": tuple(q.shape),
        "shift_bound": attempt(lambda: q.shift_bound(row, col).value_sq),
        "direction_costs": attempt(lambda: np.asarray(
            q.direction_costs(axis=getattr(q, "feature_axis", 0), shape=q.shape).costs)),
        "witnesses": attempt(lambda: [np.concatenate([np.ravel(a), np.ravel(b)])
                                      for a, b in q.witnesses()]),
    }
    if x is not None:
        out["compute"] = attempt(lambda: q.compute(x))
        value = attempt(lambda: q.compute(x))
        if not isinstance(value, tuple):
            out["check_value"] = attempt(lambda: q.check_value(value + 2.0))
    return out


def _equal(a, b) -> bool:
    if isinstance(a, dict):
        return set(a) == set(b) and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(np.asarray(a), np.asarray(b))
    return a == b


@pytest.mark.parametrize("name", sorted(CASES))
def test_query_configuration_is_owned_not_shared(name):
    cls, args, kwargs, x = CASES[name]
    reference = cls(*copy.deepcopy(args), **copy.deepcopy(kwargs))
    q = cls(*args, **kwargs)
    passed = [a for v in (*args, *kwargs.values()) for a in _arrays(v)]
    kept = _arrays(tuple(vars(q).values()))
    assert not any(np.shares_memory(a, b) for a in kept for b in passed)
    for v in (*args, *kwargs.values()):
        _scribble(v)                     # the caller's objects, overwritten after construction
    assert _equal(_answers(q, x), _answers(reference, x))
    # what the caller gets back (q.lower, q.center, ...) cannot be written into
    for obj in (q, copy.deepcopy(q)):
        assert [k for k, v in vars(obj).items()
                if isinstance(v, np.ndarray) and v.flags.writeable] == []
