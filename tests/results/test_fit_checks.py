"""The summary's checks of the refit: the test that ran, overdispersion, near separation, huge SEs.

Each number in a note is recomputed here from the statsmodels refit (``fit.fit``) and scipy.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import streamreg as sr
from streamreg.results.fit_checks import (
    HUGE_SE,
    NEAR_ONE,
    NEAR_SHARE,
    candidate_test_note,
    dispersion_note,
    stability_warnings,
)


def _counts(extra_noise: float, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n, m = 400, 60
    X = rng.normal(size=(n, m))
    eta = 1.0 + 0.3 * X[:, 3] - 0.3 * X[:, 40] + extra_noise * rng.normal(size=n)
    return pd.DataFrame(X, columns=[f"x{j}" for j in range(m)]).assign(y=rng.poisson(np.exp(eta)))


def _notes(fit: sr.StreamRegResults) -> str:
    return " ".join(fit.summary().as_text().split())


def test_overdispersed_poisson_refit_is_reported_with_the_pearson_test():
    fit = sr.streamreg("y ~ stream(x*)", _counts(0.5), family="poisson")
    chi2, df = float(fit.fit.pearson_chi2), float(fit.fit.df_resid)
    note = dispersion_note(fit)
    assert note is not None
    assert f"Pearson dispersion {chi2 / df:.3g} (chi-square {chi2:.5g} on {df:g} df, " \
           f"p = {stats.chi2.sf(chi2, df):.2g})" in note
    assert "The refit is overdispersed" in _notes(fit)


def test_equidispersed_poisson_refit_has_no_note():
    fit = sr.streamreg("y ~ stream(x*)", _counts(0.0), family="poisson")
    assert stats.chi2.sf(float(fit.fit.pearson_chi2), float(fit.fit.df_resid)) > 0.01
    assert dispersion_note(fit) is None
    assert "overdispersed" not in _notes(fit)


def test_the_summary_says_why_counts_were_tested_with_an_estimated_dispersion():
    poisson = sr.streamreg("y ~ stream(x*)", _counts(0.5), family="poisson")
    assert poisson.test_description == "score (Rao) F, Pearson dispersion"
    assert "test='score-f', an F test" in _notes(poisson)
    model_based = sr.streamreg("y ~ stream(x*)", _counts(0.5), family="poisson", test="score")
    assert candidate_test_note(model_based) is None
    gaussian = sr.streamreg("y ~ stream(x*)", _counts(0.0).assign(y=lambda d: d["y"] * 1.0))
    assert candidate_test_note(gaussian) is None and dispersion_note(gaussian) is None


def test_near_separation_and_huge_standard_errors_on_wdbc():
    df = sr.datasets.load("wdbc").data
    fit = sr.streamreg("diagnosis ~ stream(*_mean) + stream(*_se, *_worst)", df, family="binomial",
                       method="alpha-investing")
    mu = np.asarray(fit.fit.fittedvalues, dtype=float)
    near = int(np.sum(np.minimum(mu, 1 - mu) < NEAR_ONE))
    warnings = stability_warnings(fit)
    assert near > 0
    assert warnings[0].startswith(f"nearly separated: {near} of {mu.size} fitted probabilities")
    exog = np.asarray(fit.fit.model.exog)
    per_sd = np.asarray(fit.fit.bse) * exog.std(axis=0)
    j = int(np.argmax(per_sd))
    assert per_sd[j] > HUGE_SE
    assert warnings[1].startswith(f"the standard error of {fit.fit.params.index[j]} is {per_sd[j]:.3g} per standard")
    text = _notes(fit)
    assert "WARNING: Nearly separated" in text and re.search(r"WARNING: The standard error of \w+ is", text)


def test_a_well_conditioned_logistic_refit_has_no_warning():
    rng = np.random.default_rng(1)
    n = 500
    X = rng.normal(size=(n, 10))
    y = (rng.random(n) < 1 / (1 + np.exp(-(0.8 * X[:, 0] - 0.6 * X[:, 5])))).astype(float)
    fit = sr.select(y, X, family="binomial")
    assert fit.selected_terms and stability_warnings(fit) == []
    assert dispersion_note(fit) is None  # 0/1 responses: the Pearson statistic says nothing


@pytest.mark.parametrize("scale", [1e-6, 1.0, 1e6])
def test_the_standard_error_check_does_not_depend_on_units(scale):
    df = sr.datasets.load("wdbc").data
    scaled = df.assign(radius_mean=df["radius_mean"] * scale)
    fit = sr.streamreg("diagnosis ~ stream(*_mean)", scaled, family="binomial", method="alpha-investing")
    ref = sr.streamreg("diagnosis ~ stream(*_mean)", df, family="binomial", method="alpha-investing")
    assert [w.split(" per ")[0][:40] for w in stability_warnings(fit)] == \
           [w.split(" per ")[0][:40] for w in stability_warnings(ref)]


def test_a_strong_predictor_in_a_large_sample_is_not_called_nearly_separated():
    rng = np.random.default_rng(2)
    n = 3000
    x = rng.normal(size=(n, 5))
    y = (rng.random(n) < 1 / (1 + np.exp(-4 * x[:, 0]))).astype(float)
    fit = sr.select(y, x, family="binomial")
    mu = np.asarray(fit.fit.fittedvalues)
    assert 0 < np.sum(np.minimum(mu, 1 - mu) < NEAR_ONE) < NEAR_SHARE * n  # a few, not a tenth
    assert stability_warnings(fit) == []


@pytest.mark.parametrize("units", [1.0, 1000.0])
def test_no_standard_error_check_on_links_that_carry_the_response_units(units):
    import statsmodels.api as sm

    rng = np.random.default_rng(4)
    n = 300
    x = rng.normal(size=(n, 3))
    mu = 1 / (500 + 40 * x[:, 0])  # Gamma with its inverse link: the linear predictor is in 1/y units
    y = rng.gamma(5.0, mu / 5.0) * units
    fit = sr.select(y, x, family=sm.families.Gamma(), method="alpha-investing")
    assert "x0" in fit.selected_terms
    assert stability_warnings(fit) == []


def test_summary2_of_a_quasi_family_prints_no_nan_criteria():
    quine = pd.read_csv(Path(__file__).parents[1] / "reference" / "data" / "quine.csv")
    fit = sr.streamreg("Days ~ stream(C(Eth), C(Age))", quine, family="quasipoisson")
    text = fit.summary2().as_text()
    assert "nan" not in text and "has no likelihood" in " ".join(text.split())
