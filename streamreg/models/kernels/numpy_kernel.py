"""The scoring products with numpy: the plain install's backend.

Two passes over a block ``B``: a BLAS GEMM for ``[Q t]' B`` and an ``einsum`` for the
squared column norms (skipped when the block already has them).  Any dtype and layout.
"""
from __future__ import annotations

import numpy as np


def products(q_and_target: np.ndarray, values: np.ndarray, norm2: np.ndarray | None,
             row_scale: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``[Q t]' B`` and the squared norms of B's columns (``norm2`` when given); with a
    ``row_scale`` s, those of ``diag(s) B``: ``(s [Q t])' B`` and ``sum_i s_i^2 b_ij^2``, the
    scale folded into the basis and the norms instead of a scaled copy of the block.

    Examples
    --------
    >>> import numpy as np
    >>> qt = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
    >>> b = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    >>> g, norm2 = products(qt, b, None)
    >>> g.tolist(), norm2.tolist()
    ([[1.0, 2.0], [3.0, 4.0]], [35.0, 56.0])
    """
    if row_scale is None:
        g = q_and_target.T @ values
        if norm2 is None:
            norm2 = np.einsum("ij,ij->j", values, values)
        return g, norm2
    if len(row_scale) != values.shape[0]:
        raise ValueError(f"{len(row_scale)} row scales for a block of {values.shape[0]} rows")
    g = (q_and_target * row_scale[:, None]).T @ values
    return g, np.einsum("ij,ij,i->j", values, values, row_scale * row_scale)
