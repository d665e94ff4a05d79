"""Task T2 (issue #26): after the failed check (``results/synth_tree_geom.md``), which wide column
of Lending Club costs the LR AUC under ``bin_edges="geometric-wide"``, and which of Adult's
brings the gain. A DIAGNOSIS run after the deciding run: it changes no rule and no default (the
check stays failed); every model is DPTreeCopula with the defaults and geometric edges on the
listed columns only (``bin_edges=[...]``), the same paired seeds as the check (generator seed s,
sampling seed s + 10000), delta = 1e-9, add/remove, the same public schema and eps.

Usage::

    python experiments/synth_tree_geom_diagnose.py --seeds 10 --out synth_tree_geom_diagnose

Writes ``results/<out>.csv`` and ``results/<out>.md``.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synth_tree_geom import DELTA, METRICS, LOWER, RESULTS, _table, scores  # noqa: E402

CELLS = {("lending_club", 1.0): ["installment", "days.with.cr.line", "revol.bal"],
         ("lending_club", 3.0): ["installment", "days.with.cr.line", "revol.bal"],
         ("adult", 1.0): ["fnlwgt", "capital-gain", "capital-loss"]}


def run(seeds, out):
    import pandas as pd

    from matrixdp.synth.tree_copula import DPTreeCopula

    rows = []
    for (name, eps), cols in CELLS.items():
        table = _table(name)
        models = {"default": "equal", "all wide": "geometric-wide", **{c: [c] for c in cols}}
        for seed in range(seeds):
            for model, be in models.items():
                t0 = time.perf_counter()
                m = DPTreeCopula(schema=table.schema, epsilon=eps, delta=DELTA, classes=[0, 1],
                                 random_state=seed, bin_edges=be).fit(table.train, table.y_train)
                X_syn, y_syn = m.sample(len(table.train), random_state=seed + 10_000)
                rows.append(dict(table=name, epsilon=eps, model=model, seed=seed,
                                 **scores(table, X_syn, y_syn), seconds=time.perf_counter() - t0))
                print({k: (round(v, 4) if isinstance(v, float) else v) for k, v in rows[-1].items()}, flush=True)
        pd.DataFrame(rows).to_csv(RESULTS / f"{out}.csv", index=False)
    return pd.DataFrame(rows)


def render(df, out, argv):
    lines = [f"# DPTreeCopula geometric bin edges, one wide column at a time (task T2 diagnosis): `{out}`", "",
             "Produced by `python experiments/synth_tree_geom_diagnose.py " + shlex.join(argv) + "`. "
             "A diagnosis AFTER the failed pre-registered check (`synth_tree_geom.md`): changes no rule "
             "or default. `bin_edges=[column]`: geometric edges on that column only; `all wide`: "
             "`bin_edges=\"geometric-wide\"`. Δ = model − default (mean over "
             f"{df.seed.nunique()} paired seeds), paired SE units in brackets.", "",
             "| table | ε | geometric on | " + " | ".join(f"{m} Δ (se)" for m in METRICS) + " |",
             "|---|---|---|" + "---|" * len(METRICS)]
    for (table, eps), block in df.groupby(["table", "epsilon"], sort=False):
        a = block[block.model == "default"].set_index("seed").sort_index()
        lines.append(f"| {table} | {eps:g} | (default, equal) | "
                     + " | ".join(f"{a[m].mean():.4f}" for m in METRICS) + " |")
        for model in [m for m in block.model.unique() if m != "default"]:
            b = block[block.model == model].set_index("seed").sort_index()
            cells = []
            for m in METRICS:
                d = (b[m] - a[m]).to_numpy()
                se = float(np.std(d, ddof=1) / np.sqrt(len(d)))
                cells.append(f"{np.mean(d):+.4f} ({np.mean(d) / se:+.1f})" if se > 0 else f"{np.mean(d):+.4f}")
            lines.append(f"| {table} | {eps:g} | {model} | " + " | ".join(cells) + " |")
    lines += ["", "Lower is better for " + ", ".join(sorted(LOWER)) + "; higher for the LR metrics.", ""]
    (RESULTS / f"{out}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--out", default="synth_tree_geom_diagnose")
    args = ap.parse_args(argv)
    render(run(args.seeds, args.out), args.out, argv)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
