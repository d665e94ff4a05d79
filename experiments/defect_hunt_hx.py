"""Task HX's defect hunt: each defect's minimal reproduction, run on the base commit and on this tree.

Every probe is a short program that prints one line of JSON (what it observed). The script runs
each probe in a fresh process twice: with the library of ``--base`` (default 712cfbf, the commit
the hunt started from; its ``src/`` is taken with ``git archive`` into a temporary folder) and with
this checkout's ``src/`` (and ``experiments/``, for ``reproduce``), with a time limit (a probe that hangs reports ``"timeout"``). Nothing
is tuned or chosen from the results: the probes are the reproductions written before each fix,
and the table states what each printed.

Command (from the repository root)::

    PYTHONPATH=src python experiments/defect_hunt_hx.py

writes ``results/defect_hunt_hx_probes.md`` and ``.csv``. The list of defects, severities, fixes
and tests is ``results/defect_hunt_hx.md`` (written by hand; it cites this file for the numbers).
"""

from __future__ import annotations

import argparse
import csv
import sys
import tempfile
from pathlib import Path

from _defect_probes import base_tree, markdown_row, run_probe

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "results"

#: (name, what it shows, program). Each program prints one JSON value.
PROBES = [
    ("accountant_threads",
     "8 threads share Accountant(epsilon=1); each releases Laplace epsilon=0.6 (noise takes 50 ms)",
     """
     import json, threading, time
     from matrixdp import LaplaceMechanism
     from matrixdp.accounting import Accountant
     from matrixdp.errors import BudgetExceededError
     class Slow(LaplaceMechanism):
         def _noise(self, shape, rng):
             time.sleep(0.05)
             return super()._noise(shape, rng)
     acc, mech, out = Accountant(epsilon=1.0), Slow(epsilon=0.6, sensitivity=1.0), []
     barrier = threading.Barrier(8)
     def work(i):
         barrier.wait()
         try:
             mech.release(0.0, rng=i, accountant=acc); out.append(1)
         except BudgetExceededError:
             out.append(0)
     ts = [threading.Thread(target=work, args=(i,)) for i in range(8)]
     [t.start() for t in ts]; [t.join() for t in ts]
     print(json.dumps({"released": sum(out), "charged_epsilon": round(acc.total().epsilon, 6)}))
     """),
    ("with_block_worker_threads",
     "with Accountant(epsilon=1): 4 releases of epsilon=0.6 in a ThreadPoolExecutor(2)",
     """
     import json
     from concurrent.futures import ThreadPoolExecutor
     from matrixdp import LaplaceMechanism
     from matrixdp.accounting import Accountant
     from matrixdp.errors import BudgetExceededError
     mech, acc = LaplaceMechanism(epsilon=0.6, sensitivity=1.0), Accountant(epsilon=1.0)
     def one(i):
         try:
             mech.release(0.0, rng=i); return 1
         except BudgetExceededError:
             return 0
     with acc:
         with ThreadPoolExecutor(2) as ex:
             released = sum(ex.map(one, range(4)))
     print(json.dumps({"released": released, "charged_epsilon": round(acc.total().epsilon, 6)}))
     """),
    ("with_block_worker_processes",
     "inside with Accountant(epsilon=1.5) / with ledger (epsilon=2.5): cross_val_score of "
     "DPLinearRegression(epsilon=1), cv=5, n_jobs=2 (loky processes)",
     """
     import json, os, tempfile, warnings
     warnings.simplefilter("ignore")
     os.environ["MATRIXDP_STATE_DIR"] = tempfile.mkdtemp()
     import numpy as np
     from sklearn.model_selection import cross_val_score
     from matrixdp import DPLinearRegression
     from matrixdp.accounting import Accountant, Ledger
     if __name__ == "__main__":
         rng = np.random.default_rng(0)
         X = rng.uniform(-1, 1, (400, 2))
         y = np.clip(X @ [0.5, -0.3] + 0.1 * rng.standard_normal(400), -1, 1)
         make = lambda: DPLinearRegression(epsilon=1.0, delta=1e-6, bounds_X=(-1, 1),
                                           bounds_y=(-1, 1))
         out = {}
         acc = Accountant(epsilon=1.5, delta=1e-5)
         try:
             with acc:
                 cross_val_score(make(), X, y, cv=5, n_jobs=2)
             out["accountant"] = {"fits_ran": 5, "charged_epsilon": acc.total().epsilon}
         except Exception as exc:
             out["accountant"] = {"refused": type(exc).__name__,
                                  "charged_epsilon": acc.total().epsilon}
         led = Ledger.create(os.path.join(tempfile.mkdtemp(), "l.db"), dataset="d",
                             epsilon=2.5, delta=1e-5)
         with led:
             cross_val_score(make(), X, y, cv=5, n_jobs=2)
         out["ledger"] = {"entries": len(led.history())}
         print(json.dumps(out))
     """),
    ("forked_pool_in_a_block",
     "a fork Pool(2) made inside with Accountant(epsilon=1) / with ledger (epsilon=1); 4 "
     "Laplace releases of epsilon=0.6 in the children",
     """
     import json, multiprocessing as mp, os, tempfile
     os.environ["MATRIXDP_STATE_DIR"] = tempfile.mkdtemp()
     from matrixdp import LaplaceMechanism
     from matrixdp.accounting import Accountant, Ledger
     def rel(i):
         try:
             LaplaceMechanism(epsilon=0.6, sensitivity=1.0).release(0.0, rng=i)
             return "released"
         except Exception as exc:
             return type(exc).__name__
     if __name__ == "__main__":
         ctx, out = mp.get_context("fork"), {}
         acc = Accountant(epsilon=1.0)
         with acc:
             with ctx.Pool(2) as pool:
                 res = pool.map(rel, range(4))
         out["accountant"] = {"released": res.count("released"),
                              "other": sorted(set(r for r in res if r != "released")),
                              "parent_charged": acc.total().epsilon}
         led = Ledger.create(os.path.join(tempfile.mkdtemp(), "l.db"), dataset="d", epsilon=1.0)
         with led:
             with ctx.Pool(2) as pool:
                 res = pool.map(rel, range(4))
         out["ledger"] = {"released": res.count("released"), "entries": len(led.history())}
         print(json.dumps(out))
     """),
    ("nested_blocks_one_keeper",
     "with acc: with acc: one Laplace release of epsilon=0.3",
     """
     import json
     from matrixdp import LaplaceMechanism
     from matrixdp.accounting import Accountant
     acc = Accountant(epsilon=1.0)
     with acc:
         with acc:
             LaplaceMechanism(epsilon=0.3, sensitivity=1.0).release(0.0)
     print(json.dumps({"charged_epsilon": round(acc.total().epsilon, 6),
                       "entries": len(acc.spends)}))
     """),
    ("threads_leave_blocks_out_of_order",
     "two threads enter 'with acc:' at 0 and 0.1 s and leave at 0.2 and 0.4 s",
     """
     import json, threading, time
     from matrixdp import LaplaceMechanism
     from matrixdp.accounting import Accountant
     acc, errors = Accountant(epsilon=10.0), []
     def block(enter, stay):
         try:
             time.sleep(enter)
             with acc:
                 time.sleep(stay)
                 LaplaceMechanism(epsilon=0.1, sensitivity=1.0).release(0.0)
         except Exception as exc:
             errors.append(type(exc).__name__)
     ts = [threading.Thread(target=block, args=a) for a in ((0.0, 0.2), (0.1, 0.3))]
     [t.start() for t in ts]; [t.join() for t in ts]
     print(json.dumps({"errors": errors}))
     """),
    ("guarantee_mu_nan",
     "Accountant(epsilon=1, delta=1e-6).spend(PrivacyGuarantee(epsilon=100, delta=1e-7, mu=nan))",
     """
     import json
     from matrixdp import PrivacyGuarantee
     from matrixdp.accounting import Accountant
     try:
         Accountant(epsilon=1.0, delta=1e-6).spend(
             PrivacyGuarantee(epsilon=100.0, delta=1e-7, mu=float("nan")))
         print(json.dumps("accepted"))
     except Exception as exc:
         print(json.dumps(type(exc).__name__))
     """),
    ("guarantee_mu_inf",
     "the same with mu=inf (time limit 20 s)",
     """
     import json
     from matrixdp import PrivacyGuarantee
     from matrixdp.accounting import Accountant
     try:
         Accountant(epsilon=1.0, delta=1e-6).spend(
             PrivacyGuarantee(epsilon=100.0, delta=1e-7, mu=float("inf")))
         print(json.dumps("accepted"))
     except Exception as exc:
         print(json.dumps(type(exc).__name__))
     """),
    ("guarantee_mu_negative",
     "the same with mu=-0.01: what the accountant records",
     """
     import json
     from matrixdp import PrivacyGuarantee
     from matrixdp.accounting import Accountant
     acc = Accountant(epsilon=1.0, delta=1e-6)
     try:
         acc.spend(PrivacyGuarantee(epsilon=100.0, delta=1e-7, mu=-0.01))
         print(json.dumps({"accepted": True, "charged_epsilon": round(acc.total().epsilon, 6)}))
     except Exception as exc:
         print(json.dumps(type(exc).__name__))
     """),
    ("ledger_remaining_delta_above_budget",
     "Ledger with delta=1e-6: remaining(delta=0.5)",
     """
     import json, os, tempfile
     os.environ["MATRIXDP_STATE_DIR"] = tempfile.mkdtemp()
     from matrixdp.accounting import Ledger
     led = Ledger.create(os.path.join(tempfile.mkdtemp(), "l.db"), dataset="d", epsilon=1.0,
                         delta=1e-6)
     try:
         print(json.dumps({"answer": list(led.remaining(delta=0.5))}))
     except Exception as exc:
         print(json.dumps(type(exc).__name__))
     """),
    ("history_label_newline",
     "budget history of an entry labelled 'real\\n    9  released ...': lines printed",
     """
     import contextlib, io, json, os, tempfile
     os.environ["MATRIXDP_STATE_DIR"] = tempfile.mkdtemp()
     from matrixdp import LaplaceMechanism
     from matrixdp.accounting import Ledger
     from matrixdp.cli import main
     path = os.path.join(tempfile.mkdtemp(), "h.db")
     led = Ledger.create(path, dataset="h", epsilon=2.0)
     led.spend(LaplaceMechanism(epsilon=0.1, sensitivity=1.0).privacy,
               label="real\\n    9  released  0.0001  forged")
     led.close()
     buf = io.StringIO()
     with contextlib.redirect_stdout(buf):
         main(["budget", "history", path])
     print(json.dumps({"lines": len(buf.getvalue().splitlines()), "entries": 1}))
     """),
    ("report_category_with_comma",
     "synth report of categories ['Paris, TX', 'Paris', 'Lyon']: the schema table's text",
     """
     import contextlib, io, json, os, re, tempfile
     import numpy as np, pandas as pd
     from matrixdp.cli import main
     d = tempfile.mkdtemp()
     rng = np.random.default_rng(2)
     pd.DataFrame({"age": rng.integers(18, 90, 600),
                   "city": rng.choice(["Paris, TX", "Paris", "Lyon"], 600)}).to_csv(
         os.path.join(d, "m.csv"), index=False)
     open(os.path.join(d, "b.toml"), "w").write(
         '[columns]\\nage = { lo = 18, hi = 90, integer = true }\\n'
         'city = { categories = ["Paris, TX", "Paris", "Lyon"] }\\n')
     with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
         main(["synth", os.path.join(d, "m.csv"), "--bounds", os.path.join(d, "b.toml"),
               "--epsilon", "2", "--out", os.path.join(d, "s.csv"), "--seed", "1",
               "--report", os.path.join(d, "r.html")])
     html = open(os.path.join(d, "r.html")).read()
     print(json.dumps(re.search(r"<td>city</td><td>([^<]*)", html).group(1)))
     """),
    ("release_ledger_other_relation",
     "release --ledger on a ledger made with --relation add-remove: the error line",
     """
     import contextlib, io, json, os, tempfile
     os.environ["MATRIXDP_STATE_DIR"] = tempfile.mkdtemp()
     import numpy as np, pandas as pd
     from matrixdp.cli import main
     d = tempfile.mkdtemp()
     pd.DataFrame({"a": np.random.default_rng(0).uniform(0, 1, 300)}).to_csv(
         os.path.join(d, "t.csv"), index=False)
     out = io.StringIO()
     with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
         main(["budget", "init", os.path.join(d, "t.db"), "--epsilon", "3",
               "--relation", "add-remove"])
         main(["release", os.path.join(d, "t.csv"), "--query", "mean", "--bounds", "a=0:1",
               "--epsilon", "1", "--ledger", os.path.join(d, "t.db"),
               "--out", os.path.join(d, "r.json")])
     print(json.dumps(out.getvalue().strip().splitlines()[-1].split(os.sep)[-1][:110]))
     """),
    ("delta_budget_as_text",
     "Accountant(epsilon=1, delta='0.1')",
     """
     import json
     from matrixdp.accounting import Accountant
     try:
         print(json.dumps({"accepted_delta": Accountant(epsilon=1.0, delta="0.1").delta}))
     except Exception as exc:
         print(json.dumps(type(exc).__name__))
     """),
    ("sound_ledger_threads",
     "(found sound) 8 threads share one Ledger(epsilon=1); each releases Laplace epsilon=0.6",
     """
     import json, os, tempfile, threading
     os.environ["MATRIXDP_STATE_DIR"] = tempfile.mkdtemp()
     from matrixdp import LaplaceMechanism
     from matrixdp.accounting import Ledger
     from matrixdp.errors import BudgetExceededError
     led = Ledger.create(os.path.join(tempfile.mkdtemp(), "x.db"), dataset="x", epsilon=1.0)
     mech, out, barrier = LaplaceMechanism(epsilon=0.6, sensitivity=1.0), [], threading.Barrier(8)
     def work(i):
         barrier.wait()
         try:
             mech.release(0.0, rng=i, ledger=led); out.append(1)
         except BudgetExceededError:
             out.append(0)
     ts = [threading.Thread(target=work, args=(i,)) for i in range(8)]
     [t.start() for t in ts]; [t.join() for t in ts]
     print(json.dumps({"released": sum(out), "charged_epsilon": round(led.spent().epsilon, 6)}))
     """),
    ("sound_dask_equals_memory",
     "(found sound) max |Dask fit - in-memory fit|, same seed, 600 x 3, 4 partitions (one empty "
     "in the second figure), method='moments' where it applies",
     """
     import json, warnings
     warnings.simplefilter("ignore")
     import numpy as np, pandas as pd, dask.dataframe as dd
     from matrixdp import DPCovariance, DPPCA, DPLinearRegression, DPMean
     rng = np.random.default_rng(0); n = 600
     df = pd.DataFrame({"a": rng.uniform(0, 1, n), "b": rng.uniform(0, 10, n),
                        "c": rng.uniform(0, 1, n), "y": rng.uniform(0, 5, n)})
     ddf = dd.from_pandas(df, npartitions=4)
     empty = ddf.map_partitions(lambda p: p.iloc[0:0] if p.index[0] == 0 else p)
     B = dict(bounds=([0, 0, 0], [1, 10, 1]))
     makers = {
         "DPCovariance": (lambda: DPCovariance(epsilon=1, delta=1e-6, random_state=3,
                                               method="moments", **B), "covariance_"),
         "DPPCA": (lambda: DPPCA(n_components=2, epsilon=1, delta=1e-6, random_state=3,
                                 method="moments", **B), "components_"),
         "DPMean": (lambda: DPMean(epsilon=1, random_state=3, **B), "mean_"),
         "DPLinearRegression": (lambda: DPLinearRegression(
             epsilon=1, delta=1e-6, random_state=3, bounds_X=([0, 0, 0], [1, 10, 1]),
             bounds_y=(0, 5)), "coef_")}
     out = {}
     for name, (make, attr) in makers.items():
         def fit(frame):
             est = make()
             if name == "DPLinearRegression":
                 est.fit(frame[["a", "b", "c"]], frame["y"])
             else:
                 est.fit(frame[["a", "b", "c"]])
             return np.asarray(getattr(est, attr))
         out[name] = [float(f"{np.abs(fit(df) - fit(ddf)).max():.2g}"),
                      float(f"{np.abs(fit(df.iloc[150:]) - fit(empty)).max():.2g}")]
     print(json.dumps(out))
     """),
    ("reproduce_out_under_a_file",
     "reproduce with --out under a file (the script stubbed): the exit status, whether the "
     "script started (a real one fails at its end, when it writes), whether the error names --out",
     """
     import contextlib, io, json, os, tempfile
     from matrixdp.cli import main, reproduce
     ran = []
     reproduce.run_experiment = lambda name, argv: ran.append(name) or 0
     d = tempfile.mkdtemp(); open(os.path.join(d, "f"), "w").close()
     err = io.StringIO()
     with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
         code = main(["reproduce", "mvg-exp1", "--trials", "2", "--out",
                      os.path.join(d, "f", "sub")])
     print(json.dumps({"exit": code, "script_ran": bool(ran),
                       "names_--out": "--out" in err.getvalue()}))
     """),
]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="712cfbf")
    parser.add_argument("--timeout", type=float, default=20.0)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        base = base_tree(args.base, Path(tmp), ("src", "experiments"))
        for name, what, program in PROBES:
            before = run_probe(program, base, args.timeout)
            after = run_probe(program, ROOT / "src", args.timeout)
            rows.append({"probe": name, "what": what, "before": before, "after": after})
            print(f"{name}: before {before} | after {after}", flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    with open(args.out / "defect_hunt_hx_probes.csv", "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=["probe", "what", "before", "after"])
        writer.writeheader()
        writer.writerows(rows)
    lines = ["# Task HX: the defects' reproductions before and after the fixes", "",
             f"Script: `experiments/defect_hunt_hx.py`. Before: the library at commit "
             f"`{args.base}` (the hunt's base); after: this tree's `src/`. Each probe runs in a "
             f"fresh process with a {args.timeout:g} s limit and prints one JSON value. The "
             "defect list, severities, fixes and tests: `results/defect_hunt_hx.md`.", "",
             "| probe | what it does | before | after |", "|---|---|---|---|"]
    for r in rows:
        cells = [r["probe"], r["what"], r["before"], r["after"]]
        lines.append(markdown_row(cells))
    (args.out / "defect_hunt_hx_probes.md").write_text("\n".join(lines) + "\n")
    print(f"wrote {args.out / 'defect_hunt_hx_probes.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
