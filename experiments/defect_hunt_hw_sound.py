"""Task HW: the checks behind "looked at and found sound" in ``results/defect_hunt_hw.md``.

Each check runs on this tree and prints one line (what it counted); nothing is tuned. Command (from
the repository root)::

    PYTHONPATH=src MATRIXDP_DATA=/path/to/datasets python experiments/defect_hunt_hw_sound.py

writes ``results/defect_hunt_hw_sound.md``.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import os
import re
import shutil
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "results" / "defect_hunt_hw_sound.md"


def covariance_feasibility():
    """DPCovariance outputs against the promised feasible set, over kinds/methods/relations."""
    from matrixdp import DPCovariance

    rng = np.random.default_rng(0)
    fits = bad = refused = 0
    boxes = {"plain": (np.array([-1.0, -1.0, -1.0, -1.0, -1.0]), np.array([3.0] * 5)),
             "degenerate": (np.array([-1.0, 2.0, 0.0]), np.array([3.0, 2.0, 1e-12]))}
    for (bname, (lo_all, hi_all)), d, n in itertools.product(boxes.items(), (1, 2, 3, 5),
                                                             (3, 200)):
        if d > lo_all.size:
            continue
        lo, hi = lo_all[:d], hi_all[:d]
        X = rng.uniform(lo, hi, (n, d))
        h = (hi - lo) / 2
        for kind, method, nb, eps in itertools.product(
                ("covariance", "correlation", "gram"), ("auto", "moments", "coinpress", "adaptive"),
                ("replace-one", "add-remove"), (0.01, 1.0, 1e4)):
            try:
                est = DPCovariance(epsilon=eps, delta=1e-6, bounds=(lo, hi), kind=kind,
                                   method=method, neighbouring=nb, random_state=1).fit(X)
            except Exception:  # noqa: BLE001 - refusals are counted (all name the argument)
                refused += 1
                continue
            fits += 1
            C = np.asarray(est.covariance_)
            scale = max(1.0, float(np.abs(C).max()))
            ok = np.all(np.isfinite(C)) and np.abs(C - C.T).max() <= 1e-12 * scale and \
                np.linalg.eigvalsh(C).min() >= -1e-9 * scale
            if kind == "covariance":
                hh = np.outer(h, h)
                ok = ok and np.all(np.diag(C) >= -1e-9) and \
                    np.all(np.abs(C) <= hh + 1e-8 * max(1.0, hh.max()))
            if kind == "correlation":
                ok = ok and np.abs(np.diag(C) - 1).max() <= 1e-9 and np.abs(C).max() <= 1 + 1e-9
            loc = est.location_
            if loc is not None:
                ok = ok and np.all(loc >= lo) and np.all(loc <= hi)
            bad += not ok
    return (f"DPCovariance: {fits} fits (kind x method x relation x eps 0.01/1/1e4 x d 1-5 x n 3/200,"
            f" plain and degenerate boxes), {bad} outside the promised set; {refused} "
            "combinations refused")


def pca_feasibility():
    from matrixdp import DPPCA

    X = np.random.default_rng(0).uniform(0, 1, (50, 4))
    fits = bad = 0
    for proj, method, seed in itertools.product(("unit-box", "original", "noise", "none"),
                                                ("moments", "coinpress", "adaptive"), range(10)):
        p = DPPCA(n_components=4, epsilon=0.1, bounds=(0, 1), projection=proj, method=method,
                  random_state=seed).fit(X)
        fits += 1
        ok = np.abs(p.components_ @ p.components_.T - np.eye(4)).max() < 1e-10 and \
            np.all(p.explained_variance_ >= 0)
        if proj != "none":
            r = p.explained_variance_ratio_
            ok = ok and np.all(r >= 0) and np.all(r <= 1 + 1e-12) and r.sum() <= 1 + 1e-12
        bad += not ok
    return f"DPPCA: {fits} fits (4 projections x 3 methods x 10 seeds, eps 0.1), {bad} violations"


def projection_idempotence():
    from matrixdp.feasible import nearest_correlation, project_feasible

    rng = np.random.default_rng(0)
    worst = 0.0
    for d, _ in itertools.product((1, 2, 5, 12), range(20)):
        lo = rng.uniform(-3, 0, d)
        hi = lo + rng.choice([0.5, 4.0], d)
        A = rng.normal(0, rng.choice([0.01, 1, 100]), (d, d))
        C = (A + A.T) / 2
        for units in ("original", "unit-box"):
            P1 = project_feasible(C, lo, hi, "covariance", units=units)
            P2 = project_feasible(P1, lo, hi, "covariance", units=units)
            worst = max(worst, float(np.abs(P1 - P2).max() / max(1.0, np.abs(P1).max())))
    A = rng.normal(0, 5, (4, 4))
    R = nearest_correlation((A + A.T) / 2)
    return (f"project_feasible covariance (160 matrices, d 1-12, 2 unit systems): idempotent to "
            f"{worst:.1e}; nearest_correlation: to {np.abs(nearest_correlation(R) - R).max():.1e}")


def scalar_intervals():
    from matrixdp import GaussianMechanism, LaplaceMechanism

    out = []
    for eps in (0.01, 1.0, 1e4, 1e6):
        for M, num in itertools.product((GaussianMechanism, LaplaceMechanism), ("float", "exact")):
            kw = dict(epsilon=eps, sensitivity=1.0, numerics=num)
            if M is GaussianMechanism:
                kw["delta"] = 1e-6
            v = np.full(20000, 0.3)
            lo, hi = M(**kw).release(v, rng=1).interval(0.95)
            out.append(float(np.mean((lo <= v) & (v <= hi))))
    return (f"Gaussian/Laplace x float/exact x eps 0.01/1/1e4/1e6, 20,000 entries each: "
            f"coverage {min(out):.4f}-{max(out):.4f}")


def covariance_query_bound():
    from matrixdp.queries import CovarianceQuery

    rng = np.random.default_rng(0)
    ratios = []
    for _ in range(8):
        d = int(rng.integers(1, 4))
        lo = rng.uniform(-2, 1, d)
        hi = lo + rng.uniform(0.1, 3, d)
        q = CovarianceQuery(bounds=(lo, hi), n_samples=1)
        P = np.array(list(itertools.product(*[np.linspace(a, b, 41 if d < 3 else 15)
                                              for a, b in zip(lo, hi)])))
        nn = (P * P).sum(1)
        best = 0.0
        for k in range(0, len(P), 500):
            dots = P[k:k + 500] @ P.T
            best = max(best, float((nn[k:k + 500, None] ** 2 + nn[None] ** 2 - 2 * dots ** 2).max()))
        ratios.append((q.sensitivity_l2 / np.sqrt(best), q.sensitivity_l2_exact))
    low = min(r for r, _ in ratios)
    high_exact = max([r for r, e in ratios if e] or [1.0])
    return (f"CovarianceQuery.sensitivity_l2 / grid supremum on 8 random boxes: min {low:.4f} "
            f"(never below 1 - grid error), max {max(r for r, _ in ratios):.3f}; where declared "
            f"exact: at most {high_exact:.4f}")


def box_l1_triangle():
    out = []
    for d in (2, 3, 4):
        P = np.array(list(itertools.product(np.linspace(-1, 1, 9), repeat=d)))
        iu = np.triu_indices(d)
        T = np.einsum("ni,nj->nij", P, P)[:, iu[0], iu[1]]
        best = 0.0
        for k in range(0, len(T), 2000):
            best = max(best, float(np.abs(T[k:k + 2000, None] - T[None]).sum(-1).max()))
        out.append(f"d={d}: {best:g} (formula d(d+1)/2 = {d * (d + 1) / 2:g}; "
                   f"norm=1 returns {d * (d + 1):g})")
    return "upper-triangle L1 change of x x^T over [-1, 1]^d (9-point grid): " + "; ".join(out)


def report_escaping():
    import pandas as pd

    from matrixdp.cli import main

    names = ["<script>alert(1)</script>", "b&\"x'"]
    with tempfile.TemporaryDirectory() as tmp:
        rng = np.random.default_rng(0)
        pd.DataFrame({names[0]: rng.uniform(0, 1, 50), names[1]: rng.uniform(-2, 2, 50)}).to_csv(
            Path(tmp) / "t.csv", index=False)
        scripts = raw = 0
        for q in ("mean", "covariance", "correlation", "pca"):
            argv = ["release", str(Path(tmp) / "t.csv"), "--query", q, "--epsilon", "1",
                    "--seed", "1", "--quiet", "--out", str(Path(tmp) / f"{q}.json"),
                    "--report", str(Path(tmp) / f"{q}.html"),
                    "--bounds", f"{names[0]}=0:1", "--bounds", f"{names[1]}=-2:2"]
            with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
                assert main(argv) == 0
            html = (Path(tmp) / f"{q}.html").read_text()
            scripts += len(re.findall(r"<script", html))
            raw += html.count(names[0]) + html.count(names[1])
    return (f"4 HTML reports with columns {names!r}: {scripts} <script> tags (the report's own "
            f"image counter, one per page), {raw} unescaped occurrences of the names")


def datasets_errors():
    from matrixdp.datasets import load_liver, load_wdbc

    home = os.environ.get("MATRIXDP_DATA")
    if not home:
        return "skipped (MATRIXDP_DATA unset)"
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "liver_disorders").mkdir()
        shutil.copy(Path(home) / "liver_disorders" / "bupa.data", Path(tmp) / "liver_disorders")
        with open(Path(tmp) / "liver_disorders" / "bupa.data", "ab") as fh:
            fh.write(b"1")
        for f in (load_liver, load_wdbc):
            try:
                f(data_home=tmp)
                out.append(f"{f.__name__}: loaded")
            except Exception as exc:  # noqa: BLE001
                msg = str(exc)
                out.append(f"{f.__name__}: {type(exc).__name__} "
                           f"({'SHA-256 mismatch' if 'SHA-256 mismatch' in msg else 'not found' if 'not found' in msg else msg[:40]})")
    return "corrupted liver file / missing wdbc file: " + "; ".join(out)


CHECKS = [covariance_feasibility, pca_feasibility, projection_idempotence, scalar_intervals,
          covariance_query_bound, box_l1_triangle, report_escaping, datasets_errors]


def main() -> int:
    warnings.simplefilter("ignore")
    lines = ["# Task HW: checks behind \"found sound\"", "",
             "Script: `experiments/defect_hunt_hw_sound.py` (this tree). One line per check; the "
             "defects and their reproductions are in `results/defect_hunt_hw.md` and "
             "`results/defect_hunt_hw_probes.md`.", "", "| check | result |", "|---|---|"]
    for check in CHECKS:
        result = check()
        print(f"{check.__name__}: {result}", flush=True)
        lines.append(f"| `{check.__name__}` | {result.replace('|', '/')} |")
    OUT.write_text("\n".join(lines) + "\n")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
