"""theta's maximum-likelihood score summed over the distinct counts (models.theta._ThetaScore)
equals the row-by-row score, for whole-number counts (tallied), large or fractional responses
(``unique``) and prior weights; theta_ml finds the same root as the row-by-row score."""
import math

import numpy as np
import pytest
from scipy import optimize

from streamreg.models import theta as theta_module
from streamreg.models.theta import theta_ml, theta_score


def _cases():
    rng = np.random.default_rng(11)
    n = 3_000
    mu = np.exp(0.7 + 0.5 * rng.standard_normal(n))
    counts = rng.negative_binomial(2.0, 2.0 / (2.0 + mu)).astype(float)
    yield "counts", counts, mu, np.ones(n)
    yield "counts, prior weights", counts, mu, rng.uniform(0.2, 3.0, n)
    yield "counts above n", counts * 997.0, mu * 997.0, np.ones(n)
    yield "fractional", counts + 0.25 * (counts > 0), mu, np.ones(n)


@pytest.mark.parametrize("case", list(_cases()), ids=lambda c: c[0])
def test_the_grouped_score_equals_the_row_score(case):
    _, y, mu, w = case
    grouped = theta_module._ThetaScore(y, mu, w)
    assert len(grouped.values) == len(np.unique(y))
    for theta in (1e-3, 0.7, 2.0, 49.0, 51.0, 1e4, 1e7):
        row = theta_score(theta, y, mu, w)
        scale = float(np.sum(w * (np.abs(np.log1p(mu / theta)) + np.abs((mu - y) / (mu + theta)))))
        assert abs(grouped(theta) - row) <= 1e-12 * scale, theta


@pytest.mark.parametrize("case", list(_cases()), ids=lambda c: c[0])
def test_theta_ml_finds_the_row_scores_root(case):
    _, y, mu, w = case
    theta, capped = theta_ml(y, mu, w)
    assert not capped
    root = optimize.brentq(lambda t: theta_score(math.exp(t), y, mu, w), math.log(theta) - 1.0,
                           math.log(theta) + 1.0, xtol=1e-15, rtol=4.0 * np.finfo(float).eps)
    assert theta == pytest.approx(math.exp(root), rel=1e-12)
