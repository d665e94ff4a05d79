"""Task RL (issue #24), step 1: the label's DP range inside the public box, measured where it never was.

Diagnosis only (no rule or default is decided by this run). On the regression benchmark's 40 cells
(``utility_regression``: the 7 tables of ``_utility_common.DATASETS`` and ``holdout_synthetic``,
ε ∈ {0.3, 1, 3, 10, 30}) and the 12 MEASUREMENT tables' regressions (``_check_tables_heldout``,
committed specs; ``heldout_regression``'s setup), per trial seed (``SeedSequence(20261130)``, 20 per
cell), side by side on the same split (``utility_regression.split``), δ = 1e-6, replace-one, the
same public boxes:

- ``default``: ``DPLinearRegression()`` at the public label box ``bounds_y=(y_lo, y_hi)``;
- ``dp10`` / ``dp05``: ``bounds_y=DPBounds(domain=(y_lo, y_hi), fraction=f)`` forced
  (f = 0.10, the DPBounds default, and 0.05): a DP median and MAD of y on the box's 1001-point grid,
  the range median ± 4.5 MAD, the rest of ε to the fit;
- ``fb10`` / ``fb05``: the fit the candidate of step 2 would make where the DP range is FLAT (the DP
  MAD is the first interval of its grid: few-valued labels, ``dp_bounds``'s warning): the public box
  at ``(1 - f) ε`` on the same seed (fitted only in those trials; elsewhere empty).

Recorded per trial, beyond what a user sees: the DP range's width over the box's, whether it is
flat (width ≤ 12.5 grid steps of the box: the MAD's first interval gives ≤ 12 steps, the second ≥ 18),
and the share of the TRAINING labels it clips. Public facts per cell: n (train), d, ε and
``records_needed(f ε, 1, 1001)`` (``docs/bounds.md``: the records a reliable DP median of one column
needs at that share). Metric: test MSE of predictions clipped to the public label box
(``utility_regression.test_metrics``, squared).

Part ``widen`` (``--part widen``; exploration on the same development cells and seeds, run after
the first part was read): the DP range at f = 0.10 with ``DPBounds.widen`` 9 and 18 (median ± 9 or
18 DP MADs instead of 4.5: the first part's heavy-tailed 401ksubs label lost 1.19× to clipping
17-18% of its labels), and the box at 0.9 ε in EVERY trial (``fb``), so that post-processing rules on
the DP range (use it only when flat is false and its width is below a share of the box) can be read
off. Output ``results/regression_label_range_widen.md`` and ``..._widen_trials.csv``.

Command: ``cd experiments && PYTHONPATH=../src python regression_label_range_diagnosis.py``
(``--part widen`` for the second part).
Output: ``results/regression_label_range_diagnosis.md``, per trial
``results/regression_label_range_diagnosis_trials.csv`` (checkpointed per cell).
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _regression_sure as rsc  # noqa: E402
import _utility_common as uc  # noqa: E402
import utility_regression as ur  # noqa: E402

NAME = "regression_label_range_diagnosis"
SEED = 20261130
TRIALS = 20
EPSILONS = ur.EPSILONS
FRACTIONS = (0.10, 0.05)
FIELDS = ["set", "dataset", "epsilon", "trial", "seed", "n", "d", "default",
          "dp10", "width10", "flat10", "clipped10", "fb10",
          "dp05", "width05", "flat05", "clipped05", "fb05"]


tables, load = rsc.tables, rsc.load  # the development tables (moved to _regression_sure)


def _fit(t, eps, Xtr, ytr, seed, bounds_y):
    from matrixdp.models import DPLinearRegression

    return DPLinearRegression(epsilon=eps, delta=uc.DELTA, bounds_X=(t.lo, t.hi),
                              bounds_y=bounds_y, random_state=seed).fit(Xtr, ytr)


def mse(t, yte, pred):
    return ur.test_metrics(t, yte, pred)[0] ** 2


def trial(t, eps, Xtr, ytr, Xte, yte, s) -> dict:
    from matrixdp.models.dp_bounds import DPBounds

    box = t.y_hi - t.y_lo
    row = {"n": len(ytr), "d": Xtr.shape[1],
           "default": mse(t, yte, _fit(t, eps, Xtr, ytr, s, (t.y_lo, t.y_hi)).predict(Xte))}
    for f in FRACTIONS:
        k = f"{int(round(100 * f)):02d}"
        m = _fit(t, eps, Xtr, ytr, s, DPBounds(domain=(t.y_lo, t.y_hi), fraction=f))
        lo, hi = m.bounds_[2], m.bounds_[3]
        flat = (hi - lo) <= 12.5 * box / 1000
        row.update({f"dp{k}": mse(t, yte, m.predict(Xte)), f"width{k}": (hi - lo) / box,
                    f"flat{k}": int(flat), f"clipped{k}": float(np.mean((ytr < lo) | (ytr > hi))),
                    f"fb{k}": (mse(t, yte, _fit(t, (1 - f) * eps, Xtr, ytr, s,
                                                (t.y_lo, t.y_hi)).predict(Xte)) if flat else "")})
    return row


WIDEN_FIELDS = ["set", "dataset", "epsilon", "trial", "seed", "n", "d", "default", "fb",
                "dp45", "width45", "flat45", "clipped45", "dp9", "width9", "flat9", "clipped9",
                "dp18", "width18", "flat18", "clipped18"]
WIDENS = (("45", 4.5), ("9", 9.0), ("18", 18.0))


def widen_trial(t, eps, Xtr, ytr, Xte, yte, s, first) -> dict:
    """The widen part's trial; ``default`` and ``dp45`` are read from the first part (same seed)."""
    from matrixdp.models.dp_bounds import DPBounds

    box = t.y_hi - t.y_lo
    row = {"n": len(ytr), "d": Xtr.shape[1], "default": first["default"],
           "fb": mse(t, yte, _fit(t, 0.9 * eps, Xtr, ytr, s, (t.y_lo, t.y_hi)).predict(Xte)),
           "dp45": first["dp10"], "width45": first["width10"], "flat45": first["flat10"],
           "clipped45": first["clipped10"]}
    for k, w in WIDENS[1:]:
        m = _fit(t, eps, Xtr, ytr, s, DPBounds(domain=(t.y_lo, t.y_hi), widen=w))
        lo, hi = m.bounds_[2], m.bounds_[3]
        row.update({f"dp{k}": mse(t, yte, m.predict(Xte)), f"width{k}": (hi - lo) / box,
                    f"flat{k}": int((hi - lo) <= (2 * w + 3.5) * box / 1000),
                    f"clipped{k}": float(np.mean((ytr < lo) | (ytr > hi)))})
    return row


def run_widen():
    out = Path(__file__).resolve().parent.parent / "results"
    first = {(r["dataset"], float(r["epsilon"]), int(r["seed"])): r for r in
             csv.DictReader(open(out / f"{NAME}_trials.csv"))}
    kinds = dict(tables())
    t0 = time.time()

    def run_cell(name, t, eps):
        Xtr, ytr, Xte, yte = ur.split(t)
        rows = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for r in (r for k, r in first.items() if k[:2] == (name, eps)):
                s = int(r["seed"])
                rows.append({"set": kinds[name], "dataset": name, "epsilon": eps,
                             "trial": r["trial"], "seed": s,
                             **widen_trial(t, eps, Xtr, ytr, Xte, yte, s, r)})
        return rows

    return rsc.run_cells(out / f"{NAME}_widen_trials.csv", WIDEN_FIELDS, list(kinds),
                         lambda n: load(n, kinds[n]), run_cell, EPSILONS, t0), time.time() - t0


def run(trials_n):
    out = Path(__file__).resolve().parent.parent / "results"
    path = out / f"{NAME}_trials.csv"
    seeds = [int(s) for s in np.random.SeedSequence(SEED).generate_state(trials_n)]
    kinds = dict(tables())
    t0 = time.time()

    def run_cell(name, t, eps):
        Xtr, ytr, Xte, yte = ur.split(t)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return [{"set": kinds[name], "dataset": name, "epsilon": eps, "trial": i, "seed": s,
                     **trial(t, eps, Xtr, ytr, Xte, yte, s)} for i, s in enumerate(seeds)]

    return rsc.run_cells(path, FIELDS, list(kinds), lambda n: load(n, kinds[n]), run_cell,
                         EPSILONS, t0), time.time() - t0


def _f(x):
    return float(x) if x != "" else np.nan


def analyse(trials):
    from matrixdp.models.dp_bounds import records_needed

    cells = rsc.cells_of(trials, "set", "dataset", "epsilon")
    rows = []
    for (kind, ds, eps), rs in cells.items():
        g = {k: np.array([_f(r[k]) for r in rs]) for k in FIELDS[5:]}
        c = {"set": kind, "dataset": ds, "epsilon": eps, "n": int(g["n"][0]), "d": int(g["d"][0]),
             "default": float(np.median(g["default"]))}
        for k, f in (("10", 0.10), ("05", 0.05)):
            flat = g[f"flat{k}"] > 0
            cand = np.where(flat, g[f"fb{k}"], g[f"dp{k}"])  # DP range unless flat, then the box
            c.update({f"need{k}": records_needed(f * eps, 1, 1001),
                      f"dp{k}": float(np.median(g[f"dp{k}"]) / c["default"]),
                      f"cand{k}": float(np.median(cand) / c["default"]),
                      f"flat{k}": float(np.mean(flat)),
                      f"width{k}": float(np.median(g[f"width{k}"])),
                      f"clipped{k}": float(np.median(g[f"clipped{k}"]))})
        rows.append(c)
    return rows


def report(rows, cmd, elapsed):
    L = ["# The label's DP range inside the public box: diagnosis (task RL, issue #24)", "",
         f"Generated by `experiments/regression_label_range_diagnosis.py` (do not edit by hand). "
         f"Command: `{cmd}` ({elapsed / 60:.0f} min). Diagnosis on development tables only (the "
         "benchmark's 40 regression cells and the 12 MEASUREMENT tables'): no rule was decided by "
         "this run. Per cell the median over paired trials of the test MSE (predictions clipped "
         "to the public label box); ratios are medians over the default's median. `dp`: "
         "`bounds_y=DPBounds(domain=box, fraction=f)` forced; `dp|fb`: the DP range, except in "
         "trials where it is flat (few-valued labels: the DP MAD in its grid's first interval), "
         "there the public box at (1 − f)ε (the fallback a candidate would use); `flat`: share of "
         "trials flat; `width`: DP range / box (median); `clip`: share of training labels the DP "
         "range clips (median); `n ≥ need`: n at least `records_needed(f ε, 1, 1001)`.", ""]
    for k, f in (("10", 0.10), ("05", 0.05)):
        L += [f"## fraction f = {f:g}", "",
              "| set | table | n | d | ε | default MSE | dp / default | dp\\|fb / default | flat | width | clip | n ≥ need |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for c in rows:
            L.append(f"| {c['set']} | {c['dataset']} | {c['n']} | {c['d']} | {c['epsilon']:g} | "
                     f"{c['default']:.4g} | {c[f'dp{k}']:.3f} | {c[f'cand{k}']:.3f} | "
                     f"{c[f'flat{k}']:.2f} | {c[f'width{k}']:.3f} | {c[f'clipped{k}']:.3f} | "
                     f"{'yes' if c['n'] >= c[f'need{k}'] else 'no'} |")
        for lab, sel in (("all cells", lambda c: True),
                         ("cells with n ≥ need", lambda c: c["n"] >= c[f"need{k}"]),
                         ("cells with n < need", lambda c: c["n"] < c[f"need{k}"])):
            r = [c for c in rows if sel(c)]
            if not r:
                continue
            for col in ("dp", "cand"):
                v = np.array([c[f"{col}{k}"] for c in r])
                L.append(f"- {lab} ({len(r)}), {'dp' if col == 'dp' else 'dp|fb'}: median ratio "
                         f"{np.median(v):.3f}, max {v.max():.3f}, cells > 1.10: {int(np.sum(v > 1.10))}, "
                         f"< 0.90: {int(np.sum(v < 0.90))}")
        L.append("")
    return "\n".join(L)


def report_widen(trials, elapsed):
    cells = rsc.cells_of(trials, "set", "dataset", "epsilon")
    L = ["# The label's DP range: the widen exploration (task RL, development cells)", "",
         "Generated by `experiments/regression_label_range_diagnosis.py --part widen` (do not edit "
         f"by hand; {elapsed / 60:.0f} min). Exploration on development tables, after the first "
         "part was read: no rule is decided by it. Per cell, median over the paired trials of the "
         "test MSE over the default's median. `w=`: `DPBounds(domain=box, widen=w)` forced "
         "(fraction 0.1); `w|fb`: the DP range unless it is flat (then the box at 0.9ε); "
         "`fb`: the box at 0.9ε (the price of the spent share); `clip`: median share of the "
         "training labels the DP range clips; `width`: median DP range / box.", "",
         "| set | table | n | ε | fb | w=4.5 | w=9 | w=18 | 4.5\\|fb | 9\\|fb | 18\\|fb | clip 4.5 / 9 / 18 | width 4.5 / 9 / 18 |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    summ = {}
    for (kind, ds, eps), rs in cells.items():
        g = {k: np.array([_f(r[k]) for r in rs]) for k in WIDEN_FIELDS[5:]}
        d0 = np.median(g["default"])
        v = {"fb": np.median(g["fb"]) / d0}
        for k, _ in WIDENS:
            v[k] = np.median(g[f"dp{k}"]) / d0
            v[k + "|fb"] = np.median(np.where(g[f"flat{k}"] > 0, g["fb"], g[f"dp{k}"])) / d0
        for key, val in v.items():
            summ.setdefault(key, []).append(val)
        L.append(f"| {kind} | {ds} | {int(g['n'][0])} | {eps:g} | {v['fb']:.3f} | {v['45']:.3f} | "
                 f"{v['9']:.3f} | {v['18']:.3f} | {v['45|fb']:.3f} | {v['9|fb']:.3f} | "
                 f"{v['18|fb']:.3f} | "
                 + " / ".join(f"{np.median(g[f'clipped{k}']):.3f}" for k, _ in WIDENS) + " | "
                 + " / ".join(f"{np.median(g[f'width{k}']):.3f}" for k, _ in WIDENS) + " |")
    L.append("")
    for key, vals in summ.items():
        a = np.array(vals)
        L.append(f"- `{key}`: median over {a.size} cells {np.median(a):.3f}, max {a.max():.3f}, "
                 f"cells > 1.10: {int(np.sum(a > 1.10))}, < 0.90: {int(np.sum(a < 0.90))}")
    L.append("")
    return "\n".join(L)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--trials", type=int, default=TRIALS)
    p.add_argument("--analyse", action="store_true", help="only re-render from the trials CSV")
    p.add_argument("--part", choices=("first", "widen"), default="first")
    a = p.parse_args(argv)
    out = Path(__file__).resolve().parent.parent / "results"
    if a.part == "widen":
        if a.analyse:
            trials = list(csv.DictReader(open(out / f"{NAME}_widen_trials.csv")))
            elapsed = float("nan")
        else:
            trials, elapsed = run_widen()
        (out / f"{NAME.replace('diagnosis', 'widen')}.md").write_text(
            report_widen(trials, elapsed))
        return
    if a.analyse:
        trials = list(csv.DictReader(open(out / f"{NAME}_trials.csv")))
        elapsed = float("nan")
    else:
        trials, elapsed = run(a.trials)
    rows = analyse(trials)
    cmd = "cd experiments && PYTHONPATH=../src python regression_label_range_diagnosis.py"
    (out / f"{NAME}.md").write_text(report(rows, cmd, elapsed))
    uc.write_rows(out / f"{NAME}.csv", rows)


if __name__ == "__main__":
    main()
