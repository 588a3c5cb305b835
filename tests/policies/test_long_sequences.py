"""Alpha-spending with long or flat sequences, Foster-Stine's block walk, and the per-position screen."""
from __future__ import annotations

import math

import numpy as np
import pytest

from streamreg.models.distributions import (
    CachedCritical,
    critical,
    critical_many,
    log_sf,
)
from streamreg.outcomes import TestOutcomes
from streamreg.policies import AlphaInvesting, AlphaSpending, FosterStine
from streamreg.policies.foster_stine import _fs_fail, _fs_level, _walk


def outcomes(stat: np.ndarray, dfr: float = 95.0) -> TestOutcomes:
    m = len(stat)
    return TestOutcomes(stat, np.ones(m, dtype=int), np.full(m, dfr), stat, log_sf, CachedCritical())


def test_long_gammai_is_a_shared_read_only_array_shown_by_its_length():
    g = np.full(1_000_000, 1e-6)
    pol = AlphaSpending(alpha=0.1, gammai=g)
    assert repr(pol) == "alpha-spending(alpha=0.1, gammai=<1,000,000 values>)"
    assert not pol.gammai.flags.writeable and pol.gammai is not g
    g[0] = 0.5  # the caller's array is copied
    assert pol.gammai[0] == 1e-6
    assert pol.spawn().gammai is pol.gammai  # streams share it
    with pytest.raises(ValueError, match="read-only"):
        pol.gammai[0] = 1.0
    assert repr(AlphaSpending(gammai=[0.5, 0.25])) == "alpha-spending(alpha=0.05, gammai=(0.5, 0.25))"


def test_long_gammai_levels_equal_the_sequence():
    g = np.random.default_rng(0).uniform(size=5000)
    g /= 2 * g.sum()
    pol = AlphaSpending(alpha=0.2, gammai=g)
    pol.start(n_obs=50)
    plan = pol.plan(outcomes(np.zeros(6000)))
    np.testing.assert_array_equal(plan.level[:5000], 0.2 * g)
    assert (plan.level[5000:] == 0).all()


def test_horizon_spends_alpha_over_n_tests():
    n, alpha = 1000, 0.05
    pol = AlphaSpending(alpha=alpha, horizon=n)
    assert repr(pol) == "alpha-spending(alpha=0.05, horizon=1000)"
    pol.start(n_obs=50)
    plan = pol.plan(outcomes(np.zeros(1200)))
    t = np.arange(1, 1201)
    np.testing.assert_allclose(plan.level, np.where(t <= n, alpha / n, 0.0), rtol=1e-15, atol=0)
    # the unspent budget is a running sum: exact to rounding (n ulps of alpha)
    np.testing.assert_allclose(plan.wealth, alpha * (1 - np.minimum(t, n) / n), rtol=0, atol=1e-13 * alpha)
    pol.record(None, 700, last_accepted=False)
    assert pol.wealth == pytest.approx(alpha * 0.3, rel=1e-12)
    assert pol.spawn().horizon == n
    # the same decisions as the explicit flat sequence
    stat = np.square(np.abs(np.random.default_rng(2).standard_t(30, 1200)) * 3)
    flat = AlphaSpending(alpha=alpha, gammai=np.full(n, 1.0 / n))
    flat.start(n_obs=50)
    pol2 = AlphaSpending(alpha=alpha, horizon=n)
    pol2.start(n_obs=50)
    np.testing.assert_array_equal(flat.plan(outcomes(stat)).accept, pol2.plan(outcomes(stat)).accept)


@pytest.mark.parametrize("bad", [0, -3, 2.5, True, "10"])
def test_horizon_must_be_a_positive_integer(bad):
    with pytest.raises(ValueError, match="horizon must be a positive integer"):
        AlphaSpending(horizon=bad)


def test_gammai_and_horizon_exclude_each_other_and_gammai_is_checked():
    with pytest.raises(ValueError, match="not both"):
        AlphaSpending(gammai=[0.5], horizon=10)
    with pytest.raises(ValueError, match="must not be greater than 1"):
        AlphaSpending(gammai=[0.6, 0.6])
    with pytest.raises(ValueError, match="non-negative and finite"):
        AlphaSpending(gammai=[0.5, -0.1])


def _walk_scalar(w: float, d: int, m: int) -> tuple[np.ndarray, np.ndarray, float]:
    """The definition, one helper call per step (the loop the block walk replaces)."""
    level, wealth = np.empty(m), np.empty(m)
    for i in range(m):
        a = _fs_level(w, d + i)
        level[i] = a
        w = _fs_fail(w, a)
        wealth[i] = w
    return level, wealth, w


@pytest.mark.parametrize("seed", range(6))
def test_foster_stine_walk_is_bitwise_the_scalar_recursion(seed):
    rng = np.random.default_rng(seed)
    for _ in range(20):
        w = float(rng.choice([rng.uniform(0, 0.1), rng.uniform(0.5, 3.0), rng.uniform(0, 1e-300)]))
        d, m = int(rng.integers(1, 50)), int(rng.integers(0, 3000))
        ref = _walk_scalar(w, d, m)
        levels, wealth, final = _walk(w, d, m)
        np.testing.assert_array_equal(np.array(levels, dtype=float), ref[0])
        np.testing.assert_array_equal(np.array(wealth, dtype=float), ref[1])
        assert final == ref[2] == _walk(w, d, m, keep=False)[2]


def test_foster_stine_plan_and_record_in_blocks_equal_one_at_a_time():
    rng = np.random.default_rng(7)
    stat = np.where(rng.uniform(size=3000) < 0.01, 40.0, rng.chisquare(1, 3000))
    one = FosterStine(w0=0.5, alpha_delta=0.05)
    one.start(n_obs=100)
    decisions = []
    for s in stat:  # one test at a time
        acc = bool(one.plan(outcomes(np.array([s]))).accept[0])
        one.record(None, 1, last_accepted=acc)
        decisions.append(acc)
    blk = FosterStine(w0=0.5, alpha_delta=0.05)
    blk.start(n_obs=100)
    got, pos = [], 0
    while pos < len(stat):
        plan = blk.plan(outcomes(stat[pos:pos + 512]))
        hits = np.flatnonzero(plan.accept)
        n = len(plan.accept) if hits.size == 0 else int(hits[0]) + 1
        blk.record(None, n, last_accepted=hits.size > 0)
        got += [False] * (n - 1) + [hits.size > 0]
        pos += n
    assert got == decisions and sum(decisions) > 5
    assert blk.wealth == one.wealth


@pytest.mark.parametrize("dfr", [3.0, 30.0, 95.0, 1e4, math.inf])
def test_screen_at_each_position_never_hides_an_acceptance(dfr):
    rng = np.random.default_rng(int(dfr) % 97 if math.isfinite(dfr) else 5)
    stat = rng.chisquare(1, 4000) * rng.choice([1.0, 8.0, 300.0], 4000, p=[0.95, 0.04, 0.01])
    for pol in (AlphaInvesting(), FosterStine(w0=0.5)):
        pol.start(n_obs=100)
        screened = pol.plan(outcomes(stat, dfr))
        exact = outcomes(stat, dfr)
        exact.log_p  # noqa: B018 -- every p-value computed: no screen
        np.testing.assert_array_equal(pol.plan(exact).accept, screened.accept)
        assert screened.accept.any() or dfr < 10  # with 3 residual df nothing reaches the levels


@pytest.mark.parametrize("dfr", [1.0, 2.0, 5.0, 95.0, 1e6, math.inf])
def test_vectorised_critical_values_are_valid_and_tight(dfr):
    la = -np.logspace(-3, 3.2, 80)
    crit = critical_many(la, 1, dfr)
    assert (log_sf(crit, np.ones_like(crit), np.full_like(crit, dfr)) >= la).all()
    scalar = np.array([critical(float(v), 1, dfr) for v in la])
    assert (crit <= scalar * (1 + 1e-12)).all() and (crit >= 0.99 * scalar).all()
    assert critical_many(np.array([0.0, -np.inf]), 1, dfr).tolist() == [0.0, np.inf]


def test_tables_serve_fewer_residual_df():
    cache = CachedCritical()
    la = np.array([-2.0, -5.0])
    cache.along(la, 1, 95.0)
    assert cache._law(1, 94.0) == (1, 95.0) and cache._law(1, 80.0) == (1, 80.0)
    crit = cache.along(la, 1, 94.0)  # the table checked for 95 df
    assert (log_sf(crit, np.ones(2), np.full(2, 94.0)) >= la).all()


@pytest.mark.parametrize("spending", ["uniform", "decaying"])
def test_run_rule_decides_as_one_test_at_a_time_whatever_its_planning_blocks(monkeypatch, spending):
    """The confirmation's rule plans up to ``_MAX_BLOCK`` tests at once: its decisions are those
    of one test at a time, and its levels agree to rounding (the wealth is summed in other runs)."""
    from streamreg.policies import decide

    rng = np.random.default_rng(4)
    m = 30_000
    stat = rng.chisquare(1, m)
    stat[rng.choice(m, 12, replace=False)] = rng.uniform(30.0, 60.0, 12)  # a few clear signals

    def run(max_block: int) -> tuple[np.ndarray, np.ndarray]:
        monkeypatch.setattr(decide, "_MAX_BLOCK", max_block)
        policy = AlphaInvesting(w0=0.05, alpha_delta=0.05, spending=spending)
        policy.start(n_obs=100, n_candidates=m, horizon=m)
        return decide.run_rule(policy, outcomes(stat))

    level_big, rejected_big = run(decide._MAX_BLOCK)
    level_one, rejected_one = run(1)  # blocks of 16 at most after each acceptance, then one by one
    assert rejected_big.sum() >= 5
    np.testing.assert_array_equal(rejected_big, rejected_one)
    np.testing.assert_allclose(level_big, level_one, rtol=1e-11, atol=0)
