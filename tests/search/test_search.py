"""The search driver: block-size invariance, Alg. 2 bookkeeping, stopping rules, skips."""
import itertools
import math

import numpy as np
import pandas as pd
import pytest
from naive import naive_multistream

import streamreg as sr
from streamreg.models.distributions import log_sf
from streamreg.models.gaussian import GaussianState
from streamreg.outcomes import TestOutcomes
from streamreg.policies import AlphaInvesting, InformationInvesting
from streamreg.search import streamwise_search
from streamreg.streams.arrays import MatrixStream


class FixedPModel:
    """A stand-in model whose p-value for candidate id k is P[k], whatever was accepted."""

    n = 10
    y = np.zeros(n)

    def __init__(self, pvalues):
        self.p = pvalues
        self.accepted = []

    def score_block(self, block):
        ids = block.values[0].astype(int)
        lp = np.log([self.p[i] for i in ids])
        m = len(ids)
        out = TestOutcomes(np.zeros(m), np.ones(m, int), np.full(m, np.inf), np.zeros(m), log_sf, None, lp)
        return out, np.zeros(m, dtype=np.int8)

    def accept(self, values):
        self.accepted.append(int(values[0, 0]))

    def log_pvalue(self, s, d, r):
        return log_sf(s, d, r)

    def boundary_share(self):
        return 0.0


def _id_stream(name, ids):
    vals = np.tile(np.asarray(ids, float), (10, 1))
    return MatrixStream(name, vals, [f"c{i}" for i in ids])


def test_multistream_hand_checked_sequence():
    # stream A: p = .01, .9, .9 ; stream B: p = .9, .001, .9 (worked by hand in the docstring of
    # the Alg. 2 transcription: a1 a2 b1 a3 b2 b3, accepting a1 and b2)
    p = {0: 0.01, 1: 0.9, 2: 0.9, 3: 0.9, 4: 0.001, 5: 0.9}
    for bs in (1, 2, 100):
        res = streamwise_search(FixedPModel(p), [_id_stream("A", [0, 1, 2]), _id_stream("B", [3, 4, 5])],
                                AlphaInvesting(), block_size=bs)
        h = res.history
        assert list(h["term"]) == ["c0", "c1", "c3", "c2", "c4", "c5"]
        assert list(h["accepted"]) == [True, False, False, False, True, False]
        np.testing.assert_allclose(h["level"], [0.125, 0.15625, 0.125, 0.078125, 0.03125, 0.59375 / 6])
        np.testing.assert_allclose(res.per_stream["final_wealth"], [0.390625, 0.59375 - 0.59375 / 6])


@pytest.mark.parametrize("seed", range(8))
def test_multistream_matches_direct_transcription(seed):
    rng = np.random.default_rng(seed)
    n = 80
    xs = [rng.normal(size=(n, int(rng.integers(5, 40)))) for _ in range(3)]
    y = xs[0][:, 1] + 0.7 * xs[2][:, 3] + 0.5 * xs[1][:, -1] + rng.normal(size=n)
    chosen, order = naive_multistream(y, np.ones((n, 1)), [list(x.T) for x in xs])
    for bs in (1, 7, 4096):
        streams = [MatrixStream(f"s{j}", x, [f"s{j}_{i}" for i in range(x.shape[1])]) for j, x in enumerate(xs)]
        res = streamwise_search(GaussianState(y, np.ones((n, 1))), streams, AlphaInvesting(), block_size=bs)
        assert list(res.history["term"]) == [f"s{a}_{b}" for a, b, *_ in order]
        assert list(res.selected["term"]) == [f"s{a}_{b}" for a, b in chosen]
        np.testing.assert_allclose(res.history["pvalue"], [o[2] for o in order], rtol=1e-8)
        np.testing.assert_allclose(res.history["level"], [o[3] for o in order], rtol=1e-12)


@pytest.mark.parametrize("policy", [AlphaInvesting(), AlphaInvesting(0.05, 0.05), InformationInvesting(),
                                    InformationInvesting(coef_bits="bic")])
def test_decisions_identical_for_block_sizes(policy):
    sim = sr.datasets.make_synthetic(n=100, m=3000, seed=3)
    runs = []
    for bs in (1, 7, 4096):
        res = streamwise_search(GaussianState(sim.y, np.ones((100, 1))), [sim.stream.__class__(100, 3000, 3)],
                                policy, block_size=bs)
        runs.append(res)
    for r in runs[1:]:
        assert list(r.selected["term"]) == list(runs[0].selected["term"])
        np.testing.assert_array_equal(r.history["accepted"], runs[0].history["accepted"])
        np.testing.assert_allclose(r.history["pvalue"], runs[0].history["pvalue"], rtol=1e-10)
        np.testing.assert_allclose(r.history["wealth"], runs[0].history["wealth"], rtol=1e-10)
    assert set(sim.true_features) <= set(runs[0].selected["term"])


def test_information_investing_rule_closed_form():
    pol = InformationInvesting(w0=0.5, w_delta=0.5)
    for coef_bits, n in [(0.0, 100), ("bic", 100), (1.5, 50)]:
        pol = InformationInvesting(w0=0.5, w_delta=0.5, coef_bits=coef_bits)
        pol.start(n_obs=n)
        b = 0.5 * math.log2(n) if coef_bits == "bic" else coef_bits
        t = np.linspace(0, 8, 161)
        out = TestOutcomes(t**2, np.ones_like(t, dtype=int), np.full(len(t), np.inf), t**2, log_sf, None,
                           np.zeros(len(t)))
        # every position of the block has its own bid eps_i = w_i / 2i under rejection
        plan = pol.plan(out)
        eps = plan.level
        expected = np.exp(-t**2 / 2) < eps * 2.0 ** (-(0.5 + b))
        np.testing.assert_array_equal(plan.accept, expected)
        # and directly in bits: saved - cost > w_delta
        saved = t**2 / 2 * math.log2(math.e)
        cost = np.log2(1 / eps) + b
        np.testing.assert_array_equal(plan.accept, saved - cost > 0.5)


def test_alpha_investing_wealth_recursion_and_positivity():
    pol = AlphaInvesting(w0=0.5, alpha_delta=0.5)
    pol.start(n_obs=10)
    m = 100_000
    out = TestOutcomes(np.zeros(m), np.ones(m, int), np.full(m, np.inf), np.zeros(m), log_sf, None, np.zeros(m))
    plan = pol.plan(out)
    w, levels = 0.5, []
    for i in range(1, 1001):
        a = w / (2 * i)
        levels.append(a)
        w -= a
    np.testing.assert_allclose(plan.level[:1000], levels, rtol=1e-12)
    assert (plan.wealth > 0).all()
    # after m rejections w = w0 * prod (1 - 1/2i) = w0 * Gamma(m + 1/2) / (sqrt(pi) Gamma(m + 1))
    from scipy.special import gammaln

    closed = 0.5 * math.exp(gammaln(m + 0.5) - gammaln(m + 1.0)) / math.sqrt(math.pi)
    assert plan.wealth[-1] == pytest.approx(closed, rel=1e-9)


def test_infinite_generator_stops_on_max_tests_and_max_selected():
    rng = np.random.default_rng(0)
    n = 60
    y = rng.normal(size=n)
    pulled = []

    def gen():
        for j in itertools.count():
            pulled.append(j)
            yield f"g{j}", rng.normal(size=n)

    fit = sr.select(y, gen(), max_tests=1000, block_size=64)
    assert fit.search.stopped_by == "max_tests"
    assert int(fit.history["test"].max()) == 1000
    assert len(pulled) <= 1000 + 64  # read lazily, a block at a time
    x = rng.normal(size=(n, 5))
    y2 = x.sum(axis=1) + 0.1 * rng.normal(size=n)

    def signal():
        for j in itertools.count():
            yield f"s{j}", x[:, j % 5] if j < 5 else rng.normal(size=n)

    fit2 = sr.select(y2, signal(), max_selected=3)
    assert fit2.search.stopped_by == "max_selected" and len(fit2.selected) == 3
    fit3 = sr.select(y, gen(), time_budget=0.2)
    assert fit3.search.stopped_by == "time_budget"


def test_constant_and_duplicated_candidates_are_skipped_not_charged():
    rng = np.random.default_rng(1)
    n = 50
    x = rng.normal(size=(n, 4))
    y = 2 * x[:, 0] + rng.normal(scale=0.1, size=n)
    cand = pd.DataFrame({"a": x[:, 0], "const": 1.0, "a_copy": x[:, 0], "b": x[:, 1]})
    fit = sr.select(y, cand, method="alpha-investing")
    h = fit.history.set_index("term")
    assert h.loc["a", "accepted"]
    assert h.loc["const", "status"] == "skipped: constant"
    assert h.loc["a_copy", "status"] == "skipped: collinear with the current model"
    assert pd.isna(h.loc["const", "test"]) and pd.isna(h.loc["a_copy", "test"])
    assert h.loc["b", "test"] == 2  # skipped candidates do not advance the test counter


def test_multi_column_factor_term_tested_jointly_against_f_test():
    import statsmodels.formula.api as smf

    rng = np.random.default_rng(2)
    n = 120
    df = pd.DataFrame({"x1": rng.normal(size=n), "region": rng.choice(list("abcd"), size=n)})
    df["y"] = df["x1"] + (df["region"] == "c") * 0.8 + rng.normal(size=n)
    fit = sr.streamreg("y ~ x1 + stream(C(region))", df)
    row = fit.history.iloc[0]
    assert row["df"] == 3
    full = smf.ols("y ~ x1 + C(region)", df).fit()
    small = smf.ols("y ~ x1", df).fit()
    f = full.compare_f_test(small)
    assert row["pvalue"] == pytest.approx(f[1], rel=1e-9)
    assert row["statistic"] == pytest.approx(f[0], rel=1e-10)  # R's add1 "F value", not 3 F
