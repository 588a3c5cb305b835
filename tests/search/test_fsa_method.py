"""``method="fsa"``: FSA (M. Wang 2021) through the common search and results.

The kept terms are those of :func:`streamreg.screening.fsa` on the same columns, and the
refit is statsmodels' on them.
"""
import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

import streamreg as sr
from streamreg.screening import fsa


@pytest.fixture(scope="module")
def problem():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((150, 60))
    y = 1.5 * x[:, 4] - x[:, 33] + 0.8 * x[:, 50] + rng.standard_normal(150)
    return x, y


def test_the_kept_terms_are_fsas_and_the_refit_is_statsmodels(problem):
    x, y = problem
    fit = sr.select(y, x, method="fsa", k=3)
    ref = fsa(x, y, 3, feature_names=[f"x{j}" for j in range(60)])
    assert set(fit.selected_terms) == set(ref.support) == {"x4", "x33", "x50"}
    h = fit.history
    kept = h[h["status"].astype(str) == "accepted"]
    cols = [int(t[1:]) for t in kept["term"]]
    np.testing.assert_allclose(kept["statistic"], np.abs(ref.coef.loc[kept["term"]]) * x[:, cols].std(axis=0),
                               rtol=1e-12)
    assert h["statistic"].isna().sum() == 57 and len(h) == 60
    ols = sm.OLS(y, sm.add_constant(x[:, cols])).fit()
    np.testing.assert_allclose(fit.params.to_numpy(), ols.params, rtol=1e-10)
    np.testing.assert_allclose(fit.bse.to_numpy(), ols.bse, rtol=1e-10)
    assert "controls no error rate" in fit.summary().as_text()


def test_binomial_through_a_formula_and_compare():
    df = sr.datasets.load("wdbc").data
    fit = sr.streamreg("diagnosis ~ stream(*_mean)", df, family="binomial", method="fsa", k=3)
    assert len(fit.selected_terms) == 3
    x = df[fit.selected_terms].to_numpy()
    y = (df["diagnosis"] == "M").astype(float).to_numpy()
    model = sm.GLM(y, sm.add_constant(x), family=sm.families.Binomial())
    ref = model.fit(start_params=model.fit().params)
    np.testing.assert_allclose(fit.params.to_numpy(), ref.params, rtol=1e-7)
    table = sr.compare({"fsa": fit, "lord++": sr.streamreg("diagnosis ~ stream(*_mean)", df, family="binomial",
                                                           method="lord++")})
    assert "FSA(k=3" in table.as_text()


@pytest.mark.parametrize(("call", "message"), [
    (lambda x, y: sr.select(y, x, method="fsa"), r"method 'fsa' needs the option\(s\) k \(e.g. method='fsa', k=...\)"),
    (lambda x, y: sr.select(y, x, method="fsa", k=0), "k must be"),
    (lambda x, y: sr.select(y, x, method="fsa", k=61), "k=61 is more than the 60 candidates"),
    (lambda x, y: sr.select(y, x, method="fsa", k=2, mu=-1.0), "mu must be a positive number"),
    (lambda x, y: sr.select(y, x, fixed=x[:, :1], method="fsa", k=2), "no fixed terms besides the intercept"),
    (lambda x, y: sr.select(np.round(np.exp(y)), x, family="poisson", method="fsa", k=2),
     "gaussian \\(identity link\\) and binomial \\(logit link\\) families only"),
    (lambda x, y: sr.select(y, x, method="fsa", k=2, var_weights=np.ones(len(y))),
     "cannot be used with method 'fsa'"),
])
def test_bad_input_is_named(problem, call, message):
    x, y = problem
    with pytest.raises((ValueError, TypeError), match=message):
        call(x, y)


def test_factor_candidates_are_refused():
    df = pd.DataFrame({"g": list("abc") * 20, "z": np.arange(60.0), "y": np.random.default_rng(1).normal(size=60)})
    with pytest.raises(ValueError, match="single-column candidates only"):
        sr.streamreg("y ~ stream(C(g), z)", df, method="fsa", k=1)
