"""The final GLM refit runs the lean IRLS to convergence and statsmodels only for the restart:
its results equal statsmodels' own run to convergence followed by the restart."""
import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

from streamreg.models.base import ObservationWeights
from streamreg.results import refit as refit_module
from streamreg.results.refit import refit


def _statsmodels(y, x, family, **options):
    model = sm.GLM(y, x, family=family, **options)
    first = model.fit(tol=1e-10, rtol=1e-13, maxiter=200)
    return model.fit(start_params=first.params, tol=1e-10, rtol=1e-13, maxiter=200), first


def _data(seed, n=3_000):
    rng = np.random.default_rng(seed)
    x = pd.DataFrame({"const": 1.0, "a": rng.standard_normal(n), "b": rng.standard_normal(n), "c": rng.random(n)})
    eta = 0.3 + 0.8 * x["a"] - 0.5 * x["b"] + 0.2 * x["c"]
    return rng, x, eta.to_numpy()


@pytest.mark.parametrize("kind", ["binomial", "poisson", "gamma", "poisson-offset-weights"])
def test_refit_equals_statsmodels_run_and_restart(kind):
    rng, x, eta = _data(7)
    n = len(x)
    options, weights = {}, None
    if kind == "binomial":
        family, y = sm.families.Binomial(), (rng.random(n) < 1 / (1 + np.exp(-eta))).astype(float)
    elif kind == "gamma":
        family = sm.families.Gamma(sm.families.links.Log())
        y = rng.gamma(2.0, np.exp(eta) / 2.0)
    else:
        family = sm.families.Poisson()
        if kind == "poisson":
            y = rng.poisson(np.exp(eta)).astype(float)
        else:
            offset, fw = 0.1 * rng.standard_normal(n), rng.integers(1, 4, n).astype(float)
            y = rng.poisson(np.exp(eta + offset)).astype(float)
            options, weights = {"offset": offset, "freq_weights": fw}, ObservationWeights(offset=offset, freq_weights=fw)
    fit, problems = refit(pd.Series(y, name="y"), x, family, weights)
    ref, first = _statsmodels(y, x, family, **options)
    assert problems == []
    np.testing.assert_allclose(np.asarray(fit.params), np.asarray(ref.params), rtol=1e-10)
    np.testing.assert_allclose(np.asarray(fit.bse), np.asarray(ref.bse), rtol=1e-10)
    np.testing.assert_allclose(fit.llf, ref.llf, rtol=1e-12)
    np.testing.assert_allclose(fit.scale, ref.scale, rtol=1e-10)
    assert fit.converged
    # the iterations of both runs are counted, as before (lean and statsmodels stop at the same iterate)
    assert fit.fit_history["iteration"] == ref.fit_history["iteration"] + first.fit_history["iteration"]


def test_the_lean_run_is_used_and_statsmodels_decides_where_it_hands_back(monkeypatch):
    rng, x, eta = _data(3)
    y = (rng.random(len(x)) < 1 / (1 + np.exp(-eta))).astype(float)
    calls = []
    real = sm.GLM.fit

    def counted(self, *args, **kwargs):
        calls.append(kwargs.get("start_params") is None)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(sm.GLM, "fit", counted)
    refit(pd.Series(y), x, sm.families.Binomial())
    assert calls == [False]  # one statsmodels run, warm-started by the lean IRLS
    calls.clear()
    monkeypatch.setattr(refit_module, "irls", lambda *a, **k: None)  # the lean run hands back
    fit, _ = refit(pd.Series(y), x, sm.families.Binomial())
    assert calls == [True, False]  # statsmodels' cold run, then its restart
    ref, _ = _statsmodels(y, x, sm.families.Binomial())
    np.testing.assert_allclose(np.asarray(fit.bse), np.asarray(ref.bse), rtol=1e-10)
