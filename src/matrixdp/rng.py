"""Random number generators: cryptographically secure by default, reproducible on request.

Every random function in matrixdp takes ``rng=`` and passes it to :func:`make_rng`.
"""

from __future__ import annotations

import secrets
from numbers import Integral

import numpy as np

from ._linalg import check_dim
from .errors import InvalidParameterError

__all__ = ["make_rng", "secure_bit_generator", "is_secure", "random_directions"]

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


def make_rng(rng=None) -> np.random.Generator:
    """Return a :class:`numpy.random.Generator` for ``rng``.

    Parameters
    ----------
    rng : None, int or numpy.random.Generator
        ``None`` (default) gives a cryptographically secure generator seeded
        from the operating system: use it for real releases. An int gives a
        reproducible PCG64 generator (for tests and experiments only: a seed
        known to an adversary voids the privacy guarantee). A ``Generator`` is
        returned as is.

    Returns
    -------
    numpy.random.Generator

    Raises
    ------
    InvalidParameterError
        If ``rng`` is of another type or a negative int.
    """
    if rng is None:
        return np.random.Generator(secure_bit_generator())
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, Integral) and not isinstance(rng, bool):
        if rng < 0:
            raise InvalidParameterError("rng", f"an int seed must be >= 0, got {rng}")
        return np.random.Generator(np.random.PCG64(int(rng)))
    raise InvalidParameterError(
        "rng", f"must be None (secure), an int seed or a numpy.random.Generator, got {type(rng).__name__}")


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
    """
    dim = check_dim(dim)
    k = dim if n_directions is None else check_dim(n_directions, "n_directions")
    if k > dim:
        raise InvalidParameterError("n_directions", f"must be <= dim = {dim}, got {k}")
    q, r = np.linalg.qr(make_rng(rng).standard_normal((dim, k)), mode="reduced")
    signs = np.sign(np.diag(r))
    signs[signs == 0] = 1.0
    return q * signs
