"""DP principal component analysis from one release of the covariance (scikit-learn API)."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .._validation import check_nonnegative, check_unit_interval
from ..errors import InvalidParameterError
from ._base import (NoGeneratorStateMixin, check_privacy_params, check_relation, finish_bounds,
                    fit_bounds, validate_X)
from ._moments import FORCED_NOISE, keep_release
from ..feasible import orthonormalise, project_feasible
from .adaptive import BIASES
from .covariance import (auto_method, check_method, covariance_from_release, covariance_noise,
                         fit_adaptive, fit_coinpress, fit_second_moments)

__all__ = ["DPPCA", "pca_auto_method"]

#: The post-processings of DPPCA's released covariance before its eigendecomposition.
PROJECTIONS = ("unit-box", "noise", "original", "none")
#: What ``method="adaptive"``'s first look is allocated for (``adaptive_first``).
ADAPTIVE_FIRST = ("covariance", "pca", "mixed")


def pca_auto_method(neighbouring: str, X, *, noise: str = "auto",
                    projection: str = "unit-box") -> str:
    """What ``DPPCA(method="auto")`` (the default) resolves to, from public facts only (the
    parameters and whether ``X`` is a Dask collection; never the records' values).

    ``"adaptive"`` where it applies and was checked (task PX, issue #24: the pre-registered check
    on eight never-seen tables passed, ``results/pca_adaptive_default_check.md``;
    ``docs/coinpress.md``, "Measured (task PX): the pre-registered check on reserved tables"):
    replace-one neighbours (public ``n``), an in-memory ``X``, ``noise="auto"`` and a
    ``projection`` other than ``"noise"``. ``"moments"`` otherwise: add-remove neighbours and
    Dask input (the adaptive release refuses them), an explicit ``noise`` (a setting of the
    moments release, which the adaptive release does not read) and ``projection="noise"`` (the
    moments release's public entry variances, which the adaptive release does not have). That is
    :func:`~matrixdp.models.covariance.auto_method` for the covariance it releases, plus the
    ``projection`` condition.
    """
    if projection == "noise":
        return "moments"
    return auto_method("covariance", neighbouring, X, noise=noise)


class DPPCA(NoGeneratorStateMixin, ClassNamePrefixFeaturesOutMixin, TransformerMixin,
            BaseEstimator):
    r"""Differentially private PCA: the top eigenvectors of a DP covariance.

    One (ε, δ)-DP release of the covariance, then an eigendecomposition (post-processing). By
    default (``method="auto"``, resolved by :func:`pca_auto_method`) the release is adaptive
    where it applies (replace-one, in-memory ``X``): a private first look (a quarter of the
    budget) chooses between a second moments release and a CoinPress step by their predicted
    captured-variance deficit of the top ``n_components`` subspace (``docs/coinpress.md``,
    "Adaptive (PCA)"); elsewhere (add-remove, Dask input, an explicit ``noise``) it is one
    release of the centred, mean-augmented second moments (``method="moments"``, exactly as
    :class:`~matrixdp.models.DPCovariance` with ``kind="covariance"`` and that method). The
    covariance is measured in the original units, so features with wide
    public ranges dominate as in :class:`sklearn.decomposition.PCA`; scale the data by its public
    bounds first if that is not wanted.

    Parameters
    ----------
    n_components : int or None, default None
        Number of components kept (``None``: all).
    epsilon : float, default 1.0
    delta : float, default 1e-6
    bounds : (lower, upper)
        Public bounds, scalars or one value per feature. Required.
        Or ``"dp"`` / :class:`~matrixdp.models.dp_bounds.DPBounds`: a share (default 10%) of
        ``epsilon`` estimates them (docs/bounds.md).
    noise : {"auto", "mvg", "iid", "unit-box"}, default "auto"
        The noise of ``method="moments"`` (with the default ``method="auto"``, any value but
        ``"auto"`` selects the moments release: :func:`pca_auto_method`). ``"unit-box"``: i.i.d. Gaussian noise on the records
        rescaled to the public unit box, mapped back (the MVG allocation with equal precision
        shares in units of the half-widths, ``allocation_ == "unit-box"``; exact calibration).
        ``"auto"`` scores its candidates by an expected Frobenius loss of the covariance in
        half-width units, not by the subspace's captured variance: measured on the benchmark
        tables (``results/pca_auto_diagnosis.md``, 30 trials, 60 cells) its pick is the best
        allocation in 23 of 60 cells, and ``"unit-box"`` is at most 1.05× ``"auto"``'s
        deficit in 52 of 60 (up to 1.31× on adult, k = 2; down to 0.821× on synthetic).
        Neither is the i.i.d. noise that wins at ε = 0.1 on wdbc and lending_club, k = 5 (2×;
        §8 "Why auto loses for PCA" of ``docs/when_mvg_wins.md``). Its pre-registered check
        as the default failed on six never-seen tables (``results/pca_auto_check.md``: within
        1.05× of ``"auto"`` in 42 of 55 cells, max 1.21×), so it is an option. Its law is that
        of i.i.d. noise on the records rescaled to the unit box (``"iid-unit-box"``: the same
        expected loss). Which of it and ``"auto"``'s task-weighted pick wins is set by the
        data's (private) mean offset from the box centre, which the loss prices at a public
        prior; as the PCA default it failed a second gate on the benchmark (median 0.973× but
        up to 1.18× on adult; ``results/pca_auto_pa_dev.md``, ``docs/when_mvg_wins.md`` §8).
    neighbouring : {"replace-one", "add-remove"}, default "replace-one"
        As in :class:`~matrixdp.models.DPCovariance`.
    clip : bool, default True
    random_state : None, int or numpy.random.Generator
        ``None``: secure generator. A seeded fit is replayable by whoever knows the seed; a
        Generator is dropped from pickles and copies of the fitted model.
        Under ``sklearn.base.clone`` (``cross_val_score``, ``GridSearchCV``) an int seed gives
        every clone the same noise, so the difference of two folds' outputs is noise-free:
        use ``None`` there; a Generator gives each clone its own spawned stream.
    accountant : Accountant, Ledger or object with ``spend(guarantee, label=...)``, optional
        Charged the fit's whole guarantee before any noise is drawn (a refusal stops the fit).
        ``None``: the accountants of enclosing ``with Accountant(...):`` blocks, if any.
        Every ``fit`` is a new release, charged again: ``cross_val_score`` with k folds spends
        k × (ε, δ); ``GridSearchCV`` one per fold and candidate, plus the refit. With no keeper
        (none given, no ``with`` block) nothing is recorded (``docs/security.md``, "Budget
        keepers are handles").
    method : {"auto", "moments", "coinpress", "adaptive"}, default "auto"
        How the covariance is released, as in :class:`~matrixdp.models.DPCovariance`.
        ``"auto"`` (default since task PX, issue #24): resolved from public facts only by
        :func:`~matrixdp.models.pca.pca_auto_method` (``method_`` says which): ``"adaptive"``
        with replace-one neighbours, an in-memory ``X``, ``noise="auto"`` and a ``projection``
        other than ``"noise"``; ``"moments"`` otherwise (add-remove neighbours and Dask input,
        which the adaptive release refuses; an explicit ``noise`` or ``projection="noise"``,
        settings of the moments release). Default since a pre-registered check on eight
        never-seen tables passed (``results/pca_adaptive_default_check.md``, 80 cells, k = 2 and
        5, 30 paired trials; ``docs/coinpress.md``, "Measured (task PX)"): within 1.2× of the
        best of six rows in 54 cells against the moments release's 43; the median over cells of
        its ratio of medians to ``"moments"`` 0.912; it fails the paired gate against
        ``"moments"`` in 5 of 80 cells, by up to 5.0× (alcohol, injury, loanapp, labsup: cells
        where it took the CoinPress step and the moments release was the better one), while
        ``"moments"`` is up to 138× the best row there and ``"auto"``'s ratio to it goes down
        to 0.0072 (alcohol, k = 2, ε = 5). Pass
        ``method="moments"`` for the release of earlier versions (and for its public
        ``entry_variance_``, ``expected_loss_`` and ``moments_``, which adaptive does not have).
        ``"moments"``: one release of the second moments with the noise of ``noise``.
        ``"coinpress"``: Biswas et al. 2020 adapted to the public box (``docs/coinpress.md``).
        ``"adaptive"``: a private first look chooses between a second moments release and a
        CoinPress step by their expected captured-variance deficit of the top ``n_components``
        subspace, read in the frame of its first release post-processed by ``projection``;
        section "Adaptive (PCA)" of ``docs/coinpress.md``; the whitened step's clipping bias from
        a one-direction model, "The clipping bias, modelled"). Measured before the check
        (``results/adaptive_pca.md``, round 3c, 50 trials, k = 2 and 5 on the seven benchmark
        tables and the never-seen check tables star98 and elnino): within 1.2× of the best of
        ``"moments"``, ``"coinpress"`` and i.i.d. noise on the unit box in 64 of 80 cells, worst
        3.1× (adult, k = 2, ε = 0.1); on the benchmark it fails the paired gate against
        ``"moments"`` in 6 of 60 cells, up to 2.43× (adult, k = 2, ε = 0.1;
        ``results/adaptive_pca_guard.md``). Where the moments branch is chosen, the first look
        (allocated for the covariance) costs the PCA task 1.03–1.36× ``"moments"``'s expected
        loss; measured with the branch forced, 1.02× at the median of 40 cells, up to 1.6×
        (anes96, adult; ``results/adaptive_pca_first_look.md``, "The first look's cost in the
        moments branch" in ``docs/coinpress.md``). An explicit ``method="adaptive"`` raises
        where it does not apply (add-remove, Dask input); ``"auto"`` falls back instead.
    coinpress_steps : int, default 2
    coinpress_beta : float, "auto" or "late", default 0.1
        The whitened clipping radius of ``method="coinpress"`` / ``"adaptive"``, as
        :class:`~matrixdp.models.DPCovariance`'s (``"auto"``: a radius growing with the budget,
        opt-in; at moderate ε it costs up to 11× on PCA, ``results/coinpress_radius_benchmark.md``;
        ``"late"``: that growth switched on late, ``0.1``'s radius at moderate budgets,
        opt-in, ``results/coinpress_late_radius.md``).
    projection : {"unit-box", "noise", "original", "none"}, default "unit-box"
        The Frobenius projection of the released covariance onto the feasible set before the
        eigendecomposition (post-processing: the guarantee is unchanged), in units of the
        public half-widths, in the noise's own metric (units ``v_i^{1/4}``, ``v_i`` the public
        noise variance of the released variance ``i``, as the regression path; ``method=
        "moments"`` only, else the half-widths), in the original units, or none
        (``docs/postprocessing.md``). Measured side by side (``results/pca_projection.md``, 15
        trials, 70 cells on eight tables): ``"noise"`` is within 0.90–1.06× of the default's
        deficit (its units are within 1.3× of the half-widths for the default release), not
        the ≤ 1.02× everywhere set for a new default; ``"original"``/``"none"`` are better
        only on ctg (k = 2, ε = 0.5 … 5: up to 2.6×), diabetes (k = 2, ε = 5: 1.07×) and adult
        (``"original"``, k = 5, ε = 5: 1.02×), and up to 5.8·10⁵× worse elsewhere. For a
        ``noise="iid"`` release far outside its box the box projection still beats ``"none"``
        (the PSD-only subspace) in 40 of 60 benchmark cells, loses on ctg and synthetic
        (``results/pca_auto_pa_projection.md``; ``docs/postprocessing.md``, "A release far
        outside its box").
    adaptive_first : {"covariance", "pca", "mixed"}, default "covariance"
        ``method="adaptive"`` only: the task the noise of its first look (the first moments
        release, a quarter of the budget) is allocated for: the covariance in the original units
        (``"covariance"``) or the PCA task in units of the public half-widths, as the second
        release (``"pca"``; ``first_kind`` of
        :func:`~matrixdp.models.adaptive.adaptive_covariance`; ``docs/coinpress.md``, "The first
        look's cost in the moments branch" and "Measured (round 3e)"). Utility only: the
        guarantee is the same. Opt-in, not recommended: measured on the 60 benchmark cells
        (``results/adaptive_pca_first_pca.md``, 50 trials) it is within 1.2× of the best of
        ``"moments"``, ``"coinpress"`` and i.i.d. noise on the unit box in 43 (``"covariance"``:
        44), at most 0.5× of that best in 9 (adult, lending_club, synthetic: its CoinPress branch)
        and above 2× in 8, up to 4.9·10⁵× (lending_club, k = 5, ε = 1, where the ranking
        under-predicts that branch's deficit by 10⁵–10⁶×,
        ``results/adaptive_pca_first_pca_diagnosis.md``); it failed the gate for becoming the
        default. The cause is the whitened step's noise on the released variances, which the
        ranking left out; ``adaptive_covariance(diagonal_noise=True)`` (round 3f, not a DPPCA
        parameter) adds it and removes those losses (lending_club k = 5, ε = 1: 1.51×), but
        the gate still fails (43 of 60, up to 7.8×; ``results/adaptive_pca_cp_prediction.md``,
        ``docs/coinpress.md`` "Measured (round 3f)"). ``"mixed"`` (task PK, opt-in): the first
        look split, ``adaptive.FIRST_MIX`` = 0.75 of its budget allocated for the covariance
        (the whitening) and the rest for the PCA task, combined by inverse variance
        (``first_kind="mixed"``; ``docs/coinpress.md``, "The mixed first look (task PK)").
        Same guarantee and charge. It targets the default's misses against the moments release
        (``results/pca_default_misses.md``: there the covariance-allocated first look costs the
        moments branch 1.36-2.14× on the benchmark's seeds). Opt-in, not recommended: it FAILED its dev gate
        (``results/pca_mixed_first_gate.md``, 165 cells of the benchmark and the 12 MEASUREMENT
        tables, 30 paired trials: median ratio to the default 0.953, below 0.5× in 27 cells,
        but 4 paired-gate FAILs up to 4.6×, adult k = 5 ε = 1, where it takes the CoinPress step
        and the moments release is better; ``results/pca_mixed_first_losses.md``).
    adaptive_resolve_z : float or None, default None
        ``method="adaptive"`` only: the resolution guard (task PA2, issue #24;
        ``resolve_z`` of :func:`~matrixdp.models.adaptive.adaptive_covariance`, as the
        correlation default's ``covariance.CORRELATION_RESOLVE_Z`` = 3): the CoinPress step is
        considered only if every first-look variance (projected onto the feasible set) is at
        least this many of its noise sds; otherwise the rest of the budget goes to the second
        moments release. ``None``: no guard (the fit before the option, byte for byte). A
        post-processing of the first look: the guarantee is unchanged (``docs/coinpress.md``,
        § Adaptive (PCA), "The resolve_z guard (task PA2)"). Opt-in, not recommended: at 3 it
        failed its dev gate for becoming the default (``results/adaptive_pca_guard.md``, 100
        trials, 60 benchmark cells: within 1.2× of the best of ``"moments"``, ``"coinpress"``
        and i.i.d. noise on the unit box in 40, ``"moments"`` 44; never above 1.58×
        ``"moments"``): the first look, allocated for the covariance, resolves the variances of
        small-range features on no benchmark table but movement_aal, so the step and its wins
        (ctg, synthetic) are blocked too (``results/adaptive_pca_guard_diagnosis.md``). With
        ``adaptive_resolve_share`` it only sets the ``z`` of the unresolved features.
    adaptive_resolve_share : float in [0, 1] or None, default None
        ``method="adaptive"`` only: the share guard (task PA3, issue #24; ``resolve_share`` of
        :func:`~matrixdp.models.adaptive.adaptive_covariance`): the CoinPress step is considered
        only if the features whose projected first-look variance is below ``z`` of its noise sds
        (``z = adaptive_resolve_z``, or 3 if None) carry at most this share of the first look's
        top-``n_components`` variance; otherwise the rest of the budget goes to the second
        moments release. ``None``: no such guard (the fit before the option, byte for byte).
        A post-processing of the first look: the guarantee is unchanged (``docs/coinpress.md``,
        § Adaptive (PCA), "The share guard (task PA3)"). Opt-in, not recommended: at 1/2 and
        1/4 it failed its dev gate for becoming the default (``results/adaptive_pca_share.md``,
        100 trials, 60 benchmark cells: within 1.2× of the best of ``"moments"``,
        ``"coinpress"`` and i.i.d. noise on the unit box in 45 and 43, ``"moments"`` 44, the
        unguarded adaptive 47; never above 1.80× ``"moments"``).
    adaptive_bias : {"model", "bound", "records", "one-record"} or None, default None
        ``method="adaptive"`` only: how the ranking predicts the whitened step's clipping bias
        (``bias`` of :func:`~matrixdp.models.adaptive.adaptive_covariance`); ``None``: that
        function's default (``"one-record"`` since session 18; ``"model"`` before).
        ``"records"`` (task HP, issue #24): the bias's
        direction drawn from the first look's projected covariance instead of the whitening,
        whose noise margin made the default's prediction of the step 43-1,470× its measured
        deficit where it lost to CoinPress at high ε (ccard ε = 10⁴ in the outside audit,
        wdbc k = 5 ε = 10⁴, liver k = 2 ε = 100; ``results/pca_high_eps_diagnosis.md``,
        ``results/pca_bias_direction_diagnosis.md``; ``docs/coinpress.md``, "The bias direction
        from the records (task HP)"). A post-processing of the first look: the guarantee and
        the charge are unchanged. Opt-in: it PASSED its dev gate (``results/pca_bias_records_gate.md``,
        264 cells, 30 paired trials: no FAIL, median 0.962 over the 24 changed cells; wdbc k = 5
        ε = 10⁴ 0.0094×) and FAILED its pre-registered check on four never-seen tables
        (``results/pca_bias_records_check.md``: within 1.2× of the best in 58 of 64 cells, the
        default 59; discrim k = 5 ε = 10⁴ 1.33×), so it is not the default. ``"one-record"``
        (task PB): ``"records"``, except where the released counts read ONE clipped record;
        then the record's far part lies along an eigen-direction of the records' model that can
        hold it and the record is typical in the others (couplings ``ρ·C̃_jj/n`` instead of the
        whole record's ``ρ²·C̃_iiC̃_jj/tr²``; ``docs/coinpress.md``, "One clipped record (task
        PB)"; ``results/pca_bias_rank_diagnosis.md``). The same releases and guarantee. The
        default since session 18: its dev gate (``results/pca_bias_one_record_gate.md``, 264
        cells, no FAIL, median 0.955 over the 22 changed cells) and its pre-registered check on
        five never-seen tables (``results/pca_bias_one_record_check.md``) passed; the changes
        measured there all come from the records' direction
        (``results/pca_bias_one_record_vs_records.md``). ``"model"`` gives the fit before.

    Post-processing (no budget): the released covariance is projected onto the feasible set
    (PSD, variances and Cauchy–Schwarz bounds from the public box, :mod:`matrixdp.feasible`) and
    the components are orthonormalised.

    Attributes
    ----------
    components_ : ndarray (n_components, n_features)
        Orthonormal rows, by decreasing released variance.
    explained_variance_ : ndarray (n_components,)
        Eigenvalues of the released (PSD-projected) covariance.
    explained_variance_ratio_ : ndarray (n_components,)
        ``explained_variance_ / trace`` of the released covariance.
    mean_ : ndarray (n_features,)
        The DP mean (released with the covariance), clipped to the public box (the mean of the
        clipped records lies in it; post-processing): ``lower`` for a public constant feature
        (``lower == upper``).
    n_components_ : int
    privacy_ : PrivacyGuarantee
        The guarantee of the whole fit.
    noise_, allocation_, noise_summary_, expected_loss_, noise_candidates_, entry_variance_
        As in :class:`~matrixdp.models.DPCovariance`.
    method_ : str
        The method the fit used: ``"moments"``, ``"coinpress"`` or ``"adaptive"`` (``"auto"``
        resolved from public facts by :func:`~matrixdp.models.pca.pca_auto_method`).
    projection_ : str
        The projection applied (``"noise"`` falls back to ``"unit-box"`` without entry variances).
    adaptive_choice_, adaptive_predicted_
        ``method="adaptive"`` only, as in :class:`~matrixdp.models.DPCovariance`.

    References
    ----------
    .. [1] C. Dwork, K. Talwar, A. Thakurta and L. Zhang, "Analyze Gauss: optimal bounds for
       privacy-preserving principal component analysis", STOC 2014.
    .. [2] matrixdp, ``docs/when_mvg_wins.md``.
    .. [3] S. Biswas, Y. Dong, G. Kamath and J. Ullman, "CoinPress: Practical Private Mean and
       Covariance Estimation", NeurIPS 2020.
    .. [4] matrixdp, ``docs/coinpress.md`` ("Adaptive (PCA)"; "Measured (task PX)") and
       ``results/pca_adaptive_default_check.md``.
    """

    def __init__(self, n_components=None, *, epsilon=1.0, delta=1e-6, bounds=None, noise="auto",
                 neighbouring="replace-one", clip=True, random_state=None, accountant=None,
                 method="auto", coinpress_steps=2, projection="unit-box", coinpress_beta=0.1,
                 adaptive_first="covariance", adaptive_resolve_z=None,
                 adaptive_resolve_share=None, adaptive_bias=None):
        self.method = method
        self.adaptive_bias = adaptive_bias
        self.adaptive_resolve_z = adaptive_resolve_z
        self.adaptive_resolve_share = adaptive_resolve_share
        self.adaptive_first = adaptive_first
        self.coinpress_steps = coinpress_steps
        self.coinpress_beta = coinpress_beta
        self.n_components = n_components
        self.neighbouring = neighbouring
        self.epsilon = epsilon
        self.delta = delta
        self.bounds = bounds
        self.noise = noise
        self.clip = clip
        self.random_state = random_state
        self.accountant = accountant
        self.projection = projection

    def fit(self, X, y=None):
        """Release the covariance of ``X`` and keep its top ``n_components`` eigenvectors."""
        eps, delta, noise = check_privacy_params(self, extra_noise=FORCED_NOISE)
        if self.projection not in PROJECTIONS:
            raise InvalidParameterError("projection", f"must be one of {PROJECTIONS}, got "
                                                      f"{self.projection!r}")
        method = self.method
        if method == "auto":  # public facts only (pca_auto_method)
            method = pca_auto_method(check_relation(self.neighbouring), X, noise=noise,
                                     projection=self.projection)
        method = check_method(self, "covariance", method)
        # the moments path clips in row chunks where it sums (no full clipped copy)
        if self.adaptive_first not in ADAPTIVE_FIRST:
            raise InvalidParameterError("adaptive_first", f"must be one of {ADAPTIVE_FIRST}, got "
                                                          f"{self.adaptive_first!r}")
        rz, rs = self.adaptive_resolve_z, self.adaptive_resolve_share
        rz = None if rz is None else check_nonnegative(rz, "adaptive_resolve_z")
        rs = None if rs is None else check_unit_interval(rs, "adaptive_resolve_share")
        ab = self.adaptive_bias
        if ab is not None and ab not in BIASES:
            raise InvalidParameterError("adaptive_bias", f"must be None or one of {BIASES}, got "
                                                         f"{ab!r}")
        X, lo, hi, eps = fit_bounds(self, X, eps, clip_now=method != "moments")
        n, d = X.shape
        k = d if self.n_components is None else self.n_components
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= d:
            raise InvalidParameterError("n_components", f"must be None or an int in [1, "
                                                        f"n_features={d}], got {k!r}")
        noise_var = None
        if method == "coinpress":
            cov, mean = fit_coinpress(self, X, lo, hi, epsilon=eps, delta=delta,
                                      label="DPPCA.fit")
        elif method == "adaptive":
            # the PCA-loss ranking reads its frame after the projection applied below
            cov, mean = fit_adaptive(self, X, lo, hi, epsilon=eps, delta=delta,
                                     label="DPPCA.fit", kind="pca", n_components=k,
                                     first_kind=self.adaptive_first,
                                     **({} if rz is None else {"resolve_z": rz}),
                                     **({} if rs is None else {"resolve_share": rs}),
                                     **({} if ab is None else {"bias": ab}),
                                     projection="unit-box" if self.projection == "noise"
                                     else self.projection)
        else:
            rel, center, t = fit_second_moments(self, X, lo, hi, "pca", epsilon=eps,
                                                delta=delta, noise=noise, label="DPPCA.fit",
                                                n_components=k)
            cov, mean = covariance_from_release(rel.value, center, t, "covariance",
                                                self.neighbouring)
            keep_release(self, rel)
            if self.projection == "noise" and rel.entry_variance is not None:
                # the covariance's entry variances: the plan's (public) and the release
                noise_var = covariance_noise(rel.value, rel.entry_variance, center, t, lo, hi,
                                             self.neighbouring)[0]
        # projection onto the feasible covariances (post-processing; docs/postprocessing.md).
        # "unit-box", units of the public half-widths: removes the noise's negative part
        # relative to each feature's scale, which keeps the subspace of the small-range features
        # (measured: results/when_mvg_wins.md, PCA rows; results/pca_projection.md)
        units = self.projection
        if units == "noise" and noise_var is None:
            units = "unit-box"  # no entry variances (coinpress, adaptive)
        if units != "none":
            cov = project_feasible(cov, lo, hi, "covariance", units=units,
                                   noise_variance=noise_var)
        self.projection_ = units
        self.method_ = method
        lam, vec = np.linalg.eigh(cov)
        order = np.argsort(lam)[::-1][:k]
        lam = np.maximum(lam[order], 0.0)
        comps = orthonormalise(vec[:, order]).T  # exact orthonormal rows (post-processing)
        # deterministic signs (as scikit-learn's svd_flip): largest |entry| of each row positive
        big = np.argmax(np.abs(comps), axis=1)
        comps *= np.sign(comps[np.arange(k), big])[:, None]
        total = float(np.trace(cov))
        self.components_ = comps
        self.explained_variance_ = lam
        self.explained_variance_ratio_ = lam / total if total > 0 else np.zeros(k)
        # the mean of records clipped to the box lies in the box: the adaptive and CoinPress
        # paths clip their mean to it, the moments path (method="moments", add-remove) now
        # too, as DPCovariance.location_ (post-processing with the public bounds; a public
        # constant feature, lower == upper, gets its only possible value)
        self.mean_ = np.clip(mean, lo, hi)
        self.n_components_ = int(k)
        finish_bounds(self)
        return self

    def transform(self, X):
        """Project ``X`` (centred at the DP mean) on the components."""
        check_is_fitted(self, "components_")
        X = validate_X(self, X, reset=False)
        return (X - self.mean_) @ self.components_.T

    def inverse_transform(self, X):
        """Map component scores back to the feature space."""
        check_is_fitted(self, "components_")
        return np.asarray(X, dtype=np.float64) @ self.components_ + self.mean_

    @property
    def _n_features_out(self):
        return self.n_components_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = self.random_state is None
        return tags
