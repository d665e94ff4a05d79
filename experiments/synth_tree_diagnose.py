"""DPTreeCopula variants side by side, mean ± standard deviation over seeds (issue #26, the
downstream gaps at low ε: CTG at ε = 0.3 and Lending Club accuracy / balanced accuracy).

Every variant is ``DPTreeCopula(**kwargs)`` on the same splits, public schemas, seeds and
(ε, δ = 1e-9), add/remove neighbours, scored by ``synth_tree_tuning.light_scores`` (logistic
regression TSTR, TV 1-/2-way, correlation errors) through ``synth_tree_benchmark._run``. Peers
(MST/AIM) are not rerun: compare with the committed rows of ``results/synth_benchmark.md``.

A variant's JSON may carry ``"_constants": {"NAME": value}``: public constants of DPTreeCopula's
modules (``matrixdp.synth.tree_copula``, ``tree_bins``, ``tree_marginals``, ``tree_structure``,
``tree_releases``; e.g. ``tree_bins.CLASS_BINS_RATIO``) set, in every one of them that holds the
name, for that variant's fits only. The
bins each fit used (``n_bins_``, or per class ``class_bins_``) are recorded in the CSV and, for
seed 0, in the table.

Writes ``results/<stem>.{csv,md}``.

Usage::

    nice -n 10 python experiments/synth_tree_diagnose.py --tables ctg --epsilons 0.3 1 --seeds 5 \\
        --variants 'default={}' 'bins16={"n_bins": 16}' 'shrunk={"marginals": "shrunk"}'
"""

from __future__ import annotations

import argparse
import json
import sys
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _synth_tables import REPO_ROOT, load_table  # noqa: E402
from synth_tree_benchmark import _run  # noqa: E402

RESULTS = REPO_ROOT / "results"
METRICS = ["lr_acc", "lr_auc", "lr_bacc", "tv_1way", "tv_2way", "corr_err", "corr_max"]
HEAD = {"lr_acc": "LR acc", "lr_auc": "LR AUC", "lr_bacc": "LR bal. acc", "tv_1way": "TV 1-way",
        "tv_2way": "TV 2-way", "corr_err": "corr err", "corr_max": "corr max"}


def main(argv=None) -> int:
    import pandas as pd

    from matrixdp.synth import tree_bins, tree_copula, tree_marginals, tree_releases, tree_structure
    from matrixdp.synth.tree_copula import DPTreeCopula

    # the modules that hold (and read) DPTreeCopula's public constants
    constant_modules = (tree_copula, tree_bins, tree_marginals, tree_structure, tree_releases)

    class Recorded(DPTreeCopula):  # keeps the last fitted model to record the bins it used
        last = None

        def fit(self, *a, **k):
            out = super().fit(*a, **k)
            Recorded.last = out
            return out

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", nargs="+", default=["ctg"])
    ap.add_argument("--epsilons", nargs="+", type=float, default=[0.3])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--variants", nargs="+", default=["default={}"],
                    help="NAME=JSON keyword arguments of DPTreeCopula")
    ap.add_argument("--stem", default="synth_tree_diagnose")
    ap.add_argument("--check-against", default=None,
                    help="a variant name: list, for every other variant, the table × ε × metric "
                         "cells where it is worse than this one by more than this one's seed sd")
    args = ap.parse_args(argv)
    variants = {}
    for spec in args.variants:
        name, kw = spec.split("=", 1)
        variants[name] = json.loads(kw)
    rows = []
    for table_name in args.tables:
        table = load_table(table_name)
        for eps in args.epsilons:
            for seed in range(args.seeds):
                for name, kw in variants.items():
                    row = dict(table=table_name, variant=name, kwargs=json.dumps(kw),
                               epsilon=eps, seed=seed)
                    kw = dict(kw)
                    constants = kw.pop("_constants", {})
                    saved = {(mod, c): getattr(mod, c) for c in constants for mod in constant_modules
                             if hasattr(mod, c)}
                    try:
                        for mod, c in saved:
                            setattr(mod, c, constants[c])
                        Recorded.last = None
                        row.update(_run(Recorded, kw, table, eps, seed), status="ok")
                        m = Recorded.last
                        cb = getattr(m, "class_bins_", None)
                        row["bins"] = "/".join(map(str, cb)) if cb is not None else str(m.n_bins_)
                    except Exception as exc:  # the table says what failed
                        row.update(status=f"failed: {type(exc).__name__}: {exc}"[:200])
                        traceback.print_exc()
                    finally:
                        for (mod, c), v in saved.items():
                            setattr(mod, c, v)
                    rows.append(row)
                    print(table_name, name, eps, seed, row.get("lr_auc"), flush=True)
    df = pd.DataFrame(rows)
    df.to_csv(RESULTS / f"{args.stem}.csv", index=False)
    ok = df[df["status"] == "ok"]
    lines = [f"# DPTreeCopula variants, mean ± sd over seeds (`{' '.join(['python experiments/synth_tree_diagnose.py'] + (argv or sys.argv[1:]))}`)", "",
             "Same splits, public schemas, seeds and (ε, δ = 1e-9), add/remove; logistic-regression "
             "TSTR on the real test split, TV and correlation errors against the real training "
             "split (`synth_tree_tuning.light_scores`). Variants: "
             + "; ".join(f"`{n}` = `DPTreeCopula(**{kw})`" for n, kw in variants.items()) + ".", ""]
    for (t, eps), block in ok.groupby(["table", "epsilon"], sort=False):
        lines += [f"## {t}, ε = {eps:g}", "", "| variant | seeds | bins (seed 0) | "
                  + " | ".join(HEAD[m] for m in METRICS) + " |", "|---|---|---|" + "---|" * len(METRICS)]
        for name, r in block.groupby("variant", sort=False):
            cells = [f"{r[m].mean():.3f} ± {r[m].std(ddof=1):.3f}" for m in METRICS]
            bins = r.sort_values("seed")["bins"].iloc[0]
            lines.append(f"| {name} | {len(r)} | {bins} | " + " | ".join(cells) + " |")
        lines.append("")
    if args.check_against:
        lines += criterion(ok, args.check_against)
    failed = df[df["status"] != "ok"]
    if len(failed):
        lines += ["## Failed runs", ""] + [f"- {r.table} {r.variant} ε={r.epsilon:g} seed "
                                           f"{r.seed}: {r.status}" for r in failed.itertuples()]
    (RESULTS / f"{args.stem}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


def criterion(ok, base: str) -> list:
    """The adoption check: cells (table × ε × metric) where a variant's mean is worse than the
    ``base`` variant's mean by more than the base's seed standard deviation (higher is better for
    the downstream metrics, lower for the errors)."""
    higher = {"lr_acc", "lr_auc", "lr_bacc"}
    g = ok.groupby(["table", "epsilon", "variant"])[METRICS]
    mean, sd = g.mean(), g.std(ddof=1)
    cells = list(ok.groupby(["table", "epsilon"], sort=False).groups)
    lines = [f"## Check against `{base}`: cells worse by more than `{base}`'s seed sd", "",
             "| variant | cells better | cells worse by > sd | which |", "|---|---|---|---|"]
    for v in ok["variant"].unique():
        if v == base:
            continue
        bad, better = [], 0
        for t, e in cells:
            for m in METRICS:
                b, s, x = mean.loc[(t, e, base), m], sd.loc[(t, e, base), m], mean.loc[(t, e, v), m]
                gain = (x - b) if m in higher else (b - x)
                better += gain > 0
                if gain < -s:
                    bad.append(f"{t} ε={e:g} {HEAD[m]} {x:.4f} vs {b:.4f} (sd {s:.4f})")
        lines.append(f"| {v} | {better} of {len(cells) * len(METRICS)} | {len(bad)} | "
                     + ("; ".join(bad) or "–") + " |")
    return lines + [""]


if __name__ == "__main__":
    raise SystemExit(main())
