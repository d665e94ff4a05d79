"""``matrixdp audit``: audit every shipped mechanism (``--all``) or one of them, or a generator.

Each audit compares the mechanism's claimed (ε, δ) with its exact privacy
profile (where one is known) and with a black-box lower bound on ε from
samples on worst-case neighbouring values (``docs/audit.md``).

``matrixdp audit --estimators [--fast]`` audits the composite estimators end to end (many fits on
a neighbouring pair of tiny datasets) with deliberately broken copies beside them
(``docs/audit.md`` §6).

``matrixdp audit --synth NAME --data FILE --bounds SCHEMA.toml --epsilon E`` runs the empirical
membership-inference check of a synthetic-data generator on the curator's own table and prints
its ε lower bounds beside the formal ε (``docs/synth_audit.md``).
"""

from __future__ import annotations

import argparse
import time

from ..errors import InvalidParameterError
from ._options import check_epsilon_option, naming_input, seed as _seed


def add_parser(subparsers) -> None:
    from ._generator import TABLE_MODELS  # the generators `matrixdp synth` fits on a bounds file

    p = subparsers.add_parser(
        "audit", help="audit the privacy of matrixdp's mechanisms",
        description="Audit mechanisms: exact privacy profile vs the claim, and a black-box "
                    "lower bound on epsilon (valid at the stated confidence) from samples on "
                    "worst-case neighbouring values. R1SMG is audited through its unsafe opt-in "
                    "and is expected to be refuted.",
        epilog="Exit status: 0 when every claim is consistent or only an explicit unsafe "
               "opt-in is refuted; 3 when a mechanism that is not an unsafe opt-in is refuted "
               "(with --fail-on-refuted: when any mechanism is refuted); 1 on a usage error.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("mechanism", nargs="?", help="mechanism to audit (see --list)")
    p.add_argument("--all", action="store_true", help="audit the whole catalogue")
    p.add_argument("--list", action="store_true", help="list the auditable mechanisms")
    p.add_argument("--estimators", action="store_true",
                   help="audit the composite ESTIMATORS end to end (many fits on a neighbouring "
                        "pair of tiny datasets), planted bugs beside them (docs/audit.md §6); "
                        "--samples sets the fits per dataset (default 20000, 2000 with --fast)")
    p.add_argument("--fast", action="store_true",
                   help="fewer samples (CI setting; weaker lower bounds)")
    p.add_argument("--samples", type=int, default=None,
                   help="draws per neighbouring value (default 200000, 20000 with --fast)")
    p.add_argument("--seed", type=_seed, default=0, help="seed of the audit's sampling")
    p.add_argument("--confidence", type=float, default=0.95,
                   help="confidence of each lower bound (default 0.95)")
    p.add_argument("--epsilon", type=float, default=None, help="override the claimed epsilon")
    p.add_argument("--delta", type=float, default=None, help="override delta")
    p.add_argument("--sensitivity", type=float, default=None, help="override the sensitivity")
    p.add_argument("--dim", type=int, default=None, help="override the value's dimension")
    p.add_argument("--fail-on-refuted", action="store_true",
                   help="exit with status 3 when any claim is refuted, unsafe opt-ins included "
                        "(for CI)")
    g = p.add_argument_group(
        "generators", "membership-inference check of a synthetic-data generator (docs/synth_audit.md): "
                      "an empirical lower bound on epsilon beside the formal one, never a substitute")
    g.add_argument("--synth", choices=sorted(TABLE_MODELS), default=None,
                   help="audit this generator on --data (needs --bounds and --epsilon)")
    g.add_argument("--data", default=None, metavar="FILE", help="the table (CSV or Parquet)")
    g.add_argument("--bounds", default=None, metavar="SCHEMA.toml",
                   help="PUBLIC bounds/categories of the columns (as for `matrixdp synth`); its "
                        "`target` (categorical) is the class label; a public constant (lo = hi) "
                        "is not modelled and not counted in the attacks' distances; a dp = true "
                        "column's range is bought in every fit with 10%% of --epsilon, as synth "
                        "does")
    g.add_argument("--runs", type=int, default=5, help="fits with a random half of the canaries (default 5)")
    g.add_argument("--canaries", type=int, default=100,
                   help="records held in or out at random in each run (default 100)")
    g.add_argument("--attacks", default="dcr,shadow",
                   help="comma-separated: dcr (distance to closest record), shadow (shadow-model "
                        "density ratio); default both")
    p.add_argument("--quiet", "--no-progress", dest="quiet", action="store_true",
                   help="no progress bar (bars appear only on a terminal; "
                        "MATRIXDP_PROGRESS=always forces them)")
    p.set_defaults(func=run)


#: Printed after every ``audit --synth`` run: the check reads the records of --data outside any
#: ledger, so its own output is not a DP release (task PA's finding, session 18).
AUDIT_NOT_DP = ("This check is not itself a DP release: its fits and attack scores read the "
                "records of --data and no ledger records them, so keep its output with the "
                "curator (or run it on a public stand-in of the table); publish the synthetic "
                "table from `matrixdp synth`, whose ledger entry is the guarantee.")


def run_synth(args) -> int:
    """``--synth``: the membership-inference check of one generator on the curator's table.

    The bounds file is read, and every fit of the check is made, exactly as ``matrixdp synth``
    reads it and fits once (:mod:`matrixdp.cli._generator`, one shared reader and fit):

    * public constant columns (``lo == hi``) are split off
      (:func:`matrixdp.cli._tables.split_public_constants`): the generator does not model them
      and the attacks' distances do not count them;
    * ``dp = true`` columns: in every fit, 10% of ``--epsilon`` buys their ranges on that fit's
      records (charged first, as ``synth`` charges them) and the generator is fitted with the
      rest; the claimed ε is the composed total. The attacks' distances count these columns as
      synthesised, scaled by one DP range of the whole table (independent of the canary coins,
      so the lower bound stays valid; charged under its own label).

    See ``docs/synth_audit.md`` and ``docs/curator.md`` §2.
    """
    from ..audit.membership import membership_audit
    from ._dpbounds import DP_BOUNDS_FRACTION, dp_columns, resolve_dp_columns
    from ._generator import (TABLE_MODELS, bounds_seed, fit_table_generator,
                             generator_table_schema, read_generator_bounds, text_columns)
    from ._tables import read_table, split_public_constants

    if not args.data or not args.bounds or args.epsilon is None:
        raise InvalidParameterError("--synth", "needs --data, --bounds and --epsilon")
    if args.runs < 1:
        raise InvalidParameterError("--runs", f"must be >= 1, got {args.runs}")
    if args.canaries < 2:  # the message named --runs for either
        raise InvalidParameterError("--canaries", f"must be >= 2, got {args.canaries}")
    from ..audit.membership import ATTACKS

    attacks = tuple(a.strip() for a in args.attacks.split(",") if a.strip())
    if not attacks or not set(attacks) <= set(ATTACKS):  # before the table is read
        raise InvalidParameterError("--attacks", f"must be a comma-separated subset of "
                                                 f"{', '.join(ATTACKS)}, got {args.attacks!r}")
    if not 0.0 < args.confidence < 1.0:
        raise InvalidParameterError("--confidence", f"must be in (0, 1), got {args.confidence:g}")
    check_epsilon_option(args.epsilon)
    # one reader of the bounds file with `matrixdp synth` (target, text columns, constants)
    schema = read_generator_bounds(args.bounds)
    # a public constant (lo == hi) carries no information about any record: not read, not
    # counted in the attacks' distances (each fit fills it in, as synth does)
    constants, modelled = split_public_constants(schema)
    frame = read_table(args.data, "--data", columns=modelled.names,
                       text_columns=text_columns(schema))
    if args.canaries >= frame.shape[0]:  # the library's message names its own arguments
        raise InvalidParameterError("--canaries", "must be fewer than the records of --data "
                                                  "(the rest are the base table of every fit)")
    target = schema.target
    classes = None if target is None else list(schema.column(target).categories)
    y = None if target is None else frame.pop(target).to_numpy()
    delta = 1e-9 if args.delta is None else args.delta
    spec = TABLE_MODELS[args.synth]
    dp_names = [c.name for c in dp_columns(schema)]
    # the attacks' distance scale: the public ranges; a dp = true column's range is one DP
    # estimate on the whole table (base and every canary: independent of the inclusion coins)
    scaled, scale_guarantee = modelled, None
    if dp_names:
        scaled, scale_guarantee, _ = resolve_dp_columns(
            modelled, frame, epsilon=DP_BOUNDS_FRACTION * args.epsilon, relation="add-remove",
            label=f"audit --synth {args.synth}: attack scale of the dp = true columns",
            rng=bounds_seed(args.seed), option="--data")
    attack_schema = generator_table_schema([c for c in scaled.columns if c.name != target])
    fits = []

    def fit_sample(X, labels, seed):
        table = X if labels is None else X.assign(**{target: labels})
        # the synthesis `matrixdp synth --seed SEED` runs on this table, charged as it charges
        fitted = fit_table_generator(args.synth, schema, table, epsilon=args.epsilon,
                                     delta=delta, relation="add-remove",
                                     label=f"audit --synth {args.synth}", seed=seed,
                                     option="--data")
        fits.append(fitted)
        out, out_labels = fitted.sample(len(X), random_state=seed + 1)
        return out[list(X.columns)], out_labels

    start = time.monotonic()
    with naming_input("--data"):
        results = membership_audit(
            fit_sample, frame, y, schema=attack_schema, classes=classes,
            n_canaries=args.canaries, n_runs=args.runs,
            attacks=attacks,
            epsilon=args.epsilon, delta=delta, confidence=args.confidence, rng=args.seed)
    totals = {(f.total.epsilon, f.total.delta) for f in fits}
    if any(abs(e - args.epsilon) > 1e-9 * args.epsilon or d != delta
           for e, d in totals):  # pragma: no cover - a bug
        raise RuntimeError("a fit was charged another guarantee than the claimed one")
    print(f"{spec.cls}: formal guarantee ({args.epsilon:g}, {delta:g})-DP under add/remove "
          "(the proof).")
    if dp_names:
        bounds_text = {str(f.bounds_guarantee) for f in fits}
        print(f"DP bounds ({DP_BOUNDS_FRACTION:.0%} of --epsilon): {bounds_text.pop()}")
        print(f"  - charged in each of the {len(fits)} generator fits (runs and shadow fits) as `matrixdp synth` charges it, the "
              f"generator then at {fits[0].guarantee.epsilon:g} (composed: the formal guarantee)")
        print(f"  - dp = true column(s), synthesised in their DP ranges and counted in the "
              f"attacks' distances: {', '.join(dp_names)} (distance scale: one DP range of the "
              f"whole table, independent of the canaries' inclusion, charged separately: "
              f"{scale_guarantee})")
    print(f"Empirical check: {args.runs} fits, {results[0].n_canaries} canary records each held in "
          f"or out at random; lower bounds hold with confidence >= {args.confidence:g}:")
    for r in results:
        print("  " + str(r))
    if constants:
        print("  public constant column(s) (lo = hi), not modelled and not counted in the "
              f"attacks' distances: {', '.join(constants)}")
    print("A lower bound near 0 means these attacks found no leak; it is not evidence of privacy "
          f"(that is the formal epsilon). {time.monotonic() - start:.1f}s.")
    print(AUDIT_NOT_DP)
    return 3 if any(r.refuted for r in results) else 0


def run_estimators(args) -> int:
    """``--estimators``: the end-to-end estimator audits and the planted bugs beside them."""
    from ..audit import estimator_catalogue as ecat

    if args.mechanism or args.all:
        raise InvalidParameterError("--estimators", "give either --estimators or a mechanism/--all")
    if args.samples is not None:
        n_fits = args.samples
    else:
        n_fits = ecat.FAST_FITS if args.fast else ecat.FULL_FITS
    if n_fits < 20:
        raise InvalidParameterError("--samples", f"must be >= 20, got {n_fits}")
    if not 0.0 < args.confidence < 1.0:
        raise InvalidParameterError("--confidence", f"must be in (0, 1), got {args.confidence:g}")
    n_pilot = min(ecat.FAST_PILOT if args.fast else ecat.FULL_PILOT, n_fits)
    start = time.monotonic()

    def progress(row):
        if not args.quiet:
            print(f"  {row.audit}  [{row.audit.seconds:.0f}s]", flush=True)

    rows = ecat.run_estimator_catalogue(n_fits=n_fits, n_pilot=n_pilot, fast=args.fast,
                                        seed=args.seed, confidence=args.confidence,
                                        progress=progress)
    print(ecat.format_estimator_table(rows))
    print(f"\n{n_fits} counted fits (+{n_pilot} pilot fits) per dataset; each lower bound holds "
          f"with confidence >= {args.confidence:g} (Clopper-Pearson, both tails); "
          f"{time.monotonic() - start:.1f}s. A lower bound is never a proof of privacy; on correct "
          "estimators it is loose (docs/audit.md §6).")
    bugs = [r.entry.name for r in rows if r.privacy_bug]
    missed = [r.entry.name for r in rows if r.power_failure]
    if missed:
        print("Planted bugs the audit should have refuted but did not (too few fits?): "
              + ", ".join(missed))
    if bugs:
        print("REFUTED (claimed guarantee does not hold; a privacy bug): " + ", ".join(bugs))
    return 3 if bugs else 0


def run(args) -> int:
    from ..audit import catalogue as cat

    if getattr(args, "synth", None):
        return run_synth(args)
    if getattr(args, "estimators", False):
        return run_estimators(args)

    if args.list:
        entries = cat.catalogue()
        width = max(len(entry.name) for entry in entries)
        for entry in entries:
            defaults = ", ".join(f"{k}={v:g}" for k, v in entry.params.items())
            print(f"{entry.name:<{width}}  {entry.description}  [{defaults}]")
        return 0
    if args.samples is not None:
        n_samples = args.samples
    else:
        n_samples = cat.FAST_SAMPLES if args.fast else cat.FULL_SAMPLES
    if n_samples < 20:
        raise InvalidParameterError("--samples", f"must be >= 20, got {n_samples}")
    if args.dim is not None and args.dim < 1:
        raise InvalidParameterError("--dim", f"must be >= 1, got {args.dim}")
    if not 0.0 < args.confidence < 1.0:
        raise InvalidParameterError("--confidence", f"must be in (0, 1), got {args.confidence:g}")
    start = time.monotonic()
    if args.all:
        if args.mechanism:
            raise InvalidParameterError("mechanism", "give either --all or one mechanism name")
        rows = cat.run_catalogue(n_samples=n_samples, seed=args.seed, confidence=args.confidence,
                                 progress=not args.quiet)
    elif args.mechanism:
        rows = [cat.run_entry(args.mechanism, n_samples=n_samples, seed=args.seed,
                              confidence=args.confidence, epsilon=args.epsilon, delta=args.delta,
                              sensitivity=args.sensitivity, dim=args.dim)]
    else:
        raise InvalidParameterError("mechanism", "give a mechanism name, --all or --list")
    print(cat.format_table(rows))
    capped = ", ".join(f"{r.name}: {r.result.n_samples}" for r in rows
                       if r.result.n_samples < n_samples)
    print(f"\n{n_samples} draws per neighbouring value{f' ({capped})' if capped else ''}; "
          f"each lower bound holds with confidence "
          f">= {args.confidence:g} (Clopper-Pearson, Bonferroni over tests and witnesses); "
          f"{time.monotonic() - start:.1f}s.")
    refuted = [r.name for r in rows if r.refuted]
    unexpected = [r.name for r in rows if r.refuted and not r.unsafe]
    if refuted:
        print("REFUTED (claimed guarantee does not hold): " + ", ".join(refuted))
    # Exit status 3 when a mechanism that is NOT an explicit unsafe opt-in is refuted, or when
    # --fail-on-refuted is given and anything is refuted.
    return 3 if unexpected or (args.fail_on_refuted and refuted) else 0
