"""``matrixdp synth``: differentially private synthetic data from a CSV file with RON-Gauss.

Reads a CSV of numeric features (and an optional target column), fits
:class:`matrixdp.RONGauss`, prints the privacy guarantee and writes the synthetic records.
"""

from __future__ import annotations

import contextlib
import math
import sys
import warnings

import numpy as np
from pathlib import Path

from .._progress import Progress
from ..errors import InvalidParameterError
from ..synth import RONGauss
from ._paths import atomic_output, check_output_path

#: Rows sampled per step (the progress bar advances once per chunk).
CHUNK = 50_000


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


def _parse_classes(text, column):
    """Parse the public class list and give it the target column's type."""
    if text is None:
        return None
    import pandas as pd

    parts = [t.strip() for t in str(text).split(",") if t.strip()]
    if not parts:
        raise InvalidParameterError("--classes", "must list at least one class")
    if pd.api.types.is_numeric_dtype(column.dtype):
        try:
            values = [float(t) for t in parts]
        except ValueError:
            raise InvalidParameterError(
                "--classes", f"the target column is numeric but the classes {parts} are not") from None
        if pd.api.types.is_integer_dtype(column.dtype) and all(v.is_integer() for v in values):
            return [int(v) for v in values]
        return values
    return parts


def _read_table(path: str):
    from ._tables import read_table

    return read_table(path, option="INPUT")


def _write_samples(model, n_out: int, path, header: list[str], target, quiet: bool) -> None:
    """Sample ``n_out`` records in chunks of :data:`CHUNK` and append each chunk to the CSV
    (memory stays constant in ``n_out``); the file appears under its name only when complete."""
    import pandas as pd

    n_chunks = math.ceil(n_out / CHUNK)
    bar = Progress(range(n_chunks), desc="sampling", enabled=not quiet and n_chunks > 1)
    with atomic_output(path, "w", newline="") as fh:
        for i in bar:
            size = min(CHUNK, n_out - i * CHUNK)
            out = model.sample(size)
            X_syn, y_syn = (out if isinstance(out, tuple) else (out, None))
            table = pd.DataFrame(X_syn, columns=header)
            if y_syn is not None:
                table[target] = y_syn
            table.to_csv(fh, index=False, header=(i == 0))


def _fresh_session(args):
    from ._dask import dask_session

    return dask_session(scheduler=args.scheduler, quiet=args.quiet)


def run(args) -> int:
    import pandas as pd

    if args.target and args.task == "unsupervised":
        raise InvalidParameterError(
            "--target", "needs --task regression or --task classification (the unsupervised "
                        "task has no label column; drop --target to synthesise every column)")
    if args.n is not None and args.n < 1:
        raise InvalidParameterError("--n", f"must be >= 1, got {args.n}")
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
    if dask_files is None:
        frame = _read_table(args.input)
    else:
        from ._dask import read_dask_table

        frame = read_dask_table(dask_files, "INPUT")
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
            classes = _parse_classes(args.classes, y)
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
    ledger_line = None
    session = contextlib.nullcontext()
    if dask_files is not None:
        from ._dask import dask_session

        session = dask_session(scheduler=args.scheduler, quiet=args.quiet)
    with warnings.catch_warnings(record=True) as caught, session:
        warnings.simplefilter("always")
        if dask_files is not None:  # public under replace-one; private (not counted) otherwise
            n_in = int(len(frame)) if args.neighbouring == "replace-one" else None
        else:
            n_in = frame.shape[0]
        if args.ledger is None:
            model.fit(features, y)
        else:
            from .budget import open_ledger

            ledger = open_ledger(args.ledger, dataset=args.dataset, data=args.input)
            try:
                model.fit(features, y, ledger=ledger)  # refused before any noise if over budget
                spent = ledger.spent()
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
        _write_samples(model, n_out, out_path, names, args.target, args.quiet)

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
    for w in caught:
        print(f"warning: {w.message}", file=sys.stderr)
    if args.seed is not None:
        print("note: --seed makes the noise reproducible; a known seed voids the privacy guarantee.")
    return 0


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "synth", help="differentially private synthetic data from a CSV (RON-Gauss)",
        description="Differentially private synthetic data from a CSV file with RON-Gauss.")
    p.add_argument("input", help="input CSV with a header row; feature columns must be numeric")
    p.add_argument("--epsilon", type=float, required=True, help="total privacy budget (pure epsilon-DP)")
    p.add_argument("--dim", type=int, required=True, help="projected dimension p (1 <= p < features)")
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
    p.add_argument("--out", required=True, help="output CSV (must not exist unless --force)")
    p.add_argument("--force", action="store_true", help="replace an existing --out file")
    p.add_argument("--reconstruct", action="store_true",
                   help="write features mapped back to R^m (W z, on the normalised scale) instead of "
                        "the projected z")
    p.add_argument("--seed", type=int, default=None,
                   help="seed for reproducible output (default: secure randomness)")
    p.add_argument("--quiet", action="store_true",
                   help="no progress bar (bars appear only on a terminal; "
                        "MATRIXDP_PROGRESS=always forces them)")
    p.add_argument("--dask", action="store_true",
                   help="read INPUT with Dask, partition by partition (automatic for a directory "
                        "or glob of Parquet/CSV files); then --out DIR writes Parquet partitions "
                        "(a .csv name writes one CSV); see docs/scaling.md")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="with Dask: run on this existing distributed scheduler instead of threads")
    p.add_argument("--ledger", default=None, metavar="DATASET.db",
                   help="spend through this privacy-budget ledger (see `matrixdp budget init`); "
                        "refused before any noise if the fit does not fit the budget")
    p.add_argument("--dataset", default=None, metavar="NAME",
                   help="the dataset the --ledger was created for (`budget init --dataset`); "
                        "default: INPUT's file name or stem must be that name")
    p.set_defaults(func=run)
