"""Every shipped estimator and generator is charged: a tiny budget refuses it before any noise.

The classes are enumerated from :mod:`matrixdp.models` and :mod:`matrixdp.synth` (public
classes with ``fit``), so a new one without a case in ``tests/_estimator_cases.py`` fails
:func:`test_every_shipped_estimator_has_a_case`. On main before issue 23 DPCopula fitted inside
``with Accountant(1e-3, ...)`` and the accountant showed ε = 0.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from _estimator_cases import CASES, shipped_estimators  # noqa: E402

from matrixdp.accounting import Accountant, Ledger  # noqa: E402
from matrixdp.errors import BudgetExceededError, UnsafeMechanismError  # noqa: E402

TINY = dict(epsilon=1e-3, delta=1e-12)


def test_every_shipped_estimator_has_a_case():
    missing = shipped_estimators() - set(CASES)
    assert not missing, f"add a case to tests/_estimator_cases.py for {sorted(missing)}"


def _fit(case, relation, **keeper):
    init = keeper if "init" in case.keeper else {}
    est = case.make(relation, **init)
    D, _ = case.data(relation)
    fit_kw = keeper if "init" not in case.keeper else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return case.fit(est, D, **fit_kw)


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_tiny_enclosing_budget_refuses_the_fit(name):
    case = CASES[name]
    relation = case.relations[0]
    with Accountant(**TINY, relation=relation) as acc:
        with pytest.raises(BudgetExceededError):
            _fit(case, relation)
    assert acc.spends == ()


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("where", ["init", "fit"])
def test_a_tiny_explicit_accountant_refuses_the_fit(name, where):
    case = CASES[name]
    if where not in case.keeper:
        pytest.skip(f"{name} takes its keeper in {case.keeper}")
    relation = case.relations[0]
    acc = Accountant(**TINY, relation=relation)
    init = {"accountant": acc} if where == "init" else {}
    est = case.make(relation, **init)
    D, _ = case.data(relation)
    with pytest.raises(BudgetExceededError):
        case.fit(est, D, **({"accountant": acc} if where == "fit" else {}))
    assert acc.spends == ()


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_estimator_takes_the_accountant_keyword(name):
    """One keyword for every estimator: ``accountant=`` in the constructor (an Accountant or a
    Ledger), also a scikit-learn-style parameter (``get_params``)."""
    case = CASES[name]
    assert "init" in case.keeper
    acc = Accountant(epsilon=1.0)
    est = case.make(case.relations[0], accountant=acc)
    assert est.accountant is acc
    if hasattr(est, "get_params"):
        assert est.get_params()["accountant"] is acc


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_fit_is_recorded_by_an_enclosing_accountant_and_ledger(name, tmp_path):
    case = CASES[name]
    relation = case.relations[0]
    with Accountant(epsilon=100.0, delta=1e-3, relation=relation) as acc:
        model = _fit(case, relation)
    assert len(acc.spends) == case.charges  # 2 where DP bounds are charged as their own entry
    assert sum(g.epsilon for _, g in acc.spends) == pytest.approx(_total_epsilon(model),
                                                                  rel=1e-9)
    ledger = Ledger.create(tmp_path / "t.ledger", dataset="probe", epsilon=100.0, delta=1e-3,
                           relation=relation)
    with ledger:
        _fit(case, relation)
    assert len(ledger.history()) == case.charges
    assert ledger.spent().epsilon > 0


def _total_epsilon(model) -> float:
    if hasattr(model, "privacy_"):
        return model.privacy_.epsilon
    return model.directions_.privacy.epsilon  # DPDirectionsMVG: fit charges the directions step


# ----------------------------------------------------------- baselines and unsafe releases
def _baseline_calls():
    from matrixdp import LaplaceMechanism
    from matrixdp import baselines as B
    from matrixdp.models import CorrelatedSVMNoise

    X = np.random.default_rng(0).uniform(-0.5, 0.5, (40, 3))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    return {
        "mod_sulq": lambda: B.mod_sulq(X, epsilon=1.0, delta=1e-6, n_components=1,
                                       row_norm_bound=1.0, rng=0),
        "blocki_jl_covariance": lambda: B.blocki_jl_covariance(
            X, epsilon=1.0, delta=1e-6, r=4, row_norm_bound=1.0, rng=0),
        "ppca_top_component": lambda: B.ppca_top_component(X, epsilon=1.0, row_norm_bound=1.0,
                                                           rng=0),
        "ppca_components": lambda: B.ppca_components(X, epsilon=1.0, n_components=2,
                                                     row_norm_bound=1.0, sweeps=2, rng=0),
        "analyze_gauss (no stated guarantee)": lambda: B.analyze_gauss(np.eye(3), sigma=1.0,
                                                                       rng=0),
        # task PA (session 18): it drew through mechanism.sample_noise, the uncharged auditing path
        "symmetric_release": lambda: B.symmetric_release(
            np.cov(X.T), LaplaceMechanism(epsilon=1.0, sensitivity=1.0), rng=0),
        "wishart_pca (refuted)": lambda: B.wishart_pca(X, epsilon=1.0, n_components=1,
                                                       row_norm_bound=1.0, allow_unsafe=True,
                                                       rng=0),
        "CorrelatedSVMNoise (no DP)": lambda: CorrelatedSVMNoise(m=1.0, allow_unsafe=True)
        .release(X, y, rng=0),
        "DAWAMechanism.partition": lambda: B.DAWAMechanism((4, 4), epsilon=1.0)
        .partition(np.ones((4, 4)), rng=0),
        "HierarchicalHistogramMechanism.noisy_levels": lambda: B.HierarchicalHistogramMechanism(
            (4, 4), epsilon=1.0).noisy_levels(np.ones((4, 4)), rng=0),
    }


@pytest.mark.parametrize("name", sorted(_baseline_calls()))
def test_baseline_releases_are_charged(name):
    call = _baseline_calls()[name]
    with Accountant(**TINY) as acc:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises((BudgetExceededError, UnsafeMechanismError)):
                call()
    assert acc.spends == ()


def test_baseline_release_is_recorded_when_it_fits():
    from matrixdp import baselines as B

    X = np.random.default_rng(0).uniform(-0.5, 0.5, (40, 3))
    with Accountant(epsilon=5.0, delta=1e-3) as acc:
        B.mod_sulq(X, epsilon=1.0, delta=1e-6, n_components=1, row_norm_bound=1.0, rng=0)
    assert len(acc.spends) == 1 and acc.spends[0][1].epsilon == pytest.approx(1.0)


@pytest.mark.parametrize("name", sorted(CASES))
def test_privacy_agrees_with_what_was_charged(name):
    """Task BA (session 18): the fitted ``privacy_`` and the guarantee the accountant recorded
    are the same claim: same (ε, δ), relation and ``exact`` flag. DPLinearRegression charged an
    ``exact`` guarantee and then reported ``privacy_`` as an upper bound (its joint release's
    sensitivity is a certified bound, known before the charge)."""
    case = CASES[name]
    for relation in case.relations:
        acc = Accountant()
        est = _fit(case, relation, accountant=acc)
        privacy = getattr(est, "privacy_", None)
        if privacy is None or len(acc.spends) != 1:
            continue  # several entries (e.g. DP bounds first): their composition is checked above
        charged = acc.spends[0][1]
        assert charged.epsilon == pytest.approx(privacy.epsilon, rel=1e-12)
        assert charged.delta == pytest.approx(privacy.delta, rel=1e-12)
        assert charged.neighbouring == privacy.neighbouring
        assert charged.exact == privacy.exact, (relation, charged, privacy)


def _refused_inputs(case, relation):
    """Inputs every estimator refuses: a missing value in the last record, a date column where
    numbers are expected (hunt DH2: the generators cast it to nanoseconds and clipped it to its
    bounds), and (with labels) a label outside the public classes or a missing label."""
    import pandas as pd

    (X, y), _ = case.data(relation)
    out = {}
    if isinstance(X, pd.DataFrame):
        bad = X.copy()
        bad.loc[bad.index[-1], "income"] = np.nan
        out["missing value"] = (bad, y)
        dated = X.copy()
        dated["age"] = pd.to_datetime(dated["age"], unit="D")
        out["date column"] = (dated, y)
        if y is not None:
            y2 = np.array(y).copy()
            y2[-1] = 7
            out["label outside the classes"] = (X, y2)
    else:
        bad = X.copy()
        bad[-1, 0] = np.nan
        out["missing value"] = (bad, y)
        dated = pd.DataFrame(X)
        dated[0] = pd.to_datetime(np.arange(len(X)), unit="D")
        out["date column"] = (dated, y)
        if y is not None:
            y2 = np.array(y, dtype=float).copy()
            y2[-1] = np.nan
            out["missing label"] = (X, y2)
    return out


@pytest.mark.parametrize("name", sorted(CASES))
def test_an_input_refused_by_the_fit_spends_nothing(name):
    """Task PA (session 18): every check of the input runs before the first charge, so a table
    the fit refuses leaves the budget untouched (a refusal after the charge spends budget on a
    release that never happens). Passed by every case when written; a guard for new ones."""
    case = CASES[name]
    relation = case.relations[0]
    for what, data in _refused_inputs(case, relation).items():
        acc = Accountant(epsilon=100.0, delta=1e-3, relation=relation)
        est = case.make(relation, accountant=acc)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(Exception) as caught:  # noqa: PT011 - any refusal
                case.fit(est, data)
        assert not isinstance(caught.value, BudgetExceededError), (what, caught.value)
        assert acc.spends == (), f"{name}: {what} was refused after {acc.spends} was charged"


def test_the_refusal_check_is_not_vacuous(monkeypatch):
    """A fit that charges before it validates is caught: DPMean with a charge moved in front of
    its validation (a monkeypatch) spends and then refuses the missing value."""
    from matrixdp.mechanisms import PrivacyGuarantee
    from matrixdp.models import mean

    original = mean._fit_moments

    def charge_first(estimator, X, *args, **kw):
        estimator.accountant.spend(PrivacyGuarantee(epsilon=0.1, delta=0.0, calibration="probe",
                                                    mechanism="probe"))
        return original(estimator, X, *args, **kw)

    monkeypatch.setattr(mean, "_fit_moments", charge_first)
    case = CASES["DPMean"]
    data = _refused_inputs(case, "replace-one")["missing value"]
    acc = Accountant(epsilon=100.0, delta=1e-3)
    with pytest.raises(Exception):  # noqa: PT011 - the refusal of the missing value
        case.fit(case.make("replace-one", accountant=acc), data)
    assert acc.spends != ()  # the rule above would report this fit


# ------------------------------------------------------------------ batch draws (hunt DH)
def _batch_mechanisms():
    """Every catalogue mechanism with a ``release_batch`` (the auditor's uncharged sampler), the
    audit adapter unwrapped, with a witness value; keyed by catalogue name."""
    from matrixdp.audit.catalogue import catalogue

    out = {}
    for entry in catalogue():
        mech, params = entry.build()
        inner = getattr(mech, "mechanism", None) or getattr(mech, "_mechanism", None) or mech
        try:
            batch = inner.release_batch
        except AttributeError:
            continue
        value = np.asarray(list(entry.witnesses(mech, params))[0][0], dtype=float)
        if getattr(inner, "n_features", None) is not None and value.ndim == 1:
            value = value[None, :]
        out[entry.name] = (inner, batch, value)
    # exact numerics the catalogue does not list (it audits their float twins)
    from matrixdp.mechanisms.fisher import FisherNoiseMechanism
    from matrixdp.mechanisms.mvg import MVGMechanism

    fisher = FisherNoiseMechanism(epsilon=1.0, delta=1e-5, feature_ranges=np.tile([0.0, 1.0], (3, 1)),
                                  numerics="exact")
    mvg = MVGMechanism(shape=(3, 3), epsilon=1.0, delta=1e-5, sensitivity=1.0, gamma=2.0,
                       numerics="exact")
    out["fisher exact"] = (fisher, fisher.release_batch, np.full((1, 3), 0.5))
    out["mvg exact"] = (mvg, mvg.release_batch, np.zeros((3, 3)))
    return out


def _batch_classes():
    """The Mechanism classes of the package that define a batch sampler of their own."""
    import importlib
    import pkgutil

    import matrixdp.baselines
    import matrixdp.mechanisms
    from matrixdp.mechanisms.base import Mechanism

    for pkg in (matrixdp.mechanisms, matrixdp.baselines):
        for info in pkgutil.iter_modules(pkg.__path__):
            importlib.import_module(f"{pkg.__name__}.{info.name}")
    seen, stack = set(), [Mechanism]
    while stack:
        cls = stack.pop()
        for sub in cls.__subclasses__():
            if sub.__module__.startswith("matrixdp.") and sub not in seen:
                seen.add(sub)
                stack.append(sub)
    return {c for c in seen if any(k in vars(c) for k in ("release_batch", "_release_batch_exact"))}


def test_every_batch_sampler_class_is_in_the_refusal_test():
    tested = {type(m) for m, _, _ in _batch_mechanisms().values()}
    missing = sorted(c.__name__ for c in _batch_classes()
                     if not any(issubclass(t, c) for t in tested))
    assert missing == []


@pytest.mark.parametrize("keeper", ["accountant", "ledger"])
@pytest.mark.parametrize("name", sorted(_batch_mechanisms()))
def test_release_batch_is_refused_inside_a_budget_block(name, keeper, tmp_path):
    """Hunt DH (session 22): ``release_batch(value, n)`` draws n releases of ``value`` and charges
    nothing (the auditor's sampler); on main, inside ``with Accountant(...)`` 100 releases of the
    exact Gaussian, the Fisher record lattice, JL, PPCA and DAWA were drawn with 0 charges. It is
    refused there now, before any draw, and still works outside a block (the auditor's use)."""
    mech, batch, value = _batch_mechanisms()[name]
    k = (Accountant(epsilon=1.5, delta=1e-5) if keeper == "accountant" else
         Ledger.create(tmp_path / "l.db", dataset="d", epsilon=1.5, delta=1e-5))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with k:
            with pytest.raises(UnsafeMechanismError, match="charges nothing"):
                batch(value, 3, rng=0)
        drawn = batch(value, 3, rng=0)
    assert np.shape(drawn)[0] == 3
    spent = k.spends if keeper == "accountant" else k.history()
    assert len(spent) == 0


def test_release_through_a_batch_sampler_is_still_charged_once():
    """``JLSketchMechanism.release`` draws its one output through ``release_batch``: inside a
    block it is charged once (not refused)."""
    from matrixdp.baselines.jl import JLSketchMechanism
    from matrixdp import PrivacyGuarantee

    mech = JLSketchMechanism(r=4, privacy=PrivacyGuarantee(epsilon=0.5, delta=1e-6))
    with Accountant(epsilon=1.5, delta=1e-5) as acc:
        mech.release(np.eye(3), rng=0)
    assert len(acc.spends) == 1


@pytest.mark.parametrize("name", sorted(CASES))
def test_an_invalid_random_state_is_refused_before_the_charge(name):
    """Hunt DH2 (session 23): DPCopula checked its ``random_state`` only when it drew, inside its
    charge, so a ``RandomState``, a ``SeedSequence``, a float or a negative seed was charged and
    then refused (1 entry for no release; the other 44 cases refused with 0). The noise seam
    (``mechanisms.draw.charged_noise``) now checks the generator before it charges."""
    case = CASES[name]
    relation = case.relations[0]
    D, _ = case.data(relation)
    for bad in (np.random.RandomState(0), np.random.SeedSequence(0), 1.5, -1):
        acc = Accountant(epsilon=100.0, delta=1e-3, relation=relation)
        est = case.make(relation, accountant=acc)
        est.random_state = bad
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(Exception, match="random_state|rng|seed"):
                case.fit(est, D)
        assert acc.spends == (), f"{name}: random_state={bad!r} refused after a charge"


def _box_cases():
    out = []
    for name, case in sorted(CASES.items()):
        est = case.make(case.relations[0])
        params = est.get_params() if hasattr(est, "get_params") else {}
        for key in ("bounds", "bounds_X"):
            if key in params and not isinstance(params[key], str):
                out.append((name, key))
    return out


@pytest.mark.parametrize("name,key", _box_cases())
def test_a_public_box_of_constants_is_fitted_or_refused_before_any_charge(name, key):
    """Hunt DH2 (session 23): lo == hi for every feature (each a public constant) is a valid
    public input that some estimators fit and others refuse; a refusal must come before the
    first charge. On main DPLinearRegression with ``label_range="auto"`` bought the label's DP
    range and then refused ``bounds_X`` (1 entry for no release; 1 of 32 cases)."""
    case = CASES[name]
    relation = case.relations[0]
    D, _ = case.data(relation)
    acc = Accountant(epsilon=100.0, delta=1e-3, relation=relation)
    est = case.make(relation, accountant=acc)
    est.set_params(**{key: (0.0, 0.0)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            case.fit(est, D)
        except BudgetExceededError:
            raise
        except Exception:  # noqa: BLE001 - any refusal, as long as nothing was charged
            assert acc.spends == (), f"{name}: {key}=(0, 0) refused after {len(acc.spends)} entries"
            return
    assert len(acc.spends) == case.charges
