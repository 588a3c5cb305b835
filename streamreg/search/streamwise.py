"""The streamwise search: candidates tested one at a time, in stream order, under a wealth rule.

One stream is Fig. 4 of Zhou et al. (2006); several are Alg. 2 of Dhillon, Foster and Ungar
(2010) (each stream its own
policy with an equal share of the initial wealth; the next test goes to the stream with
the largest priority ``w_j / i_j``, ties to the lowest index).

Each stream's pending candidates are scored as one block.  The policy then says where in
that block the first acceptance would fall if everything before it were rejected, and
how long the stream keeps the turn; everything up to that point is recorded at once.
Only an acceptance changes the model, and then the unconsumed candidates are rescored,
so the decisions are those of the one-at-a-time definition for any block size.

:class:`Streamwise` is this driver as a :class:`~streamreg.search.method.SearchMethod`;
:func:`streamwise_search` runs it with keyword options.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from ..models.base import SEPARATION, TESTED
from ..models.protocol import ModelState
from ..models.scale import too_large
from ..options import HISTORY_MODES, SearchOptions
from ..outcomes import TestOutcomes, reported_statistic
from ..policies.base import Policy
from ..progress import SearchProgress
from ..streams.base import AcceptedTerm, Stream, TermBlock
from ..streams.passes import arrange_streams
from .history import Deferred, HistoryRecorder, Status
from .result import SELECTED_COLUMNS, SearchResult, check_streams, stream_counts_table

__all__ = ["SearchResult", "Streamwise", "streamwise_search"]


class Streamwise:
    """The streamwise search under a policy, as ``method=`` resolves a wealth rule.

    Parameters
    ----------
    policy : Policy
        A template; each stream gets ``policy.spawn()`` with a ``1/k`` wealth share.

    Examples
    --------
    >>> from streamreg.policies import AlphaInvesting
    >>> Streamwise(AlphaInvesting(w0=0.05, alpha_delta=0.05)).rule
    alpha-investing(w0=0.05, alpha_delta=0.05)
    """

    history_modes: tuple[str, ...] = HISTORY_MODES
    multipass = True
    reads_lazily = True

    def __init__(self, policy: Policy):
        self.policy = policy

    @property
    def name(self) -> str:
        return self.policy.name

    @property
    def rule(self) -> Policy:
        """The policy, whose description and guarantee the results report."""
        return self.policy

    def spawn(self) -> Streamwise:
        return Streamwise(self.policy.spawn())

    def check_family(self, family: Any) -> None:
        return None  # every model state serves every policy

    def run(self, state: ModelState, streams: Sequence[Stream], *, fixed: np.ndarray | None = None,
            family: Any = None, options: SearchOptions) -> SearchResult:
        """Arrange the streams (``multistream``, ``passes``) and search them; see :func:`streamwise_search`."""
        arranged = arrange_streams(list(streams), multistream=options.multistream, passes=options.passes,
                                   lazy_passes=options.lazy_passes)
        result = _search(state, arranged, self.policy, options)
        result.passes = max(getattr(s, "passes", 1) for s in arranged)  # lazy streams may get fewer
        return result

    def __repr__(self) -> str:
        return f"Streamwise({self.policy!r})"


@dataclass
class _Lane:
    """A stream with its policy and its scored, not yet consumed candidates."""

    index: int
    stream: Stream
    policy: Policy
    size: int = 512
    buffer: TermBlock | None = None
    outcomes: TestOutcomes | None = None
    codes: np.ndarray | None = None


def streamwise_search(
    model: ModelState,
    streams: list[Stream],
    policy: Policy,
    *,
    block_size: int = 512,
    max_tests: int | None = None,
    max_selected: int | None = None,
    time_budget: float | None = None,
    verbose: bool | int = False,
    history: str = "full",
) -> SearchResult:
    """Run the streamwise search of ``streams`` against ``model`` under ``policy``.

    Parameters
    ----------
    model : ModelState
        The current fit; updated in place as terms are accepted.
    streams : list of Stream
        Searched as given (names must be unique).
    policy : Policy
        A template; each stream gets ``policy.spawn()`` with a ``1/k`` wealth share.
    block_size : int
        Candidates scored together at first; a stream without acceptances gets blocks
        twice as large each time (up to about 64 MB).  Affects speed only, never the
        decisions.
    max_tests, max_selected, time_budget
        Stopping rules for long or infinite streams (tests, selected terms, seconds).
    verbose : bool or int
        A progress bar on stderr (tests, selected terms, total wealth): ``True`` refreshes it
        at most ten times a second, an integer every ``verbose`` tests.
    history : {"full", "none"}
        ``"full"``: one history row per candidate examined (about 80 bytes each).
        ``"none"``: only the rows of accepted and refused candidates, so memory does not
        grow with the number of tests on long or infinite streams.  The selected table,
        the per-stream counts and the decisions are the same either way.

    The options are validated by :class:`~streamreg.options.SearchOptions`.
    """
    options = SearchOptions(block_size=block_size, max_tests=max_tests, max_selected=max_selected,
                            time_budget=time_budget, verbose=verbose, history=history)
    return _search(model, streams, policy, options)


def _search(model: ModelState, streams: Sequence[Stream], policy: Policy, options: SearchOptions) -> SearchResult:
    """The loop (options already validated), with its progress bar (``verbose``), closed however it ends."""
    sizes = [s.horizon for s in streams]  # every pass counts: re-offers are tests too
    total = None if any(m is None for m in sizes) else sum(m for m in sizes if m is not None)
    if total is not None and options.max_tests is not None:
        total = min(total, options.max_tests)
    with SearchProgress(options.verbose, total=total, desc=policy.name) as bar:
        return _search_loop(model, streams, policy, options, bar)


def _search_loop(model: ModelState, streams: Sequence[Stream], policy: Policy, options: SearchOptions,
                 bar: SearchProgress) -> SearchResult:
    check_streams(streams)
    names = [s.name for s in streams]
    if len(set(names)) != len(names):
        raise ValueError(f"stream names must be unique, got {names}")
    block_size, max_tests, max_selected = options.block_size, options.max_tests, options.max_selected
    time_budget, history = options.time_budget, options.history
    max_block = max(block_size, (8 << 20) // max(model.n, 1))
    k = len(streams)
    lanes = []
    initial_wealth = {}
    for j, s in enumerate(streams):
        p = policy.spawn()
        horizon = s.horizon if max_tests is None or s.horizon is None else min(s.horizon, max_tests)
        p.start(n_obs=model.n, share=1.0 / k, n_candidates=s.n_candidates, horizon=horizon)
        initial_wealth[s.name] = p.wealth  # as the rule reports it, whatever its parameters are called
        lanes.append(_Lane(j, s, p, size=block_size))

    rec = HistoryRecorder(keep=history)
    full = history == "full"
    accepted: list[AcceptedTerm] = []
    selected_rows: list[dict] = []
    n_tests, stopped_by = 0, "exhausted"
    separating = 0  # candidates refused for separation since the last acceptance
    t0 = time.monotonic()

    # priorities of lanes holding candidates (-inf otherwise), kept up to date incrementally so
    # that choosing among many streams (e.g. 1000 feature clusters) is one argmax, not a loop
    prio = np.full(k, -np.inf)
    empty = set(range(k))  # lanes to (re)fill; dynamic streams stay here while they have nothing
    while True:
        for j in sorted(empty):
            lane = lanes[j]
            want = lane.size if max_tests is None else max(1, min(lane.size, max_tests - n_tests))
            lane.buffer = lane.stream.take(want)
            lane.outcomes = None
            if lane.buffer is not None:
                # quiet streams get larger blocks (fewer, bigger BLAS calls), up to ~64 MB
                lane.size = min(2 * lane.size, max_block)
                prio[j] = lane.policy.priority()
                empty.discard(j)
            elif lane.stream.exhausted:
                empty.discard(j)
        j = int(np.argmax(prio))  # the first maximum, i.e. the lowest index on ties
        if prio[j] == -np.inf:
            break
        if max_tests is not None and n_tests >= max_tests:
            stopped_by = "max_tests"
            break
        if max_selected is not None and len(accepted) >= max_selected:
            stopped_by = "max_selected"
            break
        if time_budget is not None and time.monotonic() - t0 > time_budget:
            stopped_by = "time_budget"
            break

        lane = lanes[j]
        own, prio[j] = prio[j], -np.inf
        other_index = int(np.argmax(prio))
        best_other = prio[other_index]
        prio[j] = own
        buf = lane.buffer
        assert buf is not None  # only a lane with pending candidates has a finite priority
        if lane.outcomes is None or lane.codes is None:
            lane.outcomes, lane.codes = model.score_block(buf.block)
            _check_finite(lane.outcomes.statistic, buf, getattr(model, "y", None))
        scored, codes = lane.outcomes, lane.codes
        if (codes == TESTED).all():  # the usual case: nothing skipped, no copies
            tested_pos, outcomes = np.arange(len(codes)), scored
        else:
            tested_pos = np.flatnonzero(codes == TESTED)
            outcomes = scored.take(tested_pos)
        pol = lane.policy

        if len(tested_pos) == 0:
            if full:
                _record_skipped(rec, buf, codes, slice(0, len(buf)))
            lane.buffer = None
            prio[lane.index] = -np.inf
            empty.add(lane.index)
            continue

        plan = pol.plan(outcomes)
        run = len(tested_pos)
        if best_other > -np.inf:
            pr = pol.run_priorities(plan)
            keeps = (pr > best_other) | ((pr == best_other) & (lane.index < other_index))
            run = 1 + (int(np.argmin(keeps)) if not keeps.all() else len(keeps))
        if max_tests is not None:
            run = min(run, max_tests - n_tests)
        hits = np.flatnonzero(plan.accept[:run])
        accept_at = int(hits[0]) if hits.size else None
        n_used = run if accept_at is None else accept_at + 1
        end = int(tested_pos[n_used - 1]) + 1  # buffer positions consumed

        # rows for this run, in buffer order
        used_tested = tested_pos[:n_used]
        status = np.full(n_used, int(Status.REJECTED))
        reason = None
        # a long run of rejections under a rule with a schedule reports the levels and
        # wealths when the history is read; other runs take them now
        run_levels: tuple[np.ndarray, np.ndarray] | Callable[[], tuple[np.ndarray, np.ndarray]] | None = None
        if accept_at is None:
            if full and n_used >= _DEFER_LEVELS_FROM:
                run_levels = plan.head_later(n_used)
            if run_levels is None:
                run_levels = plan.head(n_used)
            pol.record(outcomes, n_used, last_accepted=False)
        else:
            level, wealth = plan.head(n_used)
            run_levels = (level, wealth)
            j = int(tested_pos[accept_at])
            term = AcceptedTerm(
                name=buf.names[j],
                stream=lane.stream.name,
                values=buf.block.term(j).copy(),
                columns=buf.column_names(j),
                spec=buf.spec(j),
            )
            reason = model.accept(term.values)
            pol.record(outcomes, n_used, last_accepted=reason is None)
            wealth[-1] = pol.wealth
            status[-1] = Status.ACCEPTED if reason is None else Status.refusal(reason)

        sub = outcomes.take(slice(0, n_used))
        lp = sub.known_log_p()  # those the policy computed; the history computes the rest when read
        if accept_at is not None and np.isnan(lp[-1]):
            lp = lp.copy()
            lp[-1] = float(model.log_pvalue(sub.statistic[-1:], sub.df[-1:], sub.df_resid[-1:])[0])
        first_test = pol.n_tested - n_used + 1
        if full or accept_at is not None:  # history="none" keeps only the accepted or refused row
            _record_run(rec, buf, codes, end, used_tested, sub, lp, run_levels, status,
                        first_global=n_tests + 1, first_stream=first_test)
        n_tests += n_used
        rejected = used_tested if accept_at is None else used_tested[:-1]  # the last one decided otherwise
        if rejected.size:
            lane.stream.on_rejected(buf, rejected)

        if accept_at is not None and reason is None:
            accepted.append(term)
            selected_rows.append(
                {
                    "order": len(accepted),
                    "term": term.name,
                    "stream": term.stream,
                    "test": n_tests,
                    "stream_test": pol.n_tested,
                    "statistic": float(reported_statistic(sub.statistic[-1:], sub.df[-1:], sub.df_resid[-1:])[0]),
                    "df": int(sub.df[-1]),
                    "pvalue": float(np.exp(lp[-1])),
                    "level": float(level[-1]),
                    "wealth": float(pol.wealth),
                }
            )
            lane.size = block_size
            for other in lanes:
                other.stream.on_accept(term)
                other.outcomes = None  # the model changed: rescore what is pending
        else:  # rejected, or refused (the model is unchanged): the rest keep their scores
            lane.outcomes = scored.take(slice(end, None))
            lane.codes = codes[end:]
        lane.buffer = buf.tail(end)
        if len(lane.buffer) == 0:
            lane.buffer = None
            prio[lane.index] = -np.inf
            empty.add(lane.index)
        else:
            prio[lane.index] = pol.priority()
        bar.update(n_tests, len(accepted), lambda: sum(ln.policy.wealth for ln in lanes))
        if accept_at is not None:
            separating = separating + 1 if reason == SEPARATION else 0 if reason is None else separating
            if separating >= SEPARATION_STOP and getattr(model, "boundary_share", lambda: 0.0)() > EXHAUSTED_SHARE:
                stopped_by = "separation"
                break

    bar.close(n_tests, len(accepted), lambda: sum(ln.policy.wealth for ln in lanes))
    # the tables are built on first access (pandas costs more than a small search); their
    # inputs are frozen here, as the policies and streams may be used again
    tested, final_wealth = [ln.policy.n_tested for ln in lanes], [ln.policy.wealth for ln in lanes]
    return SearchResult(
        history=partial(rec.frame, model.log_pvalue),
        accepted=accepted,
        selected=partial(pd.DataFrame, selected_rows, columns=list(SELECTED_COLUMNS)),
        policies={ln.stream.name: ln.policy for ln in lanes},
        stream_names=names,
        n_tests=n_tests,
        stopped_by=stopped_by,
        elapsed=time.monotonic() - t0,
        per_stream=partial(stream_counts_table, names, tested, [t.stream for t in accepted], final_wealth),
        history_mode=history,
        initial_wealth=initial_wealth,
    )


#: runs of rejections this long or longer report their levels and wealths when the history is
#: read (shorter ones cost less to compute than to defer)
_DEFER_LEVELS_FROM = 64
#: candidates refused since the last acceptance because their entry would separate the
#: response (exact LP test), after which the search stops if the current fit itself is nearly
#: separated (more than :data:`EXHAUSTED_SHARE` of its fitted means at the boundary): the
#: selected terms then leave no information for more (each refusal costs a refit and a linear
#: programme, hundreds of them on gisette); stopping never loosens the rule's guarantee.  A
#: model that is not near the boundary keeps searching: rare indicators can each separate the
#: response on their own while real signals wait further on.
SEPARATION_STOP = 10
EXHAUSTED_SHARE = 0.5


def _check_finite(statistic: np.ndarray, buf: TermBlock, y: np.ndarray | None = None) -> None:
    """A non-finite statistic: name the candidate with NaN or inf values, or else the scale at fault."""
    if np.isfinite(statistic).all():
        return
    j = int(np.flatnonzero(~np.isfinite(statistic))[0])
    name, values = buf.names[j], buf.block.term(j)
    if not np.isfinite(values).all():
        raise ValueError(f"stream {buf.stream!r}: candidate {name!r} contains NaN or infinite values; "
                         "drop or impute them before selection")
    # finite values, a non-finite statistic: sums of squares overflowed (beyond 1.8e308)
    cause = too_large("the response", y) or too_large(f"candidate {name!r}", values)
    raise ValueError(f"stream {buf.stream!r}: the test of candidate {name!r} overflowed floating point"
                     + (f": {cause}" if cause else "; rescale the response and the candidates"))


def _record_skipped(rec: HistoryRecorder, buf: TermBlock, codes: np.ndarray, sl: slice) -> None:
    idx = np.arange(len(buf))[sl]
    if idx.size == 0:
        return
    nan = np.nan
    rec.add(buf.stream, [buf.names[i] for i in idx], test=-1, stream_test=-1, statistic=nan,
            df=buf.block.widths[idx], df_resid=nan, log_p=nan, level=nan, wealth=nan,
            status=codes[idx], pass_=buf.pass_no)


def _record_run(rec: HistoryRecorder, buf: TermBlock, codes: np.ndarray, end: int, used_tested: np.ndarray,
                sub: TestOutcomes, lp: np.ndarray,
                run_levels: tuple[np.ndarray, np.ndarray] | Callable[[], tuple[np.ndarray, np.ndarray]],
                status: np.ndarray, *, first_global: int, first_stream: int) -> None:
    """History rows for buffer positions [0, end): tests in order, skips in between.

    ``run_levels``: the tests' levels and wealths, or a function giving them when the
    history is read.
    """
    n = end
    scatter = None if len(used_tested) == n else used_tested  # nothing skipped: the run's arrays are the rows
    level: np.ndarray | Deferred
    wealth: np.ndarray | Deferred
    if callable(run_levels):  # kept small: a copy of the positions, not a view of the block's
        level = wealth = Deferred(partial(_level_columns, run_levels, None if scatter is None else scatter.copy(), n))
    else:
        columns = _level_columns(run_levels, scatter, n)
        level, wealth = columns["level"], columns["wealth"]
    if scatter is None:
        rec.add(buf.stream, buf.names[:n], test=np.arange(first_global, first_global + n),
                stream_test=np.arange(first_stream, first_stream + n), statistic=sub.statistic, df=sub.df,
                df_resid=sub.df_resid, log_p=lp, level=level, wealth=wealth, status=status, pass_=buf.pass_no)
        return
    test = np.full(n, -1)
    stream_test = np.full(n, -1)
    stat = np.full(n, np.nan)
    df = buf.block.widths[:n].astype(int).copy()
    dfr = np.full(n, np.nan)
    logp = np.full(n, np.nan)
    st = codes[:n].astype(int).copy()
    t = used_tested
    test[t] = first_global + np.arange(len(t))
    stream_test[t] = first_stream + np.arange(len(t))
    stat[t], df[t], dfr[t], logp[t] = sub.statistic, sub.df, sub.df_resid, lp
    st[t] = status
    rec.add(buf.stream, buf.names[:n], test=test, stream_test=stream_test, statistic=stat, df=df,
            df_resid=dfr, log_p=logp, level=level, wealth=wealth, status=st, pass_=buf.pass_no)


def _level_columns(run_levels: tuple[np.ndarray, np.ndarray] | Callable[[], tuple[np.ndarray, np.ndarray]],
                   tested: np.ndarray | None, n: int) -> dict[str, np.ndarray]:
    """The history's level and wealth columns of a run: at the ``tested`` rows of ``n`` (all
    when None), NaN at the skipped ones."""
    level, wealth = run_levels() if callable(run_levels) else run_levels
    if tested is None:
        return {"level": level, "wealth": wealth}
    lev, wl = np.full(n, np.nan), np.full(n, np.nan)
    lev[tested], wl[tested] = level, wealth
    return {"level": lev, "wealth": wl}
