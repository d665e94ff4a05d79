"""Which pairs dominate the pairwise errors of DPCopula / DPTreeCopula (issue #26 diagnosis).

For each table at ε = 1 (δ = 1e-9) and a few seeds, fits DPCopula, DPTreeCopula with the previous
defaults and DPTreeCopula with the new ones on the benchmark training split and lists the pairs of
encoded columns (numeric scaled by the public bounds, one-hot categories, target) with the largest
|Δ Pearson correlation| and the column pairs with the largest 2-way TV (numeric on 10 public
bins), plus the trees chosen. Writes ``results/synth_tree_pairs.md``.

Usage::

    python experiments/synth_tree_pairs.py [--tables ctg lending_club adult] [--seeds 2]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _synth_tables import (REPO_ROOT, _pearson, cardinalities, design_matrix,  # noqa: E402
                           eval_codes, load_table)
from synth_tree_benchmark import _methods  # noqa: E402


def _names(schema):
    out = list(schema.bounds)
    for c, cats in schema.categories.items():
        out += [f"{c}={v}" for v in cats]
    return out + ["TARGET"]


def pair_errors(table, X, y, top):
    s = table.schema
    A = np.column_stack([design_matrix(table.train, s), table.y_train])
    B = np.column_stack([design_matrix(X, s), np.asarray(y, float)])
    Ca, Cb = _pearson(A), _pearson(B)
    nm = _names(s)
    iu = np.triu_indices(len(nm), 1)
    order = np.argsort(-np.abs(Ca - Cb)[iu])[:top]
    corr = [(nm[iu[0][i]], nm[iu[1][i]], Ca[iu[0][i], iu[1][i]], Cb[iu[0][i], iu[1][i]]) for i in order]
    cards = cardinalities(s)
    cn = list(s.bounds) + list(s.categories) + ["TARGET"]
    r, q = eval_codes(table.train, table.y_train, s), eval_codes(X, y, s)
    tvs = []
    for a in range(len(cards)):
        for b in range(a + 1, len(cards)):
            ka, kb = cards[a], cards[b]
            p = np.bincount(r[:, a] * kb + r[:, b], minlength=ka * kb) / len(r)
            qq = np.bincount(q[:, a] * kb + q[:, b], minlength=ka * kb) / len(q)
            tvs.append((0.5 * np.abs(p - qq).sum(), cn[a], cn[b]))
    tvs.sort(reverse=True)
    return corr, tvs[:top]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", nargs="+", default=["ctg", "lending_club", "adult"])
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--top", type=int, default=6)
    args = ap.parse_args(argv)
    lines = ["# Largest pairwise errors (issue #26 diagnosis)", "",
             "Produced by `python experiments/synth_tree_pairs.py` (ε = 1, δ = 1e-9, benchmark "
             "training splits; per seed the pairs with the largest |Δ correlation| of the encoded "
             "columns and the largest 2-way TV).", ""]
    for name in args.tables:
        table = load_table(name)
        for method, (cls, kw) in _methods().items():
            for seed in range(args.seeds):
                m = cls(schema=table.schema, epsilon=1.0, delta=1e-9, classes=[0, 1],
                        random_state=seed, **kw).fit(table.train, table.y_train)
                X, y = m.sample(len(table.train), random_state=seed + 10_000)
                corr, tvs = pair_errors(table, X, y, args.top)
                lines += [f"## {name}, {method}, seed {seed}", ""]
                if hasattr(m, "tree_"):
                    for j, tree in enumerate(m.tree_):
                        lines.append(f"- tree of class {j}: " + ", ".join(
                            f"{m.columns_[a]} → {m.columns_[b]}" for a, b in tree))
                    lines.append("")
                lines += ["| pair (encoded columns) | real corr | synthetic corr |", "|---|---|---|"]
                lines += [f"| {a} × {b} | {ra:+.3f} | {rb:+.3f} |" for a, b, ra, rb in corr]
                lines += ["", "| column pair | 2-way TV |", "|---|---|"]
                lines += [f"| {a} × {b} | {t:.3f} |" for t, a, b in tvs]
                lines.append("")
                print(name, method, seed, flush=True)
    (REPO_ROOT / "results" / "synth_tree_pairs.md").write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
