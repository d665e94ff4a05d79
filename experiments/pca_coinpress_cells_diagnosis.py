"""Why full CoinPress beats the PCA default in the cells of results/utility_summary.md "PCA k = 2"
(issue #24, task PC, step 1): power and diagnosis.

Diagnostic on the benchmark tables (seen; nothing in the library is chosen from it by itself).
Cells: the k = 2 cells where ``method="coinpress"`` had the better median in 8 paired trials
(ctg ε = 0.1, 0.5, 1, 2, 5; movement_aal ε = 0.5, 1, 2, 5; lending_club ε = 5). Per cell, the
same ``--trials`` seeds (``SeedSequence(--seed).generate_state(trials)``, as ``_pca_gate.run``)
for every row, so the rows are paired:

* ``default``: ``DPPCA(n_components=k)`` (``method="adaptive"``): its branch per trial
  (``adaptive_choice_``) and its predicted deficits of both branches (``adaptive_predicted_``:
  ``"moments"`` and ``"coinpress"``, in the ranking's units; only their ratio is read here);
* ``forced-moments`` / ``forced-step``: the same fit with its last release forced to the moments
  release / the whitened CoinPress step (``AdaptiveOptions.branch``; the first look, the counts
  and the predictions are the default's draws, so on the branch the default chose the forced
  row IS the default's fit, checked below);
* ``coinpress``: full ``method="coinpress"`` (2 steps, from the box);
* ``moments``: ``method="moments"`` (the whole budget on one moments release; no first look).

Reported per cell: the medians; the paired ratio of medians (``_paired_gate.cell_verdict``) of
``coinpress`` and of the per-trial oracle branch ``min(forced-moments, forced-step)`` against
the default; the step branch's share of trials; how often the default's choice is the measured
better branch; the median predicted ratio P_step/P_moments against the measured ratio
deficit(step)/deficit(moments). The three readings of the loss: the BRANCH CHOICE (oracle vs
default), the STEP'S QUALITY (forced-step vs coinpress), the FIRST LOOK'S COST (moments vs
forced-moments).

A longer reading (``--long-trials``, seeds ``SeedSequence(--long-seed)``): ``default`` and
``coinpress`` alone on movement_aal k = 2 ε = 1 (every trial takes the step there: is full
CoinPress's edge over the adaptive step real, and how large?), ``<name>_long_trials.csv``.

Run (from ``experiments/``, ``PYTHONPATH=../src``, ``MATRIXDP_DATA`` set):
``python pca_coinpress_cells_diagnosis.py --trials 60 --seed 20261201 --long-trials 300 --long-seed 999``
"""

from __future__ import annotations

import argparse
import csv
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _paired_gate as pg  # noqa: E402
import _utility_common as uc  # noqa: E402

NAME = "pca_coinpress_cells_diagnosis"
CELLS = (("ctg", 2, 0.1), ("ctg", 2, 0.5), ("ctg", 2, 1.0), ("ctg", 2, 2.0), ("ctg", 2, 5.0),
         ("movement_aal", 2, 0.5), ("movement_aal", 2, 1.0), ("movement_aal", 2, 2.0),
         ("movement_aal", 2, 5.0), ("lending_club", 2, 5.0))
ROWS = ("default", "forced-moments", "forced-step", "coinpress", "moments")
FIELDS = ["table", "k", "epsilon", "row", "trial", "seed", "deficit", "choice", "pred_moments",
          "pred_step"]
RESULTS = Path(__file__).resolve().parent.parent / "results"


def fit_row(row, t, eps, k, seed):
    from matrixdp.models import DPPCA
    kw = {"coinpress": {"method": "coinpress"}, "moments": {"method": "moments"}}.get(row, {})
    branch = {"forced-moments": "moments", "forced-step": "coinpress"}.get(row)
    ctx = uc.adaptive_options(branch=branch) if branch else uc.contextlib.nullcontext()
    with ctx, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = DPPCA(n_components=k, epsilon=eps, delta=uc.DELTA, bounds=(t.lo, t.hi),
                    random_state=int(seed), **kw).fit(t.X)
    pred = getattr(est, "adaptive_predicted_", None) or {}
    return (est.components_, getattr(est, "adaptive_choice_", ""),
            pred.get("moments", float("nan")), pred.get("coinpress", float("nan")))


def run(trials, seed, path):
    seeds = [int(s) for s in np.random.SeedSequence(seed).generate_state(trials)]
    with path.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=FIELDS)
        w.writeheader()
        for ds, k, eps in CELLS:
            t = uc.load_table(ds, None)
            C = np.cov(t.X.T, bias=True)
            best = float(np.sort(np.linalg.eigvalsh(C))[::-1][:k].sum())
            for row in ROWS:
                for i, s in enumerate(seeds):
                    V, ch, pm, ps = fit_row(row, t, eps, k, s)
                    q, _ = np.linalg.qr(np.asarray(V, float).T)
                    err = 1.0 - float(np.trace(q.T @ C @ q)) / best
                    w.writerow({"table": ds, "k": k, "epsilon": eps, "row": row, "trial": i,
                                "seed": s, "deficit": repr(err), "choice": ch,
                                "pred_moments": repr(pm), "pred_step": repr(ps)})
            fh.flush()
            print(ds, k, eps, flush=True)


LONG_CELL = ("movement_aal", 2, 1.0)


def run_long(trials, seed, path):
    ds, k, eps = LONG_CELL
    seeds = [int(s) for s in np.random.SeedSequence(seed).generate_state(trials)]
    t = uc.load_table(ds, None)
    C = np.cov(t.X.T, bias=True)
    best = float(np.sort(np.linalg.eigvalsh(C))[::-1][:k].sum())
    with path.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=FIELDS)
        w.writeheader()
        for row in ("default", "coinpress"):
            for i, s in enumerate(seeds):
                V, ch, pm, ps = fit_row(row, t, eps, k, s)
                q, _ = np.linalg.qr(np.asarray(V, float).T)
                err = 1.0 - float(np.trace(q.T @ C @ q)) / best
                w.writerow({"table": ds, "k": k, "epsilon": eps, "row": row, "trial": i,
                            "seed": s, "deficit": repr(err), "choice": ch,
                            "pred_moments": repr(pm), "pred_step": repr(ps)})


def long_lines(path):
    rows = {}
    with path.open() as fh:
        for r in csv.DictReader(fh):
            rows.setdefault(r["row"], []).append(r)
    v = {r: np.maximum(np.array([float(x["deficit"]) for x in
                                 sorted(rs, key=lambda x: int(x["trial"]))]), 1e-300)
         for r, rs in rows.items()}
    ds, k, eps = LONG_CELL
    step = np.mean([x["choice"] == "coinpress" for x in rows["default"]])
    return ["", f"## The longer reading: {ds}, k = {k}, ε = {eps:g}, {v['default'].size} paired "
            f"trials", "",
            "| default median | coinpress median | default/coinpress (medians) | "
            "default/coinpress (means) | p (coinpress better) | step share |",
            "|---|---|---|---|---|---|",
            f"| {g(float(np.median(v['default'])))} | {g(float(np.median(v['coinpress'])))} | "
            f"{np.median(v['default']) / np.median(v['coinpress']):.3g} | "
            f"{v['default'].mean() / v['coinpress'].mean():.3g} | "
            f"{pg_p(v['coinpress'], v['default'])} | {step:.2f} |"]


def g(x):
    return f"{x:.3g}"


def render(path, out, cmd):
    data = {}
    with path.open() as fh:
        for r in csv.DictReader(fh):
            data.setdefault((r["table"], int(r["k"]), float(r["epsilon"])), {}) \
                .setdefault(r["row"], []).append(r)
    lines = [f"# Full CoinPress against the PCA default in its winning cells: power and diagnosis "
             f"(issue #24, task PC)", "",
             f"Generated by `{cmd}` (run from `experiments/`, `PYTHONPATH=../src`). Benchmark "
             f"tables (seen). Deficit: captured-variance deficit of the top-k subspace (lower is "
             f"better). Rows and columns: the script's docstring. Ratios are paired ratios of "
             f"medians against the default (`_paired_gate.cell_verdict`); p: one-sided Wilcoxon "
             f"of log(row/default) < 0 (row better).", "",
             "| table | k | ε | trials | default | forced-moments | forced-step | oracle branch "
             "| coinpress | moments | coinpress/default (p) | oracle/default (p) | "
             "step share | choice = better branch | pred. step/mom (median) | "
             "measured step/mom (median) | forced = default on its branch |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    summary = []
    for (ds, k, eps), rows in data.items():
        v = {r: np.maximum(np.array([float(x["deficit"]) for x in
                                     sorted(rs, key=lambda x: int(x["trial"]))]), 1e-300)
             for r, rs in rows.items()}
        d = sorted(rows["default"], key=lambda x: int(x["trial"]))
        step = np.array([x["choice"] == "coinpress" for x in d])
        oracle = np.minimum(v["forced-moments"], v["forced-step"])
        own = np.where(step, v["forced-step"], v["forced-moments"])
        same = bool(np.all(own == v["default"]))
        better_step = v["forced-step"] < v["forced-moments"]
        agree = float(np.mean(better_step == step))
        pr = np.array([float(x["pred_step"]) / float(x["pred_moments"]) for x in d])
        mr = v["forced-step"] / v["forced-moments"]
        cp = pg.cell_verdict(v["coinpress"], v["default"])
        orc = pg.cell_verdict(oracle, v["default"])
        med = {r: float(np.median(x)) for r, x in v.items()}
        summary.append((ds, eps, cp["ratio_of_medians"], orc["ratio_of_medians"]))
        lines.append(
            f"| {ds} | {k} | {eps:g} | {len(d)} | {g(med['default'])} | "
            f"{g(med['forced-moments'])} | {g(med['forced-step'])} | {g(float(np.median(oracle)))} "
            f"| {g(med['coinpress'])} | {g(med['moments'])} | "
            f"{1 / cp['ratio_of_medians']:.3g} ({pg_p(v['coinpress'], v['default'])}) | "
            f"{1 / orc['ratio_of_medians']:.3g} ({pg_p(oracle, v['default'])}) | "
            f"{step.mean():.2f} | {agree:.2f} | {g(float(np.median(pr)))} | "
            f"{g(float(np.median(mr)))} | {'yes' if same else 'NO'} |")
    lines += ["", "The columns coinpress/default and oracle/default are median(default) / "
              "median(row): how many times the row beats the default (> 1: the row is better, "
              "as utility_summary.md's 'default / best'). The oracle branch is the better of the "
              "two forced branches per trial (not a DP estimator: it reads the true covariance)."]
    long_path = path.with_name(f"{NAME}_long_trials.csv")
    if long_path.exists():
        lines += long_lines(long_path)
    out.write_text("\n".join(lines) + "\n")


def pg_p(a, b):
    from scipy.stats import wilcoxon
    dl = np.log(a) - np.log(b)
    if np.all(dl == 0):
        return "—"
    return f"{wilcoxon(dl, alternative='less', zero_method='wilcox').pvalue:.2g}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=60)
    ap.add_argument("--seed", type=int, default=20261201)
    ap.add_argument("--long-trials", type=int, default=300)
    ap.add_argument("--long-seed", type=int, default=999)
    ap.add_argument("--render-only", action="store_true")
    a = ap.parse_args()
    path = RESULTS / f"{NAME}_trials.csv"
    cmd = (f"python {Path(__file__).name} --trials {a.trials} --seed {a.seed} "
           f"--long-trials {a.long_trials} --long-seed {a.long_seed}")
    if not a.render_only:
        run(a.trials, a.seed, path)
        run_long(a.long_trials, a.long_seed, path.with_name(f"{NAME}_long_trials.csv"))
    render(path, RESULTS / f"{NAME}.md", cmd)


if __name__ == "__main__":
    main()
