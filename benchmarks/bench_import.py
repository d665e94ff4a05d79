"""Benchmark: the time of ``import matrixdp`` in a fresh interpreter, and what it imports.

Each repeat starts a new Python process that times ``import matrixdp`` with ``perf_counter``
(the interpreter's own start-up excluded); the median and best are reported next to a bare
``import numpy`` measured the same way (the floor: matrixdp needs numpy). One extra run with
``python -X importtime`` lists the heaviest imports and says whether scipy / pandas / sklearn
are loaded at all.

Run: ``python benchmarks/bench_import.py [--repeats 7]``. Target: ``import matrixdp`` <= 0.08 s of CPU.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import write_section  # noqa: E402

SRC = str(Path(__file__).resolve().parents[1] / "src")
TIMER = ("import time; t = time.perf_counter(); c = time.process_time(); import {mod}; "
         "print(time.perf_counter() - t, time.process_time() - c)")


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = SRC + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def timed(module: str, repeats: int) -> list:
    out = []
    for _ in range(repeats):
        res = subprocess.run([sys.executable, "-c", TIMER.format(mod=module)], env=_env(),
                             capture_output=True, text=True, check=True)
        wall, cpu = (float(v) for v in res.stdout.split())
        out.append((wall, cpu))
    return out


def heaviest(n: int = 8):
    res = subprocess.run([sys.executable, "-X", "importtime", "-c", "import matrixdp"], env=_env(),
                         capture_output=True, text=True, check=True)
    rows = []
    for line in res.stderr.splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|(\s*)(\S+)", line)
        if m:
            rows.append((int(m.group(2)), len(m.group(3)), m.group(4)))
    loaded = {name for _, _, name in rows}
    top = sorted((r for r in rows if r[1] <= 3), reverse=True)[:n]
    return top, {pkg: any(x == pkg or x.startswith(pkg + ".") for x in loaded)
                 for pkg in ("scipy", "pandas", "sklearn", "matplotlib")}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    numpy_runs = timed("numpy", args.repeats)
    ours_runs = timed("matrixdp", args.repeats)
    # first use: the lazily loaded mechanisms (numpy, the mechanisms subpackage) on top
    first_runs = timed("matrixdp; matrixdp.GaussianMechanism", args.repeats)
    top, loaded = heaviest()

    def stats(runs, k):
        vals = [r[k] for r in runs]
        return statistics.median(vals), min(vals)

    med, best = stats(ours_runs, 0)
    cmed, cbest = stats(ours_runs, 1)
    nmed, nbest = stats(numpy_runs, 0)
    ncmed, ncbest = stats(numpy_runs, 1)
    fmed, fbest = stats(first_runs, 0)
    fcmed, fcbest = stats(first_runs, 1)
    print(f"import matrixdp: wall median {med:.3f} s (best {best:.3f}), CPU median {cmed:.3f} s; "
          f"import numpy: wall median {nmed:.3f} s, CPU median {ncmed:.3f} s; loaded: {loaded}")
    body = [f"Fresh interpreter per run, {args.repeats} runs; produced by `benchmarks/bench_import.py`. "
            "Wall = `perf_counter`, CPU = `process_time` of the importing process (less sensitive "
            "to other jobs on a shared machine).",
            "", "| import | wall median (s) | wall best (s) | CPU median (s) | CPU best (s) |",
            "|---|---|---|---|---|",
            f"| `import numpy` (floor) | {nmed:.3f} | {nbest:.3f} | {ncmed:.3f} | {ncbest:.3f} |",
            f"| `import matrixdp` | {med:.3f} | {best:.3f} | {cmed:.3f} | {cbest:.3f} |",
            f"| `import matrixdp; matrixdp.GaussianMechanism` (first use) | {fmed:.3f} | {fbest:.3f} | "
            f"{fcmed:.3f} | {fcbest:.3f} |", "",
            "`import matrixdp` loads only the package's `__init__`; the classes and subpackages load "
            "on first access (PEP 562 module `__getattr__`), so the first use pays for numpy and the "
            "mechanisms subpackage (third row).", "",
            "Loaded by `import matrixdp`: " + ", ".join(f"{k} {'yes' if v else 'no'}"
                                                      for k, v in loaded.items()) + ".", "",
            "Heaviest imports (`python -X importtime`, cumulative µs, top levels):", "",
            "| module | cumulative (µs) |", "|---|---|"]
    body += [f"| `{name}` | {us} |" for us, _, name in top]
    body += ["", f"Target (issue #27): `import matrixdp` CPU median <= 0.08 s: "
             f"{'met' if cmed <= 0.08 else 'NOT met'} ({cmed:.3f} s); with the first use of a mechanism "
             f"{fcmed:.3f} s, of which matrixdp's share beyond the bare numpy import is "
             f"{fcmed - ncmed:.3f} s CPU. Older share measure (import alone beyond numpy): "
             f"{med - nmed:.3f} s wall, {cmed - ncmed:.3f} s CPU (medians). The machine is shared, "
             "so absolute times vary between runs."]
    if not args.no_write:
        write_section("import matrixdp", "\n".join(body))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
