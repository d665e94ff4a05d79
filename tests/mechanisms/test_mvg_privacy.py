"""Independent review of MVGMechanism's privacy claims (issue 3; spec mvg.md §2.6, §11).

The oracles here do not call the library's shift-bound code: they rebuild the
``mn x mn`` precision ``(Ψ ⊗ Σ)⁻¹`` from the dense ``row_cov`` / ``col_cov`` and
search the query's neighbouring differences by brute force (every replaced row
and every vertex of the difference box for the identity query; vertex pairs plus
a local optimiser for the covariance query; the eigenvalue formula for a bare
Frobenius sensitivity). They check, on a random grid of ε, δ, shapes,
directions and allocations, that

- every calibration's true δ(ε) is at most the claimed δ;
- ``privacy.exact`` is True only when the claim is tight (true δ(ε) = δ to 1e-6),
  and is True for the exact calibration with the standard basis and Σθ = 1;
- it is False whenever the guarantee is only a bound (theorems, unused budget,
  DP directions, an upper-bound-only sensitivity structure).
"""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest
import scipy.integrate
import scipy.optimize
import scipy.stats

from matrixdp import DPDirectionsMVG, MVGMechanism
from matrixdp.calibration.gaussian import analytic_gaussian_sigma, gaussian_log_delta_for_shift
from matrixdp.calibration.allocation import binary_allocation
from matrixdp.errors import InvalidParameterError, NonFiniteInputError
from matrixdp.queries import CovarianceQuery, IdentityQuery, KernelQuery


def _rotation(d, rng):
    q, r = np.linalg.qr(rng.standard_normal((d, d)))
    return q * np.sign(np.diagonal(r))


def _true_delta(eps, mu):
    return math.exp(gaussian_log_delta_for_shift(eps, mu))


def _kron_precision(mech):
    return np.linalg.inv(np.kron(mech.col_cov, mech.row_cov))


def _mu(diff, precision):
    v = diff.reshape(-1, order="F")                       # column-stacking vec
    return math.sqrt(max(float(v @ precision @ v), 0.0))


def _brute_identity_mu(mech, q):
    """sup over replaced row k and box vertex d of ‖vec(e_k dᵀ)‖ in the (Ψ⊗Σ)⁻¹ metric."""
    prec = _kron_precision(mech)
    n, p = mech.shape
    bits = (np.arange(2 ** p)[:, None] >> np.arange(p)[None, :]) & 1
    signs = 2.0 * bits - 1.0                              # every vertex of [-1, 1]^p
    best = 0.0
    for k in range(n):
        idx = [k + n * j for j in range(p)]               # vec positions of row k
        block = prec[np.ix_(idx, idx)]
        d = signs * q.half_widths
        best = max(best, float(np.max(np.einsum("vi,ij,vj->v", d, block, d))))
    return math.sqrt(best)


def _search_covariance_mu(mech, q, rng, starts=8):
    """Best shift over record pairs (x, y) in the box: vertices, origin, and L-BFGS-B restarts."""
    prec = _kron_precision(mech)
    d = q.n_features
    lo, hi = q.lower - q.center, q.upper - q.center      # the centred record box (public)

    def neg(z):
        x, y = z[:d], z[d:]
        return -_mu(q.scale * (np.outer(x, x) - np.outer(y, y)), prec) ** 2

    verts = np.array(list(itertools.product(*zip(lo, hi))))
    points = list(verts) + [np.clip(np.zeros(d), lo, hi)]
    best = max(-neg(np.r_[x, y]) for x in verts for y in points)
    for _ in range(starts):
        z0 = rng.uniform(np.r_[lo, lo], np.r_[hi, hi])
        res = scipy.optimize.minimize(neg, z0, bounds=list(zip(lo, hi)) * 2, method="L-BFGS-B")
        best = max(best, -res.fun)
    return math.sqrt(best)


def _grid(rng, n_cases):
    for _ in range(n_cases):
        eps = float(10 ** rng.uniform(-1.5, 1))
        delta = float(10 ** rng.uniform(-10, -2))
        kind = str(rng.choice(["identity", "covariance", "number"]))
        if kind == "identity":
            p, n = int(rng.integers(1, 5)), int(rng.integers(1, 5))
            q = IdentityQuery(bounds=(-rng.uniform(0, 2, p), rng.uniform(0.1, 2, p)), n_samples=n)
            shape, sens = (n, p), q
        elif kind == "covariance":
            p = int(rng.integers(1, 4))
            lo = -rng.uniform(0, 2) if rng.random() < 0.6 else rng.uniform(0, 0.5)   # some one-signed
            q = CovarianceQuery(bounds=(lo, lo + rng.uniform(0.2, 2)), n_features=p,
                                n_samples=int(rng.integers(2, 20)))
            shape, sens = (p, p), q
        else:
            shape, sens, q = (int(rng.integers(1, 5)), int(rng.integers(1, 5))), \
                float(rng.uniform(0.1, 3)), None
        yield eps, delta, kind, shape, sens, q


@pytest.mark.parametrize("calibration, seed, n_cases", [
    ("exact", 0, 45), ("theorem2", 1, 15), ("theorem3", 2, 40)])
def test_true_delta_never_exceeds_claim_and_exact_means_tight(calibration, seed, n_cases):
    """Issue 3 test list: every calibration on a random grid; brute-force oracle, not shift_bound."""
    rng = np.random.default_rng(seed)
    checked = exact_seen = 0
    for eps, delta, kind, shape, sens, q in _grid(rng, n_cases):
        square = shape[0] == shape[1]
        if calibration == "theorem3":
            if kind == "identity" or not square:
                continue
            modes = ["iid", "equimodal"]
        else:
            modes = ["iid", "unimodal"] + (["equimodal"] if square and kind != "identity" else [])
        mode = str(rng.choice(modes))
        kw = {}
        if mode != "iid":
            axis = 1 if kind == "identity" else int(rng.random() < 0.3 and mode == "unimodal")
            dim = shape[1] if (mode == "unimodal" and axis == 1) else shape[0]
            kw["axis"] = axis
            standard = rng.random() < 0.5
            kw["directions"] = None if standard else _rotation(dim, rng)
            kw["precision"] = rng.dirichlet(np.ones(dim))
        if calibration != "exact" and kind == "number":
            kw["gamma"] = sens * rng.uniform(0.5, 10)
        mech = MVGMechanism(shape=shape, epsilon=eps, delta=delta, sensitivity=sens,
                            calibration=calibration, mode=mode, **kw)
        if kind == "identity":
            mu_true = _brute_identity_mu(mech, q)
        elif kind == "covariance":
            mu_true = _search_covariance_mu(mech, q, rng)    # a lower bound on the supremum
        else:
            lam_r = np.linalg.eigvalsh(mech.row_cov)[0]
            lam_c = np.linalg.eigvalsh(mech.col_cov)[0]
            mu_true = sens / math.sqrt(lam_r * lam_c)
        # the reported Mahalanobis sensitivity is never below a realisable shift
        assert mu_true <= mech.mahalanobis_sensitivity * (1 + 1e-9)
        true_delta = _true_delta(eps, mu_true)
        assert true_delta <= delta * (1 + 1e-9)
        if mech.privacy.exact:
            exact_seen += 1
            assert true_delta == pytest.approx(delta, rel=1e-6)
        else:
            assert calibration != "exact" or kind == "covariance" or kw.get("directions") is not None
        if calibration == "exact" and kind != "covariance" and kw.get("directions") is None:
            # exact + standard basis + Σθ = 1 is tight on a box / ball (the requirement)
            assert mech.privacy.exact
            assert true_delta == pytest.approx(delta, rel=1e-6)
        if calibration != "exact":
            assert not mech.privacy.exact
            assert true_delta < delta * 1e-2                 # the theorems are very loose
        checked += 1
    assert checked >= 10
    if calibration == "exact":
        assert exact_seen >= 15


def test_exact_claim_withdrawn_when_bound_is_not_attained():
    """18 features (no vertex enumeration) with rotated directions: if the box maximum is only
    bounded, privacy.exact must be False and the brute-force δ(ε) strictly below δ; if the
    library certifies it, brute force must attain it."""
    rng = np.random.default_rng(21)
    p = 18
    q = IdentityQuery(bounds=(-rng.uniform(0.1, 1, p), rng.uniform(0.1, 1, p)), n_samples=2)
    seen = set()
    for trial in range(3):
        mech = MVGMechanism(shape=(2, p), epsilon=1.0, delta=1e-6, sensitivity=q,
                            directions=_rotation(p, rng), precision=rng.dirichlet(np.ones(p)))
        mu_true = _brute_identity_mu(mech, q)
        assert mu_true <= mech.mahalanobis_sensitivity * (1 + 1e-9)
        seen.add(mech.privacy.exact)
        if mech.privacy.exact:
            assert _true_delta(1.0, mu_true) == pytest.approx(1e-6, rel=1e-6)
        else:
            assert not mech.mahalanobis_sensitivity_exact
            assert _true_delta(1.0, mu_true) < 1e-6 * (1 - 1e-6)
            assert mech.privacy_profile(1.0) == pytest.approx(1e-6, rel=1e-6)  # the bound's δ
            assert any("upper bound" in note for note in mech.privacy.notes)
    assert False in seen   # the upper-bound path is exercised


def test_upper_bound_only_structures_never_claim_exact():
    rbf = lambda z: np.exp(-np.sum((z[:, None] - z[None]) ** 2, axis=-1))  # noqa: E731
    kq = KernelQuery(rbf, kernel_bound=1.0, n_samples=5)
    for mode in ("iid", "equimodal"):
        mech = MVGMechanism(shape=(5, 5), epsilon=1.0, delta=1e-5, sensitivity=kq, mode=mode)
        assert not mech.mahalanobis_sensitivity_exact and not mech.privacy.exact
        assert mech.privacy_profile(1.0) <= 1e-5 * (1 + 1e-9)
    # DP directions: composition of two steps is never reported as tight
    rng = np.random.default_rng(4)
    q = IdentityQuery(bounds=(-1, 1), n_features=3, n_samples=40)
    mech = DPDirectionsMVG(shape=(40, 3), epsilon=1.0, delta=1e-5, sensitivity=q,
                           random_state=0).fit(rng.uniform(-1, 1, (40, 3))).mechanism_
    assert mech.mahalanobis_sensitivity_exact and not mech.privacy.exact
    assert mech.privacy_profile(0.8) == pytest.approx(0.8e-5, rel=1e-6)


def test_exact_standard_basis_never_noisier_than_iid_analytic_gaussian():
    """Issue 3: exact + standard basis, uniform or MSE-optimal shares, against i.i.d. analytic
    Gaussian with the same Frobenius sensitivity (total noise; per entry for a bare s2)."""
    rng = np.random.default_rng(8)
    for _ in range(12):
        eps, delta = float(rng.uniform(0.1, 5)), float(10 ** rng.uniform(-9, -3))
        n, p = int(rng.integers(1, 9)), int(rng.integers(1, 7))
        q = IdentityQuery(bounds=(-rng.uniform(0, 2, p), rng.uniform(0.1, 2, p)), n_samples=n)
        sigma2 = analytic_gaussian_sigma(eps, delta, q.sensitivity_l2) ** 2
        for precision in ("uniform", "mse-optimal"):
            mech = MVGMechanism(shape=(n, p), epsilon=eps, delta=delta, sensitivity=q,
                                mode="unimodal", precision=precision)
            assert mech.privacy.exact
            assert mech.noise_summary().expected_squared_error <= n * p * sigma2 * (1 + 1e-9)
        # on a bare Frobenius ball nothing can be traded: every entry exactly the analytic σ²
        s2 = float(rng.uniform(0.1, 3))
        ball = MVGMechanism(shape=(n, p), epsilon=eps, delta=delta, sensitivity=s2,
                            mode="unimodal", precision="uniform")
        np.testing.assert_allclose(ball.variances, analytic_gaussian_sigma(eps, delta, s2) ** 2,
                                   rtol=1e-9)
        # unequal ranges: MSE-optimal is strictly better than i.i.d. (Cauchy–Schwarz)
    q = IdentityQuery(bounds=(0, [1.0, 4.0, 0.5]), n_samples=10)
    opt = MVGMechanism(shape=(10, 3), epsilon=1.0, delta=1e-6, sensitivity=q, precision="mse-optimal")
    iid = MVGMechanism(shape=(10, 3), epsilon=1.0, delta=1e-6, sensitivity=q)
    assert opt.noise_summary().expected_squared_error < 0.8 * iid.noise_summary().expected_squared_error


def test_correct_directions_beat_wrong_ones_at_the_same_budget():
    """Spec §11.17 (mechanism level): spending τ% on the features that matter lowers their noise
    below both i.i.d. and an allocation on the wrong features, at identical (ε, δ)."""
    q = IdentityQuery(bounds=(-1, 1), n_features=6, n_samples=100)
    important = [2, 5]
    right = MVGMechanism(shape=(100, 6), epsilon=1.0, delta=1e-5, sensitivity=q,
                         precision=binary_allocation(important, 90, 6))
    wrong = MVGMechanism(shape=(100, 6), epsilon=1.0, delta=1e-5, sensitivity=q,
                         precision=binary_allocation([0, 1], 90, 6))
    iid = MVGMechanism(shape=(100, 6), epsilon=1.0, delta=1e-5, sensitivity=q)
    err = lambda m: float(np.sum(m.variances[important]))     # noqa: E731 (Σ var on important)
    assert err(right) < 0.5 * 2 * iid.variances[0] < err(wrong)
    for mech in (right, wrong, iid):
        assert mech.privacy_profile(1.0) == pytest.approx(1e-5, rel=1e-6)


def test_more_bad_inputs_raise_documented_errors():
    base = dict(shape=(3, 3), epsilon=1.0, delta=1e-5, sensitivity=1.0)
    mech = MVGMechanism(**base)
    with pytest.raises(NonFiniteInputError):
        mech.release(np.full((3, 3), np.inf))
    t3 = MVGMechanism(**base, gamma=2.0, calibration="theorem3")
    with pytest.raises(InvalidParameterError, match="symmetric"):
        t3.release(np.arange(9.0).reshape(3, 3) + 10 * np.eye(3))   # PSD part but not symmetric
    for bad, argument in [({"precision": [np.nan, 0.5, 0.5]}, "precision"),
                          ({"directions": np.full((3, 3), np.nan)}, "directions")]:
        with pytest.raises(NonFiniteInputError) as info:
            MVGMechanism(**base, mode="unimodal", **bad)
        assert info.value.argument == argument
    with pytest.raises(InvalidParameterError) as info:
        MVGMechanism(**base, calibration="theorem2", gamma=0.4)        # s2 > 2 gamma
    assert info.value.argument == "gamma"
    # an unsupported max-PNR rule names the mechanism's own argument
    for calibration in ("exact", "theorem2"):
        with pytest.raises(InvalidParameterError) as info:
            MVGMechanism(**base, gamma=2.0, calibration=calibration, mode="unimodal",
                          precision="max-pnr", signal_variances=[3.0, 2.0, 1.0], pnr_rule="bogus")
        assert info.value.argument == "pnr_rule"
    with pytest.raises(InvalidParameterError) as info:
        MVGMechanism(**base, mode="unimodal", precision="max-pnr", signal_variances=[3.0, 2.0, 1.0],
                     pnr_rule="mix")                                     # theorem-only rule
    assert info.value.argument == "pnr_rule"
    mix = MVGMechanism(**base, gamma=2.0, calibration="theorem2", mode="unimodal",
                       precision="max-pnr", signal_variances=[3.0, 2.0, 1.0], pnr_rule="mix")
    assert np.all(mix.theta > 0) and math.fsum(mix.theta) == pytest.approx(1.0)


def test_gaussian_noise_is_least_informative_against_laplace_too():
    """Spec §11.13 / Theorem 9 (scalar): I(f; f+Z) for Gaussian Z <= Laplace Z of equal variance."""
    s, n = 2.0, 1.5
    mi_gauss = 0.5 * math.log(1 + s / n)
    b = math.sqrt(n / 2)                                     # Laplace scale with variance n
    grid = np.linspace(-25, 25, 50001)
    # density of Y = F + L, F ~ N(0, s): closed form of the Gaussian-Laplace convolution
    sd = math.sqrt(s)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        lg = (np.log(0.5 / b) + s / (2 * b * b))
        dens = np.exp(lg - grid / b + scipy.stats.norm.logcdf(grid / sd - sd / b)) + \
            np.exp(lg + grid / b + scipy.stats.norm.logcdf(-grid / sd - sd / b))
    assert scipy.integrate.trapezoid(dens, grid) == pytest.approx(1.0, abs=1e-6)
    assert scipy.integrate.trapezoid(dens * grid ** 2, grid) == pytest.approx(s + n, rel=1e-4)
    h_y = -scipy.integrate.trapezoid(np.where(dens > 0, dens * np.log(dens), 0.0), grid)
    mi_laplace = h_y - (1 + math.log(2 * b))                 # h(Laplace) = 1 + log(2b)
    assert mi_gauss < mi_laplace
    assert mi_laplace - mi_gauss < 0.1                       # same order: not a units error
    # Lemma 8: at equal variance, Gaussian entropy strictly exceeds Laplace and uniform
    h_gauss = 0.5 * math.log(2 * math.pi * math.e * n)
    assert h_gauss > 1 + math.log(2 * b) and h_gauss > math.log(math.sqrt(12 * n))


def test_constant_feature_costs_nothing_for_every_allocation():
    """A feature whose public range is one point (lo == hi) never changes between neighbours:
    zero cost. MSE-optimal and max-PNR must still work (they used to raise about 'costs'),
    stay tight, and give that feature no share."""
    q = IdentityQuery(bounds=([0.0, 0.0, 0.0], [1.0, 0.0, 2.0]), n_samples=4)
    for kw in ({"precision": "mse-optimal"},
               {"precision": "max-pnr", "signal_variances": [1.0, 1.0, 1.0]}):
        mech = MVGMechanism(shape=(4, 3), epsilon=1.0, delta=1e-5, sensitivity=q, **kw)
        assert mech.theta[1] == 0.0 and math.fsum(mech.theta) == pytest.approx(1.0)
        assert np.all(np.isfinite(mech.variances)) and np.all(mech.variances > 0)
        assert mech.privacy.exact
        assert _true_delta(1.0, _brute_identity_mu(mech, q)) == pytest.approx(1e-5, rel=1e-6)
    # MSE-optimal on the two paid features: shares ∝ range (sqrt of cost), so θ = (1/3, 0, 2/3)
    mse = MVGMechanism(shape=(4, 3), epsilon=1.0, delta=1e-5, sensitivity=q, precision="mse-optimal")
    np.testing.assert_allclose(mse.theta, [1 / 3, 0.0, 2 / 3], rtol=1e-12)
    cov = CovarianceQuery(bounds=([0.0, 0.0, -1.0], [1.0, 0.0, 1.0]), n_samples=4)
    for mode in ("unimodal", "equimodal"):
        mech = MVGMechanism(shape=(3, 3), epsilon=1.0, delta=1e-5, sensitivity=cov, mode=mode,
                            precision="mse-optimal")
        assert mech.theta[1] == 0.0
        assert mech.privacy_profile(1.0) <= 1e-5 * (1 + 1e-9)
        assert _search_covariance_mu(mech, cov, np.random.default_rng(0)) <= \
            mech.mahalanobis_sensitivity * (1 + 1e-9)
    with pytest.raises(InvalidParameterError) as info:   # signal only on the free feature
        MVGMechanism(shape=(4, 3), epsilon=1.0, delta=1e-5, sensitivity=q, precision="max-pnr",
                     signal_variances=[0.0, 1.0, 0.0])
    assert info.value.argument == "signal_variances"


def test_max_pnr_rule_is_recorded_and_its_errors_name_pnr_rule():
    """Spec §6.3: the rule is a parameter and is recorded with each result."""
    q = IdentityQuery(bounds=(-1, 1), n_features=4, n_samples=10)
    signal = [5.0, 1.0, 0.01, 0.001]
    for calibration, rule in (("exact", "floor"), ("theorem2", "proportional")):
        mech = MVGMechanism(shape=(10, 4), epsilon=1.0, delta=1e-5, sensitivity=q,
                            calibration=calibration, precision="max-pnr", signal_variances=signal,
                            pnr_rule=rule)
        release = mech.release(np.zeros((10, 4)), rng=0)
        assert release.metadata["pnr_rule"] == rule
        assert any(f"pnr_rule={rule!r}" in note for note in release.privacy.notes)
    plain = MVGMechanism(shape=(10, 4), epsilon=1.0, delta=1e-5, sensitivity=q)
    assert plain.release(np.zeros((10, 4)), rng=0).metadata["pnr_rule"] is None
    # a tiny budget leaves directions without precision: "waterfill" refuses, naming pnr_rule
    with pytest.raises(InvalidParameterError) as info:
        MVGMechanism(shape=(10, 4), epsilon=0.01, delta=1e-12, sensitivity=q, precision="max-pnr",
                     signal_variances=signal, pnr_rule="waterfill")
    assert info.value.argument == "pnr_rule"


def test_dp_directions_and_signal_come_from_the_private_release_only():
    """Spec §6.4-6.5 / A9: Q and Λ_f come from the SuLQ output at (0.2ε, 0.2δ), never from raw X."""
    from matrixdp.calibration.allocation import exact_max_pnr_allocation
    from matrixdp.models.dp_directions import dp_covariance_eigen

    rng = np.random.default_rng(30)
    X = rng.uniform(-1, 1, size=(60, 4)) * np.array([1.0, 0.6, 0.3, 0.1])
    q = IdentityQuery(bounds=(-1, 1), n_features=4, n_samples=60)
    mech = DPDirectionsMVG(shape=(60, 4), epsilon=1.0, delta=1e-5, sensitivity=q,
                           random_state=5, precision="max-pnr").fit(X).mechanism_
    dp = dp_covariance_eigen(X, epsilon=0.2, delta=2e-6, bounds=(-1, 1), calibration="classic", rng=5)
    np.testing.assert_array_equal(mech.directions, dp.directions)
    costs = q.direction_costs(col_dirs=dp.directions)
    expected = exact_max_pnr_allocation(dp.eigenvalues / 60, costs, mech.precision_budget)
    np.testing.assert_allclose(mech.theta, expected, rtol=1e-12)
    # the raw (non-private) eigenvectors are a different basis at this budget
    raw = np.linalg.eigh(X.T @ X)[1][:, ::-1]
    assert np.max(np.abs(np.abs(raw.T @ mech.directions) - np.eye(4))) > 1e-3
    # a different DP draw gives different directions: they really are random outputs
    other = DPDirectionsMVG(shape=(60, 4), epsilon=1.0, delta=1e-5, sensitivity=q,
                            random_state=6, precision="max-pnr").fit(X).mechanism_
    assert not np.allclose(np.abs(other.directions), np.abs(mech.directions))
