"""One history for every driver, and options validated once (issue 12, items 2 and 5)."""
from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd
import pytest

import streamreg as sr
from streamreg.config import check_options
from streamreg.models import GaussianState
from streamreg.policies import AlphaInvesting
from streamreg.search import (
    BPSFS,
    Grafting,
    SearchOptions,
    Stepwise,
    method_names,
    resolve_method,
    streamwise_search,
)
from streamreg.search.history import COLUMNS, LABELS, HistoryRecorder, Status
from streamreg.streams.arrays import MatrixStream


def _data(seed=0, n=80, p=20):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    y = X[:, 1] - X[:, 6] + 0.5 * rng.normal(size=n)
    return X, y


#: every name ``method=`` knows, policies and methods with their own loop
ALL_METHODS = method_names()


# ------------------------------------------------------------------------------- options
@pytest.mark.parametrize("method", ALL_METHODS)
def test_block_size_zero_is_refused_by_name_for_every_method(method):
    X, y = _data()
    df = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])]).assign(y=y)
    with pytest.raises(ValueError, match=r"^block_size must be a positive integer, got 0$"):
        sr.select(y, X, method=method, block_size=0)
    with pytest.raises(ValueError, match=r"^block_size must be a positive integer, got 0$"):
        sr.streamreg("y ~ stream(x*)", df, method=method, block_size=0)


@pytest.mark.parametrize("method", ["alpha-investing", "stepwise-bic", "grafting", "bp-sfs"])
def test_search_options_are_what_every_method_runs_with(method):
    X, y = _data()
    searcher = resolve_method(method)
    with pytest.raises(ValueError, match="block_size must be a positive integer, got 0"):
        searcher.run(GaussianState(y, np.ones((len(y), 1))), [MatrixStream("s", X, [f"x{j}" for j in range(20)])],
                     fixed=np.ones((len(y), 1)), family=None, options=SearchOptions(block_size=0))


def test_search_options_are_frozen_and_normalised():
    opts = SearchOptions(max_tests=math.inf, time_budget=math.inf, max_selected=3)
    assert opts.max_tests is None and opts.time_budget is None and opts.max_selected == 3
    assert opts.has_stopping_rule and not SearchOptions().has_stopping_rule
    with pytest.raises(dataclasses.FrozenInstanceError):
        opts.block_size = 1  # type: ignore[misc]
    for bad, exc, msg in [({"max_tests": -1}, ValueError, "max_tests must be an integer >= 0"),
                          ({"max_selected": 2.5}, TypeError, "max_selected must be an integer >= 0"),
                          ({"time_budget": 0}, ValueError, "time_budget must be a positive number"),
                          ({"verbose": "yes"}, TypeError, "verbose must be True, False"),
                          ({"history": "some"}, ValueError, "history must be 'full' or 'none'"),
                          ({"passes": 0}, ValueError, "passes must be a positive integer"),
                          ({"multistream": "no"}, TypeError, "multistream must be True or False")]:
        with pytest.raises(exc, match=msg):
            SearchOptions(**bad)


def test_check_options_builds_the_method_and_its_search_options():
    opts = check_options(method="stepwise-aic", block_size=64, max_selected=math.inf, method_options={"m": None})
    assert isinstance(opts.method, Stepwise) and opts.method.rule is opts.method
    assert opts.search == SearchOptions(block_size=64) and opts.unlimited
    with pytest.raises(ValueError, match="passes= applies to streamwise policies, not to method 'grafting'"):
        check_options(method="grafting", passes=2)


def test_streamwise_search_keeps_its_keyword_options_and_their_messages():
    X, y = _data()
    streams = [MatrixStream("s", X, [f"x{j}" for j in range(20)])]
    with pytest.raises(ValueError, match="block_size must be a positive integer, got 0"):
        streamwise_search(GaussianState(y, np.ones((len(y), 1))), streams, AlphaInvesting(), block_size=0)
    with pytest.raises(ValueError, match="history must be 'full' or 'none'"):
        streamwise_search(GaussianState(y, np.ones((len(y), 1))), streams, AlphaInvesting(), history="rows")


@pytest.mark.parametrize("make, msg", [
    (lambda: Stepwise(exact_top=0), "exact_top must be a positive integer or None, got 0"),
    (lambda: Stepwise(max_steps=-1), "max_steps must be a non-negative integer or None, got -1"),
    (lambda: Grafting(lambda_ratio=1.0), r"lambda_ratio must be in \(0, 1\), got 1.0"),
    (lambda: Grafting(n_lambdas=0), "n_lambdas must be a positive integer, got 0"),
    (lambda: Grafting(k_max=0), "k_max must be a positive integer, got 0"),
    (lambda: Grafting(rbf_width=0.0), "rbf_width must be a positive number, got 0.0"),
    (lambda: Grafting(max_rejections=0), "max_rejections must be a positive integer or None"),
    (lambda: BPSFS(max_reentries=0), "max_reentries must be a positive integer or None"),
    (lambda: BPSFS(lambda0=math.inf), "lambda0 must be a finite non-negative number"),
])
def test_method_parameters_use_the_shared_validators(make, msg):
    with pytest.raises(ValueError, match=msg):
        make()


# ------------------------------------------------------------------------------- history
@pytest.mark.parametrize("method, options", [
    ("alpha-investing", {}), ("bic", {}), ("stepwise-aic", {"direction": "both"}), ("grafting", {"lam": 0.1}),
    ("bp-sfs", {}),
])
def test_every_driver_writes_the_same_history_columns(method, options):
    X, y = _data(1)
    h = sr.select(y, X, method=method, **options).history
    assert tuple(h.columns[: len(COLUMNS)]) == COLUMNS
    assert list(h["status"].cat.categories) == list(LABELS.values())
    assert str(h["test"].dtype) == "Int64" and str(h["stream_test"].dtype) == "Int64"
    assert h["df"].dtype == np.int64 and h["pass"].dtype == np.int64
    assert (h["accepted"] == h["status"].isin(["accepted", "re-entered from the pool"])).all()


def test_stepwise_history_has_its_step_in_its_own_column():
    X, y = _data(3)
    h = sr.select(y, X, method="stepwise-bic").history
    assert list(h.columns[len(COLUMNS):]) == ["step", "action", "criterion_change", "model_size"]
    assert (h["pass"] == 1).all()  # every candidate is read once
    assert list(h["step"]) == list(range(1, len(h) + 1))
    assert (h["test"].astype(int) == h["step"]).all()


def test_recorder_keeps_block_rows_and_single_rows_in_order():
    rec = HistoryRecorder(extra=("note",))
    rec.add_row("s", "a", test=1, stream_test=1, statistic=2.0, df=1, status=Status.ACCEPTED, note="first")
    rec.add("s", ["b", "c"], test=np.array([2, -1]), stream_test=np.array([2, -1]), statistic=np.array([1.0, np.nan]),
            df=1, log_p=np.array([np.nan, np.nan]), status=np.array([Status.REJECTED, Status.COLLINEAR]),
            note="block")
    rec.add_row("t", "d", df=2, status=Status.PRUNED, pvalue=0.5, log_p=-1.0, note="last")
    h = rec.frame(lambda s, d, r: np.full(len(s), -3.0))
    assert list(h["term"]) == ["a", "b", "c", "d"] and list(h["stream"]) == ["s", "s", "s", "t"]
    assert list(h["status"].astype(str)) == ["accepted", "rejected", LABELS[Status.COLLINEAR],
                                             "pruned (weights reached 0)"]
    assert list(h["note"]) == ["first", "block", "block", "last"]
    # deferred p-values only for tested rows; a given p-value is kept as given
    np.testing.assert_allclose(h["log_p"], [-3.0, -3.0, np.nan, -1.0])
    np.testing.assert_allclose(h["pvalue"], [math.exp(-3.0), math.exp(-3.0), np.nan, 0.5])
    assert h["test"].isna().tolist() == [False, False, True, True]
    assert rec.n_rows == 4 and rec.last_pass() == 1


def test_status_codes_are_the_model_states_skip_codes():
    from streamreg.models.base import (
        COLLINEAR,
        CONSTANT,
        NO_DF,
        REFUSAL_REASONS,
        SKIP_REASONS,
    )

    for code in (COLLINEAR, CONSTANT, NO_DF):
        assert Status(code).label == SKIP_REASONS[code]
    for reason, text in REFUSAL_REASONS.items():
        assert Status.refusal(reason).label == text
