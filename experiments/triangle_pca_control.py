"""Is PCA really worse with the triangle release? A control with more trials (task TR, reading).

``results/triangle_side_by_side.md`` found DPPCA(noise="iid")'s captured-variance deficit worse
with the triangle in many cells, at the benchmark's 8 trials per cell (full draw and triangle draw
different streams, so the "paired" ratio is not paired in the noise). Here, on 5 of those cells,
100 seeds per variant:

- ``full``: the old full ``k × k`` draw (allocation ``"iid"``);
- ``triangle``: today's ``noise="iid"`` (``x_max``);
- ``control``: the triangle path with every ``x = 1/2`` — the SAME law as ``full``, drawn through
  the triangle's stream: any difference between ``control`` and ``full`` is sampling noise.

Reports the median and mean deficit of each and the two-sided Mann–Whitney p-value of triangle vs
full and control vs full. Writes ``results/triangle_pca_control.md``. Reading, not a gate.
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import numpy as np
from scipy.stats import mannwhitneyu

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import _utility_common as uc  # noqa: E402

from matrixdp.models import DPPCA, _moments, _triangle  # noqa: E402

CELLS = [("movement_aal", 0.5, 2), ("wdbc", 1.0, 2), ("wdbc", 1.0, 5), ("synthetic", 0.1, 2),
         ("adult", 1.0, 5)]
SEEDS = range(100)


@contextlib.contextmanager
def variant(name):
    plan, tri = _moments.plan_second_moment, _triangle.replace_one_triangle
    if name == "full":
        def patched(task, **kw):
            if kw.get("noise") == "iid" and kw.get("allocation") is None:
                kw = dict(kw, allocation="iid")
            return plan(task, **kw)
        _moments.plan_second_moment = patched
    elif name == "control":
        def half(lo, hi):
            b, x, f = tri(lo, hi)
            return b, np.where(f, x, 0.5), f
        _triangle.replace_one_triangle = half
    try:
        yield
    finally:
        _moments.plan_second_moment, _triangle.replace_one_triangle = plan, tri


def deficits(t, eps, k):
    C = np.cov(t.X.T, bias=True)
    top = np.sort(np.linalg.eigvalsh(C))[::-1][:k].sum()
    out = []
    for s in SEEDS:
        V = DPPCA(n_components=k, epsilon=eps, delta=uc.DELTA, bounds=(t.lo, t.hi), noise="iid",
                  random_state=s).fit(t.X).components_.T
        out.append((top - np.trace(V.T @ C @ V)) / top)
    return np.array(out)


def main():
    # the triangle is a research allocation (off by default): ``noise="iid"`` is the triangle
    # only with the switch on; the "full" variant forces the full draw back
    _moments.IID_TRIANGLE = True
    lines = ["# DPPCA(noise=\"iid\"): full draw vs triangle, with a same-law control (task TR)", "",
             "Script: `experiments/triangle_pca_control.py` (reading). 100 seeds per variant; "
             "captured-variance deficit (lower is better). `control` has the full draw's law "
             "through the triangle's stream.", "",
             "| table | ε | k | full median | triangle median | control median | full mean | "
             "triangle mean | control mean | p(triangle vs full) | p(control vs full) |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, eps, k in CELLS:
        t = uc.load_table(name)
        res = {}
        for v in ("full", "triangle", "control"):
            with variant(v):
                res[v] = deficits(t, eps, k)
        p_t = mannwhitneyu(res["triangle"], res["full"]).pvalue
        p_c = mannwhitneyu(res["control"], res["full"]).pvalue
        lines.append(f"| {name} | {eps:g} | {k} | " + " | ".join(
            f"{np.median(res[v]):.4g}" for v in ("full", "triangle", "control")) + " | " +
            " | ".join(f"{np.mean(res[v]):.4g}" for v in ("full", "triangle", "control")) +
            f" | {p_t:.3g} | {p_c:.3g} |")
        print(lines[-1], flush=True)
    (uc.REPO_ROOT / "results" / "triangle_pca_control.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
