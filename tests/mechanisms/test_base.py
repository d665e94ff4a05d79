import warnings
from dataclasses import replace

import numpy as np
import pytest

import matrixdp
from matrixdp.errors import RefutedGuaranteeWarning
from matrixdp.mechanisms import PrivacyGuarantee


def test_guarantee_text_and_notes():
    g = PrivacyGuarantee(epsilon=1.0, delta=1e-5, calibration="analytic", exact=True)
    assert "epsilon=1" in str(g) and "exact" in str(g)
    assert g.with_notes("a", "b").notes[-2:] == ("a", "b")
    # every guarantee states its numerics; the float default says what it assumes
    assert g.numerics == "float" and g.notes[0].startswith("numerics: float")
    assert "idealised real arithmetic" in g.notes[0]


def test_refuted_guarantee_warns_on_release():
    class Broken(matrixdp.GaussianMechanism):
        @property
        def privacy(self):
            return replace(super().privacy, refuted=True, exact=False)

    m = Broken(epsilon=1, delta=1e-5, sensitivity=1)
    with pytest.warns(RefutedGuaranteeWarning):
        m.release(np.zeros(2), rng=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        matrixdp.GaussianMechanism(epsilon=1, delta=1e-5, sensitivity=1).release(np.zeros(2), rng=0)


def test_sample_noise_shapes():
    m = matrixdp.LaplaceMechanism(epsilon=1, sensitivity=1)
    assert m.sample_noise(5, rng=0).shape == (5,)
    assert m.sample_noise((2, 3), rng=0).shape == (2, 3)


@pytest.mark.parametrize("shape", [(7,), (3, 4), ()])
def test_the_fast_finiteness_check_refuses_every_non_finite_entry(shape):
    """The release's fast path proves finiteness by a finite sum of squares: NaN and +-inf
    anywhere are refused, finite entries whose squares overflow fall back to the full check
    (accepted), and a non-float64 value takes the full check."""
    from matrixdp import GaussianMechanism
    from matrixdp.errors import NonFiniteInputError

    mech = GaussianMechanism(epsilon=1.0, delta=1e-6, sensitivity=1.0)
    base = np.zeros(shape)
    for bad in (np.nan, np.inf, -np.inf):
        for index in np.ndindex(shape):
            x = base.copy()
            x[index] = bad
            with pytest.raises(NonFiniteInputError):
                mech.release(x, rng=0)
    huge = np.full(shape, 1e200)
    assert np.all(np.isfinite(mech.release(huge, rng=0).value))
    assert mech.release(huge, rng=0).value.shape == shape
    with pytest.raises(NonFiniteInputError):
        mech.release(np.full(shape, np.nan, dtype=np.float32), rng=0)
    out = mech.release(np.zeros(shape, dtype=np.float32), rng=3).value   # restored to float32
    np.testing.assert_array_equal(out, mech.release(np.zeros(shape), rng=3).value.astype(np.float32))


@pytest.mark.parametrize("shape", [(40_000,), (250, 200)])
def test_the_fast_finiteness_check_of_a_large_value(shape):
    """Above ``_DOT_MAX`` entries the sum of squares is numpy's own loop (not a BLAS dot): the
    same refusals (NaN/inf at the first, a middle and the last entry) and the same fallback
    for overflowing squares."""
    from matrixdp import GaussianMechanism
    from matrixdp.errors import NonFiniteInputError
    from matrixdp.mechanisms.base import _DOT_MAX

    assert int(np.prod(shape)) > _DOT_MAX
    mech = GaussianMechanism(epsilon=1.0, delta=1e-6, sensitivity=1.0)
    size = int(np.prod(shape))
    for bad in (np.nan, np.inf, -np.inf):
        for flat_index in (0, size // 2, size - 1):
            x = np.zeros(shape)
            x.reshape(-1)[flat_index] = bad
            with pytest.raises(NonFiniteInputError):
                mech.release(x, rng=0)
    assert np.all(np.isfinite(mech.release(np.full(shape, 1e200), rng=0).value))
