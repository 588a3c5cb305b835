"""Streams over in-memory matrices and over Python iterables (possibly infinite)."""
from __future__ import annotations

import itertools
from typing import Iterable, Iterator

import numpy as np
import pandas as pd

from ..models.base import CandidateBlock
from .base import NameRange, Stream, TermBlock


class MatrixStream(Stream):
    """Candidates are the columns of an ``n x m`` array (single-column terms).

    The matrix is sliced, never copied whole; ``order`` is a permutation of the columns.
    """

    def __init__(self, name: str, values: np.ndarray, names: list[str], order: np.ndarray | None = None):
        super().__init__(name)
        if values.ndim != 2:
            raise ValueError(f"stream {name!r}: expected a 2-D array of candidates, got {values.ndim}-D")
        if values.shape[1] == 0:
            raise ValueError(f"stream {name!r} is empty: it has no candidate columns")
        self.values = values
        self.names = names if isinstance(names, NameRange) else list(names)
        if not isinstance(names, NameRange) and len(set(self.names)) != len(self.names):
            dup = pd.Index(self.names)[pd.Index(self.names).duplicated()][0]
            raise ValueError(f"stream {name!r}: duplicated candidate name {dup!r}; names must be unique")
        self.order = None if order is None else np.asarray(order)
        self.position = 0
        self.n_candidates = values.shape[1]

    def _next_block(self, k: int) -> TermBlock | None:
        start, stop = self.position, min(self.position + k, self.n_candidates)
        if start >= stop:
            return None
        self.position = stop
        if self.order is None:
            idx = slice(start, stop)
            names = self.names[start:stop]
        else:
            idx = self.order[start:stop]
            names = [self.names[i] for i in idx]
        vals = np.asarray(self.values[:, idx], dtype=float)
        # NaN / inf surface as non-finite statistics and are reported by the search
        return TermBlock(self.name, names, CandidateBlock(vals))


class IterableStream(Stream):
    """Candidates from any iterable of ``(name, column)`` pairs or bare columns.

    Read lazily ``k`` at a time, so generators may be infinite; a 2-D item is a
    multi-column term tested jointly.
    """

    def __init__(self, name: str, items: Iterable, n_obs: int):
        super().__init__(name)
        self._it: Iterator = iter(items)
        self.n_obs = n_obs
        self.count = 0

    def _next_block(self, k: int) -> TermBlock | None:
        names, cols, widths = [], [], []
        for item in itertools.islice(self._it, k):
            self.count += 1
            if isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str):
                label, col = item
            else:
                label, col = f"{self.name}_{self.count}", item
            arr = np.asarray(col, dtype=float)
            if arr.ndim == 1:
                arr = arr[:, None]
            if arr.shape[0] != self.n_obs:
                raise ValueError(
                    f"stream {self.name!r}: candidate {label!r} has {arr.shape[0]} rows, "
                    f"the response has {self.n_obs}"
                )
            names.append(str(label))
            cols.append(arr)
            widths.append(arr.shape[1])
        if not names:
            if self.count == 0:
                raise ValueError(f"stream {self.name!r} is empty: the iterable yielded no candidate")
            return None
        values = np.concatenate(cols, axis=1)
        return TermBlock(self.name, names, CandidateBlock(values, np.asarray(widths)))
