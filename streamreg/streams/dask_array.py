"""Candidates in a Dask array: scored where they live, fetched only when accepted.

A :class:`DaskArrayStream` hands out blocks of columns of an ``n x m`` ``dask.array``.
Scoring a block is one pass over its values (:meth:`CandidateBlock.reduce_single`): here
each chunk runs it on the worker that holds the chunk, against the current model's
``[Q r]`` (least squares) or weighted ``[Q z]`` and weights (GLMs), which travel with the
task; the driver receives three numbers per candidate (gain, rank, constant) and computes
the column of a candidate only when the rule accepts it.  The kernel is the in-memory
path's own function on the same values, so the decisions are those of the numpy path.

Tall data (many rows): when a column chunk is too large to gather on one worker, the rows
stay chunked and a block is scored by reductions over row chunks: each chunk contributes
its part of ``[Q t]' B`` and of the column norms, the parts are summed on the workers, and
the driver finishes the statistics from those sums (:func:`gain_from_products`); only the
rare near-collinear or badly scaled columns are fetched.  Memory per worker is then a few
chunks; the driver holds the model (n x k for k selected terms), never the candidates.

With a ``distributed`` client, the chunks after the current block are scored ahead
against the same model (at most ``ahead`` blocks in flight), so the workers keep busy
while the driver records decisions; an acceptance changes the model and the speculative
results are dropped.  Without a client, each block is computed by the default scheduler.
Each chunk is scored by one task that reads (or generates) its values and scores them; the
values of blocks scored ahead are kept on the workers only while acceptances are frequent.

Cost on small machines: with few cores the driver, the scheduler and the workers' event
loops share the CPUs with the scoring (measured on 2 cores: about 15-25 ms of CPU per chunk
task in all, for 70 ms of work), so fewer, wider chunks pay off, and so does turning off the
workers' statistical profiler, which samples every task thread every 10 ms: set
``distributed.worker.profile.enabled: False`` (or ``DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED=False``
in the workers' environment) before starting the cluster.
"""
from __future__ import annotations

import hashlib
import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..models.base import CandidateBlock, gain_from_products, reduce_single_columns
from .base import NameRange, Stream, TermBlock

#: a column chunk above this size (rows x width x 8 bytes) is not gathered onto one worker
#: by default: its candidates are scored by sums over row chunks instead
GATHER_BYTES = 256 << 20
#: a block above this size is not kept on the workers between rescores (regenerating or
#: re-reading tall data is cheaper than holding it)
KEEP_BYTES = 2 << 30
#: blocks scored ahead are kept on the workers while acceptances come more often than once
#: per this many chunks (see :meth:`DaskArrayStream.scores`)
KEEP_AHEAD_CHUNKS = 20
_ROWS = ("auto", "gather", "reduce")


def is_dask_array(x: object) -> bool:
    """Whether ``x`` is a ``dask.array.Array`` (checked without importing dask)."""
    return type(x).__module__.startswith("dask.array") and hasattr(x, "chunks") and hasattr(x, "dask")


def chunk_scores(chunk: np.ndarray, q_and_target: np.ndarray, row_weights: np.ndarray | None) -> np.ndarray:
    """Gain, rank and constancy of every column of one chunk (a ``3 x c`` array).

    Runs on a worker.  The numbers are those :meth:`CandidateBlock.reduce_single` gives in
    memory for the same columns.
    """
    values = np.asarray(chunk, dtype=float)
    weighted = values if row_weights is None else row_weights[:, None] * values
    gain, rank = reduce_single_columns(q_and_target, weighted)
    constant = np.ptp(values, axis=0) == 0 if values.shape[0] else np.ones(values.shape[1], dtype=bool)
    return np.vstack([gain, rank, constant])


class DaskBlock(CandidateBlock):
    """Consecutive single-column candidates whose values stay in a Dask array."""

    def __init__(self, darr: Any, stream: DaskArrayStream, start: int):
        self.darr = darr
        self.stream, self.start = stream, start
        self.widths = np.ones(darr.shape[1], dtype=int)
        self.starts = np.arange(darr.shape[1])
        self.norm2 = None
        self._constant: np.ndarray | None = None
        self._kept = False
        self.scored = False  # a first scoring reads the values once; only rescores keep them

    def kept(self) -> Any:
        """The block's values, kept on the workers (or here, without a client) from now on.

        A block is scored again after every acceptance that falls inside it; keeping its
        chunks spares regenerating or re-reading them (memory: the current block only).
        """
        if not self._kept and self.darr.nbytes <= KEEP_BYTES:
            client = _client()
            self.darr = client.persist(self.darr) if client is not None else self.darr.persist()
            self._kept = True
        return self.darr

    @property
    def values(self) -> np.ndarray:  # type: ignore[override]
        """All the block's values, computed (only the multi-column paths would ask)."""
        return np.asarray(self.darr.compute(), dtype=float)

    def __len__(self) -> int:
        return int(self.darr.shape[1])

    def term(self, j: int) -> np.ndarray:
        """One candidate's column, computed: the only values the driver ever fetches."""
        return np.asarray(self.darr[:, j : j + 1].compute(), dtype=float)

    def reduce_single(self, q_and_target: np.ndarray,
                      row_weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        scores = self.stream.scores(self, q_and_target, row_weights)
        if self.stream.by_rows:  # sums over row chunks: [Q t]'B and the column norms
            with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
                return gain_from_products(q_and_target, scores[:-1].copy(), scores[-1].copy(),
                                          lambda idx: self._columns(idx, row_weights))
        self._constant = scores[2] > 0
        return scores[0], scores[1].astype(int)

    def _columns(self, idx: np.ndarray, row_weights: np.ndarray | None) -> np.ndarray:
        """Columns ``idx`` (weighted like the scores), fetched: only a few need values."""
        values = np.asarray(self.darr[:, idx].compute(), dtype=float)
        return values if row_weights is None else row_weights[:, None] * values

    def constant_columns(self) -> np.ndarray:
        if self._constant is None:
            self._constant = np.asarray((self.darr.max(axis=0) == self.darr.min(axis=0)).compute())
        return self._constant

    def constant_terms(self, terms: np.ndarray) -> np.ndarray:
        return self.constant_columns()[terms]  # single-column terms; known from the scores

    def nonfinite_columns(self) -> np.ndarray:
        return np.array([], dtype=int)  # non-finite values surface as non-finite statistics

    def tail(self, start: int) -> DaskBlock:
        out = DaskBlock(self.darr[:, start:], self.stream, self.start + start)
        out._kept, out.scored = self._kept, self.scored
        if self._constant is not None:
            out._constant = self._constant[start:]
        return out


class DaskArrayStream(Stream):
    """The columns of an ``n x m`` ``dask.array.Array`` as single-column candidates.

    Parameters
    ----------
    name : str
    darr : dask.array.Array
        Chunked along columns (and possibly rows: each column chunk is then gathered whole
        on one worker).  Chunk sizes must be known.
    names : sequence of str, optional
        Candidate names (default ``x0, x1, ...``).
    ahead : int
        Blocks scored ahead of the driver when a distributed client is active.
    rows : {"auto", "gather", "reduce"}
        How row chunks are used.  ``"gather"``: each column chunk is gathered whole on one
        worker and scored there (three numbers per candidate come back).  ``"reduce"``:
        rows stay chunked and the scores are sums over row chunks (tall data; memory per
        worker is a few chunks).  ``"auto"`` gathers unless a column chunk would exceed
        ``GATHER_BYTES`` (256 MiB).  The decisions are the same either way.
    """

    n_candidates: int

    def __init__(self, name: str, darr: Any, names: Sequence[str] | None = None, *, ahead: int = 4,
                 rows: str = "auto"):
        super().__init__(name)
        if rows not in _ROWS:
            raise ValueError(f"stream {name!r}: rows must be one of {', '.join(map(repr, _ROWS))}, got {rows!r}")
        if darr.ndim != 2:
            raise ValueError(f"stream {name!r}: expected a 2-D dask array (one column per candidate), "
                             f"got shape {darr.shape}")
        if any(np.isnan(c) for dim in darr.chunks for c in dim):
            raise ValueError(f"stream {name!r}: the dask array has unknown chunk sizes; call "
                             "x.compute_chunk_sizes() (or DataFrame.to_dask_array(lengths=True)) first")
        if darr.shape[1] == 0:
            raise ValueError(f"stream {name!r} is empty: it has no candidate columns")
        if np.dtype(darr.dtype).kind not in "biuf":
            raise ValueError(f"stream {name!r} is not numeric (dtype {darr.dtype}); array streams take numeric "
                             "columns")
        one_row_chunk = len(darr.chunks[0]) == 1
        if rows == "auto":
            widest = max(darr.chunks[1])
            rows = "gather" if one_row_chunk or darr.shape[0] * widest * 8 <= GATHER_BYTES else "reduce"
        self.by_rows = rows == "reduce" and not one_row_chunk
        self.darr = darr if one_row_chunk or self.by_rows else darr.rechunk({0: -1})
        m = int(darr.shape[1])
        self.names: Sequence[str] = NameRange("x", 0, m) if names is None else (
            names if isinstance(names, NameRange) else list(names))
        if len(self.names) != m:
            raise ValueError(f"stream {name!r}: {len(self.names)} names for {m} columns")
        self.n_candidates = m
        self.position = 0
        self.ahead = ahead
        self._bounds = np.concatenate(([0], np.cumsum(self.darr.chunks[1])))
        self._pending: dict[tuple[str, int, int], _Scores] = {}  # speculative scores in flight
        self._parts: dict[tuple[int, int], Any] = {}  # blocks kept on the workers while scored ahead
        self._last_key: str | None = None  # the model of the last block scored
        self._changes = 0  # model changes (acceptances) so far
        self._model: tuple[str, Any, Any] | None = None  # the current model, cut like the rows

    def _next_block(self, k: int) -> TermBlock | None:
        start = self.position
        if start >= self.n_candidates:
            return None
        stop = self._chunk_end(start + k)
        self.position = stop
        return TermBlock(self.name, self.names[start:stop], DaskBlock(self.darr[:, start:stop], self, start))

    def _chunk_end(self, want: int) -> int:
        """``want`` rounded up to the end of its chunk: blocks are whole chunks, one task each."""
        want = min(want, self.n_candidates)
        return int(self._bounds[np.searchsorted(self._bounds, want)])

    # -- scoring -----------------------------------------------------------------------

    def scores(self, block: DaskBlock, q_and_target: np.ndarray, row_weights: np.ndarray | None) -> np.ndarray:
        """``3 x len(block)`` scores of the block's candidates against the given model."""
        key = _model_key(q_and_target, row_weights)
        client = _client()
        start, stop = block.start, block.start + len(block)
        if client is None:
            # without a client a block is kept (computed once) only when it is scored again,
            # after an acceptance inside it
            part = block.kept() if block.scored else block.darr
            block.scored = True
            return self._graph(part, q_and_target, row_weights, key).compute()
        ahead_part = self._parts.pop((start, stop), None)
        if ahead_part is not None and not block.scored:  # kept on the workers when scored ahead
            block.darr, block._kept = ahead_part, True
        part = block.kept() if block.scored else block.darr
        block.scored = True
        if self._last_key is not None and key != self._last_key:
            self._changes += 1
        self._last_key = key
        future = self._pending.pop((key, start, stop), None)
        # speculative scores against an older model, or of blocks already passed, are cancelled
        stale = [f for k, f in self._pending.items() if k[0] != key or k[1] < stop]
        if stale:
            client.cancel([f for fs in stale for f in fs.futures])
        self._pending = {k: f for k, f in self._pending.items() if k[0] == key and k[1] >= stop}
        self._parts = {k: v for k, v in self._parts.items() if k[0] >= stop}
        # keep the values of blocks scored ahead only while acceptances are frequent (more than
        # one per KEEP_AHEAD_CHUNKS chunks so far): an acceptance voids the speculative scores, and
        # kept values are rescored without being generated (or read) again; otherwise one task
        # per chunk reads and scores it, and the values are read again only after an acceptance
        keep = not self.by_rows and self._changes * KEEP_AHEAD_CHUNKS > np.searchsorted(self._bounds, stop)
        # blocks run in stream order: dask groups computations submitted within its fifo_timeout
        # into one generation and would otherwise run speculative blocks before the one the
        # driver waits for (higher priority runs first)
        if future is None:
            future = self._submit(client, part, q_and_target, row_weights, key, start)
        # score the next blocks (chunk-aligned, as the driver will ask for them) meanwhile
        lo = stop
        for _ in range(self.ahead):
            if lo >= self.n_candidates:
                break
            hi = self._chunk_end(lo + max(len(block), 1))
            if (key, lo, hi) not in self._pending:
                ahead = self._ahead_part(client, lo, hi) if keep else self.darr[:, lo:hi]
                self._pending[(key, lo, hi)] = self._submit(client, ahead, q_and_target, row_weights, key, lo)
            lo = hi
        return future.result()

    def _ahead_part(self, client: Any, lo: int, hi: int) -> Any:
        """Columns ``lo:hi`` for a speculative score, kept on the workers when small enough."""
        part = self._parts.get((lo, hi))
        if part is None:
            part = self.darr[:, lo:hi]
            if part.nbytes > KEEP_BYTES:
                return part
            part = client.persist(part, priority=-lo)
            self._parts[(lo, hi)] = part
        return part

    def _submit(self, client: Any, part: Any, q_and_target: np.ndarray, row_weights: np.ndarray | None,
                key: str, start: int) -> _Scores:
        """The scores of ``part`` computed on the workers: one task per chunk.

        Each output chunk is a task of its own (the chunk's values, read or generated, fused
        with :func:`chunk_scores`), gathered and joined here: no finalising task that
        concatenates the chunks on a worker, no extra transfer.
        """
        graph = self._graph(part, q_and_target, row_weights, key)
        if self.by_rows:  # sums over row chunks: dask's reductions finish on the workers
            return _Scores([client.compute(graph, priority=-start)], by_column=False)
        pieces = graph.to_delayed(optimize_graph=True).ravel().tolist()
        return _Scores(client.compute(pieces, priority=-start), by_column=True)

    def _graph(self, part: Any, q_and_target: np.ndarray, row_weights: np.ndarray | None, key: str) -> Any:
        if self.by_rows:
            return _row_sums(part, *self._model_by_rows(q_and_target, row_weights, key))
        return part.map_blocks(chunk_scores, q_and_target, row_weights, chunks=((3,), part.chunks[1]),
                               dtype=float, meta=np.empty((0, 0)))


    def _model_by_rows(self, q_and_target: np.ndarray, row_weights: np.ndarray | None,
                       key: str) -> tuple[Any, Any]:
        """The model's vectors cut like the rows, sent to the workers once per model."""
        if self._model is None or self._model[0] != key:
            rows = self.darr.chunks[0]
            weights = None if row_weights is None else _cut_rows(row_weights, rows)
            self._model = (key, _cut_rows(q_and_target, rows), weights)
        return self._model[1], self._model[2]


class _Scores:
    """Scores of one block in flight on the workers: one future per output chunk."""

    def __init__(self, futures: list[Any], by_column: bool):
        self.futures, self.by_column = futures, by_column

    def result(self) -> np.ndarray:
        if not self.by_column:
            return np.asarray(self.futures[0].result())
        parts = self.futures[0].client.gather(self.futures)
        return np.asarray(parts[0] if len(parts) == 1 else np.concatenate(parts, axis=1))


def _cut_rows(values: np.ndarray, rows: tuple[int, ...]) -> Any:
    """``values`` as a dask array with the given row chunks; with a distributed client the
    chunks are scattered to the workers (not shipped inside every task graph)."""
    import dask.array as da

    client = _client()
    if client is None:
        return da.from_array(values, chunks=(rows,) + tuple((d,) for d in values.shape[1:]), name=False)
    bounds = np.concatenate(([0], np.cumsum(rows)))
    parts = [values[a:b] for a, b in itertools.pairwise(bounds)]
    futures = client.scatter(parts)
    return da.concatenate([da.from_delayed(f, p.shape, dtype=float) for f, p in zip(futures, parts)])


def _row_sums(part: Any, model: Any, row_weights: Any) -> Any:
    """``[[Q t]' B; column norms of B]`` (a ``(k + 2) x c`` array) as sums over row chunks.

    B is the block (rows weighted by ``row_weights`` for a GLM); ``model`` (``[Q t]``) and
    the weights are dask arrays cut like the block's rows, so each task multiplies one row
    chunk and dask sums the parts.
    """
    import dask.array as da

    values = part.astype(float)
    if row_weights is not None:
        values = values * row_weights[:, None]
    products = model.T @ values
    norms = (values * values).sum(axis=0)
    return da.concatenate([products, norms[None, :]], axis=0)


def _model_key(q_and_target: np.ndarray, row_weights: np.ndarray | None) -> str:
    """A digest of the model a score depends on (speculative scores are reused only for it)."""
    # hashed in place (no bytes copy: the model is n x (k + 1) numbers, large for tall data)
    h = hashlib.blake2b(np.ascontiguousarray(q_and_target).data.cast("B"), digest_size=16)
    if row_weights is not None:
        h.update(np.ascontiguousarray(row_weights).data.cast("B"))
    return h.hexdigest()


def _client() -> Any:
    """The active ``distributed`` client, or None (then dask's default scheduler computes)."""
    try:
        from distributed import get_client
    except ImportError:
        return None
    try:
        return get_client()
    except ValueError:
        return None
