"""Separation detection by linear programming, against closed-form answers."""
import numpy as np
import pytest

import streamreg as sr
from streamreg.models.separation import is_separated


def separated_1d(x, y) -> bool:
    """Intercept + one covariate: (quasi-)separated iff a threshold splits the classes."""
    x0, x1 = x[y == 0], x[y == 1]
    if len(x0) == 0 or len(x1) == 0:
        return True  # all one class: the intercept alone diverges
    return bool(x0.max() <= x1.min() or x1.max() <= x0.min())


@pytest.mark.parametrize("seed", range(40))
def test_one_covariate_matches_the_threshold_rule(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 30))
    x = np.round(rng.normal(size=n), 1)  # ties make quasi-complete cases
    y = (x + rng.normal(scale=rng.choice([0.05, 0.5, 2.0]), size=n) > 0).astype(float)
    design = np.column_stack([np.ones(n), x])
    assert is_separated(design, y) == separated_1d(x, y)


def test_quasi_complete_binary_covariate():
    # ionosphere's first attribute: whenever it is 0 the response is 1
    x = np.array([0, 0, 0, 1, 1, 1, 1, 1.0])
    y = np.array([1, 1, 1, 1, 0, 1, 0, 0.0])
    assert is_separated(np.column_stack([np.ones(8), x]), y)
    y2 = y.copy()
    y2[0] = 0
    assert not is_separated(np.column_stack([np.ones(8), x]), y2)


def test_extreme_fitted_probabilities_without_separation():
    # a steep but overlapping relation: some fitted probabilities are < 1e-6, yet the MLE
    # exists -- the LP must not call it separated
    rng = np.random.default_rng(0)
    x = rng.normal(size=3000)
    y = (rng.uniform(size=3000) < 1 / (1 + np.exp(-6 * x))).astype(float)
    assert not is_separated(np.column_stack([np.ones(3000), x]), y)


def test_proportions_in_between_must_lie_on_the_boundary():
    x = np.column_stack([np.ones(4), [0.0, 1.0, 2.0, 3.0]])
    assert is_separated(x, np.array([0, 0, 1, 1.0]))
    # a proportion at x = 1.5 breaks nothing; one at x = 3 (beyond the split) does
    assert is_separated(np.vstack([x, [1, 1.5]]), np.array([0, 0, 1, 1, 0.5]))
    assert not is_separated(np.vstack([x, [1, 3.0]]), np.array([0, 0, 1, 1, 0.5]))


def test_quasi_separating_candidate_is_refused_and_search_goes_on():
    # ionosphere in miniature: a binary x0 with y = 1 wherever x0 = 0 (IRLS stops at fitted
    # probabilities near 1 - 1e-12, short of R's 10 eps); later candidates must still enter
    rng = np.random.default_rng(3)
    n = 300
    x0 = (rng.uniform(size=n) < 0.7).astype(float)
    z = rng.normal(size=(n, 5))
    eta = 1.5 * z[:, 0] - 1.2 * z[:, 1]
    y = np.where(x0 == 0, 1.0, (rng.uniform(size=n) < 1 / (1 + np.exp(-eta))).astype(float))
    X = np.column_stack([x0, z])
    fit = sr.select(y, X, family="binomial")
    h = fit.history.set_index("term")
    assert h.loc["x0", "status"].startswith("refused")
    assert {"x1", "x2"} <= set(fit.selected_terms)
