"""From candidate terms to penalised weight columns: the linear and RBF models of grafting.

Perkins and Theiler (2003, section 3.4) rescale every arriving feature to mean 0 and standard deviation 1
(over the training rows) so that one ``lambda`` suits all weights; the same rescaling is
kept in each column's :class:`ColumnSpec` to rebuild the column on new rows.  A spec is
data, not a formula: the formula layer writes the refit's terms from it
(:func:`streamreg.formula.terms.rbf_term`).

* ``"linear"`` (section 4.3.1): one weight per design column of the term.
* ``"rbf"`` (section 4.3.2): per single-column feature, up to ``k_max`` Gaussian radial
  basis functions ``g(z - c) = exp(-((z - c) / width)^2)`` of the standardised feature
  ``z``; the centres are the minimum, the maximum and the boundaries of ``k_max - 1``
  equal-count bins (i.e. the quantiles at ``linspace(0, 1, k_max)``), duplicates removed
  (hence "up to").  The paper's experiments use ``k_max = 10`` and width 0.3 on
  standardised features; both are parameters.  Multi-column terms (factors) stay linear.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ...validators import check_choice, check_integer, check_number

if TYPE_CHECKING:
    from ...models.base import CandidateValues

BASES = ("linear", "rbf")


@dataclass(frozen=True)
class ColumnSpec:
    """How one penalised weight column is built from its term's raw values."""

    term: int  # running index of the term over the whole search
    source: int  # column of the term's raw matrix
    mean: float
    sd: float
    centre: float | None = None  # RBF centre on the standardised scale (None: linear)
    width: float | None = None

    @property
    def is_rbf(self) -> bool:
        return self.centre is not None

    def values(self, raw: np.ndarray) -> np.ndarray:
        """The column on rows of the term's raw matrix ``raw`` (n x d)."""
        z = (np.asarray(raw, dtype=float).reshape(len(raw), -1)[:, self.source] - self.mean) / self.sd
        if self.centre is not None:  # RBF
            assert self.width is not None  # set with every centre
            return np.exp(-(((z - self.centre) / self.width) ** 2))
        return z


class Expander:
    """Turns a block of raw term values into standardised (or RBF) weight columns.

    Parameters
    ----------
    basis : {"linear", "rbf"}
    k_max : int
        Maximum RBFs per feature (``basis="rbf"``).
    width : float
        RBF width on the standardised scale.
    standardize : bool
        Rescale features to mean 0, sd 1 (the paper).  If False, linear columns are used
        as given (``mean=0, sd=1``); RBFs always standardise, since the width is in sd units.
    """

    def __init__(self, basis: str = "linear", *, k_max: int = 10, width: float = 0.3, standardize: bool = True):
        check_choice("basis", basis, BASES)
        check_integer("k_max", k_max)
        check_number("rbf_width", width, open_low=True, what="a positive number")
        self.basis, self.k_max, self.width, self.standardize = basis, int(k_max), float(width), standardize

    def expand(self, raw: np.ndarray, term: int) -> tuple[list[ColumnSpec], np.ndarray]:
        """Specs and values (n x c) of the weight columns of one term; c = 0 if constant."""
        raw = np.asarray(raw, dtype=float).reshape(len(raw), -1)
        specs: list[ColumnSpec] = []
        cols: list[np.ndarray] = []
        rbf = self.basis == "rbf" and raw.shape[1] == 1
        for s in range(raw.shape[1]):
            x = raw[:, s]
            sd = float(x.std())
            if not sd > 1e-12 * max(1.0, float(np.abs(x).max())):
                continue  # constant: carries no weight (Perkins and Theiler 2003 normalise by sd)
            mean = float(x.mean())
            if not (self.standardize or rbf):
                mean, sd = 0.0, 1.0
            z = (x - mean) / sd
            if rbf:
                centres = np.unique(np.quantile(z, np.linspace(0.0, 1.0, self.k_max)))
                for c in centres:
                    spec = ColumnSpec(term, s, mean, sd, float(c), self.width)
                    specs.append(spec)
                    cols.append(np.exp(-(((z - c) / self.width) ** 2)))
            else:
                specs.append(ColumnSpec(term, s, mean, sd))
                cols.append(z)
        values = np.column_stack(cols) if cols else np.empty((len(raw), 0))
        return specs, values

    def expand_block(self, block: CandidateValues, first_term: int) -> tuple[list[ColumnSpec], np.ndarray, np.ndarray]:
        """All weight columns of a block (:class:`~streamreg.models.base.CandidateValues`) at once.

        Returns the specs, the values (n x c) and, per column, the position of its term in
        the block (sorted).  Terms are numbered ``first_term + j``.  The linear basis is
        computed with one pass over the block; the RBF basis term by term.
        """
        if self.basis == "rbf":
            specs: list[ColumnSpec] = []
            cols: list[np.ndarray] = []
            owner: list[int] = []
            for j in range(len(block)):
                s, v = self.expand(block.term(j), first_term + j)
                specs.extend(s)
                cols.append(v)
                owner.extend([j] * len(s))
            values = np.column_stack(cols) if cols else np.empty((block.values.shape[0], 0))
            return specs, values, np.asarray(owner, dtype=int)
        raw = np.asarray(block.values, dtype=float)
        col_term = np.repeat(np.arange(len(block)), block.widths)
        source = np.arange(raw.shape[1]) - block.starts[col_term]
        sd = raw.std(axis=0)
        keep = sd > 1e-12 * np.maximum(1.0, np.abs(raw).max(axis=0, initial=0.0))
        raw, col_term, source, sd = raw[:, keep], col_term[keep], source[keep], sd[keep]
        if self.standardize:
            mean = raw.mean(axis=0)
            values = (raw - mean) / sd
        else:
            mean, sd = np.zeros(raw.shape[1]), np.ones(raw.shape[1])
            values = raw.copy()
        specs = [ColumnSpec(first_term + int(t), int(s), float(m), float(d))
                 for t, s, m, d in zip(col_term, source, mean, sd)]
        return specs, values, col_term

    def describe(self) -> str:
        if self.basis == "rbf":
            return f"rbf(k_max={self.k_max}, width={self.width:g})"
        return "linear" + ("" if self.standardize else " (unstandardised)")
