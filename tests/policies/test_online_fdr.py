"""``streamreg.online_fdr``: online FDR on p-value vectors, against R's onlineFDR.

Reference numbers: ``tests/reference/online_fdr.R`` ran onlineFDR 2.19.1 (built from its
public source) on four random p-value vectors of R's RNG, with every rule the package
shares with onlineFDR, at default and non-default parameters and with a user sequence
(68 cases, 28,050 levels).  ``tests/reference/README.md`` says how to regenerate them.

The two alpha-investing rules onlineFDR does not have (Foster and Stine 2008; Zhou et al. 2006)
are checked against the papers' update rules, transcribed test by test below.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from naive import naive_foster_stine

import streamreg as sr
from streamreg.policies import LORDPlusPlus, get_policy

REF = Path(__file__).parents[1] / "reference"
CASES = pd.read_csv(REF / "online_fdr_cases.csv", dtype=str, keep_default_na=False)
PVALUES = pd.read_csv(REF / "online_fdr_pvalues.csv")
LEVELS = pd.read_csv(REF / "online_fdr_levels.csv")
# measured: largest difference 5.6e-17 absolute, 5.9e-16 relative (rounding only)
REL, ABS = 1e-12, 1e-9


def vector(name: str) -> np.ndarray:
    return PVALUES[PVALUES["vector"] == name].sort_values("index")["pval"].to_numpy()


def options(case: pd.Series, n: int) -> dict:
    """The call's keyword arguments, in streamreg's spelling (lambda_ for R's lambda)."""
    out = {}
    for r_name, name in (("alpha", "alpha"), ("w0", "w0"), ("lambda", "lambda_"), ("tau", "tau")):
        if case[r_name]:
            out[name] = float(case[r_name])
    if case["original"]:
        out["original"] = case["original"] == "TRUE"
    if case["sequence"] == "inv_square":  # the R script's 6 / (pi^2 j^2), j = 1..n+1
        j = np.arange(1, n + 2, dtype=float)
        g = 6 / (np.pi**2 * j**2)
        if case["method"] == "lond":
            out["betai"] = out.get("alpha", 0.05) * g
        else:
            out["gammai"] = g
    return out


def test_reference_files_cover_every_shared_rule():
    assert len(CASES) == 68 and len(LEVELS) == 28050
    assert set(CASES["method"]) == {"lord++", "lond", "saffron", "addis", "alpha-investing-fdr", "alpha-spending"}
    assert LEVELS.groupby("case")["R"].sum().max() >= 50  # runs with many rejections are covered


@pytest.mark.parametrize("case", [row for _, row in CASES.iterrows()], ids=list(CASES["case"]))
def test_levels_and_rejections_equal_onlinefdr(case):
    p = vector(case["vector"])
    out = sr.online_fdr(p, case["method"], **options(case, len(p)))
    ref = LEVELS[LEVELS["case"] == case["case"]].sort_values("index")
    assert list(out.columns) == ["pval", "alphai", "R"]
    np.testing.assert_array_equal(out["pval"].to_numpy(), p)
    np.testing.assert_allclose(out["alphai"].to_numpy(), ref["alphai"].to_numpy(), rtol=REL, atol=0)
    assert np.max(np.abs(out["alphai"].to_numpy() - ref["alphai"].to_numpy())) <= ABS
    np.testing.assert_array_equal(out["R"].to_numpy(), ref["R"].to_numpy())


# ---------------------------------------------------------------------------------------
# the rules onlineFDR does not have: the papers' update rules, one test at a time
# ---------------------------------------------------------------------------------------


def paper000_alpha_investing(p, w0, alpha_delta):
    """Zhou et al. (2006), Fig. 4: bid w/(2i); reject if p < bid; lose the bid, earn alpha_delta."""
    w, levels, rejected = w0, [], []
    for i, pi in enumerate(p, start=1):
        bid = w / (2 * i)
        levels.append(bid)
        rejected.append(pi < bid)
        w = w - bid + (alpha_delta if pi < bid else 0.0)
    return np.array(levels), np.array(rejected)


def random_p(rng, n, rate):
    p = rng.random(n)
    signal = rng.random(n) < rate
    p[signal] = p[signal] ** rng.uniform(4, 12, size=signal.sum())
    return p


@pytest.mark.parametrize("w0, alpha_delta", [(0.5, 0.5), (0.05, 0.05), (0.2, 0.1)])
def test_alpha_investing_matches_paper_000(w0, alpha_delta):
    rng = np.random.default_rng(17)
    for _ in range(10):
        p = random_p(rng, 300, 0.15)
        want_levels, want_rejected = paper000_alpha_investing(p, w0, alpha_delta)
        out = sr.online_fdr(p, "alpha-investing", w0=w0, alpha_delta=alpha_delta)
        np.testing.assert_allclose(out["alphai"], want_levels, rtol=1e-12, atol=0)
        np.testing.assert_array_equal(out["R"], want_rejected.astype(int))
        assert want_rejected.any()


@pytest.mark.parametrize("w0, alpha_delta", [(0.0475, 0.05), (0.1, 0.2), (0.9, 0.3)])
def test_foster_stine_matches_the_paper(w0, alpha_delta):
    rng = np.random.default_rng(23)
    for _ in range(10):
        p = random_p(rng, 300, 0.15)
        want_levels, want_rejected, _ = naive_foster_stine(p, w0, alpha_delta)
        out = sr.online_fdr(p, "foster-stine", w0=w0, alpha_delta=alpha_delta)
        np.testing.assert_allclose(out["alphai"], want_levels, rtol=1e-13, atol=0)
        np.testing.assert_array_equal(out["R"], want_rejected.astype(int))


# ---------------------------------------------------------------------------------------
# inputs and outputs
# ---------------------------------------------------------------------------------------

P = vector("mix200")


def test_series_index_and_dataframe_columns_are_kept():
    s = pd.Series(P[:50], index=[f"h{i}" for i in range(50)])
    out = sr.online_fdr(s, "saffron")
    assert list(out.index) == list(s.index)
    frame = pd.DataFrame({"id": np.arange(50) + 100, "pval": P[:50]}, index=s.index)
    out2 = sr.online_fdr(frame, "saffron")
    assert list(out2.columns) == ["id", "pval", "alphai", "R"]
    pd.testing.assert_series_equal(out2["alphai"], out["alphai"])
    assert "alphai" not in frame.columns  # the input is not modified


def test_alias_policy_instance_and_alpha_keyword():
    a = sr.online_fdr(P, "lord")
    b = sr.online_fdr(P, LORDPlusPlus(alpha=0.05))
    c = sr.online_fdr(list(P))
    pd.testing.assert_frame_equal(a, b)
    pd.testing.assert_frame_equal(a, c)
    d = sr.online_fdr(P, "lord++", alpha=0.1)
    e = sr.online_fdr(P, get_policy("lord++", alpha=0.1))
    pd.testing.assert_frame_equal(d, e)
    assert not np.allclose(a["alphai"], d["alphai"])


def test_levels_do_not_depend_on_how_the_vector_is_planned():
    # one at a time (as onlineFDR) and in online_fdr's doubling blocks give the same numbers
    p = random_p(np.random.default_rng(5), 2000, 0.05)
    out = sr.online_fdr(p, "addis")
    pol = get_policy("addis")
    pol.start(n_obs=1)
    from streamreg.fdr import _outcomes

    outcomes = _outcomes(p)
    levels = []
    for i in range(len(p)):
        one = outcomes.take(slice(i, i + 1))
        plan = pol.plan(one)
        levels.append(plan.level[0])
        pol.record(one, 1, bool(plan.accept[0]))
    np.testing.assert_array_equal(out["alphai"].to_numpy(), levels)


@pytest.mark.parametrize("method", ["lord++", "saffron", "addis", "alpha-investing-fdr"])
def test_levels_do_not_depend_on_the_chunking_of_acceptances(method, monkeypatch):
    # the acceptances' terms are summed left to right whatever the chunk of rows: bitwise equal
    from streamreg.policies import gamma_wealth

    p = random_p(np.random.default_rng(9), 600, 0.2)
    whole = sr.online_fdr(p, method)
    monkeypatch.setattr(gamma_wealth, "_CELLS", 7)
    np.testing.assert_array_equal(sr.online_fdr(p, method)["alphai"], whole["alphai"])


def test_zero_and_tiny_p_values_and_empty_input():
    out = sr.online_fdr([0.0, 1e-300, 1.0, 0.5], "saffron")
    assert out["R"].tolist() == [1, 1, 0, 0]
    empty = sr.online_fdr([], "lord++")
    assert list(empty.columns) == ["pval", "alphai", "R"] and len(empty) == 0


def test_public_import_paths_after_the_split():
    from streamreg.policies.gamma_wealth import SAFFRON as A
    from streamreg.policies.online_fdr import (
        ADDIS,
        LOND,
        SAFFRON,
        AlphaInvestingFDR,
        AlphaSpending,
        lord_gamma,
    )
    from streamreg.policies.sequences import lord_gamma as g

    assert A is SAFFRON and g is lord_gamma
    assert {c.name for c in (ADDIS, LOND, AlphaInvestingFDR, AlphaSpending)} == {
        "addis", "lond", "alpha-investing-fdr", "alpha-spending"}


# ---------------------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "pvalues, message",
    [
        ([0.1, np.nan, 0.2], r"1 missing value\(s\) \(first at position 1\)"),
        ([0.1, 1.5], "All p-values must be between 0 and 1; position 1 holds 1.5"),
        ([-0.1], "All p-values must be between 0 and 1"),
        ([[0.1, 0.2]], "1-D sequence of numbers"),
        ("0.1", "1-D sequence of numbers"),
        (["a", "b"], "must be numbers"),
        (pd.DataFrame({"p": [0.1]}), "needs a column 'pval'"),
    ],
)
def test_bad_p_values(pvalues, message):
    with pytest.raises(ValueError, match=message):
        sr.online_fdr(pvalues)


def test_bad_methods_and_options():
    with pytest.raises(ValueError, match="unknown method 'bonferroni' for online_fdr; known methods: lord"):
        sr.online_fdr(P, "bonferroni")
    for name in ("aic", "bic", "ric", "information-investing"):
        with pytest.raises(ValueError, match="decides on likelihood-ratio statistics, not on p-values"):
            sr.online_fdr(P, name)
    with pytest.raises(ValueError, match="'foster-stine' has no alpha: .* pass alpha_delta="):
        sr.online_fdr(P, "foster-stine", alpha=0.05)
    with pytest.raises(TypeError, match="unknown option\\(s\\) 'lambda_' for method 'lord\\+\\+'; its options are "
                                        "alpha, gammai, spending, w0"):
        sr.online_fdr(P, "lord++", lambda_=0.5)
    with pytest.raises(TypeError, match="cannot be combined with a Policy instance"):
        sr.online_fdr(P, LORDPlusPlus(), alpha=0.1)
    with pytest.raises(ValueError, match=r"alpha must lie in \(0, 1\)"):
        sr.online_fdr(P, "saffron", alpha=1.5)
    with pytest.raises(ValueError, match="w0 must be at most alpha"):
        sr.online_fdr(P, "lord++", alpha=0.05, w0=0.1)
