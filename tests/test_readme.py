"""The README's Python tour runs as written (one namespace, blocks in order)."""

import re
import warnings
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_python_blocks_run():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    assert len(blocks) >= 3
    namespace: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for block in blocks:
            exec(compile(block, str(README), "exec"), namespace)
    assert abs(namespace["sigma"] - 3.7306) < 1e-4
    assert namespace["X_syn"].shape == (10_000, 5)  # samples live in the projected space


def test_docs_index_flow_example_runs():
    """docs/index.md's five-minute example: data -> Query -> Mechanism -> Release, exact claim."""
    index = README.parent / "docs" / "index.md"
    blocks = re.findall(r"```python\n(.*?)```", index.read_text(), re.S)
    assert len(blocks) == 1
    namespace: dict = {}
    exec(compile(blocks[0], str(index), "exec"), namespace)
    release = namespace["release"]
    assert release.value.shape == (100, 3)
    assert release.privacy.epsilon == 1.0 and release.privacy.delta == 1e-5
    assert release.privacy.exact
