"""Diagnosis (issue #24, task HP): ``DPPCA()``'s default against CoinPress at high ε and on loose
boxes.

The outside audit (``results/outside_audit.md``) finds the default adaptive release significantly
worse than ``method="coinpress"`` on ccard ε = 10⁴ (40.8×), heart ε = 10⁴ (2.67×), loose_label
ε = 0.3 (1.97×), corner ε = 10⁴ (1.49×), and 1.53× worse than i.i.d. noise on wide ε = 10. This
script runs, on those cells (DIAGNOSIS ONLY: the audit's units are never gated on) and on the
benchmark tables' PCA cells (k = 2 and 5 where k < d) at ε ∈ {10, 100, 10⁴}, side by side on the
same trial seeds:

* ``default``: ``DPPCA(n_components=k, epsilon, delta, bounds)``; per trial its
  ``adaptive_choice_`` and the ranking's predictions (``adaptive_predicted_``: the moments
  branch's and the whitened step's predicted captured-variance deficit in the original units,
  the step's clipping-bias term ``coinpress_bias``, the counts' reading ``clipping_loss``);
* ``forced moments`` / ``forced coinpress``: the default's own draws with the last release
  forced to one branch (``adaptive_covariance(branch=...)``);
* ``coinpress``: ``DPPCA(method="coinpress")``; ``moments``: ``DPPCA(method="moments")``.

The resolution guards (``resolve_z``, ``resolve_share``) are off in the default
(``DPPCA(adaptive_resolve_z=None, adaptive_resolve_share=None)``), so no guard fires in any
default fit; the script records it per trial (``guard``: the ``resolved`` key of
``adaptive_predicted_`` is absent).

Metric: the captured-variance deficit of the top-k subspace, ``1 − tr(VᵀCV)/Σλ_{1..k}``, C the
covariance of the clipped records (as ``utility_pca.py`` and the audit). The absolute deficit
``(Σλ_{1..k}) × deficit`` is in the units of the ranking's predictions, so each branch's
prediction can be set against its measured value.

Classes per cell: **choice** the better forced branch is within 1.2× of the best of the forced
branches and CoinPress while the default is not (choosing it would close the gap); **branch** even
the better forced branch is above 1.2× the best; **closed** the default is within 1.2×.

Non-private diagnostic; every fit is an ordinary (ε, δ)-DP fit. Nothing is chosen from this run.
Outputs ``results/pca_high_eps_diagnosis.md`` and ``results/pca_high_eps_diagnosis_trials.csv``
(per trial; resumes per cell).

Command (from ``experiments/``)::

    nice -n 10 env PYTHONPATH=../src MATRIXDP_DATA=/work/shared/datasets \\
        python pca_high_eps_diagnosis.py --trials 20
        python pca_high_eps_diagnosis.py --trials 20 --extra   # "records" (HP), "one-record" (PB)
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _utility_common as uc  # noqa: E402

SEED = 20261130
NAME = "pca_high_eps_diagnosis"
RESULTS = uc.REPO_ROOT / "results"
AUDIT_CELLS = (("ccard", 1e4), ("heart", 1e4), ("loose_label", 0.3), ("corner", 1e4),
               ("wide", 10.0))
BENCH_EPS = (10.0, 100.0, 1e4)
ROWS = ("default", "forced moments", "forced coinpress", "coinpress", "moments")
#: Added after the first run (``--extra``): the default with task HP's opt-in candidate,
#: ``DPPCA(adaptive_bias="records")``, on the same seeds (diagnosis only on the audit's cells);
#: then (session 18, task PB) ``DPPCA(adaptive_bias="one-record")``, the default since then. The
#: row ``default`` is the session-17 default (``bias="model"``; run before the change).
EXTRA = ("records", "one-record")
WITHIN = 1.2
FIELDS = ["table", "k", "epsilon", "row", "trial", "seed", "deficit", "best", "choice",
          "pred_moments", "pred_coinpress", "coinpress_bias", "clipping_loss", "statistic",
          "guard"]


def audit_table(name):
    import outside_audit as oa

    u = oa.units([name])[0]
    Z, lo, hi = oa.cov_data(u)
    return Z, lo, hi


def bench_table(name):
    t = uc.load_table(name, None)
    return t.X, t.lo, t.hi


def cells():
    out = [("audit", nm, 2, e) for nm, e in AUDIT_CELLS]
    for ds in uc.DATASETS:
        d = bench_table(ds)[0].shape[1]
        out += [("bench", ds, k, e) for k in (2, 5) if k < d for e in BENCH_EPS]
    return out


def fit_row(row, X, lo, hi, k, eps, s):
    from matrixdp.models import DPPCA

    kw, opts = {}, None
    if row == "forced moments":
        opts = {"branch": "moments"}
    elif row == "forced coinpress":
        opts = {"branch": "coinpress"}
    elif row == "coinpress":
        kw = {"method": "coinpress"}
    elif row == "moments":
        kw = {"method": "moments"}
    elif row == "records":
        kw = {"adaptive_bias": "records"}
    elif row == "one-record":
        kw = {"adaptive_bias": "one-record"}
    ctx = uc.adaptive_options(**opts) if opts else contextlib.nullcontext()
    with ctx, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = DPPCA(n_components=k, epsilon=eps, delta=uc.DELTA, bounds=(lo, hi),
                    random_state=int(s), **uc.experimental_keywords(DPPCA, kw)).fit(X)
    p = getattr(est, "adaptive_predicted_", None) or {}
    return est.components_, {
        "choice": getattr(est, "adaptive_choice_", ""),
        "pred_moments": p.get("moments", ""), "pred_coinpress": p.get("coinpress", ""),
        "coinpress_bias": p.get("coinpress_bias", ""),
        "clipping_loss": p.get("clipping_loss", ""), "statistic": p.get("statistic", ""),
        "guard": ("resolved" in p) if p else ""}


def run(trials, out, only=None, rows_run=ROWS):
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{NAME}_trials.csv"
    done = set()
    if path.exists():
        with path.open() as fh:
            done = {(r["table"], int(r["k"]), float(r["epsilon"]), r["row"])
                    for r in csv.DictReader(fh)}
    seeds = [int(s) for s in np.random.SeedSequence(SEED).generate_state(trials)]
    new = not path.exists()
    with path.open("a", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=FIELDS)
        if new:
            w.writeheader()
        for src, ds, k, eps in cells():
            todo = [r for r in rows_run if (ds, k, float(eps), r) not in done]
            if not todo or (only and src != only):
                continue
            X, lo, hi = (audit_table if src == "audit" else bench_table)(ds)
            C = np.cov(X.T, bias=True)
            best = float(np.sort(np.linalg.eigvalsh(C))[::-1][:k].sum())
            t0, rows = time.perf_counter(), []
            for row in todo:
                for i, s in enumerate(seeds):
                    V, attrs = fit_row(row, X, lo, hi, k, eps, s)
                    q, _ = np.linalg.qr(np.asarray(V, float).T)
                    err = 1.0 - float(np.trace(q.T @ C @ q)) / best
                    rows.append({"table": ds, "k": k, "epsilon": eps, "row": row, "trial": i,
                                 "seed": s, "deficit": repr(err), "best": repr(best), **attrs})
            w.writerows(rows)
            fh.flush()
            print(f"{ds} k={k} eps={eps:g}: {time.perf_counter() - t0:.1f} s", flush=True)
    return path


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--only", choices=("audit", "bench"), default=None)
    ap.add_argument("--report", action="store_true", help="only re-render the report")
    ap.add_argument("--extra", action="store_true", help="add the EXTRA rows to the done cells")
    a = ap.parse_args(argv)
    path = RESULTS / f"{NAME}_trials.csv"
    if not a.report:
        path = run(a.trials, RESULTS, a.only, EXTRA if a.extra else ROWS)
    from pca_high_eps_report import report
    report(path, RESULTS / f"{NAME}.md", f"experiments/{NAME}.py --trials {a.trials}")


if __name__ == "__main__":
    main()
