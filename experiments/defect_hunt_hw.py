"""Task HW's defect hunt (publishable outputs): each probe run on the base commit and on this tree.

Every probe is a short program that prints one line of JSON (what it observed). The script runs
each probe in a fresh process twice: with the library of ``--base`` (default 614b791, the commit
the hunt started from; its ``src/`` is taken with ``git archive`` into a temporary folder) and with
this checkout's ``src/``, with a time limit. Nothing is tuned or chosen from the results: the
probes are the reproductions written before each fix (and two measurements of things not
changed: a projection that misses its box with two constant columns, and the sensitivity of the
benchmarks' Analyze Gauss peer), and the table states what each printed.

Command (from the repository root)::

    PYTHONPATH=src python experiments/defect_hunt_hw.py

writes ``results/defect_hunt_hw_probes.md`` and ``.csv``. The list of defects, severities, fixes
and tests is ``results/defect_hunt_hw.md`` (written by hand; it cites this file for the numbers).
"""

from __future__ import annotations

import argparse
import csv
import sys
import tempfile
from pathlib import Path

from _defect_probes import base_tree, markdown_row, run_probe

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "results"

PROBES = [
    ("mvg_interval_per_entry_coverage",
     "MVGMechanism shape (4, 3), unimodal, precision shares (0.7, 0.1, 0.1, 0.1), eps 1, "
     "delta 1e-5: coverage of Release.interval(0.95) per row of entries over 2,000 seeded "
     "releases (3 entries a row)",
     """
     import json, numpy as np
     from matrixdp import MVGMechanism
     m = MVGMechanism(shape=(4, 3), epsilon=1.0, delta=1e-5, sensitivity=1.0, mode="unimodal",
                      precision=[0.7, 0.1, 0.1, 0.1])
     v = np.arange(12.0).reshape(4, 3); hits = np.zeros((4, 3))
     for s in range(2000):
         rel = m.release(v, rng=s); lo, hi = rel.interval(0.95)
         hits += (lo <= v) & (v <= hi)
     print(json.dumps({"row_coverage": [round(float(x), 3) for x in hits.mean(axis=1) / 2000]}))
     """),
    ("mvg_interval_contract_case",
     "the MVG contract case of tests/mechanisms/test_contract.py (IdentityQuery, precision "
     "(0.5, 0.3, 0.2)): lowest and highest per-entry coverage of Release.interval(0.95), "
     "2,000 seeded releases",
     """
     import json, numpy as np
     from matrixdp import MVGMechanism
     from matrixdp.queries import IdentityQuery
     q = IdentityQuery(bounds=(0.0, 1.0), n_features=3, n_samples=4)
     m = MVGMechanism(shape=(4, 3), epsilon=1.0, delta=1e-5, sensitivity=q,
                      precision=[0.5, 0.3, 0.2])
     v = np.full((4, 3), 0.5); hits = np.zeros((4, 3))
     for s in range(2000):
         rel = m.release(v, rng=s); lo, hi = rel.interval(0.95)
         hits += (lo <= v) & (v <= hi)
     c = hits / 2000
     print(json.dumps({"min": round(float(c.min()), 3), "max": round(float(c.max()), 3)}))
     """),
    ("project_feasible_lower_above_upper",
     "feasible.project_feasible(eye(2), lower=[1, 1], upper=[0, 0], 'covariance')",
     """
     import json, numpy as np
     from matrixdp.feasible import project_feasible
     try:
         out = project_feasible(np.eye(2), [1.0, 1.0], [0.0, 0.0], "covariance")
         print(json.dumps({"returned": np.round(out, 4).tolist()}))
     except Exception as e:
         print(json.dumps({"refused": type(e).__name__, "names": str(e).split(":")[0]}))
     """),
    ("project_feasible_misspelt_kind",
     "feasible.project_feasible(2 eye(2), 0, 1, kind='corr') (a misspelt 'correlation')",
     """
     import json, numpy as np
     from matrixdp.feasible import project_feasible
     try:
         out = project_feasible(2 * np.eye(2), [0.0, 0.0], [1.0, 1.0], "corr")
         print(json.dumps({"returned": np.round(out, 4).tolist()}))
     except Exception as e:
         print(json.dumps({"refused": type(e).__name__, "names": str(e).split(":")[0]}))
     """),
    ("gram_two_constant_columns",
     "NOT FIXED (measured): DPCovariance(kind='gram') with 2 public constant columns (bounds "
     "1:1) and d - 2 columns in [-1, 1], d = 3 and 6, eps 0.01/0.1/1, 10 seeds (60 fits): "
     "fits whose released matrix leaves the box of mean(x_i x_j) by > 1e-6, and the worst "
     "violation",
     """
     import json, warnings, numpy as np
     warnings.simplefilter("ignore")
     from matrixdp import DPCovariance
     from matrixdp.feasible import second_moment_entry_bounds
     rng = np.random.default_rng(0); bad = 0; worst = 0.0; tot = 0
     for d in (3, 6):
         for eps in (0.01, 0.1, 1.0):
             for seed in range(10):
                 lo = np.r_[np.ones(2), -np.ones(d - 2)]; hi = np.ones(d)
                 X = rng.uniform(lo, hi, (100, d))
                 G = DPCovariance(kind="gram", epsilon=eps, bounds=(lo, hi),
                                  random_state=seed).fit(X).covariance_
                 l, u = second_moment_entry_bounds(lo, hi)
                 v = float(max((l - G).max(), (G - u).max())); tot += 1
                 bad += v > 1e-6; worst = max(worst, v)
     print(json.dumps({"fits": tot, "outside_box": int(bad), "worst": float(f"{worst:.2g}")}))
     """),
    ("analyze_gauss_triangle_sensitivity",
     "NOT CHANGED (measured): the benchmarks' Analyze Gauss peer (experiments/_utility_common.py) "
     "calibrates the mirrored upper triangle of (1/n) sum z z^T, z = (x - c, t), to sqrt(2) R^2/n; "
     "the largest triangle change over pairs of records with coordinates in {-h_i, 0, h_i} "
     "(t = balanced_constant), for h = (0.5, 1, 2), (1, 1, 1, 1) and (0.5, 1, 1.5, 2, 2.5)",
     """
     import itertools, json, math, numpy as np
     from matrixdp.models._moments import balanced_constant
     out = {}
     for h in ([0.5, 1.0, 2.0], [1.0, 1.0, 1.0, 1.0], [0.5, 1.0, 1.5, 2.0, 2.5]):
         h = np.asarray(h); t = balanced_constant(h, float(np.mean(h * h)))
         R2 = float(h @ h + t * t)
         V = np.array(list(itertools.product(*[(-x, 0.0, x) for x in h])))
         Z = np.column_stack([V, np.full(len(V), t)])
         Q = np.einsum("ki,kj->kij", Z, Z)
         iu = np.triu_indices(len(h) + 1)
         T = Q[:, iu[0], iu[1]]
         best = 0.0
         for k in range(0, len(T), 256):
             best = max(best, float(np.sqrt(((T[k:k + 256, None] - T[None]) ** 2).sum(-1)).max()))
         out[str(h.tolist())] = {"sqrt2_R2": round(math.sqrt(2) * R2, 4), "found": round(best, 4),
                                 "R2": round(R2, 4)}
     print(json.dumps(out))
     """),
]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="614b791")
    parser.add_argument("--timeout", type=float, default=180.0)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        base = base_tree(args.base, Path(tmp), ("src", "experiments"))
        for name, what, program in PROBES:
            before = run_probe(program, base, args.timeout)
            after = run_probe(program, ROOT / "src", args.timeout)
            rows.append({"probe": name, "what": what, "before": before, "after": after})
            print(f"{name}: before {before} | after {after}", flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    with open(args.out / "defect_hunt_hw_probes.csv", "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=["probe", "what", "before", "after"])
        writer.writeheader()
        writer.writerows(rows)
    lines = ["# Task HW: the defects' reproductions before and after the fixes", "",
             f"Script: `experiments/defect_hunt_hw.py`. Before: the library at commit "
             f"`{args.base}` (the hunt's base); after: this tree's `src/`. Each probe runs in a "
             f"fresh process with a {args.timeout:g} s limit and prints one JSON value. The "
             "defect list, severities, fixes and tests: `results/defect_hunt_hw.md`.", "",
             "| probe | what it does | before | after |", "|---|---|---|---|"]
    for r in rows:
        cells = [r["probe"], r["what"], r["before"], r["after"]]
        lines.append(markdown_row(cells))
    (args.out / "defect_hunt_hw_probes.md").write_text("\n".join(lines) + "\n")
    print(f"wrote {args.out / 'defect_hunt_hw_probes.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
