"""The response may be an expression, evaluated in the formula namespace as patsy evaluates a term.

``np.log(medv) ~ ...`` and ``I(medv > 25) ~ ...`` on MASS's Boston, and the two-column binomial
response ``cbind(k, m - k) ~ ...`` (R) or ``k + f ~ ...`` (statsmodels' two-column endog) on the
grouped data of ``grouped_binomial.R``: the search, the refit, ``predict`` on new rows without the
response, and the summary, which names the response by its expression.

References: R's ``lm`` / ``glm`` on the models streamreg selects (``tests/reference/
response_expressions.R`` -> ``response_coef.csv``, ``response_glance.csv``,
``response_newdata.csv``; R 4.2.2, base R and MASS's Boston exported by ``data.R``), and
statsmodels' ``smf.ols`` / ``smf.glm`` with the same formula (a two-column ``endog`` for the
counts).  Tolerance 1e-8 relative: the same estimates (IRLS to 1e-10 here, 1e-13 in R).
"""
from __future__ import annotations

import functools
import re

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
import statsmodels.formula.api as smf
from reference_csv import REF, read_ref

import streamreg as sr
from streamreg.formula.parse import FormulaError

RTOL = 1e-8
STREAM = "stream(crim, zn, indus, chas, nox, rm, age, dis, rad, tax, ptratio, black, lstat)"
COEF = read_ref("response_coef.csv", {"case", "name"})
GLANCE = read_ref("response_glance.csv", {"case", "lhs", "rhs"}).set_index("case")
NEWDATA = read_ref("response_newdata.csv", {"case"})


@functools.cache
def _boston() -> pd.DataFrame:
    return pd.read_csv(REF / "data" / "boston.csv")


@functools.cache
def _grouped() -> pd.DataFrame:
    return pd.read_csv(REF / "data" / "grouped_binomial.csv")


def boston() -> pd.DataFrame:
    return _boston().copy()


def grouped() -> pd.DataFrame:
    return _grouped().copy()


def new_rows(d: pd.DataFrame, drop: list[str]) -> pd.DataFrame:
    """As the R script builds them: the first 12 rows without the response's columns, every
    column moved by a tenth of its standard deviation."""
    nd = d.drop(columns=drop).iloc[:12].astype(float)
    return nd + d[nd.columns].std(ddof=1) / 10


def r_coef(case: str) -> pd.DataFrame:
    out = COEF[COEF["case"] == case].set_index("name")
    return out.rename(index={"(Intercept)": "Intercept"})


def rhs_terms(fit: sr.StreamRegResults) -> str:
    return " + ".join(fit.params.index[1:])


def check_against_r(fit: sr.StreamRegResults, case: str, newdata: pd.DataFrame) -> None:
    ref = r_coef(case)
    assert rhs_terms(fit) == GLANCE.loc[case, "rhs"]  # the model R refits is the one selected
    for ours, theirs in ((fit.params, "estimate"), (fit.bse, "std_error"), (fit.tvalues, "statistic"),
                         (fit.pvalues, "p_value")):
        np.testing.assert_allclose(ours.to_numpy(), ref.loc[ours.index, theirs].to_numpy(), rtol=RTOL)
    glance = GLANCE.loc[case]
    np.testing.assert_allclose([fit.llf, fit.aic, fit.bic], glance[["logLik", "AIC", "BIC"]].to_numpy(dtype=float),
                               rtol=RTOL)
    assert int(fit.fit.df_resid) == glance["df_residual"] and int(fit.fit.nobs) == glance["nobs"]
    pred = NEWDATA[NEWDATA["case"] == case]
    np.testing.assert_allclose(fit.predict(newdata).to_numpy(), pred["response"], rtol=RTOL)
    np.testing.assert_allclose(fit.predict(newdata, which="linear").to_numpy(), pred["fit"], rtol=RTOL)
    x = fit.design(newdata).to_numpy()  # R's se.fit: sqrt of x' V x on the link scale
    se = np.sqrt(np.einsum("ij,jk,ik->i", x, fit.cov_params().to_numpy(), x))
    np.testing.assert_allclose(se, pred["se_fit"], rtol=RTOL)


def test_a_log_response_against_r_and_statsmodels_ols():
    data = boston()
    fit = sr.streamreg(f"np.log(medv) ~ {STREAM}", data, method="alpha-investing")
    assert fit.response_name == "np.log(medv)"
    assert fit.selected_formula == f"np.log(medv) ~ 1 + {GLANCE.loc['log', 'rhs']}"
    check_against_r(fit, "log", new_rows(data, ["medv"]))
    ref = smf.ols(fit.selected_formula, data).fit()  # the same formula, evaluated by statsmodels
    np.testing.assert_allclose(fit.params, ref.params, rtol=RTOL)
    np.testing.assert_allclose(fit.bse, ref.bse, rtol=RTOL)
    assert fit.fit.model.endog_names == ref.model.endog_names == "np.log(medv)"
    assert re.search(r"Dep\. Variable: +np\.log\(medv\) ", str(fit.summary()))
    frame = fit.model_frame()  # the response's column with the terms': statsmodels refits from it
    assert frame.columns[0] == "medv"
    np.testing.assert_allclose(smf.ols(fit.selected_formula, frame).fit().params, ref.params, rtol=RTOL)
    assert data.equals(boston())  # nothing the user passed is modified


def test_a_boolean_response_is_true_for_success_as_in_r():
    data = boston()
    fit = sr.streamreg(f"I(medv > 25) ~ {STREAM}", data, family="binomial", method="alpha-investing")
    assert fit.response_name == "I(medv > 25)" and fit.success_level is True
    check_against_r(fit, "gt25", new_rows(data, ["medv"]))
    # the refit's formula codes the success as 1, so statsmodels reads it as R does
    assert fit.selected_formula.startswith("I(I(medv > 25) * 1) ~ 1 + ")
    ref = smf.glm(fit.selected_formula, data, family=sm.families.Binomial()).fit(tol=1e-12, tol_criterion="params")
    np.testing.assert_allclose(fit.params, ref.params, rtol=RTOL)
    np.testing.assert_allclose(fit.bse, ref.bse, rtol=RTOL)
    # the bare boolean on statsmodels' left-hand side is two columns [False, True]: P(False)
    flipped = smf.glm("I(medv > 25) ~ " + GLANCE.loc["gt25", "rhs"], data, family=sm.families.Binomial()).fit(tol=1e-12, tol_criterion="params")
    np.testing.assert_allclose(-flipped.params.to_numpy(), fit.params.to_numpy(), rtol=RTOL)
    assert "Modelled:" in str(fit.summary()) and "P(I(medv > 25) = True)" in str(fit.summary())


def test_cbind_against_r_and_statsmodels_two_column_endog():
    data = grouped()
    fit = sr.streamreg("cbind(k, m - k) ~ z + stream(x*)", data, family="binomial", test="score",
                       method="alpha-investing")
    assert fit.selected_formula == "cbind(k, m - k) ~ z + x1 + x4"
    check_against_r(fit, "cbind", new_rows(data, ["k", "m"]))
    counts = data.assign(f=data["m"] - data["k"])
    ref = smf.glm("k + f ~ z + x1 + x4", counts, family=sm.families.Binomial()).fit(tol=1e-12, tol_criterion="params")  # endog [k, f]
    assert ref.model.endog.ndim == 1 and ref.model.n_trials.max() > 1  # statsmodels' two-column form
    for ours, theirs in ((fit.params, ref.params), (fit.bse, ref.bse), (fit.pvalues, ref.pvalues)):
        np.testing.assert_allclose(ours, theirs, rtol=RTOL)
    np.testing.assert_allclose([fit.fit.deviance, fit.llf], [ref.deviance, ref.llf], rtol=RTOL)
    assert re.search(r"Dep\. Variable: +cbind\(k, m - k\) ", str(fit.summary()))
    # statsmodels' spelling selects and fits the same model
    same = sr.streamreg("k + f ~ z + stream(x*)", counts, family="binomial", test="score", method="alpha-investing")
    np.testing.assert_allclose(same.params, fit.params, rtol=1e-12)
    np.testing.assert_allclose(same.history["statistic"], fit.history["statistic"], rtol=1e-12)


def test_cbind_refit_on_held_out_rows_is_statsmodels_on_those_rows():
    data = grouped()
    fit = sr.streamreg("cbind(k, m - k) ~ z + stream(x*)", data, family="binomial", validate=0.5, seed=3,
                       test="score", method="alpha-investing")
    rows = fit.model_frame().index
    held = data.loc[rows]
    assert 0 < len(held) < len(data) and not held["k"].isna().any()
    endog = np.column_stack([held["k"], held["m"] - held["k"]])
    exog = sm.add_constant(held[list(fit.params.index[1:])].to_numpy())
    ref = sm.GLM(endog, exog, family=sm.families.Binomial()).fit(tol=1e-12, tol_criterion="params")
    np.testing.assert_allclose(fit.params.to_numpy(), ref.params, rtol=RTOL)
    np.testing.assert_allclose(fit.bse.to_numpy(), ref.bse, rtol=RTOL)


def test_functions_and_quoted_columns_in_the_response():
    data = boston().rename(columns={"medv": "med value"})
    fit = sr.streamreg("cube_root(Q('med value')) ~ stream(lstat, rm)", data, functions={"cube_root": np.cbrt})
    ref = sm.OLS(np.cbrt(data["med value"]), sm.add_constant(data[["lstat", "rm"]])).fit()
    np.testing.assert_allclose(fit.params.to_numpy(), ref.params.to_numpy(), rtol=RTOL)
    assert list(fit.predict(data.drop(columns="med value").head(3))) == pytest.approx(list(ref.fittedvalues[:3]),
                                                                                        rel=RTOL)


def test_a_response_expression_on_a_dask_frame_is_the_pandas_one():
    dd = pytest.importorskip("dask.dataframe")
    data = boston()
    formula = f"np.log(medv) ~ {STREAM}"
    ref = sr.streamreg(formula, data, method="alpha-investing")
    fit = sr.streamreg(formula, dd.from_pandas(data, npartitions=3), method="alpha-investing")
    assert fit.selected_formula == ref.selected_formula
    np.testing.assert_allclose(fit.params, ref.params, rtol=1e-10)


def _counts(n: int = 40) -> pd.DataFrame:
    rng = np.random.default_rng(5)
    d = pd.DataFrame(rng.normal(size=(n, 3)), columns=["x1", "x2", "x3"])
    d["s"] = rng.integers(0, 6, n).astype(float)
    d["f"] = rng.integers(1, 6, n).astype(float)
    d["g"] = rng.choice(["a", "b"], n)
    d["y"] = np.exp(d["x1"] + rng.normal(size=n))
    return d


BAD = [
    ("np.log(nosuch) ~ stream(x*)", {}, FormulaError,
     "the response 'np.log(nosuch)' refers to 'nosuch', which is not a column of the data"),
    ("np.log(2) ~ stream(x*)", {}, FormulaError, "the response 'np.log(2)' uses no column of the data"),
    ("I(g) ~ stream(x*)", {}, ValueError,
     "the response 'I(g)' is not numeric (dtype "),
    ("I(y > 1) ~ stream(x*)", {}, ValueError, "the response 'I(y > 1)' is not numeric (dtype bool)"),
    ("np.log(y - 1) ~ stream(x*)", {}, ValueError, "the response 'np.log(y - 1)' is NaN or infinite on"),
    ("np.log(s) ~ stream(x*)", {"family": "poisson"}, ValueError, "the response 'np.log(s)' is NaN or infinite on"),
    ("y - s ~ stream(x*)", {}, FormulaError, ("the response 'y - s' uses '-', which patsy reads as an operator on "
     "terms (R as arithmetic); write I(y - s) for the arithmetic")),
    ("s + f + y ~ stream(x*)", {"family": "binomial"}, FormulaError, "the response 's + f + y' has 3 terms"),
    ("cbind(s, f) ~ stream(x*)", {}, ValueError, ("the response 'cbind(s, f)' has two columns (successes and "
     "failures), which only a binomial family takes; Gaussian needs one column")),
    ("cbind(s, f, y) ~ stream(x*)", {"family": "binomial"}, ValueError,
     "the response 'cbind(s, f, y)' evaluates to shape (40, 3)"),
    ("cbind(s, f - 3) ~ stream(x*)", {"family": "binomial"}, ValueError,
     "the response 'cbind(s, f - 3)' must hold counts of successes and failures (whole, non-negative numbers)"),
    ("cbind(s, f / 2) ~ stream(x*)", {"family": "binomial"}, ValueError, "are not whole numbers"),
    ("cbind(s, 0 * f) ~ stream(x*)", {"family": "binomial"}, ValueError,
     "row(s) without trials (successes + failures = 0)"),
    ("cbind(s, g) ~ stream(x*)", {"family": "binomial"}, ValueError,
     "the response 'cbind(s, g)' must hold numbers of successes and failures; its columns are of dtype"),
    ("cbind(s, f) ~ stream(x*)", {"family": "binomial", "var_weights": "y"}, ValueError,
     "var_weights= cannot be combined with a two-column response"),
    ("cbind(s, f) ~ stream(x*)", {"family": "binomial", "offset": "s"}, ValueError,
     "'s' is used by the response 'cbind(s, f)' and cannot also be an offset"),
    ("cbind(0 * s, f) ~ stream(x*)", {"family": "binomial"}, ValueError, "has a single class"),
    ("np.sum(y) ~ stream(x*)", {}, ValueError, "the response 'np.sum(y)' evaluates to a single value"),
    ("nosuchfn(y) ~ stream(x*)", {}, NameError, "the name 'nosuchfn' is not available in a formula"),
    ("I(g + 1) ~ stream(x*)", {}, FormulaError, "the response 'I(g + 1)' cannot be evaluated: TypeError"),
]


@pytest.mark.parametrize("formula, options, error, message", BAD, ids=[b[0] for b in BAD])
def test_bad_responses_get_a_clear_error(formula, options, error, message):
    data = _counts()
    with pytest.raises(error, match=re.escape(message)):
        sr.streamreg(formula, data, **options)
