"""Stream combinators: one stream over several (single-stream SFS), and repeated passes.

:class:`ConcatStream` is the SFS baseline of Dhillon, Foster and Ungar (2010, section 4.1): the classes are visited
one after the other, smallest first, dynamic classes (interactions) at the end.
:class:`PassesStream` re-offers rejected candidates in further passes (Dhillon, Foster and
Ungar 2010 make ten): a re-offer is an ordinary further test of its stream, charged like any other,
and the history's ``pass`` column says which pass offered it.
"""
from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeVar, overload

import numpy as np

from ..models.base import CandidateBlock, CandidateValues, stack_by_column
from ..outcomes import TestOutcomes
from .base import AcceptedTerm, ScoredAt, Stream, TermBlock

T = TypeVar("T")

#: re-offers waiting as separate blocks are joined into one of at most this many values
#: (rows x candidates): 8 MB, so a small problem's later passes are one block each while a tall
#: matrix's re-offers stay the views they are
JOIN_CELLS = 1 << 20


def smallest_first(streams: list[Stream]) -> list[Stream]:
    """Static streams by increasing size (stable), then the ones of unknown size."""
    known = [(s.n_candidates, s) for s in streams if s.n_candidates is not None]
    unknown = [s for s in streams if s.n_candidates is None]
    return [s for _, s in sorted(known, key=lambda pair: pair[0])] + unknown


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
        self.n_candidates = None if None in sizes else sum(s for s in sizes if s is not None)
        self.holds_candidates = all(c.holds_candidates for c in self.children)
        # child i's positions are numbered from offsets[i] on, while the sizes before it are known
        self.offsets: list[int | None] = []
        at: int | None = 0
        for size in sizes:
            self.offsets.append(at)
            at = None if at is None or size is None else at + size

    def take(self, k: int) -> TermBlock | None:
        for child, offset in zip(self.children, self.offsets):
            if child.exhausted:
                continue
            block = child.take(k)
            if block is not None and len(block):
                block.stream = self.name
                if block.positions is not None:
                    block.positions = None if offset is None else block.positions + offset
                return block
        if all(c.exhausted for c in self.children):
            self.exhausted = True
        return None

    def _next_block(self, k: int) -> TermBlock | None:
        return self.take(k)

    def reread(self, positions: np.ndarray) -> CandidateValues | None:
        """Asked of one block's candidates, so of one child (whose numbering starts at its offset)."""
        starts = [(i, at) for i, at in enumerate(self.offsets) if at is not None]
        i, at = starts[int(np.searchsorted([a for _, a in starts], positions[0], side="right")) - 1]
        return self.children[i].reread(positions - at)

    def on_accept(self, term: AcceptedTerm) -> None:
        for child in self.children:
            child.on_accept(term)


class Picked(Sequence[T]):
    """``items[positions[i]]`` for each i, made only when read (re-offers of long streams
    pick the names, columns and specs of many rejected candidates, of which few are read)."""

    def __init__(self, items: Sequence[T], positions: np.ndarray):
        self.items, self.positions = items, positions

    def __len__(self) -> int:
        return len(self.positions)

    @overload
    def __getitem__(self, i: int) -> T: ...

    @overload
    def __getitem__(self, i: slice) -> Picked[T]: ...

    def __getitem__(self, i: int | slice) -> T | Picked[T]:
        if isinstance(i, slice):
            return Picked(self.items, self.positions[i])
        return self.items[int(self.positions[i])]


@dataclass
class _Reoffer:
    """Rejected candidates of one block, waiting for the next pass.

    ``positions`` (int64) when the stream can re-read them (:meth:`Stream.reread`): their
    values are rebuilt when offered; otherwise ``block``, their values copied once.
    ``norm2``: their columns' squared norms when the scoring computed them, so that a
    re-read block is read once when scored again, not twice.
    """

    pass_no: int
    names: Sequence[str]
    block: CandidateValues | None
    columns: Sequence[Any] | None
    specs: Sequence[Any] | None
    positions: np.ndarray | None = None
    norm2: np.ndarray | None = None
    #: their outcomes against the model they were last tested against (see :class:`ScoredAt`)
    scored: ScoredAt | None = None

    def __len__(self) -> int:
        return len(self.names)

    def split(self, k: int) -> tuple[_Reoffer, _Reoffer]:
        head_block = tail_block = None
        head_norms = tail_norms = None
        if self.norm2 is not None:  # norms are kept for single-column candidates only
            head_norms, tail_norms = self.norm2[:k], self.norm2[k:]
        head_scored = None if self.scored is None else self.scored.take(slice(None, k))
        tail_scored = None if self.scored is None else self.scored.take(slice(k, None))
        if self.block is not None:
            cut = int(self.block.starts[k])
            known = getattr(self.block, "norm2", None)
            head_block = CandidateBlock(self.block.values[:, :cut], self.block.widths[:k],
                                        None if known is None else known[:cut])
            tail_block = self.block.tail(k)
        return (_Reoffer(self.pass_no, self.names[:k], head_block, _part(self.columns, slice(None, k)),
                         _part(self.specs, slice(None, k)), _part(self.positions, slice(None, k)), head_norms,
                         head_scored),
                _Reoffer(self.pass_no, self.names[k:], tail_block, _part(self.columns, slice(k, None)),
                         _part(self.specs, slice(k, None)), _part(self.positions, slice(k, None)), tail_norms,
                         tail_scored))


def _part(items: Any, sl: slice) -> Any:
    return None if items is None else items[sl]


class Joined(Sequence[T]):
    """Several sequences read as one, in order (re-offers joined into one block); nothing is
    copied, a slice is another join over the same parts."""

    def __init__(self, parts: Sequence[Sequence[T]]):
        self.parts = [p for p in parts if len(p)]
        self.ends = np.cumsum([len(p) for p in self.parts], dtype=np.int64)

    def __len__(self) -> int:
        return int(self.ends[-1]) if len(self.ends) else 0

    @overload
    def __getitem__(self, i: int) -> T: ...

    @overload
    def __getitem__(self, i: slice) -> Sequence[T]: ...

    def __getitem__(self, i: int | slice) -> T | Sequence[T]:
        n = len(self)
        if isinstance(i, slice):
            lo, hi, step = i.indices(n)
            if step != 1:
                return [self[j] for j in range(lo, hi, step)]
            out: list[Sequence[T]] = []
            start = 0
            for part, end in zip(self.parts, self.ends.tolist()):
                if end > lo and start < hi:
                    out.append(part[max(lo - start, 0):min(hi, end) - start])
                start = end
            return Joined(out)
        i = int(i)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(i)
        b = int(np.searchsorted(self.ends, i, side="right"))
        return self.parts[b][i - (int(self.ends[b - 1]) if b else 0)]


def _rows(values: CandidateValues) -> int | None:
    """Rows of a dense in-memory block of candidates; None for other kinds (a sparse block
    keeps its own layout, a block on a cluster stays there): those are never joined."""
    return int(values.values.shape[0]) if type(values) is CandidateBlock else None


def _joined_scored(parts: list[_Reoffer]) -> ScoredAt | None:
    """The parts' outcomes one after another when all were scored against the same model."""
    first = parts[0].scored
    if first is None or any(p.scored is None or p.scored.token is not first.token for p in parts):
        return None
    return ScoredAt(first.token, TestOutcomes.concatenate([p.scored.outcomes for p in parts if p.scored is not None]))


def _joined_norms(parts: list[np.ndarray | None]) -> np.ndarray | None:
    """The parts' norms one after another, or None when a part has none."""
    known = [p for p in parts if p is not None]
    return np.concatenate(known) if len(known) == len(parts) else None


def _joined(entries: list[_Reoffer], field: str) -> Joined[Any] | None:
    """The ``columns`` or ``specs`` of joined re-offers (None where none of them has any)."""
    parts = [getattr(e, field) for e in entries]
    if all(p is None for p in parts):
        return None
    return Joined([[None] * len(e) if p is None else p for e, p in zip(entries, parts)])


class PassesStream(Stream):
    """``inner`` followed by up to ``passes - 1`` re-offers of its rejected candidates.

    The rejected candidates of each block are kept as the driver reports them: their
    positions when the inner stream can re-read them (arrays, frames: the values are still
    there, so a pass over m candidates holds 8m bytes, not a copy of X), else one indexed
    copy per block.  New candidates of the inner stream always come before pending
    re-offers, and re-offers come back in the order they were rejected, at most ``k`` at a
    time (so a re-read holds one block at a time).
    """

    def __init__(self, inner: Stream, passes: int, *, hold_last: bool = False):
        super().__init__(inner.name)
        if not isinstance(passes, (int, np.integer)) or isinstance(passes, bool) or passes < 1:
            raise ValueError(f"passes must be a positive integer, got {passes!r}")
        self.inner = inner
        self.passes = int(passes)
        #: keep the last pass's rejected candidates (never offered; :meth:`held` gives them),
        #: for a confirmation pass against the final model
        self.hold_last = hold_last
        self.n_candidates = inner.n_candidates
        self.holds_candidates = inner.holds_candidates
        self.pending: deque[_Reoffer] = deque()
        self.n_reoffered = 0
        self._rows: int | None = None  # rows of the stream's dense blocks (None: not dense, or not seen)

    @property
    def horizon(self) -> int | None:
        """Every candidate offered in every pass, at most."""
        inner = self.inner.horizon
        return None if inner is None else self.passes * inner

    def reread(self, positions: np.ndarray) -> CandidateValues | None:
        """The inner stream's candidates at ``positions`` (every pass numbers them as it does)."""
        return self.inner.reread(positions)

    def take(self, k: int) -> TermBlock | None:
        if not self.inner.exhausted:
            block = self.inner.take(k)
            if block is not None and len(block):
                return block
        if not self.pending or self.pending[0].pass_no > self.passes:  # held candidates are not offered
            if self.inner.exhausted:
                self.exhausted = True
            return None
        entry = self._next_entry(k)
        rows = self._rows if entry.block is None else _rows(entry.block)
        if rows is not None and self._joinable(entry, k, rows):
            entry = self._join(entry, k, rows)
        self.n_reoffered += len(entry)
        return self.read(entry)

    def _next_entry(self, k: int) -> _Reoffer:
        """The first pending re-offer, up to ``k`` candidates (the rest stays first in line)."""
        entry = self.pending.popleft()
        if len(entry) > k:
            entry, rest = entry.split(k)
            self.pending.appendleft(rest)
        return entry

    def _reread(self, entry: _Reoffer) -> CandidateValues:
        assert entry.positions is not None
        values = self.inner.reread(entry.positions)
        if values is None:
            raise RuntimeError(f"stream {self.name!r} set candidate positions it cannot re-read")
        if entry.norm2 is not None and type(values) is CandidateBlock and values.norm2 is None:
            values.norm2 = entry.norm2
        return values

    def _joinable(self, entry: _Reoffer, k: int, rows: int) -> bool:
        """Whether the next pending re-offer may join ``entry`` in one block: each block
        rejected between two acceptances waits as its own re-offer, and offering them one by
        one costs a scoring and a run of the driver each (on small problems, most of the
        search).  Joined only while the block stays small (:data:`JOIN_CELLS` values of
        ``rows`` rows each), as a re-read of scattered positions is a copy; never across the
        children of a concatenated stream, whose re-read asks one child."""
        nxt = self.pending[0] if self.pending else None
        return (nxt is not None and nxt.pass_no == entry.pass_no and len(entry) < k
                and not isinstance(self.inner, ConcatStream)
                and (nxt.block is None) == (entry.block is None)
                and (entry.block is None or type(nxt.block) is CandidateBlock)
                and (len(entry) + len(nxt)) * max(rows, 1) <= JOIN_CELLS)

    def _join(self, entry: _Reoffer, k: int, n_rows: int) -> _Reoffer:
        """``entry`` and the following re-offers of its pass, up to ``k`` candidates and
        :data:`JOIN_CELLS` values, as one re-offer (same candidates, same order)."""
        parts = [entry]
        size = len(entry)
        limit = min(k, JOIN_CELLS // max(n_rows, 1))
        while self.pending and self.pending[0].pass_no == entry.pass_no and size < limit:
            nxt = self._next_entry(limit - size)
            if (nxt.block is None) != (entry.block is None) or \
                    (nxt.block is not None and type(nxt.block) is not CandidateBlock):
                self.pending.appendleft(nxt)
                break
            parts.append(nxt)
            size += len(nxt)
        if len(parts) == 1:
            return entry
        block = None
        if entry.block is not None:
            blocks = [p.block for p in parts]
            assert all(isinstance(b, CandidateBlock) for b in blocks)
            known = [getattr(b, "norm2", None) for b in blocks]
            block = CandidateBlock(stack_by_column([b.values for b in blocks]),  # type: ignore[union-attr]
                                   np.concatenate([b.widths for b in blocks]),  # type: ignore[union-attr]
                                   _joined_norms(known))
        positions = None if entry.positions is None else np.concatenate([p.positions for p in parts])
        norm2 = _joined_norms([p.norm2 for p in parts])
        return _Reoffer(entry.pass_no, Joined([p.names for p in parts]), block,
                        _joined(parts, "columns"), _joined(parts, "specs"), positions, norm2, _joined_scored(parts))

    def _next_block(self, k: int) -> TermBlock | None:
        return self.take(k)

    def held(self) -> list[_Reoffer]:
        """The last pass's rejected candidates (``hold_last=True``), in the order they were tested."""
        return [e for e in self.pending if e.pass_no > self.passes]

    def read(self, entry: _Reoffer) -> TermBlock:
        """``entry``'s candidates as a block (re-read by position when the stream can)."""
        values = entry.block if entry.block is not None else self._reread(entry)
        return TermBlock(self.name, entry.names, values, entry.columns, entry.specs, entry.pass_no, entry.positions,
                         entry.scored)

    def holds_for_confirmation(self, pass_no: int) -> bool:
        """Whether candidates rejected in pass ``pass_no`` are held for a confirmation, which
        may score them from their products (:attr:`ScoredAt.products`): the last pass's."""
        return self.hold_last and pass_no == self.passes

    def on_rejected(self, block: TermBlock, positions: np.ndarray, scored: ScoredAt | None = None) -> None:
        if block.pass_no > self.passes or (block.pass_no == self.passes and not self.hold_last):
            return
        pos = np.asarray(positions, dtype=int)
        if pos.size == 0:
            return
        self._rows = _rows(block.block)  # re-offers are joined by their number of values
        columns = None if block.columns is None else Picked(block.columns, pos)
        specs = None if block.specs is None else Picked(block.specs, pos)
        names = Picked(block.names, pos)
        b = block.block
        known = getattr(b, "norm2", None)
        if block.positions is not None:  # re-read when offered again: nothing copied
            norm2 = known[b.starts[pos]] if known is not None and (b.widths[pos] == 1).all() else None
            self.pending.append(_Reoffer(block.pass_no + 1, names, None, columns, specs,
                                         np.asarray(block.positions[pos], dtype=np.int64), norm2, scored))
            return
        widths = b.widths[pos]
        if (widths == 1).all():
            cols = b.starts[pos]
        else:
            cols = np.concatenate([np.arange(b.starts[j], b.starts[j] + b.widths[j]) for j in pos])
        values = b.values[:, cols]  # a copy: the stream may reuse its buffers
        copied = CandidateBlock(values, widths, None if known is None else known[cols])
        self.pending.append(_Reoffer(block.pass_no + 1, names, copied, columns, specs, scored=scored))

    def on_accept(self, term: AcceptedTerm) -> None:
        self.inner.on_accept(term)


def passes_for(holds_candidates: bool, passes: int, lazy_passes: int | None = None) -> int:
    """The passes over a stream that does (or does not) hold its candidates in memory.

    ``lazy_passes`` applies to a stream that does not (it re-reads its source on every
    pass); None gives every stream ``passes``.

    Examples
    --------
    >>> passes_for(True, 3, lazy_passes=1), passes_for(False, 3, lazy_passes=1), passes_for(False, 3)
    (3, 1, 3)
    """
    return passes if holds_candidates or lazy_passes is None else lazy_passes


def arrange_streams(streams: list[Stream], *, multistream: bool = True, passes: int = 1,
                    name: str = "all", lazy_passes: int | None = None, hold_last: bool = False) -> list[Stream]:
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
    lazy_passes : int, optional
        Passes over the streams that do not hold their candidates in memory
        (``Stream.holds_candidates`` False); None: ``passes`` for every stream.
    hold_last : bool
        Every stream that holds its candidates keeps its last pass's rejected ones
        (:meth:`PassesStream.held`), for a confirmation pass.
    """
    if not isinstance(passes, (int, np.integer)) or isinstance(passes, bool) or passes < 1:
        raise ValueError(f"passes must be a positive integer, got {passes!r}")
    if not multistream:
        streams = [ConcatStream(name, smallest_first(streams))]
    if lazy_passes is not None and lazy_passes < 1:
        raise ValueError(f"lazy_passes must be a positive integer, got {lazy_passes!r}")
    out: list[Stream] = []
    for s in streams:
        k = passes_for(s.holds_candidates, passes, lazy_passes)
        hold = hold_last and s.holds_candidates
        out.append(PassesStream(s, k, hold_last=hold) if k > 1 or hold else s)
    return out
