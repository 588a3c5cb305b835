"""Fixed-penalty rules AIC, BIC and RIC (Zhou et al. 2006, Table 2)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from streamreg.outcomes import TestOutcomes
from streamreg.policies import AIC, BIC, RIC, FixedPenalty, get_policy


def outcomes(llr, df=None) -> TestOutcomes:
    llr = np.asarray(llr, dtype=float)
    df = np.ones(len(llr), dtype=int) if df is None else np.asarray(df, dtype=int)
    return TestOutcomes(
        statistic=llr, df=df, df_resid=np.full(len(llr), np.inf), llr=llr,
        log_sf=lambda s, d, r: stats.chi2.logsf(s, d), critical=None,
    )


def started(policy, n_obs=100, n_candidates=None):
    policy.start(n_obs=n_obs, n_candidates=n_candidates)
    return policy


@pytest.mark.parametrize(
    "policy, n_obs, n_candidates, F",
    [
        (AIC(), 100, None, 2.0),
        (BIC(), 100, None, math.log(100)),
        (BIC(), 5000, None, math.log(5000)),
        (RIC(), 100, 1000, 2 * math.log(1000)),
        (RIC(m=20), 100, 1000, 2 * math.log(20)),  # m= wins over the stream length
        (RIC(m=20), 100, None, 2 * math.log(20)),
        (FixedPenalty(penalty=3.5), 100, None, 3.5),
    ],
)
def test_thresholds_match_closed_forms(policy, n_obs, n_candidates, F):
    pol = started(policy, n_obs, n_candidates)
    assert pol.threshold == pytest.approx(F, rel=1e-15)
    df = np.array([1, 1, 1, 2, 2, 3, 3])
    cut = F * df
    eps = 1e-9 * cut
    llr = np.array([cut[0] - eps[0], cut[1], cut[2] + eps[2], cut[3] - eps[3], cut[4] + eps[4],
                    cut[5], cut[5] * 1.5])
    plan = pol.plan(outcomes(llr, df))
    # strict: llr must exceed F per column; a d-column term pays d times
    np.testing.assert_array_equal(plan.accept, [False, False, True, False, True, False, True])
    np.testing.assert_allclose(plan.level, stats.chi2.sf(cut, df), rtol=1e-12)
    assert np.all(np.isnan(plan.wealth))


def test_aic_bic_examples():
    aic = started(AIC())
    assert list(aic.plan(outcomes([1.9, 2.1, 4.1], [1, 1, 2])).accept) == [False, True, True]
    bic = started(BIC(), n_obs=1000)  # log 1000 = 6.91
    assert list(bic.plan(outcomes([6.9, 6.95, 13.9], [1, 1, 2])).accept) == [False, True, True]


def test_decisions_are_independent_of_history():
    pol = started(RIC(), n_candidates=100)
    out = outcomes([20.0, 1.0, 9.3, 9.1])
    before = pol.plan(out)
    pol.record(out, 1, True)
    after = pol.plan(out)
    np.testing.assert_array_equal(before.accept, after.accept)
    assert pol.n_tested == 1 and pol.n_accepted == 1
    pol.record(out, 3, False)
    assert pol.n_tested == 4 and pol.n_accepted == 1


def test_no_wealth_and_even_priority():
    a, b = started(AIC()), started(AIC())
    assert math.isnan(a.wealth)
    a.record(outcomes([0.0, 0.0]), 2, False)
    assert b.priority() > a.priority()  # fewest tests first


def test_ric_without_m_on_infinite_stream():
    with pytest.raises(ValueError, match=r"RIC needs the number of candidates m: pass RIC\(m=\.\.\.\)"):
        RIC().start(n_obs=100, n_candidates=None)
    with pytest.raises(ValueError, match=r"RIC needs the number of candidates m"):
        get_policy("ric").start(n_obs=100)


def test_bad_arguments():
    with pytest.raises(ValueError, match="m must be a positive integer"):
        RIC(m=0)
    with pytest.raises(ValueError, match="m must be a positive integer"):
        RIC(m=2.5)
    with pytest.raises(ValueError, match="penalty must be a finite non-negative number"):
        FixedPenalty(penalty=-1.0)
    with pytest.raises(ValueError, match=r"BIC needs the number of observations n_obs > 1"):
        BIC().start(n_obs=1)
    with pytest.raises(TypeError):
        AIC(alpha=0.05)


def test_registry_and_parameters():
    assert type(get_policy("aic")) is AIC
    assert type(get_policy("BIC")) is BIC
    ric = get_policy("ric", m=500)
    assert type(ric) is RIC and ric.parameters() == {"m": 500}
    assert ric.spawn().parameters() == {"m": 500}
    assert AIC().describe() == "aic()" and RIC(m=10).describe() == "ric(m=10)"
    with pytest.raises(ValueError, match="unknown method 'aicc'"):
        get_policy("aicc")


def test_guarantee_says_no_error_rate():
    for pol in (AIC(), BIC(), RIC()):
        assert "no error rate" in pol.guarantee()
    ric = started(RIC(), n_candidates=1000)
    text = ric.guarantee()
    fwer = 1000 * stats.chi2.sf(2 * math.log(1000), 1)
    assert f"{fwer:.3g}" in text and "not independent" in text


def test_ric_guarantee_quotes_the_exact_least_squares_rate():
    from scipy import stats

    from streamreg.policies import RIC

    ric = RIC(m=1_000_000)
    ric.start(n_obs=100, n_candidates=None)
    # n log(RSS0/RSS1) > 2 log m  <=>  F(1, n - 2) > (n - 2) (m^(2/n) - 1) beside an intercept
    size = stats.f.sf(98 * (1_000_000 ** (2 / 100) - 1), 1, 98)
    assert f"exact rate per null test is {size:.3g}" in ric.guarantee()
    assert f"about {1_000_000 * size:.3g} over m tests" in ric.guarantee()
