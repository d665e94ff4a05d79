"""Why method='adaptive' misses on anes96 (issue #24): its decision quantities per trial, next to the truth.

anes96 (statsmodels' ANES 1996 extract, 944 × 10, bounds ``experiments/_check_tables.py``) was a
check table of round 3b, where ``DPCovariance(method="adaptive")`` was 1.43×, 1.51× and 1.66× the
best of (``auto``, ``coinpress``) at ε = 1, 2, 5 (``results/adaptive_covariance.md``). It is seen
now; this script diagnoses it (non-private: it compares the private choice with the truth).

For every trial of the deciding run (seed 20261124, the same 50 trial seeds as
``adaptive_covariance.py``, ``DPCovariance(..., random_state=s)``) and each ε, the estimator is
fitted with the last release forced to each branch (``branch=``: the first release and the counts
are the same draws, so the natural choice and both branches' errors are known), next to ``auto``
and ``coinpress`` with the same seed. Spies on the library's post-processing functions record what
the choice saw (the predictions ``P_mom``, ``P_cp`` = noise + bias term, the released counts, the
reading ``b̂``, its sd and level ``L``) and what it could not (the exact counts, the true mean
clipping loss ``b``, the whitening ``S`` against the true covariance). Errors: relative Frobenius
``‖Ĉ − C‖_F/‖C‖_F`` after the estimator's projection, as in ``adaptive_covariance.py``.

Both whitening margins are run (``--margins``): ``G`` (``mean_margin=False``: the margin ``Q`` is
the noise of the first release's ``G`` alone, the code of round 3b that missed) and ``mean``
(``mean_margin=True``, round 3d: ``Q`` is the noise of ``Ĉ = G − m̂m̂ᵀ``, including the released
mean's term, ``matrixdp.models.coinpress.first_noise_scale``). Output:
``results/adaptive_covariance_<dataset>.{md,csv}``.

``--dataset adult`` (or another benchmark table) runs the same per-trial diagnostic there (the
``S₀₀``/``C₀₀`` columns are then the feature of largest variance: fnlwgt on adult).
``--bias-share`` sets the statistic's share of ``μ*²`` (a diagnostic of what the decision would
need, not a setting). ``--report`` rewrites the .md from the CSV.

Usage (the committed results)::

    cd experiments
    python adaptive_covariance_anes96.py --trials 50
    python adaptive_covariance_anes96.py --trials 200 --seed 777 \
        --out ../results/adaptive_covariance_anes96_replicate
    python adaptive_covariance_anes96.py --trials 200 --seed 777 --epsilons 5 --margins G \
        --bias-share 0.11 --out ../results/adaptive_covariance_anes96_share
    python adaptive_covariance_anes96.py --dataset adult --epsilons 1 2 --trials 50
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import functools
import math
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _check_tables  # noqa: E402
import _utility_common as uc  # noqa: E402

NAME = "adaptive_covariance_anes96"
EPSILONS = (1.0, 2.0, 5.0)
MARGINS = ("G", "mean")


@contextlib.contextmanager
def _patched(module, name, func):
    from matrixdp.models import adaptive

    def put(value):  # the adaptive package's modules each bind the name (uc.set_adaptive)
        if module is adaptive:
            uc.set_adaptive(name, value)
        else:
            setattr(module, name, value)
    orig = getattr(module, name)
    put(func)
    try:
        yield orig
    finally:
        put(orig)


def trial(t, C, eps, seed, mean_margin, bias_share=None, j=0):
    """One trial: the natural choice's quantities, both branches forced, auto and coinpress."""
    from matrixdp.models import DPCovariance
    from matrixdp.models import adaptive as ad
    from matrixdp.models import coinpress as cpm
    from matrixdp.models.coinpress import whitened_records

    cn = float(np.linalg.norm(C))
    seen = {}
    orig_wh, orig_cnt, orig_read = ad.whitening, ad.clipping_loss_counts, ad.read_counts

    def spy_wh(C1, Q, m, h, **kw):
        out = orig_wh(C1, Q, m, h, **kw)
        seen.update(S00=float(out[0][j, j]), Q00=float(Q[j, j]), C1_00=float(C1[j, j]),
                    r2=float(out[3]))
        return out

    def spy_cnt(Xl, center, m, A, r2, weights, edges):
        counts = orig_cnt(Xl, center, m, A, r2, weights, edges)
        _, f = whitened_records(Xl, center, m, A, r2)
        a = (Xl - center - m) * weights
        g = np.einsum("ij,ij->i", a, a) * (1.0 - f * f)
        seen.update(true_b=float(g.mean()), clipped=int(np.sum(f < 1)),
                    counts=counts.astype(int).tolist())
        return counts

    def spy_read(noisy, edges, sigma, n, threshold, reading="capped", z=ad.COUNT_Z):
        out = orig_read(noisy, edges, sigma, n, threshold, reading, z)
        seen.update(noisy=np.asarray(noisy, float).round(1).tolist(), sigma_c=float(sigma),
                    threshold=float(threshold), level=float(out[2]),
                    edges=np.asarray(edges, float).tolist())
        return out

    row = {}
    orig_ac = ad.adaptive_covariance
    with _patched(ad, "whitening", spy_wh), _patched(ad, "clipping_loss_counts", spy_cnt), \
            _patched(ad, "read_counts", spy_read):
        for br in ("moments", "coinpress"):
            seen.clear()
            kw = {} if bias_share is None else {"bias_share": bias_share}
            ad.adaptive_covariance = functools.partial(
                orig_ac, options=ad.AdaptiveOptions(branch=br, mean_margin=mean_margin, **kw))
            try:
                est = DPCovariance(epsilon=eps, delta=uc.DELTA, bounds=(t.lo, t.hi),
                                   random_state=seed, method="adaptive").fit(t.X)
            finally:
                ad.adaptive_covariance = orig_ac
            row[f"err_{br}"] = float(np.linalg.norm(est.covariance_ - C) / cn)
            row[f"d00_{br}"] = float((est.covariance_[j, j] - C[j, j]) / cn)
        pr = dict(est.adaptive_predicted_)
    cp = functools.partial(cpm.coinpress_covariance, mean_margin=mean_margin)
    with _patched(cpm, "coinpress_covariance", cp):
        for name, kw in (("auto", {"method": "moments"}), ("coinpress", {"method": "coinpress"})):
            est = DPCovariance(epsilon=eps, delta=uc.DELTA, bounds=(t.lo, t.hi),
                               random_state=seed, **uc.experimental_keywords(DPCovariance,
                                                                             kw)).fit(t.X)
            row[f"err_{name}_alone"] = float(np.linalg.norm(est.covariance_ - C) / cn)
    choice = "coinpress" if pr["coinpress"] < pr["moments"] else "moments"
    row.update(choice=choice, err_chosen=row[f"err_{choice}"],
               better=("coinpress" if row["err_coinpress"] < row["err_moments"] else "moments"),
               pred_moments=math.sqrt(pr["moments"]) / cn,
               pred_cp_noise=math.sqrt(max(pr["coinpress"] - pr["coinpress_bias"], 0.0)) / cn,
               pred_cp_bias=math.sqrt(pr["coinpress_bias"]) / cn,
               b_hat=pr["clipping_loss"] / cn, b_hat_sd=pr["clipping_loss_reading_sd"] / cn,
               statistic=pr["statistic"],
               threshold=seen.get("threshold", float("nan")) / cn,
               level=seen.get("level", float("nan")) / cn,
               true_b=seen.get("true_b", float("nan")) / cn, clipped=seen.get("clipped", -1),
               sigma_c=seen.get("sigma_c", float("nan")),
               S00_over_C00=seen["S00"] / float(C[j, j]),
               Q00_over_C00=seen["Q00"] / float(C[j, j]),
               C1_00_over_C00=seen["C1_00"] / float(C[j, j]), r2=seen["r2"])
    counts, noisy = seen.get("counts"), seen.get("noisy")
    if counts:
        j = int(np.argmax(counts))  # the bin holding most clipped records (the tail)
        row.update(tail_bin=j + 1, tail_count=int(counts[j]), tail_noisy=float(noisy[j]),
                   tail_edge=float(seen["edges"][j + 1]) / seen["threshold"],
                   counts=" ".join(map(str, counts)),
                   noisy=" ".join(f"{v:.0f}" for v in noisy))
    return row


def run(args):
    warnings.simplefilter("ignore")
    t = load(args.dataset)
    C = np.cov(t.X.T, bias=True)
    # the feature that carries the covariance (a diagnostic: read from the data)
    j = int(np.argmax(np.diagonal(C)))
    seeds = [int(s) for s in np.random.SeedSequence(args.seed).generate_state(args.trials)]
    rows = []
    for margin in args.margins:
        for eps in args.epsilons:
            for i, s in enumerate(seeds):
                r = {"margin": margin, "epsilon": eps, "trial": i, "seed": s}
                r.update(trial(t, C, eps, s, margin == "mean", args.bias_share, j))
                rows.append(r)
            print(f"  margin {margin} ε = {eps:g} done", flush=True)
    return t, C, rows


def _med(rows, key, cond=None):
    v = [r[key] for r in rows if (cond is None or cond(r)) and key in r]
    return (float(np.median(v)), len(v)) if v else (float("nan"), 0)


def _f(x):
    return "" if not np.isfinite(x) else f"{x:.3g}"


def name(args) -> str:
    """The output's base name: ``adaptive_covariance_<dataset>``."""
    return f"adaptive_covariance_{args.dataset}"


def load(dataset):
    """anes96 (``_check_tables``) or a benchmark table (public bounds of ``utility_bounds.md``)."""
    if dataset in _check_tables.LOADERS:
        return _check_tables.load(dataset)
    return uc.load_table(dataset)


def _extra(args) -> str:
    """The command's options other than the defaults (for the header)."""
    out = ""
    if list(args.epsilons) != list(EPSILONS):
        out += " --epsilons " + " ".join(f"{e:g}" for e in args.epsilons)
    if list(args.margins) != list(MARGINS):
        out += " --margins " + " ".join(args.margins)
    if getattr(args, "bias_share", None) is not None:
        out += f" --bias-share {args.bias_share:g}"
    if Path(args.out).resolve() != Path(uc.DEFAULT_OUT).resolve():
        out += f" --out results/{Path(args.out).name}"
    return out


def _generated(args) -> str:
    """The header paragraph: the command and what was run."""
    return (
        f"Generated by `experiments/{NAME}.py --dataset {args.dataset} --trials {args.trials} "
        f"--seed {args.seed}{_extra(args)}` "
        + ("(the trial seeds of `adaptive_covariance.py`'s deciding run; " if args.seed == 20261124
        else "(other seeds than the deciding run's, a replicate; ")
        + "δ = 1e-6, replace-one, the public "
        "bounds of `experiments/_check_tables.py` / `results/utility_bounds.md`). Per trial, "
        "`DPCovariance(method='adaptive')` with the last release forced to each branch (same first release and counts, so the "
        "natural choice and both errors are known), and `auto` and `coinpress` alone with the "
        "same seed. Non-private diagnostic (true clipping loss, exact counts). Errors: relative "
        "Frobenius after the estimator's projection; predictions: √(expected squared error) / "
        "‖C‖_F. Margin `G`: the whitening margin of round 3b (the noise of the first release's "
        "`G` alone: the code that missed); `mean`: round 3d (the noise of `Ĉ = G − m̂m̂ᵀ`, with "
        "the released mean's term). Per-trial rows: the CSV."
        + ("" if getattr(args, "bias_share", None) is None else
        f" **The statistic's share is {args.bias_share:g} of μ*² here** (`--bias-share`; the "
        "library's is 0.03): a diagnostic of what the decision would need, not a setting; "
        "`auto` and `coinpress` alone are unaffected.")
    )


def _anes96_lines(t, C, rows, args) -> list:
    """The anes96 header: what its covariance is (popul, its 18 records at 7300)."""
    popul = t.X[:, 0]
    vals, cnts = np.unique(popul[popul > 2000], return_counts=True)
    var0 = float(np.var(popul))
    top = popul >= vals.max()
    share_top = float(np.sum((popul[top] - popul.mean()) ** 2) / len(popul) / var0)
    n = len(popul)
    lines = [
        "# method='adaptive' on anes96: the misses diagnosed (issue #24, round 3d)", "",
        _generated(args), "",
        "## The table", "",
        f"‖C‖_F = {np.linalg.norm(C):.4g}; Var(popul) = {var0:.4g} is "
        f"{var0 / np.linalg.norm(C):.6f} of it: the relative error is the error of popul's "
        f"variance. popul (census place population in 1000s, public bound [0, 10000], mean "
        f"{popul.mean():.0f}, median {np.median(popul):.0f}) has "
        + ", ".join(f"{c} records at {v:.0f}" for v, c in zip(vals, cnts))
        + f": the {int(top.sum())} records at {vals.max():.0f} ({top.mean():.1%} of n = {n}) "
        f"carry {share_top:.0%} of Var(popul). A whitened step sees them at "
        f"{(vals.max() - popul.mean()) / math.sqrt(var0):.2f} standard deviations when "
        "`S = C`, beyond the Gaussian radius √r² = "
        f"{math.sqrt(rows[0]['r2']):.2f} (k = 10, β = 0.1). popul's mean is "
        f"{(popul.mean() - 5000) / 5000:+.2f} half-widths from the box's middle, where the first "
        "release is centred.", ""]
    return lines


def report(t, C, rows, args) -> Path:
    from matrixdp.calibration.gaussian import max_gaussian_shift
    from matrixdp.models.adaptive import BIAS_SHARE, COUNT_Z

    j = int(np.argmax(np.diagonal(C)))
    n = t.X.shape[0]
    if args.dataset == "anes96":
        lines = _anes96_lines(t, C, rows, args)
    else:
        x = t.X[:, j]
        var0 = float(np.var(x))
        r = math.sqrt(rows[0]["r2"])
        far = np.abs(x - x.mean()) > r * math.sqrt(var0)
        share_far = float(np.sum((x[far] - x.mean()) ** 2) / n / var0)
        vals = np.unique(x[far])
        h = 0.5 * (t.hi[j] - t.lo[j])
        lines = [
            f"# method='adaptive' on {args.dataset}: the decision's quantities per trial "
            "(issue #24, round 3d)", "", _generated(args), "", "## The table", "",
            f"‖C‖_F = {np.linalg.norm(C):.4g}; the feature of largest variance, "
            f"`{t.feature_names[j]}` (public bounds [{t.lo[j]:g}, {t.hi[j]:g}], mean "
            f"{x.mean():.4g}, {(x.mean() - 0.5 * (t.lo[j] + t.hi[j])) / h:+.2f} half-widths "
            f"from the box's middle), has Var = {var0:.4g}, {var0 / np.linalg.norm(C):.4f} of "
            f"‖C‖_F. {int(far.sum())} records ({far.mean():.2%} of n = {n}) lie beyond "
            f"{r:.2f} (the Gaussian radius) standard deviations of its mean, which a whitened "
            f"step with `S = C` would clip along it; they carry {share_far:.0%} of its variance"
            + (f" (values: {', '.join(f'{v:g}' for v in vals)})" if 0 < vals.size <= 5 else "")
            + ". The `S₀₀`, `Q₀₀`, `C₀₀` columns below are this feature's (the popul columns "
            "of the anes96 file).", ""]
    lines += ["## Per (margin, ε): choice, predictions and errors", "",
              "Medians over trials. `mom`, `cp`: the branch forced; `chosen`: what adaptive "
              "released; `alone`: `auto` / `coinpress` with the same seed. `cp | chose cp` "
              "and `cp | chose mom`: the whitened branch's error in the trials where the "
              "choice took / did not take it (the selection). `pred` columns: the choice's "
              "predictions; `true b`: the whitened step's mean clipping loss (non-private). "
              "`right`: trials where the choice took the branch that was better in that trial.",
              "",
              "Root-mean-square errors (what the predictions estimate) follow in the next "
              "table: on this table a median of 50 trials has a sampling error of about ±25% "
              "(the error is one entry's, |N(0, σ²)|-like).", "",
              "| margin | ε | mom | cp | chosen | auto alone | coinpress alone | chose cp | "
              "right | cp \\| chose cp | cp \\| chose mom | pred mom | pred cp noise | "
              "pred cp bias | b̂ | true b | √gap threshold | S₀₀/C₀₀ | Q₀₀/C₀₀ | "
              "rms(cp err / pred cp) |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for margin in args.margins:
        for eps in args.epsilons:
            rs = [r for r in rows if r["margin"] == margin and r["epsilon"] == eps]
            m = {k: _med(rs, k)[0] for k in (
                "err_moments", "err_coinpress", "err_chosen", "err_auto_alone",
                "err_coinpress_alone", "pred_moments", "pred_cp_noise", "pred_cp_bias", "b_hat",
                "true_b", "threshold", "S00_over_C00", "Q00_over_C00")}
            ncp = sum(r["choice"] == "coinpress" for r in rs)
            right = sum(r["choice"] == r["better"] for r in rs)
            a, na = _med(rs, "err_coinpress", lambda r: r["choice"] == "coinpress")
            b, nb = _med(rs, "err_coinpress", lambda r: r["choice"] == "moments")
            pc = np.array([r["err_coinpress"] / math.sqrt(r["pred_cp_noise"] ** 2
                                                          + r["pred_cp_bias"] ** 2)
                           for r in rs])
            lines.append(
                f"| {margin} | {eps:g} | " + " | ".join(_f(m[k]) for k in (
                    "err_moments", "err_coinpress", "err_chosen", "err_auto_alone",
                    "err_coinpress_alone"))
                + f" | {ncp}/{len(rs)} | {right}/{len(rs)} | {_f(a)} ({na}) | {_f(b)} ({nb}) | "
                + " | ".join(_f(m[k]) for k in ("pred_moments", "pred_cp_noise", "pred_cp_bias",
                                                "b_hat", "true_b", "threshold", "S00_over_C00",
                                                "Q00_over_C00"))
                + f" | {_f(float(np.sqrt(np.mean(pc ** 2))))} |")
    lines += ["", "Root-mean-square relative errors over the same trials (the choice's "
              "predictions are of the expected squared error):", "",
              "| margin | ε | mom | cp | chosen | auto alone | coinpress alone | pred mom (rms) | "
              "pred cp (rms) |", "|---|---|---|---|---|---|---|---|---|"]
    for margin in args.margins:
        for eps in args.epsilons:
            rs = [r for r in rows if r["margin"] == margin and r["epsilon"] == eps]

            def rms(key):
                return float(np.sqrt(np.mean([r[key] ** 2 for r in rs])))
            pcp = float(np.sqrt(np.mean([r["pred_cp_noise"] ** 2 + r["pred_cp_bias"] ** 2
                                         for r in rs])))
            lines.append(f"| {margin} | {eps:g} | " + " | ".join(_f(rms(k)) for k in (
                "err_moments", "err_coinpress", "err_chosen", "err_auto_alone",
                "err_coinpress_alone", "pred_moments")) + f" | {_f(pcp)} |")
    lines += ["", "## The tail in the released counts", "",
              "`tail count`: the exact count of the bin holding most clipped records (the "
              "tail; on anes96 popul's), `released`: its noisy count (median, and how often it exceeded the "
              f"resolution threshold {COUNT_Z:g}σ_c, i.e. was read in full); `tail edge`: its "
              "upper edge in units of the decision threshold √gap (a record in it loses up to "
              "that many √gap·n⁻¹); `level L`: the capped reading's level in the same units "
              "(records of an unresolved bin above L are read at L). `share needed`: the "
              "statistic's share of μ*² at which the tail bin would exceed 3σ_c with "
              "probability 0.9 (σ_c = √2/μ_b, μ_b = √share·μ*; the share of this run is "
              f"{BIAS_SHARE if args.bias_share is None else args.bias_share:g}).", "",
              "| margin | ε | fits with counts | tail count (median) | σ_c | released (median) | "
              "resolved | tail edge / √gap | level L / √gap | b̂ / √gap | true b / √gap | "
              "share needed |", "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for margin in args.margins:
        for eps in args.epsilons:
            rc = [r for r in rows if r["margin"] == margin and r["epsilon"] == eps
                  and "tail_count" in r]
            rs = [r for r in rc if r["tail_count"] > 0]  # fits whose step clips some record
            if not rs:
                lines.append(f"| {margin} | {eps:g} | {len(rc)} (0 clip a record) | | | | | | "
                             "| | | |")
                continue
            tc = float(np.median([r["tail_count"] for r in rs]))
            sc = float(np.median([r["sigma_c"] for r in rs]))
            res = sum(r["tail_noisy"] > COUNT_Z * r["sigma_c"] for r in rs)
            mu_star = max_gaussian_shift(eps, uc.DELTA)
            # tail count - 1.28 σ_c >= 3 σ_c  <=>  σ_c <= count / 4.28
            need = (math.sqrt(2.0) * (COUNT_Z + 1.2816) / max(tc, 1e-9)) ** 2 / mu_star ** 2
            lines.append(
                f"| {margin} | {eps:g} | {len(rc)} ({len(rs)} clip a record) | {tc:.0f} | "
                f"{sc:.3g} | "
                f"{np.median([r['tail_noisy'] for r in rs]):.3g} | {res}/{len(rs)} | "
                f"{np.median([r['tail_edge'] for r in rs]):.3g} | "
                f"{np.median([r['level'] / r['threshold'] for r in rs]):.3g} | "
                f"{np.median([r['b_hat'] / r['threshold'] for r in rs]):.3g} | "
                f"{np.median([r['true_b'] / r['threshold'] for r in rs]):.3g} | "
                f"{need:.3g}{' (> 1: impossible)' if need > 1 else ''} |")
    lines += ["", "## Selection: the whitening against the clipping loss", "",
              "Spearman rank correlation over trials between the first look's whitening of "
              "the feature of largest variance (popul on anes96; `S₀₀/C₀₀`, public after the "
              "first release) and the whitened branch's "
              "true clipping loss and error, and between the predicted whitened noise and "
              "that error: with the `G` margin a smaller `S₀₀` predicts less noise (the choice "
              "leans to the whitened step) and clips the tail harder (its error grows).", "",
              "| margin | ε | ρ(S₀₀, true b) | ρ(S₀₀, cp err) | ρ(pred cp noise, cp err) | "
              "trials with S₀₀ < C₀₀ |", "|---|---|---|---|---|---|"]

    def rho(a, b):
        a, b = np.asarray(a, float), np.asarray(b, float)
        ok = np.isfinite(a) & np.isfinite(b)
        if ok.sum() < 3:
            return float("nan")
        ra = np.argsort(np.argsort(a[ok]))
        rb = np.argsort(np.argsort(b[ok]))
        return float(np.corrcoef(ra, rb)[0, 1])
    for margin in args.margins:
        for eps in args.epsilons:
            rs = [r for r in rows if r["margin"] == margin and r["epsilon"] == eps]
            s00 = [r["S00_over_C00"] for r in rs]
            lines.append(
                f"| {margin} | {eps:g} | {_f(rho(s00, [r['true_b'] for r in rs]))} | "
                f"{_f(rho(s00, [r['err_coinpress'] for r in rs]))} | "
                f"{_f(rho([r['pred_cp_noise'] for r in rs], [r['err_coinpress'] for r in rs]))}"
                f" | {sum(v < 1 for v in s00)}/{len(rs)} |")
    lines.append("")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    fields = list(dict.fromkeys(k for r in rows for k in r))  # rows without counts lack tail_*
    with open(out / f"{name(args)}.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=fields, restval="")
        w.writeheader()
        w.writerows(rows)
    path = out / f"{name(args)}.md"
    path.write_text("\n".join(lines) + "\n")
    return path


def _value(key, v):
    """A CSV cell back to the type :func:`trial` wrote."""
    if key in ("margin", "choice", "better", "statistic", "counts", "noisy"):
        return v
    if key in ("trial", "seed", "clipped", "tail_bin", "tail_count"):
        return int(v)
    return float(v)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dataset", default="anes96",
                   help="anes96 (default) or a benchmark table, e.g. adult")
    p.add_argument("--trials", type=int, default=50)
    p.add_argument("--seed", type=int, default=20261124)
    p.add_argument("--epsilons", type=float, nargs="+", default=list(EPSILONS))
    p.add_argument("--margins", nargs="+", default=list(MARGINS), choices=list(MARGINS))
    p.add_argument("--out", type=Path, default=uc.DEFAULT_OUT)
    p.add_argument("--bias-share", type=float, default=None,
                   help="the statistic's share of mu*^2 (default: the library's BIAS_SHARE); "
                        "a diagnostic of what the decision would need, not a setting")
    p.add_argument("--report", action="store_true",
                   help="rewrite the .md from the existing CSV (no fits)")
    args = p.parse_args(argv)
    if args.report:
        warnings.simplefilter("ignore")
        t = load(args.dataset)
        C = np.cov(t.X.T, bias=True)
        with open(Path(args.out) / f"{name(args)}.csv", newline="") as fh:
            rows = [{k: _value(k, v) for k, v in r.items() if v != ""}
                    for r in csv.DictReader(fh)]
        print(f"wrote {report(t, C, rows, args)}")
        return 0
    t, C, rows = run(args)
    print(f"wrote {report(t, C, rows, args)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
