"""The summary's counts agree with the history: skipped candidates and re-offered tests are said."""
import numpy as np
import pandas as pd
import pytest
from one_phase import ONE_PHASE

import streamreg as sr
from streamreg.results.summary import selection_facts


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    d = pd.DataFrame(rng.normal(size=(80, 3)), columns=["x1", "x2", "x3"])
    d["xc"] = 1.0  # constant: skipped
    d["x12"] = d.x1 - d.x2  # collinear once x1 and x2 are in
    d["y"] = d.x1 + d.x2 + 0.5 * rng.normal(size=80)
    return d


def test_skipped_candidates_are_counted_by_reason(data):
    fit = sr.streamreg("y ~ stream(xc, x1, x2, x12, x3)", data, method="alpha-investing", w0=0.05, alpha_delta=0.05)
    status = fit.history.set_index("term")["status"]
    assert status["xc"] == "skipped: constant" and status["x12"] == "skipped: collinear with the current model"
    facts = dict(selection_facts(fit))
    assert facts["Candidates tested:"] == str(int((~status.str.startswith("skipped")).sum())) == "3"
    assert facts["Skipped, not tested:"] == "2 (1 constant, 1 collinear; see history)"
    assert "Skipped, not tested:  2 (1 constant, 1 collinear; see history)" in str(fit.summary())


def test_no_skip_line_when_nothing_was_skipped(data):
    fit = sr.streamreg("y ~ stream(x1, x2, x3)", data)
    assert "Skipped, not tested:" not in dict(selection_facts(fit))


def test_several_passes_count_tests_not_candidates(data):
    fit = sr.streamreg("y ~ stream(x1, x2, x3, x12)", data, passes=2, **ONE_PHASE)
    tests = len(fit.history[~fit.history["status"].astype(str).str.startswith("skipped")])
    tested_terms = fit.history.loc[~fit.history["status"].astype(str).str.startswith("skipped"), "term"]
    assert fit.history["pass"].max() == 2 and tests == 4 and tested_terms.nunique() == 3  # x3 tested twice
    facts = dict(selection_facts(fit))
    assert "Candidates tested:" not in facts
    assert facts["Tests (all passes):"] == f"{tests}, re-offers counted (2 passes)"


def test_history_none_still_says_tests_count_re_offers(data):
    full = sr.streamreg("y ~ stream(x1, x2, x3)", data, passes=2, **ONE_PHASE)
    none = sr.streamreg("y ~ stream(x1, x2, x3)", data, passes=2, **ONE_PHASE, history="none")
    assert full.search.n_tests == none.search.n_tests == 4  # x3 rejected twice
    assert dict(selection_facts(none))["Tests (all passes):"] == "4, re-offers counted (up to 2 passes)"
    assert dict(selection_facts(full))["Tests (all passes):"] == "4, re-offers counted (2 passes)"


def test_summary_says_what_each_interaction_stream_offers():
    rng = np.random.default_rng(5)
    df = pd.DataFrame(rng.normal(size=(300, 6)), columns=[f"x{j}" for j in range(6)])
    df["y"] = df.x1 + df.x4 + 3 * df.x1 * df.x5 + rng.normal(scale=0.3, size=300)
    fit = sr.streamreg("y ~ stream(x*) + interactions()", df, w0=0.25, alpha_delta=0.25)
    assert {"interactions[1]", "interactions[2]"} <= set(fit.per_stream.index)
    text = " ".join(str(fit.summary()).split())
    assert ("interactions[1]: products of two selected terms; interactions[2]: products of a selected term "
            "with an original candidate.") in text
    assert "products of a selected term" in " ".join(fit.summary2().as_text().split())
    named = sr.streamreg("y ~ stream(x*) + interactions(kind=3, name='pairs')", df, w0=0.25, alpha_delta=0.25)
    assert "pairs[3]: all pairwise products of the original candidates" in " ".join(str(named.summary()).split())
    plain = sr.streamreg("y ~ stream(x*)", df)
    assert "Interaction streams" not in str(plain.summary())
