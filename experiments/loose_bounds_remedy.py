"""A loose public range and its remedy: DP bounds inside it (issue #24, the outside audit's finding).

The outside-style audit (``results/outside_audit.md``, ``docs/regression.md`` §8) found that with a
label range 100× wider than the labels (scenario ``loose_label``: 4 features in [-1, 1], labels in
[-1, 1] declared in [-100, 100]) ``DPLinearRegression()`` predicts up to 77× worse than the DP mean
of the target: its noise is scaled to the public range. The library already has the remedy a
curator can use when the range is only known loosely: ``bounds_y=DPBounds(domain=(lo, hi))`` (a DP
median and MAD inside the public domain, 10% of ε, ``docs/bounds.md``). This script measures it
side by side on the audit's scenarios (the same generator, ``outside_audit.make_scenario``): the
default with the declared range, the default with DP bounds for the target, and with DP bounds for
the target and the features; ``label_range="auto"`` (task RL, ``docs/regression.md`` §8b: the
label's DP range inside the declared range where the public rule says so, median ± 9 DP MADs,
the box kept where it is flat); the DP mean of the target and non-private OLS as references.
Every row gets the same (ε, δ = 1e-6), replace-one neighbours, the same public domains and splits
(70/30) and the same trial seeds. Nothing here changes a default.

Run::

    cd experiments && python loose_bounds_remedy.py          # ~2 min

Output: ``results/loose_bounds_remedy.{md,csv}``.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

import numpy as np
from matrixdp.models.experimental import RegressionOptions

sys.path.insert(0, str(Path(__file__).resolve().parent))

RESULTS = Path(__file__).resolve().parents[1] / "results"
STEM = "loose_bounds_remedy"
SCENARIOS = ("loose_label", "corner", "heavy_tail", "binary")
EPSILONS = (0.3, 1.0, 3.0, 10.0)
TRIALS = 20
DELTA = 1e-6
ROWS = ("default (declared ranges)", "DP bounds for y", "DP bounds for y and X",
        "label_range='auto'", "DP mean of y", "OLS (non-private)")


def _fit_predict(row, X, y, Xte, lo, hi, ylo, yhi, eps, seed):
    from sklearn.linear_model import LinearRegression

    from matrixdp.models import DPLinearRegression, DPMean
    from matrixdp.models.dp_bounds import DPBounds

    if row == "OLS (non-private)":
        return LinearRegression().fit(X, y).predict(Xte)
    if row == "DP mean of y":
        m = DPMean(epsilon=eps, delta=DELTA, bounds=(ylo, yhi), random_state=seed).fit(y[:, None])
        return np.full(len(Xte), float(np.ravel(m.mean_)[0]))
    if row == "label_range='auto'":
        return DPLinearRegression(epsilon=eps, delta=DELTA, bounds_X=(lo, hi), bounds_y=(ylo, yhi),
                                  experimental=RegressionOptions(label_range="auto"), random_state=seed).fit(X, y).predict(Xte)
    bx = (lo, hi) if row != "DP bounds for y and X" else DPBounds(domain=(lo, hi))
    by = (ylo, yhi) if row == "default (declared ranges)" else DPBounds(domain=(ylo, yhi))
    m = DPLinearRegression(epsilon=eps, delta=DELTA, bounds_X=bx, bounds_y=by,
                           random_state=seed).fit(X, y)
    return m.predict(Xte)


def run(args) -> list[dict]:
    import outside_audit as oa

    out = []
    for name in args.scenarios:
        X, y, lo, hi, ylo, yhi, _ = oa.make_scenario(name)
        order = np.random.default_rng(0).permutation(len(X))
        cut = int(0.7 * len(X))
        tr, te = order[:cut], order[cut:]
        for eps in args.epsilons:
            for row in ROWS:
                mse = []
                for seed in range(args.trials):
                    pred = np.clip(_fit_predict(row, X[tr], y[tr], X[te], lo, hi, ylo, yhi, eps,
                                                seed), ylo, yhi)  # post-processing, as the audit
                    mse.append(float(np.mean((pred - y[te]) ** 2)))
                out.append(dict(scenario=name, epsilon=eps, method=row, trials=args.trials,
                                median_mse=float(np.median(mse)),
                                q25=float(np.percentile(mse, 25)), q75=float(np.percentile(mse, 75)),
                                var_y_test=float(np.var(y[te]))))
            print(name, eps, "done", flush=True)
    return out


def render(rows) -> str:
    md = ["# A loose public range and its remedy: DP bounds inside it", "",
          "Produced by `experiments/loose_bounds_remedy.py` (command: `cd experiments && python "
          "loose_bounds_remedy.py`). The outside audit's scenarios (`outside_audit.make_scenario`; "
          "n = 2000, 70/30 split); δ = 1e-6, replace-one, the same public domains, splits and "
          "trial seeds for every row; predictions clipped to the declared label range (as the "
          "audit). `DP bounds for y`: `bounds_y=DPBounds(domain=declared range)` (10% of ε on a "
          "DP median and MAD of y inside it, `docs/bounds.md`); `... and X`: the same for every "
          "feature; `label_range='auto'`: §8b of `docs/regression.md`. Median test MSE over "
          "trials (interquartile range in the CSV); `/ default`: "
          "the row's median divided by the default's.", ""]
    scen = list(dict.fromkeys(r["scenario"] for r in rows))
    for name in scen:
        sub = [r for r in rows if r["scenario"] == name]
        eps = list(dict.fromkeys(r["epsilon"] for r in sub))
        md += [f"## {name}", "", "| method | " + " | ".join(f"ε = {e:g}" for e in eps) + " |",
               "|---|" + "---|" * len(eps)]
        for method in ROWS:
            cells = []
            for e in eps:
                r = next(x for x in sub if x["method"] == method and x["epsilon"] == e)
                base = next(x for x in sub if x["method"] == ROWS[0] and x["epsilon"] == e)
                ratio = r["median_mse"] / base["median_mse"]
                cells.append(f"{r['median_mse']:.4g}" + ("" if method == ROWS[0]
                                                         else f" ({ratio:.3g}×)"))
            md.append(f"| {method} | " + " | ".join(cells) + " |")
        md += ["", f"Variance of the test labels: {sub[0]['var_y_test']:.4g}.", ""]
    return "\n".join(md) + "\n"


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--trials", type=int, default=TRIALS)
    p.add_argument("--epsilons", type=float, nargs="+", default=list(EPSILONS))
    p.add_argument("--scenarios", nargs="+", default=list(SCENARIOS))
    args = p.parse_args(argv)
    rows = run(args)
    RESULTS.mkdir(exist_ok=True)
    with open(RESULTS / f"{STEM}.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    text = render(rows)
    (RESULTS / f"{STEM}.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
