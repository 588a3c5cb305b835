"""Screen, then confirm: a lenient streamwise search, then one test of every candidate
against the model it found (``method="screen-confirm"``).

Why.  A streamwise test of a true term is made against the model of the moment.  Early in a
stream that model lacks the other true terms, whose effects inflate the residual variance
(or, for a GLM, the dispersion), so at the small levels that keep false selections rare a
true term that arrives early is missed, and one that arrives after its peers is found
(bench_power problem D: 10 signals in 1e5 candidates, n 200, power 0.77 at
``w0 = alpha_delta = 0.05`` over three passes, against 1.0 for abess).

How.  (1) *Screen*: the streamwise search under alpha-investing with a large initial wealth
(``screen_w0``, default 1: about one false entry per stream under no signal) and the
confirmation's payout, spending uniform over its passes; its model ``S`` holds most true
terms and a few false ones.  (2) *Confirm*: every candidate is tested once against ``S`` --
a candidate outside ``S`` by the search's own test of adding it to ``S``, a term of ``S`` by
the same test of adding it to ``S`` without it (a drop-one test) -- and alpha-investing
with wealth ``w0`` and payout ``alpha_delta``, spread evenly over these tests, decides in
stream order.  No test changes the model, so the tests are computed in blocks first and the
rule runs over them.  The selected terms are those the confirmation accepts.

What it guarantees.  The confirmation is an alpha-investing run, so mFDR <= ``alpha_delta``
holds when each null test is super-uniform given the earlier ones.  Here the tests are made
against a model chosen from the same data, which makes that condition approximate: the
screened false terms were chosen for their fit, and they lower the residual variance every
test uses.  ``bench/bench_null_glm.py`` measures the realised false selections by Monte Carlo.
Streams that cannot be read twice (generators, Dask) get the confirmation's rule alone, in
one phase, as the streamwise default does.
"""
from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from ..models.base import TESTED, CandidateBlock, CandidateValues
from ..models.protocol import ModelState
from ..models.robust_score import robust_score_block
from ..outcomes import TestOutcomes
from ..policies.decide import run_rule
from ..policies.investing import AlphaInvesting
from ..streams.base import AcceptedTerm, Stream, term_columns
from ..streams.passes import PassesStream, arrange_streams
from ..validators import NUMBER
from .history import ACCEPTED, REJECTED, HistoryRecorder
from .options import HISTORY_MODES, SearchOptions
from .result import SELECTED_COLUMNS, SearchResult, stream_counts_table
from .streamwise import _search

__all__ = ["ConfirmingInvesting", "ScreenConfirm"]

#: the status of a screening entry in the history (the confirmation decides whether it stays)
SCREENED_LABEL = "screened in"


class ConfirmingInvesting(AlphaInvesting):
    """Alpha-investing as the confirmation of ``method="screen-confirm"`` runs it (uniform
    spending over the confirmation's tests), with the screening's initial wealth.

    Parameters
    ----------
    w0 : float, default 0.05
        Initial wealth of the confirmation.
    alpha_delta : float, default 0.05
        Payout of an acceptance (screening and confirmation); the mFDR level.
    screen_w0 : float, default 1.0
        Initial wealth of the screening search, in (0, 1].

    Examples
    --------
    >>> ConfirmingInvesting()
    screen-confirm(w0=0.05, alpha_delta=0.05, screen_w0=1.0)
    """

    name = "screen-confirm"
    OPTION_KINDS = {"w0": (NUMBER,), "alpha_delta": (NUMBER,), "screen_w0": (NUMBER,)}

    def __init__(self, w0: float = 0.05, alpha_delta: float = 0.05, screen_w0: float = 1.0):
        super().__init__(w0=w0, alpha_delta=alpha_delta, spending="uniform")
        self.screening = AlphaInvesting(w0=screen_w0, alpha_delta=alpha_delta, spending="uniform")
        self.screen_w0 = screen_w0

    def parameters(self) -> dict:
        return {"w0": self.w0, "alpha_delta": self.alpha_delta, "screen_w0": self.screen_w0}

    def guarantee(self) -> str:
        eta = self.w0 / self.alpha_delta
        return (
            f"Screened by alpha-investing (w0 = {self.screen_w0:g}), then every candidate tested once against "
            f"the screened model and confirmed by alpha-investing: mFDR = E[V]/(E[R] + {eta:g}) <= "
            f"{self.alpha_delta:g} (V false, R all selections) when each null test is super-uniform given the "
            "earlier ones. The tests are made against a model chosen from the same data, so this holds "
            "approximately (bench/bench_null_glm.py measures it); with no signal, P(any selection) is about "
            f"w0 = {self.w0:g}."
        )


class ScreenConfirm:
    """The screen-then-confirm search (module docstring) as a ``method=``.

    Parameters
    ----------
    w0, alpha_delta, screen_w0 : float
        As :class:`ConfirmingInvesting`.

    Examples
    --------
    >>> import numpy as np, streamreg as sr
    >>> rng = np.random.default_rng(1)
    >>> X = rng.normal(size=(120, 300)); y = X[:, [5, 50, 250]].sum(axis=1) + rng.normal(size=120)
    >>> sr.select(y, X, method="screen-confirm").selected_terms
    ['x5', 'x50', 'x250']
    """

    history_modes: tuple[str, ...] = HISTORY_MODES
    multipass = True
    reads_lazily = True
    takes_decoys = False
    OPTION_KINDS = ConfirmingInvesting.OPTION_KINDS

    def __init__(self, w0: float = 0.05, alpha_delta: float = 0.05, screen_w0: float = 1.0):
        self.policy = ConfirmingInvesting(w0=w0, alpha_delta=alpha_delta, screen_w0=screen_w0)

    @property
    def name(self) -> str:
        return self.policy.name

    @property
    def rule(self) -> ConfirmingInvesting:
        return self.policy

    def spawn(self) -> ScreenConfirm:
        return ScreenConfirm(**self.policy.parameters())

    def check_family(self, family: Any) -> None:
        return None

    def run(self, state: ModelState, streams: Sequence[Stream], *, fixed: np.ndarray | None = None,
            family: Any = None, options: SearchOptions) -> SearchResult:
        arranged = arrange_streams(list(streams), multistream=options.multistream, passes=options.passes,
                                   lazy_passes=options.lazy_passes, hold_last=True)
        held = all(isinstance(s, PassesStream) and s.hold_last for s in arranged)
        why = ("the streams cannot be read twice" if not held or fixed is None or not hasattr(state, "refit")
               else "a stopping rule (max_tests, max_selected, time_budget) may end the screening early"
               if options.has_stopping_rule else "")
        if why:  # the confirmation's rule alone, in one phase
            arranged = arrange_streams(list(streams), multistream=options.multistream, passes=options.passes,
                                       lazy_passes=options.lazy_passes)
            one = AlphaInvesting(w0=self.policy.w0, alpha_delta=self.policy.alpha_delta, spending="uniform")
            result = _search(state, arranged, one, options)
            result.passes = max(getattr(s, "passes", 1) for s in arranged)
            result.confirmation = f"none: {why}, so one phase ran under the confirmation's rule"
            return result
        assert fixed is not None  # "why" is set without it
        screened = _search(state, arranged, self.policy.screening, options)
        return _confirm(state, screened, [s for s in arranged if isinstance(s, PassesStream)], self.policy,
                        fixed, options)

    def __repr__(self) -> str:
        return f"ScreenConfirm({self.policy!r})"


def _confirming_test(state: Any, block: CandidateValues) -> tuple[TestOutcomes, np.ndarray]:
    """The confirmation's test of ``block`` against ``state``: the search's own, except for the
    families tested with an estimated dispersion, which get the robust score test
    (:mod:`streamreg.models.robust_score`): the screened model is chosen from the same counts,
    and its terms can fit a few extreme counts, which shrinks the Pearson dispersion."""
    if getattr(state, "test", "") == "score-f":
        return robust_score_block(state, block)
    return state.score_block(block)


def _drop_one(state: Any, fixed: np.ndarray, screened: list[AcceptedTerm], term: AcceptedTerm) -> TestOutcomes | None:
    """The test of adding ``term`` to the screened model without it (None when that model cannot be fitted)."""
    others = [t.values for t in screened if t is not term]
    try:
        reduced = state.refit(fixed, others)
    except ValueError:
        return None
    values = np.asarray(term.values, dtype=float).reshape(len(term.values), -1)
    outcomes, codes = _confirming_test(reduced, CandidateBlock(values, np.array([values.shape[1]])))
    return outcomes if codes[0] == TESTED else None


def _confirm(state: ModelState, screened: SearchResult, streams: list[PassesStream], template: ConfirmingInvesting,
             fixed: np.ndarray, options: SearchOptions) -> SearchResult:
    """Test every candidate against the screened model (the state as the screening left it) and
    let the confirming rule decide; the result reports both phases."""
    in_model = screened.accepted
    pass_no = max(s.passes for s in streams) + 1
    rec = HistoryRecorder(keep=options.history)
    terms: list[AcceptedTerm] = []
    rows: list[dict] = []
    policies, tested, final_wealth, initial = {}, [], [], {}
    test_no = screened.n_tests
    for stream in streams:
        tests = _stream_tests(state, fixed, in_model, stream)
        policy = template.spawn()
        policy.start(n_obs=state.n, share=1.0 / len(streams), n_candidates=len(tests), horizon=len(tests))
        initial[stream.name] = policy.wealth
        if tests.outcomes is not None:
            o = tests.outcomes
            level, accept = run_rule(policy, o)
            log_p = o.log_p
            # the stream's own test count runs on from its screening tests, as over passes
            screened_tests = getattr(screened.policies.get(stream.name), "n_tested", 0)
            rec.add(stream.name, tests.names, test=test_no + 1 + np.arange(len(tests)),
                    stream_test=screened_tests + 1 + np.arange(len(tests)), statistic=o.statistic,
                    df=o.df, df_resid=o.df_resid, log_p=log_p, level=level,
                    status=np.where(accept, int(ACCEPTED), int(REJECTED)), pass_=pass_no)
            for i in np.flatnonzero(accept):
                term = tests.term(int(i))
                terms.append(term)
                rows.append(_row(term.name, stream.name, test_no + 1 + int(i), screened_tests + 1 + int(i), o.take([int(i)]),
                                 float(log_p[i]), float(level[i])))
        test_no += len(tests)
        policies[stream.name] = policy
        tested.append(policy.n_tested)
        final_wealth.append(policy.wealth)
    names = [s.name for s in streams]
    result = SearchResult(
        history=partial(_both_phases, screened, rec, getattr(state, "log_pvalue", None)),
        accepted=terms,
        selected=partial(pd.DataFrame, [dict(r, order=i + 1) for i, r in enumerate(rows)], columns=list(SELECTED_COLUMNS)),
        policies=policies,
        stream_names=names,
        n_tests=test_no,
        stopped_by=screened.stopped_by,
        elapsed=screened.elapsed,
        per_stream=partial(stream_counts_table, names, tested, [t.stream for t in terms], final_wealth),
        history_mode=options.history,
        initial_wealth=initial,
    )
    result.passes = pass_no
    result.confirmation = (f"{len(in_model)} term(s) screened in over {pass_no - 1} pass(es); "
                           f"{len(terms)} confirmed in a confirmation pass of {test_no - screened.n_tests} tests")
    return result


class _StreamTests:
    """One stream's confirmation tests in stream order: its screened terms' drop-one tests at their
    places among its other candidates' tests against the screened model."""

    def __init__(self, outcomes: TestOutcomes | None, names: list[str], sources: list[tuple[Any, int]]):
        self.outcomes, self.names, self.sources = outcomes, names, sources

    def __len__(self) -> int:
        return len(self.names)

    def term(self, i: int) -> AcceptedTerm:
        """The term of test ``i``: a screened term as it entered, or a candidate re-read."""
        source, j = self.sources[i]
        if isinstance(source, AcceptedTerm):
            return source
        tb = source
        spec = None if tb.specs is None else tb.specs[j]
        return AcceptedTerm(name=tb.names[j], stream=tb.stream, values=tb.block.term(j).copy(),
                            columns=term_columns(tb.names, tb.columns, j), spec=spec)


def _stream_tests(state: ModelState, fixed: np.ndarray, in_model: list[AcceptedTerm],
                  stream: PassesStream) -> _StreamTests:
    parts: list[TestOutcomes] = []
    names: list[str] = []
    sources: list[tuple[Any, int]] = []
    places: list[np.ndarray] = []
    for t in in_model:
        if t.stream != stream.name:
            continue
        o = _drop_one(state, fixed, in_model, t)
        if o is None:
            continue
        parts.append(o)
        names.append(t.name)
        sources.append((t, 0))
        places.append(np.array([t.extra.get("position", -1)], dtype=float))
    for entry in stream.held():
        tb = stream.read(entry)
        out, codes = _confirming_test(state, tb.block)
        keep = np.flatnonzero(codes == TESTED)
        parts.append(out.take(keep))
        names.extend(tb.names[int(j)] for j in keep)
        sources.extend((tb, int(j)) for j in keep)
        places.append(np.full(len(keep), np.inf) if tb.positions is None else np.asarray(tb.positions, float)[keep])
    if not parts:
        return _StreamTests(None, [], [])
    # stream order where every place is known; the screened terms first otherwise
    where = np.concatenate(places)
    order = np.argsort(where, kind="stable") if np.isfinite(where).all() and (where >= 0).all() \
        else np.arange(len(where))
    outcomes = TestOutcomes.concatenate(parts).take(order)
    return _StreamTests(outcomes, [names[int(k)] for k in order], [sources[int(k)] for k in order])


def _row(name: str, stream: str, test: int, stream_test: int, o: TestOutcomes, log_p: float,
         level: float) -> dict:
    """The selected table's row of a confirmed term."""
    return {"term": name, "stream": stream, "test": test, "stream_test": stream_test, "statistic": float(o.statistic[0]),
            "df": int(o.df[0]), "pvalue": float(np.exp(log_p)), "level": level, "wealth": np.nan}


def _both_phases(screened: SearchResult, confirmation: HistoryRecorder, log_pvalue: Any) -> pd.DataFrame:
    """The screening's history (its entries marked "screened in") followed by the confirmation's."""
    first = screened.history.copy()
    entered = first["status"] == "accepted"
    status = first["status"].astype(object)
    status[entered] = SCREENED_LABEL
    first["status"] = status
    first["accepted"] = False
    second = confirmation.frame(log_pvalue)
    second["status"] = second["status"].astype(object)
    out = pd.concat([first, second], ignore_index=True)
    out["status"] = out["status"].astype("category")
    return out
