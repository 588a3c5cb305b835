"""The streamwise search: the only loop in streamreg.

One stream is paper 000's Fig. 4; several are paper 001's Alg. 2 (each stream its own
policy with an equal share of the initial wealth; the next test goes to the stream with
the largest priority ``w_j / i_j``, ties to the lowest index).

Each stream's pending candidates are scored as one block.  The policy then says where in
that block the first acceptance would fall if everything before it were rejected, and
how long the stream keeps the turn; everything up to that point is recorded at once.
Only an acceptance changes the model, and then the unconsumed candidates are rescored,
so the decisions are those of the one-at-a-time definition for any block size.
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from functools import partial

import numpy as np
import pandas as pd

from ..models.base import TESTED
from ..policies.base import Policy
from ..streams.base import AcceptedTerm, Stream, TermBlock
from .history import ACCEPTED, HISTORY_MODES, REFUSAL_CODES, REJECTED, HistoryRecorder


class SearchResult:
    """What the search found; the results layer turns it into a fitted model.

    ``history`` may be given as a DataFrame or as a zero-argument callable that builds it:
    for long streams the history (and its deferred p-values) is built only when asked for.
    ``history_mode`` is ``"full"`` (one row per candidate) or ``"none"`` (only the rows of
    accepted and refused candidates were kept).
    """

    def __init__(self, history, accepted: list[AcceptedTerm], selected: pd.DataFrame, policies: dict[str, Policy],
                 stream_names: list[str], n_tests: int, stopped_by: str, elapsed: float,
                 per_stream: pd.DataFrame | None = None, history_mode: str = "full"):
        self._history = history
        self.history_mode = history_mode
        self.accepted = accepted
        self.selected = selected
        self.policies = policies
        self.stream_names = stream_names
        self.n_tests = n_tests
        self.stopped_by = stopped_by
        self.elapsed = elapsed
        self.per_stream = per_stream

    @property
    def history(self) -> pd.DataFrame:
        if callable(self._history):
            self._history = self._history()
        return self._history

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_history"] = self.history
        return state


@dataclass
class _Lane:
    """A stream with its policy and its scored, not yet consumed candidates."""

    index: int
    stream: Stream
    policy: Policy
    size: int = 512
    buffer: TermBlock | None = None
    outcomes: object = None
    codes: np.ndarray | None = None


def streamwise_search(
    model,
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
    model : GaussianState or GLMState
        The current fit; updated in place as terms are accepted.
    streams : list of Stream
    policy : Policy
        A template; each stream gets ``policy.spawn()`` with a ``1/k`` wealth share.
    block_size : int
        Candidates scored together at first; a stream without acceptances gets blocks
        twice as large each time (up to about 64 MB).  Affects speed only, never the
        decisions.
    max_tests, max_selected, time_budget
        Stopping rules for long or infinite streams (tests, selected terms, seconds).
    verbose : bool or int
        Print progress to stderr every ``verbose`` tests (``True``: every 10,000).
    history : {"full", "none"}
        ``"full"``: one history row per candidate examined (about 80 bytes each).
        ``"none"``: only the rows of accepted and refused candidates, so memory does not
        grow with the number of tests on long or infinite streams.  The selected table,
        the per-stream counts and the decisions are the same either way.
    """
    if history not in HISTORY_MODES:
        raise ValueError(f"history must be one of {HISTORY_MODES}, got {history!r}")
    if block_size < 1:
        raise ValueError(f"block_size must be a positive integer, got {block_size!r}")
    if not streams:
        raise ValueError("no candidate streams were given")
    names = [s.name for s in streams]
    if len(set(names)) != len(names):
        raise ValueError(f"stream names must be unique, got {names}")
    every = 10_000 if verbose is True else int(verbose or 0)
    max_block = max(block_size, (8 << 20) // max(model.n, 1))
    k = len(streams)
    lanes = []
    for j, s in enumerate(streams):
        p = policy.spawn()
        p.start(n_obs=model.n, share=1.0 / k, n_candidates=s.n_candidates)
        lanes.append(_Lane(j, s, p, size=block_size))

    rec = HistoryRecorder(keep=history)
    full = history == "full"
    accepted: list[AcceptedTerm] = []
    selected_rows: list[dict] = []
    n_tests, stopped_by = 0, "exhausted"
    t0 = time.monotonic()
    next_report = every

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
        if lane.outcomes is None:
            lane.outcomes, lane.codes = model.score_block(lane.buffer.block)
            _check_finite(lane.outcomes.statistic, lane.buffer)
        buf, codes = lane.buffer, lane.codes
        tested_pos = np.flatnonzero(codes == TESTED)
        outcomes = lane.outcomes.take(tested_pos)
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
        status = np.full(n_used, REJECTED)
        level = plan.level[:n_used].copy()
        wealth = plan.wealth[:n_used].copy()
        reason = None
        if accept_at is not None:
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
            status[-1] = ACCEPTED if reason is None else REFUSAL_CODES[reason]
        else:
            pol.record(outcomes, n_used, last_accepted=False)

        sub = outcomes.take(slice(0, n_used))
        lp = sub._log_p if sub._log_p is not None else np.full(n_used, np.nan)
        if accept_at is not None and np.isnan(lp[-1]):
            lp = lp.copy()
            lp[-1] = float(model.log_pvalue(sub.statistic[-1:], sub.df[-1:], sub.df_resid[-1:])[0])
        first_test = pol.n_tested - n_used + 1
        if full or accept_at is not None:  # history="none" keeps only the accepted or refused row
            _record_run(rec, buf, codes, end, used_tested, sub, lp, level, wealth, status,
                        first_global=n_tests + 1, first_stream=first_test)
        n_tests += n_used
        rejected = used_tested[status == REJECTED]
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
                    "statistic": float(sub.statistic[-1]),
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
            lane.buffer = buf.tail(end)
        else:
            lane.buffer = buf.tail(end)
            if accept_at is None:
                lane.outcomes = lane.outcomes.take(slice(end, None))
                lane.codes = codes[end:]
            else:  # refused: model unchanged, keep the scores
                lane.outcomes = lane.outcomes.take(slice(end, None))
                lane.codes = codes[end:]
        if len(lane.buffer) == 0:
            lane.buffer = None
            prio[lane.index] = -np.inf
            empty.add(lane.index)
        else:
            prio[lane.index] = pol.priority()
        if every and n_tests >= next_report:
            print(f"[streamreg] {n_tests:,} tests, {len(accepted)} selected, "
                  f"{time.monotonic() - t0:.1f}s", file=sys.stderr)
            next_report += every

    selected = pd.DataFrame(
        selected_rows,
        columns=["order", "term", "stream", "test", "stream_test", "statistic", "df", "pvalue", "level", "wealth"],
    )
    per_stream = pd.DataFrame(
        {
            "stream": names,
            "tested": [ln.policy.n_tested for ln in lanes],
            "selected": [sum(t.stream == n for t in accepted) for n in names],
            "final_wealth": [ln.policy.wealth for ln in lanes],
        }
    ).set_index("stream")
    return SearchResult(
        history=partial(rec.frame, model.log_pvalue),
        accepted=accepted,
        selected=selected,
        policies={ln.stream.name: ln.policy for ln in lanes},
        stream_names=names,
        n_tests=n_tests,
        stopped_by=stopped_by,
        elapsed=time.monotonic() - t0,
        per_stream=per_stream,
        history_mode=history,
    )


def _check_finite(statistic: np.ndarray, buf: TermBlock) -> None:
    """A NaN or infinity in a candidate makes its statistic non-finite: say which one."""
    bad = np.flatnonzero(~np.isfinite(statistic))
    if bad.size:
        raise ValueError(
            f"stream {buf.stream!r}: candidate {buf.names[int(bad[0])]!r} contains NaN or infinite values; "
            "drop or impute them before selection"
        )


def _record_skipped(rec: HistoryRecorder, buf: TermBlock, codes: np.ndarray, sl: slice) -> None:
    idx = np.arange(len(buf))[sl]
    if idx.size == 0:
        return
    nan = np.nan
    rec.add(buf.stream, [buf.names[i] for i in idx], test=-1, stream_test=-1, statistic=nan,
            df=buf.block.widths[idx], df_resid=nan, log_p=nan, level=nan, wealth=nan,
            status=codes[idx], pass_=buf.pass_no)


def _record_run(rec, buf, codes, end, used_tested, sub, lp, level, wealth, status, *, first_global, first_stream):
    """History rows for buffer positions [0, end): tests in order, skips in between."""
    n = end
    test = np.full(n, -1)
    stream_test = np.full(n, -1)
    stat = np.full(n, np.nan)
    df = buf.block.widths[:n].astype(int).copy()
    dfr = np.full(n, np.nan)
    logp = np.full(n, np.nan)
    lev = np.full(n, np.nan)
    wl = np.full(n, np.nan)
    st = codes[:n].astype(int).copy()
    t = used_tested
    test[t] = first_global + np.arange(len(t))
    stream_test[t] = first_stream + np.arange(len(t))
    stat[t], df[t], dfr[t], logp[t] = sub.statistic, sub.df, sub.df_resid, lp
    lev[t], wl[t], st[t] = level, wealth, status
    rec.add(buf.stream, buf.names[:n], test=test, stream_test=stream_test, statistic=stat, df=df,
            df_resid=dfr, log_p=logp, level=lev, wealth=wl, status=st, pass_=buf.pass_no)
