import numpy as np
import pytest

from matrixdp._validation import check_finite_array, check_in_bounds
from matrixdp.errors import InvalidParameterError, InvalidShapeError, NonFiniteInputError, OutOfBoundsError


@pytest.mark.parametrize("bad", [[1.0, np.nan], [np.inf], [[0.0, -np.inf]]])
def test_non_finite_rejected(bad):
    with pytest.raises(NonFiniteInputError, match="value"):
        check_finite_array(bad)


def test_shape_and_ndim_checks():
    with pytest.raises(InvalidShapeError, match="ndim|dimension"):
        check_finite_array(np.zeros(3), ndim=2)
    with pytest.raises(InvalidShapeError, match=r"\(2, 2\)"):
        check_finite_array(np.zeros((2, 3)), shape=(2, 2))


def test_non_numeric_and_complex_rejected():
    with pytest.raises(InvalidParameterError):
        check_finite_array(np.array(["a", "b"]))
    with pytest.raises(InvalidParameterError, match="complex"):
        check_finite_array(np.array([1j]))


def test_bounds():
    check_in_bounds(np.array([[0.0, 1.0]]), np.array([0, 0]), np.array([1, 1]))
    with pytest.raises(OutOfBoundsError, match="outside the declared public bounds") as caught:
        check_in_bounds(np.array([[0.0, 1.5]]), np.array([0, 0]), np.array([1, 1]))
    assert "1.5" not in str(caught.value) and "1 entries" not in str(caught.value)  # no data


@pytest.mark.parametrize("value", [0, 0.0, 3, 2.5, np.float32(1.5)])
def test_check_nonnegative_accepts_finite_values_at_or_above_zero(value):
    from matrixdp._validation import check_nonnegative

    assert check_nonnegative(value, "z") == float(value)


@pytest.mark.parametrize("value", [-1e-12, float("nan"), float("inf"), True, "3", None])
def test_check_nonnegative_refuses_negatives_non_finite_and_non_numbers(value):
    from matrixdp._validation import check_nonnegative

    with pytest.raises(InvalidParameterError, match="z"):
        check_nonnegative(value, "z")


def test_check_unit_interval_is_closed():
    from matrixdp._validation import check_unit_interval

    assert check_unit_interval(0, "s") == 0.0 and check_unit_interval(1, "s") == 1.0
    for bad in (-0.01, 1.01, float("nan"), False, "0.5"):
        with pytest.raises(InvalidParameterError, match="s"):
            check_unit_interval(bad, "s")


# ------------------------------------------------------------------ check_atoms (public atoms)
def test_check_atoms_returns_sorted_floats_and_names_argument_and_column():
    from matrixdp._validation import check_atoms

    assert check_atoms([10, 0, 2.5], 0.0, 10.0, integer=False, column="x", argument="atoms") == (0.0, 2.5, 10.0)
    assert check_atoms([], 0.0, 1.0, integer=False, column="x", argument="atoms") == ()
    assert check_atoms(np.array([3, 1]), 0.0, 9.0, integer=True, column="k", argument="atoms") == (1.0, 3.0)
    for bad, fragment in (([11], "atom 11 is outside its public range \\[0, 10\\]"),
                          ([1, 1], "duplicate atoms"), ([True], "must be a number"),
                          ("0", "must be a list of numbers"), ([float("inf")], "outside")):
        with pytest.raises(InvalidParameterError, match=fragment) as info:
            check_atoms(bad, 0.0, 10.0, integer=False, column="earn", argument="--bounds")
        assert str(info.value).startswith("--bounds: column 'earn': ")
    with pytest.raises(InvalidParameterError, match="atom 0.5 is not an integer"):
        check_atoms([0.5], 0.0, 10.0, integer=True, column="k", argument="atoms")


# ---- task BA (session 18): delta too large for a split budget ------------------------------------
def test_check_part_epsilon_names_delta():
    from matrixdp._validation import check_part_epsilon
    from matrixdp.errors import InvalidPrivacyParameterError

    assert check_part_epsilon(0.25, 1e-6) == 0.25
    with pytest.raises(InvalidPrivacyParameterError) as info:
        check_part_epsilon(0.0, 0.4)
    assert info.value.argument == "delta" and "0.4" in str(info.value)


@pytest.mark.parametrize("name", ["DPCovariance", "DPPCA", "DPLinearRegression",
                                  "AdaSSPRegression", "BoostedAdaSSPRegression"])
def test_a_delta_too_large_for_the_split_is_refused_naming_delta(name):
    """With delta >= ~0.2 a part of a budget split in Gaussian DP has epsilon 0 at that delta,
    and the fit failed with "epsilon: must be finite and > 0, got 0.0" although the caller's
    epsilon was 1. The refusal must name delta, before anything is charged."""
    import matrixdp.models as models
    from matrixdp import Accountant
    from matrixdp.errors import InvalidPrivacyParameterError

    rng = np.random.default_rng(0)
    X = rng.uniform(0, 1, (200, 3))
    y = X.sum(axis=1)
    kw = dict(bounds=(0, 1)) if name in ("DPCovariance", "DPPCA") else \
        dict(bounds_X=(0, 1), bounds_y=(0, 3))
    acc = Accountant()
    est = getattr(models, name)(epsilon=1.0, delta=0.5, random_state=0, accountant=acc, **kw)
    with pytest.raises(InvalidPrivacyParameterError) as info:
        est.fit(X, y)
    assert info.value.argument == "delta" and "0.5" in str(info.value)
    getattr(models, name)(epsilon=1.0, delta=1e-3, random_state=0, **kw).fit(X, y)  # still fits
    assert len(acc.spends) == 0


@pytest.mark.parametrize("name", ["DPCovariance", "DPPCA"])
def test_a_refused_delta_charges_nothing(name):
    """The adaptive path (the default) builds its plans before it charges: a delta refused by
    the first look's plan leaves nothing charged (it charged the whole guarantee before)."""
    import matrixdp.models as models
    from matrixdp import Accountant
    from matrixdp.errors import InvalidPrivacyParameterError

    X = np.random.default_rng(0).uniform(0, 1, (200, 3))
    acc = Accountant()
    with pytest.raises(InvalidPrivacyParameterError):
        getattr(models, name)(epsilon=1.0, delta=0.5, bounds=(0, 1), accountant=acc).fit(X)
    assert len(acc.spends) == 0


def test_check_box_bounds_is_the_one_check_of_a_public_box():
    """Shared by the record sums and ``project_feasible`` (which wrote it a second time)."""
    from matrixdp._validation import check_box_bounds
    from matrixdp.errors import InvalidParameterError, InvalidShapeError

    upper = np.array([1.0, 2.0])
    lo, hi = check_box_bounds(0.0, upper, 2, "box")
    assert np.array_equal(lo, [0.0, 0.0]) and np.array_equal(hi, upper)
    assert hi is not upper  # a copy: the caller's array is never aliased
    with pytest.raises(InvalidShapeError, match="box: .*2 entries"):
        check_box_bounds([0.0, 0.0, 0.0], upper, 2, "box")
    with pytest.raises(InvalidShapeError, match="box"):
        check_box_bounds([0.0], upper, 2, "box")
    with pytest.raises(InvalidParameterError, match="box: public bounds must be finite"):
        check_box_bounds([0.0, np.nan], upper, 2, "box")
    with pytest.raises(InvalidParameterError, match="box: every lower bound must be <="):
        check_box_bounds([0.0, 3.0], upper, 2, "box")


def test_check_choice_returns_a_member_and_names_the_argument_otherwise():
    from matrixdp._validation import check_choice
    assert check_choice("b", ("a", "b"), "kind") == "b"
    with pytest.raises(InvalidParameterError, match=r"kind.*must be one of \('a', 'b'\), got 'c'"):
        check_choice("c", ("a", "b"), "kind")


@pytest.mark.parametrize("bad", [np.array(["a", "b"]), [1, 2], {"a": 1}, None])
def test_check_choice_rejects_values_that_cannot_be_compared(bad):
    # an array used to escape as numpy's "truth value is ambiguous" ValueError; every value
    # that is not one of the choices is the parameter error
    from matrixdp._validation import check_choice
    with pytest.raises(InvalidParameterError, match="must be one of"):
        check_choice(bad, ("a", "b"), "kind")


def test_estimators_and_mechanisms_share_the_one_choice_check():
    # a parameter validated by check_choice gives the same message everywhere
    from matrixdp.mechanisms import GaussianMechanism
    with pytest.raises(InvalidParameterError, match=r"calibration.*must be one of .*got 'nope'"):
        GaussianMechanism(epsilon=1.0, delta=1e-6, sensitivity=1.0, calibration="nope")
    with pytest.raises(InvalidParameterError, match=r"calibration.*must be one of"):
        GaussianMechanism(epsilon=1.0, delta=1e-6, sensitivity=1.0,
                          calibration=np.array(["analytic", "classical"]))
