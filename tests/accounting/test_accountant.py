"""The in-memory Accountant: refusal before any noise, totals, remaining, default accountant."""

from __future__ import annotations

import math

import numpy as np
import pytest

from matrixdp import GaussianMechanism, LaplaceMechanism, PrivacyGuarantee
from matrixdp.accounting import Accountant, charge, compose
from matrixdp.errors import BudgetExceededError, InvalidParameterError, UnsafeMechanismError


class CountingLaplace(LaplaceMechanism):
    """A Laplace mechanism that counts how often it draws noise."""

    draws = 0

    def _noise(self, shape, rng):
        type(self).draws += 1
        return super()._noise(shape, rng)


def test_refuses_before_drawing_noise_and_names_what_remains():
    CountingLaplace.draws = 0
    mech = CountingLaplace(epsilon=0.4, sensitivity=1.0)
    acc = Accountant(epsilon=1.0)
    mech.release(1.0, rng=0, accountant=acc)
    mech.release(1.0, rng=1, accountant=acc)
    with pytest.raises(BudgetExceededError, match=r"epsilon=0\.4.*epsilon=1\.2.*remains"):
        mech.release(1.0, rng=2, accountant=acc)
    assert CountingLaplace.draws == 2
    assert len(acc.spends) == 2
    assert acc.total().epsilon == pytest.approx(0.8)
    eps_left, delta_left = acc.remaining()
    assert eps_left == pytest.approx(0.2) and delta_left == 0.0


def test_budget_that_fits_exactly_k_releases():
    acc = Accountant(epsilon=1.0)
    g = LaplaceMechanism(epsilon=0.1, sensitivity=1.0).privacy
    for _ in range(10):
        acc.spend(g)
    with pytest.raises(BudgetExceededError):
        acc.spend(g)
    assert acc.total().epsilon == pytest.approx(1.0)


def test_context_manager_makes_it_the_default_and_nests():
    mech = GaussianMechanism(epsilon=0.5, delta=1e-7, sensitivity=1.0)
    outer = Accountant(epsilon=10.0, delta=1e-5)
    inner = Accountant(epsilon=10.0, delta=1e-5)
    with outer:
        mech.release(np.zeros(3), rng=0)
        with inner:
            mech.release(np.zeros(3), rng=1)
        mech.release(np.zeros(3), rng=2)
    mech.release(np.zeros(3), rng=3)  # outside: uncharged
    assert len(outer.spends) == 3 and len(inner.spends) == 1
    # an explicit accountant adds to the defaults (task KB; it replaced them, leaving the
    # block's keeper without the release)
    other = Accountant()
    with outer:
        mech.release(0.0, rng=4, accountant=other)
    assert len(outer.spends) == 4 and len(other.spends) == 1


def test_gaussian_releases_compose_exactly_through_gdp():
    mech = GaussianMechanism(epsilon=0.5, delta=1e-7, sensitivity=1.0)
    with Accountant(epsilon=3.0, delta=1e-5) as acc:
        for i in range(8):
            mech.release(0.0, rng=i)
    total = acc.total()
    assert total.calibration == "gdp" and total.exact
    assert total.mu == pytest.approx(math.sqrt(8) * mech.privacy.mu)
    assert total.epsilon < 0.5 * 8  # far below basic composition
    # with the GDP composition the budget admits more releases than basic would (6)
    assert acc.total(delta=1e-5).epsilon <= 3.0


def test_mixing_relations_and_refuted_raise():
    acc = Accountant(epsilon=5.0)
    acc.spend(LaplaceMechanism(epsilon=0.1, sensitivity=1.0).privacy)
    with pytest.raises(InvalidParameterError, match="neighbouring"):
        acc.spend(LaplaceMechanism(epsilon=0.1, sensitivity=1.0, neighbouring="add-remove").privacy)
    bad = PrivacyGuarantee(epsilon=0.1, delta=0.0, refuted=True, mechanism="paper")
    with pytest.raises(UnsafeMechanismError):
        acc.check(bad)
    unsafe = Accountant(epsilon=5.0, allow_unsafe=True)
    unsafe.spend(bad)
    assert unsafe.total().refuted


def test_accountant_relation_is_enforced_from_the_start():
    acc = Accountant(epsilon=1.0, relation="add-remove")
    with pytest.raises(InvalidParameterError, match="neighbouring"):
        acc.check(LaplaceMechanism(epsilon=0.1, sensitivity=1.0).privacy)


def test_spend_accepts_release_and_parallel_parts():
    mech = LaplaceMechanism(epsilon=0.3, sensitivity=1.0)
    rel = mech.release(2.0, rng=0)
    acc = Accountant(epsilon=1.0)
    acc.spend(rel, label="count")
    assert acc.spends[0][0] == "count"
    acc.spend_parallel([mech.privacy] * 5, partition_public=True, label="per class")
    assert acc.total().epsilon == pytest.approx(0.6)


def test_charge_hook_for_estimators_uses_default_and_spends_on_exception():
    g = LaplaceMechanism(epsilon=0.25, sensitivity=1.0).privacy
    with Accountant(epsilon=1.0) as acc:
        with charge(g, label="fit"):
            pass
        with pytest.raises(RuntimeError):
            with charge(g):
                raise RuntimeError("noise drawn, then failure")
    assert len(acc.spends) == 2  # never under-counts


def test_a_refusing_keeper_leaves_the_others_uncharged():
    g = LaplaceMechanism(epsilon=0.5, sensitivity=1.0).privacy
    roomy, tight = Accountant(epsilon=10.0), Accountant(epsilon=0.1)
    with pytest.raises(BudgetExceededError):
        with charge(g, accountant=roomy, ledger=tight):
            pass
    assert len(roomy.spends) == 0


def test_total_matches_compose_and_remaining_by_basic_headroom():
    gs = [GaussianMechanism(epsilon=0.2, delta=1e-8, sensitivity=1.0).privacy] * 5
    acc = Accountant(epsilon=2.0, delta=1e-6)
    for g in gs:
        acc.spend(g)
    assert acc.total().epsilon == pytest.approx(compose(gs, delta=1e-6).epsilon)
    eps_left, delta_left = acc.remaining()
    assert delta_left == pytest.approx(1e-6 - 5e-8)
    # anything within the headroom does fit (basic composition with the spent total)
    acc.check(PrivacyGuarantee(epsilon=eps_left, delta=delta_left))
    with pytest.raises(InvalidParameterError):
        Accountant(epsilon=1.0, method="fancy")


def test_releases_inside_a_charge_are_not_charged_twice():
    inner = LaplaceMechanism(epsilon=0.1, sensitivity=1.0)
    whole = LaplaceMechanism(epsilon=0.3, sensitivity=1.0).privacy
    with Accountant(epsilon=1.0) as acc:
        with charge(whole, label="estimator fit"):
            for i in range(3):  # the estimator's own mechanisms
                inner.release(0.0, rng=i)
        inner.release(0.0, rng=9)  # outside the charge: charged as usual
    assert [label for label, _ in acc.spends] == ["estimator fit", "laplace"]
    assert acc.total().epsilon == pytest.approx(0.4)


def test_an_empty_accountant_has_spent_nothing():
    total = Accountant(epsilon=1.0, delta=1e-6).total()
    assert total.epsilon == 0.0 and total.calibration == "none"


class SlowLaplace(LaplaceMechanism):
    """A Laplace mechanism whose noise takes a while: threads overlap inside the charge."""

    def _noise(self, shape, rng):
        import time

        time.sleep(0.05)
        return super()._noise(shape, rng)


def test_threads_sharing_an_accountant_never_overspend():
    # a check on entry and a record on exit let 8 threads pass the check before any recorded
    # (8 releases of 0.6 against a budget of 1.0, total 4.8); one of them fits
    import threading

    acc = Accountant(epsilon=1.0)
    mech = SlowLaplace(epsilon=0.6, sensitivity=1.0)
    barrier = threading.Barrier(8)
    outcomes = []

    def work(i):
        barrier.wait()
        try:
            mech.release(0.0, rng=i, accountant=acc)
            outcomes.append("released")
        except BudgetExceededError:
            outcomes.append("refused")

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(outcomes) == ["refused"] * 7 + ["released"]
    assert acc.total().epsilon == pytest.approx(0.6)
    assert len(acc.spends) == 1


def test_charge_records_on_entry_and_keeps_it_when_the_block_raises():
    acc = Accountant(epsilon=1.0)
    g = LaplaceMechanism(epsilon=0.3, sensitivity=1.0).privacy
    with pytest.raises(RuntimeError):
        with acc.charge(g, label="a"):
            assert acc.total().epsilon == pytest.approx(0.3)   # recorded before the noise
            raise RuntimeError("inside")
    assert [label for label, _ in acc.spends] == ["a"]


@pytest.mark.parametrize("delta", ["0.1", [0.1], True, float("nan"), 1.0, -1e-9])
def test_a_delta_budget_must_be_a_number_in_zero_one(delta):
    # text ("0.1") was accepted as 0.1 while an epsilon given as text was refused
    with pytest.raises(InvalidParameterError, match="delta"):
        Accountant(epsilon=1.0, delta=delta)
    assert Accountant(epsilon=1.0, delta=np.float32(1e-6)).delta == pytest.approx(1e-6)


def _fork_release(i):
    try:
        LaplaceMechanism(epsilon=0.6, sensitivity=1.0).release(0.0, rng=i)
        return "released"
    except TypeError as exc:
        return "refused: " + str(exc)[:60]


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs the fork start method")
def test_a_forked_copy_of_an_accountant_refuses_to_be_charged():
    # a Pool forked inside `with acc:` charged each child's copy (2 releases of 0.6 under a
    # budget of 1.0; the parent's tally stayed at 0)
    import multiprocessing as mp

    acc = Accountant(epsilon=1.0)
    with acc:
        with mp.get_context("fork").Pool(2) as pool:
            out = pool.map(_fork_release, range(4))
    assert all(o.startswith("refused: an in-memory Accountant cannot be charged") for o in out)
    assert acc.total().epsilon == 0.0
    LaplaceMechanism(epsilon=0.6, sensitivity=1.0).release(0.0, accountant=acc)   # the parent
    assert acc.total().epsilon == pytest.approx(0.6)
