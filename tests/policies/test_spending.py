"""``spending="uniform"``: the rules' wealth spread evenly over a stream of known length.

Checked against closed forms (flat levels ``w0 / H`` for LORD++, bids ``w0 / (H + 1)`` for
alpha-investing), against the user sequence ``gammai = 1 / H`` it equals, against a plain
one-test-at-a-time transcription of alpha-investing with uniform bids, and for independence of
the block size.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import streamreg as sr
from streamreg.policies import SAFFRON, AlphaInvesting, LORDPlusPlus


def _data(seed: int = 0, n: int = 100, m: int = 600):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, m))
    y = X[:, [20, 300, 590]].sum(axis=1) + 0.5 * rng.normal(size=n)
    return X, y


def _naive_investing(pvalues: np.ndarray, w0: float, payout: float, fraction) -> tuple[np.ndarray, list[int]]:
    """Alpha-investing bidding ``w * fraction(i)``, one test at a time."""
    w, levels, accepted = w0, [], []
    for i, p in enumerate(pvalues, start=1):
        bid = w * fraction(i)
        levels.append(bid)
        if p < bid:
            w = w - bid + payout
            accepted.append(i - 1)
        else:
            w -= bid
    return np.array(levels), accepted


#: bid fractions of the spending schedules, as transcribed from their definitions (H: horizon)
FRACTIONS = {
    "uniform": lambda i, h: 1 / max(h - i + 2, 2),
    "hedged": lambda i, h: 0.1 / (2 * i) + 0.9 / max(h - i + 2, 2),
}


@pytest.mark.parametrize("spending", sorted(FRACTIONS))
@pytest.mark.parametrize("block_size", [1, 3, 512])
def test_spread_alpha_investing_equals_naive_loop(spending, block_size):
    X, y = _data()
    m = X.shape[1]
    fit = sr.select(y, X, method="alpha-investing", w0=0.05, alpha_delta=0.05, spending=spending,
                    block_size=block_size)
    h = fit.history
    levels, accepted = _naive_investing(h["pvalue"].to_numpy(), 0.05, 0.05, lambda i: FRACTIONS[spending](i, m))
    np.testing.assert_allclose(h["level"].to_numpy(), levels, rtol=1e-12)
    assert fit.selected_terms == [f"x{j}" for j in accepted]
    assert fit.selected_terms == ["x20", "x300", "x590"]
    wording = "Bids spread evenly" if spending == "uniform" else "Bids 10% front-loaded, 90% spread evenly"
    assert wording in fit.guarantee()


def test_uniform_bids_are_flat_until_an_acceptance():
    X, y = _data()
    m = X.shape[1]
    h = sr.select(y, X, method="alpha-investing", w0=0.05, alpha_delta=0.05, spending="uniform").history
    first = h.index[h["term"] == "x20"][0]
    np.testing.assert_allclose(h["level"].to_numpy()[: first + 1], 0.05 / (m + 1), rtol=1e-13)


def test_uniform_lord_equals_flat_gammai_and_spans_every_pass():
    X, y = _data(1)
    m = X.shape[1]
    a = sr.streamreg("y ~ stream(x*)", _frame(X, y), method="lord++", alpha=0.1, w0=0.1,
                     spending="uniform", passes=2)
    b = sr.streamreg("y ~ stream(x*)", _frame(X, y), method="lord++", alpha=0.1, w0=0.1,
                     gammai=np.full(2 * m, 1 / (2 * m)), passes=2)
    assert a.selected_terms == b.selected_terms
    np.testing.assert_array_equal(a.history["level"].to_numpy(), b.history["level"].to_numpy())
    assert a.history["level"].iloc[0] == pytest.approx(0.1 / (2 * m), rel=1e-15)
    assert "spread evenly over each stream's tests (its candidates times passes" in a.guarantee()


def test_max_tests_caps_the_horizon():
    X, y = _data()
    h = sr.select(y, X, method="lord++", alpha=0.1, w0=0.1, spending="uniform", max_tests=200).history
    assert len(h) == 200
    assert h["level"].iloc[0] == pytest.approx(0.1 / 200, rel=1e-15)


def test_unknown_length_keeps_the_decaying_sequence():
    X, y = _data()
    gen = ((f"x{j}", X[:, j].copy()) for j in range(X.shape[1]))
    gen2 = ((f"x{j}", X[:, j].copy()) for j in range(X.shape[1]))
    a = sr.select(y, gen, method="lord++", alpha=0.1, w0=0.1, spending="uniform", max_tests=math.inf)
    b = sr.select(y, gen2, method="lord++", alpha=0.1, w0=0.1, max_tests=math.inf)
    np.testing.assert_array_equal(a.history["level"].to_numpy(), b.history["level"].to_numpy())
    assert "unknown length keeps the decaying sequence" in a.guarantee()


@pytest.mark.parametrize("block_size", [1, 5, 512])
def test_uniform_saffron_is_block_size_free(block_size):
    X, y = _data(2)
    ref = sr.select(y, X, method="saffron", alpha=0.1, spending="uniform", block_size=512)
    fit = sr.select(y, X, method="saffron", alpha=0.1, spending="uniform", block_size=block_size)
    assert fit.selected_terms == ref.selected_terms
    np.testing.assert_array_equal(fit.history["level"].to_numpy(), ref.history["level"].to_numpy())


def test_spending_refusals():
    with pytest.raises(ValueError, match=r"spending must be one of \('decaying', 'uniform', 'hedged'\), got 'flat'"):
        LORDPlusPlus(spending="flat")
    with pytest.raises(ValueError, match="give either spending= or gammai=, not both"):
        LORDPlusPlus(gammai=[0.5, 0.5], spending="uniform")
    with pytest.raises(ValueError, match="spending must be one of"):
        AlphaInvesting(spending="even")
    assert SAFFRON(spending="uniform").parameters()["spending"] == "uniform"
    assert "spending" not in LORDPlusPlus().parameters()


def _frame(X, y):
    df = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    df["y"] = y
    return df


def test_started_rule_names_its_horizon():
    rule = LORDPlusPlus(alpha=0.1, spending="uniform")
    rule.start(n_obs=50, n_candidates=300, horizon=600)
    assert rule.guarantee().endswith("Spending spread evenly over the stream's 600 tests.")
    rule.start(n_obs=50, n_candidates=None)
    assert rule.guarantee().endswith("The stream's length is unknown, so the spending follows the decaying sequence.")


def test_hedged_lord_mixes_the_two_sequences():
    from streamreg.policies.online_fdr import lord_gamma

    X, y = _data(3)
    m = X.shape[1]
    a = sr.select(y, X, method="lord++", alpha=0.1, w0=0.1, spending="hedged")
    j = np.arange(1, m + 1)
    b = sr.select(y, X, method="lord++", alpha=0.1, w0=0.1, gammai=0.1 * lord_gamma(j) + 0.9 / m)
    assert a.selected_terms == b.selected_terms
    np.testing.assert_allclose(a.history["level"].to_numpy(), b.history["level"].to_numpy(), rtol=1e-12)


@pytest.mark.parametrize("method", ["lord++", "saffron", "addis", "alpha-investing-fdr"])
def test_online_fdr_spreads_over_the_vector_it_is_given(method):
    p = np.array([1e-4, 0.2, 0.01, 3e-4, 0.04, 2e-5, 0.6, 0.003])
    uniform = sr.online_fdr(p, method=method, alpha=0.1, spending="uniform")
    flat = sr.online_fdr(p, method=method, alpha=0.1, gammai=np.full(p.size, 1 / p.size))
    pd.testing.assert_frame_equal(uniform, flat)


def test_hedged_bids_rise_near_the_horizon_and_the_screen_allows_for_it():
    """Hedged bids grow towards the horizon's end; a candidate whose p-value lies between the
    run's first bid and its own must be accepted whatever the block size."""
    import statsmodels.api as sm

    from streamreg.policies.investing import rejection_schedule

    rng = np.random.default_rng(0)
    n, m, j = 200, 1000, 990
    X = rng.normal(size=(n, m))
    e = rng.normal(size=n)
    _, bid, _ = rejection_schedule(np.log(0.05), 0, m, m, "hedged")
    assert bid[j] > bid[600]
    target = np.sqrt(bid[600] * bid[j])  # between the two bids

    def pvalue(beta: float) -> float:
        return float(sm.OLS(beta * X[:, j] + e, np.column_stack([np.ones(n), X[:, j]])).fit().pvalues[1])

    lo, hi = 0.0, 1.0  # bisect the effect size that puts the p-value at the target
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if pvalue(mid) > target else (lo, mid)
    y = hi * X[:, j] + e
    picks = [sr.select(y, X, method="alpha-investing", w0=0.05, alpha_delta=0.05, spending="hedged",
                       block_size=bs, passes=1).selected_terms for bs in (1, 600)]
    assert picks[0] == picks[1] == [f"x{j}"]


def test_the_spending_parameter_has_one_text_in_every_gamma_wealth_rule():
    """LORD++, SAFFRON, ADDIS and alpha-investing-fdr document ``spending`` with one shared text,
    whose hedged share is the one the rules use."""
    import inspect

    from streamreg.policies import ADDIS, AlphaInvestingFDR
    from streamreg.policies.sequences import HEDGE_FRONT

    def spending_entry(cls):
        doc = inspect.getdoc(cls)
        return doc[doc.index("spending : "):doc.index("Examples")]

    texts = {spending_entry(cls) for cls in (LORDPlusPlus, SAFFRON, ADDIS, AlphaInvestingFDR)}
    assert len(texts) == 1
    text = " ".join(texts.pop().split())
    assert "SPENDING_TEXT" not in text
    assert f"``{HEDGE_FRONT:g}`` times the default sequence plus ``{1 - HEDGE_FRONT:g} / H``" in text
