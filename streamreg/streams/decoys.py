"""Decoy candidates: where they come from (see :mod:`streamreg.search.decoys` for what they mean).

``decoys=`` gives every candidate ``x_j`` a decoy ``x~_j`` with no relation to the response given
the candidates: a row-permuted copy (``"permuted"``), a Gaussian model-X knockoff copy
(``"knockoff"``, :mod:`.knockoffs`) or a column of a matrix the user supplies.  A
:class:`DecoySource` makes the decoys of a block of candidates, shaped like the block.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import numpy as np

from ..models.base import CandidateBlock
from .base import Stream, TermBlock
from .knockoffs import gaussian_knockoffs

__all__ = ["DECOY_KINDS", "DecoyOptions", "DecoySource", "MatrixDecoys", "PermutedDecoys", "check_decoys",
           "decoy_seed", "decoy_sources"]

DECOY_KINDS = ("permuted", "knockoff")


@dataclass(frozen=True, eq=False)
class DecoyOptions:
    """Validated ``decoys=`` / ``decoy_fdr=``: the kind (or a user's matrix), the target FDR
    of the selection mode (None: estimate only) and the seed that drew the decoys."""

    kind: str
    fdr: float | None
    seed: int
    matrix: np.ndarray | None = field(default=None, repr=False)

    @property
    def drawn(self) -> bool:
        """Whether the decoys are drawn at random (permuted or knockoff; a given matrix is not)."""
        return self.kind != "given"

    def seeded(self, seed: int | np.random.Generator | np.random.SeedSequence | None) -> DecoyOptions:
        """These options drawing their decoys from ``seed`` (the run's seed, as ``res.seed`` reports it)."""
        return replace(self, seed=decoy_seed(seed)) if self.drawn else self

    def describe(self) -> str:
        what = {"permuted": "a row-permuted copy of each candidate",
                "knockoff": "a Gaussian model-X knockoff copy of each candidate (equicorrelated, "
                            "Ledoit-Wolf correlation)",
                "given": "the decoy matrix supplied"}[self.kind]
        return f"{what} (seed {self.seed})" if self.drawn else what


def check_decoys(decoys: Any, decoy_fdr: Any,
                 seed: int | np.random.Generator | np.random.SeedSequence | None) -> DecoyOptions | None:
    """The validated decoy options, or None when no decoys are asked for.

    Examples
    --------
    >>> check_decoys("permuted", None, 3)
    DecoyOptions(kind='permuted', fdr=None, seed=3)
    >>> check_decoys(None, 0.1, None)
    Traceback (most recent call last):
        ...
    ValueError: decoy_fdr= selects with decoys: give decoys='knockoff' (or 'permuted', or a matrix)
    """
    if decoys is None:
        if decoy_fdr is not None:
            raise ValueError("decoy_fdr= selects with decoys: give decoys='knockoff' (or 'permuted', or a matrix)")
        return None
    matrix = None
    if isinstance(decoys, str):
        if decoys not in DECOY_KINDS:
            raise ValueError(f"decoys must be one of {list(DECOY_KINDS)} or a matrix of decoy columns, got {decoys!r}")
        kind = decoys
    elif hasattr(decoys, "shape") or isinstance(decoys, list):
        matrix = np.array(decoys, dtype=float, copy=True)  # a copy: the user's array is left as it is
        if matrix.ndim != 2:
            raise ValueError(f"a decoy matrix must be two-dimensional (rows x candidates), got shape {matrix.shape}")
        if not np.isfinite(matrix).all():
            raise ValueError("the decoy matrix contains NaN or infinite values")
        kind = "given"
    else:
        raise TypeError(f"decoys must be 'permuted', 'knockoff' or a matrix, got {type(decoys).__name__}")
    fdr = None
    if decoy_fdr is not None:
        if isinstance(decoy_fdr, bool) or not isinstance(decoy_fdr, (int, float, np.floating)) \
                or not 0 < float(decoy_fdr) < 1:
            raise ValueError(f"decoy_fdr must be a number in (0, 1), got {decoy_fdr!r}")
        fdr = float(decoy_fdr)
    return DecoyOptions(kind, fdr, decoy_seed(seed), matrix)


def decoy_seed(seed: int | np.random.Generator | np.random.SeedSequence | None) -> int:
    """An integer seed to record and print: ``seed`` itself, or drawn (from a copy of a
    generator, which is left as it is).

    Examples
    --------
    >>> decoy_seed(12), decoy_seed(np.random.default_rng(0)) == decoy_seed(np.random.default_rng(0))
    (12, True)
    """
    if seed is None:
        return int(np.random.default_rng().integers(2**32))
    if isinstance(seed, np.random.SeedSequence):
        return int(np.random.default_rng(seed).integers(2**32))
    if isinstance(seed, np.random.Generator):
        return int(copy.deepcopy(seed).integers(2**32))
    return int(seed)


class DecoySource(Protocol):
    """Where one stream's decoys come from: a block of decoys shaped like ``buf``'s block."""

    def block_for(self, buf: TermBlock) -> CandidateBlock: ...


class PermutedDecoys:
    """Every candidate's rows in one fixed random order (the same for every block and pass)."""

    def __init__(self, order: np.ndarray):
        self.order = order

    def block_for(self, buf: TermBlock) -> CandidateBlock:
        values = getattr(buf.block, "values", None)
        if not isinstance(values, np.ndarray):
            raise TypeError(f"stream {buf.stream!r}: decoys need the candidates' values in memory; "
                             "a Dask stream's blocks stay on the workers (compute it first, or search without decoys)")
        return CandidateBlock(values[self.order], widths=buf.block.widths)


class MatrixDecoys:
    """Decoy columns held for the whole stream, read at each block's candidate positions."""

    def __init__(self, matrix: np.ndarray, stream: str):
        self.matrix, self.stream = matrix, stream

    def block_for(self, buf: TermBlock) -> CandidateBlock:
        if buf.positions is None:
            raise ValueError(f"stream {self.stream!r}: knockoff or given decoys need a stream of single "
                             "columns held in memory (an array or a frame)")
        return CandidateBlock(self.matrix[:, buf.positions])


def decoy_sources(streams: list[Stream], options: DecoyOptions, n: int) -> list[DecoySource]:
    """One decoy source per stream (a stream's seed is ``[seed, its index]``)."""
    if options.kind == "given" and len(streams) != 1:
        raise ValueError(f"a decoy matrix shadows one stream; the search has {len(streams)}")
    sources: list[DecoySource] = []
    for j, stream in enumerate(streams):
        rng = np.random.default_rng([options.seed, j])
        if options.kind == "permuted":
            sources.append(PermutedDecoys(rng.permutation(n)))
            continue
        values = _all_columns(stream)
        if options.kind == "given":
            assert options.matrix is not None
            if options.matrix.shape != values.shape:
                raise ValueError(f"the decoy matrix has shape {options.matrix.shape}; stream {stream.name!r} "
                                 f"has {values.shape[0]} rows and {values.shape[1]} candidates")
            sources.append(MatrixDecoys(options.matrix, stream.name))
        else:
            sources.append(MatrixDecoys(gaussian_knockoffs(values, rng), stream.name))
    return sources


def _all_columns(stream: Stream) -> np.ndarray:
    m = stream.n_candidates
    block = None if m is None or m == 0 else stream.reread(np.arange(m, dtype=np.int64))
    if block is None or (np.asarray(block.widths) != 1).any():
        raise ValueError(f"stream {stream.name!r}: knockoff or given decoys need a stream of single numeric "
                         "columns held in memory (an array or a frame); use decoys='permuted' for others")
    return np.asarray(block.values, dtype=float)
