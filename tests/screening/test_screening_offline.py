"""Offline screening scores against per-feature loops and scipy/sklearn references."""
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from scipy import stats
from sklearn.feature_selection import chi2 as sk_chi2
from sklearn.metrics import mutual_info_score

from streamreg import screening as S

RTOL = 1e-10


def make_data(n=240, p=12, classes=2, seed=0, ties=True):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, classes, size=n)
    X = rng.normal(size=(n, p)) + 0.6 * y[:, None] * (np.arange(p) % 3 == 0)
    if ties:
        X[:, 1] = np.round(X[:, 1])           # many ties
        X[:, 2] = np.where(rng.random(n) < 0.7, 0.0, X[:, 2])  # many zeros
        X[:, 4] = 3.0                         # constant
    return X, y


# ---- reference implementations: one feature at a time, straight from the formulas ----
def ref_bins(x, K):
    """Equal-frequency bins: bin of x = min(K-1, #{obs < x} // floor(n/K))."""
    s = np.sort(x)
    d = max(len(x) // K, 1)
    return np.minimum(K - 1, np.searchsorted(s, x, side="left") // d)


def ref_table(x, y, K):
    b = ref_bins(x, K)
    classes = np.unique(y)
    return np.array([[np.sum((b == k) & (y == c)) for c in classes] for k in range(K)], float)


def ref_gini_gain(x, y, K):
    b = ref_bins(x, K)

    def imp(lab):
        if len(lab) == 0:
            return 0.0
        _, cnt = np.unique(lab, return_counts=True)
        return 1 - np.sum((cnt / len(lab)) ** 2)

    best = min(np.mean(b <= h) * imp(y[b <= h]) + np.mean(b > h) * imp(y[b > h])
               for h in range(K))
    return imp(y) - best


def ref_relieff(X, y, k):
    rng_ = X.max(0) - X.min(0)
    Z = X / np.where(rng_ > 0, rng_, 1) * (rng_ > 0)
    n, p = Z.shape
    classes, counts = np.unique(y, return_counts=True)
    prior = dict(zip(classes, counts / n))
    W = np.zeros(p)
    for i in range(n):
        d = np.sqrt(((Z - Z[i]) ** 2).sum(1))
        d[i] = np.inf
        for c in classes:
            idx = np.flatnonzero(y == c)
            idx = idx[np.argsort(d[idx], kind="stable")]
            idx = idx[np.isfinite(d[idx])][:k]
            diff = np.abs(Z[idx] - Z[i]).sum(0)
            if c == y[i]:
                W -= diff / (n * k)
            else:
                W += prior[c] / (1 - prior[y[i]]) * diff / (n * k)
    return W


def ref_rrelieff(X, y, k, sigma):
    rng_ = X.max(0) - X.min(0)
    Z = X / rng_
    n, p = Z.shape
    ry = y.max() - y.min()
    NdP, NdA, NdPdA = 0.0, np.zeros(p), np.zeros(p)
    d1 = np.exp(-(np.arange(1, k + 1) / sigma) ** 2)
    dd = d1 / d1.sum()
    for i in range(n):
        dist = np.sqrt(((Z - Z[i]) ** 2).sum(1))
        dist[i] = np.inf
        nb = np.argsort(dist, kind="stable")[:k]
        for r, u in enumerate(nb):
            dy = abs(y[i] - y[u]) / ry
            dA = np.abs(Z[i] - Z[u])
            NdP += dy * dd[r]
            NdA += dA * dd[r]
            NdPdA += dy * dA * dd[r]
    return NdPdA / NdP - (NdA - NdPdA) / (n - NdP)


# ---- tests ---------------------------------------------------------------------------
def test_tscore_equals_welch_statistic():
    X, y = make_data(ties=False)
    s = S.score(X, y, "t")
    ref = np.abs(stats.ttest_ind(X[y == 1], X[y == 0], equal_var=False).statistic)
    np.testing.assert_allclose(s.to_numpy(), ref, rtol=RTOL)
    assert list(s.index) == [f"x{j}" for j in range(X.shape[1])]


def test_fisher_loop_and_anova():
    X, y = make_data(classes=3, ties=False)
    s = S.score(X, y, "fisher")
    ref = []
    for j in range(X.shape[1]):
        x, mu = X[:, j], X[:, j].mean()
        num = sum(np.sum(y == c) * (x[y == c].mean() - mu) ** 2 for c in range(3))
        den = sum(np.sum(y == c) * x[y == c].var() for c in range(3))
        ref.append(num / den)
    np.testing.assert_allclose(s, ref, rtol=RTOL)
    # Fisher = F * (C - 1) / (n - C) for the one-way ANOVA F
    F = stats.f_oneway(*[X[y == c] for c in range(3)]).statistic
    np.testing.assert_allclose(s, F * 2 / (len(y) - 3), rtol=1e-9)


def test_bin_counts_match_loop_with_ties_and_zeros():
    X, y = make_data(n=203)
    for K in (2, 5, 7):
        got = S.bin_counts(X, y, bins=K)
        for j in range(X.shape[1]):
            np.testing.assert_array_equal(got[j], ref_table(X[:, j], y, K))
        codes = S.bin_codes(X, bins=K)
        for j in range(X.shape[1]):
            np.testing.assert_array_equal(codes[:, j], ref_bins(X[:, j], K))


def test_chi2_vs_loop_scipy_and_sklearn():
    X, y = make_data()
    s = S.score(X, y, "chi2")
    for j in range(X.shape[1]):
        t = ref_table(X[:, j], y, 5)
        t = t[t.sum(1) > 0]
        ref = stats.chi2_contingency(t, correction=False)[0] if t.shape[0] > 1 else 0.0
        assert s.iloc[j] == pytest.approx(ref, rel=RTOL, abs=1e-12)
    # sklearn's chi2 treats a column as counts (observed = per-class column sums), so it is
    # NOT our statistic on raw X; on the one-hot bin indicators the Pearson table splits
    # into one sklearn column per bin, and the sum over bins coincides.
    codes = S.bin_codes(X, 5)
    for j in range(X.shape[1]):
        onehot = np.eye(5)[codes[:, j]]
        onehot = onehot[:, onehot.sum(0) > 0]
        if onehot.shape[1] > 1:
            assert s.iloc[j] == pytest.approx(sk_chi2(onehot, y)[0].sum(), rel=1e-9)


def test_mi_matches_sklearn_mutual_info_score():
    X, y = make_data(classes=3)
    s = S.score(X, y, "mi")
    codes = S.bin_codes(X, 5)
    ref = [mutual_info_score(y, codes[:, j]) for j in range(X.shape[1])]
    np.testing.assert_allclose(s, ref, rtol=RTOL, atol=1e-14)


def test_gini_gain_loop():
    X, y = make_data(classes=3)
    s = S.score(X, y, "gini", bins=4)
    ref = [ref_gini_gain(X[:, j], y, 4) for j in range(X.shape[1])]
    np.testing.assert_allclose(s, ref, rtol=RTOL, atol=1e-14)
    assert s.iloc[4] == 0.0  # constant feature: no gain


def test_relief_and_relieff_loop():
    X, y = make_data(n=80, p=6, ties=False)
    np.testing.assert_allclose(S.score(X, y, "relief"), ref_relieff(X, y, 1), rtol=1e-9)
    X3, y3 = make_data(n=90, p=5, classes=3, ties=False, seed=3)
    np.testing.assert_allclose(S.score(X3, y3, "relieff", n_neighbors=4),
                               ref_relieff(X3, y3, 4), rtol=1e-9)


def test_rrelieff_loop():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(70, 5))
    y = X[:, 0] + 0.3 * rng.normal(size=70)
    np.testing.assert_allclose(S.score(X, y, "rrelieff", n_neighbors=6, sigma=3.0),
                               ref_rrelieff(X, y, 6, 3.0), rtol=1e-9)


def test_mrmr_greedy_loop():
    X, y = make_data(n=150, p=8)
    s = S.score(X, y, "mrmr")
    codes = S.bin_codes(X, 5)
    p = X.shape[1]
    rel = np.array([mutual_info_score(y, codes[:, j]) for j in range(p)])
    chosen = [int(np.argmax(rel))]
    while len(chosen) < p:
        crit = [rel[j] - np.mean([mutual_info_score(codes[:, j], codes[:, q]) for q in chosen])
                if j not in chosen else -np.inf for j in range(p)]
        chosen.append(int(np.argmax(crit)))
    assert S.top(s, p) == [f"x{j}" for j in chosen]


def test_regression_scores():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(200, 6))
    y = 2 * X[:, 1] - X[:, 3] + rng.normal(size=200)
    s = S.score(X, y, "corr")
    np.testing.assert_allclose(s, [abs(np.corrcoef(X[:, j], y)[0, 1]) for j in range(6)],
                               rtol=1e-12)
    mi = S.score(X, y, "mi", bins=4)
    yb = ref_bins(y, 4)
    np.testing.assert_allclose(mi, [mutual_info_score(yb, ref_bins(X[:, j], 4))
                                    for j in range(6)], rtol=RTOL)
    assert mi.attrs["task"] == "regression"


@pytest.mark.parametrize("method", ["t", "fisher", "chi2", "gini", "mi", "relief", "mrmr"])
def test_sparse_equals_dense_classification(method):
    X, y = make_data(n=120, p=10)
    X[:, 5] = np.where(X[:, 5] > 0.5, X[:, 5], 0.0)
    d = S.score(X, y, method)
    s = S.score(sp.csr_matrix(X), y, method)
    np.testing.assert_allclose(s, d, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("method", ["corr", "mi", "rrelieff"])
def test_sparse_equals_dense_regression(method):
    rng = np.random.default_rng(6)
    X = np.where(rng.random((100, 7)) < 0.5, 0.0, rng.normal(size=(100, 7)))
    y = X[:, 0] + rng.normal(size=100)
    np.testing.assert_allclose(S.score(sp.csc_matrix(X), y, method),
                               S.score(X, y, method), rtol=1e-9, atol=1e-12)


def test_rank_top_dataframe_names_and_aliases():
    X, y = make_data(ties=False)
    df = pd.DataFrame(X, columns=[f"g{j}" for j in range(X.shape[1])])
    s = S.score(df, pd.Series(np.where(y == 1, "case", "ctrl")), "T-score")
    assert s.name == "t" and s.index[0] == "g0"
    r = S.rank(s)
    assert sorted(r) == list(range(1, X.shape[1] + 1))
    assert S.top(s, 3) == list(s.sort_values(ascending=False).index[:3])
    assert r[S.top(s, 1)[0]] == 1
