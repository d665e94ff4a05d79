"""Worst-case neighbouring pairs ("witnesses") for auditing without user-invented inputs."""

from __future__ import annotations

import numpy as np

from ..errors import InvalidParameterError

__all__ = ["default_witnesses", "sensitivity_witness"]


def sensitivity_witness(sensitivity: float, shape) -> tuple[np.ndarray, np.ndarray]:
    """The pair ``(0, sensitivity·e₁)`` of ``shape``: at L1 *and* L2 distance ``sensitivity``.

    For i.i.d. noise and for rotation-invariant noise every pair at the full
    sensitivity is equally bad; for Laplace (L1) a shift along one coordinate is
    the worst case.
    """
    shape = (int(shape),) if np.ndim(shape) == 0 else tuple(int(k) for k in shape)
    value = np.zeros(shape)
    value_prime = np.zeros(shape)
    value_prime.flat[0] = float(sensitivity)
    return value, value_prime


def default_witnesses(mechanism, *, query=None, shape=None) -> list[tuple[np.ndarray, np.ndarray]]:
    """Worst-case neighbouring value pairs to audit ``mechanism`` on.

    Parameters
    ----------
    mechanism : object
    query : object, optional
        A query with ``witnesses()`` (pairs of its answers on neighbouring
        datasets, e.g. records at opposite corners of their box); used when given.
        Otherwise the mechanism's own ``witnesses()`` are used, then its ``query``
        attribute, then its plain ``sensitivity``. When the
        mechanism has ``row_cov`` and ``col_cov`` they are passed on, so that the
        query can add the pair attaining the largest Mahalanobis shift for that noise.
    shape : tuple, optional
        Value shape for a plain-sensitivity mechanism (default ``(dim,)`` when the
        mechanism has ``dim``, else ``(3,)``).

    Returns
    -------
    list of (value, value_prime)
    """
    own = getattr(mechanism, "witnesses", None)
    if query is None and callable(own):
        pairs = [(np.asarray(a, dtype=float), np.asarray(b, dtype=float)) for a, b in own()]
        if pairs:
            return pairs
    if query is None:
        query = getattr(mechanism, "query", None)
        if query is not None and not callable(getattr(query, "witnesses", None)):
            query = None
    if query is not None:
        pairs = [(np.asarray(a, dtype=float), np.asarray(b, dtype=float))
                 for a, b in _query_witnesses(query, mechanism)]
        if not pairs:
            raise InvalidParameterError("query", "gave no witness pairs")
        return pairs
    sensitivity = getattr(mechanism, "sensitivity", None)
    if sensitivity is None:
        raise InvalidParameterError(
            "query", f"{type(mechanism).__name__} has no plain sensitivity; pass a query "
                     "with witnesses() or explicit values")
    if shape is None:
        dim = getattr(mechanism, "dim", None)
        shape = (int(dim),) if dim is not None else (3,)
    return [sensitivity_witness(sensitivity, shape)]


def _query_witnesses(query, mechanism):
    row_cov = getattr(mechanism, "row_cov", None)
    col_cov = getattr(mechanism, "col_cov", None)
    if row_cov is not None or col_cov is not None:
        try:
            return list(query.witnesses(row_cov=row_cov, col_cov=col_cov))
        except TypeError:  # a query whose witnesses() takes no covariances
            pass
    return list(query.witnesses())
