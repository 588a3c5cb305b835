"""Generated feature classes: PCA components, squares, transforms, k-means clusters.

The builders ``squares_streams``, ``transform_streams``, ``pca_streams`` and
``clusters_streams`` turn one formula item into its streams; :mod:`.registry` names them.

Everything here is computed from the candidate columns alone, never from the response
(Dhillon, Foster and Ungar 2010, section 3.1).  Squares and named transforms are plain patsy expressions
(``I(x3**2)``, ``np.log(x5)``), so they need no stored state.  PCA components and
user-supplied transforms do: their parameters live in a :class:`DerivedColumns` object
that the results keep and re-apply to new data, so a refit never re-estimates them.  A
class whose columns are fitted keeps them behind :class:`FittedMap` (the columns it adds,
the data columns it reads, and a transform with the fitted parameters); nothing outside
any module knows which class fitted a map (:mod:`.derived` holds them).
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd
from scipy.cluster.vq import kmeans2

from ..lexer import FormulaError
from ..models.base import CandidateBlock
from .base import Stream, TermBlock
from .class_request import ClassRequest
from .derived import (
    NAMED_TRANSFORMS,
    ColumnFunction,
    DerivedColumns,
    FittedMap,
    PCAMap,
    fit_pca,
    transform_values,
)

# the fitted state lives in .derived; its names stay importable from here
__all__ = ["NAMED_TRANSFORMS", "ColumnFunction", "ColumnsStream", "DerivedColumns", "FittedMap", "PCAMap",
           "clusters_streams", "fit_pca", "kmeanspp_seeds", "pca_streams", "squares_streams", "transform_streams",
           "transform_values"]

#: above this k the k-means++ seeds come from the vectorised :func:`kmeanspp_seeds`
_SCIPY_PP_MAX_K = 32


def kmeanspp_seeds(points: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """k-means++ seeding (Arthur and Vassilvitskii, 2007), one vectorised pass per seed.

    Each new seed is drawn with probability proportional to the squared distance to the
    nearest seed so far; the running minimum keeps the cost at O(k n d).
    """
    n = points.shape[0]
    sq = np.einsum("ij,ij->i", points, points)
    seeds = np.empty((k, points.shape[1]))
    seeds[0] = points[rng.integers(n)]
    d2 = np.maximum(sq - 2 * points @ seeds[0] + seeds[0] @ seeds[0], 0.0)
    for i in range(1, k):
        total = d2.sum()
        j = int(rng.choice(n, p=d2 / total)) if total > 0 else int(rng.integers(n))
        seeds[i] = points[j]
        d2 = np.minimum(d2, np.maximum(sq - 2 * points @ seeds[i] + seeds[i] @ seeds[i], 0.0))
    return seeds


def cluster_columns(x: np.ndarray, k: int, seed: int, what: str) -> np.ndarray:
    """k-means labels of the standardised columns of ``x`` (each column is a point in R^n).

    Constant columns become the zero vector after standardisation.  Labels are renumbered
    in order of each cluster's first column, so cluster 1 holds the first column.
    """
    p = x.shape[1]
    if p < 2:
        raise ValueError(f"{what}: clustering needs at least 2 columns, got {p}")
    if not isinstance(k, (int, np.integer)) or isinstance(k, bool) or k < 1:
        raise ValueError(f"{what}: k must be a positive integer, got {k!r}")
    if k > p:
        raise ValueError(f"{what}: k={k} is larger than the number of matched columns ({p})")
    sd = x.std(axis=0)
    z = (x - x.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    rng = np.random.default_rng(seed)
    if k <= _SCIPY_PP_MAX_K:
        _, labels = kmeans2(z.T, k, minit="++", seed=rng)
    else:  # scipy's k-means++ seeding costs O(k^2) Python steps: 450 s for k = 1000
        _, labels = kmeans2(z.T, kmeanspp_seeds(z.T, k, rng), minit="matrix", seed=rng)
    first: dict[int, int] = {}
    for lab in labels:
        first.setdefault(int(lab), len(first))
    return np.array([first[int(lab)] for lab in labels])


class ColumnsStream(Stream):
    """Single-column generated candidates computed block by block.

    ``compute(idx)`` returns the candidates ``idx`` (an int array) as an ``n x len(idx)``
    matrix; ``order`` permutes the offering order.  Values are built only when offered.
    ``indexable``: ``compute`` selects columns of a stored matrix, so any subset of the
    candidates can be read again alone with the same values (re-offers in later passes
    then keep positions, not copies); a computation such as a matrix product may round a
    column differently with other columns, so it is not declared so by default.
    """

    def __init__(self, name: str, names: list[str], compute: Callable[[np.ndarray], np.ndarray],
                 order: np.ndarray | None = None, *, indexable: bool = False):
        super().__init__(name)
        self.indexable = indexable
        self.holds_candidates = indexable  # re-read by position: passes keep no copies
        self.names = list(names)
        self.compute = compute
        self.order = np.arange(len(names)) if order is None else np.asarray(order, dtype=int)
        self.position = 0
        self.n_candidates = len(names)

    def term_values(self, i: int) -> np.ndarray:
        return self.compute(np.array([i]))

    def is_single_column(self, i: int) -> bool:
        return True

    @property
    def term_names(self) -> list[str]:
        return self.names

    def _next_block(self, k: int) -> TermBlock | None:
        idx = self.order[self.position : self.position + k]
        self.position += len(idx)
        if len(idx) == 0:
            return None
        return TermBlock(self.name, [self.names[i] for i in idx], CandidateBlock(self.compute(idx)),
                         positions=idx if self.indexable else None)

    def reread(self, positions: np.ndarray) -> CandidateBlock | None:
        return CandidateBlock(self.compute(positions)) if self.indexable else None


# -- builders of the column classes (registered in .registry) ----------------------------
def _columns_stream(request: ClassRequest, names: list[str], values: np.ndarray) -> list[Stream]:
    perm = request.order(values, n=values.shape[1])

    def compute(idx: np.ndarray) -> np.ndarray:
        return values[:, idx]

    return [ColumnsStream(request.label, names, compute, perm, indexable=True)]


def squares_streams(request: ClassRequest) -> list[Stream]:
    """``squares(x*)``: ``I(x**2)`` of each matched column, one stream.

    Examples
    --------
    >>> import numpy as np, pandas as pd, streamreg as sr
    >>> df = pd.DataFrame({"x1": [1., 2, 3, 4, 5, 6], "x2": [2., 1, 0, 1, 2, 2]})
    >>> df["y"] = df.x2 ** 2 + np.array([.1, -.1, 0, .1, -.1, 0])
    >>> list(sr.streamreg("y ~ squares(x*)", df, method="alpha-investing").history["term"])
    ['I(x1**2)', 'I(x2**2)']
    """
    names = [f"I({request.term_name(c)}**2)" for c in request.columns]
    return _columns_stream(request, names, request.values ** 2)


def transform_streams(request: ClassRequest) -> list[Stream]:
    """``transform(x*, fn=log)``: a named transform or a function of ``functions=``, one stream.

    Examples
    --------
    >>> import pandas as pd, streamreg as sr
    >>> df = pd.DataFrame({"x1": [1., 2, 3, 4, 5, 6], "y": [0., .7, 1.1, 1.4, 1.6, 1.8]})
    >>> list(sr.streamreg("y ~ transform(x1, fn=log)", df).history["term"])  # screened, then confirmed
    ['np.log(x1)', 'np.log(x1)']
    """
    fn, cols, text = request.options.get("fn"), request.columns, request.text
    if fn is None:
        raise FormulaError(f"{text}: transform() needs fn=, e.g. fn=log or fn=sqrt")
    x = request.values
    if fn in NAMED_TRANSFORMS:
        vals = transform_values(x, fn, cols, text)
        names = [NAMED_TRANSFORMS[fn][1].format(request.term_name(c)) for c in cols]
    elif isinstance(fn, str) and fn in request.functions:
        assert request.frame is not None
        if not fn.isidentifier() or fn in request.frame.columns or fn in ("np", "I", "Q", "C"):
            raise FormulaError(f"{text}: the function name {fn!r} cannot be used in a formula")
        vals = transform_values(x, request.functions[fn], cols, text)
        request.derived.functions[fn] = ColumnFunction(request.functions[fn], fn)
        names = [f"{fn}({request.term_name(c)})" for c in cols]
    else:
        raise FormulaError(
            f"{text}: unknown transform {fn!r}; use one of {sorted(NAMED_TRANSFORMS)} or "
            "the name of a function passed in functions="
        )
    return _columns_stream(request, names, vals)


def pca_streams(request: ClassRequest) -> list[Stream]:
    """``pca(x*, k=50)``: principal components of the matched columns, one stream.

    The components are added to ``request.frame`` as columns ``pca_1``, ... (the
    interactions and the refit read them there) and their parameters to
    ``request.derived``, which rebuilds them on new data.

    Examples
    --------
    >>> import numpy as np, pandas as pd, streamreg as sr
    >>> rng = np.random.default_rng(1)
    >>> df = pd.DataFrame(rng.normal(size=(50, 4)), columns=["x1", "x2", "x3", "x4"])
    >>> df["y"] = rng.normal(size=50)
    >>> list(sr.streamreg("y ~ pca(x*, k=2)", df, method="alpha-investing").history["term"])
    ['pca_1', 'pca_2']
    """
    frame, cols, options = request.frame, request.columns, request.options
    assert frame is not None
    x = request.values
    k = options["k"] if "k" in options else min(50, len(cols), len(frame))
    pmap = fit_pca(x, cols, k, _pca_prefix(request, frame), request.text)
    request.derived.maps.append(pmap)
    scores = pmap.transform(frame)
    frame[pmap.names] = scores
    return _columns_stream(request, pmap.names, scores)


def _pca_prefix(request: ClassRequest, frame: pd.DataFrame) -> str:
    name = request.options.get("name")
    if name is not None:
        if not str(name).isidentifier():
            raise FormulaError(f"{request.text}: name={name!r} must be a valid identifier (it prefixes pca columns)")
        prefix = str(name)
    else:
        used = {m.prefix for m in request.derived.pca}  # the prefixes of earlier pca() items
        prefix = next(p for p in ("pca" if i == 1 else f"pca{i}" for i in range(1, 1000)) if p not in used)
    if any(c.startswith(prefix + "_") for c in frame.columns):
        raise FormulaError(
            f"{request.text}: the data already have columns named {prefix}_*; give pca() a distinct name="
        )
    return prefix


def clusters_streams(request: ClassRequest) -> list[Stream]:
    """``clusters(x*, k=)``: the matched columns in k-means clusters, each its own stream.

    Examples
    --------
    >>> import numpy as np, pandas as pd, streamreg as sr
    >>> rng = np.random.default_rng(2)
    >>> df = pd.DataFrame(rng.normal(size=(40, 4)), columns=["x1", "x2", "x3", "x4"])
    >>> df["y"] = rng.normal(size=40)
    >>> sorted(set(sr.streamreg("y ~ clusters(x*, k=2, name=g)", df).history["stream"]))
    ['g[1]', 'g[2]']
    """
    if "k" not in request.options:
        raise FormulaError(f"{request.text}: clusters() needs k=, the number of clusters")
    frame, cols = request.frame, request.columns
    assert frame is not None and request.frame_stream is not None
    labels = cluster_columns(request.values, request.options["k"], int(request.options.get("seed", 0)),
                             request.text)
    out = []
    for c in range(labels.max() + 1):
        members = [col for col, lab in zip(cols, labels) if lab == c]
        name = f"{request.label}[{c + 1}]"
        vals = frame[members].to_numpy(dtype=float)
        out.append(request.frame_stream(name, members, request.order(vals, n=len(members), label=name)))
    return out
