"""Decomposition (issue #24, task PR): what carries two rises of DPPCA's deficit with ε that are
NOT the adaptive default's branch choice (task PK2's finding, ``results/pca_rise_reproduce.md``).
SEEN tables (the fresh outside audit's, ``_outside_tables_ob``): diagnosis only, never a gate or a
check.

Units (the audit's tables, public bounds, relation, δ = 1e-6 and its 20 seeds,
``SeedSequence(20261128 + 2)``, as ``pca_rise_reproduce.py``):

- ``skulls`` k = 5 with the MOMENTS branch forced (``AdaptiveOptions(branch="moments")``): the
  median deficit rises 0.00095 → 0.0046 from ε = 1 to 10.
- ``baseball`` k = 5 with the whitened STEP forced (``branch="coinpress"``): 1.7e-6 → 7.6e-6
  from ε = 10 to 100.

Per fit, the ε-dependent pieces of the path are recorded: the first look's and the last
release's noise allocations (``noise="auto"``'s pick at each part's ε), whether the clipping
statistic was released, the GDP parameters ``μ₁, μ_b, μ₂``; for the step, the squared clipping
radius ``r²``, the whitening margin ``‖S − Π(Ĉ)‖_F / ‖C‖_F`` and (diagnostic only: it reads the
records) the share of records the step clips and their mean clipped squared excess.

Diagnostic variants (NOT releases; each holds one piece at its value at a reference ε while the
rest moves):

- skulls, ``post-processing``: the SAME release read after the three post-processings
  (``projection="unit-box"``, the default; ``"original"``; ``"none"``).
- skulls, ``noise held``: the ε = 1 fit's noise ``E₁ = Ĉ_raw − C`` (same seed: the same
  allocations, statistic and shares) rescaled to ε's level, ``C + E₁·μ*(1)/μ*(ε)``, then the
  default projection: only the noise level moves.
- skulls, ``public axes``: the deficit of the top-k coordinate axes by public half-width (no
  data at all), the answer of a release whose noise swamps everything but the bounds' scales.
- baseball, ``margin held``: the first look's noise scale ``Q`` (the whitening margin
  ``√(2k)·Q``) multiplied by ``μ*(ε)/μ*(10)``, i.e. held at its ε = 10 level while the first
  look's estimate, the radius and the step's noise move.
- baseball, the radius: ``coinpress_beta="late"`` and ``"auto"`` (the existing opt-ins of
  ``docs/coinpress.md`` § The clipping radius) in place of the fixed rate ``0.1``.

Also, the shipped default (branch NOT forced) with ``coinpress_beta`` 0.1 / "late" / "auto" on
both audit units, with the audit's "falls with ε" rule, and the same three on four benchmark
cells (``_utility_common`` tables, their public bounds, 20 seeds of ``SeedSequence(20261130)``):
adult k = 5 at ε = 5 and 100, lending_club k = 5 at ε = 100, synthetic k = 5 at ε = 100.

Outputs: ``results/pca_rise_parts.md``, ``results/pca_rise_parts_trials.csv`` (checkpointed per
cell; a killed run resumes).

Command (from the repository root)::

    nice -n 10 env PYTHONPATH=src MATRIXDP_DATA=/work/shared/datasets \\
        python experiments/pca_rise_parts.py
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
NAME = "pca_rise_parts"
SEEDS = [int(s) for s in np.random.SeedSequence(20261128 + 2).generate_state(20)]
BENCH_SEEDS = [int(s) for s in np.random.SeedSequence(20261130).generate_state(20)]
SKULLS_EPS = (0.3, 1.0, 3.0, 10.0, 100.0, 1e4)
BASEBALL_EPS = (1.0, 3.0, 10.0, 100.0, 1e4)
BETAS = (0.1, "late", "auto")
BENCH = (("adult", 5, 5.0), ("adult", 5, 100.0), ("lending_club", 5, 100.0),
         ("synthetic", 5, 100.0))
FIELDS = ["part", "table", "k", "epsilon", "trial", "row", "deficit", "alloc1", "alloc2",
          "statistic", "mu1", "mu_b", "mu2", "r2", "margin", "clip_share", "clip_excess",
          "extra"]


class Probe:
    """Records the pieces of one fit (patches the library's module attributes for the run of
    this script only; the library is unchanged)."""

    def __init__(self):
        import matrixdp.models.adaptive as ad
        import matrixdp.models.adaptive.release as R
        import matrixdp.models.pca as P

        self.R, self.P, self.ad = R, P, ad
        self.orig = {"plan": R.plan_second_moment, "white": R.whitening,
                     "q": R.first_noise_scale, "proj": P.project_feasible,
                     "adapt": ad.adaptive_covariance}
        self.q_factor = 1.0
        self.records = None
        self.reset()
        R.plan_second_moment = self._plan
        R.whitening = self._white
        R.first_noise_scale = self._q
        P.project_feasible = self._proj
        ad.adaptive_covariance = self._adapt

    def reset(self):
        self.got = {"alloc1": None, "raw": None, "res": None, "r2": math.nan,
                    "margin": math.nan, "clip_share": math.nan, "clip_excess": math.nan}

    def _plan(self, task, **kw):
        out = self.orig["plan"](task, **kw)
        if self.got["alloc1"] is None:
            self.got["alloc1"] = out[0].allocation
        return out

    def _q(self, *a, **kw):
        return self.orig["q"](*a, **kw) * self.q_factor

    def _white(self, C, Q, m, h, **kw):
        out = self.orig["white"](C, Q, m, h, **kw)
        S, A, _, r2 = out
        self.got["r2"] = float(r2)
        self.got["margin"] = float(np.linalg.norm(S - self._proj_cov(C, h)))
        if self.records is not None:  # diagnostic only: reads the records
            X, c, live = self.records
            Y = (X[:, live] - c[live] - m) @ A
            u = np.einsum("ij,ij->i", Y, Y)
            self.got["clip_share"] = float(np.mean(u > r2))
            self.got["clip_excess"] = float(np.mean(np.maximum(u - r2, 0.0)))
        return out

    @staticmethod
    def _proj_cov(C, h):
        from matrixdp.feasible import project_covariance
        return project_covariance(C, variance_max=h * h)

    def _proj(self, cov, *a, **kw):
        self.got["raw"] = np.array(cov, copy=True)
        return self.orig["proj"](cov, *a, **kw)

    def _adapt(self, *a, **kw):
        res = self.orig["adapt"](*a, **kw)
        self.got["res"] = res
        return res


def deficit(M, C, k, best):
    return uc.top_subspace_deficit(M, C, k, best)


def fit(probe, X, lo, hi, k, eps, seed, *, relation="replace-one", branch=None, beta=0.1,
        q_factor=1.0):
    from matrixdp.models import DPPCA
    from matrixdp.models.experimental import PCAOptions

    probe.reset()
    probe.q_factor = q_factor
    ex = None if beta == 0.1 else PCAOptions(coinpress_beta=beta)
    ctx = uc.adaptive_options(branch=branch) if branch else uc.adaptive_options()
    with ctx, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = DPPCA(n_components=k, epsilon=eps, delta=oa.DELTA, bounds=(lo, hi),
                    neighbouring=relation, random_state=int(seed), experimental=ex).fit(X)
    probe.q_factor = 1.0
    return est


def row_of(probe, est, part, table, k, eps, trial, row, dfc, extra=""):
    res = probe.got["res"]
    mus = tuple(res.mus) if res is not None else (math.nan,) * 3
    return {"part": part, "table": table, "k": k, "epsilon": eps, "trial": trial, "row": row,
            "deficit": dfc, "alloc1": probe.got["alloc1"], "alloc2": est.allocation_,
            "statistic": est.adaptive_predicted_["statistic"] if res is not None else "",
            "mu1": mus[0], "mu_b": mus[1], "mu2": mus[2], "r2": probe.got["r2"],
            "margin": probe.got["margin"], "clip_share": probe.got["clip_share"],
            "clip_excess": probe.got["clip_excess"], "extra": extra}


def mu_star(eps):
    from matrixdp.calibration.gaussian import max_gaussian_shift
    return max_gaussian_shift(eps, oa.DELTA)


def skulls_cells(probe):
    from matrixdp.feasible import project_feasible

    u = oa.units(["skulls"])[0]
    X, lo, hi = oa.cov_data(u)
    X = np.clip(X, lo, hi)
    k = 5
    C = np.cov(X.T, bias=True)
    best = float(np.sort(np.linalg.eigvalsh(C))[::-1][:k].sum())
    U4 = np.linalg.eigh(C)[1][:, ::-1][:, :4]
    h = 0.5 * (hi - lo)
    axes = np.argsort(-h, kind="stable")[:k]  # public: the widest k columns
    wide = h > 1.0  # public: the four measurement columns (the indicators' half-width is 0.5)
    E1 = {}
    for eps in SKULLS_EPS:
        def cell():
            out = []
            for i, s in enumerate(SEEDS):
                if i not in E1:
                    fit(probe, X, lo, hi, k, 1.0, s, relation=u.neighbouring, branch="moments")
                    E1[i] = probe.got["raw"] - C
                est = fit(probe, X, lo, hi, k, eps, s, relation=u.neighbouring,
                          branch="moments")
                raw = probe.got["raw"]
                P = project_feasible(raw, lo, hi, "covariance", units="unit-box")
                lam, vec = np.linalg.eigh(P)
                lam, vec = lam[::-1], vec[:, ::-1]
                # how much of the true top-4 subspace (the 4 wide columns' block) the released
                # top-k misses
                lost4 = 4.0 - float(np.linalg.norm(vec[:, :k].T @ U4) ** 2)
                # the noise in units of the half-widths (the projection's metric): between the
                # wide columns and the narrow ones, and within the wide block (public split)
                Eu = (raw - C) / np.outer(h, h)
                cross = math.sqrt(2.0) * float(np.linalg.norm(Eu[np.ix_(wide, ~wide)]))
                within = float(np.linalg.norm(Eu[np.ix_(wide, wide)]))
                extra = (f"lambda5={lam[4]:.4g};lambda4={lam[3]:.4g};lost4={lost4:.4g};"
                         f"cross={cross:.4g};within={within:.4g}")
                out.append(row_of(probe, est, "skulls", "skulls", k, eps, i, "forced moments",
                                  deficit(P, C, k, best), extra))
                for units in ("original", "none"):
                    M = raw if units == "none" else project_feasible(raw, lo, hi, "covariance",
                                                                     units=units)
                    out.append(row_of(probe, est, "skulls", "skulls", k, eps, i,
                                      f"post-processing {units}", deficit(M, C, k, best)))
                held = project_feasible(C + E1[i] * mu_star(1.0) / mu_star(eps), lo, hi,
                                        "covariance", units="unit-box")
                out.append(row_of(probe, est, "skulls", "skulls", k, eps, i,
                                  "noise held (eps=1 draw rescaled)",
                                  deficit(held, C, k, best)))
                out.append(row_of(probe, est, "skulls", "skulls", k, eps, i, "public axes",
                                  1.0 - float(np.trace(C[np.ix_(axes, axes)])) / best))
            return out
        yield ("skulls", "skulls", k, eps), cell


def baseball_cells(probe):
    u = oa.units(["baseball"])[0]
    X, lo, hi = oa.cov_data(u)
    X = np.clip(X, lo, hi)
    k = 5
    C = np.cov(X.T, bias=True)
    best = float(np.sort(np.linalg.eigvalsh(C))[::-1][:k].sum())
    live = hi > lo
    c = 0.5 * (lo + hi)
    for eps in BASEBALL_EPS:
        def cell():
            out = []
            probe.records = (X, c, live)
            for i, s in enumerate(SEEDS):
                for row, kw in (("forced step", {}),
                                ("forced step, margin held at eps=10",
                                 {"q_factor": mu_star(eps) / mu_star(10.0)}),
                                ("forced step, beta=late", {"beta": "late"}),
                                ("forced step, beta=auto", {"beta": "auto"})):
                    est = fit(probe, X, lo, hi, k, eps, s, relation=u.neighbouring,
                              branch="coinpress", **kw)
                    out.append(row_of(probe, est, "baseball", "baseball", k, eps, i, row,
                                      deficit(est_cov(est), C, k, best)))
            probe.records = None
            return out
        yield ("baseball", "baseball", k, eps), cell


def est_cov(est):
    """The deficit is read from the fitted components (as the audit)."""
    V = est.components_.T
    return V @ V.T


def default_cells(probe):
    for name, eps_grid in (("skulls", SKULLS_EPS), ("baseball", BASEBALL_EPS)):
        u = oa.units([name])[0]
        X, lo, hi = oa.cov_data(u)
        k = 5
        C = np.cov(np.clip(X, lo, hi).T, bias=True)
        best = float(np.sort(np.linalg.eigvalsh(C))[::-1][:k].sum())
        for eps in eps_grid:
            def cell(X=X, lo=lo, hi=hi, C=C, best=best, eps=eps, u=u, name=name):
                out = []
                for i, s in enumerate(SEEDS):
                    for beta in BETAS:
                        est = fit(probe, X, lo, hi, k, eps, s, relation=u.neighbouring,
                                  beta=beta)
                        out.append(row_of(probe, est, "default", name, k, eps, i,
                                          f"default, beta={beta}",
                                          deficit(est_cov(est), C, k, best),
                                          f"choice={est.adaptive_choice_}"))
                return out
            yield ("default", name, k, eps), cell


def bench_cells(probe):
    for name, k, eps in BENCH:
        def cell(name=name, k=k, eps=eps):
            t = uc.load_table(name, None)
            C = np.cov(t.X.T, bias=True)
            best = float(np.sort(np.linalg.eigvalsh(C))[::-1][:k].sum())
            out = []
            for i, s in enumerate(BENCH_SEEDS):
                for beta in BETAS:
                    est = fit(probe, t.X, t.lo, t.hi, k, eps, s, beta=beta)
                    out.append(row_of(probe, est, "bench", name, k, eps, i,
                                      f"default, beta={beta}", deficit(est_cov(est), C, k, best),
                                      f"choice={est.adaptive_choice_}"))
            return out
        yield ("bench", name, k, eps), cell


def run():
    oa.use_tables("_outside_tables_ob")
    out = REPO / "results" / f"{NAME}_trials.csv"
    done = set()
    if out.exists():
        done = {(r["part"], r["table"], int(r["k"]), float(r["epsilon"]))
                for r in csv.DictReader(open(out))}
    new = not out.exists()
    f = open(out, "a", newline="")
    w = csv.DictWriter(f, FIELDS)
    if new:
        w.writeheader()
    probe = Probe()
    parts = [g for g in sys.argv[1:] if not g.startswith("--")] or \
        ["skulls", "baseball", "default", "bench"]
    gens = {"skulls": skulls_cells, "baseball": baseball_cells, "default": default_cells,
            "bench": bench_cells}
    for part in parts:
        for key, cell in gens[part](probe):
            if key in done:
                continue
            w.writerows(cell())
            f.flush()
            print(*key, "done", flush=True)
    f.close()


def fmt(x):
    return f"{x:.3g}"


def rise(cells, eps):
    """The audit's rule (``pca_rise_reproduce.rise``)."""
    worst = None
    for i in range(len(eps)):
        for j in range(i + 1, len(eps)):
            a, b = cells[i], cells[j]
            mi, mj = np.median(a), np.median(b)
            if mj > oa.MONO_SLACK * mi + 1e-12:
                p = oa._mwu_greater(b, a)
                if p < oa.MONO_P and (worst is None or mj / mi > worst[2]):
                    worst = (eps[i], eps[j], mj / mi, p)
    return worst


def verdict(cells, eps):
    wv = rise(cells, eps)
    return (f"RISE: ε={wv[1]:g} is {wv[2]:.3g}x ε={wv[0]:g} (p={wv[3]:.2g})" if wv
            else "no significant rise")


def write():
    rows = list(csv.DictReader(open(REPO / "results" / f"{NAME}_trials.csv")))

    def sel(part, table, eps, row):
        return [r for r in rows if r["part"] == part and r["table"] == table
                and float(r["epsilon"]) == eps and r["row"] == row]

    def med(rs, col):
        return float(np.median([float(r[col]) for r in rs]))

    def tally(rs, col):
        out = {}
        for r in rs:
            out[r[col]] = out.get(r[col], 0) + 1
        return ", ".join(f"{k} {v}" for k, v in sorted(out.items()))

    L = [f"# Two rises of DPPCA's deficit with ε that are not the branch choice: what carries "
         f"them (task PR, issue #24; diagnosis, SEEN tables)", "",
         f"Generated by `experiments/{NAME}.py` (per fit: `results/{NAME}_trials.csv`). The fresh "
         "audit's units (its tables, bounds, relation, δ = 1e-6, its 20 seeds). Medians over the "
         "20 seeds. Diagnostic variants hold one piece of the path at a reference ε; they are "
         "not releases.", ""]
    # --- skulls
    srows = ("forced moments", "post-processing original", "post-processing none",
             "noise held (eps=1 draw rescaled)", "public axes")
    L += ["## skulls, k = 5, the moments branch forced", "",
          "| ε | " + " | ".join(srows) + " | first look's allocation | last release's "
          "allocation | statistic | μ₁ | μ_b | μ₂ | λ̂₄ / λ̂₅ (released, median) | fits losing "
          "≥ 0.5 of a top-4 direction | max top-4 loss | noise, half-width units: wide×narrow "
          "/ within wide |", "|" + "---|" * (len(srows) + 11)]
    cells = {r: [] for r in srows}
    for eps in SKULLS_EPS:
        base = sel("skulls", "skulls", eps, "forced moments")
        if not base:
            continue
        vals = []
        for r in srows:
            rs = sel("skulls", "skulls", eps, r)
            cells[r].append(np.array([float(x["deficit"]) for x in rs]))
            vals.append(fmt(med(rs, "deficit")))
        l4 = np.median([float(x["extra"].split(";")[1].split("=")[1]) for x in base])
        l5 = np.median([float(x["extra"].split(";")[0].split("=")[1]) for x in base])
        ex = {key: np.array([float(dict(kv.split("=") for kv in x["extra"].split(";"))[key])
                             for x in base]) for key in ("lost4", "cross", "within")}
        L.append(f"| {eps:g} | " + " | ".join(vals) + f" | {tally(base, 'alloc1')} | "
                 f"{tally(base, 'alloc2')} | {tally(base, 'statistic')} | "
                 f"{fmt(med(base, 'mu1'))} | {fmt(med(base, 'mu_b'))} | "
                 f"{fmt(med(base, 'mu2'))} | {fmt(l4)} / {fmt(l5)} | "
                 f"{int(np.sum(ex['lost4'] >= 0.5))}/{len(base)} | {fmt(ex['lost4'].max())} | "
                 f"{fmt(np.median(ex['cross']))} / {fmt(np.median(ex['within']))} |")
    if all(len(v) == len(SKULLS_EPS) for v in cells.values()):
        L += ["", "The audit's \"falls with ε\" rule on each row:", ""]
        L += [f"- {r}: {verdict(cells[r], SKULLS_EPS)}" for r in srows]
    # --- baseball
    brows = ("forced step", "forced step, margin held at eps=10", "forced step, beta=late",
             "forced step, beta=auto")
    L += ["", "## baseball, k = 5, the whitened step forced", "",
          "| ε | row | deficit | r² | margin ‖S − Π(Ĉ)‖_F | records clipped (share) | mean "
          "clipped excess (whitened) | statistic | μ₂ |", "|" + "---|" * 9]
    bcells = {r: [] for r in brows}
    for eps in BASEBALL_EPS:
        for r in brows:
            rs = sel("baseball", "baseball", eps, r)
            if not rs:
                continue
            bcells[r].append(np.array([float(x["deficit"]) for x in rs]))
            L.append(f"| {eps:g} | {r} | {fmt(med(rs, 'deficit'))} | {fmt(med(rs, 'r2'))} | "
                     f"{fmt(med(rs, 'margin'))} | {fmt(med(rs, 'clip_share'))} | "
                     f"{fmt(med(rs, 'clip_excess'))} | {tally(rs, 'statistic')} | "
                     f"{fmt(med(rs, 'mu2'))} |")
    if all(len(v) == len(BASEBALL_EPS) for v in bcells.values()):
        L += ["", "The audit's \"falls with ε\" rule on each row:", ""]
        L += [f"- {r}: {verdict(bcells[r], BASEBALL_EPS)}" for r in brows]
    # --- the default with the radius options
    for part, title, seeds_note in (
            ("default", "The shipped default (branch not forced) with the radius options, "
                        "audit units", "the audit's 20 seeds"),
            ("bench", "The same on four benchmark cells", "20 seeds of SeedSequence(20261130)")):
        L += ["", f"## {title}", "", f"Median deficit ({seeds_note}); `step`: fits that took "
              "the whitened step; ratio: median over seeds of the paired ratio to `beta=0.1`.",
              "", "| table | k | ε | beta=0.1 | late | auto | step (0.1 / late / auto) | "
              "paired ratio late | paired ratio auto |", "|" + "---|" * 9]
        dcells = {}
        keys = sorted({(r["table"], int(r["k"]), float(r["epsilon"])) for r in rows
                       if r["part"] == part}, key=lambda x: (x[0], x[2]))
        for table, k, eps in keys:
            per = {b: sel(part, table, eps, f"default, beta={b}") for b in BETAS}
            d = {b: np.array([float(x["deficit"]) for x in per[b]]) for b in BETAS}
            for b in BETAS:
                dcells.setdefault((table, b), []).append(d[b])
            st = " / ".join(str(sum(x["extra"] == "choice=coinpress" for x in per[b]))
                            for b in BETAS)
            rl = np.median(d["late"] / np.maximum(d[0.1], 1e-300))
            ra = np.median(d["auto"] / np.maximum(d[0.1], 1e-300))
            L.append(f"| {table} | {k} | {eps:g} | {fmt(np.median(d[0.1]))} | "
                     f"{fmt(np.median(d['late']))} | {fmt(np.median(d['auto']))} | {st} | "
                     f"{fmt(rl)} | {fmt(ra)} |")
        if part == "default":
            L += ["", "The audit's \"falls with ε\" rule:", ""]
            for (table, b), cs in dcells.items():
                grid = SKULLS_EPS if table == "skulls" else BASEBALL_EPS
                if len(cs) == len(grid):
                    L.append(f"- {table} k = 5, beta={b}: {verdict(cs, grid)}")
    (REPO / "results" / f"{NAME}.md").write_text("\n".join(L) + "\n")


if __name__ == "__main__":
    if "--write" not in sys.argv:
        run()
    write()
