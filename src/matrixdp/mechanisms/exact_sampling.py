r"""Exact samplers on the integers: discrete Laplace and discrete Gaussian (no floating point).

Every random decision is a comparison of a uniform integer from the generator
(:meth:`numpy.random.Generator.integers`, which is exactly uniform on its range)
with an integer computed exactly, so the output law is exactly the stated one
whenever the generator's integers are uniform. The algorithms are those of
Canonne, Kamath and Steinke (2020):

* :func:`bernoulli_exp` draws Bernoulli(exp(−γ)) for a rational γ ≥ 0
  (their Algorithm 1: the integer part as a run of Bernoulli(e⁻¹) trials, the
  fractional part by the alternating-series trick);
* :func:`discrete_laplace` draws P(z) ∝ exp(−|z|/b) on ℤ for a rational b > 0
  (Algorithm 2);
* :func:`discrete_gaussian` draws P(z) ∝ exp(−z²/(2σ²)) on ℤ for a rational
  σ² > 0: for 64 draws or more (0.25 ≤ σ ≤ 2²⁶) by the *table sampler* — rejection from a
  proposal with integer weights (an exact integer alias table), acceptance decided by uniform
  integers against integer bounds of exp(−·) computed once per σ² with Python integers, and
  the rare undecided comparisons finished lazily with more uniform bits; otherwise by
  Algorithm 3 (a discrete-Laplace proposal with an exact acceptance test).

All three are vectorised: they draw whole arrays, and their Python loops run
only over rejection *rounds* (each round acts on the still-undecided entries at
once, selected with index arrays), never over entries. Integers stay in int64;
the rare entries whose intermediate products could overflow (a proposal more
than ~45 σ from 0) are finished with Python integers, exactly, one by one.

The derivation, the cost and the guarantees are in ``docs/numerics.md``.

References
----------
.. [1] C. L. Canonne, G. Kamath and T. Steinke, "The Discrete Gaussian for
   Differential Privacy", NeurIPS 2020 (arXiv:2004.00010), Algorithms 1-3.
"""

from __future__ import annotations

import math
from fractions import Fraction
from numbers import Integral, Rational

import numpy as np

from ..errors import InvalidParameterError

__all__ = ["bernoulli_exp", "discrete_laplace", "discrete_gaussian", "discrete_gaussian_blocks",
           "as_fraction"]

_I64_MAX = (1 << 63) - 1
#: |W| below this squares without int64 overflow (⌊√(2⁶³ − 1)⌋).
_SQUARE_SAFE = math.isqrt(_I64_MAX)
#: The largest denominator used on the vectorised path (uniform draws in [0, B)).
_FAST_DEN = 1 << 62


def as_fraction(value, argument: str) -> Fraction:
    """``value`` as an exact :class:`~fractions.Fraction` (> 0); floats convert exactly (they are dyadic)."""
    if isinstance(value, bool):
        raise InvalidParameterError(argument, f"must be a positive rational, got {value!r}")
    if isinstance(value, (Rational, Integral, np.integer)):
        frac = Fraction(int(value)) if isinstance(value, (Integral, np.integer)) else Fraction(value)
    elif isinstance(value, (float, np.floating)) and math.isfinite(float(value)):
        frac = Fraction(float(value))
    else:
        raise InvalidParameterError(argument, f"must be a positive rational, got {value!r}")
    if frac <= 0:
        raise InvalidParameterError(argument, f"must be > 0, got {value!r}")
    return frac


def _size(shape) -> tuple[tuple[int, ...], int]:
    shape = (int(shape),) if np.ndim(shape) == 0 else tuple(int(k) for k in shape)
    if any(k < 0 for k in shape):
        raise InvalidParameterError("shape", f"must have non-negative entries, got {shape}")
    return shape, int(np.prod(shape, dtype=np.int64)) if shape else 1


# --------------------------------------------------------------- primitives
def _uniform_below(high, m: int, rng) -> np.ndarray:
    """``m`` uniform integers in [0, high) (``high`` a scalar < 2⁶², or an int64 array).

    Small bounds are drawn as uint8/uint32 (cheaper; comparisons promote exactly).
    """
    if np.ndim(high) == 0:
        h = int(high)
        if h <= (1 << 8):
            return rng.integers(0, h, size=m, dtype=np.uint8)
        if h <= (1 << 32):
            return rng.integers(0, h, size=m, dtype=np.uint32)
    return rng.integers(0, high, size=m, dtype=np.int64)


def _bernoulli_ratio(num: np.ndarray, den, rng) -> np.ndarray:
    """Bernoulli(num/den) per entry: a uniform integer in [0, den) below ``num``."""
    return _uniform_below(den, num.size, rng) < num


def _bernoulli_exp_fraction(num: np.ndarray, den, rng) -> np.ndarray:
    """Bernoulli(exp(−num/den)) per entry for 0 ≤ num ≤ den (CKS Algorithm 1, γ ≤ 1).

    Round K (the same K for every undecided entry) draws A ~ Bernoulli(γ/K) as
    Bernoulli(1/K) and Bernoulli(γ) together; an entry stops at the first A = 0 and
    returns 1 when that K is odd. P(return 1) = Σ_K odd (γ^{K−1}/(K−1)! − γ^K/K!) = e^{−γ}.
    """
    out = np.empty(num.size, dtype=bool)
    a = _bernoulli_ratio(num, den, rng)        # K = 1: Bernoulli(γ)
    out[~a] = True
    idx = np.flatnonzero(a)
    out[idx] = _bernoulli_exp_fraction_rest(num[idx], den[idx] if np.ndim(den) > 0 else den, rng)
    return out


#: 20! < 2⁶³; T_k = 20!/(k−1)! for k = 1..21 are integers and P(K ≥ k) = 1/(k−1)! = T_k/20!
#: for the stopping round K of Algorithm 1 with γ = 1.
_FACT_N = math.factorial(20)
_T = {k: _FACT_N // math.factorial(k - 1) for k in range(1, 22)}


def _bernoulli_exp_minus_one(m: int, rng) -> np.ndarray:
    """``m`` independent Bernoulli(e⁻¹) draws: Algorithm 1 with γ = 1, one uniform integer each.

    With γ = 1 the stopping round K of Algorithm 1 has P(K ≥ k) = 1/(k−1)! (k − 1
    successes of Bernoulli(1/j), j < k). One uniform U on [0, 20!) decides all these
    events at once, exactly: K ≥ k ⇔ U < T_k = 20!/(k−1)! (k ≤ 21). Since K ≥ 2 always,
    [K odd] is the parity of #{k ≥ 3 : U < T_k}, accumulated by XOR; the thresholds
    below T_8 concern only U < 20!/7! (probability 1/5040) and are applied to that
    subset. U = 0 (probability 1/20! ≈ 4·10⁻¹⁹) continues the rounds from k = 21.
    """
    u = rng.integers(0, _FACT_N, size=m, dtype=np.int64)
    out = u < _T[3]
    for k in range(4, 8):
        out ^= u < _T[k]
    sub = np.flatnonzero(u < _T[8])
    if sub.size:
        us = u[sub]
        part = out[sub]
        for k in range(8, 22):
            part ^= us < _T[k]
        for j in np.flatnonzero(us == 0):   # K >= 21 so far (odd): exact continuation
            k = 21
            while _uniform_below(k, 1, rng)[0] == 0:
                k += 1
            part[j] = bool(k & 1)
        out[sub] = part
    return out


def _geometric_e(m: int, rng) -> np.ndarray:
    """V with P(V ≥ j) = e^{−j}: the number of Bernoulli(e⁻¹) successes before the first failure."""
    v = np.zeros(m, dtype=np.int64)
    idx = np.arange(m)
    while idx.size:
        b = _bernoulli_exp_minus_one(idx.size, rng)
        idx = idx[b]
        v[idx] += 1
    return v


def _bernoulli_exp_int(k: np.ndarray, rng) -> np.ndarray:
    """Bernoulli(e^{−k}) per entry for integers k ≥ 0: k Bernoulli(e⁻¹) successes in a row."""
    out = k == 0
    idx = np.flatnonzero(~out)
    done = 0
    while idx.size:
        b = _bernoulli_exp_minus_one(idx.size, rng)
        idx = idx[b]
        done += 1
        finished = k[idx] == done
        out[idx[finished]] = True
        idx = idx[~finished]
    return out


def _bernoulli_exp_rational(num: np.ndarray, den: int, rng) -> np.ndarray:
    """Bernoulli(exp(−num/den)) for int64 num ≥ 0 and a scalar den < 2⁶² (any size of num/den)."""
    q, r = np.divmod(num, den)
    out = _bernoulli_exp_int(q, rng)
    idx = np.flatnonzero(out)
    if idx.size:
        out[idx] = _bernoulli_exp_fraction(r[idx], den, rng)
    return out


# ------------------------------------------------- exact scalar fallbacks
def _uniform_below_big(high: int, rng) -> int:
    """One uniform integer in [0, high) for any positive Python int (32-bit chunks, rejection)."""
    nbits = high.bit_length()
    while True:
        words = rng.integers(0, 1 << 32, size=(nbits + 31) // 32, dtype=np.uint64)
        u = 0
        for w in words:
            u = (u << 32) | int(w)
        u >>= 32 * len(words) - nbits
        if u < high:
            return u


def _bernoulli_exp_scalar(num: int, den: int, rng) -> bool:
    """Bernoulli(exp(−num/den)) for Python ints (Algorithm 1, one entry; used on rare overflow)."""
    q, r = divmod(num, den)
    for _ in range(q):       # terminates at the first failure: the loop is short with overwhelming probability
        if not _bernoulli_exp_minus_one(1, rng)[0]:
            return False
    k = 1
    while True:
        if _uniform_below_big(k, rng) == 0 and _uniform_below_big(den, rng) < r:
            k += 1
            continue
        return k % 2 == 1


# ----------------------------------------------------------------- samplers
def bernoulli_exp(gamma, size, rng) -> np.ndarray:
    r"""Bernoulli(exp(−γ)) draws for a rational γ ≥ 0, exactly (CKS Algorithm 1).

    Parameters
    ----------
    gamma : Fraction, int or float
        γ ≥ 0 (a float is read as the exact dyadic rational it stores).
    size : int or tuple
    rng : numpy.random.Generator
        The generator to draw from; its state determines every draw, so a seeded generator is
        replayable by anyone who knows the seed (they regenerate the noise and subtract it).

    Returns
    -------
    ndarray of bool
    """
    shape, n = _size(size)
    g = Fraction(0) if gamma == 0 else as_fraction(gamma, "gamma")
    num, den = g.numerator, g.denominator
    if den >= _FAST_DEN or num > _I64_MAX:
        out = np.array([_bernoulli_exp_scalar(num, den, rng) for _ in range(n)], dtype=bool)
    else:
        out = _bernoulli_exp_rational(np.full(n, num, dtype=np.int64), den, rng)
    return out.reshape(shape)


def _laplace_int(m: int, t: int, s: int, rng) -> np.ndarray:
    """``m`` draws with P(z) ∝ exp(−|z|·s/t) (CKS Algorithm 2; t, s positive ints, t < 2⁶²)."""
    out = np.empty(m, dtype=np.int64)
    pending = np.arange(m)
    while pending.size:
        k = pending.size
        u = _uniform_below(t, k, rng).astype(np.int64)
        # D ~ Bernoulli(exp(−U/t)); reject the round for D = 0.
        d = _bernoulli_exp_fraction(u, t, rng) if t > 1 else np.ones(k, dtype=bool)
        keep = np.flatnonzero(d)
        u = u[keep]
        v = _geometric_e(keep.size, rng)
        # X = U + t·V is geometric: P(X = x) ∝ e^{−x/t}. Guard the product against overflow.
        limit = (_I64_MAX - t) // t
        big = v > limit
        x = u + t * np.where(big, 0, v)
        y = x // s
        sign = _uniform_below(2, keep.size, rng).astype(bool)
        accept = ~(sign & (y == 0))          # big-V entries are redone exactly below
        z = np.where(sign, -y, y)
        if big.any():       # astronomically rare for t < 2⁵⁶; exact with Python ints
            for j in np.flatnonzero(big):
                xj = int(u[j]) + t * int(v[j])
                yj = xj // s
                if yj > _I64_MAX:
                    raise OverflowError("discrete Laplace draw beyond int64")
                accept[j] = not (sign[j] and yj == 0)
                z[j] = -yj if sign[j] else yj
        done = keep[accept]
        out[pending[done]] = z[accept]
        mask = np.ones(k, dtype=bool)
        mask[done] = False
        pending = pending[mask]
    return out


def discrete_laplace(shape, scale, rng) -> np.ndarray:
    r"""Discrete Laplace draws, P(z) ∝ exp(−|z|/b) on ℤ, for a rational scale b > 0.

    Exact (CKS Algorithm 2) with integer arithmetic only. Variance
    2e^{−1/b}/(1 − e^{−1/b})².

    Parameters
    ----------
    shape : int or tuple
    scale : Fraction, int or float
        b > 0; with b = t/s, t must be below 2⁶².
    rng : numpy.random.Generator
        The generator to draw from; its state determines every draw, so a seeded generator is
        replayable by anyone who knows the seed (they regenerate the noise and subtract it).

    Returns
    -------
    ndarray of int64
    """
    shape, n = _size(shape)
    b = as_fraction(scale, "scale")
    t, s = b.numerator, b.denominator
    if t >= _FAST_DEN:
        raise InvalidParameterError("scale", "numerator must be below 2**62 (use a coarser rational)")
    return _laplace_int(n, t, s, rng).reshape(shape)


class _GaussianPlan:
    """Integers of Algorithm 3 for σ² = p/q: proposal scale t, and γ = W²·A/B with W = |y|·cden − cnum."""

    __slots__ = ("t", "cnum", "cden", "a", "b")

    def __init__(self, sigma2: Fraction):
        p, q = sigma2.numerator, sigma2.denominator
        root = math.isqrt(p // q)                 # ⌊σ⌋
        cands = {root + 1, max(root, 1)}          # CKS's t = ⌊σ⌋ + 1, and ⌊σ⌋
        for j in range(max(root.bit_length() - 1, 0), root.bit_length() + 1):
            cands.add(1 << j)                     # powers of two near σ
        best = None
        for t in sorted(cands):
            if t <= 0:
                continue
            c = sigma2 / t                        # the proposal's centre σ²/t
            cnum, cden = c.numerator, c.denominator
            ratio = Fraction(q, 2 * p * cden * cden)
            # efficiency: acceptance ≈ √(2π)σ/(2t·e^{σ²/2t²}); keep t within [0.7σ, 1.5σ] when σ ≥ 1
            sig = math.sqrt(p / q)
            eff_ok = sig < 1 or (0.7 * sig <= t <= 1.5 * sig)
            key = (not eff_ok, ratio.denominator.bit_length() + ratio.numerator.bit_length(),
                   abs(t - sig))
            if best is None or key < best[0]:
                best = (key, t, cnum, cden, ratio.numerator, ratio.denominator)
        _, self.t, self.cnum, self.cden, self.a, self.b = best


def discrete_gaussian(shape, sigma2, rng) -> np.ndarray:
    r"""Discrete Gaussian draws, P(z) ∝ exp(−z²/(2σ²)) on ℤ, for a rational σ² > 0.

    Exact with integer arithmetic only. From 64 draws on (and 0.25 ≤ σ ≤ 2²⁶) the table
    sampler is used (``docs/numerics.md``, "The table sampler"; its integer tables are cached
    per σ²). Otherwise CKS Algorithm 3: propose Y from the
    discrete Laplace law with integer scale t ≈ σ, accept with probability
    exp(−(|Y| − σ²/t)²/(2σ²)), evaluated exactly as Bernoulli(exp(−W²A/B)) with
    integers W, A, B. It is fastest when σ² is an integer divisible by t (then
    A/B = 1/(2σ²)); :func:`matrixdp.calibration.discrete.discrete_gaussian_sigma2`
    returns such values.

    Parameters
    ----------
    shape : int or tuple
    sigma2 : Fraction, int or float
        σ² > 0 (a float is read exactly).
    rng : numpy.random.Generator
        The generator to draw from; its state determines every draw, so a seeded generator is
        replayable by anyone who knows the seed (they regenerate the noise and subtract it).

    Returns
    -------
    ndarray of int64
    """
    shape, n = _size(shape)
    s2 = as_fraction(sigma2, "sigma2")
    if n >= _TABLE_MIN_SIZE:
        table = _table_plan(s2)
        if table is not None:
            return _gaussian_table(n, table, rng).reshape(shape)
    plan = _GaussianPlan(s2)
    if plan.t >= _FAST_DEN:
        raise InvalidParameterError("sigma2", "is too large for the int64 sampler (sigma >= 2**62)")
    if (plan.a == 1 and plan.b < _FAST_DEN and plan.b % plan.t == 0 and plan.cden < (1 << 31)
            and 0 <= plan.cnum < 2_000_000_000):
        return _gaussian_merged(n, plan, rng).reshape(shape)
    return _gaussian_general(n, plan, rng).reshape(shape)


def _gaussian_merged(n: int, plan: _GaussianPlan, rng) -> np.ndarray:
    """Algorithm 3 with the proposal's and the target's acceptance tests merged into one.

    Proposal: U uniform on [0, t), V with P(V ≥ j) = e^{−j}, a fair sign; X = U + tV.
    Accept with probability exp(−U/t)·exp(−(X − c)²/(2σ²)) = exp(−(U·(B/t) + W²)/B)
    (W = X·cden − cnum, γ = W²/B, t | B), rejecting sign = − with X = 0. Then
    P(Y = ±x) ∝ e^{−v}e^{−u/t}e^{−γ(x)} = e^{−x/t}e^{−γ(x)} ∝ e^{−x²/(2σ²)}: the
    discrete Gaussian, with one exact Bernoulli(exp(−·)) per proposal instead of two.
    The numerator stays below 2⁶³ (B < 2⁶², W² < 4·10¹⁸); larger proposals (≳ 45σ)
    finish with Python integers.
    """
    t, b = plan.t, plan.b
    bt = b // t
    cden, cnum = plan.cden, plan.cnum
    out = np.empty(n, dtype=np.int64)
    pending = np.arange(n)
    limit_v = (_I64_MAX - t) // t
    x_max = (2_000_000_000 + cnum) // cden
    while pending.size:
        k = pending.size
        u = rng.integers(0, t, size=k, dtype=np.int64)
        v = _geometric_e(k, rng)
        sign = rng.integers(0, 2, size=k, dtype=np.uint8).view(bool)
        big = v > limit_v if int(v.max(initial=0)) > limit_v else None
        x = u + t * (np.where(big, 0, v) if big is not None else v)
        keep = ~(sign & (x == 0))
        if big is not None:
            keep &= ~big
        ok = keep & (x <= x_max)          # then |W| <= 2·10⁹ and W² < 4·10¹⁸
        idx = np.flatnonzero(ok)
        xs = x[idx]
        w = xs * cden - cnum if cden != 1 else xs - cnum
        accept = np.zeros(k, dtype=bool)
        accept[idx] = _bernoulli_exp_rational(u[idx] * bt + w * w, b, rng)
        rare = None
        if idx.size != np.count_nonzero(keep) or big is not None:
            rare = np.flatnonzero(keep & ~ok | (big if big is not None else False))
        for j in (() if rare is None else rare):     # proposals ≳ 45σ out: exact with Python ints
            xj = int(u[j]) + t * int(v[j])
            if sign[j] and xj == 0:
                continue
            wj = xj * cden - cnum
            if _bernoulli_exp_scalar(int(u[j]) * bt + wj * wj, b, rng):
                accept[j] = True
                if xj > _I64_MAX:
                    raise OverflowError("discrete Gaussian draw beyond int64")
                x[j] = xj
        np.negative(x, out=x, where=sign)
        done = np.flatnonzero(accept)
        out[pending[done]] = x[done]
        pending = pending[~accept]
    return out


def _gaussian_general(n: int, plan: _GaussianPlan, rng) -> np.ndarray:
    """Algorithm 3 as written (any rational σ²): discrete-Laplace proposal, then its acceptance."""
    fast = plan.b < _FAST_DEN and plan.a < (1 << 31) and plan.cden < (1 << 31)
    out = np.empty(n, dtype=np.int64)
    pending = np.arange(n)
    while pending.size:
        k = pending.size
        y = _laplace_int(k, plan.t, 1, rng)
        ay = np.abs(y)
        accept = np.zeros(k, dtype=bool)
        if fast:
            # W² · A must stay below 2⁶³: bound |W| ≤ |y|·cden + cnum in float (huge margin).
            wf = ay.astype(float) * plan.cden + float(plan.cnum)
            ok = wf * wf * plan.a < 4.0e18
            idx = np.flatnonzero(ok)
            w = ay[idx] * plan.cden - plan.cnum
            accept[idx] = _bernoulli_exp_rational(w * w * plan.a, plan.b, rng)
            slow = np.flatnonzero(~ok)
        else:
            slow = np.arange(k)
        for j in slow:      # rare on the fast path (a proposal ≳ 45σ out); exact with Python ints
            w = int(ay[j]) * plan.cden - plan.cnum
            accept[j] = _bernoulli_exp_scalar(w * w * plan.a, plan.b, rng)
        out[pending[accept]] = y[accept]
        pending = pending[~accept]
    return out


# ---------------------------------------------------- the table sampler
# A faster exact discrete Gaussian (docs/numerics.md, "The table sampler"). Rejection from a
# piecewise-uniform proposal with *integer* weights, whose acceptance probabilities are
# decided by comparing uniform integers with integer bounds of exp(−·) computed once per σ²
# with Python integers (rigorous directed rounding). A comparison that the bounds cannot
# decide (probability ≲ 2⁻³⁰ per draw) is finished by drawing more uniform bits and
# tightening the bounds ("lazy" comparison), so every decision is exact.

def _exp_neg_bounds(num: int, den: int, prec: int) -> tuple[int, int]:
    """Integers ``lo ≤ 2^prec · exp(−num/den) ≤ hi`` (num ≥ 0, den > 0), with hi − lo ≤ 3.

    exp(y) for y = x/2^s ≤ 1 by its Taylor series with every term rounded down (lower
    sum) and up (upper sum, plus a bound on the remainder), squared s times with directed
    rounding, then inverted with directed rounding. Only Python integers are used.
    """
    if num == 0:
        return 1 << prec, 1 << prec
    if num * 10_000 >= den * (prec + 1) * 6_932:   # x ≥ (prec + 1)·0.6932 > (prec + 1)·ln 2
        return 0, 1
    s = (-(-num // den)).bit_length()            # 2^s ≥ ⌈x⌉ ≥ x
    work = prec + 2 * s + 16
    d = den << s
    lo = hi = t_lo = t_hi = 1 << work
    n = 0
    while True:
        n += 1
        t_lo = t_lo * num // (d * n)
        t_hi = -((-t_hi * num) // (d * n))
        lo += t_lo
        hi += t_hi
        if t_hi <= 1:
            hi += 1                              # the remainder after term n is ≤ term n ≤ 1 unit
            break
    for _ in range(s):
        lo = (lo * lo) >> work
        hi = -((-hi * hi) >> work)
    top = 1 << (prec + work)
    return top // hi, -(-top // lo)


def _lazy_below(bounds, y: int, k: int, rng) -> bool:
    """Whether U < p, for U uniform on [0, 1) whose first k bits are the integer y.

    ``bounds(prec)`` returns integers lo ≤ 2^prec·p ≤ hi. More bits of U are drawn (64 at a
    time) until the bounds decide; the answer is exactly Bernoulli(p) over U's unseen bits.
    """
    while True:
        lo, hi = bounds(k)
        if y + 1 <= lo:
            return True
        if y >= hi:
            return False
        words = rng.integers(0, 1 << 32, size=2, dtype=np.uint64)
        y = (y << 64) | (int(words[0]) << 32) | int(words[1])
        k += 64


def _alias_tables(weights: list[int], n: int, total: int):
    """Walker's alias tables for integer ``weights`` (padded with zeros to n columns), exactly.

    Column c (chosen uniformly) of capacity ``total`` holds bin c on [0, prob_c) and bin
    alias_c on [prob_c, total); every bin b gets pieces of total length n·weight_b. ``own_c``
    and ``other_c`` are the positions of the two pieces inside their bin's union, so a uniform
    V in the column gives a uniform position on [0, n·weight_b) in the chosen bin.
    """
    scaled = [n * wt for wt in weights] + [0] * (n - len(weights))
    prob = [total] * n
    alias = list(range(n))
    small = [b for b in range(n) if scaled[b] < total]
    large = [b for b in range(n) if scaled[b] >= total]
    rest = scaled[:]
    while small and large:
        s, g = small.pop(), large.pop()
        prob[s], alias[s] = rest[s], g
        rest[g] -= total - rest[s]
        (small if rest[g] < total else large).append(g)
    for b in small + large:          # exact arithmetic: what is left fills its column exactly
        prob[b] = total
        if rest[b] != total:
            raise AssertionError("alias table construction lost mass")  # pragma: no cover
    used = [0] * n
    own, other = [0] * n, [0] * n
    for c in range(n):
        own[c] = used[c]
        used[c] += prob[c]
        other[c] = used[alias[c]]
        used[alias[c]] += total - prob[c]
    if any(used[b] != scaled[b] for b in range(n)):
        raise AssertionError("alias pieces do not tile the bins")  # pragma: no cover
    as64 = lambda a: np.array(a, dtype=np.int64)   # noqa: E731
    return as64(prob), as64(alias), as64(own), as64(other)


class _TablePlan:
    r"""The integer tables of the table sampler for σ² = p/q (public; computed once per σ²).

    Bins of width w = 2^lw cover y ∈ [0, T), T = B·w. Bin b has the integer weight
    u_b = w·v_b with v_b = ⌊M·F_b⌋ + 1 > M·F_b, F_b = exp(−(bw)²/(2σ²)), for an integer
    scale M; the tail y ≥ T has the integer weight m, and a "reject" bin fills the total to
    S = 2^L. One uniform 63-bit integer gives a fair sign, an alias column and a uniform V
    in it (Walker's alias method, integer weights): that picks bin b with probability u_b/S,
    a uniform offset i ∈ [0, w) and an integer jj uniform on [0, v_b). The value y = bw + i
    is accepted with probability (M·F_b/v_b) · exp(−(y² − (bw)²)/(2σ²)). The first factor
    is "jj + U < M·F_b" for a fresh uniform U: true for jj below ``safe_b`` = ⌊lower bound
    of M·F_b⌋, otherwise decided lazily; the second is Algorithm 1 of Canonne, Kamath and
    Steinke with a rational γ ≤ 1. Each (sign, y) then has probability M·exp(−y²/(2σ²))/(2S)
    per round, sign − with y = 0 excepted: the discrete Gaussian. The tail proposes
    y = T + j, j ≥ 0, from a discrete Laplace of scale s_t (its negative half rejected) and
    accepts with probability M·exp(−(T+j)²/(2σ²) + j/s_t)·coth(1/(2 s_t))/m ≤ 1, lazily.
    """

    __slots__ = ("p", "q", "lw", "w", "scale", "nbins", "t", "v", "safe", "m", "s_tail",
                 "gden", "lcol", "lpos", "ncol", "nbits", "cprob", "pbin", "pbase", "pbw", "pthr",
                 "blim")

    #: Fixed-point bits of the bin table's exp bounds.
    _PREC = 160
    #: Bits of the uniform integer that pick a column and a position; with 8 more bits for the
    #: first round of the in-bin factor and a sign bit the draw is a 63-bit integer.
    _BITS = 54

    def __init__(self, sigma2: Fraction, scale_bits: int | None = None, tail_bins: int | None = None):
        p, q = sigma2.numerator, sigma2.denominator
        sigma = math.sqrt(p / q)
        self.p, self.q = p, q
        lw = max(0, math.floor(math.log2(sigma)) - 8) if sigma >= 1 else 0
        # the tail starts where M·exp(−T²/2σ²)·(2σ²/T) < 1 for M ≈ 2^40/σ (m then stays small)
        z = sigma * math.sqrt(2.0 * math.log(2.0) * 44) + 2
        while True:
            w = 1 << lw
            nbins = max(1, math.ceil(z / w)) if tail_bins is None else tail_bins
            t = nbins * w
            # γ' = (y² − (bw)²)/(2σ²) ≤ (T² − (T − w)²)/(2σ²) must stay ≤ 1 (Algorithm 1's range)
            if lw == 0 or (w - 1) * (2 * t - w - 1) * q <= 2 * p:
                break
            lw -= 1
        self.lw, self.w, self.nbins, self.t = lw, w, nbins, t
        self.gden = 2 * p
        s_tail = 1                      # 1/s_t ≤ (2T + 1)/(2σ²): the tail acceptance falls in j
        while 2 * p > s_tail * (2 * t + 1) * q:
            s_tail <<= 1
        self.s_tail = s_tail
        ncol = 1 << max(1, (nbins + 1).bit_length())      # ≥ nbins + 2 columns
        self.lcol = ncol.bit_length() - 1
        self.lpos = self._BITS - self.lcol
        total = 1 << self.lpos
        # F_b bounds by the recurrence F_{b+1} = F_b·ρ^{2b+1}, ρ = exp(−w²/(2σ²)), directed rounding
        prec = self._PREC
        r_lo, r_hi = _exp_neg_bounds(w * w * q, 2 * p, prec)
        r2_lo, r2_hi = (r_lo * r_lo) >> prec, -((-r_hi * r_hi) >> prec)
        f_lo = f_hi = 1 << prec
        g_lo, g_hi = r_lo, r_hi
        f_bounds = []
        for _ in range(nbins):
            f_bounds.append((f_lo, f_hi))
            f_lo, f_hi = (f_lo * g_lo) >> prec, -((-f_hi * g_hi) >> prec)
            g_lo, g_hi = (g_lo * r2_lo) >> prec, -((-g_hi * r2_hi) >> prec)
        a_lo, a_hi = _exp_neg_bounds(t * t * q, 2 * p, 96)
        e_lo, e_hi = _exp_neg_bounds(1, s_tail, 96)
        one = 1 << 96
        coth_hi = Fraction(one + e_hi, one - e_hi)
        f_sum = sum(fh for _, fh in f_bounds) / float(1 << prec)
        if scale_bits is not None:
            scale = 1 << scale_bits
        else:
            scale = max(1, int((total * (1 - 2.0 ** -12) - w * (nbins + 2)) / (w * f_sum)))
        while True:
            v = [(fh * scale >> prec) + 1 for _, fh in f_bounds]
            m = max(1, math.ceil(Fraction(a_hi * scale, one) * coth_hi))
            used = w * sum(v) + m
            if scale_bits is not None:       # tests: a small M; the column just fits it
                self.lpos = max(1, (used - 1).bit_length())
                total = 1 << self.lpos
            if used <= total:
                break
            if scale_bits is not None or scale <= 1:
                raise ValueError("table weights exceed the column capacity")
            scale = scale * 1023 // 1024
        self.scale, self.m = scale, m
        self.v = np.array(v, dtype=np.int64)
        # safe_b for the body; 0 for the tail and reject bins (they go to the rare path)
        self.safe = np.array([fl * scale >> prec for fl, _ in f_bounds] + [0, 0], dtype=np.int64)
        weights = [w * vb for vb in v] + [m, total - used]     # body bins, tail, reject
        prob, alias, own, other = _alias_tables(weights, ncol, total)
        self.ncol = ncol
        self.nbits = self.lcol + self.lpos + 9             # sign, 8 bits B, column, position
        safe = self.safe
        # Piece tables, index 2c (column c's own piece) or 2c + 1 (its alias piece); each row of a
        # draw needs one gather per table. cprob[2c] = the column's split point.
        self.cprob = np.repeat(prob, 2)
        self.pbin = np.stack([np.arange(ncol, dtype=np.int64), alias], axis=1).reshape(-1)
        self.pbase = np.stack([own, other - prob], axis=1).reshape(-1)
        self.pbw = self.pbin << lw
        # jj = (pos + base) >> (lcol + lw) < safe_b  <=>  pos < (safe_b << (lcol + lw)) - base
        # (columns c > nbins + 1 are padding: their own piece is empty, never drawn)
        safe_col = np.concatenate([safe, np.zeros(ncol - safe.size, dtype=np.int64)])
        pthr = (safe_col[self.pbin] << (self.lcol + lw)) - self.pbase
        if lw:
            pthr[self.pbin == 0] = -1      # bin 0 (y = 0 possible with sign −): always a special row
        self.pthr = pthr
        # The in-bin factor's first round can draw A = 1 only when B < bg, bg = ⌈256·max num/den⌉,
        # max num = (w − 1)(2T − w − 1)q (≤ den = 2p, so bg ≤ 256). B is the top byte of the draw
        # shifted left by one bit (sign dropped): B < bg <=> that uint64 <= bg·2^56 − 1.
        num_max = (w - 1) * (2 * t - w - 1) * q
        bg = min(256, -(-256 * num_max // (2 * p)))
        self.blim = np.uint64((bg << 56) - 1) if bg > 0 else None
        for table in (self.v, self.safe, self.cprob, self.pbin, self.pbase, self.pbw, self.pthr):
            table.setflags(write=False)    # cached per σ² and shared by every call: never written

    # ---------------------------------------------- rare, exact, one entry at a time
    def body_factor(self, b: int, jj: int, rng) -> bool:
        """Bernoulli(P(jj + U < M·F_b)) for a fresh uniform U (lazy, exact)."""
        num, den, scale = (b * self.w) ** 2 * self.q, 2 * self.p, self.scale
        extra = scale.bit_length() + 4

        def bounds(prec):
            lo, hi = _exp_neg_bounds(num, den, prec + extra)
            base = jj << (prec + extra)
            return (lo * scale - base) >> extra, -((-(hi * scale - base)) >> extra)

        return _lazy_below(bounds, 0, 0, rng)

    def tail_draw(self, rng):
        """One proposal of the tail branch: y ≥ T, or None when rejected (exact)."""
        j = int(_laplace_int(1, self.s_tail, 1, rng)[0])
        if j < 0:
            return None
        y = self.t + j
        # acceptance M·exp(−γ)·(1 + e^{−λ})/((1 − e^{−λ})·m), γ = y²/(2σ²) − j/s_t ≥ 0
        gnum = y * y * self.q * self.s_tail - 2 * self.p * j
        gden = 2 * self.p * self.s_tail
        scale, m, s_tail = self.scale, self.m, self.s_tail

        def bounds(prec):
            work = prec + scale.bit_length() + 8
            a_lo, a_hi = _exp_neg_bounds(gnum, gden, work)
            e_lo, e_hi = _exp_neg_bounds(1, s_tail, work)
            one = 1 << work
            lo = Fraction(a_lo * scale, one) * Fraction(one + e_lo, one - e_lo) / m
            hi = Fraction(a_hi * scale, one) * Fraction(one + e_hi, one - e_hi) / m
            return math.floor(lo * (1 << prec)), math.ceil(hi * (1 << prec))

        return y if _lazy_below(bounds, 0, 0, rng) else None


_TABLE_CACHE: dict = {}
#: Below this many draws the one-off table set-up (≈ 1-20 ms) is not worth it: Algorithm 3.
_TABLE_MIN_SIZE = 64


def _table_plan(sigma2: Fraction):
    """The cached :class:`_TablePlan` of σ², or None when σ² is outside the table sampler's range."""
    key = (sigma2.numerator, sigma2.denominator)
    plan = _TABLE_CACHE.get(key, False)
    if plan is False:
        try:
            sigma = math.sqrt(float(sigma2))
            ok = 0.25 <= sigma <= 2.0 ** 26 and 2 * key[0] < (1 << 53) and key[1] < (1 << 31)
            plan = _TablePlan(sigma2) if ok else None
        except (ValueError, OverflowError):
            plan = None
        if len(_TABLE_CACHE) > 64:
            _TABLE_CACHE.clear()
        _TABLE_CACHE[key] = plan
    return plan


def _bernoulli_exp_fraction_rest(num: np.ndarray, den, rng) -> np.ndarray:
    """Rounds K ≥ 2 of :func:`_bernoulli_exp_fraction` for entries whose round 1 drew A = 1
    (``den`` a scalar or one value per entry)."""
    m = num.size
    out = np.empty(m, dtype=bool)
    den_arr = np.ndim(den) > 0
    idx = np.arange(m)
    k = 2
    while idx.size:
        # Bernoulli(γ/K) = Bernoulli(1/K) ∧ Bernoulli(γ) (independent), cheapest draw first.
        a = _uniform_below(k, idx.size, rng) == 0
        live = idx[a]
        if live.size:
            a[a] = _bernoulli_ratio(num[live], den[live] if den_arr else den, rng)
        out[idx[~a]] = (k % 2 == 1)
        idx = idx[a]
        k += 1
    return out


#: Entries per block of the table sampler: its ~17 passes and 4 gathers then stay in the CPU cache.
_TABLE_BLOCK = 1 << 15


def _gaussian_table(n: int, plan: _TablePlan, rng) -> np.ndarray:
    """``n`` exact discrete Gaussian draws by the table sampler (see :class:`_TablePlan`)."""
    out = np.empty(n, dtype=np.int64)
    for start, stop, block in _gaussian_table_blocks(n, plan, rng):
        out[start:stop] = block
    return out


def _gaussian_table_blocks(n: int, plan: _TablePlan, rng):
    """Yield ``(start, stop, draws)`` for consecutive blocks of :data:`_TABLE_BLOCK` entries.

    The loop runs over blocks, not entries; the work arrays (and the yielded ``draws``
    buffer, which the consumer must use before asking for the next block) are allocated once,
    so the passes stay in the CPU cache.
    """
    size = min(n, _TABLE_BLOCK)
    work, spare = _TableWork(size), _TableWork(size)
    buf, spare_y = np.empty(size, dtype=np.int64), np.empty(size, dtype=np.int64)
    for start in range(0, n, _TABLE_BLOCK):
        stop = min(n, start + _TABLE_BLOCK)
        y = buf[:stop - start]
        _table_round(y, plan, rng, work)
        pending = np.flatnonzero(work.rej[:stop - start])
        while pending.size:                       # rejected entries: new rounds on them only
            k = pending.size
            redo = spare_y[:k]
            _table_round(redo, plan, rng, spare)
            rej = spare.rej[:k]
            acc = ~rej
            y[pending[acc]] = redo[acc]
            pending = pending[rej]
        yield start, stop, y


def discrete_gaussian_blocks(n: int, sigma2, rng):
    """``n`` discrete Gaussian draws as ``(start, stop, draws)`` blocks (same law and order as
    :func:`discrete_gaussian`); ``draws`` may be a reused buffer: consume it before the next.

    For callers that post-process the noise block by block while it is in the CPU cache
    (the lattice release adds the rounded value and scales back).

    ``rng`` is the Generator the noise is drawn from; its state determines every draw, so a
    seeded generator is replayable by anyone who knows the seed (they regenerate the noise and
    subtract it).
    """
    s2 = as_fraction(sigma2, "sigma2")
    table = _table_plan(s2) if n >= _TABLE_MIN_SIZE else None
    if table is None:
        yield 0, n, discrete_gaussian(n, s2, rng)
        return
    yield from _gaussian_table_blocks(n, table, rng)


class _TableWork:
    """Work arrays of one block of the table sampler (reused from block to block)."""

    __slots__ = ("e", "a", "pos", "c", "flag", "rej")

    def __init__(self, size: int):
        self.e, self.a, self.pos, self.c = (np.empty(size, dtype=np.int64) for _ in range(4))
        self.flag, self.rej = np.empty(size, dtype=bool), np.empty(size, dtype=bool)


def _draw_top_bits(rng, k: int, nbits: int) -> np.ndarray:
    """``k`` uniform integers on [0, 2^nbits) placed in the top ``nbits`` bits of an int64 view.

    For nbits > 32 one full 64-bit word per entry: its top nbits are exactly what
    ``rng.integers(0, 2**nbits, dtype=np.int64)`` returns (Lemire's method on a power of two
    keeps the top bits of the word and never rejects), so the seeded draws are unchanged while
    the 128-bit product per entry is saved. Either way the top nbits are uniform.
    """
    if nbits > 32:
        return rng.integers(0, 1 << 64, size=k, dtype=np.uint64).view(np.int64)
    raw = rng.integers(0, 1 << nbits, size=k, dtype=np.uint64)
    raw <<= np.uint64(64 - nbits)
    return raw.view(np.int64)


def _table_round(y: np.ndarray, plan: _TablePlan, rng, work: _TableWork) -> None:
    """One proposal per entry of ``y``: writes the draws into ``y`` and which were rejected
    into ``work.rej[:y.size]`` (the rejected entries of ``y`` hold garbage).

    One uniform integer on [0, 2^nbits), nbits = 9 + lcol + lpos, per entry: its top bit is the
    sign, the next 8 bits B start the in-bin factor's uniform U = (B + U')/256, the rest pick the
    alias column and the position in it. The common row (accepted by ``safe_b`` and with B too
    large for the in-bin factor's first round to draw A = 1) costs 17 whole-array passes and four
    table gathers; the other rows ("special": ≈ 3 % at a calibrated σ, from bin 0, the tail, the
    reject bin, jj ≥ safe_b, or B < bg) are finished on index arrays, in index order, with the
    same generator calls in the same order as the row-by-row description in docs/numerics.md.
    """
    k = y.size
    lw, w, nbins, lpos, lcol = plan.lw, plan.w, plan.nbins, plan.lpos, plan.lcol
    shift = 64 - plan.nbits
    e, a, pos, c = work.e[:k], work.a[:k], work.pos[:k], work.c[:k]
    flag, rej = work.flag[:k], work.rej[:k]
    r = _draw_top_bits(rng, k, plan.nbits)
    ru = r.view(np.uint64)
    np.right_shift(r, 63, out=e)                  # −s: 0, or −1 for sign −
    np.right_shift(r, shift + lpos - 1, out=a)
    a &= 2 * plan.ncol - 2                        # 2·(alias column)
    np.right_shift(r, shift, out=pos)
    pos &= (1 << lpos) - 1                        # uniform position in the column
    # mode="wrap": the indices are in range by construction (wrap is then the identity, and
    # skips the bounds check of mode="raise")
    np.take(plan.cprob, a, out=c, mode="wrap")
    np.greater_equal(pos, c, out=flag)            # the column's second piece: its alias bin
    a += flag                                     # piece index
    np.take(plan.pthr, a, out=c, mode="wrap")
    np.greater_equal(pos, c, out=rej)             # jj ≥ safe_b, tail, reject bin, bin 0 (w > 1)
    np.take(plan.pbase, a, out=c, mode="wrap")
    pos += c
    pos >>= lcol                                  # u uniform on [0, w·v_b) inside bin b
    if lw:
        np.bitwise_and(pos, w - 1, out=y)         # i: offset in the bin
        np.take(plan.pbw, a, out=c, mode="wrap")
        y += c                                    # y = bw + i
        ru <<= np.uint64(1)                       # drop the sign: B is the top byte
        np.less_equal(ru, plan.blim, out=flag)    # B < bg: the in-bin factor may need more bits
        flag |= rej
    else:
        np.take(plan.pbin, a, out=y, mode="wrap")  # y = b
        np.add(y, e, out=c)
        np.equal(c, -1, out=flag)                 # y − s = −1 ⇔ sign − with y = 0: rejected
        flag |= rej
    special = np.flatnonzero(flag)
    if special.size:
        _table_special(y, plan, rng, special, a[special], pos[special], e[special], ru, rej)
    y ^= e                                        # (y ^ −s) + s = y or −y
    y -= e


def _table_special(y, plan: _TablePlan, rng, idx, piece, u, neg, ru, rej) -> None:
    """The special rows ``idx`` (ascending) of :func:`_table_round`: their exact decisions.

    For each row: jj = u >> lw; jj < safe_b accepts the first factor (sign − with y = 0 is
    rejected); jj ≥ safe_b goes, row by row in index order, to the tail branch (b = nbins), the
    lazy first factor (b < nbins) or nothing (the reject bin). Then, for accepted body rows with
    w > 1, the in-bin factor exp(−γ), γ = i(2bw + i)q/(2p) = num/den ≤ 1, by Algorithm 1: its
    round 1 draws A = [U < γ] with U = (B + U')/256: A = 0 when B·den ≥ 256·num, A = 1 when
    (B + 1)·den ≤ 256·num, otherwise A = [U' < 256γ − B] from a fresh uniform integer; accept on
    A = 0 and run rounds K ≥ 2 for the rest. (Rows outside ``idx`` have B·den ≥ 256·num.)
    """
    lw, nbins = plan.lw, plan.nbins
    b = plan.pbin[piece]
    jj = u >> lw
    yi = y[idx]
    zero = (neg != 0) & (yi == 0)                 # sign − with y = 0: rejected
    hit = jj >= plan.safe[b]
    acc = ~(hit | zero)
    body = b < nbins
    for t in np.flatnonzero(hit):                 # rare: M·F_b within one unit of jj, tail, reject
        bj = int(b[t])
        if bj == nbins:                           # tail: probability m/S per proposal
            yt = plan.tail_draw(rng)
            if yt is not None:
                if yt > _I64_MAX:
                    raise OverflowError("discrete Gaussian draw beyond int64")
                yi[t] = yt
                acc[t] = True
        elif bj < nbins and not zero[t]:
            acc[t] = plan.body_factor(bj, int(jj[t]), rng)
    if lw:
        den = plan.gden
        bw = b << lw
        cc = (bw + yi) * (yi - bw)                # i(2bw + i)
        if plan.q != 1:
            cc *= plan.q
        cc <<= 8                                  # 256·num
        dd = (ru[idx] >> np.uint64(56)).astype(np.int64) * den     # B·den
        sel = np.flatnonzero(acc & body & (dd < cc))
        if sel.size:
            ds, cs = dd[sel], cc[sel]
            a1 = ds + den <= cs
            unsure = np.flatnonzero(~a1)
            if unsure.size:
                a1[unsure] = _uniform_below(den, unsure.size, rng) < cs[unsure] - ds[unsure]
            more = sel[a1]
            if more.size:
                acc[more] = _bernoulli_exp_fraction_rest(cc[more] >> 8, den, rng)
    y[idx] = yi
    rej[idx] = ~acc
