"""Synthetic data side by side: matrixdp's generators vs MST and AIM (smartnoise-synth), issue #26.

One run scores every method with the same code (``_synth_tables.py``) on the same tables, splits,
public schema, (ε, δ = 1e-9) and seeds, ε ∈ {0.3, 1, 3} by default:

* ours (this venv): DPCopula, DPTreeCopula ((ε, δ)-DP, add/remove) and RON-Gauss (faithful,
  uniform class weights; and with DP class priors; pure ε-DP, replace-one);
* peers (a separate venv with the ``synth-benchmark`` extra, named by ``$MATRIXDP_SYNTH_PEER_PYTHON``;
  smartnoise-synth 1.0.8 with private-pgm's ``mbi`` 1.1.0): MST and AIM, (ε, δ)-DP under add/remove,
  each fit once per seed and sampled twice, by mbi 1.1.0's stock sampler and by our fixed one
  (``_synth_peers.py``: random, not positional, ranks within each parent group).

Outputs ``results/synth_benchmark.{md,csv,png}`` and the synthetic-data section of BENCHMARKS.md.
Per-part caches (``synth_benchmark_peers*.csv``, ``synth_benchmark_ours*.csv``) let the slow peers
run first, in the background and in parallel (``--cache-suffix``), and let ours be rerun alone.

Usage::

    python experiments/synth_benchmark.py                      # everything, then the report
    $MATRIXDP_SYNTH_PEER_PYTHON experiments/synth_benchmark.py --part peers [--cache-suffix _x]
    python experiments/synth_benchmark.py --part ours          # matrixdp generators only (fast)
    python experiments/synth_benchmark.py --part report        # merge the caches, render
    python experiments/synth_benchmark.py --part compare       # DPTreeCopula vs DPCopula only
    python experiments/synth_benchmark.py --part reference     # non-private ceiling rows
    python experiments/synth_benchmark.py --part significance --seeds 20 --ours DPTreeCopula

``--part compare`` writes ``results/synth_benchmark_tree.{md,csv}``: DPTreeCopula and DPCopula side
by side with SDMetrics-style column-shape / column-pair-trend scores
(``matrixdp.synth.evaluate``); the peers are in ``results/synth_benchmark.md``.
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import subprocess
import sys
import time
import traceback
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _synth_tables import (LOWER_IS_BETTER, REPO_ROOT, PeakMemory, load_table,  # noqa: E402
                          metric_row, score_all)

RESULTS = REPO_ROOT / "results"
#: The Python of the peers' own environment (``pip install ".[synth-benchmark]"`` in a separate venv).
PEER_PYTHON = os.environ.get("MATRIXDP_SYNTH_PEER_PYTHON", str(REPO_ROOT / ".venv-synth" / "bin" / "python"))
DELTA = 1e-9  # smartnoise-synth's default for MST and AIM; DPCopula uses the same
PEER_BINS = 32  # numeric bins given to MST/AIM (the same public bins as DPCopula's default)
#: AIM's configuration (smartnoise-synth's defaults are max_model_size=80 MB and rounds = 16 × the
#: number of columns, which did not finish one Adult fit in 41 min on the shared machine). Rounds
#: must exceed the number of columns d: smartnoise's AIM spends d/rounds of 90% of ρ on the 1-way
#: marginals at the per-round σ (rounds ≤ d leaves nothing, and NaN, for the 2-way rounds).
AIM_KW = {"max_model_size": 10}
AIM_ROUNDS_PER_COLUMN = 2
FIELDS = ["table", "method", "epsilon", "delta", "relation", "seed", "lr_acc", "lr_auc", "lr_bacc",
          "gb_acc", "gb_auc", "gb_bacc", "tv_1way", "tv_2way", "corr_err", "corr_max", "shape",
          "pair_trend", "fit_s", "sample_s", "total_s", "peak_mb", "status", "timing", "load_1m"]
#: ``timing`` of a cached row: empty for the committed timing run (its times enter the time column
#: and × MST); ``"quality only"`` for a seed filled in later under another load of the shared
#: machine (``--part peers --quality-only``): its metrics count, its time stays in the raw csv only.
#: ``load_1m``: the machine's 1-minute load average at the end of the fit (rows written since).
QUALITY_ONLY = "quality only"


def _append(path: Path, row: dict) -> None:
    new = not path.exists()
    with path.open("a", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=FIELDS)
        if new:
            w.writeheader()
        w.writerow({k: row.get(k, "") for k in FIELDS})


# ------------------------------------------------------------------- ours
def _traced_peak_mb(fn) -> float:
    """tracemalloc's peak (numpy and Python allocations) of a second, untimed call."""
    import tracemalloc

    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2 ** 20


def _run_ours_generator(cls, table, eps, seed):
    """Fit + sample one of matrixdp's table generators (DPCopula, DPTreeCopula), timed and scored."""

    with PeakMemory() as mem:
        X_syn, y_syn, fit_s, _ = fit_sample_ours(cls, table, eps, seed)
    row = score_all(table, X_syn, y_syn)
    row.update(fit_s=fit_s, sample_s=mem.seconds - fit_s, total_s=mem.seconds,
               peak_mb=mem.peak_mb, delta=DELTA, relation="add-remove")
    return row


def fit_sample_ours(cls, table, eps, seed):
    """The timed path of one generator: fit on the training table, sample as many records.

    Returns ``(X_syn, y_syn, fit_s, total_s)``; shared by the benchmark and
    ``synth_speed_pairs.py`` so both time the same calls.
    """
    t0 = time.perf_counter()
    model = cls(schema=table.schema, epsilon=eps, delta=DELTA, classes=[0, 1],
                random_state=seed).fit(table.train, table.y_train)
    t1 = time.perf_counter()
    X_syn, y_syn = model.sample(len(table.train), random_state=seed + 10_000)
    return X_syn, y_syn, t1 - t0, time.perf_counter() - t0


def _run_copula(table, eps, seed):
    from matrixdp.synth.copula import DPCopula

    return _run_ours_generator(DPCopula, table, eps, seed)


def _run_tree_copula(table, eps, seed):
    from matrixdp.synth.tree_copula import DPTreeCopula

    return _run_ours_generator(DPTreeCopula, table, eps, seed)


def _run_ron_gauss(table, eps, seed, class_weights):
    import warnings

    from _synth_tables import design_matrix
    from _synth_tables import tstr_scores
    from matrixdp.synth import RONGauss

    Xtr = design_matrix(table.train, table.schema)
    Xte = design_matrix(table.test, table.schema)
    dim = min(13, Xtr.shape[1] - 1)
    kw = dict(dim=dim, epsilon=eps, task="classification", classes=[0, 1], random_state=seed)
    if class_weights == "uniform":  # the paper's Algorithm 5: public class sizes, equal shares
        kw.update(class_sizes="public", class_weights="uniform")
    # else the library default: private class sizes, DP class counts as the priors
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with PeakMemory() as mem:
            t0 = time.perf_counter()
            model = RONGauss(**kw).fit(Xtr, table.y_train)
            t1 = time.perf_counter()
            Z, y_syn = model.sample(len(Xtr))
        traced = _traced_peak_mb(lambda: RONGauss(**kw).fit(Xtr, table.y_train).sample(len(Xtr)))
    row = tstr_scores(Z, y_syn, model.transform(Xte), table.y_test)
    # RON-Gauss synthesises in a projected space: no original columns to compare marginals on
    row.update(tv_1way="", tv_2way="", corr_err="", fit_s=t1 - t0,
               sample_s=mem.seconds - (t1 - t0), total_s=mem.seconds,
               peak_mb=max(mem.peak_mb, traced), delta=0.0,
               relation=("replace-one (same label, public class sizes)" if class_weights == "uniform"
                         else "replace-one (private class sizes)"))
    return row


OURS = {
    "DPCopula": _run_copula,
    "DPTreeCopula": _run_tree_copula,
    "RON-Gauss (faithful, uniform classes)": lambda t, e, s: _run_ron_gauss(t, e, s, "uniform"),
    "RON-Gauss (DP class priors)": lambda t, e, s: _run_ron_gauss(t, e, s, "dp"),
}


def run_ours(args) -> None:
    out = RESULTS / f"synth_benchmark_ours{args.cache_suffix}.csv"
    selected = [m for m in OURS if any(m == o or m.startswith(o + " ") for o in args.ours)]
    if out.exists() and args.keep_other_methods:  # rerun only the selected methods' rows
        import pandas as pd

        kept = pd.read_csv(out)
        kept = kept[~kept["method"].isin(selected)].reindex(columns=FIELDS)  # the current columns
        kept.to_csv(out, index=False)
        print(f"kept {len(kept)} rows of other methods in {out.name}", flush=True)
    elif out.exists():
        out.unlink()
    for name in args.tables:
        table = load_table(name)
        for eps in args.epsilons:
            for method, fn in OURS.items():
                if not any(method == m or method.startswith(m + " ") for m in args.ours):
                    continue
                for seed in range(args.seeds):
                    row = dict(table=name, method=method, epsilon=eps, seed=seed)
                    try:
                        row.update(fn(table, eps, seed), status="ok")
                    except Exception as exc:  # keep going; the table says what failed
                        row.update(status=f"failed: {type(exc).__name__}: {exc}"[:200])
                        traceback.print_exc()
                    _append(out, row)
                    print(name, method, eps, seed, row.get("lr_auc"), row.get("total_s"), flush=True)


# ------------------------------------------------------------- non-private reference (ceiling)
REAL_DATA = "Real data (non-private)"
MAJORITY = "Majority class (non-private)"
REFERENCE = (REAL_DATA, MAJORITY)
REFERENCE_CACHE = "synth_benchmark_ours_reference.csv"  # read by --part report with ours*
SWEEP = RESULTS / "synth_benchmark_reference_sweep.csv"


def _pareto(y_test, prob) -> list:
    """(acc, bal. acc) of every threshold of the score ``prob`` (predict 1 when prob >= t), kept
    where no other threshold has both a higher accuracy and a higher balanced accuracy."""
    order = np.argsort(-prob, kind="stable")
    y = np.asarray(y_test, dtype=int)[order]
    p, n = y.sum(), y.size - y.sum()
    tp = np.concatenate([[0], np.cumsum(y)])  # predicting the top i as positive, i = 0..N
    fp = np.concatenate([[0], np.cumsum(1 - y)])
    keep = np.concatenate([[True], np.diff(prob[order]) != 0, [True]])  # ties split no further
    acc = (tp + (n - fp)) / y.size
    bacc = 0.5 * (tp / p + (n - fp) / n)
    acc, bacc = acc[keep], bacc[keep]
    front = []
    best = -1.0
    for i in np.argsort(-acc, kind="stable"):  # by accuracy, highest first
        if bacc[i] > best:
            front.append((float(acc[i]), float(bacc[i])))
            best = bacc[i]
    return front


def run_reference(args) -> None:
    """The ceiling of every cell: LR and GB trained on the REAL training split (scored as the
    synthetic tables are), and the predictor of the training split's majority class. Non-private
    (ε = ∞): repeated in every ε block for reading, one deterministic row per table. Also the
    (accuracy, balanced accuracy) front over all thresholds of the real-data LR's score, and of an
    LR fitted to the test split itself (an oracle no generator can reach), for the feasibility
    of the downstream target pairs (``_reference_lines``)."""
    from sklearn.linear_model import LogisticRegression

    from _synth_tables import design_matrix, tstr_scores

    out = RESULTS / REFERENCE_CACHE
    if out.exists():
        out.unlink()
    sweep = []
    for name in args.tables:
        table = load_table(name)
        Xtr = design_matrix(table.train, table.schema)
        Xte = design_matrix(table.test, table.schema)
        real = tstr_scores(Xtr, table.y_train, Xte, table.y_test)
        majority_label = int(np.mean(table.y_train) > 0.5)
        majority = tstr_scores(Xtr, np.full(len(Xtr), majority_label), Xte, table.y_test)
        for eps in args.epsilons:
            for method, scores in ((REAL_DATA, real), (MAJORITY, majority)):
                _append(out, dict(table=name, method=method, epsilon=eps, seed=0,
                                  relation="non-private", status="ok", **scores))
        for fit_on, X, y in (("train", Xtr, table.y_train), ("test (oracle)", Xte, table.y_test)):
            prob = LogisticRegression(max_iter=2000).fit(X, y).predict_proba(Xte)[:, 1]
            sweep += [dict(table=name, lr_fitted_on=fit_on, acc=a, bacc=b)
                      for a, b in _pareto(table.y_test, prob)]
        print(name, "real", {k: round(v, 4) for k, v in real.items()}, flush=True)
    import pandas as pd

    pd.DataFrame(sweep).to_csv(SWEEP, index=False)


def _reference_lines(ok) -> list:
    """Per table × ε: can one LR reach the best peer's LR accuracy AND the best peer's LR
    balanced accuracy together (the two downstream targets that pull apart on skewed tables)?"""
    import pandas as pd

    if not (ok.method == REAL_DATA).any():
        return []
    front = pd.read_csv(SWEEP) if SWEEP.exists() else pd.DataFrame(columns=["table", "lr_fitted_on", "acc", "bacc"])

    infeasible = []

    def best_bacc(table, fit_on, acc_min):
        f = front[(front.table == table) & (front.lr_fitted_on == fit_on) & (front.acc >= acc_min - 1e-12)]
        return f"{f.bacc.max():.3f}" if len(f) else "none"

    lines = ["## The non-private ceiling, and which target pairs an LR can meet", "",
             f"*{REAL_DATA}*: the same LR and GB trained on the real training split, scored on the "
             f"same test split (ε = ∞; one deterministic row per table, repeated in every ε block). "
             f"*{MAJORITY}*: always the majority class of the real training split. Both from "
             "`python experiments/synth_benchmark.py --part reference` (cache "
             f"`results/{REFERENCE_CACHE}`, threshold fronts `results/{SWEEP.name}`). Targets: the "
             "best peer row of the cell for LR accuracy and, separately, for LR balanced accuracy "
             "(as in the targets table). *Sweep*: the highest balanced accuracy of any threshold of "
             "the real-data LR's score whose accuracy reaches the accuracy target; *oracle*: the "
             "same for an LR fitted to the test split itself (an upper reference no generator can "
             "reach).", "",
             "| table | ε | target LR acc | target LR bal. acc | real-data LR acc | real-data LR bal. acc "
             "| both met by the real-data LR | sweep: max bal. acc at acc ≥ target | oracle: same |",
             "|---|---|---|---|---|---|---|---|---|"]
    for (table, eps), block in ok.groupby(["table", "epsilon"]):
        peers = block[block.method.str.startswith(("MST", "AIM"))]
        real = block[block.method == REAL_DATA]
        if not len(peers) or not len(real):
            continue
        means = peers.groupby("method")[["lr_acc", "lr_bacc"]].mean()
        t_acc, t_bacc = means.lr_acc.max(), means.lr_bacc.max()
        r = real.iloc[0]
        both = (r.lr_acc >= t_acc) and (r.lr_bacc >= t_bacc)
        lines.append(f"| {table} | {eps:g} | {t_acc:.4f} ({means.lr_acc.idxmax()}) | {t_bacc:.4f} "
                     f"({means.lr_bacc.idxmax()}) | {r.lr_acc:.4f} | {r.lr_bacc:.4f} | "
                     f"{'yes' if both else 'NO'} | {best_bacc(table, 'train', t_acc)} | "
                     f"{best_bacc(table, 'test (oracle)', t_acc)} |")
        sweep = front[(front.table == table) & (front.lr_fitted_on == "train")
                      & (front.acc >= t_acc - 1e-12)]
        if not both and (not len(sweep) or sweep.bacc.max() < t_bacc):
            maj = block[block.method == MAJORITY].lr_acc
            infeasible.append(f"{table} ε = {eps:g} (targets {t_acc:.4f} / {t_bacc:.4f}; real-data LR "
                              f"{r.lr_acc:.4f} / {r.lr_bacc:.4f}; best threshold "
                              f"{sweep.bacc.max() if len(sweep) else float('nan'):.4f} at accuracy ≥ "
                              f"{t_acc:.4f}; majority class "
                              f"{maj.iloc[0] if len(maj) else float('nan'):.4f})")
    lines.append("")
    if infeasible:
        lines += ["**Infeasible target pairs for this classifier:** " + ", ".join(infeasible) + ". "
                  "There, an LR trained on the real training data itself misses the pair at "
                  "threshold 0.5, and no threshold of its score reaches the balanced-accuracy "
                  "target while keeping the accuracy target (where the accuracy target equals the "
                  "majority class's accuracy, it is met by a peer that predicts the majority class "
                  "throughout, balanced accuracy 0.500; the balanced-accuracy target comes from "
                  "another peer row, with a lower accuracy). A generator whose output matches the real distribution cannot "
                  "meet both; only an LR fitted to the test split itself, with its threshold tuned "
                  "on it, reaches the pair (oracle column).", ""]
    return lines


# ------------------------------------------------ significance of the remaining losses (issue #26)
#: The cells where DPTreeCopula lost a downstream target with 5 seeds (issue #26, round 3).
SIGNIFICANCE_CELLS = ["adult:1", "ctg:3"]


def _variant_name(args) -> str:
    return f"DPTreeCopula ({args.label})" if args.tree_kw else "DPTreeCopula"


def run_significance(args) -> None:
    """Many seeds of our generators in the named cells (``--cells table:eps``), against the cached
    peer rows: ``results/synth_benchmark_significance{suffix}.{csv,md}``. Seeds 0..4 are the seeded
    runs of the committed benchmark rows (same seeds, same outputs); the benchmark tables keep
    their 5 seeds. ``--tree-kw`` (JSON) runs a DPTreeCopula variant under ``--label``."""
    import json

    from matrixdp.synth.copula import DPCopula
    from matrixdp.synth.tree_copula import DPTreeCopula

    out = RESULTS / f"synth_benchmark_significance{args.cache_suffix}.csv"
    kw = json.loads(args.tree_kw) if args.tree_kw else {}

    def tree(**extra):
        mult = extra.pop("auto_shares_mult", None)

        def make(**k):
            if mult is not None:  # the auto weights of the table's public column counts, scaled
                from matrixdp.synth.tree_copula import auto_shares

                n_num = len(k["schema"].bounds)
                n_all = n_num + len(k["schema"].categories)
                extra["shares"] = tuple(float(w) for w in
                                        auto_shares(n_all, n_num, n_all - n_num) * np.asarray(mult))
            return DPTreeCopula(**k, **extra)

        return make

    runners = {"DPCopula": DPCopula, "DPTreeCopula": tree()}
    if kw:
        runners = {_variant_name(args): tree(**kw)}
    selected = [m for m in runners if kw or m in args.ours]
    done = {(r["table"], r["method"], float(r["epsilon"]), int(r["seed"])) for r in _read(out)
            if r.get("status") == "ok"}
    for cell in args.cells:
        name, eps = cell.split(":")
        eps = float(eps)
        table = load_table(name)
        for method in selected:
            for seed in range(args.seeds):
                if (name, method, eps, seed) in done:
                    continue
                row = dict(table=name, method=method, epsilon=eps, seed=seed)
                try:
                    row.update(_run_ours_generator(runners[method], table, eps, seed), status="ok")
                except Exception as exc:  # keep going; the table says what failed
                    row.update(status=f"failed: {type(exc).__name__}: {exc}"[:200])
                    traceback.print_exc()
                _append(out, row)
                print(name, method, eps, seed, row.get("lr_auc"), row.get("lr_bacc"), flush=True)
    significance_report(args)


def significance_report(args) -> None:
    import pandas as pd

    frames = [pd.read_csv(p) for p in sorted(RESULTS.glob("synth_benchmark_significance*.csv"))]
    ours = pd.concat(frames, ignore_index=True)
    ours = ours[ours.status == "ok"].drop_duplicates(subset=["table", "method", "epsilon", "seed"])
    df = _load_rows()
    # the default's committed benchmark rows (seeds 0-4: the same seeded runs) for the rule's
    # cells this part did not rerun; the peer section keeps the cells run here
    committed = df[(df.method == "DPTreeCopula") & (df.status == "ok")]
    with_committed = pd.concat([ours, committed.reindex(columns=ours.columns)], ignore_index=True)
    with_committed = with_committed.drop_duplicates(subset=["table", "method", "epsilon", "seed"])
    peers = df[(df.status == "ok") & df.method.str.startswith(("MST", "AIM"))]
    metrics = [("lr_acc", "LR acc"), ("lr_auc", "LR AUC"), ("lr_bacc", "LR bal. acc")]
    lines = ["# Are DPTreeCopula's remaining downstream losses outside seed noise? (issue #26)", "",
             "Produced by `python experiments/synth_benchmark.py --part significance --seeds 20` "
             "(our generators only, seconds per seed; peer rows from the committed caches, never "
             "rerun). Same tables, splits, public schema, (ε, δ = 1e-9), add/remove, scoring code "
             "as `results/synth_benchmark.md`. Seeds 0–4 are the same seeded runs as the committed "
             "benchmark rows (the benchmark tables keep those 5 seeds; this file adds seeds 5–19). "
             "Best peer: the peer row (MST/AIM × sampler) with the highest mean of that metric in "
             "the cell, 2 seeds. Gap = ours − best peer. se = √(sd_ours²/n_ours + sd_peer²/n_peer) "
             "(the peer's sd from 2 seeds is itself very uncertain). **Rule (fixed before the 20-seed "
             "run):** a loss is *outside seed noise* when gap < −2·se, and *within seed noise* "
             "otherwise; a gain likewise when gap > 2·se.", "",
             "Runs merged here (each its own cache `results/synth_benchmark_significance*.csv`; "
             "`P='python experiments/synth_benchmark.py --part significance'`): the default, "
             "`$P --seeds 20 --ours DPTreeCopula`; CTG ε = 3 screens, `$P --cells ctg:3 --seeds 10 "
             "--tree-kw '{\"correlation\": \"per-class\"}' --label correlation=per-class "
             "--cache-suffix _screen_pc` (likewise `clip_scale` 1.5 / 2, `correlation` shrunk); the "
             "check runs of the rule section, `$P --seeds 5 --cells <the 15 cells> --tree-kw <the "
             "candidate> --label <label> --cache-suffix _check_<name>` and the default on the check "
             "tables, `$P --seeds 5 --cells fair:0.3 fair:1 fair:3 randhie:0.3 randhie:1 randhie:3 "
             "--ours DPTreeCopula --cache-suffix _check_default`; 20 seeds of an option in the lost "
             "cells, `$P --seeds 20 --cells adult:1 ctg:3 --tree-kw <kw> --label <label> "
             "--cache-suffix <suffix>` (`_sparse_tails`, `_check_pooled`).", ""]
    for (table, eps), block in ours.groupby(["table", "epsilon"]):
        cellp = peers[(peers.table == table) & (peers.epsilon == eps)]
        if not len(cellp):  # a check table without peer rows: only the default-change section
            continue
        lines += [f"## {table}, ε = {eps:g}", "",
                  "| method | metric | seeds | ours mean ± sd | seeds 0–4 mean | best peer | peer mean ± sd (n) "
                  "| gap | se | gap / se | verdict |", "|---|---|---|---|---|---|---|---|---|---|---|"]
        for method, mb in block.groupby("method", sort=False):
            for key, label in metrics:
                o = mb[key].astype(float)
                first5 = mb[mb.seed < 5][key].astype(float).mean()
                pm = cellp.groupby("method")[key].agg(["mean", "std", "size"])
                best = pm["mean"].idxmax()
                p = pm.loc[best]
                gap = o.mean() - p["mean"]
                se = math.sqrt(o.std() ** 2 / len(o) + (p["std"] if p["size"] > 1 else 0.0) ** 2 / p["size"])
                z = gap / se if se > 0 else float("nan")
                verdict = ("loss outside seed noise" if gap < -2 * se else
                           "gain outside seed noise" if gap > 2 * se else "within seed noise")
                lines.append(f"| {method} | {label} | {len(o)} | {o.mean():.4f} ± {o.std():.4f} | "
                             f"{first5:.4f} | {best} | {p['mean']:.4f} ± {p['std']:.4f} ({int(p['size'])}) | "
                             f"{gap:+.4f} | {se:.4f} | {z:+.1f} | {verdict} |")
        lines.append("")
    lines += _default_change_lines(with_committed)
    (RESULTS / "synth_benchmark_significance.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


#: The metrics of the default-change rule (issue #26's targets) and whether higher is better.
RULE_METRICS = [("lr_acc", "LR acc", True), ("lr_auc", "LR AUC", True), ("lr_bacc", "LR bal. acc", True),
                ("tv_2way", "TV 2-way", False), ("corr_max", "corr max", False)]


#: The cells of the default-change rule: the benchmark grid and the two check tables.
RULE_CELLS = [(t, e) for t in ("adult", "ctg", "lending_club", "fair", "randhie") for e in (0.3, 1.0, 3.0)]


def _default_change_lines(ours) -> list:
    """Each DPTreeCopula variant against the default on the seeds both ran, per cell: the rule
    of the round-3 brief, fixed before the check run."""
    lines = ["## Variants against the default (the default-change rule)", "",
             "**Candidate put to the rule** (chosen on the LR-only screen of adult ε = 1, "
             "`results/synth_tree_gaps.md`, the largest AUC gain of 10 variants there, +0.0010, before "
             "the check run): the auto shares with the one-way histograms' weight doubled "
             "(`AUTO_SHARES_HIST_WEIGHT` 1 → 2; label `histograms x2`, run with `--tree-kw "
             "'{\"auto_shares_mult\": [2, 1, 1, 1]}'`). **Second candidate** (written here before its "
             "check run, after the first failed): `sparse=\"pooled\"`, `sparse_threshold=3` (label "
             "`sparse=pooled`; post-processing of the one-way histograms, `docs/tree_copula.md`, "
             "\"Sparse histograms\"), chosen on the LR-only screens of the three tuning tables "
             "(`results/synth_tree_gaps_pooled_guard.md`: no LR metric of the 9 cells worse than "
             "0.83 default sd; CTG ε = 3 balanced accuracy +0.063, Adult ε = 0.3 / 1 AUC +0.0072 / "
             "+0.0023) after the per-class variants `tails`, `cells` and `resolved` lost on CTG "
             "or Lending Club there. **Third candidate** (written here before its check run, after the "
             "second failed on pairwise metrics): `sparse=\"tested\"`, `sparse_threshold=3` (label "
             "`sparse=tested`): `pooled`'s span, but a side beyond it is cut only when its summed "
             "counts are consistent with no records (below 3 noise sd of that sum), chosen on "
             "`results/synth_tree_gaps_tested.md` (no LR metric of the 9 tuning cells worse than "
             "0.72 default sd). The other variants below were screened on ctg ε = 3 or adult "
             "ε = 1 only and were not put to the check.", "",
             "**Rule (written before the check run):** a variant becomes DPTreeCopula's default only "
             "if, in every cell (table × ε) of the 3 × 3 benchmark grid (adult, ctg, lending_club × "
             "ε ∈ {0.3, 1, 3}) AND of the two check tables (fair, randhie × the same ε), none of "
             "the target metrics (LR acc, LR AUC, LR bal. acc: higher is better; TV 2-way, corr "
             "max: lower is better) is worse than the default's mean by more than the default's "
             "seed sd in that cell (same seeds for both). Otherwise it ships as an option, with these "
             "numbers. A cell the variant did not run counts as not passed.", "",
             "| variant | table | ε | seeds | worst metric (variant − default, in default sd) | "
             "cells' verdict |", "|---|---|---|---|---|---|"]
    base = ours[ours.method == "DPTreeCopula"]
    verdicts = {}
    for method in [m for m in ours.method.unique() if m != "DPTreeCopula"]:
        var = ours[ours.method == method]
        for (table, eps), vb in var.groupby(["table", "epsilon"]):
            bb = base[(base.table == table) & (base.epsilon == eps) & base.seed.isin(vb.seed)]
            vb = vb[vb.seed.isin(bb.seed)]
            if len(bb) < 2:
                continue
            worst, worst_text = float("inf"), ""
            for key, label, higher in RULE_METRICS:
                sd = bb[key].std()
                diff = vb[key].mean() - bb[key].mean()
                score = (diff if higher else -diff) / sd if sd > 0 else 0.0
                if score < worst:
                    worst, worst_text = score, f"{label} {diff:+.4f} ({score:+.1f} sd)"
            lines.append(f"| {method} | {table} | {eps:g} | {len(bb)} | {worst_text} | "
                         f"{'passes' if worst >= -1.0 else 'FAILS'} |")
            verdicts.setdefault(method, {})[(table, float(eps))] = worst >= -1.0
    lines.append("")
    for method, cells in verdicts.items():
        missing = [c for c in RULE_CELLS if c not in cells]
        failed = [c for c, ok in cells.items() if not ok and c in RULE_CELLS]
        ok_all = not missing and not failed
        lines.append(f"- {method}: {sum(cells.get(c, False) for c in RULE_CELLS)} of "
                     f"{len(RULE_CELLS)} rule cells pass"
                     + (f"; failed: {', '.join(f'{t} ε = {e:g}' for t, e in failed)}" if failed else "")
                     + (f"; not run: {len(missing)}" if missing else "")
                     + (" → may become the default" if ok_all else " → NOT a default (option only)"))
    lines.append("")
    return lines


# ------------------------------------------------------------------ peers
def _peer_frame(table, frame, y):
    """Every column as public integer codes (numeric: PEER_BINS bins on the bounds), target last."""
    import pandas as pd

    out = {}
    for c, (lo, hi) in table.schema.bounds.items():
        x = np.clip(frame[c].to_numpy(dtype=float), lo, hi)
        out[c] = np.minimum(((x - lo) / (hi - lo) * PEER_BINS).astype(int), PEER_BINS - 1)
    for c, cats in table.schema.categories.items():
        out[c] = pd.Categorical(frame[c].to_numpy(dtype=object), categories=list(cats)).codes.astype(int)
    out["__target__"] = np.asarray(y, dtype=int)
    return pd.DataFrame(out)


def _peer_decode(table, codes, rng):
    """Codes back to values: uniform within a numeric bin (as DPCopula samples), categories by code."""
    import pandas as pd

    out = {}
    for c, (lo, hi) in table.schema.bounds.items():
        b = np.clip(codes[c].to_numpy(dtype=float), 0, PEER_BINS - 1)
        x = lo + (b + rng.uniform(size=b.size)) * (hi - lo) / PEER_BINS
        if c in table.schema.integer:
            x = np.clip(np.round(x), math.ceil(lo), math.floor(hi)).astype(np.int64)
        out[c] = x
    for c, cats in table.schema.categories.items():
        k = np.clip(codes[c].to_numpy(dtype=int), 0, len(cats) - 1)
        out[c] = np.asarray(cats, dtype=object)[k]
    return pd.DataFrame(out), codes["__target__"].to_numpy(dtype=int)


def _peer_cards(table) -> list:
    """Public domain size of every peer column (numeric bins, categories, the two classes)."""
    return ([PEER_BINS] * len(table.schema.bounds)
            + [len(c) for c in table.schema.categories.values()] + [2])


def _run_peer(table, method, eps, seed, timing="") -> list:
    """One fit of MST or AIM, sampled by mbi 1.1.0's stock sampler and by the fixed one.

    Both samplers post-process the same fitted model, so the pair shows the sampler's effect
    alone; each row's time is the shared fit time plus its own sampling time.
    """
    from _synth_peers import fit_peer, sample_peer

    np.random.seed(seed)  # MST/AIM draw from numpy's global generator
    data = _peer_frame(table, table.train, table.y_train)
    with PeakMemory() as mem:
        t0 = time.perf_counter()
        aim_kw = dict(AIM_KW, rounds=AIM_ROUNDS_PER_COLUMN * data.shape[1])
        synth = fit_peer(method, data, _peer_cards(table), eps, DELTA, aim_kw)
        fit_s = time.perf_counter() - t0
    load_1m = os.getloadavg()[0]
    rows = []
    for sampler in ("fixed", "stock"):
        np.random.seed(seed + 20_000)  # smartnoise's decompression of rare codes uses it too
        t1 = time.perf_counter()
        codes = sample_peer(synth, len(data), list(data.columns), sampler,
                            np.random.default_rng(seed + 20_000))
        sample_s = time.perf_counter() - t1
        X_syn, y_syn = _peer_decode(table, codes, np.random.default_rng(seed + 10_000))
        row = score_all(table, X_syn, y_syn)
        row.update(method=f"{method.upper()} ({sampler} sampler)", fit_s=fit_s, sample_s=sample_s,
                   total_s=fit_s + sample_s, peak_mb=mem.peak_mb, delta=DELTA,
                   relation="add-remove", timing=timing, load_1m=load_1m)
        rows.append(row)
    return rows


def _done() -> set:
    """(table, method, ε, seed) already in any peers cache with status ok: a restarted run, or a
    concurrent one, skips them (read afresh before every fit)."""
    rows = [r for path in sorted(RESULTS.glob("synth_benchmark_peers*.csv")) for r in _read(path)]
    return {(r["table"], r["method"], float(r["epsilon"]), int(r["seed"])) for r in rows
            if r.get("status") == "ok"}


def run_peers(args) -> None:
    out = RESULTS / f"synth_benchmark_peers{args.cache_suffix}.csv"
    if args.fresh and out.exists():
        out.unlink()
    _record_peer_versions()
    tables = {name: load_table(name) for name in args.tables}
    # seeds outermost: every cell gets a first seed before any gets a second
    for seed in range(args.seed_start, args.seed_start + args.peer_seeds):
        for name in args.tables:
            for eps in args.epsilons:
                for method in args.methods:
                    if (name, f"{method.upper()} (fixed sampler)", eps, seed) in _done():
                        continue
                    base = dict(table=name, epsilon=eps, seed=seed)
                    try:
                        rows = [dict(base, **r, status="ok")
                                for r in _run_peer(tables[name], method, eps, seed,
                                                   QUALITY_ONLY if args.quality_only else "")]
                    except Exception as exc:
                        rows = [dict(base, method=f"{method.upper()} (fixed sampler)",
                                     status=f"failed: {type(exc).__name__}: {exc}"[:200])]
                        traceback.print_exc()
                    for row in rows:
                        _append(out, row)
                        print(name, row["method"], eps, seed, row.get("lr_auc"),
                              row.get("total_s"), flush=True)


# ----------------------------------------------------------------- report
METRICS = ["lr_acc", "lr_auc", "lr_bacc", "gb_acc", "gb_auc", "gb_bacc", "tv_1way", "tv_2way",
           "corr_err", "corr_max", "total_s", "peak_mb"]


def _read(path: Path) -> list:
    if not path.exists():
        return []
    with path.open() as fh:
        return list(csv.DictReader(fh))


PEER_VERSIONS = RESULTS / "synth_benchmark_peer_versions.json"
DOWNSTREAM = ["lr_acc", "lr_auc", "lr_bacc"]
PAIRWISE = ["tv_2way", "corr_max"]
MST_REF = "MST (fixed sampler)"  # the speed ratio's reference: MST at its best configuration


def _record_peer_versions() -> None:
    """The peer stack's versions, written by the peer process (the report quotes them)."""
    import json
    import platform
    from importlib.metadata import version

    names = ["smartnoise-synth", "mbi", "jax", "jaxlib", "torch", "opendp", "numpy", "pandas",
             "scipy", "scikit-learn"]
    found = {"python": platform.python_version()}
    for n in names:
        try:
            found[n] = version(n)
        except Exception:  # noqa: BLE001 - an absent package is recorded as such
            found[n] = "absent"
    PEER_VERSIONS.write_text(json.dumps(found, indent=1) + "\n")


def _load_rows():
    import pandas as pd

    rows = []
    for pattern in ("synth_benchmark_peers*.csv", "synth_benchmark_ours*.csv"):
        for path in sorted(RESULTS.glob(pattern)):
            rows += _read(path)
    if not rows:
        raise SystemExit("no results to report")
    df = pd.DataFrame(rows).reindex(columns=FIELDS)
    for c in FIELDS:
        if c not in ("table", "method", "relation", "status", "timing"):
            df[c] = pd.to_numeric(df[c], errors="coerce")
    # a (table, method, ε, seed) run by two parallel parts is the same seeded run: count it once
    return df.drop_duplicates(subset=["table", "method", "epsilon", "seed"], keep="last")


METHOD_ORDER = ["DPCopula", "DPTreeCopula", "MST (fixed sampler)", "MST (stock sampler)",
                "AIM (fixed sampler)", "AIM (stock sampler)", "RON-Gauss (faithful, uniform classes)",
                "RON-Gauss (DP class priors)", REAL_DATA, MAJORITY]


def _order(methods) -> list:
    known = [m for m in METHOD_ORDER if m in methods]
    return known + sorted(m for m in methods if m not in METHOD_ORDER)


def report(args) -> None:
    import json

    import pandas as pd

    df = _load_rows()
    df.to_csv(RESULTS / "synth_benchmark.csv", index=False)
    ok = df[df["status"] == "ok"]
    g = ok.groupby(["table", "epsilon", "method"], sort=True)
    summ = g[METRICS].mean()
    # time: median over the seeds of the committed timing run only (robust to the shared load); a
    # seed filled in later under another load adds its metrics, never its time (not comparable)
    timed = ok[ok["timing"].fillna("") != QUALITY_ONLY]
    summ["total_s"] = timed.groupby(["table", "epsilon", "method"])["total_s"].median()
    summ["seeds"] = g.size()
    n_quality_only = int((ok["timing"] == QUALITY_ONLY).sum())
    fill = ok[(ok["timing"] == QUALITY_ONLY) & (ok.method == MST_REF)]
    ref_t = timed[timed.method == MST_REF].groupby(["table", "epsilon"])["total_s"].median()
    fill_ratio = (ref_t.reindex(list(zip(fill.table, fill.epsilon))).to_numpy()
                  / fill.total_s.to_numpy()) if len(fill) else np.array([np.nan])
    fill_text = (f"; for scale, the {len(fill)} MST fill-in fits took {fill.total_s.min():.0f}–"
                 f"{fill.total_s.max():.0f} s at a 1-minute load average of "
                 f"{fill.load_1m.min():.1f}–{fill.load_1m.max():.1f} on the 2 cores, "
                 "and the committed run's MST time of the same cell is "
                 f"{np.nanmin(fill_ratio):.1f}–{np.nanmax(fill_ratio):.1f}× theirs"
                 if len(fill) else "")
    sd = g[DOWNSTREAM].std()
    failed = df[df["status"] != "ok"]
    versions = json.loads(PEER_VERSIONS.read_text()) if PEER_VERSIONS.exists() else {}
    vtext = ", ".join(f"{k} {v}" for k, v in versions.items()) or "not recorded"
    is_peer = ok.method.str.startswith(("MST", "AIM"))
    is_ref = ok.method.isin(REFERENCE)
    seeds_ours = sorted(set(ok[~is_peer & ~is_ref].groupby(["table", "epsilon", "method"]).size()))
    seeds_peers = sorted(set(ok[is_peer].groupby(["table", "epsilon", "method"]).size()))
    from synth_speed_pairs import summary_sentence  # the same-load pairs (their own csv)

    pairs_text = summary_sentence()
    check = RESULTS / "synth_benchmark_sampler_check.txt"
    check_text = check.read_text().strip() if check.exists() else "not run"
    lines = [
        "# Synthetic data: DPCopula and DPTreeCopula vs MST and AIM, side by side (issue #26)", "",
        "Produced by `experiments/synth_benchmark.py` (see *Reproduce* below). Every method gets the "
        "same tables, splits, public schema (bounds, categories, classes), (ε, δ = 1e-9) and "
        "add/remove neighbour relation, and is scored by the same code (`experiments/_synth_tables.py`). "
        "Train on synthetic, test on real (TSTR): logistic regression (LR) and histogram gradient "
        "boosting (GB); accuracy at threshold 0.5, ROC AUC, balanced accuracy. TV 1-/2-way: mean "
        "total-variation distance over all 1-way / 2-way marginals (numeric columns on 10 equal-width "
        "public bins, target included). corr max: the largest error of any single pairwise Pearson "
        "correlation of the encoded tables (numeric scaled by bounds, one-hot categories, target); "
        "corr err: the Frobenius norm of the whole difference. Time: fit + sample of as many records "
        "as the training table, seconds, median over the seeds of the committed timing run, on a "
        "shared, heavily loaded 2-core machine (peers and ours ran as concurrent `nice -n 10` "
        "processes under the same load); "
        + (f"the {n_quality_only // 2} peer fits of seeds filled in later, under another load "
           "(`--quality-only`), count in every metric but not in the time column or \u00d7 MST "
           "(their times and the load average are in `results/synth_benchmark.csv`, columns "
           f"`timing`, `load_1m`{fill_text}); " if n_quality_only else "") +
        f"\u00d7 MST: {MST_REF}'s median time divided by the method's. **Caveat on time:** in the "
        "committed run the load fell sharply near its end (26 Nov, ~16:15 UTC): most peer fits ran "
        "under the heavy load and most of ours (all of Adult ε = 1, 3) did not, so the speed "
        "ratios overstate the speed-up, by an order of magnitude or more in some cells (the same "
        "Lending Club MST fit, ε = 3 seed 0, run twice by two concurrent peer processes, took "
        "2,397 s under load and 316 s after it: raw caches `results/synth_benchmark_peers_*.csv`; "
        "the report keeps one of the duplicates). "
        "Treat them as indicative"
        + (f". {pairs_text} These same-load pairs, not the time column, are the measure for "
           "the \u2265 100\u00d7 target." if pairs_text else
           "; a rerun on a quiet machine is needed for the \u2265 100\u00d7 target."), "",
        "**Peers, at the best configuration we could run.** smartnoise-synth's MST and AIM with "
        f"private-pgm's `mbi` (versions: {vtext}). smartnoise-synth 1.0.8 pins `mbi < 2`, and mbi "
        "1.1.0's `synthetic_data` ranks the rows of each parent group by row position, so sibling "
        "columns come out comonotone (issue #26). *fixed sampler*: our own post-processing of the "
        "same fitted model (`experiments/_synth_peers.py::sample_fixed`): each column is drawn from "
        "its conditional given its parents by stratified inversion with the strata dealt to the rows "
        "of each parent group at random, afresh for every column. *stock sampler*: mbi 1.1.0's. "
        "Both rows of a peer come from ONE fit per seed (the time column adds each sampler's own "
        "sampling time to the shared fit time), so their difference is the sampler's alone; the "
        "privacy guarantee is the same. Check of both samplers on a known model (a parent A with "
        "two children independent given A; `python experiments/_synth_peers.py` in the peers' venv, "
        f"`results/synth_benchmark_sampler_check.txt`): {check_text}. AIM: "
        f"max_model_size = {AIM_KW['max_model_size']} MB, rounds = {AIM_ROUNDS_PER_COLUMN} × the "
        "number of columns d (target included: d = 15 Adult, 14 Lending Club, 22 CTG; the 1-way "
        f"marginals take 1/{AIM_ROUNDS_PER_COLUMN} of AIM's 90% measurement share, the rest funds the "
        "2-way rounds, fewer when AIM's annealing halves σ) "
        "(smartnoise's defaults, 80 MB and 16 × the number of columns, did not finish one Adult fit "
        "in 41 min on this machine in an earlier run); degree-2 workload of every pair (max_cells "
        "10,000), smartnoise's default.", "",
        "**Same public schema.** Each peer column is passed as integer codes on its public domain "
        f"({PEER_BINS} equal-width bins of the public bounds for numeric columns, decoded uniformly "
        "within a bin as DPCopula does; categories in the public order; the class), through a "
        "smartnoise `BinTransformer` with fixed bounds per column: the domain size is the public "
        "one (not the codes present in the private data) and no budget goes to bounds "
        "(`approx_bounds`, with its inf/NaN leak, is never called). **Peer advantage we could not "
        "remove through the API:** smartnoise's MST passes the exact training row count to "
        "mirror descent (`known_total=len(data)`), which is not DP under add/remove; AIM estimates "
        "the total from its noisy measurements. MST/AIM convert zCDP to (ε, δ) with smartnoise's "
        "`cdp_rho` (OpenDP's conversion); DPCopula/DPTreeCopula compose their Gaussian releases "
        "exactly as Gaussian DP. mbi 1.1.0 weights each measurement's squared residual by 1/σ² "
        "(the residual is divided by σ before squaring), the weighting AIM's annealing assumes.", "",
        f"Seeds: {'/'.join(map(str, seeds_ours)) or '–'} per cell for matrixdp's generators, "
        f"{'/'.join(map(str, seeds_peers)) or '–'} for the peers (minutes per fit on the shared "
        "machine; the `seeds` column of each row). Means ± standard deviation over seeds. With 2 "
        "peer seeds, differences in the third decimal are noise.", ""]
    for (table, eps), block in summ.groupby(level=[0, 1]):
        block = block.droplevel([0, 1])
        ref = block["total_s"].get(MST_REF, np.nan)
        lines += [f"## {table}, \u03b5 = {eps:g}", "",
                  "| method | seeds | LR acc | LR AUC | LR bal. acc | GB acc | GB AUC | GB bal. acc | "
                  "TV 1-way | TV 2-way | corr max | corr err | time (s) | \u00d7 MST |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for method in _order(block.index):
            r = block.loc[method]
            s = sd.loc[(table, eps, method)]

            def f(v, d=3):
                return "–" if pd.isna(v) else f"{v:.{d}f}"

            ratio = ref / r.total_s if r.total_s > 0 else np.nan
            ratio_text = f(ratio, 0) if ratio >= 10 else f(ratio, 2)
            lines.append(
                f"| {method} | {int(r.seeds)} | {f(r.lr_acc)} ± {f(s.lr_acc)} | {f(r.lr_auc)} ± "
                f"{f(s.lr_auc)} | {f(r.lr_bacc)} ± {f(s.lr_bacc)} | {f(r.gb_acc)} | {f(r.gb_auc)} | "
                f"{f(r.gb_bacc)} | {f(r.tv_1way)} | {f(r.tv_2way)} | {f(r.corr_max)} | "
                f"{f(r.corr_err, 2)} | {f(r.total_s, 2)} | {ratio_text if method != MST_REF else '1'} |")
        lines.append("")
    target, short = _target_lines(summ)
    lines += target
    lines += _reference_lines(ok)
    missing = []
    for table in sorted(set(df.table)):
        for eps in sorted(set(df.epsilon.dropna())):
            for peer in ("MST", "AIM"):
                have = ok[(ok.table == table) & (ok.epsilon == eps)
                          & (ok.method == f"{peer} (fixed sampler)")]
                if len(have) < 2:
                    missing.append(f"- {table} ε = {eps:g} {peer}: {len(have)} of 2 seeds")
    if missing:
        lines += ["## Peer runs missing (not run: out of time on the shared machine)", "",
                  "Cells with fewer than the 2 planned peer seeds (a cell without any peer row "
                  "has no target line above):", ""] + missing + [""]
    if len(failed):
        lines += ["## Failed runs (verbatim)", ""]
        for _, r in failed.iterrows():
            lines.append(f"- {r.table} {r.method} ε={r.epsilon:g} seed {int(r.seed)}: {r.status}")
        lines.append("")
    lines += ["## Reproduce", "",
              "```",
              "# peers (their own venv: smartnoise-synth 1.0.8 + mbi 1.1.0, torch CPU); slow, cached",
              "MATRIXDP_SYNTH_PEER_PYTHON=/path/to/peer-venv/bin/python  # or .venv-synth",
              "$MATRIXDP_SYNTH_PEER_PYTHON experiments/synth_benchmark.py --part peers "
              "--peer-seeds 2 [--cache-suffix _x]",
              "# a seed filled in later, under another load: metrics only, its time stays out of "
              "× MST",
              "$MATRIXDP_SYNTH_PEER_PYTHON experiments/synth_benchmark.py --part peers "
              "--quality-only --seed-start 1 --peer-seeds 1 --tables adult --epsilons 1 --methods mst "
              "--cache-suffix _y",
              "# ours (seconds): rewrites results/synth_benchmark_ours.csv only",
              "python experiments/synth_benchmark.py --part ours",
              "# the non-private ceiling (real-data LR/GB, majority class; seconds): "
              "results/synth_benchmark_ours_reference.csv",
              "python experiments/synth_benchmark.py --part reference",
              "# 20 seeds of DPTreeCopula in the cells it lost: results/synth_benchmark_significance.md",
              "python experiments/synth_benchmark.py --part significance --seeds 20 --ours DPTreeCopula",
              "# merge every cache (peers*, ours*) into this file, the csv and the png",
              "python experiments/synth_benchmark.py --part report",
              "```", "",
              "Peer rows are cached in `results/synth_benchmark_peers*.csv` (one file per concurrent "
              "peer process) and are reused by `--part report`; a restarted `--part peers` skips the "
              "(table, method, ε, seed) already cached. Raw rows of every method: "
              "`results/synth_benchmark.csv`.", ""]
    (RESULTS / "synth_benchmark.md").write_text("\n".join(lines) + "\n")
    _benchmarks_section(summ, short)
    _plot(summ)
    print("\n".join(lines))


def _benchmarks_section(summ, short) -> None:
    """The per-cell speed ratios and the target summary into BENCHMARKS.md (tables: results/)."""
    sys.path.insert(0, str(REPO_ROOT / "benchmarks"))
    from _report import write_section

    body = ["From `experiments/synth_benchmark.py` (every table × ε ∈ {0.3, 1, 3}, δ = 1e-9, "
            "add/remove, the metric definitions, peer versions and configurations: "
            "`results/synth_benchmark.md`, `.csv`, `.png`). Fit + sample time, median over the "
            "seeds of the committed timing run (peer seeds filled in later, under another load, "
            "count in the metrics only), on the shared 2-core machine (dozens of concurrent jobs "
            "of other sessions: every time is inflated, the long peer fits' most; the load fell "
            "near the end of the run, see the caveat in `results/synth_benchmark.md`); ratio = "
            f"{MST_REF}'s time / the method's (– where MST did not run).", "",
            "| table | ε | method | time (s) | × MST |", "|---|---|---|---|---|"]
    for (table, eps), block in summ.groupby(level=[0, 1]):
        block = block.droplevel([0, 1])
        ref = block["total_s"].get(MST_REF, np.nan)
        for method in [m for m in _order(block.index) if m not in REFERENCE]:  # untimed
            t = block.loc[method, "total_s"]
            ratio = ref / t
            text = "–" if np.isnan(ratio) else (f"{ratio:.0f}" if ratio >= 10 else f"{ratio:.2f}")
            t_text = "– (fill-in seeds only)" if np.isnan(t) else f"{t:.2f}"
            body.append(f"| {table} | {eps:g} | {method} | {t_text} | {text} |")
    body += [""] + short
    write_section("Synthetic data vs MST and AIM", "\n".join(body))


def _target_lines(summ):
    """Issue #26's targets per table × ε for each of matrixdp's generators: met or NOT met.

    Downstream (LR accuracy, AUC, balanced accuracy): at least the best peer row of the cell
    (MST or AIM, either sampler). 2-way TV and max pairwise-correlation error: at most the best
    MST row. Speed: fit + sample at least 100× faster than MST (fixed sampler).
    """
    ours = [m for m in ("DPCopula", "DPTreeCopula") if m in summ.index.get_level_values(2)]
    if not ours:
        return [], []
    peer_seeds = summ["seeds"][summ.index.get_level_values(2).str.startswith(("MST", "AIM"))]
    one_seed = int((peer_seeds == 1).sum())
    lines = ["## Targets of issue #26, per table × ε (means over seeds)", "",
             "Downstream (LR accuracy / AUC / balanced accuracy): at least the best peer row of the "
             "cell (MST or AIM, either sampler: each metric against its own best peer). TV 2-way and "
             "corr max: at most the best MST row. Speed: \u2265 100\u00d7 faster than "
             f"{MST_REF}. ✓ met, ✗ NOT met (the margin in brackets: ours − peer for downstream, "
             "peer − ours for the errors, ratio for speed; – where MST did not run in that cell, "
             "and the downstream columns then compare with AIM alone). A margin within a few "
             "thousandths is inside the seed noise; peer rows (MST/AIM × sampler) with 1 seed: "
             f"{one_seed} of {len(peer_seeds)}, the rest 2.", "",
             "| table | ε | method | LR acc | LR AUC | LR bal. acc | TV 2-way | corr max | speed |",
             "|---|---|---|---|---|---|---|---|---|"]
    count = {m: {} for m in ours}
    for (table, eps), block in summ.groupby(level=[0, 1]):
        block = block.droplevel([0, 1])
        peers = block.loc[[m for m in block.index if m.startswith(("MST", "AIM"))]]
        mst = block.loc[[m for m in block.index if m.startswith("MST")]]
        if not len(peers):
            continue
        for m in ours:
            if m not in block.index:
                continue
            r = block.loc[m]
            cells = []
            for k in DOWNSTREAM:
                margin = r[k] - peers[k].max()
                cells.append((margin >= 0, f"{margin:+.3f}"))
            for k in PAIRWISE:
                margin = mst[k].min() - r[k] if len(mst) else np.nan
                cells.append((margin >= 0, f"{margin:+.3f}"))
            ref = block["total_s"].get(MST_REF, np.nan)
            ratio = ref / r.total_s
            cells.append((ratio >= 100, f"{ratio:.0f}\u00d7"))
            names = ["LR acc", "LR AUC", "LR bal. acc", "TV 2-way", "corr max", "speed"]
            for name, (met, txt) in zip(names, cells):
                if "nan" not in txt:  # a missing peer row counts neither way
                    count[m].setdefault(name, [0, 0])
                    count[m][name][0] += bool(met)
                    count[m][name][1] += 1
            lines.append(f"| {table} | {eps:g} | {m} | " + " | ".join(
                "– (no MST row)" if "nan" in txt else f"{'✓' if met else '✗'} ({txt})"
                for met, txt in cells) + " |")
    lines.append("")
    short = ["**Targets of issue #26 met, cells out of table × ε (details: "
             "`results/synth_benchmark.md`)**", ""]
    for m in ours:
        short.append(f"- {m}: " + ", ".join(f"{name} {a}/{b}" for name, (a, b) in count[m].items()))
    short.append("")
    return lines + short[2:], short


def _plot(summ) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tables = sorted(set(summ.index.get_level_values(0)))
    methods = sorted(set(summ.index.get_level_values(2)))
    colour = {m: f"C{i}" for i, m in enumerate(methods)}  # one colour per method in every panel
    fig, axes = plt.subplots(2, len(tables), figsize=(5 * len(tables), 7), squeeze=False)
    for j, t in enumerate(tables):
        block = summ.loc[t]
        for method in sorted(set(block.index.get_level_values(1))):
            sub = block.xs(method, level=1)
            axes[0, j].plot(sub.index, sub.lr_auc, marker="o", label=method, color=colour[method])
            axes[1, j].plot(sub.index, sub.total_s, marker="o", label=method, color=colour[method])
        axes[0, j].set_title(f"{t}: TSTR ROC AUC (LR)")
        axes[1, j].set_title(f"{t}: fit + sample time (s)")
        axes[1, j].set_yscale("log")
        for ax in axes[:, j]:
            ax.set_xscale("log")
            ax.set_xlabel("ε")
    handles = [plt.Line2D([], [], color=colour[m], marker="o", label=m) for m in methods]
    axes[0, 0].legend(handles=handles, fontsize=7)
    fig.tight_layout()
    fig.savefig(RESULTS / "synth_benchmark.png", dpi=110)


# ------------------------------------------------- DPTreeCopula vs DPCopula (issue #26)
COMPARE_FIELDS = ["table", "method", "epsilon", "delta", "seed", "lr_acc", "lr_auc", "lr_bacc",
                  "gb_acc", "gb_auc", "gb_bacc", "tv_1way", "tv_2way", "corr_err", "corr_max",
                  "shape", "pair_trend", "fit_s", "sample_s", "total_s", "peak_mb", "status"]
COMPARE_METRICS = ["lr_acc", "lr_auc", "lr_bacc", "gb_acc", "gb_auc", "gb_bacc", "tv_1way",
                   "tv_2way", "corr_err", "corr_max", "shape", "pair_trend", "total_s"]


def _run_generator(cls, table, eps, seed):
    with PeakMemory() as mem:
        t0 = time.perf_counter()
        model = cls(schema=table.schema, epsilon=eps, delta=DELTA, classes=[0, 1],
                    random_state=seed).fit(table.train, table.y_train)
        t1 = time.perf_counter()
        X_syn, y_syn = model.sample(len(table.train), random_state=seed + 10_000)
    row = score_all(table, X_syn, y_syn)
    row.update(fit_s=t1 - t0, sample_s=mem.seconds - (t1 - t0), total_s=mem.seconds,
               peak_mb=mem.peak_mb, delta=DELTA)
    return row


def run_compare(args) -> None:
    import pandas as pd

    from matrixdp.synth.copula import DPCopula
    from matrixdp.synth.tree_copula import DPTreeCopula

    out = RESULTS / f"synth_benchmark_tree{args.cache_suffix}.csv"  # suffix: parallel runs
    rows = []
    for name in args.tables:
        table = load_table(name)
        for eps in args.epsilons:
            for seed in range(args.seeds):
                for method, cls in (("DPCopula", DPCopula), ("DPTreeCopula", DPTreeCopula)):
                    row = dict(table=name, method=method, epsilon=eps, seed=seed)
                    try:
                        row.update(_run_generator(cls, table, eps, seed), status="ok")
                    except Exception as exc:  # keep going; the table says what failed
                        row.update(status=f"failed: {type(exc).__name__}: {exc}"[:200])
                        traceback.print_exc()
                    rows.append(row)
                    print(name, method, eps, seed, row.get("lr_auc"), row.get("tv_2way"),
                          row.get("total_s"), flush=True)
                    pd.DataFrame(rows).reindex(columns=COMPARE_FIELDS).to_csv(out, index=False)
    compare_report(args)


def compare_report(args) -> None:
    import pandas as pd

    df = pd.concat([pd.read_csv(f) for f in sorted(RESULTS.glob("synth_benchmark_tree*.csv"))],
                   ignore_index=True)
    # a (table, method, ε, seed) run by two parallel parts is the same seeded run: count it once
    df = df.drop_duplicates(subset=["table", "method", "epsilon", "seed"], keep="first")
    ok = df[df["status"] == "ok"]
    g = ok.groupby(["table", "epsilon", "method"], sort=True)
    summ = g[COMPARE_METRICS].mean()
    summ["total_s"] = g["total_s"].median()
    summ["seeds"] = g.size()
    lines = ["# DPTreeCopula vs DPCopula (issue #26)", "",
             "Produced by `python experiments/synth_benchmark.py --part compare` (one run, both "
             "generators side by side on the same splits, public schemas, seeds and (ε, δ = 1e-9), "
             "add/remove neighbours). TSTR: logistic regression (LR) and histogram gradient boosting "
             "(GB) trained on synthetic, tested on real. TV 1-/2-way: mean total variation over all "
             "1-way / 2-way marginals (numeric on 10 public bins, target included). corr err: "
             "Frobenius norm of the difference of the correlation matrices of the encoded tables; "
             "corr max: the largest error of any single pairwise correlation. Shape / pair trend: "
             "SDMetrics-style ColumnShapes (1 − KS or 1 − TV) and ColumnPairTrends (1 − |Δρ|/2 or "
             "1 − TV of the contingency table), implemented in `matrixdp.synth.evaluate` (1 = "
             "perfect). Time: fit + sample of as many records as the training table, median over "
             "seeds, on a shared, heavily loaded 2-core machine. Means over seeds (the `seeds` "
             "column: the committed run used 2 seeds for CTG and Lending Club and 1 for Adult, for "
             "lack of time on the loaded machine, in two concurrent processes of this script, "
             "`--cache-suffix _adult` for Adult); the better generator of each metric is in bold "
             "(ties unmarked). With 1–2 seeds, differences in the third decimal are noise.", ""]
    for (table, eps), block in summ.groupby(level=[0, 1]):
        lines += [f"## {table}, ε = {eps:g}", "",
                  "| method | seeds | LR acc | LR AUC | LR bal. acc | GB acc | GB AUC | GB bal. acc | "
                  "TV 1-way | TV 2-way | corr err | corr max | shape | pair trend | time (s) |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        block = block.droplevel([0, 1])
        for method, r in block.iterrows():
            lines.append(metric_row(method, r, block, COMPARE_METRICS))
        lines.append("")
    wins = {}
    for m in COMPARE_METRICS:
        if m == "total_s":
            continue
        piv = summ[m].unstack("method")
        if {"DPCopula", "DPTreeCopula"} <= set(piv.columns):
            better = (piv["DPTreeCopula"] < piv["DPCopula"]) if m in LOWER_IS_BETTER else (
                piv["DPTreeCopula"] > piv["DPCopula"])
            wins[m] = f"{int(better.sum())}/{len(piv)}"
    lines += ["## Where DPTreeCopula beats DPCopula (table × ε cells, means over seeds)", "",
              "| " + " | ".join(wins) + " |", "|" + "---|" * len(wins),
              "| " + " | ".join(wins.values()) + " |", ""]
    lines += ["MST and AIM side by side with both generators (same run, same ε grid, peers at their "
              "best configuration we could run, fixed sampler): `results/synth_benchmark.md`.", ""]
    failed = df[df["status"] != "ok"]
    if len(failed):
        lines += ["## Failed runs (verbatim)", ""] + [
            f"- {r.table} {r.method} ε={r.epsilon:g} seed {int(r.seed)}: {r.status}"
            for _, r in failed.iterrows()] + [""]
    (RESULTS / "synth_benchmark_tree.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", choices=["all", "ours", "peers", "report", "compare",
                                       "compare-report", "reference", "significance"],
                    default="all")
    ap.add_argument("--tables", nargs="+", default=["adult", "lending_club", "ctg"])
    ap.add_argument("--epsilons", nargs="+", type=float, default=[0.3, 1.0, 3.0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--methods", nargs="+", default=["mst", "aim"])
    ap.add_argument("--peer-seeds", type=int, default=2)
    ap.add_argument("--seed-start", type=int, default=0, help="peers: first seed (parallel runs)")
    ap.add_argument("--fresh", action="store_true", help="peers: start a new peers cache")
    ap.add_argument("--quality-only", action="store_true",
                    help="peers: seeds filled in under another load; their times stay out of the "
                         "time column and × MST (the rows' timing field)")
    ap.add_argument("--ours", nargs="+", default=["DPCopula", "DPTreeCopula", "RON-Gauss"],
                    help="ours: these methods ('RON-Gauss': both of its variants)")
    ap.add_argument("--cache-suffix", default="", help="ours: suffix of the cache file (parallel runs)")
    ap.add_argument("--keep-other-methods", action="store_true",
                    help="ours: keep the cached rows of the methods not in --ours (rerun only those)")
    ap.add_argument("--cells", nargs="+", default=SIGNIFICANCE_CELLS,
                    help="significance: table:epsilon cells")
    ap.add_argument("--tree-kw", default="", help="significance: JSON keywords of a DPTreeCopula "
                    "variant ('auto_shares_mult': four factors of the auto shares' weights)")
    ap.add_argument("--label", default="variant", help="significance: the variant's label")
    args = ap.parse_args(argv)
    RESULTS.mkdir(exist_ok=True)
    if args.part == "compare":
        run_compare(args)
    elif args.part == "compare-report":
        compare_report(args)
    elif args.part == "peers":
        run_peers(args)
    elif args.part == "ours":
        run_ours(args)
    elif args.part == "reference":
        run_reference(args)
    elif args.part == "significance":
        run_significance(args)
    elif args.part == "report":
        report(args)
    else:
        cmd = [PEER_PYTHON, __file__, "--part", "peers", "--fresh", "--peer-seeds", str(args.peer_seeds),
               "--tables", *args.tables, "--epsilons", *map(str, args.epsilons), "--methods",
               *args.methods]
        peers = subprocess.Popen(cmd)
        run_ours(args)
        peers.wait()
        report(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
