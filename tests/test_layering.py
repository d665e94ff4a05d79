"""The package's layering rules, checked statically with ``ast`` over ``src/matrixdp``.

Layers, bottom to top (a module may import its own package, any lower layer and, in
layers 0 and 6, its layer's other modules; never a higher layer; lazy, function-level
imports count):

0. ``errors``, ``rng``, ``_validation``, ``_owned``, ``_linalg``, ``_version``, ``_progress``, ``_record_sums``, ``_budget``, ``feasible``
1. ``calibration/`` (pure math) and ``datasets/`` (side by side: neither imports the other)
2. ``queries/``
3. ``mechanisms/`` and ``accounting/`` (accounting composes mechanisms' guarantees;
   mechanisms reach budget keepers only through the bottom-layer ``_budget`` seam)
4. ``models/``, ``synth/``, ``baselines/`` (side by side: none imports another)
5. ``audit/``
6. ``cli/`` (and ``__main__``)

The top-level ``matrixdp/__init__.py`` re-exports from every layer and is exempt. On top:
no import cycle between modules, and no module imports another module's ``_private`` name.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = "matrixdp"

#: Layer of each top-level module or subpackage of matrixdp.
LAYERS = {
    "errors": 0, "rng": 0, "_validation": 0, "_owned": 0, "_linalg": 0, "_version": 0, "_progress": 0,
    "_record_sums": 0, "_budget": 0, "feasible": 0,
    "calibration": 1, "datasets": 1,
    "queries": 2,
    "mechanisms": 3, "accounting": 3,
    "models": 4, "synth": 4, "baselines": 4,
    "audit": 5,
    "cli": 6, "__main__": 6,
}

#: Layers whose packages stand side by side and never import one another.
SIDE_BY_SIDE = {1, 4}


def _module_name(path: Path, root: Path = SRC) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules(root: Path = SRC) -> dict[str, Path]:
    return {_module_name(p, root): p for p in sorted((root / PACKAGE).rglob("*.py"))}


def _resolve(module: str, is_package: bool, level: int, target: str | None) -> str:
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join(base + ([target] if target else []))


def _imports(name: str, path: Path, known: set[str]):
    """``(imported module, imported names, line)`` for every import in the file, lazy ones too."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_package = path.name == "__init__.py"
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == PACKAGE:
                    yield alias.name, (), node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                target = _resolve(name, is_package, node.level, node.module)
            else:
                target = node.module or ""
            if target.split(".")[0] != PACKAGE:
                continue
            names = tuple(alias.name for alias in node.names)
            yield target, names, node.lineno
            for imported in names:  # ``from pkg import submodule``
                if f"{target}.{imported}" in known:
                    yield f"{target}.{imported}", (), node.lineno


def _edges(root: Path = SRC) -> list[tuple[str, str, tuple, int]]:
    modules = _modules(root)
    known = set(modules)
    return [(name, target, names, line) for name, path in modules.items()
            for target, names, line in _imports(name, path, known)]


def _top(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def layering_violations(root: Path = SRC) -> list[str]:
    """Imports that go up a layer or sideways between layer-4 packages."""
    out = []
    for src, dst, _, line in _edges(root):
        a, b = _top(src), _top(dst)
        if a is None or b is None or a == b:  # the package __init__, or inside one package
            continue
        if a not in LAYERS or b not in LAYERS:
            out.append(f"{src}:{line} -> {dst}: module not in LAYERS (add it)")
        elif LAYERS[b] > LAYERS[a]:
            out.append(f"{src}:{line} imports {dst} (layer {LAYERS[b]} > its own {LAYERS[a]})")
        elif LAYERS[b] == LAYERS[a] and LAYERS[a] in SIDE_BY_SIDE:
            out.append(f"{src}:{line} imports {dst} (side by side in layer {LAYERS[a]})")
    return out


def calibration_violations(root: Path = SRC) -> list[str]:
    """``calibration/`` imports only errors, _validation, _linalg (and itself)."""
    allowed = {f"{PACKAGE}.errors", f"{PACKAGE}._validation", f"{PACKAGE}._linalg"}
    return [f"{src}:{line} imports {dst}" for src, dst, _, line in _edges(root)
            if _top(src) == "calibration" and _top(dst) != "calibration" and dst not in allowed]


def forbidden_upward(root: Path = SRC) -> list[str]:
    """``mechanisms/`` and ``queries/`` never import models, synth, audit, datasets (nor cli)."""
    banned = {"models", "synth", "audit", "datasets", "cli", "baselines"}
    return [f"{src}:{line} imports {dst}" for src, dst, _, line in _edges(root)
            if _top(src) in ("mechanisms", "queries") and _top(dst) in banned]


def private_imports(root: Path = SRC) -> list[str]:
    """``from other_module import _name`` (dunder names such as ``__version__`` are public)."""
    out = []
    for src, dst, names, line in _edges(root):
        if dst == src:
            continue
        for n in names:
            if n.startswith("_") and not n.startswith("__"):
                out.append(f"{src}:{line} imports {dst}.{n}")
    return out


def import_cycles(root: Path = SRC) -> list[list[str]]:
    """Cycles of the module import graph (explicit imports, lazy ones included)."""
    graph: dict[str, set[str]] = {}
    for src, dst, _, _ in _edges(root):
        if src != dst and src != PACKAGE:
            graph.setdefault(src, set()).add(dst)
    cycles, state, stack = [], {}, []

    def visit(node):
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)
    return cycles


def test_the_import_graph_is_found():
    edges = _edges()
    assert len(_modules()) > 50 and len(edges) > 100
    # a lazy (function-level) import is seen
    assert any(src == f"{PACKAGE}.models.dp_directions" and dst == f"{PACKAGE}.mechanisms.mvg"
               for src, dst, _, _ in edges)


def test_every_module_belongs_to_a_layer():
    tops = {_top(m) for m in _modules()} - {None}
    assert tops <= set(LAYERS), f"add {sorted(tops - set(LAYERS))} to LAYERS"


def test_imports_never_go_up_a_layer():
    assert layering_violations() == []


def test_calibration_is_pure_math_at_the_bottom():
    assert calibration_violations() == []


def test_mechanisms_and_queries_never_import_higher_packages():
    assert forbidden_upward() == []


def test_no_module_imports_another_modules_private_name():
    assert private_imports() == []


def test_no_import_cycles():
    assert import_cycles() == []


@pytest.mark.parametrize("rule", [layering_violations, calibration_violations, forbidden_upward,
                                  private_imports])
def test_rules_catch_a_violation(tmp_path, rule):
    """Each checker flags a planted violation (so a passing rule is not vacuous)."""
    pkg = tmp_path / PACKAGE
    for sub in ("calibration", "mechanisms", "audit"):
        (pkg / sub).mkdir(parents=True)
        (pkg / sub / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "errors.py").write_text("")
    (pkg / "audit" / "catalogue.py").write_text("_SECRET = 1\n")
    (pkg / "calibration" / "bad.py").write_text(
        "def f():\n    from ..mechanisms import base\n")
    (pkg / "mechanisms" / "base.py").write_text("from ..audit.catalogue import _SECRET\n")
    assert rule(tmp_path) != []


def test_cycle_checker_finds_a_lazy_cycle(tmp_path):
    pkg = tmp_path / PACKAGE
    (pkg / "audit").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "audit" / "__init__.py").write_text("")
    (pkg / "audit" / "a.py").write_text("from .b import x\n")
    (pkg / "audit" / "b.py").write_text("x = 1\ndef f():\n    from . import a\n")
    assert import_cycles(tmp_path) != []
