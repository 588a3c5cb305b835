"""``predict`` on new data: a dict of columns (left alone, Series keeping their labels, scalars
repeated), ``which=`` and the linear scale as statsmodels gives them, and messages that name
what the model needs."""
import copy
import re

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
import statsmodels.formula.api as smf

import streamreg as sr


@pytest.fixture(scope="module")
def poisson_fit():
    rng = np.random.default_rng(5)
    df = pd.DataFrame(rng.normal(size=(120, 4)), columns=["a", "b", "c", "d"])
    df["g"] = rng.choice(["u", "v", "w"], 120)
    df["y"] = rng.poisson(np.exp(0.3 + 0.6 * df["a"] - 0.4 * df["c"] + 0.5 * (df["g"] == "w")))
    fit = sr.streamreg("y ~ C(g) + stream(a, b, c, d)", df, family="poisson", w0=0.05, alpha_delta=0.05)
    assert fit.selected_terms == ["a", "c"]
    return fit


@pytest.fixture(scope="module")
def new_rows():
    return {"a": np.array([0.0, 1.0, -0.5]), "c": np.array([0.2, -1.0, 0.0]), "g": ["u", "w", "v"]}


def test_predict_equals_statsmodels_on_both_scales(poisson_fit, new_rows):
    ref = smf.glm(poisson_fit.selected_formula, poisson_fit.model_frame(), family=sm.families.Poisson()).fit()
    frame = pd.DataFrame(new_rows)
    for which in ("linear", "mean"):
        expected = ref.predict(frame, which=which).to_numpy()
        np.testing.assert_allclose(poisson_fit.predict(frame, which=which), expected, rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(poisson_fit.predict(new_rows, which=which), expected, rtol=1e-10, atol=1e-10)
    np.testing.assert_array_equal(poisson_fit.predict(frame, linear=True), poisson_fit.predict(frame, which="linear"))
    np.testing.assert_array_equal(poisson_fit.predict(frame, linear=True, which="linear"),
                                  poisson_fit.predict(frame, which="linear"))
    np.testing.assert_array_equal(poisson_fit.predict(frame, linear=False, which="mean"), poisson_fit.predict(frame))
    lin = poisson_fit.get_prediction(new_rows, which="linear").summary_frame()
    np.testing.assert_allclose(lin["predicted"], ref.predict(frame, which="linear"), rtol=1e-10, atol=1e-10)


def test_predict_takes_a_dict_and_leaves_it_alone(poisson_fit, new_rows):
    given = copy.deepcopy(new_rows)
    pred = poisson_fit.predict(given)
    assert list(pred.index) == [0, 1, 2]
    np.testing.assert_array_equal(pred, poisson_fit.predict(pd.DataFrame(new_rows)))
    assert given.keys() == new_rows.keys()
    for key in new_rows:
        np.testing.assert_array_equal(given[key], new_rows[key])
    # the other methods that take new data take a dict as well
    pd.testing.assert_frame_equal(poisson_fit.design(given), poisson_fit.design(pd.DataFrame(new_rows)))
    pd.testing.assert_frame_equal(poisson_fit.model_frame(given), poisson_fit.model_frame(pd.DataFrame(new_rows)))
    pd.testing.assert_frame_equal(poisson_fit.augment(given), poisson_fit.augment(pd.DataFrame(new_rows)))


def test_predict_dict_of_series_keeps_their_labels_and_scalars_repeat(poisson_fit):
    idx = [10, 20]
    pred = poisson_fit.predict({"a": pd.Series([0.0, 1.0], index=idx), "c": pd.Series([0.5, 0.5], index=idx),
                                "g": "v"})
    expected = poisson_fit.predict(pd.DataFrame({"a": [0.0, 1.0], "c": [0.5, 0.5], "g": ["v", "v"]}, index=idx))
    pd.testing.assert_series_equal(pred, expected)
    one = poisson_fit.predict({"a": 0.0, "c": 0.5, "g": "v"})  # scalars only: one row
    assert len(one) == 1 and one.iloc[0] == pytest.approx(expected.iloc[0], rel=1e-14)


@pytest.mark.parametrize("kwargs, error, message", [
    ({"which": "var_unscaled"}, ValueError, r"which must be 'mean' or 'linear' \(statsmodels' names\), got 'var_unscaled'"),
    ({"which": 1}, ValueError, "which must be 'mean' or 'linear'"),
    ({"which": "mean", "linear": True}, ValueError,
     "linear=True and which='mean' ask for different scales; pass only one of them"),
    ({"which": "linear", "linear": False}, ValueError, "linear=False and which='linear' ask for different scales"),
    ({"linear": "yes"}, TypeError, "linear must be True or False, got 'yes'"),
])
def test_predict_refuses_bad_scale_options(poisson_fit, new_rows, kwargs, error, message):
    with pytest.raises(error, match=message):
        poisson_fit.predict(new_rows, **kwargs)
    with pytest.raises(error, match=message):
        poisson_fit.get_prediction(new_rows, **kwargs)


@pytest.mark.parametrize("newdata, error, message", [
    ({"a": [0.0, 1.0], "c": [1.0], "g": ["u", "v"]}, ValueError,
     "the columns of newdata must have the same number of values: 'a' has 2, 'c' has 1, 'g' has 2"),
    ({"a": np.zeros((2, 2)), "c": [1.0, 2.0], "g": "u"}, ValueError,
     r"newdata\['a'\] must be one-dimensional \(one value per row\), got ndarray of 2-D shape"),
    ({"a": [[1.0], [1.0, 2.0]], "c": [1.0, 2.0], "g": "u"}, ValueError,
     r"newdata\['a'\] must be one-dimensional .*ragged"),
    ({"a": [0.0], "g": ["u"]}, ValueError, r"newdata lacks the column\(s\) \['c'\]"),
    ([[0.0, 1.0]], TypeError, "newdata must be a pandas DataFrame or a dict with the model's columns: a, c, g; got list"),
])
def test_predict_refuses_bad_new_data(poisson_fit, newdata, error, message):
    with pytest.raises(error, match=message):
        poisson_fit.predict(newdata)


def test_predict_on_an_array_fit_names_the_columns_it_needs():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(100, 50))
    y = x[:, 3] - x[:, 7] + 0.3 * rng.normal(size=100)
    fit = sr.select(y, x, w0=0.05, alpha_delta=0.05)
    assert fit.selected_terms == ["x3", "x7"]
    with pytest.raises(TypeError, match="^newdata must be a pandas DataFrame or a dict with the model's columns: "
                                        "x3, x7; got ndarray$"):
        fit.predict(x)
    np.testing.assert_allclose(fit.predict({"x3": x[:5, 3], "x7": x[:5, 7]}), fit.predict()[:5], rtol=1e-12)


def test_not_a_frame_message_shortens_a_long_column_list():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(200, 14))
    y = x @ np.ones(14) + 0.1 * rng.normal(size=200)
    fit = sr.select(y, x, method="alpha-investing", w0=0.05, alpha_delta=0.05)
    need = sorted(fit.selected_terms, key=lambda name: int(name[1:]))
    assert len(need) > 10
    listed = ", ".join(need[:10]) + f", ... ({len(need)} columns)"
    with pytest.raises(TypeError, match=re.escape(f"with the model's columns: {listed}; got ndarray") + "$"):
        fit.predict(x)
