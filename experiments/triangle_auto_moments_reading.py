"""Reading (not a gate): the triangle in ``noise="auto"`` on the plain moments release (task TG).

The dev gate (``triangle_auto_gate.py``) compares the estimators as a user gets them, whose
default for covariance and PCA is the ADAPTIVE release: a first moments look, then decisions
(CoinPress or moments, the whitened step, the refinement) read from that look and its public
entry variances, tuned with the full draws. This reading separates the release from those
decisions: ``DPCovariance(method="moments")`` and ``DPPCA(n_components=k, method="moments")``
(``noise="auto"``: one moments release and its fixed post-processing) with
``_moments.AUTO_TRIANGLES`` off (main) and on (task TG's dominance rule), the same 20 seeds
(``SeedSequence(20261130)``) as the gate, on four benchmark tables at ε = 0.5, 2, 5. Per cell the
ratio of medians (on / off) and the paired verdict of ``_paired_gate`` (reported, not a rule).

Writes ``results/triangle_auto_moments_reading.{md,csv}``. Command::

    PYTHONPATH=src nice -n 10 python experiments/triangle_auto_moments_reading.py
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _utility_common as uc  # noqa: E402
import _paired_gate as pg  # noqa: E402
from triangle_auto_gate import SEED, switch  # noqa: E402

from matrixdp.models import DPCovariance, DPPCA  # noqa: E402

OUT = uc.REPO_ROOT / "results"
TABLES = ("adult", "wdbc", "lending_club", "ctg")
EPSILONS = (0.5, 2.0, 5.0)
TRIALS = 20


def main():
    seeds = [int(s) for s in np.random.SeedSequence(SEED).generate_state(TRIALS)]
    rows = []
    for name in TABLES:
        t = uc.load_table(name)
        C = np.cov(t.X.T, bias=True)
        cn = np.linalg.norm(C)
        ev = np.sort(np.linalg.eigvalsh(C))[::-1]
        for eps in EPSILONS:
            for fam in ("covariance", "pca k=2", "pca k=5"):
                vals = {False: [], True: []}
                for s in seeds:
                    for on in (False, True):
                        with switch(on), warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            if fam == "covariance":
                                est = DPCovariance(epsilon=eps, delta=uc.DELTA, bounds=(t.lo, t.hi),
                                                   method="moments", random_state=s).fit(t.X)
                                v = float(np.linalg.norm(est.covariance_ - C) / cn)
                            else:
                                k = int(fam[-1])
                                est = DPPCA(n_components=k, epsilon=eps, delta=uc.DELTA,
                                            bounds=(t.lo, t.hi), method="moments",
                                            random_state=s).fit(t.X)
                                q, _ = np.linalg.qr(np.asarray(est.components_, float).T)
                                v = 1.0 - float(np.trace(q.T @ C @ q)) / float(ev[:k].sum())
                        vals[on].append(max(v, 1e-300))
                a, b = np.array(vals[False]), np.array(vals[True])
                verdict = pg.cell_verdict(b, a)
                rows.append(dict(table=name, epsilon=eps, family=fam, trials=TRIALS,
                                 median_off=float(np.median(a)), median_on=float(np.median(b)),
                                 ratio=verdict["ratio_of_medians"],
                                 pseudo=verdict["pseudo_median_ratio"], upper=verdict["upper"],
                                 p=verdict["p"], verdict=pg.verdict_label(verdict),
                                 allocation_on=str(getattr(est, "allocation_", ""))))
                print(rows[-1], flush=True)
    uc.write_rows(OUT / "triangle_auto_moments_reading.csv", rows)
    lines = ["# The triangle in `noise=\"auto\"` on the plain moments release (task TG, reading)", "",
             "Script: `experiments/triangle_auto_moments_reading.py` (its docstring says what and why). "
             f"`method=\"moments\"`, {TRIALS} shared seeds per cell; ratio = switch on / off (lower "
             "is better); verdict = `_paired_gate.cell_verdict` (reported, not a rule).", ""]
    for fam in ("covariance", "pca k=2", "pca k=5"):
        rat = np.array([r["ratio"] for r in rows if r["family"] == fam])
        lines.append(f"- {fam}: {rat.size} cells, ratio of medians median {np.median(rat):.3f} "
                     f"(min {rat.min():.3f}, max {rat.max():.3f}); fail "
                     f"{sum(r['verdict'] == 'FAIL' for r in rows if r['family'] == fam)}.")
    lines += ["", "| table | ε | family | allocation (on) | median off | median on | ratio | "
              "pseudo-median ratio | upper | p | verdict |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['table']} | {r['epsilon']:g} | {r['family']} | {r['allocation_on']} | "
                     f"{r['median_off']:.4g} | {r['median_on']:.4g} | {r['ratio']:.3f} | "
                     f"{r['pseudo']:.3f} | {r['upper']:.3f} | {r['p']:.2g} | {r['verdict']} |")
    (OUT / "triangle_auto_moments_reading.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
