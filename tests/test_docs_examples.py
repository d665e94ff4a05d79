"""Every ```python block of docs/*.md runs as published (one namespace per page, blocks in order,
from a temporary directory), and the figures its comments state are the ones it computes.

README.md and docs/index.md are run by ``tests/test_readme.py``. A block whose first line is
``# illustration`` needs something outside the test machine (a running Dask scheduler, a remote
path); those are listed in ``ILLUSTRATIONS`` so that a new one cannot hide.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
#: Pages run by tests/test_readme.py.
ELSEWHERE = {"index.md"}
#: Pages whose examples take minutes (20,000 fits of an estimator; a local Dask cluster).
SLOW = {"audit.md", "scaling.md"}
#: The blocks not run, per page (their first line says why).
ILLUSTRATIONS = {"scaling.md": 1}


def _blocks(page: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", page.read_text(), re.S)


PAGES = sorted(p.name for p in DOCS.glob("*.md") if _blocks(p) and p.name not in ELSEWHERE)


def run_page(name: str, where: Path, monkeypatch) -> dict:
    monkeypatch.chdir(where)
    namespace: dict = {"__name__": "__main__"}
    blocks = _blocks(DOCS / name)
    skipped = [b for b in blocks if b.startswith("# illustration")]
    assert len(skipped) == ILLUSTRATIONS.get(name, 0), f"{name}: an unlisted illustration block"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i, block in enumerate(blocks):
            if block not in skipped:
                exec(compile(block, f"{DOCS / name} (block {i + 1})", "exec"), namespace)
    return namespace


def test_every_page_with_examples_is_run_here():
    assert len(PAGES) >= 8
    assert SLOW <= set(PAGES) and set(ILLUSTRATIONS) <= set(PAGES)


@pytest.mark.parametrize("name", [pytest.param(p, marks=pytest.mark.slow) if p in SLOW else p
                                  for p in PAGES])
def test_docs_python_blocks_run(name, tmp_path, monkeypatch):
    ns = run_page(name, tmp_path, monkeypatch)
    if name == "accounting.md":
        # the block charges the ledger once, and composes two releases in memory
        assert [h["label"] for h in ns["ledger"].history()] == ["means"]
        assert 0.3 < ns["ledger"].spent().epsilon <= 0.5
        assert len(ns["acc"].spends) == 2 and ns["acc"].total().epsilon < 0.5
        ns["ledger"].close()
        # §5b: "1 1: each keeper holds the fit once" (an explicit keeper inside a ledger block)
        assert len(ns["census"].history()) == 1 and len(ns["mine"].spends) == 1
        ns["census"].close()
    elif name == "experimental.md":
        # "single-release"; "PCAOptions(adaptive_bias='model')": the repr names the changed knob
        assert ns["single"].boost_branch_ == "single-release"
        assert repr(ns["pca"].get_params()["experimental"]) == "PCAOptions(adaptive_bias='model')"
    elif name == "fisher.md":
        assert str(ns["out"].privacy) == \
            "(epsilon=1, delta=1e-06)-DP [local; calibration=analytic; exact]"
    elif name == "mvg.md":
        # "s2 = sqrt(6), gamma = sqrt(500 * 6)"; "features 1 and 5 get ~2.7x less variance";
        # "== 1e-6: the budget is used exactly"; "far below 1e-6"
        assert ns["identity"].sensitivity_l2 == pytest.approx(np.sqrt(6))
        assert ns["identity"].gamma == pytest.approx(np.sqrt(3000))
        ratio = ns["iid"].variances[0] / ns["directional"].variances[[1, 5]]
        assert np.allclose(ratio, 2.7, rtol=0.02)
        assert ns["directional"].privacy_profile(1.0) == pytest.approx(1e-6, rel=1e-6)
        assert ns["paper"].privacy_profile(1.0) < 1e-9
    elif name == "scaling.md":
        assert ns["cov"].covariance_.shape == (3, 3)
        assert ns["release"].value.shape == (3, 3)
