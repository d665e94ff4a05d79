"""RON-Gauss: differentially private synthetic data from a random orthonormal projection and a
Gaussian generative model (unsupervised, regression and classification).

The derivation, the corrections to the paper and the worst-case witnesses are in
``docs/ron_gauss.md``.
"""

from __future__ import annotations

import math
import warnings
from functools import partial
from numbers import Integral, Real

import numpy as np

from .._validation import (check_choice, check_epsilon, check_n_records, check_positive,
                           check_flag, check_probability)
from ..errors import (
    InvalidParameterError,
    InvalidShapeError,
    PrivacyLeakWarning,
    RefutedGuaranteeWarning,
    UnsafeMechanismError,
)
from ..accounting import charge, compose, parallel
from ..mechanisms import LaplaceMechanism, PrivacyGuarantee
from ..mechanisms.draw import public_randomness
from ..rng import make_rng
from ..mechanisms.lattice import check_numerics, exact_note
from ._dask import (dask_class_codes, dask_feature_matrix, dask_group_sums, fit_groups_dask,
                    is_dask_collection, sampled_array_chunk, write_parquet_samples)
from .labels import largest_remainder
from ._input import (as_feature_matrix, as_label_vector, checked_centred_labels,
                     classes_outside, label_range_text)
from .covariance import (
    NOISE_LAYOUTS,
    PSD_METHODS,
    aug_cov_sensitivity,
    cov_sensitivity,
    sample_gaussian,
)
from ._checks import check_sample_memory, warn_if_noise_dominated
from ._params import GeneratorParams
from .dfm import dfm_max_dim
from .group import GroupCalibration, fit_group
from .preprocessing import SENSITIVITY_MODES, normalize_rows, unit_row_pass
from .projection import PROJECTIONS, check_dims, ron_matrix

__all__ = ["RONGauss", "TASKS", "CLASS_WEIGHTS", "CLASS_SIZES", "RELATIONS", "DFM_WARNING_FACTOR",
           "DEFAULT_COUNTS_FRACTION", "split_budget"]

TASKS = ("unsupervised", "regression", "classification")
#: Neighbouring relations: "replace-one" (n public, the paper's) or "add-remove" (strict variant).
RELATIONS = ("replace-one", "add-remove")
#: How many synthetic records each class gets: "auto" ("dp" when class sizes are private,
#: "exact" when they are public), "dp" (the released DP class counts), "exact" (the true class
#: sizes: free when they are public, a leak (unsafe opt-in) when they are private), "uniform".
CLASS_WEIGHTS = ("auto", "dp", "exact", "uniform")
#: Classification: whether the class sizes are protected ("private": a neighbour may replace a
#: record by one with another label; every scale comes from public inputs and DP counts) or
#: assumed public ("public": neighbours keep the label, the paper's implicit model).
CLASS_SIZES = ("private", "public")
#: Share of ``epsilon`` spent on the DP counts when ``epsilon_counts`` is not given.
DEFAULT_COUNTS_FRACTION = 0.1
#: A warning is issued when ``dim`` exceeds this multiple of ``dfm_max_dim(n_features)``.
DFM_WARNING_FACTOR = 2


def split_budget(total: float, *, counts: float, mean_fraction: float) -> tuple[float, float, float]:
    """Split a total ε by basic sequential composition: ε = ε_n + ε_μ + ε_Σ (pure ε-DP).

    ``counts`` is ε_n (0 when no counts are released); the rest is split
    ``mean_fraction`` : (1 − ``mean_fraction``) between the mean and the second moment.
    Returns (ε_μ, ε_Σ, ε_n). The fitted guarantee composes the three pure-ε Laplace steps back
    with :mod:`matrixdp.accounting`'s basic composition (nothing tighter applies to pure ε).
    """
    rest = total - counts
    if not rest > 0:
        raise InvalidParameterError(
            "epsilon_counts", f"must be smaller than epsilon={total}, got {counts}")
    return mean_fraction * rest, (1.0 - mean_fraction) * rest, counts



class RONGauss(GeneratorParams):
    r"""Differentially private synthetic data with RON-Gauss (pure ε-DP).

    Records are normalised to unit norm, centred with an ε_μ-DP mean and
    re-normalised (Algorithm 1); a random orthonormal projection W ∈ R^{m×p}
    (Haar-distributed by default) maps them to R^p, where the second-moment
    matrix is released with Laplace noise (ε_Σ) and repaired to a symmetric
    PSD covariance; synthetic records are drawn from the Gaussian it defines.

    * ``task="unsupervised"`` (Algorithm 3): one zero-mean Gaussian in R^p.
    * ``task="regression"`` (Algorithm 4): the label, shifted by the centre of
      its public range and bounded by the public ``label_bound``, is appended
      to the projected features before the second moment is taken.
    * ``task="classification"`` (the library's fixed Algorithm 5): one shared
      projection, a PUBLIC class list, and per class a DP mean (ε_μ) and a DP
      second moment (ε_Σ) computed on that class's records only (parallel
      composition); each class is a Gaussian centred at :math:`W^\top\mu_c^{DP}`.

    Records are rows (the paper stores them as columns): ``X`` is
    (n_samples, n_features) and the projection is ``X @ projection_``.

    Parameters
    ----------
    dim : int
        Projected dimension p, 1 <= p < n_features. See
        :func:`~matrixdp.synth.dfm_max_dim` for guidance.
    epsilon : float, optional
        Total budget, split by basic composition (:func:`split_budget`) as
        ε_μ = ``mean_fraction``·(ε − ε_n) and ε_Σ = the rest, where ε_n =
        ``epsilon_counts`` when DP counts are released (classification with
        private class sizes, or ``neighbouring="add-remove"``) and 0 otherwise.
        Give either ``epsilon`` or both ``epsilon_mean`` and ``epsilon_cov``.
    mean_fraction : float, default 0.5
        Share of the budget spent on the DP mean, in (0, 1).
    epsilon_mean, epsilon_cov : float, optional
        Explicit budgets ε_μ and ε_Σ (instead of ``epsilon``).
    task : {"unsupervised", "regression", "classification"}
    label_bound : float or (float, float), optional
        Regression only, PUBLIC (never computed from the data): either a with
        y ∈ [−a, a], or a range (lo, hi), which is shifted to its centre and
        gives a = (hi − lo)/2. The centre is added back to synthetic labels.
    clip_labels : bool, default False
        Regression: clip labels into the bound instead of raising
        :class:`~matrixdp.errors.OutOfBoundsError`.
    label_mean : {"public", "dp"}, default "public"
        Regression: where synthetic labels are centred. "public" is the paper's
        Algorithm 4 (the centre of the public label range; no label statistic is
        released). "dp" also releases the labels' mean with the Laplace
        mechanism (sensitivity 2a/n, budget ``epsilon_label``, composed into
        ``privacy_``) and centres the synthetic labels there, so they keep the
        real labels' mean (replace-one neighbours).
    epsilon_label : float, optional
        Budget of the DP label mean (``label_mean="dp"``). Part of ``epsilon``;
        defaults to ``DEFAULT_COUNTS_FRACTION * epsilon``.
    classes : sequence, optional
        Classification: the PUBLIC list of classes (never read from y).
    class_weights : {"auto", "dp", "exact", "uniform"}, default "auto"
        Share of synthetic records per class (the class priors). "auto": "dp"
        when class sizes are private, "exact" when they are public, so the
        synthetic data keeps the real class balance. "dp" uses the released DP
        class counts (no extra budget: they are released anyway under private
        sizes; refused under public sizes, where they would protect nothing).
        "exact" uses the true class sizes: free under ``class_sizes="public"``;
        under private sizes it leaks them (needs ``allow_unsafe=True``, marked
        refuted). "uniform" gives every class the same share.
    class_sizes : {"private", "public"}, default "private"
        Classification only: the neighbouring relation's view of the class
        sizes. "private": a neighbour replaces one record by any other (its
        label may change), so the class sizes are protected: RON-Gauss releases
        DP class counts (ε_n), DP class sums and DP class scatters and divides
        them (post-processing); no noise scale or fitted attribute depends on
        the true sizes. "public": neighbours keep the label and the class sizes
        are public (the paper's implicit model, docs/ron_gauss.md); scales use
        the true n_c and "exact" class weights are not a leak. With
        ``neighbouring="add-remove"`` class sizes are always private.
    epsilon_counts : float, optional
        Budget of the DP counts (class counts under private class sizes; the
        record or per-class counts that ``neighbouring="add-remove"`` needs).
        Part of ``epsilon``; defaults to ``DEFAULT_COUNTS_FRACTION * epsilon``
        when counts are needed and ``epsilon`` is given.
    neighbouring : {"replace-one", "add-remove"}, default "replace-one"
        "replace-one" is the paper's bounded DP (n public; for classification see
        ``class_sizes``).
        "add-remove" is the strict variant (docs/ron_gauss.md): DP counts, DP
        sums and DP scatters, divided as post-processing; nothing about n or the
        class sizes is assumed public, and a record's label is protected too.
        Needs the corrected sensitivities.
    sensitivity : {"corrected", "paper", "reference_code"}, default "corrected"
        "corrected" uses the sound sensitivities. "paper" uses the paper's
        Lemma 4/5 covariance sensitivity (too small for p >= 3: the guarantee is
        then marked refuted); "reference_code" also halves the mean's noise as
        the official code does (always refuted). Both need ``allow_unsafe=True``.
    noise : {"full", "triu"}, default "full"
        Laplace noise on all entries of the second moment (the paper's
        mechanism, then symmetrised) or on the upper triangle, mirrored.
    psd : {"clip", "abs", "shift", "numpy_legacy"}, default "clip"
        How the noisy matrix is made symmetric PSD (post-processing).
    projection : {"haar", "paper_uniform_qr_columns", "code_uniform_qr_rows"}, default "haar"
    reconstruct : bool, default False
        Return synthetic features in R^m (``Z @ W.T``) instead of R^p.
    allow_unsafe : bool, default False
        Opt in to the unsafe reproduction modes.
    numerics : {"float", "exact"}, default "float"
        ``"exact"``: every Laplace step (mean, second moment, counts) rounds its value
        to a public lattice and adds exact discrete Laplace noise (floating-point
        safe; see ``docs/numerics.md``). ``"float"``: textbook floating-point
        Laplace, whose guarantee assumes idealised real arithmetic.
    random_state : None, int or numpy.random.Generator
        Randomness of :meth:`fit` (the projection and the noise). ``None``
        (default) draws from the per-process cryptographically secure stream.
        An int (or a Generator) makes the fit reproducible, and so replayable:
        anyone who knows the seed can regenerate the noise and subtract it. An
        int is kept on the model (scikit-learn convention), so a saved seeded
        model is replayable by its reader; use seeds for tests and experiments
        only. A Generator passed here is not saved with the model (pickling,
        ``copy.deepcopy`` and ``joblib.dump`` store ``random_state=None``),
        because its state would replay the fit.
    accountant : Accountant or Ledger, optional
        The budget keeper charged with the whole fit's guarantee before any noise is drawn
        (the keyword every matrixdp estimator takes; ``fit(..., accountant=, ledger=)``
        overrides it). Default: the keepers of the enclosing ``with`` blocks, if any.

    Notes
    -----
    No generator that drew released noise is kept on the fitted model. With an
    int ``random_state``, :meth:`sample` continues a separate sampling stream
    derived from the seed (it never drew released noise); otherwise it draws
    from the per-process secure stream unless ``rng=`` is given.

    Attributes
    ----------
    projection_ : ndarray of shape (n_features, dim)
        W (data-independent, public).
    mean_ : ndarray of shape (n_features,) or (n_classes, n_features)
        The DP mean(s) of the normalised records.
    covariance_ : ndarray of shape (d, d) or (n_classes, dim, dim)
        The released symmetric PSD covariance; d = dim (+1 for regression,
        whose last row/column is the shifted label).
    covariance_raw_ : ndarray
        The noisy matrix before the symmetric/PSD repair (for audit).
    privacy_ : PrivacyGuarantee
        The composed guarantee ε_μ + ε_Σ (+ ε_n), with its neighbouring relation.
    epsilon_mean_, epsilon_cov_, epsilon_counts_ : float
    mean_scale_, cov_scale_ : float or ndarray
        Laplace scales used (per class for classification; with private class
        sizes, the scale on the sums divided by the released DP count).
    mean_sensitivity_, cov_sensitivity_ : float or ndarray
        Sensitivities of the statistic the noise was added to (public).
    classes_, class_weights_, class_means_ : ndarray
        Classification only; ``class_means_`` are the projected means W^T μ_c.
    class_counts_ : ndarray
        Released DP class counts (private class sizes, or add-remove).
    class_sizes_ : str
        Classification: "private" or "public", the relation the fit used.
    class_priors_ : str
        Classification: the class priors used ("dp", "exact" or "uniform";
        ``class_weights="auto"`` resolved).
    n_records_ : float
        Released DP record count (add-remove, unsupervised/regression).
    label_shift_, label_bound_ : float
        Regression only.
    label_mean_ : float
        Regression with ``label_mean="dp"``: the released DP mean of the labels
        (in the labels' units), where synthetic labels are centred.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when fitted on a DataFrame.

    References
    ----------
    .. [1] T. Chanyaswad, C. Liu, P. Mittal, "RON-Gauss: Enhancing Utility in
       Non-Interactive Private Data Release", PoPETs 2019(1):26-46,
       doi:10.2478/popets-2019-0003.
    .. [2] docs/ron_gauss.md (derivations and corrections).
    """

    def __init__(self, *, dim, epsilon=None, mean_fraction=0.5, epsilon_mean=None, epsilon_cov=None,
                 task="unsupervised", label_bound=None, clip_labels=False, label_mean="public",
                 epsilon_label=None, classes=None,
                 class_weights="auto", class_sizes="private", epsilon_counts=None,
                 neighbouring="replace-one",
                 sensitivity="corrected",
                 noise="full", psd="clip", projection="haar", reconstruct=False,
                 allow_unsafe=False, numerics="float", random_state=None, accountant=None):
        self.dim = dim
        self.epsilon = epsilon
        self.mean_fraction = mean_fraction
        self.epsilon_mean = epsilon_mean
        self.epsilon_cov = epsilon_cov
        self.task = task
        self.label_bound = label_bound
        self.clip_labels = clip_labels
        self.label_mean = label_mean
        self.epsilon_label = epsilon_label
        self.classes = classes
        self.class_weights = class_weights
        self.class_sizes = class_sizes
        self.epsilon_counts = epsilon_counts
        self.neighbouring = neighbouring
        self.sensitivity = sensitivity
        self.noise = noise
        self.psd = psd
        self.projection = projection
        self.reconstruct = reconstruct
        self.allow_unsafe = allow_unsafe
        self.numerics = numerics
        self.random_state = random_state
        self.accountant = accountant

    def _check_params(self) -> None:
        check_numerics(self.numerics)
        if self.label_mean not in ("public", "dp"):
            raise InvalidParameterError(
                "label_mean", f"must be 'public' or 'dp', got {self.label_mean!r}")
        if self.label_mean == "dp" and (self.task != "regression"
                                        or self.neighbouring != "replace-one"):
            raise InvalidParameterError(
                "label_mean", "'dp' is for task='regression' with replace-one neighbours")
        if self.epsilon_label is not None and self.label_mean != "dp":
            raise InvalidParameterError("epsilon_label", "is only used with label_mean='dp'")
        check_choice(self.task, TASKS, "task")
        check_choice(self.sensitivity, SENSITIVITY_MODES, "sensitivity")
        check_choice(self.noise, NOISE_LAYOUTS, "noise")
        check_choice(self.psd, PSD_METHODS, "psd")
        if self.projection not in PROJECTIONS[:3]:
            raise InvalidParameterError(
                "projection", f"must be one of {PROJECTIONS[:3]}, got {self.projection!r}")
        check_choice(self.class_weights, CLASS_WEIGHTS, "class_weights")
        check_choice(self.class_sizes, CLASS_SIZES, "class_sizes")
        if self.task == "classification":
            self._check_class_params()
        if isinstance(self.dim, bool) or not isinstance(self.dim, Integral) or self.dim < 1:
            raise InvalidParameterError("dim", f"must be an integer >= 1, got {self.dim!r}")
        check_choice(self.neighbouring, RELATIONS, "neighbouring")
        if self.neighbouring == "add-remove":
            if self.sensitivity != "corrected":
                raise InvalidParameterError(
                    "sensitivity", "the paper's calibration exists only for replace-one neighbours")
            if self.noise != "full":
                raise InvalidParameterError("noise", "add-remove uses noise='full'")
        if self.sensitivity != "corrected" and self.noise == "triu":
            raise InvalidParameterError("noise", "the paper's sensitivity has no 'triu' variant")
        if self.sensitivity != "corrected" and not self.allow_unsafe:
            raise UnsafeMechanismError(
                f"sensitivity={self.sensitivity!r} reproduces a calibration that is NOT private in "
                "general: the paper's Lemma 4/5 covariance sensitivity 2*sqrt(p)/n is exceeded for "
                "p >= 3 (the true value is up to sqrt(2)*p/n; only p <= 2 is covered)"
                + (" and the reference code's mean noise is half of Lemma 2" if
                   self.sensitivity == "reference_code" else "")
                + ". Pass allow_unsafe=True to reproduce it anyway; the guarantee is marked refuted.")
        if (self.task == "classification" and self._class_weight_mode() == "exact"
                and self._sizes_private() and not self.allow_unsafe):
            raise UnsafeMechanismError(
                "class_weights='exact' releases the exact class sizes through the synthetic "
                "sample, and they are private under this relation; use 'dp' (the default) or "
                "'uniform', declare them public with class_sizes='public', or pass "
                "allow_unsafe=True")

    def _check_class_params(self) -> None:
        if self.class_sizes == "public" and self.neighbouring == "add-remove":
            raise InvalidParameterError(
                "class_sizes", "add/remove neighbours never treat the class sizes as public; "
                               "use class_sizes='private' or neighbouring='replace-one'")
        if self.class_sizes == "public" and self.class_weights == "dp":
            raise InvalidParameterError(
                "class_weights", "class_sizes='public' treats the class sizes as public, so DP "
                                 "counts would protect nothing: use 'exact' (or 'auto') or 'uniform'")
        if self._sizes_private() and self.neighbouring == "replace-one":
            if self.sensitivity != "corrected":
                raise InvalidParameterError(
                    "sensitivity", "the paper's calibration scales by the true class sizes, which "
                                   "are private under class_sizes='private'; pass "
                                   "class_sizes='public' to reproduce it")
            if self.noise != "full":
                raise InvalidParameterError(
                    "noise", "class_sizes='private' uses noise='full' (DP class scatters)")

    def _sizes_private(self) -> bool:
        """Whether the class sizes are protected (classification) or n is not public (add-remove)."""
        return self.neighbouring == "add-remove" or (
            self.task == "classification" and self.class_sizes == "private")

    def _class_weight_mode(self) -> str:
        if self.class_weights != "auto":
            return self.class_weights
        return "dp" if self._sizes_private() else "exact"

    def _label_budget(self) -> float:
        """ε of the DP label mean (0 unless ``label_mean="dp"``)."""
        if self.label_mean != "dp":
            return 0.0
        if self.epsilon_label is not None:
            return check_epsilon(self.epsilon_label, "epsilon_label")
        if self.epsilon is None:
            raise InvalidParameterError(
                "epsilon_label", "is required with epsilon_mean and epsilon_cov when "
                                 "label_mean='dp'")
        return DEFAULT_COUNTS_FRACTION * check_epsilon(self.epsilon, "epsilon")

    def _budgets(self) -> tuple[float, float, float]:
        eps_counts = 0.0
        needs_counts = self._sizes_private()
        if needs_counts:
            if self.epsilon_counts is not None:
                eps_counts = check_epsilon(self.epsilon_counts, "epsilon_counts")
            elif self.epsilon is not None:
                eps_counts = DEFAULT_COUNTS_FRACTION * check_epsilon(self.epsilon, "epsilon")
            else:
                raise InvalidParameterError(
                    "epsilon_counts", "is required with epsilon_mean and epsilon_cov when DP counts "
                                      "are released (class_sizes='private' or "
                                      "neighbouring='add-remove')")
        elif self.epsilon_counts is not None:
            raise InvalidParameterError(
                "epsilon_counts", "is only used when DP counts are released (classification with "
                                  "class_sizes='private', or neighbouring='add-remove')")
        if self.epsilon is not None:
            if self.epsilon_mean is not None or self.epsilon_cov is not None:
                raise InvalidParameterError(
                    "epsilon", "give either epsilon (with mean_fraction) or epsilon_mean and "
                               "epsilon_cov, not both")
            total = check_epsilon(self.epsilon, "epsilon") - self._label_budget()
            if not total > 0:
                raise InvalidParameterError(
                    "epsilon_label", f"must be smaller than epsilon={self.epsilon}")
            frac = check_probability(self.mean_fraction, "mean_fraction")
            return split_budget(total, counts=eps_counts, mean_fraction=frac)
        if self.epsilon_mean is None or self.epsilon_cov is None:
            raise InvalidParameterError(
                "epsilon", "give epsilon (total budget) or both epsilon_mean and epsilon_cov")
        return (check_epsilon(self.epsilon_mean, "epsilon_mean"),
                check_epsilon(self.epsilon_cov, "epsilon_cov"), eps_counts)

    def _label_range(self) -> tuple[float, float]:
        """(shift, a) from the public label bound."""
        bound = self.label_bound
        if bound is None:
            raise InvalidParameterError(
                "label_bound", "regression needs a PUBLIC label bound a (labels in [-a, a]) or a "
                               "range (lo, hi); it must not be computed from the data")
        if isinstance(bound, (Real, np.floating, np.integer)) and not isinstance(bound, bool):
            return 0.0, check_positive(bound, "label_bound")
        try:
            lo, hi = (float(v) for v in bound)
        except (TypeError, ValueError):
            raise InvalidParameterError(
                "label_bound", f"must be a number a > 0 or a pair (lo, hi), got {bound!r}") from None
        if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
            raise InvalidParameterError("label_bound", f"needs finite lo < hi, got {bound!r}")
        return (lo + hi) / 2.0, (hi - lo) / 2.0

    # ------------------------------------------------------------------- fit
    def fit(self, X, y=None, *, accountant=None, ledger=None) -> "RONGauss":
        """Fit the DP generative model.

        Parameters
        ----------
        X : array_like, pandas.DataFrame, dask.array.Array or dask.dataframe.DataFrame
            Finite numeric features (DataFrames: numeric columns only), shape
            (n_samples, n_features). A Dask collection is fitted block by block
            without collecting it (every task, both relations, both class-size
            models): a fit in **passes**, because a group's DP mean must be
            released before its records can be centred. Pass 1 checks and sums
            the normalised records (per class for classification); then, per
            group (one, or one per public class) in the in-memory order, the DP
            mean (and count) is released on the driver and one pass sums the
            centred, re-normalised, projected second moments, whose noise is
            drawn on the driver: two passes, or 1 + k for k classes. Same seed,
            same release and same guarantee as in memory up to summation order
            (``docs/scaling.md``).
        y : array_like of shape (n_samples,), optional
            Labels: required for "regression" (within the public bound) and
            "classification" (each in the public ``classes``); ignored otherwise.
            With a Dask ``X``: a Dask array, Series or one-column frame
            partitioned like ``X`` (e.g. a column of the same frame).
        accountant, ledger : optional
            Budget keepers (:mod:`matrixdp.accounting`) charged with the whole fit's guarantee
            before any noise is drawn (default: those of an enclosing ``with`` block).

        Returns
        -------
        self
        """
        self._check_params()
        eps_mean, eps_cov, eps_counts = self._budgets()
        for attribute in [k for k in vars(self) if k.endswith("_") and not k.startswith("__")]:
            delattr(self, attribute)  # no stale attributes from an earlier fit
        dask_input = is_dask_collection(X)
        shift, a = self._label_range() if self.task == "regression" else (0.0, None)
        classes = self._public_classes() if self.task == "classification" else None
        if dask_input:  # the records (and labels) are checked block by block, in pass 1
            if self.task != "unsupervised" and y is None:
                raise InvalidParameterError("y", f"is required for task={self.task!r}")
            target = (None if self.task == "unsupervised" else
                      y if self.task == "regression" else dask_class_codes(y, classes))
            X_arr, names = dask_feature_matrix(X, target)
            m = X_arr.shape[1] - (0 if target is None else 1)
        else:
            # finiteness is checked in the first blocked pass, before the budget is charged
            X_arr, names = as_feature_matrix(X, finite=False, relation=self.neighbouring)
            n, m = X_arr.shape
        p = check_dims(m, self.dim)[1]

        y_arr = None  # in memory: the checked, centred labels, or the class labels
        if self.task == "regression" and not dask_input:
            y_arr = checked_centred_labels(as_label_vector(y, n, numeric=True) - shift, shift,
                                           a, self.clip_labels)
        elif self.task == "classification" and not dask_input:
            y_arr = as_label_vector(y, n, numeric=False)
            self._check_classes(y_arr, classes)
        elif self.task == "unsupervised" and y is not None:
            warnings.warn("y is ignored with task='unsupervised'; pass task='regression' or "
                          "'classification' to synthesise labels", UserWarning, stacklevel=2)
        if dask_input:
            # pass 1 reads, checks (as the in-memory checks above) and sums every record into its
            # group, before the budget is charged and before any noise (docs/scaling.md)
            sums = dask_group_sums(X_arr, m, n_groups=None if classes is None else classes.size,
                                   label_shift=shift, label_bound=a, clip_labels=self.clip_labels)
            n = int(round(sums[:, 0].sum()))
            check_n_records(n, self.neighbouring, "X", "has no samples")
            sizes = sums[:, 0]
            # read only by label_mean="dp" (replace-one, n >= 1); add-remove may have n = 0
            label_mean = sums[0, m + 1] / n if self.task == "regression" and n else None
        elif classes is not None:
            sizes = np.array([np.count_nonzero(y_arr == c) for c in classes])
        if classes is not None:
            self._check_class_sizes(sizes, classes)
        self._warn_dfm(m, p)

        gen = make_rng(self.random_state)
        W = ron_matrix(m, p, gen, self.projection)
        self.n_features_in_ = m
        if names is not None:
            self.feature_names_in_ = names
        self.projection_ = W
        self.epsilon_mean_, self.epsilon_cov_, self.epsilon_counts_ = eps_mean, eps_cov, eps_counts
        self.epsilon_label_ = self._label_budget()
        if self.task == "regression":
            self.label_shift_, self.label_bound_ = shift, a
        privacy = self._guarantee(p)  # known before any noise: charged first

        cal = GroupCalibration(epsilon_mean=eps_mean, epsilon_cov=eps_cov, epsilon_counts=eps_counts,
                               relation=self.neighbouring, sizes_private=self._sizes_private(),
                               label_bound=a, mode=self.sensitivity, noise=self.noise,
                               psd=self.psd, numerics=self.numerics)
        if accountant is None and ledger is None:
            accountant = self.accountant
        # in memory: each group's first blocked pass (norms, sum of unit rows, X @ W) also checks
        # that the records are finite; it runs before the charge, so bad input costs nothing
        stats = None if dask_input else self._memory_passes(X_arr, y_arr, W, classes)
        with charge(privacy, accountant=accountant, ledger=ledger, label="ron-gauss fit"):
            if dask_input:  # then one pass per group (docs/scaling.md)
                fits = fit_groups_dask(X_arr, m, W, cal, sums, classified=classes is not None,
                                       label_shift=shift, clip_labels=self.clip_labels, rng=gen)
            else:
                fits, label_mean = self._memory_groups(X_arr, y_arr, W, cal, classes, gen, stats)
            if classes is not None:
                self._set_classes(fits, sizes, classes, W)
            else:
                fit = fits[0]
                self.mean_ = fit.mean
                self.covariance_raw_ = fit.covariance_raw
                self.covariance_ = fit.covariance
                self.mean_scale_, self.cov_scale_ = fit.mean_scale, fit.cov_scale
                self.mean_sensitivity_ = fit.mean_sensitivity
                self.cov_sensitivity_ = fit.cov_sensitivity
                if self.neighbouring == "add-remove":
                    self.n_records_ = fit.count
                if self.epsilon_label_ > 0:
                    # labels clipped into [-a, a] around the public centre: replacing one record
                    # moves their mean by at most 2a/n (n public under replace-one)
                    label_mech = LaplaceMechanism(epsilon=self.epsilon_label_,
                                                  sensitivity=2.0 * a / n, numerics=self.numerics)
                    released = label_mech.release(float(label_mean), rng=gen)
                    self.label_mean_ = shift + float(released.value)

        self.privacy_ = privacy
        warn_if_noise_dominated(self.covariance_, None if self.task != "classification"
                                else [str(c) for c in self.classes_])
        if self.privacy_.refuted:
            warnings.warn(f"RONGauss: {self.privacy_} is REFUTED; this model is not differentially "
                          "private as claimed (unsafe reproduction mode)", RefutedGuaranteeWarning,
                          stacklevel=2)
        # Never keep ``gen``: its state would let a holder of the model rewind it and replay the
        # noise. Samples come from a stream that drew no released noise (see ``sample``).
        self._sampling_rng = _sampling_stream(self.random_state)
        return self

    def _bound_text(self) -> str:
        return label_range_text(*self._label_range())

    def _public_classes(self) -> np.ndarray:
        if self.classes is None:
            raise InvalidParameterError(
                "classes", "classification needs the PUBLIC list of classes (reading it from y "
                           "would reveal which labels occur)")
        classes = np.asarray(list(self.classes))
        if classes.ndim != 1 or classes.size < 1:
            raise InvalidParameterError("classes", "must be a non-empty 1-D sequence")
        if np.unique(classes).size != classes.size:
            raise InvalidParameterError("classes", "contains duplicates")
        return classes

    @staticmethod
    def _check_classes(y: np.ndarray, classes: np.ndarray) -> None:
        if not np.isin(y, classes).all():
            raise InvalidParameterError("y", classes_outside(classes))

    def _warn_dfm(self, m: int, p: int) -> None:
        if m <= 10:
            return
        guide = dfm_max_dim(m)
        if p > DFM_WARNING_FACTOR * guide:
            warnings.warn(
                f"dim={p} is far above the DFM guidance dfm_max_dim({m}) = {guide}: the projected "
                "data may be far from Gaussian and the noise grows with dim", UserWarning,
                stacklevel=3)

    @staticmethod
    def _memory_passes(X, y, W, classes) -> list:
        """Each group's first blocked pass (``unit_row_pass``, finiteness checked): no noise."""
        if classes is None:
            return [unit_row_pass(X, W, check_finite=True)]
        return [unit_row_pass(X[y == c], W, check_finite=True) for c in classes]

    def _memory_groups(self, X, y, W, cal, classes, gen, stats):
        """Release the groups of an in-memory table: (fits, label mean or None).

        ``y``: the checked, centred labels (regression) or the class labels (classification);
        ``stats``: the groups' first passes (:meth:`_memory_passes`).
        """
        if classes is None:
            labels = y if self.task == "regression" else None
            return ([fit_group(cal, X, W, labels=labels, rng=gen, stats=stats[0])],
                    # read only by label_mean="dp" (replace-one, n >= 1); add-remove: n may be 0
                    None if labels is None or labels.size == 0 else float(np.mean(labels)))
        # one pass per public class, vectorised inside; each class's mean, then its second moment
        return [fit_group(cal, X[y == c], W, rng=gen, stats=s)
                for c, s in zip(classes, stats)], None

    def _check_class_sizes(self, sizes, classes) -> None:
        """With public class sizes every class needs a record (checked before any noise)."""
        if self._sizes_private():
            return
        for c, size in zip(classes, sizes):
            if size == 0:
                raise InvalidParameterError(
                    "y", f"class {c!r} of the public class list has no records; with public class "
                         "sizes RON-Gauss needs at least one per class (class_sizes='private' "
                         "handles empty classes)")

    def _set_classes(self, fits, sizes, classes, W) -> None:
        """The fitted attributes of a classification fit, from each class's releases (in the
        public class order) and the exact class sizes (used only by "exact" class weights)."""
        private = self._sizes_private()
        k = classes.size
        if private:
            self.class_counts_ = np.array([f.count for f in fits])
        mode = self._class_weight_mode()
        if mode == "uniform":
            weights = np.full(k, 1.0 / k)
        elif mode == "exact":
            if private:
                warnings.warn("class_weights='exact' releases the exact class sizes, which are "
                              "private under this relation", PrivacyLeakWarning, stacklevel=3)
            sizes = np.asarray(sizes, dtype=np.float64)
            weights = sizes / sizes.sum()
        else:  # the DP counts released above: post-processing, no extra budget
            noisy = np.clip(self.class_counts_, 0.0, None)
            weights = noisy / noisy.sum() if noisy.sum() > 0 else np.full(k, 1.0 / k)
        self.class_sizes_ = "private" if private else "public"
        self.class_priors_ = mode
        self.classes_ = classes
        self.class_weights_ = weights
        self.mean_ = np.stack([f.mean for f in fits])
        self.class_means_ = self.mean_ @ W
        self.covariance_raw_ = np.stack([f.covariance_raw for f in fits])
        self.covariance_ = np.stack([f.covariance for f in fits])
        self.mean_scale_ = np.array([f.mean_scale for f in fits])
        self.cov_scale_ = np.array([f.cov_scale for f in fits])
        self.mean_sensitivity_ = np.array([f.mean_sensitivity for f in fits])
        self.cov_sensitivity_ = np.array([f.cov_sensitivity for f in fits])

    def _composed_epsilon(self) -> float:
        """ε_μ + ε_Σ (+ counts) through the accountant's compositions (basic, exact for these
        pure-ε Laplace steps): sequential within a group, then across the public classes."""

        def step(eps, what):
            return PrivacyGuarantee(epsilon=eps, delta=0.0, neighbouring=self.neighbouring,
                                    calibration="laplace", mechanism=f"ron-gauss {what}")

        group = [step(self.epsilon_mean_, "mean"), step(self.epsilon_cov_, "second moment")]
        if self.epsilon_label_ > 0:
            group.append(step(self.epsilon_label_, "label mean"))
        if self._sizes_private():
            group.append(step(self.epsilon_counts_, "count(s)"))
        part = compose(group, method="basic")
        if self.task != "classification":
            return part.epsilon
        if self._sizes_private() and self.neighbouring == "replace-one":
            # A replaced record may leave one class and join another: each group is calibrated
            # with doubled add/remove sensitivities (half its epsilon per added or removed
            # record), and the two groups it touches compose sequentially. (A replacement
            # within one class moves one group by at most the doubled sensitivity: the same.)
            half = step(part.epsilon / 2.0, "group (one record added or removed)")
            return compose([half, half], method="basic").epsilon
        # Disjoint records per public class, and a neighbour touches one class (add/remove, or
        # replace-one with public class sizes: same-label neighbours).
        return parallel([part] * len(self._public_classes()), partition_public=True).epsilon

    def _guarantee(self, p: int) -> PrivacyGuarantee:
        total = self._composed_epsilon()
        add_remove = self.neighbouring == "add-remove"
        classification = self.task == "classification"
        if self._sizes_private():
            factor = 1 if add_remove else 2
            what = "count(s)" if add_remove else "class counts"
            parts = (f"epsilon_counts={self.epsilon_counts_:.6g} (DP {what}, Laplace, sensitivity "
                     f"{factor}) + epsilon_mean={self.epsilon_mean_:.6g} (DP sum(s) of unit rows, "
                     f"Laplace, sensitivity {'' if factor == 1 else '2*'}sqrt(m)) + "
                     f"epsilon_cov={self.epsilon_cov_:.6g} (DP scatter(s), Laplace, sensitivity "
                     f"{'' if factor == 1 else '2*'}{'p' if self.task != 'regression' else '(sqrt(p)+a)^2'}"
                     "); means and second moments are ratios of released values (post-processing)")
            notes = [f"basic sequential composition: {parts}"]
            if add_remove:
                notes.append("add/remove neighbours: n and the class sizes are not assumed public")
            else:
                notes.append("n (the number of records) is public (bounded DP, as in the paper)")
        else:
            notes = [f"basic sequential composition: epsilon_mean={self.epsilon_mean_:.6g} (DP mean, "
                     f"Laplace) + epsilon_cov={self.epsilon_cov_:.6g} (DP second moment, Laplace)",
                     "n (the number of records) is public (bounded DP, as in the paper)"]
        if self.epsilon_label_ > 0:
            notes.append(f"+ epsilon_label={self.epsilon_label_:.6g} (DP mean of the clipped labels, "
                         "Laplace, sensitivity 2a/n): synthetic labels are centred at it")
        notes.append("the projection W is data-independent; sampling is post-processing")
        if self.numerics == "exact":
            notes.insert(0, exact_note("every Laplace step uses the lattice discrete Laplace, "
                                       "its lattice chosen from that step's public sensitivity"))
        refuted = False
        if classification:
            if add_remove:
                notes.append("classification: per-class statistics on disjoint records compose in "
                             "parallel; the public class list is used (add/remove neighbours; docs/ron_gauss.md)")
            elif self._sizes_private():
                notes.append("classification, class sizes PRIVATE: a neighbour replaces one record by "
                             "any other, whose label may differ; the sensitivities above cover the "
                             "record leaving one class and entering another, so the class sizes are "
                             "protected: every noise scale and fitted attribute comes from public "
                             "inputs and the DP counts; the public class list is used")
            else:
                notes.append("classification, class sizes PUBLIC: neighbours replace one record by "
                             "another WITH THE SAME LABEL; the class sizes are public under this "
                             "relation and NOT protected (scales use them); the public class list "
                             "is used (docs/ron_gauss.md); per-class statistics compose "
                             "in parallel")
            mode = self._class_weight_mode()
            notes.append(f"class priors: {mode}" + {
                "dp": " (the released DP class counts, post-processing)",
                "exact": " (the true class sizes)", "uniform": " (equal shares)"}[mode])
            if mode == "exact" and self._sizes_private():
                refuted = True
                notes.append("class_weights='exact': the exact class sizes are released through "
                             "the synthetic sample and are NOT protected")
        if self.task == "regression":
            notes.append(f"labels bounded by the public range {self._bound_text()}")
        if self.sensitivity == "reference_code":
            refuted = True
            notes.append("UNSAFE: the mean's Laplace noise is half of Lemma 2 (reference code); "
                         "the mean step is only 2*epsilon_mean-DP")
        if self.sensitivity in ("paper", "reference_code"):
            # ratio of the sound (corrected) sensitivity to the paper's Lemma 4/5 value; n cancels
            if self.task == "regression":
                ratio = (aug_cov_sensitivity(p, self.label_bound_, 1, "corrected")
                         / aug_cov_sensitivity(p, self.label_bound_, 1, "paper"))
            else:
                ratio = cov_sensitivity(p, 1, "corrected") / cov_sensitivity(p, 1, "paper")
            if p >= 3:
                refuted = True
                notes.append(f"UNSAFE: the paper's covariance sensitivity (Lemma 4/5, 2*sqrt(p)/n in "
                             f"the feature block) is exceeded for p={p} >= 3 (the feature block's "
                             f"true sensitivity is up to sqrt(2)*p/n); the covariance step is only "
                             f"guaranteed to be {ratio:.4g}*epsilon_cov-DP (sound/paper "
                             "sensitivity), and even p attains sqrt(p/2) in the feature block")
            else:
                notes.append(f"sensitivity='paper' at p={p} <= 2: the paper's Lemma 4/5 value is at "
                             f"least the sound one (2*sqrt(p) >= sqrt(2)*p, equal at p=2; ratio "
                             f"{ratio:.4g}), so the covariance step IS epsilon_cov-DP; the mode still "
                             "needs allow_unsafe=True because it exists for reproduction only")
        return PrivacyGuarantee(epsilon=total, delta=0.0, neighbouring=self.neighbouring,
                                calibration="laplace", exact=False, mechanism="ron-gauss",
                                refuted=refuted, notes=tuple(notes))

    # --------------------------------------------------------------- outputs
    @property
    def privacy_valid_(self) -> bool:
        """False when the reported guarantee is known not to hold."""
        self._check_fitted()
        return not self.privacy_.refuted

    @property
    def epsilon_total_(self) -> float:
        self._check_fitted()
        return self.privacy_.epsilon

    def _check_fitted(self) -> None:
        if not hasattr(self, "privacy_"):
            from sklearn.exceptions import NotFittedError

            raise NotFittedError("this RONGauss instance is not fitted yet; call fit(X, y) first")

    def sample(self, n_samples: int, rng=None, *, add_mean: bool = False, random_state=None):
        r"""Draw synthetic records from the fitted DP model (post-processing, no budget).

        Parameters
        ----------
        n_samples : int
            Number of synthetic records (any positive number).
        rng : None, int or numpy.random.Generator
            Randomness of the synthetic records (post-processing: a seed here
            replays only these samples, not the fit's noise). ``None``: with an
            int ``random_state``, a sampling stream derived from that seed
            (reproducible; it never drew released noise); otherwise the
            per-process secure stream.
        add_mean : bool, default False
            Unsupervised and regression only (spec I6; the reference code's
            ``centering=False``): add the DP mean to the synthetic features, as
            :math:`W^\top\mu^{DP}` in the projected space or :math:`\mu^{DP}`
            with ``reconstruct=True``. Post-processing of released quantities.
            The default keeps the paper's zero-mean model, whose space
            :meth:`transform` maps real data into. Classification samples are
            already centred at the class means.
        random_state : None, int or numpy.random.Generator
            The same as ``rng``, under the name :meth:`DPCopula.sample
            <matrixdp.synth.DPCopula.sample>` and :meth:`DPTreeCopula.sample
            <matrixdp.synth.DPTreeCopula.sample>` use; give one of the two.

        Returns
        -------
        X_syn : ndarray of shape (n_samples, dim), or (n_samples, n_features) with ``reconstruct``
        y_syn : ndarray of shape (n_samples,)
            Only for "regression" (real-valued, in the original label units) and
            "classification" (values from ``classes``).
        """
        self._check_fitted()
        if isinstance(n_samples, bool) or not isinstance(n_samples, Integral) or n_samples < 1:
            raise InvalidParameterError("n_samples", f"must be an integer >= 1, got {n_samples!r}")
        if random_state is not None:
            if rng is not None:
                raise InvalidParameterError("random_state", "give rng or random_state, not both")
            rng = random_state
        check_flag(add_mean, "add_mean")
        if add_mean and self.task == "classification":
            raise InvalidParameterError(
                "add_mean", "classification samples are already centred at the DP class means")
        if rng is None and getattr(self, "_sampling_rng", None) is not None:
            gen = self._sampling_rng
        else:
            gen = make_rng(rng)
        gen = public_randomness(gen)  # sampling from the released model: post-processing
        W = self.projection_
        p = W.shape[1]
        check_sample_memory(n_samples, W.shape[0] + p + 1)
        if self.task == "unsupervised":
            X_syn = self._maybe_reconstruct(sample_gaussian(np.zeros(p), self.covariance_, n_samples, gen))
            return self._with_mean(X_syn) if add_mean else X_syn
        if self.task == "regression":
            Z = sample_gaussian(np.zeros(p + 1), self.covariance_, n_samples, gen)
            X_syn = self._maybe_reconstruct(Z[:, :p])
            centre = getattr(self, "label_mean_", self.label_shift_)
            return (self._with_mean(X_syn) if add_mean else X_syn), Z[:, p] + centre
        counts = largest_remainder(n_samples, self.class_weights_)
        parts = [sample_gaussian(self.class_means_[j], self.covariance_[j], counts[j], gen)
                 for j in range(counts.size)]
        X_syn = np.vstack(parts)
        y_syn = np.repeat(self.classes_, counts)
        order = gen.shuffled_indices(n_samples)
        return self._maybe_reconstruct(X_syn[order]), y_syn[order]

    def sample_batches(self, n_samples: int, batch_size: int = 100_000, rng=None, *,
                       add_mean: bool = False):
        """Draw ``n_samples`` synthetic records as an iterator of batches (constant memory).

        Each item is what :meth:`sample` returns for ``min(batch_size, remaining)``
        records. Classification batches each follow the class weights on their own.

        Parameters
        ----------
        n_samples : int
            Total number of records.
        batch_size : int, default 100000
            Records per batch.
        rng, add_mean
            As for :meth:`sample`.

        Yields
        ------
        ndarray or (ndarray, ndarray)

        ``rng``: ``None`` (default) draws from the per-process secure stream; a seed makes the draws
        reproducible (replayable by anyone who knows it; these draws are post-processing of a DP
        model, so replaying them reveals no private value).
        """
        self._check_fitted()
        for value, name in ((n_samples, "n_samples"), (batch_size, "batch_size")):
            if isinstance(value, bool) or not isinstance(value, Integral) or value < 1:
                raise InvalidParameterError(name, f"must be an integer >= 1, got {value!r}")
        kept = getattr(self, "_sampling_rng", None)
        gen = kept if rng is None and kept is not None else make_rng(rng)
        for start in range(0, int(n_samples), int(batch_size)):
            yield self.sample(min(int(batch_size), int(n_samples) - start), gen, add_mean=add_mean)

    def sample_to_parquet(self, path, n_samples: int, *, partitions: int | None = None,
                          rows_per_partition: int = 1_000_000, random_state=None,
                          add_mean: bool = False, label_column: str = "y") -> list[str]:
        """Write ``n_samples`` synthetic records as Parquet partitions with Dask (post-processing).

        The table is never materialised: each partition is drawn by its own task (threads, or the
        workers of an active ``distributed.Client``) and written to ``path/part.<i>.parquet``.

        Parameters
        ----------
        path : str or path-like
            Output directory (created; existing ``part.*.parquet`` files are deleted first, so
            the directory holds exactly this table's partitions; other files stay).
        n_samples : int
            Total number of synthetic records.
        partitions : int, optional
            Number of partitions (default: ``ceil(n_samples / rows_per_partition)``).
        rows_per_partition : int, default 1000000
            Used when ``partitions`` is not given.
        random_state : None or int
            One :class:`numpy.random.SeedSequence` spawns an independent generator per
            partition: from the OS's entropy when ``None`` (default), or from the int, which
            makes the output reproducible (and replayable by whoever knows it; it never touches
            the fit's noise, which came from another stream). No generator is kept on the model.
        add_mean : bool, default False
            As for :meth:`sample`.
        label_column : str, default "y"
            Name of the label column ("regression" and "classification"); refused when it is
            the name of a feature column.

        Returns
        -------
        list of str
            The written files, in partition order. Columns: the feature names with
            ``reconstruct=True`` (when the model was fitted on a data frame), else
            ``z1..z{dim}``; then ``label_column``.
        """
        self._check_fitted()
        for value, name in ((n_samples, "n_samples"), (rows_per_partition, "rows_per_partition")):
            if isinstance(value, bool) or not isinstance(value, Integral) or value < 1:
                raise InvalidParameterError(name, f"must be an integer >= 1, got {value!r}")
        if partitions is None:
            partitions = -(-int(n_samples) // int(rows_per_partition))
        if isinstance(partitions, bool) or not isinstance(partitions, Integral) or \
                not 1 <= partitions <= n_samples:
            raise InvalidParameterError("partitions", f"must be an integer in [1, n_samples], got "
                                                      f"{partitions!r}")
        if random_state is not None and (isinstance(random_state, bool) or
                                         not isinstance(random_state, Integral)):
            raise InvalidParameterError("random_state", "must be None or an int (a seed for the "
                                                        "per-partition generators)")
        names = getattr(self, "feature_names_in_", None)
        if self.reconstruct:
            columns = ([str(c) for c in names] if names is not None
                       else [f"x{i + 1}" for i in range(self.n_features_in_)])
        else:
            columns = [f"z{i + 1}" for i in range(self.projection_.shape[1])]
        if self.task != "unsupervised" and (not isinstance(label_column, str)
                                            or label_column in columns):
            # the labels would silently replace the feature of that name (as DPCopula refuses)
            raise InvalidParameterError("label_column", f"must be a string that is not a column "
                                                        f"name ({columns}), got {label_column!r}")
        part = partial(sampled_array_chunk, self, columns=columns, label_column=label_column,
                       add_mean=add_mean)
        return write_parquet_samples(part, path, int(n_samples), partitions=int(partitions),
                                     random_state=random_state)

    def _with_mean(self, X_syn: np.ndarray) -> np.ndarray:
        return X_syn + (self.mean_ if self.reconstruct else self.mean_ @ self.projection_)

    def _maybe_reconstruct(self, Z: np.ndarray) -> np.ndarray:
        return Z @ self.projection_.T if self.reconstruct else Z

    def transform(self, X) -> np.ndarray:
        """Map real records into the space of the synthetic features (public quantities only).

        Unsupervised and regression: ``normalize(normalize(X) - mean_) @ W``.
        Classification (class means live in the pre-normalised space, as in the
        reference code): ``normalize(X) @ W``. With ``reconstruct=True`` the
        result is mapped back by ``@ W.T``.

        Parameters
        ----------
        X : array_like or DataFrame of shape (n_samples, n_features)
            A DataFrame must have the fitted columns in the fitted order (``feature_names_in_``,
            when fitted on a DataFrame); an array is taken in that order.

        Returns
        -------
        ndarray of shape (n_samples, dim) or (n_samples, n_features)
        """
        self._check_fitted()
        X_arr, names = as_feature_matrix(X)
        if X_arr.shape[1] != self.n_features_in_:
            raise InvalidShapeError(
                "X", f"has {X_arr.shape[1]} features, the model was fitted with {self.n_features_in_}")
        fitted = getattr(self, "feature_names_in_", None)
        if names is not None and fitted is not None and list(names) != list(fitted):
            # the columns are matched by position: another order would map every record wrongly
            raise InvalidShapeError(
                "X", f"has the columns {list(names)}, the model was fitted on {list(fitted)} (in "
                     "that order); select them in the fitted order")
        Xn = normalize_rows(X_arr)
        if self.task != "classification":
            Xn = normalize_rows(Xn - self.mean_)
        return self._maybe_reconstruct(Xn @ self.projection_)


#: spawn key of the sampling stream derived from an int ``random_state`` (any fixed tuple
#: different from the fit stream's empty key).
_SAMPLING_SPAWN_KEY = (0x53414D50,)


def _sampling_stream(random_state):
    """The generator ``sample`` continues after a seeded fit, or None.

    Only an int seed gets one: a stream derived from the seed that is independent of the fit's
    stream (a different spawn key), so it has never produced released noise. Anything else
    (None, a Generator) gets no kept generator.
    """
    if isinstance(random_state, Integral) and not isinstance(random_state, bool):
        seed = np.random.SeedSequence(int(random_state), spawn_key=_SAMPLING_SPAWN_KEY)
        return np.random.Generator(np.random.PCG64(seed))
    return None
