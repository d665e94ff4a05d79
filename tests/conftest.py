"""Shared test fixtures: the data home points at ../shared/datasets unless MATRIXDP_DATA is set."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]


def _find_shared_datasets() -> Path:
    """The nearest ``shared/datasets`` beside the repo or beside one of its ancestors
    (CI has it beside the clone; a git worktree may sit one level deeper)."""
    for parent in REPO_ROOT.parents:
        candidate = parent / "shared" / "datasets"
        if candidate.is_dir():
            return candidate
    return REPO_ROOT.parent / "shared" / "datasets"


SHARED_DATASETS = _find_shared_datasets()

if "MATRIXDP_DATA" not in os.environ and SHARED_DATASETS.is_dir():
    os.environ["MATRIXDP_DATA"] = str(SHARED_DATASETS)


@pytest.fixture(scope="session")
def data_home() -> Path:
    """The directory holding the shared datasets; tests that need it skip when it is absent."""
    path = Path(os.environ.get("MATRIXDP_DATA", SHARED_DATASETS))
    if not path.is_dir():
        pytest.skip(f"shared datasets not found at {path} (set MATRIXDP_DATA)")
    return path


#: Per-test time limits (pytest-timeout; the default is ``timeout`` in pyproject.toml): a test
#: marked ``slow`` gets this many seconds instead, unless it sets its own ``timeout`` marker.
SLOW_TIMEOUT = 1200


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.get_closest_marker("slow") is not None \
                and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(SLOW_TIMEOUT))


@pytest.fixture(autouse=True)
def _ledger_state_dir(tmp_path_factory, monkeypatch):
    """Ledgers remember the longest history seen per user (restored-backup detection): keep
    that record out of the tester's home (subprocesses inherit the variable)."""
    monkeypatch.setenv("MATRIXDP_STATE_DIR", str(tmp_path_factory.mktemp("matrixdp-state")))
