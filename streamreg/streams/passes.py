"""Stream combinators: one stream over several (single-stream SFS), and repeated passes.

:class:`ConcatStream` is paper 001's SFS baseline (section 4.1): the classes are visited
one after the other, smallest first, dynamic classes (interactions) at the end.
:class:`PassesStream` re-offers rejected candidates in further passes (statistics.md
section 2): a re-offer is an ordinary further test of its stream, charged like any other,
and the history's ``pass`` column says which pass offered it.
"""
from __future__ import annotations

from collections import deque

import numpy as np

from ..models.base import CandidateBlock
from .base import AcceptedTerm, Stream, TermBlock


def smallest_first(streams: list[Stream]) -> list[Stream]:
    """Static streams by increasing size (stable), then the ones of unknown size."""
    known = [s for s in streams if s.n_candidates is not None]
    unknown = [s for s in streams if s.n_candidates is None]
    return sorted(known, key=lambda s: s.n_candidates) + unknown


class ConcatStream(Stream):
    """The children's candidates one child after the other, under one name and wealth.

    A child that is empty for now (a dynamic stream) is passed over and asked again on
    the next turn; the concatenation is exhausted only when every child is.
    """

    def __init__(self, name: str, children: list[Stream]):
        super().__init__(name)
        if not children:
            raise ValueError("a concatenated stream needs at least one stream")
        self.children = list(children)
        sizes = [c.n_candidates for c in self.children]
        self.n_candidates = None if any(s is None for s in sizes) else int(sum(sizes))

    def take(self, k: int) -> TermBlock | None:
        for child in self.children:
            if child.exhausted:
                continue
            block = child.take(k)
            if block is not None and len(block):
                block.stream = self.name
                return block
        if all(c.exhausted for c in self.children):
            self.exhausted = True
        return None

    def _next_block(self, k: int) -> TermBlock | None:
        return self.take(k)

    def on_accept(self, term: AcceptedTerm) -> None:
        for child in self.children:
            child.on_accept(term)


class PassesStream(Stream):
    """``inner`` followed by up to ``passes - 1`` re-offers of its rejected candidates.

    Rejected candidates are kept (values copied) as the driver reports them; new
    candidates of the inner stream always come before pending re-offers.
    """

    def __init__(self, inner: Stream, passes: int):
        super().__init__(inner.name)
        if not isinstance(passes, (int, np.integer)) or isinstance(passes, bool) or passes < 1:
            raise ValueError(f"passes must be a positive integer, got {passes!r}")
        self.inner = inner
        self.passes = int(passes)
        self.n_candidates = inner.n_candidates
        # (pass number, name, values, column names, spec) in the order of rejection
        self.pending: deque = deque()
        self.n_reoffered = 0

    def take(self, k: int) -> TermBlock | None:
        if not self.inner.exhausted:
            block = self.inner.take(k)
            if block is not None and len(block):
                return block
        if not self.pending:
            if self.inner.exhausted:
                self.exhausted = True
            return None
        pass_no = self.pending[0][0]
        items = []
        while self.pending and len(items) < k and self.pending[0][0] == pass_no:
            items.append(self.pending.popleft())
        self.n_reoffered += len(items)
        values = np.concatenate([it[2] for it in items], axis=1)
        widths = np.array([it[2].shape[1] for it in items])
        return TermBlock(self.name, [it[1] for it in items], CandidateBlock(values, widths),
                         [it[3] for it in items], [it[4] for it in items], pass_no)

    def _next_block(self, k: int) -> TermBlock | None:
        return self.take(k)

    def on_rejected(self, block: TermBlock, positions: np.ndarray) -> None:
        if block.pass_no >= self.passes:
            return
        for j in np.asarray(positions, dtype=int):
            self.pending.append((block.pass_no + 1, block.names[j], block.block.term(j).copy(),
                                 block.column_names(j), block.spec(j)))

    def on_accept(self, term: AcceptedTerm) -> None:
        self.inner.on_accept(term)


def arrange_streams(streams: list[Stream], *, multistream: bool = True, passes: int = 1,
                    name: str = "all") -> list[Stream]:
    """The streams the search runs: as given, or concatenated; with extra passes if asked.

    Parameters
    ----------
    streams : list of Stream
        The formula's streams in formula order.
    multistream : bool
        False concatenates them into one stream, smallest class first, dynamic last.
    passes : int
        Total number of passes (1: each candidate is offered once).
    name : str
        Name of the single stream when ``multistream=False``.
    """
    if not isinstance(passes, (int, np.integer)) or isinstance(passes, bool) or passes < 1:
        raise ValueError(f"passes must be a positive integer, got {passes!r}")
    if not multistream:
        streams = [ConcatStream(name, smallest_first(streams))]
    if passes > 1:
        streams = [PassesStream(s, passes) for s in streams]
    return streams
