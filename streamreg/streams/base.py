"""Streams: lazy sources of candidate terms, consumed in blocks.

A stream hands out candidates ``take(k)`` at a time as a :class:`TermBlock` (names plus
one stacked matrix), so that a million single-column candidates never become a million
Python objects, and an infinite generator is read only as far as the search goes.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar, overload

import numpy as np

from ..models.base import CandidateBlock, CandidateValues
from ..models.rescore import KeptProducts
from ..outcomes import TestOutcomes

T = TypeVar("T")


class LazyRange(Sequence[T]):
    """Items ``start`` .. ``stop - 1`` of something, each made only when read; a slice is
    another range over the same source.  Subclasses say how to make item ``i``
    (:meth:`_item`) and a range of their own kind (:meth:`_range`)."""

    start: int
    stop: int

    @abstractmethod
    def _item(self, i: int) -> T:
        """Item ``i`` of the source."""

    @abstractmethod
    def _range(self, start: int, stop: int) -> LazyRange[T]:
        """Items ``start`` .. ``stop - 1`` of the same source."""

    def __len__(self) -> int:
        return max(self.stop - self.start, 0)

    @overload
    def __getitem__(self, i: int) -> T: ...

    @overload
    def __getitem__(self, i: slice) -> Sequence[T]: ...

    def __getitem__(self, i: int | slice) -> T | Sequence[T]:
        if isinstance(i, slice):
            lo, hi, step = i.indices(len(self))
            if step != 1:
                return [self[j] for j in range(lo, hi, step)]
            return self._range(self.start + lo, self.start + max(hi, lo))
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        return self._item(self.start + i)


class NameRange(LazyRange[str]):
    """The names ``f"{prefix}{start}"`` ... ``f"{prefix}{stop - 1}"``, made only when read.

    Long generated streams name millions of candidates of which a handful are selected;
    building every string up front would cost more than scoring them.
    """

    def __init__(self, prefix: str, start: int, stop: int):
        self.prefix, self.start, self.stop = prefix, start, stop

    def _item(self, i: int) -> str:
        return f"{self.prefix}{i}"

    def _range(self, start: int, stop: int) -> NameRange:
        return NameRange(self.prefix, start, stop)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Iterable):
            return NotImplemented
        return list(self) == list(other)


def term_columns(names: Sequence[str], columns: Sequence[list[str] | None] | None, j: int) -> list[str]:
    """The design columns of term ``j`` (its name when the stream gives none)."""
    cols = None if columns is None else columns[j]
    return [names[j]] if cols is None else list(cols)


@dataclass
class ScoredAt:
    """Outcomes of some candidates against the model that ``token`` names.

    A search names each version of its model by a fresh object (a new one after every
    entry), so outcomes kept with a re-offered or held candidate are reused exactly when
    the model has not changed since they were computed, and the candidate is not read again.
    """

    token: object
    outcomes: TestOutcomes
    #: the products behind the outcomes, for the last pass's candidates that a confirmation
    #: may test against a model nested in this one (single-column least-squares terms only)
    products: KeptProducts | None = None

    def take(self, index: slice | np.ndarray) -> ScoredAt:
        return ScoredAt(self.token, self.outcomes.take(index), None if self.products is None else self.products.take(index))


@dataclass
class TermBlock:
    """Consecutive candidates of one stream.

    ``names[j]`` is term j's name (a formula-ready expression where the stream knows
    one); ``columns[j]`` the names of its design columns (None: the term name).
    ``specs[j]`` is whatever the stream needs to rebuild the term on new data.
    ``positions[j]`` is term j's index in its stream's own numbering, set only by streams
    that can rebuild their candidates from it (:meth:`Stream.reread`), so that a re-offer
    in a later pass keeps 8 bytes per candidate instead of its values.
    """

    stream: str
    names: Sequence[str]
    block: CandidateValues
    columns: Sequence[list[str] | None] | None = None
    specs: Sequence[Any] | None = None
    pass_no: int = 1  # which pass over the stream offers these candidates (history column)
    positions: np.ndarray | None = None  # int64, see above; None: the stream cannot re-read them
    #: the candidates' outcomes against a model that may still be the current one (re-offers)
    scored: ScoredAt | None = None

    def __len__(self) -> int:
        return len(self.names)

    def column_names(self, j: int) -> list[str]:
        return term_columns(self.names, self.columns, j)

    def spec(self, j: int) -> Any:
        return None if self.specs is None else self.specs[j]

    def tail(self, start: int) -> TermBlock:
        """The candidates from position ``start`` on."""
        return TermBlock(
            self.stream,
            self.names[start:],
            self.block.tail(start),
            None if self.columns is None else self.columns[start:],
            None if self.specs is None else self.specs[start:],
            self.pass_no,
            None if self.positions is None else self.positions[start:],
            None if self.scored is None else self.scored.take(slice(start, None)),
        )

    def head(self, stop: int) -> TermBlock:
        """The candidates before position ``stop`` (a block in memory only)."""
        block = self.block
        assert isinstance(block, CandidateBlock)
        return TermBlock(
            self.stream,
            self.names[:stop],
            block.head(stop),
            None if self.columns is None else self.columns[:stop],
            None if self.specs is None else self.specs[:stop],
            self.pass_no,
            None if self.positions is None else self.positions[:stop],
            None if self.scored is None else self.scored.take(slice(0, stop)),
        )


@dataclass
class AcceptedTerm:
    """A term the search selected, with its values on the training rows."""

    name: str
    stream: str
    values: np.ndarray
    columns: list[str]
    spec: Any = None
    extra: dict[str, Any] = field(default_factory=dict)


class Stream(ABC):
    """Base class of candidate streams.

    Subclasses implement :meth:`_next_block`; dynamic streams (interactions) may also
    override :meth:`on_accept` to grow from accepted terms.
    """

    def __init__(self, name: str):
        self.name = name
        self.exhausted = False

    #: number of candidates if known in advance (None for generators)
    n_candidates: int | None = None
    #: whether the candidates' values are held in memory (an array, a frame), so that
    #: re-offering rejected ones in further passes keeps nothing the stream does not hold
    holds_candidates: bool = False

    @property
    def horizon(self) -> int | None:
        """Most tests the stream can offer (None if unknown): what a rule that spreads its
        spending over the stream (``spending="uniform"``) divides its wealth by."""
        return self.n_candidates

    def take(self, k: int) -> TermBlock | None:
        """Up to ``k`` next candidates, or None when the stream has none left now."""
        if self.exhausted:
            return None
        block = self._next_block(k)
        if block is None or len(block) == 0:
            self.exhausted = True
            return None
        return block

    @abstractmethod
    def _next_block(self, k: int) -> TermBlock | None:
        """Up to k next candidates (None or empty when there are none)."""

    def on_accept(self, term: AcceptedTerm) -> None:
        """Called for every accepted term, whatever its stream."""

    def reread(self, positions: np.ndarray) -> CandidateValues | None:
        """A fresh block of the candidates at ``positions`` (the ``TermBlock.positions`` this
        stream set), bit-identical to what a copy of their values would hold; None when the
        stream cannot read a candidate twice (generators, Dask arrays): it then sets no
        positions and a re-offer keeps a copy of the values."""
        return None

    def on_rejected(self, block: TermBlock, positions: np.ndarray, scored: ScoredAt | None = None) -> None:
        """Called with the positions in ``block`` of this stream's tested, rejected candidates
        and, optionally, their outcomes against the model they were tested against.

        A stream that re-offers rejected candidates in later passes keeps what it needs
        to rebuild them here (and sets ``pass_no`` on the blocks it offers again).
        """

    def describe(self) -> str:
        return self.name
