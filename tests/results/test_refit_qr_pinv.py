"""The least-squares refit of a tall design takes its pseudo-inverse from a QR factorisation:
every quantity of the results equals statsmodels' own ``fit()`` (SVD of the whole design)."""
import warnings

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

from streamreg.models.base import ObservationWeights
from streamreg.models.robust import RobustCov
from streamreg.results import tall_pinv as tall_pinv_module
from streamreg.results.refit import refit


@pytest.fixture
def qr_path(monkeypatch):
    """Send designs of any size through the QR path (it starts at 2**18 values)."""
    monkeypatch.setattr(tall_pinv_module, "QR_PINV_CELLS", 1)


def _data(n=2_000, scale=1.0):
    rng = np.random.default_rng(11)
    x = pd.DataFrame({"const": 1.0, "a": rng.standard_normal(n), "b": rng.random(n) * scale,
                      "c": rng.standard_normal(n) + 0.5})
    y = pd.Series(1.0 + 0.5 * x["a"] - 0.3 * x["b"] / scale + rng.standard_normal(n), name="y")
    return rng, y, x


def _assert_same(fit, ref):
    np.testing.assert_allclose(fit.params, ref.params, rtol=1e-10)
    np.testing.assert_allclose(fit.bse, ref.bse, rtol=1e-10)
    np.testing.assert_allclose(fit.pvalues, ref.pvalues, rtol=1e-8, atol=1e-300)
    np.testing.assert_allclose(fit.model.pinv_wexog, ref.model.pinv_wexog, rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(fit.model.wexog_singular_values, ref.model.wexog_singular_values, rtol=1e-12)
    np.testing.assert_allclose(fit.conf_int(), ref.conf_int(), rtol=1e-10)
    assert fit.model.rank == ref.model.rank
    assert fit.df_resid == ref.df_resid and fit.df_model == ref.df_model
    np.testing.assert_allclose([fit.rsquared, fit.llf, fit.fvalue], [ref.rsquared, ref.llf, ref.fvalue], rtol=1e-10)
    assert type(fit._results) is type(ref._results)


@pytest.mark.usefixtures("qr_path")
@pytest.mark.parametrize("cov", ["nonrobust", "HC1", "HC3", "cluster"])
def test_ols_results_equal_statsmodels(cov):
    rng, y, x = _data()
    groups = rng.integers(0, 40, len(y))
    robust = RobustCov(cov, groups=groups if cov == "cluster" else None)
    fit, problems = refit(y, x, sm.families.Gaussian(), cov=robust)
    ref = sm.OLS(y, x).fit(**robust.fit_kwargs())
    assert problems == []
    _assert_same(fit, ref)


@pytest.mark.usefixtures("qr_path")
def test_wls_results_equal_statsmodels():
    rng, y, x = _data()
    w = rng.random(len(y)) + 0.1
    fit, _ = refit(y, x, sm.families.Gaussian(), ObservationWeights(var_weights=w))
    _assert_same(fit, sm.WLS(y, x, weights=w).fit())


@pytest.mark.usefixtures("qr_path")
def test_rescaled_design_equals_statsmodels_on_the_rescaled_columns():
    """Columns 2**40 apart take the equilibrated branch, which fits through the same QR path."""
    _, y, x = _data(scale=2.0**40)
    fit, _ = refit(y, x, sm.families.Gaussian())
    scales = np.array([1.0, 4.0, 2.0**40, 4.0])
    ref = sm.OLS(y, x / scales).fit()
    np.testing.assert_allclose(fit.params * scales, ref.params, rtol=1e-10)
    np.testing.assert_allclose(fit.bse * scales, ref.bse, rtol=1e-10)


@pytest.mark.usefixtures("qr_path")
def test_rank_deficient_design_warns_as_statsmodels():
    """Cholesky QR does not apply (the Gram matrix is singular): statsmodels' own fit decides."""
    _, y, x = _data()
    x["d"] = 2.0 * x["a"]
    fit, problems = refit(y, x, sm.families.Gaussian())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = sm.OLS(y, x).fit()
    assert fit.model.rank == ref.model.rank == 4
    assert problems == ["the design of the selected terms is rank-deficient (5 columns, 2000 rows): "
                        "the coefficients are not identified"]
    np.testing.assert_allclose(fit.fittedvalues, ref.fittedvalues, rtol=1e-9)


def test_small_designs_are_statsmodels_own_fit():
    """Below the threshold the results are statsmodels' ``fit()`` bit for bit."""
    _, y, x = _data(n=200)
    fit, _ = refit(y, x, sm.families.Gaussian())
    ref = sm.OLS(y, x).fit()
    assert np.array_equal(fit.params, ref.params) and np.array_equal(fit.bse, ref.bse)


@pytest.mark.usefixtures("qr_path")
def test_ill_conditioned_design_is_statsmodels_own_fit():
    """A condition number near 1e8 is beyond Cholesky QR's exactness: statsmodels fits it."""
    rng, y, x = _data()
    x["d"] = x["a"] + 1e-7 * rng.standard_normal(len(y))
    fit, _ = refit(y, x, sm.families.Gaussian())
    ref = sm.OLS(y, x).fit()
    assert np.array_equal(fit.params, ref.params) and np.array_equal(fit.bse, ref.bse)
