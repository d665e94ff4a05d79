"""Task PA (session 18): the black-box estimator auditor on four options the audit catalogue
(:mod:`matrixdp.audit.estimator_catalogue`) does not cover, to confirm no claimed ε is refuted.

Entries (small n, the catalogue's neighbouring pairs; claims are each fit's ``privacy_``):

* ``DPLinearRegression[label_range='auto']`` (task RL, session 18): replace-one, ε = 3,
  δ = 1e-6, ``bounds_y = (-100, 100)``, on ``regression_pair(noisy=True)`` (n = 500 ≥ 1161/ε,
  so the label range is bought with 0.1 ε, then the fit); output: coefficients, intercept, the
  released joint moments and the released label range ``bounds_``.
* ``DPMean[add-remove]``: ε = 1, δ = 1e-6, on ``covariance_pair``'s 19 records vs the same
  plus (1, 1) (one record added).
* ``DPCovariance[adaptive_refine=True]`` (task HC): replace-one, ε = 1, δ = 1e-6, on
  ``covariance_pair`` (n = 20).
* ``RONGauss[add-remove]``: dim = 1, ε = 1 (pure), on ``covariance_pair``'s records vs the same
  plus (1, 1); output: ``mean_``, ``covariance_raw_``, ``n_records_`` (the projection is
  public randomness from the seed, the same draw on both datasets).

A lower bound above the claimed ε refutes the claim (95% confidence). Per-entry checkpoint in
``results/seam_audit_pa.jsonl`` (a killed run resumes); the table in ``results/seam_audit_pa.md``.
Run: ``nice -n 10 python experiments/seam_audit_pa.py [--fits N] [--pilot N]`` (defaults
2000 and 300 fits per dataset: the CI-cheap setting; the catalogue's full setting is 20000).
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

import numpy as np

from matrixdp.audit.estimator_catalogue import covariance_pair, regression_pair
from matrixdp.audit.estimators import audit_estimator, fitted_outputs
from matrixdp.models.experimental import RegressionOptions, CovarianceOptions

ROOT = Path(__file__).resolve().parents[1]
JSONL = ROOT / "results" / "seam_audit_pa.jsonl"
MD = ROOT / "results" / "seam_audit_pa.md"


def _added(pair):
    (X,), _ = pair
    return (X[:-1],), (X,)


def _label_output(est):
    lo_x, hi_x, lo_y, hi_y = est.bounds_
    return np.concatenate([fitted_outputs(est), [float(lo_y), float(hi_y)]])


def _ron_output(est):
    return np.concatenate([np.ravel(est.mean_), np.ravel(est.covariance_raw_),
                           [float(est.n_records_)]])


def entries():
    from matrixdp.models import DPCovariance, DPLinearRegression, DPMean
    from matrixdp.synth import RONGauss

    return [
        ("DPMean[add-remove]", 1.0, 1e-6,
         lambda s: DPMean(bounds=(-1, 1), neighbouring="add-remove", epsilon=1.0, delta=1e-6,
                          random_state=s),
         _added(covariance_pair()), lambda est: np.ravel(est.mean_)),
        ("DPCovariance[adaptive_refine=True]", 1.0, 1e-6,
         lambda s: DPCovariance(bounds=(-1, 1), method="adaptive",
                                experimental=CovarianceOptions(adaptive_refine=True),
                                epsilon=1.0, delta=1e-6, random_state=s),
         covariance_pair(), None),
        ("RONGauss[add-remove]", 1.0, 0.0,
         lambda s: RONGauss(dim=1, epsilon=1.0, neighbouring="add-remove", random_state=s),
         _added(covariance_pair()), _ron_output),
        ("DPLinearRegression[label_range='auto']", 3.0, 1e-6,
         lambda s: DPLinearRegression(bounds_X=(-1, 1), bounds_y=(-100, 100),
                                      experimental=RegressionOptions(label_range="auto"),
                                      epsilon=3.0, delta=1e-6, random_state=s),
         regression_pair(noisy=True), _label_output),
    ]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--fits", type=int, default=2000)
    ap.add_argument("--pilot", type=int, default=300)
    args = ap.parse_args(argv)
    done = {}
    if JSONL.exists():
        for line in JSONL.read_text().splitlines():
            row = json.loads(line)
            done[row["name"]] = row
    for name, eps, delta, make, (data, data_prime), output in entries():
        if name in done:
            continue
        t = time.time()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = audit_estimator(make, data, data_prime, epsilon=eps, delta=delta, output=output,
                                  n_fits=args.fits, n_pilot=args.pilot, seed=0, name=name)
        row = {"name": name, "epsilon": eps, "delta": delta, "n_fits": args.fits,
               "n_pilot": args.pilot, "epsilon_lower_bound": float(res.epsilon_lower_bound),
               "passed": bool(res.result.passed), "seconds": round(time.time() - t, 1)}
        with JSONL.open("a") as fh:
            fh.write(json.dumps(row) + "\n")
        done[name] = row
        print(row, flush=True)
    lines = ["# Task PA: black-box estimator audit of four uncatalogued options", "",
             "Script: `experiments/seam_audit_pa.py` (settings in its docstring); confidence 0.95,"
             " seed 0. A lower bound above the claimed epsilon would refute the claim.", "",
             "| entry | claimed (eps, delta) | fits / pilot per dataset | eps lower bound | "
             "refuted? | seconds |", "|---|---|---|---|---|---|"]
    for row in done.values():
        lines.append(f"| {row['name']} | ({row['epsilon']:g}, {row['delta']:g}) | "
                     f"{row['n_fits']} / {row['n_pilot']} | {row['epsilon_lower_bound']:.3f} | "
                     f"{'no' if row['passed'] else 'YES'} | {row['seconds']} |")
    MD.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
