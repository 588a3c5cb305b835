"""A stream() that names the response or a fixed term's column is refused; a glob skips them."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from one_phase import ONE_PHASE

import streamreg as sr
from streamreg.lexer import FormulaError


@pytest.fixture(scope="module")
def data() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    d = pd.DataFrame(rng.normal(size=(60, 4)), columns=["y", "age", "x1", "x2"])
    d["y"] += 2 * d["x1"]
    return d


@pytest.mark.parametrize(("formula", "name"), [("y ~ stream(y, x1)", "y"), ("y ~ age + stream(age, x1)", "age"),
                                               ("y ~ C(age) + stream(x1, age)", "age")])
def test_a_named_column_of_the_model_is_refused(data, formula, name):
    before = data.copy(deep=True)
    with pytest.raises(FormulaError, match=rf"^stream\([^)]*\): '{name}' is taken \(the response, a fixed term on "
                       r"its own, an offset or weights column, or a candidate of an earlier stream\), so it "
                       r"cannot be a candidate here; remove it from the stream$"):
        sr.streamreg(formula, data, passes=1, **ONE_PHASE)
    pd.testing.assert_frame_equal(data, before)


def test_a_column_the_fixed_terms_only_transform_is_offered_when_named(data):
    fit = sr.streamreg("y ~ np.log(age + 5) + stream(x1, age)", data, passes=1, **ONE_PHASE)
    assert fit.history["term"].tolist()[:2] == ["x1", "age"]


def test_a_weights_column_named_in_a_stream_is_refused(data):
    d = data.assign(w=1.0 + np.arange(len(data)) % 3)
    with pytest.raises(FormulaError, match=r"'w' is taken"):
        sr.streamreg("y ~ stream(x1, w)", d, var_weights="w", passes=1, **ONE_PHASE)


def test_a_glob_skips_the_model_columns(data):
    fit = sr.streamreg("y ~ age + stream(*)", data, passes=1, **ONE_PHASE)
    assert set(fit.history["term"]) == {"x1", "x2"}
    assert fit.selected_terms == ["x1"]


def test_the_dask_frame_path_offers_a_transformed_column_too(data):
    dd = pytest.importorskip("dask.dataframe")
    ddf = dd.from_pandas(data, npartitions=2)
    here = sr.streamreg("y ~ np.log(age + 5) + stream(x1, age)", data, passes=1, **ONE_PHASE)
    there = sr.streamreg("y ~ np.log(age + 5) + stream(x1, age)", ddf, passes=1, **ONE_PHASE)
    assert there.history["term"].tolist() == here.history["term"].tolist()
    np.testing.assert_allclose(there.history["statistic"], here.history["statistic"], rtol=1e-10)
    assert there.selected_terms == here.selected_terms


@pytest.mark.parametrize("option", ["offset", "exposure", "freq_weights", "var_weights"])
def test_the_response_cannot_be_an_offset_or_weights_column(data, option):
    d = data.assign(y=data["y"].abs() + 1)  # positive, so exposure and weights are not refused for their values
    with pytest.raises(ValueError, match=r"^'y' is the response and cannot also be an offset, exposure or weights "
                                         r"column \(offset=, exposure=, freq_weights=, var_weights=\)$"):
        sr.streamreg("y ~ stream(x1, x2)", d, family="poisson" if option == "exposure" else "gaussian",
                     **{option: "y"})


def test_a_column_is_a_candidate_of_one_stream_only(data):
    # named again in a later stream: refused; a later glob skips it (it was tested twice before)
    with pytest.raises(FormulaError, match=r"^stream\(x2, x1, name='b'\): 'x1' is taken .*a candidate of an earlier "
                                           r"stream"):
        sr.streamreg("y ~ stream(x1, name='a') + stream(x2, x1, name='b')", data, passes=1, **ONE_PHASE)
    fit = sr.streamreg("y ~ stream(x1, name='a') + stream(x*, name='b')", data, passes=1, **ONE_PHASE)
    assert fit.history["term"].tolist().count("x1") == 1 and set(fit.history["term"]) == {"x1", "x2"}
    with pytest.raises(FormulaError, match="'age' is taken"):  # a transformed fixed column: once, not twice
        sr.streamreg("y ~ np.log(age + 5) + stream(age, name='a') + stream(age, name='b')", data, passes=1, **ONE_PHASE)
