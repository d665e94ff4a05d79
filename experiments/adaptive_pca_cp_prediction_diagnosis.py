"""Why the CoinPress branch's predicted deficit is 10⁵× too low after a PCA-allocated first look: the prediction decomposed term by term (round 3f, issue #24, task PC stage 1).

Diagnostic (benchmark tables, seen; nothing in the library is chosen from it by itself). For each
cell and trial seed (the first ``--trials`` seeds of ``adaptive_pca_first_pca.py``'s cells,
``SeedSequence(20261124)``), ``DPPCA(method="adaptive", adaptive_first="pca")`` is fitted with
its last release forced to the CoinPress branch (``branch="coinpress"``: the first release, the
counts and the predictions are the draws of the unforced fit; only the last release differs from
it when the unforced fit chose the moments branch). The library's internal functions are wrapped
(recording only, the values are passed through unchanged) to capture the first look ``Ĉ₁``, the
whitening ``S``, the radius ``r²``, the frame and the gaps, the whitened release's noise sd ``σ``
and its released matrix. Against the non-private covariance ``C`` (in the original units) the
script then reports, per cell (medians over trials):

* **the prediction** the decision used: its noise part (pairwise, off-diagonal) and its clipping
  bias part, relative to λ₁ + … + λ_k;
* **the whitening error**: for the true top-k directions ``u_i`` and the first complement one,
  ``uᵀSu / λ`` (how much wider than the truth the whitening is in that direction);
* **the clipping**: the fraction of records the whitened step clips, the true mean clipping loss
  ``b`` against the reading ``b̂``; the deficit of the noiseless clipped release (clipping alone,
  after the same post-processing as the estimator);
* **the noise alone**: the deficit of ``C`` plus the release's actual noise (unwhitened), and the
  prediction's own formula evaluated in the TRUE frame with the TRUE gaps (is the frame wrong, or
  the formula?);
* **the diagonal term the pairwise formula leaves out**: the sd of the whitened noise on the top
  directions' variances ``σ·ũ_iᵀSũ_i`` (``ũ`` the frame's top directions) against the frame's
  smallest top-complement gap, and the same in the true frame;
* **the forced CoinPress deficit** (the measured branch; equal to the estimator's output), and
  the fits where it exceeds 0.5 (a top direction lost);
* **round 3f's prediction** (``diagonal_noise=True``): the pairwise formula with the step's noise
  on the released variances (:func:`matrixdp.models.adaptive.pca_deficit_diagonal`), in the
  decision's frame, and the largest ``σ·uᵢᵀSuᵢ/λᵢ`` over the true top directions (the step's
  noise sd on a top variance over that variance); for the TRUE top direction ``u₁``: the first
  look's noise sd on its variance, the step's (``σ·u₁ᵀSu₁``) and the frame's gap of its first
  top direction to the complement (median over the pairs that count), each over ``λ₁``.

DP: every fit is an ordinary (ε, δ)-DP fit; the comparisons with ``C`` are a non-private
diagnostic, as the benchmark's deficit.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _utility_common as uc  # noqa: E402
from adaptive_pca import load as load_table  # noqa: E402
from matrixdp.models.experimental import PCAOptions

NAME = "adaptive_pca_cp_prediction_diagnosis"
CELLS = (("lending_club", 5, 0.5), ("lending_club", 5, 1.0), ("lending_club", 2, 0.5),
         ("ctg", 2, 5.0), ("adult", 5, 1.0), ("adult", 5, 0.1), ("synthetic", 5, 2.0))


def top(C, k):
    lam, U = np.linalg.eigh(0.5 * (C + C.T))
    return lam[::-1], U[:, ::-1]


def deficit_of(cov, C, k, best, lo, hi):
    """The estimator's post-processing (project_feasible, unit-box units) then the top-k
    subspace's captured-variance deficit against ``C``."""
    from matrixdp.feasible import project_feasible

    cov = project_feasible(cov, lo, hi, "covariance", units="unit-box")
    _, U = top(cov, k)
    q = U[:, :k]
    return 1.0 - float(np.trace(q.T @ C @ q)) / best


class Recorder:
    """Wrap functions of ``matrixdp.models.adaptive`` (values passed through unchanged)."""

    def __init__(self):
        from matrixdp.models import adaptive as ad

        self.ad = ad
        self.rec = {}
        self.orig = {}

    def __enter__(self):
        ad = self.ad
        names = ("whitening", "pca_frame", "coinpress_pair_variance", "whitened_release",
                 "unwhiten", "first_noise_scale")
        for nm in names:
            self.orig[nm] = getattr(ad, nm)

        def whitening(C, Q, m, h, **kw):
            out = self.orig["whitening"](C, Q, m, h, **kw)
            self.rec.update(C1=C.copy(), Q=Q.copy(), m=m.copy(), S=out[0], A=out[1],
                            A_inv=out[2], r2=out[3])
            return out

        def pca_frame(C1, V1, m, t, q, **kw):
            U, g = self.orig["pca_frame"](C1, V1, m, t, q, **kw)
            self.rec.update(U1=U, gaps=g, V1=V1, t=t)
            return U, g

        def cpv(S, U, q, sigma):
            self.rec["sigma"] = sigma
            return self.orig["coinpress_pair_variance"](S, U, q, sigma)

        def wr(*a, **kw):
            out = self.orig["whitened_release"](*a, **kw)
            self.rec["Gy"] = np.array(out[0])
            self.rec["sigma_rel"] = out[1]
            return out

        def unw(Gy, r2, m, A_inv):
            out = self.orig["unwhiten"](Gy, r2, m, A_inv)
            self.rec["C_rel"] = out[0]
            return out

        for nm, fn in (("whitening", whitening), ("pca_frame", pca_frame),
                       ("coinpress_pair_variance", cpv), ("whitened_release", wr),
                       ("unwhiten", unw)):
            uc.set_adaptive(nm, fn)
        return self

    def __exit__(self, *exc):
        for nm, fn in self.orig.items():
            uc.set_adaptive(nm, fn)


def one(t, k, eps, seed, first):
    from matrixdp.models import DPPCA
    from matrixdp.models.adaptive import pca_deficit
    from matrixdp.models.coinpress import whitened_records
    from matrixdp.feasible import project_covariance

    X, lo, hi = t.X, t.lo, t.hi
    C = np.cov(X.T, bias=True)
    lam, U = top(C, k)
    best = float(lam[:k].sum())
    with Recorder() as R, uc.adaptive_options(branch="coinpress"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = DPPCA(n_components=k, epsilon=eps, delta=uc.DELTA, bounds=(lo, hi),
                    random_state=seed, method="adaptive", experimental=PCAOptions(adaptive_first=first)).fit(X)
    r = R.rec
    pred = est.adaptive_predicted_
    out = {"forced_cp": None, "pred_cp": pred["coinpress"] / best,
           "pred_cp_bias": pred["coinpress_bias"] / best,
           "pred_cp_noise": (pred["coinpress"] - pred["coinpress_bias"]) / best,
           "pred_mom": pred["moments"] / best, "b_hat": pred["clipping_loss"]}
    q, _ = np.linalg.qr(est.components_.T)
    out["forced_cp"] = 1.0 - float(np.trace(q.T @ C @ q)) / best
    S, A, A_inv, r2, m = r["S"], r["A"], r["A_inv"], r["r2"], r["m"]
    live = hi > lo
    h = 0.5 * (hi - lo)
    center = 0.5 * (lo + hi)
    # whitening error in the true frame: uᵀSu / λ for the top k and the (k+1)-th direction
    St_true = U.T @ S @ U
    ratio = np.diagonal(St_true) / np.maximum(lam, 1e-300)
    out["S_over_lam_top_max"] = float(ratio[:k].max())
    out["S_over_lam_next"] = float(ratio[k])
    # the first look's error on the true top directions, in units of λ
    E1 = r["C1"] - C
    out["first_err_top_rel"] = float(np.max(np.abs(np.diagonal(U.T @ E1 @ U)[:k]) / lam[:k]))
    # whitened true covariance: the spread of the records in the whitened space
    wC = A @ C @ A
    out["whitened_C_max_eig"] = float(np.linalg.eigvalsh(wC).max())
    out["r2"] = float(r2)
    # clipping: the true records through the same whitening
    Y, f = whitened_records(X[:, live], center[live], m, A, r2)
    out["frac_clipped"] = float(np.mean(f < 1.0))
    a = X[:, live] - center[live] - m
    g = np.einsum("ij,ij->i", a, a) * (1.0 - f * f)
    out["b_true"] = float(np.mean(g))
    n = X.shape[0]
    Z = np.column_stack([Y, np.full(n, np.sqrt(r2 / Y.shape[1]))])
    Gy_clean = Z.T @ Z / n
    C_clip, _ = R.orig["unwhiten"](Gy_clean, r2, m, A_inv)
    C_clip = project_covariance(C_clip, variance_max=h * h)
    out["def_clip_only"] = deficit_of(C_clip, C, k, best, lo, hi)
    C_rel = r["C_rel"]
    C_rel_p = project_covariance(C_rel, variance_max=h * h)
    noise = C_rel - R.orig["unwhiten"](Gy_clean, r2, m, A_inv)[0]
    out["def_noise_only"] = deficit_of(project_covariance(C + noise, variance_max=h * h), C, k,
                                       best, lo, hi)
    out["def_check"] = deficit_of(C_rel_p, C, k, best, lo, hi)
    # the pairwise formula in the TRUE frame with the TRUE gaps
    sig = r["sigma"]
    s_true = 0.5 * sig * sig * (np.diagonal(St_true)[:k, None] * np.diagonal(St_true)[None, k:]
                                + St_true[:k, k:] ** 2)
    g_true = lam[:k, None] - lam[None, k:]
    out["pred_noise_true_frame"] = float(pca_deficit(g_true, s_true)[0].sum()) / best
    # the diagonal noise the pairwise formula leaves out: sd of the released variance of the
    # frame's top directions, against the smallest counted gap
    U1, gaps = r["U1"], r["gaps"]
    St1 = U1.T @ S @ U1
    out["diag_sd_frame_top_over_gap"] = float(np.max(sig * np.diagonal(St1)[:k])
                                              / max(np.min(np.where(gaps > 0, gaps, np.inf)),
                                                    1e-300))
    out["diag_sd_true_top_over_gap"] = float(sig * np.max(np.diagonal(St_true)[:k])
                                             / max(lam[k - 1] - lam[k], 1e-300))
    # round 3f: the pairwise prediction with the step's noise on the released variances
    # (pca_deficit_diagonal, the formula of diagonal_noise=True) in the decision's frame
    from matrixdp.models.adaptive import pca_deficit_diagonal

    s1 = 0.5 * sig * sig * (np.diagonal(St1)[:k, None] * np.diagonal(St1)[None, k:]
                            + St1[:k, k:] ** 2)
    d1 = sig * sig * np.diagonal(St1) ** 2
    f_diag = np.where(gaps > 0, pca_deficit_diagonal(gaps, s1, d1[:k, None] + d1[None, k:]), 0)
    out["pred_noise_diag"] = float(f_diag.sum()) / best
    # the step's noise sd on the released variance of each true top direction, over λ_i
    out["diag_sd_over_lam_top"] = float(np.max(sig * np.diagonal(St_true)[:k] / lam[:k]))
    out["catastrophic"] = float(out["forced_cp"] > 0.5)
    # the TRUE top direction u₁: the first look's noise sd on its variance, the step's, and the
    # frame's gaps of its first top direction to the complement (pairs that count), over λ₁
    from matrixdp.models.adaptive import moments_pair_variance

    out["first_sd_u1_over_lam1"] = float(np.sqrt(moments_pair_variance(
        r["V1"], m, r["t"], U, 1)[1][0]) / lam[0])
    out["step_sd_u1_over_lam1"] = float(sig * St_true[0, 0] / lam[0])
    row0 = gaps[0][gaps[0] > 0]
    out["frame_gap_u1_over_lam1"] = float(np.median(row0) / lam[0]) if row0.size else 0.0
    # the frame against the truth: the variance of C the frame's top-k subspace misses
    qf = U1[:, :k]
    out["frame_deficit"] = 1.0 - float(np.trace(qf.T @ C @ qf)) / best
    # the frame's gaps against the true eigengap
    out["frame_min_gap_over_true"] = float(np.min(np.where(gaps > 0, gaps, np.inf))
                                           / max(lam[k - 1] - lam[k], 1e-300))
    return out


KEYS = ("forced_cp", "def_check", "pred_cp", "pred_cp_noise", "pred_cp_bias",
        "pred_noise_diag", "diag_sd_over_lam_top", "first_sd_u1_over_lam1",
        "step_sd_u1_over_lam1", "frame_gap_u1_over_lam1",
        "pred_noise_true_frame", "def_noise_only", "def_clip_only", "frac_clipped", "b_true",
        "b_hat", "S_over_lam_top_max", "S_over_lam_next", "first_err_top_rel",
        "whitened_C_max_eig", "r2", "diag_sd_frame_top_over_gap", "diag_sd_true_top_over_gap",
        "frame_deficit", "frame_min_gap_over_true", "pred_mom", "catastrophic")


def run(args):
    seeds = np.random.SeedSequence(args.seed).generate_state(args.trials)
    rows, tables = [], {}
    for ds, k, eps in CELLS:
        if args.datasets and ds not in args.datasets:
            continue
        if ds not in tables:
            tables[ds] = load_table(ds)
        for first in ("covariance", "pca"):
            recs = [one(tables[ds], k, eps, int(s), first) for s in seeds]
            row = {"dataset": ds, "k": k, "epsilon": eps, "first_look": first,
                   "trials": args.trials}
            for key in KEYS:
                row[key] = float(np.median([r[key] for r in recs]))
            row["catastrophic"] = f"{int(sum(r['catastrophic'] for r in recs))}/{args.trials}"
            rows.append(row)
            print(f"  {ds} k={k} eps={eps:g} {first} done", flush=True)
    return rows


HEAD = (("forced_cp", "cp forced"), ("pred_cp_noise", "pred. noise"),
        ("pred_cp_bias", "pred. bias"), ("pred_noise_true_frame", "pred. noise, true frame"),
        ("pred_noise_diag", "pred. noise + diagonal (3f)"),
        ("diag_sd_over_lam_top", "max σ·uᵀSu/λ (true top)"), ("catastrophic", "deficit > 0.5"),
        ("first_sd_u1_over_lam1", "first look's sd on λ₁ / λ₁"),
        ("step_sd_u1_over_lam1", "σ·u₁ᵀSu₁ / λ₁"),
        ("frame_gap_u1_over_lam1", "frame gap of û₁ / λ₁"),
        ("def_noise_only", "noise only"), ("def_clip_only", "clipping only"),
        ("frac_clipped", "clipped"), ("b_true", "b true"), ("b_hat", "b̂"),
        ("S_over_lam_top_max", "max uᵀSu/λ top"), ("S_over_lam_next", "uᵀSu/λ k+1"),
        ("whitened_C_max_eig", "max eig ACA"), ("r2", "r²"),
        ("diag_sd_frame_top_over_gap", "diag sd / gap (frame)"),
        ("diag_sd_true_top_over_gap", "diag sd / gap (true)"),
        ("frame_deficit", "frame deficit"), ("frame_min_gap_over_true", "frame gap / true gap"))


def write(rows, args):
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    uc.write_rows(out / f"{NAME}.csv", rows)
    lines = [f"# {__doc__.splitlines()[0]}", "",
             f"Generated by `experiments/{NAME}.py --trials {args.trials} --seed {args.seed}` "
             "(run from `experiments/`, `PYTHONPATH=src`). Benchmark tables (seen). Each row: "
             "`DPPCA(method='adaptive', adaptive_first=<first look>)` with the last release "
             "forced to the CoinPress branch, medians over trials; deficits and predictions "
             "relative to λ₁ + … + λ_k; the columns are defined in the script's docstring.", "",
             "| dataset | k | ε | first look | " + " | ".join(h for _, h in HEAD) + " |",
             "|" + "---|" * (4 + len(HEAD))]
    for r in rows:
        lines.append(f"| {r['dataset']} | {r['k']} | {r['epsilon']:g} | {r['first_look']} | "
                     + " | ".join(r[key] if isinstance(r[key], str) else uc.fmt(r[key])
                                  for key, _ in HEAD) + " |")
    path = out / f"{NAME}.md"
    path.write_text("\n".join(lines) + "\n")
    return path


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--trials", type=int, default=10)
    p.add_argument("--seed", type=int, default=20261124)
    p.add_argument("--datasets", nargs="*", default=None)
    p.add_argument("--out", type=Path, default=uc.DEFAULT_OUT)
    args = p.parse_args(argv)
    print(f"wrote {write(run(args), args)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
