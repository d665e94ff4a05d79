"""Task HC (issue #24): why the adaptive covariance / correlation default loses to CoinPress at
high ε: the CHOICE (the branch chosen per fit is the worse one) or the BRANCH (the whitened step
after the first look is worse than CoinPress on the whole budget), or both.

Cells (diagnosis only, chosen after reading ``results/outside_audit.md``; never a gate): the
outside audit's FAIL cells of the covariance / correlation default against an option, corner
ε = 1, 3 (its 'falls with ε' FAIL), and the benchmark cells where CoinPress wins
(movement_aal ε = 1, 2, 5; synthetic ε = 2, 5), both tasks there.

Per cell, 20 paired trials (the audit's seeds ``SeedSequence(20261128 + 2)`` for audit units,
``SeedSequence(20261207)`` for the benchmark tables), each seed shared by every row:

- ``default``: ``DPCovariance(kind=...)`` as it chooses (its choice and predictions recorded);
- ``forced moments`` / ``forced coinpress``: the same fit with its last release forced to a branch
  (``adaptive_covariance(branch=...)``: same first look and counts, same stream);
- ``coinpress``: ``method="coinpress"`` (two steps on the whole budget);
- ``moments``: ``method="moments"`` (the one-shot release; for the correlation its shrinkage);
- probes of the whitened branch (what differs from CoinPress): ``forced coinpress`` with
  ``first_share=1/16`` (more budget left for the step), with ``coinpress_beta="auto"`` (the
  radius grown with the budget), and ``coinpress`` with one step (``coinpress_steps=1``) and
  with ``coinpress_steps=3``.

Errors: relative Frobenius error of the released matrix after the estimator's own projection,
against the clipped records' covariance (``1/n``) or its correlation, as the audit and the
benchmark. A cell is classed:

- CHOICE if the better forced branch (median over the trials) is within 1.1× of CoinPress and the
  default is > 1.1× its better forced branch;
- BRANCH if the better forced branch is > 1.1× CoinPress and the default is within 1.1× of it;
- BOTH if both ratios exceed 1.1; NONE otherwise.

Added after the table above was read (task HC's candidate, ``DPCovariance(adaptive_refine=True)``,
run once on the same cells and seeds before its dev gate's rule was written): the row ``refine``
and the section "The candidate on the diagnosis cells" (``--candidate``).

Diagnostic only: it reads the private records (the truth) and decides nothing.

Command::

    cd experiments && nice -n 10 env OMP_NUM_THREADS=1 PYTHONPATH=../src \\
        MATRIXDP_DATA=/work/shared/datasets python adaptive_high_eps_diagnosis.py
    ... python adaptive_high_eps_diagnosis.py --candidate
    ... python adaptive_high_eps_diagnosis.py --render
"""

from __future__ import annotations

import argparse
import csv
import functools
import sys
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import _utility_common as uc  # noqa: E402

RESULTS = uc.REPO_ROOT / "results"
TRIALS_CSV = RESULTS / "adaptive_high_eps_diagnosis_trials.csv"
OUT_MD = RESULTS / "adaptive_high_eps_diagnosis.md"
TRIALS = 20
AUDIT_SEED = 20261128 + 2
BENCH_SEED = 20261207
#: (source, unit, task, ε)
CELLS = (
    [("audit", u, "correlation", e) for u, e in (
        ("engel", 100.0), ("loose_label", 1e4), ("no_intercept", 3.0), ("heavy_tail", 100.0),
        ("const_equal", 3.0), ("statecrime", 100.0), ("corner", 10.0), ("corner", 1.0),
        ("corner", 3.0), ("binary", 10.0), ("collinear", 3.0))]
    + [("audit", u, "covariance", e) for u, e in (
        ("grunfeld", 100.0), ("ccard", 100.0), ("binary", 10.0), ("const_loose", 1e4),
        ("const_equal", 1e4))]
    + [("benchmark", u, k, e) for u, e in (("movement_aal", 1.0), ("movement_aal", 2.0),
                                           ("movement_aal", 5.0), ("synthetic", 2.0),
                                           ("synthetic", 5.0))
       for k in ("covariance", "correlation")])
ROWS = ("default", "forced moments", "forced coinpress", "coinpress", "moments",
        "forced coinpress, first_share=1/16", "forced coinpress, beta=auto",
        "coinpress, 1 step", "coinpress, 3 steps")
FIELDS = ["source", "unit", "task", "epsilon", "row", "trial", "seed", "error", "choice",
          "pred_moments", "pred_coinpress", "statistic"]


def data(source, unit):
    """(X, lo, hi) of a unit: the audit's records and bounds or a benchmark table."""
    if source == "audit":
        import outside_audit as oa
        return oa.cov_data(oa.units([unit])[0])
    t = uc.load_table(unit)
    return t.X, t.lo, t.hi


def truth(X, task):
    from utility_covariance import correlation
    C = np.cov(X.T, bias=True)
    return correlation(C) if task == "correlation" else C


def fit(row, X, lo, hi, task, eps, seed):
    """One fit of a row (a forced branch patches ``adaptive_covariance`` for this fit only)."""
    from matrixdp.models import DPCovariance
    from matrixdp.models import adaptive as ad

    kw, opts = {}, {}
    if row == "coinpress":
        kw = {"method": "coinpress"}
    elif row == "moments":
        kw = {"method": "moments"}
    elif row == "coinpress, 1 step":
        kw = {"method": "coinpress", "coinpress_steps": 1}
    elif row == "coinpress, 3 steps":
        kw = {"method": "coinpress", "coinpress_steps": 3}
    elif row == "refine":
        kw = {"adaptive_refine": True}
    elif row.startswith("forced"):
        opts["branch"] = row.split(",")[0].split()[1]
        if "first_share" in row:
            opts["first_share"] = 1.0 / 16.0
        if "beta=auto" in row:
            kw["coinpress_beta"] = "auto"
    orig = ad.adaptive_covariance
    if opts:
        ad.adaptive_covariance = functools.partial(orig, **uc.adaptive_keywords(opts))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = DPCovariance(epsilon=eps, delta=1e-6, bounds=(lo, hi), kind=task,
                               random_state=seed, **uc.experimental_keywords(DPCovariance,
                                                                             kw)).fit(X)
    finally:
        ad.adaptive_covariance = orig
    return est


def run(args, rows=ROWS):
    done = set()
    if TRIALS_CSV.exists():
        with open(TRIALS_CSV, newline="") as fh:
            done = {(r["unit"], r["task"], float(r["epsilon"])) for r in csv.DictReader(fh)
                    if r["row"] in rows}
    new = not TRIALS_CSV.exists()
    with open(TRIALS_CSV, "a", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=FIELDS)
        if new:
            w.writeheader()
        for source, unit, task, eps in CELLS:
            if (unit, task, eps) in done:
                continue
            X, lo, hi = data(source, unit)
            T = truth(X, task)
            tn = float(np.linalg.norm(T))
            seeds = [int(s) for s in np.random.SeedSequence(
                AUDIT_SEED if source == "audit" else BENCH_SEED).generate_state(TRIALS)]
            out = []
            for row in rows:
                for i, s in enumerate(seeds):
                    est = fit(row, X, lo, hi, task, eps, s)
                    p = getattr(est, "adaptive_predicted_", None) or {}
                    out.append({"source": source, "unit": unit, "task": task, "epsilon": eps,
                                "row": row, "trial": i, "seed": s,
                                "error": repr(float(np.linalg.norm(est.covariance_ - T) / tn)),
                                "choice": getattr(est, "adaptive_choice_", ""),
                                "pred_moments": repr(float(np.sqrt(max(p.get("moments", np.nan), 0))) / tn) if p else "",
                                "pred_coinpress": repr(float(np.sqrt(max(p.get("coinpress", np.nan), 0))) / tn) if p else "",
                                "statistic": ("refined" if p.get("refined") else "one step")
                                if row == "refine" else p.get("statistic", "")})
            w.writerows(out)
            fh.flush()
            print(f"{unit} {task} eps={eps:g} done", flush=True)


def load():
    cells = {}
    with open(TRIALS_CSV, newline="") as fh:
        for r in csv.DictReader(fh):
            key = (r["source"], r["unit"], r["task"], float(r["epsilon"]))
            cells.setdefault(key, {}).setdefault(r["row"], []).append(r)
    return cells


def classify(d, best_branch, cp, tol=1.1):
    choice_loss = d / best_branch > tol
    branch_loss = best_branch / cp > tol
    return ("BOTH" if choice_loss and branch_loss else "CHOICE" if choice_loss
            else "BRANCH" if branch_loss else "NONE")


def render():
    cells = load()
    med = lambda rs: float(np.median([float(r["error"]) for r in rs]))  # noqa: E731
    L = ["# Task HC: the adaptive covariance/correlation default against CoinPress at high ε — "
         "diagnosis", "",
         "Generated by `experiments/adaptive_high_eps_diagnosis.py` (command and method in its "
         "docstring; per-trial values in `results/adaptive_high_eps_diagnosis_trials.csv`). "
         f"{TRIALS} paired trials per cell (every row on the same seeds), δ = 1e-6, replace-one, "
         "the audit's / benchmark's public bounds. Diagnosis only: the audit cells were chosen "
         "after reading the audit; nothing here is a gate or held out.", "",
         "Medians of the relative Frobenius error. `step fits` = fits of the default that took "
         "the whitened step; `right` = fits whose chosen branch had the smaller error of the two "
         "forced branches (same seed). Class: CHOICE = the better forced branch within 1.1× of "
         "CoinPress but the default > 1.1× it; BRANCH = the better forced branch > 1.1× "
         "CoinPress; BOTH = both.", "",
         "| source | unit | task | ε | default | forced moments | forced step | CoinPress | "
         "moments method | default / CoinPress | best branch / CoinPress | step fits | right | "
         "class |", "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    probe = ["", "## Probes of the whitened branch (what differs from CoinPress)", "",
             "Medians; ratios to `method='coinpress'` (two steps, whole budget) in brackets.", "",
             "| unit | task | ε | forced step | step, first_share=1/16 | step, beta=auto | "
             "CoinPress 1 step | CoinPress 2 steps | CoinPress 3 steps |",
             "|---|---|---|---|---|---|---|---|---|"]
    counts = {}
    for key in [k for k in ((s, u, t, e) for s, u, t, e in CELLS) if k in cells]:
        c = cells[key]
        d, fm, fc, cp, mm = (med(c[r]) for r in ("default", "forced moments", "forced coinpress",
                                                 "coinpress", "moments"))
        e_m = np.array([float(r["error"]) for r in c["forced moments"]])
        e_c = np.array([float(r["error"]) for r in c["forced coinpress"]])
        ch = np.array([r["choice"] for r in c["default"]])
        steps = int(np.sum(ch == "coinpress"))
        right = int(np.sum((ch == "coinpress") == (e_c < e_m)))
        best = min(fm, fc)
        cls = classify(d, best, cp)
        counts[cls] = counts.get(cls, 0) + 1
        s, u, t, e = key
        L.append(f"| {s} | {u} | {t} | {e:g} | {d:.3g} | {fm:.3g} | {fc:.3g} | {cp:.3g} | "
                 f"{mm:.3g} | {d / cp:.2f} | {best / cp:.2f} | {steps}/{len(ch)} | "
                 f"{right}/{len(ch)} | {cls} |")
        pr = [med(c[r]) for r in ("forced coinpress", "forced coinpress, first_share=1/16",
                                  "forced coinpress, beta=auto", "coinpress, 1 step",
                                  "coinpress", "coinpress, 3 steps")]
        probe.append(f"| {u} | {t} | {e:g} | " + " | ".join(
            f"{x:.3g} ({x / cp:.2f})" for x in pr) + " |")
    L += ["", "Classes: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())), ""]
    cand = []
    if any("refine" in c for c in cells.values()):
        cand = ["", "## The candidate on the diagnosis cells (read before its gate's rule)", "",
                "`DPCovariance(adaptive_refine=True)` (task HC's option: the whitened branch as "
                "a refinement at 1/4 of its μ² and the final step, where the ranking's noise "
                "loss predicts two steps better), same seeds; the same choice as the default in "
                "every fit (same stream up to the whitened branch).", "",
                "| unit | task | ε | default | refine | refine / default | refine / CoinPress | "
                "refined fits |", "|---|---|---|---|---|---|---|---|"]
        for key in [k for k in CELLS if k in cells and "refine" in cells[k]]:
            c = cells[key]
            d, rf, cp = med(c["default"]), med(c["refine"]), med(c["coinpress"])
            nref = sum(r["statistic"] == "refined" for r in c["refine"])
            cand.append(f"| {key[1]} | {key[2]} | {key[3]:g} | {d:.3g} | {rf:.3g} | "
                        f"{rf / d:.2f} | {rf / cp:.2f} | {nref}/{len(c['refine'])} |")
    OUT_MD.write_text("\n".join(L + probe + cand) + "\n")
    print(OUT_MD)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--render", action="store_true")
    ap.add_argument("--candidate", action="store_true")
    a = ap.parse_args(argv)
    if a.candidate:
        run(a, rows=("refine",))
    elif not a.render:
        run(a)
    render()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
