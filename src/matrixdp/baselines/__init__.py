"""Baseline mechanisms the papers compare against (MVG spec §8.4), reusable outside the experiments.

* :class:`ClassicGaussianBaseline` / :func:`dwork_roth_sigma` — i.i.d. Gaussian with the
  Dwork–Roth σ, accepted at ε ≥ 1 only when the exact profile confirms it.
* :func:`analyze_gauss`, :func:`symmetric_release`, :func:`covariance_upper_sensitivity` —
  symmetric noise on a covariance (Dwork, Talwar, Thakurta, Zhang 2014).
* :func:`ppca_top_component`, :func:`sample_bingham` — the exponential mechanism for the
  first principal direction (Chaudhuri, Sarwate, Sinha 2012).
* :func:`blocki_jl_covariance` — the JL transform as a private covariance sketch (Blocki,
  Blum, Datta, Sheffet 2012).
* :func:`uniform_predictions`, :func:`random_unit_vector`, :func:`random_orthonormal_basis` —
  random-guess floors.

i.i.d. Laplace is :class:`matrixdp.LaplaceMechanism`; the analytic Gaussian is
:class:`matrixdp.GaussianMechanism`. Baselines the paper names but does not specify well
enough to reproduce are listed in :data:`NOT_REPRODUCED` with the reason.
"""

from .iid import ClassicGaussianBaseline, dwork_roth_sigma
from .jl import JLCovariance, blocki_jl_covariance, blocki_w
from .ppca import ppca_top_component, sample_bingham
from .random_guess import random_orthonormal_basis, random_unit_vector, uniform_predictions
from .symmetric import analyze_gauss, covariance_upper_sensitivity, symmetric_release

#: Baselines of the MVG paper that matrixdp does not reproduce, and why.
NOT_REPRODUCED: dict[str, str] = {
    "jl-upadhyay": (
        "JL transform (Upadhyay 2014, 'Circulant matrices and differential privacy'), the MVG "
        "paper's JL row in Tables 3 and 5: the paper gives no parameters, and the mechanism "
        "(structured circulant projections for queries whose singular values exceed a "
        "threshold) cannot be pinned down from the citation alone (spec mvg.md §8.4)."),
    "exponential-blr": (
        "Exponential mechanism of Blum, Ligett, Roth (2013), the 'Exponential' row of Tables 3 "
        "and 5: it samples a synthetic database from a finite net with probability "
        "∝ exp(−ε·n·error/2); how the paper applied it to real-valued identity queries (the "
        "net, the error measure) is unspecified, so any implementation would be a guess "
        "(spec mvg.md §8.4: low fidelity)."),
}

__all__ = [
    "ClassicGaussianBaseline",
    "JLCovariance",
    "NOT_REPRODUCED",
    "analyze_gauss",
    "blocki_jl_covariance",
    "blocki_w",
    "covariance_upper_sensitivity",
    "dwork_roth_sigma",
    "ppca_top_component",
    "random_orthonormal_basis",
    "random_unit_vector",
    "sample_bingham",
    "symmetric_release",
    "uniform_predictions",
]
