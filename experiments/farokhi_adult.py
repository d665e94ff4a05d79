"""Farokhi §3.2.2, Fig. 6: Adult — SVM on the released data (optimal Gaussian vs Laplace).

Each SVM fit is on all 48,842 rows. The exact working-set solver, warm-started from the previous
draw, takes ~0.05-0.25 s a fit (the full Clarabel QP 6-18 s; benchmarks/bench_svm_fit.py), so the
paper's --trials 100 over the default 7 lambdas (1,400 fits) runs in minutes on one core.
Writes results/farokhi_adult.{md,csv,png}; the table records the sweep's wall time.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _farokhi_common import (  # noqa: E402
    OBSERVED_NOTE,
    append_markdown,
    load_adult_xy,
    parse_args,
    plot_sweep,
    svm_sweep,
    write_table,
)

from matrixdp.models.svm import correlated_privacy_level, correlated_svm_noise, fit_svm  # noqa: E402


def main(argv=None) -> int:
    def extra(parser):
        parser.add_argument("--max-rows", type=int, default=None,
                            help="use only the first N rows (smoke tests)")
        parser.add_argument("--no-correlated", action="store_true")
        parser.add_argument("--solver", choices=("auto", "working-set", "clarabel"),
                            default="auto", help="fit_svm's solver (default auto = working-set)")

    args = parse_args(__doc__.splitlines()[0], default_trials=3,
                      lams=np.logspace(-8, 4, 7), extra=extra, argv=argv)
    X, y = load_adult_xy()
    if args.max_rows:
        X, y = X[:args.max_rows], y[:args.max_rows]
    fit = fit_svm(X, y, solver=args.solver)
    base = fit.accuracy(X, y)
    observed_widths = X.max(axis=0) - X.min(axis=0)  # data-derived: illustration only, NOT DP
    start = time.perf_counter()
    rows = svm_sweep(X, y, args.lams, args.trials, args.seed, progress=not args.quiet,
                     observed_widths=observed_widths, solver=args.solver)
    minutes = (time.perf_counter() - start) / 60.0
    n_fits = 2 * len(args.lams) * args.trials
    md = write_table(args.out, "farokhi_adult", rows, title="Farokhi Adult (Fig. 6)", notes=[
        f"{X.shape[0]} rows (adult.data + adult.test), 14 raw columns with integer-encoded "
        "categoricals ('?' kept as its own category), y=+1 for >50K; rho=1e-2, theta=1, Pi=I; "
        f"{args.trials} noise draws per lambda (the paper: 100)",
        f"sweep: {n_fits} exact SVM fits (solver {fit.solver}, warm-started from the previous "
        f"draw) in {minutes:.1f} min wall time ({60 * minutes / n_fits:.2f} s a fit), one "
        f"process, OPENBLAS_NUM_THREADS="
        f"{os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}",
        "acc_* = success rate on the ORIGINAL data of the SVM trained on noisy data (mean, sd)",
        "the paper gives Fig. 6 as a plot only (no numbers): it reports that the Gaussian curve "
        "approaches the baseline as lambda grows and stays above the Laplace curve",
        OBSERVED_NOTE,
        "with raw features and Pi=I the same noise barely moves the large-scale columns (fnlwgt "
        "~1e5, capital-gain up to 99,999) and swamps the small integer codes, so the noisy "
        "classifiers plateau near 0.799 for lambda <= 1",
    ])
    lines = ["## Baseline and correlated noise", "", "| quantity | ours |", "|---|---|",
             f"| baseline training accuracy | {base:.4f} (solver status {fit.status}) |",
             f"| Gaussian >= Laplace (means) | {sum(r['acc_gaussian'] >= r['acc_laplace'] for r in rows)}"
             f"/{len(rows)} lambdas |"]
    # the gap against the standard error of the difference of the two means (trials draws each)
    higher = {"Gaussian": [], "Laplace": []}
    for r in rows:
        gap = r["acc_gaussian"] - r["acc_laplace"]
        se = np.sqrt((r["acc_gaussian_sd"] ** 2 + r["acc_laplace_sd"] ** 2) / args.trials)
        if abs(gap) > 2 * se and gap != 0:
            higher["Gaussian" if gap > 0 else "Laplace"].append(f"{r['lam']:g}")
    for name, lams in higher.items():
        lines.append(f"| {name} above the other by > 2 standard errors of the difference | "
                     f"{len(lams)}/{len(rows)} lambdas ({', '.join(lams) or 'none'}) |")
    if not args.no_correlated:
        refit = fit_svm(X + correlated_svm_noise(fit, 100.0, rng=args.seed), y,
                        solver=args.solver, warm_start=fit)
        lines += [f"| correlated noise: min_i m Tr(P_ii) | {correlated_privacy_level(fit, 1.0):.3f} m |",
                  f"| accuracy after correlated noise (m=100, 1 draw) | {refit.accuracy(X, y):.4f} |",
                  f"| max abs change of alpha (relative) | "
                  f"{np.abs(refit.alpha - fit.alpha).max() / np.abs(fit.alpha).max():.1e} |"]
    lines += ["", "The correlated noise carries NO differential-privacy guarantee."]
    append_markdown(md, "\n".join(lines))
    if not args.no_plot:
        plot_sweep(args.out, "farokhi_adult", rows, metric="acc", baseline=base,
                   ylabel="success rate on original data", title="Adult (Fig. 6)")
    print(f"wrote {md}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
