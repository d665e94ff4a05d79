"""Differentially private noise directions: a DP eigen-decomposition of ``Xᵀ X`` (SuLQ-style).

The MVG paper's Exp. I estimates the directions of its directional noise from the
private data itself (DP-SVD), spending part of the budget. That step draws
randomness, so it lives here, in a model's ``fit``, and the MVG mechanism only
receives its result: :class:`DPEigenDecomposition` (directions, noisy eigenvalues
and the guarantee spent). :class:`DPDirectionsMVG` is the convenience path: it
splits (ε, δ), estimates the directions in ``fit`` and configures an
:class:`~matrixdp.mechanisms.mvg.MVGMechanism` along them. Math:
``docs/mvg.md``.

Orientation: data ``X`` is ``(n_samples, n_features)`` (records in rows); the
paper stores records in columns, so its ``X Xᵀ`` is our ``Xᵀ X``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from .._budget import charge
from .._linalg import DIRECTIONS_REFERENCES, check_dim, cite
from .._record_sums import (as_record_matrix, ball_record_sums, bounded_record_sums,
                            is_dask_collection)
from .._validation import (
    check_delta,
    check_epsilon,
    check_finite_array,
    check_in_bounds,
    check_positive,
    check_row_norms,
    check_sensitivity,
)
from ..calibration.gaussian import analytic_gaussian_sigma, classic_gaussian_sigma
from ..errors import InvalidParameterError, InvalidShapeError, MatrixDPError
from ..mechanisms.base import PrivacyGuarantee
from ..mechanisms.draw import charged_noise
from ..rng import without_generators

__all__ = [
    "DPDirectionsMVG",
    "DPEigenDecomposition",
    "dp_covariance_eigen",
    "dp_svd_directions",
    "gram_sensitivity",
]

_cite = cite(DIRECTIONS_REFERENCES)


def gram_sensitivity(*, bounds=None, norm_bound=None, n_features: int | None = None) -> float:
    """Frobenius sensitivity of the Gram matrix ``Xᵀ X`` under replacing one record.

    ``||x xᵀ - y yᵀ||_F <= ||x||² + ||y||² <= 2 R²`` with ``R`` the public bound on
    a record's L2 norm: ``R² = Σ_j max(lo_j², hi_j²)`` for a box, or ``norm_bound²``.

    Parameters
    ----------
    bounds : (lower, upper), optional
        Public per-feature bounds (scalars or arrays of length ``n_features``).
    norm_bound : float, optional
        Public bound on each record's L2 norm.
    n_features : int, optional
        Needed when ``bounds`` are scalars.
    """
    if (bounds is None) == (norm_bound is None):
        raise InvalidParameterError("bounds", "give exactly one of bounds=(lower, upper) or norm_bound")
    if norm_bound is not None:
        r = check_positive(norm_bound, "norm_bound")
        return 2.0 * r * r
    lo, hi = _check_bounds(bounds, n_features)
    r2 = float(np.sum(np.maximum(lo * lo, hi * hi)))
    if r2 <= 0:
        raise InvalidParameterError("bounds", "bounds must not both be 0 everywhere")
    return 2.0 * r2


def _check_bounds(bounds, n_features: int | None) -> tuple[np.ndarray, np.ndarray]:
    try:
        lower, upper = bounds
    except (TypeError, ValueError):
        raise InvalidParameterError("bounds", f"must be a pair (lower, upper), got {bounds!r}") from None
    lo = check_finite_array(lower, "bounds")
    hi = check_finite_array(upper, "bounds")
    if lo.ndim > 1 or hi.ndim > 1:
        raise InvalidShapeError("bounds", "lower and upper must be scalars or 1-D arrays")
    try:
        if n_features is not None:
            lo = np.broadcast_to(lo, (n_features,)).astype(np.float64)
            hi = np.broadcast_to(hi, (n_features,)).astype(np.float64)
        elif lo.ndim == 0 and hi.ndim == 0:
            raise InvalidParameterError("n_features", "is required with scalar bounds")
        else:
            lo, hi = np.broadcast_arrays(lo, hi)
    except ValueError as exc:
        if isinstance(exc, InvalidParameterError):
            raise
        raise InvalidShapeError("bounds", f"lower/upper do not match the {n_features} features: "
                                          f"{exc}") from None
    if np.any(lo > hi):
        raise InvalidParameterError("bounds", "lower must be <= upper")
    return np.asarray(lo, dtype=np.float64), np.asarray(hi, dtype=np.float64)


@dataclass(frozen=True)
class DPEigenDecomposition:
    """A differentially private eigen-decomposition of the Gram matrix ``Xᵀ X``.

    Attributes
    ----------
    directions : ndarray, shape (n_features, k)
        Orthonormal eigenvectors of the noisy Gram matrix, by decreasing eigenvalue.
    eigenvalues : ndarray, shape (k,)
        The matching noisy eigenvalues (may be <= 0 for weak directions). These
        are the paper's ``Λ_f`` for ``K_f = X Xᵀ`` (ours ``Xᵀ X``, not divided by n).
    noise_scale : float
        Std of the Gaussian noise on each upper-triangular entry.
    sensitivity : float
        The Frobenius sensitivity used.
    privacy : PrivacyGuarantee
    """

    directions: np.ndarray
    eigenvalues: np.ndarray
    noise_scale: float
    sensitivity: float
    privacy: PrivacyGuarantee


@_cite
def dp_covariance_eigen(data, *, epsilon, delta, bounds=None, norm_bound=None, sensitivity=None,
                        n_components: int | None = None, calibration: str = "classic",
                        clip: bool = False, rng=None, accountant=None, ledger=None
                        ) -> DPEigenDecomposition:
    """SuLQ-style DP eigen-decomposition of ``Xᵀ X`` (the paper's DP-SVD for directions, spec §6.5).

    Releases ``C̃ = Xᵀ X + E`` with ``E`` symmetric, its upper triangle (with the
    diagonal) i.i.d. ``N(0, σ²)`` and mirrored; the release is the upper triangle,
    whose L2 sensitivity is at most the Frobenius sensitivity ``s_C`` of ``Xᵀ X``.
    Then eigendecomposes ``C̃`` (post-processing).

    Guarantee: (ε, δ)-DP under replace-one neighbours, for records inside the public
    ``bounds`` / ``norm_bound``. ``s_C`` bounds the triangle's sensitivity from above, so the
    returned ``privacy.exact`` is False with either calibration ("classic" is a further
    sufficient bound that needs ε < 1; "analytic" is tight for ``s_C``).

    Parameters
    ----------
    data : array_like, shape (n_samples, n_features), or a Dask array / data frame
        Private records in rows (the paper's ``X`` transposed). Dask input is checked against
        the public ``bounds`` / ``norm_bound`` and summed block by block; only ``Xᵀ X`` reaches
        the driver (``docs/scaling.md``).
    epsilon, delta : float
        The budget for this step (the MVG mechanism passes 20% of its total).
    bounds : (lower, upper), optional
        Public per-feature bounds; data outside them raises (or is clipped with ``clip=True``).
    norm_bound : float, optional
        Public bound on each record's L2 norm (rows above it raise, or are rescaled with ``clip=True``).
    sensitivity : float, optional
        Frobenius sensitivity of ``Xᵀ X`` given directly (public); otherwise
        ``2 R²`` from ``bounds`` / ``norm_bound`` (:func:`gram_sensitivity`).
        Never derived from the data.
    n_components : int, optional
        Keep the top ``k`` directions (default: all, a square orthonormal matrix).
    calibration : {"classic", "analytic"}
        ``"classic"`` (spec §6.5): ``σ = s_C sqrt(2 ln(1.25/δ))/ε``, valid for ε < 1;
        ``"analytic"``: the exact Balle-Wang σ (smaller, any ε).
    clip : bool
        Clip the data to the public bounds instead of raising.
    rng : None, int or numpy.random.Generator
        ``None`` (default) draws from the per-process secure stream; a seed makes the
        release reproducible, so a seeded release is replayable by anyone who knows the seed.
    accountant, ledger : optional
        Budget keepers (:mod:`matrixdp.accounting`) charged before the noise is drawn
        (default: those of an enclosing ``with`` block).

    Returns
    -------
    DPEigenDecomposition
    """
    eps = check_epsilon(epsilon)
    dlt = check_delta(delta)
    lazy = is_dask_collection(data)
    if lazy:  # checked and summed block by block below: only X^T X reaches the driver
        x = as_record_matrix(data, "data")
        if bounds is None and norm_bound is None:
            raise InvalidParameterError("bounds", "Dask input needs public bounds or norm_bound: "
                                                  "each block is checked against them where it "
                                                  "lives")
    else:
        x = check_finite_array(data, "data", ndim=2)
    n_features = x.shape[1]
    if n_features == 0 or (not lazy and x.shape[0] == 0):  # Dask rows are counted by the sums
        raise InvalidShapeError("data", f"must be non-empty, got shape {x.shape}")
    if calibration not in ("classic", "analytic"):
        raise InvalidParameterError("calibration", f"must be 'classic' or 'analytic', got {calibration!r}")
    if bounds is not None and norm_bound is not None:
        raise InvalidParameterError("bounds", "give at most one of bounds and norm_bound")
    if bounds is not None:
        lo, hi = _check_bounds(bounds, n_features)
        if lazy:
            x_gram = bounded_record_sums(x, lo, hi, clip=clip, argument="data").gram
        elif clip:
            x = np.clip(x, lo, hi)
        else:
            check_in_bounds(x, lo, hi, "data")
    elif norm_bound is not None:
        r = check_positive(norm_bound, "norm_bound")
        if lazy:
            x_gram = ball_record_sums(x, r, clip=clip, argument="data",
                                      bound_name="norm_bound").gram
        else:
            x = check_row_norms(x, r, "data", bound_name="norm_bound", clip=clip)
    if sensitivity is not None:
        s_c = check_sensitivity(sensitivity)
    elif bounds is not None or norm_bound is not None:
        s_c = gram_sensitivity(bounds=bounds, norm_bound=norm_bound, n_features=n_features)
    else:
        raise InvalidParameterError("bounds", "give public bounds, norm_bound or sensitivity; "
                                              "the sensitivity is never read from the data")
    if n_components is None:
        k = n_features
    else:
        k = check_dim(n_components, "n_components")
        if k > n_features:
            raise InvalidParameterError("n_components", f"must be <= n_features={n_features}, got {k}")
    if calibration == "classic":
        sigma = classic_gaussian_sigma(eps, dlt, s_c)
    else:
        sigma = analytic_gaussian_sigma(eps, dlt, s_c)
    # The noise is N(0, sigma^2) on the upper triangle (mirrored): a Gaussian shift of at most
    # ||upper triangle of the difference||_2 / sigma <= s_c / sigma, so the step is mu-GDP.
    privacy = PrivacyGuarantee(
        epsilon=eps, delta=dlt, calibration=calibration, exact=False, mu=float(s_c / sigma),
        mechanism="dp-covariance-eigen (SuLQ Gaussian on X^T X)",
        notes=(f"Frobenius sensitivity {s_c:.6g} of X^T X from public bounds "
               "(an upper bound: the guarantee is a sufficient bound)",))
    with charged_noise(privacy, rng, accountant=accountant, ledger=ledger,
                       label="dp directions") as src:
        raw = src.gaussian((n_features, n_features))
    upper = np.triu(raw)
    noise = upper + np.triu(raw, 1).T
    gram = (x_gram if lazy else x.T @ x) + sigma * noise
    lam, vecs = np.linalg.eigh(gram)
    order = np.argsort(lam)[::-1][:k]
    return DPEigenDecomposition(directions=np.ascontiguousarray(vecs[:, order]),
                                eigenvalues=lam[order], noise_scale=float(sigma),
                                sensitivity=float(s_c), privacy=privacy)


@_cite
def dp_svd_directions(data, *, epsilon, delta, bounds=None, norm_bound=None, sensitivity=None,
                      n_components: int | None = None, calibration: str = "classic",
                      clip: bool = False, rng=None) -> tuple[np.ndarray, PrivacyGuarantee]:
    """Differentially private feature directions (the paper's DP-SVD of Exp. I, SuLQ-style).

    Thin wrapper of :func:`dp_covariance_eigen` returning only the directions
    (eigenvectors of the noisy ``Xᵀ X``, by decreasing noisy eigenvalue) and the
    guarantee of this step, to be composed with the mechanism's own. The budget
    split (the paper gives 20% of ε and δ to this step) is the caller's job.

    Returns
    -------
    (directions, privacy) : (ndarray of shape (n_features, k), PrivacyGuarantee)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).uniform(-1, 1, size=(200, 4))
    >>> W, guarantee = dp_svd_directions(X, epsilon=0.2, delta=1e-6, bounds=(-1, 1), rng=1)
    >>> W.shape, guarantee.epsilon
    ((4, 4), 0.2)

    ``rng``: ``None`` (default) draws from the per-process secure stream; a seed or a Generator
    makes the draws reproducible, so a seeded release is replayable by anyone who knows the seed
    (they regenerate the noise and subtract it).
    """
    result = dp_covariance_eigen(data, epsilon=epsilon, delta=delta, bounds=bounds,
                                 norm_bound=norm_bound, sensitivity=sensitivity,
                                 n_components=n_components, calibration=calibration, clip=clip,
                                 rng=rng)
    return result.directions, result.privacy


class DPDirectionsMVG:
    """MVG noise along directions estimated privately from the data (the MVG paper's Exp. I).

    ``fit(X)`` spends ``fraction`` of (ε, δ) on a SuLQ DP eigen-decomposition of the
    records ``X`` (:func:`dp_covariance_eigen`, with the query's *public* record
    bounds; classic calibration below ε = 1, analytic above) and configures an
    :class:`~matrixdp.mechanisms.mvg.MVGMechanism` with the rest along the DP
    directions; their per-record noisy eigenvalues are the signal variances of
    ``precision="max-pnr"``. The reported guarantee is the basic composition of the
    two steps (never ``exact``).

    Parameters
    ----------
    fraction : float
        Share of (ε, δ) for the DP-directions step, in (0, 1) (default 0.2, the paper's).
    random_state : None, int or numpy.random.Generator
        Randomness of the DP-directions step (secure by default). A seeded fit is
        replayable by whoever knows the seed. Only used in :meth:`fit`. A Generator
        passed here is not saved with the model (pickling, ``copy.deepcopy`` and
        ``joblib.dump`` store ``random_state=None``): its state would replay the fit.
    accountant : Accountant or Ledger, optional
        The budget keeper charged by :meth:`fit` (the directions step) and :meth:`release`
        (the noise step) before their noise is drawn; the keyword every matrixdp estimator
        takes (an ``accountant=`` / ``ledger=`` given to ``fit`` or ``release`` overrides it).
        Default: the keepers of the enclosing ``with`` blocks, if any.
    **mvg_options
        The :class:`~matrixdp.mechanisms.mvg.MVGMechanism` arguments (``shape``,
        ``epsilon``, ``delta`` (the totals), ``sensitivity`` (a query with public record
        bounds: :class:`~matrixdp.queries.IdentityQuery` or
        :class:`~matrixdp.queries.CovarianceQuery`), ``precision``, ...), except
        ``directions`` and ``dp_directions``.

    Attributes
    ----------
    directions_ : DPEigenDecomposition
        The released DP directions, eigenvalues divided by the number of records.
    mechanism_ : MVGMechanism
        The configured mechanism (no randomness, no generator state).

    Examples
    --------
    >>> import numpy as np
    >>> from matrixdp.queries import IdentityQuery
    >>> X = np.random.default_rng(0).uniform(-1, 1, size=(200, 4))
    >>> q = IdentityQuery(bounds=(-1, 1), n_features=4, n_samples=200)
    >>> model = DPDirectionsMVG(shape=(200, 4), epsilon=1.0, delta=1e-5, sensitivity=q,
    ...                         precision="max-pnr", random_state=1).fit(X)
    >>> model.mechanism_.privacy.epsilon, model.directions_.privacy.epsilon
    (1.0, 0.2)
    """

    def __init__(self, *, fraction: float = 0.2, random_state=None, accountant=None,
                 **mvg_options):
        for name in ("directions", "dp_directions"):
            if name in mvg_options:
                raise InvalidParameterError(name, "the directions are estimated in fit")
        self.fraction = fraction
        self.random_state = random_state
        self.accountant = accountant
        self.mvg_options = mvg_options

    def __getstate__(self) -> dict:
        """Pickle/deepcopy state without a Generator ``random_state`` (it would replay the fit),
        carrying an open ``with`` block's keeper (:func:`matrixdp._budget.carry_block_keeper`)."""
        from .._budget import carry_block_keeper

        return carry_block_keeper(without_generators(self.__dict__))

    def fit(self, X, *, accountant=None, ledger=None) -> "DPDirectionsMVG":
        """Estimate DP directions from the private records ``X`` and configure the mechanism.

        ``accountant`` / ``ledger`` (and the keepers of enclosing ``with`` blocks) are charged with
        the directions step before its noise is drawn; :meth:`release` charges the MVG noise
        step. Together they compose to at most the total ``(epsilon, delta)``.
        """
        from ..mechanisms.mvg import MVGMechanism
        from ..queries import as_structure

        opts = self.mvg_options
        epsilon = check_epsilon(opts.get("epsilon"))
        delta = check_delta(opts.get("delta"))
        frac = check_positive(self.fraction, "fraction")
        if frac >= 1:
            raise InvalidParameterError("fraction", f"must be in (0, 1), got {self.fraction!r}")
        q = as_structure(opts.get("sensitivity"), opts.get("shape"))
        if not callable(getattr(q, "dp_direction_bounds", None)):
            raise InvalidParameterError("dp_directions", "estimating directions from data "
                                                         "needs a query with public record "
                                                         "bounds (IdentityQuery or "
                                                         "CovarianceQuery)")
        if is_dask_collection(X):  # only the d x d Gram matrix is computed on the driver
            if q.n_samples is None:
                raise InvalidParameterError("sensitivity", "Dask input needs a query with the "
                                                           "public n_samples")
            data, kwargs = q.dp_direction_bounds(as_record_matrix(X, "dp_directions"))
            n_rec = q.n_samples
        else:
            data, kwargs = q.dp_direction_bounds(check_finite_array(X, "dp_directions", ndim=2))
            n_rec = data.shape[0]
        if accountant is None and ledger is None:
            accountant = self.accountant
        eps_d, delta_d = frac * epsilon, frac * delta
        calib = "classic" if eps_d < 1 else "analytic"
        result = dp_covariance_eigen(data, epsilon=eps_d, delta=delta_d,
                                     clip=getattr(q, "clip", False),
                                     calibration=calib, rng=self.random_state,
                                     accountant=accountant, ledger=ledger, **kwargs)
        # per-record second moment along each direction
        self.directions_ = dataclasses.replace(result, eigenvalues=result.eigenvalues / n_rec)
        self.mechanism_ = MVGMechanism(dp_directions=self.directions_, **opts)
        return self

    def release(self, value, rng=None, *, accountant=None, ledger=None, label: str = "mvg"):
        """``self.mechanism_.release(value, rng=rng)`` (fit first).

        ``rng``: ``None`` (default) draws from the per-process secure stream; a seed or a Generator
        makes the draws reproducible, so a seeded release is replayable by anyone who knows the seed
        (they regenerate the noise and subtract it). Budget keepers are charged with the MVG noise
        step alone (``mechanism_.noise_privacy``): the directions step was charged in :meth:`fit`.
        """
        if not hasattr(self, "mechanism_"):
            raise MatrixDPError("DPDirectionsMVG: call fit(X) before release")
        if accountant is None and ledger is None:
            accountant = self.accountant
        with charge(self.mechanism_.noise_privacy, accountant=accountant, ledger=ledger,
                    label=label):
            return self.mechanism_.release(value, rng=rng)
