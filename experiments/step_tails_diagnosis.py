"""Task HT (session 24, issue #24): how far the adaptive default's prediction of the whitened step
is from what the step does on heavy-tailed SEEN tables. Diagnosis only: it reads the private
records (the truth), decides nothing, and its tables are never a gate's or a check's.

Cells (the fresh outside audits' units: tables, public bounds, relation, δ = 1e-6, and their 20
seeds ``SeedSequence(20261128 + 2)``):

- mathpnl (``_outside_tables_oc``): PCA k = 2 at ε = 1 and 3; covariance at ε = 10;
- baseball (``_outside_tables_ob``): PCA k = 5 at ε = 10 and 100.

Per seed three fits of the same first look and stream: the default as it chooses, and its last
release forced to each branch (``AdaptiveOptions(branch=...)``). Per fit, from a probe on
``adaptive.release.whitening`` (the library is unchanged; the probe reads the records):

- ``share_measured``: the share of records the step's whitened ball clips;
- ``share_gauss``: the share the first look's Gaussian model of the records clips, ``P(‖A a‖² >
  r²)`` with ``a ~ N(0, Π(Ĉ))`` (``Π`` the feasible projection; 20 000 draws of a fixed seed):
  what the fixed radius ``r² = gaussian_radius_sq(k, 0.1)`` assumes (≈ β = 0.1 at ``S = Π(Ĉ)``,
  less with the whitening margin);
- ``b_true``: the records' mean clipping loss ``(1/n) Σ ‖a‖²(1 − f²)`` (the quantity the counts
  read) and ``b_hat`` the reading the default used (``adaptive_predicted_["clipping_loss"]``, 0
  when no statistic was released), ``statistic``;
- the predictions the choice compared (the release's own units: absolute captured-variance
  deficit of the top-k subspace, or squared Frobenius error, of the live columns in the original
  units): ``pred_moments``, ``pred_step`` (= noise part + ``pred_bias``);
- the measured errors in the same units: ``err_moments`` and ``err_step`` (the forced fits'
  adaptive releases, read as the prediction reads them: the PCA deficit of the released
  covariance after the estimator's projection; the squared Frobenius error of the adaptive
  release's covariance) and ``err_bias`` (the step without its noise: the clipped records'
  exact whitened second moments unwhitened and projected, i.e. the clipping alone);
- ``err_noise_only``: the step's noise without its clipping: its released covariance minus the
  clipping alone's (unprojected), added to the records' covariance, through the same
  projections (the step's error had the records not been clipped; same draw);
- ``frame_gaps`` / ``records_gaps``: the pair model's largest loss ``Σ g/2`` with the PCA
  ranking's frame gaps, and with the records' variances along the same frame directions;
- ``gap_true`` / ``gap_clipped``: the gap ``λ_k − λ_{k+1}`` (covariance: k = 2) of the records'
  covariance and of the clipping alone's (how much of the gap the clipped records carry).

Writes ``results/step_tails_diagnosis.md`` and ``results/step_tails_diagnosis_trials.csv``
(checkpointed per cell; a killed run resumes).

Command (from the repository root)::

    nice -n 10 env PYTHONPATH=src MATRIXDP_DATA=/work/shared/datasets \\
        python experiments/step_tails_diagnosis.py
"""

from __future__ import annotations

import csv
import math
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _utility_common as uc  # noqa: E402
import outside_audit as oa  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
NAME = "step_tails_diagnosis"
SEEDS = [int(s) for s in np.random.SeedSequence(20261128 + 2).generate_state(20)]
#: (spec module, table, task, k, ε)
CELLS = (("_outside_tables_oc", "mathpnl", "pca", 2, 1.0),
         ("_outside_tables_oc", "mathpnl", "pca", 2, 3.0),
         ("_outside_tables_oc", "mathpnl", "covariance", 0, 10.0),
         ("_outside_tables_ob", "baseball", "pca", 5, 10.0),
         ("_outside_tables_ob", "baseball", "pca", 5, 100.0))
ROWS = ("default", "moments", "coinpress")
FIELDS = ["table", "task", "k", "epsilon", "trial", "row", "choice", "statistic", "r2",
          "share_measured", "share_gauss", "b_true", "b_hat", "pred_moments", "pred_step",
          "pred_bias", "err", "err_bias", "err_rel", "gap_true", "gap_clipped", "err_noise_only",
          "tail_reading", "tail_bias", "option_step", "frame_gaps", "records_gaps"]


class Probe:
    """Records the whitening of one fit (patches ``adaptive.release.whitening`` for this run)."""

    def __init__(self):
        import matrixdp.models.adaptive.release as R

        self.R = R
        self.orig = R.whitening
        self.orig_unwhiten = R.unwhiten
        self.orig_frame = R.pca_frame
        self.records = None
        R.whitening = self._white
        R.unwhiten = self._unwhiten
        R.pca_frame = self._frame
        self.got = {}

    def _frame(self, *a, **kw):
        out = self.orig_frame(*a, **kw)
        self.got["frame"] = (out[0], out[1])  # the PCA ranking's frame U and its gaps
        return out

    def _unwhiten(self, Gy, r2, m, A_inv):
        out = self.orig_unwhiten(Gy, r2, m, A_inv)
        self.got["raw_step"] = out[0]  # the step's covariance before any projection
        return out

    def _white(self, C, Q, m, h, **kw):
        from matrixdp.feasible import project_covariance

        out = self.orig(C, Q, m, h, **kw)
        S, A, A_inv, r2 = out
        X, c, live = self.records
        a = X[:, live] - c[live] - m
        Y = a @ A
        u = np.einsum("ij,ij->i", Y, Y)
        f = np.minimum(1.0, np.sqrt(r2 / np.maximum(u, 1e-300)))
        Cp = project_covariance(C, variance_max=h * h)
        lam = np.clip(np.linalg.eigvalsh(A @ Cp @ A), 0.0, None)
        z = np.random.default_rng(12345).standard_normal((20000, lam.size))
        gauss = float(np.mean((z * z) @ lam > r2))
        # the clipping alone: the exact whitened second moments of the clipped records
        Yc = Y * f[:, None]
        n, k = Yc.shape
        t = math.sqrt(r2 / k)
        Zc = np.column_stack([Yc, np.full(n, t)])
        G = Zc.T @ Zc / n
        my = G[:k, k] / t
        Cb = A_inv @ (G[:k, :k] - np.outer(my, my)) @ A_inv
        self.got = {"r2": float(r2), "share_measured": float(np.mean(u > r2)),
                    "share_gauss": gauss,
                    "b_true": float(np.mean(np.einsum("ij,ij->i", a, a) * (1 - f * f))),
                    "C_bias": project_covariance(0.5 * (Cb + Cb.T), variance_max=h * h),
                    "C_bias_raw": 0.5 * (Cb + Cb.T), "h": h, "raw_step": None,
                    "frame": None}
        return out


def fit(task, k, X, lo, hi, eps, seed, relation, branch):
    from matrixdp.models import DPCovariance, DPPCA

    # the forced PCA fits also carry the opt-in tail_bias="gap-shrink" (task HT): its choice is
    # read from their predictions; their releases are the default's bit for bit (post-processing
    # only, tests/models/adaptive/test_tails.py)
    opt = {"tail_bias": "gap-shrink"} if (branch and task == "pca") else {}
    ctx = uc.adaptive_options(branch=branch, **opt) if branch else uc.adaptive_options()
    with ctx, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if task == "pca":
            return DPPCA(n_components=k, epsilon=eps, delta=oa.DELTA, bounds=(lo, hi),
                         neighbouring=relation, random_state=int(seed)).fit(X)
        return DPCovariance(epsilon=eps, delta=oa.DELTA, bounds=(lo, hi), neighbouring=relation,
                            random_state=int(seed)).fit(X)


def abs_deficit(M, C, k):
    top = np.linalg.eigh(0.5 * (M + M.T))[1][:, ::-1][:, :k]
    best = float(np.sort(np.linalg.eigvalsh(C))[::-1][:k].sum())
    return best - float(np.trace(top.T @ C @ top)), best


def run_cell(probe, spec, table, task, k, eps):
    from matrixdp.feasible import project_feasible

    oa.use_tables(spec)
    u = oa.units([table])[0]
    X, lo, hi = oa.cov_data(u)
    X = np.clip(X, lo, hi)
    live = hi > lo
    c = 0.5 * (lo + hi)
    C = np.cov(X[:, live].T, bias=True)
    probe.records = (X, c, live)
    out = []
    for i, s in enumerate(SEEDS):
        for row in ROWS:
            est = fit(task, k, X, lo, hi, eps, s, u.neighbouring,
                      None if row == "default" else row)
            g = dict(probe.got)
            p = est.adaptive_predicted_
            kk = k if task == "pca" else 2
            lt = np.sort(np.linalg.eigvalsh(C))[::-1]
            lb = np.sort(np.linalg.eigvalsh(g["C_bias"]))[::-1]
            gaps = (float(lt[kk - 1] - lt[kk]), float(lb[kk - 1] - lb[kk]))
            # the step's own noise on the UNCLIPPED records (its release minus the clipping
            # alone, added to the records' covariance, through the same projections)
            e_noise = math.nan
            if row == "coinpress" and g["raw_step"] is not None:
                from matrixdp.feasible import project_covariance
                E = g["raw_step"] - g["C_bias_raw"]
                Mn = project_covariance(C + E, variance_max=g["h"] ** 2)
                if task == "pca":
                    Mn = project_feasible(Mn, lo[live], hi[live], "covariance", units="unit-box")
                    e_noise = abs_deficit(Mn, C, k)[0]
                else:
                    e_noise = float(np.sum((Mn - C) ** 2))
            fg = rg = math.nan
            if g["frame"] is not None:  # the pair model's largest loss, Σ g/2 over its pairs
                U, gp = g["frame"]
                lam = np.einsum("ai,ab,bi->i", U, C, U)
                fg = float(np.sum(gp)) / 2.0
                rg = float(np.sum(np.maximum(lam[:k, None] - lam[None, k:], 0.0))) / 2.0
            if task == "pca":
                M = est.components_.T @ np.diag(est.explained_variance_) @ est.components_
                err, best = abs_deficit(M[np.ix_(live, live)], C, k)
                Cb = project_feasible(g["C_bias"], lo[live], hi[live], "covariance",
                                      units="unit-box")
                err_b = abs_deficit(Cb, C, k)[0]
                rel = err / best
            else:
                R = est.adaptive_result_ if hasattr(est, "adaptive_result_") else None
                M = np.asarray(est.covariance_)[np.ix_(live, live)]
                err = float(np.sum((M - C) ** 2))
                err_b = float(np.sum((g["C_bias"] - C) ** 2))
                rel = math.sqrt(err) / float(np.linalg.norm(C))
                del R
            out.append({"table": table, "task": task, "k": k, "epsilon": eps, "trial": i,
                        "row": row, "choice": est.adaptive_choice_,
                        "statistic": p.get("statistic"), "r2": g["r2"],
                        "share_measured": g["share_measured"], "share_gauss": g["share_gauss"],
                        "b_true": g["b_true"], "b_hat": p.get("clipping_loss"),
                        "pred_moments": p.get("moments"), "pred_step": p.get("coinpress"),
                        "pred_bias": p.get("coinpress_bias"), "err": err, "err_bias": err_b,
                        "err_rel": rel, "gap_true": gaps[0], "gap_clipped": gaps[1],
                        "err_noise_only": e_noise,
                        "tail_reading": p.get("tail_reading", math.nan),
                        "tail_bias": p.get("tail_bias", math.nan),
                        "option_step": (p["coinpress"] < p["moments"]) if "tail_bias" in p
                        else "", "frame_gaps": fg, "records_gaps": rg})
    probe.records = None
    return out


def csv_path():
    return REPO / "results" / f"{NAME}_trials.csv"


def load_done():
    p = csv_path()
    if not p.exists():
        return []
    with open(p, newline="") as fh:
        return list(csv.DictReader(fh))


def run():
    probe = Probe()
    rows = load_done()
    done = {(r["table"], r["task"], float(r["epsilon"])) for r in rows}
    for spec, table, task, k, eps in CELLS:
        if (table, task, eps) in done:
            continue
        new = run_cell(probe, spec, table, task, k, eps)
        write_header = not csv_path().exists()
        with open(csv_path(), "a", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=FIELDS)
            if write_header:
                w.writeheader()
            for r in new:
                w.writerow({f: (repr(v) if isinstance(v, float) else v) for f, v in r.items()})
        print(f"done {table} {task} eps={eps:g}", flush=True)


def med(rs, col):
    v = np.array([float(r[col]) for r in rs], dtype=float)
    return float(np.nanmedian(v)) if v.size else math.nan


def g(x):
    return "—" if x != x else f"{x:.3g}"


def write():
    rows = load_done()
    L = ["# The whitened step's prediction against its measurement on heavy-tailed SEEN tables "
         "(task HT, issue #24; diagnosis only)", "",
         "Generated by `experiments/step_tails_diagnosis.py` (do not edit by hand; per fit: "
         "`results/step_tails_diagnosis_trials.csv`). The fresh audits' units and 20 seeds; per "
         "seed the default and its last release forced to each branch (same first look, same "
         "stream). Medians over the 20 seeds. Units of the prediction: absolute captured-variance "
         "deficit of the top-k subspace (PCA) or squared Frobenius error (covariance), live "
         "columns, original units. 'err_bias': the step's clipping alone (its noise-free "
         "release). Seen tables: never a gate or a check.", "",
         "## Clipping: the Gaussian model's share, the measured share, the loss and its reading",
         "",
         "| table | task | ε | r² | share (Gaussian model) | share (measured) | measured / "
         "Gaussian | b true | b̂ read | statistic (default fits) |",
         "|---|---|---|---|---|---|---|---|---|---|"]
    cells = []
    for spec, table, task, k, eps in CELLS:
        rs = [r for r in rows if (r["table"], r["task"], float(r["epsilon"])) == (table, task, eps)]
        if rs:
            cells.append((table, task, k, eps, rs))
    for table, task, k, eps, rs in cells:
        d = [r for r in rs if r["row"] == "default"]
        ratio = [float(r["share_measured"]) / max(float(r["share_gauss"]), 1e-12) for r in d]
        stats = {}
        for r in d:
            stats[r["statistic"]] = stats.get(r["statistic"], 0) + 1
        L.append(f"| {table} | {task}{' k=' + str(k) if k else ''} | {eps:g} | {g(med(d, 'r2'))} | "
                 f"{g(med(d, 'share_gauss'))} | {g(med(d, 'share_measured'))} | "
                 f"{g(float(np.median(ratio)))} | {g(med(d, 'b_true'))} | {g(med(d, 'b_hat'))} | "
                 + ", ".join(f"{k_} {v}" for k_, v in sorted(stats.items())) + " |")
    L += ["", "## The two branches: predicted against measured (same units)", "",
          "| table | task | ε | step taken (default) | predicted moments | measured moments | "
          "predicted step | of which bias | measured step | measured step, clipping alone | "
          "predicted step/moments | measured step/moments (paired median) | gap λ_k − λ_k+1: "
          "records / clipping alone | measured step, its noise on the unclipped records |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for table, task, k, eps, rs in cells:
        d = [r for r in rs if r["row"] == "default"]
        mo = [r for r in rs if r["row"] == "moments"]
        cp = [r for r in rs if r["row"] == "coinpress"]
        taken = sum(r["choice"] == "coinpress" for r in d)
        pr = [float(r["pred_step"]) / float(r["pred_moments"]) for r in d]
        mr = [float(a["err"]) / max(float(b["err"]), 1e-300) for a, b in zip(cp, mo)]
        L.append(f"| {table} | {task}{' k=' + str(k) if k else ''} | {eps:g} | {taken}/20 | "
                 f"{g(med(d, 'pred_moments'))} | {g(med(mo, 'err'))} | {g(med(d, 'pred_step'))} | "
                 f"{g(med(d, 'pred_bias'))} | {g(med(cp, 'err'))} | {g(med(cp, 'err_bias'))} | "
                 f"{g(float(np.median(pr)))} | {g(float(np.median(mr)))} | "
                 f"{g(med(cp, 'gap_true'))} / {g(med(cp, 'gap_clipped'))} | "
                 f"{g(med(cp, 'err_noise_only'))} |")
    L += ["", "## The PCA frame's gaps against the records' gaps in the same frame", "",
          "The pair model's largest loss Σ g/2 over its (top, rest) pairs: with the frame's gaps "
          "(the first look after the caller's projection, de-inflated and floored: what the "
          "ranking uses) and with the records' variances along the same frame directions. "
          "Medians over the default's fits.", "",
          "| table | task | ε | Σ g/2, frame | Σ g/2, records | frame / records (median of the "
          "per-fit ratios) |", "|---|---|---|---|---|---|"]
    for table, task, k, eps, rs in cells:
        if task != "pca":
            continue
        d = [r for r in rs if r["row"] == "default"]
        rat = [float(r["frame_gaps"]) / float(r["records_gaps"]) for r in d
               if float(r["records_gaps"]) > 0]
        L.append(f"| {table} | {task} k={k} | {eps:g} | {g(med(d, 'frame_gaps'))} | "
                 f"{g(med(d, 'records_gaps'))} | {g(float(np.median(rat)) if rat else math.nan)} |")
    L += ["", "## The opt-in `tail_bias=\"gap-shrink\"` (task HT) on these cells (SEEN: a design "
          "reading, not a gate)", "",
          "Its choice read from the forced fits' predictions (the same releases); error of the "
          "branch each rule chose, per seed; ratio of medians option/default.", "",
          "| table | task | ε | step taken: default / option | tail reading b (median) | "
          "tail term (median) | default | option | ratio |", "|---|---|---|---|---|---|---|---|---|"]
    for table, task, k, eps, rs in cells:
        if task != "pca":
            continue
        d = [r for r in rs if r["row"] == "default"]
        mo = [r for r in rs if r["row"] == "moments"]
        cp = [r for r in rs if r["row"] == "coinpress"]
        dflt = np.array([r["choice"] == "coinpress" for r in d])
        opt = np.array([r["option_step"] == "True" for r in mo])
        em = np.array([float(r["err"]) for r in mo])
        ec = np.array([float(r["err"]) for r in cp])
        e_d = float(np.median(np.where(dflt, ec, em)))
        e_o = float(np.median(np.where(opt, ec, em)))
        L.append(f"| {table} | {task} k={k} | {eps:g} | {int(dflt.sum())} / {int(opt.sum())} | "
                 f"{g(med(mo, 'tail_reading'))} | {g(med(mo, 'tail_bias'))} | {g(e_d)} | "
                 f"{g(e_o)} | {g(e_o / e_d)} |")
    (REPO / "results" / f"{NAME}.md").write_text("\n".join(L) + "\n")
    print(f"wrote results/{NAME}.md")


if __name__ == "__main__":
    if "--write" not in sys.argv:
        run()
    write()
