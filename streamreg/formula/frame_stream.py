"""Candidates of a formula stream on the data frame, and the stream that offers them.

Plain numeric columns are sliced from one float matrix; factors and patsy terms are
evaluated by :func:`~.matrices.evaluate_term` in the formula namespace.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..models.base import CandidateBlock
from ..streams.arrays import reread_columns
from ..streams.base import AcceptedTerm, LazyRange, Stream, TermBlock
from ..streams.ordering import Order, candidate_order
from .matrices import Functions, evaluate_term
from .names import AnyName, rhs_variables
from .parse import FormulaError, StreamSpec


@dataclass
class Candidate:
    """A candidate term of a formula stream before evaluation."""

    name: str  # formula expression
    column: str | None  # the data column for plain numeric columns, else None
    factor: str | None = None  # the data column of a factor matched by a glob
    constant: bool = False  # a factor with a single level in the rows used: offered as a zero column

    def values(self, frame: pd.DataFrame, functions: Functions | None = None) -> tuple[np.ndarray, list[str]]:
        """The candidate's design columns on ``frame`` and their names (``functions`` as
        :func:`~.namespace.term_functions` gives them)."""
        if self.column is not None:
            return frame[self.column].to_numpy(dtype=float)[:, None], [self.name]
        if self.constant:
            # patsy codes a one-level factor as no column at all; a zero column is recorded
            # by the search as "skipped: constant", like a constant numeric column
            return np.zeros((len(frame), 1)), [self.name]
        return evaluate_term(self.name, frame, functions)


@dataclass(frozen=True)
class FrameColumn:
    """Where a selected plain column comes from: its data column and its position in the
    design's frame (the refit frame joins it; see :meth:`.Design.refit_positions`)."""

    column: str
    position: int


class FrameColumns(LazyRange[FrameColumn]):
    """The :class:`FrameColumn` of each candidate of a block, made only when read (a block
    of a wide stream has thousands of candidates and a handful are selected)."""

    def __init__(self, columns: Sequence[str], positions: np.ndarray, start: int, stop: int):
        self.columns, self.positions, self.start, self.stop = columns, positions, start, stop

    def _item(self, i: int) -> FrameColumn:
        return FrameColumn(self.columns[i], int(self.positions[i]))

    def _range(self, start: int, stop: int) -> FrameColumns:
        return FrameColumns(self.columns, self.positions, start, stop)


class FrameStream(Stream):
    """Candidates from a DataFrame: numeric columns sliced directly, other terms by patsy.

    A stream of plain numeric columns keeps them as one float matrix (``values``, one
    column per candidate, on the frame's rows) and their names, and hands out column
    slices of it: no Python object per candidate.  ``candidates`` (one :class:`Candidate`
    each) is built only when asked for.  Other terms are evaluated in the formula namespace
    with ``functions``, as every term of the formula is.  With ``positions`` (the columns'
    places in ``frame``) each block says where its candidates come from
    (:class:`FrameColumns`), so that the refit frame need not carry the unselected ones;
    ``norms`` are the columns' squared norms when the caller has them (one pass fewer).
    """

    holds_candidates = True

    def __init__(self, name: str, frame: pd.DataFrame, candidates: list[Candidate] | None = None, *,
                 names: list[str] | None = None, columns: list[str] | None = None,
                 values: np.ndarray | None = None, functions: Functions | None = None,
                 positions: np.ndarray | None = None, norms: np.ndarray | None = None):
        super().__init__(name)
        self.frame = frame
        self.functions = functions  # the formula's functions, for candidates patsy evaluates
        self._candidates = None if candidates is None else list(candidates)
        self._names, self._columns, self._values = names, columns, values
        self._positions, self._norms = positions, norms
        self.position = 0
        if candidates is not None:
            self.n_candidates = len(candidates)
        elif names is not None:
            self.n_candidates = len(names)
        else:
            raise TypeError("a FrameStream needs candidates, or names, columns and values")

    def _plain_parts(self) -> tuple[list[str], list[str], np.ndarray]:
        """The names, data columns and float matrix of a stream of plain numeric columns."""
        assert self._names is not None and self._columns is not None and self._values is not None
        return self._names, self._columns, self._values

    @property
    def plain(self) -> bool:
        """Whether every candidate is a numeric column held in ``values``."""
        return self._values is not None

    @property
    def candidates(self) -> list[Candidate]:
        if self._candidates is None:
            names, columns, _ = self._plain_parts()
            self._candidates = [Candidate(n, c) for n, c in zip(names, columns)]
        return self._candidates

    @candidates.setter
    def candidates(self, value: list[Candidate]) -> None:
        self._candidates = list(value)
        self._names = self._columns = self._values = self._positions = self._norms = None
        self.n_candidates = len(self._candidates)

    def permute(self, perm: np.ndarray) -> None:
        """Offer the candidates in the order ``perm``."""
        if self.plain:
            names, columns, values = self._plain_parts()
            self._names = [names[i] for i in perm]
            self._columns = [columns[i] for i in perm]
            self._values = values[:, perm]
            if self._positions is not None:
                self._positions = self._positions[perm]
            if self._norms is not None:
                self._norms = self._norms[perm]
            self._candidates = None
        else:
            self.candidates = [self.candidates[i] for i in perm]

    def _next_block(self, k: int) -> TermBlock | None:
        if self.plain:
            names, columns, matrix = self._plain_parts()
            start = self.position
            stop = min(start + k, len(names))
            self.position = stop
            if stop <= start:
                return None
            sources = None if self._positions is None else FrameColumns(columns, self._positions, start, stop)
            norms = None if self._norms is None else self._norms[start:stop]
            block = CandidateBlock(matrix[:, start:stop], norm2=norms)
            return TermBlock(self.name, names[start:stop], block, specs=sources,
                             positions=np.arange(start, stop, dtype=np.int64))
        chunk = self.candidates[self.position : self.position + k]
        self.position += len(chunk)
        if not chunk:
            return None
        n = len(self.frame)
        if all(c.column is not None for c in chunk):
            values = self.frame[[c.column for c in chunk]].to_numpy(dtype=float)
            return TermBlock(self.name, [c.name for c in chunk], CandidateBlock(values))
        mats: list[np.ndarray] = []
        widths: list[int] = []
        cols: list[list[str]] = []
        for c in chunk:
            mat, names = c.values(self.frame, self.functions)
            mats.append(mat)
            cols.append(names)
            widths.append(mats[-1].shape[1])
        values = np.concatenate(mats, axis=1) if mats else np.empty((n, 0))
        return TermBlock(self.name, [c.name for c in chunk], CandidateBlock(values, np.asarray(widths)), cols)

    def reread(self, positions: np.ndarray) -> CandidateBlock | None:
        """Columns ``positions`` of the plain matrix (a copy's values and layout); other
        streams set no positions, so this is asked of plain ones only."""
        if not self.plain:
            return None
        return reread_columns(self._plain_parts()[2], positions)

    # random access, for streams generated from these candidates (interactions)
    @property
    def term_names(self) -> list[str]:
        if self.plain:
            return list(self._plain_parts()[0])
        return [c.name for c in self.candidates]

    def is_single_column(self, i: int) -> bool:
        return self.plain or self.candidates[i].column is not None

    def term_values(self, i: int) -> np.ndarray:
        if self.plain:
            return np.array(self._plain_parts()[2][:, i : i + 1], dtype=float)
        return self.candidates[i].values(self.frame, self.functions)[0]

    def numeric_values(self) -> np.ndarray:
        """All candidates as one matrix (single numeric columns only)."""
        if self.plain:
            return self._plain_parts()[2]
        return self.frame[[c.column for c in self.candidates]].to_numpy(dtype=float)


def refit_positions(frame: pd.DataFrame, plain: np.ndarray, accepted: Iterable[AcceptedTerm],
                    sources: Iterable[str] = ()) -> np.ndarray:
    """Positions in ``frame`` of its columns but the plain stream columns (positions
    ``plain``) no selected term uses.

    A wide stream's columns are the bulk of the design's frame; the refit, the results and
    predictions need only the selected ones.  A selected plain column says where it is
    (:class:`FrameColumn`); other selected terms (an interaction of stream columns, say)
    are asked which data columns they refer to.  ``sources`` are kept too (the columns of
    generated components, which predictions rebuild).
    """
    keep = np.ones(frame.shape[1], dtype=bool)
    if not len(plain):
        return np.flatnonzero(keep)
    keep[plain] = False
    named: set[str] = set(sources)
    others = []
    for term in accepted:
        if isinstance(term.spec, FrameColumn):
            keep[term.spec.position] = True
        else:
            others.append(term.name)
    if others:
        try:
            named |= rhs_variables(" + ".join(others), AnyName())
        except FormulaError:  # not a patsy term: keep every column, as a refit on the whole frame would
            return np.arange(frame.shape[1])
    if named:  # a look-up of a few names: one hash of the frame's labels
        at = frame.columns.get_indexer(pd.Index(sorted(named)))
        keep[at[at >= 0]] = True
    return np.flatnonzero(keep)


def frame_order(st: FrameStream, order: Order, y: np.ndarray, spec: StreamSpec, label: str) -> np.ndarray | None:
    """Permutation of a ``stream()``'s candidates for its ``order=`` option."""
    if isinstance(order, str) and order in ("given", "random"):
        return candidate_order(None, order, seed=spec.options.get("seed"), n=st.n_candidates, what=label)
    if not (st.plain or all(c.column is not None for c in st.candidates)):
        raise FormulaError(f"{spec.text}: order={spec.options.get('order')!r} scores single numeric columns; "
                           "this stream has factor or multi-column terms (use 'given' or 'random')")
    values = st.numeric_values()
    return candidate_order(values, order, y=y, seed=spec.options.get("seed"), what=label)
