"""interactions(): selection on synthetic data, generation order, laziness, bad inputs."""
import tracemalloc

import numpy as np
import pandas as pd
import pytest

import streamreg as sr
from streamreg.formula.design import build_design
from streamreg.streams.base import AcceptedTerm
from streamreg.streams.interactions import AllPairs, SelectedProducts, pair_of_index

# conservative wealth: the omitted product makes the residual heteroscedastic, which
# inflates the size of t-tests of other products until x3:x17 is in the model
W = {"w0": 0.01, "alpha_delta": 0.01}


def _interaction_data(seed, *, main=0.5, n=1000, p=30, sigma=2.0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(rng.normal(size=(n, p)), columns=[f"x{j}" for j in range(p)])
    df["y"] = main * df.x3 + main * df.x17 + 1.5 * df.x3 * df.x17 + sigma * rng.normal(size=n)
    return df


def test_x3_x17_found_and_nothing_spurious_in_90_of_100_seeds():
    allowed = {"x3", "x17", "x3:x17"}
    hits = 0
    for seed in range(100):
        df = _interaction_data(seed)
        terms = set(sr.streamreg("y ~ stream(x*) + interactions()", df, **W).selected_terms)
        hits += "x3:x17" in terms and terms <= allowed
        alone = sr.streamreg("y ~ stream(x*)", df, **W).selected_terms
        assert all(":" not in t for t in alone)  # stream(x*) alone has no product to offer
    assert hits >= 90


def test_xor_needs_all_pairs():
    dyn = kind3 = 0
    for seed in range(10):
        df = _interaction_data(100 + seed, main=0.0)
        dyn += "x3:x17" in sr.streamreg("y ~ stream(x*) + interactions()", df, **W).selected_terms
        fit3 = sr.streamreg("y ~ stream(x*) + interactions(kind=3)", df, **W)
        kind3 += "x3:x17" in fit3.selected_terms
    assert dyn <= 1  # kinds 1-2 only multiply selected terms: no main effect, nothing to multiply
    assert kind3 == 10


def _hand_design(kinds):
    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.normal(size=(12, 4)), columns=["x0", "x1", "x2", "x3"])
    df["y"] = rng.normal(size=12)
    d = build_design(f"y ~ stream(x*) + interactions(kind={kinds})", df, binomial=False)
    return df, {s.name: s for s in d.streams}


def _accept(streams, df, name):
    term = AcceptedTerm(name, "x*", df[[name]].to_numpy(float), [name])
    for s in streams.values():
        s.on_accept(term)


def _drain(stream):
    names = []
    while (b := stream.take(100)) is not None:
        names += list(b.names)
    return names


def test_generation_order_kinds_1_and_2():
    df, st = _hand_design((1, 2))
    k1, k2 = st["interactions[1]"], st["interactions[2]"]
    assert isinstance(k1, SelectedProducts) and k1.n_candidates is None
    assert k1.take(10) is None and k2.take(10) is None and not k1.exhausted  # empty now, not finished
    _accept(st, df, "x1")
    assert k2.n_pending == 4 and k1.n_pending == 0
    assert list(k2.take(10).names) == ["x0:x1"]  # kind 2 offers one product per turn
    _accept(st, df, "x3")
    assert _drain(k1) == ["x1:x3"]  # selected x selected goes to kind 1
    assert _drain(k2) == ["x1:x2", "x0:x3", "x2:x3"]  # x1:x3 is kind 1's; no x1:x1, no x3:x3
    assert k1.n_generated == 1 and k2.n_generated == 4
    _accept(st, df, "x0")
    assert _drain(k1) == []  # x0:x1 and x0:x3 were offered by kind 2 already
    assert _drain(k2) == ["x0:x2"]


def test_generation_order_kind_3_and_values():
    df, st = _hand_design(3)
    k3 = st["interactions[3]"]
    assert isinstance(k3, AllPairs) and k3.n_candidates == 6
    b = k3.take(4)
    assert list(b.names) == ["x0:x1", "x0:x2", "x1:x2", "x0:x3"]
    expected = np.column_stack([df.x0 * df.x1, df.x0 * df.x2, df.x1 * df.x2, df.x0 * df.x3])
    np.testing.assert_array_equal(b.block.values, expected)
    assert list(k3.take(4).names) == ["x1:x3", "x2:x3"]
    assert k3.take(4) is None and k3.exhausted


def test_kind_2_products_equal_numpy():
    df, st = _hand_design((1, 2))
    _accept(st, df, "x2")
    got = []
    while (b := st["interactions[2]"].take(5)) is not None:
        got.append((b.names[0], b.block.values[:, 0]))
    assert [g[0] for g in got] == ["x0:x2", "x1:x2", "x2:x3"]
    for name, vals in got:
        a, c = name.split(":")
        np.testing.assert_array_equal(vals, df[a].to_numpy() * df[c].to_numpy())


def test_pair_index_is_triangular_and_exact_for_huge_positions():
    i, j = pair_of_index(np.arange(10))
    assert list(zip(i, j)) == [(0, 1), (0, 2), (1, 2), (0, 3), (1, 3), (2, 3), (0, 4), (1, 4), (2, 4), (3, 4)]
    big = np.array([49_994_999, 10**12 + 12345])
    i, j = pair_of_index(big)
    assert np.all(j * (j - 1) // 2 + i == big) and np.all((0 <= i) & (i < j))


def test_kind_3_over_10000_candidates_is_lazy():
    rng = np.random.default_rng(1)
    p, n = 10_000, 20
    df = pd.DataFrame(rng.normal(size=(n, p)), columns=[f"x{j}" for j in range(p)])
    df["y"] = rng.normal(size=n)
    tracemalloc.start()
    d = build_design("y ~ stream(x*) + interactions(kind=3)", df, binomial=False)
    k3 = d.streams[1]
    b = k3.take(1000)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert k3.n_candidates == p * (p - 1) // 2 == 49_995_000
    assert k3.n_generated == 1000 and k3.position == 1000 and len(b) == 1000
    assert peak < 200e6  # the 5e7 products would take 8 GB at n = 20
    np.testing.assert_array_equal(b.block.values[:, -1], df[b.names[-1].split(":")[0]] * df[b.names[-1].split(":")[1]])


def test_no_product_tested_twice_and_block_size_invariance():
    rng = np.random.default_rng(5)
    n = 300
    df = pd.DataFrame(rng.normal(size=(n, 8)), columns=[f"x{j}" for j in range(8)])
    df["y"] = df.x1 + df.x4 + df.x1 * df.x4 + 0.7 * df.x2 * df.x6 + df.x6 + rng.normal(size=n)
    runs = []
    for bs in (1, 2, 7, 512):
        fit = sr.streamreg("y ~ stream(x*) + interactions(kind=(1, 2, 3))", df, method="alpha-investing",
                           block_size=bs)
        h = fit.history
        tested = h[h["test"].notna()]
        key = tested["term"].map(lambda t: frozenset(t.split(":")))
        assert not key.duplicated().any()
        runs.append((list(tested["term"]), list(tested["stream"]), fit.selected_terms))
    assert all(r == runs[0] for r in runs)
    assert "x1:x4" in runs[0][2]


def test_factor_products_are_multi_column_terms():
    rng = np.random.default_rng(2)
    n = 400
    df = pd.DataFrame(rng.normal(size=(n, 3)), columns=["x0", "x1", "x2"])
    df["g"] = rng.choice(["a", "b", "c"], n)
    df["y"] = df.x1 + 2 * df.x1 * (df.g == "b") + (df.g == "c") + rng.normal(size=n)
    fit = sr.streamreg("y ~ stream(x*, g) + interactions()", df, w0=0.05, alpha_delta=0.05)
    sel = fit.selected.set_index("term")
    assert "x1:g" in sel.index
    # tested as patsy's x1:g beside an intercept (x1 within each of 3 levels); with x1 in
    # the model one direction is old, so the test has 2 df, as the refit's 2 columns
    assert sel.loc["x1:g", "df"] == 2
    assert [c for c in fit.params.index if c.startswith("x1:")] == ["x1:g[T.b]", "x1:g[T.c]"]
    np.testing.assert_allclose(fit.predict(df).to_numpy(), fit.fit.fittedvalues.to_numpy(), rtol=1e-10)


@pytest.mark.parametrize(
    "formula, message",
    [
        ("y ~ interactions()", "has none"),
        ("y ~ pca(x*, k=2) + interactions()", "has none"),
        ("y ~ stream(x*) + interactions(kind=4)", "kind="),
        ("y ~ stream(x*) + interactions(nope)", "no stream is called 'nope'"),
        ("y ~ stream(x*) + interactions(degree=1)", "degree="),
        ("y ~ stream(x*) + interactions(colour=1)", "unknown option"),
    ],
)
def test_bad_interactions(formula, message):
    df = _interaction_data(0, n=30, p=20)
    with pytest.raises(sr.FormulaError, match=message):
        sr.streamreg(formula, df)


def _clustered(seed, n=200, groups=20, per=20):
    """Columns in correlated groups (what k-means recovers); y has a cross-group product."""
    rng = np.random.default_rng(seed)
    x = np.repeat(rng.normal(size=(n, groups)), per, axis=1) + 1.5 * rng.normal(size=(n, groups * per))
    df = pd.DataFrame(x, columns=[f"x{j}" for j in range(groups * per)])
    df["y"] = df.x3 + df.x3 * df.x351 + rng.normal(size=n)
    return df


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_cluster_interaction_is_found_across_clusters(seed):
    """The MSFS (I) setting of Dhillon, Foster and Ungar (2010): 20 cluster streams plus squares,
    interactions(cl) of the cluster columns.  The product of a selected term with a column of another cluster is
    reached and accepted, with the p-value statsmodels gives it on the model of that moment."""
    import statsmodels.formula.api as smf

    df = _clustered(seed)
    fit = sr.streamreg("y ~ clusters(x*, k=20, name=cl) + squares(x*) + interactions(cl)", df)
    sel = fit.selected
    assert "x3:x351" in fit.selected_terms
    row = sel[sel.term == "x3:x351"].iloc[0]
    assert row.stream.startswith("interactions[")
    hist = fit.history
    stream_of = dict(zip(hist.term, hist.stream))
    assert stream_of["x3"] != stream_of["x351"]  # the factors sit in different clusters
    before = sel[sel.order < row.order].term.tolist()
    ref = smf.ols("y ~ " + " + ".join(before + ["x3:x351"]), df).fit().pvalues["x3:x351"]
    assert row.pvalue == pytest.approx(ref, rel=1e-8)
    without = sr.streamreg("y ~ clusters(x*, k=20, name=cl) + squares(x*)", df).selected_terms
    assert all(":" not in t for t in without)
