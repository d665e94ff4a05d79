"""``matrixdp budget``: create and inspect a dataset's privacy-budget ledger.

``init`` creates the ledger file, ``show`` prints the budget, what was spent (composed) and what
remains, ``history`` lists every entry. Releasing commands take ``--ledger FILE`` to spend
through it.
"""

from __future__ import annotations

import math


def _init(args) -> int:
    from ..accounting import Ledger

    led = Ledger.create(args.ledger, dataset=args.dataset or args.ledger, epsilon=args.epsilon,
                        delta=args.delta, relation=args.relation, method=args.method)
    print(f"created {led.path}: budget epsilon={led.epsilon:g}, delta={led.delta:g} "
          f"({led.relation} neighbours, composition {led.method})")
    led.close()
    return 0


def _show(args) -> int:
    from ..accounting import Ledger

    led = Ledger.open(args.ledger)
    hist = led.history()
    spent = led.spent()
    eps_left, delta_left = led.remaining()
    counts = {s: sum(h["status"] == s for h in hist) for s in ("released", "reserved", "aborted")}
    print(f"ledger {led.path} (created {led.created_at}, dataset hash {led.dataset_hash[:12]}...)")
    print(f"  budget:    epsilon={led.epsilon:g} at delta={led.delta:g} "
          f"({led.relation} neighbours)")
    print(f"  spent:     epsilon={spent.epsilon:.6g} at delta={spent.delta:.3g} over {len(hist)} "
          f"entries, composition {spent.calibration}"
          + (" (exact)" if spent.exact and hist else " (upper bound)" if hist else ""))
    if spent.notes:
        print(f"             {spent.notes[0]}")
    left = "unlimited" if math.isinf(eps_left) else f"{eps_left:.6g}"
    print(f"  remaining: epsilon={left}, delta={delta_left:.3g} (basic headroom)")
    print(f"  entries:   {counts['released']} released, {counts['reserved']} reserved "
          f"(a crash before release; counted), {counts['aborted']} aborted (counted)")
    led.close()
    return 0


def _history(args) -> int:
    from ..accounting import Ledger

    led = Ledger.open(args.ledger)
    hist = led.history()
    led.close()
    print(f"{'id':>5}  {'status':<9} {'epsilon':>10} {'delta':>9} {'mu':>9}  "
          f"{'mechanism':<22} {'label':<20} reserved at")
    for h in hist:
        mu = "" if h["mu"] is None else f"{h['mu']:.4g}"
        print(f"{h['id']:>5}  {h['status']:<9} {h['epsilon']:>10.6g} {h['delta']:>9.3g} "
              f"{mu:>9}  {h['mechanism'][:22]:<22} {h['label'][:20]:<20} {h['reserved_at']}")
    if not hist:
        print("(no entries)")
    return 0


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("budget", help="create and inspect a dataset's privacy-budget ledger",
                              description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="budget_command", metavar="ACTION", required=True)
    init = sub.add_parser("init", help="create a ledger file for a dataset")
    init.add_argument("ledger", metavar="DATASET.db", help="the ledger file to create")
    init.add_argument("--epsilon", type=float, required=True, help="the epsilon budget")
    init.add_argument("--delta", type=float, default=0.0,
                      help="the delta at which the composed spend is compared (default 0)")
    init.add_argument("--dataset", default=None,
                      help="the dataset's identity (only its SHA-256 is stored; default: the "
                           "file name)")
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
