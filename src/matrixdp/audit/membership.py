"""Empirical privacy check of a synthetic-data generator: membership inference with an ε lower bound.

Beside the proof, never instead of it: the check fits the generator many times on a base table
plus a random half of a set of *canary* records, runs a membership-inference attack on the
synthetic output (distance to the closest synthetic record, or a shadow-model density ratio) and
turns the number of correct in/out guesses into a lower bound on ε that holds with a stated
confidence whatever the generator does (Steinke, Nasr & Jagielski 2023). A bound above the
claimed ε refutes the claim; a bound near 0 says only that *this* attack found nothing, not that
the generator is private. Method and caveats: ``docs/synth_audit.md``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .._validation import check_probability
from ..errors import InvalidParameterError
from ..mechanisms.draw import public_randomness
from .clopper_pearson import clopper_pearson_interval

__all__ = ["MembershipAuditResult", "membership_audit", "one_run_p_value", "one_run_epsilon_lower",
           "encode_records", "dcr_scores", "shadow_scores", "ATTACKS"]

#: The shipped attacks (each scores canaries from the synthetic output; higher = "member").
ATTACKS = ("dcr", "shadow")


@dataclass(frozen=True)
class MembershipAuditResult:
    """One attack's outcome over all runs.

    Attributes
    ----------
    attack : str
        ``"dcr"`` (distance to closest record) or ``"shadow"`` (shadow-model density ratio).
    epsilon_lower_bound : float
        ε such that the generator is NOT (ε, δ)-DP under add/remove, with probability at least
        ``confidence`` (0 when the attack does no better than the bound allows).
    epsilon_claimed : float or None
        The generator's formal ε (reported beside the bound, never replaced by it).
    delta : float
        The δ used in the bound (the generator's claimed δ).
    correct, guesses : int
        Correct in/out guesses and guesses made (the attack abstains on the middle ranks).
    accuracy : float
        ``correct / guesses``.
    accuracy_interval : (float, float)
        Two-sided Clopper–Pearson interval of the guess accuracy at ``confidence``.
    epsilon_interval : (float, float)
        The log-odds of ``accuracy_interval`` (clipped at 0): the ε of randomised response
        with that accuracy; a description of the attack's strength, not a privacy bound.
    auc : float
        ROC AUC of the attack's scores, held-in vs held-out canaries (descriptive).
    n_runs, n_canaries : int
    confidence : float
    """

    attack: str
    epsilon_lower_bound: float
    epsilon_claimed: float | None
    delta: float
    correct: int
    guesses: int
    accuracy: float
    accuracy_interval: tuple
    epsilon_interval: tuple
    auc: float
    n_runs: int
    n_canaries: int
    confidence: float
    notes: tuple = field(default_factory=tuple)

    @property
    def refuted(self) -> bool:
        """True when the lower bound exceeds the claimed ε (the claim cannot hold)."""
        return self.epsilon_claimed is not None and self.epsilon_lower_bound > self.epsilon_claimed

    def __str__(self) -> str:
        claim = "–" if self.epsilon_claimed is None else f"{self.epsilon_claimed:g}"
        lo, hi = self.accuracy_interval
        return (f"{self.attack}: epsilon >= {self.epsilon_lower_bound:.3f} (confidence "
                f"{self.confidence:g}; claimed {claim}, delta {self.delta:g}); "
                f"{self.correct}/{self.guesses} guesses correct, accuracy {self.accuracy:.3f} "
                f"[{lo:.3f}, {hi:.3f}], AUC {self.auc:.3f}"
                + ("  REFUTED" if self.refuted else ""))


# ------------------------------------------------------------------ the bound
def one_run_p_value(epsilon: float, delta: float, guesses: int, correct: int,
                    n_canaries: int) -> float:
    r"""P-value of "the generator is (ε, δ)-DP" given ``correct`` of ``guesses`` in/out guesses.

    With each of m canaries included independently with probability 1/2 and guesses that depend
    only on the output, an (ε, δ)-DP mechanism gives (Steinke, Nasr & Jagielski 2023, Thm 3.1)

    .. math:: P[W \ge v] \le f(v) + 2 m \delta \max_{1 \le i \le v} \frac{f(v - i) - f(v)}{i},
              \quad f(v) = P[\mathrm{Bin}(r, e^\varepsilon / (1 + e^\varepsilon)) \ge v].
    """
    from scipy import stats

    r, v, m = int(guesses), int(correct), int(n_canaries)
    if not 0 <= v <= r <= m:
        raise InvalidParameterError("correct", "need 0 <= correct <= guesses <= n_canaries")
    if v == 0:
        return 1.0
    q = 1.0 / (1.0 + math.exp(-float(epsilon)))
    beta = float(stats.binom.sf(v - 1, r, q))
    if delta <= 0:
        return min(beta, 1.0)
    i = np.arange(1, v + 1)
    # P[v > Bin >= v - i] = cumulative pmf from v-1 down to v-i
    between = np.cumsum(stats.binom.pmf(v - i, r, q))
    alpha = float(np.max(between / i))
    return min(beta + 2.0 * m * float(delta) * alpha, 1.0)


def one_run_epsilon_lower(guesses: int, correct: int, n_canaries: int, delta: float,
                          confidence: float) -> float:
    """The largest ε whose p-value (:func:`one_run_p_value`) is below 1 − ``confidence``.

    Every ε up to it is rejected at level 1 − confidence, so the generator is not (ε, δ)-DP for
    any smaller ε, with probability at least ``confidence``. 0 when even ε = 0 is not rejected.
    """
    alpha = 1.0 - check_probability(confidence, "confidence")
    if guesses == 0 or one_run_p_value(0.0, delta, guesses, correct, n_canaries) >= alpha:
        return 0.0
    lo, hi = 0.0, 1.0
    while one_run_p_value(hi, delta, guesses, correct, n_canaries) < alpha:
        lo, hi = hi, 2.0 * hi
        if hi > 1e3:
            return lo
    for _ in range(50):  # bisection; the p-value increases with ε
        mid = 0.5 * (lo + hi)
        if one_run_p_value(mid, delta, guesses, correct, n_canaries) < alpha:
            lo = mid
        else:
            hi = mid
    return lo


# ------------------------------------------------------------------ attacks
def encode_records(frame, schema, y=None, classes=None) -> np.ndarray:
    """Records as points: numeric columns scaled to [0, 1] by their PUBLIC bounds, categories
    one-hot scaled by 1/√2 (a category mismatch adds 1 to the squared distance), the label
    one-hot likewise when given."""
    numeric, codes = schema.encode(frame, "frame")
    parts = [((numeric[c] - lo) / (hi - lo))[:, None] for c, (lo, hi) in schema.bounds.items()]
    for c, cats in schema.categories.items():
        parts.append(np.eye(cats.size)[codes[c]] / math.sqrt(2.0))
    if y is not None:
        import pandas as pd

        cls = list(classes) if classes is not None else []
        idx = np.asarray(pd.Index(cls, dtype=object).get_indexer(np.asarray(y).astype(object)))
        if (idx < 0).any():
            raise InvalidParameterError("y", "has labels outside the public class list")
        parts.append(np.eye(len(cls))[idx] / math.sqrt(2.0))
    return np.hstack(parts)


def _sq_distances(A: np.ndarray, B: np.ndarray, chunk: int = 4096):
    """Yield (slice, squared distances of rows of A to rows of B[slice]) in chunks of B."""
    a2 = np.einsum("ij,ij->i", A, A)[:, None]
    for start in range(0, B.shape[0], chunk):
        Bc = B[start:start + chunk]
        d2 = a2 + np.einsum("ij,ij->i", Bc, Bc)[None, :] - 2.0 * A @ Bc.T
        yield np.maximum(d2, 0.0)


def dcr_scores(canaries: np.ndarray, synthetic: np.ndarray) -> np.ndarray:
    """Minus the distance of each canary to its closest synthetic record (higher = member)."""
    best = np.full(canaries.shape[0], np.inf)
    for d2 in _sq_distances(canaries, synthetic):
        best = np.minimum(best, d2.min(axis=1))
    return -np.sqrt(best)


def _log_kde(points: np.ndarray, sample: np.ndarray, bandwidth: float) -> np.ndarray:
    from scipy.special import logsumexp

    parts = [logsumexp(-0.5 * d2 / bandwidth ** 2, axis=1)
             for d2 in _sq_distances(points, sample)]
    return logsumexp(np.stack(parts, axis=1), axis=1) - math.log(sample.shape[0])


def shadow_scores(canaries: np.ndarray, synthetic: np.ndarray, shadow: np.ndarray,
                  bandwidth: float = 0.1) -> np.ndarray:
    """Log density of each canary under the synthetic output minus under a shadow output.

    The shadow output comes from the same generator fitted on the base table alone (the world
    without any canary), so the ratio cancels what the canary shares with the population and
    keeps what its presence added (a DOMIAS-style density-ratio attack with a shadow model).
    """
    return _log_kde(canaries, synthetic, bandwidth) - _log_kde(canaries, shadow, bandwidth)


def _auc(scores: np.ndarray, member: np.ndarray) -> float:
    from scipy.stats import rankdata

    n1, n0 = int(member.sum()), int((~member).sum())
    if n1 == 0 or n0 == 0:
        return float("nan")
    ranks = rankdata(scores)
    return float((ranks[member].sum() - n1 * (n1 + 1) / 2) / (n1 * n0))


# ------------------------------------------------------------------ the audit
def _call(fit_sample, frame, y, seed):
    out = fit_sample(frame, y, seed)
    if isinstance(out, tuple):
        return out[0], out[1]
    return out, None


def membership_audit(fit_sample, X, y=None, *, schema, classes=None, canaries=None,
                     canary_labels=None, n_canaries: int = 100, n_runs: int = 5,
                     attacks=ATTACKS, guess_fraction: float = 0.2, epsilon=None,
                     delta: float = 0.0, confidence: float = 0.95, bandwidth: float = 0.1,
                     rng=None) -> list:
    """Membership-inference audit of a generator; an ε lower bound per attack.

    Each run includes every canary independently with probability 1/2, fits the generator on the
    base records plus the included canaries (``fit_sample``), scores every canary from the
    synthetic output and guesses "in" for the top ``guess_fraction`` of scores and "out" for the
    bottom ``guess_fraction`` (abstaining in between). The runs together are one mechanism in
    which each canary changes one run's input by one record, so the pooled count of correct
    guesses gives a valid lower bound on the generator's ε under add/remove neighbours
    (:func:`one_run_epsilon_lower`) at the generator's claimed δ.

    Parameters
    ----------
    fit_sample : callable ``(frame, labels, seed) -> synthetic frame or (frame, labels)``
        Fits the generator on the given records and returns a synthetic sample (the size is
        the caller's choice; the same size in every run).
    X : pandas.DataFrame
        The records; without explicit ``canaries``, ``n_canaries`` of them (chosen at random)
        are the canaries and the rest the base table.
    y : array_like, optional
        Labels (then ``classes`` must be the public class list).
    schema : TableSchema
        The public schema, for the attack's distance (numeric columns scaled by their bounds).
    canaries, canary_labels : optional
        Crafted canary records (e.g. outliers) instead of records drawn from ``X``.
    n_canaries, n_runs : int
    attacks : sequence of {"dcr", "shadow"}
        The shadow attack fits the generator once more per run, on the base records alone.
    guess_fraction : float in (0, 0.5]
    epsilon, delta : float
        The generator's claimed (ε, δ): δ enters the bound, ε is reported beside it.
    confidence : float
    bandwidth : float
        Kernel bandwidth of the shadow attack in the encoded space.
    rng : None, int or Generator
        Drives the canary choice, inclusion coins and the seeds passed to ``fit_sample``.
        ``None`` (default): the secure per-process stream. A seed makes the whole audit (and so
        the generator's fits, through the seeds it passes) replayable by whoever knows it.

    Returns
    -------
    list of MembershipAuditResult
        One per attack.

    References
    ----------
    .. [1] T. Steinke, M. Nasr, M. Jagielski, "Privacy auditing with one (1) training run",
       NeurIPS 2023.
    .. [2] B. van Breugel, H. Sun, Z. Qian, M. van der Schaar, "Membership inference attacks
       against synthetic data through overfitting detection" (DOMIAS), AISTATS 2023.
    .. [3] T. Stadler, B. Oprisanu, C. Troncoso, "Synthetic data – anonymisation groundhog
       day", USENIX Security 2022.
    .. [4] docs/synth_audit.md.
    """
    import pandas as pd

    attacks = tuple(attacks)
    bad = [a for a in attacks if a not in ATTACKS]
    if bad or not attacks:
        raise InvalidParameterError("attacks", f"must be a non-empty subset of {ATTACKS}, got {attacks}")
    if not 0.0 < float(guess_fraction) <= 0.5:
        raise InvalidParameterError("guess_fraction", f"must be in (0, 0.5], got {guess_fraction}")
    if int(n_runs) < 1:
        raise InvalidParameterError("n_runs", f"must be >= 1, got {n_runs}")
    check_probability(confidence, "confidence")
    if not 0.0 <= float(delta) < 1.0:
        raise InvalidParameterError("delta", f"must be in [0, 1), got {delta}")
    if (y is None) != (classes is None):
        raise InvalidParameterError("classes", "give the public classes exactly when labels are given")
    gen = public_randomness(rng)  # the audit's own coin flips: no private value is released
    y_arr = None if y is None else np.asarray(y)
    if canaries is None:
        m = int(n_canaries)
        if not 2 <= m < len(X):
            raise InvalidParameterError("n_canaries", f"must be in [2, rows of X), got {n_canaries}")
        pick = gen.shuffled_indices(len(X))
        can_idx, base_idx = pick[:m], np.sort(pick[m:])
        base = X.iloc[base_idx].reset_index(drop=True)
        can = X.iloc[can_idx].reset_index(drop=True)
        y_base = None if y_arr is None else y_arr[base_idx]
        y_can = None if y_arr is None else y_arr[can_idx]
    else:
        base, y_base = X.reset_index(drop=True), y_arr
        can = canaries.reset_index(drop=True)
        y_can = None if canary_labels is None else np.asarray(canary_labels)
        if (y_can is None) != (y_base is None):
            raise InvalidParameterError("canary_labels", "give labels for the canaries exactly when y is given")
        m = len(can)
        if m < 2:
            raise InvalidParameterError("canaries", "need at least 2 canary records")
    enc_can = encode_records(can, schema, y_can, classes)
    g = max(1, int(math.floor(float(guess_fraction) * m)))
    scores = {a: [] for a in attacks}
    members = []
    for _ in range(int(n_runs)):
        inside = gen.uniform_on(m) < 0.5
        frame = pd.concat([base, can[inside]], ignore_index=True)
        labels = None if y_base is None else np.concatenate([y_base, y_can[inside]])
        X_syn, y_syn = _call(fit_sample, frame, labels, int(gen.integers_below(2 ** 31)))
        enc_syn = encode_records(X_syn, schema, y_syn if y_can is not None else None, classes)
        if "dcr" in attacks:
            scores["dcr"].append(dcr_scores(enc_can, enc_syn))
        if "shadow" in attacks:
            X_sh, y_sh = _call(fit_sample, base, y_base, int(gen.integers_below(2 ** 31)))
            enc_sh = encode_records(X_sh, schema, y_sh if y_can is not None else None, classes)
            scores["shadow"].append(shadow_scores(enc_can, enc_syn, enc_sh, bandwidth))
        members.append(inside)
    members = np.array(members)
    results = []
    total = int(n_runs) * m
    for a in attacks:
        S = np.array(scores[a])
        correct = 0
        for run in range(int(n_runs)):
            # rank with random tie-breaking (ties carry no information about membership)
            order = np.lexsort((gen.uniform_on(m), S[run]))
            correct += int(members[run][order[-g:]].sum() + (~members[run][order[:g]]).sum())
        guesses = 2 * g * int(n_runs)
        lo, hi = clopper_pearson_interval(correct, guesses, confidence)
        eps_lo = one_run_epsilon_lower(guesses, correct, total, float(delta), confidence)

        def logit(p):
            p = min(max(p, 1e-300), 1 - 1e-16)
            return max(0.0, math.log(p / (1.0 - p)))

        results.append(MembershipAuditResult(
            attack=a, epsilon_lower_bound=eps_lo,
            epsilon_claimed=None if epsilon is None else float(epsilon), delta=float(delta),
            correct=correct, guesses=guesses, accuracy=correct / guesses,
            accuracy_interval=(float(lo), float(hi)), epsilon_interval=(logit(lo), logit(hi)),
            auc=_auc(S.ravel(), members.ravel()), n_runs=int(n_runs), n_canaries=m,
            confidence=float(confidence),
            notes=("a lower bound from one attack: a small value is not evidence of privacy; the "
                   "formal epsilon is the generator's proof",)))
    return results
