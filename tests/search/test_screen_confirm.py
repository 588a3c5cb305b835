"""method="screen-confirm": the screening is the streamwise search it names, every confirmation test
equals statsmodels' test of the same nested models, and the rule's decisions over them are
alpha-investing's; spending="per-pass" re-spreads the wealth at each pass."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from scipy import stats

import streamreg as sr
from streamreg.policies import AlphaInvesting


def _problem(seed: int, n: int = 150, m: int = 200, family: str = "gaussian"):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, m))
    eta = 0.5 * x[:, 7] - 0.45 * x[:, 3 * m // 10] + 0.4 * x[:, 6 * m // 10] + 0.35 * x[:, 19 * m // 20]
    noise = rng.normal(size=n)
    y = rng.binomial(1, 1 / (1 + np.exp(-2 * eta))).astype(float) if family == "binomial" else eta + noise
    return x, y


def _index(name: str) -> int:
    return int(name[1:])


def _phases(fit) -> tuple[pd.DataFrame, pd.DataFrame]:
    h = fit.history
    last = int(h["pass"].max())
    return h[h["pass"] < last], h[h["pass"] == last]


@pytest.mark.parametrize("seed", range(4))
def test_screening_is_the_streamwise_search_it_names(seed: int) -> None:
    x, y = _problem(seed)
    fit = sr.select(y, x, method="screen-confirm", passes=2, screen_w0=0.8)
    plain = sr.select(y, x, method="alpha-investing", w0=0.8, alpha_delta=0.05, spending="uniform", passes=2)
    screening, _ = _phases(fit)
    entered = screening.loc[screening["status"] == "screened in", "term"].tolist()
    assert entered == plain.selected_terms
    np.testing.assert_array_equal(screening["pvalue"].to_numpy(), plain.history["pvalue"].to_numpy())
    assert not screening["accepted"].any()


def _confirmation_models(screening: pd.DataFrame, confirming: pd.DataFrame):
    """For each confirmation row, the columns of the model it is tested against, rebuilt from the
    rows themselves: the screened terms last-entered first, each against the screened terms still
    kept less itself (a rejected one leaves), then every other candidate against the kept ones."""
    screened = [_index(t) for t in screening.loc[screening["status"] == "screened in", "term"]]
    kept = list(screened)
    rows = list(confirming.itertuples())
    for row in rows[:len(screened)]:
        j = _index(row.term)
        assert j == screened[len(screened) - 1 - rows.index(row)]  # last entered first
        yield row, [k for k in kept if k != j]
        if not row.accepted:
            kept.remove(j)
    for row in rows[len(screened):]:
        yield row, list(kept)


@pytest.mark.parametrize("seed", range(4))
def test_confirmation_tests_equal_statsmodels_ols(seed: int) -> None:
    """Each confirmation test is the partial F of adding the column to its model (compare_f_test)."""
    x, y = _problem(seed)
    fit = sr.select(y, x, method="screen-confirm", passes=2)
    screening, confirming = _phases(fit)
    for row, base in _confirmation_models(screening, confirming):
        j = _index(row.term)
        small = sm.OLS(y, sm.add_constant(x[:, base]) if base else np.ones((len(y), 1))).fit()
        big = sm.OLS(y, np.column_stack([small.model.exog, x[:, j]])).fit()
        assert row.pvalue == pytest.approx(big.compare_f_test(small)[1], rel=1e-8, abs=1e-300)
    assert len(confirming) == x.shape[1]  # every candidate tested once


@pytest.mark.parametrize("seed", range(3))
def test_confirmation_score_tests_equal_statsmodels_glm(seed: int) -> None:
    """Binomial: Rao's score test of adding a column to its model, as statsmodels'
    GLMResults.score_test computes it."""
    x, y = _problem(seed, n=300, m=60, family="binomial")
    fit = sr.select(y, x, family="binomial", method="screen-confirm", passes=2)
    screening, confirming = _phases(fit)
    assert (screening["status"] == "screened in").any()
    for checked, (row, base) in enumerate(_confirmation_models(screening, confirming)):
        if checked > 15:
            break
        res = sm.GLM(y, sm.add_constant(x[:, base]) if base else np.ones((len(y), 1)),
                     family=sm.families.Binomial()).fit(tol=1e-12)
        score = res.score_test(exog_extra=x[:, [_index(row.term)]])
        assert row.statistic == pytest.approx(float(np.squeeze(score.statistic)), rel=1e-6)
        assert row.pvalue == pytest.approx(float(np.squeeze(score.pvalue)), rel=1e-5)


@pytest.mark.parametrize("seed", range(3))
def test_decisions_are_alpha_investing_over_the_confirmation_tests(seed: int) -> None:
    x, y = _problem(seed)
    fit = sr.select(y, x, method="screen-confirm", passes=2, w0=0.1, alpha_delta=0.1)
    _, confirming = _phases(fit)
    p = confirming["pvalue"].to_numpy()
    reference = sr.online_fdr(p, method="alpha-investing", w0=0.1, alpha_delta=0.1, spending="uniform")
    np.testing.assert_array_equal(confirming["accepted"].to_numpy(), reference["R"].to_numpy() == 1)
    np.testing.assert_allclose(confirming["level"].to_numpy(), reference["alphai"].to_numpy(), rtol=1e-12)
    assert sorted(fit.selected_terms, key=_index) == sorted(confirming.loc[confirming["accepted"], "term"], key=_index)
    # the wealth after each test: Zhou et al. (2006, Fig. 4), a test costs its level, an entry pays alpha_delta
    level, accepted = confirming["level"].to_numpy(), confirming["accepted"].to_numpy()
    expected = 0.1 + np.cumsum(-level + 0.1 * accepted)
    np.testing.assert_allclose(confirming["wealth"].to_numpy(), expected, rtol=1e-9)
    confirmed = fit.selected.set_index("term")["wealth"]
    rows = confirming.set_index("term")
    for term in fit.selected_terms:
        assert confirmed[term] == pytest.approx(float(rows.loc[term, "wealth"]), rel=1e-12)


def test_selection_does_not_depend_on_the_block_size() -> None:
    x, y = _problem(11, m=400)
    fits = [sr.select(y, x, method="screen-confirm", passes=2, block_size=b) for b in (7, 64, 1000)]
    assert fits[0].selected_terms == fits[1].selected_terms == fits[2].selected_terms
    np.testing.assert_array_equal(fits[0].history["pvalue"].to_numpy(), fits[2].history["pvalue"].to_numpy())


def test_finds_signals_that_arrive_before_their_peers() -> None:
    """Eight equal signals at the front of the stream, masked by each other for a streamwise test
    at a small level: the confirmation tests each against a model holding the others (six seeds:
    12 of 48 found in one phase over three passes, 46 screened and confirmed, 1 false each)."""
    true = {f"x{j}" for j in range(8)}
    found = {"one phase": 0, "confirmed": 0}
    false = dict.fromkeys(found, 0)
    for seed in range(6):
        rng = np.random.default_rng(seed)
        x = rng.normal(size=(150, 3000))
        y = x[:, :8] @ np.full(8, 0.5) + rng.normal(size=150)
        for key, kw in (("one phase", {"method": "alpha-investing", "w0": 0.05, "alpha_delta": 0.05,
                                       "spending": "uniform", "passes": 3}),
                        ("confirmed", {"method": "screen-confirm", "passes": 2})):
            selected = set(sr.select(y, x, **kw).selected_terms)
            found[key] += len(true & selected)
            false[key] += len(selected - true)
    assert found["confirmed"] >= 40 > 20 >= found["one phase"]
    assert false["confirmed"] <= 3


def test_a_stream_read_once_gets_one_phase() -> None:
    x, y = _problem(2)

    def columns():
        for j in range(x.shape[1]):
            yield f"x{j}", x[:, j]

    fit = sr.select(y, columns(), method="screen-confirm", max_tests=10_000)
    plain = sr.select(y, x, method="alpha-investing", w0=0.05, alpha_delta=0.05, spending="uniform")
    assert fit.selected_terms == plain.selected_terms
    assert "one phase ran" in fit.summary().as_text().replace("\n", " ")
    # the method line names the rule that ran, not the two phases that did not
    assert fit.policy_description == ("alpha-investing(w0=0.05, alpha_delta=0.05, spending=uniform), "
                                      "in one phase for screen-confirm(w0=0.05, alpha_delta=0.05, screen_w0=1.0)")


def test_summary_tells_both_phases() -> None:
    x, y = _problem(1)
    text = " ".join(sr.select(y, x, method="screen-confirm", passes=2).summary().as_text().split())
    assert "Screened by alpha-investing (w0 = 1)" in text
    assert "screening (2 passes)" in text and "confirming" in text
    assert "holds approximately" in text


def test_bad_options_are_refused() -> None:
    x, y = _problem(0)
    with pytest.raises(ValueError, match="w0 must be a number in \\(0, 1\\]"):
        sr.select(y, x, method="screen-confirm", screen_w0=2)
    with pytest.raises(TypeError, match="unknown option 'spending' for method 'screen-confirm'"):
        sr.select(y, x, method="screen-confirm", spending="uniform")
    with pytest.raises(ValueError, match="decoys"):
        sr.select(y, x, method="screen-confirm", decoys="permuted")


# -- spending="per-pass" -------------------------------------------------------------------
def test_per_pass_spending_re_spreads_the_wealth_at_each_pass() -> None:
    """Pass 1 bids w0 / (m + 1) until its first acceptance; pass 2 bids the wealth it starts with
    over the candidates it re-offers, W / (H + 1) with H = pass 1's rejections."""
    x, y = _problem(5, m=300)
    fit = sr.select(y, x, method="alpha-investing", w0=0.05, alpha_delta=0.05, spending="per-pass", passes=2)
    h = fit.history
    first, second = h[h["pass"] == 1], h[h["pass"] == 2]
    m = x.shape[1]
    assert first["level"].iloc[0] == pytest.approx(0.05 / (m + 1), rel=1e-12)
    wealth_at_start = first["wealth"].iloc[-1]
    rejected = int((first["status"] == "rejected").sum())
    assert len(second) == rejected
    assert second["level"].iloc[0] == pytest.approx(wealth_at_start / (rejected + 1), rel=1e-10)


def test_per_pass_spending_is_alpha_investings_only() -> None:
    with pytest.raises(ValueError, match="'per-pass' is offered by alpha-investing"):
        sr.select(*reversed(_problem(0)), method="lord++", spending="per-pass")


def test_per_pass_under_no_signal_selects_with_probability_about_w0() -> None:
    """The first pass spends at most w0; a pass without acceptances re-offers the same tests at
    lower levels, so nothing more can enter (Bonferroni: P <= w0)."""
    rng = np.random.default_rng(0)
    n, m, runs = 60, 200, 200
    hits = 0
    policy = AlphaInvesting(w0=0.2, alpha_delta=0.05, spending="per-pass")
    for _ in range(runs):
        x = rng.normal(size=(n, m))
        y = rng.normal(size=n)
        hits += bool(sr.select(y, x, method=policy, passes=3).selected_terms)
    assert hits / runs <= 0.2 + 3 * np.sqrt(0.2 * 0.8 / runs)
    assert stats.binom.cdf(hits, runs, 0.2) > 1e-4  # and not absurdly conservative either


# -- the robust score test of the score-f families -------------------------------------------
def _boos_statistic(y: np.ndarray, base: np.ndarray, extra: np.ndarray) -> float:
    """Boos (1992)'s robust score statistic from statsmodels' GLM pieces: the score contributions
    and Hessian of the augmented Poisson model at the restricted fit, V = sum_i (s2_i - H21 H11^-1 s1_i)^2."""
    model = sm.GLM(y, base, family=sm.families.Poisson())
    fit = model.fit(tol=1e-13)
    ex = np.column_stack([base, extra])
    factor = model.score_factor(fit.params)
    hess = (ex.T * model.hessian_factor(fit.params)) @ ex
    k = base.shape[1]
    s = factor[:, None] * ex
    adjusted = s[:, k:] - s[:, :k] @ np.linalg.solve(hess[:k, :k], hess[:k, k:])
    score = s[:, k:].sum(0)
    return float(score @ np.linalg.solve(adjusted.T @ adjusted, score))


def test_poisson_confirmation_uses_the_robust_score_test() -> None:
    """A score-f family (Poisson) is confirmed by the robust score test (chi-square), each row equal
    to Boos's statistic built from statsmodels' score and Hessian; one huge count cannot make a
    null column significant."""
    rng = np.random.default_rng(4)
    n, m = 300, 40
    x = rng.normal(size=(n, m))
    y = rng.poisson(np.exp(0.5 + 0.4 * x[:, 3] - 0.4 * x[:, 20])).astype(float)
    fit = sr.select(y, x, family="poisson", method="screen-confirm", passes=2)
    screening, confirming = _phases(fit)
    for checked, (row, base) in enumerate(_confirmation_models(screening, confirming)):
        if checked > 15:
            break
        expected = _boos_statistic(y, sm.add_constant(x[:, base]) if base else np.ones((n, 1)),
                                   x[:, [_index(row.term)]])
        assert row.statistic == pytest.approx(expected, rel=1e-7)
        assert row.pvalue == pytest.approx(stats.chi2.sf(expected, 1), rel=1e-6)
    assert "robust score tests" in fit.summary().as_text().replace("\n", " ")


def test_one_huge_count_does_not_confirm_a_null_column() -> None:
    rng = np.random.default_rng(7)
    n = 400
    x = rng.normal(size=(n, 50))
    y = rng.poisson(3.0, size=n).astype(float)
    x[17, 9] = 8.0
    y[17] = 900.0  # a count the Poisson variance cannot explain, on the row where x9 is extreme
    model_based = sr.select(y, x, family="poisson", method="alpha-investing", w0=0.05, alpha_delta=0.02,
                            spending="uniform", test="score")
    confirmed = sr.select(y, x, family="poisson", method="screen-confirm", passes=2)
    assert "x9" in model_based.selected_terms  # the fixed-dispersion score test is fooled
    assert "x9" not in confirmed.selected_terms


@pytest.mark.parametrize("seed", [1, 6])
def test_the_confirmed_model_is_the_last_drop_tests_model(seed: int, monkeypatch) -> None:
    """After backward elimination drops a screened term, the model of the terms then kept is the
    one its drop test fitted: the confirmation reuses it (one fit fewer) and tests the other
    candidates against exactly the kept terms (checked against statsmodels)."""
    from streamreg.models.gaussian import GaussianState

    rng = np.random.default_rng(seed)
    x = rng.standard_normal((120, 300))
    y = x[:, [3, 50, 200]] @ np.array([0.5, -0.5, 0.5]) + rng.standard_normal(120)
    calls: list[int] = []
    refit = GaussianState.refit

    def counted(self, fixed, terms, *, within=False):
        calls.append(len(terms))
        return refit(self, fixed, terms, within=within)

    monkeypatch.setattr(GaussianState, "refit", counted)
    fit = sr.select(y, x, method="screen-confirm", passes=2, screen_w0=1.0)
    screening, confirming = _phases(fit)
    screened = screening.loc[screening["status"] == "screened in", "term"].tolist()
    dropped = confirming[confirming["term"].isin(screened) & ~confirming["accepted"]]
    assert len(dropped) >= 1 and fit.selected_terms == ["x3", "x50", "x200"]
    assert len(calls) == len(screened)  # one fit per drop test, none after
    kept = [_index(t) for t in fit.selected_terms]
    others = confirming[~confirming["term"].isin(screened)].head(5)
    base = sm.OLS(y, sm.add_constant(x[:, kept])).fit()
    for row in others.itertuples():
        full = sm.OLS(y, sm.add_constant(x[:, kept + [_index(row.term)]])).fit()
        f, _, _ = full.compare_f_test(base)
        assert row.statistic == pytest.approx(f, rel=1e-8)
