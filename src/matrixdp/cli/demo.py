"""``matrixdp demo``: an end-to-end private release on generated data.

The demo grows as capabilities land: each section is a function in ``SECTIONS``
that takes the data, the budget per release, a generator and the ledger every release is
charged to (before its noise is drawn), and prints what it released and the guarantee. The
total is read back from the ledger.
"""

from __future__ import annotations

import contextlib
import tempfile
from pathlib import Path

import numpy as np

from ..accounting import Ledger, charge, local_as_replace_one

from ..mechanisms import GaussianMechanism, LaplaceMechanism
from ..rng import make_rng
from ._options import check_epsilon_option, seed as _seed

#: The temporary ledger's budget, in releases of (epsilon, delta) each.
DEMO_BUDGET_RELEASES = 10

#: Public bounds of the generated table's features (known before seeing data).
FEATURES = ("age", "systolic_bp", "cholesterol", "bmi")
LOWER = np.array([18.0, 80.0, 100.0, 15.0])
UPPER = np.array([90.0, 200.0, 320.0, 45.0])


def make_demo_data(n_records: int, rng) -> np.ndarray:
    """Generate a plausible, correlated health table clipped to its public bounds."""
    gen = make_rng(rng)
    latent = gen.standard_normal((n_records, 1))
    centre = np.array([52.0, 128.0, 200.0, 27.0])
    spread = np.array([14.0, 15.0, 35.0, 4.5])
    X = centre + spread * (0.6 * latent + 0.8 * gen.standard_normal((n_records, 4)))
    return np.clip(X, LOWER, UPPER)


def mean_mechanism(n_records: int, epsilon, delta) -> GaussianMechanism:
    """The analytic Gaussian mechanism for the feature means of ``n_records`` bounded records."""
    # Replace-one: one record moves each mean by at most (upper - lower)/n.
    sensitivity = float(np.linalg.norm(UPPER - LOWER) / n_records)
    return GaussianMechanism(epsilon=epsilon, delta=delta, sensitivity=sensitivity)


def section_mean(X, epsilon, delta, rng, ledger=None) -> None:
    """Release the feature means with the analytic Gaussian mechanism."""
    mech = mean_mechanism(X.shape[0], epsilon, delta)
    rel = mech.release(X.mean(axis=0), rng=rng, ledger=ledger, label="feature means")
    print(f"\n[1] Feature means, Gaussian mechanism (L2 sensitivity {mech.sensitivity:.4g}, "
          f"sigma {mech.sigma:.4g})")
    for name, true, noisy in zip(FEATURES, X.mean(axis=0), rel.value):
        print(f"    {name:<12} true {true:9.3f}   released {noisy:9.3f}")
    print(f"    guarantee: {rel.privacy}")


def section_count(X, epsilon, delta, rng, ledger=None) -> None:
    """Release an age histogram with the Laplace mechanism."""
    edges = np.array([18, 30, 45, 60, 75, 90.0001])
    counts = np.histogram(X[:, 0], bins=edges)[0].astype(float)
    # Replace-one moves one record between two bins: L1 sensitivity 2.
    mech = LaplaceMechanism(epsilon=epsilon, sensitivity=2.0)
    rel = mech.release(counts, rng=rng, ledger=ledger, label="age histogram")
    print(f"\n[2] Age histogram, Laplace mechanism (L1 sensitivity 2, scale {mech.scale:.4g})")
    for lo, hi, true, noisy in zip(edges[:-1], edges[1:], counts, rel.value):
        print(f"    [{lo:4.0f}, {hi:4.0f})  true {true:7.0f}   released {noisy:9.1f}")
    print(f"    guarantee: {rel.privacy}")


def section_mvg_covariance(X, epsilon, delta, rng, ledger=None) -> None:
    """Release the second-moment matrix with directional MVG noise next to i.i.d. Gaussian noise."""
    from ..calibration.allocation import binary_allocation
    from ..mechanisms import MVGMechanism
    from ..queries import CovarianceQuery

    n = X.shape[0]
    centre = (LOWER + UPPER) / 2  # public: the middle of the public bounds, not the data mean
    query = CovarianceQuery(bounds=(LOWER, UPPER), n_samples=n, center=centre)
    value = query.compute(X)
    important = [0, 1]  # age and systolic_bp: the entries we care most about
    block = np.ix_(important, important)
    gauss = GaussianMechanism(epsilon=epsilon, delta=delta, sensitivity=query.sensitivity_l2)
    rows = [("i.i.d. Gaussian (analytic)",
             gauss.release(value, rng=rng, ledger=ledger, label="second moment, iid Gaussian"),
             np.full(value.shape, gauss.variance))]
    for label, precision in (("MVG, binary 80% on age+bp", binary_allocation(important, 80, 4)),
                             ("MVG, MSE-optimal shares", "mse-optimal")):
        mech = MVGMechanism(shape=value.shape, epsilon=epsilon, delta=delta, sensitivity=query,
                            mode="equimodal", precision=precision)
        variances = np.outer(np.diagonal(mech.row_cov), np.diagonal(mech.col_cov))
        rows.append((label, mech.release(value, rng=rng, ledger=ledger,
                                         label=f"second moment, {label}"), variances))
    print("\n[3] Second-moment matrix about the public centre (4x4): MVG noise (exact "
          "calibration, equimodal) vs i.i.d. Gaussian noise")
    print(f"    {'mechanism':<28} {'|err|_F':>9} {'E|err|^2':>10} {'|err| age+bp':>13} "
          f"{'E|err|^2 age+bp':>16}")
    for label, rel, variances in rows:
        err = rel.value - value
        print(f"    {label:<28} {np.linalg.norm(err):9.4g} {variances.sum():10.4g} "
              f"{np.linalg.norm(err[block]):13.4g} {variances[block].sum():16.4g}")
    for label, rel, _ in rows:
        print(f"    {label:<28} {rel.privacy}")
    print("    (three alternative releases of the same matrix; all three are counted below)")


def section_synthetic(X, epsilon, delta, rng, ledger=None) -> None:
    """Fit RON-Gauss on the table with a public label and compare synthetic-trained accuracy."""
    from ..synth import RONGauss
    from ..synth.evaluate import classification_utility

    # label: a metabolic risk flag (cholesterol and bmi both well above their public midpoints)
    midpoint = (LOWER + UPPER) / 2
    y = ((X[:, 2] - midpoint[2]) / (UPPER[2] - LOWER[2])
         + (X[:, 3] - midpoint[3]) / (UPPER[3] - LOWER[3]) > -0.1).astype(int)
    features = X
    n_train = int(0.7 * len(X))
    model = RONGauss(dim=3, epsilon=epsilon, task="classification", classes=[0, 1],
                     random_state=int(rng.integers(2 ** 31)))
    model.fit(features[:n_train], y[:n_train], ledger=ledger)
    # the synthetic classes keep the (DP) class balance: score with a class-balanced classifier
    from sklearn.linear_model import LogisticRegression

    report = classification_utility(model, features[:n_train], y[:n_train], features[n_train:],
                                    y[n_train:], rng=rng,
                                    estimator=LogisticRegression(max_iter=2000,
                                                                 class_weight="balanced"))
    print("\n[4] Synthetic data, RON-Gauss (projection to 3 dims, one Gaussian per class; "
          "label: metabolic risk flag)")
    print(f"    balanced accuracy on real test records: trained on synthetic "
          f"{report.extra['balanced_accuracy']:.3f}, trained on real "
          f"{report.extra['balanced_accuracy_real']:.3f}, chance 0.5")
    print(f"    guarantee: {model.privacy_}")


def section_dataset_release(X, epsilon, delta, rng, ledger=None) -> None:
    """Release the whole table with Fisher-optimal Gaussian noise (local DP per record)."""
    from ..mechanisms.fisher import FisherNoiseMechanism

    releaser = FisherNoiseMechanism(epsilon=epsilon, delta=delta,
                                     feature_ranges=np.column_stack([LOWER, UPPER]))
    # local DP per record is DP under replace-one: it composes with the central releases
    with charge(local_as_replace_one(releaser.privacy), ledger=ledger,
                label="whole table (local DP)"):
        rel = releaser.release(X, rng=rng)
    print("\n[5] Whole-table release, Fisher-information-optimal Gaussian noise (Farokhi), "
          "every record noised independently")
    noise_std = (rel.value - X).std(axis=0)
    for name, std, true, released in zip(FEATURES, noise_std, X.mean(axis=0), rel.value.mean(axis=0)):
        print(f"    {name:<12} per-record noise std {std:8.1f}; column mean true {true:8.2f}, "
              f"from released table {released:8.2f}")
    print(f"    (local DP protects each record on its own: the noise is sized to the whole public "
          f"range, and a column mean is off by about std/sqrt(n) = "
          f"{float(noise_std.mean()) / np.sqrt(len(X)):.1f})")
    print(f"    guarantee: {rel.privacy}")


def section_audit(X, epsilon, delta, rng, ledger=None) -> None:
    """Audit the Gaussian mechanism of section 1 on its worst-case pair (no data touched)."""
    from ..audit import audit_mechanism, exact_delta

    mech = mean_mechanism(X.shape[0], epsilon, delta)
    value = np.zeros(len(FEATURES))
    value_prime = value.copy()
    value_prime[0] = mech.sensitivity
    result = audit_mechanism(mech, value, value_prime, epsilon=epsilon, delta=delta,
                             n_samples=20000, rng=rng)
    print("\n[6] Evidence: audit of the section-1 mechanism on its worst-case neighbouring pair")
    print(f"    exact delta at epsilon={epsilon:g}: {exact_delta(mech, epsilon):.3g}; black-box "
          f"epsilon lower bound {result.epsilon_lower_bound:.3f} (95% confidence) <= claimed "
          f"{epsilon:g}: {'consistent' if result.passed else 'REFUTED'}")
    print("    (`matrixdp audit --all` audits every mechanism the library ships)")
    # an audit runs on public witnesses: it spends no budget (not charged to the ledger)


SECTIONS = [section_mean, section_count, section_mvg_covariance, section_synthetic,
            section_dataset_release, section_audit]


#: The smallest table the demo runs on (RON-Gauss and the audit need some records).
MIN_RECORDS = 200


def _check_args(args) -> None:
    """Reject bad options before any output, naming the option."""
    from ..errors import InvalidParameterError

    if args.records < MIN_RECORDS:
        raise InvalidParameterError("--records", f"must be >= {MIN_RECORDS}, got {args.records}")
    check_epsilon_option(args.epsilon)
    if not (0.0 < args.delta < 1.0):
        raise InvalidParameterError("--delta", f"must be in (0, 1), got {args.delta:g}")


def run(args) -> int:
    _check_args(args)
    gen = make_rng(args.seed)
    X = make_demo_data(args.records, gen)
    print(f"matrixdp demo: {args.records} generated records x {len(FEATURES)} features "
          f"({', '.join(FEATURES)}), public bounds {LOWER.tolist()} .. {UPPER.tolist()}")
    print(f"Each release below spends epsilon={args.epsilon}, delta={args.delta} "
          f"(replace-one neighbours).")
    with contextlib.ExitStack() as stack:
        if args.ledger is not None:
            ledger = Ledger.open(args.ledger)
            where = f"ledger {args.ledger}"
        else:
            tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="matrixdp-demo-"))
            budget = DEMO_BUDGET_RELEASES
            ledger = Ledger.create(Path(tmp) / "demo.ledger", dataset="matrixdp demo table",
                                   epsilon=budget * args.epsilon,
                                   delta=min(budget * args.delta, 0.5))
            where = (f"a temporary ledger (budget {budget} x (epsilon, delta); pass --ledger to "
                     "keep one)")
        stack.callback(ledger.close)
        print(f"Every release is charged to {where} before its noise is drawn.")
        for section in SECTIONS:
            section(X, args.epsilon, args.delta, gen, ledger=ledger)
        history = ledger.history()
        basic = ledger.spent(delta=sum(h["delta"] for h in history), method="basic")
        tight = ledger.spent(delta=basic.delta)
    print(f"\nTotal from the ledger by basic composition over {len(history)} releases: "
          f"epsilon={basic.epsilon:g}, delta={basic.delta:g}")
    print(f"Tightest valid composition at the same delta ({tight.calibration}): "
          f"epsilon={tight.epsilon:.4g}")
    if args.seed is not None:
        print("note: --seed makes the noise reproducible; use it only for demonstrations.")
    return 0


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("demo", help="run an end-to-end private release on generated data",
                              description="An end-to-end private release on generated data.")
    p.add_argument("--records", type=int, default=5000, help="number of generated records (default 5000)")
    p.add_argument("--epsilon", type=float, default=1.0, help="epsilon per release (default 1)")
    p.add_argument("--delta", type=float, default=1e-6, help="delta per release (default 1e-6)")
    p.add_argument("--seed", type=_seed, default=None,
                   help="seed for reproducible output (default: secure randomness)")
    p.add_argument("--ledger", default=None, metavar="DATASET.db",
                   help="charge the releases to this privacy-budget ledger (see `matrixdp budget "
                        "init`; default: a temporary one)")
    p.set_defaults(func=run)
