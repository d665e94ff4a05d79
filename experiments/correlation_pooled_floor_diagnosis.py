"""Task CS2 (issue #24) diagnosis, NOT gating evidence: why ``projected_floor="continuous"`` lost
at moderate ε in task CS's gate, and which signal-to-noise reading keeps the constant floor
there while dropping it where the release is noise.

For a few cells of task CS's gate (the losers at moderate-to-large ε and some winners), 10 seeds
(``SeedSequence(777)``, not the gate's), the default's moments branch is refitted and its raw
release, projected correlation ``r`` and groups are captured; the group factors
``λ_g = clip((‖y_g‖²_ω - tr Σ_g)/‖r_g‖², f_g, 1)`` are recomputed with floors ``f_g``:

- ``constant``: ½ (the default); ``zero``: 0;
- ``continuous`` (task CS): ½·ramp_g·clip(ŝ_g), ŝ_g = (‖y_g‖²_ω - tr Σ_g)/tr Σ_g per group;
- ``pooled_w``: ½·ramp_g·clip(Σ(‖y_g‖²_ω - tr Σ_g)/Σ tr Σ_g) (pooled, the raw release's noise);
- ``pooled`` (the candidate): ½·ramp_g·clip(Σ(‖y_g‖²_ω - tr Σ_g)/Σ(tr Σ_g - ‖√w∘y_g - r_g‖²));
- ``oracle``: ½·ramp_g·clip(‖θ_g‖²/‖r_g - θ_g‖²) with θ the true correlation (not available to
  a release; the floor a perfect reading of the projected correlation's signal-to-noise gives).

Error: relative Frobenius error of the moments branch's shrunk correlation (not of what the
adaptive default reports, which may take its whitened branch), ratio of medians to
``constant``. The Stein constant's correlated eigenvalue is ignored (it only decides which
groups are kept). Also reported: medians over trials of the group-median readings.

Command::

    cd experiments && nice -n 10 env PYTHONPATH=../src MATRIXDP_DATA=/work/shared/datasets \\
        python correlation_pooled_floor_diagnosis.py
"""
from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _utility_common as uc  # noqa: E402

OUT = uc.REPO_ROOT / "results" / "correlation_pooled_floor_diagnosis.md"
CELLS = [("htv", 2.0), ("catholic", 0.5), ("elem94_95", 2.0), ("jtrain3", 0.5),
         ("twoyear", 0.5), ("ctg", 2.0), ("wdbc", 5.0), ("synthetic", 0.5), ("beauty", 2.0),
         ("synthetic", 0.1), ("beauty", 0.1), ("liver", 0.5), ("liver", 1.0),
         ("lending_club", 0.1), ("crime1", 1.0), ("adult", 1.0)]
RULES = ("constant", "zero", "continuous", "pooled_w", "pooled", "oracle")
CAP: dict = {}


def _capture():
    import matrixdp.models.covariance as mc
    orig = mc.shrink_covariance

    def wrap(cov, G, V, center, t, lo, hi, kind, neighbouring="replace-one", **kw):
        if kw.get("reference") is not None:
            CAP.update(cov=cov, G=G, V=V, center=center, t=t, lo=lo, hi=hi, nb=neighbouring,
                       kw=kw)
        return orig(cov, G, V, center, t, lo, hi, kind, neighbouring, **kw)
    mc.shrink_covariance = wrap


def variants(R):
    import matrixdp.models.covariance as mc
    from matrixdp.feasible import (_group_factors, _stein_groups, james_stein_shrink,
                                   nearest_correlation, variance_groups)
    c = CAP
    cov, lo, hi, r = c["cov"], c["lo"], c["hi"], c["kw"]["reference"]
    var, m, u = mc.covariance_noise(c["G"], c["V"], c["center"], c["t"], lo, hi, c["nb"])
    d = cov.shape[0]
    h = 0.5 * (np.asarray(hi, float) - np.asarray(lo, float))
    sd = np.sqrt(np.diagonal(var))
    dd = np.minimum(np.maximum(np.diagonal(cov), sd), h * h)
    inv = np.where(dd > 0, 1 / np.where(dd > 0, dd, 1), 0)
    w = np.outer(inv, inv)
    ind = var - np.outer(m * m, u) - np.outer(u, m * m)
    np.fill_diagonal(ind, np.diagonal(var) - 4 * m * m * u)
    groups = variance_groups(w * ind, ratio=mc.CORRELATION_GROUP_RATIO)
    iu, invg, uniq, ss, cc, tr = _stein_groups(cov, var, False, w, groups, ind, 0.0)
    om = np.where(iu[0] == iu[1], 1.0, 2.0)

    def gsum(x):
        return np.bincount(invg, weights=om * x, minlength=uniq.size)
    rr, RR, rn = gsum(r[iu] ** 2), gsum(R[iu] ** 2), gsum((r[iu] - R[iu]) ** 2)
    move = gsum(((cov * np.sqrt(w))[iu] - r[iu]) ** 2)
    g = uniq >= 0
    sig = np.sum((ss - tr)[g])
    res = np.sum(tr[g]) - np.sum(move[g])
    s_pool = sig / res if res > 0 else (np.inf if sig > 0 else 0.0)
    s_pool_w = sig / np.sum(tr[g])
    s_g = (ss - tr) / np.where(tr > 0, tr, 1)
    s_or = RR / np.where(rn > 0, rn, 1)
    ratio = mc.projected_noise_ratio(c["G"], c["V"], c["t"], h, groups, c["nb"])
    ramp = (np.bincount(invg, weights=mc.continuous_floor(ratio, 1.0)[iu], minlength=uniq.size)
            / np.maximum(np.bincount(invg, minlength=uniq.size), 1))
    raw = james_stein_shrink(cov, var, weights=w, groups=groups, independent_variance=ind,
                             correlated_eigenvalue={int(k): 0.0 for k in np.unique(groups)
                                                    if k >= 0})
    floors = {"constant": np.full(uniq.size, 0.5), "zero": np.zeros(uniq.size),
              "continuous": 0.5 * ramp * np.clip(s_g, 0, 1),
              "pooled_w": 0.5 * ramp * np.clip(s_pool_w, 0, 1),
              "pooled": 0.5 * ramp * np.clip(s_pool, 0, 1),
              "oracle": 0.5 * ramp * np.clip(s_or, 0, 1)}
    lamhat = (ss - tr) / np.where(rr > 0, rr, 1)
    out = {}
    for k, f in floors.items():
        lam = np.where((cc <= 0) | (rr <= 0) | (uniq < 0), 1.0, np.clip(lamhat, f, 1.0))
        fac = np.where(ratio >= mc.NOISE_BOUND_RATIO, raw.factors,
                       _group_factors(d, iu, invg, lam))
        out[k] = np.linalg.norm(nearest_correlation(r * fac) - R) / np.linalg.norm(R)
    info = {"groups": int(g.sum()), "ŝ_g (CS)": np.median(s_g[g]), "ŝ pooled_w": s_pool_w,
            "ŝ pooled": s_pool, "oracle s_g": np.median(s_or[g]),
            "λ̂_g": np.median(lamhat[g]), "groups λ̂<½": int(np.sum(g & (lamhat < 0.5) & (cc > 0)))}
    return out, info


def main() -> int:
    warnings.simplefilter("ignore")
    from _check_tables_heldout import heldout_table
    from utility_covariance import correlation

    from matrixdp.models import DPCovariance
    _capture()
    seeds = [int(s) for s in np.random.SeedSequence(777).generate_state(10)]
    lines = ["# Task CS2 diagnosis: which signal-to-noise reading should scale the floor",
             "", "Script: `experiments/correlation_pooled_floor_diagnosis.py` (its docstring "
             "says what is computed). DIAGNOSIS ONLY, 10 seeds (`SeedSequence(777)`), not the "
             "gate's; the moments branch's error, ratio of medians to `constant`.", "",
             "| table | ε | " + " | ".join(RULES) + " | groups | ŝ_g (CS) | ŝ pooled_w | "
             "ŝ pooled | oracle s_g | λ̂_g | groups λ̂<½ |",
             "|---|---|" + "---|" * (len(RULES) + 7)]
    for name, eps in CELLS:
        t = uc.load_table(name) if name in uc.DATASETS else heldout_table(name)
        R = correlation(np.cov(t.X.T, bias=True))
        errs, infos = {}, []
        for s in seeds:
            CAP.clear()
            DPCovariance(epsilon=eps, delta=uc.DELTA, bounds=(t.lo, t.hi), kind="correlation",
                         random_state=s).fit(t.X)
            if not CAP:
                continue
            o, info = variants(R)
            for k, v in o.items():
                errs.setdefault(k, []).append(v)
            infos.append(info)
        if not errs:
            continue
        base = np.median(errs["constant"])
        lines.append(f"| {name} | {eps:g} | " + " | ".join(
            f"{np.median(errs[k]) / base:.3f}" for k in RULES) + " | " + " | ".join(
            f"{np.median([i[k] for i in infos]):.3g}" for k in infos[0]) + " |")
        print(lines[-1], flush=True)
    lines += ["", f"Trials per cell: those of the 10 seeds whose moments branch applied "
              "`shrinkage=\"projected\"` (all 10 unless the fit took another path)."]
    OUT.write_text("\n".join(lines) + "\n")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
