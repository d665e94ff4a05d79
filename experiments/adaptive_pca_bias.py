"""Design diagnostic (non-private; round 3b, issue #24): the whitened step's clipping-bias term of
DPPCA(method="adaptive")'s PCA-loss prediction against the same term computed from the true bias.

For seeded fits of ``DPPCA(method="adaptive")`` the releases run as usual; the quantities the
prediction uses (the frame ``U``, the gaps, the whitened step's pair noise variances, ``S``, the
counts' reading ``b̂``) are captured, and the true clipping bias ``P = (1/n) Σ (1 − f²) a aᵀ`` of
the step (non-private: it reads the records) is put through the same pairwise deficit, with the
diagonal (the gap's shrinkage ``P̃_ii − P̃_jj``) and without it. Printed per fit: the bound
``min(c b̂², sat)``, the modelled terms, the true terms, the noise part, and the choice. Not a
release: a diagnostic of the design tables only (never run on the check tables).
Output: ``results/adaptive_pca_bias.md`` (``--out results``).
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _utility_common as uc  # noqa: E402
import adaptive_pca  # noqa: E402


def pair_deficit_gap(g, gp, s):
    """``(g/2)(1 − g'/√(g'² + 4s))``: the captured-variance loss (w.r.t. the true gap ``g``) of
    the top direction of a 2 × 2 block whose gap is ``g'`` and off-diagonal variance ``s``."""
    R = np.sqrt(gp * gp + 4.0 * s)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(R > 0, 0.5 * g * (1.0 - gp / np.maximum(R, 1e-300)), 0.0)


def one_fit(t, eps, k, seed, bias):
    from matrixdp.models import DPPCA, adaptive

    cap = {}
    orig_model, orig_counts = adaptive.pca_bias_model, adaptive.clipping_loss_counts

    def model(b, S, U, q, gaps, s_cp, weights=None, ratio=adaptive.BIN_RATIO):
        cap.update(b=b, S=S, U=U, q=q, gaps=gaps, s_cp=s_cp)
        return orig_model(b, S, U, q, gaps, s_cp, weights, ratio)

    def counts(Xl, center, m, A, r2, weights, edges):
        cap.update(center=center, m=m, A=A, r2=r2)
        return orig_counts(Xl, center, m, A, r2, weights, edges)

    uc.set_adaptive("pca_bias_model", model)
    uc.set_adaptive("clipping_loss_counts", counts)
    try:
        est = DPPCA(n_components=k, epsilon=eps, delta=uc.DELTA, bounds=(t.lo, t.hi),
                    random_state=seed, method="adaptive").fit(t.X)
    finally:
        uc.set_adaptive("pca_bias_model", orig_model)
        uc.set_adaptive("clipping_loss_counts", orig_counts)
    pred = est.adaptive_predicted_
    out = {"choice": est.adaptive_choice_, "pred_cp": pred["coinpress"],
           "pred_mom": pred["moments"], "bias_used": pred["coinpress_bias"]}
    if "S" not in cap or "A" not in cap:
        return out
    live = t.hi > t.lo
    a = t.X[:, live] - cap["center"] - cap["m"]
    y = a @ cap["A"]
    nrm2 = np.einsum("ij,ij->i", y, y)
    f2 = np.minimum(1.0, cap["r2"] / np.maximum(nrm2, 1e-300))
    P = (a * (1.0 - f2)[:, None]).T @ a / a.shape[0]
    U, q, gaps, s_cp, S = cap["U"], cap["q"], cap["gaps"], cap["s_cp"], cap["S"]
    Pt = U.T @ P @ U
    f0, _ = adaptive.pca_deficit(gaps, s_cp)
    true_off = float(np.sum(adaptive.pca_deficit(gaps, s_cp + Pt[:q, q:] ** 2)[0] - f0))
    gp = gaps - (np.diagonal(Pt)[:q, None] - np.diagonal(Pt)[None, q:])
    true_full = float(np.sum(np.where(gaps > 0, pair_deficit_gap(gaps, gp, s_cp + Pt[:q, q:] ** 2),
                                      0.0) - f0))
    St = U.T @ S @ U
    # the first model tried (not adopted): the clipped records isotropic in the whitened space,
    # P = b_mid·S/tr(S)
    iso = float(np.sum(adaptive.pca_deficit(
        gaps, s_cp + (cap["b"] / math.sqrt(adaptive.BIN_RATIO) / float(np.trace(S))
                      * St[:q, q:]) ** 2)[0] - f0))
    df_max = float(adaptive.pca_deficit(gaps, s_cp)[1].max(initial=0.0))
    bound = min(0.5 * df_max * cap["b"] ** 2, float(np.sum(0.5 * gaps - f0)))
    out.update(b_hat=cap["b"], b_true=float(np.trace(P)), noise=float(np.sum(f0)),
               bound=bound, model=min(bound, orig_model(cap["b"], S, U, q, gaps, s_cp)),
               isotropic=iso, true_off=true_off, true_full=true_full)
    return out


COLUMNS = ("choice", "pred_mom", "noise", "bound", "model", "isotropic", "true_off", "true_full",
           "b_hat", "b_true")


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--cells", nargs="+", default=["adult:2:1", "adult:2:2", "adult:2:5",
                                                   "movement_aal:2:2", "movement_aal:2:5"])
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--out", type=Path, default=None, help="write adaptive_pca_bias.md there")
    args = p.parse_args(argv)
    seeds = np.random.SeedSequence(20261124).generate_state(args.seeds)
    lines = ["# The whitened step's clipping-bias term of DPPCA(method='adaptive'): bound, "
             "models and the true bias (non-private diagnostic)", "",
             f"Generated by `experiments/adaptive_pca_bias.py --seeds {args.seeds}` (trial seeds "
             "of `adaptive_pca.py`, seed 20261124). Per fit of `DPPCA(method=\"adaptive\")` "
             "(round-3b code): `pred_mom` the moments branch's predicted deficit, `noise` the "
             "whitened step's noise part, `bound` round 3's bias term `min(c b̂², sat)`, `model` "
             "the one-direction model (the library's, capped by the bound), `isotropic` the "
             "first model tried (clipped records isotropic in the whitened space; not adopted), "
             "`true_off` the same pairwise term from the true clipping bias `P` (its "
             "off-diagonal couplings in the prediction's frame), `true_full` with the true "
             "bias's gap shrinkage `P̃_ii − P̃_jj` too; `b_hat` the counts' reading, `b_true` "
             "`tr P`. Absolute units of the original features. Design tables only.", "",
             "| table | k | ε | seed | " + " | ".join(COLUMNS) + " |",
             "|" + "---|" * (4 + len(COLUMNS))]
    for cell in args.cells:
        ds, k, eps = cell.split(":")
        t = adaptive_pca.load(ds)
        for i, seed in enumerate(seeds):
            r = one_fit(t, float(eps), int(k), int(seed), "model")
            vals = [r.get(c, "") for c in COLUMNS]
            lines.append(f"| {ds} | {k} | {eps} | {i} | " + " | ".join(
                f"{v:.3g}" if isinstance(v, float) else str(v) for v in vals) + " |")
            print(lines[-1], flush=True)
    lines.append("")
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "adaptive_pca_bias.md").write_text("\n".join(lines))
        print(f"wrote {args.out / 'adaptive_pca_bias.md'}")


if __name__ == "__main__":
    main()
