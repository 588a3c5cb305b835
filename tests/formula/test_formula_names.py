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
    fit = sr.streamreg("y ~ stream(C(g, Treatment), x1)", d, method="alpha-investing")
    assert "C(g, Treatment)" in fit.selected_terms


def test_double_underscore_column_is_quoted_so_the_formula_can_be_reused():
    d = _frame()
    fit = sr.streamreg("y ~ stream(x*)", d)
    assert "Q('x__b')" in fit.selected_formula
    ref = smf.ols(fit.selected_formula, d).fit()
    np.testing.assert_allclose(fit.params.to_numpy(), ref.params.to_numpy(), rtol=1e-10)
    again = sr.streamreg("y ~ " + fit.selected_formula.split("~")[1].replace("1 + ", "stream(") + ")", d)
    assert again.selected_terms


def test_wide_frames_quote_a_builtin_name_only_where_it_is_a_candidate():
    from streamreg.formula.names import _NameTable, term_name

    columns = ["y", "sum"] + [f"x{j}" for j in range(1500)]
    table = _NameTable(columns, set(columns))
    xs = np.arange(2, len(columns))
    assert table.term_names(xs) == columns[2:]  # "sum" elsewhere in the frame changes nothing here
    both = np.arange(1, 6)
    assert table.term_names(both) == ["Q('sum')", "x0", "x1", "x2", "x3"] == [term_name(c) for c in columns[1:6]]
    names = table.names(xs)
    assert table.term_names(xs, names) is names  # plain names are not copied
