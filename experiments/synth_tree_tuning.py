"""Tuning DPTreeCopula's options on the TRAIN splits of Adult and CTG only (issue #26).

Each table's benchmark training split is split again (seeded 70/30, public and data-independent):
generators are fitted on the 70% part and scored (``light_scores``) against it
(TV, correlation errors) and against the 30% part (train on synthetic, test on real; logistic
regression only -- gradient boosting and the SDMetrics-style scores are left to the benchmark). The
benchmark test splits and Lending Club are never read here: Lending Club is held out, and the
chosen configuration is then measured on every table by ``synth_tree_benchmark.py``.

Writes ``results/synth_tree_tuning.{csv,md}``.

Usage::

    python experiments/synth_tree_tuning.py [--tables adult ctg] [--seeds 3]
"""

from __future__ import annotations

import argparse
import sys
import time
import traceback
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _synth_tables import (REPO_ROOT, _split, cardinalities, design_matrix, eval_codes,  # noqa: E402
                           load_table, marginal_tv, max_correlation_error, correlation_error)

RESULTS = REPO_ROOT / "results"
DELTA = 1e-9
OLD = dict(shares=(0.35, 0.25, 0.1, 0.3), correlation="per-class", binary_latent=False,
           normalise="count")
CONFIGS = {
    "old": OLD,
    "auto": dict(OLD, shares="auto"),
    "auto+pooled": dict(OLD, shares="auto", correlation="pooled"),
    "auto+trace": dict(OLD, shares="auto", normalise="trace"),
    "auto+pooled+trace": dict(OLD, shares="auto", correlation="pooled", normalise="trace"),
    "auto+pooled+trace+binary": dict(shares="auto", correlation="pooled", normalise="trace",
                                     binary_latent=True),
    "auto+shrunk+trace": dict(OLD, shares="auto", correlation="shrunk", normalise="trace"),
    "auto+pooled+trace+pb16": dict(OLD, shares="auto", correlation="pooled", normalise="trace",
                                   pair_bins=16),
    "auto+pooled+trace+sm3": dict(OLD, shares="auto", correlation="pooled", normalise="trace",
                                  smoothing=3.0),
    "auto+shrunk+trace+pb16": dict(OLD, shares="auto", correlation="shrunk", normalise="trace",
                                   pair_bins=16),
    "auto+shrunk+trace+sm3": dict(OLD, shares="auto", correlation="shrunk", normalise="trace",
                                  smoothing=3.0),
}
METRICS = ["lr_acc", "lr_auc", "lr_bacc", "tv_1way", "tv_2way", "corr_err", "corr_max", "total_s"]


def light_scores(table, X_syn, y_syn) -> dict:
    """The benchmark's metrics without gradient boosting and the SDMetrics-style scores (the
    shared machine is loaded): logistic-regression TSTR, TV 1-/2-way, correlation errors."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import accuracy_score, balanced_accuracy_score, roc_auc_score

    s = table.schema
    Xs, Xtr, Xte = (design_matrix(f, s) for f in (X_syn, table.train, table.test))
    y_syn = np.asarray(y_syn, dtype=int)
    if np.unique(y_syn).size < 2:
        prob = np.full(len(Xte), float(y_syn[0]))
    else:
        prob = LogisticRegression(max_iter=2000).fit(Xs, y_syn).predict_proba(Xte)[:, 1]
    pred = (prob > 0.5).astype(int)
    out = dict(lr_acc=accuracy_score(table.y_test, pred),
               lr_auc=roc_auc_score(table.y_test, prob) if np.unique(prob).size > 1 else 0.5,
               lr_bacc=balanced_accuracy_score(table.y_test, pred))
    out["tv_1way"], out["tv_2way"] = marginal_tv(eval_codes(table.train, table.y_train, s),
                                                 eval_codes(X_syn, y_syn, s), cardinalities(s))
    A = np.column_stack([Xtr, table.y_train])
    B = np.column_stack([Xs, y_syn.astype(float)])
    out["corr_err"], out["corr_max"] = correlation_error(A, B), max_correlation_error(A, B)
    return out


def tuning_table(name):
    """The benchmark's training split, split again 70/30 (fit / validation)."""
    t = load_table(name)
    fit, val, yf, yv = _split(t.train, t.y_train, seed=1)
    return replace(t, train=fit, test=val, y_train=yf, y_test=yv)


def main(argv=None) -> int:
    import pandas as pd

    from matrixdp.synth.tree_copula import DPTreeCopula

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", nargs="+", default=["adult", "ctg"])
    ap.add_argument("--epsilons", nargs="+", type=float, default=[0.3, 1.0, 3.0])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--configs", nargs="+", default=list(CONFIGS))
    ap.add_argument("--out", default="synth_tree_tuning")
    args = ap.parse_args(argv)
    if "lending_club" in args.tables:
        raise SystemExit("Lending Club is held out: it is not used for tuning")
    rows = []
    for name in args.tables:
        table = tuning_table(name)
        for eps in args.epsilons:
            for seed in range(args.seeds):
                for cfg in args.configs:
                    row = dict(table=name, config=cfg, epsilon=eps, seed=seed)
                    try:
                        t0 = time.perf_counter()
                        model = DPTreeCopula(schema=table.schema, epsilon=eps, delta=DELTA,
                                             classes=[0, 1], random_state=seed, **CONFIGS[cfg])
                        model.fit(table.train, table.y_train)
                        X, y = model.sample(len(table.train), random_state=seed + 10_000)
                        row.update(light_scores(table, X, y), total_s=time.perf_counter() - t0,
                                   status="ok")
                    except Exception as exc:  # keep going; the table says what failed
                        row.update(status=f"failed: {type(exc).__name__}: {exc}"[:200])
                        traceback.print_exc()
                    rows.append(row)
                    print(name, eps, seed, cfg, {k: round(row.get(k, np.nan), 3) for k in
                                                  ("lr_bacc", "lr_auc", "tv_2way", "corr_max")},
                          flush=True)
                    pd.DataFrame(rows).to_csv(RESULTS / f"{args.out}.csv", index=False)
    df = pd.DataFrame(rows)
    ok = df[df.status == "ok"]
    summ = ok.groupby(["table", "epsilon", "config"], sort=False)[METRICS].mean()
    lines = ["# DPTreeCopula tuning on the training splits of Adult and CTG (issue #26)", "",
             "Produced by `python experiments/synth_tree_tuning.py` "
             f"(seeds 0..{args.seeds - 1}). Each benchmark training split is split again 70/30 "
             "(seeded, data-independent): fit on 70%, TV/correlation against it, train-on-synthetic "
             "test on the 30%. Lending Club and the benchmark test splits are not read (held out). "
             "Means over seeds; time = fit + sample (s) on the shared machine.", ""]
    for (t, e), block in summ.groupby(level=[0, 1], sort=False):
        lines += [f"## {t}, ε = {e:g}", "", "| config | " + " | ".join(METRICS) + " |",
                  "|---|" + "---|" * len(METRICS)]
        for (_, _, cfg), r in block.iterrows():
            lines.append(f"| {cfg} | " + " | ".join(f"{r[m]:.3f}" for m in METRICS) + " |")
        lines.append("")
    lines += ["Configurations (DPTreeCopula keyword arguments):", ""]
    lines += [f"- {k}: `{v}`" for k, v in CONFIGS.items() if k in args.configs]
    (RESULTS / f"{args.out}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
