"""Why ``DPTreeCopula(max_parents=2)`` loses Adult's balanced accuracy: variants of the option on
the dev tables hi and Adult, seeds 0..4 (dev round 1's seeds, SEEN), AFTER dev round 2's NO GO.

Not a rule and not a check: it reproduces, on the committed code, the exploration that led from
round 1 to round 2 (``synth_tree_two_parents_dev.py``; done then on intermediate versions) and
the one diagnosis of the balanced-accuracy loss. Variants (monkeypatched, post-processing only):
``tree2`` as committed; ``share0.1`` / ``share0.2`` (``SECOND_PARENT_NOISE_SHARE``); ``catonly`` /
``numonly`` (second parents only categorical / only numeric); ``norake`` (no raking at
sampling). Each against ``tree1`` (max_parents=1) on the same seeds. Plus, for Adult at ε = 3, the
share of the test set the logistic regression trained on each synthetic table predicts positive
(and on the real training table).

Output: ``results/synth_tree_two_parents_explore.{md,csv}``. Run::

    cd experiments && nice -n 5 env OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \\
        python synth_tree_two_parents_explore.py      # ~10 min
"""

from __future__ import annotations

import csv
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _synth_tables as st  # noqa: E402
import synth_cli_default_2 as cd2  # noqa: E402
import synth_tree_two_parents_dev as dev  # noqa: E402

RESULTS = Path(__file__).resolve().parents[1] / "results"
STEM = "synth_tree_two_parents_explore"
TABLES = ("hi", "adult")
EPSILONS = (0.3, 1.0, 3.0)
SEEDS = range(5)
METRICS = ("lr_auc", "lr_bacc", "tv_1way", "tv_2way", "corr_max")
VARIANTS = ("tree2", "share0.1", "share0.2", "catonly", "numonly", "norake")


def patched(variant):
    """A context manager applying a variant to DPTreeCopula's second-parent rule
    (``matrixdp.synth.tree_structure``) or its sampling (``matrixdp.synth.tree_sampling``),
    restored after."""
    from contextlib import contextmanager

    import matrixdp.synth.tree_sampling as tsa
    import matrixdp.synth.tree_structure as tst

    @contextmanager
    def ctx():
        saved = (tst.SECOND_PARENT_NOISE_SHARE, tst.second_parent_cells, tsa.rake)
        cells = saved[1]
        if variant.startswith("share"):
            tst.SECOND_PARENT_NOISE_SHARE = float(variant[5:])
        elif variant == "catonly":
            tst.second_parent_cells = lambda c, numeric: [] if numeric else cells(c, numeric)
        elif variant == "numonly":
            tst.second_parent_cells = lambda c, numeric: cells(c, numeric) if numeric else []
        elif variant == "norake":
            tsa.rake = lambda T, rows, iterations=30: T
        try:
            yield
        finally:
            tst.SECOND_PARENT_NOISE_SHARE, tst.second_parent_cells, tsa.rake = saved
    return ctx()


def positive_rate(table, X, y):
    from sklearn.linear_model import LogisticRegression

    m = LogisticRegression(max_iter=2000).fit(st.design_matrix(X, table.schema), y)
    return float(np.mean(m.predict_proba(st.design_matrix(table.test, table.schema))[:, 1] > 0.5))


def main() -> None:
    rows = []
    for name in TABLES:
        for seed in SEEDS:
            table = dev.load(name, seed)
            for eps in EPSILONS:
                X, y, _, n2 = dev.fit_sample("DPTreeCopula", {}, table, eps, seed)
                r = dict(table=name, epsilon=eps, seed=seed, variant="tree1", n_second=n2, **cd2.score(table, X, y))
                if name == "adult" and eps == 3.0:
                    r["pos_rate"] = positive_rate(table, X, y)
                    rows.append(dict(table=name, epsilon=eps, seed=seed, variant="real", n_second=0,
                                     pos_rate=positive_rate(table, table.train, table.y_train)))
                rows.append(r)
                for v in VARIANTS:
                    with patched(v):
                        X, y, _, n2 = dev.fit_sample("DPTreeCopula", {"max_parents": 2}, table, eps, seed)
                    r = dict(table=name, epsilon=eps, seed=seed, variant=v, n_second=n2, **cd2.score(table, X, y))
                    if name == "adult" and eps == 3.0:
                        r["pos_rate"] = positive_rate(table, X, y)
                    rows.append(r)
        print(name, "done", flush=True)
    fields = ["table", "epsilon", "seed", "variant", "n_second", "pos_rate"] + list(cd2.RULE_METRICS) + ["corr_err"]
    RESULTS.mkdir(exist_ok=True)
    with open(RESULTS / f"{STEM}.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    out = ["# DPTreeCopula(max_parents=2): variants on hi and Adult, after the dev NO GO (T3)", "",
           "Produced by `experiments/synth_tree_two_parents_explore.py` (command: `cd experiments && "
           "nice -n 5 env OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python "
           "synth_tree_two_parents_explore.py`), seeds 0–4 (dev round 1's, seen), ε 0.3/1/3, built as "
           "the CLI builds DPTreeCopula. Not a rule. Entry: variant's mean (its difference to "
           "max_parents=1 in paired se; + = higher).", "",
           "| table | ε | variant | 2nd parents / fit | " + " | ".join(METRICS) + " |",
           "|---|---|---|---|" + "---|" * len(METRICS)]
    def vals(t, e, v, m):
        sel = sorted((r["seed"], r[m]) for r in rows if r["table"] == t and r["epsilon"] == e and r["variant"] == v)
        return np.array([x for _, x in sel], dtype=float)
    for t in TABLES:
        for e in EPSILONS:
            for v in ("tree1",) + VARIANTS:
                cells = []
                for m in METRICS:
                    a, b = vals(t, e, v, m), vals(t, e, "tree1", m)
                    d = a - b
                    se = d.std(ddof=1) / math.sqrt(d.size)
                    cells.append(f"{a.mean():.4f}" + ("" if v == "tree1" else f" ({d.mean() / se:+.1f})" if se > 0 else " (=)"))
                n2 = np.mean([r["n_second"] for r in rows if r["table"] == t and r["epsilon"] == e and r["variant"] == v])
                out.append(f"| {t} | {e:g} | {v} | {n2:.1f} | " + " | ".join(cells) + " |")
    out += ["", "Adult, ε = 3: share of the test set predicted positive by the logistic regression "
            "(mean over seeds 0–4): " + ", ".join(
                f"{v} {np.mean([r['pos_rate'] for r in rows if r['variant'] == v and 'pos_rate' in r]):.3f}"
                for v in ("real", "tree1") + VARIANTS) + "."]
    (RESULTS / f"{STEM}.md").write_text("\n".join(out) + "\n")
    print("\n".join(out))


if __name__ == "__main__":
    main()
