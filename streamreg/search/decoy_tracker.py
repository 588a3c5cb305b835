"""The streamwise search's bookkeeping of decoys (see :mod:`.decoys` for what they mean).

The search asks this tracker at four points of a run over a lane's block: when the block is
scored (the decoys are scored against the same model), before the rule plans (in the
selection mode the rule sees each pair's winner), after the run (decoy hits at the run's
levels, or the entered pair's ``W``) and at the end (the knockoff+ threshold).
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..models.base import TESTED, CandidateBlock
from ..models.protocol import ModelState
from ..outcomes import TestOutcomes
from ..streams.base import AcceptedTerm, Stream, TermBlock, term_columns
from ..streams.decoys import DecoyOptions, decoy_sources
from .decoys import DecoyReport, knockoff_plus_threshold, pair_outcomes

__all__ = ["DecoyTracker"]


class DecoyTracker:
    """Decoy blocks and outcomes of every lane's pending candidates, and the report."""

    def __init__(self, options: DecoyOptions, streams: list[Stream], n: int):
        self.sources = decoy_sources(streams, options, n)
        self.report = DecoyReport(options)
        self.selecting = options.fdr is not None
        # per lane: the decoy block, its outcomes and log p-values (0 where either is untested)
        self._pending: dict[int, tuple[CandidateBlock, TestOutcomes, np.ndarray]] = {}
        self._won: np.ndarray = np.zeros(0, dtype=bool)
        self._log_p_winner: np.ndarray = np.zeros(0)
        self._own_log_p: np.ndarray = np.zeros(0)
        # selection: per run, the tested pairs' W and what rebuilds a positive one; per entered
        # pair (lane, position), the index of its term in the accepted list (-1: its decoy entered)
        self._chunks: list[dict[str, Any]] = []
        self._entered_terms: dict[tuple[int, int], int] = {}
        self._stream_names = [s.name for s in streams]

    def score(self, lane: int, buf: TermBlock, model: ModelState, codes: np.ndarray) -> None:
        """Score the decoys of ``buf`` against the model its candidates were just scored against."""
        block = self.sources[lane].block_for(buf)
        outcomes, decoy_codes = model.score_block(block)
        tested = (decoy_codes == TESTED) & (codes == TESTED)
        log_p = np.zeros(len(codes))
        if tested.any():
            log_p[tested] = outcomes.take(np.flatnonzero(tested)).log_p
        self._pending[lane] = (block, outcomes, log_p)

    def rule_outcomes(self, lane: int, tested_pos: np.ndarray, outcomes: TestOutcomes) -> TestOutcomes:
        """What the rule plans on: the candidates' outcomes, or each pair's winner when selecting."""
        if not self.selecting:
            return outcomes
        _, decoy, log_p = self._pending[lane]
        decoy = decoy.take(tested_pos)
        decoy._log_p = log_p[tested_pos]  # untested decoys (p = 1) never win
        self._own_log_p = outcomes.log_p
        winner, self._won, self._log_p_winner = pair_outcomes(outcomes, decoy)
        return winner

    def entering_values(self, lane: int, position: int, accept_at: int, buf: TermBlock) -> tuple[np.ndarray, bool]:
        """The values that enter the model at an acceptance, and whether they are the decoy's."""
        decoy_won = self.selecting and bool(self._won[accept_at])
        block = self._pending[lane][0] if decoy_won else buf.block
        return block.term(position).copy(), decoy_won

    def after_run(self, lane: int, buf: TermBlock, tested_pos: np.ndarray, level: np.ndarray, *, first_test: int, entered: bool, decoy_won: bool, accepted_index: int) -> None:
        """Record the run of ``len(level)`` tests: decoy hits (estimate), every pair's W (selection)."""
        n_used = len(level)
        at = tested_pos[:n_used]
        log_p = self._pending[lane][2][at]
        if not self.selecting:
            hits = np.flatnonzero(log_p <= np.log(level))
            self.report.hits += int(hits.size)
            for h in hits:
                self.report.rows.append({"term": buf.names[int(at[h])], "stream": buf.stream,
                                         "test": first_test + int(h), "decoy_log_p": float(log_p[h]),
                                         "level": float(level[h])})
            return
        if buf.positions is None:
            raise ValueError(f"stream {buf.stream!r}: decoy_fdr= selects candidates that may not have entered "
                             "the model, so it needs a stream that can read them again (an array, a frame)")
        own = self._own_log_p[:n_used]
        sign = np.sign(log_p - own)  # + when the candidate's p-value is the smaller
        w = sign * -self._log_p_winner[:n_used]
        entered_as = np.full(n_used, "", dtype=object)
        if entered:
            entered_as[-1] = "decoy" if decoy_won else "candidate"
            self._entered_terms[(lane, int(buf.positions[at[-1]]))] = -1 if decoy_won else accepted_index
        self._chunks.append({
            "lane": np.full(n_used, lane), "position": buf.positions[at], "W": w, "test": first_test + np.arange(n_used),
            "log_p": own, "decoy_log_p": log_p, "level": level, "entered": entered_as,
            # references to the stream's sequences (no copies): the selected few are rebuilt at the end
            "meta": (buf.names, buf.columns, buf.specs), "at": at,
        })

    def trim(self, lane: int, end: int) -> None:
        """The lane keeps its candidates from buffer position ``end`` on (unchanged model)."""
        block, outcomes, log_p = self._pending[lane]
        self._pending[lane] = (block.tail(end), outcomes.take(slice(end, None)), log_p[end:])

    def finish(self, accepted: list[AcceptedTerm], selected_rows: list[dict],
               streams: list[Stream]) -> tuple[list[AcceptedTerm], list[dict]]:
        """The selected terms: all of them (estimate), the candidates past the knockoff+
        threshold of the pairs' last W (selection)."""
        if not self.selecting:
            return accepted, selected_rows
        assert self.report.options.fdr is not None
        table = self._last_tests()
        tau = knockoff_plus_threshold(table["W"].to_numpy(), self.report.options.fdr)
        table["selected"] = table["W"] >= tau
        self.report.frame = table[["term", "stream", "test", "W", "log_p", "decoy_log_p", "level", "entered",
                                   "selected"]]
        self.report.threshold, self.report.n_entered = tau, int((table["entered"] != "").sum())
        terms: list[AcceptedTerm] = []
        rows: list[dict] = []
        for r in table[table["selected"]].itertuples():  # the selected few, in test order
            index = self._entered_terms.get((int(r.lane), int(r.position)), -1)
            if index >= 0:  # entered the model: its values are at hand
                term, row = accepted[index], dict(selected_rows[index])
            else:
                name = str(r.term)
                chunk = self._chunks[int(r.chunk)]
                names, columns, specs = chunk["meta"]
                j = int(chunk["at"][int(r.index)])
                spec = None if specs is None else specs[j]
                block = streams[int(r.lane)].reread(np.array([r.position], dtype=np.int64))
                assert block is not None  # streams with positions re-read them
                term = AcceptedTerm(name=name, stream=streams[int(r.lane)].name, values=block.term(0).copy(),
                                    columns=term_columns(names, columns, j), spec=spec)
                row = {"term": name, "stream": term.stream, "test": int(r.test), "stream_test": np.nan,
                       "statistic": np.nan, "df": int(block.widths[0]), "pvalue": float(np.exp(r.log_p)),
                       "level": float(r.level), "wealth": np.nan}
            terms.append(term)
            rows.append(dict(row, order=len(rows) + 1))
        self.report.n_selected = len(terms)
        return terms, rows

    def _last_tests(self) -> pd.DataFrame:
        """One row per pair (lane, position): its last test, with the chunk and row it came from."""
        if not self._chunks:
            return pd.DataFrame(columns=["term", "stream", "test", "W", "log_p", "decoy_log_p", "level", "entered",
                                         "lane", "position", "chunk", "index"])
        parts = []
        for c, chunk in enumerate(self._chunks):  # one frame per run, not per candidate
            part = pd.DataFrame({k: v for k, v in chunk.items() if k not in ("meta", "at")})
            part["chunk"], part["index"] = c, np.arange(len(part))
            parts.append(part)
        every = pd.concat(parts, ignore_index=True)
        last = every.drop_duplicates(["lane", "position"], keep="last").sort_values("test").reset_index(drop=True)
        last.insert(0, "stream", np.asarray(self._stream_names, dtype=object)[last["lane"].to_numpy()])
        terms = np.empty(len(last), dtype=object)
        for c, rows in last.groupby("chunk").indices.items():  # names are read run by run
            names, at = self._chunks[int(c)]["meta"][0], self._chunks[int(c)]["at"]
            terms[rows] = [names[int(j)] for j in at[last["index"].to_numpy()[rows]]]
        last.insert(0, "term", terms)
        return last
