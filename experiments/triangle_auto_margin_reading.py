"""Reading (post hoc, not a gate): is the CoinPress whitening margin what broke the triangle? (task TG)

The dev gate (``results/triangle_auto_gate.md``) failed 25 cells, most of them PCA cells of the
ADAPTIVE release, some where both rows took the CoinPress branch (crime1 k = 2 ε = 5: 20 of 20
trials, 10x worse). The whitening margin ``Q`` of the CoinPress step
(``coinpress.first_noise_scale``) is read from the DIAGONAL of the first look's entry variances,
``√V_ii``: right for the full draws (``V_ij = v_i v_j / 2``), but a triangle release has a diagonal
10-50x quieter than its off-diagonal product form, so ``Q`` understates the noise of the released
covariance and the whitened box is too tight. (Task TR found the same misreading in the regression
solvers and fixed it with ``_moments.noise_scale``.)

Rows, the same 20 seeds as the gate (``SeedSequence(20261130)``), on every FAILED cell of the gate
(read from ``results/triangle_auto_gate.csv``): ``default`` (main), ``candidate`` (the gate's
candidate), ``candidate + margin`` (the candidate with ``first_noise_scale`` reading the product
form ``_moments.noise_scale(V)`` instead of ``√V_ii``; bit-identical for the full draws). Reported:
ratio of medians to the default and the paired verdict (``_paired_gate``; a reading, no rule: the
cells were chosen because they failed, so a pass here is not evidence for a default).

Writes ``results/triangle_auto_margin_reading.{md,csv}``. Command::

    PYTHONPATH=src nice -n 10 python experiments/triangle_auto_margin_reading.py
"""

from __future__ import annotations

import contextlib
import csv
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _utility_common as uc  # noqa: E402
import _paired_gate as pg  # noqa: E402
import triangle_auto_gate as gate  # noqa: E402

from matrixdp.models import _moments, coinpress  # noqa: E402
from matrixdp.models.adaptive import release as adaptive_release  # noqa: E402

OUT = uc.REPO_ROOT / "results"
ROWS = ("default", "candidate", "candidate + margin")


@contextlib.contextmanager
def product_form_margin():
    orig = coinpress.first_noise_scale

    def patched(entry_variance, m, t, *, mean_noise=True):
        V = np.asarray(entry_variance, dtype=np.float64)
        s = _moments.noise_scale(V)
        W = V.copy()
        np.fill_diagonal(W, s * s)  # the product form's diagonal (√V_ii for the full draws)
        return orig(W, m, t, mean_noise=mean_noise)

    coinpress.first_noise_scale = patched
    adaptive_release.first_noise_scale = patched
    try:
        yield
    finally:
        coinpress.first_noise_scale = orig
        adaptive_release.first_noise_scale = orig


def main():
    with (OUT / "triangle_auto_gate.csv").open() as fh:
        failed = [r for r in csv.DictReader(fh) if r["verdict"] == "FAIL"]
    seeds = [int(s) for s in np.random.SeedSequence(gate.SEED).generate_state(gate.TRIALS)]
    out = []
    for r in failed:
        fam = "pca" if r["family"].startswith("pca") else r["family"]
        k = int(r["family"][-1]) if fam == "pca" else 0
        eps = float(r["epsilon"])
        t = gate.load(r["group"], r["table"])
        f = gate.scorer(fam, t, eps, k)
        vals = {row: [] for row in ROWS}
        for s in seeds:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                vals["default"].append(f(s, False)[0])
                vals["candidate"].append(f(s, True)[0])
                with product_form_margin():
                    vals["candidate + margin"].append(f(s, True)[0])
        a = np.maximum(np.array(vals["default"]), 1e-300)
        row = dict(family=r["family"], group=r["group"], table=r["table"], epsilon=eps,
                   median_default=float(np.median(a)))
        for name in ROWS[1:]:
            v = pg.cell_verdict(np.maximum(np.array(vals[name]), 1e-300), a)
            row[f"ratio {name}"] = v["ratio_of_medians"]
            row[f"verdict {name}"] = pg.verdict_label(v)
        out.append(row)
        print(row, flush=True)
    uc.write_rows(OUT / "triangle_auto_margin_reading.csv", out)
    rc = np.array([r["ratio candidate"] for r in out])
    rm = np.array([r["ratio candidate + margin"] for r in out])
    lines = ["# Post hoc: the CoinPress whitening margin and the triangle's failed cells (task TG)", "",
             "Script: `experiments/triangle_auto_margin_reading.py` (its docstring says why). "
             f"The {len(out)} cells that FAILED `results/triangle_auto_gate.md`, {gate.TRIALS} shared "
             "seeds; ratio = row / default (ratio of medians); verdict = `_paired_gate.cell_verdict` "
             "against the default. A reading on cells chosen because they failed: not evidence for "
             "a default.", "",
             f"- candidate (the gate's): ratio median {np.median(rc):.3f} (max {rc.max():.3f}); "
             f"FAIL in {sum(r['verdict candidate'] == 'FAIL' for r in out)} of {len(out)}.",
             f"- candidate + product-form margin: ratio median {np.median(rm):.3f} (max "
             f"{rm.max():.3f}); FAIL in {sum(r['verdict candidate + margin'] == 'FAIL' for r in out)} "
             f"of {len(out)}.", "",
             "| family | group | table | ε | median default | candidate | verdict | + margin | verdict |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in out:
        lines.append(f"| {r['family']} | {r['group']} | {r['table']} | {r['epsilon']:g} | "
                     f"{r['median_default']:.4g} | {r['ratio candidate']:.3f} | "
                     f"{r['verdict candidate']} | {r['ratio candidate + margin']:.3f} | "
                     f"{r['verdict candidate + margin']} |")
    (OUT / "triangle_auto_margin_reading.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
