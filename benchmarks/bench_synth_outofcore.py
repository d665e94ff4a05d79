"""Benchmark: DPTreeCopula and DPCopula fitted out of core on Dask and sampled to Parquet, with the
peak resident memory of the whole process tree.

1. ``generate``: a PUBLIC synthetic source table of ``--rows`` rows (6 continuous + 4 integer
   numeric columns, 3 categorical columns, a binary label) written as Parquet files of
   ``--chunk-rows`` rows under ``--dir`` (not in the repository; deleted afterwards unless
   ``--keep``). It is generated chunk by chunk from a fixed seed (public data: a benchmark input).
2. per model: ``fit`` on ``dask.dataframe.read_parquet`` of that directory (one partition per
   file, never collected; Dask's threaded scheduler with ``--workers`` threads), then
   ``sample_to_parquet`` of ``--rows`` synthetic rows in chunks of ``--chunk-rows``; the written
   row count is checked from the Parquet metadata, and the output is deleted.

Every phase runs in a fresh child process; this process samples the resident memory (RSS) of
the child and all its descendants every 0.2 s from ``/proc`` (via psutil) and reports the peak
of their sum, per phase (fit and sample are timed inside the child), with the wall time.
Same public schema, ε = 1, δ = 1e-9 (add/remove), public classes {0, 1} for both models.
Target (issue #26): a 10⁸-row table synthesised out of core with peak memory ≤ 2 GiB.

Run: ``nice -n 10 python benchmarks/bench_synth_outofcore.py --rows 100000000``
(``--models copula tree``; several ``--rows`` values run one after the other).
Writes ``results/synth_outofcore.csv`` (rows appended per run) and the "Synthetic data out of core
on Dask" section of BENCHMARKS.md (from every row of the CSV).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SRC = ROOT / "src"
CSV = ROOT / "results" / "synth_outofcore.csv"
FIELDS = ["rows", "model", "phase", "wall_s", "peak_rss_mib", "chunk_rows", "workers", "files",
          "fitted_on", "run_utc"]

CONTINUOUS = [f"x{i}" for i in range(6)]
INTEGER = [f"n{i}" for i in range(4)]
CATEGORICAL = {"colour": ["red", "green", "blue", "black"],
               "region": [f"r{i}" for i in range(12)],
               "grade": ["A", "B", "C", "D", "E"]}
EPSILON, DELTA = 1.0, 1e-9


def schema():
    """The public schema (fixed here, never read from the table)."""
    from matrixdp.synth.schema import TableSchema

    bounds = {c: (-5.0, 5.0) for c in CONTINUOUS}
    bounds.update({c: (0, 100) for c in INTEGER})
    return TableSchema(bounds=bounds, categories=CATEGORICAL, integer=tuple(INTEGER))


# ------------------------------------------------------------------ child phases
def generate(rows: int, chunk_rows: int, out: Path) -> int:
    """Write the public source table; returns the number of files."""
    import pandas as pd

    out.mkdir(parents=True, exist_ok=True)
    n_files = -(-rows // chunk_rows)
    seeds = np.random.SeedSequence(20261126).spawn(n_files)
    width = len(str(n_files - 1))
    mix = np.linalg.cholesky(0.6 * np.eye(4) + 0.4)
    for i, seed in enumerate(seeds):
        m = min(chunk_rows, rows - i * chunk_rows)
        gen = np.random.default_rng(seed)
        y = (gen.uniform(size=m) < 0.3).astype(np.int8)
        Z = gen.standard_normal((m, 4)) @ mix.T + 0.8 * y[:, None]
        cols = {}
        for j, c in enumerate(CONTINUOUS):
            cols[c] = Z[:, j % 4] * (1 + 0.2 * j) + 0.5 * gen.standard_normal(m)
        for j, c in enumerate(INTEGER):
            cols[c] = np.clip(np.round(40 + 12 * Z[:, (j + 1) % 4] + 5 * gen.standard_normal(m)),
                              0, 100).astype(np.int32)
        for j, (c, cats) in enumerate(CATEGORICAL.items()):
            u = 1.0 / (1.0 + np.exp(-(Z[:, j] + 0.7 * gen.standard_normal(m))))
            codes = np.minimum((u * len(cats)).astype(np.int64), len(cats) - 1)
            cols[c] = pd.Categorical.from_codes(codes, categories=cats)
        cols["y"] = y
        pd.DataFrame(cols).to_parquet(out / f"part.{i:0{width}d}.parquet", index=False)
    return n_files


def fit_phase(model_name: str, workers: int, source: Path, model_file: Path, marks: Path):
    """Fit on the Parquet source with Dask; pickle the fitted model (post-processing state only)."""
    import pickle

    import dask
    import dask.dataframe as dd

    from matrixdp.synth.copula import DPCopula
    from matrixdp.synth.tree_copula import DPTreeCopula

    dask.config.set(scheduler="threads", num_workers=workers)
    cls = {"copula": DPCopula, "tree": DPTreeCopula}[model_name]
    features = CONTINUOUS + INTEGER + list(CATEGORICAL)
    frame = dd.read_parquet(str(source))
    start = time.time()
    model = cls(schema=schema(), epsilon=EPSILON, delta=DELTA, classes=[0, 1],
                random_state=0).fit(frame[features], frame["y"])
    end = time.time()
    model_file.write_bytes(pickle.dumps(model))
    marks.write_text(json.dumps({"start": start, "end": end,
                                 "files": len(list(source.glob("*.parquet")))}))


def sample_phase(model_name: str, rows: int, chunk_rows: int, workers: int, model_file: Path,
                 out: Path, marks: Path):
    """``sample_to_parquet`` of ``rows`` rows from the pickled model; checks the row count."""
    import pickle

    import dask
    import pyarrow.parquet as pq

    dask.config.set(scheduler="threads", num_workers=workers)
    model = pickle.loads(model_file.read_bytes())
    start = time.time()
    # both generators write through synth._dask.write_sampled_frames (one file per chunk)
    files = model.sample_to_parquet(out, rows, chunk_rows=chunk_rows, random_state=1)
    end = time.time()
    written = sum(pq.ParquetFile(f).metadata.num_rows for f in files)
    if written != rows:
        raise RuntimeError(f"{model_name}: wrote {written} rows, expected {rows}")
    marks.write_text(json.dumps({"start": start, "end": end, "files": len(files)}))


# ------------------------------------------------------------------ parent: RSS sampler
def run_child(args: list[str]) -> tuple[float, list[tuple[float, float]]]:
    """Run this script as a child with ``args``; returns (wall seconds, [(time, tree RSS MiB)])."""
    import psutil

    env = dict(os.environ, PYTHONPATH=str(SRC), OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
               MKL_NUM_THREADS="1")
    t0 = time.time()
    proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--child", *args],
                            env=env)
    samples: list[tuple[float, float]] = []
    parent = psutil.Process(proc.pid)

    def tree_rss() -> float:
        total = 0
        try:
            procs = [parent] + parent.children(recursive=True)
        except psutil.NoSuchProcess:
            return 0.0
        for p in procs:
            try:
                total += p.memory_info().rss
            except psutil.NoSuchProcess:
                pass
        return total / 2 ** 20

    stop = threading.Event()

    def sampler():
        while not stop.is_set():
            samples.append((time.time(), tree_rss()))
            stop.wait(0.2)

    thread = threading.Thread(target=sampler, daemon=True)
    thread.start()
    code = proc.wait()
    stop.set()
    thread.join()
    if code != 0:
        raise RuntimeError(f"child {args} failed with status {code}")
    return time.time() - t0, samples


def peak(samples, start=None, end=None) -> float:
    vals = [r for t, r in samples if (start is None or t >= start - 0.2)
            and (end is None or t <= end + 0.2)]
    return max(vals) if vals else float("nan")


def report() -> str:
    with CSV.open() as f:
        rows = list(csv.DictReader(f))
    lines = [
        "`nice -n 10 python benchmarks/bench_synth_outofcore.py --rows N`: a public synthetic "
        "source table of N rows (6 continuous + 4 integer numeric columns, 3 categorical columns "
        "with 4/12/5 categories, a binary label) as Parquet files of `chunk_rows` rows on local "
        "disk; each model is fitted on `dask.dataframe.read_parquet` of it (never collected; the "
        "threaded scheduler with `workers` threads) at ε = 1, δ = 1e-9 (add/remove, public "
        "classes {0, 1}, the same public schema), then writes N synthetic rows with "
        "`sample_to_parquet` in chunks of `chunk_rows` (row count checked from the Parquet "
        "metadata). Each phase runs in a fresh child process (the runs of 14:47 UTC ran fit and "
        "sample in one process and split its memory timeline at the phase boundaries; their "
        "'whole process' row is that process's peak; at 15:14 UTC the fit on 10⁸ rows and the "
        "10⁸-row sample from the model fitted on 10⁶ rows ran at the same time, two process "
        "trees each measured on its own, for lack of time; the 15:50 UTC sample is from the model "
        "fitted on 10⁸ rows; the DPTreeCopula rows from 18:13 UTC on are after its "
        "`sample_to_parquet` moved to `write_sampled_frames`, one file per chunk of `chunk_rows` "
        "rows with at most one chunk per worker thread in memory, as DPCopula; the 14:47 UTC "
        "DPTreeCopula rows are the previous writer, one `dask.dataframe.from_delayed(...)"
        ".to_parquet`). `fitted on` is the size of the table the "
        "sampled model was fitted on (sampling does not read the data; a sample of N rows from a "
        "model fitted on fewer rows measures sampling alone). Peak memory is the largest sum of "
        "the resident memory of the child process and all its descendants, sampled every 0.2 s "
        "from /proc (psutil); `generate` "
        "writes the source table (not part of the target). The machine's 2 cores were shared with "
        "other jobs throughout, so wall times are upper bounds of an idle machine's. "
        "Target (issue #26): a 10⁸-row table synthesised out of core with peak memory ≤ 2 GiB "
        "(2048 MiB). Results: `results/synth_outofcore.csv`.", "",
        "| rows | model (copula = DPCopula, tree = DPTreeCopula) | phase | fitted on | wall (s) | peak RSS (MiB) | ≤ 2 GiB | chunk rows | workers | run (UTC) |",
        "|---:|---|---|---:|---:|---:|---|---:|---:|---|"]
    sizes = sorted({int(r["rows"]) for r in rows})
    measured = {(int(r["rows"]), r["model"]) for r in rows if r["phase"] == "fit"}
    missing = [m for m in ("copula", "tree") if (sizes[-1], m) not in measured]
    names = {"copula": "DPCopula", "tree": "DPTreeCopula"}
    for m in ("copula", "tree"):
        top = [r for r in rows if r["model"] == m and int(r["rows"]) == sizes[-1]
               and r["phase"] in ("fit", "sample_to_parquet")]
        if top:
            worst = max(float(r["peak_rss_mib"]) for r in top)
            phases = ", ".join(f"{r['phase']} {float(r['peak_rss_mib']):.0f} MiB in "
                               f"{float(r['wall_s']):.0f} s" for r in top)
            lines[0] += (f" **{names[m]} at {sizes[-1]:,} rows: {phases}; largest peak "
                         f"{worst:.0f} MiB ({'meets' if worst <= 2048 else 'misses'} the "
                         f"≤ 2 GiB target).**")
    if missing:
        lines[0] += (f" Fit not measured at {sizes[-1]:,} rows: "
                     f"{', '.join(names[m] for m in missing)} (see the smaller runs; a "
                     f"`sample_to_parquet` row at that size, if any, samples from the model "
                     f"fitted on the smaller table given in `fitted on`).")
    for r in rows:
        ok = "yes" if float(r["peak_rss_mib"]) <= 2048 else "**no**"
        fitted = f"{int(r['fitted_on']):,}" if r.get("fitted_on") else ""
        lines.append(f"| {int(r['rows']):,} | {r['model']} | {r['phase']} | {fitted} | "
                     f"{float(r['wall_s']):.1f} | {float(r['peak_rss_mib']):.0f} | {ok} | "
                     f"{int(r['chunk_rows']):,} | {r['workers']} | {r['run_utc']} |")
    if PARTIAL.exists():
        with PARTIAL.open() as f:
            partial = list(csv.DictReader(f))
        lines += ["", "Runs followed with `--watch` (`results/synth_outofcore_partial.csv`): the "
                  "process tree's peak resident memory, CPU time and chunk files written so far; "
                  "status `running` means the run had **not finished** when the watch stopped "
                  "(its wall time is not a result).", "",
                  "| run | started (UTC) | elapsed (s) | CPU (s) | peak RSS (MiB) | chunk files | status |",
                  "|---|---|---:|---:|---:|---:|---|"]
        lines += [f"| {r['label']} | {r['started_utc']} | {r['elapsed_s']} | {r['cpu_s']} | "
                  f"{float(r['peak_rss_mib']):.0f} | {r['chunk_files_written']} | {r['status']} |"
                  for r in partial]
    return "\n".join(lines)


PARTIAL = ROOT / "results" / "synth_outofcore_partial.csv"


def watch(specs: list[str], until: float) -> None:
    """Follow running phase processes (``label:pid:output_dir``) until they end or until the
    epoch time ``until``: every 5 s the resident memory of each process tree (peak kept), its CPU
    time and the number of chunk files written; ``results/synth_outofcore_partial.csv`` is
    rewritten every 30 s. For runs that may not finish in the time available: the rows say how
    far they got (``status`` running), never a finished time."""
    import psutil

    state = []
    for spec in specs:
        label, pid, out = spec.split(":", 2)
        proc = psutil.Process(int(pid))
        state.append(dict(label=label, proc=proc, out=Path(out) if out else None, peak=0.0,
                          cpu=0.0, started=proc.create_time(), last=time.time(),
                          status="running"))
    last_write = 0.0
    while True:
        alive = False
        for st in state:
            if st["status"] != "running":
                continue
            try:
                procs = [st["proc"]] + st["proc"].children(recursive=True)
                rss = sum(p.memory_info().rss for p in procs) / 2 ** 20
                cpu = sum(sum(p.cpu_times()[:2]) for p in procs)
                st["peak"], st["cpu"], st["last"] = max(st["peak"], rss), max(st["cpu"], cpu), time.time()
                alive = True
            except psutil.NoSuchProcess:
                st["status"] = "ended"
        now = time.time()
        if now - last_write >= 30 or not alive or now >= until:
            with PARTIAL.open("w", newline="") as f:
                writer = csv.writer(f)
                writer.writerow(["label", "started_utc", "elapsed_s", "cpu_s", "peak_rss_mib",
                                 "chunk_files_written", "status"])
                for st in state:
                    files = len(list(st["out"].glob("*.parquet"))) if st["out"] and st["out"].exists() else ""
                    writer.writerow([st["label"], time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(st["started"])),
                                     f"{st['last'] - st['started']:.0f}", f"{st['cpu']:.0f}",
                                     f"{st['peak']:.1f}", files, st["status"]])
            last_write = now
        if not alive or now >= until:
            return
        time.sleep(5)


def record(rows: list[dict], write: bool) -> None:
    """Append ``rows`` to the CSV and refresh the BENCHMARKS.md section (after every phase, so a
    long run that is stopped keeps what it measured)."""
    for r in rows:
        print(r, flush=True)
    if not write:
        return
    CSV.parent.mkdir(exist_ok=True)
    new = not CSV.exists()
    with CSV.open("a", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=FIELDS)
        if new:
            writer.writeheader()
        for r in rows:
            writer.writerow({**r, "wall_s": f"{r['wall_s']:.2f}",
                             "peak_rss_mib": f"{r['peak_rss_mib']:.1f}"})
    sys.path.insert(0, str(HERE))
    from _report import write_section

    write_section("Synthetic data out of core on Dask", report())


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[100_000_000])
    parser.add_argument("--chunk-rows", type=int, default=1_000_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--models", nargs="+", default=["copula", "tree"],
                        choices=["copula", "tree"])
    parser.add_argument("--dir", type=Path, default=Path("/work/tmp-synth"))
    parser.add_argument("--keep", action="store_true", help="keep the source table")
    parser.add_argument("--no-write", action="store_true", help="print only")
    parser.add_argument("--phases", nargs="+", default=["fit", "sample"],
                        choices=["fit", "sample"])
    parser.add_argument("--fit-rows", type=int, default=None,
                        help="rows of the source the model is fitted on (default: --rows); "
                             "sampling from a model fitted on fewer rows measures sampling alone")
    parser.add_argument("--reuse-source", action="store_true",
                        help="keep an existing source table of the right size")
    parser.add_argument("--watch", nargs="+", metavar="LABEL:PID:OUTDIR",
                        help="follow running phase processes (see watch()); run nothing else")
    parser.add_argument("--watch-until", default=None, help="stop watching at HH:MM UTC")
    parser.add_argument("--report-only", action="store_true",
                        help="rewrite the BENCHMARKS.md section from the CSV, run nothing")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.watch:
        until = float("inf")
        if args.watch_until:
            hh, mm = (int(v) for v in args.watch_until.split(":"))
            t = time.gmtime()
            until = time.mktime((t.tm_year, t.tm_mon, t.tm_mday, hh, mm, 0, 0, 0, 0)) - time.timezone
        watch(args.watch, until)
        return 0
    if args.report_only:
        record([], True)
        return 0
    if args.child:
        phase, *rest = args.child
        if phase == "generate":
            generate(int(rest[0]), int(rest[1]), Path(rest[2]))
        elif phase == "fit":
            fit_phase(rest[0], int(rest[1]), Path(rest[2]), Path(rest[3]), Path(rest[4]))
        else:
            sample_phase(rest[0], int(rest[1]), int(rest[2]), int(rest[3]), Path(rest[4]),
                         Path(rest[5]), Path(rest[6]))
        return 0

    stamp = time.strftime("%Y-%m-%d %H:%M", time.gmtime())
    write = not args.no_write
    args.dir.mkdir(parents=True, exist_ok=True)
    for rows in args.rows:
        fit_rows = args.fit_rows or rows
        source = args.dir / f"source-{fit_rows}"
        fresh = False
        if "fit" in args.phases:
            if not (args.reuse_source and len(list(source.glob("*.parquet")))
                    == -(-fit_rows // args.chunk_rows)):
                shutil.rmtree(source, ignore_errors=True)
                wall, samples = run_child(["generate", str(fit_rows), str(args.chunk_rows),
                                           str(source)])
                fresh = True
                record([dict(rows=fit_rows, model="-", phase="generate", wall_s=wall,
                             peak_rss_mib=peak(samples), chunk_rows=args.chunk_rows, workers=1,
                             files=len(list(source.glob("*.parquet"))), fitted_on="",
                             run_utc=stamp)], write)
        try:
            for name in args.models:
                model_file = args.dir / f"model-{name}-{fit_rows}.pkl"
                marks = args.dir / f"marks-{name}-{rows}.json"
                common = dict(model=name, chunk_rows=args.chunk_rows, workers=args.workers,
                              run_utc=stamp)
                if "fit" in args.phases:
                    wall, samples = run_child(["fit", name, str(args.workers), str(source),
                                               str(model_file), str(marks)])
                    m = json.loads(marks.read_text())
                    record([dict(common, rows=fit_rows, phase="fit", wall_s=m["end"] - m["start"],
                                 peak_rss_mib=peak(samples), files=m["files"], fitted_on="",
                                 )], write)
                if "sample" in args.phases:
                    out = args.dir / f"synthetic-{name}-{rows}"
                    wall, samples = run_child(["sample", name, str(rows), str(args.chunk_rows),
                                               str(args.workers), str(model_file), str(out),
                                               str(marks)])
                    m = json.loads(marks.read_text())
                    record([dict(common, rows=rows, phase="sample_to_parquet",
                                 wall_s=m["end"] - m["start"], peak_rss_mib=peak(samples),
                                 files=m["files"], fitted_on=fit_rows)], write)
                    shutil.rmtree(out, ignore_errors=True)
                marks.unlink(missing_ok=True)
        finally:
            if fresh and not args.keep:
                shutil.rmtree(source, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
