"""Diagnosis (decides nothing) of task TC's candidate, ``CovarianceOptions(
adaptive_correlation_triangle=True)``, on the dev gate's cells where it lost or won most
(``results/corr_triangle_gate.md``): is the change in the correlation's error from the release
itself or from the pooled-floor shrinkage that reads its entry variances?

Rows, each on the same trial seeds (``SeedSequence(2026120143).generate_state(20)``, new), the
gate's setup (public bounds from the committed specs, δ = 1e-6, replace-one, relative Frobenius
error against the clipped records' correlation with ``1/n``):

- ``full``/``tri``: the default / the candidate (``shrinkage="auto"``: the pooled floor);
- ``full_none``/``tri_none``: the same releases with ``shrinkage="none"`` (``method="adaptive"``
  explicit, as ``shrinkage="none"`` alone would make ``method="auto"`` the moments release; the projected
  correlation, unshrunk).

Per trial also: the slope ``<R̂_off, R_off> / <R_off, R_off>`` of the released off-diagonal
entries on the true ones (below 1: the release shrinks the correlations towards 0, e.g. through a
noisy, PSD-projected diagonal), and the mean off-diagonal shrinkage factor (``shrinkage_factors_``;
1 for the unshrunk rows and the whitened branch).

Command::

    cd experiments && nice -n 10 env OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \\
        PYTHONPATH=../src MATRIXDP_DATA=/work/shared/datasets python corr_triangle_diagnosis.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _paired_trials as pt  # noqa: E402
import _utility_common as uc  # noqa: E402
import correlation_floor_gate as base  # noqa: E402

RESULTS = uc.REPO_ROOT / "results"
TRIALS_CSV = RESULTS / "corr_triangle_diagnosis_trials.csv"
OUT_MD = RESULTS / "corr_triangle_diagnosis.md"
SEED, TRIALS = 2026120143, 20
ROWS = ("full", "tri", "full_none", "tri_none")
FIELDS = ["table", "epsilon", "row", "trial", "seed", "error", "slope", "factor", "choice"]
#: (table, ε): the gate's largest losses and gains (benchmark tables)
CELLS = (("lending_club", 0.1), ("lending_club", 0.5), ("liver", 0.5), ("liver", 2.0),
         ("synthetic", 0.1), ("adult", 1.0), ("ctg", 5.0), ("wdbc", 5.0))


def fitter(row, t, eps):
    from matrixdp.models import DPCovariance
    from matrixdp.models.experimental import CovarianceOptions

    opts = CovarianceOptions(adaptive_correlation_triangle=row.startswith("tri"))
    shrink = "none" if row.endswith("_none") else "auto"

    def fit(s):
        return DPCovariance(epsilon=eps, delta=uc.DELTA, bounds=(t.lo, t.hi), kind="correlation",
                            random_state=s, method="adaptive", shrinkage=shrink,
                            experimental=opts).fit(t.X)
    return fit


def scorer(t):
    from utility_covariance import correlation

    R = correlation(np.cov(t.X.T, bias=True))
    rn = np.linalg.norm(R)
    off = ~np.eye(R.shape[0], dtype=bool)
    ro = R[off]

    def score(est):
        C = est.covariance_
        f = est.shrinkage_factors_
        return {"error": repr(float(np.linalg.norm(C - R) / rn)),
                "slope": repr(float(C[off] @ ro / max(ro @ ro, 1e-300))),
                "factor": repr(1.0 if f is None else float(np.mean(np.asarray(f)[off]))),
                "choice": est.adaptive_choice_}
    return score


def run():
    tabs = {n: uc.load_table(n) for n in sorted({c[0] for c in CELLS})}
    cells = [(tabs[n], eps) for n, eps in CELLS]
    seeds = base.seeds_of(SEED, TRIALS)
    pt.run_cells(cells, seeds, ROWS, TRIALS_CSV, FIELDS, ("table", "epsilon"),
                 lambda c: {"table": c[0].name, "epsilon": c[1]},
                 lambda row, c: fitter(row, c[0], c[1]), lambda c: scorer(c[0]),
                 lambda c: f"{c[0].name} eps={c[1]} done")


def render():
    data: dict = {}
    for r in pt.rows(TRIALS_CSV):
        data.setdefault((r["table"], float(r["epsilon"])), {}).setdefault(r["row"], []).append(r)
    L = ["# Task TC diagnosis (decides nothing): the correlation's moments branch as a triangle", "",
         "Script: `experiments/corr_triangle_diagnosis.py`; trials "
         "`results/corr_triangle_diagnosis_trials.csv`; 20 paired trials per cell (seeds "
         f"`SeedSequence({SEED})`), benchmark tables, the gate's setup. Medians over trials; "
         "ratios are ratios of medians; slope = regression of the released off-diagonal "
         "correlations on the true ones; factor = mean off-diagonal shrinkage factor.", "",
         "| table | ε | moments fits | full | tri | tri/full | full_none | tri_none | "
         "tri_none/full_none | slope full_none | slope tri_none | factor full | factor tri |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for (name, eps) in CELLS:
        c = data.get((name, eps))
        if not c:
            continue
        med = {row: {f: float(np.median([float(r[f]) for r in c[row]]))
                     for f in ("error", "slope", "factor")} for row in ROWS}
        mom = sum(r["choice"] == "moments" for r in c["full"])
        L.append(f"| {name} | {eps:g} | {mom}/{len(c['full'])} | {med['full']['error']:.4g} | "
                 f"{med['tri']['error']:.4g} | {med['tri']['error'] / med['full']['error']:.3f} | "
                 f"{med['full_none']['error']:.4g} | {med['tri_none']['error']:.4g} | "
                 f"{med['tri_none']['error'] / med['full_none']['error']:.3f} | "
                 f"{med['full_none']['slope']:.3f} | {med['tri_none']['slope']:.3f} | "
                 f"{med['full']['factor']:.3f} | {med['tri']['factor']:.3f} |")
    OUT_MD.write_text("\n".join(L) + "\n")
    print(f"wrote {OUT_MD}")


if __name__ == "__main__":
    if sys.argv[1:] == ["render"]:
        render()
    else:
        run()
        render()
