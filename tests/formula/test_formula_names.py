"""Contrast names and odd column names in formulas (reference: patsy/statsmodels directly)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import statsmodels.formula.api as smf

import streamreg as sr


def _frame():
    rng = np.random.default_rng(0)
    d = pd.DataFrame({"y": rng.normal(size=120), "x1": rng.normal(size=120),
                      "g": rng.choice(list("abc"), 120), "x__b": rng.normal(size=120)})
    d["y"] += 2 * d["x__b"] + (d["g"] == "c")
    return d


def test_bare_contrast_names_work_as_in_patsy():
    d = _frame()
    fit = sr.streamreg("y ~ C(g, Sum) + stream(x1)", d, w0=0.05, alpha_delta=0.05)
    ref = smf.ols("y ~ C(g, Sum)" + "".join(f" + {t}" for t in fit.selected_terms), d).fit()
    np.testing.assert_allclose(fit.params.to_numpy(), ref.params.to_numpy(), rtol=1e-10)
    fit = sr.streamreg("y ~ stream(C(g, Treatment), x1)", d)
    assert "C(g, Treatment)" in fit.selected_terms


def test_double_underscore_column_is_quoted_so_the_formula_can_be_reused():
    d = _frame()
    fit = sr.streamreg("y ~ stream(x*)", d)
    assert "Q('x__b')" in fit.selected_formula
    ref = smf.ols(fit.selected_formula, d).fit()
    np.testing.assert_allclose(fit.params.to_numpy(), ref.params.to_numpy(), rtol=1e-10)
    again = sr.streamreg("y ~ " + fit.selected_formula.split("~")[1].replace("1 + ", "stream(") + ")", d)
    assert again.selected_terms
