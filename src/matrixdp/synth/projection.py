"""Random orthonormal (RON) projections for RON-Gauss: Haar by default, the paper's and the
reference code's variants for reproduction."""

from __future__ import annotations

from numbers import Integral

import numpy as np

from ..errors import InvalidParameterError
from ..mechanisms.draw import public_randomness
from ..rng import make_rng, random_directions

__all__ = ["PROJECTIONS", "ron_matrix", "check_dims"]

#: Ways to draw W. ``"haar"`` is the library default; the others reproduce sources.
PROJECTIONS = ("haar", "paper_uniform_qr_columns", "code_uniform_qr_rows", "gaussian_qr_unfixed")


def check_dims(m, p) -> tuple[int, int]:
    """Validate 1 <= p < m (RON-Gauss needs a true reduction)."""
    for name, value in (("n_features", m), ("dim", p)):
        if isinstance(value, bool) or not isinstance(value, Integral):
            raise InvalidParameterError(name, f"must be an integer, got {value!r}")
    if m < 2:
        raise InvalidParameterError("n_features", f"RON-Gauss needs at least 2 features, got {m}")
    if not 1 <= p < m:
        raise InvalidParameterError(
            "dim", f"must satisfy 1 <= dim < n_features = {m} (RON-Gauss projects to a lower "
                   f"dimension), got {p}")
    return int(m), int(p)


def ron_matrix(m: int, p: int, rng=None, method: str = "haar") -> np.ndarray:
    r"""Draw W ∈ R^{m×p} with orthonormal columns (:math:`W^\top W = I_p`).

    Records are rows, so a data matrix X of shape (n, m) is projected as
    ``X @ W`` (the paper's :math:`W^\top x_j` for each column record x_j).

    Parameters
    ----------
    m, p : int
        Original and projected dimensions, 1 <= p < m.
    rng : None, int or numpy.random.Generator
        ``None`` (default) draws from the per-process secure stream; a seed makes the draws
        reproducible (replayable by anyone who knows it; these draws are a data-independent public
        projection, so replaying them reveals no private value).
    method : str, default "haar"
        - ``"haar"``: reduced QR of an m×p standard Gaussian matrix with the sign
          fix W = Q·diag(sign(diag R)) (Mezzadri 2007); W is then Haar-distributed
          on the Stiefel manifold. Cost O(m p²).
        - ``"paper_uniform_qr_columns"``: QR of an m×m U[0,1) matrix, first p
          columns of Q (the paper's Algorithm 2). Not Haar: the first column is
          strongly aligned with the all-ones vector.
        - ``"code_uniform_qr_rows"``: the reference code (v1.4): QR of an m×m
          U[0,1) matrix, first p **rows** of Q, transposed.
        - ``"gaussian_qr_unfixed"``: Gaussian QR *without* the sign fix; LAPACK's
          Householder convention makes W[0, 0] <= 0 always, so this is not Haar.
          Provided only so the tests can show the sign fix matters.

    Returns
    -------
    ndarray of shape (m, p)

    References
    ----------
    .. [1] F. Mezzadri, "How to generate random matrices from the classical
       compact groups", Notices of the AMS 54(5), 2007.
    .. [2] T. Chanyaswad, C. Liu, P. Mittal, "RON-Gauss", PoPETs 2019, Algorithm 2.
    """
    m, p = check_dims(m, p)
    gen = make_rng(rng)
    if method == "haar":
        return random_directions(m, p, rng=gen)
    src = public_randomness(gen)  # a data-independent public projection
    if method == "gaussian_qr_unfixed":
        q, _ = np.linalg.qr(src.gaussian((m, p)), mode="reduced")
        return q
    if method == "paper_uniform_qr_columns":
        q, _ = np.linalg.qr(src.uniform_on((m, m)))
        return np.ascontiguousarray(q[:, :p])
    if method == "code_uniform_qr_rows":
        q, _ = np.linalg.qr(src.uniform_on((m, m)))
        return np.ascontiguousarray(q[:p, :].T)
    raise InvalidParameterError("projection", f"must be one of {PROJECTIONS}, got {method!r}")
