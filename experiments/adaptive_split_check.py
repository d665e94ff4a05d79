"""Byte-identity check of the ``models/adaptive`` refactor (task EX): seeded outputs before and after.

Task EX moves ``adaptive_covariance``'s research knobs into one options object
(``AdaptiveOptions``) and splits ``models/adaptive.py`` into small modules. Neither may change a
single released bit. This script records seeded outputs of

* ``DPCovariance(method="adaptive")``: ``kind`` covariance and correlation, ``adaptive_refine``
  False, True and ``"checked"``, and ``DPCovariance()`` (``method="auto"``);
* ``DPPCA``: ``n_components`` 2 and 5, ``DPPCA()`` (``method="auto"``) and ``method="adaptive"``
  with each ``adaptive_*`` parameter at each value the docs or experiments name;
* ``adaptive_covariance`` with every knob value an experiment script passes (grepped from
  ``experiments/``: ``branch``, ``decision``, ``select_units``, ``first_share``, ``bias_share``,
  ``margin``, ``mean_margin``, ``tie_ratio``, ``decision_z``, ``far_tail``, ``loss_statistic``,
  ``reading``, ``refine``, ``first_kind``, ``first_mix``, ``ranking``, ``projection``, ``bias``,
  ``diagonal_noise``, ``noise_pairs``, ``pca_gaps``, ``pca_unresolved``, ``resolution_guard``,
  ``resolve_z``, ``resolve_share``, ``correlation_bias``, ``unresolved_margin``, ``beta``),

at ε = 0.1, 1, 10 and 10⁴ (δ = 1e-6) on two benchmark tables (wdbc, ctg) and the benchmark's
synthetic table, each case with its own fixed integer seed. Recorded per fit: every returned or
fitted array (covariance, location, components, entry variances, ...), every other returned or
fitted value as its exact ``repr`` (choice, predicted values, allocation, GDP parameters, the
privacy guarantee) and the charges (the guarantee handed to ``charging=`` or the accountant's
spends).

Usage::

    # from a copy of the tree before the change (``git archive 614b791``, this script copied
    # in: ``_utility_common`` puts its checkout's ``src`` first on the path) and from this one
    python /tmp/before/experiments/adaptive_split_check.py record /tmp/before.npz 614b791
    python experiments/adaptive_split_check.py record /tmp/after.npz
    python experiments/adaptive_split_check.py compare /tmp/before.npz /tmp/after.npz

The rule: every array ``np.array_equal`` (NaN equal to NaN) with the same dtype, shape and bytes,
every other value the same ``repr``, the same set of records. ``compare`` writes
``results/adaptive_split_check.md``.

The calls work on both APIs: where ``matrixdp.models.adaptive.AdaptiveOptions`` exists, the
knobs it holds are passed as ``options=AdaptiveOptions(...)``, else as keywords.
"""

from __future__ import annotations

import contextlib
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _utility_common as U  # noqa: E402
from _byte_identity import pair, source_commit  # noqa: E402

EPSILONS = (0.1, 1.0, 10.0, 1e4)
DELTA = 1e-6
TABLES = ("wdbc", "ctg", "synthetic")

COV = {"kind": "covariance"}
CORR = {"kind": "pca", "first_kind": "pca", "ranking": "correlation", "reading": "capped",
        "resolve_z": 3.0}
MARGIN_RULE = {"unresolved_margin": 10.0, "correlation_bias": 0.1}

#: (name, keywords of adaptive_covariance); PCA cases are run at n_components 2 and 5.
DIRECT = [
    ("cov default", {**COV}),
    ("cov branch=moments", {**COV, "branch": "moments"}),
    ("cov branch=coinpress", {**COV, "branch": "coinpress"}),
    ("cov decision=clipping-loss", {**COV, "decision": "clipping-loss"}),
    ("cov select_units=unit-box", {**COV, "select_units": "unit-box"}),
    ("cov first_share=1/16", {**COV, "first_share": 1 / 16}),
    ("cov first_share=0.15", {**COV, "first_share": 0.15}),
    ("cov bias_share=0.06", {**COV, "bias_share": 0.06}),
    ("cov margin=2", {**COV, "margin": 2.0}),
    ("cov mean_margin", {**COV, "mean_margin": True}),
    ("cov tie_ratio=0.5", {**COV, "tie_ratio": 0.5}),
    ("cov decision_z=3", {**COV, "decision_z": 3.0}),
    ("cov far_tail", {**COV, "far_tail": True}),
    ("cov loss_statistic=median", {**COV, "loss_statistic": "median"}),
    ("cov reading=threshold", {**COV, "reading": "threshold"}),
    ("cov refine=True", {**COV, "refine": True}),
    ("cov refine=checked", {**COV, "refine": "checked"}),
    ("cov refine=checked median", {**COV, "refine": "checked", "loss_statistic": "median"}),
    ("cov first_kind=pca", {**COV, "first_kind": "pca"}),
    ("cov resolve_z=3", {**COV, "resolve_z": 3.0}),
    ("cov beta=auto", {**COV, "beta": "auto"}),
    ("cov beta=late", {**COV, "beta": "late"}),
    ("corr guard", {**CORR}),
    ("corr margin rule", {**CORR, **MARGIN_RULE}),
    ("corr correlation_bias=0", {**CORR, "correlation_bias": 0.0}),
    ("corr resolve_z=0 branch=coinpress", {**CORR, "resolve_z": 0.0, "branch": "coinpress"}),
    ("corr refine=True", {**CORR, **MARGIN_RULE, "refine": True}),
    ("corr refine=checked", {**CORR, **MARGIN_RULE, "refine": "checked"}),
]
PCA = [
    ("pca default", {}),
    ("pca projection=none", {"projection": "none"}),
    ("pca projection=original", {"projection": "original"}),
    ("pca bias=model", {"bias": "model"}),
    ("pca bias=bound", {"bias": "bound"}),
    ("pca bias=records", {"bias": "records"}),
    ("pca diagonal_noise", {"diagonal_noise": True}),
    ("pca noise_pairs=normalised", {"noise_pairs": "normalised"}),
    ("pca noise_pairs=unfloored", {"noise_pairs": "unfloored"}),
    ("pca pca_gaps=spiked", {"pca_gaps": "spiked"}),
    ("pca pca_gaps=spiked normalised", {"pca_gaps": "spiked", "noise_pairs": "normalised"}),
    ("pca pca_unresolved=step", {"pca_unresolved": "step"}),
    ("pca resolution_guard", {"resolution_guard": True}),
    ("pca resolve_z=2", {"resolve_z": 2.0}),
    ("pca resolve_share=0.5", {"resolve_share": 0.5}),
    ("pca resolve_share=0.25 z=2", {"resolve_share": 0.25, "resolve_z": 2.0}),
    ("pca first_kind=pca", {"first_kind": "pca"}),
    ("pca first_kind=mixed", {"first_kind": "mixed"}),
    ("pca first_kind=mixed first_mix=0.5", {"first_kind": "mixed", "first_mix": 0.5}),
    ("pca decision=clipping-loss", {"decision": "clipping-loss"}),
    ("pca first_kind=covariance clipping-loss", {"decision": "clipping-loss",
                                                 "first_kind": "covariance"}),
    ("pca branch=coinpress", {"branch": "coinpress"}),
    ("pca reading=capped", {"reading": "capped"}),
]
#: (name, estimator, constructor keywords)
ESTIMATORS = (
    [("DPCovariance()", "cov", {})]
    + [(f"DPCovariance(kind={k}, adaptive_refine={r!r})", "cov",
        {"method": "adaptive", "kind": k, "adaptive_refine": r})
       for k in ("covariance", "correlation") for r in (False, True, "checked")]
    + [("DPCovariance(correlation_rule=guard, adaptive_ranking=mean)", "cov",
        {"method": "adaptive", "kind": "correlation", "correlation_rule": "guard"}),
       ("DPCovariance(adaptive_ranking=mean)", "cov",
        {"method": "adaptive", "adaptive_ranking": "mean"})]
    + [(f"DPPCA(k={q})", "pca", {"n_components": q}) for q in (2, 5)]
    + [(f"DPPCA(k={q}, {p}={v!r})", "pca", {"n_components": q, "method": "adaptive", p: v})
       for q in (2, 5)
       for p, vals in (("adaptive_first", ("covariance", "pca", "mixed")),
                       ("adaptive_resolve_z", (2.0,)),
                       ("adaptive_resolve_share", (0.5,)),
                       ("adaptive_bias", ("model", "bound", "records", "one-record")),
                       ("projection", ("none", "original", "noise")))
       for v in vals]
)


def _adaptive_call(X, lo, hi, **kw):
    from matrixdp.models import adaptive as ad

    opt = getattr(ad, "AdaptiveOptions", None)
    if opt is not None:
        fields = set(opt.__dataclass_fields__)
        moved = {k: kw.pop(k) for k in list(kw) if k in fields}
        if moved:
            kw["options"] = opt(**moved)
    return ad.adaptive_covariance(X, lo, hi, **kw)


def _put(rec: dict, key: str, value) -> None:
    if isinstance(value, np.ndarray):
        rec[key] = value
    else:
        rec[key] = np.array(repr(value))


def _direct(rec, table, name, kw, q, eps, seed):
    charges = []

    def charging(g):
        charges.append(g)
        return contextlib.nullcontext()

    kw = dict(kw)
    if "kind" not in kw:
        kw["kind"] = "pca"
    if kw["kind"] == "pca":
        kw["n_components"] = q
    res = _adaptive_call(table.X, table.lo, table.hi, epsilon=eps, delta=DELTA, rng=seed,
                         charging=charging, **kw)
    key = f"{name}|q={q}|{table.name}|eps={eps:g}"
    for f in ("covariance", "location", "entry_variance", "mean"):
        _put(rec, f"{key}|{f}", getattr(res, f))
    for f in ("privacy", "choice", "allocation", "mus"):
        _put(rec, f"{key}|{f}", getattr(res, f))
    _put(rec, f"{key}|predicted", sorted(res.predicted.items()))
    _put(rec, f"{key}|charges", charges)


def _estimator(rec, table, name, which, kw, eps, seed):
    from matrixdp.accounting import Accountant
    from matrixdp.models import DPPCA, DPCovariance

    acc = Accountant()
    cls = DPCovariance if which == "cov" else DPPCA
    # the knobs as experimental= where the tree has it (task XP), as keywords before
    est = cls(epsilon=eps, delta=DELTA, bounds=(table.lo, table.hi), random_state=seed,
              accountant=acc, **U.experimental_keywords(cls, kw)).fit(table.X)
    key = f"{name}|{table.name}|eps={eps:g}"
    for attr, value in sorted(vars(est).items()):
        if attr.endswith("_") and not attr.startswith("_"):
            _put(rec, f"{key}|{attr}", value)
    _put(rec, f"{key}|charges", list(acc.spends))


def record(path: str, label: str | None = None) -> None:
    import matrixdp

    rec: dict = {}
    t0 = time.time()
    tables = {name: U.load_table(name) for name in TABLES}
    for i, eps in enumerate(EPSILONS):
        for j, table in enumerate(tables.values()):
            for c, (name, kw) in enumerate(DIRECT):
                _direct(rec, table, name, kw, None, eps, 10_000 * i + 100 * j + c)
            for c, (name, kw) in enumerate(PCA):
                for q in (2, 5):
                    _direct(rec, table, name, kw, q, eps, 10_000 * i + 100 * j + 50 + c + q)
            for c, (name, which, kw) in enumerate(ESTIMATORS):
                _estimator(rec, table, name, which, kw, eps, 500_000 + 10_000 * i + 100 * j + c)
        print(f"eps={eps:g} done ({time.time() - t0:.0f} s, {len(rec)} records)", flush=True)
    src = str(Path(matrixdp.__file__).resolve())
    rec["__source__"] = np.array(f"{src} ({label or source_commit(src)})")
    np.savez_compressed(path, **rec)
    print(f"{len(rec)} records written to {path} ({time.time() - t0:.0f} s)")


def compare(before: str, after: str, out: str | None = None) -> int:
    A, B = np.load(before), np.load(after)
    r = pair(A, B)
    missing, extra, common, differ = r["missing"], r["extra"], r["common"], r["differ"]
    n_arrays = sum(1 for k in common if A[k].dtype.kind in "fc")
    n_fits, flagged, n_floats = r["fits"], r["flagged"], r["floats"]
    src_a, src_b = str(A["__source__"]), str(B["__source__"])
    ok = not (missing or extra or differ) and flagged == n_floats
    lines = [
        "# The adaptive refactor changes no released bit (task EX)",
        "",
        "Script: `experiments/adaptive_split_check.py` (its docstring has the cases and the rule).",
        f"Before: `{src_a}`; after: `{src_b}`.",
        "",
        f"- fits compared: {n_fits} ({len(DIRECT)} `adaptive_covariance` cases, "
        f"{len(PCA)} PCA cases at k = 2 and 5, {len(ESTIMATORS)} estimator cases; "
        f"ε = {', '.join(f'{e:g}' for e in EPSILONS)}; tables {', '.join(TABLES)})",
        f"- records compared: {len(common)} ({n_arrays} float arrays, the rest exact `repr`s of "
        "choices, predictions, GDP parameters, guarantees and charges)",
        f"- records only before: {len(missing)}; only after: {len(extra)}",
        f"- records that differ: {len(differ)}",
        f"- negative control: a one-ulp change of one entry is flagged in {flagged} of "
        f"{n_floats} float arrays",
        f"- sha256 of the compared records (keys and bytes, before): `{r['digest']}`",
        "",
        f"**{'PASS' if ok else 'FAIL'}**: "
        + ("every array byte-identical, every value and charge the same."
           if ok else "see the differing records below."),
    ]
    for k in (missing + extra + differ)[:40]:
        lines.append(f"- `{k}`")
    text = "\n".join(lines) + "\n"
    print(text)
    if out:
        Path(out).write_text(text, encoding="utf-8")
    return 0 if ok else 1


if __name__ == "__main__":
    if sys.argv[1:2] == ["record"]:
        record(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None)
    elif sys.argv[1:2] == ["compare"]:
        sys.exit(compare(sys.argv[2], sys.argv[3],
                         sys.argv[4] if len(sys.argv) > 4 else
                         str(U.DEFAULT_OUT / "adaptive_split_check.md")))
    else:
        sys.exit(__doc__)
