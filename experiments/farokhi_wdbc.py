"""Farokhi §3.2.1, Fig. 5: Wisconsin Breast Cancer (Diagnostic) — SVM on the released data.

Reproduces the baseline accuracy 0.9613 and the correlated-noise privacy level 28.413·m, and sweeps
λ for the optimal Gaussian noise versus the Fisher-matched Laplace baseline.
Writes results/farokhi_wdbc.{md,csv,png}. Run: python experiments/farokhi_wdbc.py --trials 100
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _farokhi_common import (  # noqa: E402
    OBSERVED_NOTE,
    append_markdown,
    load_wdbc_xy,
    parse_args,
    plot_sweep,
    svm_sweep,
    write_table,
)

from matrixdp.models.svm import correlated_privacy_level, correlated_svm_noise, fit_svm  # noqa: E402

#: The spec's indicative 10-draw sweep (spec §5.2), shown next to ours.
SPEC_SWEEP = {1e-8: (0.916, 0.911), 1e-6: (0.925, 0.921), 1e-4: (0.937, 0.932),
              1e-2: (0.948, 0.944), 1.0: (0.953, 0.950), 1e2: (0.958, 0.957), 1e4: (0.964, 0.963)}


def main(argv=None) -> int:
    args = parse_args(__doc__.splitlines()[0], argv=argv)
    X, y = load_wdbc_xy()
    fit = fit_svm(X, y)
    base = fit.accuracy(X, y)
    observed_widths = X.max(axis=0) - X.min(axis=0)  # data-derived: illustration only, NOT DP
    rows = svm_sweep(X, y, args.lams, args.trials, args.seed, progress=not args.quiet,
                     observed_widths=observed_widths)
    for r in rows:
        key = min(SPEC_SWEEP, key=lambda k: abs(np.log10(k) - np.log10(r["lam"])))
        match = abs(np.log10(key) - np.log10(r["lam"])) < 1e-6
        r["acc_gaussian_spec10"] = SPEC_SWEEP[key][0] if match else float("nan")
        r["acc_laplace_spec10"] = SPEC_SWEEP[key][1] if match else float("nan")
    md = write_table(args.out, "farokhi_wdbc", rows, title="Farokhi WDBC (Fig. 5)", notes=[
        f"569 x 30 raw (unscaled) features, y=+1 malignant; rho=1e-2, theta=1, Pi=I; "
        f"{args.trials} noise draws per lambda (the paper: 100)",
        "acc_* = success rate on the ORIGINAL data of the SVM trained on the noisy data (mean, sd); "
        "blue line = baseline below; *_spec10 = the spec's indicative 10-draw values",
        "crb = privacy level min_i E||x_i - xhat_i||^2 >= Tr(Pi I^-1) = 30/sqrt(lam) (Fig. 5 bottom)",
        OBSERVED_NOTE,
    ])
    m = 100.0
    level1 = correlated_privacy_level(fit, 1.0)
    devs, accs = [], []
    for t in range(max(1, min(args.trials, 10))):
        refit = fit_svm(X + correlated_svm_noise(fit, m, rng=args.seed + t), y)
        devs.append(max(np.abs(refit.alpha - fit.alpha).max() / np.abs(fit.alpha).max(),
                        abs(refit.beta - fit.beta), np.abs(refit.xi - fit.xi).max()))
        accs.append(refit.accuracy(X, y))
    append_markdown(md, "\n".join([
        "## Paper versus ours", "",
        "| quantity | paper | ours |", "|---|---|---|",
        f"| baseline training accuracy (blue line) | plotted, no number (the spec's check: 0.9613) "
        f"| {base:.4f} "
        f"({fit.n_support} support vectors) |",
        f"| correlated noise: min_i m Tr(P_ii) | >= 28.4 m | {level1:.3f} m |",
        f"| correlated, m = 100 | >= 2840 | {100 * level1:.1f} |",
        f"| classifier after correlated noise | unchanged | max deviation {max(devs):.1e}; "
        f"accuracy {np.mean(accs):.4f} ({len(devs)} draws) |",
        f"| Gaussian always above Laplace | yes | {sum(r['acc_gaussian'] >= r['acc_laplace'] for r in rows)}"
        f"/{len(rows)} lambdas |",
        "",
        "The correlated noise carries NO differential-privacy guarantee (it reveals alpha^T x_i).",
    ]))
    if not args.no_plot:
        plot_sweep(args.out, "farokhi_wdbc", rows, metric="acc", baseline=base,
                   ylabel="success rate on original data", title="WDBC (Fig. 5)")
    print(f"wrote {md}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
