"""The benchmark's ``noise="iid"`` rows, full symmetrised draw vs weighted triangle, same code and seeds.

Task TR. The rows ``matrixdp (iid)`` and ``iid, unit box`` of ``utility_covariance``,
``utility_pca`` and ``utility_regression`` rerun with the triangle release (the research switch
``matrixdp.models._moments.IID_TRIANGLE`` on; per-trial values in
``results/_triangle_rows/<script>/utility_<script>.csv``: task TR ran them with ``--keep-rows-from``
while ``noise="iid"`` was the triangle on its branch; the lead kept ``noise="iid"`` the full draw
and moved them there). The benchmark's own rows in ``results/utility_*.csv`` came from older
library versions, so they do not isolate the change. This script reruns the same two methods with
the SAME scripts, arguments and seeds on the current code with ``noise="iid"`` the full draw
(allocation ``"iid"``: a ``k × k`` Gaussian at the Frobenius sensitivity, symmetrised), and pairs
each trial with the triangle's value.

Per cell: median of the full draw, median of the triangle, their ratio, and the paired per-trial
median of log-ratios (as a ratio). Reading, not a gate (``noise="iid"`` is an option).

Writes ``results/triangle_side_by_side.{md,csv}``; the full-draw runs' own CSVs go to
``results/_triangle_full_draw/``, the triangle runs' to ``results/_triangle_rows/`` (each run is
skipped when its ``done`` file exists: a killed run resumes per script with ``--only``; delete a
``done`` file to rerun it). Command (from the repository root)::

    PYTHONPATH=src python experiments/triangle_side_by_side.py
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import importlib
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import _utility_common as uc  # noqa: E402

from matrixdp.models import _moments  # noqa: E402

OUT = uc.REPO_ROOT / "results"
FULL_DIR = OUT / "_triangle_full_draw"
TRIANGLE_DIR = OUT / "_triangle_rows"
METHODS = ["matrixdp (iid)", "iid, unit box"]
SCRIPTS = {"covariance": 15, "pca": 8, "regression": 20}  # the committed runs' trial counts


@contextlib.contextmanager
def full_draw():
    """``noise="iid"`` planned as the old full draw (allocation ``"iid"``)."""
    orig = _moments.plan_second_moment

    def patched(task, **kw):
        if kw.get("noise") == "iid" and kw.get("allocation") is None:
            kw = dict(kw, allocation="iid")
        return orig(task, **kw)

    _moments.plan_second_moment = patched
    try:
        yield
    finally:
        _moments.plan_second_moment = orig


@contextlib.contextmanager
def triangle():
    """``noise="iid"`` planned as the weighted-triangle release (``IID_TRIANGLE`` on)."""
    orig = _moments.IID_TRIANGLE
    _moments.IID_TRIANGLE = True
    try:
        yield
    finally:
        _moments.IID_TRIANGLE = orig


def run_full(name: str, trials: int, *, base=FULL_DIR, draw=full_draw) -> Path:
    mod = importlib.import_module(f"utility_{name}")
    out = base / name
    path = out / f"utility_{name}.csv"
    if path.exists() and (out / "done").exists():
        return path
    argv = ["--trials", str(trials), "--methods", *METHODS, "--out", str(out), "--no-plot"]
    methods = uc.METHODS if name != "regression" else None
    args = uc.parse_args(name, argv, methods=methods, extra=uc.keep_rows_flag)
    with draw():
        res = mod.run(args)
    uc.write_rows(path, res[0])
    (out / "done").write_text("ok\n")
    return path


def read(path):
    with open(path) as fh:
        return list(csv.DictReader(fh))


def key(r):
    return (r["dataset"], r["task"], r["metric"], r["epsilon"], r["method"])


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--only", nargs="+", default=list(SCRIPTS), choices=list(SCRIPTS))
    args = p.parse_args(argv)
    rows = []
    for name in args.only:
        full = {key(r): r for r in read(run_full(name, SCRIPTS[name])) if r["method"] in METHODS}
        tri = {key(r): r for r in read(run_full(name, SCRIPTS[name], base=TRIANGLE_DIR,
                                                 draw=triangle)) if r["method"] in METHODS}
        for k, f in full.items():
            t = tri.get(k)
            if t is None or not f.get("values") or not t.get("values"):
                continue
            a = np.array([float(v) for v in t["values"].split()])
            b = np.array([float(v) for v in f["values"].split()])
            if a.size != b.size:
                continue
            with np.errstate(divide="ignore", invalid="ignore"):
                lr = np.log(np.abs(a) / np.abs(b))
            lr = lr[np.isfinite(lr)]
            rows.append(dict(script=name, dataset=k[0], task=k[1], metric=k[2], epsilon=k[3],
                             method=k[4], trials=a.size, median_full=float(np.median(b)),
                             median_triangle=float(np.median(a)),
                             ratio=float(np.median(a) / np.median(b)) if np.median(b) else np.nan,
                             paired_ratio=float(np.exp(np.median(lr))) if lr.size else np.nan))
        print(name, "done", flush=True)
    uc.write_rows(OUT / "triangle_side_by_side.csv", rows)
    lines = ["# noise=\"iid\" rows: full draw vs weighted triangle, same code and seeds (task TR)", "",
             "Script: `experiments/triangle_side_by_side.py`; the triangle's per-trial values are "
             "the rows of `results/_triangle_rows/*/utility_*.csv` (`IID_TRIANGLE` on), the full draw's "
             "are rerun here with the same scripts, arguments and seeds "
             "(`results/_triangle_full_draw/`). Ratio = triangle / full draw (lower is better: errors, RMSE, "
             "PCA's captured-variance deficit; the R² rows are listed in the table only).", ""]
    for name in args.only:
        sub = [r for r in rows if r["script"] == name]
        for metric in dict.fromkeys(r["metric"] for r in sub if "R²" not in r["metric"]):
            for method in METHODS:
                rs = [r for r in sub if r["metric"] == metric and r["method"] == method]
                if not rs:
                    continue
                rat = np.array([r["ratio"] for r in rs], dtype=float)
                lines.append(f"- {name}, {metric}, `{method}`: {len(rs)} cells, ratio of medians "
                             f"median {np.nanmedian(rat):.3f} (min {np.nanmin(rat):.3f}, max "
                             f"{np.nanmax(rat):.3f}); below 1 in {int(np.sum(rat < 1))}, above "
                             f"1.10 in {int(np.sum(rat > 1.10))}, below 0.91 in "
                             f"{int(np.sum(rat < 0.91))}.")
    lines += ["", "| script | table | task | metric | ε | method | full draw | triangle | ratio | "
              "paired ratio |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['script']} | {r['dataset']} | {r['task']} | {r['metric']} | "
                     f"{r['epsilon']} | {r['method']} | {r['median_full']:.4g} | "
                     f"{r['median_triangle']:.4g} | {r['ratio']:.3f} | {r['paired_ratio']:.3f} |")
    (OUT / "triangle_side_by_side.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines[:12]))


if __name__ == "__main__":
    main()
