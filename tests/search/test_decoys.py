"""Decoys shadowing the candidates: the estimate changes no decision and counts what a brute-force
refit counts; the selection mode is symmetric in every pair and thresholds as knockoff+ does."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

import streamreg as sr
from streamreg.config.method import DECOY_DEFAULT
from streamreg.search.decoys import knockoff_plus_threshold
from streamreg.streams.knockoffs import gaussian_knockoffs, ledoit_wolf_correlation


def _threshold_by_definition(w: np.ndarray, q: float) -> float:
    """knockoff+ straight from its definition, one candidate threshold at a time."""
    best = np.inf
    for t in sorted(set(np.abs(w[w != 0]))):
        if (1 + np.sum(w <= -t)) / max(1, np.sum(w >= t)) <= q:
            best = min(best, t)
    return best


def _problem(seed: int, n: int = 150, m: int = 120, family: str = "gaussian"):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, m))
    eta = 0.8 * x[:, 5] - 0.7 * x[:, m // 3] + 0.6 * x[:, 2 * m // 3]  # x5, x40, x80 at m = 120
    y = rng.binomial(1, 1 / (1 + np.exp(-eta))).astype(float) if family == "binomial" else eta + rng.normal(size=n)
    return x, y


# -- the knockoff+ threshold -------------------------------------------------------------
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("q", [0.05, 0.1, 0.3])
def test_knockoff_plus_threshold_equals_its_definition(seed: int, q: float) -> None:
    rng = np.random.default_rng(seed)
    w = np.round(rng.normal(loc=1.5, size=60), 1)  # rounding makes ties in |W|
    w[rng.integers(0, 60, 5)] = 0.0
    assert knockoff_plus_threshold(w, q) == _threshold_by_definition(w, q)


def test_knockoff_plus_threshold_matches_knockpy() -> None:
    knockoff_stats = pytest.importorskip("knockpy.knockoff_stats")
    rng = np.random.default_rng(3)
    for _ in range(20):
        w = rng.normal(loc=1.0, size=80)
        assert knockoff_plus_threshold(w, 0.2) == knockoff_stats.data_dependent_threshhold(w, fdr=0.2, offset=1)


def test_knockoff_plus_threshold_closed_forms() -> None:
    # five positives and one negative below them: t = 1 gives (1 + 0) / 5 = 0.2
    assert knockoff_plus_threshold(np.array([5.0, 4, 3, 2, 1, -0.5]), 0.2) == 1.0
    # nine positives cannot reach q = 0.1 (1/9 > 0.1); ten can
    assert knockoff_plus_threshold(np.arange(1.0, 10.0), 0.1) == np.inf
    assert knockoff_plus_threshold(np.arange(1.0, 11.0), 0.1) == 1.0
    assert knockoff_plus_threshold(np.zeros(4), 0.5) == np.inf


# -- knockoff copies ----------------------------------------------------------------------
def test_ledoit_wolf_correlation_matches_scikit_learn() -> None:
    covariance = pytest.importorskip("sklearn.covariance")
    rng = np.random.default_rng(0)
    x = rng.normal(size=(40, 90)) @ np.linalg.cholesky(0.5 ** np.abs(np.subtract.outer(np.arange(90), np.arange(90)))).T
    z = (x - x.mean(0)) / x.std(0)
    ours, delta = ledoit_wolf_correlation(z)
    theirs, shrinkage = covariance.ledoit_wolf(z, assume_centered=True)
    np.testing.assert_allclose(delta, shrinkage, rtol=1e-10)
    np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)


def test_gaussian_knockoffs_have_the_knockoff_covariance() -> None:
    # n large: the estimated correlation is the true one, and [Z, Z~] has covariance
    # [[R, R - sI], [R - sI, R]] with s = 2 lambda_min(R) (times the margin) capped at 1
    m, n = 4, 400_000
    r = 0.6 ** np.abs(np.subtract.outer(np.arange(m), np.arange(m)))
    rng = np.random.default_rng(11)
    x = 3.0 + 2.0 * rng.normal(size=(n, m)) @ np.linalg.cholesky(r).T
    xk = gaussian_knockoffs(x, np.random.default_rng(12))
    joint = np.corrcoef(np.hstack([x, xk]), rowvar=False)
    s = min(1.0, 2 * 0.999 * np.linalg.eigvalsh(r)[0])
    np.testing.assert_allclose(joint[m:, m:], r, atol=0.01)
    np.testing.assert_allclose(joint[:m, m:], r - s * np.eye(m), atol=0.01)
    np.testing.assert_allclose(xk.mean(0), 3.0, atol=0.02)
    np.testing.assert_allclose(xk.std(0), 2.0, atol=0.02)


def test_knockoffs_copy_constant_columns_and_refuse_wide_streams() -> None:
    x = np.column_stack([np.ones(30), np.random.default_rng(0).normal(size=(30, 3))])
    xk = gaussian_knockoffs(x, np.random.default_rng(1))
    assert (xk[:, 0] == 1).all()
    with pytest.raises(ValueError, match="use decoys='permuted' above 5000 columns"):
        gaussian_knockoffs(np.zeros((3, 5001)), np.random.default_rng(0))


# -- the estimate: no decision changes, hits as a refit counts them ------------------------
@pytest.mark.parametrize("family", ["gaussian", "binomial"])
@pytest.mark.parametrize("kind", ["permuted", "knockoff"])
def test_decoys_alone_change_no_decision(family: str, kind: str) -> None:
    x, y = _problem(1, family=family)
    # the default with decoys is DECOY_DEFAULT's one-phase rule: the plain search names it
    name, passes, _ = DECOY_DEFAULT
    plain = sr.select(y, x, family=family, method=name, passes=passes, w0=0.5, alpha_delta=0.5, spending="uniform")
    shadowed = sr.select(y, x, family=family, w0=0.5, alpha_delta=0.5, decoys=kind, seed=4, block_size=7)
    assert shadowed.selected_terms == plain.selected_terms
    pd.testing.assert_frame_equal(shadowed.history.drop(columns="time", errors="ignore"),
                                  plain.history.drop(columns="time", errors="ignore"))


def test_decoy_hits_equal_a_brute_force_count() -> None:
    """Every tested candidate's decoy, refit by statsmodels against the model of that moment."""
    x, y = _problem(2)
    res = sr.select(y, x, w0=0.5, alpha_delta=0.5, decoys="permuted", seed=9, passes=1)
    order = np.random.default_rng([9, 0]).permutation(len(y))  # the stream's row order (seed, stream 0)
    hist = res.history
    tested = hist[hist["test"] > 0]
    in_model: list[int] = []
    hits = []
    for _, row in tested.iterrows():
        j = int(str(row["term"])[1:])
        base = sm.add_constant(x[:, in_model]) if in_model else np.ones((len(y), 1))
        full = np.column_stack([base, x[order, j]])
        p = sm.OLS(y, full).fit().compare_f_test(sm.OLS(y, base).fit())[1]
        if p <= row["level"]:
            hits.append(row["term"])
        if row["status"] == "accepted":
            in_model.append(j)
    assert list(res.decoys.table["term"]) == hits
    assert res.decoys.hits == len(hits)
    decoy_p = np.exp(res.decoys.table["decoy_log_p"].to_numpy())
    assert (decoy_p <= res.decoys.table["level"].to_numpy()).all()


def test_decoy_estimate_does_not_depend_on_block_size() -> None:
    x, y = _problem(3, family="binomial")
    tables = [sr.select(y, x, family="binomial", w0=0.5, alpha_delta=0.5, decoys="knockoff", seed=2,
                        block_size=b).decoys.table for b in (1, 16, 512)]
    for t in tables[1:]:
        pd.testing.assert_frame_equal(t.drop(columns="decoy_log_p"), tables[0].drop(columns="decoy_log_p"))
        np.testing.assert_allclose(t["decoy_log_p"], tables[0]["decoy_log_p"], rtol=1e-9)


# -- the selection mode --------------------------------------------------------------------
def test_swapping_candidates_and_decoys_flips_every_w() -> None:
    x, y = _problem(4, m=80)
    xk = gaussian_knockoffs(x, np.random.default_rng(5))
    kw = {"w0": 0.5, "alpha_delta": 0.5, "decoy_fdr": 0.3, "passes": 1}
    one = sr.select(y, x, decoys=xk, **kw).decoys.table
    other = sr.select(y, xk, decoys=x, **kw).decoys.table
    assert list(one["term"]) == list(other["term"])  # the same pairs entered, in the same order
    np.testing.assert_allclose(one["W"], -other["W"], rtol=1e-9)
    flipped = {"candidate": "decoy", "decoy": "candidate", "": ""}
    assert list(other["entered"]) == [flipped[e] for e in one["entered"]]


def test_selection_mode_selects_the_candidates_past_the_threshold() -> None:
    rng = np.random.default_rng(5)
    x = rng.normal(size=(150, 200))
    truth = np.arange(10, 200, 25)  # eight strong signals: knockoff+ at q = 0.2 needs five or more
    y = x[:, truth].sum(axis=1) + rng.normal(size=150)
    res = sr.select(y, x, w0=0.5, alpha_delta=0.5, decoys="knockoff", decoy_fdr=0.2, seed=1)
    table = res.decoys.table
    tau = knockoff_plus_threshold(table["W"].to_numpy(), 0.2)
    assert res.decoys.threshold == tau
    past = table[table["W"] >= tau]
    assert res.selected_terms == list(past["term"])
    assert list(res.selected["order"]) == list(range(1, len(past) + 1))
    assert {f"x{j}" for j in truth} <= set(res.selected_terms)
    text = " ".join(str(res.summary()).split())
    assert "knockoff+ threshold" in text and "FDR <= 0.2 holds for exact knockoffs" in text


def test_selection_mode_does_not_depend_on_block_size() -> None:
    x, y = _problem(6, m=150, family="binomial")
    runs = [sr.select(y, x, family="binomial", w0=0.5, alpha_delta=0.5, decoys="permuted", decoy_fdr=0.3,
                      seed=3, block_size=b) for b in (1, 512)]
    assert runs[0].selected_terms == runs[1].selected_terms
    np.testing.assert_allclose(runs[0].decoys.table["W"], runs[1].decoys.table["W"], rtol=1e-9)


def test_the_estimate_says_when_its_one_pass_condition_does_not_hold() -> None:
    x, y = _problem(13, m=40)
    one = " ".join(str(sr.select(y, x, decoys="permuted", seed=1, passes=1).summary()).split())
    three = " ".join(str(sr.select(y, x, decoys="permuted", seed=1, passes=3).summary()).split())
    assert "earlier candidates." in one and "holds only approximately" not in one
    assert "this search made up to 3 passes, where it holds only approximately" in three


def test_decoy_seed_is_drawn_recorded_and_printed() -> None:
    x, y = _problem(7, m=40)
    res = sr.select(y, x, decoys="permuted")
    seed = res.decoys.options.seed
    assert f"(seed {seed})" in str(res.summary()).replace("\n", " ").replace("  ", " ")
    again = sr.select(y, x, decoys="permuted", seed=seed)
    pd.testing.assert_frame_equal(again.decoys.table, res.decoys.table)


def test_formula_interface_takes_decoys() -> None:
    x, y = _problem(8, m=30)
    frame = pd.DataFrame(x, columns=[f"x{j}" for j in range(30)]).assign(y=y)
    res = sr.streamreg("y ~ stream(x*)", frame, decoys="knockoff", decoy_fdr=0.3, seed=0, w0=0.5, alpha_delta=0.5)
    assert res.decoys is not None and res.decoys.options.kind == "knockoff"


# -- bad input -----------------------------------------------------------------------------
@pytest.mark.parametrize(("kwargs", "error", "message"), [
    ({"decoys": "shuffle"}, ValueError, r"decoys must be one of \['permuted', 'knockoff'\]"),
    ({"decoys": 3}, TypeError, "decoys must be 'permuted', 'knockoff' or a matrix, got int"),
    ({"decoy_fdr": 0.1}, ValueError, "decoy_fdr= selects with decoys"),
    ({"decoys": "permuted", "decoy_fdr": 1.5}, ValueError, r"decoy_fdr must be a number in \(0, 1\), got 1.5"),
    ({"decoys": "permuted", "decoy_fdr": True}, ValueError, "decoy_fdr must be a number in"),
    ({"decoys": np.zeros(5)}, ValueError, "a decoy matrix must be two-dimensional"),
    ({"decoys": np.full((60, 10), np.nan)}, ValueError, "the decoy matrix contains NaN or infinite values"),
    ({"decoys": np.zeros((60, 9))}, ValueError, r"the decoy matrix has shape \(60, 9\); stream 'stream1' has 60 rows and 10"),
    ({"decoys": "permuted", "method": "stepwise-aic"}, ValueError, "method 'stepwise-aic' runs its own search and takes no decoys"),
])
def test_bad_decoy_options_are_explained(kwargs: dict, error: type, message: str) -> None:
    x, y = _problem(9, n=60, m=10)
    with pytest.raises(error, match=message):
        sr.select(y, x, **kwargs)


def test_knockoffs_and_decoy_selection_refuse_a_generator_stream() -> None:
    x, y = _problem(10, n=60, m=10)
    gen = ((f"g{j}", x[:, j]) for j in range(10))
    with pytest.raises(ValueError, match="knockoff or given decoys need a stream of single numeric columns"):
        sr.select(y, gen, decoys="knockoff", max_tests=10)
    gen = ((f"g{j}", x[:, j]) for j in range(10))
    with pytest.raises(ValueError, match="decoy_fdr= selects candidates that may not have entered the model"):
        sr.select(y, gen, decoys="permuted", decoy_fdr=0.2, max_tests=10)


def test_selected_candidates_that_did_not_enter_are_refit_with_their_own_values() -> None:
    rng = np.random.default_rng(12)
    x = rng.normal(size=(120, 60))
    y = x[:, :12] @ np.full(12, 0.5) + rng.normal(size=120)
    res = sr.select(y, x, w0=0.05, alpha_delta=0.05, decoys="knockoff", decoy_fdr=0.3, seed=2, passes=1)
    table = res.decoys.table.set_index("term")
    outside = [t for t in res.selected_terms if table.loc[t, "entered"] == ""]
    assert outside, "the problem should select some candidate that never entered the model"
    ols = sm.OLS(y, sm.add_constant(x[:, [int(t[1:]) for t in res.selected_terms]])).fit()
    np.testing.assert_allclose(res.params.to_numpy(), ols.params, rtol=1e-10)


def test_permuted_decoys_work_on_a_generator_and_leave_the_users_matrix_alone() -> None:
    x, y = _problem(11, n=80, m=20)
    gen = ((f"g{j}", x[:, j]) for j in range(20))
    assert sr.select(y, gen, decoys="permuted", seed=1, max_tests=20).decoys is not None
    mine = x[:, ::-1].copy()
    kept = mine.copy()
    sr.select(y, x, decoys=mine, decoy_fdr=0.3)
    np.testing.assert_array_equal(mine, kept)
