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


def _blas_threads() -> int | None:
    try:
        import numpy  # noqa: F401  (load the BLAS libraries: threadpoolctl sees loaded ones only)
        import scipy.linalg  # noqa: F401
        from threadpoolctl import threadpool_info
    except ImportError:  # pragma: no cover - threadpoolctl comes with scikit-learn
        return None
    counts = [i["num_threads"] for i in threadpool_info() if i.get("user_api") == "blas"]
    return max(counts) if counts else None


#: The BLAS threads the tests start with (the machine's default).
BLAS_THREADS_AT_START = _blas_threads()


def pytest_collection_finish(session):
    """Undo a global BLAS thread limit set while collecting: some experiments modules call
    ``threadpool_limits(1)`` on import (for their scripts), and a test module importing one would
    otherwise run the rest of the suite on one BLAS thread."""
    if BLAS_THREADS_AT_START is not None and _blas_threads() != BLAS_THREADS_AT_START:
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=BLAS_THREADS_AT_START, user_api="blas")


@pytest.fixture(autouse=True)
def _ledger_state_dir(tmp_path_factory, monkeypatch):
    """Ledgers remember the longest history seen per user (restored-backup detection): keep
    that record out of the tester's home (subprocesses inherit the variable)."""
    monkeypatch.setenv("MATRIXDP_STATE_DIR", str(tmp_path_factory.mktemp("matrixdp-state")))


@pytest.fixture
def refuse_collecting(monkeypatch):
    """``refuse_collecting(*kinds, persist=False)``: for the rest of the test, bringing a whole
    Dask collection of the given kinds (``"array"``, ``"frame"``, ``"series"``) to the driver
    fails: ``compute`` and ``__array__`` (and with ``persist=True`` also ``persist``) raise."""
    def refuse(self, *args, **kwargs):
        raise AssertionError("a private Dask collection was collected to the driver")

    def apply(*kinds, persist=False):
        da = pytest.importorskip("dask.array")
        dd = pytest.importorskip("dask.dataframe")
        pd = pytest.importorskip("pandas")
        types = {"array": lambda: da.Array,
                 "frame": lambda: type(dd.from_pandas(pd.DataFrame({"a": [1.0]}), npartitions=1)),
                 "series": lambda: type(dd.from_pandas(pd.Series([1.0]), npartitions=1))}
        for cls in {types[k]() for k in kinds}:
            monkeypatch.setattr(cls, "compute", refuse)
            monkeypatch.setattr(cls, "__array__", refuse, raising=False)
            if persist:
                monkeypatch.setattr(cls, "persist", refuse)

    return apply
