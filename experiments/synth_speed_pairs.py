"""Same-load speed pairs for issue #26's target: fit + sample ≥ 100× faster than MST, per table × ε.

The committed timing run of ``synth_benchmark.py`` ran the peers and ours concurrently while the
shared machine's load changed (most MST fits under a heavy load, most of ours after it), so its
× MST column overstates the speed-up. This script times each cell back to back, one process at a
time, on the same machine state:

1. the 1-minute load average before the cell;
2. one MST fit + sample (seed 0, the fixed sampler, the benchmark's own ``_run_peer`` with the same
   public schema and peer configuration) in the peers' venv (``$MATRIXDP_SYNTH_PEER_PYTHON``), a
   fresh process per cell, so MST's time includes its jax compilation, as the benchmark's does;
3. DPCopula and DPTreeCopula fit + sample (``synth_benchmark.fit_sample_ours``, the benchmark's
   timed path), 5 repeats each, interleaved, seed 0; the median of the 5;
4. the load average after the cell.

Ratio = MST's seconds / ours' median seconds; the target is met in a cell when the ratio ≥ 100.
Cells run in the order ε = 1 (all tables), then ε = 0.3, then ε = 3; rows are appended to
``results/synth_speed_pairs.csv`` as each cell finishes (a restarted run skips cells already
there), and ``results/synth_speed_pairs.md`` is rendered from the csv. No new MST fit is started
after ``--stop-mst-at`` (UTC, HH:MM); the report lists the cells not timed.

Usage::

    MATRIXDP_SYNTH_PEER_PYTHON=<peers venv>/bin/python python experiments/synth_speed_pairs.py
    python experiments/synth_speed_pairs.py --report           # re-render the md from the csv
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import synth_benchmark as sb  # noqa: E402
from _synth_tables import REPO_ROOT, load_table  # noqa: E402

RESULTS = REPO_ROOT / "results"
OUT_CSV = RESULTS / "synth_speed_pairs.csv"
OUT_MD = RESULTS / "synth_speed_pairs.md"
TABLES = ["adult", "ctg", "lending_club"]
#: ε = 1 first (the cells asked for first when time is short), then 0.3, then 3
EPSILONS = [1.0, 0.3, 3.0]
REPEATS = 5
SEED = 0
TARGET = 100.0
OURS = ["DPCopula", "DPTreeCopula"]
FIELDS = ["table", "epsilon", "method", "seconds", "repeat_seconds", "mst_seconds", "ratio",
          "target", "load_before", "load_after_mst", "load_after", "started_utc", "status"]


def _mst_cell(table_name: str, eps: float) -> dict:
    """One MST fit + fixed-sampler sample, in the peers' venv; the benchmark's own code path."""
    table = load_table(table_name)
    rows = sb._run_peer(table, "mst", eps, SEED, timing="speed pair")
    fixed = next(r for r in rows if r["method"] == sb.MST_REF)
    return {"fit_s": fixed["fit_s"], "sample_s": fixed["sample_s"], "total_s": fixed["total_s"]}


def _run_mst(table_name: str, eps: float) -> float:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(REPO_ROOT / "src")] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    proc = subprocess.run([sb.PEER_PYTHON, str(Path(__file__).resolve()), "--mst-cell",
                           table_name, str(eps)], env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-500:])
    return float(json.loads(proc.stdout.strip().splitlines()[-1])["total_s"])


def _ours(table, eps: float) -> dict:
    """5 interleaved repeats of each generator's fit + sample; the seconds of every repeat."""
    from matrixdp.synth.copula import DPCopula
    from matrixdp.synth.tree_copula import DPTreeCopula

    classes = {"DPCopula": DPCopula, "DPTreeCopula": DPTreeCopula}
    times: dict = {m: [] for m in OURS}
    for _ in range(REPEATS):
        for m in OURS:
            times[m].append(sb.fit_sample_ours(classes[m], table, eps, SEED)[3])
    return times


def cell_rows(name: str, eps: float, mst: float, times: dict, loads, started: str) -> list:
    """The csv rows of one cell: MST's seconds, and per generator the median of its repeats,
    the ratio MST / median and whether it meets the ≥ 100× target."""
    base = dict(table=name, epsilon=eps, mst_seconds=f"{mst:.3f}",
                load_before=f"{loads[0]:.2f}", load_after_mst=f"{loads[1]:.2f}",
                load_after=f"{loads[2]:.2f}", started_utc=started, status="ok")
    rows = [dict(base, method=sb.MST_REF, seconds=f"{mst:.3f}", repeat_seconds=f"{mst:.3f}")]
    for m in OURS:
        med = float(np.median(times[m]))
        ratio = mst / med
        rows.append(dict(base, method=m, seconds=f"{med:.4f}",
                         repeat_seconds=" ".join(f"{t:.4f}" for t in times[m]),
                         ratio=f"{ratio:.0f}", target="met" if ratio >= TARGET else "NOT met"))
    return rows


def _read() -> list:
    if not OUT_CSV.exists():
        return []
    with OUT_CSV.open() as fh:
        return list(csv.DictReader(fh))


def _append(rows: list) -> None:
    new = not OUT_CSV.exists()
    with OUT_CSV.open("a", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=FIELDS)
        if new:
            w.writeheader()
        for r in rows:
            w.writerow({k: r.get(k, "") for k in FIELDS})


def _past(stop: str) -> bool:
    h, m = map(int, stop.split(":"))
    now = dt.datetime.now(dt.timezone.utc)
    return (now.hour, now.minute) >= (h, m)


def run(args) -> None:
    done = {(r["table"], float(r["epsilon"])) for r in _read() if r["status"] == "ok"}
    for eps in args.epsilons:
        for name in args.tables:
            if (name, eps) in done:
                continue
            if _past(args.stop_mst_at):
                print(f"past {args.stop_mst_at} UTC: {name} ε={eps} not timed", flush=True)
                continue
            started = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M")
            table = load_table(name)
            load_before = os.getloadavg()[0]
            mst = _run_mst(name, eps)
            load_mst = os.getloadavg()[0]
            times = _ours(table, eps)
            load_after = os.getloadavg()[0]
            _append(cell_rows(name, eps, mst, times, (load_before, load_mst, load_after), started))
            print(name, eps, f"MST {mst:.1f} s", {m: f"{np.median(t):.3f}" for m, t in times.items()},
                  f"load {load_before:.2f}/{load_mst:.2f}/{load_after:.2f}", flush=True)
            report()


def summary_sentence(rows: list | None = None) -> str:
    """One sentence on the same-load pairs for the benchmark's speed note ('' if none yet)."""
    rows = [r for r in (_read() if rows is None else rows)
            if r["status"] == "ok" and r["method"] in OURS]
    if not rows:
        return ""
    def span(m):
        x = [float(r["ratio"]) for r in rows if r["method"] == m]
        return f"{min(x):.0f}\u2013{max(x):.0f}\u00d7"

    cells = sorted({(r["table"], float(r["epsilon"])) for r in rows})
    missed = sorted({(r["table"], float(r["epsilon"]), r["method"]) for r in rows
                     if r["target"] != "met"})
    missing = [(t, e) for e in EPSILONS for t in TABLES if (t, e) not in cells]
    loads = [float(r[k]) for r in rows for k in ("load_before", "load_after")]
    return ("Same-load speed pairs (`results/synth_speed_pairs.md`, "
            "`experiments/synth_speed_pairs.py`: per cell one MST (fixed sampler) fit + sample and "
            f"{REPEATS} of each of ours, back to back, one process at a time, 1-minute load "
            f"{min(loads):.1f}–{max(loads):.1f}): DPCopula is {span('DPCopula')} and "
            f"DPTreeCopula {span('DPTreeCopula')} faster than MST (fixed sampler) over the "
            f"{len(cells)} cells timed; ≥ 100\u00d7 "
            + ("met in every one" if not missed else
               "NOT met in " + ", ".join(f"{t} ε = {e:g} ({m})" for t, e, m in missed))
            + ("" if not missing else
               "; not timed: " + ", ".join(f"{t} ε = {e:g}" for t, e in missing))
            + ".")


def report() -> None:
    rows = [r for r in _read() if r["status"] == "ok"]
    lines = [
        "# Same-load speed pairs: DPCopula and DPTreeCopula vs MST (issue #26)", "",
        "Produced by `experiments/synth_speed_pairs.py`. For each table × ε, back to back on the "
        "same machine state, one process at a time, all at the same priority (nice 0): one MST "
        "fit + sample (seed 0, fixed sampler; smartnoise-synth 1.0.8 + mbi 1.1.0 in the peers' venv, "
        "a fresh process per cell, so its jax compilation is part of the fit, as in the benchmark; "
        "the benchmark's own `_run_peer`, same public schema and configuration), then DPCopula and "
        f"DPTreeCopula fit + sample (`synth_benchmark.fit_sample_ours`, seed 0), {REPEATS} "
        "repeats each, interleaved; their median. Every method samples as many records as the "
        "training table. Ratio = MST seconds / ours. Target (issue #26): ratio ≥ 100 in every "
        "table × ε. Load: the machine's 1-minute load average (2 cores, shared with other work) "
        "before the cell, after MST and after ours.", "",
        "| table | ε | MST (s) | DPCopula (s) | × | DPTreeCopula (s) | × | ≥ 100×: DPCopula | "
        "≥ 100×: DPTreeCopula | load before / after MST / after | started (UTC) |",
        "|---|---|---|---|---|---|---|---|---|---|---|"]
    by_cell: dict = {}
    for r in rows:
        by_cell.setdefault((r["table"], float(r["epsilon"])), {})[r["method"]] = r
    for t in TABLES:
        for e in sorted(EPSILONS):
            c = by_cell.get((t, e))
            if c is None:
                lines.append(f"| {t} | {e:g} | not timed | | | | | | | | |")
                continue
            a, b, m = c["DPCopula"], c["DPTreeCopula"], c[sb.MST_REF]
            lines.append(
                f"| {t} | {e:g} | {float(m['seconds']):.1f} | {float(a['seconds']):.3f} | "
                f"{a['ratio']} | {float(b['seconds']):.3f} | {b['ratio']} | {a['target']} | "
                f"{b['target']} | {m['load_before']} / {m['load_after_mst']} / {m['load_after']} | "
                f"{m['started_utc']} |")
    sentence = summary_sentence(rows)
    if sentence:
        lines += ["", sentence]
    redone = sorted({(r["table"], float(r["epsilon"]), r["status"]) for r in _read()
                     if r["status"] != "ok"})
    lines += ["", "Every repeat's seconds: `results/synth_speed_pairs.csv` (`repeat_seconds`; the "
              "first repeat of a process includes the generators' first-call warm-up, which the "
              "median leaves out)."]
    lines += [f"Retimed cells (their first rows stay in the csv): "
              + "; ".join(f"{t} ε = {e:g} ({st})" for t, e, st in redone) + "."] if redone else []
    lines += ["", "Reproduce: `MATRIXDP_SYNTH_PEER_PYTHON=<peers venv>/bin/python "
              "python experiments/synth_speed_pairs.py` (`--report` re-renders this file)."]
    OUT_MD.write_text("\n".join(lines) + "\n")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", nargs="+", default=TABLES)
    ap.add_argument("--epsilons", nargs="+", type=float, default=EPSILONS)
    ap.add_argument("--stop-mst-at", default="23:59", help="UTC HH:MM: start no MST fit after it")
    ap.add_argument("--report", action="store_true", help="only re-render the md from the csv")
    ap.add_argument("--mst-cell", nargs=2, metavar=("TABLE", "EPS"),
                    help="internal: one MST cell, in the peers' venv; prints its seconds as json")
    args = ap.parse_args(argv)
    if args.mst_cell:
        print(json.dumps(_mst_cell(args.mst_cell[0], float(args.mst_cell[1]))))
    elif args.report:
        report()
    else:
        run(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
