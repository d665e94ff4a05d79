"""The membership-inference audit of generators: valid bound arithmetic, flags a copying
generator, and does not flag a correct DPCopula."""

import math

import numpy as np
import pandas as pd
import pytest

from matrixdp.audit.clopper_pearson import clopper_pearson_lower
from matrixdp.audit.membership import (encode_records, membership_audit, one_run_epsilon_lower,
                                       one_run_p_value)
from matrixdp.synth import DPCopula, TableSchema

SCHEMA = TableSchema(bounds={"a": (0.0, 1.0), "b": (0.0, 1.0)},
                     categories={"c": [f"c{i}" for i in range(6)]})


def table(n, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.beta(2, 5, n)
    b = np.clip(a + 0.2 * rng.standard_normal(n), 0, 1)
    c = np.array([f"c{i}" for i in rng.integers(0, 6, n)], dtype=object)
    y = (a + 0.3 * rng.standard_normal(n) > 0.3).astype(int)
    return pd.DataFrame({"a": a, "b": b, "c": c}), y


def test_pure_bound_is_the_log_odds_of_the_clopper_pearson_lower_bound():
    # delta = 0: rejecting eps at level alpha <=> P[Bin(r, q) >= v] < alpha, q = e^eps/(1+e^eps)
    r, v = 400, 300
    p = clopper_pearson_lower(v, r, 0.05)
    eps = one_run_epsilon_lower(r, v, 1000, 0.0, 0.95)
    assert eps == pytest.approx(math.log(p / (1 - p)), rel=1e-6)
    assert one_run_p_value(eps * 0.99, 0.0, r, v, 1000) < 0.05 < one_run_p_value(eps * 1.01, 0.0, r, v, 1000)


def test_delta_term_only_weakens_the_bound():
    assert one_run_epsilon_lower(400, 300, 1000, 1e-3, 0.95) < one_run_epsilon_lower(400, 300, 1000, 0.0, 0.95)
    assert one_run_epsilon_lower(400, 200, 1000, 1e-9, 0.95) == 0.0  # chance level: nothing


def test_bound_is_valid_for_randomised_response():
    # an eps-DP randomised-response "generator" on the membership bit: the bound must not exceed
    # eps (checked over many independent audits at 95%: at most a few exceed)
    rng = np.random.default_rng(1)
    eps, r = 1.0, 200
    q = math.exp(eps) / (1 + math.exp(eps))
    over = sum(one_run_epsilon_lower(r, int(rng.binomial(r, q)), r, 0.0, 0.95) > eps
               for _ in range(200))
    assert over <= 20  # expected <= 10 (5%); 20 is far in the tail of Bin(200, 0.05)


def test_encoding_scales_by_public_bounds():
    frame, y = table(5)
    Z = encode_records(frame, SCHEMA, y, classes=[0, 1])
    assert Z.shape == (5, 2 + 6 + 2)
    assert np.allclose(np.linalg.norm(Z[:, 2:8], axis=1), 1 / math.sqrt(2))


def copier(frame, labels, seed):
    return frame.copy(), labels.copy()


def test_copying_generator_is_flagged():
    X, y = table(600)
    res = membership_audit(copier, X, y, schema=SCHEMA, classes=[0, 1], n_canaries=100, n_runs=4,
                           epsilon=1.0, delta=1e-9, rng=0)
    by = {r.attack: r for r in res}
    assert by["dcr"].accuracy == 1.0 and by["dcr"].refuted
    assert by["dcr"].epsilon_lower_bound > 3.0
    assert by["shadow"].epsilon_lower_bound > 1.0 and by["shadow"].refuted
    assert "REFUTED" in str(by["dcr"])


def test_correct_dpcopula_is_not_flagged():
    X, y = table(600)

    def fit_sample(frame, labels, seed):
        model = DPCopula(schema=SCHEMA, epsilon=0.5, classes=[0, 1], random_state=seed)
        return model.fit(frame, labels).sample(len(frame), random_state=seed + 1)

    res = membership_audit(fit_sample, X, y, schema=SCHEMA, classes=[0, 1], n_canaries=100,
                           n_runs=4, epsilon=0.5, delta=1e-9, rng=0)
    for r in res:
        assert not r.refuted
        assert r.epsilon_lower_bound < 0.5
        assert 0.3 < r.auc < 0.7


def test_arguments_are_checked():
    X, y = table(50)
    with pytest.raises(Exception, match="attacks"):
        membership_audit(copier, X, y, schema=SCHEMA, classes=[0, 1], attacks=("nope",))
    with pytest.raises(Exception, match="classes"):
        membership_audit(copier, X, y, schema=SCHEMA, n_canaries=10)
