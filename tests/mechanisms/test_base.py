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
