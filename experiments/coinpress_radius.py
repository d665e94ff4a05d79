"""CoinPress's whitened clipping radius: the fixed rate β = 0.1 against ``beta="auto"`` (issue #24).

``results/outside_audit.md`` (Findings 3) measured that the relative Frobenius error of
``DPCovariance(method="coinpress")`` stops falling with ε, and grows, on skewed or heavy-tailed
records: the whitened records are clipped at a fixed per-record rate β = 0.1, whose bias does not
vanish. ``beta="auto"`` (``matrixdp.models.coinpress.step_radius_sq``) takes per step the larger
of that radius and the radius that minimises a sixth-moment bound on the bias plus the step's
noise, ``r² ∝ (n μ_t)^{1/3}`` (``docs/coinpress.md`` § The clipping radius).

Part ``audit``: the audit's CoinPress units (statsmodels ``ccard``, ``grunfeld``, ``engel`` and the
``heavy_tail`` scenario, exactly as ``outside_audit.py`` builds them: records clipped to the
public box, the covariance of the records with the target appended) and two synthetic tables of
this script (``gauss_syn``: n = 5000 Gaussian records, d = 4, box [−10, 10]⁴; ``lognorm_syn``:
n = 5000 lognormal(0, 1) records, d = 4, box [0, 100]⁴, clipped), on the audit's ε grid and its
diagnostic ε = 10⁶, 10⁸; ``coinpress_covariance`` (what ``DPCovariance(method="coinpress")``
runs) with ``beta=0.1`` and ``beta="auto"`` side by side on the same seeds (the audit's covariance
seeds), δ = 1e-6, replace-one, public n, the same public bounds.

Part ``benchmark``: compares the ``matrixdp (coinpress)`` rows of two runs of
``utility_covariance.py`` / ``utility_pca.py`` with the same seeds (the committed ones with
β = 0.1, and the rerun with the default ``"auto"``).

Tuning disclosure. The rule's form was chosen on the six tables of part ``audit`` only (among: a
Gaussian-tail balance ``β ∝ k/(n μ)``, whose radius grows like ``log(n μ)`` and left 0.24 of
error on heavy_tail at ε = 10⁸; the fourth-moment balance ``r² ∝ (n μ)^{1/2}`` with weights 0.03,
0.1, 0.3 and 1, which either left the error rising over ε ∈ [2, 100] on heavy_tail (weights
≤ 0.3) or cost 2–8× on gauss_syn at ε ∈ [0.5, 100] (weight 1); the sixth-moment balance, kept:
no weight, its constant is the Gaussian model's sixth moment). Those comparisons ran from
scratch scripts with 10 seeds and are not committed; this script reruns the kept rule. No table
of the utility benchmark (adult, wdbc, ctg, lending_club, liver, movement_aal, synthetic) was
looked at before the rule and the check below were committed.

PRE-REGISTERED CHECK (committed before the benchmark rerun):

(A) audit part, for ``beta="auto"``, on each of the six tables: the median at every ε of the grid
    is at most 1.10× the smallest median at any smaller ε (monotone up to noise), and the median
    at ε = 10⁸ is below 0.02.
(B) benchmark part (the seven utility tables, tasks covariance, correlation, PCA k = 2 and
    k = 5, ε ∈ {0.1, 0.5, 1, 2, 5}): the rerun's median over the committed one (β = 0.1, same
    seeds) is at most 1.2 in at least 90% of the cells and at most 2 in every cell.
If (B) fails, ``beta="auto"`` stays the default only if the lead accepts the trade (issue #24);
the report says which cells lose.

SECOND RULE, ``beta="counts"`` (designed after (B) failed; not the default). A public rule that
makes the bias vanish must grow the radius with ``n μ``, and every such rule tried costs on
light-tailed records at moderate ε, where the fixed rate's bias is already small ((B)). So the
radius is chosen from the records instead, through a DP release: per whitened step, at 4% of its
``μ_t²``, the counts of records per bin of squared whitened norm (edges from the fixed-rate
radius, doubling, up to the box's image; sensitivity √2), and the edge that minimises the
estimated clipping bias (counts above 3 noise sds, each record at its bin's middle) squared plus
the step's noise squared (``matrixdp.models.coinpress.counts_radius_sq``). Design disclosure: it
was designed looking at the six audit-part tables and the seven utility benchmark tables
(10 seeds, scratch scripts, not committed): the middle reading and the sum of squares were tried
against the upper edge / the plain sum (no difference), and a finer bin ratio 2^(1/4) against 2
(2^(1/4) was better on gauss_syn, movement_aal and adult ε ≥ 2, but 16× worse than β = 0.1 on
lending_club ε = 0.1; 2 kept). So the benchmark tables are no longer a check for it.

PRE-REGISTERED CHECK (C) of ``beta="counts"`` (committed before its deciding run, part
``check``), on tables never used for either rule: the audit's other statsmodels tables
(``modechoice``, ``statecrime``, ``heart``, ``spector``, records and target as the audit builds
them) and the check tables of ``_check_tables.py`` (``anes96``, ``randhie``, ``star98``,
``elnino``, ``wine``, ``iris``, ``fair``; features only, as the utility benchmark), 20 seeds,
relative Frobenius error of the covariance and the captured-variance deficit (k = 2) of the top
eigenvectors of the released covariance (no projection: not ``DPPCA``'s post-processing):
(a) ε ∈ {0.1, 0.5, 1, 2, 5}: ``counts`` / β = 0.1 at most 1.2 in at least 90% of the cells and
    at most 2 in every cell;
(b) the covariance error at ε = 10⁸ below 0.02 and below the one at ε = 100 on every table.
``beta="auto"`` is run on the same cells and reported against (a) and (b) for the record.

Run (from experiments/)::

    PYTHONPATH=../src python coinpress_radius.py --part audit
    PYTHONPATH=../src python coinpress_radius.py --part benchmark \\
        --old fc672f4:results/utility_covariance.csv fc672f4:results/utility_pca.csv \\
        --new ../results/utility_covariance.csv ../results/utility_pca.csv
    PYTHONPATH=../src python coinpress_radius.py --part check
    PYTHONPATH=../src python coinpress_radius.py --part adaptive \\
        --old ../results/adaptive_covariance.csv \\
        --new ../results/coinpress_radius_adaptive/adaptive_covariance.csv
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

import outside_audit as oa  # noqa: E402

NAME = "coinpress_radius"
EPSILONS = oa.EPSILONS + oa.BEYOND
BETAS = (0.1, "auto")
MONO = 1.10
FAR_BOUND = 0.02
BENCH_RATIO, BENCH_SHARE, BENCH_MAX = 1.2, 0.9, 2.0


def synthetic(name):
    rng = np.random.default_rng([20261129, 0 if name == "gauss_syn" else 1])
    n = 5000
    if name == "gauss_syn":
        X = rng.normal(0, 1, (n, 4)) * [1, 2, 0.5, 1] + [0, 1, 0, -1]
        lo, hi = np.full(4, -10.0), np.full(4, 10.0)
    else:
        X = rng.lognormal(0, 1, (n, 4))
        lo, hi = np.zeros(4), np.full(4, 100.0)
    return np.clip(X, lo, hi), lo, hi


def tables():
    out = []
    for u in oa.units(["ccard", "grunfeld", "engel", "heavy_tail"]):
        Z, lo, hi = oa.cov_data(u)
        out.append((u.name, Z, lo, hi))
    for nm in ("gauss_syn", "lognorm_syn"):
        out.append((nm,) + synthetic(nm))
    return out


def run_audit(args):
    from matrixdp.models.coinpress import coinpress_covariance

    seeds = [int(s) for s in np.random.SeedSequence(args.seed + 2).generate_state(args.trials)]
    rows = []
    for name, Z, lo, hi in tables():
        C = np.cov(Z.T, bias=True)
        for eps in EPSILONS:
            for beta in BETAS:
                t0 = time.perf_counter()
                vals, r2 = [], []
                for s in seeds:
                    res = coinpress_covariance(Z, lo, hi, epsilon=eps, delta=oa.DELTA, rng=s,
                                               beta=beta)
                    vals.append(float(np.linalg.norm(res.covariance - C) / np.linalg.norm(C)))
                    r2.append(res.radii_sq[-1])
                rows.append({"table": name, "n": Z.shape[0], "d": Z.shape[1], "epsilon": eps,
                             "beta": str(beta), "median": float(np.median(vals)),
                             "q25": float(np.quantile(vals, 0.25)),
                             "q75": float(np.quantile(vals, 0.75)),
                             "median_radius_sq": float(np.median(r2)),
                             "seconds": round(time.perf_counter() - t0, 2),
                             "values": " ".join(f"{v:.6g}" for v in vals)})
            print(f"  {name} eps={eps:g} done", flush=True)
    return rows


def fmt(v):
    return f"{v:.3g}" if abs(v) >= 1e-3 else f"{v:.2e}"


def audit_check(rows):
    lines, ok_all = [], True
    for name in dict.fromkeys(r["table"] for r in rows):
        meds = [r["median"] for r in rows if r["table"] == name and r["beta"] == "auto"]
        bad = [EPSILONS[i] for i in range(1, len(meds)) if meds[i] > MONO * min(meds[:i])]
        far = meds[-1]
        ok = not bad and far < FAR_BOUND
        ok_all &= ok
        lines.append(f"| {name} | {'none' if not bad else ', '.join(f'{e:g}' for e in bad)} | "
                     f"{fmt(far)} | {'PASS' if ok else 'FAIL'} |")
    return lines, ok_all


def write_audit(rows, args, elapsed):
    out = args.out
    with open(out / f"{NAME}.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    L = ["# CoinPress's clipping radius: fixed β = 0.1 against beta=\"auto\" (issue #24)", "",
         f"Command (from experiments/): `{args.command}`; {args.trials} seeds per cell (the audit's "
         f"covariance seeds, SeedSequence({args.seed} + 2)); wall {elapsed:.0f} s on a shared "
         "2-core machine. Script: `experiments/coinpress_radius.py` (its docstring has the rule's "
         "tuning disclosure and the pre-registered check). Relative Frobenius error "
         "‖Ĉ − C‖_F/‖C‖_F of `coinpress_covariance` (= `DPCovariance(method=\"coinpress\")`, 2 "
         "steps), δ = 1e-6, replace-one, public n, the same public bounds and seeds for both "
         "radii; median (25th–75th percentile). `r²`: the median squared whitened radius of the "
         "last step (β = 0.1 / auto; before `auto` reaches the fixed-rate floor both are the "
         "same, capped by the box's image).", ""]
    names = list(dict.fromkeys(r["table"] for r in rows))
    for name in names:
        sub = [r for r in rows if r["table"] == name]
        L += [f"## {name} (n = {sub[0]['n']}, d = {sub[0]['d']})", "",
              "| ε | β = 0.1 | auto | auto / β = 0.1 | r² (0.1 / auto) |", "|---|---|---|---|---|"]
        for eps in EPSILONS:
            a = next(r for r in sub if r["epsilon"] == eps and r["beta"] == "0.1")
            b = next(r for r in sub if r["epsilon"] == eps and r["beta"] == "auto")
            L.append(f"| {eps:g} | {fmt(a['median'])} ({fmt(a['q25'])}–{fmt(a['q75'])}) | "
                     f"{fmt(b['median'])} ({fmt(b['q25'])}–{fmt(b['q75'])}) | "
                     f"{b['median'] / a['median']:.3g} | {a['median_radius_sq']:.3g} / "
                     f"{b['median_radius_sq']:.3g} |")
        L.append("")
    chk, ok = audit_check(rows)
    L += ["## Pre-registered check (A)", "",
          f"`beta=\"auto\"`: every ε's median at most {MONO}× the smallest median at a smaller ε, "
          f"and the median at ε = 10⁸ below {FAR_BOUND}.", "",
          "| table | ε where the median rose | median at ε = 10⁸ | verdict |", "|---|---|---|---|"]
    L += chk + ["", f"**(A) {'PASSES' if ok else 'FAILS'}.**", ""]
    (out / f"{NAME}.md").write_text("\n".join(L))
    print(f"wrote {out / f'{NAME}.md'}")


def read(path):
    """The coinpress rows of a CSV; ``COMMIT:path`` reads the file as committed (``git show``)."""
    import io
    import subprocess

    p = str(path)
    if ":" in p and not Path(p).exists():
        text = subprocess.run(["git", "-C", str(REPO), "show", p], check=True,
                              capture_output=True, text=True).stdout
        fh = io.StringIO(text)
    else:
        fh = open(p, newline="")
    with fh:
        return [r for r in csv.DictReader(fh) if r["method"] == "matrixdp (coinpress)"]


def run_benchmark(args):
    cells = []
    for old_p, new_p in zip(args.old, args.new):
        old = {(r["dataset"], r["metric"], float(r["epsilon"])): r for r in read(old_p)}
        for r in read(new_p):
            key = (r["dataset"], r["metric"], float(r["epsilon"]))
            o = old.get(key)
            if o is None or r["status"] != "ok" or o["status"] != "ok":
                continue
            a, b = float(o["median"]), float(r["median"])
            same = o["values"] == r["values"] and o["values"] != ""
            cells.append((key, a, b, b / a if a > 0 else float("nan"), same))
    ratios = np.array([c[3] for c in cells])
    within = int(np.sum(ratios <= BENCH_RATIO))
    ok = within >= BENCH_SHARE * len(cells) and np.all(ratios <= BENCH_MAX)
    L = ["# CoinPress's clipping radius on the utility benchmark: beta=\"auto\" against β = 0.1", "",
         f"Command (from experiments/): `{args.command}`. The `matrixdp (coinpress)` rows of "
         "the committed `results/utility_covariance.csv` (15 trials) and `results/utility_pca.csv` "
         "(8 trials), run with β = 0.1, against the rerun of those rows with the default "
         "`beta=\"auto\"` (same seeds and trial counts; commands in the rerun's files). 'identical': "
         "every per-trial value equal (the auto radius is the fixed rate's floor there).", "",
         "| dataset | metric | ε | β = 0.1 | auto | auto / 0.1 | identical |",
         "|---|---|---|---|---|---|---|"]
    for (ds, metric, eps), a, b, r, same in cells:
        L.append(f"| {ds} | {metric} | {eps:g} | {fmt(a)} | {fmt(b)} | {r:.3g} | "
                 f"{'yes' if same else 'no'} |")
    L += ["", "## Pre-registered check (B)", "",
          f"auto / β = 0.1 at most {BENCH_RATIO} in at least {BENCH_SHARE:.0%} of the cells and at "
          f"most {BENCH_MAX} in every cell: {within}/{len(cells)} cells within {BENCH_RATIO}, "
          f"largest ratio {np.nanmax(ratios):.3g}, smallest {np.nanmin(ratios):.3g}; "
          f"{sum(c[4] for c in cells)} cells identical.", "",
          f"**(B) {'PASSES' if ok else 'FAILS'}.**", ""]
    out = args.out / f"{NAME}_benchmark.md"
    out.write_text("\n".join(L))
    with open(out.with_suffix(".csv"), "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["dataset", "metric", "epsilon", "median_beta_0.1", "median_auto", "ratio",
                    "identical"])
        for (ds, metric, eps), a, b, r, same in cells:
            w.writerow([ds, metric, eps, a, b, r, same])
    print(f"wrote {out}")


CHECK_BETAS = (0.1, "auto", "counts")
CHECK_EPS = (0.1, 0.5, 1.0, 2.0, 5.0, 100.0, 1e4, 1e8)
SMALL_EPS = (0.1, 0.5, 1.0, 2.0, 5.0)


def check_tables():
    import _check_tables as ct

    out = []
    for u in oa.units(["modechoice", "statecrime", "heart", "spector"]):
        Z, lo, hi = oa.cov_data(u)
        out.append((u.name, Z, lo, hi))
    for f in (ct.anes96, ct.randhie, ct.star98, ct.elnino, ct.wine, ct.iris, ct.fair):
        t = f()
        out.append((t.name, t.X, t.lo, t.hi))
    return out


def run_check(args):
    from matrixdp.models.coinpress import coinpress_covariance

    seeds = [int(s) for s in np.random.SeedSequence(args.seed + 3).generate_state(args.trials)]
    rows = []
    for name, Z, lo, hi in check_tables():
        C = np.cov(Z.T, bias=True)
        w, V = np.linalg.eigh(C)
        best = float(w[::-1][:2].sum())
        for eps in CHECK_EPS:
            for beta in CHECK_BETAS:
                fro, dfc = [], []
                for s in seeds:
                    Ch = coinpress_covariance(Z, lo, hi, epsilon=eps, delta=oa.DELTA, rng=s,
                                              beta=beta).covariance
                    fro.append(float(np.linalg.norm(Ch - C) / np.linalg.norm(C)))
                    U = np.linalg.eigh(0.5 * (Ch + Ch.T))[1][:, ::-1][:, :2]
                    dfc.append(1.0 - float(np.trace(U.T @ C @ U)) / best)
                for metric, vals in (("covariance", fro), ("pca k=2", dfc)):
                    rows.append({"table": name, "n": Z.shape[0], "d": Z.shape[1],
                                 "metric": metric, "epsilon": eps, "beta": str(beta),
                                 "median": float(np.median(vals)),
                                 "values": " ".join(f"{v:.6g}" for v in vals)})
            print(f"  {name} eps={eps:g} done", flush=True)
    return rows


def _med(rows, name, metric, eps, beta):
    return next(r["median"] for r in rows if r["table"] == name and r["metric"] == metric
                and r["epsilon"] == eps and r["beta"] == beta)


def check_verdict(rows, beta):
    names = list(dict.fromkeys(r["table"] for r in rows))
    ratios = []
    for name in names:
        for metric in ("covariance", "pca k=2"):
            for e in SMALL_EPS:
                a, b = _med(rows, name, metric, e, "0.1"), _med(rows, name, metric, e, beta)
                ratios.append((name, metric, e, b / a if a > 0 else (1.0 if b == 0 else np.inf)))
    r = np.array([x[3] for x in ratios])
    within = int(np.sum(r <= BENCH_RATIO))
    ok_a = within >= BENCH_SHARE * r.size and bool(np.all(r <= BENCH_MAX))
    bad_b = [n for n in names
             if not (_med(rows, n, "covariance", 1e8, beta) < FAR_BOUND
                     and _med(rows, n, "covariance", 1e8, beta)
                     < _med(rows, n, "covariance", 100.0, beta))]
    return ratios, within, ok_a, bad_b


def write_check(rows, args, elapsed):
    out = args.out
    with open(out / f"{NAME}_check.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    L = ["# CoinPress's clipping radius on tables used for neither rule: pre-registered check (C)",
         "", f"Command (from experiments/): `{args.command}`; {args.trials} seeds per cell "
         f"(SeedSequence({args.seed} + 3)); wall {elapsed:.0f} s on a shared 2-core machine. "
         "`coinpress_covariance` (2 steps), δ = 1e-6, replace-one, public n, the tables' public "
         "bounds; the same seeds for β = 0.1, `\"auto\"` and `\"counts\"`. Covariance: median "
         "relative Frobenius error; PCA k = 2: median captured-variance deficit of the top two "
         "eigenvectors of the released covariance (no projection). The rule and the check are "
         "in `experiments/coinpress_radius.py`'s docstring, committed before this run.", ""]
    for name in dict.fromkeys(r["table"] for r in rows):
        sub = [r for r in rows if r["table"] == name]
        L += [f"## {name} (n = {sub[0]['n']}, d = {sub[0]['d']})", "",
              "| ε | cov β = 0.1 | cov auto | cov counts | pca β = 0.1 | pca auto | pca counts |",
              "|---|---|---|---|---|---|---|"]
        for e in CHECK_EPS:
            L.append(f"| {e:g} | " + " | ".join(
                fmt(_med(rows, name, m, e, b)) for m in ("covariance", "pca k=2")
                for b in ("0.1", "auto", "counts")) + " |")
        L.append("")
    for beta, label in (("counts", "(C), the deciding check of beta=\"counts\""),
                        ("auto", "the same criteria for beta=\"auto\" (for the record)")):
        ratios, within, ok_a, bad_b = check_verdict(rows, beta)
        r = np.array([x[3] for x in ratios])
        worst = sorted(ratios, key=lambda x: -x[3])[:8]
        L += [f"## {label}", "",
              f"(a) ε ≤ 5, {beta} / β = 0.1 at most {BENCH_RATIO} in at least "
              f"{BENCH_SHARE:.0%} of the {r.size} cells and at most {BENCH_MAX} in every cell: "
              f"{within}/{r.size} within {BENCH_RATIO}, largest {np.max(r):.3g}, smallest "
              f"{np.min(r):.3g}; worst cells: " + "; ".join(
                  f"{n} {m} ε = {e:g} {x:.3g}" for n, m, e, x in worst)
              + f". **{'PASSES' if ok_a else 'FAILS'}.**", "",
              f"(b) covariance error at ε = 10⁸ below {FAR_BOUND} and below ε = 100's on every "
              f"table: {'every table' if not bad_b else 'fails on ' + ', '.join(bad_b)}. "
              f"**{'PASSES' if not bad_b else 'FAILS'}.**", ""]
    (out / f"{NAME}_check.md").write_text("\n".join(L))
    print(f"wrote {out / f'{NAME}_check.md'}")


def compare_adaptive(args):
    """The covariance rows of ``adaptive_covariance.py`` rerun with the default radius against
    the committed ones (β = 0.1 then; same seeds and trials)."""
    def load(p):
        with open(p, newline="") as fh:
            return {(r["dataset"], r["task"], float(r["epsilon"]), r["method"]): r
                    for r in csv.DictReader(fh)}
    old, new = load(args.old[0]), load(args.new[0])
    L = ["# method='adaptive' and 'coinpress' with beta=\"auto\" against β = 0.1 (covariance)", "",
         f"Command (from experiments/): `{args.command}`. Old: the committed "
         "`results/adaptive_covariance.csv` (β = 0.1); new: "
         "`results/coinpress_radius_adaptive/adaptive_covariance.csv`, made by `adaptive_covariance.py "
         "--trials 50 --tasks covariance --datasets adult lending_club movement_aal --methods "
         "'matrixdp (auto)' 'matrixdp (coinpress)' 'matrixdp (adaptive)' --out "
         "../results/coinpress_radius_adaptive` (same seeds, 50 trials). Median relative "
         "Frobenius error; 'whitened step chosen': fits of 50 in which the adaptive method chose "
         "the CoinPress branch.", "",
         "| dataset | ε | auto (default) | coinpress β = 0.1 | coinpress auto | ratio | "
         "adaptive β = 0.1 | adaptive auto | ratio | whitened step chosen (0.1 → auto) |",
         "|---|---|---|---|---|---|---|---|---|---|"]
    rows = []
    for key, r in new.items():
        ds, task, eps, method = key
        if method != "matrixdp (adaptive)":
            continue
        g = lambda m, d: float(d[(ds, task, eps, m)]["median"])  # noqa: E731
        ca, cb = g("matrixdp (coinpress)", old), g("matrixdp (coinpress)", new)
        aa, ab = g("matrixdp (adaptive)", old), g("matrixdp (adaptive)", new)
        au = g("matrixdp (auto)", new)
        ch = (old[key].get("coinpress_chosen", ""), r.get("coinpress_chosen", ""))
        rows.append([ds, eps, au, ca, cb, cb / ca, aa, ab, ab / aa, *ch])
        L.append(f"| {ds} | {eps:g} | {fmt(au)} | {fmt(ca)} | {fmt(cb)} | {cb / ca:.3g} | "
                 f"{fmt(aa)} | {fmt(ab)} | {ab / aa:.3g} | {ch[0]} → {ch[1]} |")
    out = args.out / f"{NAME}_adaptive.md"
    out.write_text("\n".join(L + [""]))
    with open(out.with_suffix(".csv"), "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["dataset", "epsilon", "auto", "coinpress_0.1", "coinpress_auto", "ratio",
                    "adaptive_0.1", "adaptive_auto", "ratio", "chosen_0.1", "chosen_auto"])
        w.writerows(rows)
    print(f"wrote {out}")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--part", choices=("audit", "benchmark", "check", "adaptive"), required=True)
    p.add_argument("--trials", type=int, default=20)
    p.add_argument("--seed", type=int, default=20261128)
    p.add_argument("--old", nargs="+", type=Path,
                   help="CSVs, or COMMIT:results/x.csv for a committed version")
    p.add_argument("--new", nargs="+", type=Path)
    p.add_argument("--out", type=Path, default=REPO / "results")
    args = p.parse_args(argv)
    args.command = "PYTHONPATH=../src python coinpress_radius.py " + " ".join(
        sys.argv[1:] if argv is None else argv)
    if args.part == "adaptive":
        compare_adaptive(args)
    elif args.part == "check":
        t0 = time.perf_counter()
        rows = run_check(args)
        write_check(rows, args, time.perf_counter() - t0)
    elif args.part == "audit":
        t0 = time.perf_counter()
        rows = run_audit(args)
        write_audit(rows, args, time.perf_counter() - t0)
    else:
        run_benchmark(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
