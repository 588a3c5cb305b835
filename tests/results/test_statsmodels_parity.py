"""What a statsmodels fit of the refit formula gives, the results give: get_prediction() is
statsmodels' own object (default class, which=, transform=), and rsquared, df_resid, scale,
deviance, null_deviance, pearson_chi2 are its numbers (reference: smf.ols / smf.glm on
fit.selected_formula and fit.model_frame())."""
import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
import statsmodels.formula.api as smf

import streamreg as sr

TOL = 1e-10


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(21)
    n = 240
    d = pd.DataFrame(rng.normal(size=(n, 6)), columns=[f"x{i}" for i in range(6)])
    d["g"] = rng.choice(["a", "b", "c"], size=n)
    d["t"] = rng.uniform(0.5, 4.0, size=n)
    d["w"] = rng.uniform(0.5, 2.0, size=n)
    d["o"] = rng.normal(scale=0.3, size=n)
    eta = 0.6 * d["x1"] - 0.5 * d["x4"] + 0.4 * (d["g"] == "b")
    d["y"] = eta + rng.normal(size=n)
    d["yb"] = rng.binomial(1, 1 / (1 + np.exp(-2.5 * eta)))
    d["cnt"] = rng.poisson(d["t"] * np.exp(0.2 + 0.4 * d["x1"]))
    return d


#: (formula, family, streamreg options, statsmodels options given as column names)
CASES = {
    "ols": ("y ~ x0 + stream(x*, C(g))", "gaussian", {}, {}),
    "wls": ("y ~ stream(x*, C(g))", "gaussian", {"var_weights": "w"}, {"var_weights": "w"}),
    "gaussian_offset": ("y ~ stream(x*)", "gaussian", {"offset": "o"}, {"offset": "o"}),
    "logit": ("yb ~ C(g) + stream(x*)", "binomial", {}, {}),
    "poisson_exposure": ("cnt ~ stream(x*, C(g))", "poisson", {"exposure": "t"}, {"exposure": "t"}),
    "logit_noint": ("yb ~ 0 + x1 + stream(x*)", "binomial", {}, {}),
}
FAMILIES = {"gaussian": sm.families.Gaussian, "binomial": sm.families.Binomial, "poisson": sm.families.Poisson}


@pytest.fixture(scope="module")
def fits(data):
    out = {}
    for name, (formula, family, options, _) in CASES.items():
        out[name] = sr.streamreg(formula, data, family=family, w0=0.05, alpha_delta=0.05, **options)
        assert len(out[name].selected) >= 1
    return out


def reference(fit, name, data):
    """statsmodels' fit of the refit formula on the same rows with the same weights."""
    _, family, _, options = CASES[name]
    frame = data.loc[fit.selected_model.train.index]
    kwargs = {k: frame[v] for k, v in options.items()}
    if family == "gaussian" and not ({"offset", "exposure"} & set(options)):
        if "var_weights" in kwargs:
            return smf.wls(fit.selected_formula, frame, weights=kwargs["var_weights"]).fit()
        return smf.ols(fit.selected_formula, frame).fit()
    model = smf.glm(fit.selected_formula, frame, family=FAMILIES[family](), **kwargs)
    first = model.fit(tol=1e-13)
    # restarted at the MLE, statsmodels evaluates the covariance there (as the refit does)
    return model.fit(start_params=first.params, tol=1e-13, use_t=family == "gaussian" or None)


def new_rows(data, name):
    new = data.sample(12, random_state=5).assign(x1=lambda d: d["x1"] + 0.5)
    options = CASES[name][3]
    return new, {k: new[v] for k, v in options.items() if k in ("offset", "exposure")}


@pytest.mark.parametrize("name", list(CASES))
def test_get_prediction_is_statsmodels_own(fits, data, name):
    fit = fits[name]
    ref = reference(fit, name, data)
    new, extra = new_rows(data, name)
    ours, theirs = fit.get_prediction(new), ref.get_prediction(new, **extra)
    assert type(ours) is type(theirs)
    got, expected = ours.summary_frame(alpha=0.1), theirs.summary_frame(alpha=0.1)
    assert list(got.columns) == list(expected.columns)
    if CASES[name][1] != "gaussian" or "offset" in extra:
        assert list(got.columns) == ["mean", "mean_se", "mean_ci_lower", "mean_ci_upper"]
    pd.testing.assert_index_equal(got.index, expected.index)
    np.testing.assert_allclose(got.to_numpy(), expected.to_numpy(), rtol=TOL)
    np.testing.assert_allclose(ours.predicted_mean, theirs.predicted_mean, rtol=TOL)
    if isinstance(ref.model, sm.GLM):  # statsmodels' which= (its newer results class)
        for which in ("mean", "linear"):
            ours, theirs = fit.get_prediction(new, which=which), ref.get_prediction(new, which=which, **extra)
            assert type(ours) is type(theirs)
            np.testing.assert_allclose(ours.summary_frame().to_numpy(), theirs.summary_frame().to_numpy(), rtol=TOL)
        np.testing.assert_allclose(fit.get_prediction(new, linear=True).predicted,
                                   ref.get_prediction(new, which="linear", **extra).predicted, rtol=TOL)


@pytest.mark.parametrize("name", list(CASES))
def test_transform_false_takes_the_design(fits, data, name):
    fit = fits[name]
    ref = reference(fit, name, data)
    new, extra = new_rows(data, name)
    design = fit.design(new)
    expected = ref.predict(design.to_numpy(), transform=False, **extra)
    np.testing.assert_allclose(fit.predict(design, transform=False, **extra), expected, rtol=TOL)
    np.testing.assert_allclose(fit.predict(design.to_numpy(), transform=False, **extra), expected, rtol=TOL)
    pd.testing.assert_index_equal(fit.predict(design, transform=False, **extra).index, new.index)
    ours = fit.get_prediction(design, transform=False, **extra).summary_frame()
    np.testing.assert_allclose(ours.to_numpy(), fit.get_prediction(new).summary_frame().to_numpy(), rtol=1e-12)
    if isinstance(ref.model, sm.GLM):
        np.testing.assert_allclose(fit.predict(design, transform=False, which="linear", **extra),
                                   ref.predict(design.to_numpy(), transform=False, which="linear", **extra), rtol=TOL)


@pytest.mark.parametrize("name", list(CASES))
def test_fit_statistics_are_statsmodels(fits, data, name):
    fit = fits[name]
    ref = reference(fit, name, data)
    for attr in ("df_resid", "df_model", "scale"):
        np.testing.assert_allclose(getattr(fit, attr), getattr(ref, attr), rtol=TOL, err_msg=attr)
    glm = isinstance(ref.model, sm.GLM)
    np.testing.assert_allclose(fit.deviance, ref.deviance if glm else ref.ssr, rtol=TOL)
    np.testing.assert_allclose(fit.pearson_chi2, ref.pearson_chi2 if glm else ref.ssr, rtol=TOL)
    if name != "logit_noint":  # statsmodels' null model always has an intercept
        np.testing.assert_allclose(fit.null_deviance, ref.null_deviance if glm else ref.centered_tss, rtol=TOL)
    if CASES[name][1] == "gaussian" and not glm:
        np.testing.assert_allclose(fit.rsquared, ref.rsquared, rtol=TOL)
        np.testing.assert_allclose(fit.rsquared_adj, ref.rsquared_adj, rtol=TOL)
        # and the deviances of least squares are the Gaussian GLM's
        frame = data.loc[fit.selected_model.train.index]
        weights = {k: frame[v] for k, v in CASES[name][3].items()}
        gaussian = smf.glm(fit.selected_formula, frame, **weights).fit()
        for attr in ("deviance", "null_deviance", "pearson_chi2"):
            np.testing.assert_allclose(getattr(fit, attr), getattr(gaussian, attr), rtol=TOL, err_msg=attr)


def test_null_deviance_without_intercept_is_r_s(fits):
    # R's glm: the null model of a fit without an intercept is eta = 0 (mu = 1/2 for the logit)
    fit = fits["logit_noint"]
    y = fit.fit.model.endog
    np.testing.assert_allclose(fit.null_deviance, -2 * len(y) * np.log(0.5), rtol=1e-13)


def test_rsquared_of_a_glm_is_refused(fits):
    with pytest.raises(AttributeError, match=r"rsquared is the R-squared of a least-squares fit \(Gaussian family, "
                                             r"identity link\); this Binomial GLM has none: compare deviance with "
                                             r"null_deviance, or see \.fit\.pseudo_rsquared\(\)"):
        fits["logit"].rsquared  # noqa: B018 -- the access raises
    with pytest.raises(AttributeError, match="rsquared_adj is the R-squared"):
        fits["poisson_exposure"].rsquared_adj  # noqa: B018
    assert not hasattr(fits["logit"], "rsquared")


def test_bad_transform_inputs_are_refused_clearly(fits, data):
    fit, poisson = fits["ols"], fits["poisson_exposure"]
    k = len(fit.params)
    with pytest.raises(TypeError, match="transform must be True or False, got 'no'"):
        fit.predict(data.head(), transform="no")
    with pytest.raises(ValueError, match=rf"with transform=False newdata is the design matrix, as fit.design\(newdata\) "
                                         rf"gives it: {k} column\(s\) \(Intercept, .*\) per row; got shape \(3, 2\)"):
        fit.get_prediction(np.ones((3, 2)), transform=False)
    with pytest.raises(TypeError, match=r"with transform=False newdata is the design matrix, numbers in .*; got dict"):
        fit.predict({"x1": [1.0]}, transform=False)
    design = poisson.design(data.head(3))
    with pytest.raises(ValueError, match="exposure='t' names a column of new data, but with transform=False newdata "
                                         "is the design matrix: pass the exposure values"):
        poisson.predict(design, transform=False, exposure="t")
    with pytest.raises(ValueError, match="offset= and exposure= apply to models fitted with an offset"):
        fit.predict(fit.design(data.head(3)), transform=False, offset=np.zeros(3))
