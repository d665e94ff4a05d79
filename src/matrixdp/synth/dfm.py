"""Dimension guidance for the Diaconis-Freedman-Meckes (DFM) effect used by RON-Gauss."""

from __future__ import annotations

import math
from numbers import Integral

from ..errors import InvalidParameterError

__all__ = ["dfm_bound", "dfm_max_dim"]


def dfm_bound(m: int, log_base: float = 10) -> float:
    r"""The real number :math:`2\log m / \log\log m` (logs in ``log_base``).

    Parameters
    ----------
    m : int
        Number of features (the dimension before projection).
    log_base : float, default 10
        Base of the logarithms. Base 10 reproduces the paper's example
        (m = 100 gives 13.29); base e is the mathematically standard reading of
        Meckes' theorem (m = 100 gives 6.03).

    Returns
    -------
    float

    Raises
    ------
    InvalidParameterError
        If ``log m`` or ``log log m`` is not positive (m <= 10 in base 10,
        m <= e in base e), where the bound is undefined.

    References
    ----------
    .. [1] T. Chanyaswad, C. Liu, P. Mittal, "RON-Gauss: Enhancing Utility in
       Non-Interactive Private Data Release", PoPETs 2019(1):26-46, Section 3.4.
    .. [2] E. Meckes, "Projections of probability distributions: a measure-theoretic
       Dvoretzky theorem", GAFA Seminar 2006-2010, Corollary 4.
    """
    if isinstance(m, bool) or not isinstance(m, Integral) or m < 2:
        raise InvalidParameterError("m", f"must be an integer >= 2, got {m!r}")
    if isinstance(log_base, bool) or not (isinstance(log_base, (int, float)) and log_base > 1):
        raise InvalidParameterError("log_base", f"must be a real number > 1, got {log_base!r}")
    log_m = math.log(m) / math.log(log_base)
    if log_m <= 1.0:
        raise InvalidParameterError(
            "m", f"the DFM guidance 2 log m / log log m is undefined for m={m} in base "
                 f"{log_base:g} (needs log m > 1, i.e. m > {log_base:g})")
    return 2.0 * log_m / (math.log(log_m) / math.log(log_base))


def dfm_max_dim(m: int, log_base: float = 10) -> int:
    r"""Largest integer p with :math:`p < 2\log m / \log\log m` (guidance only).

    The paper states that the Gaussian phenomenon of random projections
    "generally occurs for p < 2 log(m)/log(log(m))"; its example (m = 100 gives
    p <= 13) needs base-10 logarithms, the default here. Any 1 <= p < m is
    allowed by :class:`~matrixdp.synth.RONGauss`; this only says where the
    projected data are expected to look Gaussian.

    Parameters
    ----------
    m : int
        Number of features.
    log_base : float, default 10
        Base of the logarithms (``math.e`` for the natural-log reading).

    Returns
    -------
    int
        At least 1 and at most m - 1.

    Examples
    --------
    >>> dfm_max_dim(100)
    13
    >>> import math; dfm_max_dim(100, log_base=math.e)
    6

    References
    ----------
    .. [1] T. Chanyaswad, C. Liu, P. Mittal, "RON-Gauss", PoPETs 2019, Section 3.4.
    """
    bound = dfm_bound(m, log_base)
    p = math.ceil(bound) - 1  # strict inequality p < bound
    return int(max(1, min(p, m - 1)))
