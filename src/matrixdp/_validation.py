"""Boundary validation shared by every public function (internal)."""

from __future__ import annotations

import copy
import dataclasses
import enum
import functools
import math
import weakref
from numbers import Real
from types import MappingProxyType

import numpy as np

from .errors import (
    InvalidParameterError,
    InvalidPrivacyParameterError,
    InvalidShapeError,
    NonFiniteInputError,
    OutOfBoundsError,
)


def _as_real(value, argument: str, error=InvalidParameterError) -> float:
    if isinstance(value, bool) or not isinstance(value, (Real, np.integer, np.floating)):
        raise error(argument, f"must be a real number, got {value!r}")
    return float(value)


def check_epsilon(epsilon, argument: str = "epsilon", *, upper: float | None = None) -> float:
    """Return ``epsilon`` as float; require 0 < epsilon < inf (and < ``upper`` if given)."""
    eps = _as_real(epsilon, argument, InvalidPrivacyParameterError)
    if not (math.isfinite(eps) and eps > 0):
        raise InvalidPrivacyParameterError(argument, f"must be finite and > 0, got {epsilon!r}")
    if upper is not None and not eps < upper:
        raise InvalidPrivacyParameterError(argument, f"must be in (0, {upper}), got {epsilon!r}")
    return eps


def check_nonnegative_epsilon(epsilon, argument: str = "epsilon") -> float:
    """Return ``epsilon`` as float; require 0 <= epsilon < inf (a privacy profile's argument)."""
    if not isinstance(epsilon, bool) and isinstance(epsilon, (Real, np.integer, np.floating)) \
            and epsilon == 0:
        return 0.0
    try:
        return check_epsilon(epsilon, argument)
    except InvalidPrivacyParameterError:
        raise InvalidPrivacyParameterError(
            argument, f"must be finite and >= 0, got {epsilon!r}") from None


def check_delta(delta, argument: str = "delta", *, allow_zero: bool = False) -> float:
    """Return ``delta`` as float; require 0 < delta < 1 (or 0 <= delta if ``allow_zero``)."""
    d = _as_real(delta, argument, InvalidPrivacyParameterError)
    low_ok = d >= 0 if allow_zero else d > 0
    if not (math.isfinite(d) and low_ok and d < 1):
        rng = "[0, 1)" if allow_zero else "(0, 1)"
        raise InvalidPrivacyParameterError(argument, f"must be in {rng}, got {delta!r}")
    return d


def check_positive(value, argument: str, error=InvalidParameterError) -> float:
    """Return ``value`` as float; require a finite value > 0."""
    v = _as_real(value, argument, error)
    if not (math.isfinite(v) and v > 0):
        raise error(argument, f"must be finite and > 0, got {value!r}")
    return v


def check_sensitivity(value, argument: str = "sensitivity") -> float:
    """Return a sensitivity as float; require a finite value > 0."""
    return check_positive(value, argument, InvalidPrivacyParameterError)


def check_probability(value, argument: str) -> float:
    """Return ``value`` in the open interval (0, 1)."""
    v = _as_real(value, argument)
    if not (0 < v < 1):
        raise InvalidParameterError(argument, f"must be in (0, 1), got {value!r}")
    return v


def check_finite_array(value, argument: str = "value", *, ndim: int | None = None,
                       shape: tuple | None = None, dtype=np.float64,
                       finite: bool = True) -> np.ndarray:
    """Convert ``value`` to a numeric ndarray and reject NaN/inf and wrong shapes.

    ``finite=False`` skips the NaN/inf pass: only for a caller that checks finiteness itself in
    a pass that already reads every entry, before anything is charged or released (RON-Gauss's
    blocked pass, :func:`~matrixdp.synth.preprocessing.unit_row_pass`), raising
    :func:`non_finite_error`.
    """
    try:
        arr = np.asarray(value)
    except Exception as exc:  # pragma: no cover - numpy raises many types
        raise InvalidParameterError(argument, f"cannot be converted to an array: {exc}") from exc
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
        raise InvalidParameterError(argument, f"must be numeric, got dtype {arr.dtype}")
    if np.iscomplexobj(arr):
        raise InvalidParameterError(argument, "must be real-valued, got complex values")
    if dtype is not None:
        arr = arr.astype(dtype, copy=False)
    if ndim is not None and arr.ndim != ndim:
        raise InvalidShapeError(argument, f"must have {ndim} dimension(s), got {arr.ndim}")
    if shape is not None and arr.shape != tuple(shape):
        raise InvalidShapeError(argument, f"must have shape {tuple(shape)}, got {arr.shape}")
    if finite and not np.isfinite(arr).all():
        raise non_finite_error(argument)
    return arr


#: The arrays :func:`owned_array` made (by id, weakly): owning one again is free, so an array
#: copied by the constructor seam is not copied a second time by the class's own validation.
_OWNED: "weakref.WeakValueDictionary[int, np.ndarray]" = weakref.WeakValueDictionary()


def owned_array(arr, *, fresh: bool = False) -> np.ndarray:
    """A read-only copy of ``arr`` that the library owns.

    A mechanism's calibration is computed from its public configuration (directions, ranges)
    once, at construction; a release that read the caller's array could then draw noise for a
    configuration other than the one the guarantee was computed for (the caller's array changed
    after construction). Every array argument of a :class:`OwnsConfiguration` constructor goes
    through this function (``tests/mechanisms/test_contract.py``: the caller's arrays are
    overwritten after construction and the seeded release must not change). An array this
    function already made (or that an :class:`OwnsConfiguration` object froze) is returned as
    it is (no second copy), unless ``fresh``.
    """
    if not fresh and isinstance(arr, np.ndarray) and _OWNED.get(id(arr)) is arr:
        return arr
    out = np.array(arr, copy=True, order="K")
    out.setflags(write=False)
    _OWNED[id(out)] = out
    return out


_IMMUTABLE = (type(None), bool, int, float, complex, str, bytes, enum.Enum, np.generic, type,
              range, frozenset)


def owned(value):
    """``value`` as configuration the library owns: copied on the way in, or immutable.

    - an ndarray (or anything with ``__array__``: a pandas object, a list-like buffer) becomes a
      read-only copy (:func:`owned_array`);
    - a list or tuple becomes a tuple of owned items, a dict a new dict of owned values (not a
      ``MappingProxyType``, which cannot be pickled);
    - a dataclass is rebuilt from owned fields (a frozen one then cannot change at all);
    - an :class:`OwnsConfiguration` object is kept when its class passes by reference (a
      mechanism: immutable configuration that owns its own arrays) and otherwise copied with
      owned attributes (a query: public attributes a caller may rebind; its arrays are copied);
    - scalars, strings, enums, callables and budget keepers (handles by design) are kept.
    """
    if isinstance(value, _IMMUTABLE):
        return value
    if isinstance(value, np.ndarray):
        return owned_array(value)
    if type(value) in (list, tuple):
        return tuple(owned(v) for v in value)
    if isinstance(value, (dict, MappingProxyType)):
        # a plain dict copy, not a MappingProxyType: a mechanism must stay picklable
        return {k: owned(v) for k, v in value.items()}
    if isinstance(value, OwnsConfiguration):
        if type(value)._pass_by_reference:
            return value
        # a new object whose attributes are owned: a caller's later rebinding of an attribute
        # does not reach it, its arrays (small: bounds, a center) are fresh read-only copies
        # (the caller's query keeps its own), callables are kept
        out = copy.copy(value)
        for k, v in vars(out).items():
            out.__dict__[k] = owned_array(v, fresh=True) if isinstance(v, np.ndarray) \
                else owned(v)
        return out
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.replace(value, **{f.name: owned(getattr(value, f.name))
                                             for f in dataclasses.fields(value) if f.init})
    if hasattr(value, "__array__") and not callable(value) \
            and not hasattr(value, "__dask_graph__"):   # never compute a lazy collection here
        return owned_array(np.asarray(value))
    return value


class OwnsConfiguration:
    """Mixin: every argument of the constructor is copied on the way in (:func:`owned`).

    The one seam for "configuration is not shared with the caller": a subclass's ``__init__``
    receives read-only copies of the caller's arrays (tuples for lists, a new dict for a dict,
    a copy of a query with owned attributes), so nothing it keeps and reads again later (at a
    release, a bounds check, a witness) can be changed by the caller afterwards. The copy is taken once
    per construction, never per release; a subclass's ``super().__init__`` does not copy again.
    See ``docs/security.md`` ("Configuration is copied on the way in").
    """

    #: ``True``: an instance passed to another constructor is kept as it is (it owns its own
    #: configuration and the library never changes it); ``False``: it is copied with owned
    #: attributes (:func:`owned`).
    _pass_by_reference = True

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        init = cls.__dict__.get("__init__")
        if init is None or getattr(init, "_owns_configuration", False):
            return

        @functools.wraps(init)
        def __init__(self, *args, **kw):
            state = self.__dict__
            if state.get("_owning_configuration"):  # an outer constructor already copied
                return init(self, *args, **kw)
            state["_owning_configuration"] = True
            try:
                init(self, *(owned(a) for a in args), **{k: owned(v) for k, v in kw.items()})
            finally:
                state.pop("_owning_configuration", None)
            _freeze(state)

        __init__._owns_configuration = True
        cls.__init__ = __init__

    def __setstate__(self, state):
        # an unpickled or deep-copied object: its arrays are fresh (writable) copies
        self.__dict__.update(state)
        _freeze(self.__dict__)


def _freeze(state: dict) -> None:
    """What a caller gets back (``mech.precisions``, ``mech.theta``, ...) cannot be written
    either: the arrays an object keeps as attributes are made read-only (no copy)."""
    for value in state.values():
        if isinstance(value, np.ndarray):
            value.setflags(write=False)
            _OWNED[id(value)] = value   # the object's own: passing it on is free


def non_finite_error(argument: str) -> NonFiniteInputError:
    """The error for NaN/inf entries (which entries, and how many, stay with the data)."""
    return NonFiniteInputError(argument, "contains NaN or infinite entries; clean or impute "
                                         "them before a private release")


def check_row_norms(arr: np.ndarray, bound: float, argument: str = "X", *,
                    bound_name: str = "row_norm_bound", clip: bool = False) -> np.ndarray:
    """Return ``arr`` once every row's L2 norm is at most the public ``bound``.

    Rows above it raise :class:`OutOfBoundsError`, or, with ``clip=True``, are rescaled onto
    the ball (a documented projection; rows inside are untouched). A relative slack of 1e-12
    absorbs rounding in rows that were normalised to the bound.
    """
    norms = np.linalg.norm(arr, axis=1)
    over = norms > bound * (1 + 1e-12)
    if over.any():
        if not clip:
            raise OutOfBoundsError(
                argument, f"has rows with L2 norm above the public {bound_name}={bound:g}; "
                          "rescale them (or pass clip=True where supported) or raise the bound "
                          "from domain knowledge - bounds must never be read from the private "
                          "data")
        arr = arr * np.minimum(1.0, bound / np.where(norms > 0, norms, 1.0))[:, None]
    return arr


def check_in_bounds(arr: np.ndarray, lower, upper, argument: str = "X") -> None:
    """Raise :class:`OutOfBoundsError` if any entry of ``arr`` lies outside [lower, upper].

    ``lower`` and ``upper`` broadcast against ``arr`` (e.g. per-feature bounds on the last axis).
    """
    below = arr < lower
    above = arr > upper
    if below.any() or above.any():
        # how many entries, and which, stays with the data: the message may reach a log
        raise OutOfBoundsError(
            argument,
            "has entries outside the declared public bounds; clip the data to the bounds first "
            "(or pass clip=True where supported) or widen the bounds from domain knowledge - "
            "bounds must never be read from the private data")


def check_square_matrix(value, argument: str = "value") -> np.ndarray:
    """Return ``value`` as a finite square 2-D float array, or raise naming ``argument``."""
    arr = check_finite_array(value, argument, ndim=2)
    if arr.shape[0] != arr.shape[1]:
        raise InvalidShapeError(argument, f"must be square, got {arr.shape}")
    return arr
