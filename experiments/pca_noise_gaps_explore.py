"""Exploration (issue #24, task PN; DIAGNOSIS ONLY, nothing is chosen or gated from it): gap
estimates that remove more of the first look's noise, with the pair losses normalised
(``noise_pairs="normalised"``), on the cells of ``pca_noise_prediction_diagnosis.py`` (the audit's
units diagnosis only).

Task PN's diagnosis (``results/pca_noise_prediction_diagnosis.md``) found the first look's gaps
24-573x the true gaps on near-isotropic data: ``g̃² = ĝ² − N_ij`` removes one pair's noise, not
the spread of the whole release's eigenvalues. Two experimental gap rules, each a
post-processing of the first look (``pca_frame`` replaced inside this script only):

* ``nofloor``: ``g̃ = √max(ĝ² − N_ij, 0)`` (no floor ``√N_ij/2``: an unresolved gap counts 0 for
  both branches);
* ``bulk``: ``g̃ = √max(ĝ² − N_ij − 4 r, 0)``, ``r = max_a Σ_{b≠a} var(ũ_aᵀE₁ũ_b)`` over the whole
  frame (the squared half-width of the noise's eigenvalue bulk, ``(2√r)²``, an inhomogeneous
  Wigner edge), no floor.

Per trial: the measured deficit of the default, of ``noise_pairs="normalised"``, and of each rule
with it, and the forced branches' measured deficits (``meas``: the step, ``meas_mom``: moments).
Outputs ``results/pca_noise_gaps_explore.md`` and ``..._trials.csv``.

Command (from ``experiments/``)::

    nice -n 10 env PYTHONPATH=../src MATRIXDP_DATA=/work/shared/datasets \\
        python pca_noise_gaps_explore.py --trials 20
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _utility_common as uc  # noqa: E402
import pca_noise_prediction_diagnosis as dg  # noqa: E402

NAME = "pca_noise_gaps_explore"
RULES = ("nofloor", "bulk")
FIELDS = ["source", "table", "k", "epsilon", "trial", "seed", "meas", "meas_mom", "default",
          "normalised"] + [f"{r}" for r in RULES] + [f"choice_{r}" for r in
                                                      ("default", "normalised") + RULES]


def frame_rule(rule):
    from matrixdp.models import adaptive as ad

    def pca_frame(C1, V1, m, t, q, z=ad.RESOLVE_Z, top_cap=False):
        lam, U = np.linalg.eigh(0.5 * (C1 + C1.T))
        sd = np.sqrt(ad.moments_pair_variance(V1, m, t, U, 1)[1])
        o = np.argsort(-(lam + z * sd), kind="stable")
        lam, U, sd = lam[o], U[:, o], sd[o]
        k = lam.size
        s1, diag1 = ad.moments_pair_variance(V1, m, t, U, q)
        g_hat = lam[:q, None] - lam[None, q:]
        noise = diag1[:q, None] + diag1[None, q:] + 4.0 * s1[:, q:]
        if rule == "bulk":
            sk = ad.moments_pair_variance(V1, m, t, U, k)[0]
            np.fill_diagonal(sk, 0.0)
            noise = noise + 4.0 * float(sk.sum(axis=1).max())
        g = np.sqrt(np.maximum(g_hat * g_hat - noise, 0.0))
        below_cut = lam[q:] + z * sd[q:] < lam[q - 1] - z * sd[q - 1]
        above_cut = lam[:q] - z * sd[:q] > lam[q] + z * sd[q]
        keep = below_cut[None, :] | ~above_cut[:, None]
        return U, np.where(keep, g, 0.0)
    return pca_frame


def run(trials, out):
    from matrixdp.models import adaptive as ad

    path = out / f"{NAME}_trials.csv"
    done = set()
    if path.exists():
        with path.open() as fh:
            done = {(r["table"], int(r["k"]), float(r["epsilon"])) for r in csv.DictReader(fh)}
    seeds = [int(s) for s in np.random.SeedSequence(dg.SEED).generate_state(trials)]
    new = not path.exists()
    with path.open("a", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=FIELDS)
        if new:
            w.writeheader()
        for src, ds, k, eps in dg.CELLS:
            if (ds, k, float(eps)) in done:
                continue
            X, lo, hi = dg.load(src, ds)
            X = np.clip(X, lo, hi)
            C = np.cov(X.T, bias=True)
            best = float(np.sort(np.linalg.eigvalsh(C))[::-1][:k].sum())
            rows = []
            for i, s in enumerate(seeds):
                row = {"source": src, "table": ds, "k": k, "epsilon": eps, "trial": i, "seed": s}
                for lab, opts in (("meas", {"branch": "coinpress"}),
                                  ("meas_mom", {"branch": "moments"}), ("default", {}),
                                  ("normalised", {"noise_pairs": "normalised"})):
                    V, ch, _, _ = dg.fit_plain(X, lo, hi, k, eps, s, **opts)
                    row[lab] = repr(dg.deficit(V, C, best))
                    if lab in ("default", "normalised"):
                        row[f"choice_{lab}"] = ch
                orig = ad.pca_frame
                for rule in RULES:
                    uc.set_adaptive("pca_frame", frame_rule(rule))
                    try:
                        V, ch, _, _ = dg.fit_plain(X, lo, hi, k, eps, s,
                                                   noise_pairs="normalised")
                    finally:
                        uc.set_adaptive("pca_frame", orig)
                    row[rule] = repr(dg.deficit(V, C, best))
                    row[f"choice_{rule}"] = ch
                rows.append(row)
            w.writerows(rows)
            fh.flush()
            print(f"{ds} k={k} eps={eps:g} done", flush=True)
    return path


def report(path, out):
    import pandas as pd

    df = pd.read_csv(path)
    rows = ("default", "normalised") + RULES
    lines = ["# Gap rules with the normalised pairs (issue #24, task PN, EXPLORATION, diagnosis "
             "only)", "",
             f"Generated by `experiments/{NAME}.py` (seed {dg.SEED}, {df.trial.nunique()} trials "
             "per cell, shared seeds; δ = 1e-6, replace-one, `DPPCA(n_components=k)`). The audit's "
             "units are DIAGNOSIS ONLY; nothing is gated here. Medians of the measured absolute "
             "deficit; *cp*: fits that took the whitened step; ratios: median over the row's "
             "medians to the default's. Rules in the script's docstring.", "",
             "| source | table | k | ε | forced mom. | forced cp | "
             + " | ".join(f"{r} | cp" for r in rows) + " | "
             + " | ".join(f"{r}/default" for r in rows[1:]) + " |",
             "|" + "---|" * (6 + 2 * len(rows) + len(rows) - 1)]
    for (src, t, k, e), g in df.groupby(["source", "table", "k", "epsilon"], sort=False):
        cells = [f"{g[r].median():.3g} | {(g[f'choice_{r}'] == 'coinpress').sum()}/{len(g)}"
                 for r in rows]
        rat = [f"{g[r].median() / g['default'].median():.3g}" for r in rows[1:]]
        lines.append(f"| {src} | {t} | {k} | {e:g} | {g.meas_mom.median():.3g} | "
                     f"{g.meas.median():.3g} | " + " | ".join(cells) + " | " + " | ".join(rat)
                     + " |")
    (out / f"{NAME}.md").write_text("\n".join(lines) + "\n")


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--report", action="store_true")
    a = ap.parse_args(argv)
    if not a.report:
        run(a.trials, dg.RESULTS)
    report(dg.RESULTS / f"{NAME}_trials.csv", dg.RESULTS)


if __name__ == "__main__":
    main()
