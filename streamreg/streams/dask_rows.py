"""The distributed side of a Dask stream's scoring: the active client, row-chunked models, the sums
of a block's products over row chunks, and the key of the model a score was made against."""
from __future__ import annotations

import hashlib
import itertools
from typing import Any

import numpy as np

__all__ = ["active_client", "cut_rows", "model_key", "row_sums"]


def cut_rows(values: np.ndarray, rows: tuple[int, ...]) -> Any:
    """``values`` as a dask array with the given row chunks; with a distributed client the
    chunks are scattered to the workers (not shipped inside every task graph)."""
    import dask.array as da

    client = active_client()
    if client is None:
        return da.from_array(values, chunks=(rows,) + tuple((d,) for d in values.shape[1:]), name=False)
    bounds = np.concatenate(([0], np.cumsum(rows)))
    parts = [values[a:b] for a, b in itertools.pairwise(bounds)]
    futures = client.scatter(parts)
    return da.concatenate([da.from_delayed(f, p.shape, dtype=float) for f, p in zip(futures, parts)])


def row_sums(part: Any, model: Any, row_weights: Any) -> Any:
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


def model_key(q_and_target: np.ndarray, row_weights: np.ndarray | None) -> str:
    """A digest of the model a score depends on (speculative scores are reused only for it)."""
    # hashed in place (no bytes copy: the model is n x (k + 1) numbers, large for tall data)
    h = hashlib.blake2b(np.ascontiguousarray(q_and_target).data.cast("B"), digest_size=16)
    if row_weights is not None:
        h.update(np.ascontiguousarray(row_weights).data.cast("B"))
    return h.hexdigest()


def active_client() -> Any:
    """The active ``distributed`` client, or None (then dask's default scheduler computes)."""
    try:
        from distributed import get_client
    except ImportError:
        return None
    try:
        return get_client()
    except ValueError:
        return None
