"""Diagnosis of the correlation default's resolve guard and ranking (task CG, issue #24).

A diagnosis: no rule is decided here. ``DPCovariance(kind="correlation")``'s default is the
correlation-ranked adaptive release (``docs/coinpress.md`` § Adaptive (correlation)) with the
guard ``covariance.CORRELATION_RESOLVE_Z = 3``: the whitened step is considered only if every
projected first-look variance is at least 3 of its noise sds. The held-out measurement
(``results/heldout_covariance_diagnosis.md``) found it blocks the step where it wins (charity,
crime1 ε = 5) and that the ranking over-predicts the step's correlation loss (catholic ε = 5).

Per (table, ε) cell and shared trial seed this script fits, on the SAME seed:

- ``default``: ``DPCovariance(kind="correlation")`` as a user gets it;
- ``z0:moments`` and ``z0:coinpress``: the same adaptive correlation release with the guard off
  (``resolve_z=0``) and its last release forced to one branch (``adaptive_covariance(branch=)``).
  Both share the first look and the counts (the branch is decided after them), so per trial they
  give the error of either branch on the same first look, and the unguarded predictions
  (``adaptive_predicted_``: moments, coinpress, its clipping-bias part, the resolution ratio).
  The unguarded release's own choice is ``pred_coinpress < pred_moments`` (``tie_ratio`` 1,
  ``loss_statistic="mean"``, what the correlation path uses), so its error is one of the two;
  a guard that blocks gives the ``default``'s release when the default blocks too;
- ``coinpress``: ``DPCovariance(kind="correlation", method="coinpress")`` (the reference row).

The forcing is done by wrapping ``covariance.fit_adaptive`` in this process only (extra keyword
arguments to ``adaptive_covariance``); the estimator's own code path is otherwise unchanged. The
wrapper also keeps the matrix ``fit_adaptive`` returned (before ``DPCovariance``'s feasible
projection, nearest correlation and shrinkage), so the raw implied correlation's squared error is
recorded beside the final one: the predictions are first-order losses of the RAW correlation.

Errors: ``error`` = relative Frobenius error of the released correlation (the benchmark's metric),
``sq`` = its absolute squared Frobenius error ``‖R̂ − R‖²`` (the predictions' unit), ``sq_raw`` =
the same for the raw implied correlation. R is the correlation of the clipped records (``1/n``).

Cells: the 35 benchmark correlation cells (``_utility_common.DATASETS`` × ε, seeds
``SeedSequence(20261124)``, whose first 15 are the benchmark's) and the 60 held-out cells of
``_check_tables_heldout.MEASUREMENT`` × ε (seeds ``SeedSequence(20261129)``, those of
``heldout_covariance.py``: the ``default`` rows reproduce its per-trial errors).

Command (checkpointed per cell in the trial CSV; ``--part render`` writes the Markdown)::

    cd experiments && nice -n 10 env OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \\
        PYTHONPATH=../src MATRIXDP_DATA=/work/shared/datasets python correlation_guard_diagnosis.py \\
        --part run --trials 30
    ... python correlation_guard_diagnosis.py --part render
"""

from __future__ import annotations

import argparse
import csv
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _utility_common as uc  # noqa: E402

RESULTS = uc.REPO_ROOT / "results"
TRIALS_CSV = RESULTS / "correlation_guard_trials.csv"
OUT_MD = RESULTS / "correlation_guard_diagnosis.md"
BENCH_SEED = 20261124
HELDOUT_SEED = 20261129
ROWS = ("default", "z0:moments", "z0:coinpress", "coinpress")
FIELDS = ["set", "table", "epsilon", "row", "trial", "seed", "error", "sq", "sq_raw", "choice",
          "pred_moments", "pred_coinpress", "coinpress_bias", "resolved", "statistic"]

_STATE: dict = {"over": {}, "raw": None}


def _install_wrapper():
    import matrixdp.models.covariance as cvm

    if getattr(cvm.fit_adaptive, "_cg_wrapped", False):
        return
    orig = cvm.fit_adaptive

    def wrapped(*a, **kw):
        out = orig(*a, **uc.adaptive_keywords({**kw, **_STATE["over"]}))
        _STATE["raw"] = np.array(out[0], copy=True)
        return out
    wrapped._cg_wrapped = True
    cvm.fit_adaptive = wrapped


def tables():
    """``[(set, Table, seed)]``: the benchmark's 7 tables and the 12 held-out measurement tables."""
    from _check_tables_heldout import MEASUREMENT, heldout_table

    out = [("benchmark", uc.load_table(n), BENCH_SEED) for n in uc.DATASETS]
    out += [("heldout", heldout_table(n), HELDOUT_SEED) for n in MEASUREMENT]
    return out


def fit_row(row: str, t: uc.Table, eps: float, s: int):
    from matrixdp.models import DPCovariance
    from matrixdp.models.covariance import correlation_from_covariance

    kw = {"method": "coinpress"} if row == "coinpress" else {}
    _STATE["over"] = ({} if row in ("default", "coinpress") else
                      {"resolve_z": 0.0, "branch": row.split(":")[1]})
    _STATE["raw"] = None
    est = DPCovariance(epsilon=eps, delta=uc.DELTA, bounds=(t.lo, t.hi), kind="correlation",
                       random_state=s, **uc.experimental_keywords(DPCovariance, kw)).fit(t.X)
    raw = None if _STATE["raw"] is None else correlation_from_covariance(_STATE["raw"])
    _STATE["over"] = {}
    return est, raw


def run(args) -> None:
    from utility_covariance import correlation

    _install_wrapper()
    done = set()
    if TRIALS_CSV.exists():
        with open(TRIALS_CSV, newline="") as fh:
            done = {(r["table"], float(r["epsilon"])) for r in csv.DictReader(fh)}
    new = not TRIALS_CSV.exists()
    with open(TRIALS_CSV, "a", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=FIELDS)
        if new:
            w.writeheader()
        for set_, t, seed in tables():
            R = correlation(np.cov(t.X.T, bias=True))
            rn = np.linalg.norm(R)
            seeds = [int(s) for s in np.random.SeedSequence(seed).generate_state(args.trials)]
            for eps in uc.EPSILONS:
                if (t.name, eps) in done:
                    continue
                rows = []
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    for row in ROWS:
                        for i, s in enumerate(seeds):
                            est, raw = fit_row(row, t, eps, s)
                            Rh = est.covariance_
                            pred = getattr(est, "adaptive_predicted_", None) or {}
                            rows.append({
                                "set": set_, "table": t.name, "epsilon": eps, "row": row,
                                "trial": i, "seed": s,
                                "error": repr(float(np.linalg.norm(Rh - R) / rn)),
                                "sq": repr(float(np.sum((Rh - R) ** 2))),
                                "sq_raw": "" if raw is None else repr(float(np.sum((raw - R) ** 2))),
                                "choice": getattr(est, "adaptive_choice_", ""),
                                "pred_moments": pred.get("moments", ""),
                                "pred_coinpress": pred.get("coinpress", ""),
                                "coinpress_bias": pred.get("coinpress_bias", ""),
                                "resolved": pred.get("resolved", ""),
                                "statistic": pred.get("statistic", "")})
                w.writerows(rows)
                fh.flush()
                print(f"{set_} {t.name} eps={eps} done", flush=True)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--part", choices=("run", "render"), required=True)
    p.add_argument("--trials", type=int, default=30)
    args = p.parse_args(argv)
    if args.part == "run":
        run(args)
    else:
        from correlation_guard_render import render
        render()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
