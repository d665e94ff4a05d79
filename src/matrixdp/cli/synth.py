"""``matrixdp synth``: differentially private synthetic data from a CSV file with RON-Gauss.

Reads a CSV of numeric features (and an optional target column), fits
:class:`matrixdp.RONGauss`, prints the privacy guarantee and writes the synthetic records.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from .._progress import Progress
from ..errors import InvalidParameterError
from ..synth import RONGauss

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
    import pandas as pd

    file = Path(path)
    if not file.is_file():
        raise FileNotFoundError(f"input file not found: {path}")
    try:
        frame = pd.read_csv(file)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise InvalidParameterError("INPUT", f"cannot read {path} as CSV: {exc}") from None
    if frame.shape[0] == 0 or frame.shape[1] == 0:
        raise InvalidParameterError("INPUT", f"{path} has no data rows or no columns")
    return frame


def run(args) -> int:
    import pandas as pd

    frame = _read_table(args.input)
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
        features = frame.drop(columns=[args.target]) if args.target in frame.columns else frame

    n_out = args.n if args.n is not None else frame.shape[0]
    if n_out < 1:
        raise InvalidParameterError("--n", f"must be >= 1, got {n_out}")
    model = RONGauss(dim=args.dim, epsilon=args.epsilon, mean_fraction=args.mean_fraction,
                     task=args.task, label_bound=_parse_label_bound(args.label_bound),
                     clip_labels=args.clip_labels, classes=classes,
                     class_weights=args.class_weights, epsilon_counts=args.epsilon_counts,
                     neighbouring=args.neighbouring,
                     reconstruct=args.reconstruct, random_state=args.seed)
    ledger_line = None
    if args.ledger is None:
        model.fit(features, y)
    else:
        from ..accounting import Ledger

        ledger = Ledger.open(args.ledger)
        try:
            model.fit(features, y, ledger=ledger)  # refused before any noise if over budget
            spent = ledger.spent()
            ledger_line = (f"ledger {args.ledger}: spent epsilon={spent.epsilon:.6g} at "
                           f"delta={spent.delta:.3g} ({spent.calibration}) of the budget "
                           f"epsilon={ledger.epsilon:g}")
        finally:
            ledger.close()

    n_chunks = math.ceil(n_out / CHUNK)
    xs, ys = [], []
    bar = Progress(range(n_chunks), desc="sampling", enabled=not args.quiet and n_chunks > 1)
    for i in bar:
        size = min(CHUNK, n_out - i * CHUNK)
        out = model.sample(size)
        if isinstance(out, tuple):
            xs.append(out[0])
            ys.append(out[1])
        else:
            xs.append(out)
    X_syn = np.vstack(xs)
    names = ([str(c) for c in features.columns] if args.reconstruct
             else [f"z{j + 1}" for j in range(args.dim)])
    table = pd.DataFrame(X_syn, columns=names)
    if ys:
        table[args.target] = np.concatenate(ys)
    table.to_csv(args.out, index=False)

    print(f"matrixdp synth: RON-Gauss ({args.task}) on {frame.shape[0]} records x "
          f"{features.shape[1]} features, projected to dim={args.dim}")
    print(f"wrote {n_out} synthetic records to {args.out} "
          f"({'reconstructed feature space' if args.reconstruct else 'projected space'})")
    print(f"guarantee: {model.privacy_}")
    for note in model.privacy_.notes:
        print(f"  - {note}")
    if ledger_line:
        print(ledger_line)
    if args.seed is not None:
        print("note: --seed makes the noise reproducible; a known seed voids the privacy guarantee.")
    return 0


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "synth", help="differentially private synthetic data from a CSV (RON-Gauss)",
        description=__doc__.splitlines()[0])
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
    p.add_argument("--class-weights", choices=("uniform", "dp"), default="uniform",
                   help="synthetic records per class: uniform, or from DP counts (needs --epsilon-counts)")
    p.add_argument("--epsilon-counts", type=float, default=None,
                   help="part of --epsilon spent on DP counts (with --class-weights dp or "
                        "--neighbouring add-remove)")
    p.add_argument("--neighbouring", choices=("replace-one", "add-remove"), default="replace-one",
                   help="neighbouring relation: replace-one (n public, the paper's) or the strict "
                        "add-remove variant (needs --epsilon-counts)")
    p.add_argument("--mean-fraction", type=float, default=0.5,
                   help="share of the budget spent on the DP mean (default 0.5)")
    p.add_argument("--n", type=int, default=None, help="number of synthetic records (default: input rows)")
    p.add_argument("--out", required=True, help="output CSV")
    p.add_argument("--reconstruct", action="store_true",
                   help="write features mapped back to R^m (W z) instead of the projected z")
    p.add_argument("--seed", type=int, default=None,
                   help="seed for reproducible output (default: secure randomness)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--ledger", default=None, metavar="DATASET.db",
                   help="spend through this privacy-budget ledger (see `matrixdp budget init`); "
                        "refused before any noise if the fit does not fit the budget")
    p.set_defaults(func=run)
