"""A binomial search stops when its fit is nearly separated and candidate after candidate would
separate the response.

Every refused candidate costs a refit and an exact linear programme.  When the current fit has
most of its fitted probabilities at 0 or 1 and ten candidates since the last acceptance would
have separated the response, the selected terms leave no information for more: the search
stops with ``stopped_by == "separation"``, said in the summary.  A fit away from the boundary
keeps searching, however many candidates separate the response on their own.
"""
from __future__ import annotations

import numpy as np

import streamreg as sr
from streamreg.search import streamwise_run as streamwise
from streamreg.search.streamwise_run import EXHAUSTED_SHARE


def _nearly_separated(n: int = 200, copies: int = 40, seed: int = 0):
    """x0 nearly separates y (a few overlapping rows keep the MLE finite); each further column
    is the separating direction itself, so beside x0 it separates y completely."""
    rng = np.random.default_rng(seed)
    x0, e = rng.normal(size=n), rng.normal(size=n)
    z = x0 + 0.05 * e
    y = (z > 0).astype(float)
    X = np.column_stack([x0, z[:, None] + 1e-6 * rng.normal(size=(n, copies))])
    return X, y


def test_a_nearly_separated_fit_stops_after_the_separating_candidates(monkeypatch):
    # three refusals instead of ten keep the example small (the bids fall as refusals are charged)
    monkeypatch.setattr(streamwise, "SEPARATION_STOP", 3)
    X, y = _nearly_separated()
    fit = sr.select(y, X, family="binomial", method="alpha-investing", passes=1)
    status = fit.history["status"].astype(str)
    assert fit.selected_terms == ["x0"]
    mu = np.asarray(fit.fit.fittedvalues)
    assert np.mean(np.minimum(mu, 1 - mu) < 1e-4) > EXHAUSTED_SHARE
    assert fit.stopped_by == "separation"
    assert int(status.str.startswith("refused: separation").sum()) == 3
    assert status.iloc[-1].startswith("refused: separation")  # it stopped right after the tenth
    assert len(fit.history) < X.shape[1]
    text = " ".join(fit.summary().as_text().split())
    assert "Stopped by: separation (the fit is nearly separated and 10 candidates since the last acceptance" in text


def test_separating_candidates_do_not_stop_a_fit_away_from_the_boundary(monkeypatch):
    """An indicator seen only with y = 1 is refused; the intercept-only fit is far from the
    boundary, so the search goes on (even with a stop after a single refusal) and finds the
    real signal at the end."""
    monkeypatch.setattr(streamwise, "SEPARATION_STOP", 1)
    rng = np.random.default_rng(3)
    n = 400
    signal = rng.normal(size=n)
    y = (rng.random(n) < 1 / (1 + np.exp(-1.5 * signal))).astype(float)
    ones = np.flatnonzero(y == 1)
    indicators = np.zeros((n, 12))
    for j in range(12):
        indicators[rng.choice(ones, 2, replace=False), j] = 1.0
    X = np.column_stack([indicators, rng.normal(size=(n, 300)), signal])
    fit = sr.select(y, X, family="binomial", method="alpha-investing", passes=1)
    refused = fit.history["status"].astype(str).str.startswith("refused: separation").sum()
    assert refused >= 1
    assert fit.stopped_by == "exhausted" and f"x{X.shape[1] - 1}" in fit.selected_terms
