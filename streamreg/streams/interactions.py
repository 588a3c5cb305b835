"""Interaction streams (Zhou et al. 2006, section 3; Dhillon, Foster and Ungar 2010, section 3.1).

Three kinds, each its own stream with its own wealth:

1. products of selected terms with selected terms (grows with every acceptance);
2. products of selected terms with the original candidates of some streams, rejected
   candidates included (grows by a whole batch with every acceptance);
3. all pairwise products of the original candidates: static, ``p(p-1)/2`` of them,
   generated lazily in triangular order -- every product among the first ``m`` original
   candidates comes before any product involving candidate ``m + 1`` -- and never
   materialised.

:func:`interaction_streams` builds the streams of one ``interactions()`` item (the dynamic
class of :mod:`.registry`).  They share an :class:`InteractionPool` so that no
product is offered twice.  Ownership is decided by rules that depend only on the sequence
of tests and acceptances, never on the driver's block size:

* with kind 3 present, every product of two original candidates is kind 3's; kinds 1 and
  2 then offer only products involving a generated selected term (e.g. ``pca_1:x3``);
* a product whose two factors are both selected when kind 2 would offer it is kind 1's
  (kind 1 queues it at the second acceptance), unless kind 2 offered it first;
* kind 2 offers one product per turn, so "offered" means "offered right after its
  previous test" whatever the block size -- this is what keeps the rule above exact.

A product of a term with itself (or any product repeating a variable) is never generated;
that is what ``squares()`` is for.  Generation uses the candidates' values only, never the
response.

Product names are patsy interactions of the factor names (``x3:x17``), factors in the
order of the original candidates, so the refit and ``predict`` rebuild them from the
original data.  A product involving a multi-column (factor) term is coded by patsy as the
interaction term ``a:b`` beside an intercept, exactly as in the refit.
"""
from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from typing import Protocol, cast

import numpy as np

from ..lexer import FormulaError, split_top_level
from ..models.base import CandidateBlock
from .base import AcceptedTerm, Stream, TermBlock
from .class_request import ClassRequest

KINDS = (1, 2, 3)


class TermSource(Protocol):
    """What ``interactions()`` reads from the streams whose candidates it multiplies
    (the streams of data columns and of generated columns)."""

    @property
    def term_names(self) -> list[str]: ...

    def is_single_column(self, i: int) -> bool: ...

    def term_values(self, i: int) -> np.ndarray: ...


def atoms_of(name: str) -> tuple[str, ...]:
    """The factors of a term name: ``"x3:x17"`` -> ``("x3", "x17")``."""
    return tuple(piece.strip() for _, piece in split_top_level(name, ":"))


def pair_of_index(t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Triangular order: index ``t`` -> pair ``(i, j)`` with ``i < j``.

    ``t = j (j - 1) / 2 + i``, so pairs come as (0,1), (0,2), (1,2), (0,3), ...
    """
    t = np.asarray(t, dtype=np.int64)
    j = ((1 + np.sqrt(1 + 8 * t.astype(float))) // 2).astype(np.int64)
    # float rounding may be one off for huge t: correct in exact integers
    j = np.where(j * (j - 1) // 2 > t, j - 1, j)
    j = np.where((j + 1) * j // 2 <= t, j + 1, j)
    return t - j * (j - 1) // 2, j


class _Factor:
    """A selected term usable in products."""

    __slots__ = ("atoms", "name", "values")

    def __init__(self, name: str, values: np.ndarray, atoms: frozenset):
        self.name, self.values, self.atoms = name, values, atoms


class InteractionPool:
    """Shared state of the interaction streams of one ``interactions()`` item.

    Parameters
    ----------
    names : list of str
        The original candidates (term names), in the given order.
    values : callable
        ``values(i)`` -> ``n x d`` matrix of original candidate ``i``.
    matrix : callable or None
        ``matrix()`` -> ``n x p`` matrix of all originals when every one is a single
        column (the fast path of kind 3); None otherwise.
    evaluate : callable
        ``evaluate(expression)`` -> (``n x d`` matrix, column names): patsy coding of a
        product involving a multi-column term.
    kinds : tuple of int
        Which of the three streams exist.
    degree : int
        Largest number of factors of a product (2: pairwise).
    order : ndarray or None
        Permutation of the originals: the order in which kinds 2 and 3 visit them.
    """

    def __init__(self, names: list[str], values: Callable[[int], np.ndarray],
                 matrix: Callable[[], np.ndarray] | None, evaluate: Callable, *,
                 kinds: tuple[int, ...] = (1, 2), degree: int = 2, order: np.ndarray | None = None):
        self.names = list(names)
        self.p = len(self.names)
        self._values = values
        self._matrix_fn = matrix
        self._matrix: np.ndarray | None = None
        self.evaluate = evaluate
        self.kinds = tuple(kinds)
        self.degree = degree
        self.order = np.arange(self.p) if order is None else np.asarray(order, dtype=np.int64)
        self.atoms = [frozenset(atoms_of(n)) for n in self.names]
        self.single_atom = all(len(a) == 1 for a in self.atoms)
        self._rank = {n: i for i, n in enumerate(self.names)}
        self.selected: list[_Factor] = []
        self.selected_names: set[str] = set()
        self._seen_accepts: set[str] = set()
        self.emitted: set[frozenset] = set()  # products offered by kinds 1 and 2
        self._original_atoms = {a for atoms in self.atoms for a in atoms} if self.single_atom else set()
        self.kind1: SelectedProducts | None = None
        self.kind2: SelectedProducts | None = None
        self.kind3: AllPairs | None = None

    # -- factors -----------------------------------------------------------------
    def matrix(self) -> np.ndarray:
        if self._matrix is None:
            assert self._matrix_fn is not None  # only single-column pools have a matrix
            self._matrix = np.asarray(self._matrix_fn(), dtype=float)
        return self._matrix

    def original_values(self, i: int) -> np.ndarray:
        if self._matrix_fn is not None:
            return self.matrix()[:, i : i + 1]
        return np.asarray(self._values(i), dtype=float)

    def rank(self, atom: str) -> int:
        if atom not in self._rank:
            self._rank[atom] = len(self._rank)  # generated factors follow the originals
        return self._rank[atom]

    def product_name(self, atoms: frozenset) -> str:
        return ":".join(sorted(atoms, key=self.rank))

    def note_accept(self, term: AcceptedTerm) -> None:
        """Register an accepted term once (the driver tells every stream)."""
        if term.name in self._seen_accepts:
            return
        self._seen_accepts.add(term.name)
        atoms = frozenset(atoms_of(term.name))
        for a in atoms_of(term.name):
            self.rank(a)  # fixes where a generated factor sorts in product names
        if len(atoms) >= self.degree:
            return  # a product of it would exceed the degree
        new = _Factor(term.name, np.asarray(term.values, dtype=float), atoms)
        if self.kind1 is not None:
            for old in self.selected:
                key = old.atoms | new.atoms
                if self._allowed(old.atoms, new.atoms) and not self.already_offered(key):
                    self.kind1.queue.append((old, new))
        if self.kind2 is not None:
            self.kind2.queue.append([new, 0])
        self.selected.append(new)
        self.selected_names.add(term.name)

    def _allowed(self, a: frozenset, b: frozenset) -> bool:
        return not (a & b) and len(a | b) <= self.degree

    # -- deduplication -------------------------------------------------------------
    def owned_by_kind3(self, key: frozenset) -> bool:
        """A product of two original candidates, left to the all-pairs stream."""
        if self.kind3 is None:
            return False
        if self.single_atom:
            return len(key) == 2 and key <= self._original_atoms
        originals = set(self.atoms)
        return any(a <= key and (key - a) in originals for a in originals)

    def already_offered(self, key: frozenset) -> bool:
        return key in self.emitted or self.owned_by_kind3(key)

    def mark(self, key: frozenset) -> None:
        self.emitted.add(key)

    # -- values ----------------------------------------------------------------------
    def product(self, key: frozenset, a: np.ndarray, b: np.ndarray) -> tuple[str, np.ndarray, list[str] | None]:
        """(name, values, column names or None) of the product of two factors."""
        name = self.product_name(key)
        if a.shape[1] == 1 and b.shape[1] == 1:
            return name, a[:, 0] * b[:, 0], None
        mat, cols = self.evaluate(name)
        return name, mat, cols


def _block(stream: str, items: list[tuple[str, np.ndarray, list[str] | None]], n: int) -> TermBlock:
    names = [it[0] for it in items]
    mats = [it[1].reshape(n, -1) for it in items]
    widths = np.array([m.shape[1] for m in mats])
    values = np.concatenate(mats, axis=1)
    cols = None if all(it[2] is None for it in items) else [it[2] for it in items]
    return TermBlock(stream, names, CandidateBlock(values, widths), cols)


class DynamicStream(Stream):
    """A stream that may be empty now and grow later (on an acceptance).

    ``take`` returns None while nothing is pending but never marks the stream exhausted,
    so the driver asks again on its next turn and the stream rejoins the argmax rule.
    """

    n_candidates = None

    def take(self, k: int) -> TermBlock | None:
        block = self._next_block(k)
        if block is None or len(block) == 0:
            return None
        return block


class SelectedProducts(DynamicStream):
    """Kind 1 (selected x selected) or kind 2 (selected x original candidates)."""

    def __init__(self, name: str, pool: InteractionPool, kind: int, n_obs: int):
        super().__init__(name)
        if kind not in (1, 2):
            raise ValueError(f"SelectedProducts is kind 1 or 2, got {kind}")
        self.pool, self.kind, self.n_obs = pool, kind, n_obs
        # kind 1: (factor, factor) pairs; kind 2: [factor, cursor into pool.order] batches
        self.queue: deque = deque()
        self.n_generated = 0

    @property
    def n_pending(self) -> int:
        """Products queued and not yet offered (before deduplication)."""
        if self.kind == 1:
            return len(self.queue)
        return sum(self.pool.p - cur for _, cur in self.queue)

    def on_accept(self, term: AcceptedTerm) -> None:
        self.pool.note_accept(term)

    def _next_products(self, k: int) -> Iterator[tuple[str, np.ndarray, list[str] | None]]:
        pool = self.pool
        while self.queue and k > 0:
            if self.kind == 1:
                a, b = self.queue.popleft()
                key = a.atoms | b.atoms
                if pool.already_offered(key):
                    continue
                pool.mark(key)
                k -= 1
                yield pool.product(key, a.values, b.values)
                continue
            batch = self.queue[0]
            factor, cur = batch
            while cur < pool.p and k > 0:
                i = int(pool.order[cur])
                cur += 1
                oname = pool.names[i]
                if oname == factor.name or not pool._allowed(factor.atoms, pool.atoms[i]):
                    continue
                if pool.kind1 is not None and oname in pool.selected_names:
                    continue  # selected x selected belongs to kind 1
                key = factor.atoms | pool.atoms[i]
                if pool.already_offered(key):
                    continue
                pool.mark(key)
                k -= 1
                yield pool.product(key, factor.values, pool.original_values(i))
            batch[1] = cur
            if cur >= pool.p:
                self.queue.popleft()

    def _next_block(self, k: int) -> TermBlock | None:
        # kind 2 offers one product per turn: see the module docstring
        items = list(self._next_products(k if self.kind == 1 else min(k, 1)))
        if not items:
            return None
        self.n_generated += len(items)
        return _block(self.name, items, self.n_obs)


class AllPairs(Stream):
    """Kind 3: all ``p(p-1)/2`` products of the original candidates, generated lazily.

    Position ``t`` of the stream is the pair :func:`pair_of_index` ``(t)`` of positions in
    the pool's order; nothing of size ``p^2`` is ever built.
    """

    n_candidates: int

    def __init__(self, name: str, pool: InteractionPool, n_obs: int):
        super().__init__(name)
        self.pool, self.n_obs = pool, n_obs
        self.position = 0  # pairs generated so far (offered or skipped as duplicates)
        self.n_generated = 0  # product columns actually computed
        self.n_candidates = pool.p * (pool.p - 1) // 2

    def _next_block(self, k: int) -> TermBlock | None:
        pool = self.pool
        items: list = []
        while len(items) < k and self.position < self.n_candidates:
            stop = min(self.position + (k - len(items)), self.n_candidates)
            a, b = pair_of_index(np.arange(self.position, stop))
            self.position = stop
            i, j = pool.order[a], pool.order[b]
            lo, hi = np.minimum(i, j), np.maximum(i, j)
            if not pool.single_atom:
                keep = np.array([pool._allowed(pool.atoms[x], pool.atoms[y]) for x, y in zip(lo, hi)], dtype=bool)
                lo, hi = lo[keep], hi[keep]
            if len(lo) == 0:
                continue
            if pool._matrix_fn is not None:
                m = pool.matrix()
                vals = m[:, lo] * m[:, hi]
                names = [pool.product_name(pool.atoms[x] | pool.atoms[y]) for x, y in zip(lo, hi)]
                items.extend((nm, vals[:, c], None) for c, nm in enumerate(names))
            else:
                for x, y in zip(lo, hi):
                    key = pool.atoms[x] | pool.atoms[y]
                    items.append(pool.product(key, pool.original_values(x), pool.original_values(y)))
        if not items:
            return None
        self.n_generated += len(items)
        return _block(self.name, items, self.n_obs)


def interaction_streams(request: ClassRequest) -> list[Stream]:
    """The streams of one ``interactions()`` item, one per kind.

    ``request.sources`` maps stream names (and the group name of ``clusters()``) to their
    streams; without arguments the originals are the candidates of the ``stream()``
    items (``request.default_sources``).

    Examples
    --------
    >>> import numpy as np, pandas as pd, streamreg as sr
    >>> rng = np.random.default_rng(3)
    >>> df = pd.DataFrame(rng.normal(size=(300, 3)), columns=["x1", "x2", "x3"])
    >>> df["y"] = df.x1 + df.x2 + 2 * df.x1 * df.x2 + rng.normal(size=300)
    >>> "x1:x2" in sr.streamreg("y ~ stream(x*) + interactions()", df).selected_terms
    True
    """
    text, options, sources = request.text, request.options, request.sources
    if request.args:
        unknown = [a for a in request.args if a not in sources]
        if unknown:
            raise FormulaError(f"{text}: no stream is called {unknown[0]!r}; streams: {sorted(sources)}")
        chosen = [cast(TermSource, s) for a in request.args for s in sources[a]]
    else:
        if not request.default_sources:
            raise FormulaError(
                f"{text}: interactions() multiplies the candidates of stream() items, but the "
                "formula has none; add e.g. stream(x*) or name the streams to use"
            )
        chosen = [cast(TermSource, s) for a in request.default_sources for s in sources[a]]
    kinds = options.get("kind", (1, 2))
    kinds = (kinds,) if isinstance(kinds, int) else tuple(kinds)
    if not kinds or any(k not in KINDS for k in kinds) or len(set(kinds)) != len(kinds):
        raise FormulaError(f"{text}: kind= must be 1, 2, 3 or a tuple of them, got {options['kind']!r}")
    degree = options.get("degree", 2)
    if not isinstance(degree, int) or degree < 2:
        raise FormulaError(f"{text}: degree= must be an integer >= 2, got {degree!r}")

    names: list[str] = []
    owners: list[tuple[TermSource, int]] = []
    for s in chosen:
        for i, nm in enumerate(s.term_names):
            if nm not in names:
                names.append(nm)
                owners.append((s, i))
    if len(names) < 2 and 3 in kinds:
        raise FormulaError(f"{text}: kind 3 needs at least two original candidates")
    single = all(s.is_single_column(i) for s, i in owners)

    def matrix() -> np.ndarray:
        return np.column_stack([s.term_values(i)[:, 0] for s, i in owners])

    def values(i: int) -> np.ndarray:
        s, j = owners[i]
        return s.term_values(j)

    label = str(options.get("name") or "interactions")
    order = request.resolved_order()
    perm = None
    if not (isinstance(order, str) and order == "given"):
        perm = request.order(matrix() if single else None, n=len(names), label=label)
    assert request.evaluate is not None
    pool = InteractionPool(names, values, matrix if single else None, request.evaluate, kinds=kinds,
                           degree=degree, order=perm)
    out: list[Stream] = []
    for k in sorted(kinds):
        if k == 3:
            pool.kind3 = AllPairs(f"{label}[3]", pool, request.n)
            out.append(pool.kind3)
        else:
            st = SelectedProducts(f"{label}[{k}]", pool, k, request.n)
            setattr(pool, f"kind{k}", st)
            out.append(st)
    return out
