"""A Dask DataFrame given to ``predict`` is named as such, with the columns to compute; a Dask
array response is called ``y``, not by its graph key."""
import numpy as np
import pandas as pd
import pytest

import streamreg as sr

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")


@pytest.fixture(scope="module")
def frame():
    rng = np.random.default_rng(4)
    d = pd.DataFrame(rng.normal(size=(100, 4)), columns=["x1", "x2", "x3", "x4"])
    d["y"] = d["x1"] - d["x3"] + rng.normal(size=100)
    return d


def test_predict_on_a_dask_frame_says_what_to_compute(frame):
    fit = sr.streamreg("y ~ stream(x*)", frame)
    assert fit.selected_terms == ["x1", "x3"]
    ddf = dd.from_pandas(frame, npartitions=2)
    message = (r"newdata is a dask.dataframe.DataFrame, and the rows must be in memory: pass "
               r"newdata\[\['x1', 'x3'\]\].compute\(\), a pandas DataFrame of the columns the model uses")
    for method in (fit.predict, fit.get_prediction, fit.design, fit.model_frame, fit.augment):
        with pytest.raises(TypeError, match=message):
            method(ddf)
    # what the message suggests works
    np.testing.assert_allclose(fit.predict(ddf[["x1", "x3"]].compute()), fit.predict(frame), rtol=1e-12)


def test_dask_array_response_is_called_y(frame):
    X = frame[["x1", "x2", "x3", "x4"]].to_numpy()
    y = frame["y"].to_numpy()
    fit = sr.select(da.from_array(y, chunks=50), X)
    assert fit.selected_formula == sr.select(y, X).selected_formula == "y ~ 1 + x0 + x2"
    assert fit.response_name == "y"


def test_dask_series_response_keeps_its_name(frame):
    X = frame[["x1", "x2", "x3", "x4"]].to_numpy()
    fit = sr.select(dd.from_pandas(frame["y"].rename("resp"), npartitions=2), X)
    assert fit.selected_formula.startswith("resp ~ ")
