"""``matrixdp demo``: an end-to-end private release on generated data.

The demo grows as capabilities land: each section is a function in ``SECTIONS``
that takes the data, its public bounds, the budget and a generator, and prints
what it released and the guarantee.
"""

from __future__ import annotations

import numpy as np

from ..mechanisms import GaussianMechanism, LaplaceMechanism
from ..rng import make_rng

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


def section_mean(X, epsilon, delta, rng) -> None:
    """Release the feature means with the analytic Gaussian mechanism."""
    n = X.shape[0]
    # Replace-one: one record moves each mean by at most (upper - lower)/n.
    sensitivity = float(np.linalg.norm(UPPER - LOWER) / n)
    mech = GaussianMechanism(epsilon=epsilon, delta=delta, sensitivity=sensitivity)
    rel = mech.release(X.mean(axis=0), rng=rng)
    print(f"\n[1] Feature means, Gaussian mechanism (L2 sensitivity {sensitivity:.4g}, "
          f"sigma {mech.sigma:.4g})")
    for name, true, noisy in zip(FEATURES, X.mean(axis=0), rel.value):
        print(f"    {name:<12} true {true:9.3f}   released {noisy:9.3f}")
    print(f"    guarantee: {rel.privacy}")


def section_count(X, epsilon, delta, rng) -> None:
    """Release an age histogram with the Laplace mechanism."""
    edges = np.array([18, 30, 45, 60, 75, 90.0001])
    counts = np.histogram(X[:, 0], bins=edges)[0].astype(float)
    # Replace-one moves one record between two bins: L1 sensitivity 2.
    mech = LaplaceMechanism(epsilon=epsilon, sensitivity=2.0)
    rel = mech.release(counts, rng=rng)
    print(f"\n[2] Age histogram, Laplace mechanism (L1 sensitivity 2, scale {mech.scale:.4g})")
    for lo, hi, true, noisy in zip(edges[:-1], edges[1:], counts, rel.value):
        print(f"    [{lo:4.0f}, {hi:4.0f})  true {true:7.0f}   released {noisy:9.1f}")
    print(f"    guarantee: {rel.privacy}")


def section_fisher_release(X, epsilon, delta, rng) -> None:
    """Release the whole table, record by record, with Farokhi's optimal Gaussian noise (local DP)."""
    from ..release import FisherNoiseRelease

    # Pi = diag(range^-4) makes each feature's noise proportional to its public range.
    mech = FisherNoiseRelease(epsilon=epsilon, delta=delta, weights=(UPPER - LOWER) ** -4.0,
                              feature_ranges=np.column_stack([LOWER, UPPER]))
    rel = mech.release(X, rng=rng)
    std = np.sqrt(np.diag(mech.second_moment))
    print(f"\n[3] Whole table, Fisher-optimal Gaussian noise per record (local DP, lambda "
          f"{mech.lam:.3g}; Cramer-Rao level {mech.crb:.4g})")
    for name, s, true, noisy in zip(FEATURES, std, X.mean(axis=0), rel.value.mean(axis=0)):
        print(f"    {name:<12} noise sd {s:9.2f}   mean true {true:8.2f}   mean of released {noisy:8.2f}")
    print(f"    guarantee: {rel.privacy}")


SECTIONS = [section_mean, section_count, section_fisher_release]


def run(args) -> int:
    gen = make_rng(args.seed)
    X = make_demo_data(args.records, gen)
    print(f"matrixdp demo: {args.records} generated records x {len(FEATURES)} features "
          f"({', '.join(FEATURES)}), public bounds {LOWER.tolist()} .. {UPPER.tolist()}")
    print(f"Each release below spends epsilon={args.epsilon}, delta={args.delta} "
          f"(replace-one neighbours).")
    for section in SECTIONS:
        section(X, args.epsilon, args.delta, gen)
    total = len(SECTIONS)
    print(f"\nTotal by basic composition over {total} releases: "
          f"epsilon={total * args.epsilon:g}, delta={total * args.delta:g}")
    if args.seed is not None:
        print("note: --seed makes the noise reproducible; use it only for demonstrations.")
    return 0


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("demo", help="run an end-to-end private release on generated data",
                              description=__doc__.splitlines()[0])
    p.add_argument("--records", type=int, default=5000, help="number of generated records (default 5000)")
    p.add_argument("--epsilon", type=float, default=1.0, help="epsilon per release (default 1)")
    p.add_argument("--delta", type=float, default=1e-6, help="delta per release (default 1e-6)")
    p.add_argument("--seed", type=int, default=None,
                   help="seed for reproducible output (default: secure randomness)")
    p.set_defaults(func=run)
