"""Which of DPTreeCopula's releases costs Adult's LR AUC at ε = 1? (issue #26, round 3; a
DIAGNOSTIC, not a release: it mixes the fitted statistics of two fits.)

Per seed, DPTreeCopula is fitted at ε = 1 and at ε = 1000 (nearly noise-free) with the same
seed; one component of the ε = 1000 fit (the one-way marginals, the latent correlation, the tree
with its edge tables, the class sizes; or one numeric column's marginals) replaces the ε = 1
fit's, the model is sampled and scored by LR-only TSTR (``synth_tree_gaps.lr_scores``). The
component whose swap recovers the most AUC is where the noise costs most. Also prints the
≤ 50K class's probability mass of ``capital-gain`` beyond 50,000 in the ε = 1 and ε = 1000 fits.

Usage::

    python experiments/synth_tree_swap.py --seeds 3

Writes ``results/synth_tree_swap.md`` and ``.csv``.
"""

from __future__ import annotations

import argparse
import copy
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _synth_tables import REPO_ROOT, load_table  # noqa: E402
from synth_tree_gaps import lr_scores  # noqa: E402

RESULTS = REPO_ROOT / "results"
GROUPS = {"none (the ε = 1 fit)": [], "one-way marginals": ["marginals_"],
          "latent correlation": ["correlation_"], "tree + edge tables": ["tree_", "edge_tables_"],
          "class sizes": ["class_priors_", "class_counts_"],
          "all (the ε = 1000 fit)": ["marginals_", "correlation_", "tree_", "edge_tables_",
                                     "class_priors_", "class_counts_"]}


def main(argv=None) -> int:
    import pandas as pd

    from matrixdp.synth.tree_copula import DPTreeCopula

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=3)
    args = ap.parse_args(argv)
    t = load_table("adult")
    rows, tail = [], []
    for seed in range(args.seeds):
        kw = dict(schema=t.schema, classes=[0, 1], random_state=seed)
        lo = DPTreeCopula(epsilon=1.0, **kw).fit(t.train, t.y_train)
        hi = DPTreeCopula(epsilon=1000.0, **kw).fit(t.train, t.y_train)
        swaps = dict(GROUPS)
        swaps.update({f"marginals of {c} only": c for c in lo.numeric_columns_})
        for name, what in swaps.items():
            m = copy.deepcopy(lo)
            if isinstance(what, str):  # one numeric column's marginals
                marg = dict(m.marginals_)
                marg[what] = hi.marginals_[what].copy()
                m.marginals_ = marg
            else:
                for a in what:
                    setattr(m, a, copy.deepcopy(getattr(hi, a)))
            X, y = m.sample(len(t.train), random_state=seed + 10_000)
            rows.append(dict(seed=seed, swapped=name, **lr_scores(t, X, y)))
            print(rows[-1], flush=True)
        edges = np.linspace(0, 99999, lo.marginals_["capital-gain"].shape[1] + 1)
        beyond = edges[:-1] >= 50_000
        tail.append((lo.marginals_["capital-gain"][0, beyond].sum(),
                     hi.marginals_["capital-gain"][0, beyond].sum()))
    df = pd.DataFrame(rows)
    df.to_csv(RESULTS / "synth_tree_swap.csv", index=False)
    summ = df.groupby("swapped", sort=False)[["lr_acc", "lr_auc", "lr_bacc"]].mean()
    lines = ["# Where DPTreeCopula's noise costs Adult's LR AUC at ε = 1 (a diagnostic)", "",
             f"Produced by `python experiments/synth_tree_swap.py --seeds {args.seeds}` (see its "
             "docstring: one component of an ε = 1000 fit swapped into the ε = 1 fit of the same "
             "seed, sampled, LR-only TSTR; means over seeds). Not a release: it reads two fits.", "",
             "| swapped in from ε = 1000 | LR acc | LR AUC | LR bal. acc |", "|---|---|---|---|"]
    for name, r in summ.iterrows():
        lines.append(f"| {name} | {r.lr_acc:.4f} | {r.lr_auc:.4f} | {r.lr_bacc:.4f} |")
    lo_t, hi_t = np.mean(tail, axis=0)
    lines += ["", f"`capital-gain` mass of the ≤ 50K class beyond 50,000 (mean over seeds): ε = 1 "
              f"fit {lo_t:.4f}, ε = 1000 fit {hi_t:.4f}.", ""]
    (RESULTS / "synth_tree_swap.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
