"""One rule decides t or normal inference (``results.inference.default_use_t``).

The reference is R's ``summary.glm``: it estimates the dispersion, and so reports t tests,
for every family but binomial and Poisson (and ``MASS``'s negative binomials, whose
``summary.negbin`` fixes it at 1).  The refit's own ``fit(use_t=)`` asks the narrower
question (least squares as a GLM and the quasi families only), checked here through the
refit itself against statsmodels.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

from streamreg.models.base import ObservationWeights
from streamreg.models.families import SPECS
from streamreg.results.inference import default_use_t
from streamreg.results.refit import refit

#: R families whose summary reports z tests (dispersion fixed at 1)
R_FIXED_DISPERSION = {"binomial", "poisson", "glm.nb", "negative.binomial"}
R_SPECS = [s for s in SPECS if s.r_name is not None and s.factory is not None]


@pytest.mark.parametrize("spec", R_SPECS, ids=lambda s: f"{s.name}-{s.r_name}")
def test_results_follow_summary_glm(spec):
    family = spec.factory()
    assert default_use_t(family, robust=False) is (spec.r_name not in R_FIXED_DISPERSION)
    assert default_use_t(family, robust=True) is False


@pytest.mark.parametrize("spec", R_SPECS, ids=lambda s: f"{s.name}-{s.r_name}")
def test_refit_rule_is_narrower(spec):
    """Wherever the refit's statsmodels fit uses t, the results' p-values do too."""
    family = spec.factory()
    assert not default_use_t(family, robust=False, refit=True) or default_use_t(family, robust=False)
    assert default_use_t(family, robust=True, refit=True) is False


def test_refit_uses_the_rule():
    """Gaussian GLM with an offset reports statsmodels' t; Gamma keeps statsmodels' normal."""
    rng = np.random.default_rng(1)
    x = pd.DataFrame({"const": 1.0, "a": rng.normal(size=40)})
    y = pd.Series(np.exp(0.3 * x["a"] + rng.normal(scale=0.2, size=40)))
    offset = ObservationWeights(offset=np.full(40, 0.1))
    fit, _ = refit(y, x, sm.families.Gaussian(), offset)
    ref = sm.GLM(y, x, family=sm.families.Gaussian(), offset=np.full(40, 0.1)).fit(use_t=True)
    assert fit.use_t is True
    np.testing.assert_allclose(fit.pvalues, ref.pvalues, rtol=1e-8)
    fit, _ = refit(y, x, sm.families.Gamma(sm.families.links.Log()))
    ref = sm.GLM(y, x, family=sm.families.Gamma(sm.families.links.Log())).fit()
    assert not fit.use_t
    np.testing.assert_allclose(fit.pvalues, ref.pvalues, rtol=1e-6)
