"""The synthetic problem of Zhou et al. (2006), section 6.1, eager or as a lazy stream.

n observations of m independent N(0, 1) features; y is the sum of k of them (coefficient
``coef``) plus N(0, noise^2).  The true features sit at random positions, first or last.
Columns are generated in fixed blocks from seeds derived from ``(seed, block)``, so the
lazy stream produces exactly the columns of the eager frame without storing them.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..models.base import CandidateBlock
from ..streams.base import NameRange, Stream, TermBlock

_BLOCK = 4096


def _true_positions(m: int, k: int, positions: str, seed: int | None) -> np.ndarray:
    if not 0 <= k <= m:
        raise ValueError(f"k must be between 0 and m = {m}, got {k}")
    if positions == "first":
        return np.arange(k)
    if positions == "last":
        return np.arange(m - k, m)
    if positions == "random":
        return np.sort(np.random.default_rng([_seed(seed), 1]).choice(m, size=k, replace=False))
    raise ValueError(f"positions must be 'random', 'first' or 'last', got {positions!r}")


def _seed(seed: int | None) -> int:
    return 0 if seed is None else int(seed)


def _block(n: int, b: int, seed: int | None, m: int) -> np.ndarray:
    cols = min(_BLOCK, m - b * _BLOCK)
    return np.random.default_rng([_seed(seed), 2, b]).standard_normal((n, _BLOCK))[:, :cols]


class SyntheticStream(Stream):
    """Lazy stream of the m candidate columns ``x1``, ..., ``xm``, generated block by block.

    Parameters
    ----------
    n : int
        Rows.
    m : int
        Candidate columns.
    seed : int or None
        The seed of :func:`make_synthetic`: the same seed gives the same columns.
    name : str, default "x"
        The stream's name in the history.

    Examples
    --------
    >>> import streamreg as sr
    >>> from streamreg.datasets import SyntheticStream
    >>> block = SyntheticStream(n=50, m=10, seed=0).take(4)
    >>> list(block.names), block.block.values.shape
    (['x1', 'x2', 'x3', 'x4'], (50, 4))
    >>> syn = sr.datasets.make_synthetic(50, 10, 2, seed=0)  # the same columns as its frame
    >>> fit = sr.select(syn.y, SyntheticStream(50, 10, seed=0), w0=0.05, alpha_delta=0.05)
    >>> fit.selected_terms, syn.true_features
    (['x5', 'x9'], ['x5', 'x9'])
    """

    def __init__(self, n: int, m: int, seed: int | None, name: str = "x"):
        super().__init__(name)
        self.n, self.m, self.seed = n, m, seed
        self.n_candidates = m
        self.position = 0
        self._cache: tuple[int, np.ndarray] | None = None

    def column_block(self, b: int) -> np.ndarray:
        """The values of the ``b``-th block of columns, generated once and kept until the next block.

        Parameters
        ----------
        b : int
            Block index (blocks of the generator's fixed width).

        Returns
        -------
        numpy.ndarray
            ``n`` rows, one column per candidate of the block.
        """
        if self._cache is None or self._cache[0] != b:
            self._cache = (b, _block(self.n, b, self.seed, self.m))
        return self._cache[1]

    def _next_block(self, k: int) -> TermBlock | None:
        if self.position >= self.m:
            return None
        b, off = divmod(self.position, _BLOCK)
        vals = self.column_block(b)[:, off : off + k]
        start = self.position
        self.position += vals.shape[1]
        return TermBlock(self.name, NameRange("x", start + 1, self.position + 1), CandidateBlock(vals))

    def __iter__(self) -> Iterator[tuple[str, np.ndarray]]:
        # each column as its own contiguous array, as a hand-written generator yields them
        # (a strided view into the block would make every consumer gather it element by element)
        for b in range(-(-self.m // _BLOCK)):
            rows = np.ascontiguousarray(_block(self.n, b, self.seed, self.m).T)
            start = b * _BLOCK
            for off, column in enumerate(rows):
                yield f"x{start + off + 1}", column


@dataclass
class Synthetic:
    """A simulated problem: response, candidates (frame or lazy stream) and the truth."""

    y: np.ndarray
    data: pd.DataFrame | None
    stream: SyntheticStream
    true_features: list[str]
    noise: float


def make_synthetic(n: int = 100, m: int = 1000, k: int = 4, *, noise: float = 0.1, coef: float = 1.0,
                   positions: str = "random", seed: int | None = None, lazy: bool = False) -> Synthetic:
    """Simulate the problem of Zhou et al. (2006), section 6.1.

    Parameters
    ----------
    n, m, k : int
        Observations, candidate features, true features (defaults 100, 1000, 4).
    noise : float
        Noise standard deviation (0.1 in the paper).
    positions : {"random", "first", "last"}
        Where the true features sit in the stream.
    lazy : bool
        If True, ``data`` is None and the candidates exist only as ``stream``.

    Examples
    --------
    >>> from streamreg.datasets import make_synthetic
    >>> sim = make_synthetic(n=50, m=200, seed=1)
    >>> sim.data.shape, len(sim.true_features)
    ((50, 201), 4)
    """
    if n < 2 or m < 1:
        raise ValueError(f"need n >= 2 and m >= 1, got n={n}, m={m}")
    true = _true_positions(m, k, positions, seed)
    stream = SyntheticStream(n, m, seed)
    signal = np.zeros(n)
    for j in true:
        b, off = divmod(int(j), _BLOCK)
        signal += coef * stream.column_block(b)[:, off]
    y = signal + noise * np.random.default_rng([_seed(seed), 4]).standard_normal(n)
    data = None
    if not lazy:
        blocks = [_block(n, b, seed, m) for b in range(-(-m // _BLOCK))]
        x = np.concatenate(blocks, axis=1)
        data = pd.DataFrame(x, columns=[f"x{j + 1}" for j in range(m)])
        data.insert(0, "y", y)
    stream._cache = None
    return Synthetic(y, data, stream, [f"x{j + 1}" for j in true], noise)
