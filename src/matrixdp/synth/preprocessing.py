"""RON-Gauss pre-processing (Algorithm 1): sample-wise normalisation, a DP mean, centring and
re-normalisation.

See ``docs/ron_gauss.md`` for the derivation of the mean's sensitivity (Lemma 2).
"""

from __future__ import annotations

import math
import os

import numpy as np

from .._validation import check_choice, check_epsilon, non_finite_error
from ..mechanisms import LaplaceMechanism
from ..rng import make_rng

__all__ = ["SENSITIVITY_MODES", "normalize_rows", "mean_sensitivity", "dp_mean",
           "data_preprocessing", "dp_mean_from_sum", "unit_row_pass", "centred_projection",
           "centred_scatter"]

#: Rows per block of the one-pass statistics (a block of 100 features is ~3 MB: stays in cache).
CHUNK_ROWS = 4096
#: Rows per block of the second pass (:func:`centred_scatter`), which keeps only the block's p
#: projected rows in cache (X_b is streamed once, by X_b @ mu): larger blocks, fewer numpy calls
#: (400,000 x 100, p = 10, 1 BLAS thread: 18.2 ms at 8192 rows, 19.2 at 4096, 19.1 at 16384;
#: results/ron_gauss_split_diag.md).
SCATTER_ROWS = 8192
# Squared norms outside this range may have overflowed or lost precision in a plain dot product;
# those rows (rare) take the scaled path of normalize_rows.
_SAFE_SQ = (1e-280, 1e280)
# Below this squared centred norm, 1 - 2 x.mu + |mu|^2 loses digits to cancellation: such rows
# are centred explicitly.
_CANCEL_SQ = 1e-3

#: ``"corrected"`` is the default and the only mode whose guarantees are all valid.
#: ``"paper"`` uses the paper's Lemma 4/5 covariance sensitivities (too small for p >= 3);
#: ``"reference_code"`` additionally uses the official code's mean noise (half of Lemma 2).
SENSITIVITY_MODES = ("corrected", "paper", "reference_code")


def normalize_rows(X: np.ndarray) -> np.ndarray:
    """Scale every row of ``X`` to unit Euclidean norm; zero rows stay zero.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)

    Returns
    -------
    ndarray of the same shape (a new array)

    Notes
    -----
    Zero rows have no direction; keeping them at 0 keeps every row norm <= 1,
    which is all the sensitivity bounds use (spec I19).

    Each row is first divided by its largest absolute entry, so the norm is computed
    on entries in [-1, 1]: a plain ``x / np.linalg.norm(x)`` overflows for rows of
    magnitude ~1e155 (silently giving a zero row) and loses precision for rows of
    magnitude ~1e-160 (giving norms up to ~1.001, which breaks the norm <= 1 premise
    of the sensitivities).
    """
    X = np.asarray(X, dtype=np.float64)
    peak = np.max(np.abs(X), axis=1, keepdims=True) if X.shape[1] else np.zeros((X.shape[0], 1))
    scaled = X / np.where(peak > 0, peak, 1.0)
    norms = np.linalg.norm(scaled, axis=1, keepdims=True)
    return scaled / np.where(norms > 0, norms, 1.0)


def mean_sensitivity(m: int, n: int, mode: str = "corrected") -> float:
    r"""L1 sensitivity of the mean of n rows of norm <= 1 in R^m (replace-one).

    Lemma 2: :math:`\|\bar x - \bar x'\|_1 \le \sqrt m\,\|x_i - x_i'\|_2 / n \le 2\sqrt m / n`,
    attained by an antipodal pair :math:`x = \mathbf 1/\sqrt m`, :math:`x' = -x`. The
    official code uses :math:`\sqrt m / n` (``mode="reference_code"``), which is too small.

    Parameters
    ----------
    m, n : int
        Number of features and of records (n is public under replace-one).
    mode : {"corrected", "paper", "reference_code"}

    Returns
    -------
    float

    References
    ----------
    .. [1] T. Chanyaswad, C. Liu, P. Mittal, "RON-Gauss", PoPETs 2019, Lemma 2.
    """
    check_sensitivity_mode(mode)
    factor = 1.0 if mode == "reference_code" else 2.0
    return factor * math.sqrt(m) / n


def dp_mean(X_normalized: np.ndarray, epsilon: float, rng=None, *,
            mode: str = "corrected", numerics: str = "float") -> tuple[np.ndarray, LaplaceMechanism]:
    """The ε-DP mean of unit-norm rows (Algorithm 1, step 2), with its Laplace mechanism.

    ``numerics="exact"`` uses the lattice discrete Laplace (floating-point safe).

    ``rng``: ``None`` (default) draws from the per-process secure stream; a seed or a Generator
    makes the draws reproducible, so a seeded release is replayable by anyone who knows the seed
    (they regenerate the noise and subtract it).
    """
    n, m = X_normalized.shape
    mech = LaplaceMechanism(epsilon=epsilon, sensitivity=mean_sensitivity(m, n, mode),
                            numerics=numerics)
    released = mech.release(X_normalized.mean(axis=0), rng=make_rng(rng))
    return np.asarray(released.value, dtype=np.float64), mech


def dp_mean_from_sum(total: np.ndarray, n: int, epsilon: float, rng=None, *,
                     mode: str = "corrected",
                     numerics: str = "float") -> tuple[np.ndarray, LaplaceMechanism]:
    """:func:`dp_mean` from the sum of the unit rows (the same release and the same draws).

    ``rng``: ``None`` (default) draws from the per-process secure stream; a seed or a Generator
    makes the draws reproducible, so a seeded release is replayable by anyone who knows the seed
    (they regenerate the noise and subtract it).
    """
    m = total.shape[0]
    mech = LaplaceMechanism(epsilon=epsilon, sensitivity=mean_sensitivity(m, n, mode),
                            numerics=numerics)
    released = mech.release(total / n, rng=make_rng(rng))
    return np.asarray(released.value, dtype=np.float64), mech


def data_preprocessing(X, epsilon_mean: float, rng=None, *, mode: str = "corrected",
                       numerics: str = "float"):
    r"""Algorithm 1 of RON-Gauss (records in rows).

    1. normalise every record to unit norm;
    2. release the mean with Laplace noise of scale :math:`2\sqrt m/(n\varepsilon_\mu)`;
    3. subtract the DP mean from every record;
    4. re-normalise every record.

    Parameters
    ----------
    X : ndarray of shape (n, m)
        Finite data (validated by the caller).
    epsilon_mean : float
        Budget ε_μ of the DP mean.
    rng : None, int or numpy.random.Generator
        ``None`` (default) draws from the per-process secure stream; a seed or a Generator makes the
        draws reproducible, so a seeded release is replayable by anyone who knows the seed (they
        regenerate the noise and subtract it).
    mode : {"corrected", "paper", "reference_code"}
        Mean-noise convention (see :func:`mean_sensitivity`).

    Returns
    -------
    X_bar : ndarray of shape (n, m)
        Centred, re-normalised records (rows of norm 1, or 0). Never released.
    mu_dp : ndarray of shape (m,)
        The ε_μ-DP mean of the normalised records (a public output).
    mechanism : LaplaceMechanism
        The mechanism used for the mean.

    References
    ----------
    .. [1] T. Chanyaswad, C. Liu, P. Mittal, "RON-Gauss", PoPETs 2019, Algorithm 1.
    """
    check_epsilon(epsilon_mean, "epsilon_mean")
    X_norm = normalize_rows(X)
    mu_dp, mech = dp_mean(X_norm, epsilon_mean, rng, mode=mode, numerics=numerics)
    return normalize_rows(X_norm - mu_dp), mu_dp, mech


def check_sensitivity_mode(mode: str) -> None:
    """Raise unless ``mode`` is one of :data:`SENSITIVITY_MODES` (the ``sensitivity`` argument)."""
    check_choice(mode, SENSITIVITY_MODES, "sensitivity")


def unit_row_pass(X: np.ndarray, W: np.ndarray, *, chunk_rows: int = CHUNK_ROWS,
                  check_finite: bool = False):
    r"""One blocked pass over X: row norms r, :math:`\sum_i x_i/r_i` and ``X @ W``.

    The statistics RON-Gauss needs from the normalised rows, without forming them: block by
    block (so a block stays in cache) the squared norms by ``einsum``, the sum of the
    normalised rows as :math:`(1/r)^\top X_b` and the projection :math:`X_b W`. Zero rows
    have r = 0 and contribute nothing (as in :func:`normalize_rows`); rows whose squared norm
    may have overflowed or underflowed are recomputed with the scaled norm.

    ``check_finite=True`` refuses NaN/inf entries (``NonFiniteInputError`` for ``X``) at no
    extra read: a row with one has a NaN or infinite squared norm, so it is among the rows
    recomputed anyway, where its entries are checked. Run it before any budget is charged.

    Returns
    -------
    r : ndarray of shape (n,)
        Row norms.
    total : ndarray of shape (m,)
        :math:`\sum_i \hat x_i` with :math:`\hat x_i = x_i/r_i` (0 for zero rows).
    Y : ndarray of shape (n, p)
        ``X @ W`` (raw rows, not normalised).
    """
    n, m = X.shape
    p = W.shape[1]
    r = np.empty(n)
    Y = np.empty((n, p))
    parts = [np.zeros(m) for _ in _halves(n, chunk_rows)]

    def work(i, start, stop):
        _unit_row_blocks(X[start:stop], W, r[start:stop], parts[i], Y[start:stop], chunk_rows,
                         check_finite)

    # Cache-sized blocks are small BLAS calls: multi-threaded BLAS spends more on waking its
    # threads than on the arithmetic (3-10x slower on a loaded 2-core machine), one thread reads
    # memory as fast as the pass needs; with two BLAS threads allowed, the halves run in two
    # threads of one BLAS thread each (see _run_halves for when that gains nothing).
    _run_halves(work, n, chunk_rows)
    total = parts[0] if len(parts) == 1 else parts[0] + parts[1]
    return r, total, Y


def _halves(n: int, chunk_rows: int) -> list[tuple[int, int]]:
    """The row ranges the blocked passes sum separately: two block-aligned halves from
    ``2 * chunk_rows`` rows on, else one range. Fixed by ``n`` (and ``chunk_rows``) alone, so
    the sums, added in this order, do not depend on how many threads ran them."""
    if n < 2 * chunk_rows:
        return [(0, n)]
    half = (n // 2 // chunk_rows) * chunk_rows
    return [(0, half), (half, n)]


def _blas_threads() -> int:
    """The BLAS thread limit in force (the caller's ``threadpool_limits``), 1 if unknown."""
    try:
        info = _controller().select(user_api="blas").info()
        return max([int(lib.get("num_threads", 1)) for lib in info] or [1])
    except Exception:  # pragma: no cover - threadpoolctl can always describe its libraries
        return 1


def _run_halves(work, n: int, chunk_rows: int) -> None:
    """``work(i, start, stop)`` for each range of :func:`_halves`, with one BLAS thread each;
    the second range in a second thread when the caller (from the main thread) allows two or
    more BLAS threads (numpy and BLAS release the GIL). An exception of either range is raised
    here. The results do not depend on the threads (:func:`_halves`).

    Both threads must leave the GIL while they compute: numpy's ``@`` keeps it for products with
    a small output (measured: ``(1/r) @ X_b``, 100 values, and the block Gram ``U_b^T U_b``), so
    the passes call :func:`numpy.dot` there, which releases it around the BLAS call.

    The second thread needs a free core. Right after a multi-threaded BLAS call (by anyone in
    the process) OpenBLAS's pthreads workers busy-wait for their next job for ~0.1-0.2 s
    (``OPENBLAS_THREAD_TIMEOUT``), and lowering the BLAS limit does not park them; during that
    window a worker holds the second core and the split runs about as fast as one thread
    (400,000 x 100, p = 10, 2 cores: ``unit_row_pass`` 23 ms from a quiet pool, 40-45 ms right
    after a 2-thread ``X @ W``, 43 ms sequential; ``benchmarks/bench_ron_gauss_threads.py``).

    The two threads are pinned to different CPUs for the pass (Linux; :func:`_split_cpus`), the
    calling thread's affinity restored afterwards. Unpinned, the scheduler often ran both on one
    core: every numpy call hands the GIL to the other thread, and the woken thread is placed on
    the waker's core (wake-affine), so the pair stays together while the other core idles
    (400,000 x 100, p = 10, best / median of 7: ``centred_scatter`` over two unpinned threads
    11.6 / 18.1 ms, one thread 18.5 / 18.9, two pinned threads 11.5 / 12.0, two forked processes
    12.4 / 12.8; ``results/ron_gauss_split_diag.md``)."""
    import threading

    ranges = _halves(n, chunk_rows)
    # not from a worker thread (a Dask block, a thread pool): no threads inside threads
    two = len(ranges) == 2 and threading.current_thread() is threading.main_thread() \
        and _blas_threads() >= 2
    with _one_blas_thread():
        if not two:
            for i, (start, stop) in enumerate(ranges):
                work(i, start, stop)
            return
        errors = []
        cpus = _split_cpus()

        def second():
            try:
                if cpus is not None:
                    _set_affinity(cpus[2])
                work(1, *ranges[1])
            except BaseException as exc:  # re-raised in the calling thread
                errors.append(exc)

        thread = threading.Thread(target=second, name="matrixdp-blocked-pass")
        pinned = cpus is not None and _set_affinity(cpus[1])
        try:
            thread.start()
            try:
                work(0, *ranges[0])
            finally:
                thread.join()
        finally:
            if pinned:  # the caller's affinity back
                _set_affinity(cpus[0])
        if errors:
            raise errors[0]


#: Environment variable that turns the pinning of the two threads off (``"0"``, ``"false"``,
#: ``"no"`` or ``"off"``), e.g. for a caller that manages CPU affinity itself; read at each pass.
PIN_ENV = "MATRIXDP_PIN_THREADS"


def _split_cpus():
    """``(allowed, mine, other)``: the CPUs the calling thread may use, the one it runs on (it
    stays there for the pass) and the rest (for the second thread); ``None`` where threads
    cannot be pinned (not Linux), fewer than two CPUs are allowed, or :data:`PIN_ENV` turns
    pinning off."""
    if os.environ.get(PIN_ENV, "").strip().lower() in ("0", "false", "no", "off"):
        return None
    try:
        allowed = frozenset(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return None
    if len(allowed) < 2:
        return None
    here = _current_cpu()
    if here not in allowed:
        here = min(allowed)
    return allowed, frozenset([here]), allowed - {here}


def _current_cpu() -> int:
    """The CPU the calling thread runs on (Linux: field 39 of /proc/thread-self/stat), -1 if
    unknown."""
    try:
        with open("/proc/thread-self/stat", "rb") as f:
            return int(f.read().rsplit(b")", 1)[1].split()[36])
    except (OSError, ValueError, IndexError):  # pragma: no cover - no procfs
        return -1


def _set_affinity(cpus) -> bool:
    """Pin the calling thread to ``cpus``; False (and no change) where that is refused."""
    try:
        os.sched_setaffinity(0, cpus)
        return True
    except (AttributeError, OSError):  # pragma: no cover - not Linux, or not permitted
        return False


_CONTROLLER = []


def _controller():
    """One cached ``ThreadpoolController`` (a fresh one rescans the loaded libraries: about a
    millisecond per call)."""
    if not _CONTROLLER:
        from threadpoolctl import ThreadpoolController

        _CONTROLLER.append(ThreadpoolController())
    return _CONTROLLER[0]


def _one_blas_thread():
    """``threadpool_limits(1, "blas")`` from the cached controller."""
    return _controller().limit(limits=1, user_api="blas")


def _unit_row_blocks(X, W, r, total, Y, chunk_rows, check_finite=False) -> None:
    n = X.shape[0]
    for start in range(0, n, chunk_rows):
        stop = min(n, start + chunk_rows)
        block = X[start:stop]
        sq = np.einsum("ij,ij->i", block, block)
        rb = np.sqrt(sq, out=r[start:stop])
        # two reductions decide whether any row is odd (a NaN makes both comparisons False)
        if sq.min() > _SAFE_SQ[0] and sq.max() < _SAFE_SQ[1]:
            inv = 1.0 / rb  # no zero row in this block
        else:
            odd = ~((sq > _SAFE_SQ[0]) & (sq < _SAFE_SQ[1]))  # includes 0, inf and nan
            rows = block[odd]
            if check_finite and not np.isfinite(rows).all():
                raise non_finite_error("X")
            peak = np.max(np.abs(rows), axis=1)
            rb[odd] = peak * np.linalg.norm(rows / np.where(peak > 0, peak, 1.0)[:, None], axis=1)
            inv = np.divide(1.0, rb, out=np.zeros_like(rb), where=rb > 0)
        total += np.dot(inv, block)  # not @: it keeps the GIL (see _run_halves)
        np.matmul(block, W, out=Y[start:stop])


def centred_projection(X: np.ndarray, W: np.ndarray, r: np.ndarray, Y: np.ndarray,
                       mu: np.ndarray) -> np.ndarray:
    r"""``normalize_rows(normalize_rows(X) - mu) @ W`` from the one-pass statistics.

    For a unit row :math:`\hat x = x/r`, :math:`\|\hat x - \mu\|^2 = 1 - 2\hat x\cdot\mu +
    \|\mu\|^2` and :math:`(\hat x - \mu)^\top W = (x^\top W)/r - \mu^\top W`, so the centred,
    re-normalised, projected rows need only ``X @ mu`` (one more read of X) besides ``Y = X @ W``;
    the centred matrix is never built. Rows where the formula cancels (centred norm below
    ~0.03) are centred explicitly. ``Y`` is overwritten and returned.

    Equal to the literal Algorithm 1 up to summation order (differences ~1e-15; the tests
    bound them by 1e-12).
    """
    mu = np.asarray(mu, dtype=np.float64)
    inv = np.divide(1.0, r, out=np.zeros_like(r), where=r > 0)
    t = (X @ mu) * inv  # x_hat . mu
    c2 = 1.0 - 2.0 * t + mu @ mu
    c2[r == 0] = mu @ mu  # a zero row stays 0, so its centred row is -mu
    Y *= inv[:, None]
    Y -= mu @ W
    bad = c2 < _CANCEL_SQ
    c = np.sqrt(np.where(bad, 1.0, c2))
    Y /= c[:, None]
    if bad.any():
        rows = X[bad]
        Y[bad] = normalize_rows(normalize_rows(rows) - mu) @ W
    return Y


def centred_scatter(X: np.ndarray, W: np.ndarray, r: np.ndarray, Y: np.ndarray, mu: np.ndarray,
                    labels: np.ndarray | None = None, *,
                    chunk_rows: int = SCATTER_ROWS) -> np.ndarray:
    r"""``Σ_i u_i u_iᵀ`` for the rows ``u_i`` of ``centred_projection(X, W, r, Y, mu)`` (with the
    label appended when ``labels`` is given), by row blocks: the second read of X (``X_b @ mu``),
    the centred projected rows of the block and their Gram stay in cache; no n x p array is built.

    The same per-row arithmetic as :func:`centred_projection` (rows where the centred norm
    cancels are centred explicitly), summed block by block: equal to ``U.T @ U`` up to summation
    order. ``Y`` is not modified.
    """
    mu = np.asarray(mu, dtype=np.float64)
    n = X.shape[0]
    b = mu @ W
    mu2 = float(mu @ mu)
    p = W.shape[1]
    k = p + (0 if labels is None else 1)
    parts = [np.zeros((k, k)) for _ in _halves(n, chunk_rows)]

    def work(i, first, last):
        scatter = parts[i]
        for start in range(first, last, chunk_rows):
            stop = min(last, start + chunk_rows)
            xb, rb = X[start:stop], r[start:stop]
            zero = not rb.all()
            inv = (np.divide(1.0, rb, out=np.zeros_like(rb), where=rb > 0) if zero
                   else 1.0 / rb)
            # c2 = 1 - 2 t + |mu|^2, t = (x_b . mu) / r, in place (the same operations)
            c2 = np.dot(xb, mu)
            c2 *= inv
            c2 *= 2.0
            np.subtract(1.0, c2, out=c2)
            c2 += mu2
            if zero:
                c2[rb == 0] = mu2
            bad = c2 < _CANCEL_SQ if c2.min() < _CANCEL_SQ else None
            # the block's centred rows as the columns of a k x rows array: the per-row scalars
            # broadcast along rows of length `rows`, not p (numpy's inner loops over p = 10
            # values are several times slower); the same operations on the same values
            ut = np.empty((k, stop - start))
            ub = ut[:p]
            np.multiply(Y[start:stop].T, inv, out=ub)
            ub -= b[:, None]
            ub /= np.sqrt(c2 if bad is None else np.where(bad, 1.0, c2))
            if bad is not None:  # the centred norm cancels: centre these rows explicitly
                ub[:, bad] = (normalize_rows(normalize_rows(xb[bad]) - mu) @ W).T
            if labels is not None:
                ut[p] = labels[start:stop]
            scatter += np.dot(ut, ut.T)  # not @: it keeps the GIL (see _run_halves)

    _run_halves(work, n, chunk_rows)
    return parts[0] if len(parts) == 1 else parts[0] + parts[1]
