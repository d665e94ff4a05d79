"""experiments/claims_audit.py: which numbers count as claims, and when a number counts as found."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"
sys.path.insert(0, str(EXPERIMENTS))

ca = importlib.import_module("claims_audit")


def _raw(text: str) -> list[str]:
    return [n["raw"] for n in ca.claim_numbers(text)]


def _found(claim: str, file_text: str) -> list[str]:
    """The claim's numbers that are NOT found in the file text."""
    values, lines = ca.file_numbers(file_text)
    unmatched, _ = ca.check(ca.claim_numbers(claim), values, lines, [])
    return unmatched


def test_settings_versions_references_and_code_are_not_claims():
    text = ("At ε = 1, 3 and 10 with δ = 1e-6, ε ∈ {0.3, 1, 3} (issue #26, §4c, Table 3) diffprivlib 0.6.6 "
            "and `coinpress_beta=0.5` on 2000x2000, run 2026-11-28 23:49, Tang et al. 2024: 1.38× better")
    assert _raw(text) == ["1.38"]


def test_formatting_variants_are_found():
    assert _found("accuracy 0.830 and 1.2e-06 and 4,135× and 2·10⁵", "0.83004 1.20e-06 4135 200000") == []
    assert _found("at least 93% of the entries", "mean coverage 0.932") == []
    assert _found("means 94.5–96.9%", "0.945 – 0.969") == []


def test_a_wrong_number_is_not_found():
    # 0.99 against 1.03 / 1: the stale README number this audit fixed
    assert _found("regression test RMSE 0.99–22.9×", "adult 1.03×, movement_aal 1×, synthetic 22.9×") == ["0.99"]
    # a different rounding is not a match: 0.423 against 0.4172
    assert _found("ours is 0.423", "Random guess 0.4172") == ["0.423"]


def test_ratio_derived_from_two_numbers_of_one_line():
    nums = ca.claim_numbers("the default is 2.5× the best")
    values, lines = ca.file_numbers("| lending_club | 1 | 0.754 | 0.307 |\n| other | 9 | 8 |")
    unmatched, derived = ca.check(nums, values, lines, [])
    assert unmatched == [] and derived == ["2.5"]
    # the same ratio across two lines is not derived
    values, lines = ca.file_numbers("| a | 0.754 |\n| b | 0.307 |")
    unmatched, derived = ca.check(nums, values, lines, [])
    assert unmatched == ["2.5"] and derived == []


def test_scattered_numbers_are_flagged():
    # each number is in the file, but 2.6 only on a line of its own: how a stale number hides
    nums = ca.claim_numbers("The ratio runs from 1.13 to 25, with a median of 2.6.")
    lines = ca.file_numbers("x 1.13 and 25 here\nan unrelated 2.6\n")[1]
    assert not ca.together(nums, lines)
    lines = ca.file_numbers("min 1.13, median 2.6, max 25\n")[1]
    assert ca.together(nums, lines)
