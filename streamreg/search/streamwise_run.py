"""One streamwise search, step by step: fill the lanes, pick the next, test a run, act on it.

The driver's loop as a small object (:class:`StreamwiseRun`) whose methods are the steps of
the one-at-a-time definition, vectorised over a block (see :mod:`.streamwise` for the
definition and the guarantee that any block size gives the same decisions).  A *lane* is a
stream with its policy and its scored, not yet consumed candidates; a *run* is the stretch of a
lane's block that the policy decides at once: rejections up to the first acceptance, or up to
where another lane takes the turn.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial

import numpy as np
import pandas as pd

from ..models.base import SEPARATION, TESTED, CandidateBlock
from ..models.protocol import ModelState
from ..models.rescore import KeptProducts
from ..outcomes import TestOutcomes, reported_statistic
from ..policies.base import Plan, Policy
from ..progress import SearchProgress
from ..streams.base import AcceptedTerm, ScoredAt, Stream, TermBlock
from .decoy_tracker import DecoyTracker
from .history import HistoryRecorder, Status
from .options import SearchOptions
from .result import SELECTED_COLUMNS, SearchResult, check_streams, stream_counts_table
from .run_records import check_finite, record_run, record_skipped

__all__ = ["EXHAUSTED_SHARE", "SEPARATION_STOP", "StreamwiseRun"]

#: runs of rejections this long or longer report their levels and wealths when the history is
#: read (shorter ones cost less to compute than to defer)
DEFER_LEVELS_FROM = 64
#: candidates refused since the last acceptance because their entry would separate the
#: response (exact LP test), after which the search stops if the current fit itself is nearly
#: separated (more than :data:`EXHAUSTED_SHARE` of its fitted means at the boundary): the
#: selected terms then leave no information for more (each refusal costs a refit and a linear
#: programme, hundreds of them on gisette); stopping never loosens the rule's guarantee.  A
#: model that is not near the boundary keeps searching: rare indicators can each separate the
#: response on their own while real signals wait further on.
SEPARATION_STOP = 10
EXHAUSTED_SHARE = 0.5
#: values (rows x candidates) of a first block of a stream held in memory: 1 MB, so that a
#: problem of 100 rows takes 1,310 columns at a time and a tall one keeps ``block_size``
SMALL_BLOCK_CELLS = 1 << 17
#: values (rows x candidates) of a block of a stream held in memory at most: 512 MB, so that on
#: tall data (1e6 rows: 64 columns) an acceptance leaves few scored candidates to rescore, and
#: each candidate is read about once per pass instead of once per acceptance in its block
TALL_BLOCK_CELLS = 1 << 26
#: values (rows x candidates) of the first piece of a block left after an acceptance that is
#: scored again at once: 32 MB.  The rest waits (:attr:`Lane.parked`) and is scored in pieces
#: of doubling size, so that on tall data acceptances close together in a block read the
#: candidates between them a few times, not what is left of the block each time
PIECE_CELLS = 1 << 22

Levels = tuple[np.ndarray, np.ndarray] | Callable[[], tuple[np.ndarray, np.ndarray]]


@dataclass
class Lane:
    """A stream with its policy and its scored, not yet consumed candidates."""

    index: int
    stream: Stream
    policy: Policy
    size: int = 512
    first: int = 512  # the size a block starts at, and returns to after an acceptance
    cap: int = 512  # the size a block grows to while nothing is accepted
    buffer: TermBlock | None = None
    outcomes: TestOutcomes | None = None
    codes: np.ndarray | None = None
    pass_no: int = 1  # the pass of the stream the policy's spending follows
    #: the rest of the block after the buffer, in order, not scored against the current model
    parked: list[TermBlock] = field(default_factory=list)
    piece: int = 0  # the candidates of the next parked piece to score (it doubles each time)


@dataclass
class Run:
    """What the policy decided over a stretch of a lane's block."""

    tested_pos: np.ndarray  # buffer positions of the block's tested candidates
    outcomes: TestOutcomes  # their outcomes as the rule saw them (a pair's winner with decoys)
    own: TestOutcomes  # each candidate's own outcomes (the history's)
    plan: Plan
    n_used: int  # tests decided by this run
    accept_at: int | None  # index among the tested of the acceptance, if any

    @property
    def end(self) -> int:
        """Buffer positions consumed (skipped candidates between tests included)."""
        return int(self.tested_pos[self.n_used - 1]) + 1


class StreamwiseRun:
    """The search of ``streams`` against ``model`` under copies of ``policy``.

    Built once per search; :meth:`search` runs it to a stop and returns the result.
    """

    def __init__(self, model: ModelState, streams: Sequence[Stream], policy: Policy, options: SearchOptions,
                 bar: SearchProgress):
        check_streams(streams)
        self.names = [s.name for s in streams]
        if len(set(self.names)) != len(self.names):
            raise ValueError(f"stream names must be unique, got {self.names}")
        self.model, self.streams, self.options, self.bar = model, streams, options, bar
        self.max_block = max(options.block_size, (8 << 20) // max(model.n, 1))
        self.lanes: list[Lane] = []
        self.initial_wealth: dict[str, float] = {}
        for j, s in enumerate(streams):
            p = policy.spawn()
            cap = options.max_tests
            horizon = s.horizon if cap is None or s.horizon is None else min(s.horizon, cap)
            p.start(n_obs=model.n, share=1.0 / len(streams), n_candidates=s.n_candidates, horizon=horizon)
            self.initial_wealth[s.name] = p.wealth  # as the rule reports it, whatever its parameters are called
            first, cap = self.block_sizes(s)
            self.lanes.append(Lane(j, s, p, size=first, first=first, cap=cap))
        self.decoys = None if options.decoys is None else DecoyTracker(options.decoys, list(streams), model.n)
        self.rec = HistoryRecorder(keep=options.history)
        self.full = options.history == "full"
        self.accepted: list[AcceptedTerm] = []
        self.selected_rows: list[dict] = []
        self.n_tests, self.stopped_by = 0, "exhausted"
        self.separating = 0  # candidates refused for separation since the last acceptance
        #: names the current version of the model: a new object after every entry, so that
        #: outcomes kept with a re-offer are reused only against the model they were scored on
        self.model_token = object()
        self.t0 = time.monotonic()
        # priorities of lanes holding candidates (-inf otherwise), kept up to date incrementally so
        # that choosing among many streams (e.g. 1000 feature clusters) is one argmax, not a loop
        self.prio = np.full(len(streams), -np.inf)
        self.empty = set(range(len(streams)))  # lanes to (re)fill; dynamic streams stay here while empty

    def block_sizes(self, stream: Stream) -> tuple[int, int]:
        """The block size a lane starts at, and the size it grows to while nothing is accepted.

        ``block_size``, or for a stream holding its candidates in memory (an array, a frame: a
        block is a view) on few rows, as many as :data:`SMALL_BLOCK_CELLS` values hold, and
        on many rows no more than :data:`TALL_BLOCK_CELLS` values.  Each block is a scoring
        and each run a turn of the driver in Python: a small problem read 512 columns at a
        time spends most of its time there, while on tall data each acceptance rescores what
        is left of its block (in pieces, :meth:`park`).  The decisions do not depend on the block size."""
        block, n = self.options.block_size, max(self.model.n, 1)
        if not stream.holds_candidates:
            return block, self.max_block
        tall = max(1, TALL_BLOCK_CELLS // n)
        return min(tall, max(block, min(self.max_block, SMALL_BLOCK_CELLS // n))), min(tall, self.max_block)

    # -- the loop ------------------------------------------------------------------------
    def search(self) -> SearchResult:
        """Test runs of the lane with the highest priority until the streams or a stopping rule end it."""
        while True:
            self.fill_lanes()
            j = int(np.argmax(self.prio))  # the first maximum, i.e. the lowest index on ties
            if self.prio[j] == -np.inf or self.stopping_rule_met():
                break
            if self.test_run(self.lanes[j]):
                self.stopped_by = "separation"
                break
        return self.result()

    def fill_lanes(self) -> None:
        """Give every empty lane its stream's next block (quiet streams get larger blocks)."""
        max_tests = self.options.max_tests
        for j in sorted(self.empty):
            lane = self.lanes[j]
            want = lane.size if max_tests is None else max(1, min(lane.size, max_tests - self.n_tests))
            lane.buffer = lane.stream.take(want)
            lane.outcomes = None
            if lane.buffer is not None and lane.buffer.pass_no > lane.pass_no:
                lane.pass_no = lane.buffer.pass_no
                lane.policy.begin_pass()
            if lane.buffer is not None:
                # fewer, bigger BLAS calls for a stream without acceptances, up to ~64 MB
                lane.size = min(2 * lane.size, lane.cap)
                self.prio[j] = lane.policy.priority()
                self.empty.discard(j)
            elif lane.stream.exhausted:
                self.empty.discard(j)

    def stopping_rule_met(self) -> bool:
        """``max_tests``, ``max_selected`` or ``time_budget`` reached (recorded in ``stopped_by``)."""
        o = self.options
        for name, met in (("max_tests", o.max_tests is not None and self.n_tests >= o.max_tests),
                          ("max_selected", o.max_selected is not None and len(self.accepted) >= o.max_selected),
                          ("time_budget", o.time_budget is not None and time.monotonic() - self.t0 > o.time_budget)):
            if met:
                self.stopped_by = name
                return True
        return False

    def test_run(self, lane: Lane) -> bool:
        """Score the lane's block if needed, decide a run and act on it; True when the search must
        stop because the model is exhausted by separation."""
        buf = lane.buffer
        assert buf is not None  # only a lane with pending candidates has a finite priority
        self.score(lane, buf)
        assert lane.outcomes is not None and lane.codes is not None
        tested_pos = np.flatnonzero(lane.codes == TESTED)
        if len(tested_pos) == 0:
            if self.full:
                record_skipped(self.rec, buf, lane.codes, slice(0, len(buf)))
            self.retire(lane)
            return False
        run = self.decide(lane, tested_pos)
        reason, decoy_won, term, lp, sub, level = self.act(lane, buf, run)
        self.rec_selected(lane, run, reason, decoy_won, term, sub, lp, level)
        self.advance(lane, buf, run, changed=run.accept_at is not None and reason is None)
        self.bar.update(self.n_tests, len(self.accepted), self.total_wealth)
        if run.accept_at is None:
            return False
        self.separating = self.separating + 1 if reason == SEPARATION else 0 if reason is None else self.separating
        return self.separating >= SEPARATION_STOP and \
            self.model.boundary_share() > EXHAUSTED_SHARE

    # -- the steps of a run ----------------------------------------------------------------
    def score(self, lane: Lane, buf: TermBlock) -> None:
        """Score the lane's pending candidates against the current model (and their decoys)."""
        if lane.outcomes is not None and lane.codes is not None:
            return
        kept = buf.scored
        if kept is not None and kept.token is self.model_token and self.decoys is None:
            # re-offered candidates tested against this very model: the same outcomes, no read
            lane.outcomes, lane.codes = kept.outcomes, np.zeros(len(buf), dtype=np.int8)
            return
        resume = getattr(self.model, "resume_products", None)
        if kept is not None and kept.products is not None and resume is not None and self.decoys is None:
            resume(buf.block, kept.products)  # scored against this model before it grew: the new directions only
        lane.outcomes, lane.codes = self.model.score_block(buf.block)
        check_finite(lane.outcomes.statistic, buf, self.model.y)
        if self.decoys is not None:
            self.decoys.score(lane.index, buf, self.model, lane.codes)

    def decide(self, lane: Lane, tested_pos: np.ndarray) -> Run:
        """The policy's plan over the tested candidates and how far this lane keeps the turn."""
        scored = lane.outcomes
        assert scored is not None
        own = scored if len(tested_pos) == len(scored) else scored.take(tested_pos)  # no copy in the usual case
        outcomes = own if self.decoys is None else self.decoys.rule_outcomes(lane.index, tested_pos, own)
        pol = lane.policy
        plan = pol.plan(outcomes)
        run = len(tested_pos)
        mine, self.prio[lane.index] = self.prio[lane.index], -np.inf
        other_index = int(np.argmax(self.prio))
        best_other = self.prio[other_index]
        self.prio[lane.index] = mine
        if best_other > -np.inf:  # the lane keeps the turn while its priority stays the highest
            pr = pol.run_priorities(plan)
            keeps = (pr > best_other) | ((pr == best_other) & (lane.index < other_index))
            run = 1 + (int(np.argmin(keeps)) if not keeps.all() else len(keeps))
        if self.options.max_tests is not None:
            run = min(run, self.options.max_tests - self.n_tests)
        hits = np.flatnonzero(plan.accept[:run])
        accept_at = int(hits[0]) if hits.size else None
        return Run(tested_pos, outcomes, own, plan, run if accept_at is None else accept_at + 1, accept_at)

    def act(self, lane: Lane, buf: TermBlock, run: Run
            ) -> tuple[str | None, bool, AcceptedTerm | None, np.ndarray, TestOutcomes, np.ndarray]:
        """Enter the accepted term (if any), tell the policy, and write the run's history rows.

        Returns the model's refusal reason (None: entered), whether a decoy entered in the
        candidate's place, the term, the run's log p-values and own outcomes, and the levels.
        """
        pol, n_used = lane.policy, run.n_used
        token = self.model_token  # the model the run's candidates were tested against
        status = np.full(n_used, int(Status.REJECTED))
        reason, decoy_won, term = None, False, None
        # a long run of rejections under a rule with a schedule reports the levels and
        # wealths when the history is read; other runs take them now
        run_levels: Levels | None = None
        if run.accept_at is None:
            if self.full and n_used >= DEFER_LEVELS_FROM:
                run_levels = run.plan.head_later(n_used)
            if run_levels is None:
                run_levels = run.plan.head(n_used)
            pol.record(run.outcomes, n_used, last_accepted=False)
            level = np.zeros(0)  # the decoys compare their p-values with the run's levels
            if self.decoys is not None:
                level = run_levels[0] if isinstance(run_levels, tuple) else run.plan.head(n_used)[0]
        else:
            level, wealth = run.plan.head(n_used)
            run_levels = (level, wealth)
            j = int(run.tested_pos[run.accept_at])
            values = buf.block.term(j).copy()
            if self.decoys is not None:
                values, decoy_won = self.decoys.entering_values(lane.index, j, run.accept_at, buf)
            term = AcceptedTerm(name=buf.names[j], stream=lane.stream.name, values=values,
                                columns=buf.column_names(j), spec=buf.spec(j),
                                extra={} if buf.positions is None else {"position": int(buf.positions[j])})
            reason = self.model.accept(term.values)
            if reason is None:
                self.model_token = object()
            pol.record(run.outcomes, n_used, last_accepted=reason is None)
            wealth[-1] = pol.wealth
            status[-1] = Status.ACCEPTED if reason is None else Status.refusal(reason)
            if decoy_won:
                status[-1] = Status.REJECTED  # its decoy entered the model in its place

        sub = run.own.take(slice(0, n_used))
        lp = sub.known_log_p()  # those the policy computed; the history computes the rest when read
        if run.accept_at is not None and np.isnan(lp[-1]):
            lp = lp.copy()
            lp[-1] = float(self.model.log_pvalue(sub.statistic[-1:], sub.df[-1:], sub.df_resid[-1:])[0])
        assert lane.codes is not None
        if self.full or run.accept_at is not None:  # history="none" keeps only the accepted or refused row
            record_run(self.rec, buf, lane.codes, run.end, run.tested_pos[:n_used], sub, lp, run_levels, status,
                       first_global=self.n_tests + 1, first_stream=pol.n_tested - n_used + 1)
        if self.decoys is not None:
            self.decoys.after_run(lane.index, buf, run.tested_pos, level, first_test=self.n_tests + 1,
                                  entered=run.accept_at is not None and reason is None, decoy_won=decoy_won,
                                  accepted_index=len(self.accepted))
        self.n_tests += n_used
        used = run.tested_pos[:n_used]
        rejected = used if run.accept_at is None else used[:-1]  # the last one decided otherwise
        if rejected.size:
            b = buf.block
            # the products the block's scoring kept, when it was scored in this run and the
            # stream holds these candidates for a confirmation, or re-offers them in the next pass
            # where the products are small beside the values (tall blocks); outcomes reused from
            # a pass against this same model keep the products they came with
            fresh = buf.scored is None or buf.scored.token is not token or self.decoys is not None
            held = getattr(lane.stream, "holds_for_confirmation", None)
            single = fresh and held is not None and type(b) is CandidateBlock \
                and (held(buf.pass_no) or KeptProducts.small_beside(b)) and bool((b.widths[rejected] == 1).all())
            kept = KeptProducts.of(b, b.starts[rejected]) if single else None
            if not fresh and buf.scored is not None and buf.scored.products is not None:
                kept = buf.scored.products.take(rejected)  # outcomes reused: so are the products behind them
            lane.stream.on_rejected(buf, rejected, ScoredAt(token, run.own.take(slice(0, rejected.size)), kept))
        return reason, decoy_won, term, lp, sub, level

    def rec_selected(self, lane: Lane, run: Run, reason: str | None, decoy_won: bool, term: AcceptedTerm | None,
                     sub: TestOutcomes, lp: np.ndarray, level: np.ndarray) -> None:
        """Keep an entered candidate and its row of the selected table (a decoy is in the model only)."""
        if run.accept_at is None or reason is not None or decoy_won:
            return
        assert term is not None
        self.accepted.append(term)
        self.selected_rows.append({
            "order": len(self.accepted),
            "term": term.name,
            "stream": term.stream,
            "test": self.n_tests,
            "stream_test": lane.policy.n_tested,
            "statistic": float(reported_statistic(sub.statistic[-1:], sub.df[-1:], sub.df_resid[-1:])[0]),
            "df": int(sub.df[-1]),
            "pvalue": float(np.exp(lp[-1])),
            "level": float(level[-1]),
            "wealth": float(lane.policy.wealth),
        })
        for other in self.lanes:
            other.stream.on_accept(term)

    def advance(self, lane: Lane, buf: TermBlock, run: Run, *, changed: bool) -> None:
        """Move past the run: after an entry every lane rescores; otherwise the rest keep their scores."""
        end = run.end
        if changed:
            lane.size = lane.first
            for other in self.lanes:
                other.outcomes = None  # the model changed: rescore what is pending
        else:  # rejected, or refused (the model is unchanged)
            assert lane.outcomes is not None and lane.codes is not None
            lane.outcomes = lane.outcomes.take(slice(end, None))
            lane.codes = lane.codes[end:]
            if self.decoys is not None:
                self.decoys.trim(lane.index, end)
        lane.buffer = buf.tail(end)
        if changed:
            self.park(lane)
        if len(lane.buffer) == 0:
            self.retire(lane)
        else:
            self.prio[lane.index] = lane.policy.priority()

    def park(self, lane: Lane) -> None:
        """After an acceptance, keep only a first piece of a tall block's rest to score now.

        The pieces are scored in order, each when the one before is used up, so the decisions
        are those of the whole rest scored at once: the same tests against the same model in
        the same order (a lane out of candidates hands the turn on as a lane whose priority
        fell would).  Only the reads differ: the next acceptance voids the scores of the
        candidates after it, and those were not computed yet.
        """
        buf = lane.buffer
        assert buf is not None
        first = max(1, PIECE_CELLS // max(self.model.n, 1))
        # only a model that rescores a block by its new directions alone (least squares): a GLM
        # multiplies each piece by its whole weighted basis again, which small pieces do not repay
        incremental = getattr(self.model, "resume_products", None) is not None
        if not incremental or self.decoys is not None or type(buf.block) is not CandidateBlock \
                or len(buf) <= 2 * first:
            return
        lane.buffer, lane.piece = buf.head(first), 2 * first
        lane.parked.insert(0, buf.tail(first))

    def unpark(self, lane: Lane) -> bool:
        """Make the next parked piece the lane's buffer; False when none is left."""
        if not lane.parked:
            return False
        buf = lane.parked.pop(0)
        if len(buf) > 2 * lane.piece:
            lane.parked.insert(0, buf.tail(lane.piece))
            buf = buf.head(lane.piece)
        lane.piece *= 2
        lane.buffer, lane.outcomes, lane.codes = buf, None, None
        self.prio[lane.index] = lane.policy.priority()
        return True

    def retire(self, lane: Lane) -> None:
        """The lane's block is used up: it takes its next parked piece, or waits for its stream's next block."""
        if self.unpark(lane):
            return
        lane.buffer = None
        self.prio[lane.index] = -np.inf
        self.empty.add(lane.index)

    def total_wealth(self) -> float:
        return float(sum(ln.policy.wealth for ln in self.lanes))

    # -- the end -------------------------------------------------------------------------------
    def result(self) -> SearchResult:
        """The search's result; its tables are built on first access (pandas costs more than a
        small search) from inputs frozen here, as the policies and streams may be used again."""
        self.bar.close(self.n_tests, len(self.accepted), self.total_wealth)
        lanes = self.lanes
        tested, final_wealth = [ln.policy.n_tested for ln in lanes], [ln.policy.wealth for ln in lanes]
        accepted, selected_rows = self.accepted, self.selected_rows
        if self.decoys is not None:
            accepted, selected_rows = self.decoys.finish(accepted, selected_rows, list(self.streams))
        result = SearchResult(
            history=partial(self.rec.frame, self.model.log_pvalue),
            accepted=accepted,
            selected=partial(pd.DataFrame, selected_rows, columns=list(SELECTED_COLUMNS)),
            policies={ln.stream.name: ln.policy for ln in lanes},
            stream_names=self.names,
            n_tests=self.n_tests,
            stopped_by=self.stopped_by,
            elapsed=time.monotonic() - self.t0,
            per_stream=partial(stream_counts_table, self.names, tested, [t.stream for t in accepted], final_wealth),
            history_mode=self.options.history,
            initial_wealth=self.initial_wealth,
        )
        result.decoys = None if self.decoys is None else self.decoys.report
        result.model_token = self.model_token
        return result
