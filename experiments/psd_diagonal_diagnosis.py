"""Task PV (session 24, issue #24): why ``project_psd_diagonal``'s dual Newton method stalled on widely
different scales, and what the fix changes. No private data; seeded.

Inputs: task OC's probe (``experiments/outside_audit_oc_psd_probe.py``: 300 draws, seed 0, public
half-widths h = (1500, 11, 2e5, 1e4, 1, 1500), noise ``s (E + Eᵀ)/2 ∘ h hᵀ``, box [0, h²]) and a
wider random set (3 × 1,000 draws, seeds 2, 5, 7: d in 2..15, half-width spread 10^U(3, 7), four kinds
of box). All three seeds (and seed 6) were run while choosing between variants of the fix (the
line search's dual floor, the ridge), so none of them is held out: they show the fix on the
draws it was developed on, not a check. Seed 11 (1,000 more draws, same generator) was added to
this script and committed before it was first run, after the fix was final: the check, with its
rule written here before the run: the branch stops at ``max_iter`` on none of its draws.

* **Trace** of the four probe draws where main's solver stopped at ``max_iter`` (12, 31, 253, 294),
  main (``git show c9ac1aa:src/matrixdp/feasible.py``) and this branch: per draw the iterations,
  the row whose scaled residual |F_i| / max(tol s_i, 64 eps ‖C + Diag y‖) stays largest (its
  bound), the share of iterations whose line search took the full step, failed (fallback to the
  projected-gradient step), and the median of |predicted dual decrease| / (rounding floor of the
  dual's value, eps (‖X‖² + Σ|b_i y_i|)) over the last 100 iterations, and the number of times a
  row switched between the active and the free set. The solver is traced by inserting recording
  lines into a copy of its source (the library is not edited); the instrumented copy returns the
  same iterates.
* **Counts and time**: non-converged draws and wall time (``project_psd_diagonal(C, 0, h², max_iter=500)``),
  main against branch, same process, on both sets.

Command (repository root)::

    PYTHONPATH=src python experiments/psd_diagonal_diagnosis.py

writes ``results/psd_diagonal_diagnosis.md``.
"""

from __future__ import annotations

import subprocess
import sys
import time
import types
import warnings
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
MAIN_COMMIT = "c9ac1aa"
H = np.array([1500.0, 11.0, 2e5, 1e4, 1.0, 1500.0])
STALLED = (12, 31, 253, 294)

HOOK_TOP = "        if np.all(np.abs(res) <= np.maximum(atol, floor)) and np.all(viol <= np.maximum(atol, floor)):\n"
HOOK_STEP = "        y, x, lam, vec = y_try, x_try, lam_try, vec_try\n        g = extract(x).copy()"
REC_TOP = ("        TRACE.append({'ratio': np.abs(res) / np.maximum(atol, floor), 'y': y.copy(), "
           "'g': g.copy(), 'x2': float(np.sum(x * x))})\n")
REC_STEP = ("        _b = np.where((y > 0) | ((y == 0) & (delta > 0)), np.where(np.isfinite(lo), lo, 0.0), "
            "np.where(np.isfinite(hi), hi, 0.0))\n"
            "        TRACE[-1].update(step=step if accepted else None, free=free.copy(), "
            "pred=abs(float(np.sum((g - _b) * delta))), floor_f=np.finfo(float).eps * "
            "(TRACE[-1]['x2'] + float(np.sum(np.abs(np.where(np.isfinite(lo), lo, 0.0) * y))) + "
            "float(np.sum(np.abs(np.where(np.isfinite(hi), hi, 0.0) * y)))))\n")


def _module(source: str, name: str, trace: bool):
    """The feasible module from ``source`` (optionally with the trace hooks in _dual_newton)."""
    if trace:
        head, sep, tail = source.partition("def _dual_newton(")
        body, sep2, rest = tail.partition("\ndef _box_projected_newton(")
        assert HOOK_TOP in body and HOOK_STEP in body
        body = body.replace(HOOK_TOP, REC_TOP + HOOK_TOP, 1).replace(HOOK_STEP, REC_STEP + HOOK_STEP, 1)
        source = head + sep + body + sep2 + rest
    mod = types.ModuleType(f"matrixdp.{name}")
    mod.__package__ = "matrixdp"
    mod.TRACE = []
    exec(compile(source, f"<{name}>", "exec"), mod.__dict__)
    return mod


def _sources():
    main = subprocess.run(["git", "show", f"{MAIN_COMMIT}:src/matrixdp/feasible.py"], cwd=REPO,
                          check=True, capture_output=True, text=True).stdout
    branch = (REPO / "src" / "matrixdp" / "feasible.py").read_text()
    return {"main": main, "branch": branch}


def probe():
    rng = np.random.default_rng(0)
    out = []
    for _ in range(300):
        s = rng.uniform(0.05, 3.0)
        e = rng.standard_normal((H.size, H.size))
        out.append((np.outer(H, H) * (e + e.T) / 2 * s, np.zeros(H.size), H ** 2))
    return out


def wide(n=1000, seed=2):
    rng = np.random.default_rng(seed)
    out = []
    for t in range(n):
        d = int(rng.integers(2, 16))
        h = np.exp(rng.uniform(0, np.log(10 ** rng.uniform(3, 7)), d))
        rng.shuffle(h)
        s = rng.uniform(0.05, 3.0)
        kind = int(rng.integers(0, 4))
        e = rng.standard_normal((d, d))
        base = 0.0
        if kind == 1:
            a = rng.standard_normal((d, 2 * d))
            c = a @ a.T / (2 * d)
            sd = np.sqrt(np.diag(c))
            base = c / np.outer(sd, sd) * np.outer(h, h) * 0.8
        C = base + np.outer(h, h) * (e + e.T) / 2 * s
        hi = h ** 2
        lo = {2: hi * rng.uniform(0, 0.5, d), 3: hi.copy()}.get(kind, np.zeros(d))
        out.append((C, lo, hi))
    return out


def trace_lines(mods):
    draws = probe()
    L = ["| solver | draw | converged | iterations | stuck row (its bound h_i²) | its scaled residual "
         "at the end | full steps | failed line searches | median pred. decrease / dual's rounding "
         "(last 100) | active/free switches |", "|---|---|---|---|---|---|---|---|---|---|"]
    for label, mod in mods.items():
        for t in STALLED:
            c, lo, hi = draws[t]
            mod.TRACE.clear()
            res = mod._dual_newton((c + c.T) / 2, lo, hi, diagonal=True, tol=1e-12, max_iter=500)
            tr = mod.TRACE
            steps = [e.get("step") for e in tr if "pred" in e]
            worst = int(np.argmax(tr[-1]["ratio"]))
            full = sum(1 for s in steps if s == 1.0)
            failed = sum(1 for s in steps if s is None)
            last = [e["pred"] / max(e["floor_f"], 1e-300) for e in tr[-100:] if "pred" in e]
            frees = [e["free"] for e in tr if "free" in e]
            switches = int(sum(np.sum(a != b) for a, b in zip(frees, frees[1:])))
            L.append(f"| {label} | {t} | {res.converged} | {res.iterations} | {worst} ({hi[worst]:.3g}) "
                     f"| {tr[-1]['ratio'][worst]:.3g} | {full}/{len(steps)} | {failed}/{len(steps)} "
                     f"| {np.median(last) if last else float('nan'):.3g} | {switches} |")
    return L


def count_lines(mods):
    L = ["| set | solver | draws | not converged | wall time (s) |", "|---|---|---|---|---|"]
    for name, cases in (("probe (h = 1 … 2e5)", probe()),
                        ("random, spread 10^3 … 10^7, seed 2", wide(1000, 2)),
                        ("random, spread 10^3 … 10^7, seed 5", wide(1000, 5)),
                        ("random, spread 10^3 … 10^7, seed 7", wide(1000, 7)),
                        ("random, spread 10^3 … 10^7, seed 11 (check)", wide(1000, 11))):
        for label, mod in mods.items():
            t0 = time.perf_counter()
            bad = 0
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                for c, lo, hi in cases:
                    res = mod.project_psd_diagonal(c, lo, hi, return_info=True, max_iter=500)
                    bad += int(not res.converged)
            L.append(f"| {name} | {label} | {len(cases)} | {bad} | {time.perf_counter() - t0:.1f} |")
    return L


def main() -> int:
    src = _sources()
    traced = {k: _module(v, f"feasible_{k}_traced", True) for k, v in src.items()}
    plain = {k: _module(v, f"feasible_{k}", False) for k, v in src.items()}
    L = ["# project_psd_diagonal on widely different scales: diagnosis and fix (task PV)", "",
         "Generated by `experiments/psd_diagonal_diagnosis.py` (do not edit by hand). main = "
         f"{MAIN_COMMIT}; branch = this file's commit. Task OC's probe draws where main stopped at "
         "max_iter (half-widths h = (1500, 11, 2e5, 1e4, 1, 1500), box [0, h²], max_iter = 500).", "",
         "## Trace of the four stalled draws", ""]
    L += trace_lines(traced)
    L += ["", "## Non-converged draws and time", ""]
    L += count_lines(plain)
    path = REPO / "results" / "psd_diagonal_diagnosis.md"
    path.write_text("\n".join(L) + "\n")
    print("\n".join(L))
    return 0


if __name__ == "__main__":
    sys.exit(main())
