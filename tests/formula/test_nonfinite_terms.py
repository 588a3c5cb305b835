"""A transformed term with NaN or infinite values is refused with the number of rows and the
first row label."""

import numpy as np
import pandas as pd
import pytest

import streamreg as sr
from streamreg.formula.checks import nonfinite_term_message


def test_nonfinite_term_message_counts_rows_and_names_the_first():
    values = pd.DataFrame({"t": [1.0, np.nan, -np.inf, 2.0]}, index=["a", "b", "c", "d"])
    assert nonfinite_term_message("the candidate term 't'", values) == (
        "the candidate term 't' has NaN or infinite values (e.g. from its transformation) in 2 rows, the first at "
        "row label 'b'; compute it as a column of the data first, then drop or impute those rows")
    one = nonfinite_term_message("the candidate term 't'", values.iloc[[0, 1, 3]])
    assert one is not None and "in 1 row, the first at row label 'b'" in one
    assert nonfinite_term_message("the candidate term 't'", values.iloc[[0, 3]]) is None


def test_transformed_candidate_with_nan_says_where():
    d = sr.datasets.load("cleve").data
    d.index = d.index + 100
    with np.errstate(all="ignore"):
        bad = ~np.isfinite(np.log(d["oldpeak"].to_numpy() - 1))
    message = (rf"^the candidate term 'np.log\(oldpeak - 1\)' has NaN or infinite values \(e.g. from its "
               rf"transformation\) in {bad.sum()} rows, the first at row label {d.index[bad][0]}; compute it as a column")
    with pytest.raises(ValueError, match=message), np.errstate(all="ignore"):
        sr.streamreg("diagnosis ~ stream(np.log(oldpeak - 1))", d, family="binomial")
