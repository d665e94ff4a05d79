"""Exact vs float numerics: the noise price of the exact path, and what a bit-level attacker sees.

Writes ``results/exact_numerics.md`` and ``results/exact_numerics.csv``:

1. sigma of the exact (lattice, discrete Gaussian, proven zCDP bound) Gaussian mechanism over
   the analytic float sigma, for a scalar and for 10^6 entries, on a grid of (epsilon, delta);
2. the black-box auditor at ``resolution=0`` (every bit seen; the exact log-likelihood-ratio
   statistic) and the low-bit attack (outputs with a bit below 2^-53, which only the
   neighbour 0 can produce on the float path; Mironov 2012) on the float and exact paths of the
   Laplace, Gaussian and MVG mechanisms, epsilon = 1, 10^5 draws per neighbour, seeds 0-2.

Run: ``PYTHONPATH=src python experiments/exact_numerics.py [--samples N] [--out DIR]``.
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

import numpy as np

import matrixdp
from matrixdp.audit import audit_mechanism
from matrixdp.audit.statistics import named_statistic
from matrixdp.queries import IdentityQuery


@named_statistic("low-bits")
def low_bits(outputs, value, value_prime):
    """0 when the output has a bit below 2^-53 (impossible for fl(1 + noise)), else 1."""
    y = np.asarray(outputs, dtype=float).reshape(len(outputs), -1)[:, 0]
    scaled = y * 2.0 ** 53
    return (scaled == np.floor(scaled)).astype(float)


def sigma_rows():
    rows = []
    for eps in (0.1, 0.5, 1.0, 2.0, 4.0):
        for delta in (1e-5, 1e-8):
            analytic = matrixdp.GaussianMechanism(epsilon=eps, delta=delta, sensitivity=1.0).sigma
            ex = matrixdp.GaussianMechanism(epsilon=eps, delta=delta, sensitivity=1.0, numerics="exact")
            s1 = ex.noise_summary((1,)).scale
            s6 = ex.noise_summary((10 ** 6,)).scale
            rows.append({"epsilon": eps, "delta": delta, "analytic_sigma": analytic,
                         "exact_sigma_scalar": s1, "exact_sigma_1e6": s6,
                         "ratio_scalar": s1 / analytic, "ratio_1e6": s6 / analytic})
    return rows


def audit_rows(n: int, seeds):
    q = IdentityQuery(bounds=(0.0, 1.0), n_features=3, n_samples=4)
    mechs = {}
    for num in ("float", "exact"):
        mechs[("laplace", num)] = (matrixdp.LaplaceMechanism(epsilon=1.0, sensitivity=1.0, numerics=num),
                                   np.zeros(1), np.ones(1))
        mechs[("gaussian", num)] = (matrixdp.GaussianMechanism(epsilon=1.0, delta=1e-5, sensitivity=1.0,
                                                               numerics=num), np.zeros(1), np.ones(1))
        mvg = matrixdp.MVGMechanism(shape=(4, 3), epsilon=1.0, delta=1e-5, sensitivity=q, numerics=num)
        a, b = mvg.witnesses()[-1]
        mechs[("mvg", num)] = (mvg, np.asarray(a, float), np.asarray(b, float))
    rows = []
    for (name, num), (mech, a, b) in mechs.items():
        for test, stat in (("auditor (resolution=0)", None), ("low-bit attack", low_bits)):
            if test == "low-bit attack" and name == "mvg":
                continue        # the low-bit event is defined for the scalar pair 0 vs 1
            bounds = [audit_mechanism(mech, a, b, n_samples=n, rng=s, resolution=0,
                                      statistic=stat).epsilon_lower_bound for s in seeds]
            rows.append({"mechanism": name, "numerics": num, "test": test,
                         "claimed_epsilon": 1.0, "epsilon_lb_min": min(bounds),
                         "epsilon_lb_max": max(bounds), "refuted": any(x > 1.0 for x in bounds)})
            print(rows[-1], flush=True)
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=100_000)
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[1] / "results")
    args = parser.parse_args(argv)
    seeds = (0, 1, 2)
    srows = sigma_rows()
    arows = audit_rows(args.samples, seeds)
    args.out.mkdir(parents=True, exist_ok=True)
    with open(args.out / "exact_numerics.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["table", "key", "value"])
        for r in srows:
            for k, v in r.items():
                w.writerow(["sigma", f"eps={r['epsilon']},delta={r['delta']}:{k}", v])
        for r in arows:
            for k, v in r.items():
                w.writerow(["audit", f"{r['mechanism']},{r['numerics']},{r['test']}:{k}", v])
    lines = ["# Exact vs float numerics", "",
             "Written by `experiments/exact_numerics.py`. See `docs/numerics.md`.", "",
             "## Noise price of the exact path (Gaussian, L2 sensitivity 1)", "",
             "sigma of `GaussianMechanism(numerics='exact')` (discrete Gaussian on the lattice, "
             "calibrated through its proven zCDP bound on the rounding-inflated sensitivity) over "
             "the analytic float sigma (Balle & Wang), for a scalar release and for 10^6 entries.", "",
             "| epsilon | delta | analytic sigma | exact sigma (scalar) | ratio | exact sigma (10^6 entries) | ratio |",
             "|---:|---:|---:|---:|---:|---:|---:|"]
    for r in srows:
        lines.append(f"| {r['epsilon']:g} | {r['delta']:g} | {r['analytic_sigma']:.5g} | "
                     f"{r['exact_sigma_scalar']:.5g} | {r['ratio_scalar']:.4f} | "
                     f"{r['exact_sigma_1e6']:.5g} | {r['ratio_1e6']:.4f} |")
    lines += ["", f"## Bit-level audits (claimed epsilon = 1; {args.samples:,} draws per neighbour; "
                  f"seeds {seeds[0]}-{seeds[-1]}; confidence 0.95)", "",
              "| mechanism | numerics | test | epsilon lower bound (min-max over seeds) | refuted |",
              "|---|---|---|---|---|"]
    for r in arows:
        lines.append(f"| {r['mechanism']} | {r['numerics']} | {r['test']} | "
                     f"{r['epsilon_lb_min']:.3g} - {r['epsilon_lb_max']:.3g} | "
                     f"{'**yes**' if r['refuted'] else 'no'} |")
    lines += ["", "The low-bit attack's event ('the output has a bit below 2^-53') has probability "
              "~1/4 under the neighbour 0 and exactly 0 under the neighbour 1 on the float path "
              "(fl(1 + noise) is a multiple of 2^-53), so no finite epsilon holds; its bound is "
              "capped only by the number of draws. On the exact path every output is a lattice "
              "point both neighbours produce."]
    (args.out / "exact_numerics.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
