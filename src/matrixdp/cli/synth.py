"""``matrixdp synth``: differentially private synthetic tables from a CSV file.

``--model copula`` (the default): :class:`matrixdp.synth.DPCopula` on the columns of a PUBLIC
bounds file (the format of ``matrixdp release``: ranges, categories, ``integer = true``,
``dp = true``, and public point masses ``atoms = [0]``, ``docs/copula.md``); the output has the input's columns, units and categories. ``--model
tree-copula``: :class:`matrixdp.synth.DPTreeCopula` on the same bounds file and output (a copula
for the numeric columns and a tree of DP 2-way marginals for the categorical ones; better
pairwise structure, ``docs/tree_copula.md``). ``--model ron-gauss``:
:class:`matrixdp.RONGauss` on numeric features (projected or normalised output). Both charge a
``--ledger`` before any noise, print the guarantee, and can write an HTML report. Before
sampling, the output's size is estimated and refused when it exceeds the free disk space;
progress is counted in rows (a bar on a terminal, a line every few seconds in a log).
"""

from __future__ import annotations

import contextlib
import math
import sys
import warnings
import numpy as np
from pathlib import Path

from ..errors import InvalidParameterError
from ..synth import RONGauss
from ._paths import atomic_output, check_disk_space, check_output_path
from ._rows import RowProgress, human_bytes
from ._options import check_epsilon_option, naming_input, seed as _seed
from ._generator import TABLE_MODELS

#: Rows sampled per step (memory stays constant in --n; progress is counted in rows).
CHUNK = 50_000
#: The generators.
MODELS = ("copula", "tree-copula", "ron-gauss")
#: Characters of one float in the CSV (pandas writes up to 17 significant digits, a sign,
#: a point and an exponent) and of the separator.
FLOAT_CHARS = 24


def _parse_label_bound(text):
    if text is None:
        return None
    parts = [t.strip() for t in str(text).split(",")]
    try:
        values = [float(t) for t in parts]
    except ValueError:
        raise InvalidParameterError("--label-bound", f"must be A or LO,HI (numbers), got {text!r}") from None
    if len(values) == 1:
        return values[0]
    if len(values) == 2:
        return tuple(values)
    raise InvalidParameterError("--label-bound", f"must be A or LO,HI, got {text!r}")


def _class_token(text: str):
    """A class of ``--classes`` typed from its text alone: an integer literal is an int, another
    number a float, None for anything else."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _label_text(series):
    """The labels as text, whole numbers of a float column written as integers (``2.0`` as
    ``"2"``), missing values as ``"nan"`` (outside any class list)."""
    import pandas as pd

    if pd.api.types.is_float_dtype(series.dtype):
        x = series.to_numpy(dtype=np.float64)
        whole = np.isfinite(x) & (x == np.round(x))
        text = np.where(whole, np.where(whole, x, 0.0).astype(np.int64).astype(str),
                        series.astype(str).to_numpy())
        return pd.Series(text, index=series.index, name=series.name, dtype=object)
    return series.astype(str).astype(object)


def _parse_classes(text, column):
    """``(classes, labels)``: the PUBLIC class list typed from its text alone, and the target
    column made comparable with it.

    Every token a number: numeric classes (``1`` an int, ``1.5`` a float) and the labels
    compared as numbers (a text column's values converted; one that is not a number matches no
    class). Otherwise: text classes and the labels compared as text. The type of the synthetic
    labels therefore comes from ``--classes`` only, never from the column's dtype: a CSV column
    is integer or float depending on how every record is written, so reading the dtype let one
    record written ``2.0`` turn the synthetic labels from ``1, 2`` into ``1.0, 2.0`` (task HZ),
    and a text class absent from the data made the column numeric and the run fail.
    """
    if text is None:
        return None, column
    import pandas as pd

    from .._record_sums import is_dask_collection

    parts = [t.strip() for t in str(text).split(",") if t.strip()]
    if not parts:
        raise InvalidParameterError("--classes", "must list at least one class")
    numbers = [_class_token(t) for t in parts]
    if all(v is not None for v in numbers):
        if pd.api.types.is_numeric_dtype(column.dtype) or pd.api.types.is_bool_dtype(column.dtype):
            return numbers, column
        if is_dask_collection(column):
            import dask.dataframe as dd

            return numbers, dd.to_numeric(column, errors="coerce")
        return numbers, pd.to_numeric(column, errors="coerce")
    if is_dask_collection(column):
        return parts, column.map_partitions(_label_text, meta=(column.name, object))
    return parts, _label_text(column)


def _read_table(path: str, sep=None, quiet: bool = False, columns=None, text_columns=()):
    """The input table; a file with a header and no data rows is read (an empty table), and
    refused later only under replace-one (:func:`_refuse_empty`), where the row count is
    public: under add/remove 0 and 1 record are neighbours and are released alike."""
    from ._tables import read_table

    return read_table(path, option="INPUT", sep=sep, quiet=quiet, columns=columns,
                      text_columns=text_columns, allow_empty=True)


def _refuse_empty(frame, relation: str) -> None:
    """An in-memory table with no data rows: refused under replace-one (a public count),
    released under add-remove (:func:`matrixdp._validation.min_records`). A Dask input is
    checked by the library's fit, from its exact count, before the charge."""
    from .._record_sums import is_dask_collection
    from .._validation import check_n_records

    if not is_dask_collection(frame):
        check_n_records(frame.shape[0], relation, "INPUT", "has no data rows")


def _write_samples(draw, n_out: int, path, quiet: bool, sep: str = ",") -> None:
    """Write ``n_out`` records drawn ``draw(size) -> DataFrame`` in chunks of :data:`CHUNK`
    (memory stays constant in ``n_out``); the file appears under its name only when complete.
    Progress is counted in rows. A ``.parquet`` (``.pq``) name writes one Parquet file, one row
    group per chunk (categories as dictionaries); any other name a CSV with ``sep``."""
    from ._tables import PARQUET_SUFFIXES

    parquet = Path(path).suffix.lower() in PARQUET_SUFFIXES
    if parquet:
        import pyarrow as pa
        import pyarrow.parquet as pq
    with atomic_output(path, "wb" if parquet else "w", **({} if parquet else {"newline": ""})) \
            as fh, RowProgress(n_out, "matrixdp synth: sampling", quiet=quiet) as bar:
        writer = None
        try:
            for i in range(math.ceil(n_out / CHUNK)):
                size = min(CHUNK, n_out - i * CHUNK)
                chunk = draw(size)
                if parquet:
                    table = pa.Table.from_pandas(chunk, preserve_index=False)
                    if writer is None:
                        writer = pq.ParquetWriter(fh, table.schema)
                    writer.write_table(table)
                else:
                    chunk.to_csv(fh, index=False, header=(i == 0), sep=sep)
                bar.update(size)
        finally:
            if writer is not None:
                writer.close()


def _ron_gauss_draw(model, header, target):
    import pandas as pd

    def draw(size):
        out = model.sample(size)
        X_syn, y_syn = (out if isinstance(out, tuple) else (out, None))
        table = pd.DataFrame(X_syn, columns=header)
        if y_syn is not None:
            table[target] = y_syn
        return table
    return draw


def row_bytes(columns) -> int:
    """Upper estimate of one CSV row's bytes from the PUBLIC schema only: ``columns`` is a list
    of ``("float", None)``, ``("int", (lo, hi))`` or ``("cat", categories)``."""
    total = 0
    for kind, info in columns:
        if kind == "int":
            total += max(len(str(int(math.floor(info[0])))), len(str(int(math.ceil(info[1]))))) + 1
        elif kind == "cat":
            total += max(len(str(c)) for c in info) + 3  # quotes and the separator
        else:
            total += FLOAT_CHARS + 1
    return total + 1


def _size_check(n_out: int, columns, out_path, quiet: bool) -> None:
    """Estimate the output's size up front and refuse it when the disk has less free space."""
    estimate = n_out * row_bytes(columns)
    check_disk_space(out_path, estimate, option="--n",
                     advice="choose a smaller --n or an --out folder on a larger disk")
    if not quiet:
        print(f"matrixdp synth: writing {n_out:,} rows, about {human_bytes(estimate)} "
              f"(estimated from the public schema)", file=sys.stderr)


def _fresh_session(args):
    from ._dask import dask_session

    return dask_session(scheduler=args.scheduler, quiet=args.quiet)


def run(args) -> int:
    model = args.model or ("ron-gauss" if args.dim is not None else "copula")
    if args.n is not None and args.n < 1:
        raise InvalidParameterError("--n", f"must be >= 1, got {args.n}")
    check_epsilon_option(args.epsilon)
    if model == "ron-gauss":
        if args.dim is None:
            raise InvalidParameterError("--dim", "is required with --model ron-gauss (the "
                                                 "projected dimension p)")
        for option, value in (("--bounds", args.bounds), ("--delta", args.delta)):
            if value is not None:
                raise InvalidParameterError(option, "applies to --model copula or tree-copula "
                                                    "only")
        return _run_ron_gauss(args)
    ron_only = [("--dim", args.dim is not None), ("--task", args.task != "unsupervised"),
                ("--reconstruct", args.reconstruct), ("--label-bound", args.label_bound is not None),
                ("--classes", args.classes is not None), ("--target", args.target is not None)]
    for option, given in ron_only:
        if given:
            hint = (" (name the class column with target = \"COL\" in the bounds file)"
                    if option == "--target" else "")
            raise InvalidParameterError(option, f"applies to --model ron-gauss only{hint}")
    return _run_copula(args, model)


def _report_path(args, out_path: Path):
    """The checked ``--report`` path (None without the option); it must differ from ``--out``."""
    if args.report is None:
        return None
    report = check_output_path(args.report, force=args.force, inputs=[args.input],
                               option="--report")
    if report.resolve() == out_path.resolve():
        raise InvalidParameterError("--report", "must differ from --out")
    return report


def _run_copula(args, model_name: str = "copula") -> int:
    import pandas as pd

    from ._dpbounds import DP_BOUNDS_FRACTION
    from ._generator import fit_table_generator, read_generator_bounds, text_columns

    if args.bounds is None:
        raise InvalidParameterError(
            "--bounds", f"is required with --model {model_name}: a bounds file with the PUBLIC "
                        "range, "
                        "categories or dp = true of every column to synthesise (write one with "
                        "`matrixdp release --template DATA --out bounds.toml`)")
    delta = 1e-9 if args.delta is None else args.delta
    if not 0.0 < delta < 1.0:
        raise InvalidParameterError("--delta", f"must be in (0, 1), got {delta:g}")
    eps = float(args.epsilon)
    from ._tables import check_sep

    sep = check_sep(args.sep)
    # one reader of the bounds file with `audit --synth` (target, text columns, constants)
    schema = read_generator_bounds(args.bounds)
    from ._dask import dask_input_files

    # a directory or glob of parts (or --dask): read and fitted partition by partition
    dask_files = dask_input_files(args.input, force=args.dask, option="INPUT")
    out_path = check_output_path(args.out, force=args.force,
                                 inputs=[args.input] if dask_files is None else dask_files)
    report = _report_path(args, out_path)
    target = schema.target
    session = contextlib.nullcontext()
    if dask_files is None:
        frame = _read_table(args.input, sep=sep, quiet=args.quiet, columns=schema.names,
                            text_columns=text_columns(schema))
    else:
        from ._dask import dask_session, read_dask_table
        from ._dpbounds import dp_columns

        if dp_columns(schema):
            raise InvalidParameterError("--bounds", "dp = true needs the table in memory (not a "
                                                    "Dask input) in this version")
        frame = read_dask_table(dask_files, "INPUT", columns=schema.names,
                                text_columns=text_columns(schema))
        session = dask_session(scheduler=args.scheduler, quiet=args.quiet, option="INPUT")

    ledger = None
    label = args.label or f"synth {model_name} of {Path(args.input).name}"
    relation = "add-remove"
    if args.ledger is not None:
        from .budget import open_ledger

        # bound to its dataset like every other spending command (--dataset or the input's name)
        ledger = open_ledger(args.ledger, dataset=args.dataset, data=args.input)
        relation = str(ledger.relation)
    try:
        _refuse_empty(frame, relation)
        with warnings.catch_warnings(record=True) as caught, session:
            warnings.simplefilter("always")
            # dp = true ranges (DP_BOUNDS_FRACTION of eps, charged first), public constants split
            # off, the generator charged whole before any draw: one fit with audit --synth
            fitted = fit_table_generator(model_name, schema, frame, epsilon=eps, delta=delta,
                                         relation=relation, ledger=ledger, label=label,
                                         seed=args.seed)
        ledger_state = _ledger_state(ledger) if ledger is not None else None
    finally:
        if ledger is not None:
            ledger.close()
    model, schema = fitted.model, fitted.schema
    guarantee, bounds_guarantee, ranges = fitted.guarantee, fitted.bounds_guarantee, fitted.ranges
    n_in_dp = max(1, int(round(float(np.sum(model.class_counts_)))))
    del frame  # nothing below reads the data
    n_out = args.n if args.n is not None else n_in_dp
    columns = []
    for c in schema.columns:
        if c.is_categorical:
            columns.append(("cat", c.categories))
        elif c.integer:
            columns.append(("int", (c.lo, c.hi)))
        else:
            columns.append(("float", None))
    _size_check(n_out, columns, out_path, args.quiet)
    order = schema.names
    sampler = None if args.seed is None else np.random.default_rng([int(args.seed), 1])

    def draw(size):
        table, labels = fitted.sample(size, random_state=sampler)
        if labels is not None:
            table[target] = pd.Categorical(labels, categories=list(schema.column(target).categories))
        return table[order]

    _write_samples(draw, n_out, out_path, args.quiet, sep=sep or ",")

    print(f"matrixdp synth: {TABLE_MODELS[model_name].cls} on {len(order)} columns of "
          f"{Path(args.input).name} "
          f"(the number of records is protected: add/remove neighbours)")
    print(f"wrote {n_out} synthetic records to {args.out} (the input's columns, units and "
          "categories; numeric values within their public ranges)")
    if args.n is None:
        print("  - as many records as the DP count of the input (the true count is private)")
    if target is not None:
        print(f"  - {target}: one model per public class; class shares follow the DP counts")
    integer = [c.name for c in schema.columns if c.integer]
    if integer:
        print(f"  - integer columns (rounded): {', '.join(integer)}")
    if bounds_guarantee is not None:
        print(f"DP bounds ({DP_BOUNDS_FRACTION:.0%} of --epsilon): {bounds_guarantee}")
        for name, (lo, hi) in ranges.items():
            print(f"  - {name}: [{lo:.6g}, {hi:.6g}] (exponential-mechanism quantiles over a "
                  "public grid; docs/bounds.md)")
    total = fitted.total
    print(f"guarantee: {total}")
    notes = release_notes(guarantee, model.privacy_)
    for note in notes:
        print(f"  - {note}")
    if ledger_state is not None:
        print(f"ledger {args.ledger}: spent epsilon={ledger_state['spent']['epsilon']:.6g} at "
              f"delta={ledger_state['spent']['delta']:.3g} of the budget "
              f"epsilon={ledger_state['budget']['epsilon']:g}")
    if report is not None:
        doc = {"model": model_name, "source_file": Path(args.input).name, "n_out": n_out,
               "guarantee": str(total), "relation": relation, "epsilon": eps, "delta": delta,
               "notes": notes, "columns": schema.to_json()["columns"],
               "target": target, "dp_bounds": {k: list(v) for k, v in ranges.items()},
               "dp_bounds_guarantee": None if bounds_guarantee is None else str(bounds_guarantee),
               "ledger": ledger_state, "seeded": args.seed is not None, "out": Path(args.out).name}
        _write_synth_report(doc, report)
        print(f"wrote {args.report}")
    return _finish(caught, args)


def release_notes(guarantee, fitted) -> list:
    """The notes printed and reported for a copula-family release: the charge's notes after its
    first (the model's derivation, which ``fitted``'s notes restate) then the fitted model's, each
    ONCE in first-seen order (both carry the same ``numerics: float`` note)."""
    return list(dict.fromkeys(tuple(guarantee.notes[1:]) + tuple(fitted.notes)))


def _finish(caught, args) -> int:
    """Print the fit's warnings and, for a seeded run, what the seed means; exit status 0."""
    for w in caught:
        print(f"warning: {w.message}", file=sys.stderr)
    if args.seed is not None:
        print("note: --seed makes the noise reproducible; a known seed voids the privacy guarantee.")
    return 0


def _ledger_state(ledger) -> dict:
    spent = ledger.spent()
    return {
        "path": ledger.path.name,
        "budget": {"epsilon": ledger.epsilon, "delta": ledger.delta,
                   "relation": str(ledger.relation)},
        "spent": {"epsilon": spent.epsilon, "delta": spent.delta, "text": str(spent)},
        "history": [{k: h[k] for k in ("id", "label", "status", "epsilon", "delta")}
                    for h in ledger.history()],
    }


def _write_synth_report(doc: dict, path) -> None:
    """A plain HTML report of a synthetic table: the guarantee in words, then the public schema,
    the DP bounds (each its own line) and the ledger. Only public or DP quantities appear."""
    import html

    from ._tables import categories_text

    e = html.escape
    rel = ("one person's record is added or removed" if doc["relation"] == "add-remove"
           else "one person's record is replaced by another")
    rows = []
    for name, spec in doc["columns"].items():
        if "what" in spec:
            what = spec["what"]
        elif "categories" in spec:
            what = "categories: " + categories_text(spec["categories"])
        else:
            what = f"[{spec['lo']:.6g}, {spec['hi']:.6g}]"
            if spec.get("dp"):
                what += " (DP estimate)"
            if spec.get("integer"):
                what += ", integers"
            if spec.get("atoms"):
                what += ", public atoms " + ", ".join(f"{v:.6g}" for v in spec["atoms"])
        rows.append(f"<tr><td>{e(name)}</td><td>{e(what)}</td></tr>")
    parts = [
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>matrixdp synth: {e(doc['out'])}</title></head><body>",
        f"<h1>Synthetic table {e(doc['out'])} ({doc['n_out']} records)</h1>",
        f"<p><b>What the guarantee means.</b> Whether or not {rel}, every output of this run "
        f"(the synthetic table and this report) has nearly the same probability: at most a "
        f"factor e<sup>&epsilon;</sup> apart, except with probability &delta;. Guarantee: "
        f"{e(doc['guarantee'])}.</p>",
        "<p>Model: " + (TABLE_MODELS[doc["model"]].words if doc["model"] in TABLE_MODELS
                        else "RON-Gauss (random orthonormal projection, DP mean and covariance); "
                             "the columns are not in the input's units") +
        ". The synthetic records are drawn from DP statistics only; sampling is "
        "post-processing.</p>",
    ]
    if doc["seeded"]:
        parts.append("<p><b>Seeded run</b>: whoever knows the seed can replay the noise.</p>")
    parts.append("<h2>Columns (public schema)</h2><table><tr><th>column</th><th>range or "
                 "categories</th></tr>" + "".join(rows) + "</table>")
    if doc["dp_bounds_guarantee"]:
        parts.append(f"<h2>DP bounds</h2><p>Ranges of the columns marked dp = true were "
                     f"estimated with DP and charged as their own entry: "
                     f"{e(doc['dp_bounds_guarantee'])}.</p>")
    parts.append("<h2>Technical notes</h2><ul>" + "".join(f"<li>{e(n)}</li>" for n in doc["notes"])
                 + "</ul>")
    led = doc["ledger"]
    if led is not None:
        parts.append(f"<h2>Budget ledger {e(led['path'])}</h2><p>Spent {e(led['spent']['text'])} "
                     f"of epsilon={led['budget']['epsilon']:g}.</p><table><tr><th>id</th>"
                     "<th>label</th><th>status</th><th>epsilon</th><th>delta</th></tr>"
                     + "".join(f"<tr><td>{h['id']}</td><td>{e(str(h['label']))}</td><td>"
                               f"{e(str(h['status']))}</td><td>{h['epsilon']:.6g}</td><td>"
                               f"{h['delta']:.3g}</td></tr>" for h in led["history"]) + "</table>")
    from ._glossary import terms_on_page

    used = terms_on_page("\n".join(parts))
    if used:  # the plain definitions of the technical words the page uses (cli._glossary)
        parts.insert(2, "<p>The technical words on this page are explained at its end (<a "
                        "href=\"#glossary\">words used on this page</a>).</p>")
        parts.append("<section id=\"glossary\"><h2>Words used on this page</h2><dl>"
                     + "".join(f"<dt>{e(t['term'])}</dt><dd>{e(t['definition'])}</dd>"
                               for t in used) + "</dl></section>")
    parts.append("</body></html>\n")
    with atomic_output(Path(path), "w", encoding="utf-8") as fh:
        fh.write("\n".join(parts))


def _run_ron_gauss(args) -> int:
    import pandas as pd

    if args.target and args.task == "unsupervised":
        raise InvalidParameterError(
            "--target", "needs --task regression or --task classification (the unsupervised "
                        "task has no label column; drop --target to synthesise every column)")
    from ._dask import dask_input_files

    dask_files = dask_input_files(args.input, force=getattr(args, "dask", False), option="INPUT")
    parquet_out = dask_files is not None and not str(args.out).lower().endswith(".csv")
    if parquet_out:  # a directory of Parquet partitions, written by Dask
        out_path = Path(args.out)
        if out_path.exists() and not args.force:
            raise InvalidParameterError("--out", f"{args.out} already exists; pass --force to "
                                                 "replace it")
        if out_path.exists() and not out_path.is_dir():
            raise InvalidParameterError("--out", f"{args.out} is a file; Dask input writes a "
                                                 "directory of Parquet files (or name a .csv file)")
    else:
        out_path = check_output_path(args.out, force=args.force,
                                     inputs=[args.input] if dask_files is None else dask_files)
    report = _report_path(args, out_path)
    if dask_files is None:
        frame = _read_table(args.input, sep=args.sep, quiet=args.quiet)
    else:
        from ._dask import read_dask_table

        frame = read_dask_table(dask_files, "INPUT")
    _refuse_empty(frame, args.neighbouring)  # refused under replace-one only
    y = None
    classes = None
    if args.task != "unsupervised":
        if not args.target:
            raise InvalidParameterError("--target", f"is required with --task {args.task}")
        if args.target not in frame.columns:
            raise InvalidParameterError(
                "--target", f"column {args.target!r} not found in {args.input} "
                            f"(columns: {', '.join(map(str, frame.columns))})")
        y = frame[args.target]
        features = frame.drop(columns=[args.target])
        if args.task == "regression" and not pd.api.types.is_numeric_dtype(y.dtype):
            raise InvalidParameterError("--target", f"regression needs a numeric target column, "
                                                    f"{args.target!r} is not")
        if args.task == "classification":
            if args.classes is None:
                raise InvalidParameterError(
                    "--classes", "classification needs the PUBLIC list of classes, e.g. --classes 1,2,3")
            classes, y = _parse_classes(args.classes, y)
    else:
        features = frame

    n_out = args.n
    model = RONGauss(dim=args.dim, epsilon=args.epsilon, mean_fraction=args.mean_fraction,
                     task=args.task, label_bound=_parse_label_bound(args.label_bound),
                     clip_labels=args.clip_labels, classes=classes,
                     label_mean=("dp" if args.task == "regression" and args.label_mean == "dp"
                                 and args.neighbouring == "replace-one" else "public"),
                     class_weights=args.class_weights, class_sizes=args.class_sizes,
                     epsilon_counts=args.epsilon_counts,
                     neighbouring=args.neighbouring,
                     reconstruct=args.reconstruct, random_state=args.seed)
    ledger_line = ledger_state = None
    session = contextlib.nullcontext()
    if dask_files is not None:
        from ._dask import dask_session

        session = dask_session(scheduler=args.scheduler, quiet=args.quiet, option="INPUT")
    with warnings.catch_warnings(record=True) as caught, session:
        warnings.simplefilter("always")
        if dask_files is not None:  # public under replace-one; private (not counted) otherwise
            n_in = int(len(frame)) if args.neighbouring == "replace-one" else None
        else:
            n_in = frame.shape[0]
        if args.ledger is None:
            with naming_input("INPUT"):
                model.fit(features, y)
        else:
            from .budget import open_ledger

            ledger = open_ledger(args.ledger, dataset=args.dataset, data=args.input)
            try:
                with naming_input("INPUT"):  # refused before any noise if over budget
                    model.fit(features, y, ledger=ledger)
                spent = ledger.spent()
                ledger_state = _ledger_state(ledger)
                ledger_line = (f"ledger {args.ledger}: spent epsilon={spent.epsilon:.6g} at "
                               f"delta={spent.delta:.3g} ({spent.calibration}) of the budget "
                               f"epsilon={ledger.epsilon:g}")
            finally:
                ledger.close()
    if n_out is None:
        # as many records as the input; under add/remove n is private, so its DP count instead
        n_out = n_in if args.neighbouring == "replace-one" else max(1, int(round(
            float(np.sum(model.class_counts_)) if args.task == "classification"
            else float(model.n_records_))))
    names = ([str(c) for c in features.columns] if args.reconstruct
             else [f"z{j + 1}" for j in range(args.dim)])
    if parquet_out:
        with _fresh_session(args):
            model.sample_to_parquet(out_path, n_out, random_state=args.seed,
                                    label_column=args.target or "y")
    else:
        target_kind = []
        if args.target:
            target_kind = [("cat", [str(c) for c in classes])] if classes else [("float", None)]
        _size_check(n_out, [("float", None)] * len(names) + target_kind, out_path, args.quiet)
        from ._tables import check_sep

        _write_samples(_ron_gauss_draw(model, names, args.target), n_out, out_path, args.quiet,
                       sep=check_sep(args.sep) or ",")

    # n is public under replace-one neighbours only; under add/remove it is private
    records = (f"{n_in} records" if args.neighbouring == "replace-one"
               else "the input records (their number is private under add/remove)")
    print(f"matrixdp synth: RON-Gauss ({args.task}) on {records} x "
          f"{features.shape[1]} features, projected to dim={args.dim}")
    print(f"wrote {n_out} synthetic records to {args.out}")
    if args.reconstruct:
        print("  - feature columns are W z mapped back to R^m on RON-Gauss's NORMALISED scale "
              "(records centred and scaled to unit norm), not in the input's units")
    else:
        print(f"  - columns z1..z{args.dim} are the projected (normalised) space, not input features")
    if args.task == "classification":
        mode = args.class_weights
        if mode == "auto":
            private = args.neighbouring == "add-remove" or args.class_sizes == "private"
            mode = "dp" if private else "exact"
        print({"dp": "  - records per class follow the DP class counts",
               "exact": "  - records per class follow the true class sizes",
               "uniform": "  - records per class are EQUAL (--class-weights uniform): the synthetic "
                          "class proportions are not the real ones"}[mode]
              + f" (--class-weights {args.class_weights})")
    if args.task == "regression":
        print(f"  - the {args.target} column is in the input's units, centred at "
              + ("its DP mean (--label-mean dp)" if model.label_mean == "dp"
                 else "the middle of its public range (the paper's Algorithm 4; a DP label mean "
                      "needs --label-mean dp and replace-one neighbours)"))
    print(f"guarantee: {model.privacy_}")
    for note in model.privacy_.notes:
        print(f"  - {note}")
    if ledger_line:
        print(ledger_line)
    if report is not None:
        relation = args.neighbouring
        doc = {"model": "ron-gauss", "source_file": Path(args.input).name, "n_out": n_out,
               "guarantee": str(model.privacy_), "relation": relation,
               "notes": list(model.privacy_.notes),
               "columns": {name: {"what": ("W z on RON-Gauss's normalised scale"
                                           if args.reconstruct else "projected coordinate")}
                           for name in names},
               "target": args.target, "dp_bounds_guarantee": None, "ledger": ledger_state,
               "seeded": args.seed is not None, "out": Path(args.out).name}
        _write_synth_report(doc, report)
        print(f"wrote {args.report}")
    return _finish(caught, args)


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "synth", help="differentially private synthetic tables from a CSV (DPCopula, "
                      "DPTreeCopula, RON-Gauss)",
        description="Differentially private synthetic data from a CSV file. --model copula (the "
                    "default): a table in the input's columns, units and categories, from a "
                    "PUBLIC bounds file (the format of `matrixdp release --template`). --model "
                    "tree-copula: the same table and bounds file with DPTreeCopula (better "
                    "pairwise structure between categorical columns). --model ron-gauss: "
                    "RON-Gauss projections of numeric features.")
    p.add_argument("input", help="input CSV with a header row")
    p.add_argument("--model", choices=MODELS, default=None,
                   help="copula (default; DPCopula, needs --bounds), tree-copula "
                        "(DPTreeCopula, needs --bounds) or ron-gauss (needs --dim; chosen "
                        "automatically when --dim is given)")
    p.add_argument("--bounds", default=None, metavar="BOUNDS.toml",
                   help="copula, tree-copula: PUBLIC ranges (lo, hi), categories, integer = true "
                        "or dp = true "
                        "per column (copula, tree-copula: also atoms = [0], PUBLIC point masses); "
                        "target = \"COL\" names a categorical class column")
    p.add_argument("--epsilon", type=float, required=True,
                   help="total privacy budget (copula, tree-copula: with --delta; ron-gauss: "
                        "pure epsilon-DP)")
    p.add_argument("--delta", type=float, default=None,
                   help="copula, tree-copula: delta (default 1e-9)")
    p.add_argument("--sep", default=None, metavar="CHAR",
                   help="CSV delimiter of INPUT and --out (default ','; 'tab' for a tab)")
    p.add_argument("--report", default=None, metavar="REPORT.html",
                   help="also write an HTML report (the guarantee in words, the columns, DP "
                        "bounds, the ledger)")
    p.add_argument("--label", default=None, help="public label of the ledger entry")
    p.add_argument("--dim", type=int, default=None,
                   help="ron-gauss: projected dimension p (1 <= p < features)")
    p.add_argument("--task", choices=("unsupervised", "regression", "classification"),
                   default="unsupervised", help="which RON-Gauss algorithm (default unsupervised)")
    p.add_argument("--target", default=None, help="label column (regression / classification)")
    p.add_argument("--label-bound", default=None,
                   help="PUBLIC label bound for regression: A (labels in [-A, A]) or LO,HI")
    p.add_argument("--clip-labels", action="store_true",
                   help="clip labels into the bound instead of failing")
    p.add_argument("--classes", default=None, help="PUBLIC comma-separated class list (classification)")
    p.add_argument("--class-weights", choices=("auto", "dp", "exact", "uniform"), default="auto",
                   help="synthetic records per class: auto (default: the DP class counts when class "
                        "sizes are private, the true sizes when they are public), dp, exact, uniform")
    p.add_argument("--label-mean", choices=("dp", "public"), default="dp",
                   help="regression: centre synthetic labels at a DP mean of the labels (dp, "
                        "default; 10%% of --epsilon) or at the middle of the public label range "
                        "(public, the paper's Algorithm 4)")
    p.add_argument("--class-sizes", choices=("private", "public"), default="private",
                   help="classification: private (default; a neighbour may change a record's label, "
                        "class sizes protected by DP counts) or public (neighbours keep the label)")
    p.add_argument("--epsilon-counts", type=float, default=None,
                   help="part of --epsilon spent on DP counts (private class sizes or add-remove; "
                        "default 10%% of --epsilon)")
    p.add_argument("--neighbouring", choices=("replace-one", "add-remove"), default="replace-one",
                   help="neighbouring relation: replace-one (n public, the paper's) or the strict "
                        "add-remove variant")
    p.add_argument("--mean-fraction", type=float, default=0.5,
                   help="share of the budget spent on the DP mean (default 0.5)")
    p.add_argument("--n", type=int, default=None, help="number of synthetic records (default: input rows)")
    p.add_argument("--out", required=True,
                   help="output CSV, or Parquet for a .parquet name (must not exist unless --force)")
    p.add_argument("--force", action="store_true", help="replace an existing --out file")
    p.add_argument("--reconstruct", action="store_true",
                   help="write features mapped back to R^m (W z, on the normalised scale) instead of "
                        "the projected z")
    p.add_argument("--seed", type=_seed, default=None,
                   help="seed for reproducible output (default: secure randomness)")
    p.add_argument("--quiet", action="store_true",
                   help="no progress bar (bars appear only on a terminal; "
                        "MATRIXDP_PROGRESS=always forces them)")
    p.add_argument("--dask", action="store_true",
                   help="read INPUT with Dask, partition by partition (automatic for a directory "
                        "or glob of Parquet/CSV files); ron-gauss: then --out DIR writes Parquet "
                        "partitions (a .csv name writes one CSV); copula, tree-copula: --out is "
                        "one CSV (or .parquet) file, and dp = true needs the table in memory; "
                        "see docs/scaling.md")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="with Dask: run on this existing distributed scheduler instead of threads")
    p.add_argument("--ledger", default=None, metavar="DATASET.db",
                   help="spend through this privacy-budget ledger (see `matrixdp budget init`); "
                        "refused before any noise if the fit does not fit the budget")
    p.add_argument("--dataset", default=None, metavar="NAME",
                   help="the dataset the --ledger was created for (`budget init --dataset`); "
                        "default: INPUT's file name or stem must be that name")
    p.set_defaults(func=run)
