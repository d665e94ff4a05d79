"""The catalogue run: R1SMG refuted, every other shipped mechanism consistent."""

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
    pytest.importorskip("matrixdp.release")
    entries = {e.name: e for e in cat.catalogue()}
    assert {"farokhi-gaussian", "farokhi-laplace"} <= set(entries)
    row = cat.run_entry(entries["farokhi-laplace"], n_samples=100_000)
    # Pure epsilon-LDP and tight: the bound approaches the claim without exceeding it.
    assert row.verdict == "consistent" and 0.85 < row.epsilon_lower_bound <= 1.0


def test_broken_optional_family_is_skipped_with_a_warning(monkeypatch):
    def broken():
        def factory(epsilon):
            raise TypeError("constructor changed")
        return [cat.CatalogueEntry("broken", "a drifted API", factory, {"epsilon": 1.0})]

    def absent():
        raise ImportError("not installed")

    monkeypatch.setattr(cat, "_OPTIONAL_LOADERS", [broken, absent])
    with pytest.warns(RuntimeWarning, match="skipping 'broken'.*constructor changed"):
        names = [e.name for e in cat.catalogue()]
    assert "broken" not in names and "r1smg" in names
