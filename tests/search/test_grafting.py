"""Grafting: the batch L1 optimum (scikit-learn as the independent solver), KKT, CV, RBFs."""
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import Lasso, LogisticRegression

import streamreg as sr
from streamreg.models.separation import is_separated
from streamreg.search import Grafting
from streamreg.search.penalised.basis import Expander


def standardise(X):
    return (X - X.mean(axis=0)) / X.std(axis=0)


def weights_of(res, p):
    """Full weight vector (standardised scale) and intercept of a linear grafting fit."""
    run = res.search.run
    w = np.zeros(p)
    for spec, wj in zip(run.active, run.model.w):
        w[spec.term] = wj
    return w, float(run.model.b[0])


def _gaussian(seed, n=100, p=40):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p)) * rng.uniform(0.5, 3, size=p) + rng.normal(size=p)
    beta = np.zeros(p)
    beta[rng.choice(p, 6, replace=False)] = rng.normal(size=6)
    y = standardise(X) @ beta + rng.normal(size=n) + 3.0
    return X, y


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("lam", [0.02, 0.1, 0.3])
def test_gaussian_reaches_lasso_optimum(seed, lam):
    X, y = _gaussian(seed)
    n, p = X.shape
    res = sr.select(y, X, method="grafting", lam=lam, block_size=7)
    w, b = weights_of(res, p)
    Z = standardise(X)
    ref = Lasso(alpha=lam, tol=1e-14, max_iter=1_000_000).fit(Z, y)
    np.testing.assert_allclose(w, ref.coef_, atol=1e-5)
    assert b == pytest.approx(ref.intercept_, abs=1e-5)
    # KKT: |grad_j| <= lam for inactive, = lam with the right sign for active
    grad = Z.T @ (-(y - b - Z @ w) / n)
    inactive = w == 0
    assert np.all(np.abs(grad[inactive]) <= lam * (1 + 1e-8))
    np.testing.assert_allclose(grad[~inactive], -lam * np.sign(w[~inactive]), atol=1e-9)
    # the refit uses exactly the active terms
    assert sorted(res.selected_terms) == sorted(f"x{j}" for j in np.flatnonzero(w))


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("lam", [0.01, 0.04])
def test_logistic_reaches_l1_logistic_optimum(seed, lam):
    rng = np.random.default_rng(50 + seed)
    n, p = 150, 25
    X = rng.normal(size=(n, p))
    Z = standardise(X)
    eta = 1.2 * Z[:, 0] - 0.8 * Z[:, 4] + 0.5 * Z[:, 9] + 0.3
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-eta))).astype(float)
    res = sr.select(y, X, family="binomial", method="grafting", lam=lam)
    w, b = weights_of(res, p)
    # sklearn minimises ||w||_1 + C * sum(logloss): C = 1 / (lam n) matches the mean loss;
    # saga leaves the intercept unpenalised
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = LogisticRegression(l1_ratio=1.0, C=1 / (lam * n), solver="saga", tol=1e-12,
                                 max_iter=1_000_000).fit(Z, y)
    np.testing.assert_allclose(w, ref.coef_[0], atol=1e-5)
    assert b == pytest.approx(ref.intercept_[0], abs=1e-5)
    mu = 1 / (1 + np.exp(-(b + Z @ w)))
    grad = Z.T @ ((mu - y) / n)
    assert np.all(np.abs(grad[w == 0]) <= lam * (1 + 1e-8))


def test_order_and_block_size_do_not_change_the_optimum():
    X, y = _gaussian(9)
    p = X.shape[1]
    perm = np.random.default_rng(1).permutation(p)
    a, _ = weights_of(sr.select(y, X, method="grafting", lam=0.05, block_size=1), p)
    b_res = sr.select(y, X[:, perm], method="grafting", lam=0.05, block_size=512)
    b, _ = weights_of(b_res, p)
    np.testing.assert_allclose(a[perm], b, atol=1e-9)


def test_without_retest_rejections_are_final():
    X, y = _gaussian(2)
    res = sr.select(y, X, method="grafting", lam=0.05, retest=False)
    h = res.history
    assert not (h["status"] == "re-entered from the pool").any()
    # every rejected term stays out
    rejected = set(h.loc[h["status"] == "rejected", "term"])
    assert not rejected & set(res.selected_terms)
    full = sr.select(y, X, method="grafting", lam=0.05)
    assert (full.history["status"] == "re-entered from the pool").any()


def test_max_rejections_limits_retests():
    X, y = _gaussian(2)
    res = sr.select(y, X, method="grafting", lam=0.05, max_rejections=1)
    assert not (res.history["status"] == "re-entered from the pool").any()


def test_cross_validation_picks_a_grid_value():
    X, y = _gaussian(4, n=80, p=30)
    res = sr.select(y, X, method="grafting", cv=4, n_lambdas=8)
    cv = res.search.cv
    assert len(cv) == 8 and cv["chosen"].sum() == 1
    lam = float(cv.loc[cv["chosen"], "lam"].iloc[0])
    assert res.search.lam == lam
    assert cv["cv_loss"].min() == pytest.approx(float(cv.loc[cv["chosen"], "cv_loss"].iloc[0]))
    assert np.all(np.diff(cv["lam"]) < 0)
    # the final fit is grafting at the chosen lambda
    again = sr.select(y, X, method="grafting", lam=lam)
    assert again.selected_terms == res.selected_terms
    assert "4-fold CV" in res.policy_description


def test_rbf_centres_and_refit_prediction():
    rng = np.random.default_rng(3)
    n = 200
    df = pd.DataFrame(rng.uniform(-2, 2, size=(n, 6)), columns=[f"x{j}" for j in range(6)])
    df["y"] = np.sin(2 * df["x1"]) + df["x3"] ** 2 + 0.2 * rng.normal(size=n)
    specs, vals = Expander("rbf", k_max=10).expand(df[["x1"]].to_numpy(), 0)
    z = (df["x1"] - df["x1"].mean()) / df["x1"].std(ddof=0)
    np.testing.assert_allclose([s.centre for s in specs], np.quantile(z, np.linspace(0, 1, 10)))
    np.testing.assert_allclose(vals[:, 0], np.exp(-(((z - specs[0].centre) / 0.3) ** 2)))
    fit = sr.streamreg("y ~ stream(x*)", df, method="grafting", lam=0.01, basis="rbf")
    assert {"x1", "x3"} <= set(fit.selected_terms)
    new = df.iloc[:20].copy()
    np.testing.assert_allclose(fit.predict(new).to_numpy(), fit.fit.fittedvalues.to_numpy()[:20], rtol=1e-10)
    lin = sr.streamreg("y ~ stream(x*)", df, method="grafting", lam=0.01)
    assert fit.fit.rsquared > lin.fit.rsquared + 0.3  # x3 ** 2 is invisible to a linear model


def test_bad_inputs():
    with pytest.raises(ValueError, match="lam must be a finite non-negative number"):
        Grafting(lam=-0.1)
    with pytest.raises(ValueError, match="lam must be a finite non-negative number"):
        sr.select(np.arange(10.0), np.eye(10), method="grafting", lam=-1)
    with pytest.raises(ValueError, match="basis must be one of"):
        Grafting(0.1, basis="spline")
    with pytest.raises(ValueError, match="cv must be an integer >= 2"):
        Grafting(cv=1)
    with pytest.raises(ValueError, match="unknown method 'graftin'"):
        sr.select(np.arange(10.0), np.eye(10), method="graftin")
    with pytest.raises(ValueError, match="support the gaussian and binomial"):
        sr.select(np.arange(10.0), np.eye(10), family="poisson", method="grafting", lam=0.1)


def test_formula_path_and_summary():
    sim = sr.datasets.make_synthetic(n=100, m=200, seed=2)
    fit = sr.streamreg("y ~ stream(x*)", sim.data, method="grafting", lam=0.2)
    assert set(sim.true_features) <= set(fit.selected_terms)
    text = " ".join(str(fit.summary()).split())
    assert "grafting" in text and "controls no error rate" in text
    assert list(fit.params.index[1:]) == fit.selected_terms
    assert (fit.history["test"].notna()).sum() == 200


def test_large_lambda_after_a_fit_leaves_the_intercept_at_its_mle():
    # regression: a weight whose sign flips under a large lambda used to leave the intercept
    # where a runaway Newton step had put it (about -3e5), freezing every later fit
    from streamreg.search.penalised.engine import L1Model

    rng = np.random.default_rng(0)
    n = 40
    x = rng.standard_normal(n)
    y = (rng.random(n) < 0.6).astype(float)
    m = L1Model(y, np.ones((n, 1)), "logistic")
    m.add(x)
    m.fit(0.0)
    b_full, w_full = m.b.copy(), m.w.copy()
    m.fit(10.0)  # lambda above every gradient: intercept-only model
    ybar = y.mean()
    assert np.all(m.w == 0.0)  # pruned or zero
    assert m.b[0] == pytest.approx(np.log(ybar / (1 - ybar)), rel=1e-8)
    if m.w.size == 0:
        m.add(x)
    m.fit(0.0)
    np.testing.assert_allclose(m.b, b_full, rtol=1e-8)
    np.testing.assert_allclose(m.w, w_full, rtol=1e-8)


def _wide_logistic(seed, n=40, p=600):
    """p >> n with a few strong features: the regime where online re-testing used to cycle."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    eta = 2.0 * X[:, 3] - 1.5 * X[:, 50] + X[:, 400]
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-eta))).astype(float)
    return X, y


def _lam_max(Z, y):
    return float(np.abs(Z.T @ ((y.mean() - y) / len(y))).max())


@pytest.mark.parametrize("ratio", [0.1, 0.01])
def test_wide_logistic_small_lambda_terminates_at_the_optimum(ratio):
    # near-saturated fits (active set close to n) used to make entries and prunings cycle;
    # the run must end by itself and satisfy KKT for every one of the 600 features
    X, y = _wide_logistic(5)
    n, p = X.shape
    Z = standardise(X)
    lam = ratio * _lam_max(Z, y)
    # with 40 rows the penalised selection separates the classes: the terms whose unpenalised
    # MLE would not exist are refused (history rows, exact LP test) and leave the refit
    res = sr.select(y, X, family="binomial", method="grafting", lam=lam, time_budget=120)
    assert res.stopped_by == "exhausted"
    assert res.history["status"].astype(str).str.startswith("refused: separation").any()
    assert not is_separated(np.asarray(res.fit.model.exog), y)
    assert not any("separated" in w for w in res.refit_warnings)
    w, b = weights_of(res, p)
    mu = 1 / (1 + np.exp(-(b + Z @ w)))
    grad = Z.T @ ((mu - y) / n)
    assert np.all(np.abs(grad[w == 0]) <= lam * (1 + 1e-6))
    np.testing.assert_allclose(grad[w != 0], -lam * np.sign(w[w != 0]), rtol=1e-6, atol=1e-9)
    assert abs(np.sum(mu - y)) <= 1e-8 * n  # the unpenalised intercept's equation


def test_warm_started_cv_path_equals_online_cv():
    # with re-testing the online fit is the batch optimum, so the warm-started working-set
    # path must give the same validation losses as one online run per (fold, lambda);
    # a rejection limit no run can reach forces the online route
    X, y = _gaussian(6, n=90, p=30)
    fast = sr.select(y, X, method="grafting", cv=3, n_lambdas=6).search.cv
    slow = sr.select(y, X, method="grafting", cv=3, n_lambdas=6, max_rejections=10**9).search.cv
    np.testing.assert_allclose(fast["lam"], slow["lam"], rtol=1e-14)
    np.testing.assert_allclose(fast["cv_loss"], slow["cv_loss"], rtol=1e-7)
    assert fast["completed"].all() and list(fast["chosen"]) == list(slow["chosen"])


@pytest.mark.filterwarnings("ignore::streamreg.RefitWarning")  # whether the refit separates depends on the cut
def test_cv_respects_the_time_budget():
    X, y = _wide_logistic(2, n=60, p=3000)
    res = sr.select(y, X, family="binomial", method="grafting", cv=5, n_lambdas=400, lambda_ratio=0.001,
                    time_budget=1.0)
    cv = res.search.cv
    assert not cv["completed"].all()  # the walk down the grid was cut short
    assert cv.loc[cv["chosen"], "completed"].all()
    assert res.search.elapsed < 30


def test_online_search_stops_at_the_time_budget():
    rng = np.random.default_rng(0)
    y = rng.normal(size=50)

    def endless():
        while True:
            yield rng.normal(size=50)

    res = sr.select(y, endless(), method="grafting", lam=0.01, time_budget=0.5)
    assert res.stopped_by == "time_budget"
    assert res.search.elapsed < 10
