"""Exact integer samplers: Bernoulli(exp(-gamma)), discrete Laplace, discrete Gaussian.

Distribution checks are chi-squared tests against the exact pmf at a fixed seed: each accepts the
true parameter and rejects a parameter 30% off (the long, +-10% versions are in
tests/statistical/test_exact_noise.py)."""

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from matrixdp.calibration.discrete import discrete_gaussian_pmf, discrete_gaussian_sigma2
from matrixdp.errors import InvalidParameterError
from matrixdp.mechanisms.exact_sampling import (
    _GaussianPlan,
    bernoulli_exp,
    discrete_gaussian,
    discrete_laplace,
)
from matrixdp.rng import make_rng

ALPHA = 1e-4


def laplace_pmf(k, scale):
    q = math.exp(-1.0 / float(scale))
    return (1 - q) / (1 + q) * q ** np.abs(np.asarray(k, dtype=float))


def chi2_pvalue(draws, pmf):
    """Chi-squared p-value of integer ``draws`` against ``pmf`` (bins with expected count >= 20, tails pooled)."""
    n = draws.size
    lo, hi = int(draws.min()), int(draws.max())
    span = max(abs(lo), abs(hi)) + 1
    ks = np.arange(-span, span + 1)
    p = pmf(ks)
    keep = n * p >= 20
    inner = ks[keep]
    a, b = inner.min(), inner.max()
    counts = np.bincount(np.clip(draws, a - 1, b + 1) - (a - 1), minlength=b - a + 3)
    expected = np.concatenate([[pmf(np.arange(-10 * span - 10, a)).sum()],
                               pmf(np.arange(a, b + 1)),
                               [pmf(np.arange(b + 1, 10 * span + 10)).sum()]]) * n
    expected *= n / expected.sum()
    return stats.chisquare(counts, expected).pvalue


class OnlyIntegers:
    """A generator that offers nothing but uniform integers (and counts the calls)."""

    def __init__(self, seed):
        self._gen = np.random.Generator(np.random.PCG64(seed))
        self.calls = 0

    def integers(self, *args, **kwargs):
        self.calls += 1
        return self._gen.integers(*args, **kwargs)


@pytest.mark.parametrize("gamma", [Fraction(0), Fraction(1, 3), Fraction(1), Fraction(7, 3), Fraction(5)])
def test_bernoulli_exp_has_probability_exp_minus_gamma(gamma):
    n = 400_000
    draws = bernoulli_exp(gamma, n, make_rng(1))
    p = math.exp(-float(gamma))
    tol = 5 * math.sqrt(p * (1 - p) / n) + 1e-12
    assert abs(draws.mean() - p) <= tol
    if gamma > 0:     # the same tolerance rejects gamma 30% off
        assert abs(draws.mean() - math.exp(-1.3 * float(gamma))) > tol
        assert abs(draws.mean() - math.exp(-0.7 * float(gamma))) > tol


def test_bernoulli_exp_exact_fallback_for_huge_denominators():
    gamma = Fraction(2 ** 70 + 1, 2 ** 70)        # denominator beyond int64: Python-int path
    draws = bernoulli_exp(gamma, 4000, make_rng(2))
    p = math.exp(-1.0)
    assert abs(draws.mean() - p) <= 5 * math.sqrt(p * (1 - p) / 4000)


@pytest.mark.parametrize("scale", [Fraction(1, 2), Fraction(5, 2), Fraction(40)])
def test_discrete_laplace_matches_its_pmf_and_rejects_scale_30_percent_off(scale):
    draws = discrete_laplace(200_000, scale, make_rng(3))
    assert draws.dtype == np.int64
    assert chi2_pvalue(draws, lambda k: laplace_pmf(k, scale)) > ALPHA
    for wrong in (0.7, 1.3):
        assert chi2_pvalue(draws, lambda k: laplace_pmf(k, float(scale) * wrong)) < ALPHA


@pytest.mark.parametrize("sigma2", [Fraction(1, 4), Fraction(10, 3), Fraction(100),
                                    discrete_gaussian_sigma2(1.0, 1e-5, 1050625)])
def test_discrete_gaussian_matches_its_pmf_and_rejects_sigma_30_percent_off(sigma2):
    draws = discrete_gaussian(200_000, sigma2, make_rng(4))
    assert draws.dtype == np.int64
    # wide support: compare the standardised draws in bins of sigma/8 instead
    _assert_gaussian_law(draws, sigma2, bin_width=0.125 if sigma2 > 10_000 else None)


def _assert_gaussian_law(draws, sigma2, bin_width=None):
    """The draws pass a χ² test (level ALPHA) against the discrete Gaussian of variance
    ``sigma2`` and fail it with σ scaled by 0.7 and by 1.3. ``bin_width`` (in units of σ): on
    bins of that width within ±4σ against N(0, σ²) (DG ~ N to 1e-100 at the σ of the callers),
    for a wide support; None: value by value against the pmf."""
    if bin_width is not None:
        sigma = math.sqrt(sigma2)
        edges = np.arange(-4, 4.001, bin_width) * sigma
        for factor, ok in ((1.0, True), (0.7, False), (1.3, False)):
            cdf = stats.norm(scale=sigma * factor).cdf
            exp = np.diff(np.concatenate([[0.0], cdf(edges[1:-1]), [1.0]])) * draws.size
            obs = np.bincount(np.searchsorted(edges[1:-1], draws, side="right"), minlength=exp.size)
            assert (stats.chisquare(obs, exp).pvalue > ALPHA) == ok
        return
    assert chi2_pvalue(draws, lambda k: discrete_gaussian_pmf(k, sigma2)) > ALPHA
    for wrong in (0.7, 1.3):
        assert chi2_pvalue(draws, lambda k: discrete_gaussian_pmf(k, float(sigma2) * wrong ** 2)) < ALPHA


def test_samplers_use_only_uniform_integers_and_loop_over_rounds_not_entries():
    n = 100_000
    gen = OnlyIntegers(5)
    discrete_gaussian(n, Fraction(1000), gen)
    discrete_laplace(n, Fraction(7, 2), gen)
    # a loop over entries would need >= n calls; rounds of masked whole-array draws need a few thousand
    assert gen.calls < n / 20


def test_seeded_draws_replay_and_shapes():
    a = discrete_gaussian((3, 4), 50, make_rng(7))
    b = discrete_gaussian((3, 4), 50, make_rng(7))
    assert a.shape == (3, 4) and np.array_equal(a, b)
    assert discrete_laplace((), 2, make_rng(1)).shape == ()
    assert discrete_gaussian(0, 2, make_rng(1)).shape == (0,)


def test_gaussian_plan_of_a_calibrated_sigma_stays_on_the_int64_path():
    for d2 in (1, 1050625, 10 ** 12):
        plan = _GaussianPlan(discrete_gaussian_sigma2(1.0, 1e-5, d2))
        assert plan.b < 2 ** 62 and plan.a == 1 and plan.cden < 2 ** 31


def test_general_rationals_fall_back_to_python_integers_exactly():
    sigma2 = Fraction(10 ** 20 + 1, 3 * 10 ** 18)          # ~33.3 with a huge denominator
    draws = discrete_gaussian(3000, sigma2, make_rng(8))
    var = float(sigma2)
    assert abs(draws.mean()) < 5 * math.sqrt(var / 3000)
    assert abs(draws.var() / var - 1) < 5 * math.sqrt(2 / 3000)


def test_invalid_parameters_name_the_argument():
    with pytest.raises(InvalidParameterError, match="sigma2"):
        discrete_gaussian(3, 0, make_rng(0))
    with pytest.raises(InvalidParameterError, match="scale"):
        discrete_laplace(3, -1.0, make_rng(0))
    with pytest.raises(InvalidParameterError, match="scale"):
        discrete_laplace(3, float("nan"), make_rng(0))
    with pytest.raises(InvalidParameterError, match="gamma"):
        bernoulli_exp(-1, 3, make_rng(0))


def test_rare_overflow_path_of_the_merged_sampler_keeps_the_law():
    # sigma ~ 100 with a 2^23 denominator: W = x*2^23 - M overflows the int64-safe range beyond
    # x ~ 2.4 sigma, so ~2% of proposals take the exact Python-integer path
    m = (10_000 * 2 ** 23) // 100 | 1
    sigma2 = Fraction(100 * m, 2 ** 23)          # t = floor(sigma) + 1 = 100 divides it
    plan = _GaussianPlan(sigma2)
    assert plan.a == 1 and plan.b % plan.t == 0 and plan.cden == 2 ** 23
    draws = discrete_gaussian(40_000, sigma2, make_rng(9))
    var = float(sigma2)
    assert np.mean(np.abs(draws) > 2.4 * math.sqrt(var)) > 0.01      # the rare path was used
    assert chi2_pvalue(np.clip(draws, -400, 400), lambda k: discrete_gaussian_pmf(k, sigma2)) > ALPHA
    assert chi2_pvalue(np.clip(draws, -400, 400), lambda k: discrete_gaussian_pmf(k, 1.3 ** 2 * var)) < ALPHA


# ------------------------------------------------------------- the table sampler
from matrixdp.mechanisms.exact_sampling import (  # noqa: E402
    _alias_tables,
    _exp_neg_bounds,
    _gaussian_table,
    _lazy_below,
    _table_plan,
    _TablePlan,
)


def test_exp_bounds_bracket_the_true_value_within_three_units():
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.prec = 4000
    gen = np.random.default_rng(1)
    cases = [(0, 1, 62), (1, 1, 0), (1, 3, 1), (7, 2, 200), (10 ** 12, 7, 62), (5, 10 ** 15, 300)]
    cases += [(int(gen.integers(1, 10 ** 9)), int(gen.integers(1, 10 ** 9)), int(gen.choice([10, 62, 160])))
              for _ in range(200)]
    for num, den, prec in cases:
        lo, hi = _exp_neg_bounds(num, den, prec)
        true = mpmath.exp(-mpmath.mpf(num) / den) * mpmath.mpf(2) ** prec
        assert lo <= true <= hi and hi - lo <= 3, (num, den, prec)


def test_lazy_comparison_is_bernoulli_of_its_bounds():
    # p = 1/3 given only through bounds: frequency within 5 standard errors, and decisions need few bits
    third = lambda prec: ((1 << prec) // 3, -(-(1 << prec) // 3))   # noqa: E731
    gen = make_rng(4)
    hits = sum(_lazy_below(third, 0, 0, gen) for _ in range(20_000))
    assert abs(hits / 20_000 - 1 / 3) < 5 * math.sqrt(2 / 9 / 20_000)


def test_alias_tables_tile_every_bin_exactly():
    weights = [5, 0, 17, 1, 9, 0, 32]
    n, total = 8, sum(weights)
    prob, alias, own, other = _alias_tables(weights, n, total)
    mass = np.zeros(n, dtype=np.int64)
    for c in range(n):
        mass[c] += prob[c]
        mass[alias[c]] += total - prob[c]
        assert 0 <= own[c] and 0 <= other[c]
    assert list(mass) == [n * w for w in weights] + [0] * (n - len(weights))


@pytest.mark.parametrize("sigma2, scale_bits, tail_bins", [
    (Fraction(10, 3), 4, 3),            # tail from 1.6 sigma: the tail branch is used a lot
    (Fraction(400), 5, 30),             # sigma 20, tail from 1.5 sigma
    (Fraction(3 * 2000 ** 2 + 1, 3), 5, None),  # sigma ~2000: bins of width 4 (in-bin factor)
])
def test_table_sampler_rare_paths_keep_the_law(sigma2, scale_bits, tail_bins):
    # A tiny scale M makes the lazy comparisons frequent; an early tail makes the tail branch frequent.
    plan = _TablePlan(sigma2, scale_bits=scale_bits, tail_bins=tail_bins)
    draws = _gaussian_table(20_000, plan, make_rng(5))
    if tail_bins is not None:
        assert np.mean(np.abs(draws) >= plan.t) > 0.05          # the tail branch produced values
    else:
        assert plan.w > 1
    _assert_gaussian_law(draws, sigma2, bin_width=None if tail_bins is not None else 0.25)


@pytest.mark.parametrize("sigma2", [Fraction(1, 10), Fraction(10, 3), Fraction(400), Fraction(90001, 3)])
def test_table_sampler_default_plan_matches_pmf_and_rejects_scale_30_percent_off(sigma2):
    assert _table_plan(sigma2) is not None
    draws = discrete_gaussian(100_000, sigma2, make_rng(6))
    assert chi2_pvalue(draws, lambda k: discrete_gaussian_pmf(k, sigma2)) > ALPHA
    for wrong in (0.7, 1.3):
        assert chi2_pvalue(draws, lambda k: discrete_gaussian_pmf(k, float(sigma2) * wrong ** 2)) < ALPHA


def test_table_sampler_at_a_calibrated_lattice_sigma():
    # the sigma of a 10^6-entry exact release (sigma ~ 4e6 lattice units): moments and normality
    sigma2 = discrete_gaussian_sigma2(1.0, 1e-5, 18_000_000_000_000)
    plan = _table_plan(sigma2)
    assert plan is not None and plan.w > 1
    draws = discrete_gaussian(200_000, sigma2, make_rng(7))
    var = float(sigma2)
    assert abs(draws.mean()) < 5 * math.sqrt(var / draws.size)
    assert abs(draws.var() / var - 1) < 5 * math.sqrt(2 / draws.size)
    assert stats.kstest(draws / math.sqrt(var), "norm").pvalue > ALPHA
    assert stats.kstest(draws / (0.7 * math.sqrt(var)), "norm").pvalue < ALPHA


# ------------------------------------------- the table sampler against a row-by-row reference
from matrixdp.mechanisms.exact_sampling import (  # noqa: E402
    _TABLE_BLOCK,
    _bernoulli_exp_fraction_rest,
    _uniform_below,
)


def reference_table_draws(n, plan, rng):
    """The table sampler written row by row with Python integers (docs/numerics.md, "The table
    sampler"), making the generator calls the description fixes, in the same order: per block of
    _TABLE_BLOCK rows, one ``integers(0, 2**nbits)`` per row (sign, 8 bits B, alias column,
    position), then the rare rows' exact decisions in row order, then the in-bin factor's
    Algorithm-1 rounds for the rows that need them; rejected rows get new rounds, in row order.
    It shares with the vectorised sampler only the plan's integer tables and the exact scalar
    primitives of the rare branches (tail, lazy first factor, Algorithm 1's rounds K >= 2)."""
    lw, w, nbins, lpos, lcol, ncol = plan.lw, plan.w, plan.nbins, plan.lpos, plan.lcol, plan.ncol
    total = 1 << lpos
    v = [int(x) for x in plan.v]
    weights = [w * vb for vb in v] + [plan.m, total - w * sum(v) - plan.m]
    prob, alias, own, other = (list(map(int, t)) for t in _alias_tables(weights, ncol, total))
    safe = [int(x) for x in plan.safe]
    den, q = 2 * plan.p, plan.q
    low = lcol + lpos
    nbits = low + 9

    def one_round(k):
        raw = rng.integers(0, 1 << nbits, size=k, dtype=np.int64)
        rows = []
        for r in map(int, raw):
            s, bb, col, pos = r >> (low + 8), (r >> low) & 255, (r >> lpos) & (ncol - 1), r & (total - 1)
            if pos < prob[col]:
                b, base = col, own[col]
            else:
                b, base = alias[col], other[col] - prob[col]
            u = (pos + base) >> lcol
            rows.append({"s": s, "B": bb, "b": b, "i": u & (w - 1), "jj": u >> lw,
                         "y": b * w + (u & (w - 1)), "tail": False})
        for row in rows:                                  # the first factor, row by row
            zero = row["s"] == 1 and row["y"] == 0
            row["acc"] = row["jj"] < safe[row["b"]] and not zero
            if row["jj"] >= safe[row["b"]]:
                if row["b"] == nbins:
                    row["tail"] = True
                    yt = plan.tail_draw(rng)
                    if yt is not None:
                        row["y"], row["acc"] = yt, True
                elif row["b"] < nbins and not zero:
                    row["acc"] = plan.body_factor(row["b"], row["jj"], rng)
        if lw:                                            # the in-bin factor, round 1 then K >= 2
            need = [row for row in rows if row["acc"] and not row["tail"]
                    and row["B"] * den < 256 * row["i"] * (2 * row["b"] * w + row["i"]) * q]
            for row in need:
                row["num"] = row["i"] * (2 * row["b"] * w + row["i"]) * q
                row["a1"] = (row["B"] + 1) * den <= 256 * row["num"]
            unsure = [row for row in need if not row["a1"]]
            if unsure:
                draws = _uniform_below(den, len(unsure), rng)
                for row, d in zip(unsure, draws):
                    row["a1"] = int(d) < 256 * row["num"] - row["B"] * den
            more = [row for row in need if row["a1"]]
            if more:
                rest = _bernoulli_exp_fraction_rest(np.array([row["num"] for row in more], dtype=np.int64),
                                                    den, rng)
                for row, ok in zip(more, rest):
                    row["acc"] = bool(ok)
        return [(-row["y"] if row["s"] else row["y"]) if row["acc"] else None for row in rows]

    out = []
    for start in range(0, n, _TABLE_BLOCK):
        block = one_round(min(n, start + _TABLE_BLOCK) - start)
        pending = [j for j, val in enumerate(block) if val is None]
        while pending:
            redo = one_round(len(pending))
            for j, val in zip(pending, redo):
                block[j] = val
            pending = [j for j, val in zip(pending, redo) if val is None]
        out += block
    return np.array(out, dtype=np.int64)


@pytest.mark.parametrize("plan_args, n", [
    ((discrete_gaussian_sigma2(1.0, 1e-5, 1050625),), 6000),          # calibrated: w = 16, q = 512
    ((discrete_gaussian_sigma2(1.0, 1e-5, 18_000_000_000_000),), 2 * _TABLE_BLOCK + 123),  # w = 2^14
    ((Fraction(3 * 2000 ** 2 + 1, 3),), 6000),                        # w = 4, q = 3
    ((Fraction(10, 3),), 6000),                                       # w = 1
    ((Fraction(1, 10),), 6000),                                       # w = 1, y = 0 most of the time
    ((Fraction(10, 3), 4, 3), 6000),                                  # tiny M, early tail: rare paths
    ((Fraction(3 * 2000 ** 2 + 1, 3), 5, None), 6000),                # tiny M with w = 4
    ((Fraction(3 * 2000 ** 2 + 1, 3), 5, 900), 3000),                 # w = 4, tail from 1.8 sigma
])
def test_table_sampler_equals_the_row_by_row_reference_for_a_fixed_seed(plan_args, n):
    # Pins the vectorised passes (fused, reordered, special rows on index arrays) to the algorithm
    # as written: same values, and the generator left in the same state (same calls, same order).
    plan = _TablePlan(*plan_args)
    gen_fast, gen_ref = make_rng(31), make_rng(31)
    fast = _gaussian_table(n, plan, gen_fast)
    ref = reference_table_draws(n, plan, gen_ref)
    assert np.array_equal(fast, ref)
    assert np.array_equal(gen_fast.integers(0, 1 << 62, size=4), gen_ref.integers(0, 1 << 62, size=4))


@pytest.mark.parametrize("sigma2", [discrete_gaussian_sigma2(1.0, 1e-5, 1050625),
                                    discrete_gaussian_sigma2(1.0, 1e-5, 18_000_000_000_000),
                                    Fraction(3 * 2000 ** 2 + 1, 3), Fraction(10 ** 9 + 7, 3)])
def test_in_bin_prefilter_skips_only_rows_whose_first_round_is_decided(sigma2):
    # A body row with B >= bg is accepted by the vectorised passes without the in-bin test: that
    # is exact only if B*den >= 256*num for every (b, i), and bg is the least such value.
    plan = _TablePlan(sigma2)
    assert plan.w > 1
    b = np.arange(plan.nbins, dtype=object)
    i = plan.w - 1                                     # num grows with i: the last offset
    num_max = int(max(i * (2 * b * plan.w + i) * plan.q))
    bg = int(plan.blim) + 1 >> 56
    assert bg * plan.gden >= 256 * num_max > (bg - 1) * plan.gden
