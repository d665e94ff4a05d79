"""Configuration is copied on the way in: the one seam that keeps a caller's objects out of a
mechanism's calibration.

A mechanism (or query) computes its guarantee from its public configuration once, at
construction; if it kept a reference to a caller's array, a later change to that array could
change the noise without changing the guarantee. :class:`OwnsConfiguration` wraps every
subclass's constructor so each argument arrives as an owned, read-only copy (:func:`owned`), and
freezes the arrays the object keeps. See ``docs/security.md`` ("Configuration is copied on the way
in") and the generic tests in ``tests/mechanisms/test_contract.py``, ``tests/queries/test_owned.py``.
"""

from __future__ import annotations

import copy
import dataclasses
import enum
import functools
import weakref
from types import MappingProxyType

import numpy as np

__all__ = ["OwnsConfiguration", "owned", "owned_array"]


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
            state["_configured"] = True   # construction done: see Mechanism.__setattr__

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
