"""Online screeners and the quantile sketch against offline and direct references."""
import numpy as np
import pytest
import scipy.sparse as sp

from streamreg import screening as S
from streamreg.screening.sketch import QuantileSketch


def feed(screener, X, y, bs):
    for i in range(0, X.shape[0], bs):
        screener.partial_fit(X[i:i + bs], y[i:i + bs])
    return screener


def sparse_data(n=500, p=15, density=0.15, seed=0, classes=2):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, classes, size=n)
    mask = rng.random((n, p)) < density
    X = np.where(mask, rng.normal(2.0, 1.0, size=(n, p)) + 0.8 * y[:, None], 0.0)
    X[:, 0] = 0.0
    X[7, 0] = 1.5   # a feature with a single non-zero
    return X, y


# ---- moment screeners -----------------------------------------------------------------
@pytest.mark.parametrize("method", ["t", "fisher"])
@pytest.mark.parametrize("bs", [1, 7, 250])
def test_moment_online_equals_offline(method, bs):
    X, y = sparse_data(classes=2 if method == "t" else 3)
    X[:, 3] = 100.0 + np.arange(X.shape[0]) * 1e-3  # large mean: cancellation check
    off = S.score(X, y, method).to_numpy()
    dense = feed(S.OnlineMomentScreener(method), X, y, bs).scores_.to_numpy()
    spars = feed(S.OnlineMomentScreener(method), sp.csr_matrix(X), y, bs).scores_.to_numpy()
    np.testing.assert_allclose(dense, off, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(spars, off, rtol=1e-10, atol=1e-12)


def weighted_reference(X, y, alpha, method):
    """Direct weighted statistics with weight alpha^(n-i) for the row at time i."""
    n = X.shape[0]
    w = alpha ** (n - 1 - np.arange(n))
    out = []
    classes = np.unique(y)
    for j in range(X.shape[1]):
        x = X[:, j]
        W = np.array([w[y == c].sum() for c in classes])
        mu = np.array([np.sum(w[y == c] * x[y == c]) / W[k] for k, c in enumerate(classes)])
        m2 = np.array([np.sum(w[y == c] * (x[y == c] - mu[k]) ** 2)
                       for k, c in enumerate(classes)])
        if method == "t":
            v = m2 / (W - 1) / W
            den = np.sqrt(v.sum())
            out.append(abs(mu[0] - mu[1]) / den if den > 0 else 0.0)
        else:
            m = np.sum(W * mu) / W.sum()
            within = m2.sum()
            out.append(np.sum(W * (mu - m) ** 2) / within if within > 0 else 0.0)
    return np.array(out)


@pytest.mark.parametrize("method", ["t", "fisher"])
def test_moment_fading_equals_direct_weighted(method):
    X, y = sparse_data(n=400, density=0.05, seed=2)
    X[:, 1] = 0.0
    X[[3, 390], 1] = [1.0, 2.0]   # long zero run between two values: anchor decay
    ref = weighted_reference(X, y, 0.99, method)
    for bs in (1, 7, 250):
        d = feed(S.OnlineMomentScreener(method, fading=0.99), X, y, bs).scores_
        s = feed(S.OnlineMomentScreener(method, fading=0.99), sp.csr_matrix(X), y, bs).scores_
        np.testing.assert_allclose(d, ref, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(s, ref, rtol=1e-9, atol=1e-12)


def test_moment_classes_appear_later():
    X, y = sparse_data(n=300, classes=3, seed=4)
    order = np.argsort(y, kind="stable")  # all of class 0 first, then 1, then 2
    on = S.OnlineMomentScreener("fisher")
    on.partial_fit(X[order[:50]], y[order[:50]])
    with pytest.raises(ValueError, match="only 1 class"):
        on.scores_
    feed(on, X[order[50:]], y[order[50:]], 33)
    np.testing.assert_allclose(on.scores_, S.score(X, y, "fisher"), rtol=1e-10)
    assert on.ranking_.min() == 1


# ---- quantile sketch -----------------------------------------------------------------
def true_rank(col, q):
    return np.searchsorted(np.sort(col), q, side="right")


def adversarial_streams(n=4000, seed=0):
    rng = np.random.default_rng(seed)
    base = rng.normal(size=n)
    return {
        "sorted": np.sort(base),
        "reversed": np.sort(base)[::-1],
        "ties": rng.integers(0, 7, size=n).astype(float),
        "zeros": np.where(rng.random(n) < 0.9, 0.0, base),
        "sawtooth": np.tile(np.arange(100.0), n // 100),
    }


@pytest.mark.parametrize("eps", [0.1, 0.02])
@pytest.mark.parametrize("bs", [1, 333])
def test_sketch_rank_error_within_eps(eps, bs):
    streams = adversarial_streams()
    X = np.column_stack(list(streams.values()))
    n, p = X.shape
    for sparse in (False, True):
        sk = QuantileSketch(p, eps)
        for i in range(0, n, bs):
            chunk = X[i:i + bs]
            sk.update(sp.csr_matrix(chunk) if sparse else chunk, np.zeros(len(chunk), int))
        t = sk.summary()
        q = np.sort(X, axis=0)
        q = np.vstack([q, q + 1e-9, q - 1e-9])  # at, just above and just below each value
        R = t.rank(q)
        truth = np.column_stack([true_rank(X[:, j], q[:, j]) for j in range(p)])
        gap = truth - R
        assert gap.min() >= -1e-9, "R(x) must never exceed the true rank"
        assert np.all(gap.max(axis=0) <= t.err + 1e-9), "tracked error bound violated"
        assert gap.max() <= eps * n
        assert np.all(t.err <= eps * n)
        np.testing.assert_allclose(t.total().sum(axis=1), n)  # no mass lost
    assert sk.n_tuples < n * p  # the sorted/sawtooth streams were actually compressed


def test_sketch_merge_is_summary_of_union():
    rng = np.random.default_rng(3)
    A = np.column_stack([np.sort(rng.normal(size=3000)), rng.integers(0, 5, 3000)])
    B = np.column_stack([rng.normal(1.0, 2.0, size=2000)[::-1], np.zeros(2000)])
    sa, sb = QuantileSketch(2, 0.05), QuantileSketch(2, 0.02)
    sa.update(A, np.zeros(3000, int))
    sb.update(B, np.ones(2000, int))
    merged = sa.merge(sb)
    U = np.vstack([A, B])
    t = merged.summary()
    q = np.sort(U, axis=0)
    gap = np.column_stack([true_rank(U[:, j], q[:, j]) for j in range(2)]) - t.rank(q)
    assert gap.min() >= -1e-9
    assert gap.max() <= 0.05 * len(U)
    np.testing.assert_allclose(t.total(), [[3000, 2000], [3000, 2000]])


# ---- quantile screeners --------------------------------------------------------------
@pytest.mark.parametrize("method", ["chi2", "gini", "mi"])
def test_quantile_screener_exact_for_small_eps(method):
    X, y = sparse_data(n=600, seed=5)
    X[:, 2] = np.round(X[:, 2])
    off = S.score(X, y, method)
    for data in (X, sp.csr_matrix(X)):
        for bs in (1, 250):
            on = feed(S.OnlineQuantileScreener(method, eps=0.001, classes=[0, 1]), data, y, bs)
            np.testing.assert_array_equal(on.counts_, S.bin_counts(X, y))
            np.testing.assert_allclose(on.scores_, off, rtol=1e-12, atol=1e-15)


def test_quantile_counts_converge_as_eps_shrinks():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(6000, 8))
    y = (X[:, 0] + rng.normal(size=6000) > 0).astype(int)
    off = S.bin_counts(X, y)
    diffs = []
    for eps in (0.2, 0.05, 0.0003):
        on = feed(S.OnlineQuantileScreener("chi2", eps=eps, classes=[0, 1]), X, y, 500)
        assert on.counts_.sum() == pytest.approx(off.sum())   # every row counted once
        diffs.append(np.abs(on.counts_ - off).mean())
    assert diffs[0] > 0 and diffs[-1] == 0 and diffs[0] >= diffs[1] >= diffs[2]


def test_quantile_fading_equals_direct_weighted_bins():
    X, y = sparse_data(n=700, seed=7, density=0.4)
    alpha = 0.995
    n, p = X.shape
    w = alpha ** (n - 1 - np.arange(n))
    ref = np.zeros((p, 5, 2))
    for j in range(p):
        x = X[:, j]
        rminus = np.array([w[x < v].sum() for v in x])
        b = np.minimum(4, np.floor(rminus / (w.sum() / 5))).astype(int)
        for c in (0, 1):
            ref[j, :, c] = np.bincount(b[y == c], weights=w[y == c], minlength=5)
    for data in (X, sp.csr_matrix(X)):
        on = feed(S.OnlineQuantileScreener("mi", eps=0.0005, fading=alpha, classes=[0, 1]),
                  data, y, 64)
        np.testing.assert_allclose(on.counts_, ref, rtol=1e-9, atol=1e-9)
        from streamreg.screening.criteria import mi_from_counts
        np.testing.assert_allclose(on.scores_, mi_from_counts(ref), rtol=1e-8)
