"""Alg. 2 bookkeeping with dynamic streams, passes and the single-stream mode."""
import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from naive import is_collinear
from one_phase import ONE_PHASE
from test_search import FixedPModel

import streamreg as sr
from streamreg.policies import AlphaInvesting
from streamreg.search import streamwise_search
from streamreg.streams.arrays import MatrixStream
from streamreg.streams.interactions import InteractionPool, SelectedProducts
from streamreg.streams.passes import ConcatStream, PassesStream, smallest_first


def _ids_pool(ids, kinds=(1, 2)):
    mat = np.tile(np.asarray(ids, float), (10, 1))
    names = [f"x{j}" for j in range(len(ids))]
    pool = InteractionPool(names, lambda i: mat[:, i : i + 1], lambda: mat, None, kinds=kinds)
    pool.kind1 = SelectedProducts("I1", pool, 1, 10)
    pool.kind2 = SelectedProducts("I2", pool, 2, 10)
    return MatrixStream("A", mat, names), pool.kind1, pool.kind2


def test_alg2_with_dynamic_streams_hand_checked():
    # ids are primes, a product's id is the product of its factors' ids
    p = {2: 0.01, 3: 0.9, 5: 0.9, 7: 0.001, 6: 0.9, 10: 0.9, 14: 0.001, 21: 0.9, 35: 0.9}
    for bs in (1, 2, 100):
        a, i1, i2 = _ids_pool([2, 3, 5, 7])
        res = streamwise_search(FixedPModel(p), [a, i1, i2], AlphaInvesting(), block_size=bs)
        h = res.history
        # worked by hand from Alg. 2 (w_j = 1/6, ties to the lowest j):
        # x0 accepted -> I2 offers x0:x1; x3 accepted while I2 holds x0:x2 -> x0:x3 is kind 1's
        assert list(h["term"]) == ["x0", "x1", "x0:x1", "x2", "x3", "x0:x3", "x0:x2", "x1:x3", "x2:x3"]
        assert list(h["stream"]) == ["A", "A", "I2", "A", "A", "I1", "I2", "I2", "I2"]
        assert list(h["accepted"]) == [True, False, False, False, True, True, False, False, False]
        np.testing.assert_allclose(h["level"], [1 / 12, 7 / 48, 1 / 12, 7 / 96, 35 / 768, 1 / 12, 1 / 48,
                                                1 / 96, 5 / 768], rtol=1e-12)
        np.testing.assert_allclose(res.per_stream["final_wealth"], [629 / 768, 7 / 12, 35 / 768], rtol=1e-12)
        assert list(res.per_stream["tested"]) == [4, 1, 4]


def naive_alg2_interactions(y, x, w0=0.5, alpha_delta=0.5):
    """Alg. 2 over [originals, kind 1, kind 2] with a statsmodels refit per test.

    Generation as documented in streams/interactions.py: kind 1 gets s x t at t's
    acceptance unless kind 2 has offered it; kind 2's next product is drawn when it has
    none in hand, skipping products of two selected terms and products already offered.
    """
    n, p = x.shape
    names = [f"x{j}" for j in range(p)]
    w, i = [w0 / 3] * 3, [1] * 3
    pos = 0
    k1: list = []
    batches: list = []
    head = None
    offered: set = set()
    selected: list[int] = []
    model = [np.ones(n)]
    trace = []

    def draw():
        while batches:
            t, cur = batches[0]
            while cur < p:
                o = cur
                cur += 1
                key = frozenset((t, o))
                if o == t or o in selected or key in offered:
                    continue
                batches[0][1] = cur
                offered.add(key)
                return (t, o)
            batches.pop(0)
        return None

    while True:
        if head is None:
            head = draw()
        heads = [pos < p, bool(k1), head is not None]
        live = [j for j in range(3) if heads[j]]
        if not live:
            break
        j = max(live, key=lambda s: (w[s] / i[s], -s))
        if j == 0:
            cand, label, pair = x[:, pos], names[pos], (pos,)
            pos += 1
        else:
            pair = k1.pop(0) if j == 1 else head
            if j == 2:
                head = None
            a, b = sorted(pair)
            cand, label = x[:, a] * x[:, b], f"{names[a]}:{names[b]}"
        xm = np.column_stack(model)
        if is_collinear(xm, cand[:, None]):
            continue
        pval = sm.OLS(y, np.column_stack([xm, cand])).fit().pvalues[-1]
        alpha = w[j] / (2 * i[j])
        acc = pval < alpha
        w[j] += (alpha_delta - alpha) if acc else -alpha
        i[j] += 1
        trace.append((label, j, pval, alpha, acc))
        if acc:
            model.append(cand)
            if len(pair) == 1:
                t = pair[0]
                for s in selected:
                    key = frozenset((s, t))
                    if key not in offered:
                        offered.add(key)
                        k1.append((s, t))
                batches.append([t, 0])
                selected.append(t)
    return trace


@pytest.mark.parametrize("seed", range(4))
def test_alg2_with_interactions_matches_direct_transcription(seed):
    rng = np.random.default_rng(seed)
    n, p = 120, 7
    x = rng.normal(size=(n, p))
    y = x[:, 1] + 0.8 * x[:, 4] + 0.9 * x[:, 1] * x[:, 4] + 0.6 * x[:, 1] * x[:, 5] + rng.normal(size=n)
    df = pd.DataFrame(x, columns=[f"x{j}" for j in range(p)]).assign(y=y)
    trace = naive_alg2_interactions(y, x)
    stream_of = {0: "x*", 1: "interactions[1]", 2: "interactions[2]"}
    for bs in (1, 3, 512):
        fit = sr.streamreg("y ~ stream(x*) + interactions()", df, method="alpha-investing", block_size=bs)
        h = fit.history[fit.history["test"].notna()]
        assert list(h["term"]) == [t[0] for t in trace]
        assert list(h["stream"]) == [stream_of[t[1]] for t in trace]
        np.testing.assert_allclose(h["pvalue"], [t[2] for t in trace], rtol=1e-7)
        np.testing.assert_allclose(h["level"], [t[3] for t in trace], rtol=1e-12)
        assert list(h["accepted"]) == [t[4] for t in trace]
    assert any(":" in t[0] and t[4] for t in trace)


def naive_passes(y, streams, passes, w0=0.5, alpha_delta=0.5):
    """Alg. 2 where a rejected candidate is appended to its stream's end for the next pass."""
    k = len(streams)
    queues = [[(nm, c, 1) for nm, c in s] for s in streams]
    w, i = [w0 / k] * k, [1] * k
    model = [np.ones(len(y))]
    trace = []
    while any(queues):
        j = max((s for s in range(k) if queues[s]), key=lambda s: (w[s] / i[s], -s))
        nm, c, pss = queues[j].pop(0)
        xm = np.column_stack(model)
        if is_collinear(xm, c[:, None]):
            continue
        pval = sm.OLS(y, np.column_stack([xm, c])).fit().pvalues[-1]
        alpha = w[j] / (2 * i[j])
        acc = pval < alpha
        w[j] += (alpha_delta - alpha) if acc else -alpha
        i[j] += 1
        trace.append((nm, pss, alpha, acc))
        if acc:
            model.append(c)
        elif pss < passes:
            queues[j].append((nm, c, pss + 1))
    return trace


def _two_class_data(seed):
    rng = np.random.default_rng(seed)
    n = 60
    df = pd.DataFrame(rng.normal(size=(n, 9)), columns=[f"a{j}" for j in range(6)] + ["b0", "b1", "b2"])
    df["y"] = 0.45 * df.a1 + 0.5 * df.b2 + 0.4 * df.a5 + rng.normal(size=n)
    return df


@pytest.mark.parametrize("seed", range(3))
def test_passes_match_direct_transcription(seed):
    df = _two_class_data(seed)
    streams = [[(c, df[c].to_numpy()) for c in df.columns if c.startswith(g)] for g in "ab"]
    trace = naive_passes(df.y.to_numpy(), streams, passes=3)
    for bs in (1, 512):
        fit = sr.streamreg("y ~ stream(a*) + stream(b*)", df, method="alpha-investing", passes=3, block_size=bs)
        h = fit.history[fit.history["test"].notna()]
        assert list(h["term"]) == [t[0] for t in trace]
        assert list(h["pass"]) == [t[1] for t in trace]
        np.testing.assert_allclose(h["level"], [t[2] for t in trace], rtol=1e-12)
        assert list(h["accepted"]) == [t[3] for t in trace]
    assert max(t[1] for t in trace) == 3  # re-tests happened and were charged
    assert fit.per_stream["tested"].sum() == len(trace)


def test_single_stream_is_smallest_class_first():
    df = _two_class_data(7)
    single = [[(c, df[c].to_numpy()) for c in ["b0", "b1", "b2"] + [f"a{j}" for j in range(6)]]]
    trace = naive_passes(df.y.to_numpy(), single, passes=2)
    fit = sr.streamreg("y ~ stream(a*) + stream(b*)", df, method="alpha-investing", multistream=False, passes=2)
    h = fit.history[fit.history["test"].notna()]
    assert list(h["term"]) == [t[0] for t in trace] and set(h["stream"]) == {"all"}
    assert list(h["pass"]) == [t[1] for t in trace]
    np.testing.assert_allclose(h["level"], [t[2] for t in trace], rtol=1e-12)


def test_concat_puts_dynamic_streams_last_and_rejoins():
    a, i1, i2 = _ids_pool([2, 3, 5])
    assert smallest_first([i1, a, i2]) == [a, i1, i2]
    cat = ConcatStream("all", [a, i1, i2])
    assert cat.n_candidates is None
    p = {2: 0.001, 3: 0.9, 5: 0.9, 6: 0.9, 10: 0.9, 15: 0.9}
    res = streamwise_search(FixedPModel(p), [cat], AlphaInvesting())
    assert list(res.history["term"]) == ["x0", "x1", "x2", "x0:x1", "x0:x2"]


@pytest.mark.parametrize("bad", [0, -1, 1.5, True])
def test_bad_passes(bad):
    with pytest.raises(ValueError, match="passes must be a positive integer"):
        sr.streamreg("y ~ stream(a*)", _two_class_data(0), passes=bad)
    with pytest.raises(ValueError, match="passes must be a positive integer"):
        PassesStream(MatrixStream("s", np.ones((3, 2)), ["u", "v"]), bad)


def test_select_takes_passes_like_streamreg():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((80, 300))
    y = x[:, 5] + 0.6 * x[:, 200] + 0.8 * rng.standard_normal(80)
    frame = pd.DataFrame(x, columns=[f"x{j}" for j in range(300)]).assign(y=y)
    fit = sr.select(y, x, passes=2, **ONE_PHASE)
    ref = sr.streamreg("y ~ stream(x*)", frame, passes=2, **ONE_PHASE)
    assert fit.selected_terms == ref.selected_terms
    assert list(fit.history["pass"]) == list(ref.history["pass"]) and fit.history["pass"].max() == 2
    np.testing.assert_allclose(fit.history["statistic"].to_numpy(), ref.history["statistic"].to_numpy(), rtol=1e-12)
    with pytest.raises(ValueError, match="passes= applies to streamwise policies"):
        sr.select(y, x, passes=2, method="stepwise-bic")
