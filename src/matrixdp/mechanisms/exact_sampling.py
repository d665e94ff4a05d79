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
  σ² > 0 (Algorithm 3: a discrete-Laplace proposal with an exact acceptance test).

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

__all__ = ["bernoulli_exp", "discrete_laplace", "discrete_gaussian", "as_fraction"]

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
    m = num.size
    out = np.empty(m, dtype=bool)
    den_arr = np.ndim(den) > 0
    a = _bernoulli_ratio(num, den, rng)        # K = 1: Bernoulli(γ)
    out[~a] = True
    idx = np.flatnonzero(a)
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


def _bernoulli_exp_minus_one(m: int, rng) -> np.ndarray:
    """``m`` independent Bernoulli(e⁻¹) draws (Algorithm 1 with γ = 1; round K = 1 always continues)."""
    out = np.empty(m, dtype=bool)
    idx = np.arange(m)
    k = 2
    while idx.size:
        a = _uniform_below(k, idx.size, rng) == 0
        out[idx[~a]] = (k % 2 == 1)
        idx = idx[a]
        k += 1
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
        accept = ~(sign & (y == 0))
        z = np.where(sign, -y, y)
        if big.any():       # astronomically rare for t < 2⁵⁶; exact with Python ints
            for j in np.flatnonzero(big & accept):
                xj = int(u[j]) + t * int(v[j])
                yj = xj // s
                if yj > _I64_MAX:
                    raise OverflowError("discrete Laplace draw beyond int64")
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

    Exact (CKS Algorithm 3) with integer arithmetic only: propose Y from the
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

    Returns
    -------
    ndarray of int64
    """
    shape, n = _size(shape)
    s2 = as_fraction(sigma2, "sigma2")
    plan = _GaussianPlan(s2)
    if plan.t >= _FAST_DEN:
        raise InvalidParameterError("sigma2", "is too large for the int64 sampler (sigma >= 2**62)")
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
    return out.reshape(shape)
