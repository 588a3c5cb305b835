"""Streams over in-memory matrices and over Python iterables (possibly infinite)."""
from __future__ import annotations

import contextlib
import gc
import itertools
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence, Sized
from functools import partial
from itertools import islice
from operator import attrgetter, itemgetter
from typing import Any

import numpy as np
import pandas as pd

from ..models.base import CandidateBlock, column_norms
from ..models.kernels import kernel_for
from .base import AcceptedTerm, NameRange, Stream, TermBlock
from .item_reader import CopiedItems


class MatrixStream(Stream):
    """Candidates are the columns of an ``n x m`` array (single-column terms).

    The matrix is sliced, never copied whole; ``order`` is a permutation of the columns.
    """

    holds_candidates = True

    n_candidates: int

    def __init__(self, name: str, values: np.ndarray, names: Sequence[str], order: np.ndarray | None = None):
        super().__init__(name)
        if values.ndim != 2:
            raise ValueError(f"stream {name!r}: expected a 2-D array of candidates, got {values.ndim}-D")
        if values.shape[1] == 0:
            raise ValueError(f"stream {name!r} is empty: it has no candidate columns")
        self.values = values
        self.names: Sequence[str] = names if isinstance(names, NameRange) else list(names)
        if not isinstance(names, NameRange) and len(set(self.names)) != len(self.names):
            dup = pd.Index(self.names)[pd.Index(self.names).duplicated()][0]
            raise ValueError(f"stream {name!r}: duplicated candidate name {dup!r}; names must be unique")
        self.order = None if order is None else np.asarray(order)
        self.position = 0
        self.n_candidates = values.shape[1]
        # squared column norms, computed over wide slices as the blocks reach them: a pass
        # over a 100 x 4,096 slice of a C-ordered matrix runs at half the speed of a wide one
        self._norms: np.ndarray | None = None
        self._normed = 0

    def _next_block(self, k: int) -> TermBlock | None:
        start, stop = self.position, min(self.position + k, self.n_candidates)
        if start >= stop:
            return None
        self.position = stop
        idx: slice | np.ndarray
        names: Sequence[str]
        positions: np.ndarray
        if self.order is None:
            idx = slice(start, stop)
            names = self.names[start:stop]
            positions = np.arange(start, stop, dtype=np.int64)
        else:
            idx = self.order[start:stop]
            names = [self.names[i] for i in idx]
            positions = np.asarray(idx, dtype=np.int64)
        check = partial(_refuse_nonfinite, self.name, names)
        block = self._block(idx, stop, check)
        if not block.check_pending:
            # the norms the scoring needs anyway show NaN and inf, so checking costs no extra pass
            check(block)
        return TermBlock(self.name, names, block, positions=positions)

    def _block(self, idx: slice | np.ndarray, stop: int,
               check: Callable[[CandidateBlock], None] | None = None) -> CandidateBlock:
        """The block of columns ``idx`` (the block ending at stream position ``stop``).

        A block the fused kernel scores (:mod:`streamreg.models.kernels`) gets its norms in
        its first scoring pass, and ``check`` then; any other gets them here, over wide slices.
        """
        values = np.asarray(self.values[:, idx], dtype=float)
        if check is not None and kernel_for(values) == "numba":
            return CandidateBlock(values, check=check)
        return CandidateBlock(values, norm2=self._block_norms(idx, stop))

    def reread(self, positions: np.ndarray) -> CandidateBlock:
        """Columns ``positions`` of the matrix, as a fresh block (the values are still here).

        The values a copy from an offered block holds; the norms are left to the block, as a
        copy's would be.  A run of consecutive positions (the rejections between two
        acceptances) of a float matrix is a view, as the first pass's blocks are
        (:func:`reread_columns`)."""
        return reread_columns(self.values, positions)

    def _block_norms(self, idx: slice | np.ndarray, stop: int) -> np.ndarray | None:
        """The squared norms of columns ``idx`` (the block ending at stream position ``stop``),
        or None (the block computes its own) when the values are not float64."""
        if self.values.dtype != np.float64:
            return None
        m = self.n_candidates
        if self._norms is None:
            self._norms = np.empty(m)
        if self.order is not None:  # the blocks visit the columns out of order: all at once
            if self._normed < m:
                self._norms[:] = column_norms(self.values)
                self._normed = m
            return self._norms[idx]
        wide = max(stop - self._normed, (1 << 24) // max(self.values.shape[0], 1))
        while self._normed < stop:
            hi = min(self._normed + wide, m)
            self._norms[self._normed:hi] = column_norms(self.values[:, self._normed:hi])
            self._normed = hi
        return self._norms[idx]


#: positions re-read per run, at least, for a copy run by run (else one fancy index)
RUN_COPY_MIN = 16


def reread_columns(values: np.ndarray, positions: np.ndarray) -> CandidateBlock:
    """Columns ``positions`` of ``values`` as a fresh block, holding the values of numpy's
    fancy index ``values[:, positions]``.

    A run of consecutive columns of a float64 matrix is a view, as the first pass's blocks
    are, in either layout: a copy out of a row-ordered matrix into the fancy index's
    column-ordered layout costs about as much as scoring the columns where they lie.  A few
    runs are copied run by run in the matrix's own layout (the fancy index gathers element by
    element across a row-ordered matrix's rows, five times slower).  A block read in place
    from a row-ordered matrix is scored row-ordered, so its statistics may differ in the last
    digits from those of a column-ordered copy of the same values.
    """
    pos = np.asarray(positions)
    breaks = np.flatnonzero(np.diff(pos) != 1) + 1
    if pos.size and not breaks.size and values.dtype == np.float64:
        return CandidateBlock(values[:, int(pos[0]):int(pos[-1]) + 1])
    if pos.size and values.ndim == 2 and values.flags.c_contiguous and breaks.size < pos.size // RUN_COPY_MIN:
        out = np.empty((values.shape[0], pos.size))
        for a, b in zip(np.r_[0, breaks].tolist(), np.r_[breaks, pos.size].tolist()):
            out[:, a:b] = values[:, int(pos[a]):int(pos[b - 1]) + 1]
        return CandidateBlock(out)
    return CandidateBlock(np.asarray(values[:, positions], dtype=float))


def _refuse_nonfinite(stream: str, names: Sequence[str], block: CandidateBlock) -> None:
    """Refuse a block with a NaN or infinite candidate, by name (from the block's norms)."""
    bad = block.nonfinite_columns()
    if bad.size:
        raise ValueError(f"stream {stream!r}: candidate {names[int(bad[0])]!r} contains NaN or infinite "
                         "values; drop or impute them before selection")


class CandidateNames:
    """The candidate names taken so far in one search, shared by its streams.

    The refit formula refers to selected terms by name, so a candidate named like the
    response, a fixed column or another candidate would silently stand for the wrong
    column.  Names known in advance are claimed up front; generator items as read.

    Parameters
    ----------
    reserved : mapping, optional
        Names no candidate may take, and what they are ("the response", ...).
    remember_items : bool, default True
        Keep the names of generator items once their block is read.  ``False`` (a search
        with ``history="none"``) keeps only the names claimed up front and those of
        accepted terms (:meth:`keep`), so that memory stays flat on an infinite generator:
        a repeated name is then refused within a block, against the response, the fixed
        columns, the array and frame streams and the accepted terms, but not against a
        rejected item of an earlier block, whose name is not kept anywhere.
    """

    def __init__(self, reserved: Mapping[str, str] | None = None, *, remember_items: bool = True):
        self.reserved = dict(reserved or {})
        self.remember_items = remember_items
        self._owner: dict[str, str] = {}
        self._ranges: list[tuple[NameRange, str]] = []
        # generator items' names: one set (a repeat shows as a set that grew by less than the
        # block), and each block's names with its stream, read only to name the clash
        self._items: set[str] = set()
        self._blocks: list[tuple[str, list[str]]] = []

    @property
    def n_kept(self) -> int:
        """How many names are kept (claimed up front, accepted, and remembered generator items)."""
        return len(self._owner) + len(self._items)

    def claim(self, label: str, stream: str) -> None:
        """Take ``label`` for a candidate of ``stream`` (known in advance); ValueError if it is taken."""
        self._check(label, stream, {})
        self._owner[label] = stream

    def claim_all(self, labels: list[str], stream: str) -> None:
        """Take the names of one block of generator items; set operations when nothing clashes."""
        if self._ranges:  # generated names of array streams: asked one by one
            self._check_each(labels, stream)
        items = self._items if self.remember_items else set()
        before = len(items)
        items.update(labels)  # one hash and one insert per name
        if (len(items) != before + len(labels) or _meets(self.reserved, labels, items)
                or _meets(self._owner, labels, items)):
            if self.remember_items:  # back to the names before this block (an error follows: rare)
                self._items = {n for _, block in self._blocks for n in block}
            self._check_each(labels, stream)  # raises, naming the clash
        if self.remember_items:
            self._blocks.append((stream, labels))

    def _check_each(self, labels: list[str], stream: str) -> None:
        block: dict[str, str] = {}
        for label in labels:  # one at a time, for the message that names the clash
            self._check(label, stream, block)
            block[label] = stream

    def keep(self, label: str, stream: str) -> None:
        """Remember an accepted term's name (already checked when its block was read)."""
        self._owner[label] = stream

    def _check(self, label: str, stream: str, block: Mapping[str, str]) -> None:
        """ValueError if ``label`` is reserved, taken, or already in the current ``block``."""
        if label in self.reserved:
            raise ValueError(f"stream {stream!r}: candidate {label!r} has the name of {self.reserved[label]}; "
                             "rename one of them")
        other = (block.get(label) or self._owner.get(label)
                 or next((s for r, s in self._ranges if _in_range(label, r)), None)
                 or (self._item_stream(label) if label in self._items else None))
        if other == stream:
            raise ValueError(f"stream {stream!r}: duplicate candidate name {label!r}; candidate names must be unique")
        if other is not None:
            raise ValueError(f"duplicate candidate name {label!r} in streams {other!r} and {stream!r}; candidate "
                             "names must be unique across streams")

    def _item_stream(self, label: str) -> str | None:
        """The stream of the generator item named ``label`` (a scan: only to name a clash)."""
        return next((s for s, names in self._blocks if label in names), None)

    def claim_range(self, names: NameRange, stream: str) -> None:
        """Take the generated names ``prefix0, prefix1, ...`` of an array stream."""
        for label, what in self.reserved.items():
            if _in_range(label, names):
                raise ValueError(f"stream {stream!r}: candidate {label!r} has the name of {what}; rename one of "
                                 "them (or give the stream as a DataFrame with other column names)")
        for label, other in [*self._owner.items(), *((n, s) for s, block in self._blocks for n in block)]:
            if _in_range(label, names):
                raise ValueError(f"duplicate candidate name {label!r} in streams {other!r} and {stream!r}; "
                                 "candidate names must be unique across streams")
        self._ranges.append((names, stream))


def _meets(taken: Mapping[str, str], labels: list[str], items: set[str]) -> bool:
    """Whether one of ``labels`` (all of them in ``items``, whose other names meet none of
    ``taken``) is a key of ``taken``: a look-up per key of a small ``taken`` (the response
    and a few fixed columns) instead of a pass over a block of thousands of labels."""
    if len(taken) < len(labels):
        return any(key in items for key in taken)
    return not taken.keys().isdisjoint(labels)


def _in_range(label: str, names: NameRange) -> bool:
    """Whether ``label`` is one of the generated names ``prefix{start}`` ... ``prefix{stop - 1}``."""
    digits = label[len(names.prefix):]
    return (label.startswith(names.prefix) and digits.isdigit() and str(int(digits)) == digits
            and names.start <= int(digits) < names.stop)


class IterableStream(Stream):
    """Candidates from any iterable of ``(name, column)`` pairs or bare columns.

    Read lazily ``k`` at a time, so generators may be infinite; a 2-D item is a
    multi-column term tested jointly.  Each item is checked as it is read: a clear
    error names the item when it is neither a ``(name, column)`` pair nor a numeric
    column of ``n_obs`` rows, or when its name is taken (see :class:`CandidateNames`).

    Parameters
    ----------
    name : str
        The stream's name.
    items : iterable
        ``(name, column)`` pairs or bare columns (named ``f"{name}_{i}"``).
    n_obs : int
        Rows every column must have.
    names : CandidateNames, optional
        The names taken so far, shared by the streams of one search (default: this
        stream's own).
    """

    def __init__(self, name: str, items: Iterable, n_obs: int, names: CandidateNames | None = None):
        super().__init__(name)
        #: a list, a range, ``iter(list)``: finite and known to be so (a generator may not end)
        self.known_length = isinstance(items, Sized) or hasattr(type(items), "__length_hint__")
        self._it: Iterator = iter(items)
        self.n_obs = n_obs
        self.count = 0
        self.names = names if names is not None else CandidateNames()

    def _next_block(self, k: int) -> TermBlock | None:
        with _no_cyclic_gc():
            return self._read_block(k)

    def _read_block(self, k: int) -> TermBlock | None:
        first = next(self._it, _END)
        if first is _END:
            if self.count == 0:
                raise ValueError(f"stream {self.name!r} is empty: the iterable yielded no candidate")
            return None
        # every column is copied as read: a generator may yield one buffer, overwritten
        read = CopiedItems(itertools.chain((first,), self._it), k, self.n_obs, type(first) is tuple)
        fast = self._plain_columns(read)
        if fast is not None:
            return fast
        names, cols, widths = [], [], []
        rest = islice(self._it, k - len(read.items)) if len(read.items) > read.copied else ()
        for i, item in enumerate(itertools.chain(read.items, rest)):  # the rest: read one by one
            self.count += 1
            label, arr = self._item(item, read.rows[i] if i < read.copied else None)
            names.append(label)
            cols.append(arr)
            widths.append(arr.shape[1])
        self.names.claim_all(names, self.name)
        values = np.concatenate(cols, axis=1)
        return TermBlock(self.name, names, CandidateBlock(values, np.asarray(widths)))

    def _plain_columns(self, read: CopiedItems) -> TermBlock | None:
        """The block at array speed when every item is a ``(str, column)`` pair, or every item
        a bare column, and every column a numeric array of ``n_obs`` values; None otherwise.

        The checks of :meth:`_item` then reduce to set operations over the block (the
        values are already copied); finiteness is read from the block's column norms.
        Anything else takes the per-item path, which names the offending item.
        """
        items = read.items
        if read.copied < len(items):
            return None
        kinds = set(map(type, items))  # map: the loop runs in C, a million items a second faster
        if kinds == {tuple}:
            if set(map(len, items)) != {2}:
                return None
            labels, cols = list(map(itemgetter(0), items)), list(map(itemgetter(1), items))
            if set(map(type, labels)) != {str}:
                return None
        elif kinds == {np.ndarray}:
            labels = [f"{self.name}_{self.count + i + 1}" for i in range(len(items))]
            cols = items
        else:
            return None
        if set(map(type, cols)) != {np.ndarray}:
            return None  # numpy wrote them into rows; lists, Series, scalars take the checks of _item
        forms = set(map(_shape_dtype, cols))
        if any(shape != (self.n_obs,) or dtype.kind not in "biuf" for shape, dtype in forms):
            return None
        block = CandidateBlock(read.rows.T)  # one row per candidate: the transpose is a view
        bad = block.nonfinite_columns()
        if bad.size:
            self.count += int(bad[0]) + 1
            raise ValueError(f"stream {self.name!r}: candidate {labels[int(bad[0])]!r} contains NaN or infinite "
                             "values; drop or impute them before selection")
        self.names.claim_all(labels, self.name)
        self.count += len(items)
        return TermBlock(self.name, labels, block)

    def on_accept(self, term: AcceptedTerm) -> None:
        if term.stream == self.name and not self.names.remember_items:
            self.names.keep(term.name, self.name)  # a later item may not take an accepted term's name

    def _expected(self) -> str:
        return f"expected a (name, column) pair or a numeric column of length {self.n_obs}"

    def _item(self, item: Any, row: np.ndarray | None) -> tuple[str, np.ndarray]:
        """The name and the ``n_obs x d`` float matrix (a copy) of one item; clear errors otherwise.

        ``row``: the item's column as already copied when it was read (its values then, in
        case the generator has since overwritten its buffer), or None.
        """
        where = f"stream {self.name!r}: item {self.count}"
        if isinstance(item, tuple) and len(item) == 2 and _ndim(item[1]) >= 1 and _ndim(item[0]) == 0:
            label, col = item
            if not isinstance(label, str):
                raise TypeError(f"{where} has the name {label!r} ({type(label).__name__}); names must be strings")
        elif isinstance(item, (str, bytes, Mapping, set, frozenset)) or item is None:
            raise TypeError(f"{where} is a {type(item).__name__} ({_short(item)}); {self._expected()}")
        else:
            label, col = f"{self.name}_{self.count}", item
        arr = _numeric(col, f"{where} ({label!r})", self._expected())
        if arr.ndim == 1:
            arr = arr[:, None]
        if arr.shape[0] != self.n_obs:
            raise ValueError(
                f"stream {self.name!r}: candidate {label!r} has {arr.shape[0]} rows, "
                f"the response has {self.n_obs}"
            )
        if arr.shape[1] == 0:
            raise ValueError(f"stream {self.name!r}: candidate {label!r} has no columns")
        arr = row[:, None] if row is not None and arr.shape[1] == 1 else np.array(arr, dtype=float)
        if not np.isfinite(arr).all():  # caught here, before the scoring warns about it
            raise ValueError(f"stream {self.name!r}: candidate {label!r} contains NaN or infinite values; "
                             "drop or impute them before selection")
        return label, arr


@contextlib.contextmanager
def _no_cyclic_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while a block of items is read.

    Holding thousands of fresh ``(name, column)`` tuples makes CPython run full collections
    that traverse all of them again and again: it doubled the cost of reading a generator.
    Reference counting still frees everything; at most one block of cyclic garbage made by
    the user's generator waits for the next collection.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


_END = object()  # the end of an iterator (next's default)
_shape_dtype = attrgetter("shape", "dtype")


def _ndim(x: Any) -> int:
    """``np.ndim`` that answers -1 for ragged nested sequences instead of raising."""
    try:
        return np.ndim(x)
    except ValueError:
        return -1


def _short(item: Any) -> str:
    text = repr(item)
    return text if len(text) <= 40 else text[:37] + "..."


def _numeric(col: Any, where: str, expected: str) -> np.ndarray:
    """A column (or matrix) as floats; an error naming the item when it is not numeric."""
    values = col.to_numpy() if isinstance(col, (pd.Series, pd.DataFrame)) else col
    try:
        arr = np.asarray(values)
    except ValueError:  # ragged nested lists
        raise ValueError(f"{where} is not a rectangular numeric array; {expected}") from None
    if arr.ndim == 0:
        raise TypeError(f"{where} is a single value ({_short(col)}); {expected}")
    if arr.ndim > 2:
        raise ValueError(f"{where} has {arr.ndim} dimensions; {expected} (or an n x d matrix for a multi-column term)")
    if arr.dtype.kind in "biuf":
        return arr.astype(float, copy=False)
    if arr.dtype.kind in "mM":
        raise ValueError(f"{where} holds dates or times ({arr.dtype}); convert them to numbers first")
    try:
        if arr.dtype.kind != "O":
            raise TypeError
        return arr.astype(float)
    except (TypeError, ValueError):
        raise ValueError(f"{where} is not numeric (dtype {arr.dtype}); {expected}") from None
