"""The three boundary questions share one distance (``boundary.boundary_gap``) and keep their rules.

* ``needs_mle_check`` -- the trigger: some fitted mean within 1e-6 of 0/1 (binary) or of 0
  at a zero count;
* ``separated_at`` -- the verdict, equal to Konis' LP over every row (``is_separated``);
* ``GLMState.boundary_share`` -- the measure: the share of rows within 1e-4.

References are the closed forms written out here, and the full LP.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import statsmodels.api as sm

from streamreg.models import make_state
from streamreg.models.boundary import boundary_gap, separated_at
from streamreg.models.glm_fit import needs_mle_check
from streamreg.models.separation import is_separated

BINOMIAL, POISSON, GAMMA = sm.families.Binomial(), sm.families.Poisson(), sm.families.Gamma()


def test_the_trigger_is_the_closed_form():
    rng = np.random.default_rng(0)
    for _ in range(200):
        mu = 10.0 ** rng.uniform(-9, 0, 30) * rng.choice([1, -1], 30) % 1.0
        y = rng.integers(0, 2, 30).astype(float)
        assert needs_mle_check(BINOMIAL, y, mu) is bool(np.minimum(mu, 1 - mu).min() < 1e-6)
        assert needs_mle_check(POISSON, y, mu) is bool((mu[y == 0] < 1e-6).any())
        assert needs_mle_check(GAMMA, y, mu) is False


def test_a_positive_count_is_never_at_the_boundary():
    mu = np.array([1e-9, 1e-9, 0.5])
    assert not needs_mle_check(POISSON, np.array([1.0, 3.0, 0.0]), mu)
    assert needs_mle_check(POISSON, np.array([0.0, 3.0, 0.0]), mu)
    np.testing.assert_array_equal(boundary_gap(POISSON, mu, np.array([1.0, 0.0, 0.0])), [np.inf, 1e-9, 0.5])
    np.testing.assert_array_equal(boundary_gap(GAMMA, mu), [np.inf] * 3)


@pytest.mark.parametrize("family", [BINOMIAL, POISSON])
def test_the_share_is_the_closed_form(family):
    rng = np.random.default_rng(2)
    n = 400
    x = rng.uniform(-3, 1, (n, 2))
    eta = 6 * x[:, 0] + 2 if family is BINOMIAL else 4 * x[:, 0]
    mean = 1 / (1 + np.exp(-eta)) if family is BINOMIAL else np.exp(eta)
    y = (rng.random(n) < mean).astype(float) if family is BINOMIAL else rng.poisson(mean).astype(float)
    state = make_state(y, np.column_stack([np.ones(n), x[:, 0]]), family, None)
    mu = sm.GLM(y, np.column_stack([np.ones(n), x[:, 0]]), family=family).fit(tol=1e-12).fittedvalues
    near = np.minimum(mu, 1 - mu) < 1e-4 if family is BINOMIAL else (mu < 1e-4) & (y == 0)
    assert near.any()  # the case exercises the rule
    assert state.boundary_share() == pytest.approx(near.mean(), abs=1 / n)


@pytest.mark.parametrize("seed", range(6))
def test_the_verdict_is_the_full_lp(seed):
    """Odd seeds are separated, even ones overlap."""
    rng = np.random.default_rng(seed)
    n = 60
    x = np.column_stack([np.ones(n), rng.standard_normal((n, 2))])
    y = (x[:, 1] + (0.0 if seed % 2 else 0.8) * rng.standard_normal(n) > 0).astype(float)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # statsmodels' perfect-separation warnings on the separated cases
        mu = sm.GLM(y, x, family=BINOMIAL).fit(maxiter=40).fittedvalues
    assert separated_at(x, y, BINOMIAL, mu) == is_separated(x, y)
