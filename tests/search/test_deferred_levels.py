"""Levels and wealths computed when the history is read (a rule's schedule), and the
investing rules' screening by the run's first bid: same numbers and decisions as eager."""
import math

import numpy as np
import pandas as pd
import pytest
from naive import naive_alpha_investing

import streamreg as sr
from streamreg.models.distributions import log_sf
from streamreg.outcomes import TestOutcomes
from streamreg.policies import Plan
from streamreg.policies.investing import rejection_schedule
from streamreg.search.history import Deferred, HistoryRecorder


def test_plan_from_a_schedule_gives_prefixes_and_full_arrays():
    calls = []

    def schedule(n):
        calls.append(n)
        return np.arange(n, dtype=float), -np.arange(n, dtype=float)

    plan = Plan(accept=np.zeros(5, dtype=bool), schedule=schedule)
    level, wealth = plan.head(3)
    np.testing.assert_array_equal(level, [0.0, 1.0, 2.0])
    np.testing.assert_array_equal(wealth, [-0.0, -1.0, -2.0])
    later = plan.head_later(4)
    assert calls == [3]  # nothing computed until called
    np.testing.assert_array_equal(later()[0], [0.0, 1.0, 2.0, 3.0])
    np.testing.assert_array_equal(plan.level, np.arange(5.0))
    np.testing.assert_array_equal(plan.wealth, -np.arange(5.0))
    assert repr(plan).startswith("Plan(accept=array([False, False, False, False, False]), level=array([0., 1.")


def test_plan_from_arrays_hands_out_copies_now():
    level, wealth = np.array([0.1, 0.2, 0.3]), np.array([1.0, 2.0, 3.0])
    plan = Plan(accept=np.zeros(3, dtype=bool), level=level, wealth=wealth)
    head_level, _ = plan.head(2)
    head_level[0] = 99.0
    np.testing.assert_array_equal(level, [0.1, 0.2, 0.3])
    assert plan.head_later(2) is None  # nothing to defer: the search takes head() at once
    assert plan.level is level
    assert repr(plan) == ("Plan(accept=array([False, False, False]), level=array([0.1, 0.2, 0.3]), "
                          "wealth=array([1., 2., 3.]))")


def test_plan_needs_arrays_or_a_schedule():
    with pytest.raises(TypeError, match="level and wealth arrays, or a schedule"):
        Plan(accept=np.zeros(2, dtype=bool), level=np.zeros(2))


def test_rejection_schedule_is_alpha_investing_one_test_at_a_time():
    log_w, n_tested = math.log(0.3), 17
    log_bid, bid, wealth = rejection_schedule(log_w, n_tested, 6)
    w = 0.3
    for i in range(6):
        t = n_tested + 1 + i
        assert bid[i] == pytest.approx(w / (2 * t), rel=1e-14)
        w -= w / (2 * t)
        assert wealth[i] == pytest.approx(w, rel=1e-14)
    np.testing.assert_array_equal(rejection_schedule(log_w, n_tested, 4)[0], log_bid[:4])  # prefixes agree exactly


def test_deferred_columns_are_computed_once_per_read():
    made = []

    def make():
        made.append(1)
        return {"level": np.array([0.1, 0.2]), "wealth": np.array([0.5, 0.4])}

    rec = HistoryRecorder()
    later = Deferred(make)
    rec.add("s", ["a", "b"], test=np.array([1, 2]), statistic=np.array([1.0, 2.0]), df=1, df_resid=9.0,
            level=later, wealth=later, status=-2)
    assert made == []
    frame = rec.frame()
    assert made == [1]
    np.testing.assert_array_equal(frame["level"], [0.1, 0.2])
    np.testing.assert_array_equal(frame["wealth"], [0.5, 0.4])


def test_without_history_deferred_columns_of_kept_rows_are_computed_at_once():
    rec = HistoryRecorder(keep="none")
    later = Deferred(lambda: {"level": np.array([0.1, 0.2]), "wealth": np.array([0.5, 0.9])})
    rec.add("s", ["a", "b"], test=np.array([1, 2]), statistic=np.array([1.0, 9.0]), df=1, df_resid=9.0,
            level=later, wealth=later, status=np.array([-2, -1]))
    frame = rec.frame()
    assert frame["term"].tolist() == ["b"]
    assert frame["level"].tolist() == [0.2] and frame["wealth"].tolist() == [0.9]


def _with_skips(seed):
    """A Gaussian problem whose stream holds constant and duplicated columns (skipped rows)."""
    rng = np.random.default_rng(seed)
    n, m = 60, 40
    x = rng.normal(size=(n, m))
    y = x[:, 4] - 0.8 * x[:, 21] + 0.7 * rng.normal(size=n)
    x[:, [2, 9, 30]] = 1.0
    x[:, 15] = x[:, 4]
    return y, x


@pytest.mark.parametrize("block_size", [1, 3, 512])
@pytest.mark.parametrize("seed", range(4))
def test_levels_and_wealths_of_a_stream_with_skips_equal_the_naive_loop(seed, block_size):
    y, x = _with_skips(seed)
    chosen, trace = naive_alpha_investing(y, np.ones((len(y), 1)), list(x.T), w0=0.5, alpha_delta=0.5)
    fit = sr.select(y, x, method="alpha-investing", block_size=block_size)
    assert fit.selected_terms == [f"x{j}" for j in chosen]
    hist = fit.history
    tested = hist[hist["test"].notna()]
    ref = pd.DataFrame(trace, columns=["j", "p", "alpha", "accepted", "w"])
    assert tested["term"].tolist() == [f"x{j}" for j in ref["j"]]
    np.testing.assert_allclose(tested["level"].to_numpy(), ref["alpha"].to_numpy(), rtol=1e-12)
    np.testing.assert_allclose(tested["wealth"].to_numpy(), ref["w"].to_numpy(), rtol=1e-10)
    skipped = hist[hist["test"].isna()]
    assert set(skipped["term"]) >= {"x2", "x9", "x30"}
    assert skipped["level"].isna().all() and skipped["wealth"].isna().all()
    kept = sr.select(y, x, method="alpha-investing", block_size=block_size, history="none").history
    pd.testing.assert_frame_equal(kept.reset_index(drop=True),
                                  hist[hist["accepted"]].reset_index(drop=True), check_dtype=False)


@pytest.mark.parametrize("method", ["alpha-investing", "information-investing"])
def test_investing_rules_decide_and_report_alike_for_every_block_size(method):
    sim = sr.datasets.make_synthetic(n=80, m=3000, seed=3)
    x = np.ascontiguousarray(sim.data.drop(columns="y").to_numpy())
    fits = [sr.select(sim.y, x, method=method, block_size=b) for b in (1, 64, 4096)]
    assert fits[0].selected_terms  # the true features are found
    for fit in fits[1:]:
        assert fit.selected_terms == fits[0].selected_terms
        pd.testing.assert_frame_equal(fit.history, fits[0].history, rtol=1e-12)


@pytest.mark.parametrize("coef_bits", [0.0, 1.0, "bic"])
def test_information_investing_decides_by_its_own_inequality_at_the_boundary(coef_bits):
    # accepted iff -S/2 < log(bid) - (w_delta + d b) log 2, evaluated as written: statistics
    # within an ulp of the boundary fall on the same side as that expression says
    pol = sr.policies.InformationInvesting(w0=0.3, coef_bits=coef_bits)
    pol.start(n_obs=100)
    pol.record(None, 40, last_accepted=False)
    m = 4000
    log_bid = rejection_schedule(pol._log_w, pol.n_tested, m)[0]
    df = np.tile([1, 2], m // 2)
    extra = (pol.w_delta + df * pol.bits_per_coefficient()) * math.log(2.0)
    boundary = -2.0 * (log_bid - extra)
    rng = np.random.default_rng(5)
    stat = boundary + rng.integers(-4, 5, size=m) * np.spacing(boundary)  # within 4 ulps of it
    outcomes = TestOutcomes(stat, df, np.full(m, np.inf), stat.copy(), log_sf)
    expected = -0.5 * stat < log_bid - extra
    np.testing.assert_array_equal(pol.plan(outcomes).accept, expected)
    assert 0 < expected.sum() < m  # both sides of the boundary are present
    if coef_bits != 0.0:  # the test can tell: rearranged (-S/2 + extra < log(bid)), some of these go the other way
        assert ((-0.5 * stat + extra < log_bid) != expected).any()
