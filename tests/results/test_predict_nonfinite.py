"""A new row on which a selected transformed term is NaN or infinite is
predicted as NaN (like a row with a missing input), with no RuntimeWarning; ``design()``
names the term and the row."""
import warnings

import numpy as np
import pandas as pd
import pytest
from one_phase import ONE_PHASE

import streamreg as sr


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(1)
    n = 200
    d = pd.DataFrame(rng.uniform(0.5, 3, size=(n, 4)), columns=["x1", "x2", "x3", "x4"])
    d["y"] = 3 * np.log(d["x2"]) + rng.normal(scale=0.3, size=n)
    return d


@pytest.fixture(scope="module")
def fit(data):
    fit = sr.streamreg("y ~ pca(x*, k=3) + transform(x*, fn='log')", data, passes=3, **ONE_PHASE)
    assert "np.log(x2)" in fit.selected_terms
    return fit


@pytest.fixture
def new(data):
    new = data.head(5).copy()
    new.index = [10, 11, 12, 13, 14]
    new.loc[11, "x2"] = -1.0  # log: NaN
    new.loc[12, "x2"] = 0.0  # log: -inf
    new.loc[14, "x3"] = np.nan  # a missing input, NaN as before
    return new


def test_nonfinite_term_rows_are_predicted_as_nan(fit, new):
    before = new.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning from np.log leaks
        pred = fit.predict(new)
    assert pred.index.tolist() == [10, 11, 12, 13, 14]
    assert pred.isna().tolist() == [False, True, True, False, True]
    good = new.loc[[10, 13]]
    np.testing.assert_allclose(pred.loc[[10, 13]], fit.predict(good), rtol=1e-12)
    pd.testing.assert_frame_equal(new, before)  # the caller's frame is untouched


def test_get_prediction_and_augment_give_nan_too(fit, new):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        frame = fit.get_prediction(new).summary_frame()
        augmented = fit.augment(new)
    assert frame["mean"].isna().tolist() == [False, True, True, False, True]
    assert augmented[".fitted"].isna().tolist() == [False, True, True, False, True]


def test_linear_scale_of_a_glm(data):
    d = data.assign(y=(data["y"] > data["y"].median()).astype(int))
    fit = sr.streamreg("y ~ transform(x*, fn='log')", d, family="binomial")
    new = d.head(3).copy()
    col = fit.selected_terms[0][len("np.log("):-1]
    new.loc[new.index[1], col] = -2.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert fit.predict(new, which="linear").isna().tolist() == [False, True, False]


def test_design_names_the_term_and_the_row(fit, new):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=r"the term 'np.log\(x2\)' is NaN on the new data's row\(s\) 11 \(a "
                                             r"missing value, or e.g. the log of a value <= 0\); predict\(\) gives "
                                             "NaN for such rows"):
            fit.design(new.drop(index=14))
