"""The kernel query of the MVG paper's Theorem 4 (Example 2)."""

import math
import numpy as np
import pytest

from matrixdp.errors import OutOfBoundsError


def test_kernel_query_example_2():
    from matrixdp import MVGMechanism
    from matrixdp.queries import KernelQuery

    def rbf(x):
        sq = np.sum((x[:, None, :] - x[None, :, :]) ** 2, axis=-1)
        return np.exp(-sq)

    for n in (5, 7, 8, 20):
        q = KernelQuery(rbf, kernel_bound=1.0, n_samples=n)
        assert q.sensitivity_l2 == pytest.approx(math.sqrt(8 * n - 4))
        assert q.gamma == n
        assert (q.sensitivity_l2 < q.gamma) == (n >= 8)       # the paper's "n > 7"
    q = KernelQuery(rbf, kernel_bound=1.0, n_samples=8)
    x = np.random.default_rng(0).standard_normal((8, 2))
    k = q.compute(x)
    assert np.allclose(k, rbf(x)) and q.psd and q.symmetric and not q.sensitivity_l2_exact
    with pytest.raises(OutOfBoundsError):
        KernelQuery(lambda z: 2 * rbf(z), kernel_bound=1.0, n_samples=8).compute(x)
    mech = MVGMechanism(shape=(8, 8), epsilon=1.0, delta=1e-5, sensitivity=q, calibration="theorem3")
    assert mech.gamma == 8 and mech.privacy_profile(1.0) < 1e-5
    exact = MVGMechanism(shape=(8, 8), epsilon=1.0, delta=1e-5, sensitivity=q, mode="equimodal")
    assert exact.privacy_profile(1.0) <= 1e-5 * (1 + 1e-9) and not exact.privacy.exact
    exact.release(k, rng=0)
