"""Design screen for issue #26's remaining DPTreeCopula losses (round 3): LR-only TSTR scores of
DPTreeCopula variants on the synthetic-data TUNING tables (adult, ctg, lending_club).

Cheap by design (logistic regression only: no GB, no TV, no pair trends), so many seeds and
variants fit on the shared machine; it designs, it does not decide: a variant that looks better
here goes through ``synth_benchmark.py --part significance`` (every target metric, the 3 x 3 grid
and the check tables, the default-change rule written in ``results/synth_benchmark_significance.md``).

Usage::

    python experiments/synth_tree_gaps.py --cells adult:1 --seeds 6 [--out synth_tree_gaps]

Writes ``results/<out>.csv`` (one row per variant x cell x seed) and ``results/<out>.md``
(means +- sd, and each variant minus the default on the same seeds).
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _synth_tables import REPO_ROOT, design_matrix, load_table  # noqa: E402

RESULTS = REPO_ROOT / "results"
DELTA = 1e-9

#: name -> DPTreeCopula keywords (shares as multipliers of the auto weights: see _kw)
VARIANTS = {
    "default": {},
    "hist x0.5": {"share_mult": (0.5, 1, 1, 1)},
    "hist x2": {"share_mult": (2, 1, 1, 1)},
    "corr x2": {"share_mult": (1, 2, 1, 1)},
    "edges x2": {"share_mult": (1, 1, 1, 2)},
    "scores x0.5": {"share_mult": (1, 1, 0.5, 1)},
    "smoothing 0.25": {"smoothing": 0.25},
    "smoothing 1": {"smoothing": 1.0},
    "correlation per-class": {"correlation": "per-class"},
    "clip 1.5": {"clip_scale": 1.5},
    "pair_bins 4": {"pair_bins": 4},
    "merged_bins pooled": {"merged_bins": "pooled"},
    "sparse cells 1": {"sparse": "cells", "sparse_threshold": 1.0},
    "sparse cells 2": {"sparse": "cells", "sparse_threshold": 2.0},
    "sparse cells 3": {"sparse": "cells", "sparse_threshold": 3.0},
    "sparse tails 2": {"sparse": "tails", "sparse_threshold": 2.0},
    "sparse tails 3": {"sparse": "tails", "sparse_threshold": 3.0},
    "sparse tails 4": {"sparse": "tails", "sparse_threshold": 4.0},
    "sparse pooled 3": {"sparse": "pooled", "sparse_threshold": 3.0},
    "sparse resolved 3": {"sparse": "resolved", "sparse_threshold": 3.0},
    "sparse tested 3": {"sparse": "tested", "sparse_threshold": 3.0},
    # task T (issue #26): hierarchical one-way histograms of the numeric columns (histogram_tree;
    # the first screen ran on every numeric column, "all": the rule "wide" came after it)
    "tree 4 t0": {"histogram_tree": 4, "histogram_tree_threshold": 0.0, "histogram_tree_columns": "all"},
    "tree 4 t1": {"histogram_tree": 4, "histogram_tree_threshold": 1.0, "histogram_tree_columns": "all"},
    "tree 4 t2": {"histogram_tree": 4, "histogram_tree_threshold": 2.0, "histogram_tree_columns": "all"},
    "tree 4 t3": {"histogram_tree": 4, "histogram_tree_threshold": 3.0, "histogram_tree_columns": "all"},
    "tree 8 t2": {"histogram_tree": 8, "histogram_tree_threshold": 2.0, "histogram_tree_columns": "all"},
    "tree 2 t2": {"histogram_tree": 2, "histogram_tree_threshold": 2.0, "histogram_tree_columns": "all"},
    "tree 4 t2 wide": {"histogram_tree": 4, "histogram_tree_threshold": 2.0},
    "tree 8 t2 wide": {"histogram_tree": 8, "histogram_tree_threshold": 2.0},
    "tree 4 t0 wide": {"histogram_tree": 4, "histogram_tree_threshold": 0.0},
    "tree 4 t3 wide": {"histogram_tree": 4, "histogram_tree_threshold": 3.0},
    "tree 4 t2 revol.bal": {"histogram_tree": 4, "histogram_tree_columns": ["revol.bal"]},
    "tree 4 t2 days": {"histogram_tree": 4, "histogram_tree_columns": ["days.with.cr.line"]},
    "tree 4 t2 installment": {"histogram_tree": 4, "histogram_tree_columns": ["installment"]},
    "tree 4 t0 revol.bal": {"histogram_tree": 4, "histogram_tree_threshold": 0.0,
                            "histogram_tree_columns": ["revol.bal"]},
    "tree 4 t2 capital-gain": {"histogram_tree": 4, "histogram_tree_columns": ["capital-gain"]},
    "tree 4 t2 fnlwgt": {"histogram_tree": 4, "histogram_tree_columns": ["fnlwgt"]},
}
# every variant above ran with histogram_tree_projection="nested" (the first version); "global"
# (one projection of the consistent leaves outside the dropped subtrees) came after them
for _name, _kw in list(VARIANTS.items()):
    if "histogram_tree" in _kw:
        _kw.setdefault("histogram_tree_projection", "nested")
        _kw.setdefault("histogram_tree_max_drop", None)
        VARIANTS[_name.replace("tree", "gtree", 1)] = {**_kw, "histogram_tree_projection": "global"}
# then the relative cut (histogram_tree_max_drop): a class's subtrees are dropped only where the
# cut is at most this share of its DP size (after gtree cut LC's thin real tails)
for _t in (2.0, 3.0):
    for _md in (0.0025, 0.005, 0.01):
        VARIANTS[f"rtree 4 t{_t:g} md{_md:g} wide"] = {
            "histogram_tree": 4, "histogram_tree_threshold": _t, "histogram_tree_max_drop": _md,
            "histogram_tree_projection": "global"}
# (rtree ran before the tree release was made conditional on the DP class sizes; atree: the
# released tree only if some class's cut is at most max_drop of its DP size, else flat)
for _md in (0.005, 0.01):
    VARIANTS[f"atree 4 t2 md{_md:g} wide"] = {"histogram_tree": 4, "histogram_tree_threshold": 2.0,
                                              "histogram_tree_max_drop": _md}


def _kw(table, variant) -> dict:
    from matrixdp.synth.tree_copula import auto_shares

    kw = dict(VARIANTS[variant])
    mult = kw.pop("share_mult", None)
    if mult is not None:  # the auto weights of this table's public column counts, scaled
        k = len(table.schema.bounds) + len(table.schema.categories)
        k_num = len(table.schema.bounds)
        kw["shares"] = tuple(float(w) for w in auto_shares(k, k_num, k - k_num) * np.asarray(mult))
    return kw


def lr_scores(table, X_syn, y_syn) -> dict:
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import accuracy_score, balanced_accuracy_score, roc_auc_score

    Xs = design_matrix(X_syn, table.schema)
    Xte = design_matrix(table.test, table.schema)
    prob = LogisticRegression(max_iter=2000).fit(Xs, np.asarray(y_syn, dtype=int)).predict_proba(Xte)[:, 1]
    pred = (prob > 0.5).astype(int)
    return {"lr_acc": accuracy_score(table.y_test, pred), "lr_auc": roc_auc_score(table.y_test, prob),
            "lr_bacc": balanced_accuracy_score(table.y_test, pred)}


def main(argv=None) -> int:
    import pandas as pd

    from matrixdp.synth.tree_copula import DPTreeCopula

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cells", nargs="+", default=["adult:1"])
    ap.add_argument("--seeds", type=int, default=6)
    ap.add_argument("--variants", nargs="+", default=list(VARIANTS))
    ap.add_argument("--out", default="synth_tree_gaps")
    args = ap.parse_args(argv)
    rows = []
    for cell in args.cells:
        name, eps = cell.split(":")
        table = load_table(name)
        for variant in args.variants:
            kw = _kw(table, variant)
            for seed in range(args.seeds):
                model = DPTreeCopula(schema=table.schema, epsilon=float(eps), delta=DELTA,
                                     classes=[0, 1], random_state=seed, **kw).fit(table.train, table.y_train)
                X_syn, y_syn = model.sample(len(table.train), random_state=seed + 10_000)
                rows.append(dict(table=name, epsilon=float(eps), variant=variant, seed=seed,
                                 **lr_scores(table, X_syn, y_syn)))
                print(rows[-1], flush=True)
            pd.DataFrame(rows).to_csv(RESULTS / f"{args.out}.csv", index=False)
    df = pd.DataFrame(rows)
    lines = [f"# DPTreeCopula design screen (issue #26, round 3): `{args.out}`", "",
             "Produced by `python experiments/synth_tree_gaps.py "
             + shlex.join(argv if argv is not None else sys.argv[1:]) + "`. LR-only TSTR on tuning "
             "tables (same splits, public schema, δ = 1e-9, seeds 0..n−1 for every variant: the "
             "default's seeds are the benchmark's). Δ: variant − default on the same seeds; sd: "
             "the default's seed sd. Design only: the decision uses every target metric "
             "(`results/synth_benchmark_significance.md`).", ""]
    for (table, eps), block in df.groupby(["table", "epsilon"]):
        base = block[block.variant == "default"].set_index("seed")
        lines += [f"## {table}, ε = {eps:g}", "",
                  "| variant | seeds | LR acc | LR AUC | LR bal. acc | Δ acc | Δ AUC | Δ bal. acc |",
                  "|---|---|---|---|---|---|---|---|"]
        for variant, vb in block.groupby("variant", sort=False):
            vb = vb.set_index("seed")
            cells = [f"{vb[m].mean():.4f} ± {vb[m].std():.4f}" for m in ("lr_acc", "lr_auc", "lr_bacc")]
            d = [f"{(vb[m] - base[m]).mean():+.4f} (sd {base[m].std():.4f})" for m in
                 ("lr_acc", "lr_auc", "lr_bacc")] if len(base) else ["–"] * 3
            lines.append(f"| {variant} | {len(vb)} | " + " | ".join(cells + d) + " |")
        lines.append("")
    (RESULTS / f"{args.out}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
