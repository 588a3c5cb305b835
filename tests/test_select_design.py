"""select()'s refit design built from the search's values (no fixed= columns) against the
design the refit formula gives on the refit frame, and the refit against statsmodels' own."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

import streamreg as sr
from streamreg.formula.matrices import design_matrix
from streamreg.select_frame import fixed_frame, selected_design, with_selected
from streamreg.streams.base import AcceptedTerm


def _term(name: str, values: np.ndarray, columns: list[str] | None = None) -> AcceptedTerm:
    values = values.reshape(len(values), -1)
    return AcceptedTerm(name=name, stream="s", values=values, columns=columns or [name])


@pytest.mark.parametrize("intercept", [True, False])
def test_selected_design_is_the_formula_design(intercept):
    rng = np.random.default_rng(0)
    n = 30
    y = rng.normal(size=n)
    accepted = [_term(f"x{j}", rng.normal(size=n) * 10.0 ** j) for j in (3, 0, 7)]
    frame, names = with_selected(accepted, fixed_frame(None, "y", y), {"y": "the response"})
    k = int(intercept)
    direct = selected_design(np.ones((n, k)), ["Intercept"] * k, accepted, names, frame)
    rhs = " + ".join(["1" if intercept else "0", *names])
    assert direct is not None
    pd.testing.assert_frame_equal(direct, design_matrix(rhs, frame, frame), check_exact=True)


def test_selected_design_leaves_unusual_terms_to_patsy():
    rng = np.random.default_rng(1)
    n = 20
    y = rng.normal(size=n)
    ones = np.ones((n, 1))
    quoted = [_term("x y", rng.normal(size=n))]  # Q("x y") in the formula
    frame, names = with_selected(quoted, fixed_frame(None, "y", y), {"y": "the response"})
    assert selected_design(ones, ["Intercept"], quoted, names, frame) is None
    wide = [_term("pair", rng.normal(size=(n, 2)), ["pair_a", "pair_b"])]  # a two-column term
    frame, names = with_selected(wide, fixed_frame(None, "y", y), {"y": "the response"})
    direct = selected_design(ones, ["Intercept"], wide, names, frame)
    if direct is not None:  # built only if it is what the formula gives
        pd.testing.assert_frame_equal(direct, design_matrix("1 + " + " + ".join(names), frame, frame))
    keyword = [_term("lambda", rng.normal(size=n))]
    frame, names = with_selected(keyword, fixed_frame(None, "y", y), {"y": "the response"})
    assert selected_design(ones, ["Intercept"], keyword, names, frame) is None


def test_select_refit_equals_statsmodels_on_the_same_design():
    """The independent reference: statsmodels' OLS on the constant and the selected columns."""
    rng = np.random.default_rng(2)
    x = rng.normal(size=(80, 60))
    y = 2.0 * x[:, 7] - 1.5 * x[:, 33] + 1.0 + rng.normal(size=80)
    fit = sr.select(y, x)
    cols = [int(t[1:]) for t in fit.selected_terms]
    assert {7, 33} <= set(cols)
    exog = pd.DataFrame(x[:, cols], columns=fit.selected_terms)
    exog.insert(0, "Intercept", 1.0)
    ref = sm.OLS(y, exog).fit()
    for attr in ("params", "bse", "pvalues"):
        np.testing.assert_allclose(getattr(fit, attr).to_numpy(), getattr(ref, attr).to_numpy(), rtol=1e-10, atol=0)
        assert list(getattr(fit, attr).index) == list(exog.columns)
    assert fit.llf == pytest.approx(ref.llf, rel=1e-12)
    pd.testing.assert_frame_equal(fit.selected_model.design(fit.selected_model.train), fit.fit.model.data.orig_exog)


def test_select_with_fixed_columns_keeps_the_formula_design():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(60, 40))
    z = pd.DataFrame({"g": rng.choice(["a", "b", "c"], 60), "w": rng.normal(size=60)})
    y = x[:, 4] + (z["g"] == "b").to_numpy() * 2.0 + rng.normal(size=60)
    fit = sr.select(y, x, fixed=z)
    assert "x4" in fit.selected_terms
    names = list(fit.params.index)
    assert names[:4] == ["Intercept", "g[T.b]", "g[T.c]", "w"]
    exog = pd.get_dummies(z["g"], drop_first=True, dtype=float).add_prefix("g_")
    exog = pd.concat([pd.Series(1.0, index=z.index, name="c"), exog, z["w"],
                      pd.DataFrame(x[:, [int(t[1:]) for t in fit.selected_terms]])], axis=1)
    ref = sm.OLS(y, exog.to_numpy()).fit()
    np.testing.assert_allclose(fit.params.to_numpy(), ref.params, rtol=1e-10)
    np.testing.assert_allclose(fit.bse.to_numpy(), ref.bse, rtol=1e-10)
