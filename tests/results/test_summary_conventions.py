"""The summary says which convention each statistic follows: statsmodels' and R's AIC of least
squares, R's logLik of the gamma family, what No. Observations counts under freq_weights."""

import numpy as np
import pytest
import statsmodels.api as sm

import streamreg as sr


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
