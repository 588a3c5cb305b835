"""Decoy candidates: a shadow of each candidate, tested against the same model at the same level.

Every candidate ``x_j`` gets a decoy ``x~_j`` that has no relation to the response given the
candidates: a row-permuted copy (``"permuted"``), a Gaussian model-X knockoff copy
(``"knockoff"``, :mod:`streamreg.streams.knockoffs`), or a matrix the user supplies.  The decoy is scored against
the model the candidate meets, so the two statistics share the model and the level the rule set.

**Estimate** (``decoys=`` alone).  A decoy never enters the model and never moves the wealth,
so the decisions are exactly those of the search without decoys.  A decoy *hit* is a decoy
whose p-value is at most its candidate's level.  For a null candidate whose pair
``(x_j, x~_j)`` is exchangeable given the response and the earlier candidates (exact knockoffs,
or a permuted copy of a column independent of the others), the level depends only on the past,
so ``P(candidate accepted) = P(decoy hit)``; summed over one pass, **E[false selections] <=
E[decoy hits]**.  ``hits / max(1, selected)`` estimates the false-selection proportion.

**Selection** (``decoy_fdr=q``).  Each pair is tested as one: the rule sees the smaller
p-value of the two and, if it accepts, the *winner* enters the model (a decoy may enter,
which keeps the path a symmetric function of every pair).  An entered pair gets
``W = +-(-log p_winner)``, positive when the candidate won, and 0 otherwise; swapping a pair
flips its own sign only, so the knockoff+ threshold of Barber and Candès (2015) selects the
candidates with ``W >= tau`` at FDR <= q for exact knockoffs (Candès et al. 2018, Theorem 3.4).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..outcomes import TestOutcomes
from ..streams.decoys import DecoyOptions

__all__ = ["DecoyReport", "knockoff_plus_threshold", "pair_outcomes"]


def pair_outcomes(real: TestOutcomes, decoy: TestOutcomes) -> tuple[TestOutcomes, np.ndarray, np.ndarray]:
    """The pair's test as the rule sees it in the selection mode: the winner's outcome.

    Returns ``(winner, decoy_won, log_p_winner)``; the decoy wins only with a strictly
    smaller p-value (equal p-values, e.g. two constant columns, give W = 0).
    """
    lr, ld = real.log_p, decoy.log_p
    won = ld < lr

    def pick(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.where(won, b, a)

    winner = TestOutcomes(pick(real.statistic, decoy.statistic), pick(real.df, decoy.df),
                          pick(real.df_resid, decoy.df_resid), pick(real.llr, decoy.llr), real.log_sf,
                          real.critical, pick(lr, ld))
    return winner, won, np.minimum(lr, ld)


def knockoff_plus_threshold(w: np.ndarray, fdr: float) -> float:
    """The knockoff+ threshold: the least ``t`` among ``|W|`` with
    ``(1 + #{W <= -t}) / max(1, #{W >= t}) <= fdr`` (infinity when none qualifies).

    Examples
    --------
    >>> knockoff_plus_threshold(np.array([5., 4, 3, 2, 1, -0.5]), 0.5)  # (1 + 1) / 5 <= 0.5 at t = 0.5
    0.5
    """
    w = np.asarray(w, dtype=float)
    cand = np.unique(np.abs(w[w != 0]))
    if cand.size == 0:
        return math.inf
    neg = np.sort(-w[w < 0])  # magnitudes of negatives, ascending
    pos = np.sort(w[w > 0])
    n_neg = neg.size - np.searchsorted(neg, cand, side="left")  # #{W <= -t}
    n_pos = pos.size - np.searchsorted(pos, cand, side="left")  # #{W >= t}
    ok = (1 + n_neg) / np.maximum(1, n_pos) <= fdr
    return float(cand[np.argmax(ok)]) if ok.any() else math.inf


@dataclass
class DecoyReport:
    """What the decoys showed, for the results and the summary.

    ``table``: in the estimate, one row per decoy hit (the candidate, its stream, test
    number, the decoy's log p-value and the level it was held to); in the selection mode, one
    row per pair at its last test, with ``W``, whether the pair entered the model (and which
    of the two) and whether the candidate is selected.
    """

    options: DecoyOptions
    hits: int = 0
    rows: list[dict[str, Any]] = field(default_factory=list)
    frame: pd.DataFrame | None = None
    threshold: float = math.nan
    n_selected: int = 0
    n_entered: int = 0
    #: passes over the streams (the estimate's finite-sample result is for one pass)
    passes: int = 1

    @property
    def table(self) -> pd.DataFrame:
        if self.frame is not None:
            return self.frame
        return pd.DataFrame(self.rows, columns=["term", "stream", "test", "decoy_log_p", "level"])

    def estimate(self, n_selected: int) -> float:
        """Estimated false-selection proportion: decoy hits per selection (knockoff+'s
        ``(1 + #negatives) / #positives`` at the threshold in the selection mode)."""
        if self.options.fdr is None:
            return self.hits / max(1, n_selected)
        if not np.isfinite(self.threshold):
            return math.nan
        w = self.table["W"].to_numpy(dtype=float)
        negatives, positives = int(np.sum(w <= -self.threshold)), int(np.sum(w >= self.threshold))
        return (1 + negatives) / max(1, positives)

    def describe(self, n_selected: int) -> list[str]:
        """Lines for the summary."""
        o = self.options
        lines = [f"Decoys: {o.describe()}, tested against the model each candidate met."]
        if o.fdr is None:
            est = self.estimate(n_selected)
            lines.append(f"  {self.hits} decoy(s) would have been selected at their candidates' levels; "
                         f"estimated false selections {self.hits} of {n_selected} ({est:.2f}).")
            lines.append("  In one pass E[false selections] <= E[decoy hits] when each null candidate and its "
                         "decoy are exchangeable given the response and the earlier candidates"
                         + (f"; this search made up to {self.passes} passes, where it holds only approximately."
                            if self.passes > 1 else "."))
            return lines
        lines.append(f"  Each pair was tested as one and {self.n_entered} winner(s) entered the search's model; "
                     "W = +-(-log p) of the pair's last test, + when the candidate won. The knockoff+ threshold "
                     + (f"W >= {self.threshold:.3g} selected {self.n_selected} candidate(s) "
                        f"(estimated FDP {self.estimate(n_selected):.2f})."
                        if np.isfinite(self.threshold) else f"at q = {o.fdr:g} was not reached: nothing is selected."))
        lines.append(f"  FDR <= {o.fdr:g} holds for exact knockoffs (Candès et al. 2018); estimated "
                     "knockoffs and permuted decoys make it approximate.")
        return lines
