"""The final GLM refit's restart without statsmodels' SVDs (results.glm_restart): every quantity
of the results equals statsmodels' own ``fit(start_params=...)`` from the same start."""
import warnings

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

from streamreg.models.base import ObservationWeights
from streamreg.models.robust import RobustCov
from streamreg.results import glm_restart as restart_module, tall_pinv as tall_pinv_module
from streamreg.results.glm_restart import restart
from streamreg.results.refit import refit

TOL, RTOL, MAXITER = 1e-10, 1e-13, 200


@pytest.fixture
def qr_path(monkeypatch):
    """Send designs of any size through the Cholesky QR path (it starts at 2**18 values)."""
    monkeypatch.setattr(tall_pinv_module, "QR_PINV_CELLS", 1)


def _design(n, rng):
    return pd.DataFrame({"const": 1.0, "a": rng.standard_normal(n), "b": rng.random(n),
                         "c": rng.standard_normal(n) + 0.5})


def _problems(n=3_000):
    rng = np.random.default_rng(8)
    x = _design(n, rng)
    eta = 0.2 + 0.5 * x["a"] - 0.4 * x["b"]
    offset = 0.1 * rng.standard_normal(n)
    freq = rng.integers(1, 4, n).astype(float)
    yield "binomial", sm.families.Binomial(), (rng.random(n) < 1 / (1 + np.exp(-eta))).astype(float), x, {}
    yield "poisson+offset+freq", sm.families.Poisson(), rng.poisson(np.exp(eta + offset)).astype(float), x, \
        {"offset": offset, "freq_weights": freq}
    yield "gamma-log", sm.families.Gamma(sm.families.links.Log()), rng.gamma(2.0, np.exp(eta) / 2.0), x, {}
    yield "probit+var_weights", sm.families.Binomial(sm.families.links.Probit()), \
        (rng.random(n) < 1 / (1 + np.exp(-eta))).astype(float), x, {"var_weights": rng.uniform(0.5, 2.0, n)}


def _assert_same(fit, ref):
    np.testing.assert_allclose(fit.params, ref.params, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(fit.bse, ref.bse, rtol=1e-10)
    np.testing.assert_allclose(fit.cov_params(), ref.cov_params(), rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(fit.pvalues, ref.pvalues, rtol=1e-8, atol=1e-300)
    np.testing.assert_allclose(fit.conf_int(), ref.conf_int(), rtol=1e-10, atol=1e-13)
    for attr in ("llf", "deviance", "pearson_chi2", "scale", "aic", "llnull"):
        np.testing.assert_allclose(getattr(fit, attr), getattr(ref, attr), rtol=1e-10, err_msg=attr)
    for attr in ("mu", "resid_response", "resid_pearson", "resid_deviance"):
        np.testing.assert_allclose(np.asarray(getattr(fit, attr)), np.asarray(getattr(ref, attr)), rtol=1e-9,
                                   atol=1e-12, err_msg=attr)
    np.testing.assert_allclose(fit.model.weights, ref.model.weights, rtol=1e-10)
    assert fit.fit_history["iteration"] == ref.fit_history["iteration"]
    np.testing.assert_allclose(fit.fit_history["deviance"], ref.fit_history["deviance"], rtol=1e-12)
    assert fit.converged == ref.converged and fit.method == ref.method and fit.mle_settings == ref.mle_settings
    assert fit.cov_type == ref.cov_type and fit.use_t == ref.use_t
    assert type(fit._results) is type(ref._results)


@pytest.mark.parametrize("problem", list(_problems()), ids=lambda p: p[0])
@pytest.mark.parametrize("cov", [{}, {"cov_type": "HC1"}, {"use_t": True}])
def test_the_restart_equals_statsmodels_fit_from_the_same_start(qr_path, problem, cov):
    _, family, y, x, options = problem
    start = sm.GLM(y, x, family=family, **options).fit(tol=1e-6).params.to_numpy()
    ref = sm.GLM(y, x, family=family, **options).fit(start_params=start, tol=TOL, rtol=RTOL, maxiter=MAXITER, **cov)
    fit = restart(sm.GLM(y, x, family=family, **options), start, tol=TOL, rtol=RTOL, maxiter=MAXITER, **cov)
    _assert_same(fit, ref)


def test_cluster_covariance_and_an_estimated_dispersion(qr_path):
    _, family, y, x, _ = next(p for p in _problems() if p[0] == "gamma-log")
    groups = np.arange(len(y)) % 40
    kwargs = {"scale": "X2", "cov_type": "cluster", "cov_kwds": {"groups": groups}}
    start = np.zeros(x.shape[1])
    start[0] = np.log(y.mean())
    ref = sm.GLM(y, x, family=family).fit(start_params=start, tol=TOL, rtol=RTOL, maxiter=MAXITER, **kwargs)
    fit = restart(sm.GLM(y, x, family=family), start, tol=TOL, rtol=RTOL, maxiter=MAXITER, **kwargs)
    _assert_same(fit, ref)
    assert fit.model.scaletype == ref.model.scaletype == "x2"


def test_a_tall_design_takes_the_qr_path_without_the_fixture():
    rng = np.random.default_rng(2)
    x = _design(70_000, rng)  # 280,000 values: above the 2**18 threshold
    y = (rng.random(70_000) < 1 / (1 + np.exp(-(0.3 * x["a"] - 0.2)))).astype(float)
    start = sm.GLM(y, x, family=sm.families.Binomial()).fit(tol=1e-6).params.to_numpy()
    fit = restart(sm.GLM(y, x, family=sm.families.Binomial()), start, tol=TOL, rtol=RTOL, maxiter=MAXITER)
    assert fit is not None
    _assert_same(fit, sm.GLM(y, x, family=sm.families.Binomial()).fit(start_params=start, tol=TOL, rtol=RTOL))


def test_statsmodels_decides_small_ill_conditioned_and_trial_designs(qr_path, monkeypatch):
    rng = np.random.default_rng(4)
    x = _design(500, rng)
    y = (rng.random(500) < 0.4).astype(float)
    start = np.zeros(4)
    monkeypatch.setattr(tall_pinv_module, "QR_PINV_CELLS", 1 << 18)
    assert restart(sm.GLM(y, x, family=sm.families.Binomial()), start, tol=TOL, rtol=RTOL, maxiter=MAXITER) is None
    monkeypatch.setattr(tall_pinv_module, "QR_PINV_CELLS", 1)
    near = x.assign(d=x["a"] + 1e-7 * rng.standard_normal(500))  # within Cholesky QR's margin
    assert restart(sm.GLM(y, near, family=sm.families.Binomial()), np.zeros(5), tol=TOL, rtol=RTOL,
                   maxiter=MAXITER) is None
    trials = np.column_stack([rng.integers(0, 5, 500), np.full(500, 5)]).astype(float)
    trials[:, 1] -= trials[:, 0]
    assert restart(sm.GLM(trials, x, family=sm.families.Binomial()), start, tol=TOL, rtol=RTOL,
                   maxiter=MAXITER) is None


def test_the_refit_uses_the_restart_and_equals_statsmodels(qr_path, monkeypatch):
    """The whole refit (lean IRLS, then the restart) against statsmodels' fit and restart."""
    calls = []
    inner = restart_module.restart
    monkeypatch.setattr("streamreg.results.refit.restart", lambda *a, **k: calls.append(1) or inner(*a, **k))
    _, family, y, x, options = next(p for p in _problems() if p[0] == "poisson+offset+freq")
    weights = ObservationWeights(offset=options["offset"], freq_weights=options["freq_weights"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fit, problems = refit(pd.Series(y, name="y"), x, family, weights=weights, cov=RobustCov("HC0"))
    assert calls == [1] and problems == []
    model = sm.GLM(y, x, family=family, **options)
    first = model.fit(tol=TOL, rtol=RTOL, maxiter=MAXITER)
    ref = sm.GLM(y, x, family=family, **options).fit(start_params=first.params, tol=TOL, rtol=RTOL, maxiter=MAXITER,
                                                      cov_type="HC0")
    np.testing.assert_allclose(fit.params, ref.params, rtol=1e-9)
    np.testing.assert_allclose(fit.bse, ref.bse, rtol=1e-8)
    np.testing.assert_allclose(fit.llf, ref.llf, rtol=1e-12)
