"""Task CG, outside the gate's ε grid (decides nothing; measured after the dev gate's rule was
committed): ``correlation_rule="margin"`` against the default at ε = 10, 50 and 1000, where the moments release's noise is small and the whitened step's clipping bias
(``coinpress_beta=0.1``: a radius that does not grow with ε) may dominate. 20 paired trials per cell
(seeds ``SeedSequence(20261203)``), the benchmark's 7 tables and four MEASUREMENT tables.

    cd experiments && nice -n 10 env OMP_NUM_THREADS=1 PYTHONPATH=../src \\
        MATRIXDP_DATA=/work/shared/datasets python correlation_guard_high_eps.py

``results/correlation_guard_high_eps_bias0.md`` is this script's run of the FIRST version of the
candidate (no bias term, ``covariance.CORRELATION_BIAS`` = 0 at commit 36eac81, output renamed);
``results/correlation_guard_high_eps.md`` the run of the revised candidate (0.1).
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _paired_gate as pg  # noqa: E402
import _utility_common as uc  # noqa: E402
from correlation_guard_gate import fitter  # noqa: E402

OUT = uc.REPO_ROOT / "results" / "correlation_guard_high_eps.md"
EPS = (10.0, 50.0, 1000.0)
TRIALS = 20


def main() -> int:
    from _check_tables_heldout import heldout_table
    from utility_covariance import correlation

    seeds = [int(s) for s in np.random.SeedSequence(20261203).generate_state(TRIALS)]
    tabs = [uc.load_table(n) for n in uc.DATASETS] + [
        heldout_table(n) for n in ("401ksubs", "catholic", "charity", "crime1")]
    lines = ["# Task CG: `correlation_rule=\"margin\"` vs the default above the gate's ε grid", "",
             "Script: `experiments/correlation_guard_high_eps.py` (decides nothing; 20 paired "
             "trials per cell). Medians of the relative Frobenius error of the correlation.", "",
             "| table | ε | default | candidate | CoinPress | cand/def | HL ratio | paired "
             "verdict (>1.10×) | steps: default / candidate |", "|---|---|---|---|---|---|---|---|---|"]
    for t in tabs:
        R = correlation(np.cov(t.X.T, bias=True))
        rn = np.linalg.norm(R)
        for eps in EPS:
            err, steps = {}, {}
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for row in ("default", "candidate", "coinpress"):
                    f = fitter(row, t, eps)
                    ests = [f(s) for s in seeds]
                    err[row] = np.array([np.linalg.norm(e.covariance_ - R) / rn for e in ests])
                    steps[row] = sum(getattr(e, "adaptive_choice_", "") == "coinpress" for e in ests)
            v = pg.cell_verdict(np.maximum(err["candidate"], 1e-12), np.maximum(err["default"], 1e-12))
            md = {k: float(np.median(x)) for k, x in err.items()}
            lines.append(f"| {t.name} | {eps:g} | {md['default']:.3g} | {md['candidate']:.3g} | "
                         f"{md['coinpress']:.3g} | {v['ratio_of_medians']:.3f} | "
                         f"{v['pseudo_median_ratio']:.3f} | {pg.verdict_label(v)} | "
                         f"{steps['default']} / {steps['candidate']} |")
            print(lines[-1], flush=True)
    OUT.write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
