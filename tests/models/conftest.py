"""Fixtures shared by the model tests."""

import numpy as np
import pytest
from matrixdp.models.experimental import RegressionOptions


class JointRelease:
    """Record, or substitute, the joint release of a ``DPLinearRegression`` fit (its first
    ``release_second_moment`` call). Substituting still draws the fit's own release first, so the
    rest of the fit uses the same random stream: only what the release says changes."""

    def __init__(self, monkeypatch):
        import matrixdp.models.linear as lin
        from matrixdp.models import boosted_fit, boosting, joint_release

        # every module that calls it: the fit (linear), the boosted fit's joint release
        # (boosted_fit), the release with a dedicated target mean (joint_release) and the second
        # joint release (boosting)
        self._modules, self._monkeypatch = (lin, boosted_fit, joint_release, boosting), monkeypatch
        self._original = lin.release_second_moment

    def _patch(self, donor=None) -> list:
        calls = []

        def wrapped(*args, **kwargs):
            rel = self._original(*args, **kwargs)
            calls.append(rel)
            return donor if donor is not None and len(calls) == 1 else rel

        for module in self._modules:
            self._monkeypatch.setattr(module, "release_second_moment", wrapped)
        return calls

    def fit(self, estimator, X, y):
        """``(fitted estimator, its joint release)``."""
        calls = self._patch()
        estimator.fit(X, y)
        return estimator, calls[0]

    def fit_with(self, estimator, X, y, donor):
        """The estimator fitted on ``(X, y)`` with ``donor`` in place of its joint release."""
        self._patch(donor)
        return estimator.fit(X, y)


@pytest.fixture
def joint_release(monkeypatch) -> JointRelease:
    return JointRelease(monkeypatch)


class GaussianReleases(list):
    """Every ``GaussianMechanism.release`` call of a test, in order, as ``[mechanism, value,
    noise]``. An entry is appended when the call starts (so a draw that was attempted counts even
    if it raised) and its noise (released minus exact value) is filled in when it returns."""

    def noise(self, shape) -> list:
        """The noise of the releases of a value of ``shape`` (e.g. a round's ``(d + 1,)`` sums)."""
        return [z for _, v, z in self if v.shape == tuple(shape)]


@pytest.fixture
def gaussian_releases(monkeypatch) -> GaussianReleases:
    from matrixdp.mechanisms import GaussianMechanism

    original = GaussianMechanism.release
    log = GaussianReleases()

    def spy(self, value, rng=None):
        exact = np.array(value, dtype=np.float64)
        entry = [self, exact, None]
        log.append(entry)
        out = original(self, value, rng=rng)
        entry[2] = np.asarray(out.value, dtype=np.float64) - exact
        return out

    monkeypatch.setattr(GaussianMechanism, "release", spy)
    return log


class BoostTables:
    """The synthetic tables of the boosting-branch tests (test_boosting.py,
    test_linear_ls_fallback.py, test_linear_ls_signal.py): the same tables, draw for draw, as
    the per-file helpers they replace."""

    @staticmethod
    def binary(n=1500, seed=0, d=4, slope=4.0):
        """A 0/1 target from a logistic model with weights ``linspace(slope, -slope, d)``
        (population R² ≈ 0.4 at the default slope): residuals near ±1/2, far above
        τ₀ = h_y/4, so §4e falls back."""
        rng = np.random.default_rng(seed)
        X = rng.uniform(-1, 1, (n, d))
        p = 1.0 / (1.0 + np.exp(-(X @ np.linspace(slope, -slope, d))))
        return X, (rng.uniform(size=n) < p).astype(float)

    @staticmethod
    def smooth(n=1500, seed=1, d=4):
        """A continuous target in [0, 1] with small residuals (§4e runs its rounds)."""
        rng = np.random.default_rng(seed)
        X = rng.uniform(-1, 1, (n, d))
        return X, np.clip(0.5 + 0.1 * X @ np.ones(d) + 0.01 * rng.standard_normal(n), 0, 1)


@pytest.fixture
def boost_tables() -> type[BoostTables]:
    return BoostTables


class LSRoundsNoise:
    """``(boost_rounds, X, y, eps) -> (pooled sd, planned σ)``: ``fits`` seeded fits of
    ``DPLinearRegression(boost_rounds=...)`` on ``X`` in [-1, 1]^d, ``y`` in [0, 1], each
    asserted to take the least-squares rounds; the noise of every round's ``(d + 1,)`` release
    pooled (asserted ``fits × T_ls × (d + 1)`` values) and σ planned for (T_ls, τ = h_y = 1/2)
    (the noise tests of test_linear_ls_fallback.py and test_linear_ls_signal.py)."""

    def __init__(self, releases: GaussianReleases):
        self._releases = releases

    def __call__(self, boost_rounds, X, y, eps, fits=40):
        from matrixdp.models import DPLinearRegression
        from matrixdp.models.boosting import BOOST_JOINT_SHARE, BOOST_LS_ROUNDS, boosted_plan
        from matrixdp.models.joint_release import regression_task

        n, d = X.shape
        task = regression_task(np.full(d, -1.0), np.full(d, 1.0), 0.0, 1.0, n, True)[0]
        sigma = boosted_plan(task, eps, 1e-6, "auto", BOOST_LS_ROUNDS, 0.5, BOOST_JOINT_SHARE,
                             True)[1].sigma
        for s in range(fits):
            est = DPLinearRegression(epsilon=eps,
                                     experimental=RegressionOptions(boost_rounds=boost_rounds), random_state=s,
                                     bounds_X=(-1, 1), bounds_y=(0, 1)).fit(X, y)
            assert est.boost_branch_ == "ls-rounds"
        noise = np.concatenate(self._releases.noise((d + 1,)))
        assert noise.size == fits * BOOST_LS_ROUNDS * (d + 1)
        return float(np.std(noise)), sigma


@pytest.fixture
def ls_rounds_noise(gaussian_releases) -> LSRoundsNoise:
    return LSRoundsNoise(gaussian_releases)


class HeartLike(tuple):
    """``(X, y, X_test, y_test, OLS coefficients with the intercept last, OLS test MSE)`` of a
    heart-like skewed target (tests of ``boost_clip="late"`` and ``"consistent"``): a linear signal
    with N(0, 1) noise plus, on about 5% of the records (more at large x₁), a positive excursion of
    10-30: residuals mostly well inside τ₀ = h_y/4 = 5 (§4e runs the rounds) with a long right tail
    that the fixed clip cuts (its fixed point is a Huber fit, not least squares). ``bounds``: the
    public bounds to fit with; ``mse(model)``: the clipped test MSE."""

    bounds = dict(bounds_X=(0, 1), bounds_y=(0, 40))

    @staticmethod
    def table(n, seed):
        rng = np.random.default_rng(seed)
        X = rng.uniform(0, 1, (n, 3))
        tail = rng.random(n) < 0.05 * (0.5 + X[:, 0])
        y = 5 + 2 * X[:, 0] + X[:, 1] + rng.normal(0, 1, n) + tail * rng.uniform(10, 30, n)
        return X, np.clip(y, 0, 40)

    def mse(self, model) -> float:
        return float(np.mean((np.clip(model.predict(self[2]), 0, 40) - self[3]) ** 2))


@pytest.fixture(scope="session")
def heartlike() -> HeartLike:
    X, y = HeartLike.table(2000, 0)
    Xt, yt = HeartLike.table(20000, 1)
    b = np.linalg.lstsq(np.column_stack([X, np.ones(len(y))]), y, rcond=None)[0]
    ols = float(np.mean((np.clip(Xt @ b[:-1] + b[-1], 0, 40) - yt) ** 2))
    return HeartLike((X, y, Xt, yt, b, ols))
