"""Privacy auditing: exact privacy profiles and a black-box auditor with valid lower bounds.

- :func:`exact_delta` — the exact δ(ε) of Gaussian-family and Laplace mechanisms.
- :func:`laplace_vector_delta` — δ(ε) of a Laplace release on a vector difference (PLD composition).
- :func:`audit_mechanism` — a lower bound on ε from samples, valid at a stated confidence.
- :func:`default_witnesses` — worst-case neighbouring pairs.
- :func:`check_pair` — whether a pair is neighbouring for a mechanism (the auditor refuses others).
- :func:`membership_audit` — membership inference on a synthetic-data generator's output, an ε lower
  bound beside the formal ε (``docs/synth_audit.md``).
- :mod:`matrixdp.audit.catalogue` — audits every shipped mechanism (``matrixdp audit --all``).

The method and how to audit your own mechanism are in ``docs/audit.md``.
"""

from .blackbox import AuditResult, TestOutcome, audit_mechanism, draw_outputs
from .exact import NoExactProfileError, exact_delta, has_exact_profile, laplace_delta
from ..calibration.laplace_profile import laplace_vector_delta, laplace_vector_delta_bounds
from .statistics import distance_ratio, log_likelihood_ratio_for, projection
from .clopper_pearson import clopper_pearson_interval, clopper_pearson_lower, clopper_pearson_upper
from .witnesses import default_witnesses, sensitivity_witness
from .pairs import PairCheck, check_pair
from .membership import MembershipAuditResult, membership_audit

__all__ = [
    "AuditResult",
    "TestOutcome",
    "audit_mechanism",
    "draw_outputs",
    "NoExactProfileError",
    "exact_delta",
    "has_exact_profile",
    "laplace_delta",
    "laplace_vector_delta",
    "laplace_vector_delta_bounds",
    "distance_ratio",
    "log_likelihood_ratio_for",
    "projection",
    "clopper_pearson_interval",
    "clopper_pearson_lower",
    "clopper_pearson_upper",
    "default_witnesses",
    "sensitivity_witness",
    "PairCheck",
    "check_pair",
    "MembershipAuditResult",
    "membership_audit",
]
