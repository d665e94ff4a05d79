"""DPCopula: privacy accounting (noise scales), output validity and the estimator contract."""

import math

import numpy as np
import pandas as pd
import pytest

from matrixdp.calibration.gaussian import gaussian_delta, max_gaussian_shift
from matrixdp.errors import InvalidParameterError, InvalidShapeError
from matrixdp.synth.copula import (
    DPCopula,
    correlation_sensitivity,
    interval_score_moments,
    simplex_projection,
)
from matrixdp.synth.schema import TableSchema

SCHEMA = TableSchema(bounds={"age": (18, 90), "income": (0.0, 200.0)},
                     categories={"colour": ["red", "green", "blue"]}, integer=("age",))


def _table(n=400, seed=0):
    rng = np.random.default_rng(seed)
    y = (rng.uniform(size=n) < 0.25).astype(int)
    age = np.clip(np.round(30 + 15 * y + 10 * rng.standard_normal(n)), 18, 90).astype(int)
    income = np.clip(50 + 40 * y + 0.8 * (age - 30) + 20 * rng.standard_normal(n), 0, 250)
    colour = np.where(rng.uniform(size=n) < 0.5 + 0.3 * y, "red",
                      np.where(rng.uniform(size=n) < 0.5, "green", "blue"))
    return pd.DataFrame({"age": age, "income": income, "colour": colour}), y


def test_output_has_the_input_columns_categories_bounds_and_units():
    X, y = _table()
    model = DPCopula(schema=SCHEMA, epsilon=1.0, classes=[0, 1], random_state=0).fit(X, y)
    X_syn, y_syn = model.sample(1000, random_state=1)
    assert list(X_syn.columns) == ["age", "income", "colour"]
    assert X_syn["age"].dtype.kind == "i"  # integer column stays integer
    assert X_syn["age"].between(18, 90).all() and X_syn["income"].between(0, 200).all()
    assert set(X_syn["colour"]) <= {"red", "green", "blue"}
    assert set(np.unique(y_syn)) <= {0, 1} and len(y_syn) == 1000


def test_unlabelled_fit_returns_a_frame_only():
    X, _ = _table()
    out = DPCopula(schema=SCHEMA, epsilon=1.0, random_state=0).fit(X).sample(50, random_state=0)
    assert isinstance(out, pd.DataFrame) and out.shape == (50, 3)


def test_class_priors_follow_the_real_balance():
    X, y = _table(n=4000)
    model = DPCopula(schema=SCHEMA, epsilon=5.0, classes=[0, 1], random_state=3).fit(X, y)
    assert model.class_priors_[1] == pytest.approx(y.mean(), abs=0.02)
    _, y_syn = model.sample(4000, random_state=0)
    assert y_syn.mean() == pytest.approx(y.mean(), abs=0.02)


def test_noise_scales_are_the_exact_gaussian_dp_split():
    X, y = _table()
    eps, delta, frac = 0.7, 1e-6, 0.3
    model = DPCopula(schema=SCHEMA, epsilon=eps, delta=delta, marginal_fraction=frac,
                     clip_scale=1.5, classes=[0, 1], random_state=0).fit(X, y)
    k = 3
    mu = max_gaussian_shift(eps, delta)
    assert model.marginal_sigma_ == pytest.approx(math.sqrt(k) / (mu * math.sqrt(frac)), rel=1e-12)
    clip = 1.5 * math.sqrt(k)
    sens_corr = clip ** 2 * math.sqrt((1 - 1 / k) / 2)
    assert model.correlation_sigma_ == pytest.approx(sens_corr / (mu * math.sqrt(1 - frac)), rel=1e-12)
    # the two releases use the whole budget and no more
    total = math.hypot(model.marginal_sensitivity_ / model.marginal_sigma_,
                       model.correlation_sensitivity_ / model.correlation_sigma_)
    assert gaussian_delta(eps, 1.0, total) <= delta
    assert gaussian_delta(eps, 1.0, total * 1.001) > delta
    assert model.privacy_.epsilon == eps and model.privacy_.delta == delta
    assert model.privacy_.neighbouring == "add-remove"
    assert model.privacy_.mu == pytest.approx(mu, rel=1e-9)  # composed by matrixdp.accounting


def test_correlation_sensitivity_is_attained_by_equal_scores():
    k, clip = 5, 2.0
    s = np.full(k, clip / math.sqrt(k))
    outer = np.outer(s, s)[np.triu_indices(k, 1)]
    assert np.linalg.norm(outer) == pytest.approx(correlation_sensitivity(k, clip), rel=1e-12)
    rng = np.random.default_rng(0)
    for _ in range(200):  # no score vector of norm <= clip exceeds it
        v = rng.standard_normal(k)
        v *= clip / np.linalg.norm(v)
        assert np.linalg.norm(np.outer(v, v)[np.triu_indices(k, 1)]) <= correlation_sensitivity(k, clip) + 1e-12


def _empirical_sd(noise):
    return float(np.sqrt(np.mean(np.square(noise))))


def test_histogram_noise_has_the_claimed_scale():
    """The released histograms minus the true counts: sd within 10% of sigma (rejects +-30%)."""
    X, y = _table(n=60)
    noise = []
    for seed in range(150):
        model = DPCopula(schema=SCHEMA, epsilon=1.0, n_bins=8, classes=[0, 1],
                         random_state=seed).fit(X, y)
        for col in ("age", "income"):
            e = model.bin_edges_[col]
            b = np.clip(np.searchsorted(e, np.clip(X[col], *SCHEMA.bounds[col]), side="right") - 1, 0, 7)
            true = np.stack([np.bincount(b[y == j], minlength=8) for j in (0, 1)])
            noise.append((model.marginal_counts_[col] - true).ravel())
        codes = pd.Categorical(X["colour"], categories=["red", "green", "blue"]).codes
        true = np.stack([np.bincount(codes[y == j], minlength=3) for j in (0, 1)])
        noise.append((model.marginal_counts_["colour"] - true).ravel())
    sd = _empirical_sd(np.concatenate(noise))
    sigma = model.marginal_sigma_
    assert abs(sd / sigma - 1) < 0.10
    assert abs(sd / (0.7 * sigma) - 1) > 0.10 and abs(sd / (1.3 * sigma) - 1) > 0.10


def test_score_moment_noise_has_the_claimed_scale():
    """Released off-diagonal score sums minus those recomputed from the released marginals."""
    X, y = _table(n=60)
    iu = np.triu_indices(3, 1)
    noise = []
    for seed in range(300):
        model = DPCopula(schema=SCHEMA, epsilon=1.0, n_bins=8, classes=[0, 1],
                         random_state=seed).fit(X, y)
        clip = model.clip_scale * math.sqrt(3)
        for j in (0, 1):
            Xc = X[y == j]
            S = np.empty((len(Xc), 3))
            for i, col in enumerate(("age", "income")):
                e = model.bin_edges_[col]
                b = np.clip(np.searchsorted(e, np.clip(Xc[col], *SCHEMA.bounds[col]), side="right") - 1,
                            0, 7)
                S[:, i] = interval_score_moments(model.marginals_[col][j])[1][b]
            order = model.orders_["colour"][j]
            pos = np.empty(3, dtype=int)
            pos[order] = np.arange(3)
            codes = pd.Categorical(Xc["colour"], categories=["red", "green", "blue"]).codes
            S[:, 2] = interval_score_moments(model.marginals_["colour"][j][order])[1][pos[codes]]
            norms = np.linalg.norm(S, axis=1)
            S *= np.minimum(1.0, clip / np.maximum(norms, 1e-300))[:, None]
            noise.append(model.correlation_raw_[j] - (S.T @ S)[iu])
    sd = _empirical_sd(np.concatenate(noise))
    sigma = model.correlation_sigma_
    assert abs(sd / sigma - 1) < 0.10
    assert abs(sd / (0.7 * sigma) - 1) > 0.10 and abs(sd / (1.3 * sigma) - 1) > 0.10


def test_seeded_runs_replay_and_no_generator_is_kept():
    X, y = _table()
    a = DPCopula(schema=SCHEMA, epsilon=1.0, classes=[0, 1], random_state=7).fit(X, y)
    b = DPCopula(schema=SCHEMA, epsilon=1.0, classes=[0, 1], random_state=7).fit(X, y)
    np.testing.assert_array_equal(a.correlation_raw_, b.correlation_raw_)
    pd.testing.assert_frame_equal(a.sample(20, random_state=1)[0], b.sample(20, random_state=1)[0])
    kept = [v for v in vars(a).values()
            if isinstance(v, (np.random.Generator, np.random.BitGenerator, np.random.RandomState))]
    assert kept == []
    assert len(a.sample(5)[0]) == 5  # random_state=None: a fresh secure generator


def test_schema_errors_name_the_argument_and_never_print_values():
    X, y = _table()
    bad = X.copy()
    bad.loc[0, "colour"] = "SECRET-purple"
    with pytest.raises(InvalidParameterError, match="colour") as err:
        DPCopula(schema=SCHEMA, epsilon=1.0, classes=[0, 1]).fit(bad, y)
    assert "SECRET" not in str(err.value)
    with pytest.raises(InvalidShapeError, match="missing"):
        DPCopula(schema=SCHEMA, epsilon=1.0, classes=[0, 1]).fit(X.drop(columns="age"), y)
    with pytest.raises(InvalidParameterError, match="classes"):
        DPCopula(schema=SCHEMA, epsilon=1.0).fit(X, y)
    with pytest.raises(InvalidParameterError, match="y"):
        DPCopula(schema=SCHEMA, epsilon=1.0, classes=[0]).fit(X, y)
    with pytest.raises(InvalidParameterError, match="schema"):
        DPCopula(schema={"age": (0, 1)}, epsilon=1.0).fit(X)
    with pytest.raises(InvalidParameterError, match="bounds"):
        TableSchema(bounds={"a": (1, 0)})


def test_simplex_projection_matches_the_definition():
    rng = np.random.default_rng(0)
    v = rng.normal(size=(50, 7))
    p = simplex_projection(v, 1.0)
    assert np.allclose(p.sum(axis=1), 1.0) and (p >= 0).all()
    # optimality: no feasible point is closer (checked against random feasible points)
    for i in range(50):
        q = rng.dirichlet(np.ones(7), size=200)
        assert np.linalg.norm(v[i] - p[i]) <= np.linalg.norm(v[i] - q, axis=1).min() + 1e-12


def test_scores_are_conditional_means_of_a_standard_normal():
    _, score, var = interval_score_moments(np.array([0.5, 0.5]))
    assert score == pytest.approx([-math.sqrt(2 / math.pi), math.sqrt(2 / math.pi)])
    assert var == pytest.approx(2 / math.pi)
    _, score, var = interval_score_moments(np.full(2000, 1 / 2000))
    assert var == pytest.approx(1.0, abs=0.01)  # fine bins: almost the normal itself


def test_a_one_bin_column_gets_no_spurious_correlation():
    # issue #26 (synth outside audit, scenario const_data): a column whose records are all equal
    # has, when its DP marginal keeps one bin, a constant score; its correlation estimate was
    # the noise divided by ~0 (saturated after the repair), so the synthetic within-bin position
    # followed another column (corr -0.95). Now such a column's correlations are 0.
    from matrixdp.synth import DPCopula

    rng = np.random.default_rng(20261128)
    n = 2000
    x = rng.normal(50, 10, n)
    z = 0.6 * (x - 50) / 10 + 0.8 * rng.normal(size=n)
    frame = pd.DataFrame({"x": x, "z": z, "k": np.full(n, 5.0)})
    schema = TableSchema(bounds={"x": (0, 100), "z": (-5, 5), "k": (0, 10)})
    one_bin = 0
    for seed in range(8):
        m = DPCopula(schema=schema, epsilon=3.0, random_state=seed).fit(frame)
        if np.count_nonzero(m.marginals_["k"][0]) == 1:
            one_bin += 1
            R = m.correlation_[0]
            assert R[2, 0] == 0.0 and R[2, 1] == 0.0 and R[0, 2] == 0.0
            assert R[0, 1] > 0.3  # the real x-z correlation (0.6) is still estimated
            syn = m.sample(4000, random_state=seed)
            assert abs(np.corrcoef(syn["k"], syn["x"])[0, 1]) < 0.1
    assert one_bin >= 1  # the case is exercised


def test_a_sample_beyond_the_available_memory_is_refused_before_allocating(monkeypatch):
    # task HZ: DPCopula.sample had no memory check (RONGauss.sample has one): a large n_samples
    # allocated until the process failed (MemoryError under a 4 GiB limit in the probe) instead
    # of a refusal naming n_samples and the chunked writer
    from matrixdp.synth import _checks

    X, y = _table()
    model = DPCopula(schema=SCHEMA, epsilon=1.0, classes=[0, 1], random_state=0).fit(X, y)
    monkeypatch.setattr(_checks, "available_memory", lambda: 2 * 3 * 8 * 4 * 10_000)
    assert len(model.sample(10_000, random_state=0)[0]) == 10_000  # exactly at the limit: drawn
    with pytest.raises(InvalidParameterError, match=r"n_samples.*sample_to_parquet"):
        model.sample(10_001, random_state=0)


@pytest.mark.parametrize("epsilon, delta", [(1e-6, 1e-9), (1e-9, 1e-12)])
def test_a_tiny_budget_is_not_refused_as_an_accounting_bug(epsilon, delta):
    # task HZ: gdp_epsilon's absolute tolerance overstated the composed epsilon of a small budget
    # (1.0000000019e-6 for 1e-6), and the fit's own check raised "accounting bug"
    X, y = _table()
    model = DPCopula(schema=SCHEMA, epsilon=epsilon, delta=delta, classes=[0, 1],
                     random_state=0).fit(X, y)
    assert model.privacy_.epsilon == epsilon
    mu = math.hypot(model.marginal_sensitivity_ / model.marginal_sigma_,
                    model.correlation_sensitivity_ / model.correlation_sigma_)
    np.testing.assert_allclose(mu, max_gaussian_shift(epsilon, delta), rtol=1e-9)


def test_one_column_spends_the_whole_budget_on_its_histogram():
    # task HZ: a table of one column has no pair and releases no score moments, but half of mu*^2
    # (marginal_fraction) was still reserved for them: sigma 7.77 instead of 5.50 at (1, 1e-9)
    schema = TableSchema(bounds={"income": (0.0, 200.0)})
    X, y = _table(n=60)
    X = X[["income"]]
    mu = max_gaussian_shift(1.0, 1e-9)
    noise = []
    for seed in range(150):
        model = DPCopula(schema=schema, epsilon=1.0, n_bins=8, classes=[0, 1],
                         random_state=seed).fit(X, y)
        e = model.bin_edges_["income"]
        b = np.clip(np.searchsorted(e, np.clip(X["income"], 0, 200), side="right") - 1, 0, 7)
        true = np.stack([np.bincount(b[y == j], minlength=8) for j in (0, 1)])
        noise.append((model.marginal_counts_["income"] - true).ravel())
    assert model.marginal_sigma_ == pytest.approx(1.0 / mu, rel=1e-12)
    assert model.privacy_.epsilon == 1.0 and model.privacy_.mu == pytest.approx(mu, rel=1e-9)
    sd = _empirical_sd(np.concatenate(noise))  # 2,400 draws: sd within 10% (rejects +-30%)
    assert abs(sd * mu - 1) < 0.10
    assert abs(sd * mu / 0.7 - 1) > 0.10 and abs(sd * mu / 1.3 - 1) > 0.10


def test_a_seeded_model_lets_its_holder_replay_the_noise_as_documented():
    # task HZ: the int random_state stays on the fitted model (a parameter), so whoever holds a
    # seeded model recovers its exact histograms (docs/copula.md, "Randomness" says so now);
    # an unseeded model does not give them away
    import pickle

    X, y = _table()
    Z = pd.DataFrame({"age": np.full(50, 18), "income": np.zeros(50), "colour": ["red"] * 50})
    exact = np.histogram(np.clip(X["income"], 0, 200), bins=np.linspace(0, 200, 33))[0]
    for seed, replayed in ((5, True), (None, False)):
        held = pickle.loads(pickle.dumps(DPCopula(schema=SCHEMA, epsilon=1.0,
                                                  random_state=seed).fit(X)))
        probe = DPCopula(**held.get_params()).fit(Z)
        noise = probe.marginal_counts_["income"][0] - np.eye(32)[0] * 50
        error = np.max(np.abs(held.marginal_counts_["income"][0] - noise - exact))
        assert (error < 1e-9) == replayed  # unseeded: off by the noise (sigma ~ 11)
