"""Shared pieces of the model states: candidate blocks and the orthogonal basis.

:class:`CandidateValues` is the seam for where a block's values live: the model states, the
drivers and the passes use a block only through it.  :class:`CandidateBlock` keeps the values
in memory as one numpy matrix; ``streams/dask_array.py:DaskBlock`` keeps them in a Dask array
and scores each chunk where it lives.  A sparse or GPU block is one more class implementing
the protocol, with the stream that hands it out (see ``docs/design.md``).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from .basis import COLLINEAR_TOL, Basis
from .kernels import block_products
from .observation_weights import NO_WEIGHTS as NO_WEIGHTS, ObservationWeights as ObservationWeights
from .weighted import weighted_products


def column_norms(values: np.ndarray) -> np.ndarray:
    """Squared norm of every column of ``values`` (NaN or inf where a column is not finite
    or overflows): what :meth:`CandidateBlock.sq_norms` computes, for a caller that has
    the columns of many blocks at once."""
    with np.errstate(over="ignore", invalid="ignore"):
        return np.einsum("ij,ij->j", values, values)


class CandidateValues(Protocol):
    """A block of ``m`` candidate terms, wherever their values live.

    The terms' columns are numbered as if stacked into one ``n x sum(widths)`` matrix: term
    ``j`` holds columns ``starts[j]`` to ``starts[j] + widths[j]``.  Every array a block
    returns is a numpy array in memory; a block whose values live elsewhere (a cluster, a
    sparse matrix, a GPU) computes there and hands back numbers.  The costs differ by
    member, and the callers use the cheap ones on the common path:

    * :meth:`reduce_single` is the one pass over the values every search makes: the gain
      and rank of each single-column term against the current model's ``[Q t]``;
    * :meth:`term` fetches one term (an accepted candidate, a rare near-collinear rescue);
    * :attr:`values` materialises the whole block, for the rarer paths (multi-column terms,
      robust candidate tests, the penalised methods, a re-offered block's copy).
    """

    @property
    def widths(self) -> np.ndarray:
        """Columns of each term (int array of length ``m``)."""
        ...

    @property
    def starts(self) -> np.ndarray:
        """First column of each term."""
        ...

    @property
    def values(self) -> np.ndarray:
        """All the columns as one float matrix in memory."""
        ...

    def __len__(self) -> int:
        """The number of terms ``m``."""
        ...

    def term(self, j: int) -> np.ndarray:
        """Term ``j``'s columns, ``n x widths[j]``."""
        ...

    def sq_norms(self) -> np.ndarray:
        """Squared norm of every column (NaN or inf where a column is not finite)."""
        ...

    def reduce_single(self, q_and_target: np.ndarray,
                      row_weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Gain and rank of each single-column term against ``[Q t]`` (see :func:`reduce_single_columns`);
        ``row_weights`` multiply the rows first."""
        ...

    def constant_terms(self, terms: np.ndarray) -> np.ndarray:
        """Whether each of ``terms`` (positions) is constant: all its columns are."""
        ...

    def tail(self, start: int) -> CandidateValues:
        """The terms from position ``start`` on."""
        ...


@dataclass(frozen=True)
class Projections:
    """A block's products with ``[Q r]``: ``qb = Q' B`` on the first ``k`` columns of
    ``basis`` (``k x m``) and ``rb = r' B`` on the residual ``target``."""

    basis: Basis
    qb: np.ndarray
    target: np.ndarray
    rb: np.ndarray

    def tail(self, col0: int) -> Projections:
        """The products of the columns from ``col0`` on."""
        return Projections(self.basis, self.qb[:, col0:], self.target, self.rb[col0:])

    def head(self, col1: int) -> Projections:
        """The products of the columns before ``col1``."""
        return Projections(self.basis, self.qb[:, :col1], self.target, self.rb[:col1])


class CandidateBlock:
    """``m`` candidate terms in memory, stacked column-wise into one ``n x sum(d)`` matrix.

    ``widths[j]`` is the number of columns of term ``j`` (default: one column per term);
    single-column terms are the common case and are scored with pure matrix products.
    ``norm2``: the columns' squared norms when the caller has them (:meth:`sq_norms`).
    The in-memory implementation of :class:`CandidateValues`.
    ``check``: a check of the block (a stream's NaN check) that needs the norms; it waits
    for them (:attr:`check_pending`), run by the first scoring pass, or before the values
    are read otherwise.
    """

    _check: Callable[[CandidateBlock], None] | None = None

    def __init__(self, values: np.ndarray, widths: np.ndarray | None = None, norm2: np.ndarray | None = None,
                 check: Callable[[CandidateBlock], None] | None = None):
        arr = np.asarray(values, dtype=float)
        self._values = arr[:, None] if arr.ndim == 1 else arr
        self.widths = np.asarray(np.ones(self._values.shape[1], dtype=int) if widths is None else widths, dtype=int)
        self.starts = np.concatenate(([0], np.cumsum(self.widths)[:-1])).astype(int)
        #: squared column norms, computed once (:meth:`sq_norms`) and kept across rescores
        self.norm2 = norm2
        #: ``Q' B`` on a least-squares state's basis, kept so that a rescore after an
        #: acceptance multiplies the block by the new directions only (:mod:`.rescore`)
        self.projections: Projections | None = None
        # a check of the values (a stream's NaN check) that waits for the norms: it runs when
        # the first scoring pass has computed them, or before the values are read otherwise
        self._check = check

    @property
    def values(self) -> np.ndarray:
        """All the columns as one float matrix (a pending check runs first)."""
        if self._check is not None:
            self.run_check()
        return self._values

    @property
    def unchecked_values(self) -> np.ndarray:
        """The columns before a pending check ran: for a scoring pass that computes the norms
        the check needs and then calls :meth:`run_check`."""
        return self._values

    @property
    def check_pending(self) -> bool:
        """Whether a check given at construction waits for the norms."""
        return self._check is not None

    def run_check(self) -> None:
        """Run the pending check (if any), computing the norms first if no pass did."""
        check, self._check = self._check, None
        if check is not None:
            self.sq_norms()
            check(self)

    def __len__(self) -> int:
        return len(self.widths)

    def term(self, j: int) -> np.ndarray:
        return self.values[:, self.starts[j] : self.starts[j] + self.widths[j]]

    def sq_norms(self) -> np.ndarray:
        """Squared norm of every column (NaN or inf where a column is not finite or overflows).

        Computed on first use and cached: after an acceptance the unconsumed candidates
        are rescored against the new model, and their norms have not changed.
        """
        if self.norm2 is None:
            self.norm2 = column_norms(self._values)
        return self.norm2

    def nonfinite_columns(self) -> np.ndarray:
        """Indices of the columns holding a NaN or an infinity (from the cached norms).

        A non-finite squared norm means a NaN, an infinity or an overflow of finite values
        (e.g. 1e200); only those few columns are checked exactly.
        """
        suspects = np.flatnonzero(~np.isfinite(self.sq_norms()))
        if suspects.size == 0:
            return suspects
        return suspects[~np.isfinite(self.values[:, suspects]).all(axis=0)]

    def reduce_single(self, q_and_target: np.ndarray,
                      row_weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Gain and rank of each single-column term against ``[Q t]`` (see :func:`reduce_single_columns`).

        This is the one pass over the candidates' values, so it runs where they live: here
        in memory; a block whose values sit on a cluster (``streamreg.dask``) runs it on the
        workers.  ``row_weights`` multiply the rows first (a GLM's square-root working
        weights); the norms are then those of the weighted columns, so the cache is unused,
        and the weights are folded into the small side (:mod:`.weighted`), not copied into the block.
        """
        if row_weights is None:
            values = self._values
            with np.errstate(invalid="ignore", over="ignore"):
                # one pass for the products and, on the block's first scoring, its norms
                g, self.norm2 = block_products(q_and_target, values, self.norm2)
            self.run_check()
            with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
                return gain_from_products(q_and_target, g, self.norm2, lambda idx: values[:, idx])

        return reduce_weighted_columns(q_and_target, self.values, row_weights)

    def constant_columns(self) -> np.ndarray:
        """Whether each column is constant."""
        return np.ptp(self.values, axis=0) == 0

    def constant_terms(self, terms: np.ndarray) -> np.ndarray:
        """Whether each of ``terms`` (positions) is constant, i.e. all its columns are.

        Asked only of the collinear terms, so a stepwise search, whose selected terms stay
        in their blocks as collinear candidates, does not pass over the whole block again.
        """
        widths = self.widths[terms]
        cols = np.repeat(self.starts[terms] - np.cumsum(widths) + widths, widths) + np.arange(widths.sum())
        const_cols = np.ptp(self.values[:, cols], axis=0) == 0 if self.values.shape[0] else np.ones(cols.size, bool)
        return np.logical_and.reduceat(const_cols, np.cumsum(widths) - widths) if terms.size else const_cols

    def tail(self, start: int) -> CandidateBlock:
        """The terms from position ``start`` on (a view; cached norms are kept)."""
        col0 = int(self.starts[start]) if start < len(self) else self.values.shape[1]
        norm2 = None if self.norm2 is None else self.norm2[col0:]
        out = CandidateBlock(self.values[:, col0:], self.widths[start:], norm2)
        out.projections = None if self.projections is None else self.projections.tail(col0)
        return out

    def head(self, stop: int) -> CandidateBlock:
        """The terms before position ``stop`` (a view; cached norms and products are kept)."""
        col1 = int(self.starts[stop]) if stop < len(self) else self.values.shape[1]
        norm2 = None if self.norm2 is None else self.norm2[:col1]
        out = CandidateBlock(self.values[:, :col1], self.widths[:stop], norm2)
        out.projections = None if self.projections is None else self.projections.head(col1)
        return out


#: squared column norms outside this range are rescored at a power-of-two scale
_SAFE_LOW, _SAFE_HIGH = 2.0**-600, 2.0**600

#: below this fraction of its squared norm left after projection, a candidate's residual
#: norm is recomputed explicitly instead of by subtraction (which would lose digits)
_RECOMPUTE_BELOW = 1e-4


def reduce_single_columns(q_and_target: np.ndarray, cols: np.ndarray,
                          norm2: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """See :func:`_reduce_single_columns`; a NaN or infinite candidate yields a NaN gain,
    which the search reports by name, so numpy's floating-point warnings are silenced here.
    ``norm2``: the columns' squared norms if already known (saves a pass over ``cols``)."""
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        return _reduce_single_columns(q_and_target, cols, norm2)


def _reduce_single_columns(q_and_target: np.ndarray, cols: np.ndarray,
                           norm2: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Squared projection of a target on each candidate's new direction, and its rank.

    ``q_and_target`` is ``[Q, t]``: an orthonormal basis of the model and a target vector
    orthogonal to it (the residual).  For each column b of ``cols``:
    ``(b~'t)^2 / ||b~||^2`` with ``b~ = (I - QQ')b``, computed as
    ``(b't)^2 / (||b||^2 - ||Q'b||^2)`` from one GEMM; ``b~'t = b't`` because Q't = 0.
    """
    g, norm2 = block_products(q_and_target, cols, norm2)
    return gain_from_products(q_and_target, g, norm2, lambda idx: cols[:, idx])


def gain_from_products(q_and_target: np.ndarray | Callable[[], np.ndarray], g: np.ndarray, norm2: np.ndarray,
                       columns: Callable[[np.ndarray], np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Gain and rank from the products ``g = [Q t]' B`` and the squared norms of B's columns.

    The products are all most columns need; ``columns(idx)`` returns the few columns that
    need their values (scales out of floating-point range, near-collinear columns), so the
    products may come from anywhere (here, or summed over row chunks on a cluster).  Those
    columns are scored against ``[Q t]``, which may be given as a function that forms it
    (called only for them).  ``g`` may be modified; ``norm2`` (often a block's cached norms) is not.
    """
    if callable(q_and_target):
        form = q_and_target
    else:
        def form() -> np.ndarray:
            return q_and_target
    qb, u = g[:-1], g[-1]
    rescaled: tuple[np.ndarray, np.ndarray] | None = None
    # the usual block has every norm in range: two reductions say so (NaN fails them too)
    if norm2.size and _SAFE_LOW < norm2.min() and norm2.max() < _SAFE_HIGH:
        wild = np.empty(0, dtype=np.intp)
    else:
        wild = np.flatnonzero(~((norm2 > _SAFE_LOW) & (norm2 < _SAFE_HIGH)))
    if wild.size:
        # columns at scales like 1e-300 or 1e200 under- or overflow in the products above;
        # the statistic is scale-free, so score them at a power-of-two scale (exact).
        # All-zero columns (common in sparse data) need no rescue.
        values = columns(wild)
        nonzero = np.any(values != 0, axis=0)
        wild, values = wild[nonzero], values[:, nonzero]
    if wild.size:
        sub = equilibrate(values)
        g[:, wild] = form().T @ sub
        norm2 = norm2.copy()
        norm2[wild] = np.einsum("ij,ij->j", sub, sub)
        rescaled = (wild, sub)
    d2 = norm2 - np.einsum("ij,ij->j", qb, qb)
    redo = np.flatnonzero(d2 <= _RECOMPUTE_BELOW * norm2)
    if redo.size:
        sub = _columns_as_scored(redo, columns, rescaled)
        qt = form()
        q = qt[:, :-1]
        res = sub - q @ (q.T @ sub)
        res -= q @ (q.T @ res)  # second pass: exact orthogonality even for near-collinear columns
        d2[redo] = np.einsum("ij,ij->j", res, res)
        u[redo] = res.T @ qt[:, -1]
    # collinear columns are among those recomputed: the others keep d2 > 1e-4 ||b||^2
    with np.errstate(divide="ignore", invalid="ignore"):
        gain = u * u / d2
    rank = np.ones(d2.size, dtype=int)
    if redo.size:
        collinear = redo[d2[redo] <= COLLINEAR_TOL * norm2[redo]]
        gain[collinear] = 0.0
        rank[collinear] = 0
    return gain, rank


def reduce_weighted_columns(q_and_target: np.ndarray, values: np.ndarray,
                            row_weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Gain and rank of each column of ``W^(1/2) B`` against ``[Q t]``, as
    :func:`reduce_single_columns` of the weighted copy computes them.

    Examples
    --------
    >>> import numpy as np
    >>> from streamreg.models.base import reduce_single_columns
    >>> rng = np.random.default_rng(0)
    >>> q, _ = np.linalg.qr(rng.standard_normal((20, 2)))
    >>> t = rng.standard_normal(20)
    >>> t -= q @ (q.T @ t)
    >>> b, sw = rng.standard_normal((20, 4)), rng.random(20) + 0.5
    >>> qt = np.column_stack([q, t])
    >>> gain, rank = reduce_weighted_columns(qt, b, sw)
    >>> bool(np.allclose(gain, reduce_single_columns(qt, sw[:, None] * b)[0], rtol=1e-12))
    True
    """
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        g, norm2 = weighted_products(q_and_target, values, row_weights)
        return gain_from_products(q_and_target, g, norm2, lambda idx: row_weights[:, None] * values[:, idx])


def _columns_as_scored(idx: np.ndarray, columns: Callable[[np.ndarray], np.ndarray],
                       rescaled: tuple[np.ndarray, np.ndarray] | None) -> np.ndarray:
    """Columns ``idx``, the rescaled copies where a column was scored at another scale."""
    values = np.array(columns(idx), dtype=float)
    if rescaled is not None:
        wild, sub = rescaled
        pos = np.searchsorted(wild, idx)
        hit = (pos < wild.size) & (wild[np.minimum(pos, wild.size - 1)] == idx)
        values[:, hit] = sub[:, pos[hit]]
    return values


def multi_column_reduction(resid: np.ndarray, target: np.ndarray, total_sq: float) -> tuple[float, int]:
    """Squared norm of the projection of ``target`` on span(resid), and its rank.

    ``resid`` is an ``n x d`` block already orthogonal to the model; ``total_sq`` is the
    block's squared norm before projection, used for the collinearity threshold.
    """
    qb, rb = np.linalg.qr(resid)
    diag = np.abs(np.diag(rb))
    keep = diag**2 > COLLINEAR_TOL * max(total_sq, np.finfo(float).tiny)
    if not keep.any():
        return 0.0, 0
    if not keep.all():
        # rank-deficient term: re-orthogonalise only the independent part
        qb, rb = np.linalg.qr(resid[:, keep])
    proj = qb.T @ target
    return float(proj @ proj), int(keep.sum())


#: why a candidate was skipped (recorded in the history; skipped tests are not charged)
TESTED, COLLINEAR, CONSTANT, NO_DF = 0, 1, 2, 3
SKIP_REASONS = {
    TESTED: "",
    COLLINEAR: "skipped: collinear with the current model",
    CONSTANT: "skipped: constant",
    NO_DF: "skipped: no residual degrees of freedom",
}

#: why a model state refused to accept a term the rule chose (``accept`` returns one)
SEPARATION, NONCONVERGENCE, INVALID_MEANS = "separation", "nonconvergence", "invalid means"
REFUSAL_REASONS = {
    SEPARATION: "refused: separation (the maximum-likelihood estimate does not exist; exact LP test)",
    NONCONVERGENCE: "refused: IRLS did not converge (the data are not separated)",
    INVALID_MEANS: "refused: fitted means outside the family's range (IRLS found no valid fit with this link)",
}


def stack_by_column(parts: list[np.ndarray]) -> np.ndarray:
    """The 2-D ``parts`` side by side, column-ordered (an indexed copy's layout, so a joined block
    scores bit for bit as its parts; ``np.column_stack``'s rows would make column reads strided).

    Examples
    --------
    >>> stack_by_column([np.ones((2, 1)), np.zeros((2, 2))]).flags.f_contiguous
    True
    """
    out = np.empty((parts[0].shape[0], sum(p.shape[1] for p in parts)), order="F")
    at = 0
    for p in parts:
        out[:, at : at + p.shape[1]] = p
        at += p.shape[1]
    return out


def column_peaks(values: np.ndarray) -> np.ndarray:
    """The largest magnitude in each column of a non-empty matrix (NaN where a column has one).

    On a column-ordered matrix as max and -min, which read each column in place: the
    absolute values' temporary costs more than the reads there.

    Examples
    --------
    >>> column_peaks(np.asfortranarray([[1.0, -3.0], [-2.0, 0.5]])).tolist()
    [2.0, 3.0]
    """
    with np.errstate(invalid="ignore"):
        if values.flags.f_contiguous:
            return np.asarray(np.maximum(values.max(axis=0), -values.min(axis=0)))
        return np.asarray(np.abs(values).max(axis=0))


def column_scales(values: np.ndarray) -> np.ndarray:
    """Per-column powers of two that bring each column's largest magnitude into [0.5, 1).

    Dividing by a power of two is exact, so scaled columns carry the same digits; zero,
    empty and non-finite columns get 1.  Used wherever a column's scale could otherwise
    leave floating-point range or mislead a rank decision.
    """
    values = np.asarray(values, dtype=float)
    if values.shape[0] == 0:
        return np.ones(values.shape[1])
    peak = column_peaks(values)
    peak = np.where(np.isfinite(peak) & (peak > 0), peak, 1.0)
    return np.ldexp(1.0, np.frexp(peak)[1])


def equilibrate(values: np.ndarray) -> np.ndarray:
    """``values`` with every column divided by its :func:`column_scales` (a new array)."""
    values = np.asarray(values, dtype=float)
    return values / column_scales(values)


def skip_codes(block: CandidateValues, rank: np.ndarray, df_resid: np.ndarray) -> np.ndarray:
    """Skip code per candidate from its rank after projection and the df left."""
    codes = np.zeros(len(block), dtype=np.int8)
    collinear = np.flatnonzero(rank == 0)
    if collinear.size:
        codes[collinear] = np.where(block.constant_terms(collinear), CONSTANT, COLLINEAR)
    if np.size(df_resid) and np.min(df_resid) <= 0:
        codes[(codes == TESTED) & (df_resid <= 0)] = NO_DF
    return codes
