"""Task CV (session 24, issue #24): the covariance default after task CV against the best row, at
100 paired trials on the 35 benchmark cells. Measurement only: it decides nothing (the default
was decided by ``cov_cells_gate.py`` and ``cov_cells_check.py``).

Rows: ``new`` = ``DPCovariance()`` (since task CV: ``adaptive_moments_triangle=True``), fitted
here; ``old`` = the default before (the median ranking, the full draw) and ``auto``, ``mvg``,
``coinpress`` = task CP's committed rows (``results/covariance_choice_gate_trials.csv``, column
``candidate``, and ``results/covariance_default_power_trials.csv``), all on the same seeds
``SeedSequence(20261124).generate_state(100)`` (the first 15 are the benchmark's); ``ag`` =
Analyze Gauss as the benchmark runs it (``uc.analyze_gauss_covariance``, ``psd_part``), fitted
here on the same seeds. Same public bounds (``uc.load_table``), (ε, δ = 1e-6), replace-one.
Metric: relative Frobenius error against the clipped records' covariance (``1/n``).

Per cell: the medians, ``best`` = the lowest median among auto, mvg, coinpress and ag, the ratio
of each default to it, and the paired gate (``_paired_gate.cell_verdict``) of each default against
that best row: FAIL (significantly worse than 1.10×), inconclusive, pass. Counts: cells within
1.2× of the best, cells with the lowest median, FAILs — for the new and the old default.

Command::

    cd experiments && nice -n 10 env OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \\
        PYTHONPATH=../src MATRIXDP_DATA=/work/shared/datasets python cov_cells_power.py

Output: ``results/cov_cells_power.md``, ``results/cov_cells_power_trials.csv`` (new and ag per
trial; resumes from it).
"""

from __future__ import annotations

import csv
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _paired_gate as pg  # noqa: E402
import _utility_common as uc  # noqa: E402

RESULTS = uc.REPO_ROOT / "results"
CP_TRIALS = RESULTS / "covariance_default_power_trials.csv"
CV_TRIALS = RESULTS / "covariance_choice_gate_trials.csv"
TRIALS_CSV = RESULTS / "cov_cells_power_trials.csv"
OUT_MD = RESULTS / "cov_cells_power.md"
FIELDS = ["dataset", "epsilon", "trial", "seed", "new", "ag", "choice", "allocation"]
PEERS = ("auto", "mvg", "coinpress", "ag")
WITHIN = 1.2


def run():
    import pandas as pd
    from matrixdp.models import DPCovariance

    cp = pd.read_csv(CP_TRIALS)
    done = set()
    if TRIALS_CSV.exists():
        done = {(r["dataset"], float(r["epsilon"]), int(r["trial"]))
                for r in csv.DictReader(open(TRIALS_CSV, newline=""))}
    new = not TRIALS_CSV.exists()
    tables = {}
    with open(TRIALS_CSV, "a", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=FIELDS)
        if new:
            w.writeheader()
        for (ds, eps), x in cp.groupby(["dataset", "epsilon"], sort=False):
            if ds not in tables:
                t = uc.load_table(ds)
                C = np.cov(t.X.T, bias=True)
                tables[ds] = (t, C, float(np.linalg.norm(C)))
            t, C, cn = tables[ds]
            out = []
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for _, r in x.iterrows():
                    key = (ds, float(eps), int(r.trial))
                    if key in done:
                        continue
                    s = int(r.seed)
                    est = DPCovariance(epsilon=eps, delta=uc.DELTA, bounds=(t.lo, t.hi),
                                       random_state=s).fit(t.X)
                    ag = uc.psd_part(uc.analyze_gauss_covariance(t.X, t.lo, t.hi, eps, uc.DELTA,
                                                                 np.random.default_rng(s))[0])
                    out.append(dict(dataset=ds, epsilon=eps, trial=int(r.trial), seed=s,
                                    new=repr(float(np.linalg.norm(est.covariance_ - C) / cn)),
                                    ag=repr(float(np.linalg.norm(ag - C) / cn)),
                                    choice=est.adaptive_choice_, allocation=est.allocation_))
            w.writerows(out)
            fh.flush()
            print(f"{ds} eps={eps:g} done", flush=True)


def render():
    import pandas as pd

    cp = pd.read_csv(CP_TRIALS)
    cv = pd.read_csv(CV_TRIALS)[["dataset", "epsilon", "trial", "candidate"]].rename(
        columns={"candidate": "old"})
    nw = pd.read_csv(TRIALS_CSV)
    m = cp.merge(cv, on=["dataset", "epsilon", "trial"]).merge(
        nw[["dataset", "epsilon", "trial", "new", "ag", "allocation"]],
        on=["dataset", "epsilon", "trial"])
    rows = []
    for (ds, eps), x in m.groupby(["dataset", "epsilon"], sort=False):
        med = {r: float(x[r].median()) for r in ("new", "old") + PEERS}
        best = min(PEERS, key=lambda r: med[r])
        vn = pg.cell_verdict(x["new"].to_numpy(), x[best].to_numpy())
        vo = pg.cell_verdict(x["old"].to_numpy(), x[best].to_numpy())
        vno = pg.cell_verdict(x["new"].to_numpy(), x["old"].to_numpy())
        rows.append(dict(ds=ds, eps=eps, n=len(x), med=med, best=best, vn=vn, vo=vo, vno=vno,
                         tri=int(x.allocation.str.endswith("triangle").sum())))
    cnt = lambda key: (sum(r["med"][key] <= WITHIN * r["med"][r["best"]] for r in rows),  # noqa
                       sum(r["med"][key] <= r["med"][r["best"]] for r in rows),
                       sum(bool((r["vn"] if key == "new" else r["vo"])["fail"]) for r in rows))
    wn, ln, fn = cnt("new")
    wo, lo_, fo = cnt("old")
    L = ["# Task CV (session 24): the covariance default against the best row at 100 paired trials",
         "", "Generated by `experiments/cov_cells_power.py` (measurement only; decides nothing). "
         "`new` = `DPCovariance()` since task CV (the moments branch's last release as the dominating "
         "triangle); `old` = the default before (median ranking, full draw; "
         "`results/covariance_choice_gate_trials.csv`); `auto`, `mvg`, `coinpress`: task CP's rows "
         "(`results/covariance_default_power_trials.csv`); `ag`: Analyze Gauss as the benchmark runs "
         "it, fitted here. All on the seeds `SeedSequence(20261124).generate_state(100)` (the first "
         "15 are the benchmark's); relative Frobenius error; δ = 1e-6, replace-one, the benchmark's "
         "public bounds. `best` = the lowest median among auto, mvg, coinpress, ag. Verdicts: the "
         "paired gate (`_paired_gate.cell_verdict`) against the best row.", "",
         f"- new default: within {WITHIN}× of the best in **{wn} of {len(rows)}** cells, lowest "
         f"median in {ln}, significantly worse than 1.10× the best (FAIL) in {fn}.",
         f"- old default (same seeds): within {WITHIN}× in {wo}, lowest median in {lo_}, FAIL in "
         f"{fo}.",
         f"- new / old by medians: median over the 35 cells "
         f"{float(np.median([r['med']['new'] / r['med']['old'] for r in rows])):.3f}; new vs old "
         f"FAILs the paired gate in {sum(bool(r['vno']['fail']) for r in rows)} cells.", "",
         "| table | ε | new | old | auto | mvg | coinpress | ag | best | new/best | old/best | "
         "verdict new vs best | verdict old vs best | new/old HL | triangle fits |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        md = r["med"]
        L.append(f"| {r['ds']} | {r['eps']:g} | " + " | ".join(
            f"{md[k]:.4g}" for k in ("new", "old") + PEERS)
            + f" | {r['best']} | {md['new'] / md[r['best']]:.3f} | "
            f"{md['old'] / md[r['best']]:.3f} | {pg.verdict_label(r['vn'])} | "
            f"{pg.verdict_label(r['vo'])} | {r['vno']['pseudo_median_ratio']:.3f} | {r['tri']} |")
    above = [f"{r['ds']} ε = {r['eps']:g} ({r['med']['new'] / r['med'][r['best']]:.2f}× "
             f"{r['best']})" for r in rows if r["med"]["new"] > WITHIN * r["med"][r["best"]]]
    L += ["", "Cells where the new default is more than 1.2× the best: "
          + (", ".join(above) if above else "none") + "."]
    OUT_MD.write_text("\n".join(L) + "\n")
    print(f"wrote {OUT_MD}")


if __name__ == "__main__":
    if "--render-only" not in sys.argv:
        run()
    render()
