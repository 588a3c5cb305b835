"""Reading generator items with each column copied before the next item is read.

A generator may yield one buffer again and again, overwritten in between (``buf[:] = x;
yield name, buf``).  Holding references until the block is stacked would score every item
of a block as the last one yielded, silently.  So each column is copied into a row of the
block's buffer as soon as it is read, by C-level iterators: no Python call per item, and
the one copy is the one the block needed anyway.
"""
from __future__ import annotations

import warnings
from collections import deque
from collections.abc import Iterator
from itertools import count, filterfalse, islice
from operator import itemgetter
from typing import Any

import numpy as np

#: numpy's warning when complex values are written into a float array (moved in numpy 1.25)
_COMPLEX_WARNING: type[Warning] = getattr(getattr(np, "exceptions", np), "ComplexWarning")

#: most rows of one buffer (bytes / 8): a larger block is read into several and joined
_CHUNK_BYTES = 1 << 26


class CopiedItems:
    """Up to ``k`` items of ``it`` (all read here), with float copies of the first columns.

    ``rows[i]`` is item ``i``'s column as ``n`` floats for ``i < copied``.  Copying stops
    at the first item whose column does not fit a row (a multi-column term, a wrong
    length, ...): that item is then ``items[-1]`` and nothing after it is read, so the
    caller can read the rest one by one.  An error raised by the iterator itself propagates.

    ``pairs``: the items are ``(name, column)`` pairs (the column is ``item[1]``), else
    bare columns.  A column that numpy writes into a row but that is not a numeric array
    (strings, a scalar broadcast over the row) is for the caller to check on ``items``.
    """

    def __init__(self, it: Iterator[Any], k: int, n: int, pairs: bool):
        self.items: list[Any] = []
        got = filterfalse(self.items.append, islice(it, k))  # append returns None: every item passes on, recorded
        cols = map(itemgetter(1), got) if pairs else got
        size = max(1, min(k, _CHUNK_BYTES // 8 // max(n, 1)))
        chunks: list[np.ndarray] = []
        self.copied = 0
        while self.copied < k:
            chunk = np.empty((min(size, k - self.copied), n))
            done = _fill(chunk, islice(cols, len(chunk)), self.items)
            chunks.append(chunk[:done])
            self.copied += done
            if done < len(chunk):  # the iterator ended, or an item did not fit
                break
        rows = chunks[0] if len(chunks) == 1 else np.concatenate(chunks)
        if rows.base is not None and 2 * len(rows) < rows.base.shape[0]:
            rows = rows.copy()  # a short last block: do not keep the whole buffer alive
        self.rows = rows


def _fill(chunk: np.ndarray, cols: Iterator[Any], items: list[Any]) -> int:
    """Write ``cols`` into the rows of ``chunk`` as read; the number of rows written.

    ``map`` draws the row index before the column: after an error, the index count tells
    whether the failing item was read (it did not fit: the caller handles it) or the
    iterator itself raised (re-raised).
    """
    before = len(items)
    index = count()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", _COMPLEX_WARNING)  # complex values: refused, not truncated
            deque(map(chunk.__setitem__, index, cols), maxlen=0)
    except Exception:
        drawn = next(index)  # rows attempted, the failing one included
        if len(items) - before < drawn:  # the iterator raised before handing an item
            raise
        return drawn - 1
    return next(index) - 1
