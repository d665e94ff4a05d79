"""Task DH2's privacy hunt (session 23): the budget's seams as a USER drives the library.

Earlier hunts (HV-HZ, DH) read the modules one by one. This one drives every estimator and
generator of the catalogue (``tests/_estimator_cases.py``: every shipped class, with its options'
cases) the way a user does: scikit-learn drivers (``clone``, ``copy``, ``pickle``, ``fit`` twice,
``set_params`` then refit, ``cross_val_score``, ``GridSearchCV``, a ``Pipeline`` with a DP scaler
first, ``score``), the input types a curator passes (pandas nullable and extension dtypes,
``category``, ``datetime64``, text, ``float32``, scipy sparse, Dask), boundary public inputs (ε,
δ, bounds, ``random_state``, ``n_components``, ``classes``) and the command line (``matrixdp
synth`` / ``release`` / ``budget`` with a ledger; every output grepped for the private values).

Each probe is a short program printing one line of JSON, run in a fresh process with the library
of ``--base`` (default 975a9d5, ``main`` where the hunt started) and with this checkout's
``src/`` (``--tree-only`` skips the base). Each probe states its EXPECTED outcome beforehand
(``expected`` in words and a predicate on the parsed JSON that could fail), committed before any
probe ran; the verdict says whether the output meets it (``ok``) or not (``DEFECT``). A probe
whose predicate fails on the tree is an open finding (reported, not hidden). The probes import
the catalogue from this checkout's ``tests/`` for both runs (it is the same file at the base).

Amended after the first base run (errors of the probes' own code, not outcomes of the library;
the verdict rules are unchanged): DPDirectionsMVG is not a scikit-learn estimator (no
``get_params``), so the probes that call ``clone`` / ``get_params`` / ``set_params`` record it as
"no get_params" instead of crashing; its released value for the category / CSR comparison is
``directions_.eigenvalues``; ``bad_public_inputs`` tries delta only where the estimator has it
(RONGauss is pure epsilon-DP); the CLI probes run RON-Gauss on the numeric columns only (it refuses a
text column), draw the add-remove outputs from ``synth`` (``release`` is replace-one only), and
ask (e) for epsilon 0.95 after 0.6 (0.6 + 0.6 at delta 1e-9 composes below 1 as Gaussian DP, so
it was never an exhausted budget).

Command (from the repository root)::

    PYTHONPATH=src python experiments/defect_hunt_dh2.py [--only NAME] [--tree-only]

writes ``results/defect_hunt_dh2_probes.md`` (outputs cut at 3000 characters a cell),
``results/defect_hunt_dh2_probes.csv`` (the verdicts) and ``results/defect_hunt_dh2_raw.jsonl``
(every probe's full output, one line per run; a rerun resumes from it). The interpretation of
each verdict, the defects, fixes and tests: ``results/defect_hunt_dh2.md``.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import tempfile
from pathlib import Path

from _defect_probes import base_tree, markdown_row, run_probe

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "results"

_HEADER = f"""
import json, os, sys, tempfile, time, warnings, subprocess, pickle, copy
from pathlib import Path
warnings.simplefilter("ignore")
import numpy as np
os.environ["MATRIXDP_STATE_DIR"] = tempfile.mkdtemp()
sys.path.insert(0, {str(ROOT / "tests")!r})
from _estimator_cases import CASES
from matrixdp.accounting import Accountant, Ledger
def outcome(f):
    try:
        r = f()
        return {{"ok": r}}
    except BaseException as e:
        return {{"error": type(e).__name__ + ": " + str(e)[:90]}}
def cli(*args, cwd):
    p = subprocess.run([sys.executable, "-m", "matrixdp", *args], cwd=cwd, capture_output=True,
                       text=True, env=dict(os.environ, PYTHONWARNINGS="ignore"))
    return p.returncode, p.stdout + p.stderr
def fit_case(case, est, data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return case.fit(est, data)
def eps_of(model):
    p = getattr(model, "privacy_", None)
    return p.epsilon if p is not None else model.directions_.privacy.epsilon
def attempt(case, est, data, acc):
    n0 = len(acc.spends)
    try:
        fit_case(case, est, data)
        return {{"ok": len(acc.spends) - n0}}
    except BaseException as e:
        return {{"error": type(e).__name__ + ": " + str(e)[:80], "spends": len(acc.spends) - n0}}
NUMERIC = [n for n, c in CASES.items() if not n.startswith(("DPCopula", "DPTreeCopula"))]
FRAME = [n for n in CASES if n.startswith(("DPCopula", "DPTreeCopula"))]
"""

#: (name, what, expected (text), predicate on the JSON, program)
PROBES = [
    # ------------------------------------------------------------ 1. scikit-learn drivers
    ("clone_copy_pickle_keepers",
     "Every catalogue case built with accountant=acc (an Accountant): clone / copy.copy / "
     "copy.deepcopy keep acc itself; pickle of the estimator holding an Accountant; then built "
     "with a Ledger, fitted, pickled and unpickled, refitted: the unpickled keeper's path and the "
     "ledger's entries after each fit",
     "the three copies hold acc itself; the pickle with an Accountant is refused (TypeError); the "
     "unpickled Ledger is the same file; entries = charges after the first fit, 2 x charges after "
     "the refit of the unpickled copy",
     "all(v[0] and v[1] == 'refused' and v[2] and v[3] == v[5] and v[4] == 2 * v[5] for v in r.values() if v != 'no get_params')",
     """
     from sklearn.base import clone
     out = {}
     for name, case in CASES.items():
         rel = case.relations[0]
         acc = Accountant()
         est = case.make(rel, accountant=acc)
         if not hasattr(est, "get_params"):
             out[name] = "no get_params"; continue
         same = all(x.accountant is acc for x in (clone(est), copy.copy(est), copy.deepcopy(est)))
         try:
             pickle.dumps(est); pk = "pickled"
         except TypeError:
             pk = "refused"
         d = tempfile.mkdtemp()
         L = Ledger.create(os.path.join(d, "l.db"), dataset="d", epsilon=1e4, delta=0.1, relation=rel)
         est2 = case.make(rel, accountant=L); D, _ = case.data(rel)
         fit_case(case, est2, D); n1 = len(L.history())
         back = pickle.loads(pickle.dumps(est2))
         samefile = isinstance(back.accountant, Ledger) and Path(back.accountant.path).resolve() == Path(L.path).resolve()
         fit_case(case, back, D); n2 = len(L.history())
         out[name] = [same, pk, samefile, n1, n2, case.charges]
     print(json.dumps(out))
     """),
    ("fit_twice_then_set_params_refit",
     "Every case with an explicit Accountant: fit twice on D; then set_params(epsilon=2 x its "
     "epsilon) and fit again: the entries of the two fits, the epsilon charged by the third, "
     "and the refitted model's privacy epsilon",
     "2 x charges entries for two fits (every fit is a release); the third charges 2 x epsilon "
     "in total and the model reports what was charged",
     "all(v[0] == 2 * v[4] and v[1] == v[4] and abs(v[2] - v[3]) < 1e-6 * v[3] and abs(v[2] - 2 * v[5]) < 1e-6 * v[2] for v in r.values() if v != 'no get_params')",
     """
     out = {}
     for name, case in CASES.items():
         rel = case.relations[0]
         acc = Accountant()
         est = case.make(rel, accountant=acc); D, _ = case.data(rel)
         if not hasattr(est, "get_params"):
             out[name] = "no get_params"; continue
         fit_case(case, est, D); fit_case(case, est, D); n = len(acc.spends)
         e0 = est.get_params()["epsilon"]
         est.set_params(epsilon=2 * e0); fit_case(case, est, D)
         third = sum(g.epsilon for _, g in acc.spends[n:])
         out[name] = [n, len(acc.spends) - n, third, eps_of(est), case.charges, e0]
     print(json.dumps(out))
     """),
    ("cross_val_and_grid_search_charges",
     "Every case inside `with Accountant()`: cross_val_score(cv=KFold(3), scoring=a constant, "
     "error_score='raise'); GridSearchCV({'epsilon': [e/2, e]}, cv=KFold(2), same scoring): the "
     "entries recorded and the epsilon they sum to",
     "cross_val_score: 3 x charges entries; GridSearchCV: (2 x 2 + 1) x charges entries summing to "
     "at least 2 x (e/2 + e) (+ the refit); or an error with no entry (a case that cannot fit a "
     "fold, e.g. a fixed public shape)",
     "all(('error' in v['cv'] and v['cv']['spends'] == 0) or v['cv']['ok'] == 3 * v['charges'] for v in r.values() if v != 'no get_params') and all(('error' in v['gs'] and v['gs']['spends'] == 0) or (v['gs']['ok'][0] == 5 * v['charges'] and v['gs']['ok'][1] >= 3 * v['e'] - 1e-9) for v in r.values() if v != 'no get_params')",
     """
     from sklearn.model_selection import cross_val_score, GridSearchCV, KFold
     def const(est, X, y=None):
         return 0.0
     out = {}
     for name, case in CASES.items():
         rel = case.relations[0]; (X, y), _ = case.data(rel)
         if not hasattr(case.make(rel), "get_params"):
             out[name] = "no get_params"; continue
         e = case.make(rel).get_params()["epsilon"]
         row = {"charges": case.charges, "e": e}
         with Accountant(relation=rel) as acc:
             try:
                 with warnings.catch_warnings():
                     warnings.simplefilter("ignore")
                     cross_val_score(case.make(rel), X, y, cv=KFold(3), scoring=const, error_score="raise")
                 row["cv"] = {"ok": len(acc.spends)}
             except BaseException as ex:
                 row["cv"] = {"error": type(ex).__name__ + ": " + str(ex)[:60], "spends": len(acc.spends)}
         with Accountant(relation=rel) as acc:
             try:
                 with warnings.catch_warnings():
                     warnings.simplefilter("ignore")
                     GridSearchCV(case.make(rel), {"epsilon": [e / 2, e]}, cv=KFold(2), scoring=const, error_score="raise").fit(X, y)
                 row["gs"] = {"ok": [len(acc.spends), sum(g.epsilon for _, g in acc.spends)]}
             except BaseException as ex:
                 row["gs"] = {"error": type(ex).__name__ + ": " + str(ex)[:60], "spends": len(acc.spends)}
         out[name] = row
     print(json.dumps(out))
     """),
    ("score_on_private_records",
     "Every case whose estimator has a `score` method (scikit-learn's mixins: R^2 for the "
     "regressors): fitted inside `with Accountant()`, then est.score(X, y) on the private "
     "training table inside the block, and cross_val_score with the default scoring (what "
     "GridSearchCV ranks candidates by): entries before/after the score, the warnings raised, "
     "and whether the score equals the exact non-private R^2 of the released coefficients",
     "the score is an exact function of private records that no charge covers: it is refused, "
     "charged, or at least flagged by a PrivacyLeakWarning (DESIGN.md: 'a PrivacyLeakWarning when "
     "the caller lets something leak'); never silent",
     "all(v['warned'] or v['charged'] > 0 or 'error' in v for v in r.values())",
     """
     from sklearn.metrics import r2_score
     out = {}
     for name, case in CASES.items():
         rel = case.relations[0]; (X, y), _ = case.data(rel)
         est = case.make(rel)
         if not hasattr(est, "score"):
             continue
         with Accountant(relation=rel) as acc:
             fit_case(case, est, (X, y)); n = len(acc.spends)
             with warnings.catch_warnings(record=True) as w:
                 warnings.simplefilter("always")
                 try:
                     s = est.score(X, y)
                 except BaseException as ex:
                     out[name] = {"error": type(ex).__name__}; continue
             exact = bool(np.isclose(s, r2_score(y, est.predict(X)))) if y is not None else None
             out[name] = {"charged": len(acc.spends) - n, "exact": exact,
                          "warned": any(x.category.__name__ == "PrivacyLeakWarning" for x in w)}
     print(json.dumps(out))
     """),
    ("pipeline_dp_scaler_then_model",
     "For every array case: Pipeline([DPStandardScaler(bounds=(-1, 1), epsilon=0.5, "
     "accountant=acc), the case's estimator with accountant=acc]).fit(X, y); clone of the "
     "pipeline; cross_val_score(pipeline, cv=KFold(2), a constant scoring)",
     "the fit records 1 + charges entries; the clone's steps hold acc itself; the cross-validation "
     "records 2 x (1 + charges) more (or the case refuses a fold with no entry)",
     "all(v['fit'] == 1 + v['charges'] and v['clone'] and (v['cv'] == 2 * (1 + v['charges']) or v['cv_error']) for v in r.values())",
     """
     from sklearn.base import clone
     from sklearn.pipeline import Pipeline
     from sklearn.model_selection import cross_val_score, KFold
     from matrixdp.models import DPStandardScaler
     out = {}
     for name in NUMERIC:
         case = CASES[name]; rel = case.relations[0]; (X, y), _ = case.data(rel)
         acc = Accountant(relation=rel)
         pipe = Pipeline([("s", DPStandardScaler(bounds=(-1, 1), epsilon=0.5, neighbouring=rel, random_state=0, accountant=acc)),
                          ("m", case.make(rel, accountant=acc))])
         try:
             with warnings.catch_warnings():
                 warnings.simplefilter("ignore")
                 pipe.fit(X, y)
             nfit = len(acc.spends)
         except BaseException as ex:
             out[name] = {"fit": "error " + type(ex).__name__ + str(ex)[:60], "charges": case.charges, "clone": None, "cv": 0, "cv_error": None}; continue
         c = clone(pipe)
         same = all(step.accountant is acc for _, step in c.steps)
         err = None
         try:
             with warnings.catch_warnings():
                 warnings.simplefilter("ignore")
                 cross_val_score(pipe, X, y, cv=KFold(2), scoring=lambda e, X, y=None: 0.0, error_score="raise")
         except BaseException as ex:
             err = type(ex).__name__ + ": " + str(ex)[:60]
         out[name] = {"fit": nfit, "charges": case.charges, "clone": same, "cv": len(acc.spends) - nfit, "cv_error": err}
     print(json.dumps(out))
     """),
    ("random_state_types",
     "Every case, explicit Accountant, random_state set to np.random.RandomState(0), "
     "SeedSequence(0), PCG64(0), True, 1.5, '0', -1: the outcome and entries",
     "each refused by name (random_state / rng) before any entry (0 entries); never a fit that "
     "keeps a legacy RandomState (its state would replay the noise)",
     "all('error' in o and o['spends'] == 0 for v in r.values() if v != 'no get_params' for o in v.values())",
     """
     out = {}
     for name, case in CASES.items():
         rel = case.relations[0]; D, _ = case.data(rel)
         if not hasattr(case.make(rel), "set_params"):
             out[name] = "no get_params"; continue
         row = {}
         for label, rs in (("RandomState", np.random.RandomState(0)), ("SeedSequence", np.random.SeedSequence(0)),
                           ("PCG64", np.random.PCG64(0)), ("True", True), ("1.5", 1.5), ("'0'", "0"), ("-1", -1)):
             acc = Accountant()
             est = case.make(rel, accountant=acc)
             est.set_params(random_state=rs)
             row[label] = attempt(case, est, D, acc)
         out[name] = row
     print(json.dumps(out))
     """),
    # ------------------------------------------------------------ 2. input types
    ("array_cases_input_types",
     "Every array case (explicit Accountant, replace-one where it has it): X as a DataFrame whose "
     "second column is pandas Int64 (values -1/0/1), Int64 with pd.NA in the last record, "
     "boolean, boolean with NA, float32, datetime64, object text '0.5', string dtype, category "
     "of the same floats, complex; X as a scipy CSR matrix; X with inf; y (supervised) as Int64 "
     "with NA: outcome and entries; for category and CSR also whether the fit equals the "
     "float64 dense fit with the same seed (the first released attribute)",
     "no refusal after a charge (every error with 0 entries); pd.NA, datetime64, complex, inf and "
     "a missing label refused; a category column refused or fitted as its float values (never as "
     "codes read from the data's sorted distinct values); CSR refused or equal to dense",
     "all(o.get('spends', 0) == 0 for v in r.values() for o in v.values() if isinstance(o, dict) and 'error' in o) and all('error' in v[k] for v in r.values() for k in ('Int64 NA', 'datetime64', 'complex', 'inf', 'boolean NA') ) and all('error' in v['category'] or v['category'].get('same') for v in r.values()) and all('error' in v['csr'] or v['csr'].get('same') for v in r.values()) and all('error' in v['y Int64 NA'] for v in r.values() if 'y Int64 NA' in v)",
     """
     import pandas as pd, scipy.sparse as sp
     out = {}
     for name in NUMERIC:
         case = CASES[name]; rel = case.relations[0]; (X, y), _ = case.data(rel)
         first = sorted(case.released)[0] if case.released else None
         def fit_on(Xv, yv=y, ret=False):
             acc = Accountant()
             est = case.make(rel, accountant=acc)
             r = attempt(case, est, (Xv, yv), acc)
             return (r, est) if ret else r
         base_r, base_est = fit_on(X, ret=True)
         ref = np.asarray(getattr(base_est, "covariance_", getattr(base_est, "coef_", getattr(base_est, "mean_", getattr(base_est, "components_", getattr(getattr(base_est, "directions_", None), "eigenvalues", np.nan))))), dtype=float) if "ok" in base_r else None
         def same_as_base(est):
             v = np.asarray(getattr(est, "covariance_", getattr(est, "coef_", getattr(est, "mean_", getattr(est, "components_", getattr(getattr(est, "directions_", None), "eigenvalues", np.nan))))), dtype=float)
             return ref is not None and v.shape == ref.shape and bool(np.allclose(v, ref, rtol=1e-6, atol=1e-9))
         F = pd.DataFrame(X, columns=["a", "b", "c"])
         ints = np.round(X[:, 1]).astype(int)
         variants = {}
         def col(values):
             G = F.copy(); G["b"] = values; return G
         variants["Int64"] = col(pd.array(ints, dtype="Int64"))
         v = pd.array(ints, dtype="Int64"); v[-1] = pd.NA; variants["Int64 NA"] = col(v)
         variants["boolean"] = col(pd.array(X[:, 1] > 0, dtype="boolean"))
         v = pd.array(X[:, 1] > 0, dtype="boolean"); v[-1] = pd.NA; variants["boolean NA"] = col(v)
         variants["float32"] = X.astype(np.float32)
         variants["datetime64"] = col(pd.to_datetime(np.arange(len(X)), unit="D"))
         variants["object text"] = col(np.array([f"{t:.3f}" for t in X[:, 1]], dtype=object))
         variants["string"] = col(pd.array([f"{t:.3f}" for t in X[:, 1]], dtype="string"))
         variants["complex"] = X.astype(complex)
         Xi = X.copy(); Xi[-1, 0] = np.inf; variants["inf"] = Xi
         row = {"float64": base_r}
         for k, Xv in variants.items():
             row[k] = fit_on(Xv)
         r, est = fit_on(col(pd.Categorical(X[:, 1])), ret=True)
         if "ok" in r:
             r["same"] = same_as_base(est)
         row["category"] = r
         r, est = fit_on(sp.csr_matrix(X), ret=True)
         if "ok" in r:
             r["same"] = same_as_base(est)
         row["csr"] = r
         if y is not None:
             yv = pd.array(np.round(y).astype(int), dtype="Int64"); yv[-1] = pd.NA
             row["y Int64 NA"] = fit_on(X, yv)
         out[name] = row
     print(json.dumps(out))
     """),
    ("frame_cases_input_types",
     "DPCopula / DPTreeCopula cases (schema: age in [18, 90], income in [0, 100], colour in "
     "[red, green, blue]; add-remove): colour as category dtype with its categories reversed and "
     "an unused 'purple' added, as string dtype (both compared with the object-column fit, same "
     "seed); a record with colour 'purple' (undeclared); age as Int64 with pd.NA; age as "
     "datetime64; income float32; y as Int64 with NA",
     "category / string fits equal the object fit (categories and their order come from the "
     "schema); 'purple' in a record, pd.NA, datetime64 and a missing label refused with 0 entries "
     "and 'purple' not in the message",
     "all(v['category'].get('same') and v['string'].get('same') and all('error' in v[k] and v[k]['spends'] == 0 for k in ('purple', 'Int64 NA', 'datetime64', 'y NA')) and 'purple' not in v['purple'].get('error', '').split(':', 1)[-1] for v in r.values())",
     """
     import pandas as pd
     out = {}
     for name in FRAME:
         case = CASES[name]; rel = case.relations[0]; (F, y), _ = case.data(rel)
         def fit_on(Fv, yv=y):
             acc = Accountant()
             est = case.make(rel, accountant=acc)
             return attempt(case, est, (Fv, yv), acc), est
         r0, e0 = fit_on(F)
         def same(est):
             return all(np.allclose(np.asarray(getattr(est, a), dtype=float), np.asarray(getattr(e0, a), dtype=float)) for a in ("class_counts_", "correlation_"))
         row = {}
         G = F.copy(); G["colour"] = pd.Categorical(F["colour"], categories=["purple", "blue", "green", "red"]); r, e = fit_on(G)
         r["same"] = "ok" in r and same(e); row["category"] = r
         G = F.copy(); G["colour"] = F["colour"].astype("string"); r, e = fit_on(G)
         r["same"] = "ok" in r and same(e); row["string"] = r
         G = F.copy(); G.loc[G.index[-1], "colour"] = "purple"; row["purple"] = fit_on(G)[0]
         G = F.copy(); G["age"] = F["age"].astype("Int64"); G.loc[G.index[-1], "age"] = pd.NA; row["Int64 NA"] = fit_on(G)[0]
         G = F.copy(); G["age"] = pd.to_datetime(F["age"], unit="D"); row["datetime64"] = fit_on(G)[0]
         G = F.copy(); G["income"] = F["income"].astype(np.float32); row["float32"] = fit_on(G)[0]
         yv = pd.array(y, dtype="Int64"); yv[-1] = pd.NA; row["y NA"] = fit_on(F, yv)[0]
         out[name] = row
     print(json.dumps(out))
     """),
    ("dask_against_memory",
     "Every case (explicit Accountant): X (and y) as Dask collections of 3 partitions (a Dask "
     "array for the array cases, a Dask DataFrame for the frame cases); then with a NaN in the "
     "last record: outcome and entries, against the same in memory",
     "the Dask fit charges what the in-memory fit charges (or is refused by name with 0 entries); "
     "the NaN is refused with 0 entries in both",
     "all((('ok' in v['dask'] and v['dask']['ok'] == v['memory']['ok']) or ('error' in v['dask'] and v['dask']['spends'] == 0)) and 'error' in v['dask nan'] and v['dask nan']['spends'] == 0 and 'error' in v['memory nan'] for v in r.values())",
     """
     import pandas as pd, dask.array as da, dask.dataframe as dd
     import dask
     dask.config.set(scheduler="synchronous")
     out = {}
     for name, case in CASES.items():
         rel = case.relations[0]; (X, y), _ = case.data(rel)
         def fit_on(Xv, yv):
             acc = Accountant()
             est = case.make(rel, accountant=acc)
             return attempt(case, est, (Xv, yv), acc)
         def to_dask(Xv, yv):
             if isinstance(Xv, pd.DataFrame):
                 return dd.from_pandas(Xv, npartitions=3), (None if yv is None else dd.from_pandas(pd.Series(yv), npartitions=3))
             return da.from_array(Xv, chunks=(40, Xv.shape[1])), (None if yv is None else da.from_array(np.asarray(yv), chunks=40))
         Xn = X.copy()
         if isinstance(Xn, pd.DataFrame):
             Xn.loc[Xn.index[-1], "income"] = np.nan
         else:
             Xn[-1, 0] = np.nan
         out[name] = {"memory": fit_on(X, y), "dask": fit_on(*to_dask(X, y)),
                      "memory nan": fit_on(Xn, y), "dask nan": fit_on(*to_dask(Xn, y))}
     print(json.dumps(out))
     """),
    # ------------------------------------------------------------ 3. boundary public inputs
    ("bad_public_inputs",
     "Every case, explicit Accountant: set_params of epsilon in (0, -1, inf, nan, True, '1'), "
     "delta in (-1e-6, 1.0, nan, inf, '1e-6'), and where the case has them bounds / bounds_X in "
     "((1, -1), (nan, 1), (-inf, 1)) and bounds_y (1, -1); then bounds (0, 0) (lo == hi: a public "
     "constant): outcome, entries, whether the message names the argument",
     "every invalid value refused before any entry, the message naming the argument; lo == hi "
     "fits with the case's charges or is refused by name with 0 entries",
     "all(o.get('spends', 0) == 0 and ('ok' in o if k.startswith('lohi') else ('error' in o and o['names'])) or (k.startswith('lohi') and 'error' in o and o['spends'] == 0) for v in r.values() if v != 'no get_params' for k, o in v.items())",
     """
     out = {}
     for name, case in CASES.items():
         rel = case.relations[0]; D, _ = case.data(rel)
         if not hasattr(case.make(rel), "get_params"):
             out[name] = "no get_params"; continue
         params = case.make(rel).get_params()
         trials = [("epsilon", v) for v in (0, -1, float("inf"), float("nan"), True, "1")]
         if "delta" in params:  # RONGauss is pure epsilon-DP: no delta
             trials += [("delta", v) for v in (-1e-6, 1.0, float("nan"), float("inf"), "1e-6")]
         for b in ("bounds", "bounds_X"):
             if b in params and not isinstance(params[b], str):
                 trials += [(b, v) for v in ((1, -1), (float("nan"), 1), (float("-inf"), 1))]
         if "bounds_y" in params:
             trials += [("bounds_y", (1, -1))]
         row = {}
         for p, v in trials:
             acc = Accountant(); est = case.make(rel, accountant=acc); est.set_params(**{p: v})
             o = attempt(case, est, D, acc)
             if "error" in o:
                 o["names"] = p.split("_")[0] in o["error"].lower() or p in o["error"]
             row[f"{p}={v!r}"] = o
         for b in ("bounds", "bounds_X"):
             if b in params and not isinstance(params[b], str):
                 acc = Accountant(); est = case.make(rel, accountant=acc); est.set_params(**{b: (0, 0)})
                 row[f"lohi {b}"] = attempt(case, est, D, acc)
         out[name] = row
     print(json.dumps(out))
     """),
    ("messages_hold_no_private_n",
     "Every case that has add-remove, fitted under add-remove on the first 113 records with "
     "delta = 0.3 (>= 1/n) and with delta = 1e-6: every warning and error message text",
     "no message holds the private row count 113 or 1/113 (0.00885); a message may say delta is "
     "large, in public terms",
     "not any(v['leak'] for v in r.values())",
     """
     import re
     out = {}
     for name, case in CASES.items():
         if "add-remove" not in case.relations:
             continue
         (X, y), _ = case.data("add-remove")
         X = X.iloc[:113] if hasattr(X, "iloc") else X[:113]
         y = None if y is None else y[:113]
         texts = []
         for d in (0.3, 1e-6):
             est = case.make("add-remove")
             try:
                 est.set_params(delta=d)
             except Exception:
                 pass
             with warnings.catch_warnings(record=True) as w:
                 warnings.simplefilter("always")
                 try:
                     case.fit(est, (X, y))
                 except BaseException as ex:
                     texts.append(str(ex))
             texts += [str(x.message) for x in w]
         text = " ".join(texts)
         out[name] = {"leak": bool(re.search(r"(?<![0-9.])113(?![0-9])|0\\.0088", text)), "n_messages": len(texts), "sample": text[:120]}
     print(json.dumps(out))
     """),
    ("n_components_and_classes",
     "DPPCA(n_components = 4, 0, -1, 2.5, 'mle') on d = 3; RONGauss(task='classification', "
     "classes=None), DPCopula / DPTreeCopula(classes=None) fitted with labels; the same with "
     "classes=[0, 1, 2] (class 2 absent from the data): outcome and entries; classes_/"
     "class_counts_ lengths",
     "bad n_components refused with 0 entries; classes=None with labels refused with 0 entries "
     "(classes are never read from the data) or the labels ignored; an absent public class fits "
     "and is listed (3 counts)",
     "all('error' in r['pca'][k] and r['pca'][k]['spends'] == 0 for k in r['pca']) and all(('error' in o and o['spends'] == 0) or o.get('labels_from_data') is False for o in r['none'].values()) and all(o.get('n_classes') == 3 for o in r['absent'].values())",
     """
     from matrixdp.models import DPPCA
     (X, y), _ = CASES["DPMean"].data("replace-one")
     out = {"pca": {}, "none": {}, "absent": {}}
     for k in (4, 0, -1, 2.5, "mle"):
         acc = Accountant()
         out["pca"][repr(k)] = attempt(CASES["DPPCA[moments]"], DPPCA(n_components=k, bounds=(-1, 1), epsilon=1.0, delta=1e-6, method="moments", accountant=acc), (X, None), acc)
     for name in ("RONGauss/classification", "DPCopula", "DPTreeCopula"):
         case = CASES[name]; rel = case.relations[0]; D, _ = case.data(rel)
         for key, classes in (("none", None), ("absent", [0, 1, 2])):
             acc = Accountant(); est = case.make(rel, accountant=acc); est.set_params(classes=classes)
             o = attempt(case, est, D, acc)
             if "ok" in o:
                 cc = getattr(est, "class_counts_", None); cl = getattr(est, "classes_", None)
                 o["n_classes"] = len(cc) if cc is not None else (len(cl) if cl is not None else None)
                 if key == "none":
                     o["labels_from_data"] = cl is not None or cc is not None
             out[key][name] = o
     print(json.dumps(out))
     """),
    # ------------------------------------------------------------ added after the first run
    ("relation_mismatched_keeper",
     "Every case, explicit keeper of the OTHER relation (an Accountant(relation=other) and a "
     "Ledger created for the other relation): outcome and entries",
     "refused before any entry (a guarantee under one relation cannot compose with the other's)",
     "all('error' in o and o['spends'] == 0 for v in r.values() for o in v.values())",
     """
     out = {}
     for name, case in CASES.items():
         rel = case.relations[0]; D, _ = case.data(rel)
         other = "add-remove" if rel == "replace-one" else "replace-one"
         acc = Accountant(relation=other)
         row = {"accountant": attempt(case, case.make(rel, accountant=acc), D, acc)}
         L = Ledger.create(os.path.join(tempfile.mkdtemp(), "l.db"), dataset="d", epsilon=1e3, delta=0.1, relation=other)
         class View:  # the ledger's entries, as attempt() reads an accountant's
             @property
             def spends(self):
                 return L.history()
         row["ledger"] = attempt(case, case.make(rel, accountant=L), D, View())
         out[name] = row
     print(json.dumps(out))
     """),
    ("budget_between_the_entries",
     "The cases that charge 2 entries (DP bounds or a DP label range first): an Accountant "
     "whose epsilon holds the first entry but not the whole fit (half the fit's epsilon)",
     "refused before the first entry (0 entries): the whole fit is checked first",
     "all('error' in v and v['spends'] == 0 for v in r.values()) and len(r) >= 2",
     """
     out = {}
     for name, case in CASES.items():
         if case.charges < 2:
             continue
         rel = case.relations[0]; D, _ = case.data(rel)
         e = case.make(rel).get_params()["epsilon"]
         acc = Accountant(epsilon=e / 2, delta=1e-3, relation=rel)
         out[name] = attempt(case, case.make(rel, accountant=acc), D, acc)
     print(json.dumps(out))
     """),
    ("readonly_ledger_keeper",
     "Every case with accountant=Ledger.open(path, readonly=True) (a ledger with budget "
     "epsilon 1e3): outcome and the file's entries",
     "refused before any entry (a read-only ledger cannot record the spend)",
     "all('error' in v and v['spends'] == 0 for v in r.values())",
     """
     out = {}
     for name, case in CASES.items():
         rel = case.relations[0]; D, _ = case.data(rel)
         path = os.path.join(tempfile.mkdtemp(), "l.db")
         Ledger.create(path, dataset="d", epsilon=1e3, delta=0.1, relation=rel).close()
         R = Ledger.open(path, readonly=True)
         class View:
             @property
             def spends(self):
                 L = Ledger.open(path, readonly=True); h = L.history(); L.close(); return h
         out[name] = attempt(case, case.make(rel, accountant=R), D, View())
     print(json.dumps(out))
     """),
    ("fit_transform_charges_once",
     "DPStandardScaler and DPPCA (every DPPCA case): fit_transform(X) with an explicit "
     "Accountant; then transform of new data: entries",
     "fit_transform records the case's charges once; transform records nothing",
     "all(v == [1, 1] for v in r.values())",
     """
     out = {}
     for name, case in CASES.items():
         if not (name.startswith("DPPCA") or name.startswith("DPStandardScaler")):
             continue
         rel = case.relations[0]; (X, _), _ = case.data(rel)
         acc = Accountant()
         est = case.make(rel, accountant=acc)
         with warnings.catch_warnings():
             warnings.simplefilter("ignore")
             est.fit_transform(X); a = len(acc.spends); est.transform(X[:10]); b = len(acc.spends)
         out[name] = [a, b]
     print(json.dumps(out))
     """),
    ("cli_dp_bounds_then_refused_table",
     "`matrixdp synth` (copula, tree-copula) and `matrixdp release --query mean` with a ledger "
     "(epsilon 5) and a bounds file whose column b is `dp = true`, on a table with a NaN in "
     "column a (resp. an undeclared category in c): exit status, output file, new entries",
     "refused, no output file, no entry (neither the DP bounds' entry nor the fit's)",
     "all(v['rc'] != 0 and not v['out'] and v['new'] == 0 for v in r.values())",
     """
     import pandas as pd
     cwd = tempfile.mkdtemp()
     rng = np.random.default_rng(0); n = 400
     df = pd.DataFrame({"a": rng.uniform(0, 10, n).round(6), "b": rng.uniform(0, 5, n).round(6), "c": rng.choice(["x", "y", "z"], n)})
     open(os.path.join(cwd, "s.toml"), "w").write('[columns]\\na = { lo = 0, hi = 10 }\\nb = { dp = true }\\nc = { categories = ["x", "y", "z"] }\\n')
     out = {}
     for what in ("nan", "category"):
         d = df.copy()
         if what == "nan":
             d.loc[n - 1, "a"] = np.nan
         else:
             d.loc[n - 1, "c"] = "w"
         os.makedirs(os.path.join(cwd, what), exist_ok=True); d.to_csv(os.path.join(cwd, what, "t.csv"), index=False)
         for cmd in (["synth", "--model", "copula"], ["synth", "--model", "tree-copula"], ["release", "--query", "mean"]):
             led = os.path.join(cwd, f"{what}_{cmd[-1]}.db")
             cli("budget", "init", led, "--epsilon", "5", "--delta", "1e-5", "--dataset", "t.csv", cwd=cwd)
             o = os.path.join(cwd, f"{what}_{cmd[-1]}.out.csv")
             rc, text = cli(cmd[0], os.path.join(what, "t.csv"), *cmd[1:], "--bounds", "s.toml", "--epsilon", "1", "--ledger", led, "--dataset", "t.csv", "--out", o, "--quiet", cwd=cwd)
             L = Ledger.open(led, readonly=True); h = L.history(); L.close()
             out[f"{what} {' '.join(cmd)}"] = {"rc": rc, "out": os.path.exists(o), "new": len(h), "msg": text.strip().splitlines()[-1][:100] if text.strip() else ""}
     print(json.dumps(out))
     """),
    # ------------------------------------------------------------ round 2 (after the fixes)
    ("explicit_keeper_inside_a_block",
     "Every case fitted inside `with Ledger(...)` (the dataset's ledger, epsilon 1e4) with an "
     "explicit accountant=Accountant() of its own: the ledger's entries, the accountant's "
     "entries, and whether a PrivacyLeakWarning said the block was not charged",
     "the release is charged to the explicit keeper (documented: docs/accounting.md section 5, "
     "an explicit keeper replaces the block's); the block's ledger either records it too or a "
     "PrivacyLeakWarning says it does not: never a silent release inside the block that the "
     "block's ledger does not see",
     "all(v['ledger'] > 0 or v['warned'] for v in r.values())",
     """
     out = {}
     for name, case in CASES.items():
         rel = case.relations[0]; D, _ = case.data(rel)
         L = Ledger.create(os.path.join(tempfile.mkdtemp(), "l.db"), dataset="d", epsilon=1e4, delta=0.1, relation=rel)
         acc = Accountant(relation=rel)
         with warnings.catch_warnings(record=True) as w:
             warnings.simplefilter("always")
             with L:
                 try:
                     case.fit(case.make(rel, accountant=acc), D)
                 except BaseException as ex:
                     out[name] = {"error": type(ex).__name__ + str(ex)[:60], "ledger": len(L.history()), "warned": False}; continue
         out[name] = {"ledger": len(L.history()), "accountant": len(acc.spends),
                      "warned": any(x.category.__name__ == "PrivacyLeakWarning" for x in w)}
     print(json.dumps(out))
     """),
    ("bagging_resamples_records",
     "BaggingRegressor(DPLinearRegression(epsilon=1, delta=1e-6, bounds as the catalogue), "
     "n_estimators=5, bootstrap=True, random_state=0) on the 120-record table inside `with "
     "Accountant()`: entries, their epsilon, and the largest number of times one record entered "
     "one fit (estimators_samples_)",
     "each fit's claim covers every record once: either no record enters a fit twice, or the "
     "keeper records the group-privacy cost (a record drawn k times costs k-fold)",
     "r['max_multiplicity'] == 1 or r['charged_for_multiplicity']",
     """
     from sklearn.ensemble import BaggingRegressor
     case = CASES["DPLinearRegression"]; (X, y), _ = case.data("replace-one")
     with Accountant() as acc:
         with warnings.catch_warnings():
             warnings.simplefilter("ignore")
             bag = BaggingRegressor(case.make("replace-one"), n_estimators=5, bootstrap=True, random_state=0).fit(X, y)
     mult = max(int(np.bincount(np.asarray(s), minlength=len(X)).max()) for s in bag.estimators_samples_)
     eps = [g.epsilon for _, g in acc.spends]
     print(json.dumps({"entries": len(eps), "epsilons": eps, "max_multiplicity": mult,
                       "charged_for_multiplicity": bool(eps and min(eps) >= mult - 1e-9)}))
     """),
    ("grid_search_processes_explicit_ledger",
     "GridSearchCV({'epsilon': [e/2, e]}, cv=KFold(2), n_jobs=2, constant scoring) of "
     "DPLinearRegression, DPCovariance[moments], RONGauss and DPCopula built with "
     "accountant=Ledger (epsilon 1e4): the file's entries; then the same with an Accountant",
     "the Ledger records 5 x charges entries (every fit, from the worker processes); the "
     "Accountant is refused loudly (it cannot be pickled), never fits recorded nowhere",
     "all(v['ledger'] == 5 * v['charges'] for v in r.values()) and all('error' in v['accountant'] for v in r.values())",
     """
     from sklearn.model_selection import GridSearchCV, KFold
     out = {}
     for name in ("DPLinearRegression", "DPCovariance[moments]", "RONGauss", "DPCopula"):
         case = CASES[name]; rel = case.relations[0]; (X, y), _ = case.data(rel)
         e = case.make(rel).get_params()["epsilon"]
         path = os.path.join(tempfile.mkdtemp(), "l.db")
         L = Ledger.create(path, dataset="d", epsilon=1e4, delta=0.1, relation=rel)
         row = {"charges": case.charges}
         try:
             GridSearchCV(case.make(rel, accountant=L), {"epsilon": [e / 2, e]}, cv=KFold(2), n_jobs=2,
                          scoring=lambda est, X, y=None: 0.0, error_score="raise").fit(X, y)
         except BaseException as ex:
             row["ledger_error"] = type(ex).__name__ + str(ex)[:60]
         R = Ledger.open(path, readonly=True); row["ledger"] = len(R.history()); R.close()
         try:
             GridSearchCV(case.make(rel, accountant=Accountant()), {"epsilon": [e / 2, e]}, cv=KFold(2), n_jobs=2,
                          scoring=lambda est, X, y=None: 0.0, error_score="raise").fit(X, y)
             row["accountant"] = {"ok": True}
         except BaseException as ex:
             row["accountant"] = {"error": type(ex).__name__ + ": " + str(ex)[:60]}
         out[name] = row
     print(json.dumps(out))
     """),
    # ------------------------------------------------------------ round 3
    ("cli_release_every_query_refusals",
     "`matrixdp release` with a ledger (epsilon 50) for every --query (mean, sum, covariance, "
     "gram, correlation, pca --components 1, linreg --target y), in memory and with --dask, on "
     "tables with (a) a NaN in a feature, (b) a NaN in the target y, (c) text in a numeric "
     "column, (d) a value outside its range with --no-clip, (e) --numerics exact with --dask; "
     "then (f) the good table: exit status, output file, new entries",
     "(a)-(e) refused with no output file and no entry; (f) exit 0, a file and one entry per "
     "query",
     "all(v['rc'] != 0 and not v['out'] and v['new'] == 0 for k, v in r.items() if not k.startswith('f ')) and all(v['rc'] == 0 and v['out'] and v['new'] == 1 for k, v in r.items() if k.startswith('f '))",
     """
     import pandas as pd
     cwd = tempfile.mkdtemp()
     rng = np.random.default_rng(0); n = 200
     df = pd.DataFrame({"a": rng.uniform(0, 10, n).round(6), "b": rng.uniform(0, 5, n).round(6)})
     df["y"] = (0.3 * df["a"] - 0.2 * df["b"] + rng.normal(0, 0.5, n)).clip(-5, 5).round(6)
     open(os.path.join(cwd, "s.toml"), "w").write('[columns]\\na = { lo = 0, hi = 10 }\\nb = { lo = 0, hi = 5 }\\ny = { lo = -5, hi = 5 }\\n')
     tables = {}
     d = df.copy(); d.loc[n - 1, "a"] = np.nan; tables["a"] = d
     d = df.copy(); d.loc[n - 1, "y"] = np.nan; tables["b"] = d
     d = df.copy().astype({"b": object}); d.loc[n - 1, "b"] = "7.5x"; tables["c"] = d
     d = df.copy(); d.loc[n - 1, "a"] = 11.0; tables["d"] = d
     tables["e"] = df; tables["f"] = df
     for k, t in tables.items():
         os.makedirs(os.path.join(cwd, k), exist_ok=True); t.to_csv(os.path.join(cwd, k, "t.csv"), index=False)
     queries = {"mean": [], "sum": [], "covariance": [], "gram": [], "correlation": [], "pca": ["--components", "1"], "linreg": ["--target", "y"]}
     out = {}
     for k in tables:
         for q, extra in queries.items():
             for reader in ("memory", "dask"):
                 if k == "e" and reader == "memory":
                     continue
                 flags = {"d": ["--no-clip"], "e": ["--numerics", "exact"]}.get(k, [])
                 if reader == "dask":
                     flags = flags + ["--dask"]
                 led = os.path.join(cwd, f"{k}_{q}_{reader}.db")
                 cli("budget", "init", led, "--epsilon", "50", "--delta", "1e-3", "--dataset", "t.csv", cwd=cwd)
                 o = os.path.join(cwd, f"{k}_{q}_{reader}.json")
                 rc, text = cli("release", os.path.join(k, "t.csv"), "--query", q, *extra, "--bounds", "s.toml", "--epsilon", "1", "--ledger", led, "--dataset", "t.csv", "--out", o, "--quiet", *flags, cwd=cwd)
                 L = Ledger.open(led, readonly=True); h = L.history(); L.close()
                 out[f"{k} {q} {reader}"] = {"rc": rc, "out": os.path.exists(o), "new": len(h), "msg": text.strip().splitlines()[-1][:90] if rc and text.strip() else ""}
     print(json.dumps(out))
     """),
    # ------------------------------------------------------------ 4. the command line
    ("cli_synth_ledger_refusals",
     "A ledger (epsilon 1, delta 1e-5) for t.csv; `matrixdp synth` (copula, tree-copula, "
     "ron-gauss) with --ledger: (a) epsilon 2 (over budget); (b) a table with a NaN; (c) a value "
     "outside its bounds... with the copula (clipped: fits); then (d) copula epsilon 0.6 (fits), "
     "(e) tree-copula epsilon 0.6 (exhausted); (f) the ledger's budget edited by hand then a "
     "synth; (g) ron-gauss with an add-remove flag against the replace-one ledger",
     "(a), (b), (e) (0.6 then 0.95 against 1: cannot fit), (f), (g) exit non-zero, no output file, no new entry; (d) one entry and a file",
     "all(r[k]['rc'] != 0 and not r[k]['out'] and r[k]['new'] == 0 for k in 'abefg') and r['d']['rc'] == 0 and r['d']['out'] and r['d']['new'] == 1",
     """
     import pandas as pd, sqlite3, shutil
     cwd = tempfile.mkdtemp()
     rng = np.random.default_rng(0); n = 80
     df = pd.DataFrame({"a": rng.uniform(0, 10, n).round(6), "b": rng.uniform(0, 5, n).round(6), "c": rng.choice(["x", "y", "z"], n)})
     df.to_csv(os.path.join(cwd, "t.csv"), index=False)
     os.makedirs(os.path.join(cwd, "num"), exist_ok=True); df[["a", "b"]].to_csv(os.path.join(cwd, "num", "t.csv"), index=False)
     d2 = df.copy(); d2.loc[5, "a"] = np.nan; os.makedirs(os.path.join(cwd, "nan"), exist_ok=True); d2.to_csv(os.path.join(cwd, "nan", "t.csv"), index=False)
     open(os.path.join(cwd, "s.toml"), "w").write('[columns]\\na = { lo = 0, hi = 10 }\\nb = { lo = 0, hi = 5 }\\nc = { categories = ["x", "y", "z"] }\\n')
     led = os.path.join(cwd, "t.db")
     cli("budget", "init", led, "--epsilon", "1", "--delta", "1e-5", "--dataset", "t.csv", cwd=cwd)
     def entries(path=led):
         try:
             L = Ledger.open(path, readonly=True); h = L.history(); L.close(); return len(h)
         except Exception as e:
             return "err " + type(e).__name__
     out = {}
     def run(key, args, path=led):
         before = entries(path)
         o = f"{key}.csv"
         rc, text = cli("synth", *args, "--ledger", path, "--dataset", "t.csv", "--out", o, "--quiet", "--seed", "1", cwd=cwd)
         after = entries(path)
         out[key] = {"rc": rc, "out": os.path.exists(os.path.join(cwd, o)), "new": (after - before) if isinstance(after, int) and isinstance(before, int) else [before, after], "msg": text.strip().splitlines()[-1][:110] if text.strip() else ""}
     run("a", ["t.csv", "--bounds", "s.toml", "--epsilon", "2"])
     run("b", ["nan/t.csv", "--bounds", "s.toml", "--epsilon", "0.1"])
     run("d", ["t.csv", "--bounds", "s.toml", "--epsilon", "0.6"])
     run("e", ["t.csv", "--model", "tree-copula", "--bounds", "s.toml", "--epsilon", "0.95"])
     led2 = os.path.join(cwd, "t2.db"); shutil.copy(led, led2)
     con = sqlite3.connect(led2); tabs = [t for (t,) in con.execute("SELECT name FROM sqlite_master WHERE type='table'")]
     cols = [c[1] for c in con.execute("PRAGMA table_info(meta)")] if "meta" in tabs else []
     try:
         if "key" in cols:
             con.execute("UPDATE meta SET value = '100' WHERE key = 'epsilon'")
         else:
             con.execute("UPDATE meta SET epsilon = 100")
         con.commit()
     except Exception as e:
         out["edit_error"] = str(e)[:80]
     con.close()
     run("f", ["t.csv", "--bounds", "s.toml", "--epsilon", "0.3"], path=led2)
     run("g", ["num/t.csv", "--dim", "1", "--epsilon", "0.2", "--neighbouring", "add-remove"])
     print(json.dumps(out))
     """),
    ("cli_outputs_hold_no_private_value",
     "A 173-record table whose values are distinctive 6-decimal numbers (and an undeclared "
     "category 'zzsecret' in one copy): `matrixdp release` (mean, covariance; --report), "
     "`matrixdp synth` (copula, tree-copula, ron-gauss --reconstruct; --report; add-remove where "
     "offered), `matrixdp budget show/history`: every output file, stdout and stderr searched "
     "for any input value (as written in the CSV) and for 'zzsecret'; under add-remove also for "
     "the row count 173 as a word",
     "no input value and no 'zzsecret' anywhere; no '173' in the add-remove outputs; every run "
     "but the undeclared category's succeeds",
     "not any(v['values'] or v['secret'] or v.get('n173') for v in r.values()) and all(v['rc'] == 0 for k, v in r.items() if 'secret' not in k)",
     """
     import pandas as pd, re, glob
     cwd = tempfile.mkdtemp()
     rng = np.random.default_rng(7); n = 173
     df = pd.DataFrame({"a": rng.uniform(0, 10, n).round(6), "b": rng.uniform(0, 5, n).round(6), "c": rng.choice(["x", "y", "z"], n)})
     df.to_csv(os.path.join(cwd, "t.csv"), index=False)
     df[["a", "b"]].to_csv(os.path.join(cwd, "n.csv"), index=False)
     d2 = df.copy(); d2.loc[4, "c"] = "zzsecret"; d2.to_csv(os.path.join(cwd, "s.csv"), index=False)
     open(os.path.join(cwd, "s.toml"), "w").write('[columns]\\na = { lo = 0, hi = 10 }\\nb = { lo = 0, hi = 5 }\\nc = { categories = ["x", "y", "z"] }\\n')
     values = set()
     for col in ("a", "b"):
         values |= {f"{v:.6f}".rstrip("0").rstrip(".") for v in df[col]}
     values = {v for v in values if len(v.split(".")[-1]) >= 4}
     led = os.path.join(cwd, "t.db")
     cli("budget", "init", led, "--epsilon", "50", "--delta", "1e-3", "--dataset", "t.csv", cwd=cwd)
     leda = os.path.join(cwd, "ta.db")
     cli("budget", "init", leda, "--epsilon", "50", "--delta", "1e-3", "--dataset", "t.csv", "--relation", "add-remove", cwd=cwd)
     runs = {
       "release mean": ["release", "t.csv", "--query", "mean", "--bounds", "s.toml", "--epsilon", "1", "--out", "rm.json", "--report", "rm.html", "--ledger", led, "--dataset", "t.csv"],
       "release covariance": ["release", "t.csv", "--query", "covariance", "--bounds", "s.toml", "--epsilon", "1", "--out", "rc.json", "--report", "rc.html"],
       "synth copula add-remove": ["synth", "t.csv", "--bounds", "s.toml", "--epsilon", "1", "--out", "sca.csv", "--report", "sca.html", "--seed", "2", "--ledger", leda, "--dataset", "t.csv"],
       "synth copula": ["synth", "t.csv", "--bounds", "s.toml", "--epsilon", "1", "--out", "sc.csv", "--report", "sc.html", "--seed", "2"],
       "synth tree-copula": ["synth", "t.csv", "--model", "tree-copula", "--bounds", "s.toml", "--epsilon", "1", "--out", "st.csv", "--report", "st.html", "--seed", "2"],
       "synth ron-gauss": ["synth", "n.csv", "--dim", "1", "--epsilon", "1", "--out", "sr.csv", "--report", "sr.html", "--reconstruct", "--seed", "2"],
       "synth ron-gauss add-remove": ["synth", "n.csv", "--dim", "1", "--epsilon", "1", "--neighbouring", "add-remove", "--out", "sra.csv", "--report", "sra.html", "--seed", "2"],
       "synth secret category": ["synth", "s.csv", "--bounds", "s.toml", "--epsilon", "1", "--out", "ss.csv", "--seed", "2"],
       "release secret category": ["release", "s.csv", "--query", "mean", "--bounds", "s.toml", "--epsilon", "1", "--out", "rs.json"],
       "budget show": ["budget", "show", led],
       "budget history": ["budget", "history", led],
       "budget history add-remove": ["budget", "history", leda],
     }
     out = {}
     for key, args in runs.items():
         before = set(os.listdir(cwd))
         rc, text = cli(*args, cwd=cwd)
         new = set(os.listdir(cwd)) - before
         blob = text
         for f in new:
             p = os.path.join(cwd, f)
             if os.path.isfile(p) and not f.endswith(".db"):
                 blob += open(p, errors="replace").read()
         hits = sorted(v for v in values if re.search(r"(?<![0-9])" + re.escape(v) + r"(?![0-9])", blob))
         row = {"rc": rc, "files": sorted(new), "values": hits[:5], "secret": "zzsecret" in blob,
                "msg": text.strip().splitlines()[-1][:90] if rc and text.strip() else ""}
         if "add-remove" in key:
             row["n173"] = bool(re.search(r"(?<![0-9.])173(?![0-9])", blob))
         out[key] = row
     print(json.dumps(out))
     """),
]


def _verdict(predicate: str, text: str) -> str:
    try:
        r = json.loads(text)
        return "ok" if eval(predicate, {"r": r}) else "DEFECT"
    except Exception as exc:  # a crash, a time-out or an output the predicate cannot read
        return f"DEFECT ({type(exc).__name__})"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--base", default="975a9d5")
    ap.add_argument("--timeout", type=float, default=900.0)
    ap.add_argument("--only", default=None, help="run the probes whose name contains this")
    ap.add_argument("--tree-only", action="store_true", help="run on this checkout only")
    ap.add_argument("--base-only", action="store_true", help="run on the base only")
    ap.add_argument("--raw", default=str(OUT / "defect_hunt_dh2_raw.jsonl"),
                    help="per-probe outputs (one JSON line per run; read back to resume)")
    args = ap.parse_args(argv)
    raw = Path(args.raw)
    done = {}
    if raw.exists():
        for line in raw.read_text().splitlines():
            rec = json.loads(line)
            done[(rec["name"], rec["which"])] = rec["output"]
    with tempfile.TemporaryDirectory() as tmp:
        base_src = None if args.tree_only else base_tree(args.base, Path(tmp))
        for name, what, expected, predicate, prog in PROBES:
            if args.only and args.only not in name:
                continue
            for which, src in (("base", base_src),
                               ("tree", None if args.base_only else ROOT / "src")):
                if src is None or (name, which) in done:
                    continue
                text = run_probe(prog, src, args.timeout, header=_HEADER)
                done[(name, which)] = text
                with raw.open("a") as fh:
                    fh.write(json.dumps({"name": name, "which": which, "output": text}) + "\n")
                print(name, which, _verdict(predicate, text), text[:300], flush=True)
    rows = []
    for name, what, expected, predicate, _ in PROBES:
        b, t = done.get((name, "base"), ""), done.get((name, "tree"), "")
        rows.append({"name": name, "what": what, "expected": expected, "predicate": predicate,
                     "base": b, "base_verdict": _verdict(predicate, b) if b else "not run",
                     "tree": t, "tree_verdict": _verdict(predicate, t) if t else "not run"})
    # the CSV holds the verdicts; the full outputs are in the raw JSON lines (--raw)
    with (OUT / "defect_hunt_dh2_probes.csv").open("w", newline="") as fh:
        keep = ["name", "what", "expected", "predicate", "base_verdict", "tree_verdict"]
        w = csv.DictWriter(fh, fieldnames=keep)
        w.writeheader()
        w.writerows({k: r[k] for k in keep} for r in rows)
    lines = ["# Hunt DH2: the budget's seams as a user drives the library (probes)", "",
             f"`experiments/defect_hunt_dh2.py` (base {args.base} = `main` before any fix; tree = "
             "this branch; each probe a fresh process). Each probe's expected outcome and its "
             "predicate were committed before it ran; `ok` = the output meets it, `DEFECT` = it "
             "does not. The defects, fixes and tests: `defect_hunt_dh2.md`.", "",
             "| probe | what | expected | base verdict | tree verdict | base | tree |",
             "|---|---|---|---|---|---|---|"]
    lines += [markdown_row([r["name"], r["what"], r["expected"], r["base_verdict"],
                            r["tree_verdict"], r["base"][:3000], r["tree"][:3000]]) for r in rows]
    (OUT / "defect_hunt_dh2_probes.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
