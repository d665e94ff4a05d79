"""Algorithm 1: normalisation, the DP mean and its Laplace scale (spec section 6, items 1-3, 7, 8)."""

import math
import os

import numpy as np
import pytest
from scipy import stats

from matrixdp.errors import InvalidPrivacyParameterError
from matrixdp.synth import data_preprocessing, mean_sensitivity, normalize_rows, ron_matrix


def test_normalize_rows_unit_norm_zero_rows_and_idempotent():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 7)) * rng.uniform(0.01, 100, size=(50, 1))
    X[[3, 17]] = 0.0
    Xn = normalize_rows(X)
    norms = np.linalg.norm(Xn, axis=1)
    nonzero = np.ones(50, bool)
    nonzero[[3, 17]] = False
    np.testing.assert_allclose(norms[nonzero], 1.0, atol=1e-12)
    assert np.all(Xn[[3, 17]] == 0.0)
    np.testing.assert_allclose(normalize_rows(Xn), Xn, atol=1e-15)
    assert np.all(np.isfinite(Xn))


def test_data_preprocessing_shapes_and_noiseless_limit():
    rng = np.random.default_rng(1)
    X = rng.uniform(size=(300, 12))
    X_bar, mu_dp, mech = data_preprocessing(X, 1e12, rng=5)
    assert X_bar.shape == (300, 12) and mu_dp.shape == (12,)
    np.testing.assert_allclose(np.linalg.norm(X_bar, axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(mu_dp, normalize_rows(X).mean(axis=0), atol=1e-9)
    # the centring uses the DP mean, then re-normalises
    np.testing.assert_allclose(X_bar, normalize_rows(normalize_rows(X) - mu_dp), atol=1e-15)
    assert mech.scale == pytest.approx(2 * math.sqrt(12) / (300 * 1e12))


def test_data_preprocessing_rejects_bad_epsilon():
    with pytest.raises(InvalidPrivacyParameterError, match="epsilon_mean"):
        data_preprocessing(np.ones((3, 3)), 0.0, rng=0)


def test_mean_sensitivity_golden_values():
    # m = 100, n = 1000: Lemma 2 gives 2*sqrt(m)/n = 0.02; with eps_mu = 0.5 the scale is 0.04
    assert mean_sensitivity(100, 1000) / 0.5 == pytest.approx(0.04)
    assert mean_sensitivity(100, 1000, "paper") / 0.5 == pytest.approx(0.04)
    # the reference code uses half of it
    assert mean_sensitivity(100, 1000, "reference_code") / 0.5 == pytest.approx(0.02)


def test_mean_sensitivity_sound_and_attained_by_antipodal_pair():
    rng = np.random.default_rng(2)
    m, n = 9, 40
    bound = mean_sensitivity(m, n)
    X = normalize_rows(rng.normal(size=(n, m)))
    worst = 0.0
    for _ in range(2000):
        Xp = X.copy()
        Xp[rng.integers(n)] = normalize_rows(rng.normal(size=(1, m)))[0]
        worst = max(worst, np.abs(X.mean(0) - Xp.mean(0)).sum())
    assert worst <= bound + 1e-12
    X[0] = np.full(m, 1 / math.sqrt(m))
    Xp = X.copy()
    Xp[0] = -X[0]
    assert np.abs(X.mean(0) - Xp.mean(0)).sum() == pytest.approx(bound, rel=1e-12)
    # the reference code's sensitivity is exceeded by this pair
    assert np.abs(X.mean(0) - Xp.mean(0)).sum() > mean_sensitivity(m, n, "reference_code")


def _pooled_mean_noise(m, n, eps, draws, seed):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, m))
    true_mean = normalize_rows(X).mean(axis=0)
    gen = np.random.default_rng(seed + 1)
    noise = [data_preprocessing(X, eps, rng=gen)[1] - true_mean for _ in range(draws)]
    return np.concatenate(noise)


def test_dp_mean_noise_has_the_lemma2_laplace_scale():
    m, n, eps = 16, 200, 0.7
    b = 2 * math.sqrt(m) / (n * eps)
    z = _pooled_mean_noise(m, n, eps, draws=1000, seed=3)  # 16 000 noise values
    assert np.mean(np.abs(z)) == pytest.approx(b, rel=0.03)
    assert np.std(z) == pytest.approx(math.sqrt(2) * b, rel=0.03)
    assert stats.kstest(z, "laplace", args=(0, b)).pvalue > 1e-3
    for wrong in (0.7 * b, 1.3 * b):
        assert stats.kstest(z, "laplace", args=(0, wrong)).pvalue < 1e-6


@pytest.mark.parametrize("magnitude", [1e-320, 1e-300, 1e-161, 1e-160, 1e-158, 1.0, 1e155, 1e300])
def test_normalize_rows_is_exact_at_extreme_magnitudes(magnitude):
    """Every row norm must be <= 1 (the premise of Lemmas 2, 4, 5) whatever the record's scale.

    A plain x / ||x|| gives norms up to ~1.001 at magnitude 1e-160 (the squares lose precision as
    subnormals) and silently zeroes rows of magnitude >= 1e155 (the squares overflow)."""
    rng = np.random.default_rng(21)
    X = rng.uniform(0.1, 1.0, size=(2000, 5)) * magnitude
    with np.errstate(all="raise"):
        Xn = normalize_rows(X)
    np.testing.assert_allclose(np.linalg.norm(Xn, axis=1), 1.0, atol=1e-12)
    # the direction is kept: same as normalising the rescaled (well-conditioned) rows
    if magnitude >= 1e-300:
        np.testing.assert_allclose(Xn, normalize_rows(X / magnitude), atol=1e-12)



def _literal_projection(X, W, mu):
    return normalize_rows(normalize_rows(X) - mu) @ W


def test_one_pass_projection_equals_the_literal_algorithm_1():
    """unit_row_pass + centred_projection == normalize(normalize(X) - mu) @ W within 1e-12
    (summation order differs), including zero, huge, tiny and cancelling rows."""
    from matrixdp.synth.preprocessing import centred_projection, unit_row_pass

    rng = np.random.default_rng(5)
    X = rng.normal(size=(10_000, 12)) + 0.5
    X[3] = 0.0
    X[4] *= 1e155
    X[5] *= 1e-160
    W = ron_matrix(12, 4, rng=1)
    r, total, Y = unit_row_pass(X, W, chunk_rows=777)  # blocks that do not divide n
    np.testing.assert_allclose(total, normalize_rows(X).sum(axis=0), rtol=0, atol=1e-10)
    mu = total / X.shape[0] + rng.normal(scale=0.01, size=12)
    X[6] = mu * 3.0  # normalised row equal to mu / |mu|: the centred norm cancels
    X[7] = mu / np.linalg.norm(mu) * 7.0
    r, total, Y = unit_row_pass(X, W, chunk_rows=777)
    mu_unit = mu / np.linalg.norm(mu)  # a DP mean can have norm 1: row 7 then centres to 0
    for m in (mu, mu_unit):
        got = centred_projection(X, W, r, Y.copy(), m)
        np.testing.assert_allclose(got, _literal_projection(X, W, m), rtol=0, atol=1e-12)


def test_fit_is_unchanged_by_the_one_pass_preprocessing():
    """A seeded RON-Gauss group fit equals the literal pipeline within 1e-12."""
    from matrixdp.synth.covariance import cov_sensitivity, make_symmetric_psd, noisy_second_moment
    from matrixdp.synth.group import fit_group_replace_one

    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 9)) + 1.0
    W = ron_matrix(9, 3, rng=2)
    fit = fit_group_replace_one(X, W, epsilon_mean=1.0, epsilon_cov=1.0,
                                rng=np.random.default_rng(11))
    gen = np.random.default_rng(11)
    X_bar, mu, _ = data_preprocessing(X, 1.0, gen)
    Xt = X_bar @ W
    raw, _ = noisy_second_moment(Xt.T @ Xt / 3000, epsilon=1.0, sensitivity=cov_sensitivity(3, 3000),
                                 rng=gen)
    np.testing.assert_allclose(fit.mean, mu, rtol=0, atol=1e-12)
    np.testing.assert_allclose(fit.covariance_raw, raw, rtol=0, atol=1e-12)
    np.testing.assert_allclose(fit.covariance, make_symmetric_psd(raw), rtol=0, atol=1e-12)


@pytest.mark.parametrize("offset", [0.5, 1e3])
def test_blocked_scatter_equals_the_gram_of_the_literal_projection(offset):
    """centred_scatter (X @ mu, the centred rows and their Gram block by block) equals
    U.T @ U of the literal Algorithm 1 within 1e-12 relative, with labels appended, on data
    near the origin and badly centred data (offset 1e3: every unit row is close to the mean, so
    the centred norms are small and many rows take the explicitly centred path)."""
    from matrixdp.synth.preprocessing import centred_scatter, unit_row_pass

    rng = np.random.default_rng(8)
    X = rng.normal(size=(9_000, 10)) + offset
    X[3] = 0.0
    X[4] *= 1e155
    W = ron_matrix(10, 4, rng=3)
    labels = rng.uniform(-1, 1, size=9_000)
    r, total, Y = unit_row_pass(X, W, chunk_rows=1000)
    for mu in (total / 9_000 + rng.normal(scale=1e-4, size=10),
               total / np.linalg.norm(total)):
        U = np.hstack([_literal_projection(X, W, mu), labels[:, None]])
        want = U.T @ U
        got = centred_scatter(X, W, r, Y, mu, labels, chunk_rows=777)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12 * np.abs(want).max())
        got = centred_scatter(X, W, r, Y, mu, chunk_rows=777)
        np.testing.assert_allclose(got, want[:4, :4], rtol=1e-12,
                                   atol=1e-12 * np.abs(want).max())


def test_unit_row_pass_refuses_non_finite_entries_only_when_asked():
    from matrixdp.errors import NonFiniteInputError
    from matrixdp.synth.preprocessing import unit_row_pass

    W = ron_matrix(5, 2, rng=0)
    X = np.random.default_rng(1).normal(size=(50, 5))
    X[7] *= 1e200                      # finite: its squared norm overflows, still accepted
    unit_row_pass(X, W, check_finite=True, chunk_rows=16)
    for bad in (np.nan, np.inf, -np.inf):
        Z = X.copy()
        Z[33, 2] = bad
        with pytest.raises(NonFiniteInputError) as info:
            unit_row_pass(Z, W, check_finite=True, chunk_rows=16)
        assert info.value.argument == "X"
        unit_row_pass(Z, W, chunk_rows=16)   # the Dask path checks its blocks itself


def test_blocked_passes_do_not_depend_on_the_blas_threads():
    """With two BLAS threads allowed the two halves of the blocked passes run in two threads;
    the halves are fixed by n, so r, the sum, X @ W and the scatter are bit-identical with one
    thread, with two, and from a worker thread (which never starts threads), and a NaN in the
    second half is still refused (raised from the second thread)."""
    import threading

    from threadpoolctl import threadpool_limits

    from matrixdp.errors import NonFiniteInputError
    from matrixdp.synth.preprocessing import _halves, centred_scatter, unit_row_pass

    rng = np.random.default_rng(3)
    X = rng.normal(size=(20_000, 16)) + 0.4
    W = ron_matrix(16, 5, rng=4)
    labels = rng.uniform(-1, 1, size=20_000)
    assert _halves(20_000, 1000) == [(0, 10_000), (10_000, 20_000)]
    assert _halves(1999, 1000) == [(0, 1999)]

    def run():
        r, total, Y = unit_row_pass(X, W, chunk_rows=1000, check_finite=True)
        return r, total, Y, centred_scatter(X, W, r, Y, total / 20_000, labels, chunk_rows=1000)

    with threadpool_limits(1):
        one = run()
    with threadpool_limits(2):
        two = run()
    box = []
    worker = threading.Thread(target=lambda: box.append(run()))
    worker.start()
    worker.join()
    for got in (two, box[0]):
        for a, b in zip(one, got):
            assert np.array_equal(a, b)
    Z = X.copy()
    Z[15_000, 3] = np.nan
    with threadpool_limits(2), pytest.raises(NonFiniteInputError):
        unit_row_pass(Z, W, chunk_rows=1000, check_finite=True)


@pytest.mark.parametrize("task", ["unsupervised", "regression", "classification"])
def test_ron_gauss_fit_is_bit_identical_at_one_and_two_blas_threads(task):
    """A seeded fit whose groups span two halves of the blocked passes (each class too), which
    run in two threads when two BLAS threads are allowed, releases exactly the same model with
    one BLAS thread and with two: every fitted array and number, and the samples."""
    from threadpoolctl import threadpool_limits

    from matrixdp import RONGauss
    from matrixdp.synth.preprocessing import CHUNK_ROWS, SCATTER_ROWS, _halves

    n = 5 * max(CHUNK_ROWS, SCATTER_ROWS) + 17
    rng = np.random.default_rng(11)
    X = rng.normal(size=(n, 12)) + 0.2
    kw, y = {}, None
    if task == "regression":
        kw, y = {"label_bound": (-3.0, 3.0)}, np.clip(X[:, 0] + rng.normal(size=n), -3, 3)
    elif task == "classification":
        kw, y = {"classes": [0, 1]}, (X[:, 1] > 0.2).astype(int)
        assert all(len(_halves(int(np.sum(y == c)), rows)) == 2
                   for c in (0, 1) for rows in (CHUNK_ROWS, SCATTER_ROWS))

    def fit():
        model = RONGauss(dim=4, epsilon=1.0, task=task, random_state=5, **kw).fit(X, y)
        return model, model.sample(200)

    with threadpool_limits(1):
        one, sample_one = fit()
    with threadpool_limits(2):
        two, sample_two = fit()
    fitted = {k: v for k, v in vars(one).items() if k.endswith("_") and not k.startswith("_")}
    assert "covariance_raw_" in fitted and fitted.keys() == {
        k for k in vars(two) if k.endswith("_") and not k.startswith("_")}
    for name, value in fitted.items():
        other = getattr(two, name)
        if isinstance(value, np.ndarray):
            assert np.array_equal(value, other), name
        elif name != "privacy_":
            assert value == other, name
    for a, b in zip(sample_one if isinstance(sample_one, tuple) else (sample_one,),
                    sample_two if isinstance(sample_two, tuple) else (sample_two,)):
        assert np.array_equal(np.asarray(a), np.asarray(b))


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity") or len(os.sched_getaffinity(0)) < 2,
                    reason="pinning threads needs Linux and two allowed CPUs")
def test_split_pins_the_two_threads_to_different_cpus_and_restores_the_callers():
    """With two BLAS threads allowed the halves run pinned to disjoint CPU sets that cover the
    caller's (the scheduler otherwise often runs both on one core); the calling thread's
    affinity is restored afterwards, also when a half raises."""
    import threading

    from threadpoolctl import threadpool_limits

    from matrixdp.synth.preprocessing import _run_halves

    allowed = os.sched_getaffinity(0)
    seen = {}

    def work(i, start, stop):
        seen[i] = (os.sched_getaffinity(0), threading.current_thread() is threading.main_thread())
        if fail and i == 1:
            raise ValueError("second half")

    fail = False
    with threadpool_limits(2):
        _run_halves(work, 20_000, 1000)
    assert seen[0][1] and not seen[1][1]  # the second half ran in another thread
    assert not seen[0][0] & seen[1][0] and seen[0][0] | seen[1][0] == allowed
    assert os.sched_getaffinity(0) == allowed
    fail = True
    with threadpool_limits(2), pytest.raises(ValueError, match="second half"):
        _run_halves(work, 20_000, 1000)
    assert os.sched_getaffinity(0) == allowed
    with threadpool_limits(1):  # one BLAS thread: one thread, not pinned
        fail = False
        _run_halves(work, 20_000, 1000)
    assert seen[1] == (allowed, True)


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity") or len(os.sched_getaffinity(0)) < 2,
                    reason="pinning threads needs Linux and two allowed CPUs")
@pytest.mark.parametrize("value", ["0", "off"])
def test_pinning_can_be_turned_off(monkeypatch, value):
    """MATRIXDP_PIN_THREADS=0 (or off): the halves still run in two threads, unpinned (each keeps
    the caller's whole CPU set)."""
    import threading

    from threadpoolctl import threadpool_limits

    from matrixdp.synth.preprocessing import PIN_ENV, _run_halves

    allowed = os.sched_getaffinity(0)
    seen = {}

    def work(i, start, stop):
        seen[i] = (os.sched_getaffinity(0), threading.current_thread() is threading.main_thread())

    monkeypatch.setenv(PIN_ENV, value)
    with threadpool_limits(2):
        _run_halves(work, 20_000, 1000)
    assert seen[0] == (allowed, True) and seen[1] == (allowed, False)
    monkeypatch.setenv(PIN_ENV, "1")  # any other value pins
    with threadpool_limits(2):
        _run_halves(work, 20_000, 1000)
    assert seen[0][0] != allowed and not seen[0][0] & seen[1][0]
