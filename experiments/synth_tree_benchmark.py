"""DPTreeCopula (new defaults) vs the previous DPTreeCopula and DPCopula, side by side (issue #26).

Successor of ``synth_benchmark.py --part compare`` (whose output, ``results/synth_benchmark_tree.md``,
is the previous round's): one run, the three generators on the same splits, public schemas, seeds
and (ε, δ = 1e-9), add/remove neighbours, scored by ``_synth_tables.score_all`` (the metrics of
``synth_benchmark.py``, MST/AIM included there). The options of the new defaults were chosen on the
training splits of Adult and CTG only (``synth_tree_tuning.py``); Lending Club is held out.

Writes ``results/synth_tree_benchmark.{csv,md}`` (``--cache-suffix`` lets tables run in parallel
processes; ``--part report`` merges every ``results/synth_tree_benchmark*.csv``).

Usage::

    python experiments/synth_tree_benchmark.py --tables adult --cache-suffix _adult
    python experiments/synth_tree_benchmark.py --tables ctg lending_club --cache-suffix _small
    python experiments/synth_tree_benchmark.py --part report
"""

from __future__ import annotations

import argparse
import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _synth_tables import (LOWER_IS_BETTER, REPO_ROOT, PeakMemory, load_table,  # noqa: E402
                          metric_row, score_all)
from synth_tree_tuning import light_scores  # noqa: E402

RESULTS = REPO_ROOT / "results"
DELTA = 1e-9
#: the previous round's DPTreeCopula defaults, spelled out
OLD_TREE = dict(shares=(0.35, 0.25, 0.1, 0.3), correlation="per-class", normalise="count",
                binary_latent=False, pair_bins=8, smoothing=1.0)
FIELDS = ["table", "method", "epsilon", "delta", "seed", "lr_acc", "lr_auc", "lr_bacc", "gb_acc",
          "gb_auc", "gb_bacc", "tv_1way", "tv_2way", "corr_err", "corr_max", "shape", "pair_trend",
          "fit_s", "sample_s", "total_s", "peak_mb", "status"]
METRICS = ["lr_acc", "lr_auc", "lr_bacc", "gb_acc", "gb_auc", "gb_bacc", "tv_1way", "tv_2way",
           "corr_err", "corr_max", "shape", "pair_trend", "total_s"]
NEW, OLD, COP = "DPTreeCopula", "DPTreeCopula (previous defaults)", "DPCopula"


def _methods():
    from matrixdp.synth.copula import DPCopula
    from matrixdp.synth.tree_copula import DPTreeCopula

    return {COP: (DPCopula, {}), OLD: (DPTreeCopula, OLD_TREE), NEW: (DPTreeCopula, {})}


def _run(cls, kw, table, eps, seed, full=False):
    with PeakMemory() as mem:
        t0 = time.perf_counter()
        model = cls(schema=table.schema, epsilon=eps, delta=DELTA, classes=[0, 1],
                    random_state=seed, **kw).fit(table.train, table.y_train)
        t1 = time.perf_counter()
        X_syn, y_syn = model.sample(len(table.train), random_state=seed + 10_000)
    row = score_all(table, X_syn, y_syn) if full else light_scores(table, X_syn, y_syn)
    row.update(fit_s=t1 - t0, sample_s=mem.seconds - (t1 - t0), total_s=mem.seconds,
               peak_mb=mem.peak_mb, delta=DELTA)
    return row


def run(args) -> None:
    import pandas as pd

    out = RESULTS / f"{args.stem}{args.cache_suffix}.csv"
    rows = []
    methods = _methods()
    for name in args.tables:
        table = load_table(name)
        for eps in args.epsilons:
            for seed in range(args.seeds):
                for method, (cls, kw) in methods.items():
                    row = dict(table=name, method=method, epsilon=eps, seed=seed)
                    try:
                        row.update(_run(cls, kw, table, eps, seed, args.full), status="ok")
                    except Exception as exc:  # keep going; the table says what failed
                        row.update(status=f"failed: {type(exc).__name__}: {exc}"[:200])
                        traceback.print_exc()
                    rows.append(row)
                    print(name, method, eps, seed, row.get("lr_auc"), row.get("tv_2way"),
                          row.get("corr_max"), row.get("total_s"), flush=True)
                    pd.DataFrame(rows).reindex(columns=FIELDS).to_csv(out, index=False)


def report(args) -> None:
    import pandas as pd

    df = pd.concat([pd.read_csv(f) for f in sorted(RESULTS.glob(f"{args.stem}*.csv"))],
                   ignore_index=True)
    df = df.drop_duplicates(subset=["table", "method", "epsilon", "seed"], keep="first")
    ok = df[df["status"] == "ok"]
    g = ok.groupby(["table", "epsilon", "method"], sort=True)
    metrics = [m for m in METRICS if ok[m].notna().any()]
    summ = g[metrics].mean()
    summ["total_s"] = g["total_s"].median()
    summ["seeds"] = g.size()
    head = {"lr_acc": "LR acc", "lr_auc": "LR AUC", "lr_bacc": "LR bal. acc", "gb_acc": "GB acc",
            "gb_auc": "GB AUC", "gb_bacc": "GB bal. acc", "tv_1way": "TV 1-way",
            "tv_2way": "TV 2-way", "corr_err": "corr err", "corr_max": "corr max",
            "shape": "shape", "pair_trend": "pair trend", "total_s": "time (s)"}
    lines = ["# DPTreeCopula (new defaults) vs previous DPTreeCopula vs DPCopula (issue #26)", "",
             f"Produced by `python experiments/synth_tree_benchmark.py{' --full' if args.full else ''}"
             f"{'' if args.stem == 'synth_tree_benchmark' else ' --stem ' + args.stem}"
             f"{' --tables ' + ' '.join(args.tables) + ' --epsilons ' + ' '.join(f'{e:g}' for e in args.epsilons) if args.full else ''}` "
             "(one run; the three "
             "generators side by side on the same splits, public schemas, seeds and (ε, δ = 1e-9), "
             "add/remove neighbours; the metrics of `experiments/_synth_tables.score_all`, computed by its helpers). TSTR: "
             "logistic regression (LR) and histogram gradient boosting (GB) trained on synthetic, "
             "tested on real. TV 1-/2-way: mean total variation over all 1-/2-way marginals (numeric "
             "on 10 public bins, target included). corr err: Frobenius norm of the difference of the "
             "correlation matrices of the encoded tables (one-hot categories); corr max: the largest "
             "error of any single pairwise correlation. Shape / pair trend: SDMetrics-style scores "
             "from `matrixdp.synth.evaluate` (1 = perfect); " + (
                 "this is the `--full` run (all of `score_all`'s metrics), on fewer tables and ε "
                 "than `results/synth_tree_benchmark.md` for the machine's load. " if args.full else
                 "GB and shape / pair trend only with `--full` (this run did without them: the "
                 "shared machine's load average was 25–35 and `score_all` took 1–2 minutes per CTG "
                 "run; `results/synth_tree_full.md` has them for CTG at ε = 1; its Adult run was stopped for the load). ") +
             "Time: fit + sample of as many records "
             "as the training table, median over seeds, on a shared 2-core machine under heavy load "
             "(load average 25–35 during the run). Means over seeds; the best of the three in bold.",
             "",
             f"`{NEW}` = `DPTreeCopula()` with this round's defaults (shares='auto', "
             "correlation='pooled', normalise='trace', binary_latent=False, pair_bins=8, smoothing=1.0); "
             f"`{OLD}` = `DPTreeCopula(**{OLD_TREE})`. The new options were chosen on the training "
             "splits of Adult and CTG only (`results/synth_tree_tuning*.md`); **Lending Club is "
             "held out** (never used to choose them).", ""]
    for (table, eps), block in summ.groupby(level=[0, 1]):
        lines += [f"## {table}, ε = {eps:g}", "",
                  "| method | seeds | " + " | ".join(head[m] for m in metrics) + " |",
                  "|---|---|" + "---|" * len(metrics)]
        block = block.droplevel([0, 1])
        for method, r in block.iterrows():
            lines.append(metric_row(method, r, block, metrics))
        lines.append("")
    lines += ["## Where the new DPTreeCopula beats each other generator (table × ε cells, means over seeds)", "",
              "| vs | " + " | ".join(head[m] for m in metrics if m != "total_s") + " |",
              "|---|" + "---|" * (len(metrics) - 1)]
    for other in (OLD, COP):
        cells = []
        for m in metrics:
            if m == "total_s":
                continue
            piv = summ[m].unstack("method")
            if {NEW, other} <= set(piv.columns):
                better = (piv[NEW] < piv[other]) if m in LOWER_IS_BETTER else (piv[NEW] > piv[other])
                cells.append(f"{int(better.sum())}/{len(piv)}")
        lines.append(f"| {other} | " + " | ".join(cells) + " |")
    lines.append("")
    failed = df[df["status"] != "ok"]
    if len(failed):
        lines += ["## Failed runs (verbatim)", ""] + [
            f"- {r.table} {r.method} ε={r.epsilon:g} seed {int(r.seed)}: {r.status}"
            for _, r in failed.iterrows()] + [""]
    (RESULTS / f"{args.stem}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", choices=["run", "report"], default="run")
    ap.add_argument("--tables", nargs="+", default=["adult", "ctg", "lending_club"])
    ap.add_argument("--epsilons", nargs="+", type=float, default=[0.3, 1.0, 3.0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--cache-suffix", default="")
    ap.add_argument("--stem", default="synth_tree_benchmark",
                    help="results/<stem>.md and <stem><suffix>.csv (the --full run: synth_tree_full)")
    ap.add_argument("--full", action="store_true",
                    help="score with score_all (adds gradient boosting and the SDMetrics-style scores)")
    args = ap.parse_args(argv)
    if args.part == "run":
        run(args)
    report(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
