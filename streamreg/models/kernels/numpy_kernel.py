"""The scoring products with numpy: the plain install's backend.

Two passes over a block ``B``: a BLAS GEMM for ``[Q t]' B`` and an ``einsum`` for the
squared column norms (skipped when the block already has them).  Any dtype and layout.
"""
from __future__ import annotations

import numpy as np


def products(q_and_target: np.ndarray, values: np.ndarray, norm2: np.ndarray | None,
             weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``[Q t]' B`` and the squared norms of B's columns (``norm2`` when given), each row's
    squares weighted by ``weights`` if given (``sum_i w_i b_ij^2``).

    Examples
    --------
    >>> import numpy as np
    >>> qt = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
    >>> b = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    >>> g, norm2 = products(qt, b, None)
    >>> g.tolist(), norm2.tolist()
    ([[1.0, 2.0], [3.0, 4.0]], [35.0, 56.0])
    """
    g = q_and_target.T @ values
    if norm2 is None:
        norm2 = np.einsum("ij,ij->j", values, values) if weights is None \
            else np.einsum("ij,ij,i->j", values, values, weights)
    return g, norm2
