"""DP directions: the SuLQ eigen-decomposition of XᵀX (spec mvg.md §6.5, §11 items 12, 15)."""

from __future__ import annotations

import numpy as np
import pytest

from matrixdp.calibration.gaussian import analytic_gaussian_sigma, classic_gaussian_sigma
from matrixdp.models.dp_directions import (
    DPEigenDecomposition,
    dp_covariance_eigen,
    dp_svd_directions,
    gram_sensitivity,
)
from matrixdp._linalg import check_directions
from matrixdp.errors import (
    InvalidParameterError,
    InvalidPrivacyParameterError,
    InvalidShapeError,
    NonFiniteInputError,
    OutOfBoundsError,
)
from matrixdp.mechanisms.base import PrivacyGuarantee


def _orthonormal(dim, seed):
    q, r = np.linalg.qr(np.random.default_rng(seed).standard_normal((dim, dim)))
    return q * np.sign(np.diagonal(r))


@pytest.fixture(scope="module")
def liver_like():
    rng = np.random.default_rng(42)
    basis = _orthonormal(6, 3)
    scales = np.array([0.5, 0.3, 0.15, 0.08, 0.05, 0.02])
    x = (rng.standard_normal((248, 6)) * scales) @ basis.T
    return np.clip(x, -1, 1), basis


def test_dp_svd_directions_shape_orthonormal_and_guarantee(liver_like):
    x, _ = liver_like
    w, privacy = dp_svd_directions(x, epsilon=0.2, delta=0.2 / 248, bounds=(-1, 1), rng=0)
    assert w.shape == (6, 6)
    check_directions(w, 6)
    assert isinstance(privacy, PrivacyGuarantee)
    assert (privacy.epsilon, privacy.delta) == (0.2, pytest.approx(0.2 / 248))
    assert privacy.calibration == "classic" and not privacy.exact
    w2, _ = dp_svd_directions(x, epsilon=0.2, delta=0.2 / 248, bounds=(-1, 1), rng=0, n_components=2)
    assert np.allclose(w2, w[:, :2])


def test_dp_covariance_noise_scale_is_from_public_bounds(liver_like):
    x, _ = liver_like
    result = dp_covariance_eigen(x, epsilon=0.2, delta=1e-3, bounds=(-1, 1), rng=1)
    assert isinstance(result, DPEigenDecomposition)
    assert result.sensitivity == 12.0      # 2 max||x||² = 2*6 for [-1, 1]^6 (spec §6.5)
    assert result.noise_scale == pytest.approx(classic_gaussian_sigma(0.2, 1e-3, 12.0))
    # the same for other data in the same bounds: nothing is read from the data
    other = dp_covariance_eigen(0.01 * x, epsilon=0.2, delta=1e-3, bounds=(-1, 1), rng=1)
    assert other.noise_scale == result.noise_scale
    analytic = dp_covariance_eigen(x, epsilon=2.0, delta=1e-3, norm_bound=2.0, calibration="analytic", rng=1)
    assert analytic.sensitivity == 8.0
    assert analytic.noise_scale == pytest.approx(analytic_gaussian_sigma(2.0, 1e-3, 8.0))
    assert gram_sensitivity(bounds=([-1, 0, -2], [1, 3, 1]), n_features=3) == 2 * (1 + 9 + 4)


def test_dp_covariance_noise_is_symmetric_gaussian_with_stated_scale(liver_like):
    x, _ = liver_like
    gram = x.T @ x
    sigma = classic_gaussian_sigma(0.5, 1e-3, 12.0)
    diffs = []
    for seed in range(300):
        r = dp_covariance_eigen(x, epsilon=0.5, delta=1e-3, bounds=(-1, 1), rng=seed)
        noisy = (r.directions * r.eigenvalues) @ r.directions.T
        diffs.append(noisy - gram)
    diffs = np.array(diffs)
    assert np.allclose(diffs, np.swapaxes(diffs, 1, 2), atol=1e-8)
    upper = diffs[:, np.triu_indices(6)[0], np.triu_indices(6)[1]]
    sd = upper.std()
    # 300 x 21 samples: relative sd error ~ 1/sqrt(2*6300) ~ 0.009
    assert abs(sd / sigma - 1) < 0.05
    assert abs(sd / (0.7 * sigma) - 1) > 0.2 and abs(sd / (1.3 * sigma) - 1) > 0.2
    assert abs(np.corrcoef(upper[:, 0], upper[:, 1])[0, 1]) < 0.2


def test_dp_directions_recover_true_basis_with_large_budget(liver_like):
    x, _ = liver_like
    lam, vecs = np.linalg.eigh(x.T @ x)
    exact = vecs[:, ::-1]
    w, _ = dp_svd_directions(x, epsilon=1e6, delta=0.1, bounds=(-1, 1), calibration="analytic", rng=2)
    assert abs(w[:, 0] @ exact[:, 0]) > 1 - 1e-6
    assert abs(w[:, 1] @ exact[:, 1]) > 1 - 1e-6
    # at a realistic budget the noise does move them (the test above is not vacuous)
    w_noisy, _ = dp_svd_directions(x, epsilon=0.2, delta=1e-3, bounds=(-1, 1), rng=2)
    assert abs(w_noisy[:, 5] @ exact[:, 5]) < 1 - 1e-3


def test_dp_directions_input_errors(liver_like):
    x, _ = liver_like
    with pytest.raises(OutOfBoundsError):
        dp_svd_directions(2 * x + 0.5, epsilon=0.2, delta=1e-3, bounds=(-1, 1), rng=0)
    clipped, _ = dp_svd_directions(2 * x + 0.5, epsilon=0.2, delta=1e-3, bounds=(-1, 1), clip=True, rng=0)
    check_directions(clipped, 6)
    with pytest.raises(OutOfBoundsError):
        dp_svd_directions(x, epsilon=0.2, delta=1e-3, norm_bound=0.1, rng=0)
    with pytest.raises(InvalidParameterError, match="never read") as info:
        dp_svd_directions(x, epsilon=0.2, delta=1e-3, rng=0)
    assert info.value.argument == "bounds"
    with pytest.raises(InvalidPrivacyParameterError) as info:
        dp_svd_directions(x, epsilon=0.0, delta=1e-3, bounds=(-1, 1), rng=0)
    assert info.value.argument == "epsilon"
    with pytest.raises(InvalidPrivacyParameterError):   # classic needs epsilon < 1
        dp_svd_directions(x, epsilon=2.0, delta=1e-3, bounds=(-1, 1), rng=0)
    with pytest.raises(InvalidShapeError) as info:
        dp_svd_directions(x, epsilon=0.2, delta=1e-3, bounds=([-1, -1], [1, 1]), rng=0)
    assert info.value.argument == "bounds"
    with pytest.raises(InvalidParameterError, match="lower must be"):
        dp_svd_directions(x, epsilon=0.2, delta=1e-3, bounds=(1, -1), rng=0)
    with pytest.raises(NonFiniteInputError):
        dp_svd_directions(np.where(x > 0.4, np.nan, x), epsilon=0.2, delta=1e-3, bounds=(-1, 1), rng=0)
    with pytest.raises(InvalidParameterError) as info:
        dp_svd_directions(x, epsilon=0.2, delta=1e-3, bounds=(-1, 1), n_components=7, rng=0)
    assert info.value.argument == "n_components"


def test_budget_split_composes_to_total():
    # §11.15: DP-SVD at (0.2ε, 0.2δ) plus MVG at (0.8ε, 0.8δ) sums to (ε, δ) by basic composition
    eps, delta = 1.0, 1 / 248
    _, svd_privacy = dp_svd_directions(np.zeros((5, 3)), epsilon=0.2 * eps, delta=0.2 * delta,
                                       bounds=(-1, 1), rng=0)
    assert svd_privacy.epsilon + 0.8 * eps == pytest.approx(eps)
    assert svd_privacy.delta + 0.8 * delta == pytest.approx(delta)


# ------------------------------------------- issue 23 item 6: the exact noise step's label
@pytest.mark.parametrize("numerics", ["exact", "float"])
def test_dp_directions_mvg_noise_privacy_names_its_numerics(numerics):
    """``noise_privacy`` of the lattice (discrete Gaussian) noise says exact numerics, its
    zCDP calibration and carries no Gaussian-shift mu; the float one keeps its mu.
    Before the fix the exact case said ``numerics=float`` and carried a mu."""
    from matrixdp.models import DPDirectionsMVG
    from matrixdp.queries import IdentityQuery

    X = np.random.default_rng(4).uniform(-1, 1, size=(60, 3))
    q = IdentityQuery(bounds=(-1, 1), n_features=3, n_samples=60)
    model = DPDirectionsMVG(shape=(60, 3), epsilon=1.0, delta=1e-5, sensitivity=q,
                            numerics=numerics, random_state=1).fit(X)
    noise = model.mechanism_.noise_privacy
    assert noise.epsilon < 1.0 and noise.delta < 1e-5  # the part left after the directions
    if numerics == "exact":
        assert noise.numerics == "exact"
        assert noise.mu is None
        assert noise.calibration == "discrete-zcdp"
        rel = model.release(np.zeros((60, 3)), rng=2)
        assert rel.noise.distribution.startswith("discrete") or "lattice" in str(rel.privacy.notes)
    else:
        assert noise.numerics == "float"
        assert noise.mu == pytest.approx(model.mechanism_.mahalanobis_sensitivity)
