"""Rescoring a least-squares block after an acceptance: only what the acceptance changed.

A block's single-column scores against the model ``[Q r]`` come from the products
``[Q r]' B`` and the squared norms of B's columns (:func:`~.base.gain_from_products`).
Accepting a term grows the orthonormal basis in place by new directions ``Q1``
(:class:`~.basis.Basis`, Gram-Schmidt) and moves the residual to
``r = r0 - Q1 (Q1' r0)``.  The old columns of Q do not change, so neither do the rows
``Q' B`` of the block's products, nor its norms.  What changes is a rank-one update (one
per new direction ``q``) of each candidate's numbers:

* ``Q' B`` gains the row ``q' B``, so each residual norm ``||b~||^2 = ||b||^2 - ||Q' b||^2``
  loses ``(q' b)^2``;
* the projections on the residual become ``r' B = r0' B - (q' r0) q' B``.

``q' B`` is one product of the block with one vector (a matrix-vector product, one read of
the block), where a fresh scoring multiplies the block by all ``k + 1`` columns of
``[Q r]``.  After several new directions (a block re-offered in a later pass, which starts
from the products its last test kept) one fused pass multiplies the block by them and the
residual, ``[Q1 r]' B``.  Candidates nearly in the model's span have their residual recomputed
explicitly by :func:`~.base.gain_from_products`, as in a fresh scoring, and the exact
projection on the residual it then computes is what is kept for the next update.  The
scores equal those of a fresh scoring up to rounding (tests/models/test_rescore.py).

The products are kept on the block (:attr:`~.base.CandidateBlock.projections`) with the
basis and the residual they belong to; a block scored against another basis (another
state, a refit) is scored afresh.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .base import CandidateBlock, Projections, gain_from_products
from .basis import Basis
from .kernels import block_products


def reduce_single_incremental(block: CandidateBlock, basis: Basis, q_and_target: np.ndarray,
                              residual: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Gain and rank of each single-column term of ``block`` against ``[Q r]``, as
    :meth:`~.base.CandidateBlock.reduce_single` computes them, multiplying the block only by
    the basis columns added since it was last scored against ``basis``.

    ``q_and_target`` is ``[basis.q, r]`` with ``r`` (``residual``, kept by reference: not
    the column of ``q_and_target``, which would keep that whole matrix alive) the residual of
    a target on the basis; between calls the basis may only grow and the residual move
    accordingly (``r = r0 - Q1 Q1' r0`` for the new columns ``Q1``).  The block keeps its
    products for the next call.

    Examples
    --------
    >>> import numpy as np
    >>> from streamreg.models.base import CandidateBlock, reduce_single_columns
    >>> from streamreg.models.basis import Basis
    >>> rng = np.random.default_rng(0)
    >>> x, y = rng.standard_normal((50, 6)), rng.standard_normal(50)
    >>> basis, block = Basis(50), CandidateBlock(x[:, 2:])
    >>> for cols in (x[:, :1], x[:, 1:2]):  # score, accept a column, rescore
    ...     _ = basis.append(cols)
    ...     r = y - basis.q @ (basis.q.T @ y)
    ...     qt = np.column_stack([basis.q, r])
    ...     gain, rank = reduce_single_incremental(block, basis, qt, r)
    >>> bool(np.allclose(gain, reduce_single_columns(qt, x[:, 2:])[0], rtol=1e-12))
    True
    """
    values, k = block.unchecked_values, basis.k
    known = block.projections
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        if known is not None and known.basis is basis and known.qb.shape[0] <= k:
            k0 = known.qb.shape[0]
            g = np.empty((k + 1, values.shape[1]))
            g[:k0] = known.qb
            if k > k0 + 1:  # several new directions: one fused pass for them and the residual
                g[k0:], _ = block_products(q_and_target[:, k0:], values, block.sq_norms())
            else:  # one matrix-vector product (values' layout, no copy), r' B by the update above
                new = q_and_target[:, k0:k]
                if k > k0:
                    g[k0:k] = (values.T @ new[:, 0])[None]
                g[k] = known.rb - (new.T @ known.target) @ g[k0:k]
        else:  # a fresh scoring: one pass for the products and, the first time, the norms
            g, block.norm2 = block_products(q_and_target, values, block.norm2)
            block.run_check()
        # Q'B before gain_from_products rescales out-of-range columns in g (it redoes those
        # from their values on every call); r'B after it, with the near-collinear columns' exact
        qb = g[:-1].copy()
        gain, rank = gain_from_products(q_and_target, g, block.sq_norms(), lambda idx: values[:, idx])
        block.projections = Projections(basis, qb, residual, g[-1])
        return gain, rank


#: products kept for a re-offer in a later pass cost at most this share of the values they
#: summarise (``k + 2`` numbers per candidate against ``n`` values): tall blocks keep them
KEEP_FOR_REOFFER_SHARE = 1 / 256


@dataclass(frozen=True)
class KeptProducts:
    """Single-column candidates' products with a model's ``[Q r]``, kept after their test:
    ``qb = Q' B`` (``k x m``), ``rb = r' B`` on the residual ``target`` and the squared norms,
    with the :class:`Basis` they belong to.  A model nested in that one scores the candidates
    from these numbers alone (:meth:`~streamreg.models.gaussian.GaussianState.score_kept`),
    without reading them; the same model grown since scores them by products with its new
    directions only (:meth:`~streamreg.models.gaussian.GaussianState.resume_products`).
    """

    basis: Basis
    qb: np.ndarray
    rb: np.ndarray
    norm2: np.ndarray
    target: np.ndarray

    @classmethod
    def of(cls, block: object, columns: np.ndarray) -> KeptProducts | None:
        """The products ``block`` (a :class:`CandidateBlock`) keeps for ``columns``, if it keeps any."""
        known = getattr(block, "projections", None)
        norm2 = getattr(block, "norm2", None)
        if known is None or norm2 is None or known.qb.shape[1] != norm2.shape[0]:
            return None
        return cls(known.basis, known.qb[:, columns], known.rb[columns], norm2[columns], known.target)

    @staticmethod
    def small_beside(block: CandidateBlock) -> bool:
        """Whether ``block``'s products are small enough beside its values to keep for a re-offer."""
        known = block.projections
        return known is not None and known.qb.shape[0] + 2 <= KEEP_FOR_REOFFER_SHARE * block.unchecked_values.shape[0]

    def take(self, index: slice | np.ndarray) -> KeptProducts:
        return KeptProducts(self.basis, self.qb[:, index], self.rb[index], self.norm2[index], self.target)

    def resume(self, block: CandidateBlock, basis: Basis) -> bool:
        """Give ``block`` (these candidates, read again) these products, when they belong to
        ``basis`` as it was before it grew: its next scoring multiplies it by the new
        directions only (:func:`reduce_single_incremental`).  False where they do not apply."""
        if self.basis is not basis or self.qb.shape[0] > basis.k or self.qb.shape[1] != block.unchecked_values.shape[1]:
            return False
        block.projections = Projections(basis, self.qb, self.target, self.rb)
        if block.norm2 is None:
            block.norm2 = self.norm2
        block.run_check()
        return True
