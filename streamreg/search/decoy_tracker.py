"""The streamwise search's bookkeeping of decoys (see :mod:`.decoys` for what they mean).

The search asks this tracker at four points of a run over a lane's block: when the block is
scored (the decoys are scored against the same model), before the rule plans (in the
selection mode the rule sees each pair's winner), after the run (decoy hits at the run's
levels, or the entered pair's ``W``) and at the end (the knockoff+ threshold).
"""
from __future__ import annotations

import numpy as np

from ..models.base import TESTED, CandidateBlock
from ..models.protocol import ModelState
from ..outcomes import TestOutcomes
from ..streams.base import AcceptedTerm, Stream, TermBlock
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
        self._accepted_rows: list[int] = []  # accepted-list index of each entered candidate's row

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
        winner, self._won, self._log_p_winner = pair_outcomes(outcomes, decoy)
        return winner

    def entering_values(self, lane: int, position: int, accept_at: int, buf: TermBlock) -> tuple[np.ndarray, bool]:
        """The values that enter the model at an acceptance, and whether they are the decoy's."""
        decoy_won = self.selecting and bool(self._won[accept_at])
        block = self._pending[lane][0] if decoy_won else buf.block
        return block.term(position).copy(), decoy_won

    def after_run(self, lane: int, buf: TermBlock, tested_pos: np.ndarray, level: np.ndarray, *,
                  first_test: int, entered: bool, decoy_won: bool, accepted_index: int) -> None:
        """Record the run of ``len(level)`` tests: decoy hits (estimate), the entered pair (selection)."""
        n_used = len(level)
        log_p = self._pending[lane][2][tested_pos[:n_used]]
        if not self.selecting:
            hits = np.flatnonzero(log_p <= np.log(level))
            self.report.hits += int(hits.size)
            for h in hits:
                self.report.rows.append(self._row(buf, int(tested_pos[h]), first_test + int(h), log_p[h], level[h]))
            return
        if not entered:
            return
        i = n_used - 1
        magnitude = -float(self._log_p_winner[i])
        row = self._row(buf, int(tested_pos[i]), first_test + i, log_p[i], level[i])
        row.update(W=-magnitude if decoy_won else magnitude, entered="decoy" if decoy_won else "candidate")
        self.report.rows.append(row)
        self._accepted_rows.append(-1 if decoy_won else accepted_index)

    def trim(self, lane: int, end: int) -> None:
        """The lane keeps its candidates from buffer position ``end`` on (unchanged model)."""
        block, outcomes, log_p = self._pending[lane]
        self._pending[lane] = (block.tail(end), outcomes.take(slice(end, None)), log_p[end:])

    def finish(self, accepted: list[AcceptedTerm], selected_rows: list[dict]) -> tuple[list[AcceptedTerm], list[dict]]:
        """The selected terms: all of them (estimate), those at or past the knockoff+ threshold (selection)."""
        if not self.selecting:
            return accepted, selected_rows
        assert self.report.options.fdr is not None
        w = np.array([r["W"] for r in self.report.rows], dtype=float)
        tau = knockoff_plus_threshold(w, self.report.options.fdr)
        keep = [i for r, i in zip(self.report.rows, self._accepted_rows) if i >= 0 and r["W"] >= tau]
        for r in self.report.rows:
            r["selected"] = bool(r["W"] >= tau and r["entered"] == "candidate")
        self.report.threshold, self.report.n_selected = tau, len(keep)
        rows = [dict(selected_rows[i], order=k + 1) for k, i in enumerate(keep)]
        return [accepted[i] for i in keep], rows

    @staticmethod
    def _row(buf: TermBlock, position: int, test: int, log_p: float, level: float) -> dict:
        return {"term": buf.names[position], "stream": buf.stream, "test": test, "decoy_log_p": float(log_p),
                "level": float(level), "W": np.nan, "entered": "", "selected": False}
