"""Task KB (session 24): which budget keepers record a fit made inside ``with`` blocks, how much.

For every case of the catalogue (``tests/_estimator_cases.py``: every shipped estimator and
generator with its options) and for the command line's ``synth`` (copula, tree-copula) and
``release`` (mean) run in-process, each SCENARIO below fits once with the keepers it names and
reads back, per keeper, the entries recorded and their summed epsilon and delta. The claim is
what the fitted object says it released (``privacy_``; ``DPDirectionsMVG.fit`` charges its
directions step, ``directions_.privacy``; the command line: its ``--epsilon``/``--delta``).

A keeper is SOUND in a scenario when it records exactly the catalogue's entries per fit
(``charges``: 2 where DP bounds are bought first) and its summed epsilon and summed delta equal the
claim's (relative 1e-9): once, not zero times, not twice. A ledger is read from its file, so a
second handle of one file (L') shows the file's entries. The rule tested is the one of task KB:
inside an open block, a release given an explicit keeper is charged to the explicit keeper AND
every block keeper not among it; a keeper that is one of the blocks', or a second handle of the
same ledger file, is charged once.

Run with the library to measure on ``PYTHONPATH`` (``main`` at c9ac1aa from an exported copy in
/tmp, then this branch); the catalogue is read from ``--tests`` (this checkout's ``tests/``, the
same file as main's)::

    PYTHONPATH=/tmp/kb-main/src python experiments/keeper_blocks.py --tag main
    PYTHONPATH=src python experiments/keeper_blocks.py --tag branch
    PYTHONPATH=src python experiments/keeper_blocks.py --tag branch_no_identity --ablate-identity
    python experiments/keeper_blocks.py --render

writes ``results/keeper_blocks_<tag>.jsonl`` (one line per case x scenario) and, with
``--render``, ``results/keeper_blocks.md`` (both runs side by side) and
``results/keeper_blocks.csv``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "results"

#: scenario -> (what it does, the keepers that must each record the fit exactly once)
SCENARIOS = {
    "ledger block": "with L: fit()",
    "accountant block": "with A: fit()",
    "ledger block + own accountant": "with L: fit(accountant=B)",
    "accountant block + own ledger": "with A: fit(accountant=M)",
    "block's own keeper": "with A: fit(accountant=A)",
    "nested, none": "with L: with A: fit()",
    "nested, explicit = outer": "with L: with A: fit(accountant=L)",
    "nested, explicit = inner": "with L: with A: fit(accountant=A)",
    "nested, explicit third": "with L: with A: fit(accountant=B)",
    "same file, second handle": "with L: fit(accountant=L')  (L' = Ledger.open(L.path))",
    "ledger block + own accountant in fit": "with L: fit(X, accountant=B)",
}
EXPECTED = {
    "ledger block": ["L"], "accountant block": ["A"],
    "ledger block + own accountant": ["L", "B"], "accountant block + own ledger": ["A", "M"],
    "block's own keeper": ["A"], "nested, none": ["L", "A"],
    "nested, explicit = outer": ["L", "A"], "nested, explicit = inner": ["L", "A"],
    "nested, explicit third": ["L", "A", "B"],
    "same file, second handle": ["L"], "ledger block + own accountant in fit": ["L", "B"],
}


def _keepers(tmp, relation):
    from matrixdp.accounting import Accountant, Ledger

    big = dict(epsilon=1e4, delta=0.5, relation=relation)
    L = Ledger.create(tmp / "L.db", dataset="d", **big)
    M = Ledger.create(tmp / "M.db", dataset="d", **big)
    return {"L": L, "M": M, "A": Accountant(**big), "B": Accountant(**big),
            "L'": Ledger.open(tmp / "L.db", dataset="d")}


def _record(keeper) -> dict:
    if hasattr(keeper, "history"):
        rows = keeper.history()
        return {"entries": len(rows), "epsilon": sum(r["epsilon"] for r in rows),
                "delta": sum(r["delta"] for r in rows)}
    return {"entries": len(keeper.spends), "epsilon": sum(g.epsilon for _, g in keeper.spends),
            "delta": sum(g.delta for _, g in keeper.spends)}


def _claim(model):
    g = model.privacy_ if hasattr(model, "privacy_") else model.directions_.privacy
    return g.epsilon, g.delta


def run_case(case, scenario, tmp):
    import contextlib

    relation = case.relations[0]
    k = _keepers(tmp, relation)
    blocks = {"ledger block": ["L"], "accountant block": ["A"],
              "ledger block + own accountant": ["L"], "accountant block + own ledger": ["A"],
              "block's own keeper": ["A"], "nested, none": ["L", "A"],
              "nested, explicit = outer": ["L", "A"], "nested, explicit = inner": ["L", "A"],
              "nested, explicit third": ["L", "A"],
              "same file, second handle": ["L"],
              "ledger block + own accountant in fit": ["L"]}[scenario]
    explicit = {"ledger block + own accountant": "B", "accountant block + own ledger": "M",
                "block's own keeper": "A", "nested, explicit = outer": "L",
                "nested, explicit = inner": "A",
                "nested, explicit third": "B", "same file, second handle": "L'",
                "ledger block + own accountant in fit": "B"}.get(scenario)
    in_fit = scenario.endswith("in fit")
    if in_fit and "fit" not in case.keeper:
        return None
    init = {"accountant": k[explicit]} if explicit and not in_fit else {}
    fit_kw = {"accountant": k[explicit]} if explicit and in_fit else {}
    D, _ = case.data(relation)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with contextlib.ExitStack() as stack:
            for name in blocks:
                stack.enter_context(k[name])
            model = case.fit(case.make(relation, **init), D, **fit_kw)
    bypass = sum("charged to the explicit keeper" in str(w.message) for w in caught)
    eps, dlt = _claim(model)
    names = sorted(set(blocks) | ({explicit} if explicit else set()))
    rec = {n: _record(k[n]) for n in names}
    for n in ("L", "M"):
        k[n].close()
    k["L'"].close()
    return {"claim_epsilon": eps, "claim_delta": dlt, "charges": case.charges,
            "keepers": rec, "bypass_warnings": bypass}


def _cli_cases():
    """The command line in-process: (name, argv builder). The block's keepers wrap ``main``."""
    import numpy as np
    import pandas as pd

    def synth(model):
        def build(tmp, ledger):
            rng = np.random.default_rng(3)
            n = 60
            pd.DataFrame({"a": rng.uniform(0, 10, n).round(4), "b": rng.uniform(0, 5, n).round(4),
                          "c": rng.choice(["x", "y"], n), "label": rng.integers(0, 2, n)}
                         ).to_csv(tmp / "t.csv", index=False)
            (tmp / "b.toml").write_text(
                'target = "label"\n[columns]\na = { lo = 0, hi = 10 }\n'
                'b = { lo = 0, hi = 5 }\nc = { categories = ["x", "y"] }\n'
                'label = { categories = [0, 1] }\n')
            argv = ["synth", str(tmp / "t.csv"), "--model", model, "--bounds",
                    str(tmp / "b.toml"), "--epsilon", "0.5", "--delta", "1e-6",
                    "--out", str(tmp / "s.csv"), "--seed", "0", "--quiet"]
            if ledger is not None:
                argv += ["--ledger", str(ledger), "--dataset", "t.csv"]
            return argv, 0.5, "add-remove"
        return build

    def release(tmp, ledger):
        rng = np.random.default_rng(0)
        pd.DataFrame({"age": rng.uniform(18, 90, 500), "bmi": rng.uniform(15, 45, 500)}
                     ).to_csv(tmp / "p.csv", index=False)
        (tmp / "b.toml").write_text("[columns]\nage = { lo = 18, hi = 90 }\n"
                                    "bmi = { lo = 15, hi = 45 }\n")
        argv = ["release", str(tmp / "p.csv"), "--query", "mean", "--bounds", str(tmp / "b.toml"),
                "--epsilon", "0.5", "--delta", "1e-6", "--out", str(tmp / "r.json"),
                "--seed", "0"]
        if ledger is not None:
            argv += ["--ledger", str(ledger), "--dataset", "p.csv"]
        return argv, 0.5, "replace-one"
    return {"cli synth copula": synth("copula"), "cli synth tree-copula": synth("tree-copula"),
            "cli release mean": release}


CLI_SCENARIOS = {
    "accountant block, no --ledger": (["A"], None),
    "accountant block + --ledger M": (["A"], "M"),
    "ledger block + --ledger of the same file": (["L"], "L"),
}


def run_cli(build, scenario, tmp):
    import contextlib
    import io

    from matrixdp.accounting import Accountant, Ledger
    from matrixdp.cli import main

    blocks, ledger_name = CLI_SCENARIOS[scenario]
    argv, eps, relation = build(tmp, None)
    big = dict(epsilon=1e4, delta=0.5, relation=relation)
    dataset = argv[1].rsplit("/", 1)[-1]
    k = {"A": Accountant(**big),
         "L": Ledger.create(tmp / "L.db", dataset=dataset, dataset_name=dataset, **big),
         "M": Ledger.create(tmp / "M.db", dataset=dataset, dataset_name=dataset, **big)}
    argv, eps, _ = build(tmp, None if ledger_name is None else tmp / f"{ledger_name}.db")
    err = io.StringIO()
    with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stderr(err), \
            contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("always")
        with contextlib.ExitStack() as stack:
            for name in blocks:
                stack.enter_context(k[name])
            code = main(argv)
    names = sorted(set(blocks) | ({ledger_name} if ledger_name else set()))
    rec = {n: _record(k[n]) for n in names}
    k["L"].close()
    k["M"].close()
    return {"claim_epsilon": eps, "claim_delta": 1e-6, "charges": 1, "keepers": rec,
            "exit": code, "stderr": err.getvalue()[-300:],
            "bypass_warnings": sum("charged to the explicit keeper" in str(w.message)
                                   for w in caught)}


PROCESS_CASES = ("DPLinearRegression", "DPCovariance[moments]", "DPMean", "RONGauss")
PROCESS_SCENARIOS = {
    "workers: ledger block + own ledger": "with L: cross_validate(est(accountant=M), cv=3, "
                                          "n_jobs=2)",
    "workers: accountant block + own ledger": "with A: cross_validate(est(accountant=M), cv=3, "
                                              "n_jobs=2)  (must refuse: A cannot be pickled)",
}


def _zero(estimator, X, y=None):
    return 0.0


def run_process(case, scenario, tmp):
    """``cross_validate`` with joblib's process backend: the fits run in worker processes,
    where no block is open. Claim: 3 folds x the fit's guarantee (a reference fit outside any
    block on a fold-sized table)."""
    import pickle

    from sklearn.model_selection import cross_validate

    from matrixdp.accounting import Accountant, Ledger

    relation = case.relations[0]
    big = dict(epsilon=1e4, delta=0.5, relation=relation)
    (X, y), _ = case.data(relation)
    k = {"L": Ledger.create(tmp / "L.db", dataset="d", **big),
         "M": Ledger.create(tmp / "M.db", dataset="d", **big), "A": Accountant(**big)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = case.fit(case.make(relation), ((X[:80], None if y is None else y[:80])))
    eps, dlt = _claim(ref)
    block = "L" if "ledger block" in scenario else "A"
    row = {"claim_epsilon": 3 * eps, "claim_delta": 3 * dlt, "charges": 3 * case.charges}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with k[block]:
                cross_validate(case.make(relation, accountant=k["M"]), X, y, cv=3, n_jobs=2,
                               scoring=_zero)
        row["outcome"] = "ran"
    except pickle.PicklingError as exc:
        row["outcome"] = f"refused: {type(exc).__name__}"
    row["keepers"] = {n: _record(k[n]) for n in sorted({block, "M"})}
    k["L"].close(), k["M"].close()
    if block == "A":  # sound = refused loudly with nothing charged anywhere
        row["expect_refusal"] = True
    return row


def sound(row) -> bool:
    if row.get("expect_refusal"):
        return (row.get("outcome", "").startswith("refused")
                and all(r["entries"] == 0 for r in row["keepers"].values()))
    if row.get("exit", 0) != 0:
        return False
    for rec in row["keepers"].values():
        if rec["entries"] != row["charges"]:
            return False
        if abs(rec["epsilon"] - row["claim_epsilon"]) > 1e-9 * max(1.0, row["claim_epsilon"]):
            return False
        if abs(rec["delta"] - row["claim_delta"]) > 1e-9 * max(1e-12, row["claim_delta"]):
            return False
    return True


#: the scenarios where two handles of one ledger file are keepers (``--ablate-identity``)
SAME_FILE = ("same file, second handle", "ledger block + --ledger of the same file")


def measure(tag: str, tests: Path, ablate_identity: bool = False) -> None:
    sys.path.insert(0, str(tests))
    from _estimator_cases import CASES

    if ablate_identity:  # the branch without Ledger.keeper_identity: is the dedupe needed?
        from matrixdp.accounting import Ledger

        del Ledger.keeper_identity

    out = RESULTS / f"keeper_blocks_{tag}.jsonl"
    done = set()
    if out.exists():
        done = {(r["case"], r["scenario"]) for r in map(json.loads, out.read_text().splitlines())}
    with out.open("a") as fh:
        jobs = [(n, s, "case") for n in sorted(CASES) for s in SCENARIOS]
        jobs += [(n, s, "cli") for n in _cli_cases() for s in CLI_SCENARIOS]
        jobs += [(n, s, "process") for n in PROCESS_CASES for s in PROCESS_SCENARIOS]
        for name, scenario, kind in jobs:
            if (name, scenario) in done or (ablate_identity and scenario not in SAME_FILE):
                continue
            with tempfile.TemporaryDirectory() as d:
                try:
                    if kind == "case":
                        row = run_case(CASES[name], scenario, Path(d))
                    elif kind == "process":
                        row = run_process(CASES[name], scenario, Path(d))
                    else:
                        row = run_cli(_cli_cases()[name], scenario, Path(d))
                except Exception as exc:  # recorded, not hidden: a refusal is a result
                    row = {"error": f"{type(exc).__name__}: {str(exc)[:200]}", "keepers": {},
                           "charges": CASES[name].charges if kind != "cli" else 1,
                           "claim_epsilon": float("nan"), "claim_delta": float("nan")}
            if row is None:
                continue
            row.update(case=name, scenario=scenario)
            row["sound"] = "error" not in row and sound(row)
            fh.write(json.dumps(row) + "\n")
            fh.flush()
            print(tag, name, scenario, "sound" if row["sound"] else "NOT SOUND", flush=True)


def _cell(row) -> str:
    if row is None:
        return "—"
    if "error" in row:
        return "error: " + row["error"][:80].replace("|", "/")
    head = f"{row['outcome']}; " if "outcome" in row else ""
    parts = [f"{n} {r['entries']}×/ε {r['epsilon']:.4g}"
             for n, r in sorted(row["keepers"].items())]
    return ("ok: " if row["sound"] else "**NOT SOUND**: ") + head + ", ".join(parts)


def render() -> None:
    runs = {}
    for tag in ("main", "branch"):
        path = RESULTS / f"keeper_blocks_{tag}.jsonl"
        runs[tag] = {(r["case"], r["scenario"]): r
                     for r in map(json.loads, path.read_text().splitlines())
                     } if path.exists() else {}
    keys = sorted(set(runs["main"]) | set(runs["branch"]))
    lines = ["# Keepers recording a fit inside `with` blocks (task KB, session 24)", "",
             "From `experiments/keeper_blocks.py` (its docstring has the scenarios and the rule "
             "SOUND = each named keeper records exactly the case's entries, with summed epsilon "
             "and delta equal to the fitted object's claim, relative 1e-9). `main` = c9ac1aa, "
             "`branch` = task KB's `kb`. Cells: keeper entries × / summed epsilon. Raw rows: "
             "`keeper_blocks_main.jsonl`, `keeper_blocks_branch.jsonl` (and the ablation's "
             "`keeper_blocks_branch_no_identity.jsonl`); verdicts "
             "`keeper_blocks.csv`.", "", "Scenarios (L, M: ledgers; A, B: accountants; "
             "L' a second handle of L's file):", ""]
    lines += [f"- **{s}**: `{w}`" for s, w in SCENARIOS.items()]
    lines += [f"- **{s}** (command line, in-process): blocks {b}, `--ledger` "
              f"{'none' if l is None else l}" for s, (b, l) in CLI_SCENARIOS.items()]
    lines += [f"- **{s}** ({', '.join(PROCESS_CASES)}): `{w}`; sound = each keeper holds "
              "3 x the fit's entries and epsilon (a reference fit on 80 records), or, where "
              "it must refuse, refused with no entry anywhere"
              for s, w in PROCESS_SCENARIOS.items()]
    lines += ["", "## Sound per scenario (cases sound / cases run)", "",
              "| scenario | main | branch |", "|---|---|---|"]
    scen = list(SCENARIOS) + list(CLI_SCENARIOS) + list(PROCESS_SCENARIOS)
    for s in scen:
        cells = []
        for tag in ("main", "branch"):
            rows = [r for (c, sc), r in runs[tag].items() if sc == s]
            cells.append(f"{sum(r['sound'] for r in rows)} / {len(rows)}")
        lines.append(f"| {s} | {cells[0]} | {cells[1]} |")
    lines.append("| **all** | " + " | ".join(
        f"{sum(r['sound'] for r in runs[t].values())} / {len(runs[t])}" for t in ("main", "branch"))
        + " |")
    path = RESULTS / "keeper_blocks_branch_no_identity.jsonl"
    if path.exists():
        rows = [json.loads(x) for x in path.read_text().splitlines()]
        lines += ["", "## Ablation: the branch without `Ledger.keeper_identity`", "",
                  "`--ablate-identity` (same branch, the property deleted): a second handle of "
                  "the block's ledger file is then a second keeper and the file is charged twice.",
                  "", "| scenario | sound | entries in the file per fit (expected) |",
                  "|---|---|---|"]
        for sc in SAME_FILE:
            rs = [r for r in rows if r["scenario"] == sc]
            counts = sorted({(r["keepers"].get("L", {}).get("entries"), r["charges"])
                             for r in rs})
            lines.append(f"| {sc} | {sum(r['sound'] for r in rs)} / {len(rs)} | "
                         + ", ".join(f"{a} ({b})" for a, b in counts) + " |")
    lines += ["", "## Every case and scenario", "", "| case | scenario | main | branch |",
              "|---|---|---|---|"]
    csv = ["case,scenario,main_sound,branch_sound"]
    for c, s in keys:
        m, b = runs["main"].get((c, s)), runs["branch"].get((c, s))
        lines.append(f"| {c} | {s} | {_cell(m)} | {_cell(b)} |")
        csv.append(f"\"{c}\",\"{s}\",{'' if m is None else m['sound']},"
                   f"{'' if b is None else b['sound']}")
    (RESULTS / "keeper_blocks.md").write_text("\n".join(lines) + "\n")
    (RESULTS / "keeper_blocks.csv").write_text("\n".join(csv) + "\n")


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--tag")
    p.add_argument("--tests", default=str(ROOT / "tests"))
    p.add_argument("--render", action="store_true")
    p.add_argument("--ablate-identity", action="store_true")
    a = p.parse_args()
    if a.render:
        render()
    else:
        measure(a.tag, Path(a.tests), a.ablate_identity)
