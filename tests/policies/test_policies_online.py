"""Online FDR/FWER policies and Foster-Stine alpha-investing.

Reference numbers: the documented example of the R package onlineFDR (``sample.df`` with
``random = FALSE``, and with ``set.seed(1)`` which only permutes the p-values within dates),
as printed in its reference pages (the first levels of LORD++, SAFFRON, LOND, ADDIS and
onlineFDR's alpha-investing are checked to 1e-9 below).
"""
from __future__ import annotations

import math

import naive
import numpy as np
import pytest
from naive import naive_foster_stine, naive_online
from scipy import stats

from streamreg.outcomes import TestOutcomes
from streamreg.policies import (
    ADDIS,
    AIC,
    BIC,
    LOND,
    RIC,
    SAFFRON,
    AlphaInvestingFDR,
    AlphaSpending,
    FosterStine,
    LORDPlusPlus,
    get_policy,
)
from streamreg.policies.online_fdr import lord_gamma, saffron_gamma

# ---------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------

P_REF = np.array([2.90e-08, 0.06743, 0.01514, 0.08174, 0.00171, 3.60e-05, 0.79149, 0.27201,
                  0.28295, 7.59e-08, 0.69274, 0.30443, 0.00136, 0.72342, 0.54757])
# the same p-values in the order onlineFDR's examples use after set.seed(1)
P_SEED1 = np.array([2.90e-08, 0.06743, 0.01514, 0.08174, 0.00171, 0.27201, 3.60e-05, 0.79149,
                    7.59e-08, 0.28295, 0.69274, 0.72342, 0.30443, 0.54757, 0.00136])


def outcomes_from_p(p) -> TestOutcomes:
    """Outcomes with given p-values (log p known up front; one column each)."""
    p = np.asarray(p, dtype=float)
    n = len(p)
    with np.errstate(divide="ignore"):
        log_p = np.log(p)
    return TestOutcomes(
        statistic=stats.chi2.isf(p, 1), df=np.ones(n, dtype=int), df_resid=np.full(n, np.inf),
        llr=stats.chi2.isf(p, 1), log_sf=lambda s, d, r: stats.chi2.logsf(s, d),
        critical=None, _log_p=log_p,
    )


def _critical(log_alpha, d, dr):
    return float(stats.chi2.isf(math.exp(log_alpha), d)) if log_alpha > -700 else 0.0


def chi2_outcomes(rng, n, signal_rate=0.08, multi=True) -> TestOutcomes:
    """Chi-square statistics (some terms with 2-3 columns) with lazily computed p-values."""
    df = rng.choice([1, 1, 1, 2, 3], size=n) if multi else np.ones(n, dtype=int)
    stat = stats.chi2.rvs(df, random_state=rng)
    signal = rng.random(n) < signal_rate
    stat[signal] += rng.uniform(10, 60, size=signal.sum())
    return TestOutcomes(
        statistic=stat, df=df, df_resid=np.full(n, np.inf), llr=stat.copy(),
        log_sf=lambda s, d, r: stats.chi2.logsf(s, d), critical=_critical,
    )


def run_search(policy, outcomes, block=1, n_obs=100, n_candidates=None, share=1.0):
    """The search loop: plan a block, act on the first acceptance, record, repeat."""
    policy.start(n_obs=n_obs, share=share, n_candidates=n_candidates)
    n = len(outcomes)
    levels, wealth, accepted = [], [], []
    pos = 0
    while pos < n:
        blk = outcomes.take(slice(pos, min(pos + block, n)))
        plan = policy.plan(blk)
        assert plan.accept.shape == plan.level.shape == plan.wealth.shape == (len(blk),)
        hits = np.flatnonzero(plan.accept)
        used = int(hits[0]) + 1 if hits.size else len(blk)
        levels.extend(plan.level[:used])
        wealth.extend(plan.wealth[:used])
        accepted.extend([False] * (used - 1) + [bool(hits.size)])
        policy.record(blk, used, bool(hits.size))
        if hits.size:
            wealth[-1] = policy.wealth
        else:  # after a run of rejections the state's wealth is the planned one
            assert policy.wealth == plan.wealth[used - 1] or np.isnan(policy.wealth)
        pos += used
    assert policy.n_tested == n
    assert policy.n_accepted == sum(accepted)
    return np.array(levels), np.array(accepted), np.array(wealth)


def check_reference(policy, p, expected_levels, expected_rejections):
    for block in (1, 4, 1000):
        levels, accepted, _ = run_search(policy.spawn(), outcomes_from_p(p), block=block)
        np.testing.assert_allclose(levels, expected_levels, rtol=0, atol=1e-9)
        assert list(np.flatnonzero(accepted) + 1) == expected_rejections


# ---------------------------------------------------------------------------------------
# onlineFDR reference vectors
# ---------------------------------------------------------------------------------------


def test_lord_plus_plus_reference():
    expected = [0.0002675839, 0.0024664457, 0.0005732818, 0.0004872805, 0.0004059066,
                0.0003447286, 0.0029745013, 0.0008450114, 0.0007305648, 0.0006243143,
                0.0032185913, 0.0010617227, 0.0009256825, 0.0008019657, 0.0007059610]
    check_reference(LORDPlusPlus(), P_REF, expected, [1, 6, 10])
    check_reference(get_policy("lord++"), P_REF, expected, [1, 6, 10])


def test_saffron_reference():
    expected = [0.005468627, 0.010937254, 0.010937254, 0.010937254, 0.010937254, 0.021874508,
                0.032811762, 0.010823845, 0.010823845, 0.010823845, 0.021761099, 0.009265591,
                0.009265591, 0.020202846, 0.009064367]
    check_reference(SAFFRON(), P_REF, expected, [1, 5, 6, 10, 13])


def test_saffron_reference_other_order_and_parameters():
    expected = [0.005468627, 0.010937254, 0.010937254, 0.010937254, 0.010937254, 0.021874508,
                0.021874508, 0.032811762, 0.010823845, 0.021761099, 0.021761099, 0.009265591,
                0.005456418, 0.005456418, 0.003688669]
    check_reference(SAFFRON(), P_SEED1, expected, [1, 5, 7, 9, 15])
    expected = [0.005468627, 0.021874508, 0.021874508, 0.043749017, 0.043749017, 0.065623525,
                0.065623525, 0.087498033, 0.028863587, 0.050738095, 0.050738095, 0.022302945,
                0.013293195, 0.013293195, 0.009042997]
    check_reference(SAFFRON(alpha=0.1, w0=0.025), P_SEED1, expected, [1, 3, 5, 7, 9, 15])


def test_addis_reference():
    expected = [0.002734314, 0.005468627, 0.005468627, 0.005468627, 0.005468627, 0.010937254,
                0.016405881, 0.016405881, 0.005411923, 0.002828822, 0.008297449, 0.008297449,
                0.003589243, 0.009057870, 0.009057870]
    check_reference(ADDIS(), P_REF, expected, [1, 5, 6, 10, 13])


def test_lond_reference():
    expected = [0.0026758385, 0.0011638206, 0.0009912499, 0.0008243606, 0.0006988870,
                0.0006045900, 0.0007979166, 0.0007117838, 0.0006421423, 0.0005847378,
                0.0007155186, 0.0006610273, 0.0006141682, 0.0005734509, 0.0005377472]
    check_reference(LOND(), P_REF, expected, [1, 6, 10])
    expected = [0.005351677, 0.002327641, 0.001982500, 0.001648721, 0.001397774, 0.001209180,
                0.001063889, 0.001423568, 0.001284285, 0.001559301, 0.001431037, 0.001322055,
                0.001228336, 0.001146902, 0.001075494]
    check_reference(LOND(alpha=0.1), P_SEED1, expected, [1, 7, 9])


def test_alpha_investing_fdr_reference():
    expected = [0.010818925, 0.021406257, 0.007164201, 0.003757589, 0.002374706, 0.023680499,
                0.044095287, 0.015842430, 0.008711190, 0.005700295, 0.026865786, 0.011205456,
                0.006863124, 0.027979664, 0.011945806]
    check_reference(AlphaInvestingFDR(), P_REF, expected, [1, 5, 6, 10, 13])
    expected = [0.010818925, 0.041915265, 0.014226480, 0.007487045, 0.004738159, 0.046265410,
                0.017453092, 0.057947646, 0.023879569, 0.063856912, 0.027880910, 0.016914972,
                0.011741675, 0.008785330, 0.006898971]
    check_reference(AlphaInvestingFDR(alpha=0.1, w0=0.025), P_SEED1, expected, [1, 5, 7, 9, 15])


def test_alpha_spending_reference():
    expected = [0.0026758385, 0.0005819103, 0.0004956249, 0.0004121803, 0.0003494435,
                0.0003022950, 0.0002659722, 0.0002372613, 0.0002140474, 0.0001949126,
                0.0001788796, 0.0001652568, 0.0001535420, 0.0001433627, 0.0001344368]
    check_reference(AlphaSpending(), P_REF, expected, [1, 6, 10])


def test_onlinefdr_documented_example_first_levels():
    lord, _, _ = run_search(LORDPlusPlus(), outcomes_from_p(P_REF))
    assert abs(lord[0] - 0.0002675839) < 1e-9 and abs(lord[1] - 0.0024664457) < 1e-9
    saffron, _, _ = run_search(SAFFRON(), outcomes_from_p(P_REF))
    assert abs(saffron[0] - 0.005468627) < 1e-9 and abs(saffron[1] - 0.010937254) < 1e-9


def test_default_gamma_sequences():
    j = np.arange(1, 6)
    np.testing.assert_allclose(lord_gamma(j), naive.lord_gamma(j), rtol=1e-15)  # closed forms
    np.testing.assert_allclose(saffron_gamma(j), naive.saffron_gamma(j), rtol=1e-15)
    # the SAFFRON sequence is normalised over an infinite horizon: 1 / zeta(1.6)
    from scipy.special import zeta

    assert abs(0.4374901658 * zeta(1.6) - 1) < 1e-9


# ---------------------------------------------------------------------------------------
# against plain transcriptions of the published rules, on random streams
# ---------------------------------------------------------------------------------------


def random_p(rng, n):
    p = rng.random(n)
    signal = rng.random(n) < 0.15
    p[signal] = p[signal] ** rng.uniform(4, 12)  # strong signals, some of them tiny
    return p


@pytest.mark.parametrize(
    "make, rule, kw",
    [
        (lambda: LORDPlusPlus(), "lord", dict(w0=0.005)),
        (lambda: LORDPlusPlus(alpha=0.1, w0=0.08), "lord", dict(alpha=0.1, w0=0.08)),
        (lambda: SAFFRON(), "saffron", dict(w0=0.025, lam=0.5)),
        (lambda: SAFFRON(alpha=0.2, w0=0.01, lambda_=0.3), "saffron", dict(alpha=0.2, w0=0.01, lam=0.3)),
        (lambda: ADDIS(), "addis", dict(w0=0.025, lam=0.25, tau=0.5)),
        (lambda: ADDIS(alpha=0.1, w0=0.02, lambda_=0.1, tau=0.8), "addis", dict(alpha=0.1, w0=0.02, lam=0.1, tau=0.8)),
        (lambda: AlphaInvestingFDR(), "ai", dict(w0=0.025)),
    ],
)
def test_matches_plain_transcription_on_random_streams(make, rule, kw):
    rng = np.random.default_rng(11)
    for _ in range(20):
        p = random_p(rng, 120)
        want_levels, want_rej = naive_online(p, rule, **kw)
        for block in (1, 7, 500):
            levels, accepted, _ = run_search(make(), outcomes_from_p(p), block=block)
            np.testing.assert_allclose(levels, want_levels, rtol=1e-12, atol=0)
            np.testing.assert_array_equal(accepted, want_rej)


def test_foster_stine_matches_transcription_on_20_streams():
    rng = np.random.default_rng(5)
    settings = [(0.0475, 0.05), (0.05, 0.05), (0.5, 0.5), (0.9, 0.3), (0.01, 0.2)]
    for k in range(20):
        w0, omega = settings[k % len(settings)]
        p = random_p(rng, 150)
        want_levels, want_rej, want_wealth = naive_foster_stine(p, w0, omega)
        for block in (1, 3, 1000):
            levels, accepted, wealth = run_search(FosterStine(w0=w0, alpha_delta=omega), outcomes_from_p(p), block=block)
            np.testing.assert_allclose(levels, want_levels, rtol=1e-13, atol=0)
            np.testing.assert_array_equal(accepted, want_rej)
            np.testing.assert_allclose(wealth, want_wealth, rtol=1e-12, atol=1e-15)


def test_foster_stine_level_formula_by_hand():
    pol = FosterStine(w0=0.05, alpha_delta=0.05)
    pol.start(n_obs=10)
    plan = pol.plan(outcomes_from_p([0.9, 0.9]))
    a1 = 0.05 / 2
    w1 = 0.05 - a1 / (1 - a1)
    np.testing.assert_allclose(plan.level, [a1, w1 / 3])
    pol.record(outcomes_from_p([1e-6]), 1, True)  # accepted at test 1: k* = 1, W = w0 + omega
    assert pol.wealth == pytest.approx(0.1)
    assert pol.plan(outcomes_from_p([0.5])).level[0] == pytest.approx(0.1 / 2)


# ---------------------------------------------------------------------------------------
# block invariance: the same stream cut into blocks of 1, 3 and 1000
# ---------------------------------------------------------------------------------------

ALL_POLICIES = [
    LORDPlusPlus(), LORDPlusPlus(alpha=0.2, w0=0.1), SAFFRON(), ADDIS(), LOND(),
    LOND(original=False), AlphaSpending(), AlphaInvestingFDR(), FosterStine(),
    FosterStine(w0=0.5, alpha_delta=0.5), AIC(), BIC(), RIC(), RIC(m=50),
]


@pytest.mark.parametrize("policy", ALL_POLICIES, ids=lambda p: p.describe())
def test_decisions_do_not_depend_on_blocks(policy):
    rng = np.random.default_rng(2024)
    for _ in range(2):
        out = chi2_outcomes(rng, 250)
        runs = [run_search(policy.spawn(), out, block=b, n_obs=200, n_candidates=250) for b in (1, 3, 1000)]
        ref_levels, ref_acc, ref_wealth = runs[0]
        assert ref_acc.any()
        for levels, acc, wealth in runs[1:]:
            np.testing.assert_array_equal(acc, ref_acc)
            np.testing.assert_array_equal(levels, ref_levels)
            np.testing.assert_allclose(wealth, ref_wealth, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("policy", ALL_POLICIES[:10], ids=lambda p: p.describe())
def test_screened_and_exact_p_values_agree(policy):
    """Lazily screened p-values give the decisions of fully computed ones."""
    rng = np.random.default_rng(7)
    lazy = chi2_outcomes(rng, 300)
    exact = TestOutcomes(lazy.statistic, lazy.df, lazy.df_resid, lazy.llr, lazy.log_sf, None,
                         stats.chi2.logsf(lazy.statistic, lazy.df))
    a = run_search(policy.spawn(), lazy, block=64)
    b = run_search(policy.spawn(), exact, block=64)
    np.testing.assert_array_equal(a[1], b[1])
    np.testing.assert_array_equal(a[0], b[0])


def test_tiny_p_values_compare_on_log_scale():
    # p = exp(-2000) underflows to 0 as a double; its log does not
    out = TestOutcomes(np.array([4000.0]), np.array([1]), np.array([np.inf]), np.array([4000.0]),
                       lambda s, d, r: stats.chi2.logsf(s, d), None, np.array([-2000.0]))
    for pol in (LORDPlusPlus(), SAFFRON(), ADDIS(), LOND(), AlphaInvestingFDR(), FosterStine()):
        pol.start(n_obs=10)
        assert pol.plan(out).accept[0]


# ---------------------------------------------------------------------------------------
# state, wealth, share
# ---------------------------------------------------------------------------------------


def test_wealth_accounting_lord():
    pol = LORDPlusPlus()
    levels, accepted, wealth = run_search(pol, outcomes_from_p(P_REF))
    earned = 0.005 + (0.05 - 0.005) + 0.05 * (accepted.sum() - 1)
    assert pol.wealth == pytest.approx(earned - levels.sum(), rel=1e-12)
    assert np.all(wealth > 0)


@pytest.mark.parametrize("make", [LORDPlusPlus, SAFFRON, ADDIS, AlphaInvestingFDR, AlphaSpending, LOND])
def test_share_scales_the_error_budget(make):
    full, half = make(), make()
    full.start(n_obs=10, share=1.0)
    half.start(n_obs=10, share=0.5)
    out = outcomes_from_p([0.3, 0.7, 0.2])
    a, b = half.plan(out).level, full.plan(out).level
    if make is AlphaInvestingFDR:  # level = a~ / (1 + a~); the unscaled a~ is what scales
        a, b = a / (1 - a), b / (1 - b)
    np.testing.assert_allclose(a, 0.5 * b, rtol=1e-13)


def test_foster_stine_share_scales_initial_wealth():
    pol = FosterStine(w0=0.04)
    pol.start(n_obs=10, share=0.25)
    assert pol.wealth == pytest.approx(0.01)
    assert pol.priority() == pytest.approx(0.01)


def test_user_gamma_sequence():
    n = len(P_REF)
    gam = lord_gamma(np.arange(1, n + 2))
    a = run_search(LORDPlusPlus(gammai=gam), outcomes_from_p(P_REF))
    b = run_search(LORDPlusPlus(), outcomes_from_p(P_REF))
    np.testing.assert_allclose(a[0], b[0], rtol=1e-14)
    # beyond its end a finite sequence spends nothing more
    pol = AlphaSpending(gammai=[0.5, 0.25])
    levels, _, _ = run_search(pol, outcomes_from_p([0.5, 0.5, 0.5]))
    np.testing.assert_allclose(levels, [0.025, 0.0125, 0.0])
    assert pol.wealth == pytest.approx(0.0125)


def test_spawn_keeps_parameters_and_resets_state():
    pol = SAFFRON(alpha=0.1, lambda_=0.3)
    run_search(pol, outcomes_from_p(P_REF))
    twin = pol.spawn()
    assert twin.parameters() == pol.parameters() == {"alpha": 0.1, "w0": 0.05, "lambda_": 0.3}
    twin.start(n_obs=10)
    assert twin.n_tested == 0 and twin.wealth == pytest.approx(0.05)


def test_empty_block():
    for pol in ALL_POLICIES:
        pol = pol.spawn()
        pol.start(n_obs=50, n_candidates=10)
        plan = pol.plan(outcomes_from_p([]))
        assert plan.accept.shape == (0,)
        pol.record(outcomes_from_p([]), 0, False)
        assert pol.n_tested == 0


@pytest.mark.parametrize(
    "name", ["lord++", "lond", "saffron", "addis", "alpha-spending", "alpha-investing-fdr", "foster-stine"]
)
def test_guarantees_state_rate_assumption_and_dependence(name):
    text = get_policy(name).guarantee()
    assert any(rate in text for rate in ("FDR", "FWER"))
    assert "valid" in text
    assert "not independent" in text or "neither independent" in text


def test_registered_names():
    expected = {
        "lord++": LORDPlusPlus, "lord": LORDPlusPlus, "lond": LOND, "saffron": SAFFRON,
        "addis": ADDIS, "alpha-spending": AlphaSpending, "alpha-investing-fdr": AlphaInvestingFDR,
        "foster-stine": FosterStine, "FOSTER_STINE": FosterStine,
    }
    for name, cls in expected.items():
        assert type(get_policy(name)) is cls
    assert get_policy("saffron", alpha=0.1, lambda_=0.4).parameters()["lambda_"] == 0.4


# ---------------------------------------------------------------------------------------
# bad inputs
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("cls", [LORDPlusPlus, SAFFRON, ADDIS, LOND, AlphaSpending, AlphaInvestingFDR])
@pytest.mark.parametrize("alpha", [0.0, 1.0, -0.1, 1.5])
def test_alpha_outside_unit_interval(cls, alpha):
    with pytest.raises(ValueError, match=r"alpha must lie in \(0, 1\)"):
        cls(alpha=alpha)


@pytest.mark.parametrize("cls", [LORDPlusPlus, SAFFRON, ADDIS, AlphaInvestingFDR])
def test_negative_w0(cls):
    with pytest.raises(ValueError, match="w0 must be non-negative"):
        cls(w0=-0.01)


def test_w0_above_alpha():
    with pytest.raises(ValueError, match="w0 must be at most alpha"):
        LORDPlusPlus(alpha=0.05, w0=0.06)
    with pytest.raises(ValueError, match="w0 must be less than alpha"):
        SAFFRON(alpha=0.05, w0=0.05)


def test_foster_stine_bad_parameters():
    with pytest.raises(ValueError, match="w0 must be positive"):
        FosterStine(w0=-0.1)
    with pytest.raises(ValueError, match="w0 must be positive"):
        FosterStine(w0=0.0)
    with pytest.raises(ValueError, match=r"alpha_delta must lie in \(0, 1\)"):
        FosterStine(alpha_delta=1.0)


def test_bad_lambda_tau_and_gamma():
    with pytest.raises(ValueError, match=r"lambda_ must lie in \(0, 1\)"):
        SAFFRON(lambda_=1.0)
    with pytest.raises(ValueError, match=r"lambda_ must lie in \(0, tau\)"):
        ADDIS(lambda_=0.5, tau=0.5)
    with pytest.raises(ValueError, match=r"tau must lie in \(0, 1\]"):
        ADDIS(tau=1.2)
    with pytest.raises(ValueError, match="must be non-negative"):
        LORDPlusPlus(gammai=[0.5, -0.1])
    with pytest.raises(ValueError, match="must not be greater than 1"):
        SAFFRON(gammai=[0.6, 0.6])
    with pytest.raises(ValueError, match="must not be greater than 0.05"):
        LOND(betai=[0.04, 0.02])


def test_unknown_method_name():
    with pytest.raises(ValueError, match=r"unknown method 'lord\+\+\+'; known methods: .*saffron"):
        get_policy("lord+++")
