"""Task TF diagnosis (decides nothing): the pooled floor's inputs under the full draw and the
dominating triangle (``CovarianceOptions(adaptive_correlation_triangle=True)``), against the truth.

TC's hypothesis (``results/corr_triangle_diagnosis.md``): ``shrink_covariance`` weights the
correlation's entries by ``w_ij = 1/(d̂_i d̂_j)``, ``d̂_i = clip(Ĉ_ii, sd_i, h_i²)`` with ``sd_i``
the diagonal's noise sd; the triangle's smaller ``sd_i`` makes ``w`` larger, so the floor reads
the release as more signal than it is. On TC's four failing cells (seen dev tables, ε = 0.1) and
two contrast cells, 10 paired trials per cell; rows ``full`` (the default), ``tri``
(``adaptive_correlation_triangle=True``) and ``tri_floor`` (also ``triangle_floor=True``, task
TF's corrected weights: the off-diagonal products floored at twice the entry's noise variance) (seeds ``SeedSequence(2026120151)``, new), default
shrinkage, ``method="auto"``. A read-only wrapper around ``feasible.projected_stein_shrink``
records its inputs; ``C`` is the clipped records' covariance (``1/n``), ``R`` its correlation.
Per trial (off-diagonal entries, sums over ``i < j``):

- ``floored``: share of features with ``d̂_i = sd_i`` (the noise floor binds);
- ``dhat_over_C``: median over features of ``d̂_i / C_ii``;
- ``w_over_true``: median over pairs of ``w_ij · C_ii C_jj`` (1: the weights are correlation units);
- ``tr_est``: the floor's noise energy ``Σ w_ij Var_ij`` (what it thinks the noise is, correlation
  units); ``tr_true``: ``Σ Var_ij / (C_ii C_jj)``;
- ``err_true``: the realised raw noise ``Σ ((Ĉ_ij - C_ij)/sqrt(C_ii C_jj))²``;
- ``sig_est``: ``Σ w_ij Ĉ_ij² - tr_est`` (the floor's signal energy); ``sig_true``: ``Σ R_ij²``;
- ``snr``: the pooled ŝ; ``factor``: mean off-diagonal factor; ``oracle``: ``⟨r, R⟩/‖r‖²`` of the
  projected correlation ``r`` (off-diagonal), the factor that would be best;
- ``error``: the released correlation's relative Frobenius error.

Part B (``--part b``, after the dev gate ``results/corr_triangle_floor_gate.md`` FAILED on its
median half; decides nothing): the gate's five cells where the candidate lost most (beauty
ε = 0.1, adult 0.5, lending_club 0.1, recid 0.5, beauty 0.5), 20 paired trials (seeds
``SeedSequence(2026120156)``, new), the three rows above plus ``full_none`` and ``tri_none``
(``shrinkage="none", method="adaptive"``: the unshrunk correlation of each release, to separate the release from
the floor); ``results/corr_triangle_floor_diagnosis_b.md``.

Command::

    cd experiments && nice -n 10 env OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \\
        PYTHONPATH=../src MATRIXDP_DATA=/work/shared/datasets python corr_triangle_floor_diagnosis.py
    ... python corr_triangle_floor_diagnosis.py --part b
"""

from __future__ import annotations

import csv
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _utility_common as uc  # noqa: E402
import correlation_floor_gate as base  # noqa: E402

OUT_MD = uc.REPO_ROOT / "results" / "corr_triangle_floor_diagnosis.md"
OUT_CSV = uc.REPO_ROOT / "results" / "corr_triangle_floor_diagnosis.csv"
SEED, TRIALS = 2026120151, 10
CELLS = (("benchmark", "lending_club", 0.1), ("heldout", "beauty", 0.1), ("heldout", "htv", 0.1),
         ("heldout", "recid", 0.1), ("benchmark", "liver", 2.0), ("benchmark", "adult", 1.0))
ROWS = ("full", "tri", "tri_floor")
COLS = ("error", "floored", "dhat_over_C", "w_over_true", "tr_est", "tr_true", "err_true",
        "sig_est", "sig_true", "snr", "factor", "oracle")


PART_B = dict(seed=2026120156, trials=20,
              cells=(("heldout", "beauty", 0.1), ("benchmark", "adult", 0.5),
                     ("benchmark", "lending_club", 0.1), ("heldout", "recid", 0.5),
                     ("heldout", "beauty", 0.5)),
              rows=("full", "tri", "tri_floor", "full_none", "tri_none"),
              md=uc.REPO_ROOT / "results" / "corr_triangle_floor_diagnosis_b.md",
              csv=uc.REPO_ROOT / "results" / "corr_triangle_floor_diagnosis_b.csv")


def one(t, eps, seed, tri, extra=None, shrinkage="auto"):
    import matrixdp.feasible as feas
    from matrixdp.models import DPCovariance
    from matrixdp.models.experimental import CovarianceOptions
    from utility_covariance import correlation

    got = {}
    orig = feas.projected_stein_shrink

    def spy(matrix, noise_variance, reference, **k):
        got.update(y=np.array(matrix), var=np.array(noise_variance), r=np.array(reference),
                   w=np.array(k["weights"]))
        out = orig(matrix, noise_variance, reference, **k)
        got["factors"] = np.array(out.factors)
        return out

    feas.projected_stein_shrink = spy
    try:
        est = DPCovariance(epsilon=eps, delta=uc.DELTA, bounds=(t.lo, t.hi), kind="correlation",
                           random_state=seed, shrinkage=shrinkage,
                           **({"method": "adaptive"} if shrinkage == "none" else {}),
                           experimental=CovarianceOptions(adaptive_correlation_triangle=tri,
                                                          **(extra or {}))).fit(t.X)
    finally:
        feas.projected_stein_shrink = orig
    C = np.cov(np.clip(t.X, t.lo, t.hi).T, bias=True)
    R = correlation(C)
    out = {"error": float(np.linalg.norm(est.covariance_ - R) / np.linalg.norm(R)),
           "choice": est.adaptive_choice_}
    if "y" not in got:
        return {**out, **{c: float("nan") for c in COLS[1:]}}
    y, var, r, w = got["y"], got["var"], got["r"], got["w"]
    d = C.shape[0]
    iu = np.triu_indices(d, 1)
    cd = np.diag(C)
    cc = np.outer(cd, cd)
    sd = np.sqrt(np.diag(var))
    dhat = 1.0 / np.sqrt(np.diag(w))  # w_ii = 1/d̂_i²
    tr_est = float(np.sum((w * var)[iu]))
    ok = cc[iu] > 0
    out.update(
        floored=float(np.mean(np.isclose(dhat, sd))),
        dhat_over_C=float(np.median(dhat[cd > 0] / cd[cd > 0])),
        w_over_true=float(np.median((w * cc)[iu][ok])),
        tr_est=tr_est, tr_true=float(np.sum(var[iu][ok] / cc[iu][ok])),
        err_true=float(np.sum(((y - C)[iu][ok]) ** 2 / cc[iu][ok])),
        sig_est=float(np.sum((w * y * y)[iu])) - tr_est, sig_true=float(np.sum(R[iu] ** 2)),
        factor=float(np.mean(got["factors"][iu])),
        oracle=float(np.dot(r[iu], R[iu]) / max(np.dot(r[iu], r[iu]), 1e-300)))
    move = np.sum(((np.sqrt(w) * y - r)[iu]) ** 2)
    res = tr_est - move
    out["snr"] = out["sig_est"] / res if res > 0 else float("inf")
    return out


def main(part="a"):
    global SEED, TRIALS, CELLS, ROWS, OUT_MD, OUT_CSV
    if part == "b":
        SEED, TRIALS, CELLS, ROWS = (PART_B["seed"], PART_B["trials"], PART_B["cells"],
                                     PART_B["rows"])
        OUT_MD, OUT_CSV = PART_B["md"], PART_B["csv"]
    seeds = base.seeds_of(SEED, TRIALS)
    from _check_tables_heldout import heldout_table
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for set_, name, eps in CELLS:
            t = uc.load_table(name) if set_ == "benchmark" else heldout_table(name)
            for row in ROWS:
                for i, s in enumerate(seeds):
                    rows.append({"table": name, "epsilon": eps, "row": row, "trial": i,
                                 **one(t, eps, s, row.startswith("tri"),
                                       {"triangle_floor": True} if row == "tri_floor" else None,
                                       "none" if row.endswith("_none") else "auto")})
            print(name, eps, "done", flush=True)
    with open(OUT_CSV, "w", newline="") as fh:
        wr = csv.DictWriter(fh, fieldnames=list(rows[0]))
        wr.writeheader()
        wr.writerows(rows)
    L = ["# Task TF diagnosis (decides nothing): the pooled floor's inputs, full draw vs triangle",
         "", "Script: `experiments/corr_triangle_floor_diagnosis.py` (columns: its docstring); "
         f"trials `results/corr_triangle_floor_diagnosis.csv`; {TRIALS} paired trials per cell "
         f"(seeds `SeedSequence({SEED})`), default shrinkage. Medians over the trials whose fit "
         "took the moments branch.", "",
         "| table | ε | row | moments | " + " | ".join(COLS) + " |",
         "|---|---|---|---|" + "---|" * len(COLS)]
    for _, name, eps in CELLS:
        for row in ROWS:
            sel = [x for x in rows if x["table"] == name and x["epsilon"] == eps
                   and x["row"] == row and x["choice"] == "moments"]
            vals = [f"{float(np.median([x[c] for x in sel])):.4g}" if sel else "-" for c in COLS]
            if part == "b":  # the error over all trials (as the ratios below)
                vals[0] = f"{float(np.median([x['error'] for x in rows if x['table'] == name and x['epsilon'] == eps and x['row'] == row])):.4g}"  # noqa: E501
            L.append(f"| {name} | {eps:g} | {row} | {len(sel)}/{TRIALS} | " + " | ".join(vals) + " |")
    if part == "b":
        L[0] = L[0] + ", part B (the gate's losing cells)"
        L[2] = L[2].replace("corr_triangle_floor_diagnosis.csv", OUT_CSV.name)
        L[2] = L[2].replace("Medians over the trials whose fit took the moments branch.",
                            "Part B: `error` is the median over all trials, the other columns "
                            "over the trials whose fit took the moments branch (`moments`).")
        L += ["", "nan: a `_none` row (no shrinkage).", "", "Ratios of medians of the error (all trials): tri_floor/full (the gate's "
              "candidate), tri/full (TC's), tri_none/full_none (the releases unshrunk).", "",
              "| table | ε | tri_floor/full | tri/full | tri_none/full_none |", "|---|---|---|---|---|"]
        for _, name, eps in CELLS:
            med = {row: float(np.median([x["error"] for x in rows if x["table"] == name
                                         and x["epsilon"] == eps and x["row"] == row]))
                   for row in ROWS}
            L.append(f"| {name} | {eps:g} | {med['tri_floor'] / med['full']:.3f} | "
                     f"{med['tri'] / med['full']:.3f} | {med['tri_none'] / med['full_none']:.3f} |")
    OUT_MD.write_text("\n".join(L) + "\n")
    print(f"wrote {OUT_MD}")


if __name__ == "__main__":
    main("b" if sys.argv[1:] == ["--part", "b"] else "a")
