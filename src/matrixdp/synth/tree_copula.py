"""DPTreeCopula: a class-conditional Gaussian copula over the numeric columns with the
categorical columns attached by a tree of DP 2-way marginals.

Per public class: DP histograms of every column (as DPCopula), a DP correlation of the numeric
columns' normal scores (numeric columns only; by default one release pooled over the classes and
normalised by its released trace), a DP release of how far every pair
involving a categorical column is from independence, a maximum spanning tree that hangs every
categorical column on a numeric or categorical parent (post-processing of the released scores),
and DP 2-way histograms of the tree's edges. Synthetic records: class, numeric block from the
copula, then each categorical column given its parent. Categorical × categorical and categorical
× numeric dependence survive, which DPCopula's single latent axis per categorical column loses.
Derivation: ``docs/tree_copula.md``.
"""

from __future__ import annotations

import math
from numbers import Integral

import numpy as np

from .._validation import check_flag
from ..errors import InvalidParameterError, InvalidShapeError
from ..mechanisms import GaussianMechanism, PrivacyGuarantee
from ..mechanisms.draw import public_randomness
from ..rng import make_rng
from ._budget import gdp_split
from ._checks import TABLE_ADVICE, check_sample_memory
from .copula import correlation_sensitivity
from .edge_tables import coarsen, fit_table, fit_table3
from .labels import generator_labels, largest_remainder
from ._params import GeneratorParams, check_schema_budget
from .tree_bins import (
    AUTO_BINS,
    AUTO_BINS_SHARE,
    AtomGrid,
    auto_bins,
    class_bins,
    geometric_edges,
    geometric_position,
    integer_edge_bins,
    wide_range_columns,
)
from .tree_marginals import tree_inference_matrix, tree_levels
from ._dask import refuse_empty
from .tree_releases import class_pass, dask_checked_class_counts, dask_reducer, release_statistics
from .tree_sampling import decode_codes, sample_codes, sampling_draws

__all__ = [
    "DPTreeCopula", "auto_shares", "moment_sensitivity", "histogram_sensitivity",
    "score_sensitivity", "pair_sensitivity", "tree_histogram_sensitivity",
]


#: ``shares="auto"``: the one-way histograms' weight per column (a public constant; 1 = weight k).
AUTO_SHARES_HIST_WEIGHT = 1.0


def auto_shares(k: int, k_latent: int, k_tree: int) -> np.ndarray:
    """The default split of μ² (``shares="auto"``), from public column counts only.

    Weights k (histograms), k_latent (copula correlation), k_tree/4 + 1/2 (pair scores) and
    k_tree (edge tables): the one-way histograms and the edge tables then get about the same
    noise per cell (σ = √k/μ_h vs √k_tree/μ_e), and a schema with few tree columns spends little
    on choosing and fitting their parents.
    """
    return np.array([AUTO_SHARES_HIST_WEIGHT * k, k_latent, 0.25 * k_tree + 0.5, k_tree], dtype=np.float64)


def moment_sensitivity(clip: float) -> float:
    r"""L2 sensitivity (add/remove) of the upper off-diagonal entries of :math:`\sum_i s_i s_i^\top`
    together with its diagonal divided by √2, for score vectors clipped to :math:`\|s\|_2 \le C`.

    One record adds :math:`s_j s_l` (j < l) and :math:`s_j^2/\sqrt2`; the squared norm of that is
    :math:`\sum_{j<l} s_j^2 s_l^2 + \tfrac12 \sum_j s_j^4 = \tfrac12 \|s\|^4 \le C^4/2`, so
    :math:`C^2/\sqrt2` (attained by any s on the sphere) -- at most :math:`\sqrt{k/(k-1)}` times
    the off-diagonal part alone (:func:`~matrixdp.synth.copula.correlation_sensitivity`).
    """
    return float(clip) ** 2 / math.sqrt(2.0)


def histogram_sensitivity(n_columns: int) -> float:
    """L2 sensitivity (add/remove) of the k one-way histograms: one record adds 1 to one bin of each."""
    return math.sqrt(int(n_columns))


def score_sensitivity(n_pairs: int) -> float:
    r"""L2 sensitivity (add/remove) of the vector of pair scores :math:`q_{ab} = \sum |N_{ab} - E_{ab}|`.

    :math:`E_{ab}` is built from already-released statistics (fixed when the scores are
    measured), and one record moves one cell of each pair's count table by 1, so each score by at
    most 1: :math:`\sqrt{P}` for P pairs.
    """
    return math.sqrt(int(n_pairs))


def pair_sensitivity(n_edges: int) -> float:
    """L2 sensitivity (add/remove) of the edge tables of ``n_edges`` tree columns: one record adds
    1 to one cell of each table, whatever its cells or its number of parents (2-way or, with
    ``max_parents=2``, 3-way)."""
    return math.sqrt(int(n_edges))


def tree_histogram_sensitivity(n_columns: int, n_numeric: int, n_levels: int) -> float:
    """L2 sensitivity (add/remove) of the one-way histograms of ``n_columns`` columns when each
    of the ``n_numeric`` numeric ones also releases ``n_levels`` coarse levels of a tree over its
    cells (``histogram_tree``): one record adds 1 to one cell of every column and to one node of
    each level of every numeric column's tree, √(k + k_num·L)."""
    return math.sqrt(int(n_columns) + int(n_numeric) * int(n_levels))


def _gaussian_at_shift(mu: float, delta: float, sensitivity: float) -> GaussianMechanism:
    """The Gaussian mechanism of L2 ``sensitivity`` whose Gaussian-DP shift is ``mu`` (add/remove).

    It is calibrated at the point ``(gdp_epsilon(mu, delta), delta)`` of its privacy curve. A
    share of a small budget can have ``mu`` so small that the release is already (0, δ)-DP
    (``gdp_epsilon`` is 0, which the mechanism refuses: DPTreeCopula(epsilon=1e-5, delta=1e-5)
    raised "epsilon: must be finite and > 0, got 0.0"); it is then calibrated at another point
    of the same curve, ``(mu, δ(mu; mu))``, which gives the same σ = sensitivity / mu. The
    composition reads ``mu`` either way."""
    from ..accounting.composition import gdp_epsilon
    from ..calibration.gaussian import gaussian_delta

    eps = gdp_epsilon(mu, delta)
    if eps > 0:
        return GaussianMechanism(epsilon=eps, delta=delta, sensitivity=sensitivity,
                                 neighbouring="add-remove")
    return GaussianMechanism(epsilon=mu, delta=gaussian_delta(mu, 1.0, mu),
                             sensitivity=sensitivity, neighbouring="add-remove")


class DPTreeCopula(GeneratorParams):
    r"""Differentially private synthetic tables: a Gaussian copula for the numeric columns and a
    tree of 2-way marginals for the categorical ones, per public class.

    For each PUBLIC class c (one group without labels), under add/remove neighbours, four
    Gaussian releases composed as Gaussian DP (exact for Gaussian shifts; each parallel over the
    classes, which partition the records, except the pooled correlation, one release of a sum
    over the classes):

    1. one-way histograms of every column (numeric: ``n_bins`` equal-width bins of the public
       bounds; categorical: the public categories), L2 sensitivity √k;
    2. the second moments of the copula columns' normal scores (the numeric columns, plus the
       two-category columns when ``binary_latent``), each record's score vector clipped to norm
       ``clip_scale``·√k_num: by default (``normalise="trace"``) the off-diagonal entries and the
       diagonal divided by √2, L2 sensitivity C²/√2 (:func:`moment_sensitivity`); with
       ``normalise="count"`` the off-diagonal entries only (as DPCopula,
       :func:`~matrixdp.synth.copula.correlation_sensitivity`). By default
       (``correlation="pooled"``) one release of the moments summed over the classes;
    3. for every pair (a, b) with at least one categorical column, the score
       :math:`q_{ab} = \sum_{u,v} |N_{ab}(u, v) - \hat n_c \hat p_a(u) \hat p_b(v)|` on coarse
       codes (numeric columns on ``pair_bins`` bins) against the released histograms of step 1:
       L2 sensitivity √P for P such pairs (:func:`score_sensitivity`);
    4. the 2-way histograms of the edges of a maximum spanning tree of the noisy scores
       (normalised by the pair's cell count) that hangs every categorical column on one parent,
       numeric or categorical (post-processing), a numeric parent on its public edge cells
       (``edge_bins``): L2 sensitivity √(number of categorical columns), whatever the cells.

    Sampling is post-processing: class from the DP class sizes; the numeric block from the
    copula (latent Gaussian with the repaired DP correlation, decoded through the DP histograms);
    then, down the tree, each categorical column given its parent's coarse code from the edge
    table (made consistent with both one-way histograms by iterative proportional fitting).
    Without numeric columns the first categorical column is the root; without categorical
    columns the model is DPCopula's numeric part.

    Parameters
    ----------
    schema : TableSchema
        PUBLIC bounds, categories and integer columns (only the schema's integer columns are
        rounded), and optional PUBLIC atoms (point masses) of numeric columns: each atom gets
        its own cell on every grid of the model (one-way histograms, merged per-class bins, pair
        scores, edge tables; :class:`~.tree_bins.AtomGrid`), so the synthetic column keeps the
        point mass at the same charge; not with ``sparse``, ``histogram_tree`` or
        ``marginals="smoothed"`` (``docs/tree_copula.md``, "Public atoms" [13]_).
    epsilon : float
    delta : float, default 1e-9
    classes : sequence, optional
        PUBLIC class list; required when ``fit`` gets labels.
    n_bins : int, "auto" or "per-class", default "per-class"
        Fine bins per numeric column (one-way histograms). On a small table at low ε, fewer bins
        (8) keep more of the class-conditional structure and lose one-way shape on larger
        tables (measured in ``docs/tree_copula.md``, "Low ε and small classes"). ``"auto"``:
        first a DP count of the records (a fifth Gaussian release, sensitivity 1, with
        ``AUTO_BINS_SHARE`` of μ²; the other shares scaled down), then
        :func:`~.tree_bins.auto_bins` picks 32, 16 or 8 from it and the histograms' σ;
        ``pair_bins`` must divide 8. ``"per-class"``: first a DP release of the class sizes
        (sensitivity 1, with the histograms' μ² share of one column, so at the histograms' σ),
        then :func:`~.tree_bins.class_bins` gives each class the largest of 32, 16, 8 bins
        with n̂_c / bins ≥ ``CLASS_BINS_RATIO``·σ; a class's
        probabilities are spread evenly over the common 32-bin grid, the class sizes average
        both releases, ``pair_bins`` must divide 32 and ``marginals`` must be ``"per-class"``
        (``docs/tree_copula.md``, "Bins per class"). ``"per-class"`` is the default (since
        issue #26: CTG at ε = 0.3 LR AUC 0.781 against 0.688 with 32 bins, Adult unchanged,
        ``results/synth_tree_diagnose_classbins.md``); ``n_bins=32`` is the previous default.
    pair_bins : int, default 8
        Coarse bins per numeric column in the scores and edge tables; must divide ``n_bins``
        (with ``n_bins="per-class"``: the common 32-bin grid).
    shares : "auto" or (float, float, float, float), default "auto"
        Split of the Gaussian budget μ² between the histograms, the copula correlation, the
        scores and the edge tables; the share of a release the schema makes empty (no numeric
        pair, no categorical column) goes to the others in proportion. ``"auto"``: in proportion
        to (k, k_latent, k_tree/4 + 1/2, k_tree) from the public column counts
        (:func:`auto_shares`). The previous default was (0.35, 0.25, 0.1, 0.3).
    clip_scale : float, default 1.0
    smoothing : float, default 0.5
        Pseudo-counts per cell (in units of the edge tables' noise σ) of the independence prior
        mixed into each noisy edge table before fitting its margins (1.0 before issue #26's
        pairwise change, with ``edge_prior="joint"``).
    edge_prior : {"row", "joint"}, default "row"
        How that prior is spread (post-processing of the edge release). ``"row"``: every parent
        row gets ``smoothing``·σ pseudo-counts per cell, shaped by the child's DP one-way
        probabilities (a Dirichlet prior on each row's conditional): rows with few records, whose
        conditional is mostly noise, are pulled toward the child's marginal, well-populated rows
        keep their own. ``"joint"`` (the previous default): ``smoothing``·σ·cells pseudo-counts
        spread as the product of both margins, so every row is pulled by the same fraction
        (``docs/tree_copula.md``, "Pairwise fidelity"). Measured with ``edge_bins="integers"`` and
        ``smoothing=0.5`` against the previous defaults (``results/synth_tree_diagnose_pairs.md``,
        5 seeds): Adult 2-way TV 0.0604 / 0.0433 / 0.0384 vs 0.0643 / 0.0469 / 0.0420 at
        ε = 0.3 / 1 / 3, 28 of 63 table × ε × metric cells better, 1 worse by more than the sd.
    edge_bins : "integers" or None, default "integers"
        Cells of a numeric parent in the edge tables (public schema only). ``None``: ``pair_bins``
        as in the pair scores (the previous default). ``"integers"``: ``2·pair_bins`` for an
        integer column whose public range hi − lo lies in [pair_bins, 2·pair_bins), so that
        every integer value gets its own cell (:func:`~.tree_bins.integer_edge_bins`; e.g.
        Adult's ``education-num``, 1–16); the scores, and so the tree, keep ``pair_bins``. The edge
        release's sensitivity does not depend on the cells (one record, one cell per table).
    correlation : {"pooled", "per-class", "shrunk"}, default "pooled"
        ``"pooled"``: one latent correlation for all classes, from one release of the
        within-class score moments summed over the classes (its noise is relative to n, not to
        the smallest class). ``"per-class"`` (the previous default): one release per class.
        ``"shrunk"``: per-class releases, each shrunk toward their sum by its noise variance
        (assumed spread of the classes' correlations: ``SHRINK_SPREAD``).
    normalise : {"trace", "count"}, default "trace"
        Divide the released moments by the effective count n̂·(released trace / Σ score
        variances) (``"trace"``; undoes most of the shrinkage by the clipping) or by the DP
        class size (``"count"``, the previous default).
    binary_latent : bool, default False
        Put the two-category columns into the copula as thresholded latent Gaussians instead of
        the tree (their correlation with the numeric columns is then attenuated by the coarse
        score; not the default).
    marginals : {"per-class", "shrunk", "smoothed"}, default "per-class"
        ``"per-class"``: each class's one-way probabilities from its own noisy histogram.
        ``"smoothed"``: each class's noisy histogram of every numeric column replaced by its
        means over groups of 1, 2, 4, ... neighbouring bins (at least 4 groups), the group size
        chosen per class and column by Stein's unbiased risk estimate from the known noise
        variance (post-processing of release 1: the same privacy).
        ``"shrunk"``: each class's noisy histogram shrunk toward the pooled histogram (the sum
        over the classes, scaled to the class's DP size) by a positive-part James–Stein factor
        per class and column, from the known noise variance (post-processing of release 1: the
        same privacy). Options for tables whose smallest class is small against the noise,
        measured in ``docs/tree_copula.md``, "Low ε and small classes"; not the default.
    merged_bins : {"even", "pooled"}, default "even"
        With ``n_bins="per-class"``, how a class released on fewer bins spreads each of its
        merged cells over the common fine grid (post-processing of release 1, no budget).
        ``"even"``: evenly (uniform within the merged cell). ``"pooled"``: in proportion to the
        pooled profile Σ_c n̂_c p̂_c of all classes within that cell, so a small class borrows the
        within-cell shape of the classes released on finer bins (``docs/tree_copula.md``,
        "Merged bins"). Measured in ``results/synth_benchmark_significance.md``; not the default.
    sparse : {None, "pooled", "tails", "resolved", "tested", "cells"}, default None
        ``None``: each class's noisy numeric histogram becomes probabilities by simplex
        projection. Otherwise the cells outside a *span* are set to 0 and the span projected as
        before (post-processing of release 1, no budget): the empty bins of a heavy-tailed
        column (Adult's capital-gain) otherwise keep pure-noise mass far out in the tail, which
        tilts a downstream linear model (``docs/tree_copula.md``, "Sparse histograms").
        ``"pooled"``: one span per column, from the first to the last fine bin whose count summed
        over the classes reaches ``sparse_threshold`` times that sum's noise sd, and only for a
        column whose average fine bin (DP total / bins) reaches that cut. ``"tails"``: each
        class's own span (cells at or above ``sparse_threshold``·σ, σ the histograms' noise
        scale). ``"resolved"``: the class's own span where its DP size per released cell reaches
        the cut, else the pooled span. ``"tested"``: the pooled span, but a side beyond it is cut
        only when its summed counts stay below ``sparse_threshold`` times that sum's noise sd.
        ``"cells"``: every cell below the cut set to 0. Measured in
        ``results/synth_tree_gaps_*.md`` and ``results/synth_benchmark_significance.md``.
    sparse_threshold : float, default 3.0
        The cut of ``sparse`` in units of the histograms' σ.
    histogram_tree : None or int, default None
        ``None``: the flat one-way histograms (the default). An int b >= 2: the one-way histogram
        release also carries, for each numeric column chosen by ``histogram_tree_columns``, the
        coarse levels of a b-ary tree over its released cells (nodes of b, b², ... cells; 32
        cells with b = 4: 8 and 2 nodes) -- one Gaussian release, L2 sensitivity √(k + k_tree·L)
        (:func:`tree_histogram_sensitivity`) at the histograms' μ, so σ grows by
        √((k + k_tree·L)/k) (Hay et al. 2010; Qardaji, Yang & Li 2013). The leaves are made
        consistent with the nodes by least squares
        (:func:`~.tree_marginals.tree_inference_matrix`), subtrees whose estimate is below
        ``histogram_tree_threshold`` public noise sd are dropped, and
        the rest is simplex-projected onto the class size: the pure-noise mass that the flat
        projection leaves in a wide empty tail (Adult's ``capital-gain``) is removed from a few
        coarse nodes. With ``n_bins="per-class"`` the tree is released only if some class's DP
        size n̂_c satisfies threshold × (top node sd) ≤ ``histogram_tree_max_drop`` × n̂_c
        (decided from the released class sizes, the same μ either way), else the flat release.
        Measured (``docs/tree_copula.md``, "Hierarchical one-way histograms"): Adult ε = 1 LR
        AUC 0.8826 vs 0.8775 (10 paired seeds); it failed the default-change rule (Adult ε = 3
        balanced accuracy −0.0018, 4.9 paired se), so it is an option. Not with ``sparse`` or
        ``marginals`` other than ``"per-class"``.
    histogram_tree_threshold : float, default 2.0
        The cut of ``histogram_tree``: a subtree is dropped when its least-squares estimate is
        below this many public noise sd of a node of its size (0: none dropped). The bias: a
        dropped subtree's real records (at most this cut, in a class where the share limit
        allows it, at most ``histogram_tree_max_drop`` of the class) move to the kept cells.
    histogram_tree_columns : "wide", "all" or list of str, default "wide"
        The numeric columns that release a tree: ``"wide"``, those with public bounds lo >= 0 and
        hi − lo >= ``WIDE_RANGE`` (1000) of their units (:func:`~.tree_bins.wide_range_columns`;
        Adult's fnlwgt, capital-gain, capital-loss); ``"all"``; or the named columns.
    histogram_tree_projection : {"global", "nested"}, default "global"
        ``"global"``: one simplex projection of the consistent leaves outside the dropped
        subtrees. ``"nested"``: each parent's mass split among its children by a projection per
        parent, level by level (the first version; lost on Lending Club).
    histogram_tree_max_drop : float or None, default 0.005
        Subtrees of a class are dropped only where the cut is at most this share of its DP size,
        and (``n_bins="per-class"``) the tree is released only if some class passes; ``None``:
        always.
    bin_edges : "equal", "geometric-wide" or list of str, default "equal"
        The public fine-bin edges of the numeric columns. ``"equal"``: equal-width bins of the
        public bounds. A list: geometric edges (below) on the named numeric columns (public lower
        bound >= 0), equal-width on the others. ``"geometric-wide"``: for each wide column
        (:func:`~.tree_bins.wide_range_columns`: lo >= 0 and hi − lo >= 1000 of its units, e.g.
        Adult's fnlwgt, capital-gain and capital-loss) bins equal-width in
        t(x) = log(1 + S(x − lo)/(hi − lo)) / log(1 + S), S = ``GEOMETRIC_SPAN`` (100)
        (:func:`~.tree_bins.geometric_edges`): nearly equal below the public scale (hi − lo)/S,
        geometric above it, so a wide empty tail holds a few bins instead of
        half of them. Values are drawn uniformly in t within their bin (log-uniform above the
        scale). A function of the public bounds and the bins only: the same release, the same
        sensitivities, σ and guarantee as ``"equal"`` (a different public binning of the same
        counts). Composes with ``histogram_tree`` (its nodes are unions of the new bins) and
        with Dask input (the partitions are binned by the same function). Measured
        (``results/synth_tree_geom.md``, 10 paired seeds): Adult ε = 1 LR AUC 0.8797 vs 0.8775
        (0.8834 with ``histogram_tree=4``), Adult balanced accuracy +0.009 to +0.017 at every ε;
        it failed the default-change rule (Lending Club ε = 1 LR AUC −0.0175, 8.1 paired se: its
        wide columns are spread over one or two decades, not heavy-tailed), so it is an option
        (``docs/tree_copula.md``, "Geometric bin edges" [13]_).
    max_parents : {1, 2}, default 1
        ``1``: every tree column has one parent (the tree). ``2`` (an option, issue #26): each tree
        column may also get a SECOND parent -- per class, among the columns sampled before it
        (not its first parent; a numeric one also on halved public grids,
        :func:`~.tree_structure.second_parent_cells`), the one whose 3-way table the public
        rule :func:`~.tree_structure.second_parent_allowed` says can be estimated and has the
        largest net gain (:func:`~.tree_structure.second_parent_gain`: released pair score minus
        the extra cells' L1 noise), all from the released scores,
        the DP class size and the edge σ (post-processing). Its edge table is then 3-way (parent, second parent, child): still one
        table per tree column, each record in one cell of each, so the edge release's sensitivity
        √k_tree and σ are unchanged (a degree-2 Bayesian network, as PrivBayes; Zhang et al.
        2017). Not the default: it failed its development gate twice (Adult's balanced accuracy
        −0.004 to −0.010; hi at ε = 0.3), ``docs/tree_copula.md``, "A second parent".
    within_bins : {"latent", "uniform"}, default "latent"
        Sampling only (post-processing of the released model: the same fit, σ's and guarantee).
        ``"latent"``: a numeric value's position inside its fine bin is the copula latent's
        conditional quantile there, so the columns' positions inside their bins are as dependent
        as their latents. ``"uniform"`` (an option, issue #26, task SY): the column's own public
        uniform draw (the same draws; the bins drawn are unchanged). Where most of a column's
        mass sits in one or two bins (a zero-inflated column, or the span kept by ``sparse``) the
        latent position is most of its synthetic variation, and two such columns inherit their
        latent correlation: with ``sparse="pooled"`` on CTG at ε = 3, FM × DS (real correlation
        −0.01) came out at up to 0.78. Measured (``docs/tree_copula.md``, "CTG's balanced accuracy
        at ε = 3"): alone, no loss in the 9 benchmark cells; with ``sparse="pooled"`` CTG ε = 3's
        largest correlation error 0.553 instead of 0.690 (default 0.424), still a loss. With
        ``sparse="pooled", sparse_threshold=2.0`` (10 new seeds): CTG ε = 3 LR balanced accuracy
        0.769 vs 0.696, but its largest correlation error 0.488 vs 0.423 and Lending Club ε = 0.3
        LR accuracy 0.814 vs 0.829 lose, so neither is the default
        (``results/synth_tree_ctg_bacc_dev_screen_2.md``).
    random_state : None, int or numpy.random.Generator
        ``None`` (default): a cryptographically secure generator. An int makes the fit replayable
        by whoever knows it (experiments and tests only); it is a parameter, so it stays on the
        fitted model and in its pickles: whoever holds a seeded model can replay its noise and
        recover the exact statistics (``docs/copula.md``, "Randomness"). No generator is kept
        on the model.
    accountant : Accountant or Ledger, optional
        The budget keeper charged with the whole fit's ``privacy_`` before any noise is drawn
        (:class:`~matrixdp.errors.BudgetExceededError` if it does not fit, and nothing is
        released); the same keyword as every matrixdp estimator. ``fit(accountant=, ledger=)``
        overrides it. Default: the keepers of the enclosing ``with Accountant(...)`` /
        ``with Ledger(...)`` blocks, if any.

    Attributes
    ----------
    privacy_ : PrivacyGuarantee
    classes_, class_counts_, class_priors_ : ndarray
    marginals_ : dict of str -> ndarray (n_classes, n_bins_j)
        DP one-way probabilities per class (after simplex projection); a numeric column with m
        public atoms has ``n_bins_ + m`` cells (:class:`~.schema.NumericCells` order).
    n_bins_ : int
        The bins per numeric column used (``n_bins``, or the choice of ``"auto"``).
    record_count_ : float or None
        The DP record count of ``n_bins="auto"`` (None otherwise).
    class_sizes_raw_, class_bins_ : ndarray (n_classes,) or None
        ``n_bins="per-class"``: the released class sizes and the bins each class's numeric
        histograms used (None otherwise; ``n_bins_`` is then the common grid, 32).
    correlation_ : ndarray (n_classes, k_latent, k_latent)
        Repaired correlation of the copula columns' latent Gaussians (identical rows when
        pooled).
    tree_ : list (per class) of list of (parent, child)
        Edges as column indices, in sampling order (every child categorical).
    edge_tables_ : list (per class) of list of ndarray
        Fitted joint probabilities of each edge (parent cells × child codes; a numeric
        parent on its edge cells, see ``edge_bins``).
    second_parents_ : list (per class) of list of int or None
        The second parent (column index) of each edge's child, or None (always None with
        ``max_parents=1``); with one, that edge's table is (parent × second parent × child).
    scores_raw_, correlation_raw_ : ndarray
        The noisy scores and score moments as released (``correlation_raw_``: one row when
        pooled, else one per class; the off-diagonal entries, then with ``normalise="trace"``
        the diagonal divided by √2).
    sigmas_, sensitivities_ : dict of str -> float
        Noise scale and L2 sensitivity of each release.
    histogram_tree_columns_ : list of str
        The columns whose tree was released (empty without ``histogram_tree`` or when no class
        could use its cut).
    histogram_tree_counts_ : dict or None
        The released (noisy) tree nodes: column -> per class -> one array per level, finest
        first (None without a tree).
    bin_edges_ : dict of str -> ndarray
        The public fine-bin edges of each numeric column (``bin_edges``).
    geometric_columns_ : list of str
        The numeric columns on geometric edges (empty with ``bin_edges="equal"``).
    columns_ : list of str

    References
    ----------
    .. [1] C. K. Chow, C. N. Liu, "Approximating discrete probability distributions with
       dependence trees", IEEE Trans. Inf. Theory 1968.
    .. [2] H. Li, L. Xiong, X. Jiang, "Differentially private synthesization of
       multi-dimensional data using copula functions", EDBT 2014.
    .. [3] R. McKenna, G. Miklau, D. Sheldon, "Winning the NIST contest: a scalable and general
       approach to differentially private synthetic data" (MST), JPC 2021.
    .. [4] J. Dong, A. Roth, W. J. Su, "Gaussian differential privacy", JRSS-B 2022.
    .. [5] B. Efron, C. Morris, "Stein's estimation rule and its competitors -- an empirical
       Bayes approach", JASA 1973 (the partial pooling of ``correlation="shrunk"``).
    .. [6] C. M. Stein, "Estimation of the mean of a multivariate normal distribution", Ann.
       Statist. 1981 (the unbiased risk estimate of ``marginals="smoothed"``).
    .. [7] W. James, C. Stein, "Estimation with quadratic loss", Berkeley Symp. 1961
       (``marginals="shrunk"``).
    .. [8] S. E. Fienberg, P. W. Holland, "Simultaneous estimation of multinomial cell
       probabilities", JASA 1973 (pseudo-count priors: ``edge_prior``).
    .. [9] G. Cormode, C. Procopiuc, D. Srivastava, T. T. L. Tran, "Differentially private
       summaries for sparse data", ICDT 2012 (thresholded noisy counts: ``sparse``).
    .. [10] M. Hay, V. Rastogi, G. Miklau, D. Suciu, "Boosting the accuracy of differentially
       private histograms through consistency", PVLDB 3(1), 2010 (``histogram_tree``).
    .. [11] W. Qardaji, W. Yang, N. Li, "Understanding hierarchical methods for differentially
       private histograms", PVLDB 6(14), 2013 (the branching of ``histogram_tree``).
    .. [12] J. Zhang, G. Cormode, C. M. Procopiuc, D. Srivastava, X. Xiao, "PrivBayes: private
       data release via Bayesian networks", ACM TODS 42(4), 2017 (``max_parents=2``).
    .. [13] docs/tree_copula.md.
    """

    def __init__(self, *, schema, epsilon, delta=1e-9, classes=None, n_bins="per-class", pair_bins=8,
                 shares="auto", clip_scale=1.0, smoothing=0.5, correlation="pooled",
                 normalise="trace", binary_latent=False, marginals="per-class",
                 edge_prior="row", edge_bins="integers", merged_bins="even", sparse=None,
                 sparse_threshold=3.0, histogram_tree=None, histogram_tree_threshold=2.0,
                 histogram_tree_columns="wide", histogram_tree_projection="global",
                 histogram_tree_max_drop=0.005, bin_edges="equal", max_parents=1,
                 within_bins="latent", random_state=None, accountant=None):
        self.schema = schema
        self.epsilon = epsilon
        self.delta = delta
        self.classes = classes
        self.n_bins = n_bins
        self.pair_bins = pair_bins
        self.shares = shares
        self.clip_scale = clip_scale
        self.smoothing = smoothing
        self.correlation = correlation
        self.binary_latent = binary_latent
        self.normalise = normalise
        self.marginals = marginals
        self.edge_prior = edge_prior
        self.edge_bins = edge_bins
        self.merged_bins = merged_bins
        self.sparse = sparse
        self.sparse_threshold = sparse_threshold
        self.histogram_tree = histogram_tree
        self.histogram_tree_threshold = histogram_tree_threshold
        self.histogram_tree_columns = histogram_tree_columns
        self.histogram_tree_projection = histogram_tree_projection
        self.histogram_tree_max_drop = histogram_tree_max_drop
        self.bin_edges = bin_edges
        self.max_parents = max_parents
        self.within_bins = within_bins
        self.random_state = random_state
        self.accountant = accountant

    def _check_params(self):
        eps, delta = check_schema_budget(self)
        if self._atom_columns():
            # the options that smooth, cut or aggregate NEIGHBOURING bins of the one-way
            # histograms are not defined on atom cells (docs/tree_copula.md, "Public atoms")
            clash = [f"{name}={getattr(self, name, None)!r}" for name, ok in (
                ("sparse", getattr(self, "sparse", None) is None),
                ("histogram_tree", getattr(self, "histogram_tree", None) is None),
                ("marginals", self.marginals != "smoothed")) if not ok]
            if clash:
                raise InvalidParameterError(
                    "schema", f"public atoms cannot be combined with {', '.join(clash)} (they act "
                              "on neighbouring bins); drop the option or the atoms")
        for name in ("n_bins", "pair_bins"):
            v = getattr(self, name)
            if name == "n_bins" and isinstance(v, str) and v in ("auto", "per-class"):
                continue
            if isinstance(v, bool) or not isinstance(v, Integral) or v < 2:
                alt = ", 'auto' or 'per-class'" if name == "n_bins" else ""
                raise InvalidParameterError(name, f"must be an integer >= 2{alt}, got {v!r}")
        # "per-class": every class's probabilities live on the common grid AUTO_BINS[0] (a merged
        # class's cells are spread evenly over it), so the coarse codes only need to divide it;
        # "auto" may choose AUTO_BINS[-1] for the whole table
        smallest = (AUTO_BINS[-1] if self._auto_bins() else AUTO_BINS[0] if self._class_bins()
                    else self.n_bins)
        if smallest % self.pair_bins:
            raise InvalidParameterError("pair_bins", f"must divide n_bins={smallest}, got {self.pair_bins}")
        if self.edge_bins is not None and not (isinstance(self.edge_bins, str) and self.edge_bins == "integers"):
            raise InvalidParameterError("edge_bins", f"must be None or 'integers', got {self.edge_bins!r}")
        if self.correlation not in ("per-class", "pooled", "shrunk"):
            raise InvalidParameterError("correlation", "must be 'per-class', 'pooled' or 'shrunk', "
                                                       f"got {self.correlation!r}")
        if self.normalise not in ("count", "trace"):
            raise InvalidParameterError("normalise", f"must be 'count' or 'trace', got {self.normalise!r}")
        if self.marginals not in ("per-class", "shrunk", "smoothed"):
            raise InvalidParameterError("marginals", "must be 'per-class', 'shrunk' or 'smoothed', "
                                                     f"got {self.marginals!r}")
        if self._class_bins() and self.marginals != "per-class":
            raise InvalidParameterError("marginals", "must be 'per-class' with n_bins='per-class' "
                                                     f"(the classes' histograms differ in size), got {self.marginals!r}; "
                                                     "pass n_bins=32 (or 'auto') with it")
        sp, st = self.sparse, self.sparse_threshold
        if sp is not None and not (isinstance(sp, str) and sp in ("tails", "cells", "pooled", "resolved",
                                                                  "tested")):
            raise InvalidParameterError("sparse", "must be None, 'tails', 'cells', 'pooled', 'resolved' or "
                                                  f"'tested', got {sp!r}")
        if not (isinstance(st, (int, float)) and not isinstance(st, bool) and math.isfinite(st)
                and st >= 0):
            raise InvalidParameterError("sparse_threshold", f"must be a non-negative number, got {st!r}")
        wb = getattr(self, "within_bins", "latent")
        if not (isinstance(wb, str) and wb in ("latent", "uniform")):
            raise InvalidParameterError("within_bins", f"must be 'latent' or 'uniform', got {wb!r}")
        bt, tt = getattr(self, "histogram_tree", None), getattr(self, "histogram_tree_threshold", 2.0)
        if bt is not None:
            if isinstance(bt, bool) or not isinstance(bt, Integral) or bt < 2:
                raise InvalidParameterError("histogram_tree", f"must be None or an integer branching >= 2, got {bt!r}")
            grid = self._tree_grid()
            if not tree_levels(grid, int(bt)):
                raise InvalidParameterError("histogram_tree", f"branching {bt!r} gives no coarse level "
                                                              f"on {grid} bins (it must divide them and be smaller)")
            if getattr(self, "histogram_tree_projection", "global") not in ("global", "nested"):
                raise InvalidParameterError("histogram_tree_projection", "must be 'global' or 'nested', got "
                                                                         f"{self.histogram_tree_projection!r}")
            md = getattr(self, "histogram_tree_max_drop", None)
            if md is not None and not (isinstance(md, (int, float)) and not isinstance(md, bool)
                                       and math.isfinite(md) and md > 0):
                raise InvalidParameterError("histogram_tree_max_drop", f"must be None or a positive share, got {md!r}")
            tc = getattr(self, "histogram_tree_columns", "wide")
            if not (isinstance(tc, str) and tc in ("wide", "all")):
                if isinstance(tc, str) or not all(c in self.schema.bounds for c in tc):
                    raise InvalidParameterError("histogram_tree_columns", "must be 'wide', 'all' or a "
                                                                          "list of numeric columns of the schema")
            if sp is not None or self.marginals != "per-class":
                raise InvalidParameterError("histogram_tree", "cannot be combined with sparse= or "
                                                              "marginals= other than 'per-class'")
        if not (isinstance(tt, (int, float)) and not isinstance(tt, bool) and math.isfinite(tt) and tt >= 0):
            raise InvalidParameterError("histogram_tree_threshold", f"must be a non-negative number, got {tt!r}")
        mp = getattr(self, "max_parents", 1)
        if isinstance(mp, bool) or not isinstance(mp, Integral) or mp not in (1, 2):
            raise InvalidParameterError("max_parents", f"must be 1 or 2, got {mp!r}")
        be = getattr(self, "bin_edges", "equal")
        if not (isinstance(be, str) and be in ("equal", "geometric-wide")):
            if (isinstance(be, str) or not isinstance(be, (list, tuple))
                    or not all(isinstance(c, str) and c in self.schema.bounds and float(self.schema.bounds[c][0]) >= 0
                               for c in be)):
                raise InvalidParameterError("bin_edges", "must be 'equal', 'geometric-wide' or a list of numeric "
                                                         f"columns with public lower bound >= 0, got {be!r}")
        if not (isinstance(self.merged_bins, str) and self.merged_bins in ("even", "pooled")):
            raise InvalidParameterError("merged_bins", f"must be 'even' or 'pooled', got {self.merged_bins!r}")
        if not (isinstance(self.edge_prior, str) and self.edge_prior in ("joint", "row")):
            raise InvalidParameterError("edge_prior", f"must be 'joint' or 'row', got {self.edge_prior!r}")
        check_flag(self.binary_latent, "binary_latent")
        # checked for every shares value (with shares='auto' they were not checked before)
        for name in ("clip_scale", "smoothing"):
            v = getattr(self, name)
            if not (isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0
                    and math.isfinite(v)) or (name == "clip_scale" and v == 0):
                raise InvalidParameterError(name, f"must be a {'positive' if name == 'clip_scale' else 'non-negative'} number, got {v!r}")
        if isinstance(self.shares, str):
            if self.shares != "auto":
                raise InvalidParameterError("shares", f"must be 'auto' or four positive numbers, got {self.shares!r}")
            return eps, delta, "auto"
        try:
            shares = np.asarray(self.shares, dtype=np.float64)
        except (TypeError, ValueError):
            raise InvalidParameterError("shares", f"must be 'auto' or four positive numbers, got {self.shares!r}") from None
        if shares.shape != (4,) or not np.all(np.isfinite(shares)) or np.any(shares <= 0):
            raise InvalidParameterError("shares", f"must be 'auto' or four positive numbers, got {self.shares!r}")
        return eps, delta, shares

    def _tree_branching(self):
        """``histogram_tree`` (None: the flat histograms; fitted models pickled before it: None)."""
        b = getattr(self, "histogram_tree", None)
        return None if b is None else int(b)

    def _tree_usable(self, class_sizes, mechs, sens, cols) -> bool:
        """``histogram_tree`` with ``n_bins="per-class"``: release the tree only if some class's
        DP size ``n̂_c`` makes the cut of the coarsest level usable, threshold × its node sd ≤
        ``histogram_tree_max_drop`` × n̂_c (always with ``max_drop=None``). If so, the planned
        flat histogram mechanism is replaced by one with the tree's sensitivity and the SAME μ
        (so the same guarantee; σ grows with the sensitivity). Post-processing of the released
        class sizes and public values; the choice composes adaptively (each release's μ is fixed)."""
        b, grid = self._tree_branching(), self._tree_grid()
        widths = tree_levels(grid, b)
        d_tree = tree_histogram_sensitivity(len(cols), len(self._tree_columns(cols)), len(widths))
        flat = mechs["histograms"]
        mu_h = sens["histograms"] / flat.sigma
        md = getattr(self, "histogram_tree_max_drop", None)
        if md is not None:
            block = np.zeros(grid)
            block[:widths[-1]] = 1.0
            sd_top = d_tree / mu_h * math.sqrt(float(block @ tree_inference_matrix(grid, widths) @ block))
            t = float(getattr(self, "histogram_tree_threshold", 2.0))
            if not np.any(t * sd_top <= float(md) * np.asarray(class_sizes, dtype=np.float64)):
                return False
        mechs["histograms"] = flat.with_sensitivity(d_tree)
        sens["histograms"] = d_tree
        return True

    def _tree_columns(self, cols) -> list:
        """The numeric columns that release a tree (public: ``histogram_tree_columns`` and the
        schema's bounds); none without ``histogram_tree``."""
        if self._tree_branching() is None:
            return []
        tc = getattr(self, "histogram_tree_columns", "wide")
        chosen = (wide_range_columns(self.schema) if isinstance(tc, str) and tc == "wide" else
                  list(self.schema.bounds) if isinstance(tc, str) else list(tc))
        return [c for c in cols if c in chosen]

    def _geometric_columns(self) -> list:
        """The numeric columns binned on geometric edges (public: ``bin_edges`` and the schema's
        bounds; fitted models pickled before ``bin_edges`` existed: none)."""
        be = getattr(self, "bin_edges", "equal")
        if isinstance(be, str):
            return wide_range_columns(self.schema) if be == "geometric-wide" else []
        return [c for c in self.schema.bounds if c in set(be)]

    def _edges(self, c) -> np.ndarray:
        """The public fine-bin edges of numeric column ``c`` (``bin_edges`` and the bounds only)."""
        if c in self._geometric_columns():
            return geometric_edges(self.schema.bounds[c], self._bins())
        return np.linspace(*self.schema.bounds[c], self._bins() + 1)

    def _tree_grid(self) -> int:
        """The largest released grid of a numeric column (public: the sensitivity counts its
        levels; a class on fewer cells has no more levels)."""
        return AUTO_BINS[0] if (self._auto_bins() or self._class_bins()) else int(self.n_bins)

    def _auto_bins(self) -> bool:
        return isinstance(self.n_bins, str) and self.n_bins == "auto"

    def _class_bins(self) -> bool:
        return isinstance(self.n_bins, str) and self.n_bins == "per-class"

    def _bins(self) -> int:
        """The fine bins in use (fitted models pickled before ``n_bins_`` existed: ``n_bins``)."""
        return int(getattr(self, "n_bins_", self.n_bins))

    # ------------------------------------------------------------------ plan (public)
    def _plan(self, eps, delta, shares, cols):
        """Sensitivities, mechanisms and σ: from the public schema only, before any noise."""
        k = len(cols)
        k_num = len(self._latent(cols))  # the copula block: numeric (+ binary) columns
        k_cat = k - k_num
        n_scores = k * (k - 1) // 2 - k_num * (k_num - 1) // 2
        n_edges = k_cat if k_num > 0 else max(k_cat - 1, 0)
        # histogram_tree with n_bins="per-class": planned flat; the tree is added (same mu, larger
        # sensitivity and sigma) only if the released class sizes make its cut usable (fit)
        sens = {"histograms": histogram_sensitivity(k) if self._tree_branching() is None
                or self._class_bins() else
                tree_histogram_sensitivity(k, len(self._tree_columns(cols)),
                                           len(tree_levels(self._tree_grid(), self._tree_branching()))),
                "correlation": (moment_sensitivity(float(self.clip_scale) * math.sqrt(k_num))
                                if self.normalise == "trace" else
                                correlation_sensitivity(k_num, float(self.clip_scale) * math.sqrt(k_num)))
                if k_num > 1 else 0.0,
                "scores": score_sensitivity(n_scores) if n_edges > 0 and n_scores > 1 else 0.0,
                "edges": pair_sensitivity(n_edges) if n_edges > 0 else 0.0}
        used = np.array([sens[name] > 0 for name in sens])
        if isinstance(shares, str):  # "auto": from the public column counts only
            shares = auto_shares(k, k_num, k_cat)
        weights = np.where(used, shares, 0.0)
        if self._auto_bins():  # a DP record count first, with AUTO_BINS_SHARE of mu^2
            weights = np.append(weights / weights.sum() * (1.0 - AUTO_BINS_SHARE), AUTO_BINS_SHARE)
            sens["count"] = 1.0  # add/remove: one record moves the count by 1
        if self._class_bins():  # DP class sizes first, at the histograms' noise per entry
            # (weight = the histograms' weight per column, sensitivity 1: one more one-bin column)
            weights = np.append(weights, weights[0] / k)
            sens["class_counts"] = 1.0  # add/remove: one record moves one class's count by 1
        mu, mus = gdp_split(eps, delta, weights)
        mus = mus * (1.0 - 1e-9)  # stay inside the budget through the calibration round trip
        mechs = {}
        for (name, s), m in zip(sens.items(), mus):
            if s > 0:
                mechs[name] = _gaussian_at_shift(float(m), delta, s)
        return mu, mechs, sens

    def _guarantee(self, eps, delta, n_cls, mu, mechs) -> PrivacyGuarantee:
        from dataclasses import replace

        from ..accounting import compose, parallel

        # a pooled correlation is one release of the sum over classes (a record is in one term)
        steps = [m.privacy if name in ("count", "class_counts") or (name == "correlation" and self.correlation == "pooled")
                 else parallel([m.privacy] * n_cls, partition_public=True)
                 for name, m in mechs.items()]
        total = compose(steps, delta=delta, method="gdp")
        if total.epsilon > eps * (1 + 1e-9):
            raise RuntimeError(f"DPTreeCopula accounting bug: composed epsilon {total.epsilon} > {eps}")
        detail = "; ".join(f"{name}: L2 sensitivity {m.sensitivity:.6g}, sigma {m.sigma:.6g}, "
                           f"mu {m.privacy.mu:.6g}" for name, m in mechs.items())
        return replace(total, epsilon=eps, mechanism="dp-tree-copula", notes=total.notes + (
            f"Gaussian releases composed as Gaussian DP (mu*={mu:.6g}): {detail}",
            "classes are public and partition the records: each per-class release composes in "
            "parallel" + ("; the pooled correlation is one release of a sum over the classes (a "
                          "record changes one term)" if self.correlation == "pooled" else "")
            + ("; n_bins='auto': one DP count of all records, then the bins chosen from it "
               "(post-processing)" if "count" in mechs else "")
            + ("; n_bins='per-class': one release of the class sizes (sensitivity 1), then each "
               "class's bins chosen from it (post-processing)" if "class_counts" in mechs else "")
            + ("; histogram_tree: the one-way histograms also release coarse levels of a tree over "
               "each chosen numeric column (one release, sensitivity sqrt(k + columns x levels)); "
               "with n_bins='per-class' whether to add them is chosen from the released class sizes "
               "at a fixed mu (adaptive composition)" if self._tree_branching() is not None else ""),
            "add/remove neighbours: n and the class sizes are not assumed public",
            "bounds, categories, bins, bin edges, classes and integer columns are public; the tree is chosen "
            "from released scores; sampling is post-processing",
            "a sufficient bound: the score-moment sensitivity is attained only by equal |s_j|")
            + (("max_parents=2: a tree column's second parent is chosen from the released scores and "
                "class sizes (post-processing); its edge table is then 3-way, still one table per tree "
                "column (sensitivity unchanged)",) if getattr(self, "max_parents", 1) == 2 else ()),
            exact=False, calibration="analytic-gdp")

    # ------------------------------------------------------------------ fit
    def fit(self, X, y=None, *, accountant=None, ledger=None) -> "DPTreeCopula":
        """Release the DP statistics of ``X`` (a DataFrame matching ``schema``), per class of ``y``.

        ``accountant``/``ledger`` (and the enclosing ``with`` blocks' keepers) are charged the whole
        guarantee before any noise is drawn, and only after every record has been checked
        (values, categories, labels): a refused table costs nothing, in memory and on Dask
        (where one counting pass over the partitions runs before the charge).
        """
        from ..accounting import charge

        eps, delta, shares = self._check_params()
        for attribute in [k for k in vars(self) if k.endswith("_") and not k.startswith("__")]:
            delattr(self, attribute)
        from .._record_sums import is_dask_collection

        dask_input = is_dask_collection(X)
        if dask_input:
            cols = self._dask_columns(X)
            classes = generator_labels(self.classes,
                                       None if y is None else np.zeros(0, dtype=object), 0)[0]
            reduce = dask_reducer(self, X, y, cols, classes)
            # every partition read and checked before the charge, as in memory (a refused table
            # costs nothing); these exact class sizes are what "per-class" bins release below
            sizes = dask_checked_class_counts(self, X, y, cols, classes.size)
            refuse_empty(sizes.sum(), "add-remove")  # as in memory (check_columns)
        else:
            cols = self.schema.check_columns(X)
            classes, label = generator_labels(self.classes, y, X.shape[0])
            encoded = self.schema.encode(X) if X.shape[0] else None  # checked before any noise
            blocks = {}

            def reduce(fn, *args):  # one in-memory block, binned once n_bins_ is known
                if "codes" not in blocks:
                    blocks["codes"] = None if encoded is None else (
                        *self._codes(cols, *encoded)[:2], label)
                return fn(blocks["codes"], *args)
        mu, mechs, sens = self._plan(eps, delta, shares, cols)
        privacy = self._guarantee(eps, delta, classes.size, mu, mechs)
        if accountant is None and ledger is None:
            accountant = self.accountant
        gen = make_rng(self.random_state)  # local only: never stored on the model
        tree_cols = self._tree_columns(cols)
        # the bins rules see the noise a flat release of the same budget would have (with
        # histogram_tree the release's sigma is larger by its sensitivity; public either way)
        sigma_bins = mechs["histograms"].sigma * histogram_sensitivity(len(cols)) / sens["histograms"]
        with charge(privacy, accountant=accountant, ledger=ledger, label="dp-tree-copula fit"):
            self.record_count_ = None
            self.class_bins_ = self.class_sizes_raw_ = None
            prior_counts = None
            if "class_counts" in mechs:  # n_bins="per-class": the DP class sizes choose the bins
                self.n_bins_ = AUTO_BINS[0]  # the common fine grid; a class's bins merge its cells
                prior_counts = np.asarray(mechs["class_counts"].release(
                    sizes if dask_input else reduce(class_pass, classes.size), rng=gen).value,
                    dtype=np.float64)
                self.class_bins_ = class_bins(prior_counts, sigma_bins)
                self.class_sizes_raw_ = prior_counts
                if tree_cols and not self._tree_usable(prior_counts, mechs, sens, cols):
                    tree_cols = []  # no class large enough: the flat release as planned
            elif "count" in mechs:  # n_bins="auto": the DP record count chooses the bins
                # on Dask: the checked pass's counts (no further pass over the records)
                n_records = int(round(float(sizes.sum()))) if dask_input else int(X.shape[0])
                self.record_count_ = float(np.asarray(mechs["count"].release(
                    np.array([float(n_records)]), rng=gen).value)[0])
                self.n_bins_ = auto_bins(self.record_count_, classes.size, sigma_bins)
            else:
                self.n_bins_ = int(self.n_bins)
            card, ccard, ecard = self._cards(cols)
            stats = release_statistics(self.schema, cols, card, ccard, ecard, reduce, classes.size, mechs,
                               float(self.clip_scale), gen, self._latent(cols),
                               self.correlation == "pooled", self.normalise == "trace",
                               self.correlation == "shrunk", self.marginals,
                               self.class_bins_, prior_counts,
                               self.merged_bins == "pooled",
                               (self.sparse, float(self.sparse_threshold)),
                               (self._tree_branching() if tree_cols else None,
                                float(getattr(self, "histogram_tree_threshold", 2.0)),
                                tree_cols,
                                getattr(self, "histogram_tree_projection", "global"),
                                getattr(self, "histogram_tree_max_drop", None)),
                               int(getattr(self, "max_parents", 1)), self._atom_grids(cols))
        if tree_cols and "class_counts" in mechs:  # the same mu: the notes state the tree's sigma
            privacy = self._guarantee(eps, delta, classes.size, mu, mechs)
        self._finish(cols, classes, stats, mechs, sens, privacy)
        self.histogram_tree_columns_ = list(tree_cols)
        return self

    def _dask_columns(self, X):
        cols = list(X.columns)
        missing = [c for c in self.schema.columns if c not in cols]
        extra = [c for c in cols if c not in self.schema.bounds and c not in self.schema.categories]
        if missing or extra:
            raise InvalidShapeError("X", f"columns must match the schema: missing {missing}, not in "
                                         f"schema {extra}")
        return cols

    def _latent(self, cols) -> list:
        """Indices of the copula block (public schema only): the numeric columns, and the
        two-category columns when ``binary_latent``."""
        return [i for i, c in enumerate(cols) if c in self.schema.bounds
                or (self.binary_latent and self.schema.categories[c].size == 2)]

    def _atom_columns(self) -> list:
        """The numeric columns with public atoms (schemas pickled before atoms: none)."""
        return [c for c in self.schema.bounds if self.schema.atoms_of(c)]

    def _atom_grid(self, c):
        """The :class:`~.tree_bins.AtomGrid` of numeric column ``c`` on the fine bins in use, or
        None when it has no atoms (its cells are then its bins, coded as before atoms existed).
        Public: edges and atoms only (``docs/tree_copula.md``, "Public atoms")."""
        atoms = self.schema.atoms_of(c)
        return AtomGrid(self._edges(c), atoms) if atoms else None

    def _atom_grids(self, cols) -> dict:
        """Column -> :class:`~.tree_bins.AtomGrid` for the columns of ``cols`` with atoms."""
        return {c: self._atom_grid(c) for c in cols if c in self._atom_columns()}

    def _coarsen(self, c, p, cells: int) -> np.ndarray:
        """Column ``c``'s probabilities on a coarser grid of ``cells`` cells (with atoms: its bins
        plus the atoms, each atom keeping its own cell); a categorical column's are unchanged."""
        if c not in self.schema.bounds:
            return p
        grid = self._atom_grid(c)
        if grid is not None:
            return grid.coarsen(p, int(cells) - grid.n_atoms)
        return coarsen(p, True, self._bins() // int(cells))

    def _edge_cells(self, c) -> int:
        """Cells of numeric column ``c`` in the edge tables (public schema only): ``pair_bins``,
        or with ``edge_bins="integers"`` :func:`~.tree_bins.integer_edge_bins`."""
        if getattr(self, "edge_bins", None) is None:
            return int(self.pair_bins)
        return integer_edge_bins(self.schema.bounds[c], c in self.schema.integer, int(self.pair_bins),
                                 self._bins())

    def _cards(self, cols):
        """Cells per column: fine (one-way histograms), coarse (pair scores) and edge tables."""
        card = {c: self._bins() + len(self.schema.atoms_of(c)) if c in self.schema.bounds
                else self.schema.categories[c].size for c in cols}
        m = {c: len(self.schema.atoms_of(c)) if c in self.schema.bounds else 0 for c in cols}
        ccard = {c: self.pair_bins + m[c] if c in self.schema.bounds else card[c] for c in cols}
        ecard = {c: self._edge_cells(c) + m[c] if c in self.schema.bounds else card[c] for c in cols}
        return card, ccard, ecard

    def _block_codes(self, frame, label, cols):
        """Fine and coarse codes and class codes of one block of records (None when empty)."""
        if frame.shape[0] == 0:
            return None
        numeric, codes = self.schema.encode(frame)
        fine, coarse, _, _ = self._codes(cols, numeric, codes)
        return fine, coarse, label

    def _codes(self, cols, numeric, codes):
        fine, coarse, card, ccard = {}, {}, {}, {}
        n_bins = self._bins()
        geometric = self._geometric_columns()
        for c in cols:
            if c in self.schema.bounds:
                lo, hi = self.schema.bounds[c]
                # equal-width bins on the public position of the value: (x - lo) / (hi - lo), or
                # with bin_edges="geometric-wide" on a wide column its log position t(x)
                pos = (geometric_position(numeric[c], (lo, hi)) if c in geometric
                       else (numeric[c] - lo) / (hi - lo))
                b = np.minimum((pos * n_bins).astype(np.int64), n_bins - 1)
                grid = self._atom_grid(c)
                if grid is None:
                    fine[c], coarse[c] = b, b // (n_bins // self.pair_bins)
                else:  # public atoms: a value equal to one is in its own cell on every grid
                    fine[c] = grid.code(numeric[c], b)
                    coarse[c] = grid.coarse_codes(fine[c], self.pair_bins)
                m = 0 if grid is None else grid.n_atoms
                card[c], ccard[c] = n_bins + m, self.pair_bins + m
            else:
                fine[c] = coarse[c] = codes[c]
                card[c] = ccard[c] = self.schema.categories[c].size
        return fine, coarse, card, ccard

    def _finish(self, cols, classes, stats, mechs, sens, privacy):
        probs, class_counts, corr_raw, corr, scores_raw, trees, raw_edges, tnodes, second = stats
        n_cls = classes.size
        ecard = self._cards(cols)[2]
        sigma_e = mechs["edges"].sigma if "edges" in mechs else 0.0
        edge_tables = []
        for j in range(n_cls):
            tabs = []
            for e, ((a, b), T) in enumerate(zip(trees[j], raw_edges[j])):
                pa = self._coarsen(cols[a], probs[cols[a]][j], ecard[cols[a]])
                pb = self._coarsen(cols[b], probs[cols[b]][j], ecard[cols[b]])
                x = None if second is None or second[j][e] is None else second[j][e][0]
                if x is None:
                    tabs.append(fit_table(T, class_counts[j], pa, pb, self.smoothing * sigma_e,
                                           per_row=getattr(self, "edge_prior", "joint") == "row"))
                else:  # max_parents=2: a 3-way table (parent, second parent, child)
                    px = self._coarsen(cols[x], probs[cols[x]][j], T.shape[1])  # x on its 3-way cells
                    tabs.append(fit_table3(T, class_counts[j], pa, px, pb, self.smoothing * sigma_e,
                                            per_row=getattr(self, "edge_prior", "joint") == "row"))
            edge_tables.append(tabs)
        self.columns_ = cols
        self.numeric_columns_ = [c for c in cols if c in self.schema.bounds]
        self.n_features_in_ = len(cols)
        self.feature_names_in_ = np.asarray(cols, dtype=object)
        self.classes_ = classes
        self.class_counts_ = class_counts
        self.class_priors_ = class_counts / class_counts.sum()
        self.marginals_ = probs
        self.correlation_raw_ = corr_raw
        self.correlation_ = corr
        self.scores_raw_ = scores_raw
        self.tree_ = trees
        self.edge_tables_ = edge_tables
        self.edge_counts_ = raw_edges
        self.second_parents_ = [[None if second is None or s is None else int(s[0]) for s in second[j]]
                                if second is not None else [None] * len(trees[j]) for j in range(n_cls)]
        # histogram_tree: the released (noisy) coarse levels, column -> per class -> finest first
        self.histogram_tree_counts_ = tnodes or None
        self.sigmas_ = {name: m.sigma for name, m in mechs.items()}
        self.sensitivities_ = dict(sens)
        self.bin_edges_ = {c: self._edges(c) for c in self.numeric_columns_}
        self.geometric_columns_ = [c for c in self.numeric_columns_ if c in self._geometric_columns()]
        self.privacy_ = privacy

    def _check_fitted(self):
        if not hasattr(self, "privacy_"):
            from sklearn.exceptions import NotFittedError

            raise NotFittedError("this DPTreeCopula instance is not fitted yet; call fit(X, y) first")

    # ------------------------------------------------------------------ sample
    def sample(self, n_samples: int, random_state=None):
        """Draw synthetic records (post-processing of the released statistics; no budget).

        ``random_state``: ``None`` (default) the per-process secure stream; a seed replays only
        these samples (post-processing of the DP model: replaying them reveals nothing private).
        ``n_samples`` is refused before anything is allocated when the draw would need more than
        half the available memory (as :meth:`DPCopula.sample`); :meth:`sample_to_parquet` writes
        any size chunk by chunk.

        Returns
        -------
        X_syn : pandas.DataFrame
            Numeric values within the public bounds (the schema's integer columns rounded),
            categorical values from the public categories.
        y_syn : ndarray
            Only when fitted with labels.
        """
        self._check_fitted()
        if isinstance(n_samples, bool) or not isinstance(n_samples, Integral) or n_samples < 1:
            raise InvalidParameterError("n_samples", f"must be an integer >= 1, got {n_samples!r}")
        gen = public_randomness(random_state)  # post-processing of the released model
        n = int(n_samples)
        k = len(self.columns_)
        # refused before allocating (about 3 float64 arrays of n x (k + 1) at the peak)
        check_sample_memory(int(n_samples), k + 1, advice=TABLE_ADVICE)
        counts = largest_remainder(n, self.class_priors_)
        label = np.repeat(np.arange(self.classes_.size), counts)
        draws = sampling_draws(gen, n, k, self.correlation_.shape[-1] if self.correlation_.size else 0)
        fine, within = self._sample_codes(counts, draws)
        frame = self._decode(fine, within)
        perm = draws["permutation"]
        frame = frame.iloc[perm].reset_index(drop=True)
        if self.classes_.size == 1 and self.classes_[0] is None:
            return frame
        return frame, self.classes_[label[perm]]

    def _sample_codes(self, counts, draws):
        """Fine codes (n, k) and the position within the fine bin of every numeric value."""
        return sample_codes(counts, draws, columns=self.columns_, numeric=self.schema.bounds,
                            latent=self._latent(self.columns_),
                            ratio={c: self._bins() // self._edge_cells(c) for c in self.schema.bounds},
                            bins=self._bins(), correlation=self.correlation_, marginals=self.marginals_,
                            trees=self.tree_, edge_tables=self.edge_tables_,
                            second_parents=getattr(self, "second_parents_", None),
                            grids=self._atom_grids(self.columns_),
                            within_bins=getattr(self, "within_bins", "latent"))

    def sample_to_parquet(self, path, n_samples: int, *, chunk_rows: int = 250_000,
                          label_column: str = "y", random_state=None) -> list:
        """Write ``n_samples`` synthetic records as Parquet files under ``path``, one chunk of at
        most ``chunk_rows`` records per file, each chunk sampled and written by its own Dask task
        (on the current scheduler; never all records in memory: peak memory grows with
        ``chunk_rows`` times the number of worker threads, not with ``n_samples``).

        Post-processing of the released statistics: no budget is spent. The chunking and the
        seeds are those of :meth:`DPCopula.sample_to_parquet
        <matrixdp.synth.DPCopula.sample_to_parquet>` (``docs/tree_copula.md``, "Out of core").

        Parameters
        ----------
        path : str or path-like
            Output directory (created; existing ``part.*.parquet`` files are replaced).
        n_samples : int
        chunk_rows : int, default 250_000
            The records are split into ``ceil(n_samples / chunk_rows)`` chunks of sizes that
            differ by at most one, written as ``part.<i>.parquet`` (``i`` zero-padded).
        label_column : str, default "y"
            Name of the label column when the model was fitted with labels.
        random_state : None, int or numpy.random.Generator
            Each chunk samples from a child of one :class:`numpy.random.SeedSequence` (from the
            int, from a seed drawn from the Generator, or from OS entropy when ``None``); a
            seeded call is replayable by whoever knows the seed (replaying post-processing of
            the DP model reveals nothing private). The output depends on the seed, ``n_samples``
            and ``chunk_rows`` only, not on the scheduler or its number of workers.

        Returns
        -------
        files : list of str
            The written files, in order.

        References
        ----------
        .. [1] docs/tree_copula.md, "Out of core (Dask)".
        """
        self._check_fitted()
        from ._dask import write_sampled_frames

        return write_sampled_frames(self, path, n_samples, chunk_rows=chunk_rows,
                                    label_column=label_column, random_state=random_state)

    def _decode(self, fine, within):
        return decode_codes(fine, within, columns=self.columns_, schema=self.schema,
                            bin_edges=self.bin_edges_, geometric=getattr(self, "geometric_columns_", []),
                            bins=self._bins(), cells={c: g.cells for c, g in
                                                      self._atom_grids(self.columns_).items()})
