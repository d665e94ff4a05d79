"""The one seam through which code outside the mechanisms draws randomness.

Two doors, and no third:

* :func:`charged_noise` — *released noise*. A context manager that charges a
  :class:`~matrixdp.mechanisms.PrivacyGuarantee` to the budget keepers (an explicit
  ``accountant=`` / ``ledger=``, and the enclosing ``with Accountant(...)`` / ``with Ledger(...)``
  blocks'; :func:`matrixdp._budget.charge`) **before** it hands out a :class:`NoiseSource`; the
  source refuses to draw once the block is left. Inside an estimator's own charge (its ``fit``
  charged the whole guarantee) no default keeper is active, so nothing is charged twice.
* :func:`public_randomness` — *public randomness*: draws that depend on no private value or
  are post-processing of an already released model (random projection directions, sampling
  synthetic records from a fitted generator, data-independent guesses). Nothing is charged.

Models, synthetic-data generators and baselines never call a generator's sampling methods
(``standard_normal``, ``normal``, ``laplace``, ``choice``, ``integers``, ``random``, ...)
themselves: ``tests/test_noise_seam.py`` scans the package's syntax tree and fails where code
outside this module, the samplers of the mechanisms layer and the noise methods of
:class:`~matrixdp.mechanisms.Mechanism` subclasses does. The draw methods of
:class:`NoiseSource` have their own names, so the scan needs no list of call sites.

A seeded run is replayable by whoever knows the seed (they regenerate the noise and subtract
it); the default ``rng=None`` draws from the per-process secure stream, and no
:class:`NoiseSource` outlives its block holding the generator.
"""

from __future__ import annotations

import contextlib

import numpy as np

__all__ = ["NoiseSource", "charged_noise", "public_randomness", "charged_gaussian"]


class NoiseSource:
    """Draws from one generator, handed out by :func:`charged_noise` or :func:`public_randomness`.

    The methods draw exactly what the named numpy calls draw (same stream, same order), so a
    seeded run through the seam is bit-identical to the direct call it replaces.

    Attributes
    ----------
    kind : {"charged", "public"}
        Which door it came from.
    label : str
        The public label of the charge (``""`` for public randomness).
    """

    __slots__ = ("_gen", "kind", "label")

    def __init__(self, gen: np.random.Generator, kind: str, label: str = ""):
        self._gen = gen
        self.kind = kind
        self.label = label

    def _g(self) -> np.random.Generator:
        if self._gen is None:
            raise RuntimeError("this NoiseSource is closed: released noise is drawn only inside "
                               "the charged_noise block that charged it")
        return self._gen

    def _close(self) -> None:
        self._gen = None

    def __reduce__(self):
        raise TypeError("a NoiseSource cannot be pickled or copied (its generator state would "
                        "replay the noise)")

    # -- draws (names differ from numpy's on purpose: the AST scan flags numpy's names) --
    def gaussian(self, shape, sigma: float = 1.0) -> np.ndarray:
        """``sigma * standard_normal(shape)`` (``standard_normal(shape)`` when ``sigma == 1``)."""
        z = self._g().standard_normal(shape)
        return z if sigma == 1.0 else z * sigma

    def laplacian(self, shape, scale: float) -> np.ndarray:
        """``laplace(0, scale, size=shape)``."""
        return self._g().laplace(0.0, scale, size=shape)

    def uniform_on(self, shape, low: float = 0.0, high: float = 1.0) -> np.ndarray:
        """``uniform(low, high, size=shape)``."""
        if low == 0.0 and high == 1.0:
            return self._g().uniform(size=shape)
        return self._g().uniform(low, high, size=shape)

    def pick(self, values, shape):
        """``choice(values, size=shape)`` (uniform, with replacement)."""
        return self._g().choice(values, size=shape)

    def shuffled_indices(self, n: int) -> np.ndarray:
        """``permutation(n)``."""
        return self._g().permutation(int(n))

    def integers_below(self, high: int, shape=None):
        """``integers(high, size=shape)``: uniform integers in ``[0, high)`` (e.g. child seeds)."""
        return self._g().integers(int(high), size=shape)


@contextlib.contextmanager
def charged_noise(privacy, rng=None, *, accountant=None, ledger=None, label: str = ""):
    """Charge ``privacy`` (before anything is drawn), then yield a :class:`NoiseSource`.

    Parameters
    ----------
    privacy : PrivacyGuarantee
        The guarantee of the release this noise belongs to (its label says what it is).
    rng : None, int, numpy.random.Generator or NoiseSource
        ``None`` (default): the per-process secure stream. An int seed (or a Generator whose
        state someone knows) makes the release replayable by whoever knows it. A charged
        :class:`NoiseSource` (an enclosing charge) is used as it is.
    accountant, ledger : optional
        Explicit budget keepers; default: those of the enclosing ``with`` blocks (none inside
        an estimator's own charge).
    label : str
        A public label for the ledger's history (never data).

    Raises
    ------
    BudgetExceededError
        From a keeper, before any noise is drawn.
    """
    from .._budget import charge
    from ..rng import make_rng

    # an invalid rng is refused before the charge (hunt DH2: DPCopula charged, then refused it);
    # make_rng draws nothing
    generator = None if isinstance(rng, NoiseSource) else make_rng(rng)
    with charge(privacy, accountant=accountant, ledger=ledger, label=label):
        if generator is None:
            yield rng
            return
        source = NoiseSource(generator, "charged", label)
        try:
            yield source
        finally:
            source._close()


def charged_gaussian(value, sigma: float, *, privacy, rng=None, accountant=None, ledger=None,
                     label: str = "") -> np.ndarray:
    """``value + sigma * N(0, I)``, charged ``privacy`` first (see :func:`charged_noise`).

    ``rng``: ``None`` (default) draws from the per-process secure stream; a seed or a Generator
    makes the release reproducible, and so replayable by anyone who knows the seed (they
    regenerate the noise and subtract it).
    """
    arr = np.asarray(value, dtype=np.float64)
    with charged_noise(privacy, rng, accountant=accountant, ledger=ledger, label=label) as src:
        return arr + sigma * src.gaussian(arr.shape)


def public_randomness(rng=None) -> NoiseSource:
    """A :class:`NoiseSource` for public randomness (nothing is charged).

    Only for draws that depend on no private value or post-process a release: random
    projection directions, sampling synthetic records from a fitted (released) model,
    data-independent guesses. ``rng``: ``None`` (default) draws from the per-process secure
    stream; a seed makes the draws reproducible (replaying public draws reveals nothing
    private). A :class:`NoiseSource` is returned as it is.
    """
    from ..rng import make_rng

    if isinstance(rng, NoiseSource):
        return rng
    return NoiseSource(make_rng(rng), "public")
