"""Task HZ's defect hunt (session 20): the synthetic-data generators used from Python, their Dask
path and the curator's round trip (``matrixdp synth``): each defect's reproduction on the base
commit and on this tree, and the checks behind the list's "found sound".

Part 1 (probes). Every probe is a short program printing one line of JSON (what it observed). Each
runs in a fresh process twice: with the library of ``--base`` (default 614b791, where the hunt
started; its ``src/`` taken with ``git archive`` into a temporary folder) and with this checkout's
``src/``, under a 120 s time limit and a 4 GiB address-space limit (the sampling probe would
otherwise allocate until the operating system stops it). Nothing is tuned: the probes are the
reproductions written before each fix.

Part 2 (sound). Programs run on this tree only, in fresh processes: what was checked and found
sound (charges of every generator, task and relation; refused fits charge nothing; Dask fits equal
in-memory fits on 1, 3 and 7 partitions, a ``category`` column and an empty partition; no
generator state in a pickled or deep-copied model; the CLI's round trip of a CSV with integer,
float, text, code, boolean, quoted and class columns, in memory and from a folder of parts).

Command (from the repository root)::

    PYTHONPATH=src python experiments/defect_hunt_hz.py

writes ``results/defect_hunt_hz_probes.md`` and ``.csv`` (about two minutes on one core). The
list of defects is ``results/defect_hunt_hz.md`` (by hand; it cites this file for the numbers).
"""

from __future__ import annotations

import argparse
import csv
import tempfile
from pathlib import Path

from _defect_probes import base_tree, markdown_row, run_probe

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "results"

_HEADER = """
import json, resource, warnings, tempfile, os
warnings.simplefilter("ignore")
resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
import numpy as np, pandas as pd
def outcome(f):
    try:
        r = f()
        return {"ok": r if isinstance(r, (int, float, str, bool, list, dict, type(None))) else repr(r)[:80]}
    except BaseException as e:
        return {"error": type(e).__name__ + ": " + str(e)[:100]}
def mixed(n=400, seed=0, nan_last=False, bad_label=False):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.uniform(0, 10, n), "b": rng.uniform(0, 4, n),
                      "c": rng.choice(["x", "y", "z"], n)})
    y = pd.Series(rng.choice(["p", "q"], n))
    if nan_last:
        X.loc[n - 1, "a"] = np.nan
    if bad_label:
        y.iloc[n - 1] = "r"
    return X, y
from matrixdp.synth import TableSchema
SCHEMA = TableSchema(bounds={"a": (0, 10), "b": (0, 4)}, categories={"c": ["x", "y", "z"]})
"""

#: (name, what it shows, program). Each program prints one JSON value.
PROBES = [
    ("ron_parquet_existing_directory",
     "RONGauss.sample_to_parquet(dir, 1000, partitions=12), then (dir, 1000, partitions=2): "
     "returned files, *.parquet files in dir, records read back, and the first call's names from "
     "the one before part.9 (3 at most)",
     """
     from matrixdp.synth import RONGauss
     def f():
         X = np.random.default_rng(0).normal(size=(300, 5))
         m = RONGauss(dim=2, epsilon=1.0, random_state=0).fit(X)
         d = tempfile.mkdtemp()
         first = m.sample_to_parquet(d, 1000, partitions=12, random_state=1)
         files = m.sample_to_parquet(d, 1000, partitions=2, random_state=1)
         names = [os.path.basename(p) for p in first]
         return [len(files), len([p for p in os.listdir(d) if p.endswith(".parquet")]),
                 len(pd.read_parquet(d)), names[names.index("part.9.parquet") - 1:][:3]]
     print(json.dumps(outcome(f)))
     """),
    ("ron_parquet_label_column_is_a_feature",
     "RONGauss(task='regression', reconstruct=True) fitted on a frame with features a, b, y; "
     "sample_to_parquet(dir, 100) with the default label_column='y': the columns written",
     """
     from matrixdp.synth import RONGauss
     def f():
         rng = np.random.default_rng(0)
         X = pd.DataFrame(rng.normal(size=(300, 3)), columns=["a", "b", "y"])
         m = RONGauss(dim=2, epsilon=1.0, task="regression", label_bound=1, reconstruct=True,
                      random_state=0).fit(X, np.clip(X["a"].to_numpy(), -1, 1))
         d = tempfile.mkdtemp()
         m.sample_to_parquet(d, 100, random_state=0)
         return list(pd.read_parquet(d).columns)
     print(json.dumps(outcome(f)))
     """),
    ("ron_transform_column_order",
     "RONGauss fitted on a frame with columns a, b, c (scales 1, 5, 25); transform of the same "
     "frame with its columns as c, b, a: the largest difference from transform in the fitted order",
     """
     from matrixdp.synth import RONGauss
     def f():
         rng = np.random.default_rng(0)
         X = pd.DataFrame(rng.normal(size=(200, 3)) * [1.0, 5.0, 25.0], columns=["a", "b", "c"])
         m = RONGauss(dim=2, epsilon=1.0, random_state=0).fit(X)
         return float(np.max(np.abs(m.transform(X[["c", "b", "a"]]) - m.transform(X))))
     print(json.dumps(outcome(f)))
     """),
    ("tree_dask_refused_after_charge",
     "DPTreeCopula(epsilon=1) on a 4-partition Dask frame whose last record has a NaN (resp. a "
     "label outside the classes): the error, and the number of spends on the Accountant (in "
     "memory: 0)",
     """
     import dask.dataframe as dd
     from matrixdp.accounting import Accountant
     from matrixdp.synth import DPTreeCopula
     res = []
     for kw in ({"nan_last": True}, {"bad_label": True}):
         X, y = mixed(**kw)
         d = dd.from_pandas(X.assign(lab=y), npartitions=4)
         acc = Accountant(epsilon=10, delta=1e-3)
         m = DPTreeCopula(schema=SCHEMA, epsilon=1.0, classes=["p", "q"], random_state=0, accountant=acc)
         r = outcome(lambda: m.fit(d[["a", "b", "c"]], d["lab"]))
         res.append([r.get("error", "fitted")[:60], len(acc.spends)])
     print(json.dumps(res))
     """),
    ("table_sample_beyond_memory",
     "DPCopula / DPTreeCopula fitted on 400 records, sample(2 * 10**9) (address space limited to "
     "4 GiB in this probe)",
     """
     from matrixdp.synth import DPCopula, DPTreeCopula
     X, y = mixed()
     out = []
     for cls in (DPCopula, DPTreeCopula):
         m = cls(schema=SCHEMA, epsilon=1.0, random_state=0).fit(X)
         out.append(outcome(lambda: len(m.sample(2 * 10**9, random_state=0))))
     print(json.dumps(out))
     """),
    ("cli_class_labels_from_column_dtype",
     "matrixdp synth --model ron-gauss --task classification --classes 1,2 --seed 0 --n 4 on a "
     "CSV, and on the same CSV with its last label written 2.0 (or 1.0) instead of 2 (1): the "
     "synthetic label column; then --classes 1,2,other on the first CSV",
     """
     import contextlib, io
     from matrixdp.cli import main
     d = tempfile.mkdtemp()
     rng = np.random.default_rng(1)
     frame = pd.DataFrame(rng.normal(size=(300, 3)), columns=["a", "b", "c"])
     frame["t"] = rng.choice([1, 2], 300)
     frame.to_csv(f"{d}/plain.csv", index=False)
     lines = open(f"{d}/plain.csv").read().splitlines()
     head, _, last = lines[-1].rpartition(",")
     lines[-1] = f"{head},{float(last)}"
     open(f"{d}/decimal.csv", "w").write("\\n".join(lines) + "\\n")
     out = []
     for name, classes in (("plain", "1,2"), ("decimal", "1,2"), ("plain", "1,2,other")):
         with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
             code = main(["synth", f"{d}/{name}.csv", "--dim", "2", "--task", "classification",
                          "--target", "t", "--classes", classes, "--epsilon", "1", "--seed", "0",
                          "--n", "4", "--out", f"{d}/o.csv", "--force", "--quiet"])
         rows = open(f"{d}/o.csv").read().splitlines()[1:] if code == 0 else []
         out.append([r.rsplit(",", 1)[1] for r in rows] if code == 0 else f"exit {code}")
     print(json.dumps(out))
     """),
    ("tiny_budget",
     "DPCopula(epsilon=1e-6, delta=1e-9) and DPTreeCopula(epsilon=1e-5, delta=1e-5) fitted on 400 "
     "records (in memory): the claimed epsilon, or the error",
     """
     from matrixdp.synth import DPCopula, DPTreeCopula
     X, y = mixed()
     print(json.dumps([outcome(lambda: DPCopula(schema=SCHEMA, epsilon=1e-6, delta=1e-9, random_state=0).fit(X).privacy_.epsilon),
                       outcome(lambda: DPTreeCopula(schema=SCHEMA, epsilon=1e-5, delta=1e-5, random_state=0).fit(X).privacy_.epsilon)]))
     """),
    ("copula_one_column_budget",
     "DPCopula(epsilon=1, delta=1e-9) on one numeric column: marginal_sigma_ and 1/mu*(1, 1e-9) "
     "(the histogram's noise if it had the whole budget; no score moments are released)",
     """
     from matrixdp.synth import DPCopula
     from matrixdp.calibration import max_gaussian_shift
     X, y = mixed()
     m = DPCopula(schema=TableSchema(bounds={"a": (0, 10)}), epsilon=1.0, random_state=0).fit(X[["a"]])
     print(json.dumps([m.marginal_sigma_, 1 / max_gaussian_shift(1.0, 1e-9), m.privacy_.epsilon]))
     """),
    ("seeded_model_replay",
     "A DPCopula(epsilon=1, random_state=5) fitted on 400 records and pickled; the holder of the "
     "pickle fits DPCopula(**params) on 50 public records all in one cell, takes released minus "
     "exact counts as the noise, and subtracts it from the held model's released histogram of a: "
     "the largest error against the private exact counts, and that error without the replay "
     "(documented on this tree: docs/copula.md, 'Randomness')",
     """
     import pickle
     from matrixdp.synth import DPCopula
     X, y = mixed()
     held = pickle.loads(pickle.dumps(DPCopula(schema=SCHEMA, epsilon=1.0, random_state=5).fit(X)))
     Z = pd.DataFrame({"a": np.zeros(50), "b": np.zeros(50), "c": ["x"] * 50})
     probe = DPCopula(**held.get_params()).fit(Z)
     exact_z = np.zeros(32); exact_z[0] = 50
     noise = probe.marginal_counts_["a"][0] - exact_z
     exact_x = np.histogram(X["a"], bins=held.bin_edges_["a"])[0]
     print(json.dumps([float(np.max(np.abs(held.marginal_counts_["a"][0] - noise - exact_x))),
                       float(np.max(np.abs(held.marginal_counts_["a"][0] - exact_x)))]))
     """),
    ("gdp_epsilon_round_trip",
     "gdp_epsilon(max_gaussian_shift(eps, delta), delta) / eps at (1e-6, 1e-9), (1e-9, 1e-12), (1, 1e-9)",
     """
     from matrixdp.accounting.composition import gdp_epsilon
     from matrixdp.calibration import max_gaussian_shift
     print(json.dumps([gdp_epsilon(max_gaussian_shift(e, d), d) / e
                       for e, d in ((1e-6, 1e-9), (1e-9, 1e-12), (1.0, 1e-9))]))
     """),
    ("integer_column_without_integers",
     "TableSchema(bounds={'a': (0.5, 0.9), 'b': (0, 1)}, integer=('a',)); DPCopula on 50 records "
     "with a = 0.7: the distinct synthetic values of a (public range [0.5, 0.9])",
     """
     from matrixdp.synth import DPCopula
     def f():
         schema = TableSchema(bounds={"a": (0.5, 0.9), "b": (0, 1)}, integer=("a",))
         frame = pd.DataFrame({"a": np.full(50, 0.7), "b": np.linspace(0, 1, 50)})
         m = DPCopula(schema=schema, epsilon=1.0, random_state=0).fit(frame)
         return sorted(set(m.sample(200, random_state=0)["a"].tolist()))
     print(json.dumps(outcome(f)))
     """),
]

#: (name, what was checked, program) run on this tree only; each prints one JSON value.
SOUND = [
    ("charges",
     "spends on an Accountant: one good fit of each generator (DPCopula, DPTreeCopula, RONGauss x "
     "3 tasks x 2 relations), a refit (2), and fits refused for a NaN / a label outside the classes "
     "in memory and on Dask (0); the relation of the charge",
     """
     import dask.dataframe as dd, dask.array as da
     from matrixdp.accounting import Accountant
     from matrixdp.synth import DPCopula, DPTreeCopula, RONGauss
     out = {}
     def spends(make, *data):
         acc = Accountant(epsilon=100, delta=1e-3)
         r = outcome(lambda: make(acc).fit(*data))
         return [len(acc.spends), "ok" if "ok" in r else "refused"] + (
             [str(acc.total()).split("[")[1].split(";")[0]] if acc.spends else [])
     X, y = mixed(); Xn, _ = mixed(nan_last=True); _, yb = mixed(bad_label=True)
     for cls in (DPCopula, DPTreeCopula):
         mk = lambda acc: cls(schema=SCHEMA, epsilon=1, classes=["p", "q"], random_state=0, accountant=acc)
         out[cls.__name__] = [spends(mk, X, y), spends(mk, Xn, y), spends(mk, X, yb)]
         for name, (A, b) in (("dask nan", (Xn, y)), ("dask label", (X, yb))):
             d = dd.from_pandas(A.assign(lab=b), npartitions=4)
             out[cls.__name__].append(spends(mk, d[["a", "b", "c"]], d["lab"]))
         acc = Accountant(epsilon=100, delta=1e-3); m = mk(acc); m.fit(X, y); m.fit(X, y)
         out[cls.__name__].append(["refit", len(acc.spends)])
     R = np.random.default_rng(0).normal(size=(400, 4)); Rn = R.copy(); Rn[-1, 0] = np.nan
     for task, lab, kw in (("unsupervised", None, {}), ("regression", np.clip(R[:, 0], -1, 1), {"label_bound": 1}),
                           ("classification", y.to_numpy(), {"classes": ["p", "q"]})):
         for rel in ("replace-one", "add-remove"):
             mk = lambda acc: RONGauss(dim=2, epsilon=1, task=task, neighbouring=rel, random_state=0, accountant=acc, **kw)
             dl = None if lab is None else (dd.from_pandas(pd.Series(lab), npartitions=4) if task == "classification" else da.from_array(lab, chunks=100))
             out[f"RONGauss {task} {rel}"] = [spends(mk, R, lab), spends(mk, Rn, lab),
                                              spends(mk, da.from_array(Rn, chunks=(100, 4)), dl)]
     print(json.dumps(out))
     """),
    ("threads_and_cli_fit",
     "Fits in a ThreadPoolExecutor inside `with Accountant(...)` (3 fits each of DPCopula, "
     "DPTreeCopula, RONGauss add-remove): spends; 8 threads fitting DPCopula(epsilon=1) against "
     "Accountant(epsilon=1.5) at delta 1e-9 and 1e-3: released, and the composed total; the CLI's "
     "fit_table_generator (copula, tree-copula) inside `with Accountant`: spends, and the DP count "
     "of a public class no record has",
     """
     import tempfile
     from concurrent.futures import ThreadPoolExecutor
     from matrixdp.accounting import Accountant
     from matrixdp.synth import DPCopula, DPTreeCopula, RONGauss
     from matrixdp.cli._generator import fit_table_generator, read_generator_bounds
     X, y = mixed(100)
     out = {}
     acc = Accountant(epsilon=100, delta=1e-3)
     with acc, ThreadPoolExecutor(2) as ex:
         list(ex.map(lambda s: DPCopula(schema=SCHEMA, epsilon=1, random_state=s).fit(X), range(3)))
         list(ex.map(lambda s: DPTreeCopula(schema=SCHEMA, epsilon=1, random_state=s).fit(X), range(3)))
         list(ex.map(lambda s: RONGauss(dim=1, epsilon=1, neighbouring="add-remove", random_state=s).fit(
             np.random.default_rng(s).normal(size=(50, 3))), range(3)))
     out["9 fits in threads: spends"] = len(acc.spends)
     for d in (1e-9, 1e-3):
         acc = Accountant(epsilon=1.5, delta=d)
         def fit(s):
             try:
                 DPCopula(schema=SCHEMA, epsilon=1, random_state=s).fit(X)
                 return 1
             except Exception:
                 return 0
         with acc, ThreadPoolExecutor(4) as ex:
             released = sum(ex.map(fit, range(8)))
         out[f"8 threads vs epsilon 1.5, delta {d:g}"] = [released, round(acc.total().epsilon, 4)]
     folder = tempfile.mkdtemp()
     open(f"{folder}/b.toml", "w").write('target = "g"\\n[columns]\\na = { lo = 0, hi = 10 }\\n'
                                         'c = { categories = ["x", "y"] }\\ng = { categories = ["p", "q", "r"] }\\n')
     schema = read_generator_bounds(f"{folder}/b.toml")
     frame = pd.DataFrame({"a": np.linspace(0, 10, 60), "c": ["x", "y"] * 30, "g": ["p", "q"] * 30})
     for model in ("copula", "tree-copula"):
         acc = Accountant(epsilon=10, delta=1e-3)
         with acc:
             fitted = fit_table_generator(model, schema, frame, epsilon=1.0, delta=1e-9, seed=0)
         out[f"CLI {model}: spends, DP count of class r"] = [len(acc.spends), round(float(fitted.model.class_counts_[2]), 2)]
     print(json.dumps(out))
     """),
    ("dask_equals_memory",
     "DPCopula and DPTreeCopula (classes p, q; seed 3) on Dask frames of 1, 3 and 7 partitions, "
     "with c as category, and with an appended empty partition: the largest difference of any "
     "released array from the in-memory fit",
     """
     import dask.dataframe as dd
     from matrixdp.synth import DPCopula, DPTreeCopula
     X, y = mixed()
     full = X.assign(lab=y)
     out = {}
     for cls in (DPCopula, DPTreeCopula):
         mem = cls(schema=SCHEMA, epsilon=1.0, classes=["p", "q"], random_state=3).fit(X, y)
         arrays = [k for k, v in vars(mem).items() if k.endswith("_") and isinstance(v, np.ndarray) and v.dtype.kind == "f"]
         arrays += [k for k, v in vars(mem).items() if k in ("marginal_counts_", "marginals_")]
         for label, frame in (("1", dd.from_pandas(full, npartitions=1)), ("3", dd.from_pandas(full, npartitions=3)),
                              ("7", dd.from_pandas(full, npartitions=7)),
                              ("category", dd.from_pandas(full.assign(c=full.c.astype("category")), npartitions=3)),
                              ("empty part", dd.concat([dd.from_pandas(full, npartitions=3), dd.from_pandas(full.iloc[:0], npartitions=1)]))):
             fit = cls(schema=SCHEMA, epsilon=1.0, classes=["p", "q"], random_state=3).fit(frame[["a", "b", "c"]], frame["lab"])
             worst = 0.0
             for k in arrays:
                 a, b = getattr(mem, k), getattr(fit, k)
                 pairs = [(a[c], b[c]) for c in a] if isinstance(a, dict) else [(a, b)]
                 worst = max([worst] + [float(np.max(np.abs(np.asarray(p) - np.asarray(q)))) for p, q in pairs])
             out[f"{cls.__name__} {label}"] = worst
     print(json.dumps(out))
     """),
    ("no_generator_state",
     "Generators (numpy Generator, BitGenerator, SeedSequence) reachable from a fitted model, live "
     "/ pickled / deep-copied, for random_state None, 5 and default_rng(1)",
     """
     import pickle, copy
     from matrixdp.synth import DPCopula, DPTreeCopula, RONGauss
     def gens(obj, path="m", seen=None):
         seen = set() if seen is None else seen
         if id(obj) in seen:
             return []
         seen.add(id(obj))
         if isinstance(obj, (np.random.Generator, np.random.BitGenerator, np.random.SeedSequence)):
             return [path]
         d = obj if isinstance(obj, dict) else getattr(obj, "__dict__", None)
         out = []
         if isinstance(d, dict):
             for k, v in d.items():
                 out += gens(v, f"{path}.{k}", seen)
         elif isinstance(obj, (list, tuple)):
             for i, v in enumerate(obj):
                 out += gens(v, f"{path}[{i}]", seen)
         return out
     X, y = mixed(100)
     R = np.random.default_rng(0).normal(size=(100, 3))
     res = {}
     for name, mk, data in (("DPCopula", lambda rs: DPCopula(schema=SCHEMA, epsilon=1, random_state=rs), X),
                            ("DPTreeCopula", lambda rs: DPTreeCopula(schema=SCHEMA, epsilon=1, random_state=rs), X),
                            ("RONGauss", lambda rs: RONGauss(dim=1, epsilon=1, random_state=rs), R)):
         for rs in (None, 5, np.random.default_rng(1)):
             m = mk(rs).fit(data)
             res[f"{name} {type(rs).__name__}"] = [gens(m), gens(pickle.loads(pickle.dumps(m))), gens(copy.deepcopy(m))]
     print(json.dumps(res))
     """),
    ("cli_round_trip",
     "matrixdp synth (copula, tree-copula; seed 1) on a 300-row CSV with an integer, a float, a "
     "text, a code ('07', '10', '001'), a boolean, a quoted ('a,b' and one holding a double quote) and a class column, "
     "in memory and from a folder of 3 CSV parts: the columns, the dtypes pandas reads back (input "
     "and output), the values outside the public lists or ranges, and the largest difference "
     "between the in-memory and the Dask output",
     """
     import contextlib, io
     from matrixdp.cli import main
     d = tempfile.mkdtemp()
     rng = np.random.default_rng(0); n = 300
     df = pd.DataFrame({"age": rng.integers(18, 90, n), "inc": rng.uniform(0, 1e5, n).round(2),
                        "sex": rng.choice(["f", "m"], n), "zip": rng.choice(["07", "10", "001"], n),
                        "flag": rng.choice([True, False], n), "grp": rng.choice([1, 2, 3], n),
                        "note": rng.choice(["a,b", 'c"d'], n)})
     df.to_csv(f"{d}/in.csv", index=False)
     os.makedirs(f"{d}/parts")
     for i in range(3):
         df.iloc[i * 100:(i + 1) * 100].to_csv(f"{d}/parts/p{i}.csv", index=False)
     open(f"{d}/b.toml", "w").write('target = "grp"\\n[columns]\\nage = { lo = 18, hi = 90, integer = true }\\n'
         'inc = { lo = 0, hi = 100000 }\\nsex = { categories = ["f", "m"] }\\n'
         'zip = { categories = ["07", "10", "001"] }\\nflag = { categories = [true, false] }\\n'
         'grp = { categories = [1, 2, 3] }\\nnote = { categories = ["a,b", "c\\\\"d"] }\\n')
     res = {"input dtypes": {k: str(v) for k, v in pd.read_csv(f"{d}/in.csv", dtype={"zip": str}).dtypes.items()}}
     for model in ("copula", "tree-copula"):
         outs = []
         for src, name in ((f"{d}/in.csv", "m.csv"), (f"{d}/parts", "k.csv")):
             with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                 code = main(["synth", src, "--model", model, "--bounds", f"{d}/b.toml", "--epsilon", "1",
                              "--seed", "1", "--out", f"{d}/{model}{name}", "--quiet"])
             outs.append(pd.read_csv(f"{d}/{model}{name}", dtype={"zip": str}) if code == 0 else None)
         o, k = outs
         bad = int((~o["age"].between(18, 90)).sum() + (~o["inc"].between(0, 1e5)).sum()
                   + (~o["sex"].isin(["f", "m"])).sum() + (~o["zip"].isin(["07", "10", "001"])).sum()
                   + (~o["grp"].isin([1, 2, 3])).sum() + (~o["note"].isin(["a,b", 'c"d'])).sum())
         res[model] = {"columns": list(o.columns), "dtypes": {c: str(t) for c, t in o.dtypes.items()},
                       "outside": bad, "rows": [len(o), len(k)],
                       "dask vs memory": float(max((o[c] - k[c]).abs().max() for c in ("age", "inc", "grp")))
                       if list(o.columns) == list(k.columns) else "columns differ",
                       "same categories": bool(all((o[c] == k[c]).all() for c in ("sex", "zip", "flag", "note")))}
     print(json.dumps(res))
     """),
]


def _run(program: str, src: Path) -> str:
    return run_probe(program, src, 120, header=_HEADER, style="text")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="614b791")
    args = parser.parse_args(argv)
    here = ROOT / "src"
    probe_rows = []
    with tempfile.TemporaryDirectory() as tmp:
        base_src = base_tree(args.base, Path(tmp))
        for name, what, program in PROBES:
            probe_rows.append({"probe": name, "what": what, "base": _run(program, base_src),
                               "this_tree": _run(program, here)})
    sound_rows = [{"probe": name, "what": what, "base": "", "this_tree": _run(program, here)}
                  for name, what, program in SOUND]
    OUT.mkdir(exist_ok=True)
    with open(OUT / "defect_hunt_hz_probes.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, ["part", "probe", "what", "base", "this_tree"])
        w.writeheader()
        for r in probe_rows:
            w.writerow({"part": "probe", **r})
        for r in sound_rows:
            w.writerow({"part": "sound", **r})
    lines = ["# Task HZ: reproductions on the base and on this tree; the checks found sound",
             "", f"Written by `experiments/defect_hunt_hz.py` (base `{args.base}`). The list of "
             "defects, fixes and tests: `results/defect_hunt_hz.md`.", "",
             "## Probes (each in a fresh process, 120 s, 4 GiB address space)", "",
             "| probe | what | base | this tree |", "|---|---|---|---|"]
    for r in probe_rows:
        cells = [r["probe"], r["what"], r["base"], r["this_tree"]]
        lines.append(markdown_row(cells, "/"))
    lines += ["", "## Checked and found sound (this tree, fresh processes)", "",
              "| check | what | result |", "|---|---|---|"]
    for r in sound_rows:
        cells = [r["probe"], r["what"], r["this_tree"]]
        lines.append(markdown_row(cells, "/"))
    (OUT / "defect_hunt_hz_probes.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
