"""DPCopula: a class-conditional Gaussian copula over DP marginals for mixed tables.

Per public class: a DP histogram of every column (numeric columns binned on their public
bounds, categorical columns over their public categories) and a DP correlation matrix of
the records' normal scores; synthetic records are drawn from the Gaussian copula and decoded
back to values within the bounds and to valid categories. Class priors come from the DP
histograms, so synthetic data keep the real class balance. Derivation and accounting:
``docs/copula.md``.
"""

from __future__ import annotations

import math
from functools import partial
from numbers import Integral

import numpy as np
from .._validation import check_probability
from ..errors import InvalidParameterError
from ..mechanisms import PrivacyGuarantee
from ..mechanisms.draw import charged_noise, public_randomness
from .._record_sums import is_dask_collection
from ._budget import gdp_split
from ._checks import TABLE_ADVICE, check_sample_memory
from ._dask import dask_block_reducer, dask_schema_columns, refuse_empty, write_sampled_frames
from .labels import generator_labels, largest_remainder
from .schema import NumericCells, numeric_cells
from ._params import GeneratorParams, check_schema_budget

__all__ = ["DPCopula", "simplex_projection", "interval_score_moments",
           "correlation_sensitivity"]


#: Score variance below which a column counts as constant in a class (its DP marginal has one
#: bin): its correlations are 0 (post-processing; the same guard as DPTreeCopula's).
MIN_SCORE_VARIANCE = 1e-8


def simplex_projection(values: np.ndarray, total: float) -> np.ndarray:
    """Euclidean projection of each row of ``values`` onto {h >= 0, sum(h) = total}.

    Post-processing of noisy counts (Duchi et al. 2008): small noisy bins become exactly 0
    instead of each keeping the positive part of its noise.
    """
    v = np.atleast_2d(np.asarray(values, dtype=np.float64))
    if total <= 0:
        return np.full_like(v, 0.0)
    u = -np.sort(-v, axis=1)
    css = np.cumsum(u, axis=1) - total
    idx = np.arange(1, v.shape[1] + 1)
    cond = u - css / idx > 0
    rho = v.shape[1] - 1 - np.argmax(cond[:, ::-1], axis=1)
    theta = css[np.arange(v.shape[0]), rho] / (rho + 1)
    return np.clip(v - theta[:, None], 0.0, None)


def interval_score_moments(probs: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    r"""Cut points, scores E[Z | bin] and Var of the score for a standard normal Z cut by ``probs``.

    Bin b is the interval :math:`(\Phi^{-1}(F_{b-1}), \Phi^{-1}(F_b))` with F the cumulative
    ``probs``; its score is :math:`(\varphi(a) - \varphi(b)) / (\Phi(b) - \Phi(a))`.
    Bins with zero DP mass get score 0 (they are never sampled; a record in one is scored 0).
    """
    from scipy.special import ndtri  # lazy: keeps scipy out of ``import matrixdp``

    p = np.asarray(probs, dtype=np.float64)
    cum = np.concatenate([[0.0], np.cumsum(p)])
    cum = np.clip(cum / cum[-1], 0.0, 1.0)
    cuts = ndtri(cum)  # -inf .. +inf
    dens = np.exp(-0.5 * np.where(np.isfinite(cuts), cuts, 0.0) ** 2) / math.sqrt(2 * math.pi)
    dens = np.where(np.isfinite(cuts), dens, 0.0)
    mass = np.diff(cum)
    with np.errstate(invalid="ignore", divide="ignore"):
        score = np.where(mass > 0, (dens[:-1] - dens[1:]) / np.where(mass > 0, mass, 1.0), 0.0)
    var = float(np.sum(mass * score ** 2))
    return cum, score, var


def correlation_sensitivity(n_columns: int, clip: float) -> float:
    r"""L2 sensitivity (add/remove) of the upper off-diagonal entries of :math:`\sum_i s_i s_i^\top`.

    Adding a record with score vector s (:math:`\|s\|_2 \le C`) adds :math:`s_j s_l` to entry
    (j, l); :math:`\sum_{j<l} s_j^2 s_l^2 = (\|s\|^4 - \sum_j s_j^4)/2 \le C^4 (1 - 1/k)/2`,
    attained when all :math:`|s_j| = C/\sqrt k`.
    """
    k = int(n_columns)
    return clip ** 2 * math.sqrt((1.0 - 1.0 / k) / 2.0) if k > 1 else 0.0


class DPCopula(GeneratorParams):
    r"""Differentially private synthetic tables from a class-conditional Gaussian copula.

    For each PUBLIC class c (or one group without labels) the model releases, with the
    Gaussian mechanism under add/remove neighbours:

    1. a histogram of every column on the records of class c: numeric columns on
       ``n_bins`` equal-width bins of their public bounds, categorical columns over
       their public categories (L2 sensitivity :math:`\sqrt k` for k columns);
    2. the off-diagonal second moments of the records' normal scores
       :math:`s_{ij} = E[Z \mid Z \text{ in the DP bin of } x_{ij}]`, each record's score
       vector clipped to norm ``clip_scale`` :math:`\cdot\sqrt k` (see
       :func:`correlation_sensitivity`).

    Classes partition the records, so the per-class releases compose in parallel; the two
    steps compose as Gaussian mechanisms (GDP), calibrated exactly to the total (ε, δ).
    Everything else (class sizes and priors from the histogram totals, simplex projection,
    category order, correlation repair, sampling) is post-processing.

    Parameters
    ----------
    schema : TableSchema
        PUBLIC bounds of the numeric columns and categories of the categorical columns of X,
        and optional PUBLIC atoms (point masses) of numeric columns: each atom gets its own
        histogram cell and synthetic values equal to it (the charge is unchanged;
        ``docs/copula.md``, "Public atoms" [4]_).
    epsilon : float
        Total ε.
    delta : float, default 1e-9
        Total δ.
    classes : sequence, optional
        PUBLIC class list; required when ``fit`` gets labels ``y``.
    n_bins : int, default 32
        Equal-width bins per numeric column (public).
    marginal_fraction : float, default 0.5
        Share of the Gaussian budget μ² spent on the histograms (the rest on correlations). A
        table of one column has no correlations: its histogram gets the whole budget.
    clip_scale : float, default 1.0
        Score vectors are clipped to L2 norm ``clip_scale * sqrt(k)``.
    random_state : None, int or numpy.random.Generator
        ``None`` (default) uses a cryptographically secure generator. An int makes the run
        replayable by whoever knows it (experiments and tests only); it is a parameter, so it
        stays on the fitted model and in its pickles: whoever holds a seeded model can replay
        its noise and recover the exact statistics (``docs/copula.md``, "Randomness"). No
        generator is kept on
        the fitted model, and a Generator passed here is not saved with it (pickling,
        ``copy.deepcopy`` and ``joblib.dump`` store ``random_state=None``).
    accountant : Accountant or Ledger, optional
        The budget keeper charged with the whole fit's ``privacy_`` before any noise is drawn
        (:class:`~matrixdp.errors.BudgetExceededError` if it does not fit, and nothing is
        released); the same keyword as every matrixdp estimator. Default: the keepers of the
        enclosing ``with Accountant(...)`` / ``with Ledger(...)`` blocks, if any.

    Notes
    -----
    Column metadata comes from the public ``schema`` only, never from the data's dtypes:
    a numeric column is integer (rounded, ``int64`` in the synthetic table) exactly when the
    schema names it in ``integer``; a numeric column the schema does not name is continuous
    (``float64``), whatever the dtype of the frame passed to ``fit``.

    ``fit`` also takes a Dask DataFrame (out of core: two passes of blockwise sums, the noise
    drawn on the driver, the same release as in memory for the same seed), and
    :meth:`sample_to_parquet` writes a synthetic table of any size in chunks (``docs/copula.md``,
    "Out of core (Dask)").

    Attributes
    ----------
    privacy_ : PrivacyGuarantee
        (ε, δ) under add/remove neighbours, with the composition in its notes.
    classes_ : ndarray
        The public classes (``[None]`` without labels).
    class_counts_ : ndarray of shape (n_classes,)
        DP class sizes (from the histogram totals).
    class_priors_ : ndarray of shape (n_classes,)
    marginals_ : dict of str -> ndarray of shape (n_classes, n_bins_j)
        DP probabilities per class and column (after simplex projection); a numeric column
        with m atoms has ``n_bins + m`` cells in value order (:class:`~.schema.NumericCells`).
    marginal_counts_ : dict of str -> ndarray
        The raw noisy histograms as released (for audits and tests).
    correlation_ : ndarray of shape (n_classes, k, k)
        The repaired correlation matrices of the latent Gaussians (columns in ``columns_``).
    correlation_raw_ : ndarray of shape (n_classes, k*(k-1)/2)
        The raw noisy off-diagonal score sums as released.
    orders_ : dict of str -> ndarray of shape (n_classes, n_cat)
        Category order along the latent axis (post-processing of the DP histograms).
    marginal_sigma_, correlation_sigma_ : float
        Gaussian noise scales of the two releases.
    marginal_sensitivity_, correlation_sensitivity_ : float
    columns_ : list of str
        The fitted column order (that of X).
    bin_edges_ : dict of str -> ndarray
        Public bin edges of the numeric columns.

    References
    ----------
    .. [1] H. Li, L. Xiong, X. Jiang, "Differentially private synthesization of
       multi-dimensional data using copula functions", EDBT 2014.
    .. [2] J. Dong, A. Roth, W. J. Su, "Gaussian differential privacy", JRSS-B 2022.
    .. [3] B. Balle, Y.-X. Wang, "Improving the Gaussian mechanism", ICML 2018.
    .. [4] docs/copula.md.
    """

    def __init__(self, *, schema, epsilon, delta=1e-9, classes=None, n_bins=32,
                 marginal_fraction=0.5, clip_scale=1.0, random_state=None, accountant=None):
        self.schema = schema
        self.epsilon = epsilon
        self.delta = delta
        self.classes = classes
        self.n_bins = n_bins
        self.marginal_fraction = marginal_fraction
        self.clip_scale = clip_scale
        self.random_state = random_state
        self.accountant = accountant

    def _check_params(self):
        eps, delta = check_schema_budget(self)
        if isinstance(self.n_bins, bool) or not isinstance(self.n_bins, Integral) or self.n_bins < 2:
            raise InvalidParameterError("n_bins", f"must be an integer >= 2, got {self.n_bins!r}")
        frac = check_probability(self.marginal_fraction, "marginal_fraction")
        if not 0.0 < frac < 1.0:
            raise InvalidParameterError("marginal_fraction", f"must be in (0, 1), got {frac}")
        if not (isinstance(self.clip_scale, (int, float)) and self.clip_scale > 0
                and math.isfinite(self.clip_scale)):
            raise InvalidParameterError("clip_scale", f"must be a positive number, got {self.clip_scale!r}")
        return eps, delta, frac

    # ------------------------------------------------------------------ fit
    def fit(self, X, y=None, *, accountant=None, ledger=None) -> "DPCopula":
        """Release the DP statistics of ``X`` (a DataFrame matching ``schema``), per class of ``y``.

        Parameters
        ----------
        X : pandas.DataFrame or dask.dataframe.DataFrame
            Columns exactly those of ``schema``; numeric values are clipped into the public bounds.
            A Dask DataFrame is fitted out of core, block by block, without collecting it: pass 1
            sums every partition's histograms (and checks its values and labels) before the
            budget is charged, the histogram noise is drawn on the driver, pass 2 sums the
            clipped score moments against the released histograms, and their noise is drawn on
            the driver. The same mechanisms, the same draws in the same order: a seeded Dask fit
            releases what the in-memory fit releases, up to summation order (the exact counts
            are integers, so the histograms agree exactly). The row count is never computed.
        y : array_like of shape (n_samples,), optional
            Labels, each in the public ``classes``. With a Dask ``X``: a Dask Series (or a
            one-column frame) partitioned like ``X``, e.g. a column of the same frame.
        accountant, ledger : optional
            Budget keepers for this fit (as :class:`RONGauss.fit` takes them); default: the
            ``accountant`` parameter; the enclosing ``with`` blocks' keepers too. The whole ``privacy_``
            is charged before any noise is drawn.

        Returns
        -------
        self
        """
        eps, delta, frac = self._check_params()
        for attribute in [k for k in vars(self) if k.endswith("_") and not k.startswith("__")]:
            delattr(self, attribute)
        schema = self.schema
        if is_dask_collection(X):
            # out of core: the records are read block by block, twice (histograms, then score
            # moments); only the per-block sums reach the driver, where the noise is drawn
            cols = dask_schema_columns(schema, X)
            classes = generator_labels(self.classes,
                                       None if y is None else np.zeros(0, dtype=object), 0)[0]
            reduce = dask_block_reducer(X, y, partial(_dask_codes, self, cols))
        else:
            cols = schema.check_columns(X)
            classes, label = generator_labels(self.classes, y, X.shape[0])
            block = self._block_codes(X, label, cols)
            reduce = lambda fn, *args: fn(block, *args)  # noqa: E731 - one in-memory block
        k = len(cols)
        n_cls = classes.size
        if accountant is None and ledger is None:
            accountant = self.accountant
        cells = {c: self._cells(c) for c in cols if c in schema.bounds}
        card = {c: cells[c].size if c in schema.bounds else schema.categories[c].size for c in cols}
        edges = {c: cells[c].edges for c in cells}

        # one column has no pair, so no score-moment release: the whole budget goes to the
        # histograms (as DPTreeCopula gives no share to an unused release); it was split anyway
        mu, (mu_marg, mu_corr) = gdp_split(eps, delta, [frac, 1.0 - frac] if k > 1 else [1.0, 0.0])
        clip = float(self.clip_scale) * math.sqrt(k)
        sens_marg = math.sqrt(k)
        sens_corr = correlation_sensitivity(k, clip)
        sigma_marg = sens_marg / mu_marg
        sigma_corr = sens_corr / mu_corr if k > 1 else 0.0
        # the guarantee is known before any noise: charged first, the draws happen inside
        privacy = _guarantee(eps, delta, n_cls, mu, (mu_marg, sens_marg, sigma_marg),
                             (mu_corr, sens_corr, sigma_corr))
        # pass 1 (histogram counts) reads and checks every record before the budget is charged,
        # so a refused table (a label outside the class list, a non-finite value) costs nothing
        counts = reduce(_histogram_pass, cols, card, n_cls)
        if is_dask_collection(X):
            # as in memory (TableSchema.check_columns), before the charge: every column's
            # histogram counts every record once, so the first column's cells sum to n
            refuse_empty(counts[:, :card[cols[0]]].sum(), "add-remove")
        with charged_noise(privacy, self.random_state, accountant=accountant, ledger=ledger,
                           label="dp-copula fit") as src:
            raw, class_counts, probs, orders, corr_raw, corr = self._release(
                src, cols, schema, reduce, counts, card, n_cls, k, clip, sigma_marg, sigma_corr)

        self.columns_ = cols
        self.n_features_in_ = k
        self.feature_names_in_ = np.asarray(cols, dtype=object)
        self.classes_ = classes
        self.class_counts_ = class_counts
        self.class_priors_ = class_counts / class_counts.sum()
        self.marginal_counts_ = raw
        self.marginals_ = probs
        self.orders_ = orders
        self.bin_edges_ = edges
        self.correlation_raw_ = corr_raw
        self.correlation_ = corr
        self.marginal_sigma_, self.correlation_sigma_ = sigma_marg, sigma_corr
        self.marginal_sensitivity_, self.correlation_sensitivity_ = sens_marg, sens_corr
        # public schema only: never the data's dtypes (one record would flip them)
        self.integer_columns_ = tuple(schema.integer)
        self.privacy_ = privacy
        return self

    def _cells(self, name, edges=None) -> NumericCells:
        """The histogram cells of numeric column ``name``: ``n_bins`` equal-width bins of its
        public bounds (or the fitted ``edges``) and one cell per declared atom of the schema
        (:func:`~.schema.numeric_cells`, the one definition; ``docs/copula.md``, "Public
        atoms")."""
        if edges is None:
            edges = np.linspace(*self.schema.bounds[name], self.n_bins + 1)
        return numeric_cells(self.schema, name, edges)

    def _block_codes(self, frame, label, cols):
        """The public bin (numeric) or category code of every value of one block of records,
        and the class codes: ``(bins, label)``, or None for an empty block."""
        if frame.shape[0] == 0:
            return None
        numeric, codes = self.schema.encode(frame)
        bins = {}
        for name in cols:
            if name in self.schema.bounds:
                bins[name] = self._cells(name).code(numeric[name])
            else:
                bins[name] = codes[name]
        return bins, label

    def _release(self, src, cols, schema, reduce, counts, card, n_cls, k, clip, sigma_marg,
                 sigma_corr):
        """The two noisy releases and their post-processing; ``src`` is the charged noise,
        ``counts`` the exact histograms of every class and column side by side, and
        ``reduce(fn, *args)`` sums ``fn`` over the blocks of records (one block in memory)."""
        # 1. DP histograms
        raw = {}
        for name, part in zip(cols, np.split(counts, np.cumsum([card[c] for c in cols])[:-1],
                                             axis=1)):
            raw[name] = part + sigma_marg * src.gaussian(part.shape)
        # class sizes: inverse-variance average of the histogram totals (Var = card * sigma^2)
        w = np.array([1.0 / card[c] for c in cols])
        totals = np.stack([raw[c].sum(axis=1) for c in cols], axis=1)  # (n_cls, k)
        class_counts = np.clip(totals @ w / w.sum(), 1.0, None)
        # projection onto {h >= 0, sum h = n_c}, as probabilities (the projection is scale-equivariant)
        probs = {c: simplex_projection(raw[c] / class_counts[:, None], 1.0) for c in cols}
        for c in cols:  # a column whose noisy histogram is all <= 0: fall back to uniform
            empty = probs[c].sum(axis=1) <= 0
            probs[c][empty] = 1.0 / card[c]

        # category order along the latent axis: by the DP share of the smallest DP class
        orders = {}
        for c in cols:
            if c in schema.bounds:
                continue
            if n_cls > 1:
                minority = int(np.argmin(class_counts))
                joint = probs[c] * (class_counts / class_counts.sum())[:, None]
                share = joint[minority] / np.maximum(joint.sum(axis=0), 1e-300)
                order = np.argsort(share, kind="stable")
            else:
                order = np.arange(card[c])
            orders[c] = np.tile(order, (n_cls, 1))

        # 2. DP off-diagonal score moments per class (scores from the released histograms):
        # per class and column, the score of every bin code (a lookup table; public once the
        # histograms are released)
        iu = np.triu_indices(k, 1)
        corr_raw = np.zeros((n_cls, iu[0].size))
        corr = np.tile(np.eye(k), (n_cls, 1, 1))
        score_var = np.ones((n_cls, k))
        lookup = [[None] * k for _ in range(n_cls)]
        for j in range(n_cls):
            for col_idx, c in enumerate(cols):
                p = probs[c][j]
                if c in orders:
                    pos = np.empty(card[c], dtype=np.int64)
                    pos[orders[c][j]] = np.arange(card[c])
                    _, score, var = interval_score_moments(p[orders[c][j]])
                    lookup[j][col_idx] = score[pos]
                else:
                    _, score, var = interval_score_moments(p)
                    lookup[j][col_idx] = score
                score_var[j, col_idx] = var
        if k > 1:
            G = reduce(_moment_pass, cols, lookup, n_cls, clip)
            for j in range(n_cls):
                corr_raw[j] = G[j] + sigma_corr * src.gaussian(iu[0].size)
                sd = np.sqrt(np.maximum(score_var[j], 1e-12))
                # a column whose DP marginal has one bin in this class has a constant score: its
                # estimate would be the noise divided by ~0, which the repair spreads to every
                # pair; it carries no information, so 0 (as DPTreeCopula, docs/copula.md)
                informative = score_var[j] > MIN_SCORE_VARIANCE
                usable = informative[iu[0]] & informative[iu[1]]
                R = np.eye(k)
                R[iu] = np.where(usable, corr_raw[j] / (class_counts[j] * sd[iu[0]] * sd[iu[1]]),
                                 0.0)
                R[(iu[1], iu[0])] = R[iu]
                corr[j] = _nearest_correlation(R)
        return raw, class_counts, probs, orders, corr_raw, corr

    def _check_fitted(self):
        if not hasattr(self, "privacy_"):
            from sklearn.exceptions import NotFittedError

            raise NotFittedError("this DPCopula instance is not fitted yet; call fit(X, y) first")

    # --------------------------------------------------------------- sample
    def sample(self, n_samples: int, random_state=None):
        """Draw synthetic records (post-processing of the released statistics; no budget).

        Parameters
        ----------
        n_samples : int
            Refused before anything is allocated when the draw (about three float64 arrays of
            ``n_samples x (k + 1)``) would need more than half the available memory; write such a
            table with :meth:`sample_to_parquet` (chunk by chunk).
        random_state : None, int or numpy.random.Generator
            ``None`` (default): the per-process secure stream. A seed replays only these
            samples (post-processing of the DP model, so replaying them reveals nothing private).

        Returns
        -------
        X_syn : pandas.DataFrame
            The fitted columns in their order; numeric values within the public bounds (integer
            columns rounded), categorical values from the public categories.
        y_syn : ndarray of shape (n_samples,)
            Only when fitted with labels: values from ``classes``.
        """
        self._check_fitted()
        if isinstance(n_samples, bool) or not isinstance(n_samples, Integral) or n_samples < 1:
            raise InvalidParameterError("n_samples", f"must be an integer >= 1, got {n_samples!r}")
        import pandas as pd
        from scipy.special import ndtr

        src = public_randomness(random_state)  # post-processing of the released statistics
        schema = self.schema
        cols = self.columns_
        k = len(cols)
        # refused before allocating (about 3 float64 arrays of n x (k + 1) at the peak)
        check_sample_memory(int(n_samples), k + 1, advice=TABLE_ADVICE)
        n_cls = self.classes_.size
        counts = largest_remainder(int(n_samples), self.class_priors_)
        label = np.repeat(np.arange(n_cls), counts)
        U = np.empty((int(n_samples), k))
        start = 0
        for j in range(n_cls):
            m = int(counts[j])
            if m == 0:
                continue
            vals, vecs = np.linalg.eigh(self.correlation_[j])
            root = vecs * np.sqrt(np.clip(vals, 0.0, None))
            U[start:start + m] = ndtr(src.gaussian((m, k)) @ root.T)
            start += m
        out = {}
        for col_idx, c in enumerate(cols):
            u = U[:, col_idx]
            if c in schema.bounds:
                values = np.empty(int(n_samples))
                cells = self._cells(c, self.bin_edges_[c])
                for j in range(n_cls):
                    sel = label == j
                    cum = np.concatenate([[0.0], np.cumsum(self.marginals_[c][j])])
                    cum /= cum[-1]
                    b = np.clip(np.searchsorted(cum, u[sel], side="right") - 1, 0, cells.size - 1)
                    mass = cum[b + 1] - cum[b]
                    frac = np.where(mass > 0, (u[sel] - cum[b]) / np.where(mass > 0, mass, 1.0), 0.5)
                    # uniform within a bin; an atom's cell (lo == hi) decodes to exactly the atom
                    values[sel] = cells.lo[b] + np.clip(frac, 0.0, 1.0) * (cells.hi[b] - cells.lo[b])
                lo, hi = schema.bounds[c]
                values = np.clip(values, lo, hi)
                if c in self.integer_columns_:
                    values = np.clip(np.round(values), math.ceil(lo), math.floor(hi))
                    out[c] = values.astype(np.int64)
                else:
                    out[c] = values
            else:
                cats = schema.categories[c]
                code = np.empty(int(n_samples), dtype=np.int64)
                for j in range(n_cls):
                    sel = label == j
                    order = self.orders_[c][j]
                    cum = np.concatenate([[0.0], np.cumsum(self.marginals_[c][j][order])])
                    cum /= cum[-1]
                    b = np.clip(np.searchsorted(cum, u[sel], side="right") - 1, 0, order.size - 1)
                    # never land on a zero-probability category through rounding at a cut
                    b = _nonempty(b, np.diff(cum))
                    code[sel] = order[b]
                # categorical dtype over the PUBLIC categories (no per-value string conversion)
                out[c] = pd.Categorical.from_codes(code, categories=list(cats))
        frame = pd.DataFrame(out, columns=cols)
        perm = src.shuffled_indices(int(n_samples))
        frame = frame.iloc[perm].reset_index(drop=True)
        if n_cls == 1 and self.classes_[0] is None:
            return frame
        return frame, self.classes_[label[perm]]


    def sample_to_parquet(self, path, n_samples: int, *, chunk_rows: int = 250_000,
                          label_column: str = "y", random_state=None) -> list:
        """Write ``n_samples`` synthetic records as Parquet files under ``path``, one chunk of at
        most ``chunk_rows`` records per file, sampled and written chunk by chunk as Dask tasks
        (on the current scheduler; never all records in memory: peak memory grows with
        ``chunk_rows`` times the number of worker threads, not with ``n_samples``).

        Post-processing of the released statistics: no budget is spent.

        Parameters
        ----------
        path : str or path-like
            Output directory (created; existing ``part.*.parquet`` files are replaced).
        n_samples : int
        chunk_rows : int, default 250_000
        label_column : str, default "y"
            Name of the label column when the model was fitted with labels.
        random_state : None, int or numpy.random.Generator
            Each chunk samples from a child of one :class:`numpy.random.SeedSequence` (from the
            int, from a seed drawn from the Generator, or from OS entropy when ``None``); a
            seeded call is replayable (replaying post-processing reveals nothing private).

        Returns
        -------
        files : list of str
            The written files, in order.
        """
        self._check_fitted()
        return write_sampled_frames(self, path, n_samples, chunk_rows=chunk_rows,
                                    label_column=label_column, random_state=random_state)

def _dask_codes(model, cols, frame, labels):
    """Codes of one partition (``labels``: its part of ``y``, or None)."""
    label = generator_labels(model.classes, labels, frame.shape[0])[1]
    return model._block_codes(frame[cols], label, cols)


def _histogram_pass(block, cols, card, n_cls) -> np.ndarray:
    """Per block: the counts of every class and bin of every column, side by side
    (shape (n_cls, sum of the cardinalities))."""
    if block is None:
        return np.zeros((n_cls, sum(card[c] for c in cols)))
    bins, label = block
    return np.concatenate([np.bincount(label * card[c] + bins[c], minlength=n_cls * card[c])
                           .reshape(n_cls, card[c]).astype(np.float64) for c in cols], axis=1)


def _moment_pass(block, cols, lookup, n_cls, clip) -> np.ndarray:
    """Per block: the off-diagonal sums of the clipped score vectors' outer products, per class
    (shape (n_cls, k(k-1)/2)); ``lookup[j][i]`` is the score of each code of column i in class j."""
    k = len(cols)
    iu = np.triu_indices(k, 1)
    G = np.zeros((n_cls, iu[0].size))
    if block is None:
        return G
    bins, label = block
    for j in range(n_cls):  # the public classes, not the records
        mask = label == j
        S = np.empty((int(mask.sum()), k))
        for col_idx, c in enumerate(cols):
            S[:, col_idx] = lookup[j][col_idx][bins[c][mask]]
        norms = np.sqrt(np.einsum("ij,ij->i", S, S))
        S *= np.minimum(1.0, clip / np.maximum(norms, 1e-300))[:, None]
        G[j] = (S.T @ S)[iu]
    return G


def _guarantee(eps, delta, n_cls, mu, marg, corr) -> PrivacyGuarantee:
    """The two Gaussian releases, each parallel over the public classes, composed exactly (GDP)."""
    from dataclasses import replace

    from ..accounting import compose, parallel
    from ..accounting.composition import gdp_epsilon

    steps = []
    for name, (mu_i, sens, sigma) in (("histograms", marg), ("score moments", corr)):
        if mu_i == 0:  # one column: no score moments are released
            continue
        g = PrivacyGuarantee(epsilon=gdp_epsilon(mu_i, delta), delta=delta,
                             neighbouring="add-remove", calibration="analytic", exact=False,
                             mechanism=f"dp-copula {name}", mu=mu_i,
                             notes=(f"Gaussian, L2 sensitivity {sens:.6g}, sigma {sigma:.6g}",))
        steps.append(parallel([g] * n_cls, partition_public=True))
    total = compose(steps, delta=delta, method="gdp")
    if total.epsilon > eps * (1 + 1e-9):  # the split must not exceed the requested budget
        raise RuntimeError(f"DPCopula accounting bug: composed epsilon {total.epsilon} > {eps}")
    return replace(total, epsilon=eps, mechanism="dp-copula", notes=total.notes + (
        (f"two Gaussian releases composed as Gaussian DP (matrixdp.accounting.compose, exact for "
         f"Gaussian shifts): mu*={mu:.6g} for (epsilon, delta); histograms mu={marg[0]:.6g} (L2 "
         f"sensitivity sqrt(k)={marg[1]:.6g}, sigma={marg[2]:.6g}); score moments mu={corr[0]:.6g} "
         f"(L2 sensitivity {corr[1]:.6g}, sigma={corr[2]:.6g})") if corr[0] > 0 else
        (f"one column: one Gaussian release, the histogram, with the whole mu*={mu:.6g} for "
         f"(epsilon, delta) (L2 sensitivity 1, sigma={marg[2]:.6g}); no pair, so no score moments"),
        "classes are public and partition the records: each release composes in parallel over them",
        "add/remove neighbours: n and the class sizes are not assumed public",
        "bounds, categories, bins and classes are public; sampling is post-processing",
        "a sufficient bound: the score-moment sensitivity is attained only by equal |s_j|"
        if corr[0] > 0 else "the histogram's sensitivity is attained"),
        exact=False, calibration="analytic-gdp")


def _nonempty(b: np.ndarray, mass: np.ndarray) -> np.ndarray:
    """Move indices of zero-mass bins to the nearest bin with mass (vectorised)."""
    if np.all(mass[b] > 0):
        return b
    good = np.flatnonzero(mass > 0)
    pos = np.clip(np.searchsorted(good, b), 0, good.size - 1)
    left = good[np.clip(pos - 1, 0, good.size - 1)]
    right = good[pos]
    return np.where(np.abs(b - left) <= np.abs(right - b), left, right)


def _nearest_correlation(R: np.ndarray) -> np.ndarray:
    """Symmetric PSD matrix with unit diagonal near R: clip eigenvalues, rescale the diagonal."""
    R = (R + R.T) / 2.0
    vals, vecs = np.linalg.eigh(R)
    vals = np.clip(vals, 1e-6, None)
    A = (vecs * vals) @ vecs.T
    d = np.sqrt(np.diag(A))
    A = A / d[:, None] / d[None, :]
    return (A + A.T) / 2.0
