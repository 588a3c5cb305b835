"""FSA, stream ordering and input errors of streamreg.screening."""
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from streamreg import screening as S


# ---- FSA ---------------------------------------------------------------------------
def test_fsa_schedule_is_eq_2_26():
    p, k, N, mu = 500, 12, 300, 7.5
    sched = S.fsa_schedule(p, k, N, mu)
    for e in range(1, N + 1):
        expected = k + np.floor((p - k) * max(0.0, (N - 2 * e) / (2 * e * mu + N)))
        assert sched[e - 1] == expected
    assert sched[N // 2 - 1] == k and np.all(np.diff(sched) <= 0)


def test_fsa_recovers_support_gaussian_and_binomial():
    rng = np.random.default_rng(0)
    n, p = 400, 120
    X = rng.normal(size=(n, p)) + 0.3 * rng.normal(size=(n, 1))  # correlated columns
    true = [5, 17, 40, 88, 111]
    beta = np.zeros(p)
    beta[true] = [1.5, -1.2, 1.0, -1.0, 0.8]
    y = X @ beta + 2.0 + 0.5 * rng.normal(size=n)
    res = S.fsa(X, y, k=5, n_iter=300, mu=50)
    assert sorted(res.support) == sorted(f"x{j}" for j in true)
    fitted = np.linalg.lstsq(np.column_stack([np.ones(n), X[:, true]]), y, rcond=None)[0]
    got = res.coef[[f"x{j}" for j in true]].to_numpy()
    np.testing.assert_allclose(got, fitted[1:], rtol=0.05)
    assert res.intercept == pytest.approx(fitted[0], abs=0.1)
    assert len(res.schedule) == 300 and res.loss[-1] < res.loss[0]

    eta = X @ beta
    yb = np.where(rng.random(n) < 1 / (1 + np.exp(-2 * eta)), "yes", "no")
    resb = S.fsa(sp.csr_matrix(X), yb, k=5, family="binomial", n_iter=300, mu=50)
    assert sorted(resb.support) == sorted(f"x{j}" for j in true)


# ---- ordering ------------------------------------------------------------------------
def test_order_columns_all_kinds():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(100, 6)) * np.array([1, 5, 2, 0.1, 3, 3])
    y = (X[:, 3] > 0).astype(int)
    assert S.order_columns(X).tolist() == list(range(6))
    assert S.order_columns(X, order="variance").tolist() == list(np.argsort(-X.var(0), kind="stable"))
    assert S.order_columns(sp.csr_matrix(X), order="variance").tolist() == \
        S.order_columns(X, order="variance").tolist()
    r1 = S.order_columns(X, order="random", seed=3)
    assert sorted(r1.tolist()) == list(range(6))
    assert r1.tolist() == S.order_columns(X, order="random", seed=3).tolist()
    by_t = S.order_columns(X, y, order="t-score")
    assert by_t[0] == 3
    assert by_t.tolist() == [int(c[1:]) for c in S.top(S.score(X, y, "t"), 6)]
    assert S.order_columns(X, y, order=lambda X, y: -np.arange(6)).tolist() == list(range(6))
    assert S.order_columns(X, y, order="chi2", bins=3).dtype == np.int64


def test_order_needs_y():
    assert not S.order_needs_y("given") and not S.order_needs_y("variance")
    assert not S.order_needs_y("random")
    assert all(S.order_needs_y(m) for m in S.METHODS)

    def f(X, y):
        return np.zeros(X.shape[1])
    assert S.order_needs_y(f)
    f.needs_y = False
    assert not S.order_needs_y(f)
    with pytest.raises(ValueError, match="unknown screening method"):
        S.order_needs_y("alphabetical")


# ---- bad input -----------------------------------------------------------------------
def test_errors_are_clear():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(20, 3))
    y = np.r_[np.zeros(10), np.ones(10)]
    df = pd.DataFrame({"a": X[:, 0], "b": ["u"] * 20})
    with pytest.raises(ValueError, match=r"columns \['b'\] are not numeric"):
        S.score(df, y)
    with pytest.raises(ValueError, match="not numeric"):
        S.score(np.array([["a", "b"]] * 20), y)
    Xn = X.copy()
    Xn[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN or infinite.*impute or drop"):
        S.score(Xn, y)
    with pytest.raises(ValueError, match="NaN or infinite"):
        S.score(sp.csr_matrix(Xn), y)
    with pytest.raises(ValueError, match="y has a single class"):
        S.score(X, np.ones(20), "fisher")
    with pytest.raises(ValueError, match="X has 20 rows but y has 19 values"):
        S.score(X, y[:-1])
    with pytest.raises(ValueError, match="y contains missing values"):
        S.score(X, np.r_[np.nan, y[1:]], "corr")
    for bad in (1, 0, 2.5, True):
        with pytest.raises(ValueError, match="bins must be an integer >= 2"):
            S.score(X, y, "chi2", bins=bad)
        with pytest.raises(ValueError, match="bins must be an integer >= 2"):
            S.OnlineQuantileScreener("gini", bins=bad)
    with pytest.raises(ValueError, match="exactly two classes.*fisher"):
        S.score(X, np.arange(20) % 3, "t")
    with pytest.raises(ValueError, match="unknown screening method"):
        S.score(X, y, "lasso")
    with pytest.raises(ValueError, match="supports methods"):
        S.OnlineMomentScreener("chi2")
    on = S.OnlineMomentScreener("t").partial_fit(X, y)
    with pytest.raises(ValueError, match="same columns"):
        on.partial_fit(X[:, :2], y)
    with pytest.raises(ValueError, match="call partial_fit first"):
        S.OnlineQuantileScreener("mi").scores_
    with pytest.raises(ValueError, match="pass y"):
        S.order_columns(X, None, order="mi")
    with pytest.raises(ValueError, match="eps must be in"):
        S.OnlineQuantileScreener("mi", eps=0)
