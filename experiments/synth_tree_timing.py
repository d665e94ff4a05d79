"""CPU time of fit + sample for DPTreeCopula (new and previous defaults) and DPCopula (issue #26).

The shared 2-core machine's load makes wall-clock seconds meaningless (``synth_tree_benchmark.md``
reports them anyway); this script reports the process CPU time (``time.process_time``, one BLAS
thread) of ``fit`` on each benchmark table's training split at ε = 1 and ``sample`` of as many
records, median of ``--reps`` runs. Writes ``results/synth_tree_timing.{csv,md}``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _synth_tables import REPO_ROOT, load_table  # noqa: E402
from synth_tree_benchmark import COP, NEW, OLD, _methods  # noqa: E402


def main(argv=None) -> int:
    import pandas as pd

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", nargs="+", default=["adult", "ctg", "lending_club"])
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args(argv)
    rows = []
    for name in args.tables:
        table = load_table(name)
        for method, (cls, kw) in _methods().items():
            for rep in range(args.reps):
                t0 = time.process_time()
                model = cls(schema=table.schema, epsilon=1.0, delta=1e-9, classes=[0, 1],
                            random_state=rep, **kw).fit(table.train, table.y_train)
                t1 = time.process_time()
                model.sample(len(table.train), random_state=rep)
                t2 = time.process_time()
                rows.append(dict(table=name, method=method, rep=rep, fit_cpu_s=t1 - t0,
                                 sample_cpu_s=t2 - t1, total_cpu_s=t2 - t0,
                                 n_train=len(table.train)))
                print(rows[-1], flush=True)
    df = pd.DataFrame(rows)
    out = REPO_ROOT / "results" / "synth_tree_timing"
    df.to_csv(f"{out}.csv", index=False)
    med = df.groupby(["table", "method"], sort=False)[["fit_cpu_s", "sample_cpu_s", "total_cpu_s"]].median()
    lines = ["# CPU time of fit + sample (issue #26)", "",
             f"Produced by `python experiments/synth_tree_timing.py` (median of {args.reps} runs, "
             "ε = 1, δ = 1e-9, process CPU seconds with one BLAS thread; the training split is "
             "fitted and as many records sampled). Rows: "
             f"{COP}, {OLD}, {NEW} (new defaults).", "",
             "| table | method | fit (CPU s) | sample (CPU s) | total (CPU s) |", "|---|---|---|---|---|"]
    for (t, m), r in med.iterrows():
        lines.append(f"| {t} | {m} | {r.fit_cpu_s:.3f} | {r.sample_cpu_s:.3f} | {r.total_cpu_s:.3f} |")
    Path(f"{out}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
