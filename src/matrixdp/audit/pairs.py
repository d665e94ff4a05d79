"""Is an audit pair neighbouring? Check two query answers against a mechanism's declared sensitivity.

A DP claim only speaks about neighbouring inputs: for answers further apart than the declared
sensitivity, an (ε, δ)-DP mechanism may legitimately be distinguished far better than ε allows,
and an audit on such a pair would accuse a correct mechanism. :func:`check_pair` says whether a
pair is within what a mechanism (and, optionally, a query) declares; :func:`audit_mechanism
<matrixdp.audit.audit_mechanism>` refuses a pair that is not.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["PairCheck", "check_pair"]

#: Relative slack for floating-point rounding of the pair's distance.
_RTOL = 1e-9


@dataclass(frozen=True)
class PairCheck:
    """The verdict of :func:`check_pair`.

    Attributes
    ----------
    checked : bool
        False when neither the mechanism nor the query declares a sensitivity that the pair can
        be compared with (the audit then assumes the caller's pair is neighbouring).
    neighbouring : bool
        Whether the pair is within the declared sensitivity (True when not checked).
    norm : str
        The distance used ("l1", "l2", "frobenius", "box"...).
    distance, bound : float
        The pair's distance and the declared sensitivity (NaN when not checked).
    reason : str
        What is wrong, in words (empty when neighbouring).
    """

    checked: bool
    neighbouring: bool
    norm: str = ""
    distance: float = float("nan")
    bound: float = float("nan")
    reason: str = ""


def _within(norm: str, distance: float, bound: float, what: str) -> PairCheck:
    ok = distance <= bound * (1 + _RTOL) + 1e-300
    reason = "" if ok else (
        f"the pair is {distance:.6g} apart in {norm}, more than the {what} {bound:.6g}: it is not "
        "a neighbouring pair, so no DP claim speaks about it")
    return PairCheck(True, ok, norm, float(distance), float(bound), reason)


def _norms(diff: np.ndarray) -> dict:
    flat = diff.ravel()
    return {"l1": float(np.abs(flat).sum()), "l2": float(np.sqrt(flat @ flat))}


def _mechanism_check(mechanism, a: np.ndarray, b: np.ndarray) -> PairCheck | None:
    from ..mechanisms import GaussianMechanism, LaplaceMechanism, R1SMGMechanism

    diff = b - a
    own = getattr(mechanism, "check_neighbouring_pair", None)
    if callable(own):  # a mechanism that knows its relation best says so itself
        return own(a, b)
    if isinstance(mechanism, LaplaceMechanism):
        return _within("l1", _norms(diff)["l1"], mechanism.sensitivity, "declared L1 sensitivity")
    if isinstance(mechanism, (GaussianMechanism, R1SMGMechanism)):
        return _within("l2", _norms(diff)["l2"], mechanism.sensitivity, "declared L2 sensitivity")
    ranges = getattr(mechanism, "feature_ranges", None)
    if getattr(getattr(mechanism, "privacy", None), "neighbouring", None) == "local" and ranges is not None:
        return _local_box_check(np.asarray(ranges, dtype=float), a, b)
    query = getattr(mechanism, "query", None)
    if getattr(mechanism, "mahalanobis_sensitivity", None) is not None and a.ndim == 2:
        verdict = _mahalanobis_check(mechanism, diff)
        if verdict is not None and (not verdict.neighbouring or query is None):
            return verdict
    if query is not None:
        return _query_check(query, a, b)
    norm = getattr(mechanism, "sensitivity_norm", None)
    sensitivity = getattr(mechanism, "sensitivity", None)
    if norm in ("l1", "l2") and isinstance(sensitivity, (int, float)):
        return _within(norm, _norms(diff)[norm], float(sensitivity), f"declared {norm.upper()} sensitivity")
    return None


def _mahalanobis_check(mechanism, diff: np.ndarray) -> PairCheck | None:
    """Matrix-variate Gaussian noise N(0, Σ, Ψ): the privacy loss of a shift D depends only on
    ‖Σ^{-1/2} D Ψ^{-1/2}‖_F, which must not exceed the mechanism's Mahalanobis sensitivity."""
    try:
        row, col = np.asarray(mechanism.row_cov, dtype=float), np.asarray(mechanism.col_cov, dtype=float)
    except AttributeError:
        return None
    if row.shape != (diff.shape[0],) * 2 or col.shape != (diff.shape[1],) * 2:
        return None
    distance = float(np.sqrt(max(np.trace(np.linalg.solve(col, diff.T) @ np.linalg.solve(row, diff)),
                                 0.0)))
    return _within("mahalanobis", distance, float(mechanism.mahalanobis_sensitivity),
                   "declared Mahalanobis sensitivity")


def _local_box_check(ranges: np.ndarray, a: np.ndarray, b: np.ndarray) -> PairCheck:
    """Local DP: every record of either value lies in the public box; the values differ in one record."""
    p = ranges.shape[0]
    if a.size % p:
        return PairCheck(True, False, "box", reason=f"values must consist of records of {p} features")
    ra, rb = a.reshape(-1, p), b.reshape(-1, p)
    low, high = ranges[:, 0], ranges[:, 1]
    inside = all(bool(np.all((r >= low) & (r <= high))) for r in (ra, rb))
    differing = int(np.count_nonzero(np.any(ra != rb, axis=1)))
    if not inside:
        return PairCheck(True, False, "box", reason="a record of the pair lies outside the public "
                                                   "feature_ranges, so no local-DP claim covers it")
    if differing > 1:
        return PairCheck(True, False, "box", float(differing), 1.0,
                         f"the pair differs in {differing} records; a local-DP claim covers one")
    return PairCheck(True, True, "box", float(differing), 1.0)


def _query_check(query, a: np.ndarray, b: np.ndarray) -> PairCheck | None:
    for value, name in ((a, "value"), (b, "value_prime")):
        check_value = getattr(query, "check_value", None)
        if callable(check_value):
            try:
                check_value(value)
            except Exception as exc:  # noqa: BLE001 - any refusal means "not an answer of the query"
                return PairCheck(True, False, "query",
                                 reason=f"{name} is not a possible answer of the query ({exc})")
    bound = getattr(query, "sensitivity_l2", None)
    if bound is None:
        return None
    # Necessary (not sufficient) for structured queries: their difference sets lie in this ball.
    return _within("frobenius", _norms(b - a)["l2"], float(bound), "query's L2 (Frobenius) sensitivity")


def check_pair(mechanism, value, value_prime, query=None) -> PairCheck:
    """Whether ``(value, value_prime)`` is a neighbouring pair for ``mechanism`` (and ``query``).

    Parameters
    ----------
    mechanism : object
        A matrixdp mechanism (Laplace: L1 distance against ``sensitivity``; Gaussian and R1SMG:
        L2; matrix-variate Gaussian: the Mahalanobis norm of the difference under its row and
        column covariances against ``mahalanobis_sensitivity``; mechanisms built on a query: the
        query's checks; local-DP record mechanisms: both
        records in the public ``feature_ranges``), or any object with a
        ``check_neighbouring_pair(a, b) -> PairCheck`` method or with ``sensitivity`` and
        ``sensitivity_norm`` ("l1" or "l2") attributes.
    value, value_prime : array_like
        The two query answers of the audit (public witnesses, not private data).
    query : object, optional
        A query whose answers the values are: each must pass ``query.check_value`` and the
        pair must lie within ``query.sensitivity_l2`` (a necessary condition for structured
        difference sets).

    Returns
    -------
    PairCheck
    """
    a = np.asarray(value, dtype=float)
    b = np.asarray(value_prime, dtype=float)
    verdicts = [v for v in (_mechanism_check(mechanism, a, b),
                            None if query is None else _query_check(query, a, b)) if v is not None]
    for verdict in verdicts:
        if not verdict.neighbouring:
            return verdict
    return verdicts[0] if verdicts else PairCheck(False, True)
