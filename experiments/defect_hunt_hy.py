"""Task HY's defect hunt (session 19): each defect's reproduction on the base commit and on this tree,
and the black-box auditor's power on mechanisms broken by a known factor.

Part 1 (probes). Every probe is a short program printing one line of JSON (what it observed). Each
runs in a fresh process twice: with the library of ``--base`` (default 712cfbf, where the hunt
started; its ``src/`` taken with ``git archive`` into a temporary folder) and with this checkout's
``src/``, under a 90 s time limit and a 4 GiB address-space limit (the auditor probe would otherwise
run until the operating system kills it, as it did on the base). Nothing is tuned: the probes are
the reproductions written before each fix.

Part 2 (audit power). ``audit_mechanism`` at its CI setting (2·10⁴ draws per value, confidence
0.95, the default witnesses and statistics) on Gaussian mechanisms (ε = 1, δ = 10⁻⁵, Δ = 1) whose σ is
divided by 2, 2.5 and 3 after calibration, and on a Laplace mechanism whose scale is halved; 20
audits each (seeds 0-19). Reported: how many refute ε = 1, and the min/median/max bound, beside the
true ε of the broken mechanism at the same δ. The documented claim checked (``docs/audit.md`` §6,
"What it shows"): with a perfect statistic on 2·10⁴ draws per side, a Gaussian bug must multiply μ
by between 2 and 2.5 before the bound can pass the claim.

Command (from the repository root)::

    PYTHONPATH=src python experiments/defect_hunt_hy.py

writes ``results/defect_hunt_hy_probes.md`` and ``.csv``. Part 3 (after the power table) recomputes
the figures behind the list's "Looked at and found sound": the analytic and classic Gaussian
calibrations against the exact profile on a grid, the MVG theorem budgets at large ε, the theorem
mechanisms' exact δ, and the auditor's peak memory per statistic value (item 5's constant). The list of defects is
``results/defect_hunt_hy.md`` (by hand; it cites this file for the numbers).
"""

from __future__ import annotations

import argparse
import csv
import json
import tempfile
from pathlib import Path

from _defect_probes import base_tree, markdown_row, run_probe

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "results"

_HEADER = """
import json, resource, warnings
warnings.simplefilter("ignore")
resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
def outcome(f):
    try:
        r = f()
        return {"ok": r if isinstance(r, (int, float, str, bool, list, type(None))) else repr(r)[:80]}
    except BaseException as e:
        return {"error": type(e).__name__ + ": " + str(e)[:90]}
"""

#: (name, what it shows, program). Each program prints one JSON value.
PROBES = [
    ("laplace_scale_underflow",
     "LaplaceMechanism(epsilon=1e300, sensitivity=1e-300): scale, and a release of [0, 1e-300]",
     """
     import numpy as np
     from matrixdp import LaplaceMechanism
     def f():
         m = LaplaceMechanism(epsilon=1e300, sensitivity=1e-300)
         return [m.scale, m.release(np.array([0.0, 1e-300]), rng=1).value.tolist(), m.privacy.epsilon]
     print(json.dumps(outcome(f)))
     """),
    ("gaussian_sigma_underflow",
     "GaussianMechanism(epsilon=1e20, delta=1e-6, sensitivity=5e-324)",
     """
     from matrixdp import GaussianMechanism
     print(json.dumps(outcome(lambda: GaussianMechanism(epsilon=1e20, delta=1e-6, sensitivity=5e-324).sigma)))
     """),
    ("gaussian_sigma_overflow",
     "GaussianMechanism(epsilon=1, delta=1e-6, sensitivity=1e300).release(zeros(2))",
     """
     import numpy as np
     from matrixdp import GaussianMechanism
     print(json.dumps(outcome(lambda: GaussianMechanism(epsilon=1, delta=1e-6, sensitivity=1e300).release(np.zeros(2), rng=0).value.tolist())))
     """),
    ("laplace_scale_inf",
     "laplace_scale(1e-300, 1e300)",
     """
     from matrixdp.calibration import laplace_scale
     print(json.dumps(outcome(lambda: str(laplace_scale(1e-300, 1e300)))))
     """),
    ("gaussian_delta_huge_epsilon",
     "gaussian_delta(1e300, 1, 1) and analytic_gaussian_sigma(1e300, 1e-6, 1)",
     """
     from matrixdp.calibration import gaussian_delta, analytic_gaussian_sigma
     print(json.dumps([outcome(lambda: str(gaussian_delta(1e300, 1.0, 1.0))),
                       outcome(lambda: analytic_gaussian_sigma(1e300, 1e-6, 1.0))]))
     """),
    ("gaussian_profile_tiny_shift",
     "gaussian_delta(0, 1e300, 1) (shift 1e-300) and gaussian_epsilon(1e-6, 1e300, 1)",
     """
     from matrixdp.calibration import gaussian_delta, gaussian_epsilon
     print(json.dumps([outcome(lambda: gaussian_delta(0.0, 1e300, 1.0)),
                       outcome(lambda: gaussian_epsilon(1e-6, 1e300, 1.0))]))
     """),
    ("gaussian_epsilon_beyond_float",
     "gaussian_epsilon(1e-6, 1e-300, 1) (shift 1e300)",
     """
     from matrixdp.calibration import gaussian_epsilon
     print(json.dumps(outcome(lambda: str(gaussian_epsilon(1e-6, 1e-300, 1.0)))))
     """),
    ("mvg_extreme_sensitivity",
     "MVGMechanism(shape=(3, 2), delta=1e-6): sensitivity 1e-300 at epsilon 1e300; 1e300 at 1",
     """
     from matrixdp import MVGMechanism
     print(json.dumps([outcome(lambda: MVGMechanism(shape=(3, 2), epsilon=1e300, delta=1e-6, sensitivity=1e-300).precisions.tolist()),
                       outcome(lambda: MVGMechanism(shape=(3, 2), epsilon=1.0, delta=1e-6, sensitivity=1e300).precisions.tolist())]))
     """),
    ("audit_huge_n_samples",
     "audit_mechanism(Gaussian, n_samples=10**12) (address space limited to 4 GiB in this probe)",
     """
     import numpy as np
     from matrixdp import GaussianMechanism
     from matrixdp.audit import audit_mechanism
     m = GaussianMechanism(epsilon=1.0, delta=1e-5, sensitivity=1.0)
     print(json.dumps(outcome(lambda: audit_mechanism(m, np.zeros(3), np.eye(3)[0], n_samples=10**12, rng=0).epsilon_lower_bound)))
     """),
    ("discrete_gaussian_huge_epsilon",
     "GaussianMechanism(epsilon=1e300, delta=1e-6, sensitivity=1, numerics='exact')",
     """
     from matrixdp import GaussianMechanism
     print(json.dumps(outcome(lambda: GaussianMechanism(epsilon=1e300, delta=1e-6, sensitivity=1.0, numerics="exact").sigma)))
     """),
    ("clone_generator_random_state",
     "DPMean(noise='iid', random_state=default_rng(1)); clone fitted on each half of a 100x2 table: the noise of each",
     """
     import numpy as np
     from sklearn.base import clone
     from matrixdp.models import DPMean
     X = np.random.default_rng(0).uniform(-1, 1, (100, 2))
     est = DPMean(bounds=(-1, 1), noise="iid", random_state=np.random.default_rng(1))
     a, b = clone(est).fit(X[:50]), clone(est).fit(X[50:])
     print(json.dumps([np.round(a.mean_ - X[:50].mean(0), 4).tolist(),
                       np.round(b.mean_ - X[50:].mean(0), 4).tolist()]))
     """),
    ("mechanism_epsilon_set_after_construction",
     "GaussianMechanism(epsilon=1, delta=1e-6, sensitivity=1); m.epsilon = 0.1; release: claim and sigma",
     """
     import numpy as np
     from matrixdp import GaussianMechanism
     def f():
         m = GaussianMechanism(epsilon=1.0, delta=1e-6, sensitivity=1.0)
         m.epsilon = 0.1
         r = m.release(np.zeros(2), rng=0)
         return [r.privacy.epsilon, m.sigma, r.privacy.mu]
     print(json.dumps(outcome(f)))
     """),
]


def audit_power(seeds=range(20), n_samples=20_000) -> list[dict]:
    """Part 2: refutation counts of mechanisms broken by a known factor (see the docstring)."""
    import warnings

    import numpy as np

    from matrixdp.audit import audit_mechanism, default_witnesses
    from matrixdp.calibration.gaussian import gaussian_epsilon
    from matrixdp.mechanisms import GaussianMechanism, LaplaceMechanism

    rows = []
    cases = [("gaussian", f) for f in (2.0, 2.5, 3.0)] + [("laplace", 2.0)]
    for kind, factor in cases:
        if kind == "gaussian":
            mech = GaussianMechanism(epsilon=1.0, delta=1e-5, sensitivity=1.0)
            object.__setattr__(mech, "sigma", mech.sigma / factor)   # the planted bug
            true_eps = gaussian_epsilon(1e-5, mech.sigma, 1.0)
        else:
            mech = LaplaceMechanism(epsilon=1.0, sensitivity=1.0)
            object.__setattr__(mech, "scale", mech.scale / factor)
            true_eps = factor * 1.0
        (a, b), = default_witnesses(mech)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            bounds = [audit_mechanism(mech, a, b, n_samples=n_samples, rng=s).epsilon_lower_bound
                      for s in seeds]
        rows.append({"mechanism": kind, "noise_divided_by": factor,
                     "true_epsilon_at_claimed_delta": round(true_eps, 4),
                     "audits": len(bounds), "refuted": int(sum(x > 1.0 for x in bounds)),
                     "bound_min": round(min(bounds), 4),
                     "bound_median": round(float(np.median(bounds)), 4),
                     "bound_max": round(max(bounds), 4)})
    return rows


def _odd_value_checks() -> list[tuple[str, str]]:
    """What GaussianMechanism and LaplaceMechanism return (or refuse) for odd values."""
    import pickle

    import numpy as np
    import pandas as pd

    from matrixdp.mechanisms import GaussianMechanism, LaplaceMechanism

    ro = np.ones(3)
    ro.flags.writeable = False
    values = {"python float": 3.0, "0-d array": np.array(3.0), "int list": [1, 2],
              "bool": True, "float32": np.ones(3, np.float32), "float16": np.ones(3, np.float16),
              "longdouble": np.ones(2, np.longdouble), "big-endian": np.ones(3, ">f8"),
              "non-contiguous": np.ones((4, 4))[:, 1], "read-only": ro,
              "np.matrix": np.matrix([[1.0, 2.0]]), "pandas Series": pd.Series([1.0, 2.0]),
              "empty": np.zeros(0), "NaN": np.array([1.0, np.nan]), "inf": np.array([np.inf]),
              "complex": np.array([1 + 1j]), "string": "1"}
    out = []
    for name, mech in (("gaussian", GaussianMechanism(epsilon=1.0, delta=1e-6, sensitivity=1.0)),
                       ("laplace", LaplaceMechanism(epsilon=1.0, sensitivity=1.0))):
        seen = []
        for label, v in values.items():
            try:
                r = mech.release(v, rng=0).value
                seen.append(f"{label}: {type(r).__name__} {getattr(r, 'dtype', '')}".strip())
            except Exception as exc:  # noqa: BLE001 - the refusal's type is the result
                seen.append(f"{label}: {type(exc).__name__}")
        rel = mech.release(np.ones(3))
        blob = pickle.dumps(rel) + pickle.dumps(mech)
        gen = any(k in blob for k in (b"Generator", b"AESCounter", b"PCG64", b"SeedSequence"))
        out.append((f"{name}: release of odd values", "; ".join(seen)))
        out.append((f"{name}: generator state in the pickles of the mechanism and a release",
                    str(gen)))
    return out


def _pipeline_checks() -> list[tuple[str, str]]:
    """Charges of a two-step Pipeline sharing one Accountant, alone and under GridSearchCV."""
    import warnings

    import numpy as np
    from sklearn.model_selection import GridSearchCV
    from sklearn.pipeline import make_pipeline

    from matrixdp.accounting import Accountant
    from matrixdp.models import DPLinearRegression, DPStandardScaler

    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (200, 3))
    y = np.clip(X @ [1.0, 2.0, 3.0], -6, 6)
    acc = Accountant(epsilon=100.0, delta=1e-3)
    pipe = make_pipeline(
        DPStandardScaler(bounds=(-1, 1), accountant=acc, random_state=np.random.default_rng(0)),
        DPLinearRegression(bounds_X=(-5, 5), bounds_y=(-6, 6), accountant=acc,
                           random_state=np.random.default_rng(1)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pipe.fit(X, y)
        one = len(acc.spends)
        GridSearchCV(pipe, {"dplinearregression__epsilon": [0.5, 1.0]}, cv=2).fit(X, y)
    return [("Pipeline(DPStandardScaler, DPLinearRegression), one Accountant",
             f"entries per fit: {one}; GridSearchCV 2 candidates x 2 folds + refit: "
             f"{len(acc.spends) - one} more")]


def sound_checks() -> list[tuple[str, str]]:
    """Part 3: the figures behind "Looked at and found sound" and item 5's memory constant."""
    import itertools
    import math
    import resource

    import numpy as np

    import matrixdp.calibration.mvg_theorems as thm
    from matrixdp.audit import audit_mechanism
    from matrixdp.calibration import (analytic_gaussian_sigma, classic_gaussian_sigma,
                                      gaussian_delta)
    from matrixdp.calibration.gaussian import gaussian_log_delta_for_shift
    from matrixdp.mechanisms import GaussianMechanism, MVGMechanism

    out = []
    eps = np.logspace(-4, 3, 60)
    ds = np.logspace(-15, -0.01, 40)
    S = np.array([[analytic_gaussian_sigma(e, d, 1.0) for d in ds] for e in eps])
    mono = bool((np.diff(S, axis=0) <= 0).all() and (np.diff(S, axis=1) <= 0).all())
    bad = sum(gaussian_delta(e, S[i, j], 1.0) > d for i, e in enumerate(eps)
              for j, d in enumerate(ds))
    out.append(("analytic sigma, 60 eps (1e-4..1e3) x 40 delta (1e-15..0.98)",
                f"monotone decreasing in both: {mono}; exact delta above the claim: {bad}"))
    bad = sum(gaussian_delta(e, classic_gaussian_sigma(e, d, 1.0), 1.0) > d
              for e in np.linspace(0.01, 0.999, 50) for d in ds)
    out.append(("classic sigma, 50 eps (0.01..0.999) x the same delta", f"violations: {bad}"))
    worst = 0.0
    for e, d, m, n, ratio in itertools.product([300, 1e3, 1e4, 1e6, 1e8],
                                               [1e-12, 1e-6, 0.1, 0.5, 0.9, 0.99], [1, 2, 5, 30],
                                               [1, 2, 50], [0.5, 1, 1000]):
        mu = math.sqrt(thm.theorem2_budget(e, d, (m, n), 1.0, ratio))
        worst = max(worst, math.exp(gaussian_log_delta_for_shift(e, mu)) / d)
    out.append(("MVG theorem 2 budget s2*sqrt(B2), eps 300..1e8",
                f"worst delta_exact / delta: {worst:.3g}"))
    mu = thm.theorem2_shift_bound(100.0, 0.5, (1, 1))
    out.append(("theorem2_shift_bound at (1,1), eps 100, delta 0.5",
                f"mu {mu:.4g}, delta_exact {gaussian_delta(100.0, 1.0, mu):.4g}"))
    viol = 0
    for cal in ("theorem2", "theorem3"):
        for e, d, (shape, g) in itertools.product(
                [0.1, 1, 10, 100, 1e3, 1e4, 1e6], [1e-12, 1e-6, 0.1, 0.5, 0.9],
                [((1, 1), 0.5), ((2, 2), 0.5), ((2, 2), 100.0), ((3, 2), 0.5)]):
            if cal == "theorem3" and shape[0] != shape[1]:
                continue
            mech = MVGMechanism(shape=shape, epsilon=e, delta=d, sensitivity=1.0, gamma=g,
                                calibration=cal)
            viol += gaussian_delta(e, 1.0, mech.mahalanobis_sensitivity) > d
    out.append(("MVGMechanism theorem2/3, eps 0.1..1e6, delta 1e-12..0.9, 4 shapes/gammas",
                f"delta_exact above the claim: {viol}"))
    out += _odd_value_checks() + _pipeline_checks()
    mech = GaussianMechanism(epsilon=1.0, delta=1e-5, sensitivity=1.0)
    audit_mechanism(mech, np.zeros(1), np.ones(1), n_samples=100, rng=0)
    r0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    n = 4_000_000
    res = audit_mechanism(mech, np.zeros(1), np.ones(1), n_samples=n, rng=0)
    r1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    k = res.n_tests // 2
    out.append((f"audit_mechanism peak memory, {n} draws per value, {k} statistics",
                f"+{(r1 - r0) / 1024:.0f} MB, {(r1 - r0) * 1024 / (2 * n * k):.1f} bytes per value"))
    return out


def _run(program: str, src: Path) -> str:
    return run_probe(program, src, 90, header=_HEADER, style="text")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="712cfbf")
    args = parser.parse_args(argv)
    here = ROOT / "src"
    probe_rows = []
    with tempfile.TemporaryDirectory() as tmp:
        base_src = base_tree(args.base, Path(tmp))
        for name, what, program in PROBES:
            probe_rows.append({"probe": name, "what": what, "base": _run(program, base_src),
                               "this_tree": _run(program, here)})
    power = audit_power()
    sound = sound_checks()
    OUT.mkdir(exist_ok=True)
    with open(OUT / "defect_hunt_hy_probes.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, ["part", "probe", "what", "base", "this_tree"])
        w.writeheader()
        for r in probe_rows:
            w.writerow({"part": "probe", **r})
        for r in power:
            w.writerow({"part": "audit-power", "probe": f"{r['mechanism']} /{r['noise_divided_by']}",
                        "what": json.dumps(r), "base": "", "this_tree": ""})
    lines = ["# Task HY: reproductions on the base and on this tree; the auditor's power",
             "", f"Written by `experiments/defect_hunt_hy.py` (base `{args.base}`). The list of "
             "defects, fixes and tests: `results/defect_hunt_hy.md`.", "",
             "## Probes (each in a fresh process, 90 s, 4 GiB address space)", "",
             "| probe | what | base | this tree |", "|---|---|---|---|"]
    for r in probe_rows:
        cells = [r["probe"], r["what"], r["base"], r["this_tree"]]
        lines.append(markdown_row(cells, "/"))
    lines += ["", "## Black-box auditor on mechanisms broken by a known factor", "",
              "`audit_mechanism` at 2·10⁴ draws per value, confidence 0.95, default witnesses and "
              "statistics; claimed ε = 1 (Gaussian δ = 10⁻⁵); seeds 0-19.", "",
              "| mechanism | noise divided by | true ε at the claimed δ | refuted (of 20) | "
              "bound min | median | max |", "|---|---|---|---|---|---|---|"]
    for r in power:
        lines.append(f"| {r['mechanism']} | {r['noise_divided_by']:g} | "
                     f"{r['true_epsilon_at_claimed_delta']:g} | {r['refuted']} | {r['bound_min']:g}"
                     f" | {r['bound_median']:g} | {r['bound_max']:g} |")
    lines += ["", "## Checks behind \"found sound\" (and item 5's memory constant)", "",
              "| check | result |", "|---|---|"]
    lines += [f"| {a} | {b} |" for a, b in sound]
    (OUT / "defect_hunt_hy_probes.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
