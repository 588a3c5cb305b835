"""Defects found by a user trial: dict new data and ``which=`` in predict, unused response
categories, DomainWarning floods, the CLI's family hint, NaN from a transformed candidate,
and the stepwise penalty label."""
import copy
import math
import re
import warnings

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
import statsmodels.formula.api as smf
from statsmodels.tools.sm_exceptions import DomainWarning

import streamreg as sr
from streamreg.cli import main
from streamreg.formula.checks import nonfinite_term_message


@pytest.fixture(scope="module")
def poisson_fit():
    rng = np.random.default_rng(5)
    df = pd.DataFrame(rng.normal(size=(120, 4)), columns=["a", "b", "c", "d"])
    df["g"] = rng.choice(["u", "v", "w"], 120)
    df["y"] = rng.poisson(np.exp(0.3 + 0.6 * df["a"] - 0.4 * df["c"] + 0.5 * (df["g"] == "w")))
    fit = sr.streamreg("y ~ C(g) + stream(a, b, c, d)", df, family="poisson", w0=0.05, alpha_delta=0.05)
    assert fit.selected_terms == ["a", "c"]
    return fit


@pytest.fixture(scope="module")
def new_rows():
    return {"a": np.array([0.0, 1.0, -0.5]), "c": np.array([0.2, -1.0, 0.0]), "g": ["u", "w", "v"]}


@pytest.fixture(scope="module")
def wdbc():
    return sr.datasets.load("wdbc").data


# -- 1. predict: dicts, which= -----------------------------------------------------------------

def test_predict_equals_statsmodels_on_both_scales(poisson_fit, new_rows):
    ref = smf.glm(poisson_fit.selected_formula, poisson_fit.model_frame(), family=sm.families.Poisson()).fit()
    frame = pd.DataFrame(new_rows)
    for which in ("linear", "mean"):
        expected = ref.predict(frame, which=which).to_numpy()
        np.testing.assert_allclose(poisson_fit.predict(frame, which=which), expected, rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(poisson_fit.predict(new_rows, which=which), expected, rtol=1e-10, atol=1e-10)
    np.testing.assert_array_equal(poisson_fit.predict(frame, linear=True), poisson_fit.predict(frame, which="linear"))
    np.testing.assert_array_equal(poisson_fit.predict(frame, linear=True, which="linear"),
                                  poisson_fit.predict(frame, which="linear"))
    np.testing.assert_array_equal(poisson_fit.predict(frame, linear=False, which="mean"), poisson_fit.predict(frame))
    lin = poisson_fit.get_prediction(new_rows, which="linear").summary_frame()
    np.testing.assert_allclose(lin["predicted"], ref.predict(frame, which="linear"), rtol=1e-10, atol=1e-10)


def test_predict_takes_a_dict_and_leaves_it_alone(poisson_fit, new_rows):
    given = copy.deepcopy(new_rows)
    pred = poisson_fit.predict(given)
    assert list(pred.index) == [0, 1, 2]
    np.testing.assert_array_equal(pred, poisson_fit.predict(pd.DataFrame(new_rows)))
    assert given.keys() == new_rows.keys()
    for key in new_rows:
        np.testing.assert_array_equal(given[key], new_rows[key])
    # the other methods that take new data take a dict as well
    pd.testing.assert_frame_equal(poisson_fit.design(given), poisson_fit.design(pd.DataFrame(new_rows)))
    pd.testing.assert_frame_equal(poisson_fit.model_frame(given), poisson_fit.model_frame(pd.DataFrame(new_rows)))
    pd.testing.assert_frame_equal(poisson_fit.augment(given), poisson_fit.augment(pd.DataFrame(new_rows)))


def test_predict_dict_of_series_keeps_their_labels_and_scalars_repeat(poisson_fit):
    idx = [10, 20]
    pred = poisson_fit.predict({"a": pd.Series([0.0, 1.0], index=idx), "c": pd.Series([0.5, 0.5], index=idx),
                                "g": "v"})
    expected = poisson_fit.predict(pd.DataFrame({"a": [0.0, 1.0], "c": [0.5, 0.5], "g": ["v", "v"]}, index=idx))
    pd.testing.assert_series_equal(pred, expected)
    one = poisson_fit.predict({"a": 0.0, "c": 0.5, "g": "v"})  # scalars only: one row
    assert len(one) == 1 and one.iloc[0] == pytest.approx(expected.iloc[0], rel=1e-14)


@pytest.mark.parametrize("kwargs, error, message", [
    ({"which": "var_unscaled"}, ValueError, r"which must be 'mean' or 'linear' \(statsmodels' names\), got 'var_unscaled'"),
    ({"which": 1}, ValueError, "which must be 'mean' or 'linear'"),
    ({"which": "mean", "linear": True}, ValueError,
     "linear=True and which='mean' ask for different scales; pass only one of them"),
    ({"which": "linear", "linear": False}, ValueError, "linear=False and which='linear' ask for different scales"),
    ({"linear": "yes"}, TypeError, "linear must be True or False, got 'yes'"),
])
def test_predict_refuses_bad_scale_options(poisson_fit, new_rows, kwargs, error, message):
    with pytest.raises(error, match=message):
        poisson_fit.predict(new_rows, **kwargs)
    with pytest.raises(error, match=message):
        poisson_fit.get_prediction(new_rows, **kwargs)


@pytest.mark.parametrize("newdata, error, message", [
    ({"a": [0.0, 1.0], "c": [1.0], "g": ["u", "v"]}, ValueError,
     "the columns of newdata must have the same number of values: 'a' has 2, 'c' has 1, 'g' has 2"),
    ({"a": np.zeros((2, 2)), "c": [1.0, 2.0], "g": "u"}, ValueError,
     r"newdata\['a'\] must be one-dimensional \(one value per row\), got ndarray of 2-D shape"),
    ({"a": [[1.0], [1.0, 2.0]], "c": [1.0, 2.0], "g": "u"}, ValueError,
     r"newdata\['a'\] must be one-dimensional .*ragged"),
    ({"a": [0.0], "g": ["u"]}, ValueError, r"newdata lacks the column\(s\) \['c'\]"),
    ([[0.0, 1.0]], TypeError, "newdata must be a pandas DataFrame or a dict with the model's columns: a, c, g; got list"),
])
def test_predict_refuses_bad_new_data(poisson_fit, newdata, error, message):
    with pytest.raises(error, match=message):
        poisson_fit.predict(newdata)


def test_predict_on_an_array_fit_names_the_columns_it_needs():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(100, 50))
    y = x[:, 3] - x[:, 7] + 0.3 * rng.normal(size=100)
    fit = sr.select(y, x, w0=0.05, alpha_delta=0.05)
    assert fit.selected_terms == ["x3", "x7"]
    with pytest.raises(TypeError, match="^newdata must be a pandas DataFrame or a dict with the model's columns: "
                                        "x3, x7; got ndarray$"):
        fit.predict(x)
    np.testing.assert_allclose(fit.predict({"x3": x[:5, 3], "x7": x[:5, 7]}), fit.predict()[:5], rtol=1e-12)


def test_not_a_frame_message_shortens_a_long_column_list():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(200, 14))
    y = x @ np.ones(14) + 0.1 * rng.normal(size=200)
    fit = sr.select(y, x, method="alpha-investing", w0=0.05, alpha_delta=0.05)
    need = sorted(fit.selected_terms, key=lambda name: int(name[1:]))
    assert len(need) > 10
    listed = ", ".join(need[:10]) + f", ... ({len(need)} columns)"
    with pytest.raises(TypeError, match=re.escape(f"with the model's columns: {listed}; got ndarray") + "$"):
        fit.predict(x)


# -- 2. binomial response with an unused category ----------------------------------------------

@pytest.mark.parametrize("categories, success", [(["no", "yes", "maybe"], "yes"), (["maybe", "no", "yes"], "yes"),
                                                 (["yes", "maybe", "no"], "no")])
def test_unused_response_category_is_ignored_as_in_r(categories, success):
    d = sr.datasets.load("cleve").data
    d["sick"] = pd.Categorical(np.where(d["diagnosis"] == "sick", "yes", "no"), categories=categories)
    before = d.copy()
    fit = sr.streamreg("sick ~ stream(age, chol, thalach, oldpeak)", d, family="binomial")
    pd.testing.assert_frame_equal(d, before)  # the caller's categories are kept
    observed = d.assign(sick=d["sick"].cat.remove_unused_categories())
    ref = sr.streamreg("sick ~ stream(age, chol, thalach, oldpeak)", observed, family="binomial")
    assert fit.selected_formula == ref.selected_formula == f"I((sick == {success!r}) * 1) ~ 1 + age + thalach + oldpeak"
    np.testing.assert_array_equal(fit.params, ref.params)
    np.testing.assert_array_equal(fit.bse, ref.bse)


def test_three_observed_response_levels_are_still_refused():
    d = sr.datasets.load("cleve").data
    d["three"] = pd.Categorical(d["cp"], categories=[*sorted(d["cp"].unique()), "never"])
    with pytest.raises(ValueError, match=r"exactly two levels; 'three' has 4 in the rows used: \["):
        sr.streamreg("three ~ stream(age, chol)", d, family="binomial")


# -- 3. statsmodels' DomainWarning, once per call --------------------------------------------

@pytest.mark.parametrize("method", ["alpha-investing", "stepwise-bic"])
def test_gamma_search_warns_about_the_link_at_most_once(wdbc, method):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit = sr.streamreg("radius_mean ~ stream(*_se)", wdbc, family="gamma", method=method)
    assert len(fit.selected_terms) >= 5  # an accepted candidate warned each before
    assert sum(issubclass(w.category, DomainWarning) for w in caught) <= 1


def test_non_canonical_link_warns_at_most_once(wdbc):
    d = wdbc.assign(cnt=np.round(wdbc["area_mean"] / 10))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sr.streamreg("cnt ~ stream(*_se)", d, family=sm.families.Poisson(sm.families.links.Identity()))
    assert sum(issubclass(w.category, DomainWarning) for w in caught) <= 1


# -- 4. the command line names flags, not keywords -------------------------------------------

def test_cli_suggests_the_family_flag_for_a_text_response(tmp_path, capsys):
    rng = np.random.default_rng(0)
    d = pd.DataFrame(rng.normal(size=(40, 2)), columns=["x1", "x2"])
    d.insert(0, "y", rng.choice(["no", "yes"], 40))
    path = tmp_path / "d.csv"
    d.to_csv(path, index=False)
    assert main(["y ~ stream(x*)", "--data", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("streamreg: the response 'y' is not numeric")
    assert err.endswith("for a two-level response use --family binomial\n")
    assert "family=" not in err


# -- 5. NaN or infinities from a transformed candidate ----------------------------------------

def test_nonfinite_term_message_counts_rows_and_names_the_first():
    values = pd.DataFrame({"t": [1.0, np.nan, -np.inf, 2.0]}, index=["a", "b", "c", "d"])
    assert nonfinite_term_message("the candidate term 't'", values) == (
        "the candidate term 't' has NaN or infinite values (e.g. from its transformation) in 2 rows, the first at "
        "row label 'b'; compute it as a column of the data first, then drop or impute those rows")
    one = nonfinite_term_message("the candidate term 't'", values.iloc[[0, 1, 3]])
    assert one is not None and "in 1 row, the first at row label 'b'" in one
    assert nonfinite_term_message("the candidate term 't'", values.iloc[[0, 3]]) is None


def test_transformed_candidate_with_nan_says_where():
    d = sr.datasets.load("cleve").data
    d.index = d.index + 100
    with np.errstate(all="ignore"):
        bad = ~np.isfinite(np.log(d["oldpeak"].to_numpy() - 1))
    message = (rf"^the candidate term 'np.log\(oldpeak - 1\)' has NaN or infinite values \(e.g. from its "
               rf"transformation\) in {bad.sum()} rows, the first at row label {d.index[bad][0]}; compute it as a column")
    with pytest.raises(ValueError, match=message), np.errstate(all="ignore"):
        sr.streamreg("diagnosis ~ stream(np.log(oldpeak - 1))", d, family="binomial")


# -- 6. the stepwise penalty is R's k, not an F statistic -----------------------------------

def test_stepwise_labels_the_penalty_k():
    d = sr.datasets.load("cleve").data
    fit = sr.streamreg("diagnosis ~ stream(age, chol, thalach, oldpeak, trestbps)", d, family="binomial",
                       method="stepwise-bic")
    k = f"{math.log(len(d)):.4g}"
    assert fit.policy_description == f"stepwise bic() k = {k}, direction='forward'"
    assert fit.guarantee().startswith(f"Stepwise selection with a fixed penalty of k = {k} per degree of freedom")
    assert fit.test_description.startswith("penalised likelihood, 2 delta loglik > k d;")
    text = str(fit.summary())
    assert "F=" not in text and "F = " not in text


# -- select() with a two-level text response; the summary's two AIC conventions ---------------

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


def test_least_squares_summary_gives_both_aic_conventions():
    ds = sr.datasets.load("wdbc")
    fit = sr.streamreg("radius_mean ~ stream(texture_mean, smoothness_mean, concavity_mean)", ds.data)
    assert fit.aic == pytest.approx(fit.fit.aic + 2, rel=1e-12)
    text = " ".join(str(fit.summary()).split())
    assert (f"AIC and BIC above are statsmodels' (the error variance is not counted as a parameter); R's AIC() "
            f"and BIC(), as fit.aic, fit.bic and glance() report them: {fit.aic:.6g} and {fit.bic:.6g}.") in text
    logit = sr.streamreg("diagnosis ~ stream(texture_mean, smoothness_mean)", ds.data, family="binomial")
    assert "AIC and BIC above" not in str(logit.summary())  # no dispersion: one convention


def test_gamma_summary_gives_r_loglik_beside_statsmodels():
    ds = sr.datasets.load("wdbc")
    fam = sm.families.Gamma(link=sm.families.links.Log())
    fit = sr.streamreg("area_mean ~ stream(*_se)", ds.data, family=fam, w0=0.05, alpha_delta=0.05)
    assert abs(fit.fit.llf - fit.llf) > 1e-3  # Pearson against deviance / n
    text = " ".join(str(fit.summary()).split())
    assert (f"The Log-Likelihood above is statsmodels' (Pearson dispersion); R's logLik(), AIC() and BIC() "
            f"(dispersion deviance / n), as fit.llf, fit.aic, fit.bic and glance() report them: {fit.llf:.6g}, "
            f"{fit.aic:.6g} and {fit.bic:.6g}.") in text


def test_summary_says_what_no_observations_counts_with_frequency_weights():
    d = sr.datasets.load("wdbc").data
    w = np.random.default_rng(0).integers(1, 3, len(d)).astype(float)
    fit = sr.streamreg("radius_mean ~ stream(texture_mean, smoothness_mean)", d, freq_weights=w)
    assert fit.fit.nobs == len(d) and fit.glance()["nobs"].iloc[0] == w.sum()
    assert fit.fit.df_resid == w.sum() - len(fit.params)  # statsmodels' residual df counts observations
    text = " ".join(str(fit.summary()).split())
    assert (f"With freq_weights, No. Observations above counts the rows ({len(d)}); Df Residuals, BIC and "
            f"glance()'s nobs count the observations they stand for, sum(freq_weights) = {w.sum():g}.") in text
    plain = sr.streamreg("radius_mean ~ stream(texture_mean, smoothness_mean)", d)
    assert "With freq_weights" not in str(plain.summary())
