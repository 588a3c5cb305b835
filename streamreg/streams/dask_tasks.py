"""What the Dask wide path runs on the workers: a run of chunks read or generated and scored.

:class:`~streamreg.streams.dask_array.DaskArrayStream` submits :func:`score_chunks` for a run
of consecutive column chunks; each chunk comes from values kept on the workers or from its
own graph (:class:`LazyChunks`, used only when every chunk has sources of its own, see
:func:`independent_chunks`), and is scored on its own, so the scores do not depend on how
chunks are grouped into tasks.
"""
from __future__ import annotations

import pickle
from typing import Any

import numpy as np

from ..models.base import reduce_single_columns, reduce_weighted_columns


def chunk_scores(chunk: np.ndarray, q_and_target: np.ndarray, row_weights: np.ndarray | None) -> np.ndarray:
    """Gain, rank and constancy of every column of one chunk (a ``3 x c`` array).

    Runs on a worker.  The numbers are those :meth:`CandidateBlock.reduce_single` gives in
    memory for the same columns.  Constancy is asked of the collinear columns (rank 0) only,
    as the search does (it tells a constant column from a collinear one), which spares a
    second pass over the chunk.
    """
    values = np.asarray(chunk, dtype=float)
    if row_weights is None:
        gain, rank = reduce_single_columns(q_and_target, values)
    else:  # as in memory: the weights folded into the small side, no weighted copy
        gain, rank = reduce_weighted_columns(q_and_target, values, row_weights)
    constant = np.zeros(values.shape[1], dtype=bool)
    collinear = np.flatnonzero(rank == 0)
    if collinear.size:
        constant[collinear] = np.ptp(values[:, collinear], axis=0) == 0 if values.shape[0] else True
    return np.vstack([gain, rank, constant])


class LazyChunks:
    """Chunks computed inside a task from their optimized graph (not tasks of their own); an
    opaque object to ``distributed``, whose ``submit`` would read the graph's nodes as tasks."""

    def __init__(self, graph: dict[Any, Any], keys: dict[int, Any]):
        self.graph, self.keys = graph, keys  # keys: the task's i-th chunk -> its key in the graph

    def __getitem__(self, i: int) -> Any:
        import dask

        return dask.get(self.graph, self.keys[i])


def independent_chunks(darr: Any) -> bool:
    """Whether each column chunk is computed from sources of its own (generated, read per
    chunk): then a task may compute its chunks from their graph.  A source shared by several
    chunks (an array in memory, a partition cut into several chunks) would be computed, and
    shipped, once per task; such chunks are computed by the scheduler instead."""
    keys = [k for row in darr.__dask_keys__() for k in row]
    graph = dict(darr.__dask_optimize__(darr.__dask_graph__(), keys))
    owner: dict[Any, int] = {}
    for i, key in enumerate(keys):
        todo, seen = [key], set()
        while todo:
            k = todo.pop()
            if k in seen:
                continue
            seen.add(k)
            node = graph.get(k)
            deps = getattr(node, "dependencies", None)
            if node is None or deps is None or owner.setdefault(k, i) != i:
                return False  # data elsewhere, an older kind of graph node, or a shared source
            todo.extend(deps)
        if i == 0:  # an object embedded whole in each chunk's graph (an array-like in memory)
            shipped = len(pickle.dumps({k: graph[k] for k in seen}, protocol=pickle.HIGHEST_PROTOCOL))
            if shipped > 2 * darr.shape[0] * darr.chunks[1][0] * darr.dtype.itemsize + (1 << 20):
                return False
    return True


def chunk_values(lazy: LazyChunks) -> dict[int, Any]:
    """The values of the chunks of ``lazy``, kept on the worker that computes them."""
    return {i: lazy[i] for i in lazy.keys}


def _chunk(container: Any, i: int | None) -> Any:
    """A chunk's values: a kept chunk (``i`` None), or the i-th of kept or lazy chunks."""
    return container if i is None else container[i]


def score_chunks(q_and_target: np.ndarray, row_weights: np.ndarray | None, skip: int,
                  sources: list[tuple[Any, int | None]]) -> tuple[np.ndarray, np.ndarray]:
    """Scores of consecutive chunks (the first without its ``skip`` first columns), on a worker.

    Each chunk is scored on its own (:func:`chunk_scores`), so the scores are those of one
    task per chunk whatever the grouping.  The gains travel as they are; the ranks (0 or 1,
    single columns) and constancy as bytes, less than half the data.
    """
    out = [chunk_scores(_chunk(*source)[:, skip if i == 0 else 0:], q_and_target, row_weights)
           for i, source in enumerate(sources)]
    scores = out[0] if len(out) == 1 else np.concatenate(out, axis=1)
    return scores[0], scores[1:].astype(np.int8)


def take_column(values: Any, i: int | None, j: int) -> np.ndarray:
    return np.asarray(_chunk(values, i)[:, j:j + 1])


def _take_kept(key: Any, i: int | None, j: int, dask_worker: Any) -> np.ndarray | None:
    """Run by ``Client.run`` on the worker holding ``key``: a column of its kept values."""
    values = dask_worker.data.get(key)
    return None if values is None else take_column(values, i, j)


def read_kept(client: Any, future: Any, i: int | None, j: int) -> np.ndarray | None:
    """Column ``j`` of the kept values of ``future`` (computed), read on a worker holding them by
    ``Client.run``, which does not wait for the worker's running task; None when no worker
    holds them, or the one asked has died since (then a task reads it)."""
    holders = client.who_has([future]).get(future.key, ())
    if not holders:
        return None
    try:
        column = client.run(_take_kept, future.key, i, j, workers=[holders[0]])
    except (OSError, TimeoutError):  # the holder died or left (CommClosedError is an OSError): a task reads it
        return None
    return next(iter(column.values()), None)
