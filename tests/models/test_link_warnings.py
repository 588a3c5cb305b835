"""statsmodels' DomainWarning about a non-canonical link is given at most once per call."""
import warnings

import numpy as np
import pytest
import statsmodels.api as sm
from statsmodels.tools.sm_exceptions import DomainWarning

import streamreg as sr


@pytest.fixture(scope="module")
def wdbc():
    return sr.datasets.load("wdbc").data


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
