"""The fixed design's collinearity check: each column's part outside the span of those before it
(the R of a QR) against its norm, both safe from overflow, so that a column's scale never
decides; one column needs no factorisation (its R is its norm)."""
from __future__ import annotations

import numpy as np
import pytest

import streamreg as sr
from streamreg.formula.matrices import check_fixed_values

SCALES = [1e-300, 1e-170, 1.0, 1e170, 1e200]


@pytest.mark.parametrize("scale", SCALES)
def test_columns_at_any_scale_pass_and_collinear_ones_are_refused(scale):
    rng = np.random.default_rng(0)
    one = np.full((8, 1), scale)
    check_fixed_values(one, ["a"], 8)
    two = np.column_stack([np.ones(8), rng.normal(size=8) * scale])
    check_fixed_values(two, ["a", "b"], 8)
    with pytest.raises(ValueError, match=r"the fixed terms are collinear: \['b'\]"):
        check_fixed_values(np.column_stack([one[:, 0], 2 * one[:, 0]]), ["a", "b"], 8)
    with pytest.raises(ValueError, match=r"the fixed terms are collinear: \['a'\]"):
        check_fixed_values(np.zeros((8, 1)), ["a"], 8)


def test_the_r_of_one_column_is_its_norm():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(50, 1))
    r = np.linalg.qr(x, mode="r")
    assert abs(r[0, 0]) == pytest.approx(np.linalg.norm(x), rel=1e-15)
    check_fixed_values(x, ["a"], 50)


def test_a_fixed_column_near_1e200_is_fitted_not_refused():
    """It was refused as collinear: its squared norm overflowed.  The refit warns of its variance."""
    rng = np.random.default_rng(0)
    z, x = rng.normal(size=100), rng.normal(size=(100, 20))
    y = 2 * z + x[:, 3] + rng.normal(size=100)
    with pytest.warns(sr.RefitWarning, match="outside floating-point range"):
        big = sr.select(y, x, fixed=z[:, None] * 1e200)
    plain = sr.select(y, x, fixed=z[:, None])
    assert big.selected_terms == plain.selected_terms
    assert big.params["fixed0"] * 1e200 == pytest.approx(plain.params["fixed0"], rel=1e-10)
