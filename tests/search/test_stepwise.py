"""Stepwise AIC/BIC/RIC against a plain exhaustive search with statsmodels refits."""
import math

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

import streamreg as sr
from streamreg.search import Stepwise


def reference_stepwise(y, fixed, cands, F, direction="forward", family=None):
    """Exhaustive stepwise written plainly: refit every candidate model with statsmodels.

    ``cands`` maps name -> (n x d) matrix.  Returns the list of moves ("+name" / "-name").
    """
    def llf(names):
        x = np.column_stack([fixed] + [cands[c] for c in names])
        if family is None:
            return sm.OLS(y, x).fit().llf
        return sm.GLM(y, x, family=family).fit(tol=1e-12, maxiter=200).llf

    def rank(names):
        return np.linalg.matrix_rank(np.column_stack([fixed] + [cands[c] for c in names]))

    model, moves = [], []
    for _ in range(100):
        cur, k = llf(model), rank(model)
        best = None
        for c in cands:
            if c in model:
                continue
            gain = 2 * (llf(model + [c]) - cur) - F * (rank(model + [c]) - k)
            if best is None or gain > best[0]:
                best = (gain, "+" + c)
        if direction == "both":
            for c in model:
                rest = [t for t in model if t != c]
                gain = F * (k - rank(rest)) - 2 * (cur - llf(rest))
                if best is None or gain > best[0]:
                    best = (gain, "-" + c)
        if best is None or best[0] <= 0:
            return moves
        moves.append(best[1])
        name = best[1][1:]
        if best[1][0] == "+":
            model.append(name)
        else:
            model.remove(name)
    raise AssertionError("reference did not stop")


def moves_of(res):
    h = res.history
    h = h[h["status"].isin(["accepted", "dropped"])]
    return [("+" if a == "add" else "-") + t for a, t in zip(h["action"], h["term"])]


def _gaussian_data(seed, n=60, p=12):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    beta = np.zeros(p)
    beta[rng.choice(p, 4, replace=False)] = rng.normal(scale=0.6, size=4)
    y = X @ beta + rng.normal(size=n)
    return X, y


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("penalty", ["aic", "bic"])
def test_forward_matches_exhaustive_ols(seed, penalty):
    X, y = _gaussian_data(seed)
    n = len(y)
    F = 2.0 if penalty == "aic" else math.log(n)
    cands = {f"x{j}": X[:, [j]] for j in range(X.shape[1])}
    ref = reference_stepwise(y, np.ones((n, 1)), cands, F)
    res = sr.select(y, X, method=f"stepwise-{penalty}")
    assert moves_of(res.search) == ref
    assert res.selected_terms == [m[1:] for m in ref]


@pytest.mark.parametrize("seed", range(3))
def test_factor_term_uses_its_df(seed):
    rng = np.random.default_rng(100 + seed)
    n = 90
    X = rng.normal(size=(n, 6))
    g = rng.integers(0, 4, size=n)
    dummies = (g[:, None] == np.arange(1, 4)).astype(float)
    y = 0.5 * X[:, 1] + np.array([0, 1.2, -1.0, 0.9])[g] + rng.normal(size=n)
    items = [("g", dummies)] + [(f"x{j}", X[:, j]) for j in range(6)]
    cands = {name: np.asarray(v, float).reshape(n, -1) for name, v in items}
    for penalty, F in [("aic", 2.0), ("bic", math.log(n))]:
        ref = reference_stepwise(y, np.ones((n, 1)), cands, F)
        res = sr.select(y, iter(items), method=f"stepwise-{penalty}")
        assert moves_of(res.search) == ref
        assert "g" in res.selected_terms
        assert res.selected.set_index("term").loc["g", "df"] == 3


def test_factor_through_the_formula():
    rng = np.random.default_rng(7)
    n = 120
    df = pd.DataFrame(rng.normal(size=(n, 5)), columns=[f"x{j}" for j in range(5)])
    df["region"] = rng.choice(["a", "b", "c"], size=n)
    df["y"] = df["x0"] + df["region"].map({"a": 0.0, "b": 1.0, "c": -0.7}) + rng.normal(size=n)
    fit = sr.streamreg("y ~ stream(x*, C(region))", df, method="stepwise-bic")
    dummies = pd.get_dummies(df["region"], drop_first=True).to_numpy(float)
    cands = {f"x{j}": df[[f"x{j}"]].to_numpy() for j in range(5)}
    cands["C(region)"] = dummies
    ref = reference_stepwise(df["y"].to_numpy(), np.ones((n, 1)), cands, math.log(n))
    assert fit.selected_terms == [m[1:] for m in ref]
    assert "C(region)" in fit.selected_terms


def _redundant_data(seed):
    # x0 ~ x1 + x2 is picked first; once x1 and x2 are in, x0 is worth dropping
    rng = np.random.default_rng(seed)
    n = 80
    z = rng.normal(size=(n, 6))
    x0 = z[:, 1] + z[:, 2] + 0.5 * rng.normal(size=n)
    X = np.column_stack([x0, z[:, 1:]])
    y = z[:, 1] + z[:, 2] + 0.3 * rng.normal(size=n)
    return X, y


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("penalty", ["aic", "bic"])
def test_direction_both_matches_exhaustive(seed, penalty):
    X, y = _redundant_data(seed)
    n = len(y)
    F = 2.0 if penalty == "aic" else math.log(n)
    cands = {f"x{j}": X[:, [j]] for j in range(X.shape[1])}
    ref = reference_stepwise(y, np.ones((n, 1)), cands, F, direction="both")
    res = sr.select(y, X, method=f"stepwise-{penalty}", direction="both")
    assert moves_of(res.search) == ref


def test_direction_both_drops_on_this_seed():
    X, y = _redundant_data(3)  # drops x0 and then x4: two removals in a row
    res = sr.select(y, X, method="stepwise-bic", direction="both")
    assert moves_of(res.search) == ["+x0", "+x4", "+x1", "+x2", "-x0", "-x4"]
    assert res.selected_terms == ["x1", "x2"]
    forward = sr.select(y, X, method="stepwise-bic")
    assert forward.selected_terms[:4] == ["x0", "x4", "x1", "x2"]


@pytest.mark.parametrize("seed", range(3))
def test_binomial_exact_matches_exhaustive_glm(seed):
    rng = np.random.default_rng(200 + seed)
    n, p = 150, 8
    X = rng.normal(size=(n, p))
    eta = 0.9 * X[:, 0] - 0.7 * X[:, 3] + 0.4 * X[:, 5]
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-eta))).astype(float)
    cands = {f"x{j}": X[:, [j]] for j in range(p)}
    ref = reference_stepwise(y, np.ones((n, 1)), cands, 2.0, family=sm.families.Binomial())
    res = sr.select(y, X, family="binomial", method="stepwise-aic", exact_top=None)
    assert moves_of(res.search) == ref
    # the default (score ranks, exact refits of the best 10 >= p) is the same here
    assert sr.select(y, X, family="binomial", method="stepwise-aic").selected_terms == [m[1:] for m in ref]
    lr = sr.select(y, X, family="binomial", method="stepwise-aic", test="lr")
    assert lr.selected_terms == [m[1:] for m in ref]


def test_ric_penalty_and_m():
    X, y = _gaussian_data(3, n=80, p=30)
    res = sr.select(y, X, method="stepwise-ric")
    assert res.search.penalty == pytest.approx(2 * math.log(30))
    res = sr.select(y, X, method="stepwise-ric", m=10_000)
    assert res.search.penalty == pytest.approx(2 * math.log(10_000))
    assert sr.select(y, X, method=Stepwise("ric", m=10_000)).selected_terms == res.selected_terms


def test_ric_without_m_on_infinite_stream_raises():
    rng = np.random.default_rng(0)
    y = rng.normal(size=30)

    def forever():
        while True:
            yield rng.normal(size=30)

    with pytest.raises(ValueError, match="RIC needs the number of candidates m"):
        sr.select(y, forever(), method="stepwise-ric")


def test_bad_arguments():
    with pytest.raises(ValueError, match="direction must be one of"):
        Stepwise("aic", direction="backward")
    with pytest.raises(ValueError, match="unknown penalty"):
        Stepwise("hqic")
    with pytest.raises(ValueError, match="m applies to RIC only"):
        Stepwise("aic", m=10)
    with pytest.raises(ValueError, match="unknown method 'stepwise-xyz'"):
        sr.select(np.zeros(5), np.eye(5), method="stepwise-xyz")


def test_formula_path_and_summary():
    sim = sr.datasets.make_synthetic(n=100, m=200, seed=5)
    for method, opts in [("stepwise-aic", {}), ("stepwise-bic", {"direction": "both"}), ("stepwise-ric", {})]:
        fit = sr.streamreg("y ~ stream(x*)", sim.data, method=method, **opts)
        text = str(fit.summary())
        assert "fixed penalties control no error rate" in " ".join(text.split())
        assert set(sim.true_features) <= set(fit.selected_terms)
        assert len(fit.history) >= len(fit.selected_terms)
        assert list(fit.params.index[1:]) == fit.selected_terms
    fit = sr.streamreg("y ~ stream(x*)", sim.data, method="stepwise-ric")
    assert sorted(fit.selected_terms) == sorted(sim.true_features)


def test_block_size_does_not_matter_and_max_selected():
    X, y = _gaussian_data(1, n=70, p=25)
    a = sr.select(y, X, method="stepwise-aic", block_size=3).selected_terms
    b = sr.select(y, X, method="stepwise-aic", block_size=1000).selected_terms
    assert a == b
    c = sr.select(y, X, method="stepwise-aic", max_selected=2)
    assert c.selected_terms == a[:2] and c.stopped_by == "max_selected"


def test_stepwise_says_when_it_stops_for_lack_of_residual_df():
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((12, 40)), rng.standard_normal(12)
    fit = sr.select(y, x, method="stepwise-aic")  # AIC keeps adding until no df are left
    assert len(fit.selected_terms) == 10
    assert fit.search.stopped_by == "no residual degrees of freedom left for another term"
    assert sr.select(y, x, method="stepwise-bic", max_steps=1).search.stopped_by == "max_steps"


# -- the stepwise penalty is R's k, not an F statistic -----------------------------------

def test_stepwise_labels_the_penalty_k():
    d = sr.datasets.load("cleve").data
    fit = sr.streamreg("diagnosis ~ stream(age, chol, thalach, oldpeak, trestbps)", d, family="binomial",
                       method="stepwise-bic")
    k = f"{math.log(len(d)):.4g}"
    assert fit.policy_description == f"stepwise bic() k = {k}, direction='forward'"
    assert fit.guarantee().startswith(f"Stepwise selection with a fixed penalty of k = {k} per degree of freedom")
    assert fit.test_description.startswith("penalised likelihood, 2 delta loglik > k d;")
    text = str(fit.summary())
    assert "F=" not in text and "F = " not in text
