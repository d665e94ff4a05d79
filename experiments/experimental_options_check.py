"""Byte-identity check of the ``experimental=`` move (task XP): seeded estimator outputs before and after.

Task XP moves the research knobs of ``DPLinearRegression``/``DPRidge`` (``level_share``,
``select``, ``level_prior``, ``boost_rounds``, ``boost_clip``, ``slope_shrink``,
``label_range``), ``DPCovariance`` (``coinpress_beta``, ``adaptive_ranking``,
``correlation_rule``, ``adaptive_refine``) and ``DPPCA`` (``coinpress_beta``, ``adaptive_first``,
``adaptive_resolve_z``, ``adaptive_resolve_share``, ``adaptive_bias``) into one frozen options
object per estimator (``RegressionOptions``, ``CovarianceOptions``, ``PCAOptions`` of
``matrixdp.models.experimental``), passed as ``experimental=``; the old keywords stay, deprecated.
Neither spelling may change a single released bit. This script records seeded fits of every
case in :data:`REGRESSION`, :data:`COVARIANCE` and :data:`PCA` (each knob at each value the docs
or the experiment scripts name, the defaults, and the combinations the fit treats specially) at
ε = 0.1, 1, 10 and 10⁴ (δ = 1e-6) on three benchmark tables (wdbc: 0/1 label, 30 features; ctg;
the benchmark's synthetic table), each case with its own fixed integer seed. Recorded per fit:
every fitted attribute (name ending in ``_``) — arrays as bytes, everything else (choices,
branches, predicted losses, the privacy guarantee) as its exact ``repr`` — and the charges
(the accountant's spends), or the exception's type and message where the fit raises.

Usage::

    # the tree before the change (git archive b2d0354 into /tmp/xp_before, this script copied
    # in: _utility_common puts its checkout's src first on the path), then this tree twice
    python /tmp/xp_before/experiments/experimental_options_check.py record /tmp/before.npz b2d0354
    python experiments/experimental_options_check.py record /tmp/after.npz
    python experiments/experimental_options_check.py record-legacy /tmp/legacy.npz
    python experiments/experimental_options_check.py compare /tmp/before.npz /tmp/after.npz \\
        /tmp/legacy.npz

``record`` passes the knobs as ``experimental=<Options>(...)`` where
``matrixdp.models.experimental`` exists (after) and as keywords otherwise (before);
``record-legacy`` passes them as the deprecated keywords on the tree after (each such fit must
emit exactly one ``FutureWarning``; the count is recorded). The rule: the same set of records,
every array ``np.array_equal`` (NaN equal to NaN) with the same dtype, shape and bytes, every
other value the same ``repr``, in both comparisons (before against after, before against the
deprecated spelling after); a negative control (one ulp of one entry of each float array) must be
flagged. ``compare`` writes ``results/experimental_options_check.md``.
"""

from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _utility_common as U  # noqa: E402
from _byte_identity import pair, source_commit  # noqa: E402

EPSILONS = (0.1, 1.0, 10.0, 1e4)
DELTA = 1e-6
TABLES = ("wdbc", "ctg", "synthetic")

#: (name, estimator, constructor keywords other than the knobs, knobs)
REGRESSION = [
    ("lin default", "lin", {}, {}),
    ("lin level_share=0.1", "lin", {}, {"level_share": 0.1}),
    ("lin level_share=auto", "lin", {}, {"level_share": "auto"}),
    ("lin select=risk", "lin", {}, {"select": "risk"}),
    ("lin level_prior=box", "lin", {}, {"level_prior": "box"}),
    ("lin level_prior=gauss", "lin", {}, {"level_prior": "gauss"}),
    ("lin level_prior=0.5", "lin", {}, {"level_prior": 0.5}),
    ("lin select=risk level_prior=box", "lin", {}, {"select": "risk", "level_prior": "box"}),
    ("lin level_share=0.1 select=risk", "lin", {}, {"level_share": 0.1, "select": "risk"}),
    ("lin level_share=auto boost_rounds=0", "lin", {},
     {"level_share": "auto", "boost_rounds": 0}),
    ("lin boost_rounds=0", "lin", {}, {"boost_rounds": 0}),
    ("lin boost_rounds=1", "lin", {}, {"boost_rounds": 1}),
    ("lin boost_rounds=2", "lin", {}, {"boost_rounds": 2}),
    ("lin boost_rounds=5", "lin", {}, {"boost_rounds": 5}),
    ("lin boost_rounds=auto", "lin", {}, {"boost_rounds": "auto"}),
    ("lin boost_rounds=adaptive", "lin", {}, {"boost_rounds": "adaptive"}),
    ("lin boost_rounds=predict", "lin", {}, {"boost_rounds": "predict"}),
    ("lin boost_rounds=ls-fallback", "lin", {}, {"boost_rounds": "ls-fallback"}),
    ("lin boost_rounds=ls-signal", "lin", {}, {"boost_rounds": "ls-signal"}),
    ("lin boost_rounds=bias-gated", "lin", {}, {"boost_rounds": "bias-gated"}),
    ("lin boost_rounds=2 boost_clip=0.3", "lin", {}, {"boost_rounds": 2, "boost_clip": 0.3}),
    ("lin boost_rounds=2 boost_clip=fixed", "lin", {}, {"boost_rounds": 2, "boost_clip": "fixed"}),
    ("lin boost_rounds=2 boost_clip=grow", "lin", {}, {"boost_rounds": 2, "boost_clip": "grow"}),
    ("lin boost_rounds=2 boost_clip=late", "lin", {}, {"boost_rounds": 2, "boost_clip": "late"}),
    ("lin boost_rounds=10 boost_clip=consistent", "lin", {},
     {"boost_rounds": 10, "boost_clip": "consistent"}),
    ("lin boost_clip=fixed", "lin", {}, {"boost_clip": "fixed"}),
    ("lin boost_clip=grow", "lin", {}, {"boost_clip": "grow"}),
    ("lin boost_rounds=adaptive boost_clip=late", "lin", {},
     {"boost_rounds": "adaptive", "boost_clip": "late"}),
    ("lin slope_shrink=sure", "lin", {}, {"slope_shrink": "sure"}),
    ("lin slope_shrink=sure boost_rounds=0", "lin", {}, {"slope_shrink": "sure", "boost_rounds": 0}),
    ("lin label_range=auto", "lin", {}, {"label_range": "auto"}),
    ("lin label_range=auto boost_rounds=0", "lin", {}, {"label_range": "auto", "boost_rounds": 0}),
    ("lin label_range=public", "lin", {}, {"label_range": "public"}),
    ("lin add-remove", "lin", {"neighbouring": "add-remove"}, {}),
    ("lin add-remove boost_rounds=2", "lin", {"neighbouring": "add-remove"}, {"boost_rounds": 2}),
    ("lin add-remove level_share=0.1", "lin", {"neighbouring": "add-remove"},
     {"level_share": 0.1}),
    ("lin no intercept", "lin", {"fit_intercept": False}, {}),
    ("lin no intercept boost_rounds=predict", "lin", {"fit_intercept": False},
     {"boost_rounds": "predict"}),
    ("lin projection=none boost_rounds=0", "lin", {"projection": "none"}, {"boost_rounds": 0}),
    ("lin noise=iid", "lin", {"noise": "iid"}, {}),
    ("lin bounds_y=dp", "lin", {"bounds_y": "dp"}, {}),
    ("ridge default", "ridge", {}, {}),
    ("ridge boost_rounds=0", "ridge", {}, {"boost_rounds": 0}),
    ("ridge slope_shrink=sure", "ridge", {}, {"slope_shrink": "sure"}),
    ("ridge select=risk", "ridge", {}, {"select": "risk"}),
    # invalid values and combinations: the same error (type and message) before and after
    ("lin error boost_rounds=-1", "lin", {}, {"boost_rounds": -1}),
    ("lin error select=bad", "lin", {}, {"select": "bad"}),
    ("lin error select=risk boost_rounds=2", "lin", {}, {"select": "risk", "boost_rounds": 2}),
    ("lin error predict boost_clip=0.3", "lin", {},
     {"boost_rounds": "predict", "boost_clip": 0.3}),
]
COVARIANCE = (
    [("cov default", "cov", {}, {}),
     ("cov correlation", "cov", {"kind": "correlation"}, {}),
     ("cov adaptive_ranking=mean", "cov", {}, {"adaptive_ranking": "mean"}),
     ("cov adaptive_ranking=median", "cov", {}, {"adaptive_ranking": "median"}),
     ("cov correlation_rule=guard", "cov", {"kind": "correlation"}, {"correlation_rule": "guard"}),
     ("cov correlation_rule=margin", "cov", {"kind": "correlation"},
      {"correlation_rule": "margin"}),
     ("cov correlation guard refine=True", "cov", {"kind": "correlation"},
      {"correlation_rule": "guard", "adaptive_refine": True})]
    + [(f"cov {k} adaptive_refine={r!r}", "cov", {"kind": k}, {"adaptive_refine": r})
       for k in ("covariance", "correlation") for r in (False, True, "checked")]
    + [(f"cov method={m} coinpress_beta={b!r}", "cov", {"method": m}, {"coinpress_beta": b})
       for m in ("coinpress", "adaptive") for b in (0.1, 0.05, "auto", "late")]
    + [("cov method=coinpress coinpress_beta=counts", "cov", {"method": "coinpress"},
        {"coinpress_beta": "counts"}),
       ("cov method=coinpress steps=3", "cov", {"method": "coinpress", "coinpress_steps": 3}, {}),
       ("cov method=moments", "cov", {"method": "moments"}, {}),
       ("cov adaptive_ranking=mean refine=checked beta=auto", "cov", {},
        {"adaptive_ranking": "mean", "adaptive_refine": "checked", "coinpress_beta": "auto"}),
       ("cov error adaptive_ranking=bad", "cov", {}, {"adaptive_ranking": "bad"}),
       ("cov error adaptive method=adaptive beta=counts", "cov", {"method": "adaptive"},
        {"coinpress_beta": "counts"})]
)
PCA = (
    [(f"pca k={q} default", "pca", {"n_components": q}, {}) for q in (2, 5)]
    + [(f"pca k={q} {p}={v!r}", "pca", {"n_components": q, "method": "adaptive"}, {p: v})
       for q in (2, 5)
       for p, vals in (("adaptive_first", ("covariance", "pca", "mixed")),
                       ("adaptive_resolve_z", (2.0, 3.0)),
                       ("adaptive_resolve_share", (0.5, 0.25)),
                       ("adaptive_bias", ("model", "bound", "records", "one-record")),
                       ("coinpress_beta", (0.1, "auto", "late")))
       for v in vals]
    + [("pca k=2 resolve_share=0.25 resolve_z=2", "pca", {"n_components": 2, "method": "adaptive"},
        {"adaptive_resolve_share": 0.25, "adaptive_resolve_z": 2.0}),
       ("pca k=2 mixed records", "pca", {"n_components": 2},
        {"adaptive_first": "mixed", "adaptive_bias": "records"}),
       ("pca k=2 method=coinpress beta=auto", "pca", {"n_components": 2, "method": "coinpress"},
        {"coinpress_beta": "auto"}),
       ("pca k=2 method=coinpress", "pca", {"n_components": 2, "method": "coinpress"}, {}),
       ("pca k=2 method=moments", "pca", {"n_components": 2, "method": "moments"}, {}),
       ("pca k=2 projection=noise", "pca", {"n_components": 2, "projection": "noise"}, {}),
       ("pca k=2 error adaptive_first=bad", "pca", {"n_components": 2},
        {"adaptive_first": "bad"})]
)
CASES = REGRESSION + COVARIANCE + PCA


def _options_module():
    try:
        from matrixdp.models import experimental
    except ImportError:
        return None
    return experimental


def _build(which: str, base: dict, knobs: dict, legacy: bool):
    from matrixdp.models import DPPCA, DPCovariance, DPLinearRegression, DPRidge

    cls = {"lin": DPLinearRegression, "ridge": DPRidge, "cov": DPCovariance, "pca": DPPCA}[which]
    ex = _options_module()
    kw = dict(base)
    if ex is None or legacy or not knobs:
        kw.update(knobs)
    else:
        opt = {"lin": ex.RegressionOptions, "ridge": ex.RegressionOptions,
               "cov": ex.CovarianceOptions, "pca": ex.PCAOptions}[which]
        kw["experimental"] = opt(**knobs)
    return cls, kw


def _put(rec: dict, key: str, value) -> None:
    if isinstance(value, np.ndarray) and value.dtype != object:
        rec[key] = value
    else:
        rec[key] = np.array(repr(value))


def _fit(rec, table, name, which, base, knobs, eps, seed, legacy, warned):
    from matrixdp.accounting import Accountant

    acc = Accountant()
    key = f"{name}|{table.name}|eps={eps:g}"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            cls, kw = _build(which, base, knobs, legacy)
            common = dict(epsilon=eps, delta=DELTA, random_state=seed, accountant=acc)
            if which in ("lin", "ridge"):
                common.update(bounds_X=(table.lo, table.hi), bounds_y=(table.y_lo, table.y_hi))
                if kw.get("bounds_y") == "dp":
                    common.pop("bounds_y")
                est = cls(**common, **kw).fit(table.X, table.y)
            else:
                est = cls(bounds=(table.lo, table.hi), **common, **kw).fit(table.X)
        except Exception as exc:  # invalid values: the same error before and after
            _put(rec, f"{key}|error", f"{type(exc).__name__}: {exc}")
            est = None
    future = [w for w in caught if issubclass(w.category, FutureWarning)]
    warned.append((key, len(future), bool(knobs)))
    if est is None:
        return
    for attr, value in sorted(vars(est).items()):
        if attr.endswith("_") and not attr.startswith("_"):
            _put(rec, f"{key}|{attr}", value)
    _put(rec, f"{key}|charges", list(acc.spends))


def record(path: str, label: str | None = None, legacy: bool = False) -> None:
    import matrixdp

    rec: dict = {}
    warned: list = []
    t0 = time.time()
    tables = {name: U.load_table(name) for name in TABLES}
    for i, eps in enumerate(EPSILONS):
        for j, table in enumerate(tables.values()):
            for c, (name, which, base, knobs) in enumerate(CASES):
                _fit(rec, table, name, which, base, knobs, eps, 700_000 + 10_000 * i + 1_000 * j
                     + c, legacy, warned)
        print(f"eps={eps:g} done ({time.time() - t0:.0f} s, {len(rec)} records)", flush=True)
    src = str(Path(matrixdp.__file__).resolve())
    rec["__source__"] = np.array(f"{src} ({label or source_commit(src, dirty=True)})"
                                 + (" [deprecated keywords]" if legacy else ""))
    # FutureWarnings per fit: (fits with knobs, fits with knobs and exactly one FutureWarning,
    # fits without knobs that warned)
    with_knobs = [n for _, n, k in warned if k]
    rec["__warnings__"] = np.array([len(with_knobs), sum(1 for n in with_knobs if n == 1),
                                    sum(1 for _, n, k in warned if not k and n)])
    np.savez_compressed(path, **rec)
    print(f"{len(rec)} records written to {path} ({time.time() - t0:.0f} s)")


META = {"__source__", "__warnings__"}


def _pair(A, B) -> dict:
    return pair(A, B, META)


def compare(before: str, after: str, legacy: str, out: str | None = None) -> int:
    A, B, L = np.load(before), np.load(after), np.load(legacy)
    lines = ["# The `experimental=` move changes no released bit (task XP)", "",
             "Script: `experiments/experimental_options_check.py` (its docstring has the cases and "
             "the rule).", f"Before: `{A['__source__']}`.", f"After: `{B['__source__']}`.",
             f"After, deprecated spelling: `{L['__source__']}`.", "",
             f"Cases: {len(REGRESSION)} regression (DPLinearRegression, DPRidge), "
             f"{len(COVARIANCE)} DPCovariance, {len(PCA)} DPPCA; ε = "
             f"{', '.join(f'{e:g}' for e in EPSILONS)}; tables {', '.join(TABLES)}; one fixed "
             "seed per case, table and ε.", ""]
    ok = True
    for title, X in (("before vs after (`experimental=`)", B),
                     ("before vs after (deprecated keywords)", L)):
        r = _pair(A, X)
        good = not (r["missing"] or r["extra"] or r["differ"]) and r["flagged"] == r["floats"]
        ok &= good
        lines += [f"## {title}", "",
                  f"- fits compared: {r['fits']} (of which {r['errors']} raise, the same error "
                  "type and message compared)",
                  f"- records compared: {len(r['common'])} ({r['floats']} float arrays, the rest "
                  "exact `repr`s of choices, branches, predictions, guarantees and charges)",
                  f"- records only before: {len(r['missing'])}; only after: {len(r['extra'])}",
                  f"- records that differ: {len(r['differ'])}",
                  f"- negative control: a one-ulp change of one entry is flagged in "
                  f"{r['flagged']} of {r['floats']} float arrays",
                  f"- sha256 of the compared records (keys and bytes, before): `{r['digest']}`",
                  f"- **{'PASS' if good else 'FAIL'}**", ""]
        for k in (r["missing"] + r["extra"] + r["differ"])[:40]:
            lines.append(f"  - `{k}`")
    wb, wl = [int(v) for v in B["__warnings__"]], [int(v) for v in L["__warnings__"]]
    warn_ok = wb[1] == 0 and wb[2] == 0 and wl[1] == wl[0] and wl[2] == 0
    ok &= warn_ok
    lines += ["## FutureWarnings", "",
              f"- after, `experimental=`: {wb[1]} of the {wb[0]} fits with knobs warned "
              f"(exactly once), {wb[2]} fits without knobs warned (both must be 0)",
              f"- after, deprecated keywords: {wl[1]} of the {wl[0]} fits with knobs warned "
              f"exactly once (must be all), {wl[2]} fits without knobs warned (must be 0)",
              f"- **{'PASS' if warn_ok else 'FAIL'}**", "",
              f"**{'PASS' if ok else 'FAIL'}**: "
              + ("every array byte-identical and every value, error and charge the same in both "
                 "spellings; the deprecated spelling warns once per fit, the new one never."
                 if ok else "see above.")]
    text = "\n".join(lines) + "\n"
    print(text)
    if out:
        Path(out).write_text(text, encoding="utf-8")
    return 0 if ok else 1


if __name__ == "__main__":
    if sys.argv[1:2] == ["record"]:
        record(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None)
    elif sys.argv[1:2] == ["record-legacy"]:
        record(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None, legacy=True)
    elif sys.argv[1:2] == ["compare"]:
        sys.exit(compare(sys.argv[2], sys.argv[3], sys.argv[4],
                         sys.argv[5] if len(sys.argv) > 5 else
                         str(U.DEFAULT_OUT / "experimental_options_check.md")))
    else:
        sys.exit(__doc__)
