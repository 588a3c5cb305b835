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


# ---- fixed terms that separate: the message names the factor levels seen with one outcome ----------------------

def test_a_many_level_fixed_factor_names_its_one_outcome_levels():
    import re
    import warnings

    cleve = sr.datasets.load("cleve").data
    used = cleve.dropna()
    # independent count: ages (other than the reference level) whose patients are all sick or all healthy
    by_age = used.groupby("age", observed=True)["diagnosis"].nunique()
    pure = [a for a in by_age.index[1:] if by_age[a] == 1]
    assert len(pure) == 7
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # rows with missing values dropped
        with pytest.raises(ValueError) as err:
            sr.streamreg("diagnosis ~ C(age) + stream(*)", cleve, family="binomial")
    text = str(err.value)
    assert text.startswith("the fixed terms alone separate the response: the maximum-likelihood estimate does not "
                           "exist (exact LP test); 7 fixed 0/1 column(s) hold one outcome only (")
    shown = re.findall(r"'C\(age\)\[T\.([0-9.]+)\]'", text)
    assert [float(a) for a in shown] == pure[:5] and text.endswith(
        "and 2 more): a factor level seen with one outcome has no finite coefficient; merge or drop such levels, "
        "or remove the term")


def test_one_outcome_indicators_against_a_direct_count():
    import statsmodels.api as sm

    from streamreg.models.separation import one_outcome_indicators

    rng = np.random.default_rng(5)
    for _ in range(30):
        n = 40
        levels = rng.integers(0, 6, size=n)
        x = np.column_stack([np.ones(n)] + [(levels == v).astype(float) for v in range(1, 6)] + [rng.normal(size=n)])
        y = (rng.uniform(size=n) < rng.choice([0.1, 0.5, 0.9])).astype(float)
        expect = [j for j in range(1, 6) if (levels == j).any() and len(set(y[levels == j])) == 1]
        assert one_outcome_indicators(x, y, sm.families.Binomial()).tolist() == expect
        counts = rng.poisson(0.4, size=n).astype(float)
        expect = [j for j in range(1, 6) if (levels == j).any() and (counts[levels == j] == 0).all()]
        assert one_outcome_indicators(x, counts, sm.families.Poisson()).tolist() == expect
    assert one_outcome_indicators(x, y, sm.families.Gaussian()).size == 0


def test_a_fixed_separation_without_a_one_outcome_column_keeps_the_general_advice():
    # x < 0 gives y = 0 and x > 0 gives y = 1: separated by a continuous column, no 0/1 culprit
    x = np.linspace(-1, 1, 30)
    y = (x > 0).astype(float)
    with pytest.raises(ValueError, match=r"exact LP test\); remove the offending fixed terms$"):
        sr.select(y, np.random.default_rng(0).normal(size=(30, 4)), fixed=x, family="binomial")
