"""GLM fits whose means leave the family's range (R's validmu) are refused, never reported as fits."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

import streamreg as sr
from streamreg.models.glm import invalid_means
from streamreg.results.refit import refit

INVALID = "refused: fitted means outside the family's range (IRLS found no valid fit with this link)"


@pytest.fixture(scope="module")
def wdbc() -> pd.DataFrame:
    return sr.datasets.load("wdbc").data


def test_invalid_means_counts_as_r_validmu():
    mu = np.array([-1.0, 0.0, 0.5, 1.0, 2.0, np.nan])
    assert invalid_means(sm.families.Binomial(), mu) == 3  # -1, 2, NaN; 0 and 1 are saturation
    assert invalid_means(sm.families.Poisson(), mu) == 2  # -1, NaN
    assert invalid_means(sm.families.Gamma(), mu) == 3  # -1, 0, NaN
    assert invalid_means(sm.families.InverseGaussian(), mu) == 3
    assert invalid_means(sm.families.Gaussian(), mu) == 1  # only NaN


def test_gamma_inverse_link_candidates_with_negative_means_are_refused(wdbc):
    fit = sr.streamreg("area_mean ~ stream(*_se)", wdbc, family="gamma")
    status = fit.history["status"].astype(str)
    refused = fit.history.loc[status == INVALID, "term"].tolist()
    assert len(refused) >= 1 and not set(refused) & set(fit.selected_terms)
    assert (fit.fittedvalues > 0).all()
    assert f"Refused (invalid means):  {len(refused)} (see history)" in str(fit.summary())
    # each refused term, added to the model it was tested against, gives a negative mean in statsmodels
    first = fit.history.index[status == INVALID][0]
    before = [t for t in fit.history.loc[:first, :].query("accepted")["term"]]
    x = sm.add_constant(wdbc[before + [fit.history.loc[first, "term"]]].to_numpy())
    mu = sm.GLM(wdbc["area_mean"].to_numpy(), x, family=sm.families.Gamma()).fit(tol=1e-12).fittedvalues
    assert (mu <= 0).any()


def test_a_log_link_refuses_nothing(wdbc):
    fam = sm.families.Gamma(link=sm.families.links.Log())
    fit = sr.streamreg("area_mean ~ stream(*_se)", wdbc, family=fam)
    assert not fit.history["status"].astype(str).eq(INVALID).any()


def test_fixed_terms_with_invalid_means_are_refused_with_a_message(wdbc):
    with pytest.raises(ValueError, match=r"^the GLM of the response on the fixed terms alone has fitted means "
                       r"outside the Gamma family's range \(e\.g\. negative means\): no valid fit with this link; "
                       r"use a link that keeps the means in range, such as log"):
        sr.streamreg("area_mean ~ radius_se + area_se + compactness_se + concave_points_se + stream(texture_se)",
                     wdbc, family="gamma")


def test_the_refit_reports_invalid_means(wdbc):
    cols = ["radius_se", "area_se", "compactness_se", "concave_points_se"]
    x = sm.add_constant(wdbc[cols]).rename(columns={"const": "Intercept"})
    fit, problems = refit(wdbc["area_mean"], x, sm.families.Gamma())
    assert (np.asarray(fit.fittedvalues) <= 0).any()
    assert any(p.startswith("6 fitted mean(s) lie outside the Gamma family's range") for p in problems), problems
