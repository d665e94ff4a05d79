"""MVGMechanism on a large random grid: private everywhere, exact where claimed (slow)."""

import numpy as np
import pytest

from matrixdp import MVGMechanism
from matrixdp.calibration.mvg_exact import exact_privacy_profile
from matrixdp.queries import CovarianceQuery, IdentityQuery


def _rotation(d, rng):
    q, r = np.linalg.qr(rng.standard_normal((d, d)))
    return q * np.sign(np.diagonal(r))


def _independent_delta(mech, eps):
    """delta(eps) recomputed from the dense row_cov/col_cov (independent eigendecompositions)."""
    return exact_privacy_profile(eps, mech.query, mech.row_cov, mech.col_cov)


@pytest.mark.slow
def test_large_random_grid_private_and_exact_where_claimed():
    rng = np.random.default_rng(12)
    for _ in range(150):
        eps = float(10 ** rng.uniform(-2, 1.5))
        delta = float(10 ** rng.uniform(-12, -1.5))
        n_feat = int(rng.choice([1, 2, 5, 17, 24]))
        n_rec = int(rng.integers(1, 30))
        kind = rng.choice(["identity", "covariance", "number"])
        if kind == "identity":
            sens, shape = IdentityQuery(bounds=(-rng.uniform(0, 3, n_feat), rng.uniform(0.1, 3, n_feat)),
                                        n_samples=n_rec), (n_rec, n_feat)
        elif kind == "covariance":
            sens, shape = CovarianceQuery(bounds=(-rng.uniform(0, 2), rng.uniform(0.1, 2)), n_features=n_feat,
                                          n_samples=n_rec), (n_feat, n_feat)
        else:
            sens, shape = float(rng.uniform(0.01, 10)), (n_rec, n_feat)
        mode = rng.choice(["iid", "unimodal"] + (["equimodal"] if kind == "covariance" else []))
        kw = {}
        if mode != "iid":
            dim = shape[0] if (mode == "equimodal" or kind != "identity") else shape[1]
            kw = {"precision": rng.dirichlet(np.ones(dim) * 0.5) * (1 - 1e-12),
                  "directions": _rotation(dim, rng) if rng.random() < 0.5 else None}
            kw["precision"] = np.maximum(kw["precision"], 1e-6)
            kw["precision"] /= kw["precision"].sum()
        mech = MVGMechanism(shape=shape, epsilon=eps, delta=delta, sensitivity=sens, mode=mode, **kw)
        got = _independent_delta(mech, eps)
        assert got <= delta * (1 + 1e-6)
        if mech.privacy.exact:
            assert got == pytest.approx(delta, rel=1e-6)
