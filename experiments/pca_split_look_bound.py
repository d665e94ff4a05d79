"""Reading (issue #24, task PA; not a gate, no new fit): what the split first look of
``docs/coinpress.md`` § "Adaptive (PCA): the first look's share (task PA)" could gain at best,
read from the committed trials of ``pca_first_share_gate.py``.

The split look releases ``Y₁`` (a first look at ``μ*²/8``, the law of the gate candidate's first
look) and skips ``Y₂`` only where it puts the moments branch beyond doubt; elsewhere it is the
default byte for byte. So per trial it is at best the candidate's fit where the candidate's fit
took the moments branch, and the default's fit otherwise (a trial where the default takes the
step and ``Y₁`` says moments is counted with the candidate: the candidate's own choice). This
composite is scored against the default with the gate's paired rule (G1: no cell FAILing the
one-sided Wilcoxon against 1.10 at α = 0.01; G2: median over the changed cells ≤ 0.99). It is an
optimistic reading: a rule that skips ``Y₂`` less often changes fewer trials.

Second reading: the same composite only in the cells where the moments branch's first-order
deficit (``pca_moments_cells_diagnosis.expected_deficits``' model: public entry variances, the
TRUE covariance) is lower with the first look at ``μ*²/8`` than at ``μ*²/4`` (no counts), the
oracle form of a public rule the split look could use (the same comparison read in the first
look's frame, ``P_mom`` at the two splits); the other cells keep the default. Third reading: in
those cells the candidate's fit in EVERY trial (the simpler rule: skip ``Y₂`` on the first-order
comparison alone, then run the candidate's whole fit from ``Y₁``, step or moments).

Outputs: ``results/pca_split_look_bound.md``. Command (from ``experiments/``)::

    env PYTHONPATH=../src python pca_split_look_bound.py
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _paired_gate as pg  # noqa: E402
import _pca_gate as pgt  # noqa: E402
import _utility_common as uc  # noqa: E402

GATE = uc.REPO_ROOT / "results" / "pca_first_share_gate_trials.csv"
CANDIDATE = "first share 1/8"
OUT = uc.REPO_ROOT / "results" / "pca_split_look_bound.md"


def first_order_gain(group: str, table: str, k: int, eps: float) -> float:
    """First-order deficit of the moments branch at first share 1/8 over that at 1/4 (true
    covariance; no counts)."""
    import math

    from matrixdp.models._moments import augmented_task, combined_variance, plan_second_moment
    from matrixdp.models.adaptive.frame import moments_pair_variance
    from matrixdp.models.adaptive.pca_losses import pca_deficit
    from matrixdp.models.adaptive.release import gaussian_epsilon, max_gaussian_shift

    t = pgt.load_table(group, table)
    live = t.hi > t.lo
    lo, hi, X = t.lo[live], t.hi[live], t.X[:, live]
    task, center, tc = augmented_task(lo, hi, t.n, "pca", n_components=k)
    task_cov = augmented_task(lo, hi, t.n, "covariance", n_components=k)[0]
    lam, U = np.linalg.eigh(np.cov(X.T, bias=True))
    lam, U = lam[::-1], U[:, ::-1]
    m = X.mean(axis=0) - center
    gaps = lam[:k, None] - lam[None, k:]
    mu_star = float(max_gaussian_shift(eps, uc.DELTA))

    def plan(tk, mu):
        return plan_second_moment(tk, epsilon=gaussian_epsilon(uc.DELTA, 1.0, mu),
                                  delta=uc.DELTA, noise="auto")[0]

    def branch(share):
        p1 = plan(task_cov, math.sqrt(share) * mu_star)
        mu2 = math.sqrt(mu_star ** 2 - float(p1.privacy.mu) ** 2)
        V = combined_variance(p1.entry_variance, plan(task, mu2).entry_variance)
        return float(pca_deficit(gaps, moments_pair_variance(V, m, tc, U, k)[0][:, k:])[0].sum())
    return branch(0.125) / branch(0.25)


def _summary(cells):
    changed = [s for s in cells if s["changed"] > 0]
    fails = [s for s in cells if s["verdict"] == "FAIL"]
    g2 = float(np.median([s["ratio"] for s in changed])) if changed else float("nan")
    return changed, fails, g2


def main() -> int:
    data = {}
    with GATE.open() as fh:
        for r in csv.DictReader(fh):
            key = (r["group"], r["table"], int(r["k"]), float(r["epsilon"]))
            data.setdefault(key, {}).setdefault(r["row"], []).append(r)
    cells = []
    for key, rows in data.items():
        d = sorted(rows[pgt.DEFAULT], key=lambda x: int(x["trial"]))
        c = sorted(rows[CANDIDATE], key=lambda x: int(x["trial"]))
        dv = np.maximum([float(x["deficit"]) for x in d], pgt.FLOOR)
        cv = np.maximum([float(x["deficit"]) for x in c], pgt.FLOOR)
        mom = np.array([x["choice"] == "moments" for x in c])
        comp = np.where(mom, cv, dv)
        v = pg.cell_verdict(comp, dv)
        gain = first_order_gain(*key)
        comp2 = comp if gain < 1 else dv
        v2 = pg.cell_verdict(comp2, dv)
        comp3 = cv if gain < 1 else dv
        v3 = pg.cell_verdict(comp3, dv)
        cells.append({"key": key, "changed": int(np.sum(comp != dv)),
                      "ratio": v["ratio_of_medians"], "verdict": pg.verdict_label(v),
                      "gain": gain, "changed2": int(np.sum(comp2 != dv)),
                      "ratio2": v2["ratio_of_medians"], "verdict2": pg.verdict_label(v2),
                      "changed3": int(np.sum(comp3 != dv)), "ratio3": v3["ratio_of_medians"],
                      "verdict3": pg.verdict_label(v3)})
    changed, fails, g2 = _summary(cells)
    ruled = [{"key": s["key"], "changed": s["changed2"], "ratio": s["ratio2"],
              "verdict": s["verdict2"]} for s in cells]
    changed2, fails2, g2b = _summary(ruled)
    changed3, fails3, g2c = _summary([{"key": s["key"], "changed": s["changed3"],
                                       "ratio": s["ratio3"], "verdict": s["verdict3"]}
                                      for s in cells])
    lines = ["# The split first look's best case, read from the first-share gate's trials (issue "
             "#24, task PA; a reading, not a gate)", "",
             f"Generated by `experiments/pca_split_look_bound.py` from "
             f"`results/pca_first_share_gate_trials.csv` (165 cells, 30 paired trials; design in "
             f"the script's docstring). No new fit.", "",
             f"- cells FAILing the paired rule: **{len(fails)}**"
             + (" (" + ", ".join(f"{k[1]} k = {k[2]} ε = {k[3]:g}" for k in
                                 (s['key'] for s in fails)) + ")" if fails else ""),
             f"- changed cells: {len(changed)} of {len(cells)}; median ratio of medians over them "
             f"**{g2:.4g}** (the gate's G2 needs ≤ 0.99); below 1 in "
             f"{sum(s['ratio'] < 1 for s in changed)}, above 1.10 in "
             f"{sum(s['ratio'] > 1.1 for s in changed)}", "",
             "Second reading (only where the first-order deficit ratio 1/8 : 1/4 of the moments "
             "branch is below 1):", "",
             f"- cells FAILing the paired rule: **{len(fails2)}**; changed cells: {len(changed2)}; "
             f"median ratio of medians over them **{g2b:.4g}**; below 1 in "
             f"{sum(s['ratio'] < 1 for s in changed2)}, above 1.10 in "
             f"{sum(s['ratio'] > 1.1 for s in changed2)}", "",
             "Third reading (the same cells, the candidate's fit in every trial):", "",
             f"- cells FAILing the paired rule: **{len(fails3)}**"
             + (" (" + ", ".join(f"{s['key'][1]} k = {s['key'][2]} ε = {s['key'][3]:g}"
                                 for s in fails3) + ")" if fails3 else "")
             + f"; changed cells: {len(changed3)}; median ratio of medians over them "
             f"**{g2c:.4g}**; below 1 in {sum(s['ratio'] < 1 for s in changed3)}, above 1.10 in "
             f"{sum(s['ratio'] > 1.1 for s in changed3)}", "",
             "| group | table | k | ε | changed trials | ratio of medians | verdict | first-order "
             "1/8 : 1/4 | second reading: ratio (verdict) |",
             "|---|---|---|---|---|---|---|---|---|"]
    order = {"benchmark": 0, "measurement": 1}
    for s in sorted(changed, key=lambda s: (order[s["key"][0]], s["key"][2], s["key"][1],
                                            s["key"][3])):
        g, t, k, e = s["key"]
        lines.append(f"| {g} | {t} | {k} | {e:g} | {s['changed']} | {s['ratio']:.3g} | "
                     f"{s['verdict']} | {s['gain']:.3g} | {s['ratio2']:.3g} ({s['verdict2']}) |")
    OUT.write_text("\n".join(lines) + "\n")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
