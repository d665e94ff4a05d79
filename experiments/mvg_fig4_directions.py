"""MVG paper, Figure 4: the effect of the noise directions on utility over ε (δ = 1/n).

The figure's image and numbers are not available; the spec (mvg.md §9) fixes the design:
ε ∈ {0.25, 0.5, 1, 2, 4}, and per panel the sets of "important" directions that get the
binary allocation's τ% of the precision budget:

* Exp. I (RMSE): (a) {ALT, Y}, (b) {ALT}, (c) {Y}, (d) {ALT, AST, Y};
* Exp. II (Δρ, the paper uses Theorem 2): (a) {ANC0, ANC3}, (b) {ANC0}, (c) {ANC3},
  (d) {ANC1, ANC2} (the "wrong prior");
* Exp. III (RSS): (a) {FHR, ASV, ALV}, (d) the other 18 features, (c) i.i.d. (no prior).

Each curve is run with the paper's calibration (Theorem 2) and with the exact calibration,
at a fixed τ (default 85; the paper's value is not stated). Every panel has an i.i.d. curve
(no prior) at the same query, hence the same sensitivity, as its directional curves; Exp. II
uses the tight s₂ = √2·R²/n for every curve. Exp. II uses the consistent
range c = 1 (at the paper's c = 100 every method is at random-guess level). Output:
``results/mvg_fig4_directions.{md,csv,png}``.
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as common  # noqa: E402
import _metrics as metrics  # noqa: E402
import _mvg_rows as mvg_rows  # noqa: E402
import mvg_exp1_liver as exp1  # noqa: E402
import mvg_exp2_movement as exp2  # noqa: E402
import mvg_exp3_ctg as exp3  # noqa: E402

NAME = "mvg_fig4_directions"
TITLE = "MVG Figure 4 — effect of the noise directions over ε"
EPSILONS = (0.25, 0.5, 1.0, 2.0, 4.0)
CALIBRATIONS = ("theorem2", "exact")


def _mechanism(shape, epsilon, delta, query, calibration, mode, important, dim, tau, gamma=None):
    from matrixdp import MVGMechanism
    from matrixdp.calibration.allocation import binary_allocation

    if important is None:  # "no prior": i.i.d.
        return MVGMechanism(shape=shape, epsilon=epsilon, delta=delta, sensitivity=query,
                            calibration=calibration, mode="iid", gamma=gamma)
    theta = binary_allocation(important, tau, dim)
    return MVGMechanism(shape=shape, epsilon=epsilon, delta=delta, sensitivity=query,
                        calibration=calibration, mode=mode, precision=theta, gamma=gamma)


def panels(args) -> list[dict]:
    """Build the three panels: data, query, direction sets and the score of a release."""
    from matrixdp.queries import CovarianceQuery, IdentityQuery

    c1 = exp1.prepare(args.data_home)
    q1 = IdentityQuery(bounds=(-1.0, 1.0), n_features=6, n_samples=c1["n"])
    c2 = exp2.prepare(args.data_home, bound=1.0)
    v2 = 0.5 * (c2["cov"] + c2["cov"].T)
    q2 = CovarianceQuery(radius=c2["row_bound"], n_samples=c2["n"], n_features=4)  # tight √2R²/n
    c3 = exp3.prepare(args.data_home)
    mean3 = -c3["x"].min(axis=0)
    q3 = IdentityQuery(bounds=(-mean3, 1.0 - mean3), n_features=21, n_samples=c3["n"])
    imp3 = [c3["feature_names"].index(f) for f in ("LB", "ASTV", "ALTV")]
    rest3 = [i for i in range(21) if i not in imp3]

    def score3(noisy):
        est = noisy.T @ noisy / c3["n"]
        return metrics.residual_sum_of_squares(metrics.sorted_eigenvectors(est), c3["cov"])

    return [
        {"panel": "Exp. I (RMSE)", "value": c1["train"], "delta": c1["delta"], "query": q1,
         "mode": "unimodal", "dim": 6, "gamma": None,
         "sets": {"(a) {ALT, Y}": [2, 5], "(b) {ALT}": [2], "(c) {Y}": [5], "(d) {ALT, AST, Y}": [2, 3, 5],
                  "i.i.d. (no prior)": None},
         "score": lambda noisy: exp1.krr_rmse(c1, noisy)},
        {"panel": "Exp. II (Δρ, c = 1)", "value": v2, "delta": c2["delta"], "query": q2,
         "mode": "equimodal", "dim": 4, "gamma": None,
         "sets": {"(a) {ANC0, ANC3}": [0, 3], "(b) {ANC0}": [0], "(c) {ANC3}": [3], "(d) {ANC1, ANC2}": [1, 2],
                  "i.i.d. (no prior)": None},
         "score": lambda noisy: metrics.captured_variance_error(mvg_rows._first_pc_of_release(noisy), c2["cov"])},
        {"panel": "Exp. III (RSS)", "value": c3["x"], "delta": c3["delta"], "query": q3,
         "mode": "unimodal", "dim": 21, "gamma": float(np.sqrt(21 * c3["n"])),
         "sets": {"(a) {FHR, ASV, ALV}": imp3, "(d) the other 18": rest3, "(c) i.i.d. (no prior)": None},
         "score": score3},
    ]


def run(args) -> list[dict]:
    records = []
    for panel in panels(args):
        for calibration in CALIBRATIONS:
            for label, important in panel["sets"].items():
                for eps in EPSILONS:
                    mech = _mechanism(panel["value"].shape, eps, panel["delta"], panel["query"],
                                      calibration, panel["mode"], important, panel["dim"], args.tau,
                                      gamma=panel["gamma"] if calibration != "exact" else None)
                    stats = common.run_trials(
                        lambda rng, mech=mech, panel=panel: panel["score"](
                            mech.release(panel["value"], rng=rng).value),
                        args.trials, args.seed, f"{panel['panel']} {calibration} {label} ε={eps}",
                        not args.no_progress)
                    records.append({"panel": panel["panel"], "calibration": calibration,
                                    "directions": label, "epsilon": eps, "delta": panel["delta"],
                                    "mean": stats.mean, "ci95": stats.ci95, "trials": stats.trials,
                                    "noise_std": mvg_rows.noise_std(mech)})
    return records


def write(records: list[dict], out: Path, tau: float) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    with open(out / f"{NAME}.csv", "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(records[0]))
        writer.writeheader()
        writer.writerows(records)
    lines = [f"# {TITLE}", "",
             f"Binary allocation with τ = {tau:g}; δ = 1/n; mean ± 95% CI over "
             f"{records[0]['trials']} trials. Figure 4 has no published numbers, so there is no "
             "paper column: compare the orderings (the paper: (a) best everywhere; (d) worst in "
             "Exp. II).", ""]
    for panel in dict.fromkeys(r["panel"] for r in records):
        for calibration in CALIBRATIONS:
            rows = [r for r in records if r["panel"] == panel and r["calibration"] == calibration]
            lines += [f"## {panel} — {calibration}", "",
                      "| directions | " + " | ".join(f"ε = {e:g}" for e in EPSILONS) + " |",
                      "|---|" + "---|" * len(EPSILONS)]
            for label in dict.fromkeys(r["directions"] for r in rows):
                cells = []
                for eps in EPSILONS:
                    r = next(x for x in rows if x["directions"] == label and x["epsilon"] == eps)
                    ci = r["ci95"] if r["ci95"] > 1e-12 * abs(r["mean"]) else 0.0  # fp noise
                    cells.append(f"{r['mean']:.4g} ± {ci:.2g}")
                lines.append(f"| {label} | " + " | ".join(cells) + " |")
            lines.append("")
    png = _plot(records, out)
    if png is not None:
        lines.append(f"Plot: `{png.name}`.")
    else:
        lines.append("Plot not drawn: matplotlib is not installed (`pip install matrixdp[plot]`).")
    path = out / f"{NAME}.md"
    path.write_text("\n".join(lines) + "\n")
    return path


def _plot(records: list[dict], out: Path) -> Path | None:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    panel_names = list(dict.fromkeys(r["panel"] for r in records))
    fig, axes = plt.subplots(len(CALIBRATIONS), len(panel_names), figsize=(15, 8), squeeze=False)
    for col, panel in enumerate(panel_names):
        for row, calibration in enumerate(CALIBRATIONS):
            ax = axes[row][col]
            rows = [r for r in records if r["panel"] == panel and r["calibration"] == calibration]
            for label in dict.fromkeys(r["directions"] for r in rows):
                pts = [r for r in rows if r["directions"] == label]
                ax.errorbar([p["epsilon"] for p in pts], [p["mean"] for p in pts],
                            yerr=[p["ci95"] for p in pts], marker="o", capsize=3, label=label)
            ax.set_xscale("log", base=2)
            means = [r["mean"] for r in rows]
            if min(means) > 0 and max(means) / min(means) > 100:
                ax.set_yscale("log")
            ax.set_title(f"{panel} — {calibration}")
            ax.set_xlabel("ε")
            ax.legend(fontsize=7)
    fig.tight_layout()
    path = out / f"{NAME}.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main(argv=None) -> int:
    def extra(parser):
        parser.add_argument("--tau", type=float, default=85.0, help="binary allocation τ (default 85)")

    args = common.parse_args(TITLE, argv, extra=extra)
    if not mvg_rows.mvg_available():
        print("matrixdp.MVGMechanism is not in this checkout: Figure 4 cannot be produced yet")
        return 1
    print(f"wrote {write(run(args), Path(args.out), args.tau)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
