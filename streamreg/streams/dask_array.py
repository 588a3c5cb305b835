"""Candidates in a Dask array: scored where they live, fetched only when accepted.

A :class:`DaskArrayStream` hands out blocks of columns of an ``n x m`` ``dask.array``.
Scoring a block is one pass over its values (:meth:`CandidateValues.reduce_single`): here
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

With a ``distributed`` client, the columns after the current block are scored ahead
against the same model (at most ``ahead`` tasks in flight), so the workers keep busy
while the driver records decisions; an acceptance changes the model and the speculative
results are dropped.  Without a client, each block is computed by the default scheduler.
One task scores a run of consecutive chunks, each read (or generated) inside the task from
its own optimized graph and scored on its own, so the scores are those of one task per
chunk.  Runs are up to ``group`` chunks long, shorter just after a model change (the next
acceptance may void them) and near the end; the values of a block scored again, and of
the runs ahead while acceptances are frequent, are kept on the workers (runs ahead are then
full-size at once: an acceptance voids only their scoring).  A task scores the kept chunks
of one task only, so it runs where they are, and an accepted column is read where it is kept
(or computed here from its graph), not queued behind the runs in flight.

Cost on small machines: with few cores the driver, the scheduler and the workers' event
loops share the CPUs with the scoring, and each task has a fixed cost of its own, hence tasks
of several chunks (``GROUP_VALUES`` chunks per task; ``bench/bench_dask.py`` measures the
speed-up on two workers).  Turning off the workers' statistical
profiler, which samples every task thread every 10 ms, can help too: set
``distributed.worker.profile.enabled: False`` (or ``DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED=False``
in the workers' environment) before starting the cluster.
"""
from __future__ import annotations

import itertools
import uuid
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..models.base import column_norms, gain_from_products
from .base import NameRange, Stream, TermBlock
from .dask_rows import active_client, cut_rows, model_key, row_sums
from .dask_tasks import (
    LazyChunks,
    chunk_scores,
    chunk_values,
    independent_chunks,
    read_kept,
    score_chunks,
    take_column,
)

#: a column chunk above this size (rows x width x 8 bytes) is not gathered onto one worker
#: by default: its candidates are scored by sums over row chunks instead
GATHER_BYTES = 256 << 20
#: a block above this size is not kept on the workers between rescores (regenerating or
#: re-reading tall data is cheaper than holding it)
KEEP_BYTES = 2 << 30
#: runs scored ahead are kept on the workers while acceptances come more often than once
#: per this many chunks, counting this many chunks without one before the stream (see
#: :meth:`DaskArrayStream.scores`)
KEEP_AHEAD_CHUNKS = 20
#: gathered chunks are scored by tasks of up to about this many values (see ``group``)
GROUP_VALUES = 1 << 24
_ROWS = ("auto", "gather", "reduce")


def is_dask_array(x: object) -> bool:
    """Whether ``x`` is a ``dask.array.Array`` (checked without importing dask)."""
    return type(x).__module__.startswith("dask.array") and hasattr(x, "chunks") and hasattr(x, "dask")


class DaskBlock:
    """Consecutive single-column candidates whose values stay in a Dask array.

    A :class:`~streamreg.models.base.CandidateValues`: the pass over the values
    (:meth:`reduce_single`) runs on the workers, :meth:`term` fetches one column and
    :attr:`values` computes them all (asked only by the paths for multi-column terms).
    """

    def __init__(self, stream: DaskArrayStream, start: int, n: int, darr: Any = None):
        self.stream, self.start, self.n = stream, start, n
        self._darr = darr  # the columns' dask array, sliced when first needed (most blocks never are)
        self.widths = np.ones(n, dtype=int)
        self.starts = np.arange(n)
        self.norm2: np.ndarray | None = None
        self._constant: np.ndarray | None = None
        self._kept = False
        self.scored = False  # a first scoring reads the values once; only rescores keep them

    def kept(self) -> Any:
        """The block's values, kept here (without a client) or on the workers (row sums): it is
        scored again after every acceptance inside it, and keeping its chunks spares reading
        them again (memory: the current block only).  The stream keeps gathered chunks."""
        if not self._kept and self.darr.nbytes <= KEEP_BYTES:
            client = active_client()
            self._darr = client.persist(self.darr) if client is not None else self.darr.persist()
            self._kept = True
        return self.darr

    @property
    def darr(self) -> Any:
        if self._darr is None:
            self._darr = self.stream.darr[:, self.start:self.start + self.n]
        return self._darr

    @property
    def values(self) -> np.ndarray:
        """All the block's values, computed (only the multi-column paths would ask)."""
        return np.asarray(self.darr.compute(), dtype=float)

    def sq_norms(self) -> np.ndarray:
        """Squared norm of every column, from the computed values (asked by robust tests only); cached."""
        if self.norm2 is None:
            self.norm2 = column_norms(self.values)
        return self.norm2

    def __len__(self) -> int:
        return self.n

    def term(self, j: int) -> np.ndarray:
        """One candidate's column, computed: the only values the driver ever fetches."""
        kept = self.stream.column(self.start + j)
        return kept if kept is not None else np.asarray(self.darr[:, j : j + 1].compute(), dtype=float)

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
        # single-column terms; the scores know it for the collinear ones, the only ones asked
        return self.constant_columns()[terms]

    def nonfinite_columns(self) -> np.ndarray:
        return np.array([], dtype=int)  # non-finite values surface as non-finite statistics

    def tail(self, start: int) -> DaskBlock:
        darr = None if self._darr is None else self._darr[:, start:]
        out = DaskBlock(self.stream, self.start + start, self.n - start, darr)
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
        Tasks scored ahead of the driver when a distributed client is active.
    group : int, optional
        Chunks scored by one task (gathered chunks only).  Default: enough chunks for about
        ``GROUP_VALUES`` values, leaving at least four tasks over the stream.  The scores,
        hence the decisions, do not depend on it: each chunk is scored on its own.
    rows : {"auto", "gather", "reduce"}
        How row chunks are used.  ``"gather"``: each column chunk is gathered whole on one
        worker and scored there (three numbers per candidate come back).  ``"reduce"``:
        rows stay chunked and the scores are sums over row chunks (tall data; memory per
        worker is a few chunks).  ``"auto"`` gathers unless a column chunk would exceed
        ``GATHER_BYTES`` (256 MiB).  The decisions are the same either way.
    """

    n_candidates: int

    def __init__(self, name: str, darr: Any, names: Sequence[str] | None = None, *, ahead: int = 4,
                 rows: str = "auto", group: int | None = None):
        super().__init__(name)
        for option, value in (("group", group), ("ahead", ahead)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, np.integer))
                                      or value < 1):
                raise ValueError(f"stream {name!r}: {option} must be a positive whole number of "
                                 f"{'chunks' if option == 'group' else 'tasks'}, got {value!r}")
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
        if 0 in darr.chunks[1]:  # empty column chunks: a slice would drop them and shift the chunk keys
            darr = darr.rechunk({1: tuple(c for c in darr.chunks[1] if c)})
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
        n_chunks = len(self._bounds) - 1
        per_chunk = max(self.darr.shape[0] * max(self.darr.chunks[1]), 1)
        self.group = group or max(1, min(-(-GROUP_VALUES // per_chunk), -(-n_chunks // 4)))
        self._runs: list[_Run] = []  # scores in flight or received, in column order, one model
        # chunk -> (future, i): its values kept on the workers (the i-th of a task's, or the future's)
        self._held: dict[int, tuple[Any, int | None]] = {}
        self._token, self._ids = uuid.uuid4().hex[:12], itertools.count()  # cheap unique task keys
        self._independent: bool | None = None  # chunks computed from their own sources (see _lazy)
        self._last_key: str | None = None  # the model of the last block scored
        self._changes = 0  # model changes (acceptances) so far
        self._changed_at = 0  # the chunk where the current model began scoring
        self._keep = False  # whether the runs scored ahead keep their values on the workers
        self._model: tuple[str, Any, Any] | None = None  # the current model, cut like the rows

    def _next_block(self, k: int) -> TermBlock | None:
        start = self.position
        if start >= self.n_candidates:
            return None
        stop = self._chunk_end(start + k)
        self.position = stop
        return TermBlock(self.name, self.names[start:stop], DaskBlock(self, start, stop - start))

    def _chunk_end(self, want: int) -> int:
        """``want`` rounded up to the end of its chunk: blocks are whole chunks."""
        want = min(want, self.n_candidates)
        return int(self._bounds[np.searchsorted(self._bounds, want)])

    # -- scoring -----------------------------------------------------------------------

    def scores(self, block: DaskBlock, q_and_target: np.ndarray, row_weights: np.ndarray | None) -> np.ndarray:
        """``3 x len(block)`` scores of the block's candidates against the given model."""
        key = model_key(q_and_target, row_weights)
        client = active_client()
        start, stop = block.start, block.start + len(block)
        rescore, block.scored = block.scored, True
        if client is None:
            # without a client a block is kept (computed once) only when it is scored again,
            # after an acceptance inside it
            part = block.kept() if rescore else block.darr
            return self._graph(part, q_and_target, row_weights, key).compute()
        if key != self._last_key:
            self._changes += self._last_key is not None
            self._changed_at = self._chunk_of(start)
        self._last_key = key
        # runs against an older model, or of columns already passed, are cancelled
        live = [r for r in self._runs if r.key == key and r.hi > start]
        if live and live[0].lo > start:
            live = []
        stale = [r.future for r in self._runs if r.scores is None and r not in live]
        if stale:
            client.cancel(stale)
        self._runs = live
        self._held = {c: f for c, f in self._held.items() if self._bounds[c + 1] > start}
        # keep the values of runs scored ahead only while acceptances are frequent (an acceptance
        # voids the speculative scores; kept values are rescored without being read again, but
        # holding them costs the workers memory and time, so one early acceptance is not enough)
        passed = int(np.searchsorted(self._bounds, stop)) + KEEP_AHEAD_CHUNKS
        keep = self._keep = not self.by_rows and self._changes * KEEP_AHEAD_CHUNKS > passed
        # the block's runs, then `ahead` runs after it are in flight before waiting, in stream order
        # with decreasing priority (dask runs the higher first).  Fewer just after a model change
        # (the next acceptance may void them), unless their values are kept: an acceptance then
        # voids only their scoring, and the values are rescored where they are
        ahead = self.ahead if self.by_rows or keep else \
            min(self.ahead, max(1, self._chunk_of(stop - 1) - self._changed_at))
        lo = self._runs[-1].hi if self._runs else start
        beyond = sum(r.lo >= stop for r in self._runs)
        while lo < self.n_candidates and (lo < stop or beyond < ahead):
            hi = self._run_end(lo, start, stop)
            if self.by_rows:
                part = block.kept()[:, lo - start:hi - start] if rescore and hi <= stop else self.darr[:, lo:hi]
                model, weights = self._model_by_rows(q_and_target, row_weights, key)
                future = client.compute(row_sums(part, model, weights), priority=-lo)
            else:
                # a block scored again (after an acceptance inside it) keeps its values from now on
                future = self._submit(client, q_and_target, row_weights, lo, hi, rescore if lo < stop else keep)
            self._runs.append(_Run(key, lo, hi, future))
            beyond += lo >= stop
            lo = hi
        needed = [r for r in self._runs if r.lo < stop]
        waiting = [r for r in needed if r.scores is None]
        for r, value in zip(waiting, client.gather([r.future for r in waiting])):
            r.scores, r.future = (np.asarray(value) if self.by_rows else np.vstack(value)), None
        parts = [r.scores[:, max(start - r.lo, 0):stop - r.lo] for r in needed if r.scores is not None]
        return parts[0] if len(parts) == 1 else np.concatenate(parts, axis=1)

    def _chunk_of(self, j: int) -> int:
        return int(np.searchsorted(self._bounds, j, side="right")) - 1

    def _run_end(self, lo: int, start: int, stop: int) -> int:
        """Where a run of columns scored by one task ends.  Gathered chunks: up to ``group`` from
        the one holding ``lo``, but no more than half the chunks since the model last changed
        (an acceptance voids the runs in flight, the running ones finish all the same, and the
        next may be near) nor than half those left (the last runs end together).  Row sums: the
        block, then runs as long as the block, as the driver will ask for them."""
        if not self.by_rows:
            c = self._chunk_of(lo)
            left = len(self._bounds) - 1 - c
            since = self.group if self._keep else (c - self._changed_at) // 2  # kept values: no ramp
            end = c + max(1, min(self.group, since, left // 2))
            # kept chunks are scored with the others of their task only, and others without them:
            # the task then runs on the worker holding its values (no copy between workers)
            home = self._home(c)
            end = next((d for d in range(c + 1, end) if self._home(d) is not home), end)
            return int(self._bounds[end])
        return stop if lo < stop else self._chunk_end(lo + max(stop - start, 1))

    def _home(self, c: int) -> Any:
        """The task that computed and keeps chunk ``c`` with others (None: not kept that way)."""
        held = self._held.get(c)
        return held[0] if held is not None and held[1] is not None else None

    def _submit(self, client: Any, q_and_target: np.ndarray, row_weights: np.ndarray | None,
                lo: int, hi: int, hold: bool) -> Any:
        """One task scoring columns ``lo:hi`` (whole chunks but the first): :func:`score_chunks`.
        To keep the chunks (``hold``), a task of their own returns their values first."""
        c0, c1 = self._chunk_of(lo), self._chunk_of(hi - 1) + 1
        sources = self._sources(client, c0, c1, hold, -lo)
        return client.submit(score_chunks, q_and_target, row_weights, lo - int(self._bounds[c0]), sources,
                             key=self._key("scores"), priority=-lo)

    def _sources(self, client: Any, c0: int, c1: int, hold: bool,
                 priority: int) -> list[tuple[Any, int | None]]:
        """Chunks ``c0:c1`` for one task, each as ``(container, i)`` (see :func:`_chunk`): kept
        on the workers (futures), or computed in the task from their graph (:class:`LazyChunks`)."""
        missing = [c for c in range(c0, c1) if c not in self._held]
        lazy = self._lazy(missing, c0) if missing else None
        if missing and lazy is None:  # the chunks depend on data on the workers: persist them
            self._persist(client, missing)
        nbytes = (self._bounds[c1] - self._bounds[c0]) * self.darr.shape[0] * 8
        if lazy is not None and hold and nbytes <= KEEP_BYTES:
            values = client.submit(chunk_values, lazy, key=self._key("values"), priority=priority)
            self._held.update({c: (values, c - c0) for c in missing})
        return [self._held.get(c) or (lazy, c - c0) for c in range(c0, c1)]

    def _key(self, what: str) -> str:
        """A unique task key, cheaper than dask's tokenizing of the arguments."""
        return f"streamreg-{what}-{self._token}-{next(self._ids)}"

    def _lazy(self, chunks: list[int], first: int) -> LazyChunks | None:
        """The optimized graph of ``chunks`` (numbered from ``first`` in the task), or None when
        it depends on data elsewhere (on the workers) or chunks share their sources."""
        if self._independent is None:
            self._independent = independent_chunks(self.darr)
        if not self._independent:
            return None
        part = self.darr[:, int(self._bounds[chunks[0]]):int(self._bounds[chunks[-1] + 1])]
        keys = part.__dask_keys__()[0]
        wanted = {c - first: keys[c - chunks[0]] for c in chunks}
        graph = dict(part.__dask_optimize__(part.__dask_graph__(), list(wanted.values())))
        # dask's task nodes name their dependencies (a node without, of an older kind: not inlined)
        deps = [getattr(node, "dependencies", None) for node in graph.values()]
        if any(d is None or not d <= graph.keys() for d in deps):
            return None
        return LazyChunks(graph, wanted)

    def _persist(self, client: Any, chunks: list[int]) -> None:
        """Keep ``chunks`` (computed from data on the workers) on the workers until passed."""
        from distributed import Future

        keys, graph = self.darr.__dask_keys__()[0], self.darr.__dask_graph__()
        direct = {c: graph.get(keys[c]) for c in chunks}  # a persisted array: its chunks are there
        self._held.update({c: (f, None) for c, f in direct.items() if isinstance(f, Future)})
        rest = [c for c in chunks if c not in self._held]
        if rest:
            a, b = int(self._bounds[rest[0]]), int(self._bounds[rest[-1] + 1])
            part = client.persist(self.darr[:, a:b], priority=-a)
            futures = part.__dask_graph__()
            for c, k in zip(range(rest[0], rest[-1] + 1), part.__dask_keys__()[0]):
                self._held.setdefault(c, (futures[k], None))

    def column(self, j: int) -> np.ndarray | None:
        """Column ``j`` (accepted) from its chunk, kept on the workers from now on: the block is
        scored again next, from the same values.  None without a client, or for row sums.

        The driver does not queue behind the runs in flight (tasks of several chunks): values
        already kept are read where they are, outside the workers' task queues, and a chunk not
        yet computed is computed here from its own graph (the same values) when it has one."""
        client = active_client()
        if client is None or self.by_rows:
            return None
        c = self._chunk_of(j)
        at = j - int(self._bounds[c])
        [(values, i)] = self._sources(client, c, c + 1, True, 1)
        if isinstance(values, LazyChunks):  # too large to keep
            return None
        column = read_kept(client, values, i, at) if values.done() else None
        lazy = self._lazy([c], c) if column is None else None
        if lazy is not None:
            column = take_column(lazy, 0, at)
        if column is None:  # priority over the runs in flight: the driver waits for it
            column = client.submit(take_column, values, i, at, key=self._key("column"), priority=1).result()
        return np.asarray(column, dtype=float)

    def _graph(self, part: Any, q_and_target: np.ndarray, row_weights: np.ndarray | None, key: str) -> Any:
        if self.by_rows:
            return row_sums(part, *self._model_by_rows(q_and_target, row_weights, key))
        return part.map_blocks(chunk_scores, q_and_target, row_weights, chunks=((3,), part.chunks[1]),
                               dtype=float, meta=np.empty((0, 0)))

    def _model_by_rows(self, q_and_target: np.ndarray, row_weights: np.ndarray | None,
                       key: str) -> tuple[Any, Any]:
        """The model's vectors cut like the rows, sent to the workers once per model."""
        if self._model is None or self._model[0] != key:
            rows = self.darr.chunks[0]
            weights = None if row_weights is None else cut_rows(row_weights, rows)
            self._model = (key, cut_rows(q_and_target, rows), weights)
        return self._model[1], self._model[2]


class _Run:
    """Scores of columns ``lo:hi`` against one model: in flight (``future``) or here (``scores``)."""

    __slots__ = ("future", "hi", "key", "lo", "scores")

    def __init__(self, key: str, lo: int, hi: int, future: Any):
        self.key, self.lo, self.hi, self.future = key, lo, hi, future
        self.scores: np.ndarray | None = None
