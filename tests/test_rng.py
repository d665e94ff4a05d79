from __future__ import annotations

import numpy as np
import pytest

from matrixdp.errors import InvalidParameterError
from matrixdp.rng import is_secure, make_rng


def test_default_is_a_csprng_and_differs_between_calls():
    a, b = make_rng(), make_rng()
    assert is_secure(a) and is_secure(b)
    assert not np.array_equal(a.standard_normal(8), b.standard_normal(8))


def test_seed_repeats():
    assert np.array_equal(make_rng(42).standard_normal(8), make_rng(42).standard_normal(8))
    assert not np.array_equal(make_rng(42).standard_normal(8), make_rng(43).standard_normal(8))
    assert not is_secure(make_rng(42))


def test_generator_passes_through():
    gen = np.random.default_rng(0)
    assert make_rng(gen) is gen


@pytest.mark.parametrize("bad", [-1, 1.5, "seed", True, np.random.RandomState(0)])
def test_bad_rng(bad):
    with pytest.raises(InvalidParameterError, match="rng"):
        make_rng(bad)


def test_secure_stream_is_statistically_uniform():
    from scipy.stats import kstest

    u = make_rng().random(20000)
    assert kstest(u, "uniform").pvalue > 1e-6


# ---------------------------------------------------------------- the per-process secure stream
def test_default_is_the_per_process_stream_and_is_not_rebuilt_per_call():
    from matrixdp.rng import secure_stream

    assert make_rng() is make_rng() is secure_stream()
    assert is_secure(secure_stream())


@pytest.mark.parametrize("copier", ["pickle", "deepcopy", "copy", "joblib"])
def test_secure_stream_cannot_be_pickled_or_copied(copier, tmp_path):
    import copy
    import pickle

    import joblib

    stream = make_rng()
    holder = {"kept": stream}
    action = {"pickle": lambda: pickle.dumps(holder), "deepcopy": lambda: copy.deepcopy(holder),
              "copy": lambda: copy.copy(stream),
              "joblib": lambda: joblib.dump(holder, tmp_path / "h.joblib")}[copier]
    with pytest.raises(TypeError, match="cannot be pickled or copied"):
        action()


def test_fresh_secure_rng_is_independent_and_picklable():
    import pickle

    from matrixdp.rng import fresh_secure_rng

    a, b = fresh_secure_rng(), fresh_secure_rng()
    assert is_secure(a) and a is not make_rng()
    assert not np.array_equal(a.standard_normal(4), b.standard_normal(4))
    pickle.dumps(a)


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs os.fork")
def test_forked_child_gets_a_new_key():
    import os

    make_rng().random()  # make sure the parent's stream exists before the fork
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: report its next draws, then leave without running pytest's teardown
        try:
            os.write(write_fd, make_rng().bytes(32))
        finally:
            os._exit(0)
    os.close(write_fd)
    child = b""
    while len(child) < 32:
        chunk = os.read(read_fd, 32)
        if not chunk:
            break
        child += chunk
    os.close(read_fd)
    os.waitpid(pid, 0)
    parent = make_rng().bytes(32)
    assert len(child) == 32
    # With a shared key and counter the child would have drawn exactly the parent's next bytes.
    assert child != parent


def test_stream_pid_check_rekeys_when_the_fork_hook_is_bypassed(monkeypatch):
    import matrixdp.rng as rng_module

    before = make_rng()
    monkeypatch.setattr(rng_module, "_stream_pid", -1)  # as if we were in a forked child
    after = make_rng()
    assert after is not before and is_secure(after)


def test_random_directions_are_orthonormal_and_sign_fixed():
    from matrixdp.rng import random_directions

    W = random_directions(7, 3, rng=11)
    assert W.shape == (7, 3) and np.allclose(W.T @ W, np.eye(3), atol=1e-12)
    assert random_directions(5, rng=0).shape == (5, 5)
    # the sign fix: Q diag(sign(diag R)) of the same Gaussian draw (the Haar law itself is
    # tested through RON-Gauss's projection, tests/synth/test_projection.py)
    g = np.random.default_rng(11).standard_normal((7, 3))
    q, r = np.linalg.qr(g, mode="reduced")
    assert np.array_equal(W, q * np.sign(np.diag(r)))
    with pytest.raises(InvalidParameterError, match="n_directions"):
        random_directions(3, 4)
    with pytest.raises(InvalidParameterError, match="dim"):
        random_directions(0)



def test_a_seed_still_gives_the_same_pcg64_stream_as_before_the_secure_stream():
    """Seeded runs are bit-identical: an int seed is PCG64(seed), built per call as before."""
    expected = np.random.Generator(np.random.PCG64(2024)).standard_normal(5)
    np.testing.assert_array_equal(make_rng(2024).standard_normal(5), expected)
    assert make_rng(2024) is not make_rng(2024)



# ------------------------------------------------- every seed parameter says it is replayable
def _public_callables_with_a_seed():
    import importlib
    import inspect
    import pkgutil

    import matrixdp

    seen = set()
    for info in pkgutil.walk_packages(matrixdp.__path__, "matrixdp."):
        if any(part.startswith("_") for part in info.name.split(".")[1:]) or ".cli" in info.name:
            continue
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
                continue
            members = [(name, obj)]
            if inspect.isclass(obj):
                members = [(name, obj)] + [(f"{name}.{k}", v) for k, v in vars(obj).items()
                                           if inspect.isfunction(v) and not k.startswith("_")]
            for qualname, fn in members:
                target = fn.__init__ if inspect.isclass(fn) else fn
                if not callable(target) or (module.__name__, qualname) in seen:
                    continue
                try:
                    params = inspect.signature(target).parameters
                except (TypeError, ValueError):
                    continue
                if {"rng", "random_state"} & set(params):
                    seen.add((module.__name__, qualname))
                    yield f"{module.__name__}.{qualname}", fn


def test_every_seed_parameter_documents_that_a_seeded_release_is_replayable():
    import inspect

    missing = [name for name, fn in _public_callables_with_a_seed()
               if "replay" not in (inspect.getdoc(fn) or "").lower()]
    assert not missing, ("these rng/random_state parameters do not say that a seeded release is "
                         f"replayable: {missing}")
