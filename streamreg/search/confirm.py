"""Screen, then confirm: a lenient streamwise search, then one test of every candidate
against the model it found (``method="screen-confirm"``).

Why.  A streamwise test of a true term is made against the model of the moment.  Early in a
stream that model lacks the other true terms, whose effects inflate the residual variance
(or, for a GLM, the dispersion), so at the small levels that keep false selections rare a
true term that arrives early is missed, and one that arrives after its peers is found
(bench_power problem D: 10 signals in 1e5 candidates, n 200, power 0.77 at
``w0 = alpha_delta = 0.05`` over three passes, against 1.0 for abess).

How.  (1) *Screen*: the streamwise search under alpha-investing with a large initial wealth
(``screen_w0``) and the confirmation's payout, spending uniform over its passes; its model
``S`` holds most true terms and a few false ones.  (2) *Confirm*, every candidate tested
once, under alpha-investing with wealth ``w0`` and payout ``alpha_delta`` spread evenly over
these tests: first the terms of ``S``, last-entered first, each by the search's own test of
adding it to the terms of ``S`` still kept less itself (a rejected term leaves before the next
test, so of two near-copies the later leaves and the earlier is tested without it: a drop-one
test of each against all of ``S`` would reject both); then every other candidate, in stream
order, against the kept terms.  Those tests change no model, so they are computed in blocks
and the rule runs over them.  The selected terms are those the confirmation accepts.

What it guarantees.  The confirmation is an alpha-investing run, so mFDR <= ``alpha_delta``
holds when each null test is super-uniform given the earlier ones.  Here the tests are made
against a model chosen from the same data, which makes that condition approximate: the
screened false terms were chosen for their fit, and they lower the residual variance every
test uses.  ``bench/bench_null_glm.py`` measures the realised false selections by Monte Carlo.
Streams that cannot be read twice (generators, Dask) get the confirmation's rule alone, in
one phase, as the streamwise default does.
"""
from __future__ import annotations

import contextlib
from collections.abc import Sequence
from functools import partial
from typing import Any, cast

import numpy as np
import pandas as pd

from ..models.base import TESTED, CandidateBlock, CandidateValues
from ..models.protocol import ModelState
from ..models.robust_score import robust_score_block
from ..outcomes import TestOutcomes
from ..policies.decide import run_rule
from ..policies.investing import AlphaInvesting
from ..streams.base import AcceptedTerm, ScoredAt, Stream, term_columns
from ..streams.passes import Joined, PassesStream, Picked, arrange_streams
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
        Initial wealth of the screening search, in (0, 1] (``method=None`` uses 0.5).

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
            f"the screened model (its own terms by backward elimination) and confirmed by alpha-investing: mFDR = E[V]/(E[R] + {eta:g}) <= "
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
        why = ("a stream cannot be read twice (a generator, a Dask array, or interactions() growing from the "
               "model)" if not held or fixed is None or not hasattr(state, "refit")
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


def _drop_one(state: Any, fixed: np.ndarray, kept: list[AcceptedTerm],
              term: AcceptedTerm) -> tuple[TestOutcomes | None, Any]:
    """The test of adding ``term`` to the kept terms without it, and the model of those terms
    (None, None when that model cannot be fitted; None, model when the term is not testable)."""
    others = [t.values for t in kept if t is not term]
    try:
        reduced = state.refit(fixed, others, within=True)
    except ValueError:
        return None, None
    values = np.asarray(term.values, dtype=float).reshape(len(term.values), -1)
    outcomes, codes = _confirming_test(reduced, CandidateBlock(values, np.array([values.shape[1]])))
    return (outcomes if codes[0] == TESTED else None), reduced


def _confirm(state: ModelState, screened: SearchResult, streams: list[PassesStream], template: ConfirmingInvesting,
             fixed: np.ndarray, options: SearchOptions) -> SearchResult:
    """Confirm the screened terms by backward elimination, then test every other candidate against
    the confirmed model; each stream's rule decides its candidates.  The result reports both phases.

    The screened terms are tested last-entered first, each against the screened terms still kept
    less itself, and a rejected one leaves the model before the next test: of two near-copies (a
    radius and a perimeter) the later-entered is tested against the earlier and leaves, and the
    earlier is then tested without it.  The order is fixed by the screening, so every level is set
    before its test."""
    in_model = list(screened.accepted)
    pass_no = max(s.passes for s in streams) + 1
    rec = HistoryRecorder(keep=options.history)
    held = {s.name: s.held() for s in streams}  # read one block at a time below
    policies: dict[str, Any] = {}
    initial: dict[str, float] = {}
    for s in streams:
        n_tests = sum(t.stream == s.name for t in in_model) + sum(len(e) for e in held[s.name])
        policy = template.spawn()
        policy.start(n_obs=state.n, share=1.0 / len(streams), n_candidates=max(n_tests, 1), horizon=max(n_tests, 1))
        policies[s.name], initial[s.name] = policy, policy.wealth
    test_no = screened.n_tests
    # each stream's own test count runs on from its screening tests, as over passes
    stream_test = {n: int(getattr(screened.policies.get(n), "n_tested", 0)) for n in policies}
    kept = list(in_model)
    kept_rows: dict[int, dict] = {}  # the selected-table rows of the screened terms kept, by id
    last_drop: tuple[list[AcceptedTerm], Any] | None = None  # the terms kept after the last drop, and their model
    for term in reversed(in_model):  # backward elimination of the screened terms
        o, reduced = _drop_one(state, fixed, kept, term)  # kept: the screened terms not rejected so far
        if o is None or term.stream not in policies:
            continue
        wealth = np.empty(1)
        level, accept = run_rule(policies[term.stream], o, wealth=wealth)
        test_no += 1
        stream_test[term.stream] += 1
        log_p = o.log_p
        rec.add(term.stream, [term.name], test=test_no, stream_test=stream_test[term.stream], statistic=o.statistic,
                df=o.df, df_resid=o.df_resid, log_p=log_p, level=level, wealth=wealth,
                status=int(ACCEPTED if accept[0] else REJECTED), pass_=pass_no)
        if accept[0]:
            kept_rows[id(term)] = _row(term.name, term.stream, test_no, stream_test[term.stream], o, float(log_p[0]),
                                       float(level[0]), float(wealth[0]))
        else:
            kept = [t for t in kept if t is not term]
            last_drop = (kept, reduced)  # the test's own model is the model of the terms now kept
    kept = [t for t in kept if id(t) in kept_rows]  # untestable ones (no fit without them) leave too
    refit: Any = getattr(state, "refit")  # noqa: B009 -- checked in run(); ModelState does not declare it
    confirmed_model: Any = state  # kept when the kept terms have no fit (an identity link's means out of range)
    if last_drop is not None and [id(t) for t in last_drop[0]] == [id(t) for t in kept]:
        confirmed_model = last_drop[1]  # the same design in the same order: no second fit
    elif len(kept) < len(in_model):
        with contextlib.suppress(ValueError):
            confirmed_model = refit(fixed, [t.values for t in kept], within=True)
    terms, rows = list(kept), [kept_rows[id(t)] for t in kept]

    def reusable(scored: ScoredAt | None) -> bool:
        """Whether the last pass tested these candidates as the confirmation would: against the
        screened model itself (nothing left it, nothing entered since) with the search's own test."""
        return (scored is not None and confirmed_model is state and screened.model_token is not None
                and scored.token is screened.model_token and getattr(state, "test", "") != "score-f")

    score_kept = getattr(confirmed_model, "score_kept", None)

    def from_products(s: PassesStream, entry: Any) -> tuple[TestOutcomes, np.ndarray] | None:
        """The confirmation's tests of ``entry`` from the products its last test kept, when the
        confirmed model is nested in the screened one that test used (a least-squares backward
        elimination dropped terms): no pass over the candidates (None: read and score them)."""
        scored = entry.scored
        if (score_kept is None or confirmed_model is state or scored is None or scored.products is None
                or scored.token is not screened.model_token or getattr(state, "test", "") == "score-f"):
            return None
        return cast(tuple[TestOutcomes, np.ndarray] | None,
                    score_kept(state, scored.products, lambda: s.read(entry).block))

    for s in streams:  # every other candidate against the confirmed model, in stream order
        parts: list[TestOutcomes] = []
        # (held entry, position in it) of each test: blocks are re-read, not kept; the names
        # are picked lazily, as a million of them cost more to list than to test
        entry_of: list[np.ndarray] = []
        place_of: list[np.ndarray] = []
        picked: list[Sequence[str]] = []
        entries = held[s.name]
        for k, entry in enumerate(entries):
            if reusable(entry.scored):  # tested against this very model in the last pass: not read again
                assert entry.scored is not None
                out, keep = entry.scored.outcomes, np.arange(len(entry))
                names_k = entry.names
            elif (from_kept := from_products(s, entry)) is not None:
                keep = np.flatnonzero(from_kept[1] == TESTED)
                out, names_k = from_kept[0].take(keep), entry.names
            else:
                tb = s.read(entry)
                out, codes = _confirming_test(confirmed_model, tb.block)
                keep = np.flatnonzero(codes == TESTED)
                out, names_k = out.take(keep), tb.names
            parts.append(out)
            entry_of.append(np.full(keep.size, k))
            place_of.append(keep)
            picked.append(Picked(names_k, keep))
        if not sum(p.size for p in place_of):
            continue
        tested_names = Joined(picked)
        sources = np.column_stack([np.concatenate(entry_of), np.concatenate(place_of)])
        o = TestOutcomes.concatenate(parts)
        wealth = np.empty(len(o))
        level, accept = run_rule(policies[s.name], o, wealth=wealth)
        log_p = o.known_log_p()  # those the rule computed (the accepted ones among them); the history does the rest
        first = stream_test[s.name] + 1
        rec.add(s.name, tested_names, owned=True, test=test_no + 1 + np.arange(len(tested_names)),
                stream_test=first + np.arange(len(tested_names)),
                statistic=o.statistic, df=o.df, df_resid=o.df_resid, log_p=log_p, level=level, wealth=wealth,
                status=np.where(accept, int(ACCEPTED), int(REJECTED)), pass_=pass_no)
        for i in np.flatnonzero(accept):
            k, j = (int(v) for v in sources[int(i)])
            tb = s.read(entries[k])
            spec = None if tb.specs is None else tb.specs[j]
            place = {} if tb.positions is None else {"position": int(tb.positions[j])}
            terms.append(AcceptedTerm(name=tb.names[j], stream=s.name, values=tb.block.term(j).copy(),
                                      columns=term_columns(tb.names, tb.columns, j), spec=spec, extra=place))
            one = o.take([int(i)])
            rows.append(_row(tb.names[j], s.name, test_no + 1 + int(i), first + int(i), one,
                             float(log_p[i]) if np.isfinite(log_p[i]) else float(one.log_p[0]), float(level[i]),
                             float(wealth[i])))
        test_no += len(tested_names)
        stream_test[s.name] += len(tested_names)
    names = [s.name for s in streams]
    tested = [policies[n].n_tested for n in names]
    final_wealth = [policies[n].wealth for n in names]
    # the selected terms in the streams' order (the formula's) where every term has its place;
    # otherwise the screened ones in the order they entered, then the others in test order
    if all("position" in t.extra for t in terms):
        lane = {n: i for i, n in enumerate(names)}
        order = sorted(range(len(terms)), key=lambda i: (lane.get(terms[i].stream, len(lane)), terms[i].extra["position"]))
        terms, rows = [terms[i] for i in order], [rows[i] for i in order]
    result = SearchResult(
        history=partial(_both_phases, screened, rec, getattr(state, "log_pvalue", None), options.history == "full"),
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
    robust = " (robust score tests: Boos 1992)" if getattr(state, "test", "") == "score-f" else ""
    result.confirmation = (f"{len(in_model)} term(s) screened in over {pass_no - 1} pass(es); {len(kept)} of them "
                           f"kept by backward elimination, {len(terms) - len(kept)} more confirmed against them, in "
                           f"a confirmation pass of {test_no - screened.n_tests} tests{robust}")
    return result


def _row(name: str, stream: str, test: int, stream_test: int, o: TestOutcomes, log_p: float,
         level: float, wealth: float) -> dict:
    """The selected table's row of a confirmed term (``wealth``: the rule's after its test)."""
    return {"term": name, "stream": stream, "test": test, "stream_test": stream_test, "statistic": float(o.statistic[0]),
            "df": int(o.df[0]), "pvalue": float(np.exp(log_p)), "level": level, "wealth": wealth}


def _both_phases(screened: SearchResult, confirmation: HistoryRecorder, log_pvalue: Any, full: bool) -> pd.DataFrame:
    """The screening's history (its entries marked "screened in") followed by the confirmation's;
    with ``history="none"`` the confirmation's rows alone (a screening entry is neither selected nor
    refused: the confirmation decides it)."""
    first = screened.history.copy()
    if not full:
        first = first.iloc[0:0]
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
