"""A binomial search stops once candidate after candidate would separate the response.

Every refused candidate costs a refit and an exact linear programme; when ten in a row since
the last acceptance would separate the response, the selected terms leave no information for
more, and the search stops with ``stopped_by == "separation"``, said in the summary.
"""
from __future__ import annotations

import numpy as np

import streamreg as sr
from streamreg.search.streamwise import SEPARATION_STOP


def _separating_stream(n: int = 80, copies: int = 40, seed: int = 0):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=n)
    y = (z > 0).astype(float)
    # near-copies of the separating direction: each would pass the score test and separate y
    X = z[:, None] + 1e-3 * rng.normal(size=(n, copies))
    return X, y


def test_ten_separating_candidates_in_a_row_stop_the_search():
    X, y = _separating_stream()
    fit = sr.select(y, X, family="binomial", method="alpha-investing", passes=1)
    status = fit.history["status"].astype(str)
    assert fit.stopped_by == "separation"
    assert fit.selected_terms == []
    assert int(status.str.startswith("refused: separation").sum()) == SEPARATION_STOP
    assert status.iloc[-1].startswith("refused: separation")  # it stopped right after the tenth
    assert len(fit.history) < X.shape[1]
    text = " ".join(fit.summary().as_text().split())
    assert "Stopped by: separation (10 candidates in a row would have separated the response" in text


def test_an_acceptance_resets_the_count():
    rng = np.random.default_rng(1)
    n = 300
    X = rng.normal(size=(n, 30))
    y = (rng.random(n) < 1 / (1 + np.exp(-X[:, 2]))).astype(float)
    fit = sr.select(y, X, family="binomial")
    assert fit.stopped_by == "exhausted" and "x2" in fit.selected_terms
