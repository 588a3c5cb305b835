"""A two-level response: an unused category is ignored as in R, a third observed level is
refused, and ``select()`` codes a text response as ``streamreg()`` does."""

import numpy as np
import pandas as pd
import pytest
from one_phase import ONE_PHASE

import streamreg as sr


@pytest.mark.parametrize("categories, success", [(["no", "yes", "maybe"], "yes"), (["maybe", "no", "yes"], "yes"),
                                                 (["yes", "maybe", "no"], "no")])
def test_unused_response_category_is_ignored_as_in_r(categories, success):
    d = sr.datasets.load("cleve").data
    d["sick"] = pd.Categorical(np.where(d["diagnosis"] == "sick", "yes", "no"), categories=categories)
    before = d.copy()
    fit = sr.streamreg("sick ~ stream(age, chol, thalach, oldpeak)", d, family="binomial", passes=3, **ONE_PHASE)
    pd.testing.assert_frame_equal(d, before)  # the caller's categories are kept
    observed = d.assign(sick=d["sick"].cat.remove_unused_categories())
    ref = sr.streamreg("sick ~ stream(age, chol, thalach, oldpeak)", observed, family="binomial", passes=3, **ONE_PHASE)
    assert fit.selected_formula == ref.selected_formula == f"I((sick == {success!r}) * 1) ~ 1 + age + thalach + oldpeak"
    np.testing.assert_array_equal(fit.params, ref.params)
    np.testing.assert_array_equal(fit.bse, ref.bse)


def test_three_observed_response_levels_are_still_refused():
    d = sr.datasets.load("cleve").data
    d["three"] = pd.Categorical(d["cp"], categories=[*sorted(d["cp"].unique()), "never"])
    with pytest.raises(ValueError, match=r"exactly two levels; 'three' has 4 in the rows used: \["):
        sr.streamreg("three ~ stream(age, chol)", d, family="binomial")




def test_select_codes_a_two_level_text_response_as_streamreg_does():
    ds = sr.datasets.load("wdbc")
    text = pd.Series(np.where(ds.y.to_numpy() == 1, "M", "B"), index=ds.X.index, name="diag")
    before = text.copy()
    fit = sr.select(text, ds.X.iloc[:, :5], family="binomial", w0=0.05, alpha_delta=0.05)
    ref = sr.select(ds.y.rename("diag"), ds.X.iloc[:, :5], family="binomial", w0=0.05, alpha_delta=0.05)
    assert fit.selected_terms == ref.selected_terms
    np.testing.assert_allclose(fit.params.to_numpy(), ref.params.to_numpy(), rtol=1e-12)
    assert "P(diag = 'M')" in str(fit.summary())
    pd.testing.assert_series_equal(text, before)
    cat = pd.Series(pd.Categorical(text, categories=["M", "B", "other"]), index=text.index, name="diag")
    flipped = sr.select(cat, ds.X.iloc[:, :5], family="binomial", w0=0.05, alpha_delta=0.05)
    np.testing.assert_allclose(flipped.params.to_numpy(), -ref.params.to_numpy(), rtol=1e-9)  # 'B' is success
    with pytest.raises(ValueError, match=r"^y contains missing values \(1, the first at position 3\)"):
        sr.select(text.where(np.arange(len(text)) != 3), ds.X.iloc[:, :5], family="binomial")
    with pytest.raises(ValueError, match=r"must have exactly two levels; 'diag' has 3 in the rows used"):
        sr.select(text.where(np.arange(len(text)) != 3, "X"), ds.X.iloc[:, :5], family="binomial")
