"""``matrixdp budget``: create and inspect a dataset's privacy-budget ledger.

``init`` creates the ledger file for one dataset (``--dataset NAME``), ``show`` prints the budget,
what was spent (composed) and what remains, ``history`` lists every entry. Releasing commands
take ``--ledger FILE`` to spend through it, and refuse a ledger made for another dataset.
"""

from __future__ import annotations

import math
from pathlib import Path

#: Ledgers opened for spending by this run of the command line (for the Ctrl-C message).
OPENED: list = []


def _default_dataset_name(ledger_path) -> str:
    return Path(ledger_path).stem


def input_names(data) -> tuple[str, ...]:
    """The dataset names an input file or folder answers to by default: its file name and stem
    (``patients.csv`` and ``patients``); for a glob, its folder's name."""
    p = Path(str(data))
    if any(c in p.name for c in "*?["):
        p = p.parent
    return tuple(dict.fromkeys((p.name, p.stem)))


def open_ledger(path, *, dataset: str | None, data=None):
    """Open ``--ledger`` for spending, bound to its dataset.

    ``dataset`` is ``--dataset`` (compared with the name the ledger was created for); without it,
    the input's file name or stem must be that name. A ledger made with the Python API without
    a name is checked only against an explicit ``--dataset`` (its identity is a hash).
    """
    from ..accounting import Ledger
    from ..accounting.ledger import dataset_hash
    from ..errors import LedgerError

    led = Ledger.open(path)
    try:
        if dataset is not None:
            ok = (led.dataset_name == dataset if led.dataset_name
                  else dataset_hash(dataset) == led.dataset_hash)
            given = f"{dataset!r} (--dataset)"
        elif led.dataset_name and data is not None:
            names = input_names(data)
            ok = led.dataset_name in names
            given = f"{names[0]!r} (the input's name; --dataset NAME if it is that dataset)"
        else:
            ok, given = True, ""
        if not ok:
            made = f"{led.dataset_name!r}" if led.dataset_name else "another dataset"
            raise LedgerError(f"ledger {path} was created for dataset {made}, not {given}")
    except BaseException:
        led.close()
        raise
    OPENED.append(led)
    return led


def interrupted_message() -> str:
    """What a Ctrl-C leaves behind: what this run charged, and to which ledger."""
    parts = []
    for led in OPENED:
        if led.charged_here:
            eps = sum(g.epsilon for _, g in led.charged_here)
            dlt = sum(g.delta for _, g in led.charged_here)
            parts.append(f"charged epsilon={eps:.6g}, delta={dlt:.3g} to ledger {led.path} "
                         f"({len(led.charged_here)} entr{'y' if len(led.charged_here) == 1 else 'ies'}"
                         "; it stays spent: the noise may have been drawn)")
        else:
            parts.append(f"nothing was charged to ledger {led.path}")
    if not parts:
        parts.append("no ledger was charged")
    return "; ".join(parts)


def _init(args) -> int:
    from ..accounting import Ledger
    from ..errors import InvalidParameterError

    if not (args.epsilon > 0 and math.isfinite(args.epsilon)):
        raise InvalidParameterError("--epsilon", f"a budget must be a finite number > 0, got "
                                                 f"{args.epsilon:g}")
    if not 0.0 <= args.delta < 1.0:  # the ledger's own check names its argument, `delta`
        raise InvalidParameterError("--delta", f"must be in [0, 1), got {args.delta:g}")
    name = args.dataset or _default_dataset_name(args.ledger)
    led = Ledger.create(args.ledger, dataset=name, dataset_name=name, epsilon=args.epsilon,
                        delta=args.delta, relation=args.relation, method=args.method)
    print(f"created {led.path} for dataset {name!r}: budget epsilon={led.epsilon:g}, "
          f"delta={led.delta:g} ({led.relation} neighbours, composition {led.method})")
    led.close()
    return 0


def largest_fitting(led) -> list[tuple[str, float]]:
    """The largest Laplace (pure ε) and Gaussian releases that still fit, as the refusal decides
    (the same check, under the same composition; to 0.1%, from below): ``[(what, eps), ...]``."""
    from ..mechanisms import GaussianMechanism, LaplaceMechanism

    out = []
    kinds = [("Laplace (delta=0)", lambda e: LaplaceMechanism(
        epsilon=e, sensitivity=1.0, neighbouring=led.relation).privacy)]
    if led.delta > 0:
        d = min(1e-6, led.delta / 2)
        kinds.append((f"Gaussian (delta={d:.3g})", lambda e: GaussianMechanism(
            epsilon=e, delta=d, sensitivity=1.0, neighbouring=led.relation).privacy))
    for what, make in kinds:
        try:
            out.append((what, led.largest_fitting(make)))
        except Exception:  # a relation the mechanism does not support: skip the line
            continue
    return out


def _round_down(x: float, digits: int = 6) -> str:
    """``x`` to ``digits`` significant digits, never rounded up (a printed figure that fits)."""
    if x <= 0 or not math.isfinite(x):
        return f"{x:g}"
    text = f"{x:.{digits}g}"
    step = 10.0 ** (math.floor(math.log10(x)) - digits + 1)
    while float(text) > x:
        text = f"{float(text) - step:.{digits}g}"
    return text


def _show(args) -> int:
    from ..accounting import Ledger

    led = Ledger.open(args.ledger, readonly=True)
    try:
        hist = led.history()
        spent = led.spent()
        delta_left = max(0.0, led.delta - min(sum(h["delta"] for h in hist), led.delta))
        fits = largest_fitting(led)
    finally:
        led.close()
    counts = {s: sum(h["status"] == s for h in hist) for s in ("released", "reserved", "aborted")}
    name = f"dataset {led.dataset_name!r}" if led.dataset_name else \
        f"dataset hash {led.dataset_hash[:12]}..."
    print(f"ledger {led.path} (created {led.created_at}, {name})")
    print(f"  budget:    epsilon={led.epsilon:g} at delta={led.delta:g} "
          f"({led.relation} neighbours)")
    print(f"  spent:     epsilon={spent.epsilon:.6g} at delta={spent.delta:.3g} over {len(hist)} "
          f"entries, composition {spent.calibration}"
          + (" (exact)" if spent.exact and hist else " (upper bound)" if hist else ""))
    if spent.notes:
        print(f"             {spent.notes[0]}")
    # the same figure as a refusal's "about epsilon=... remains"
    left = max(0.0, led.epsilon - spent.epsilon) if math.isfinite(spent.epsilon) else 0.0
    print(f"  remaining: about epsilon={left:.6g} (the budget minus the composed spend), "
          f"delta={delta_left:.3g}")
    for what, eps in fits:
        print(f"             the largest {what} release that still fits: "
              f"epsilon={_round_down(eps, 3)}")
    print(f"  entries:   {counts['released']} released, {counts['reserved']} reserved "
          f"(a crash before release; counted), {counts['aborted']} aborted (counted)")
    return 0


def _printable(text) -> str:
    """A label on one line: control characters (a newline, a terminal escape) written as escapes,
    so a label cannot forge a history line nor rewrite the terminal."""
    text = str(text)
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text)


def _history(args) -> int:
    from ..accounting import Ledger

    led = Ledger.open(args.ledger, readonly=True)
    try:
        hist = led.history()
    finally:
        led.close()
    # the label last, in full (labels are free text of any length)
    print(f"{'id':>5}  {'status':<9} {'epsilon':>10} {'delta':>9} {'mu':>9}  "
          f"{'mechanism':<22} {'reserved at':<32}  label")
    for h in hist:
        mu = "" if h["mu"] is None else f"{h['mu']:.4g}"
        print(f"{h['id']:>5}  {h['status']:<9} {h['epsilon']:>10.6g} {h['delta']:>9.3g} "
              f"{mu:>9}  {h['mechanism']:<22} {h['reserved_at']:<32}  {_printable(h['label'])}")
    if not hist:
        print("(no entries)")
    return 0


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("budget", help="create and inspect a dataset's privacy-budget ledger",
                              description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="budget_command", metavar="ACTION", required=True)
    init = sub.add_parser("init", help="create a ledger file for a dataset")
    init.add_argument("ledger", metavar="DATASET.db", help="the ledger file to create")
    init.add_argument("--epsilon", type=float, required=True, help="the epsilon budget (> 0)")
    init.add_argument("--delta", type=float, default=0.0,
                      help="the delta at which the composed spend is compared (default 0)")
    init.add_argument("--dataset", default=None, metavar="NAME",
                      help="the dataset's public name, stored in the ledger; releases must give "
                           "the same --dataset or read a file of that name or stem (default: "
                           "the ledger file's stem, e.g. patients for patients.db)")
    init.add_argument("--relation", choices=("replace-one", "add-remove", "local"),
                      default="replace-one", help="neighbouring relation (default replace-one)")
    init.add_argument("--method", choices=("auto", "gdp", "pld", "rdp", "advanced", "basic"),
                      default="auto", help="composition method (default auto: the tightest)")
    init.set_defaults(func=_init)
    show = sub.add_parser("show", help="budget, composed spend and what remains")
    show.add_argument("ledger", metavar="DATASET.db")
    show.set_defaults(func=_show)
    hist = sub.add_parser("history", help="every entry of the ledger")
    hist.add_argument("ledger", metavar="DATASET.db")
    hist.set_defaults(func=_history)
