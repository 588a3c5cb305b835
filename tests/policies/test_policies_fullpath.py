"""Every registered wealth or penalty policy through the full ``streamreg()`` formula path.

On Gaussian problems the reference walks the columns in stream order, refits statsmodels
``OLS`` for each candidate (partial t-test p-value, or the log-likelihood gain for the
penalties) and decides with a plain transcription of the rule (``naive.py``).  The package
must select the same terms, in the same order, with the same p-values and levels.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from naive import is_collinear, lord_gamma, naive_foster_stine, naive_online

import streamreg as sr


def make_data(seed: int, n: int = 120, m: int = 40) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, m))
    x[:, 20] = x[:, 3] + 1e-13 * rng.standard_normal(n)  # a collinear copy, skipped once x3 is in
    beta = np.zeros(m)
    beta[[3, 9, 15, 30, 36]] = [1.0, -0.7, 0.45, 0.3, 0.25]
    y = x @ beta + rng.standard_normal(n)
    df = pd.DataFrame(x, columns=[f"x{j}" for j in range(m)])
    df["y"] = y
    return df


# each rule: level of the next test from the p-values and decisions so far

def online_levels(rule: str, **kw):
    """Re-runs the transcription over the past p-values (it recomputes the decisions)."""

    def level(past_p: list[float], accepted: list[bool]) -> float:
        levels, _ = naive_online(np.array(past_p + [1.0]), rule, **kw)
        return float(levels[-1])

    return level


def foster_stine_level(w0: float, omega: float):
    def level(past_p: list[float], accepted: list[bool]) -> float:
        levels, _, _ = naive_foster_stine(np.array(past_p + [1.0]), w0, omega)
        return float(levels[-1])

    return level


def lond_level(alpha: float = 0.05):
    def level(past_p: list[float], accepted: list[bool]) -> float:
        t = len(past_p) + 1
        return alpha * float(lord_gamma(t)) * (sum(accepted) + 1)

    return level


def spending_level(alpha: float = 0.05):
    def level(past_p: list[float], accepted: list[bool]) -> float:
        return alpha * float(lord_gamma(len(past_p) + 1))

    return level


def reference_walk(df: pd.DataFrame, *, level=None, penalty: float | None = None):
    """Stream the columns in order; returns (selected names, per-test (name, p, level, accepted))."""
    y = df["y"].to_numpy()
    names = [c for c in df.columns if c != "y"]
    chosen: list[str] = []
    trace = []
    past_p: list[float] = []
    accepted: list[bool] = []
    for name in names:
        x0 = np.column_stack([np.ones(len(y))] + [df[c].to_numpy() for c in chosen])
        c = df[[name]].to_numpy()
        if is_collinear(x0, c):
            continue
        fit0 = sm.OLS(y, x0).fit()
        fit1 = sm.OLS(y, np.column_stack([x0, c])).fit()
        p = float(fit1.pvalues[-1])
        if penalty is not None:
            lev = math.nan
            ok = 2 * (fit1.llf - fit0.llf) > penalty
        else:
            lev = level(past_p, accepted)
            ok = p <= lev
        trace.append((name, p, lev, ok))
        past_p.append(p)
        accepted.append(ok)
        if ok:
            chosen.append(name)
    return chosen, trace


POLICIES = {
    "lord++": lambda: online_levels("lord", w0=0.005),
    "saffron": lambda: online_levels("saffron", w0=0.025, lam=0.5),
    "addis": lambda: online_levels("addis", w0=0.025, lam=0.25, tau=0.5),
    "alpha-investing-fdr": lambda: online_levels("ai", w0=0.025),
    "foster-stine": lambda: foster_stine_level(0.0475, 0.05),
    "lond": lambda: lond_level(),
    "alpha-spending": lambda: spending_level(),
}


def check_against_reference(fit, chosen, trace, *, compare_levels: bool = True):
    assert list(fit.selected["term"]) == chosen
    tested = fit.history[fit.history["status"].isin(["accepted", "rejected"])]
    assert list(tested["term"]) == [t[0] for t in trace]
    np.testing.assert_allclose(tested["pvalue"].to_numpy(), [t[1] for t in trace], rtol=1e-8, atol=1e-300)
    np.testing.assert_array_equal(tested["accepted"].to_numpy(), [t[3] for t in trace])
    if compare_levels:
        np.testing.assert_allclose(tested["level"].to_numpy(), [t[2] for t in trace], rtol=1e-10, atol=0)


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("method", sorted(POLICIES))
def test_wealth_policies_through_streamreg(method, seed):
    df = make_data(seed)
    chosen, trace = reference_walk(df, level=POLICIES[method]())
    fit = sr.streamreg("y ~ stream(x*)", df, method=method)
    check_against_reference(fit, chosen, trace)
    assert "x20" not in chosen and ("x3" not in chosen or "x20" in set(fit.history["term"]))
    # the refit is statsmodels OLS on the chosen columns
    ref = sm.OLS(df["y"], sm.add_constant(df[chosen])).fit()
    np.testing.assert_allclose(fit.params.to_numpy(), ref.params.to_numpy(), rtol=1e-9, atol=1e-12)
    # the printed guarantee names the dependence of streamwise p-values
    assert "independent" in fit.guarantee() and "Streamwise" in fit.guarantee()


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("method", ["aic", "bic", "ric"])
def test_penalties_through_streamreg(method, seed):
    df = make_data(seed)
    n, m = len(df), df.shape[1] - 1
    penalty = {"aic": 2.0, "bic": math.log(n), "ric": 2 * math.log(m)}[method]
    chosen, trace = reference_walk(df, penalty=penalty)
    fit = sr.streamreg("y ~ stream(x*)", df, method=method)
    check_against_reference(fit, chosen, trace, compare_levels=False)


def test_policies_pick_a_real_signal():
    """The checks above are not vacuous: on this data every policy selects x3 first."""
    df = make_data(1)
    for method in POLICIES:
        fit = sr.streamreg("y ~ stream(x*)", df, method=method)
        assert fit.selected["term"].iloc[0] == "x3", method
