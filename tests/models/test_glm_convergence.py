"""IRLS convergence at large n: the deviance's last-bit rounding is not a failure to converge.

With an absolute tolerance of 1e-12 alone, a deviance of a few thousand (whose rounding is
a few 1e-12) oscillates in its last bit until maxiter, and a fit whose MLE plainly exists
was reported as "did not converge" (found on a 6,000-row logistic problem).
"""
import numpy as np
import pytest
import statsmodels.api as sm
from scipy.special import logit

import streamreg as sr
from streamreg.models.glm import fit_glm


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("n", [6000, 50_000])
def test_intercept_only_logistic_converges_to_the_closed_form(seed, n):
    y = (np.random.default_rng(seed).random(n) < 0.5).astype(float)
    fit = fit_glm(y, np.ones((n, 1)), sm.families.Binomial())
    assert fit.problem is None
    np.testing.assert_allclose(fit.result.params[0], logit(y.mean()), rtol=1e-10)


def test_the_search_on_a_large_logistic_problem_runs():
    rng = np.random.default_rng(5)
    n = 6000
    x = rng.standard_normal((n, 30))
    rng.standard_normal(n)  # the draw that made this seed's response oscillate
    eta = 0.08 * x[:, [5, 20]].sum(axis=1)
    rng.standard_normal(n)
    y = (rng.random(n) < 1 / (1 + np.exp(-3 * eta))).astype(float)
    fit = sr.select(y, x, family="binomial")
    ref = sm.GLM(y, np.ones((n, 1)), family=sm.families.Binomial()).fit()
    assert fit.history["status"].astype(str).str.startswith("refused").sum() == 0
    assert {"x5", "x20"} <= set(fit.selected_terms)
    assert ref.params[0] == pytest.approx(logit(y.mean()), rel=1e-8)


def test_the_refit_of_a_large_logistic_problem_converges_without_warnings():
    import warnings

    rng = np.random.default_rng(2)
    n = 400_000
    x = rng.standard_normal((n, 3))
    y = (rng.random(n) < 1 / (1 + np.exp(-0.05 * x[:, 0]))).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a ConvergenceWarning would fail the test
        fit = sr.select(y, x, family="binomial")
    assert fit.fit.converged
    model = sm.GLM(y, sm.add_constant(x[:, [int(t[1:]) for t in fit.selected_terms]]), family=sm.families.Binomial())
    ref = model.fit(start_params=model.fit().params)
    np.testing.assert_allclose(fit.params.to_numpy(), ref.params, rtol=1e-8)
