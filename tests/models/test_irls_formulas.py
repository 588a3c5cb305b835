"""IRLS's formulas for the logit binomial and the log Poisson (models.irls_formulas) equal
statsmodels' family, link and variance methods bit for bit, with numpy and with numba, edge
values included; other families go through statsmodels."""
import numpy as np
import pytest
import statsmodels.api as sm

from streamreg.models import kernels
from streamreg.models.irls import GLMData
from streamreg.models.irls_formulas import Formulas, LogitBinomial, LogPoisson, formulas_for

N = 50_000


def _logit_case(rng):
    eta = np.r_[-800.0, 800.0, -40.0, 40.0, 0.0, rng.standard_normal(N) * 20]
    mu = np.r_[0.0, 1.0, 1e-300, 1.0 - 1e-17, np.nan, 1 / (1 + np.exp(-rng.standard_normal(N) * 30))]
    y = (rng.random(len(mu)) < 0.4).astype(float)
    return sm.families.Binomial(), eta, mu, y


def _poisson_case(rng):
    eta = np.r_[-800.0, 700.0, 0.0, rng.standard_normal(N) * 5]
    mu = np.r_[0.0, 1e-320, np.inf, np.nan, np.exp(rng.standard_normal(N) * 10)]
    y = rng.poisson(3.0, len(mu)).astype(float)
    return sm.families.Poisson(), eta, mu, y


def _same(a, b):
    return np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True)


@pytest.mark.parametrize("case", [_logit_case, _poisson_case], ids=["logit binomial", "log Poisson"])
@pytest.mark.parametrize("setting", ["numpy", "numba"])
def test_formulas_equal_statsmodels_bit_for_bit(case, setting, monkeypatch):
    if setting == "numba" and not kernels.numba_available():
        pytest.skip("numba is not installed")
    monkeypatch.setenv(kernels.KERNEL_ENV, setting)
    family, eta, mu, y = case(np.random.default_rng(0))
    formulas = formulas_for(family)
    assert type(formulas) in (LogitBinomial, LogPoisson)
    assert kernels.vectors_on_numba(len(mu)) == (setting == "numba")
    with np.errstate(all="ignore"):
        assert _same(formulas.fitted(eta), family.fitted(eta))
        deriv = family.link.deriv(mu)
        w, working = formulas.weights_and_working(mu, y)
        assert _same(w, family.weights(mu)) and _same(w, 1.0 / (deriv**2 * family.variance(mu)))
        assert _same(working, deriv * (y - mu))
        finite = np.isfinite(mu) & (mu > 0)
        unit = formulas.unit_deviance(y[finite], mu[finite])
        assert unit is None or unit == family.deviance(y[finite], mu[finite])
        yf, muf = y[finite], mu[finite]
        for _ in range(2):  # the second call reuses the response's log-factorials
            llf = formulas.unit_loglike(yf, muf)
            assert llf is None or llf == family.loglike(yf, muf)


def test_the_bernoulli_deviance_and_likelihood_equal_the_formulas_they_replace():
    family, _, mu, y = _logit_case(np.random.default_rng(1))
    mu, y = mu[np.isfinite(mu)], y[np.isfinite(mu)]
    data = GLMData(y, np.ones((len(y), 1)), family)
    old_deviance = float(np.sum(np.log(np.where(y == 1, mu, 1 - mu) + 1e-20) * -2.0))
    assert data.deviance(mu) == old_deviance
    np.testing.assert_allclose(data.deviance(mu), family.deviance(y, mu), rtol=1e-13)
    old_llf = float(np.sum((y * np.log((mu + 1e-20) / (1 - mu + 1e-20)) + np.log(1 - mu + 1e-20)) * 1.0))
    assert data.loglike(mu, 1.0) == old_llf
    np.testing.assert_allclose(data.loglike(mu, 1.0), family.loglike(y, mu), rtol=1e-13)
    freq = np.random.default_rng(2).integers(1, 4, len(y)).astype(float)
    weighted = GLMData(y, np.ones((len(y), 1)), family, freq_weights=freq)
    np.testing.assert_allclose(weighted.deviance(mu), family.deviance(y, mu, freq_weights=freq), rtol=1e-13)
    np.testing.assert_allclose(weighted.loglike(mu, 1.0), family.loglike(y, mu, freq_weights=freq), rtol=1e-13)


def test_other_families_and_links_go_through_statsmodels():
    for family in (sm.families.Gamma(), sm.families.Binomial(sm.families.links.Probit()),
                   sm.families.Poisson(sm.families.links.Sqrt())):
        assert type(formulas_for(family)) is Formulas
    probit = sm.families.Binomial(sm.families.links.Probit())
    rng = np.random.default_rng(3)
    mu, y = rng.random(100), (rng.random(100) < 0.5).astype(float)
    data = GLMData(y, np.ones((100, 1)), probit)  # a 0/1 response, but not the logit: the masked pick
    np.testing.assert_allclose(data.deviance(mu), probit.deviance(y, mu), rtol=1e-13)


def test_the_compiled_weights_refuse_mismatched_vectors():
    numba_kernel = pytest.importorskip("streamreg.models.kernels.numba_kernel")
    with pytest.raises(ValueError, match="3 means for 2 responses"):
        numba_kernel.irls_weights(0, np.ones(3), np.ones(2))


@pytest.mark.parametrize("response", ["counts", "counts above n", "fractional"])
def test_the_negative_binomial_log_likelihood_equals_statsmodels_bit_for_bit(response):
    from streamreg.models.family_classes import NegBin
    from streamreg.models.irls_formulas import NegativeBinomialLikelihood

    rng = np.random.default_rng(9)
    n = 5_000
    mu = np.exp(0.5 + rng.standard_normal(n))
    y = rng.negative_binomial(2.0, 2.0 / (2.0 + mu)).astype(float)
    y = {"counts": y, "counts above n": y * 3001.0, "fractional": y + 0.5}[response]
    for family in (NegBin(theta=2.3), sm.families.NegativeBinomial(alpha=0.7),
                   sm.families.NegativeBinomial(sm.families.links.Sqrt(), alpha=0.3)):
        data = GLMData(y, np.ones((n, 1)), family)
        assert type(data.formulas) is NegativeBinomialLikelihood
        for _ in range(2):  # the second call reuses the distinct counts and log-factorials
            assert data.loglike(mu, 1.0) == float(family.loglike(y, mu))
    freq = rng.integers(1, 3, n).astype(float)  # weighted: statsmodels' own formula
    weighted = GLMData(y, np.ones((n, 1)), NegBin(theta=2.3), freq_weights=freq)
    assert weighted.loglike(mu, 1.0) == float(NegBin(theta=2.3).loglike(y, mu, freq_weights=freq))
