"""Boundary validation shared by every public function (internal)."""

from __future__ import annotations

import math
from numbers import Real

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


def check_part_epsilon(epsilon: float, delta: float) -> float:
    """The ε of one part of a budget split in Gaussian DP (``gdp_epsilon(μ_part, δ)``), checked.

    A part with a small share of ``μ²`` is (0, δ)-DP already when ``δ`` is large (about 0.2 and
    up for the estimators' splits): its ε at that δ is 0 and no Gaussian mechanism can be
    calibrated from it. That is the caller's ``delta`` being too large, so the error names it
    (instead of an internal ``epsilon ... got 0.0``)."""
    if not epsilon > 0:
        raise InvalidPrivacyParameterError(
            "delta", f"is too large for this estimator, got {delta!r}: its budget is split between "
                     "several releases, and at this delta a part's epsilon would be 0; use a "
                     "delta far below 1/n_samples (e.g. the default 1e-6)")
    return epsilon


def check_positive(value, argument: str, error=InvalidParameterError) -> float:
    """Return ``value`` as float; require a finite value > 0."""
    v = _as_real(value, argument, error)
    if not (math.isfinite(v) and v > 0):
        raise error(argument, f"must be finite and > 0, got {value!r}")
    return v


def check_nonnegative(value, argument: str, error=InvalidParameterError) -> float:
    """Return ``value`` as float; require a finite value >= 0."""
    v = _as_real(value, argument, error)
    if not (math.isfinite(v) and v >= 0):
        raise error(argument, f"must be finite and >= 0, got {value!r}")
    return v


def check_unit_interval(value, argument: str) -> float:
    """Return ``value`` in the closed interval [0, 1] (a share)."""
    v = _as_real(value, argument)
    if not (0 <= v <= 1):
        raise InvalidParameterError(argument, f"must be in [0, 1], got {value!r}")
    return v


def check_sensitivity(value, argument: str = "sensitivity") -> float:
    """Return a sensitivity as float; require a finite value > 0."""
    return check_positive(value, argument, InvalidPrivacyParameterError)


#: Largest noise scale whose variance (2 b² for Laplace, σ² for Gaussian) is finite in float64.
_SCALE_MAX = 0.5 * math.sqrt(np.finfo(np.float64).max)


def check_noise_scale(scale: float, epsilon: float, sensitivity: float) -> float:
    """Return a calibrated noise scale once it is a usable float64: > 0 and with finite variance.

    ``sensitivity / epsilon`` (times a constant) over- or underflows for extreme public inputs:
    a scale of ``0.0`` would add no noise while the guarantee still claimed (ε, δ) (e.g. ε = 1e300
    with sensitivity 1e-300), and a scale whose square overflows gives an infinite variance (or an
    ``OverflowError`` in the noise summary). The error names the argument that is extreme.
    """
    if 0.0 < scale <= _SCALE_MAX:
        return scale
    what = "underflows to 0 (no noise would be added)" if not scale > 0 else \
        "overflows float64 (its variance is infinite)"
    # the more extreme of the two (in orders of magnitude) is named
    sens_orders = math.log10(sensitivity) if not scale > 0 else -math.log10(sensitivity)
    argument = "sensitivity" if -sens_orders >= abs(math.log10(epsilon)) else "epsilon"
    raise InvalidPrivacyParameterError(
        argument, f"the noise scale calibrated from epsilon={epsilon!r} and "
                  f"sensitivity={sensitivity!r} {what}; rescale the query (express it in "
                  "thousands or millionths of its unit) so that sensitivity / epsilon stays "
                  "within about 1e-300 to 1e150")


def check_choice(value, choices, argument: str):
    """Return ``value`` if it is one of ``choices``, else raise :class:`InvalidParameterError`
    ("must be one of ..., got ...", naming ``argument``).

    The one membership check behind every parameter with a fixed set of values (a value that
    cannot be compared with the choices, such as an array, is simply not one of them).
    """
    try:
        ok = bool(value in choices)
    except (TypeError, ValueError):  # e.g. an array: ambiguous truth value
        ok = False
    if not ok:
        raise InvalidParameterError(argument, f"must be one of {choices}, got {value!r}")
    return value


def check_flag(value, argument: str):
    """Return ``value`` if it is ``True`` or ``False`` (a Python or numpy bool), else raise
    :class:`InvalidParameterError` ("must be True or False, got ...", naming ``argument``).

    The one check behind every on/off parameter (no truthiness: ``"yes"`` or ``1`` is refused).
    """
    if not isinstance(value, (bool, np.bool_)):
        raise InvalidParameterError(argument, f"must be True or False, got {value!r}")
    return value


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


def check_box_bounds(lower, upper, d: int, argument: str = "bounds"):
    """The public box of ``d`` features as two new float64 arrays of shape ``(d,)``.

    Each of ``lower`` and ``upper`` is a scalar (the same bound for every feature) or has ``d``
    entries; every bound finite and ``lower <= upper``. Errors name ``argument`` and no value.
    """
    lo = np.asarray(lower, dtype=np.float64)
    hi = np.asarray(upper, dtype=np.float64)
    if any(b.ndim != 0 and b.shape != (d,) for b in (lo, hi)):
        raise InvalidShapeError(argument, f"lower and upper must be scalars or have {d} entries "
                                          f"(one per feature), got shapes {lo.shape} and "
                                          f"{hi.shape}")
    lo = np.full(d, float(lo)) if lo.ndim == 0 else lo.copy()
    hi = np.full(d, float(hi)) if hi.ndim == 0 else hi.copy()
    if not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))):
        raise InvalidParameterError(argument, "public bounds must be finite")
    if np.any(lo > hi):
        raise InvalidParameterError(argument, "every lower bound must be <= its upper bound")
    return lo, hi


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


def check_atoms(values, lo: float, hi: float, *, integer: bool, column, argument: str) -> tuple:
    """The PUBLIC atoms (point masses) of one numeric column, validated; sorted floats.

    The one validation of atoms, called by :class:`~matrixdp.synth.TableSchema` (``argument``
    ``"atoms"``) and by the bounds-file parser of the command line (``"--bounds"``, which must
    validate on its own: ``matrixdp release`` reads the file without building a schema). Every
    message names the caller's ``argument`` and the ``column`` and shows only the declared
    (public) values: a list of numbers, each finite and inside the public range [lo, hi], an
    integer on an integer column, no duplicates (``docs/copula.md``, "Public atoms").

    Parameters
    ----------
    values : sequence of numbers
    lo, hi : float
        The column's public range.
    integer : bool
        Whether the column is an integer column.
    column : str
        The column's name (for the messages).
    argument : str
        The caller's argument, as the user spelled it (for the messages).

    Returns
    -------
    tuple of float
        The atoms, sorted (empty for an empty list).

    References
    ----------
    .. [1] docs/copula.md, "Public atoms".
    """
    where = f"column {column!r}"
    if isinstance(values, (str, bytes, dict)) or not hasattr(values, "__iter__"):
        raise InvalidParameterError(argument, f"{where}: atoms must be a list of numbers (e.g. "
                                              f"[0]), got {values!r}")
    out = []
    for v in values:
        if isinstance(v, bool) or not isinstance(v, (Real, np.integer, np.floating)):
            raise InvalidParameterError(argument, f"{where}: atom {v!r} must be a number")
        out.append(float(v))
    for v in out:
        if not (math.isfinite(v) and lo <= v <= hi):
            raise InvalidParameterError(argument, f"{where}: atom {v:g} is outside its public "
                                                  f"range [{lo:g}, {hi:g}]")
        if integer and not v.is_integer():
            raise InvalidParameterError(argument, f"{where}: atom {v:g} is not an integer (the "
                                                  "column is an integer column)")
    if len(set(out)) != len(out):
        raise InvalidParameterError(argument, f"{where}: duplicate atoms")
    return tuple(sorted(out))


def category_spelling_hint(categories) -> str:
    """The end of the message refusing a categorical column's unlisted values, from the PUBLIC
    category list only (never from the data): labels match as written, and a list of integer
    codes given as text does not match a file that writes them with a decimal point (``1.0``: what
    pandas and other tools write for a code column with empty cells)."""
    cats = list(categories)
    hint = "; labels are matched exactly as written (spelling and case)"
    if cats and all(isinstance(c, str) and c.strip().lstrip("-").isdigit() for c in cats):
        listed = ", ".join(str(int(c)) for c in cats)
        hint += (f"; codes listed as text do not match codes the file writes with a decimal point "
                 f"(1.0): list them as numbers, categories = [{listed}]")
    return hint


def check_square_matrix(value, argument: str = "value") -> np.ndarray:
    """Return ``value`` as a finite square 2-D float array, or raise naming ``argument``."""
    arr = check_finite_array(value, argument, ndim=2)
    if arr.shape[0] != arr.shape[1]:
        raise InvalidShapeError(argument, f"must be square, got {arr.shape}")
    return arr


def min_records(relation) -> int:
    """The fewest records a table may hold under ``relation``: 1 under replace-one (the row
    count is public there, so refusing an empty table reveals nothing), 0 under add-remove.

    Under add/remove a table of 0 rows and one of 1 row are neighbours and the row count is
    private: a refusal on the empty table would tell the two apart with certainty, so the fit
    releases it like any other table (every sum is 0; the release is noise only, charged as
    usual). The single place every estimator and generator reads this rule from
    (docs/security.md, "Empty tables").
    """
    return 0 if relation == "add-remove" else 1


def check_n_records(n, relation, argument: str = "X",
                    message: str = "needs at least 1 sample(s)") -> int:
    """Refuse a table with fewer rows than :func:`min_records` allows (replace-one: an empty
    table; add-remove: never). The message names no count."""
    if n < min_records(relation):
        raise InvalidShapeError(argument, message)
    return n
