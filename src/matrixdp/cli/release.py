"""``matrixdp release``: a differentially private statistic of the curator's own table.

Reads a CSV or Parquet file, keeps the columns named in a PUBLIC bounds schema, clips them
into their public ranges and releases one statistic (mean, sum, covariance, Gram,
correlation, PCA or linear regression) with the (epsilon, delta) given. Writes a JSON file
with the released values, the guarantee, the expected error and every parameter needed to
reproduce the calibration (nothing read from the data but the public record count), and
optionally an HTML report with PNG plots. ``--ledger`` charges a budget ledger first.
"""

from __future__ import annotations

import contextlib
import json
import math
import platform
import sys
from pathlib import Path

import numpy as np

from .._version import __version__
from ..errors import InvalidParameterError
from ._paths import atomic_output, check_input_file, check_output_path
from ._tables import (Schema, bounds_arrays, check_sep, design_matrix, parse_bound_options,
                      read_header, read_schema, read_table, template_text)
from ._options import seed as _seed

QUERIES = ("mean", "sum", "covariance", "gram", "correlation", "pca", "linreg")
NOISES = ("auto", "mvg", "iid")
#: Number representations: "float" (idealised real arithmetic) or "exact" (lattice + exact
#: discrete Gaussian noise; mean and sum only in this version, see docs/numerics.md).
NUMERICS = ("float", "exact")
#: Queries that can be released with exact numerics.
EXACT_QUERIES = ("mean", "sum")
#: Format version of RELEASE.json.
FORMAT_VERSION = 1


# ----------------------------------------------------------------------------- parameters
def _check_privacy(args) -> tuple[float, float]:
    eps = args.epsilon
    if eps is None:
        raise InvalidParameterError("--epsilon", "is required (the privacy budget of this release)")
    if not (math.isfinite(eps) and eps > 0):
        raise InvalidParameterError("--epsilon", f"must be a finite number > 0, got {eps:g}")
    delta = args.delta
    if not (0.0 < delta < 1.0):
        raise InvalidParameterError("--delta", f"must be in (0, 1), got {delta:g}")
    return float(eps), float(delta)


def _schema(args) -> Schema:
    if not args.bounds:
        raise InvalidParameterError(
            "--bounds", "is required: a bounds file (write one with `matrixdp release --template "
                        "DATA --out bounds.toml` and fill in the PUBLIC ranges) or COL=LO:HI "
                        "options")
    files = [b for b in args.bounds if "=" not in b]
    if files and len(args.bounds) > 1:
        raise InvalidParameterError("--bounds", "give either one bounds file or COL=LO:HI options")
    schema = read_schema(files[0]) if files else parse_bound_options(args.bounds)
    if args.target is not None:
        schema = Schema(schema.columns, target=args.target, source=schema.source)
    return schema


class _LedgerCharge:
    """The estimators' ``accountant=`` hook, spending on a ledger under the release's label."""

    def __init__(self, ledger, label: str):
        self.ledger = ledger
        self.label = label
        self.charged = []

    def spend(self, guarantee, label: str = ""):
        entry = self.ledger.spend(guarantee, label=self.label)
        self.charged.append(entry)
        return entry


# ----------------------------------------------------------------------------- expected error
def _covariance_error_bound(est, lower, upper) -> np.ndarray:
    """Root-mean-square error bound per entry of ``M - m mᵀ`` from the released moments.

    ``est.entry_variance_`` is the exact noise variance of each released entry of the
    augmented second moments ``G`` of ``(x - c, t)`` (public: it follows from the bounds,
    ``n`` and (epsilon, delta)). With ``m = G[:d, d] / t`` the DP mean's offset from the
    public centre (``|m_i| <= h_i``), Minkowski's inequality gives
    ``rms(err_ij) <= sd(G_ij) + h_i sd(m_j) + h_j sd(m_i) + sqrt(3) sd(m_i) sd(m_j)``
    (before the PSD projection); every term is public.
    """
    from ..models.covariance import augmented_task

    d = len(lower)
    _, _, t = augmented_task(lower, upper, 2, "covariance")  # t depends on the bounds only
    sd = np.sqrt(np.asarray(est.entry_variance_, dtype=np.float64))
    h = 0.5 * (np.asarray(upper) - np.asarray(lower))
    sd_m = sd[:d, d] / t
    return (sd[:d, :d] + np.outer(h, sd_m) + np.outer(sd_m, h)
            + math.sqrt(3.0) * np.outer(sd_m, sd_m))


# ----------------------------------------------------------------------------- the queries
def _release_vector(query, X, lower, upper, epsilon, delta, noise, rng, keeper, n=None):
    """Mean (or sum = n x mean, post-processing with n public) through :class:`DPMean`."""
    from ..models import DPMean

    n = X.shape[0] if n is None else n
    est = DPMean(epsilon=epsilon, delta=delta, bounds=(lower, upper), noise=noise,
                 random_state=rng, accountant=keeper).fit(X)
    scale = float(n) if query == "sum" else 1.0
    value = scale * np.asarray(est.mean_, dtype=np.float64)
    std = scale * np.sqrt(np.asarray(est.noise_variance_, dtype=np.float64))
    summary = est.noise_summary_
    expected = {"noise": est.noise_, "allocation": getattr(est, "allocation_", None),
                "distribution": summary.distribution,
                "per_entry_variance": float(np.mean(std ** 2)),
                "expected_squared_error": float(np.sum(std ** 2)),
                "expected_loss": getattr(est, "expected_loss_", None),
                "noise_candidates": getattr(est, "noise_candidates_", {}),
                "entry_std": std.tolist(),
                "what": f"standard deviation of the noise on each released {query}",
                # replace-one: one record moves the mean by at most ||upper - lower||_2 / n
                "sensitivity_l2": float(np.linalg.norm(upper - lower)) / (1.0 if query == "sum"
                                                                          else n)}
    return {"values": value.tolist()}, est.privacy_, expected


def _release_vector_exact(query, X, lower, upper, epsilon, delta, noise, rng, keeper):
    """Mean or sum with exact numerics: the lattice Gaussian mechanism at the public sensitivity."""
    from ..mechanisms import GaussianMechanism

    if noise == "mvg":
        raise InvalidParameterError("--noise", "--numerics exact releases i.i.d. discrete "
                                               "Gaussian noise: use --noise auto or iid")
    n = X.shape[0]
    # replace-one: one record moves the sum by at most ||upper - lower||_2 (the mean by 1/n of it)
    sensitivity = float(np.linalg.norm(upper - lower))
    value = X.sum(axis=0)
    if query == "mean":
        sensitivity /= n
        value = np.clip(value / n, lower, upper)
    mech = GaussianMechanism(epsilon=epsilon, delta=delta, sensitivity=sensitivity,
                             numerics="exact")
    # the mechanism charges the ledger itself (its sigma depends on the value's size)
    kwargs = {} if keeper is None else {"ledger": keeper.ledger, "label": keeper.label}
    rel = mech.release(value, rng=rng, **kwargs)
    std = np.full(value.shape, math.sqrt(rel.noise.per_entry_variance))
    expected = {"noise": "iid", "allocation": None, "distribution": rel.noise.distribution,
                "scale": rel.noise.scale, "per_entry_variance": rel.noise.per_entry_variance,
                "expected_squared_error": rel.noise.expected_squared_error,
                "entry_std": std.tolist(),
                "what": f"standard deviation of the noise on each released {query} (discrete "
                        "Gaussian on a lattice, rounding included)",
                "sensitivity_l2": sensitivity}
    return {"values": np.asarray(rel.value, dtype=np.float64).tolist()}, rel.privacy, expected


def _release_matrix(query, X, lower, upper, epsilon, delta, noise, rng, keeper, args):
    from ..models import DPCovariance, DPPCA

    if query == "pca":
        k = args.components
        est = DPPCA(n_components=k, epsilon=epsilon, delta=delta, bounds=(lower, upper),
                    noise=noise, random_state=rng, accountant=keeper).fit(X)
        released = {"components": est.components_.tolist(),
                    "explained_variance": est.explained_variance_.tolist(),
                    "explained_variance_ratio": est.explained_variance_ratio_.tolist(),
                    "mean": est.mean_.tolist()}
        std = _covariance_error_bound(est, lower, upper)
        what = ("root-mean-square error bound of each entry of the DP covariance the components "
                "are computed from (before the PSD projection)")
    else:
        est = DPCovariance(epsilon=epsilon, delta=delta, bounds=(lower, upper), kind=query,
                           noise=noise, random_state=rng, accountant=keeper).fit(X)
        released = {"matrix": est.covariance_.tolist()}
        if est.location_ is not None:
            released["mean"] = est.location_.tolist()
        if query == "gram":
            std = np.sqrt(np.asarray(est.entry_variance_, dtype=np.float64))
            what = ("standard deviation of the noise on each entry of the Gram matrix X'X/n "
                    "(before the PSD projection, which never increases the total error)")
        else:
            std = _covariance_error_bound(est, lower, upper)
            what = ("root-mean-square error bound of each covariance entry (before the PSD "
                    "projection)")
            if query == "correlation":
                h = 0.5 * (upper - lower)
                safe = np.where(h > 0, h, 1.0)
                std = std / np.outer(safe, safe)
                what = ("error bound of the underlying covariance in units of the public "
                        "half-widths (a correlation's own error also depends on the private "
                        "variances)")
    summary = est.noise_summary_
    expected = {"noise": est.noise_, "allocation": getattr(est, "allocation_", None),
                "distribution": summary.distribution, "scale": summary.scale,
                "per_entry_variance": summary.per_entry_variance,
                "expected_squared_error": summary.expected_squared_error,
                "expected_loss": est.expected_loss_,
                "noise_candidates": est.noise_candidates_,
                "entry_std": np.asarray(std).tolist(), "what": what}
    return released, est.privacy_, expected


def _release_linreg(X, y, lower, upper, ylo, yhi, epsilon, delta, noise, rng, keeper, args,
                    names, target):
    from ..models import DPLinearRegression, DPRidge

    common = dict(epsilon=epsilon, delta=delta, bounds_X=(lower, upper), bounds_y=(ylo, yhi),
                  noise=noise, random_state=rng, accountant=keeper)
    est = (DPRidge(alpha=args.alpha, **common) if args.alpha else DPLinearRegression(**common))
    est.fit(X, y)
    released = {"coef": dict(zip(names, np.asarray(est.coef_).tolist())),
                "intercept": float(est.intercept_)}
    std = np.sqrt(np.asarray(est.entry_variance_, dtype=np.float64)).tolist()
    summary = est.noise_summary_
    expected = {"noise": est.noise_, "distribution": summary.distribution,
                "scale": summary.scale, "per_entry_variance": summary.per_entry_variance,
                "expected_squared_error": summary.expected_squared_error,
                "expected_loss": getattr(est, "expected_loss_", None),
                "entry_std": std, "entry_names": [*names, target, "1"],
                "what": ("standard deviation of the noise on each released sufficient statistic "
                         "[X y 1]'[X y 1]/n (centred at the middle of the public ranges)")}
    return released, est.privacy_, expected


# ----------------------------------------------------------------------------- the command
def _guarantee_dict(g, numerics: str) -> dict:
    # the guarantee's own numerics note is the truth ("float" when any step was float)
    numerics = getattr(g, "numerics", numerics)
    return {"epsilon": g.epsilon, "delta": g.delta, "relation": g.neighbouring,
            "calibration": g.calibration, "exact": bool(g.exact), "numerics": numerics,
            "mechanism": g.mechanism, "refuted": bool(g.refuted), "notes": list(g.notes),
            "text": str(g)}


def _software() -> dict:
    import scipy
    import sklearn

    return {"name": "matrixdp", "version": __version__, "python": platform.python_version(),
            "numpy": np.__version__, "scipy": scipy.__version__, "scikit-learn": sklearn.__version__}


def write_template(args) -> int:
    data = args.template
    # the header row only: no data row is read
    names = read_header(data, option="--template", sep=check_sep(args.sep))
    text = template_text(names, data_name=Path(data).name)
    if args.out is None:
        sys.stdout.write(text)
        return 0
    out = check_output_path(args.out, force=args.force, inputs=[data])
    with atomic_output(out, "w") as fh:
        fh.write(text)
    print(f"wrote the bounds template for {len(names)} columns to {args.out}; fill in the PUBLIC "
          "ranges (from domain knowledge, never from the data) before releasing", file=sys.stderr)
    return 0


def run(args) -> int:
    if args.template is not None:
        if args.data is not None:
            raise InvalidParameterError("--template", "takes the data file itself: "
                                                      "matrixdp release --template DATA")
        return write_template(args)
    if args.data is None:
        raise InvalidParameterError("DATA", "give the data file (CSV or Parquet)")
    if args.query is None:
        raise InvalidParameterError("--query", f"is required: one of {', '.join(QUERIES)}")
    if args.numerics not in NUMERICS:
        raise InvalidParameterError("--numerics", f"must be one of {', '.join(NUMERICS)}, got "
                                                  f"{args.numerics!r}")
    if args.numerics == "exact" and args.query not in EXACT_QUERIES:
        raise InvalidParameterError(
            "--numerics", f"exact numerics are available for --query {' and '.join(EXACT_QUERIES)} "
                          "in this version; the matrix queries release in floating point "
                          "(--numerics float)")
    eps, delta = _check_privacy(args)
    if args.out is None:
        raise InvalidParameterError("--out", "is required: the RELEASE.json file to write")
    if args.components is not None and args.query != "pca":
        raise InvalidParameterError("--components", "applies to --query pca only")
    if args.alpha is not None and args.query != "linreg":
        raise InvalidParameterError("--alpha", "applies to --query linreg only")
    if args.alpha is not None and not (math.isfinite(args.alpha) and args.alpha >= 0):
        raise InvalidParameterError("--alpha", f"must be >= 0, got {args.alpha:g}")
    from ._dask import dask_input_files

    dask_files = dask_input_files(args.data, force=getattr(args, "dask", False))
    data = check_input_file(args.data, "DATA") if dask_files is None else Path(args.data)
    inputs = [data] if dask_files is None else dask_files
    out = check_output_path(args.out, force=args.force, inputs=inputs)
    report = None
    if args.report is not None:
        report = check_output_path(args.report, force=args.force, inputs=inputs,
                                   option="--report")
        if report.resolve() == out.resolve():
            raise InvalidParameterError("--report", "must differ from --out")
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise InvalidParameterError("--report", "needs matplotlib for its plots: "
                                                    "pip install 'matrixdp[plot]'") from None
    schema = _schema(args)
    if args.query == "linreg":
        if not schema.target:
            raise InvalidParameterError("--target", "--query linreg needs the label column: "
                                                    "--target COL or target = \"COL\" in the bounds file")
        if schema.target not in schema.names:
            raise InvalidParameterError("--bounds", f"the target {schema.target!r} needs a public "
                                                    "range too")
        if schema.column(schema.target).is_categorical:
            raise InvalidParameterError("--target", "must be a numeric column with a range")
    elif args.target is not None:
        raise InvalidParameterError("--target", "applies to --query linreg only")

    features = schema.features() if args.query == "linreg" else list(schema.columns)
    if not features:
        raise InvalidParameterError("--bounds", "lists no feature column")
    lower, upper, names = bounds_arrays(features)
    session = contextlib.nullcontext()
    from ._dpbounds import DP_BOUNDS_FRACTION, dp_columns

    wants_dp_bounds = bool(dp_columns(schema))
    if wants_dp_bounds and dask_files is not None:
        raise InvalidParameterError("--bounds", "dp = true needs the table in memory (not a Dask "
                                                "input) in this version")
    if dask_files is None:
        frame = read_table(data, "DATA", columns=schema.names, sep=args.sep, quiet=args.quiet)
        n = int(frame.shape[0])
        X = None if wants_dp_bounds else design_matrix(frame, features, option="DATA",
                                                       clip=not args.no_clip)
    else:  # lazy: read, encoded and reduced partition by partition (cli/_dask.py)
        from ._dask import dask_design_frame, dask_session, read_dask_table

        frame = read_dask_table(dask_files, "DATA", columns=schema.names)
        encoded = dask_design_frame(frame, list(schema.columns), clip=not args.no_clip)
        X = encoded[names]
        session = dask_session(scheduler=args.scheduler, quiet=args.quiet)
    if args.components is not None and not 1 <= args.components <= len(names):
        raise InvalidParameterError("--components", f"must be in [1, {len(names)}] (the number "
                                                    f"of released columns), got {args.components}")

    ledger = keeper = None
    label = args.label or f"release {args.query} of {data.name}"
    if args.ledger is not None:
        from ..accounting import Ledger

        ledger = Ledger.open(args.ledger)
        keeper = _LedgerCharge(ledger, label)
    rng = args.seed  # None: the operating system's secure generator
    bounds_guarantee, dp_ranges = None, {}
    if wants_dp_bounds:  # a share of epsilon buys the missing ranges, charged as its own entry
        from ._dpbounds import resolve_dp_columns

        try:
            eps_bounds = DP_BOUNDS_FRACTION * eps
            eps -= eps_bounds
            schema, bounds_guarantee, dp_ranges = resolve_dp_columns(
                schema, frame, epsilon=eps_bounds, relation="replace-one", ledger=ledger,
                label=f"{label}: bounds", option="DATA",
                rng=None if args.seed is None else np.random.default_rng([int(args.seed), 2]))
        except BaseException:
            if ledger is not None:
                ledger.close()
            raise
        features = schema.features() if args.query == "linreg" else list(schema.columns)
        lower, upper, names = bounds_arrays(features)
        X = design_matrix(frame, features, option="DATA", clip=not args.no_clip)
    with session:
        try:
            if dask_files is not None:
                n = int(len(frame))  # public under replace-one, as in memory
            if args.numerics == "exact":
                if dask_files is not None:
                    raise InvalidParameterError("--numerics", "'exact' needs the table in memory "
                                                              "(not a Dask input) in this version")
                released, guarantee, expected = _release_vector_exact(
                    args.query, X, lower, upper, eps, delta, args.noise, rng, keeper)
            elif args.query in ("mean", "sum"):
                released, guarantee, expected = _release_vector(
                    args.query, X, lower, upper, eps, delta, args.noise, rng, keeper, n=n)
            elif args.query == "linreg":
                tcol = schema.column(schema.target)
                if dask_files is None:
                    y = design_matrix(frame, [tcol], option="DATA", clip=not args.no_clip)[:, 0]
                else:
                    y = encoded[schema.target]
                released, guarantee, expected = _release_linreg(
                    X, y, lower, upper, tcol.lo, tcol.hi, eps, delta, args.noise, rng, keeper,
                    args, names, schema.target)
            else:
                released, guarantee, expected = _release_matrix(
                    args.query, X, lower, upper, eps, delta, args.noise, rng, keeper, args)
            ledger_state = _ledger_state(ledger) if ledger is not None else None
        finally:
            if ledger is not None:
                ledger.close()
    del X, frame  # nothing below reads the data
    if bounds_guarantee is not None:
        guarantee = bounds_guarantee + guarantee

    doc = {
        "format": "matrixdp-release", "format_version": FORMAT_VERSION,
        "query": args.query, "columns": names,
        "target": schema.target if args.query == "linreg" else None,
        "released": released,
        "guarantee": _guarantee_dict(guarantee, args.numerics),
        "expected_error": expected,
        "parameters": {
            "epsilon": eps if bounds_guarantee is None else eps + bounds_guarantee.epsilon,
            "delta": delta, "noise": args.noise, "numerics": args.numerics,
            "bounds": schema.to_json(), "clip": not args.no_clip,
            "components": args.components, "alpha": args.alpha,
            "n_records": n,
            "n_records_note": "public under replace-one neighbouring (the record count is not "
                              "protected; it is part of the calibration)",
            "seeded": args.seed is not None,
            "source_file": data.name,
        },
        "software": _software(),
        "ledger": ledger_state,
    }
    if bounds_guarantee is not None:
        doc["dp_bounds"] = {"ranges": {k: list(v) for k, v in dp_ranges.items()},
                            "epsilon": bounds_guarantee.epsilon,
                            "guarantee": str(bounds_guarantee),
                            "method": "exponential-mechanism quartiles over a public grid, "
                                      "widened by 1.5 IQR (docs/bounds.md)"}
    with atomic_output(out, "w") as fh:
        json.dump(doc, fh, indent=2, allow_nan=False, default=_plain_number)
        fh.write("\n")
    pngs = []
    if report is not None:
        from ._report import write_report

        pngs = write_report(doc, report)
    print(f"matrixdp release: {args.query} of {len(names)} column(s) from {data.name}")
    if bounds_guarantee is not None:
        print(f"DP bounds ({DP_BOUNDS_FRACTION:.0%} of --epsilon): {bounds_guarantee}")
        for name, (lo, hi) in dp_ranges.items():
            print(f"  - {name}: [{lo:.6g}, {hi:.6g}] (docs/bounds.md)")
    print(f"guarantee: {guarantee}")
    print(f"wrote {args.out}")
    if report is not None:
        print(f"wrote {args.report} (+ {len(pngs)} PNG plot(s))")
    if ledger_state is not None:
        print(f"ledger {args.ledger}: spent epsilon={ledger_state['spent']['epsilon']:.6g} of "
              f"{ledger_state['budget']['epsilon']:g}")
    if args.seed is not None:
        print("note: --seed makes the noise reproducible; a known seed voids the privacy "
              "guarantee (the seed is not written to the JSON file).")
    return 0


def _plain_number(obj):
    """JSON for numpy scalars and arrays (everything else is an error)."""
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    raise TypeError(f"cannot write {type(obj).__name__} to the release file")


def _ledger_state(ledger) -> dict:
    spent = ledger.spent()
    return {
        "path": ledger.path.name,
        "budget": {"epsilon": ledger.epsilon, "delta": ledger.delta, "relation": ledger.relation},
        "spent": {"epsilon": spent.epsilon, "delta": spent.delta, "text": str(spent)},
        "remaining": dict(zip(("epsilon", "delta"), ledger.remaining())),
        "history": [{k: h[k] for k in ("id", "label", "status", "epsilon", "delta")}
                    for h in ledger.history()],
    }


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "release", help="release a DP statistic of your own CSV/Parquet table, with a report",
        description="Release a differentially private statistic of a CSV or Parquet table: the "
                    "columns named in a PUBLIC bounds schema are clipped into their ranges and "
                    "one statistic is released with (epsilon, delta)-DP under replace-one "
                    "neighbours (the record count is public). Start with `matrixdp release "
                    "--template DATA --out bounds.toml`, fill in the ranges from domain "
                    "knowledge, then release.")
    p.add_argument("data", nargs="?", metavar="DATA", help="the table (CSV with a header row, or "
                   ".parquet), or a directory or glob of such files (read with Dask)")
    p.add_argument("--template", metavar="DATA", default=None,
                   help="write a bounds file for DATA listing its column names only (no value "
                        "from the data) to --out, or to standard output")
    p.add_argument("--query", choices=QUERIES, default=None, help="what to release")
    p.add_argument("--sep", default=None, metavar="CHAR",
                   help="CSV delimiter (default ','; 'tab' for a tab)")
    p.add_argument("--bounds", action="append", default=[], metavar="BOUNDS.toml|COL=LO:HI",
                   help="public bounds: a TOML file from --template, or repeated COL=LO:HI")
    p.add_argument("--target", default=None,
                   help="label column of --query linreg (or target = \"COL\" in the bounds file)")
    p.add_argument("--epsilon", type=float, default=None, help="privacy budget of this release")
    p.add_argument("--delta", type=float, default=1e-6, help="delta (default 1e-6)")
    p.add_argument("--noise", choices=NOISES, default="auto",
                   help="auto (the least expected loss from public information), mvg "
                        "(matrix-variate Gaussian) or iid (analytic Gaussian)")
    p.add_argument("--numerics", default="float", metavar="{float,exact}",
                   help="float (the guarantee assumes idealised real arithmetic) or exact "
                        "(lattice + exact discrete Gaussian noise, floating-point safe; --query "
                        "mean and sum)")
    p.add_argument("--components", type=int, default=None,
                   help="number of principal components (--query pca; default all)")
    p.add_argument("--alpha", type=float, default=None,
                   help="ridge penalty (--query linreg; default: ordinary least squares)")
    p.add_argument("--no-clip", action="store_true",
                   help="refuse values outside the public ranges instead of clipping them")
    p.add_argument("--ledger", default=None, metavar="LEDGER",
                   help="budget ledger charged before any noise is drawn (the release is "
                        "refused if it does not fit)")
    p.add_argument("--label", default=None, help="public label of the ledger entry")
    p.add_argument("--out", default=None, metavar="FILE",
                   help="RELEASE.json to write (with --template: the bounds file)")
    p.add_argument("--report", default=None, metavar="REPORT.html",
                   help="also write an HTML report with PNG plots beside it")
    p.add_argument("--force", action="store_true", help="replace existing output files")
    p.add_argument("--seed", type=_seed, default=None,
                   help="seed for reproducible noise (demonstrations only: a known seed voids "
                        "the guarantee; default: secure randomness)")
    p.add_argument("--quiet", action="store_true",
                   help="no progress bar (bars appear only on a terminal; "
                        "MATRIXDP_PROGRESS=always forces them)")
    p.add_argument("--dask", action="store_true",
                   help="read DATA with Dask, partition by partition (automatic when DATA is a "
                        "directory or a glob of Parquet/CSV files); see docs/scaling.md")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="with Dask: run on this existing distributed scheduler (e.g. "
                        "tcp://10.0.0.5:8786) instead of local threads")
    p.set_defaults(func=run)
