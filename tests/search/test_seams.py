"""The declared seams: model states, search methods and what the results read from a rule."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

import streamreg as sr
from streamreg.models import ComparableState, GaussianState, GLMState, make_state
from streamreg.models.base import SEPARATION, CandidateBlock
from streamreg.outcomes import TestOutcomes
from streamreg.policies import AlphaInvesting, Plan, Policy
from streamreg.search import (
    BPSFS,
    Grafting,
    SearchMethod,
    SearchOptions,
    Stepwise,
    Streamwise,
    resolve_method,
    streamwise_run,
    streamwise_search,
)
from streamreg.search.history import HistoryRecorder, Status
from streamreg.search.result import SELECTED_COLUMNS, SearchResult, per_stream_table
from streamreg.streams.arrays import MatrixStream
from streamreg.streams.base import AcceptedTerm


def _data(seed=0, n=90, p=24):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    y = X[:, 2] - 0.8 * X[:, 9] + 0.6 * X[:, 17] + rng.normal(size=n)
    return X, y


# ----------------------------------------------------------------------------- model states
class ProxyState:
    """A foreign backend: implements ComparableState by delegating, knows nothing of the drivers."""

    def __init__(self, inner):
        self.inner = inner
        self.y, self.n, self.test = inner.y, inner.n, inner.test
        self.calls = {"score_block": 0, "accept": 0, "refit": 0}

    @property
    def k(self):
        return self.inner.k

    def score_block(self, block):
        self.calls["score_block"] += 1
        return self.inner.score_block(block)

    def accept(self, values):
        self.calls["accept"] += 1
        return self.inner.accept(values)

    def log_pvalue(self, statistic, df, df_resid):
        return self.inner.log_pvalue(statistic, df, df_resid)

    def boundary_share(self):
        return self.inner.boundary_share()

    @property
    def loglik(self):
        return self.inner.loglik

    @property
    def exact_gain(self):
        return self.inner.exact_gain

    @property
    def llr_description(self):
        return self.inner.llr_description

    def llr_with(self, values):
        return self.inner.llr_with(values)

    def llr_over(self, smaller):
        return self.inner.llr_over(smaller.inner)

    def refit(self, fixed, terms):
        self.calls["refit"] += 1
        return ProxyState(self.inner.refit(fixed, terms))


@pytest.mark.parametrize("family", [None, "binomial"])
@pytest.mark.parametrize("method", ["alpha-investing", "bic", "stepwise-bic"])
def test_a_foreign_state_drives_every_search_to_the_same_decisions(method, family):
    X, y = _data(3)
    fam = sm.families.Binomial() if family else sm.families.Gaussian()
    if family:
        y = (y > 0).astype(float)
    fixed = np.ones((len(y), 1))
    extra = {"direction": "both"} if method.startswith("stepwise") else {}
    searcher = resolve_method(method, **extra)
    proxy = ProxyState(make_state(y, fixed, fam, None))
    names = [f"x{j}" for j in range(24)]
    streams = [MatrixStream("a", X[:, :12], names[:12]), MatrixStream("b", X[:, 12:], names[12:])]
    res = searcher.run(proxy, streams, fixed=fixed, family=fam, options=SearchOptions(block_size=5))
    frames = {s.name: pd.DataFrame(s.values, columns=s.names) for s in streams}
    ref = sr.select(y, frames, family=family or "gaussian", method=method, block_size=5, **extra)
    assert [t.name for t in res.accepted] == ref.selected_terms
    pd.testing.assert_frame_equal(res.selected, ref.selected)
    assert proxy.calls["score_block"] > 0 and proxy.calls["accept"] >= len(res.accepted)
    if method.startswith("stepwise"):  # removals compare refits of the reduced models
        assert proxy.calls["refit"] > 0


class SeparatingState(ProxyState):
    """A foreign backend whose every acceptance separates, at a chosen share of rows at the boundary."""

    def __init__(self, inner, share):
        super().__init__(inner)
        self.share = share

    def accept(self, values):
        self.calls["accept"] += 1
        return SEPARATION

    def boundary_share(self):
        return self.share


@pytest.mark.parametrize("share", [0.0, 0.9])
def test_the_separation_stop_reads_boundary_share_of_the_protocol(share, monkeypatch):
    """The driver stops after SEPARATION_STOP refusals only when the state says that most rows sit
    at the boundary (``ModelState.boundary_share``), whatever the backend."""
    monkeypatch.setattr(streamwise_run, "SEPARATION_STOP", 2)
    X, y = _data(3)
    state = SeparatingState(make_state(y, np.ones((len(y), 1)), sm.families.Gaussian(), None), share)
    res = streamwise_search(state, [MatrixStream("a", X, [f"x{j}" for j in range(24)])], AlphaInvesting())
    assert res.accepted == []
    if share > streamwise_run.EXHAUSTED_SHARE:
        assert res.stopped_by == "separation" and state.calls["accept"] == 2
    else:
        assert res.stopped_by == "exhausted" and state.calls["accept"] >= 3  # x2, x9 and x17 all refused


@pytest.mark.parametrize("state", [
    lambda y, f: GaussianState(y, f),
    lambda y, f: GLMState((y > 0).astype(float), f, sm.families.Binomial(), test="lr"),
])
def test_comparable_state_members_agree_with_the_block_scores(state):
    X, y = _data(1)
    fixed = np.ones((len(y), 1))
    st: ComparableState = state(y, fixed)
    assert st.exact_gain and st.k == 1 and st.n == len(y)
    out, _ = st.score_block(CandidateBlock(X[:, :4]))
    for j in range(4):
        llr, problem = st.llr_with(X[:, j])
        assert problem is None and llr == pytest.approx(out.llr[j], rel=1e-9, abs=1e-9)
    before = st.loglik
    refitted = st.refit(fixed, [X[:, [2]], X[:, [9]]])
    assert st.loglik == before and st.k == 1  # unchanged
    assert refitted.k == 3 and type(refitted) is type(st)
    st.accept(X[:, [2]])
    st.accept(X[:, [9]])
    assert refitted.loglik == pytest.approx(st.loglik, rel=1e-10)
    smaller = st.refit(fixed, [X[:, [2]]])  # the removal of x9: dispersion 1, so twice the loglik change
    assert st.llr_over(smaller) == pytest.approx(2 * (st.loglik - smaller.loglik), rel=1e-12)


def test_score_tests_are_not_exact_gains_and_llr_with_refits():
    X, y = _data(2)
    yb = (y > 0).astype(float)
    st = GLMState(yb, np.ones((len(y), 1)), sm.families.Binomial())
    assert not st.exact_gain
    llr, problem = st.llr_with(X[:, 2])
    lr = GLMState(yb, np.ones((len(y), 1)), sm.families.Binomial(), test="lr")
    assert problem is None and llr == pytest.approx(lr.score_block(CandidateBlock(X[:, [2]]))[0].llr[0])
    loglik_full = sm.GLM(yb, np.column_stack([np.ones(len(y)), X[:, 2]]), family=sm.families.Binomial()).fit().llf
    assert llr == pytest.approx(2 * (loglik_full - st.loglik), rel=1e-8)


def test_a_separating_candidate_is_refused_by_llr_with():
    rng = np.random.default_rng(0)
    n = 60
    yb = (rng.uniform(size=n) < 0.5).astype(float)
    sep = np.where(yb > 0, 1.0, -1.0) + 0.01 * rng.normal(size=n)
    st = GLMState(yb, np.ones((n, 1)), sm.families.Binomial())
    llr, problem = st.llr_with(sep)
    assert math.isnan(llr) and problem == "separation"


# ---------------------------------------------------------------------------- search methods
@pytest.mark.parametrize("method, kind", [
    ("alpha-investing", Streamwise), ("lord++", Streamwise), ("aic", Streamwise),
    ("stepwise-aic", Stepwise), ("stepwise_ric", Stepwise), ("grafting", Grafting), ("bp-sfs", BPSFS),
])
def test_every_method_is_a_search_method(method, kind):
    searcher = resolve_method(method)
    assert isinstance(searcher, SearchMethod) and type(searcher) is kind
    assert set(searcher.history_modes) <= {"full", "none"}
    rule = searcher.rule
    assert isinstance(rule.describe(), str) and isinstance(rule.guarantee(), str)
    assert isinstance(rule.parameters(), dict)


def test_a_policy_is_run_by_the_streamwise_driver_and_reported_as_itself():
    pol = AlphaInvesting(w0=0.05, alpha_delta=0.05)
    searcher = resolve_method(pol)
    assert isinstance(searcher, Streamwise) and searcher.rule is not pol  # a fresh copy per search
    assert searcher.rule.parameters() == pol.parameters()
    assert not isinstance(pol, SearchMethod)
    X, y = _data()
    fit = sr.select(y, X, method=pol)
    assert isinstance(fit.policy, AlphaInvesting) and fit.policy_description == pol.describe()


class FirstK:
    """A new search method, written against the protocol only: the first ``k`` candidates."""

    name = "first-k"
    history_modes = ("full",)
    multipass = False
    reads_lazily = True

    def __init__(self, k=2):
        self.k = k

    @property
    def rule(self):
        return self

    def spawn(self):
        return FirstK(self.k)

    def check_family(self, family):
        if not isinstance(family, sm.families.Gaussian):  # a wrong value, as the options report it
            raise ValueError("first-k is for the gaussian family")  # noqa: TRY004

    def parameters(self):
        return {"k": self.k}

    def describe(self):
        return f"first-k(k={self.k})"

    def guarantee(self):
        return "First-k controls nothing."

    def false_selection_estimate(self, n_selected, final_wealth):
        return None

    def run(self, state, streams, *, fixed, family, options):
        rec, accepted, rows = HistoryRecorder(), [], []
        block = streams[0].take(self.k)
        for j in range(len(block)):
            values = block.block.term(j).copy()
            state.accept(values)
            term = AcceptedTerm(name=block.names[j], stream=block.stream, values=values,
                                columns=block.column_names(j), spec=block.spec(j))
            accepted.append(term)
            rec.add_row(block.stream, term.name, test=j + 1, stream_test=j + 1, df=1, status=Status.ACCEPTED)
            rows.append({"order": j + 1, "term": term.name, "stream": term.stream, "test": j + 1,
                         "stream_test": j + 1, "statistic": np.nan, "df": 1, "pvalue": np.nan, "level": np.nan,
                         "wealth": np.nan})
        return SearchResult(history=rec.frame(), accepted=accepted,
                            selected=pd.DataFrame(rows, columns=list(SELECTED_COLUMNS)), policies={},
                            stream_names=[s.name for s in streams], n_tests=len(accepted), stopped_by="k",
                            elapsed=0.0, per_stream=per_stream_table(streams, [len(accepted)], accepted))


def test_a_new_search_method_plugs_in_through_the_protocol():
    X, y = _data()
    assert isinstance(FirstK(), SearchMethod)
    fit = sr.select(y, X, method=FirstK(3))
    assert fit.selected_terms == ["x0", "x1", "x2"]
    assert fit.policy_description == "first-k(k=3)" and "First-k controls nothing." in fit.guarantee()
    assert fit.false_selection_estimate() is None
    assert "first-k(k=3)" in str(fit.summary())
    with pytest.raises(ValueError, match="first-k is for the gaussian family"):
        sr.select((y > 0).astype(float), X, family="binomial", method=FirstK())
    with pytest.raises(ValueError, match="history='none' applies to the streamwise policies only"):
        sr.select(y, X, method=FirstK(), history="none")
    with pytest.raises(TypeError, match="options cannot be combined with a method instance"):
        sr.select(y, X, method=FirstK(), k=3)


# ------------------------------------------------------------- what the results read from a rule
class Budgeted(Policy):
    """A rule whose wealth parameter is called ``budget``: a fixed fraction of it per test."""

    name = "budgeted"

    def __init__(self, budget: float = 0.1, fraction: float = 0.2):
        self.budget, self.fraction = budget, fraction

    def _reset(self):
        self._w = self.budget * self.share

    @property
    def wealth(self):
        return self._w

    def plan(self, outcomes: TestOutcomes) -> Plan:
        m = len(outcomes)
        wealth = self._w * (1 - self.fraction) ** np.arange(1, m + 1)
        level = wealth / (1 - self.fraction) * self.fraction
        return Plan(accept=outcomes.log_p < np.log(level), level=level, wealth=wealth)

    def record(self, outcomes, n, last_accepted):
        self._w *= (1 - self.fraction) ** n
        self.n_tested += n
        self.n_accepted += int(bool(last_accepted and n))

    def parameters(self):
        return {"budget": self.budget, "fraction": self.fraction}

    def guarantee(self):
        return "Budgeted: a test rule for the tests."


def test_a_rule_with_other_parameter_names_starts_with_its_own_wealth():
    X, y = _data()
    fit = sr.select(y, {"a": X[:, :12], "b": X[:, 12:]}, method=Budgeted(budget=0.1))
    assert fit.search.initial_wealth == {"a": pytest.approx(0.05), "b": pytest.approx(0.05)}
    w = fit.wealth
    assert not w.isna().any().any()  # no silent NaN before a stream's first test
    first_b = int(fit.history.loc[fit.history["stream"] == "b", "test"].min())
    assert first_b > 1 and (w.loc[: first_b - 1, "b"] == 0.05).all()
    assert fit.false_selection_estimate() is None  # no w0 / alpha_delta: no investing estimate
    assert "Budgeted" in fit.guarantee()


def test_investing_rules_keep_their_estimate_and_starting_wealth():
    X, y = _data()
    fit = sr.select(y, {"a": X[:, :12], "b": X[:, 12:]}, w0=0.05, alpha_delta=0.05)
    assert fit.search.initial_wealth["a"] == pytest.approx(0.025)
    k = len(fit.selected)
    est = fit.false_selection_estimate()
    assert est == pytest.approx(0.05 * k + 0.05 - fit.per_stream["final_wealth"].sum())
    assert AlphaInvesting(w0=0.05, alpha_delta=0.05).false_selection_estimate(2, 0.1) == pytest.approx(0.05)


@pytest.mark.parametrize("method", ["stepwise-bic", "grafting", "bp-sfs"])
def test_methods_with_their_own_loop_do_not_imitate_policies(method):
    X, y = _data()
    fit = sr.select(y, X, method=method, **({"lam": 0.1} if method == "grafting" else {}))
    assert not hasattr(fit.policy, "share") and fit.search.policies == {}
    assert all(math.isnan(v) for v in fit.search.initial_wealth.values())
    assert fit.false_selection_estimate() is None
    assert fit.wealth.isna().all().all()
