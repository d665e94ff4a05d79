"""Why the second CLI-default check (``synth_cli_default_2.py``) failed on ``hi``: a diagnosis
AFTER the deciding run (not a rule; nothing here changes the verdict).

The two failing checks were hi's largest pairwise-correlation error at ε = 0.3 and its LR AUC at
ε = 3. This script repeats that protocol (same splits, seeds, constructor calls as
``synth_cli_default_2.fit_sample``) on hi only and reports, for each generator, (1) which pairs
of encoded columns (numeric columns scaled by their public bounds, one-hot categories, the
target last) carry the largest mean absolute correlation error, and (2) the LR AUC of each
generator, and (3) DPTreeCopula's fitted trees at seed 0.

Output: ``results/synth_cli_default_2_diagnose.md``. Run::

    cd experiments && python synth_cli_default_2_diagnose.py     # ~1 min
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _synth_tables as st  # noqa: E402
from synth_cli_default_2 import fit_sample, load, score  # noqa: E402

RESULTS = Path(__file__).resolve().parents[1] / "results"
TABLE = "hi"
EPSILONS = (0.3, 3.0)
SEEDS = 20
GENS = ("DPCopula", "DPTreeCopula")


def names(schema):
    out = list(schema.bounds)
    for c, cats in schema.categories.items():
        out += [f"{c}={v}" for v in cats]
    return out + ["TARGET"]


def main() -> None:
    out = ["# Diagnosis of the failing `hi` checks of `synth_cli_default_2` (after the run)", "",
           "Produced by `experiments/synth_cli_default_2_diagnose.py` (command: `cd experiments "
           "&& python synth_cli_default_2_diagnose.py`), the deciding run's protocol on hi "
           f"({SEEDS} paired seeds). Not a rule: it explains the verdict, it does not change it.",
           ""]
    for eps in EPSILONS:
        err = {g: [] for g in GENS}
        auc = {g: [] for g in GENS}
        for seed in range(SEEDS):
            table = load(TABLE, seed)
            A = np.column_stack([st.design_matrix(table.train, table.schema), table.y_train])
            for g in GENS:
                X, y, _ = fit_sample(g, table, eps, seed)
                B = np.column_stack([st.design_matrix(X, table.schema), y.astype(float)])
                err[g].append(np.abs(st._pearson(A) - st._pearson(B)))
                auc[g].append(score(table, X, y)["lr_auc"])
                if g == GENS[0]:
                    real = st._pearson(A)
        labels = names(table.schema)
        out += [f"## ε = {eps:g}", "",
                "LR AUC (mean over seeds): " + ", ".join(f"{g} {np.mean(auc[g]):.4f}"
                                                         for g in GENS) + ".", ""]
        for g in GENS:
            E = np.mean(err[g], axis=0)
            per_seed_max = [float(e.max()) for e in err[g]]
            iu = np.triu_indices_from(E, 1)
            order = np.argsort(E[iu])[::-1][:6]
            out += [f"### {g}: pairs with the largest mean |correlation error| "
                    f"(mean per-seed max {np.mean(per_seed_max):.4f})", "",
                    "| pair | real corr (last seed's split) | mean abs error |", "|---|---|---|"]
            for o in order:
                a, b = iu[0][o], iu[1][o]
                out.append(f"| {labels[a]} × {labels[b]} | {real[a, b]:+.3f} | {E[a, b]:.4f} |")
            out.append("")
        # which pair attains each seed's maximum, per generator
        for g in GENS:
            where = {}
            for e in err[g]:
                a, b = np.unravel_index(np.argmax(np.triu(e, 1)), e.shape)
                key = f"{labels[a]} × {labels[b]}"
                where[key] = where.get(key, 0) + 1
            out.append(f"- {g}: the per-seed maximum is attained at "
                       + "; ".join(f"{k} ({v}×)" for k, v in sorted(where.items(),
                                                                      key=lambda kv: -kv[1])))
        out.append("")
        # the fitted trees (seed 0): each categorical column's parent, per class
        from matrixdp.synth import DPTreeCopula

        table = load(TABLE, 0)
        model = DPTreeCopula(schema=table.schema, epsilon=eps, delta=1e-9, classes=[0, 1],
                             random_state=0).fit(table.train, table.y_train)
        cols = list(model.columns_)
        out.append(f"DPTreeCopula's trees at seed 0 (child ← parent), per class (target 0, 1):")
        out.append("")
        for c, edges in zip(model.classes_, model.tree_):
            out.append(f"- class {c}: " + ", ".join(f"{cols[b]} ← {cols[a]}" for a, b in edges))
        out.append("")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "synth_cli_default_2_diagnose.md").write_text("\n".join(out) + "\n")
    print("\n".join(out))


if __name__ == "__main__":
    main()
