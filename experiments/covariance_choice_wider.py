"""Task CV, post-hoc (decides nothing): the median ranking on the 60 cells of AD and AD2's tables.

Written and run AFTER stage 1 and stage 2 of ``covariance_choice_gate.py`` were read. Stage 2's
never-seen tables were small (n ≤ 97) and the candidate changed 0 of their 2000 choices, so the
check could not show a loss. This run measures the candidate where the whitened step IS taken:
the 60 cells of task AD and AD2's tables (``_check_tables.AD_TABLES`` with seed 20261129,
``AD2_TABLES`` with seed 20261201; ε ∈ {0.1, 0.5, 1, 2, 5}, δ = 1e-6, replace-one, 100 trials,
the seeds of ``uc.run_cell``, as ``adaptive_choice_dev.py``), where task AC's candidates lost up
to 1.5–4× (VietNamH, midwest, movies). These tables were seen by the project (AD, AD2, AC), not
by this candidate's design. Per cell: the candidate ``DPCovariance(adaptive_ranking="median")``
against ``DPCovariance()`` on the same seeds, ``_paired_gate.cell_verdict``, ratio of medians,
and whether the default's median reproduces ``results/adaptive_choice_dev.csv``'s.

Command::

    cd experiments && MATRIXDP_DATA=/work/shared/datasets PYTHONPATH=../src python covariance_choice_wider.py

Output: ``results/covariance_choice_wider.{md,csv}`` and ``_trials.csv``.
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

import _check_tables  # noqa: E402
import _paired_gate as pg  # noqa: E402
import covariance_choice_gate as gate  # noqa: E402
import covariance_default_power as cdp  # noqa: E402

NAME = "covariance_choice_wider"
GROUPS = (("AD", _check_tables.AD_TABLES, 20261129), ("AD2", _check_tables.AD2_TABLES, 20261201))
FIELDS = ("group", "dataset", "epsilon", "n", "d", "trial", "seed", "default", "candidate",
          "choice_default", "choice_candidate")
CELL_FIELDS = ("group", "dataset", "epsilon", "n", "d", "T", "median_default",
               "median_candidate", "ratio", "hl", "upper", "p", "verdict", "steps_default",
               "steps_candidate", "changed", "reproduced")


def run(args):
    rows = []
    for group, tables, seed in GROUPS:
        seeds = [int(s) for s in np.random.SeedSequence(seed).generate_state(args.trials)]
        for ds in tables:
            t = _check_tables.load(ds)
            C = np.cov(t.X.T, bias=True)
            cn = float(np.linalg.norm(C))
            for eps in gate.EPSILONS:
                t0 = time.perf_counter()
                for i, s in enumerate(seeds):
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        ed, chd = gate.fit_error(t.X, t.lo, t.hi, C, cn, eps, s,
                                                 **gate.REFERENCE)
                        ec, chc = gate.fit_error(t.X, t.lo, t.hi, C, cn, eps, s,
                                                 **gate.CANDIDATE)
                    rows.append({"group": group, "dataset": ds, "epsilon": eps, "n": t.n,
                                 "d": t.d, "trial": i, "seed": s, "default": ed,
                                 "candidate": ec, "choice_default": chd,
                                 "choice_candidate": chc})
                print(f"  {group} {ds} ε = {eps:g}: {time.perf_counter() - t0:.1f} s", flush=True)
    return rows


def analyse(rows, out: Path):
    committed = {}
    path = out / "adaptive_choice_dev.csv"
    if path.exists():
        with open(path) as fh:
            for r in csv.DictReader(fh):
                if r["row"] == "default":
                    committed[(r["dataset"], float(r["epsilon"]))] = float(r["median"])
    groups = {}
    for r in rows:
        groups.setdefault((r["group"], r["dataset"], float(r["epsilon"])), []).append(r)
    cells = []
    for (grp, ds, eps), tr in groups.items():
        c = np.array([float(r["candidate"]) for r in tr])
        d = np.array([float(r["default"]) for r in tr])
        vd = pg.cell_verdict(c, d)
        md = float(np.median(d))
        cells.append({"group": grp, "dataset": ds, "epsilon": eps, "n": tr[0]["n"],
                      "d": tr[0]["d"], "T": len(tr), "median_default": md,
                      "median_candidate": float(np.median(c)),
                      "ratio": float(np.median(c)) / md, "hl": pg.pseudo_median_ratio(c, d),
                      "upper": pg.upper_bound_ratio(c, d), "p": pg.wilcoxon_p(c, d),
                      "verdict": pg.verdict_label(vd), "fail": bool(vd["fail"]),
                      "steps_default": sum(r["choice_default"] == "coinpress" for r in tr),
                      "steps_candidate": sum(r["choice_candidate"] == "coinpress" for r in tr),
                      "changed": sum(r["choice_default"] != r["choice_candidate"] for r in tr),
                      "reproduced": int(abs(md - committed.get((ds, eps), np.nan))
                                        <= 1e-12 * md)})
    return cells


def report(cells, cmd):
    ratios = np.array([c["ratio"] for c in cells])
    moved = [c for c in cells if c["changed"]]
    L = ["# Task CV, post-hoc: the median ranking on AD and AD2's 60 cells (decides nothing)", "",
         f"Generated by `experiments/covariance_choice_wider.py`; command: `{cmd}`. Written and "
         "run after stage 1 and stage 2 of `covariance_choice_gate.py` were read (stage 2's "
         "small never-seen tables changed no choice). Candidate "
         "`DPCovariance(adaptive_ranking=\"median\")` against `DPCovariance()` on the same seeds "
         "(AD: `SeedSequence(20261129)`, AD2: `SeedSequence(20261201)`, 100 trials, as "
         "`adaptive_choice_dev.py`); δ = 1e-6, replace-one; the tables' committed public bounds "
         "(`_check_tables`). Paired gate per cell (`_paired_gate.cell_verdict`, FAIL iff "
         "significantly worse than 1.10× at α = 0.01).", "",
         "## Outcome", "",
         f"- FAIL cells (candidate vs default): {sum(c['fail'] for c in cells)} of {len(cells)}; "
         f"inconclusive: {sum(c['verdict'] == 'inconclusive' for c in cells)}.",
         f"- Ratio of medians candidate/default: median {np.median(ratios):.4f}, min "
         f"{ratios.min():.3f}, max {ratios.max():.3f}; cells with a changed choice: {len(moved)} "
         f"({sum(c['changed'] for c in cells)} of {sum(c['T'] for c in cells)} fits).",
         f"- The default's medians reproduce `results/adaptive_choice_dev.csv` in "
         f"{sum(c['reproduced'] for c in cells)} of {len(cells)} cells.", "",
         "| group | table | n × d | ε | default | candidate | ratio | HL | 99% upper | p (1.10) | "
         "verdict | steps default → candidate | changed |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for c in cells:
        L.append(f"| {c['group']} | {c['dataset']} | {c['n']} × {c['d']} | {c['epsilon']:g} | "
                 f"{cdp.g(c['median_default'])} | {cdp.g(c['median_candidate'])} | "
                 f"{c['ratio']:.3f} | {c['hl']:.3f} | {c['upper']:.3f} | {c['p']:.2g} | "
                 f"{c['verdict']} | {c['steps_default']} → {c['steps_candidate']} | "
                 f"{c['changed']} |")
    return "\n".join(L) + "\n"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--trials", type=int, default=gate.TRIALS)
    p.add_argument("--analyse", action="store_true")
    p.add_argument("--out", default=str(Path(__file__).resolve().parent.parent / "results"))
    args = p.parse_args(argv)
    out = Path(args.out)
    cmd = ("cd experiments && MATRIXDP_DATA=/work/shared/datasets PYTHONPATH=../src python "
           "covariance_choice_wider.py")
    if args.analyse:
        with open(out / f"{NAME}_trials.csv") as fh:
            rows = list(csv.DictReader(fh))
    else:
        rows = run(args)
        gate._write_csv(out / f"{NAME}_trials.csv", rows, FIELDS)
    cells = analyse(rows, out)
    gate._write_csv(out / f"{NAME}.csv", cells, CELL_FIELDS)
    (out / f"{NAME}.md").write_text(report(cells, cmd))
    return 0


if __name__ == "__main__":
    sys.exit(main())
