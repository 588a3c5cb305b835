"""streamreg.anova(): clear refusals of fits it cannot compare, tidy(), printing, two-column responses."""
from __future__ import annotations

import contextlib

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
import statsmodels.formula.api as smf

import streamreg as sr


@pytest.fixture(scope="module")
def d():
    rng = np.random.default_rng(12)
    n = 200
    out = pd.DataFrame(rng.normal(size=(n, 4)), columns=["a", "b", "c", "e"])
    eta = 0.8 * out["a"] - 0.7 * out["b"]
    out["y"] = eta + rng.normal(size=n)
    out["yb"] = rng.binomial(1, 1 / (1 + np.exp(-eta)))
    out["m"] = rng.integers(2, 9, size=n)
    out["k"] = rng.binomial(out["m"], 1 / (1 + np.exp(-eta)))
    out["p"] = out["k"] / out["m"]
    out["w"] = rng.uniform(0.5, 2, size=n)
    return out


def fit(formula, data, **options):
    if "method" not in options:
        options = {"w0": 0.25, "alpha_delta": 0.25, **options}
    return sr.streamreg(formula, data, **options)


@pytest.fixture(scope="module")
def logits(d):
    small = fit("yb ~ stream(a)", d, family="binomial")
    big = fit("yb ~ a + stream(b)", d, family="binomial")
    assert small.selected_terms == ["a"] and big.selected_terms == ["b"]
    return small, big


def test_fits_that_are_not_nested_are_refused(d):
    only_a = fit("y ~ stream(a)", d)
    only_b = fit("y ~ stream(b)", d)
    assert only_a.selected_terms == ["a"] and only_b.selected_terms == ["b"]
    with pytest.raises(ValueError, match=r"fit 1 \(y ~ 1 \+ a\) is not nested in fit 2 \(y ~ 1 \+ b\): its column\(s\) "
                                         r"a are not in the span of the other's design; anova compares nested fits"):
        sr.anova(only_a, only_b)


def test_fits_of_other_rows_or_data_are_refused(d, logits):
    small, _ = logits
    with pytest.raises(ValueError, match=r"the fits were made to different numbers of rows \(200 and 150 in fit 1 "
                                         r"\(yb ~ 1 \+ a\) and fit 2 \(yb ~ 1 \+ a\)\); anova compares nested fits of "
                                         r"the same rows"):
        sr.anova(small, fit("yb ~ stream(a)", d.head(150), family="binomial"))
    moved = d.set_index(d.index + 1000)
    with pytest.raises(ValueError, match=r"the fits were made to different rows: the row labels of fit 1 .* and fit 2 "
                                         r".* differ"):
        sr.anova(small, fit("yb ~ a + stream(b)", moved, family="binomial"))
    flipped = d.assign(yb=1 - d["yb"])
    with pytest.raises(ValueError, match=r"the fits were made to different data: the responses of fit 1 .* and fit 2 "
                                         r".* differ"):
        sr.anova(small, fit("yb ~ a + stream(b)", flipped, family="binomial"))


def test_fits_of_other_families_or_weights_are_refused(d, logits):
    small, _ = logits
    poisson = fit("yb ~ a + stream(b)", d, family="poisson")
    with pytest.raises(ValueError, match=r"anova compares fits of one family: fit 1 \(yb ~ 1 \+ a\) is binomial "
                                         r"\(logit link\), fit 2 \(yb ~ a \+ b\) is poisson \(log link\)"):
        sr.anova(small, poisson)
    ols = fit("y ~ stream(a)", d)
    gaussian_log = fit("y ~ a + stream(b)", d.assign(y=d.y + 10), family=sm.families.Gaussian(sm.families.links.Log()))
    with pytest.raises(ValueError, match=r"is gaussian \(least squares\), fit 2 .* is gaussian \(log link\)"):
        sr.anova(ols, gaussian_log)
    weighted = fit("y ~ a + stream(b)", d, var_weights="w")
    with pytest.raises(ValueError, match=r"fit 1 \(y ~ 1 \+ a\) and fit 2 \(y ~ a \+ b\) have different weights "
                                         r"\(freq_weights, var_weights, trials\); anova compares fits with the same ones"):
        sr.anova(ols, weighted)


def test_bad_arguments_are_refused(d, logits):
    small, big = logits
    with pytest.raises(ValueError, match=r"test must be 'Chisq', 'LRT', 'F', 'Rao', 'auto' or None \(R's names\), "
                                         r"got 'Wald'"):
        sr.anova(small, big, test="Wald")
    with pytest.raises(TypeError, match="anova compares streamreg results and statsmodels OLS, WLS or GLM results; "
                                        "argument 2 is DataFrame"):
        sr.anova(small, d)
    with pytest.raises(TypeError, match="anova needs at least one fit"):
        sr.anova()
    with pytest.raises(ValueError, match=r"the table of one least-squares fit is R's anova\(lm\), with F tests only; "
                                         r"got test='Chisq' \(compare nested fits for chi-square tests\)"):
        fit("y ~ stream(a, b)", d).anova(test="Chisq")


def test_tests_are_named_as_in_r_without_case(logits):
    small, big = logits
    pd.testing.assert_frame_equal(sr.anova(small, big, test="lrt"), sr.anova(small, big, test="Chisq"))
    pd.testing.assert_frame_equal(sr.anova(small, big, test="rao"), sr.anova(small, big, test="Rao"))
    assert list(sr.anova(small, big, test=None).columns) == ["Resid. Df", "Resid. Dev", "Df", "Deviance"]


def test_tidy_and_printing(logits, d):
    small, big = logits
    table = sr.anova(small, big, test="Rao")
    tidy = table.tidy()
    assert list(tidy.columns) == ["term", "df.residual", "residual.deviance", "df", "deviance", "statistic", "p.value"]
    assert list(tidy["term"]) == ["yb ~ 1 + a", "yb ~ a + b"]
    np.testing.assert_array_equal(tidy["statistic"], table["Rao"])
    np.testing.assert_array_equal(tidy["p.value"], table["Pr(>Chi)"])
    assert str(table).startswith("Analysis of Deviance Table\n\nModel 1: yb ~ 1 + a\nModel 2: yb ~ a + b\n\n")
    one = big.anova()
    assert list(one.tidy()["term"]) == ["NULL", "a", "b"]
    assert one.heading == ("Analysis of Deviance Table\n\nModel: binomial, link: logit\n\nResponse: yb\n\n"
                           "Terms added sequentially (first to last)")
    lm = fit("y ~ stream(a, b)", d).anova()
    assert list(lm.index) == ["a", "b", "Residuals"] and lm.heading == "Analysis of Variance Table\n\nResponse: y"
    # the sums of squares add up to the total about the mean
    ols = fit("y ~ stream(a, b)", d)
    np.testing.assert_allclose(lm["Sum Sq"].sum(), ols.null_deviance, rtol=1e-12)


def test_a_two_column_binomial_response_is_its_proportions_with_trials(d):
    # statsmodels' GLM of (successes, failures) is the GLM of proportions with the trials as var_weights
    x_small, x_big = sm.add_constant(d[["a"]]), sm.add_constant(d[["a", "b", "c"]])
    counts = np.column_stack([d["k"], d["m"] - d["k"]])
    two = [sm.GLM(counts, x, family=sm.families.Binomial()).fit(tol=1e-13) for x in (x_small, x_big)]
    props = [sm.GLM(d["p"], x, family=sm.families.Binomial(), var_weights=d["m"]).fit(tol=1e-13)
             for x in (x_small, x_big)]
    for test in ("Chisq", "Rao", "F"):
        with pytest.warns(UserWarning, match="inappropriate") if test == "F" else contextlib.nullcontext():
            ours, theirs = sr.anova(*two, test=test), sr.anova(*props, test=test)
        np.testing.assert_allclose(ours.to_numpy(), theirs.to_numpy(), rtol=1e-9)
    grouped = fit("p ~ a + stream(b, c)", d, family="binomial", var_weights="m", method="stepwise-aic", max_steps=0)
    formula = smf.glm("p ~ a + b + c", d, family=sm.families.Binomial(), var_weights=d["m"]).fit(tol=1e-13)
    np.testing.assert_allclose(grouped.anova(test="Rao").to_numpy()[:2],
                               sr.anova(props[0], test="Rao").to_numpy(), rtol=1e-9)
    np.testing.assert_allclose(sr.anova(grouped, formula, test="Chisq")["Deviance"].iloc[1], grouped.deviance -
                               formula.deviance, rtol=1e-9)
