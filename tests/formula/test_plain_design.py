"""The patsy-free design of bare numeric columns equals patsy's, and defers to patsy otherwise."""
import numpy as np
import pandas as pd
import patsy
import pytest

from streamreg.formula.matrices import design_matrix, plain_design


@pytest.fixture
def frame():
    rng = np.random.default_rng(3)
    return pd.DataFrame({"a": rng.normal(size=8), "b": rng.integers(-3, 4, 8), "u": rng.integers(0, 9, 8).astype("uint8"),
                         "flag": rng.integers(0, 2, 8).astype(bool), "g": list("xyxyxyxy"),
                         "miss": np.r_[np.nan, rng.normal(size=7)]}, index=np.arange(10, 18))


@pytest.mark.parametrize("rhs", ["1", "1 + a", "0 + a + b", "1 + b + a + u"])
def test_equals_patsy_to_the_bit(frame, rhs):
    fast = plain_design(rhs, frame, frame)
    assert fast is not None
    pd.testing.assert_frame_equal(fast, patsy.dmatrix(rhs, frame, return_type="dataframe"), check_exact=True)


def test_new_data_rows_and_index(frame):
    new = frame.iloc[[5, 1]].copy()
    pd.testing.assert_frame_equal(plain_design("1 + a + b", frame, new),
                                  patsy.dmatrix("1 + a + b", new, return_type="dataframe"), check_exact=True)


@pytest.mark.parametrize("rhs", ["1 + flag", "1 + g", "1 + miss", "1 + a + a", "1 + C(b)", "1 + np.log(u)",
                                 "1 + a:b", "a + b", "1 + nothere", "1 + Q('a')"])
def test_anything_else_is_left_to_patsy(frame, rhs):
    assert plain_design(rhs, frame, frame) is None


def test_design_matrix_reports_missing_values_as_before(frame):
    with pytest.raises(ValueError, match="missing"):
        design_matrix("1 + miss", frame, frame.iloc[:3])
