"""Task CS (issue #24): why the correlation default's error rises from ε = 0.1 to 0.3.

Diagnosis only (nothing here is gated or tuned on a development table). The cell is the ε scan's
(``experiments/epsilon_monotonicity_scan.py``, ``make_data``): n = 200, d = 10, public box
[-4, 4], ``DPCovariance(kind="correlation")`` at its defaults (the correlation-ranked adaptive
release, whose moments branch is shrunk with ``shrinkage="projected"``), δ = 1e-6, trials
``s = 0..N-1`` (data seed ``10_000 + s``, ``random_state = s``), at ε in ``EPSILONS``.

Per fit it records, for every group of ``shrink_covariance``'s projected shrinkage (captured by
wrapping :func:`matrixdp.feasible.projected_stein_shrink`, :func:`~matrixdp.feasible.james_stein_shrink`
and :func:`matrixdp.models.covariance.projected_noise_ratio`; the fit itself is unchanged):
the group's size, its mean PUBLIC noise ratio ``q = V_ij/(h_i h_j)²`` (the switch is
``q >= NOISE_BOUND_RATIO``), its mean noise variance in the release's correlation units
``tau = w_ij ind_ij`` (``w = 1/(d̂_i d̂_j)``, released variances), the branch (raw James–Stein
or projected), the raw James–Stein factor, the projected factor before the floor and the factor
used. Errors (Frobenius distance to the non-private correlation) of: the default; the opt-in
``projected_floor="continuous"`` (floor ``½·clip(1/q - 1, 0, 1)·clip(ŝ, 0, 1)``, ``ŝ`` the raw
release's estimated signal-to-noise ``(‖y_g‖²_ω - tr Σ_g)/tr Σ_g`` of the group, also recorded);
``continuous_q``, its public ramp alone (``½·clip(1/q - 1, 0, 1)``, diagnosis only); floor 0
everywhere below the switch; the identity. Same seeds for all (paired).

Command (resumable; about 2 minutes)::

    PYTHONPATH=src nice -n 10 python experiments/correlation_floor_diagnosis.py [--trials 20]

writes ``results/correlation_floor_diagnosis_trials.csv`` (one row per fit and variant),
``results/correlation_floor_diagnosis_groups.csv`` (one row per default fit and group) and
``results/correlation_floor_diagnosis.md``.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "experiments"))
OUT = ROOT / "results"
TRIALS = OUT / "correlation_floor_diagnosis_trials.csv"
GROUPS = OUT / "correlation_floor_diagnosis_groups.csv"
REPORT = OUT / "correlation_floor_diagnosis.md"
EPSILONS = (0.1, 0.15, 0.2, 0.25, 0.3, 0.5, 1.0, 3.0, 10.0)
N, D = 200, 10
VARIANTS = ("default", "continuous", "continuous_q", "floor0", "identity")


class Capture:
    """Wraps the shrinkage internals to record the groups of the last projected fit."""

    def __init__(self):
        import matrixdp.feasible as feasible
        import matrixdp.models.covariance as cov
        self.feasible, self.cov = feasible, cov
        self.orig = (feasible.projected_stein_shrink, feasible.james_stein_shrink,
                     cov.projected_noise_ratio, cov.continuous_floor)
        self.mode = "default"
        self.reset()

    def reset(self):
        self.js = self.proj0 = self.ratio = self.labels = self.tau = None

    def install(self):
        f_proj, f_js, f_ratio, f_floor = self.orig
        cap = self

        def proj(matrix, noise_variance, reference, **kw):
            if cap.mode == "continuous_q":
                kw["floor_signal"] = "none"
            elif cap.mode == "floor0":
                kw["floor"] = 0.0
            res = f_proj(matrix, noise_variance, reference, **kw)
            kw0 = dict(kw, floor=0.0)
            cap.proj0 = f_proj(matrix, noise_variance, reference, **kw0).factors
            w, ind = kw["weights"], kw["independent_variance"]
            cap.tau_entry = w * ind
            iu, inv, uniq, ss, c, tr = cap.feasible._stein_groups(
                matrix, noise_variance, False, w, kw["groups"], ind, kw["correlated_eigenvalue"])
            snr = np.zeros(matrix.shape)
            snr[iu] = ((ss - tr) / np.where(tr > 0, tr, 1.0))[inv]
            cap.snr = snr
            return res

        def js(matrix, noise_variance, **kw):
            res = f_js(matrix, noise_variance, **kw)
            cap.js = res.factors
            return res

        def ratio(G, V, t, h, labels, neighbouring="replace-one"):
            out = f_ratio(G, V, t, h, labels, neighbouring)
            cap.ratio, cap.labels = out, np.asarray(labels)
            lab = cap.labels
            pos = lab >= 0
            tau = np.zeros_like(out)
            if pos.any():
                nl = int(lab.max()) + 1
                mean = (np.bincount(lab[pos], weights=cap.tau_entry[pos], minlength=nl)
                        / np.maximum(np.bincount(lab[pos], minlength=nl), 1))
                tau[pos] = mean[lab[pos]]
            cap.tau = tau
            return out

        self.feasible.projected_stein_shrink = proj
        self.feasible.james_stein_shrink = js
        self.cov.projected_noise_ratio = ratio


def fit(X, eps, seed, variant, cap):
    from matrixdp.models import DPCovariance
    from matrixdp.models.experimental import CovarianceOptions
    from epsilon_monotonicity_scan import B, DELTA
    cap.reset()
    cap.mode = variant
    opts = CovarianceOptions(projected_floor="constant" if variant == "default" else "continuous")
    m = DPCovariance(epsilon=eps, delta=DELTA, bounds=(-B, B), kind="correlation",
                     random_state=seed, experimental=opts).fit(X)
    return m


def groups_rows(m, cap, eps, seed):
    if cap.labels is None or m.shrinkage_factors_ is None:
        return [{"eps": eps, "seed": seed, "group": -1, "size": 0, "q": "", "tau": "",
                 "branch": "no moments branch", "raw_js": "", "proj_unfloored": "",
                 "snr": "", "used": ""}]
    rows = []
    lab = cap.labels
    iu = np.triu_indices(lab.shape[0], 1)
    for g in np.unique(lab[iu]):
        if g < 0:
            continue
        sel = tuple(a[lab[iu] == g] for a in iu)
        q = float(cap.ratio[sel][0])
        rows.append({"eps": eps, "seed": seed, "group": int(g), "size": int(sel[0].size),
                     "q": f"{q:.4g}", "tau": f"{float(cap.tau[sel][0]):.4g}",
                     "branch": "raw" if q >= 1.0 else "projected",
                     "raw_js": f"{float(cap.js[sel][0]):.4g}",
                     "proj_unfloored": f"{float(cap.proj0[sel][0]):.4g}",
                     "snr": f"{float(cap.snr[sel][0]):.4g}",
                     "used": f"{float(m.shrinkage_factors_[sel][0]):.4g}"})
    return rows


def load(path):
    if not path.exists():
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def append(path, rows):
    new = not path.exists()
    with open(path, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        if new:
            w.writeheader()
        w.writerows(rows)


def report(trials, groups):
    from scipy.stats import wilcoxon
    err = {}
    for r in trials:
        err.setdefault((r["variant"], float(r["eps"])), {})[int(r["seed"])] = float(r["error"])
    seeds = sorted(err[("default", EPSILONS[0])])
    lines = ["# Correlation default: the rise from ε = 0.1 to 0.3 (task CS diagnosis)", "",
             "Script: `experiments/correlation_floor_diagnosis.py` (docstring); trials: "
             "`results/correlation_floor_diagnosis_trials.csv`, groups: "
             "`results/correlation_floor_diagnosis_groups.csv`. Cell: the ε scan's n = 200, "
             f"d = 10, box [-4, 4], {len(seeds)} paired seeds. Diagnosis only.", "",
             "## Median error (Frobenius distance to the non-private correlation)", "",
             "| ε | " + " | ".join(VARIANTS) + " |", "|---" * (len(VARIANTS) + 1) + "|"]
    for e in EPSILONS:
        lines.append(f"| {e:g} | " + " | ".join(
            f"{np.median([err[(v, e)][s] for s in seeds]):.3f}" for v in VARIANTS) + " |")
    lines += ["", "Rise test per variant (consecutive ε, paired one-sided Wilcoxon of the log "
              "ratio, p < 0.01 and ratio of medians > 1.05, the scan's rule):", ""]
    for v in VARIANTS:
        flags = []
        for a, b in zip(EPSILONS[:-1], EPSILONS[1:]):
            x = np.array([err[(v, a)][s] for s in seeds])
            y = np.array([err[(v, b)][s] for s in seeds])
            lr = np.log(y / x)
            p = 1.0 if np.all(lr == 0) else float(wilcoxon(lr, alternative="greater").pvalue)
            rm = np.median(y) / np.median(x)
            if p < 0.01 and rm > 1.05:
                flags.append(f"{a:g}→{b:g} ×{rm:.2f} (p={p:.1g})")
        lines.append(f"- `{v}`: " + ("; ".join(flags) if flags else "no rise"))
    lines += ["", "## The default's groups (per ε: over all fits and groups)", "",
              "| ε | fits with moments branch | groups | raw branch (q ≥ 1) | median q | "
              "median tau | median ŝ | median raw JS factor | median projected factor (no floor) | "
              "share of projected groups at the floor ½ | median factor used |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
    for e in EPSILONS:
        gr = [g for g in groups if float(g["eps"]) == e]
        fits = {g["seed"] for g in gr if g["branch"] != "no moments branch"}
        gg = [g for g in gr if g["branch"] != "no moments branch"]
        if not gg:
            lines.append(f"| {e:g} | 0 | 0 | - | - | - | - | - | - | - | - |")
            continue
        raw = [g for g in gg if g["branch"] == "raw"]
        pj = [g for g in gg if g["branch"] == "projected"]
        at_floor = sum(float(g["proj_unfloored"]) < 0.5 for g in pj)

        def med(key, rows=gg):
            return f"{np.median([float(g[key]) for g in rows]):.3g}" if rows else "-"
        lines.append(f"| {e:g} | {len(fits)}/{len(seeds)} | {len(gg)} | {len(raw)} | {med('q')} "
                     f"| {med('tau')} | {med('snr')} | {med('raw_js')} | {med('proj_unfloored', pj)} | "
                     f"{at_floor}/{len(pj)} | {med('used')} |")
    REPORT.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--report", action="store_true")
    a = ap.parse_args(argv)
    from epsilon_monotonicity_scan import make_data
    cap = Capture()
    cap.install()
    done = {(r["variant"], r["eps"], r["seed"]) for r in load(TRIALS)}
    if not a.report:
        for seed in range(a.trials):
            X, _ = make_data(N, D, seed)
            truth = np.corrcoef(X, rowvar=False)
            if all((v, str(e), str(seed)) in done for v in VARIANTS for e in EPSILONS):
                continue
            rows, grows = [], []
            for e in EPSILONS:
                for v in VARIANTS:
                    if v == "identity":
                        est = np.eye(D)
                    else:
                        m = fit(X, e, seed, v, cap)
                        est = m.covariance_
                        if v == "default":
                            grows += groups_rows(m, cap, e, seed)
                    rows.append({"variant": v, "eps": e, "seed": seed,
                                 "error": f"{np.linalg.norm(est - truth):.6g}"})
            append(TRIALS, rows)
            append(GROUPS, grows)
            print("seed", seed, flush=True)
    report(load(TRIALS), load(GROUPS))


if __name__ == "__main__":
    main()
