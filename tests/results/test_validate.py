"""Sample splitting (honest inference after selection): select on one part, refit on the other."""
import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
import statsmodels.formula.api as smf

import streamreg as sr


@pytest.fixture(scope="module")
def df():
    rng = np.random.default_rng(8)
    n = 400
    d = pd.DataFrame(rng.normal(size=(n, 15)), columns=[f"x{i}" for i in range(15)])
    d["g"] = rng.choice(list("abc"), size=n)
    d["y"] = d["x2"] - 0.8 * d["x9"] + rng.normal(size=n)
    d["lab"] = np.where(rng.uniform(size=n) < 1 / (1 + np.exp(-(d["x2"] - d["x9"]))), "yes", "no")
    return d


def test_selection_on_one_part_refit_on_the_other(df):
    fit = sr.streamreg("y ~ stream(x*)", df, validate=0.5, seed=1, w0=0.05, alpha_delta=0.05)
    held = np.zeros(len(df), dtype=bool)
    held[np.random.default_rng(1).choice(len(df), 200, replace=False)] = True
    sel = sr.streamreg("y ~ stream(x*)", df.loc[~held], w0=0.05, alpha_delta=0.05)
    assert fit.selected_terms == sel.selected_terms
    ref = smf.ols(fit.selected_formula, df.loc[held]).fit()
    np.testing.assert_allclose(fit.params, ref.params, rtol=1e-10)
    np.testing.assert_allclose(fit.pvalues, ref.pvalues, rtol=1e-8)
    assert fit.nobs == 200 and fit.validation == {"n_selection": 200, "n_validation": 200, "n_dropped": 0}
    text = fit.summary().as_text()
    assert "held-out rows" in text and "not valid post-selection" not in text


def test_validate_with_mask_labels_and_binomial_levels(df):
    mask = (np.arange(len(df)) % 3) == 0
    fit = sr.streamreg("lab ~ C(g) + stream(x*)", df, family="binomial", validate=mask)
    ref = smf.glm(fit.selected_formula, df.loc[mask], family=sm.families.Binomial()).fit(tol=1e-10)
    np.testing.assert_allclose(fit.params, ref.params, rtol=1e-7)
    fit2 = sr.streamreg("lab ~ C(g) + stream(x*)", df, family="binomial", validate=df.index[mask])
    np.testing.assert_allclose(fit2.params, fit.params)


@pytest.mark.parametrize("validate, message", [
    (1.5, "must lie in"),
    (np.ones(3, dtype=bool), "one entry per row"),
    ([10_000], "rows not in the data"),
    (np.r_[True, np.zeros(399, dtype=bool)], "at least two rows"),
])
def test_validate_bad_inputs(df, validate, message):
    with pytest.raises(ValueError, match=message):
        sr.streamreg("y ~ stream(x*)", df, validate=validate)


def test_select_order_variance_random_and_screening():
    rng = np.random.default_rng(3)
    n = 120
    x = rng.normal(size=(n, 6)) * np.array([1.0, 5.0, 2.0, 0.5, 3.0, 1.5])
    y = x[:, 3] * 4 + rng.normal(size=n)
    fit = sr.select(y, x, method="alpha-investing", order="variance")
    assert list(fit.history["term"]) == [f"x{j}" for j in np.argsort(-x.var(axis=0), kind="stable")]
    assert "VOID" not in fit.guarantee()
    fit_r = sr.select(y, x, method="alpha-investing", order="random", seed=4)
    assert list(fit_r.history["term"]) == [f"x{j}" for j in np.random.default_rng(4).permutation(6)]
    fit_t = sr.select(y, x, method="alpha-investing", order="corr")
    assert fit_t.history["term"].iloc[0] == "x3"  # the screening score looks at y ...
    assert "VOID" in fit_t.guarantee()  # ... so the guarantee is withdrawn
    with pytest.raises(ValueError, match="generator"):
        sr.select(y, iter([("a", x[:, 0])]), order="variance")
