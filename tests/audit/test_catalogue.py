"""The catalogue run: R1SMG refuted, every other shipped mechanism consistent."""

import math

import numpy as np
import pytest

from matrixdp.audit import catalogue as cat
from matrixdp.errors import InvalidParameterError


@pytest.fixture(scope="module")
def rows():
    return cat.run_catalogue(n_samples=cat.FAST_SAMPLES, seed=0)


def test_catalogue_lists_every_family():
    names = {e.name for e in cat.catalogue()}
    assert {"laplace", "gaussian", "gaussian-classic", "r1smg"} <= names
    assert "r1smg" not in {e.name for e in cat.catalogue(include_unsafe=False)}


def test_only_unsafe_opt_ins_are_refuted(rows):
    by_name = {r.name: r for r in rows}
    assert by_name["r1smg"].refuted and by_name["r1smg"].unsafe
    assert by_name["r1smg"].epsilon_lower_bound > 3 * by_name["r1smg"].claimed_epsilon
    assert by_name["r1smg"].exact_delta > 1e3 * by_name["r1smg"].claimed_delta
    for r in rows:
        if not r.unsafe:
            assert r.verdict == "consistent", r
            assert r.epsilon_lower_bound <= r.claimed_epsilon
            if r.exact_delta is not None:
                assert r.exact_delta <= r.claimed_delta * (1 + 1e-6)


def test_table_format(rows):
    table = cat.format_table(rows)
    lines = table.splitlines()
    assert lines[0].split()[:3] == ["mechanism", "claimed", "eps"]
    assert len(lines) == len(rows) + 2
    r1 = next(line for line in lines if line.startswith("r1smg"))
    assert "[unsafe]" in r1 and r1.rstrip().endswith("REFUTED")


def test_run_entry_overrides():
    row = cat.run_entry("gaussian", n_samples=2000, epsilon=0.5, delta=1e-6, dim=2)
    assert (row.claimed_epsilon, row.claimed_delta) == (0.5, 1e-6)
    assert row.result.n_samples == 2000
    with pytest.raises(InvalidParameterError, match="delta"):
        cat.run_entry("laplace", n_samples=100, delta=0.1)
    with pytest.raises(InvalidParameterError, match="unknown mechanism"):
        cat.run_entry("nope")


def test_farokhi_entries_when_installed():
    entries = {e.name: e for e in cat.catalogue()}
    assert {"farokhi-gaussian", "farokhi-laplace"} <= set(entries)
    row = cat.run_entry(entries["farokhi-laplace"], n_samples=100_000)
    # Pure epsilon-LDP and tight: the bound approaches the claim without exceeding it.
    assert row.verdict == "consistent" and 0.85 < row.epsilon_lower_bound <= 1.0


def test_every_family_is_listed_and_builds_at_its_defaults():
    """No feature detection: every family ships, and a broken entry is an error, never skipped."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        entries = cat.catalogue()
    names = {e.name for e in entries}
    assert {"laplace", "r1smg", "farokhi-gaussian", "ron-gauss-mean", "wishart",
            "gaussian-classic-baseline"} <= names
    assert any(n.startswith("mvg") for n in names)
    for entry in entries:
        entry.build()


# ------------------------------------------------------------------ RON-Gauss (synth)
def ron_gauss_rows(rows):
    return {r.name: r for r in rows if r.name.startswith("ron-gauss")}


def test_ron_gauss_steps_are_in_the_catalogue():
    entries = {e.name: e for e in cat.catalogue()}
    assert {"ron-gauss-mean", "ron-gauss-cov", "ron-gauss-cov-paper"} <= set(entries)
    assert entries["ron-gauss-cov-paper"].unsafe and not entries["ron-gauss-cov"].unsafe
    safe = {e.name for e in cat.catalogue(include_unsafe=False)}
    assert "ron-gauss-cov" in safe and "ron-gauss-cov-paper" not in safe


def test_ron_gauss_scales_come_from_the_shipped_estimator():
    from matrixdp import synth
    p, n = 10, 1000
    for name, mode in (("ron-gauss-cov", "corrected"), ("ron-gauss-cov-paper", "paper")):
        mech, _ = cat._get_entry(name).build()
        assert mech.scale == pytest.approx(synth.cov_sensitivity(p, n, mode) / 1.0, rel=1e-12)
        (a, b), = mech.witnesses()
        # The witness moves the second moment by exactly the corrected L1 sensitivity.
        assert np.abs(b - a).sum() == pytest.approx(synth.cov_sensitivity(p, n, "corrected"))
        assert mech.privacy.refuted == (mode == "paper") and mech.privacy.delta == 0.0
    mean, _ = cat._get_entry("ron-gauss-mean").build()
    (a, b), = mean.witnesses()
    assert np.abs(b - a).sum() == pytest.approx(synth.mean_sensitivity(p + 2, n))
    assert mean.scale == pytest.approx(synth.mean_sensitivity(p + 2, n) / 1.0)


def test_ron_gauss_verdicts(rows):
    pytest.importorskip("dp_accounting")
    ron = ron_gauss_rows(rows)
    for name in ("ron-gauss-mean", "ron-gauss-cov"):
        assert ron[name].verdict == "consistent" and ron[name].exact_delta == 0.0
        assert ron[name].epsilon_lower_bound <= 1.0
    paper = ron["ron-gauss-cov-paper"]
    # Refuted by the exact profile (the black-box bound cannot see delta ~ 2e-7 at 2e4 draws).
    assert paper.refuted and paper.unsafe and paper.claimed_delta == 0.0
    assert 1e-7 < paper.exact_delta < 3e-7


def test_ron_gauss_paper_mode_at_p4():
    # At p = 4 the paper's scale is sqrt(2)x too small on the witness's L1 distance: the step is
    # really sqrt(2)-DP, delta(1) ~ 2.2e-4. The exact profile refutes it; the sampled bound (whose
    # pure-DP evidence needs all 16 coordinates in their tails at once) stays a valid lower bound.
    pytest.importorskip("dp_accounting")
    row = cat.run_entry("ron-gauss-cov-paper", n_samples=20_000, dim=4)
    assert row.refuted and 2e-4 < row.exact_delta < 2.5e-4
    assert row.epsilon_lower_bound <= math.sqrt(2)
    assert cat.run_entry("ron-gauss-cov-paper", n_samples=2_000, dim=2).verdict == "consistent"


def test_without_dp_accounting_the_exact_column_is_na(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name.startswith("dp_accounting"):
            raise ImportError("no dp_accounting")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    row = cat.run_entry("ron-gauss-cov-paper", n_samples=2000)
    assert row.exact_delta is None
    assert "n/a" in cat.format_table([row]).splitlines()[2]
    # Without the exact profile no evidence in the run refutes it, but the mechanism's own
    # guarantee is marked refuted: the table must never call it consistent.
    assert row.refuted and row.verdict == cat.REFUTED_BY_ANALYSIS
    # The pure-DP case needs no numerics and is still exact.
    assert cat.run_entry("ron-gauss-cov", n_samples=2000).exact_delta == 0.0


def test_farokhi_laplace_has_an_exact_profile():
    row = cat.run_entry("farokhi-laplace", n_samples=2000)
    # Pure epsilon-LDP on the corner witness: the max loss equals epsilon, so delta(eps) = 0 exactly,
    # and at a smaller epsilon it is positive (the witness is tight).
    assert row.exact_delta == 0.0
    mech, _ = cat._get_entry("farokhi-laplace").build()
    if pytest.importorskip("dp_accounting"):
        assert mech.privacy_profile(0.8) > 0.0


def test_classic_baseline_at_large_epsilon_is_catalogued_and_consistent(rows):
    row = {r.name: r for r in rows}["gaussian-classic-baseline"]
    assert row.claimed_epsilon == 2.0 and row.verdict == "consistent"
    assert 0 < row.exact_delta <= row.claimed_delta


def test_baseline_rows_verdicts(rows):
    by_name = {r.name: r for r in rows}
    wishart = by_name["wishart"]
    # Refuted both ways: exact support-violation delta 1 - e^{-1/3} > 0 = claimed, and the sampled
    # bound (the exact LLR is -inf on the support event) far above the claimed epsilon.
    assert wishart.unsafe and wishart.refuted and wishart.claimed_delta == 0.0
    assert wishart.exact_delta == pytest.approx(-math.expm1(-1 / 3))
    assert wishart.epsilon_lower_bound > 3.0
    for name in ("mod-sulq", "mod-sulq-analytic", "analyze-gauss", "symmetric-laplace",
                 "dp-covariance-eigen", "dp-covariance-eigen-analytic", "blocki-jl", "ppca",
                 "ppca-k"):
        row = by_name[name]
        assert not row.unsafe and row.verdict == "consistent", row
    # The tight calibrations are tight at their declared sensitivity.
    assert by_name["mod-sulq-analytic"].exact_delta == pytest.approx(1e-5, rel=1e-3)
    assert by_name["mod-sulq"].exact_delta < 1e-30
    assert by_name["symmetric-laplace"].exact_delta == 0.0
