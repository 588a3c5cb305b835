"""One evaluation environment: ``functions=`` is available to every formula term -- fixed
terms, stream candidates, generated classes, interactions and the refit -- with one calling
convention, while the namespace stays restricted."""
import pickle

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

import streamreg as sr
from streamreg.formula import FormulaError


def cube(v):
    return v**3


@pytest.fixture(scope="module")
def df():
    rng = np.random.default_rng(11)
    n = 250
    d = pd.DataFrame(rng.normal(size=(n, 6)), columns=["a", "x1", "x2", "x3", "x4", "x5"])
    d["y"] = 0.5 * d.a**3 + d.x2 - 0.8 * d.x4 + 0.5 * rng.normal(size=n)
    return d


def _same_fit(fit, ref, new, pre_new):
    np.testing.assert_allclose(fit.params.to_numpy(), ref.params.to_numpy(), rtol=1e-10)
    np.testing.assert_allclose(fit.predict(new).to_numpy(), ref.predict(pre_new).to_numpy(), rtol=1e-10)


def test_function_in_a_fixed_term(df):
    fit = sr.streamreg("y ~ cube(a) + stream(x*)", df, functions={"cube": cube})
    assert fit.selected_formula.startswith("y ~ cube(a) + ")
    assert fit.params.index[1] == "cube(a)"
    pre = df.assign(ca=df.a**3)
    ref = sr.streamreg("y ~ ca + stream(x*)", pre)
    assert fit.selected_terms == ref.selected_terms
    _same_fit(fit, ref, df.tail(20), pre.tail(20))


def test_function_in_a_stream_candidate(df):
    fit = sr.streamreg("y ~ a + stream(x*, cube(a))", df, functions={"cube": cube})
    assert "cube(a)" in fit.selected_terms
    pre = df.assign(ca=df.a**3)
    ref = sr.streamreg("y ~ a + stream(x*, ca)", pre)
    assert [t.replace("cube(a)", "ca") for t in fit.selected_terms] == ref.selected_terms
    _same_fit(fit, ref, df.head(20), pre.head(20))


def test_function_in_interactions_of_a_candidate():
    rng = np.random.default_rng(5)
    n = 300
    d = pd.DataFrame(rng.normal(size=(n, 3)), columns=["a", "x1", "x2"])
    d["y"] = d.a**3 * d.x1 + 0.3 * rng.normal(size=n)
    fit = sr.streamreg("y ~ stream(x1, x2, cube(a)) + interactions()", d, functions={"cube": cube})
    inter = [t for t in fit.selected_terms if ":" in t]
    assert inter and all("cube(a)" in t for t in inter)
    cols = {"x1": d.x1, "x2": d.x2, "cube(a)": d.a**3}
    design = np.column_stack([np.ones(n)] + [np.prod([cols[f] for f in t.split(":")], axis=0)
                                             for t in fit.selected_terms])
    ref = sm.OLS(d.y.to_numpy(), design).fit()
    np.testing.assert_allclose(fit.params.to_numpy(), ref.params, rtol=1e-9)
    np.testing.assert_allclose(fit.predict(d.head(9)).to_numpy(), ref.predict(design[:9]), rtol=1e-9)


def test_one_function_in_a_fixed_term_and_a_transform(df):
    fit = sr.streamreg("y ~ cube(a) + transform(x*, fn=cube)", df, functions={"cube": cube})
    pre = df.assign(ca=df.a**3, **{f"c{j}": df[f"x{j}"] ** 3 for j in range(1, 6)})
    ref = sr.streamreg("y ~ ca + stream(c1, c2, c3, c4, c5)", pre)
    assert len(fit.params) == len(ref.params) >= 3
    _same_fit(fit, ref, df.head(15), pre.head(15))


def test_every_term_gets_the_same_calling_convention(df):
    seen = []

    def spy(v):
        seen.append((type(v), np.asarray(v).dtype, np.ndim(v)))
        return v**3

    fit = sr.streamreg("y ~ spy(a) + stream(x1, spy(x2)) + transform(x4, fn=spy)", df, functions={"spy": spy})
    fit.predict(df.head(3))
    assert len(seen) >= 4  # fixed, candidate, transform, refit and predict
    assert set(seen) <= {(np.ndarray, np.dtype(float), 2)}  # n x p float arrays, as transform() always had


def test_refit_and_predict_after_pickling(df):
    functions = {"cube": cube, "unused": lambda v: v}  # a lambda does not pickle
    fit = sr.streamreg("y ~ cube(a) + stream(x*)", df, functions=functions)
    back = pickle.loads(pickle.dumps(fit))  # only the functions the terms call are kept
    pd.testing.assert_series_equal(back.predict(df.head(8)), fit.predict(df.head(8)))
    pd.testing.assert_frame_equal(back.design(df.head(8)), fit.design(df.head(8)))


def test_functions_with_sample_splitting(df):
    fit = sr.streamreg("y ~ cube(a) + stream(x*)", df, functions={"cube": cube}, validate=0.4, seed=3)
    assert fit.validation["n_validation"] == 100
    held = df.loc[fit.predict().index]
    x = np.column_stack([np.ones(len(held)), held.a**3] + [held[t] for t in fit.selected_terms])
    ref = sm.OLS(held.y.to_numpy(), x).fit()
    np.testing.assert_allclose(fit.params.to_numpy(), ref.params, rtol=1e-10)


def test_the_namespace_stays_restricted_with_functions(df):
    with pytest.raises(FormulaError, match="the name 'nosuch' is not available in a formula"):
        sr.streamreg("y ~ nosuch(a) + stream(x*)", df, functions={"cube": cube})
    with pytest.raises(FormulaError, match="Python's built-in 'open' is not available"):
        sr.streamreg("y ~ a + stream(x*, open(a))", df, functions={"cube": cube})
    with pytest.raises(FormulaError, match="the name 'len' is not available|Python's built-in 'len'"):
        sr.streamreg("y ~ I(len(a)) + stream(x*)", df, functions={"cube": cube})
    with pytest.raises(FormulaError, match="not allowed"):
        sr.streamreg("y ~ cube(a).sum() + stream(x*)", df, functions={"cube": cube})


def test_a_failing_function_is_reported_as_a_formula_error(df):
    def broken(v):
        raise ValueError("no thanks")

    with pytest.raises(FormulaError, match="no thanks"):
        sr.streamreg("y ~ broken(a) + stream(x*)", df, functions={"broken": broken})
