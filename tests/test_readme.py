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
