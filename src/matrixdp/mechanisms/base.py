"""The objects every mechanism shares: :class:`PrivacyGuarantee`, :class:`NoiseSummary`,
:class:`Release` and the :class:`Mechanism` base class.
"""

from __future__ import annotations

import abc
import math
import warnings
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any

import numpy as np

from .._budget import charge, default_keepers
from .._owned import OwnsConfiguration
from .._validation import check_finite_array
from ..errors import InvalidParameterError, RefutedGuaranteeWarning
from ..rng import make_rng, secure_stream

_FLOAT64 = np.dtype(np.float64)
#: Largest value (entries) whose finiteness check is a BLAS dot; above it, ``np.einsum`` (one
#: thread: a long BLAS dot wakes the BLAS thread pool).
_DOT_MAX = 32_768

_FLOAT_NOTE = ("numerics: float — the guarantee assumes idealised real arithmetic; the bit-level "
               "artefacts of floating-point sampling and rounding (Mironov 2012) are not covered "
               "(use numerics='exact' where offered)")

__all__ = ["Relation", "PrivacyGuarantee", "NoiseSummary", "Release", "Mechanism",
           "check_neighbouring", "noise_half_width"]


class Relation(str, Enum):
    """The neighbouring relations matrixdp knows.

    ``REPLACE_ONE`` (bounded DP, one record replaced by another; the papers'
    convention) is the default; ``ADD_REMOVE`` (unbounded DP, one record added or
    removed); ``LOCAL`` (per-record local DP). Members are strings, so
    ``Relation("replace-one")`` works and a member equals its value
    (``Relation.REPLACE_ONE == "replace-one"``); ``str()`` and formatting give the value.
    """

    REPLACE_ONE = "replace-one"
    ADD_REMOVE = "add-remove"
    LOCAL = "local"

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)


def check_neighbouring(relation) -> Relation:
    """The :class:`Relation` named by ``relation`` (a member or its string value)."""
    try:
        return Relation(relation)
    except ValueError:
        values = tuple(r.value for r in Relation)
        raise InvalidParameterError(
            "neighbouring", f"must be one of {values}, got {relation!r}") from None


@dataclass(frozen=True)
class PrivacyGuarantee:
    """An (ε, δ) claim and what it rests on.

    Attributes
    ----------
    epsilon, delta : float
        The claimed guarantee (δ = 0 for pure ε-DP).
    neighbouring : Relation or str
        The neighbouring relation under which it holds: :class:`Relation` (a ``str``:
        ``"replace-one"`` (default), ``"add-remove"`` or ``"local"``, per-record local DP).
    calibration : str
        How the noise was calibrated (``"laplace"``, ``"analytic"``, ``"classic"``,
        ``"exact"``, ``"theorem2"``, ...).
    exact : bool
        True when the noise is the smallest that meets (ε, δ) for the declared
        sensitivity (the bound is tight); False when the claim is only a sufficient
        bound, or when it is known not to hold (see ``refuted``).
    mechanism : str
        The mechanism's name.
    refuted : bool
        True when the claim is known to be false (an explicit unsafe opt-in).
    notes : tuple of str
        Free-text caveats (composition parts, unsafe opt-ins, ...). Every
        guarantee carries a ``"numerics: ..."`` note: unless one is given, the
        float note is appended (the claim assumes idealised real arithmetic);
        see ``docs/numerics.md``.
    mu : float or None
        Gaussian differential privacy parameter when the release is a Gaussian shift: the
        privacy loss is dominated by N(0, 1) vs N(mu, 1) (mu-GDP), so ``delta(epsilon)`` is the
        Gaussian profile :func:`~matrixdp.calibration.gaussian.gaussian_delta` at sensitivity
        ``mu`` and k such releases compose exactly to ``sqrt(sum mu_i^2)``. Set by the
        Gaussian-noise mechanisms (``sensitivity / sigma``; MVG: its Mahalanobis sensitivity),
        ``None`` otherwise. An upper bound on the true shift is still a valid mu.

    Notes
    -----
    ``g1 + g2`` is *basic* sequential composition (Dwork & Roth 2014, Thm 3.16):
    ``(eps1 + eps2, delta1 + delta2)``, and when both carry ``mu`` the sum carries the exact
    ``sqrt(mu1^2 + mu2^2)``. It raises for different neighbouring relations and for refuted
    guarantees. Tighter composition (GDP, PLD, RDP, advanced) is in
    :mod:`matrixdp.accounting` (``matrixdp.accounting.compose`` / ``Accountant``).
    """

    epsilon: float
    delta: float
    neighbouring: Relation | str = Relation.REPLACE_ONE
    calibration: str = ""
    exact: bool = False
    mechanism: str = ""
    refuted: bool = False
    notes: tuple[str, ...] = ()
    mu: float | None = None

    def __add__(self, other):
        if isinstance(other, PrivacyGuarantee):
            return _basic_sum(self, other)
        return NotImplemented

    def __radd__(self, other):
        if isinstance(other, (int, float)) and other == 0:  # sum([g1, g2, ...])
            return self
        return NotImplemented

    def __post_init__(self):
        # copied on the way in: a 0-d array the caller keeps must not change a recorded claim
        for name in ("epsilon", "delta", "mu"):
            value = getattr(self, name)
            if isinstance(value, np.ndarray):
                object.__setattr__(self, name, float(value))
        notes = tuple(self.notes)
        if not any(str(n).startswith("numerics:") for n in notes):
            notes = notes + (_FLOAT_NOTE,)
        object.__setattr__(self, "notes", notes)

    @property
    def numerics(self) -> str:
        """``"exact"`` when every step is floating-point safe (lattice + exact sampling), else ``"float"``.

        A composed guarantee with one float step (a ``"numerics: float"`` note) is ``"float"``.
        """
        if any(n.startswith("numerics: float") for n in self.notes):
            return "float"
        return "exact" if any(n.startswith("numerics: exact") for n in self.notes) else "float"

    def __str__(self) -> str:
        kind = "pure " if self.delta == 0 else ""
        tight = "exact" if self.exact else ("REFUTED" if self.refuted else "upper bound")
        return (f"{kind}(epsilon={self.epsilon:.6g}, delta={self.delta:.3g})-DP "
                f"[{self.neighbouring}; calibration={self.calibration or 'n/a'}; {tight}]")

    def with_notes(self, *notes: str) -> "PrivacyGuarantee":
        """Return a copy with extra notes appended."""
        return replace(self, notes=self.notes + tuple(notes))


@dataclass(frozen=True)
class NoiseSummary:
    """What the noise does to the value (data-independent).

    Attributes
    ----------
    distribution : str
        Name of the noise law (``"gaussian"``, ``"laplace"``, ``"mvg"`` ...).
    scale : float
        Its scale parameter (σ for Gaussian, b for Laplace; for correlated noise
        the root mean per-entry variance).
    per_entry_variance : float
        Mean variance of the noise over the released entries.
    expected_squared_error : float
        E‖noise‖² over the whole released value (= bias² + variance summed).
    bias : float
        Mean bias per entry (0 for the unbiased additive mechanisms).
    """

    distribution: str
    scale: float
    per_entry_variance: float
    expected_squared_error: float
    bias: float = 0.0


@dataclass(frozen=True)
class Release:
    """The result of a private release.

    Attributes
    ----------
    value : ndarray or float
        The noisy value, of the input's shape (a float for a scalar input).
    privacy : PrivacyGuarantee
        The guarantee the release carries.
    noise : NoiseSummary
        Data-independent description of the noise.
    metadata : dict
        Mechanism-specific extras (e.g. the directions used).
    """

    value: Any
    privacy: PrivacyGuarantee
    noise: NoiseSummary
    metadata: dict = field(default_factory=dict)

    @classmethod
    def _of(cls, value, privacy, noise, metadata) -> "Release":
        """The same object ``Release(value, privacy, noise, metadata)`` builds, without the
        frozen dataclass's per-field ``object.__setattr__`` (the hot path of small releases)."""
        obj = object.__new__(cls)
        obj.__dict__.update(value=value, privacy=privacy, noise=noise, metadata=metadata)
        return obj

    @property
    def std(self) -> float:
        """Standard deviation of the noise on one released entry, from the public noise summary.

        ``sqrt(noise.per_entry_variance)``: exact for i.i.d. noise; for correlated noise (MVG,
        ``per_entry_variance`` is the mean over the entries) the root-mean-square over entries.
        Computed from public quantities only (the calibration), never from the data or the noise.
        """
        return math.sqrt(max(float(self.noise.per_entry_variance), 0.0))

    @property
    def entry_std(self):
        """Standard deviation of the noise on each released entry (public, from the calibration).

        An array of the value's shape when the mechanism states per-entry variances
        (``metadata["entry_variance"]``: MVG noise, whose entry ``(i, j)`` has variance
        ``Σ_ii Ψ_jj``), else :attr:`std` (the same for every entry).
        """
        var = self.metadata.get("entry_variance") if isinstance(self.metadata, dict) else None
        if var is None:
            return self.std
        return np.sqrt(np.maximum(np.asarray(var, dtype=np.float64), 0.0))

    def interval(self, level: float = 0.95):
        """Noise-only interval ``(lower, upper)`` around the released value, entrywise.

        Covers the exact (un-noised) query answer with probability ``level`` for each entry,
        over the noise alone, using each entry's own noise std (:attr:`entry_std`): Gaussian
        noise (``gaussian``, ``mvg``, ``discrete-gaussian``) uses the normal quantile;
        Laplace noise its exact quantile ``b log(1/(1-level))`` (``b = std/sqrt(2)``); any
        other noise law Chebyshev's ``std / sqrt(1-level)`` (conservative). Bias (clipping,
        post-processing) is not included: the interval is about the noise of this release,
        computed from public quantities only.

        Parameters
        ----------
        level : float, default 0.95
            In (0, 1).

        Returns
        -------
        (lower, upper) : floats or ndarrays of the value's shape
        """
        half = noise_half_width(self.noise.distribution, self.entry_std, level)
        value = np.asarray(self.value, dtype=np.float64)
        lower, upper = value - half, value + half
        if np.ndim(self.value) == 0:
            return float(lower), float(upper)
        return lower, upper


#: Noise laws whose entries are (close to) normal: intervals use the normal quantile.
_NORMAL_LAWS = ("gaussian", "mvg", "discrete-gaussian", "mvg-discrete")


def noise_half_width(distribution: str, std, level: float = 0.95):
    """Half-width of a symmetric noise-only interval of coverage ``level`` (entrywise).

    ``std`` (float or array) is the public noise standard deviation; see
    :meth:`Release.interval` for the rule per noise law.
    """
    level = float(level)
    if not 0.0 < level < 1.0:
        raise InvalidParameterError("level", f"must be in (0, 1), got {level:g}")
    std = np.asarray(std, dtype=np.float64)
    if distribution in _NORMAL_LAWS:
        from scipy.stats import norm

        half = std * float(norm.ppf(0.5 + level / 2.0))
    elif distribution in ("laplace", "discrete-laplace"):
        half = std / math.sqrt(2.0) * math.log(1.0 / (1.0 - level))
    else:
        half = std / math.sqrt(1.0 - level)
    return float(half) if half.ndim == 0 else half


def refuse_uncharged_batch(name: str, what: str = "release_batch") -> None:
    """Refuse an uncharged batch of releases where a budget keeper is active.

    ``release_batch(value, n, rng)`` (the JL sketch's ``sketches``, the auditor's
    :func:`~matrixdp.audit.draw_outputs`) draws ``n`` releases of
    ``value`` in one call and charges nothing: it is the auditor's sampler, meant for public
    witness values. Inside a ``with Accountant(...)`` / ``with Ledger(...)`` block it would release
    a private value ``n`` times past the keeper, so it raises
    :class:`~matrixdp.errors.UnsafeMechanismError` there before anything is drawn. Inside a
    release's own charge (``Mechanism.release`` drawing its one output through it) no default
    keeper is active and it runs.
    """
    if default_keepers():
        from ..errors import UnsafeMechanismError

        raise UnsafeMechanismError(
            f"{name}: {what} draws n releases of its value and charges nothing (the auditor's "
            "sampler, for public witness values); inside a budget keeper's `with` block it is "
            "refused: call release() for each charged release, or audit outside the block")


class Mechanism(OwnsConfiguration, abc.ABC):
    """Base class: pure configuration plus :meth:`release`.

    Configuration is copied on the way in (:class:`~matrixdp._owned.OwnsConfiguration`):
    every constructor argument reaches the subclass's ``__init__`` as a read-only copy (arrays),
    a tuple (lists), a copy with owned attributes (a query), so no array the caller keeps can
    change the noise after the calibration was computed.

    A mechanism's public attributes cannot be set after construction (``AttributeError``):
    its noise is calibrated once, so a changed ``epsilon`` or ``sensitivity`` would change the
    claim without changing the noise.

    Subclasses implement :meth:`_noise` (draw the noise for an array of a given
    shape), :meth:`privacy` and :meth:`noise_summary`. :meth:`release` validates
    the value, adds the noise in one vectorised pass, and wraps the result.
    :meth:`bias`, :meth:`variance` and :meth:`mse` (per-entry moments of the
    error) are defined here once, from :meth:`noise_summary`.

    Numerics: with ``numerics == "float"`` (default) the release is
    ``value + _noise(...)`` in floating point, whose guarantee assumes idealised
    real arithmetic. A subclass that offers ``numerics="exact"`` implements
    :meth:`_release_exact` (a lattice release, see
    :mod:`matrixdp.mechanisms.lattice`), which :meth:`release` then calls instead.
    """

    #: Human-readable name used in guarantees and audit tables.
    name: str = "mechanism"

    def __setattr__(self, name, value):
        # Configuration is fixed once the constructor returns: the noise was calibrated to it, so
        # ``mech.epsilon = 0.1`` after construction made every release claim epsilon 0.1 with the
        # noise of the old epsilon (hunt HY, session 19). Private caches stay writable.
        if not name.startswith("_") and self.__dict__.get("_configured"):
            raise AttributeError(
                f"{type(self).__name__}.{name} cannot be set after construction: the noise was "
                f"calibrated to the configuration the mechanism was built with; build a new "
                f"mechanism (e.g. {type(self).__name__}(..., {name}=...)) instead")
        object.__setattr__(self, name, value)
    #: "float" (idealised real arithmetic) or "exact" (lattice + exact integer sampling).
    numerics: str = "float"

    # ------------------------------------------------------------------ API
    @property
    @abc.abstractmethod
    def privacy(self) -> PrivacyGuarantee:
        """The guarantee every release of this mechanism carries."""

    @abc.abstractmethod
    def noise_summary(self, shape: tuple[int, ...]) -> NoiseSummary:
        """Describe the noise for a value of ``shape``."""

    @abc.abstractmethod
    def _noise(self, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
        """Draw noise of ``shape`` (float64)."""

    def _check_value(self, value) -> np.ndarray:
        """Validate the value to release; subclasses add shape/structure checks."""
        if type(value) is np.ndarray and value.dtype is _FLOAT64:
            # Fast path for the common case (a float64 array): a NaN or infinite entry makes the
            # sum of squares NaN or infinite, so a finite x.x proves every entry finite (no
            # boolean temporary). A non-finite x.x (NaN/inf, or finite entries whose squares
            # overflow): the full check decides. Small values: one BLAS dot (the fastest call);
            # large ones: numpy's own single-threaded loop, because OpenBLAS runs a long dot on
            # its thread pool, which on a busy 2-core machine waited milliseconds for a sum of
            # microseconds (65,536 values: 8 ms against 17 us) and left workers spinning
            # (BENCHMARKS.md, "Exact noise").
            flat = value if value.ndim == 1 else value.reshape(-1)
            ss = flat.dot(flat) if flat.size <= _DOT_MAX else np.einsum("i,i->", flat, flat)
            if math.isfinite(ss):
                return value
        return check_finite_array(value, "value")

    def _release_terms(self, shape) -> tuple:
        """The guarantee and the noise summary of a release of ``shape`` (both public, both
        depending only on the configuration and the shape; subclasses may cache them)."""
        return self._privacy_for(shape), self.noise_summary(shape)

    def release(self, value, rng=None, *, accountant=None, ledger=None, label: str = "") -> Release:
        """Release ``value`` with noise.

        Parameters
        ----------
        value : float or array_like
            The exact query answer (finite entries).
        rng : None, int or numpy.random.Generator
            Randomness; ``None`` draws from the per-process cryptographically secure
            stream, which nothing returned keeps. An int seed (or a Generator whose
            state someone knows) makes the release reproducible, and so replayable:
            anyone who knows the seed can regenerate the noise and subtract it.
        accountant : matrixdp.accounting.Accountant, optional
        ledger : matrixdp.accounting.Ledger, optional
            Budget keepers charged with this release: checked (a ledger durably reserves)
            before any noise is drawn, :class:`~matrixdp.errors.BudgetExceededError` if it
            does not fit; the spend is recorded after. The keepers of the enclosing
            ``with accountant:`` / ``with ledger:`` blocks are charged too, with or without
            these, each keeper once (docs/accounting.md §5b).
        label : str
            A public label for the ledger's history (never data).

        Returns
        -------
        Release
        """
        arr = self._check_value(value)
        privacy, noise = self._release_terms(arr.shape)
        gen = secure_stream() if rng is None else make_rng(rng)
        if accountant is None and ledger is None and not default_keepers():
            # No keeper to charge (none given, none made default by a ``with`` block): what
            # ``charge`` would do here is run the block uncharged, so skip its machinery.
            noisy = self._randomise(arr, gen)
        else:
            with charge(privacy, accountant=accountant, ledger=ledger, label=label or self.name):
                noisy = self._randomise(arr, gen)
        if privacy.refuted:
            warnings.warn(f"{self.name}: the claimed {privacy} is refuted; this release is "
                          "NOT differentially private as claimed", RefutedGuaranteeWarning,
                          stacklevel=2)
        if type(value) is not np.ndarray or value.dtype is not _FLOAT64:
            noisy = _restore_type(value, noisy)
        return Release._of(noisy, privacy, noise, self._metadata())

    def _randomise(self, arr: np.ndarray, gen: np.random.Generator) -> np.ndarray:
        """The released value for the validated ``arr``: noise added once (on the lattice for
        exact numerics). Mechanisms whose output is not ``value + noise`` (sketches, sampled
        projectors) override this, never :meth:`release`, so every release is charged alike."""
        if self.numerics == "exact":
            return self._release_exact(arr, gen)
        return arr + self._noise(arr.shape, gen)

    def _metadata(self) -> dict:
        return {}

    # -------------------------------------------------------------- error moments
    def _moment_shape(self) -> tuple[int, ...]:
        """A value shape for the per-entry moments: the mechanism's own (``self.shape``) or
        ``(1,)`` for i.i.d. noise, whose moments do not depend on it."""
        return _as_shape(getattr(self, "shape", None) or (1,))

    @property
    def bias(self) -> float:
        """Mean over the entries of ``E[noise]`` (0 for centred noise)."""
        return float(self.noise_summary(self._moment_shape()).bias)

    @property
    def variance(self) -> float:
        """Mean over the entries of ``Var(noise_ij)``."""
        return float(self.noise_summary(self._moment_shape()).per_entry_variance)

    @property
    def mse(self) -> float:
        """Mean over the entries of ``E[noise_ij²]`` (``E‖noise‖²`` divided by the size)."""
        shape = self._moment_shape()
        return float(self.noise_summary(shape).expected_squared_error) / max(1, int(np.prod(shape)))

    # -------------------------------------------------------------- exact numerics
    def _privacy_for(self, shape) -> PrivacyGuarantee:
        """The guarantee of a release of ``shape`` (exact numerics may depend on the shape)."""
        return self.privacy

    def _release_exact(self, arr: np.ndarray, gen: np.random.Generator) -> np.ndarray:
        """The exact-numerics release of ``arr`` (float64), for subclasses offering it."""
        raise NotImplementedError(f"{type(self).__name__} has no exact numerics")

    def _release_batch_exact(self, value, n: int, rng=None) -> np.ndarray:
        raise NotImplementedError(f"{type(self).__name__} has no exact numerics")

    @property
    def release_batch(self):
        """``release_batch(value, n, rng)``: ``n`` independent exact releases (exact numerics only).

        The auditor's sampler: nothing is charged, so it is refused inside a budget keeper's
        ``with`` block (:func:`refuse_uncharged_batch`); call :meth:`release` for releases.
        Float-numerics mechanisms have no such attribute (the auditor then draws
        ``value + sample_noise``).
        """
        if self.numerics != "exact":
            raise AttributeError("release_batch exists only with numerics='exact'")
        batch = self._release_batch_exact
        name = self.name

        def release_batch(value, n, rng=None):
            refuse_uncharged_batch(name)
            return batch(value, n, rng)

        release_batch.__doc__ = Mechanism.release_batch.__doc__
        return release_batch

    # -------------------------------------------------------------- helpers
    def sample_noise(self, shape, rng=None) -> np.ndarray:
        """Draw the noise alone (for auditing and tests).

        ``rng``: ``None`` (default) draws from the per-process secure stream; a seed or a Generator
        makes the draws reproducible, so a seeded release is replayable by anyone who knows the seed
        (they regenerate the noise and subtract it).
        """
        shape = (int(shape),) if np.ndim(shape) == 0 else tuple(int(k) for k in shape)
        return self._noise(shape, make_rng(rng))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.privacy})"


def _as_shape(shape) -> tuple[int, ...]:
    return (int(shape),) if np.ndim(shape) == 0 else tuple(int(k) for k in shape)


def _basic_sum(a: PrivacyGuarantee, b: PrivacyGuarantee) -> PrivacyGuarantee:
    """Basic sequential composition of two guarantees (``a + b``)."""
    from ..errors import UnsafeMechanismError

    if a.neighbouring != b.neighbouring:
        raise InvalidParameterError(
            "neighbouring", f"cannot compose a '{a.neighbouring}' guarantee with a "
                            f"'{b.neighbouring}' one (different neighbouring relations)")
    if a.refuted or b.refuted:
        raise UnsafeMechanismError(
            "a refuted guarantee does not compose; use matrixdp.accounting.compose(..., "
            "allow_unsafe=True) to compose it knowingly (the result stays refuted)")
    mu = None if a.mu is None or b.mu is None else math.hypot(a.mu, b.mu)
    pure_exact = a.exact and b.exact and a.delta == 0 and b.delta == 0
    return PrivacyGuarantee(
        epsilon=a.epsilon + b.epsilon, delta=min(1.0, a.delta + b.delta),
        neighbouring=a.neighbouring, calibration="basic composition", exact=pure_exact,
        mechanism=" + ".join(m for m in (a.mechanism, b.mechanism) if m), mu=mu,
        notes=("basic sequential composition (epsilons and deltas add)"
               + ("; mu is the exact GDP composition sqrt(mu1^2 + mu2^2)" if mu is not None
                  else ""),)
        + (("numerics: exact — every composed step is floating-point safe",)
           if a.numerics == b.numerics == "exact" else ()))


def _restore_type(original, noisy: np.ndarray):
    """Give the released value the input's kind: a float for a scalar, else an ndarray.

    Floating input keeps its dtype (float32 stays float32); integer or boolean
    input becomes float64, since the noise is real-valued.
    """
    if np.ndim(original) == 0 and not isinstance(original, np.ndarray):
        return float(noisy)
    in_dtype = np.asarray(original).dtype
    if np.issubdtype(in_dtype, np.floating) and in_dtype != noisy.dtype:
        return noisy.astype(in_dtype)
    return noisy
