"""Snapshot of DPLinearRegression / DPRidge fits over a grid that reaches every boosted branch.

A refactoring check, not an experiment (writes no results/): run it on the code before a change
and after it, then compare the two pickles bit for bit:

    PYTHONPATH=src python experiments/_snapshots/boosted_fit_snapshot.py --out /tmp/before.pkl
    PYTHONPATH=src python experiments/_snapshots/boosted_fit_snapshot.py --out /tmp/after.pkl \
        --compare /tmp/before.pkl

Each cell records every fitted attribute (``*_``: coef_, intercept_, the error bars, boost_*_,
selected_, privacy_, moments_ ...), the accountant's spends (label, guarantee), the state of the
fit's bit generator after the fit (the number of draws it made), the sequence of Mechanism.release
calls (class, sensitivity, output shape) and, for a refused fit, the exception's type and message.
"""
from __future__ import annotations

import argparse
import itertools
import pickle
import sys
import time
from dataclasses import fields, is_dataclass

import numpy as np

from matrixdp.accounting import Accountant
from matrixdp.mechanisms.base import Mechanism
from matrixdp.models import DPLinearRegression, DPRidge


def tables():
    rng = np.random.default_rng(0)
    out = {}
    n, d = 1500, 4
    # smooth: small residuals (the §4e decision keeps the rounds)
    X = rng.uniform(-1, 1, (n, d))
    out["smooth"] = (X, np.clip(0.5 + 0.1 * X @ np.ones(d) + 0.01 * rng.standard_normal(n), 0, 1))
    # binary, strong signal (§4e falls back; the ls-signal gate opens at large ε)
    X = rng.uniform(-1, 1, (n, d))
    p = 1.0 / (1.0 + np.exp(-(X @ np.linspace(4.0, -4.0, d))))
    out["binary"] = (X, (rng.uniform(size=n) < p).astype(float))
    # binary, no signal (the ls-signal gate stays closed)
    X = rng.uniform(-1, 1, (n, d))
    out["noise01"] = (X, (rng.uniform(size=n) < 0.5).astype(float))
    return out


def canon(v):
    """A picklable, comparable form of a fitted attribute (arrays keep dtype and bytes)."""
    if isinstance(v, np.ndarray):
        return ("nd", v.dtype.str, v.shape, v.tobytes())
    if isinstance(v, (np.floating, np.integer, np.bool_)):
        return ("np", type(v).__name__, v.item())
    if isinstance(v, float):
        return ("f", v.hex()) if v == v else ("f", "nan")
    if isinstance(v, dict):
        return ("d", tuple((canon(k), canon(x)) for k, x in v.items()))
    if isinstance(v, (list, tuple)):
        return (type(v).__name__, tuple(canon(x) for x in v))
    if is_dataclass(v) and not isinstance(v, type):
        return ("dc", type(v).__name__, tuple((f.name, canon(getattr(v, f.name)))
                                              for f in fields(v)))
    if v is None or isinstance(v, (bool, int, str)):
        return v
    return ("repr", type(v).__name__, repr(v))


RELEASES = []


def _spy():
    """Record every Mechanism subclass's release call (class, sensitivity, output shape)."""
    seen = set()
    for cls in _subclasses(Mechanism):
        if "release" in vars(cls) and cls not in seen:
            seen.add(cls)
            orig = vars(cls)["release"]

            def make(orig, cls):
                def release(self, value, *a, **k):
                    out = orig(self, value, *a, **k)
                    RELEASES.append((type(self).__name__, canon(getattr(self, "sensitivity", None)),
                                     np.shape(getattr(out, "value", None))))
                    return out
                return release
            setattr(cls, "release", make(orig, cls))


def _subclasses(c):
    out = [c]
    for s in c.__subclasses__():
        out += _subclasses(s)
    return out


BOOSTS = ["auto", "adaptive", 0, 1, 3, "predict", "ls-fallback", "ls-signal"]
CLIPS = [None, "fixed", "grow", 0.3]


def grid(full: bool):
    """(name, estimator kwargs, table, input kind)."""
    cells = []
    for est, boost, clip, rel, icpt, table, eps in itertools.product(
            ("lin", "ridge"), BOOSTS, CLIPS, ("replace-one", "add-remove"), (True, False),
            ("smooth", "binary", "noise01"), (1.0, 30.0)):
        cells.append(dict(est=est, boost_rounds=boost, boost_clip=clip, neighbouring=rel,
                          fit_intercept=icpt, table=table, epsilon=eps, kind="np"))
    # Dask input: a sub-grid (the rounds' correlation and the sums block by block)
    for boost, clip, rel, icpt, table in itertools.product(
            BOOSTS, (None, "grow"), ("replace-one", "add-remove"), (True, False),
            ("smooth", "binary")):
        cells.append(dict(est="lin", boost_rounds=boost, boost_clip=clip, neighbouring=rel,
                          fit_intercept=icpt, table=table, epsilon=30.0 if table == "binary"
                          else 1.0, kind="dask"))
    # level opt-ins (the single release, and refusals with an int), noise kinds, dp bounds
    for boost, extra, table in itertools.product(
            ("auto", 0, 2, "predict", "ls-fallback", "ls-signal"),
            ({"level_share": 0.2}, {"level_share": "auto"}, {"select": "risk"},
             {"level_prior": "box"}, {"noise": "iid"}, {"noise": "mvg"},
             {"bounds_X": "dp", "bounds_y": "dp"}, {"projection": "none"}, {"clip": False}),
            ("smooth", "binary")):
        cells.append(dict(est="lin", boost_rounds=boost, boost_clip=None,
                          neighbouring="replace-one", fit_intercept=True, table=table,
                          epsilon=3.0, kind="np", **extra))
    # design constants pinned on matrixdp.models.boosting (they must reach the fit)
    for pin, boost, rel, table in itertools.product(
            PINS, BOOSTS, ("replace-one", "add-remove"), ("smooth", "binary")):
        cells.append(dict(est="lin", boost_rounds=boost, boost_clip=None, neighbouring=rel,
                          fit_intercept=True, table=table, epsilon=30.0, kind="np", pin=pin))
    # a refit of the same estimator after another option (no attribute left stale)
    for first, boost, table in itertools.product(
            ("predict", "ls-signal", 3), BOOSTS, ("smooth", "binary")):
        cells.append(dict(est="lin", boost_rounds=boost, boost_clip=None,
                          neighbouring="replace-one", fit_intercept=True, table=table,
                          epsilon=30.0, kind="np", first=first))
    if not full:
        cells = cells[::7]
    return cells


PINS = {"no-decision": {"BOOST_AUTO_ADAPTIVE": False},
        "force-fallback": {"BOOST_FALLBACK_KAPPA": -1.0},
        "gate-open": {"BOOST_SIGNAL_R2": -1.0, "BOOST_FALLBACK_KAPPA": -1.0},
        "grow-default": {"BOOST_CLIP_RULE": "grow"},
        "ls5-share05": {"BOOST_LS_ROUNDS": 5, "BOOST_JOINT_SHARE": 0.5, "BOOST_COUNT_CLIP": 2.0,
                        "BOOST_ROUNDS": 4, "BOOST_STEP": 0.8, "BOOST_CLIP": 0.4}}


def run_cell(cell, data):
    c = dict(cell)
    est, table, kind = c.pop("est"), c.pop("table"), c.pop("kind")
    pin, first = c.pop("pin", None), c.pop("first", None)
    import matrixdp.models.boosting as boosting
    saved = {k: getattr(boosting, k) for k in PINS.get(pin, {})}
    for k, v in PINS.get(pin, {}).items():
        setattr(boosting, k, v)
    try:
        return _run_cell(c, est, table, kind, first, data)
    finally:
        for k, v in saved.items():
            setattr(boosting, k, v)


def _spelled(kw: dict, model=None) -> dict:
    """``kw`` with the research knobs moved into ``experimental=RegressionOptions(...)`` (on top
    of ``model``'s, for ``set_params``) where the tree has it (task XP); as keywords before."""
    try:
        from matrixdp.models.experimental import RegressionOptions
    except ImportError:
        return dict(kw)
    import dataclasses

    kw = dict(kw)
    knobs = {k: kw.pop(k) for k in list(kw) if k in RegressionOptions.__dataclass_fields__}
    if knobs:
        base = kw.get("experimental") or (model.experimental if model is not None else None)
        kw["experimental"] = dataclasses.replace(base or RegressionOptions(), **knobs)
    return kw


def _run_cell(c, est, table, kind, first, data):
    X, y = data[table]
    kw = dict(bounds_X=(-1, 1), bounds_y=(0, 1), delta=1e-6)
    kw.update(c)
    acc = Accountant(epsilon=kw["epsilon"] * 1.0001 + 1e-9, delta=1e-5)
    gen = np.random.Generator(np.random.PCG64(12345))
    kw.update(random_state=gen, accountant=acc)
    kw = _spelled(kw)
    model = DPRidge(alpha=7.5, **kw) if est == "ridge" else DPLinearRegression(**kw)
    if kind == "dask":
        import dask.array as da
        X, y = da.from_array(X, chunks=(400, X.shape[1])), da.from_array(y, chunks=400)
    if first is not None:  # fit once with another option, then refit with this cell's
        model.set_params(**_spelled(dict(boost_rounds=first), model), accountant=None,
                         random_state=np.random.Generator(np.random.PCG64(7)))
        model.fit(*(data["binary" if table == "smooth" else "smooth"]))
        model.set_params(**_spelled(dict(boost_rounds=c["boost_rounds"]), model),
                         accountant=acc, random_state=gen)
    RELEASES.clear()
    rec = {}
    try:
        model.fit(X, y)
    except Exception as e:  # a refusal is part of the behaviour
        rec["error"] = (type(e).__name__, str(e))
    attrs = {k: canon(v) for k, v in sorted(vars(model).items())
             if k.endswith("_") and not k.startswith("__")}
    # private attributes left on the estimator (e.g. flags set while parsing boost_rounds)
    attrs["__private__"] = tuple(sorted(k for k in vars(model) if k.startswith("_")
                                        and not k.startswith("__")))
    rec["attrs"] = attrs
    rec["spends"] = tuple((lbl, canon(g)) for lbl, g in acc.spends)
    rec["bitgen"] = canon(gen.bit_generator.state)
    rec["releases"] = tuple(RELEASES)
    return rec


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--compare")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--ignore-private", action="store_true",
                    help="compare everything but the names of the estimator's private attributes")
    args = ap.parse_args()
    _spy()
    data = tables()
    cells = grid(not args.quick)
    snap = []
    t0 = time.perf_counter()
    for i, cell in enumerate(cells):
        snap.append((repr(sorted(cell.items(), key=str)), run_cell(cell, data)))
        if i % 200 == 0:
            print(i, len(cells), f"{time.perf_counter() - t0:.0f}s", file=sys.stderr, flush=True)
    with open(args.out, "wb") as f:
        pickle.dump(snap, f)
    errors = sum("error" in r for _, r in snap)
    branches = {}
    for _, r in snap:
        b = r["attrs"].get("boost_branch_")
        branches[b] = branches.get(b, 0) + 1
    print(f"cells: {len(snap)}, refused: {errors}, branches: {branches}")
    if args.compare:
        with open(args.compare, "rb") as f:
            ref = pickle.load(f)
        assert [k for k, _ in ref] == [k for k, _ in snap], "different grids"
        fields_differ = {}
        for (k, r), (_, s) in zip(ref, snap):
            keys = [f"attrs.{a}" for a in set(r["attrs"]) | set(s["attrs"])
                    if r["attrs"].get(a) != s["attrs"].get(a)]
            keys += [key for key in set(r) | set(s) if key != "attrs" and r.get(key) != s.get(key)]
            for key in keys:
                fields_differ[key] = fields_differ.get(key, 0) + 1
        bad = [k for (k, r), (_, s) in zip(ref, snap) if r != s]
        for k in bad[:20]:
            print("DIFF", k)
        print(f"compare: {len(snap) - len(bad)} of {len(snap)} cells identical; cells in which a "
              f"field differs: {fields_differ or 'none'}")
        if args.ignore_private:
            rest = {k: v for k, v in fields_differ.items() if k != "attrs.__private__"}
            print(f"compare without the private names: "
                  f"{'all identical' if not rest else rest}")
            return 1 if rest else 0
        return 1 if bad else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
