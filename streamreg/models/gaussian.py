"""The Gaussian (least-squares) model state and its partial t / F tests.

For a current design X with orthonormal basis Q and residual r, a candidate block B is
scored in one pass: ``B~ = B - Q (Q'B)`` (BLAS-3), the drop in RSS is
``(B~'r)^2 / ||B~||^2`` per column, and the partial t statistic follows.  These are exactly
the numbers statsmodels' ``OLS(y, [X, b]).fit()`` reports for the candidate's coefficient.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..outcomes import TestOutcomes
from .base import (
    TESTED,
    Basis,
    CandidateBlock,
    equilibrate,
    multi_column_reduction,
    skip_codes,
)
from .distributions import CachedCritical, log_sf

TESTS = ("t", "paper")


class GaussianState:
    """Least-squares fit of y on the current design, updated as terms are accepted.

    Parameters
    ----------
    y : ndarray, shape (n,)
    fixed : ndarray, shape (n, k0)
        The fixed design (intercept and fixed terms).  Must have full column rank.
    test : {"t", "paper"}
        ``"t"``: exact partial t-test (F for multi-column terms).  ``"paper"``: the
        p-value ``exp(-dRSS / (2 RSS0 / n))`` used by the authors' released code for
        paper 000; it reproduces their tables but is anti-conservative when k/n is large.
    """

    family_name = "gaussian"

    def __init__(self, y: np.ndarray, fixed: np.ndarray, *, test: str = "t"):
        if test not in TESTS:
            raise ValueError(f"test must be one of {TESTS} for the Gaussian family, got {test!r}")
        self.test = test
        self._critical = CachedCritical()
        self.y = np.asarray(y, dtype=float)
        self.n = len(self.y)
        self.basis = Basis(self.n, capacity=fixed.shape[1] + 16)
        rank = self.basis.append(equilibrate(fixed))
        if rank < fixed.shape[1]:
            raise ValueError("the fixed terms are collinear")  # names are checked upstream
        self._update_residual()

    @property
    def k(self) -> int:
        """Columns in the current design (intercept included)."""
        return self.basis.k

    def _update_residual(self) -> None:
        self.resid = self.basis.residualise(self.y[:, None])[:, 0]
        # one more projection keeps r orthogonal to Q to rounding error
        self.resid = self.basis.residualise(self.resid[:, None])[:, 0]
        self.rss = float(self.resid @ self.resid)
        self._qr = np.column_stack([self.basis.q, self.resid])

    def score_block(self, block: CandidateBlock) -> tuple[TestOutcomes, np.ndarray]:
        """Test every candidate of ``block`` against the current model.

        Returns the outcomes and a skip code per candidate (see ``SKIP_REASONS``):
        constant or collinear with the model, or no residual degrees of freedom left.
        """
        m = len(block)
        widths = block.widths
        drss = np.zeros(m)
        rank = widths.astype(int).copy()
        single = widths == 1
        if single.all():
            drss, rank = self._single_columns(block)
        else:
            for j in range(m):
                b = equilibrate(block.term(j))  # the F statistic is scale-free; keep the norms in range
                resid = self.basis.residualise(b)
                drss[j], rank[j] = multi_column_reduction(resid, self.resid, float(np.sum(b * b)))
        df_resid = self.n - self.k - rank
        codes = skip_codes(block, rank, df_resid)
        skip = codes != TESTED
        rss1 = np.maximum(self.rss - drss, self.rss * 1e-15 + np.finfo(float).tiny)
        with np.errstate(divide="ignore", invalid="ignore"):
            stat = np.where(skip, 0.0, drss / (rss1 / np.maximum(df_resid, 1)))
            llr = np.where(skip, 0.0, self.n * np.log(self.rss / rss1))
        df = np.maximum(rank, 1)
        dfr = np.maximum(df_resid, 1).astype(float)
        if self.test == "paper":
            log_p = np.where(skip, 0.0, -drss / (2.0 * self.rss / self.n))
            out = TestOutcomes(stat, df, dfr, llr, log_sf, None, log_p)
        else:
            out = TestOutcomes(stat, df, dfr, llr, log_sf, self._critical)
        return out, codes

    def _single_columns(self, block: CandidateBlock) -> tuple[np.ndarray, np.ndarray]:
        """RSS reduction and rank (0/1) of each single-column candidate.

        One GEMM gives ``Q'B`` and ``r'B`` together; ``||B~||^2 = ||B||^2 - ||Q'B||^2`` by
        Pythagoras (Q is orthonormal), so the residual block is never formed.  Where that
        difference loses too many digits (candidates nearly in the model's span) it is
        recomputed from the explicit residual.
        """
        return block.reduce_single(self._qr)

    def accept(self, values: np.ndarray) -> str | None:
        """Add a term's columns to the model.  Returns a refusal reason or None."""
        # at a power-of-two scale, so that columns at 1e-300 or 1e300 keep their direction
        self.basis.append(equilibrate(np.asarray(values, dtype=float).reshape(self.n, -1)))
        self._update_residual()
        return None

    def log_pvalue(self, statistic, df, df_resid):
        return log_sf(statistic, df, df_resid)

    # ---------------------------------------------- nested comparisons (ComparableState)
    @property
    def loglik(self) -> float:
        """Maximised log-likelihood, sigma profiled out: ``-n/2 (log(2 pi RSS / n) + 1)``."""
        return -0.5 * self.n * (math.log(2 * math.pi * self.rss / self.n) + 1)

    #: the block scores' ``llr`` is the exact ``n log(RSS0 / RSS1)``
    exact_gain = True
    llr_description = "n log RSS0/RSS1"

    def llr_with(self, values: np.ndarray) -> tuple[float, str | None]:
        """Exact ``2 delta loglik`` of adding ``values`` (never refused); the state is unchanged."""
        values = np.asarray(values, dtype=float).reshape(self.n, -1)
        out, _ = self.score_block(CandidateBlock(values, np.array([values.shape[1]])))
        return float(out.llr[0]), None

    def refit(self, fixed: np.ndarray, terms: Sequence[np.ndarray]) -> GaussianState:
        """A new state on ``[fixed, *terms]`` (terms accepted in order); this one is unchanged."""
        new = GaussianState(self.y, fixed, test=self.test)
        for values in terms:
            new.accept(values)
        return new
