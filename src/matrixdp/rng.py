"""Random number generators: cryptographically secure by default, reproducible on request.

Every random function in matrixdp takes ``rng=`` and passes it to :func:`make_rng`.
With ``rng=None`` the draws come from a per-process secure stream (a CSPRNG keyed from
the operating system, re-keyed in a forked child, never picklable or copyable); see
``docs/security.md`` for what a saved object and a seed reveal.
"""

from __future__ import annotations

import os
import secrets
import threading
from numbers import Integral

import numpy as np

from ._linalg import check_dim
from .errors import InvalidParameterError

__all__ = ["make_rng", "clone_stream", "haar_from_gaussian", "secure_bit_generator", "secure_stream", "fresh_secure_rng", "is_secure",
           "SEED_WARNING", "random_directions",
           "without_generators"]

#: One sentence every ``rng`` / ``random_state`` docstring repeats.
SEED_WARNING = ("a seeded release is replayable: anyone who knows the seed can regenerate the "
                "noise and subtract it, so use a seed only for tests and experiments")


def secure_bit_generator() -> np.random.BitGenerator:
    """Return a CSPRNG bit generator keyed directly from the OS (:mod:`secrets`).

    AES-128 in counter mode (randomgen's ``AESCounter``, using AES-NI where the
    CPU has it) is the first choice; ChaCha20 with a 256-bit key is the fallback.
    The key is set directly (not passed through a non-cryptographic seed
    expansion), and the counter starts at a random point.
    """
    import randomgen

    try:
        return randomgen.AESCounter(key=secrets.randbits(128), counter=secrets.randbits(64))
    except Exception:  # pragma: no cover - AESCounter is present on all supported builds
        return randomgen.ChaCha(key=secrets.randbits(256), counter=secrets.randbits(64), rounds=20)


class _SecureStream(np.random.Generator):
    """A secure :class:`numpy.random.Generator` that refuses to be pickled or copied.

    Its bit generator's state is its key and counter: a copy of it would let the holder
    regenerate (and subtract) every draw made after the copy, and a pickle of an object that
    kept it would do the same for its reader. Refusing makes such a mistake loud.
    """

    def __reduce__(self):
        raise TypeError(
            "matrixdp's secure random stream cannot be pickled or copied (its state would let "
            "the reader replay released noise); pass rng=None in each process instead, or a "
            "seeded generator when reproducibility is wanted")

    def __reduce_ex__(self, protocol):
        return self.__reduce__()

    def __copy__(self):
        return self.__reduce__()

    def __deepcopy__(self, memo):
        return self.__reduce__()


_lock = threading.Lock()
_stream: _SecureStream | None = None
_stream_pid: int | None = None


def _forget_stream() -> None:
    """Drop the stream (after ``fork``, in the child): parent and child must never share a key."""
    global _stream, _stream_pid
    _stream, _stream_pid = None, None


if hasattr(os, "register_at_fork"):  # POSIX; elsewhere the pid check below suffices
    os.register_at_fork(after_in_child=_forget_stream)


def secure_stream() -> np.random.Generator:
    """The per-process secure generator that ``make_rng(None)`` returns.

    Keyed from the OS on first use; a forked child gets a fresh key (via
    :func:`os.register_at_fork` and, for forks that bypass Python's hooks, a pid check).
    It cannot be pickled or copied, so no object can carry it out of the process.
    Thread-safe: numpy serialises draws on one bit generator with its lock.
    """
    global _stream, _stream_pid
    stream, pid = _stream, os.getpid()
    if stream is not None and _stream_pid == pid:
        return stream
    with _lock:
        if _stream is None or _stream_pid != pid:
            _stream, _stream_pid = _SecureStream(secure_bit_generator()), pid
        return _stream


def fresh_secure_rng() -> np.random.Generator:
    """A new, independent secure generator keyed from the OS (a plain, picklable Generator).

    For the rare holder that must keep a generator (for example a model that samples later
    and was asked for a reproducible sampling stream): it has never produced released noise,
    so keeping it reveals nothing about a release.
    """
    return np.random.Generator(secure_bit_generator())


def make_rng(rng=None) -> np.random.Generator:
    """Return a :class:`numpy.random.Generator` for ``rng``.

    Parameters
    ----------
    rng : None, int or numpy.random.Generator
        ``None`` (default) gives the per-process cryptographically secure stream
        (:func:`secure_stream`, keyed from the operating system): use it for real
        releases. An int gives a reproducible PCG64 generator, for tests and
        experiments only: a seeded release is replayable by anyone who knows the
        seed (they regenerate the noise and subtract it). A ``Generator`` is
        returned as is; its state after the call determines every later draw, so
        keep it as secret as the data.

    Returns
    -------
    numpy.random.Generator

    Raises
    ------
    InvalidParameterError
        If ``rng`` is of another type or a negative int.
    """
    if rng is None:
        return secure_stream()
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, Integral) and not isinstance(rng, bool):
        if rng < 0:
            raise InvalidParameterError("rng", f"an int seed must be >= 0, got {rng}")
        return np.random.Generator(np.random.PCG64(int(rng)))
    raise InvalidParameterError(
        "rng", f"must be None (secure), an int seed or a numpy.random.Generator, got {type(rng).__name__}")


def without_generators(state: dict) -> dict:
    """A copy of an object's ``__dict__`` with every :class:`numpy.random.Generator` value set to None.

    For ``__getstate__`` of estimators that store a Generator passed as ``random_state``: after
    ``fit`` its state would let the reader of a pickle rewind it and replay the released noise.
    """
    return {k: (None if isinstance(v, np.random.Generator) else v) for k, v in state.items()}


def clone_stream(generator):
    """The stream a ``sklearn.base.clone`` of an estimator gets in place of its Generator
    ``random_state`` (``generator``): ``generator.spawn(1)[0]``, or ``None`` when it cannot spawn (a Generator
    built without a seed sequence) or is not a Generator.

    scikit-learn's clone deep-copies every parameter, so each clone holding a Generator (every
    fold of ``cross_val_score``, every candidate of ``GridSearchCV``) drew the *same* noise, and
    the difference of two folds' releases was a noise-free function of the records between them
    (hunt HY, session 19). A spawned child is independent of its siblings and still reproducible
    from the original seed (children are spawned in order).
    """
    if not isinstance(generator, np.random.Generator):
        return None
    try:
        return generator.spawn(1)[0]
    except (TypeError, ValueError, AttributeError):  # no SeedSequence to spawn from
        return None


def is_secure(generator: np.random.Generator) -> bool:
    """Whether ``generator`` is driven by one of the CSPRNG bit generators used by :func:`make_rng`."""
    name = type(generator.bit_generator).__name__
    return name in {"AESCounter", "ChaCha"}


def random_directions(dim, n_directions=None, rng=None) -> np.ndarray:
    """Haar-distributed orthonormal directions: a ``(dim, n_directions)`` matrix (square by default).

    QR of a standard Gaussian matrix with the signs of R's diagonal fixed; without the fix
    LAPACK's sign convention biases the law away from Haar.

    References
    ----------
    .. [1] F. Mezzadri, "How to generate random matrices from the classical compact
       groups", Notices of the AMS 54(5), 2007.

    ``rng``: ``None`` (default) draws from the per-process secure stream; a seed makes the draws
    reproducible (replayable by anyone who knows it; these draws are public (or DP-released)
    directions, so replaying them reveals no private value).
    """
    dim = check_dim(dim)
    k = dim if n_directions is None else check_dim(n_directions, "n_directions")
    if k > dim:
        raise InvalidParameterError("n_directions", f"must be <= dim = {dim}, got {k}")
    return haar_from_gaussian(make_rng(rng).standard_normal((dim, k)))


def haar_from_gaussian(gaussian) -> np.ndarray:
    """Orthonormal columns from a standard Gaussian ``(dim, k)`` matrix: QR with R's signs fixed.

    The deterministic half of :func:`random_directions`, for callers that draw the Gaussian
    matrix through a charged noise source (:mod:`matrixdp.mechanisms.draw`).
    """
    q, r = np.linalg.qr(np.asarray(gaussian, dtype=float), mode="reduced")
    signs = np.sign(np.diag(r))
    signs[signs == 0] = 1.0
    return q * signs
