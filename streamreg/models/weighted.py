"""Scores of candidate columns under row weights, without a weighted copy of the block.

A GLM scores a block ``B`` as the columns of ``W^(1/2) B`` (``W`` the working weights).
Forming ``W^(1/2) B`` writes a copy as large as the block (1.6 GB for 1e6 rows and 200
candidates) and reads it twice more.  The two quantities the scores need fold the weights
into their small side instead:

* ``[Q t]' W^(1/2) B = (W^(1/2) [Q t])' B``: with numpy the weights multiply the
  ``n x (k + 1)`` basis, and one product reads ``B`` once;
* ``||W^(1/2) b_j||^2 = sum_i w_i b_ij^2``: weights on the squares, no temporary.

Both come from the scoring kernel (:func:`~streamreg.models.kernels.block_products`): with
numba, in the same single read of ``B`` as an unweighted block's, with ``W^(1/2)`` applied
to one strip of the basis at a time (no weighted copy of the whole basis either).

Only the few columns the scorer needs by value (scales out of floating-point range,
near-collinear columns) are weighted explicitly
(:func:`~streamreg.models.base.reduce_weighted_columns`).
"""
from __future__ import annotations

import numpy as np

from .kernels import block_products


def weighted_products(q_and_target: np.ndarray, values: np.ndarray,
                      row_weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``[Q t]' W^(1/2) B`` and the squared norms of the columns of ``W^(1/2) B``.

    ``row_weights`` is ``w^(1/2)``.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> q, b, sw = rng.standard_normal((5, 2)), rng.standard_normal((5, 3)), rng.random(5)
    >>> g, norm2 = weighted_products(q, b, sw)
    >>> bool(np.allclose(g, q.T @ (sw[:, None] * b))), bool(np.allclose(norm2, ((sw[:, None] * b) ** 2).sum(0)))
    (True, True)
    """
    return block_products(q_and_target, values, None, row_scale=row_weights)
