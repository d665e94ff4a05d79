"""One path for every noise draw: a scan of the package's syntax tree.

Code outside the seam (``matrixdp.mechanisms.draw``, the samplers of the mechanisms layer and
the bottom-layer ``rng`` module) never calls a generator's sampling methods itself. Inside the
mechanisms layer and the baselines, a :class:`~matrixdp.mechanisms.Mechanism` subclass may draw
in its own noise methods (reached through ``release``, which charges first). Everything else
(models, synth, baselines' functions) draws through ``charged_noise`` (released noise, charged
before the draw) or ``public_randomness`` (public or post-processing randomness).

On the code before this test existed (main at 919cf51) it failed with 22 call sites:
synth/copula.py (4), synth/covariance.py, synth/projection.py (3), synth/ron_gauss.py,
models/svm.py, models/dp_directions.py and baselines/{hierarchical, jl (2), mod_sulq, ppca (3),
random_guess (2), symmetric, wishart}.py.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import numpy as np
import pytest

import matrixdp
from matrixdp.mechanisms import Mechanism

PACKAGE = Path(matrixdp.__file__).parent

#: numpy Generator / RandomState / stdlib ``random`` / scipy.stats sampling methods.
SAMPLING = frozenset({
    "standard_normal", "normal", "laplace", "choice", "integers", "random", "uniform",
    "permutation", "permuted", "shuffle", "exponential", "standard_exponential", "gamma",
    "standard_gamma", "beta", "binomial", "poisson", "geometric", "multivariate_normal",
    "multinomial", "multivariate_hypergeometric", "dirichlet", "chisquare", "standard_t",
    "logistic", "gumbel", "rayleigh", "wald", "weibull", "triangular", "lognormal", "vonmises",
    "hypergeometric", "negative_binomial", "zipf", "pareto", "standard_cauchy", "randn", "rand",
    "randint", "random_sample", "random_integers", "rvs", "randbits", "randrange", "gauss",
    "normalvariate", "noncentral_chisquare", "noncentral_f",
})

#: A Mechanism's noise-alone draws (no value, no charge: the auditing path). Called on private
#: data outside the auditor, they release noise that no budget keeper sees (task PA, session 18:
#: ``baselines.symmetric_release`` added ``mechanism.sample_noise`` to a private matrix).
NOISE_ALONE = frozenset({"sample_noise", "sample_noise_batch"})
SAMPLING = SAMPLING | NOISE_ALONE

RANDOM_MODULES = frozenset({"numpy.random", "random", "secrets", "scipy.stats"})

#: The seam modules (paths relative to the package): the only places allowed to draw anywhere.
SEAM_MODULES = frozenset({
    "rng.py",                          # the secure stream; Haar directions (public randomness)
    "mechanisms/draw.py",              # charged_noise / public_randomness
    "mechanisms/exact_sampling.py",    # exact integer samplers, called from Mechanism methods
    "mechanisms/mvg_sampler.py",       # the MVG sampler, called from MVGMechanism._noise
    "mechanisms/fisher_bounded.py",    # the bounded Fisher-optimal noise sampler (noise alone)
    "audit/catalogue.py",              # the auditor's fixed public test inputs (seeded, no data)
    "cli/demo.py",                     # made-up demo data from a fixed seed (no private data)
})

#: Methods of Mechanism subclasses that may draw: they run inside ``release`` (charged) or are
#: the uncharged auditing batch paths (``release_batch`` / ``sample_noise*``) every mechanism has.
MECHANISM_DRAW_METHODS = frozenset({
    "_noise", "_randomise", "_release_exact", "_release_batch_exact", "_draw", "_draw_upper",
    "_noise_batch", "_partition", "_draw_sketches", "_batch", "sample_noise_batch",
    "release_batch",
})

#: Module-level noise-alone samplers of the mechanisms layer (``sample_*``): they return noise
#: without a value, as ``Mechanism.sample_noise`` does (data-independent, not a release).
SAMPLER_PACKAGE = "mechanisms/"


def _mechanism_classes(module_name: str) -> set[str]:
    try:
        module = importlib.import_module(module_name)
    except Exception:  # pragma: no cover - every module imports
        return set()
    return {name for name, obj in vars(module).items()
            if inspect.isclass(obj) and issubclass(obj, Mechanism)
            and obj.__module__ == module_name}


def _offences(path: Path) -> list[str]:
    rel = path.relative_to(PACKAGE).as_posix()
    if rel in SEAM_MODULES:
        return []
    module_name = "matrixdp." + rel[:-3].replace("/", ".").removesuffix(".__init__")
    tree = ast.parse(path.read_text(encoding="utf-8"))
    mech_classes = _mechanism_classes(module_name) if "_noise" in path.read_text() or \
        "_randomise" in path.read_text() or "Mechanism" in path.read_text() else set()
    out = []
    # sampling functions imported by name (``from numpy.random import normal``)
    bare = {alias.asname or alias.name for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module in RANDOM_MODULES
            for alias in node.names if alias.name in SAMPLING}

    def visit(node, cls=None, func=None):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                visit(child, child.name, None)
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                # nested functions keep the enclosing method's name
                visit(child, cls, func if func is not None else child.name)
            else:
                called = None
                if isinstance(child, ast.Call):
                    if isinstance(child.func, ast.Attribute) and child.func.attr in SAMPLING:
                        called = child.func.attr
                    elif isinstance(child.func, ast.Name) and child.func.id in bare:
                        called = child.func.id
                if called is not None:
                    allowed = (cls in mech_classes and func in MECHANISM_DRAW_METHODS) or (
                        cls is None and rel.startswith(SAMPLER_PACKAGE) and func is not None
                        and func.startswith("sample_")) or (
                        called in NOISE_ALONE and rel.startswith("audit/"))  # the auditor's
                    if not allowed:
                        where = f"{cls}.{func}" if cls else (func or "<module>")
                        out.append(f"{rel}:{child.lineno} {where} calls .{called}(...)")
                visit(child, cls, func)

    visit(tree)
    return out


def _all_offences() -> list[str]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        out.extend(_offences(path))
    return out


def test_no_generator_draw_outside_the_seam():
    offences = _all_offences()
    assert not offences, ("draws from a generator outside the noise seam (use "
                          "matrixdp.mechanisms.draw.charged_noise for released noise or "
                          "public_randomness for public draws):\n" + "\n".join(offences))


def test_the_scan_catches_a_bare_draw(tmp_path, monkeypatch):
    """The scan is not vacuous: a model-like module with a bare draw is reported."""
    fake = PACKAGE / "models" / "_seam_scan_probe.py"
    src = ("import numpy as np\n"
           "def fit(X, rng):\n"
           "    return X + np.random.default_rng(rng).standard_normal(X.shape)\n"
           "from numpy.random import normal as draw\n"
           "def g(n):\n"
           "    return draw(size=n)\n"
           "class Est:\n"
           "    def _noise(self, shape, gen):\n"
           "        return gen.laplace(0.0, 1.0, size=shape)\n")
    fake.write_text(src)
    try:
        found = _offences(fake)
    finally:
        fake.unlink()
    assert len(found) == 3  # a _noise method of a class that is not a Mechanism is no seam
    assert "fit calls .standard_normal" in found[0]


def test_the_scan_catches_noise_alone_added_to_data():
    """A function outside the auditor that adds ``mechanism.sample_noise`` to a value is
    reported (``baselines.symmetric_release`` before task PA)."""
    fake = PACKAGE / "baselines" / "_seam_scan_probe2.py"
    fake.write_text("def release(a, mechanism, rng):\n"
                    "    return a + mechanism.sample_noise(a.shape, rng=rng)\n")
    try:
        found = _offences(fake)
    finally:
        fake.unlink()
    assert len(found) == 1 and "release calls .sample_noise" in found[0]


def test_seam_modules_exist():
    for rel in SEAM_MODULES:
        assert (PACKAGE / rel).is_file(), rel


def test_charged_noise_charges_before_drawing_and_closes():
    from matrixdp.accounting import Accountant
    from matrixdp.errors import BudgetExceededError
    from matrixdp.mechanisms import PrivacyGuarantee
    from matrixdp.mechanisms.draw import charged_noise

    g = PrivacyGuarantee(epsilon=1.0, delta=0.0, calibration="laplace", mechanism="probe")
    acc = Accountant(epsilon=1.5)
    with charged_noise(g, rng=0, accountant=acc, label="probe") as src:
        z = src.laplacian(3, 1.0)
    assert acc.total().epsilon == pytest.approx(1.0)
    assert np.array_equal(z, np.random.default_rng(0).laplace(0.0, 1.0, size=3))
    with pytest.raises(RuntimeError, match="closed"):
        src.gaussian(2)
    drawn = []
    with pytest.raises(BudgetExceededError):
        with charged_noise(g, rng=0, accountant=acc) as src2:
            drawn.append(src2.gaussian(1))
    assert drawn == []  # refused before the block: nothing drawn
    with Accountant(epsilon=0.5) as outer:
        with pytest.raises(BudgetExceededError):
            with charged_noise(g, rng=0):
                pass
    assert outer.total().epsilon == 0.0


def test_public_randomness_charges_nothing():
    from matrixdp.accounting import Accountant
    from matrixdp.mechanisms.draw import public_randomness

    with Accountant(epsilon=1e-9) as acc:
        u = public_randomness(3).uniform_on(4)
    assert acc.spends == ()
    assert np.array_equal(u, np.random.default_rng(3).uniform(size=4))
