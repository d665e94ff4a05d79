"""Our SDMetrics-style table scores against SDMetrics itself (issue #26).

``matrixdp.synth.evaluate.column_shapes`` and ``column_pair_trends`` implement SDMetrics'
ColumnShapes (KSComplement for numeric columns, TVComplement for categorical ones) and
ColumnPairTrends (CorrelationSimilarity with Pearson's coefficient for two numeric columns,
ContingencySimilarity otherwise) without the dependency. This script computes both on the same
real / synthetic tables and reports how far apart they are, column by column and pair by pair:

* ``same bins``: SDMetrics' metrics on the numeric columns pre-binned on the PUBLIC bins our
  implementation uses for mixed pairs (10 equal-width bins of the public bounds), so any
  difference is a difference of formula;
* ``sdmetrics' own bins``: SDMetrics' ContingencySimilarity with its own discretisation of the
  numeric column (``num_discrete_bins=10`` over the data's range), as its QualityReport scores a
  mixed pair: the difference is the binning alone;
* the two property scores (means over columns / pairs) of SDMetrics' ``QualityReport`` beside ours.

Scoring reads the real training table (an evaluation, not a release). Peers' metrics are a
benchmark-only dependency: run in a separate venv with ``sdmetrics`` installed (the committed run:
sdmetrics 0.32.0, printed in the results file)::

    python -m venv /tmp/sdm && /tmp/sdm/bin/pip install sdmetrics==0.32.0 statsmodels \\
        randomgen mpmath clarabel tqdm pooch jinja2
    cd experiments && PYTHONPATH=../src /tmp/sdm/bin/python sdmetrics_check.py

Output: ``results/sdmetrics_check.{md,csv}``.
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _synth_tables import load_table  # noqa: E402

RESULTS = Path(__file__).resolve().parents[1] / "results"
STEM = "sdmetrics_check"
TABLES = ("adult", "ctg", "lending_club")
GENERATORS = ("DPCopula", "DPTreeCopula")
EPSILON, DELTA, SEED, BINS = 1.0, 1e-9, 0, 10


def _synthetic(name, table):
    from matrixdp.synth import DPCopula, DPTreeCopula

    cls = {"DPCopula": DPCopula, "DPTreeCopula": DPTreeCopula}[name]
    model = cls(schema=table.schema, epsilon=EPSILON, delta=DELTA, classes=[0, 1],
                random_state=SEED).fit(table.train, table.y_train)
    X, _ = model.sample(len(table.train), random_state=SEED + 10_000)
    return X


def _public_bins(frame, schema):
    """Numeric columns as the labels of 10 equal-width PUBLIC bins (strings), categories as text."""
    import pandas as pd

    out = pd.DataFrame(index=frame.index)
    for c, (lo, hi) in schema.bounds.items():
        v = np.clip(frame[c].to_numpy(dtype=float), lo, hi)
        out[c] = np.minimum(((v - lo) / (hi - lo) * BINS).astype(int), BINS - 1).astype(str)
    for c in schema.categories:
        out[c] = frame[c].astype(str).to_numpy()
    return out


def compare(table, gen):
    import pandas as pd
    from sdmetrics.column_pairs import ContingencySimilarity, CorrelationSimilarity
    from sdmetrics.reports.single_table import QualityReport
    from sdmetrics.single_column import KSComplement, TVComplement

    from matrixdp.synth.evaluate import column_pair_trends, column_shapes

    schema = table.schema
    real = table.train.reset_index(drop=True)
    syn = _synthetic(gen, table).reset_index(drop=True)
    for c in schema.bounds:  # the evaluation clips into the public bounds, as ours does
        lo, hi = schema.bounds[c]
        real[c] = np.clip(real[c].astype(float), lo, hi)
        syn[c] = np.clip(syn[c].astype(float), lo, hi)
    for c in schema.categories:
        real[c] = real[c].astype(str)
        syn[c] = syn[c].astype(str)
    rows = []
    ours_shape = column_shapes(real, syn, schema)
    for c, v in ours_shape.items():
        metric = KSComplement if c in schema.bounds else TVComplement
        ref = float(metric.compute(real[c], syn[c]))
        rows.append(dict(kind="shape", column=c, ours=v, sdmetrics=ref, sdmetrics_own_bins=ref))
    ours_pairs = column_pair_trends(real, syn, schema, bins=BINS)
    rb, sb = _public_bins(real, schema), _public_bins(syn, schema)
    for (a, b), v in ours_pairs.items():
        if a in schema.bounds and b in schema.bounds:
            ref = float(CorrelationSimilarity.compute(real[[a, b]], syn[[a, b]],
                                                      coefficient="Pearson"))
            own = ref
        else:
            ref = float(ContingencySimilarity.compute(rb[[a, b]], sb[[a, b]]))
            numeric = [c for c in (a, b) if c in schema.bounds]
            own = float(ContingencySimilarity.compute(real[[a, b]], syn[[a, b]],
                                                      continuous_column_names=numeric or None,
                                                      num_discrete_bins=BINS))
        rows.append(dict(kind="pair", column=f"{a} x {b}", ours=v, sdmetrics=ref,
                         sdmetrics_own_bins=own))
    meta = {"columns": {c: {"sdtype": "numerical"} for c in schema.bounds}}
    meta["columns"].update({c: {"sdtype": "categorical"} for c in schema.categories})
    report = QualityReport()
    report.generate(real[list(meta["columns"])], syn[list(meta["columns"])], meta, verbose=False)
    props = report.get_properties().set_index("Property")["Score"]
    details = report.get_details("Column Pair Trends")
    counted = details[details["Meets Threshold?"].astype("boolean").fillna(False)]
    counted_pairs = {(a, b) for a, b in zip(counted["Column 1"], counted["Column 2"])}
    ours_counted = [v for (a, b), v in ours_pairs.items()
                    if (a, b) in counted_pairs or (b, a) in counted_pairs]
    summary = dict(ours_shape=float(np.mean(list(ours_shape.values()))),
                   ours_pairs=float(np.mean(list(ours_pairs.values()))),
                   report_shape=float(props["Column Shapes"]),
                   report_pairs=float(props["Column Pair Trends"]),
                   n_counted=len(ours_counted), n_pairs=len(ours_pairs),
                   ours_counted=float(np.mean(ours_counted)) if ours_counted else float("nan"))
    for r in rows:
        r.update(table=table.name, generator=gen)
    return rows, summary


def main() -> None:
    import sdmetrics

    all_rows, summaries = [], []
    for name in TABLES:
        table = load_table(name)
        for gen in GENERATORS:
            rows, summary = compare(table, gen)
            all_rows += rows
            summaries.append(dict(table=name, generator=gen, **summary))
            print(name, gen, summary, flush=True)
    RESULTS.mkdir(exist_ok=True)
    fields = ["table", "generator", "kind", "column", "ours", "sdmetrics", "sdmetrics_own_bins"]
    with open(RESULTS / f"{STEM}.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=fields)
        w.writeheader()
        w.writerows({k: r[k] for k in fields} for r in all_rows)
    md = ["# matrixdp's SDMetrics-style scores against SDMetrics " + sdmetrics.__version__, "",
          "Produced by `experiments/sdmetrics_check.py` (command in its docstring; a separate venv "
          f"with sdmetrics {sdmetrics.__version__}). DPCopula and DPTreeCopula, ε = {EPSILON:g}, "
          f"δ = {DELTA:g}, seed {SEED}, sampled as many records as the training split; scored "
          "against the real training split. `same bins`: SDMetrics' metric on the numeric columns "
          f"binned on the same {BINS} PUBLIC equal-width bins as ours (a difference is a "
          "difference of formula); `own bins`: SDMetrics' ContingencySimilarity discretising "
          "the numeric column itself (over the data's range), as its QualityReport does.", "",
          "| table | generator | kind | items | max abs diff (same bins) | max abs diff (own bins) "
          "| mean ours | mean SDMetrics (own bins) |", "|---|---|---|---|---|---|---|---|"]
    for name in TABLES:
        for gen in GENERATORS:
            for kind in ("shape", "pair"):
                rs = [r for r in all_rows if r["table"] == name and r["generator"] == gen
                      and r["kind"] == kind]
                d_same = max(abs(r["ours"] - r["sdmetrics"]) for r in rs)
                d_own = max(abs(r["ours"] - r["sdmetrics_own_bins"]) for r in rs)
                md.append(f"| {name} | {gen} | {kind} | {len(rs)} | {d_same:.2e} | {d_own:.3f} | "
                          f"{np.mean([r['ours'] for r in rs]):.4f} | "
                          f"{np.mean([r['sdmetrics_own_bins'] for r in rs]):.4f} |")
    md += ["", "SDMetrics' `QualityReport` property scores beside ours. Column Pair Trends: SDMetrics "
           f"{sdmetrics.__version__}'s report averages only the pairs whose REAL association is "
           "strong (|Pearson| > 0.5 for two numeric columns, Cramér's V > 0.3 otherwise: "
           "`sdmetrics.reports.utils.DEFAULT_REAL_*_THRESHOLD`), while `column_pair_trends` "
           "scores every pair; `ours, counted pairs` is the mean of our per-pair scores over the "
           "pairs the report counts.", "",
           "| table | generator | Column Shapes: ours | SDMetrics | Column Pair Trends: ours, all "
           "pairs | ours, counted pairs | SDMetrics report | pairs counted |",
           "|---|---|---|---|---|---|---|---|"]
    md += [f"| {s['table']} | {s['generator']} | {s['ours_shape']:.4f} | {s['report_shape']:.4f} | "
           f"{s['ours_pairs']:.4f} | {s['ours_counted']:.4f} | {s['report_pairs']:.4f} | "
           f"{s['n_counted']} of {s['n_pairs']} |" for s in summaries]
    (RESULTS / f"{STEM}.md").write_text("\n".join(md) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    main()
