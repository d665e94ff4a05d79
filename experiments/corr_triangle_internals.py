"""Diagnosis, part B (decides nothing) of task TC's candidate ``CovarianceOptions(
adaptive_correlation_triangle=True)``: inside the correlation fit, where does the triangle's
smaller entry variance go? (``results/corr_triangle_diagnosis.md`` found the unshrunk triangle
correlation 1.03-1.10x the full draw's where the noise dominates, its off-diagonal slope lower.)

For three benchmark cells (the gate's setup; 20 paired trials, seeds
``SeedSequence(2026120144).generate_state(20)``, new; ``shrinkage="none"``, ``method="adaptive"``),
the raw covariance handed to ``project_feasible`` and the projected one are captured (a wrapper
around ``covariance.project_feasible``, read only) and compared with the clipped records'
covariance ``C`` (``1/n``). Per trial:

- ``diag_err``: median over features of ``|Ĉ_ii - C_ii| / C_ii`` (raw);
- ``off_err``: ``‖(Ĉ - C)_off / sqrt(C_ii C_jj)‖`` (raw, correlation units);
- ``diag_infl``: median over features of ``Ĉ_ii / C_ii`` after the projection;
- ``naive_err``: relative Frobenius error of ``Ĉ_ij / sqrt(Ĉ_ii Ĉ_jj)`` from the projected
  covariance (before ``nearest_correlation``);
- ``error``: the released correlation's relative Frobenius error (as the gate).

Command::

    cd experiments && nice -n 10 env OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \\
        PYTHONPATH=../src MATRIXDP_DATA=/work/shared/datasets python corr_triangle_internals.py
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _utility_common as uc  # noqa: E402
import correlation_floor_gate as base  # noqa: E402

OUT_MD = uc.REPO_ROOT / "results" / "corr_triangle_internals.md"
OUT_CSV = uc.REPO_ROOT / "results" / "corr_triangle_internals.csv"
SEED, TRIALS = 2026120144, 20
CELLS = (("lending_club", 0.1), ("liver", 2.0), ("adult", 1.0))
COLS = ("error", "diag_err", "off_err", "diag_infl", "naive_err")


def one(t, eps, seed, tri):
    from matrixdp.models import DPCovariance, covariance as covmod
    from matrixdp.models.experimental import CovarianceOptions
    from utility_covariance import correlation

    got = {}
    orig = covmod.project_feasible

    def spy(cov, *a, **k):
        got["raw"] = np.array(cov, copy=True)
        out = orig(cov, *a, **k)
        got["proj"] = np.array(out, copy=True)
        return out

    covmod.project_feasible = spy
    try:
        est = DPCovariance(epsilon=eps, delta=uc.DELTA, bounds=(t.lo, t.hi), kind="correlation",
                           random_state=seed, method="adaptive", shrinkage="none",
                           experimental=CovarianceOptions(adaptive_correlation_triangle=tri)
                           ).fit(t.X)
    finally:
        covmod.project_feasible = orig
    C = np.cov(t.X.T, bias=True)
    R = correlation(C)
    d = np.sqrt(np.diag(C))
    off = ~np.eye(C.shape[0], dtype=bool)
    raw, proj = got["raw"], got["proj"]
    sp = np.sqrt(np.clip(np.diag(proj), 1e-300, None))
    naive = proj / np.outer(sp, sp)
    return {"error": np.linalg.norm(est.covariance_ - R) / np.linalg.norm(R),
            "diag_err": float(np.median(np.abs(np.diag(raw) - d * d) / (d * d))),
            "off_err": float(np.linalg.norm(((raw - C) / np.outer(d, d))[off])),
            "diag_infl": float(np.median(np.diag(proj) / (d * d))),
            "naive_err": float(np.linalg.norm(naive - R) / np.linalg.norm(R)),
            "choice": est.adaptive_choice_}


def main():
    seeds = base.seeds_of(SEED, TRIALS)
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, eps in CELLS:
            t = uc.load_table(name)
            for tri in (False, True):
                for i, s in enumerate(seeds):
                    rows.append({"table": name, "epsilon": eps, "row": "tri" if tri else "full",
                                 "trial": i, **one(t, eps, s, tri)})
            print(name, eps, "done", flush=True)
    import csv
    with open(OUT_CSV, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    L = ["# Task TC diagnosis, part B (decides nothing): inside the correlation fit", "",
         "Script: `experiments/corr_triangle_internals.py`; trials "
         "`results/corr_triangle_internals.csv`; 20 paired trials per cell (seeds "
         f"`SeedSequence({SEED})`), `shrinkage=\"none\"`, `method=\"adaptive\"`. Medians over "
         "trials (full draw / triangle). Columns: see the script's docstring.", "",
         "| table | ε | moments fits | " + " | ".join(f"{c} full | {c} tri" for c in COLS) + " |",
         "|---|---|---|" + "---|---|" * len(COLS)]
    for name, eps in CELLS:
        sel = {r: [x for x in rows if x["table"] == name and x["epsilon"] == eps and x["row"] == r]
               for r in ("full", "tri")}
        mom = sum(x["choice"] == "moments" for x in sel["full"])
        cells = []
        for c in COLS:
            for r in ("full", "tri"):
                cells.append(f"{float(np.median([x[c] for x in sel[r]])):.4g}")
        L.append(f"| {name} | {eps:g} | {mom}/{TRIALS} | " + " | ".join(cells) + " |")
    OUT_MD.write_text("\n".join(L) + "\n")
    print(f"wrote {OUT_MD}")


if __name__ == "__main__":
    main()
