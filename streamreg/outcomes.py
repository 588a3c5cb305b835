"""The numbers a model state returns for a block of candidate terms.

Models produce :class:`TestOutcomes`; policies consume them.  Neither side knows about
the other, which keeps the wealth rules free of any linear algebra.

Exact p-values cost more than the statistics themselves (a regularised incomplete beta
per candidate), and for a long stream almost every candidate is far from the current
level.  ``log_p`` is therefore computed on demand, and :meth:`TestOutcomes.log_p_screened`
computes it only where it can matter for a decision against a level no larger than a
given one; the rest are filled in later, in one vectorised call, for the history.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

#: ``log_sf(statistic, df, df_resid) -> log p`` for arrays
LogSF = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]
#: ``crit(log_alpha, df, df_resid) -> statistic`` with ``log_sf(crit) == log_alpha``
Critical = Callable[[float, int, float], float]


@dataclass
class TestOutcomes:
    """Test results for ``m`` candidates, each scored *given the same current model*.

    Attributes
    ----------
    statistic : ndarray
        The chi-square-type statistic: ``t**2`` (``d * F`` for a d-column term) for the
        Gaussian partial test, the score or likelihood-ratio chi-square for GLMs.
    df : ndarray of int
        Numerator degrees of freedom (columns of the candidate term).
    df_resid : ndarray
        Denominator degrees of freedom (``inf`` for chi-square tests).
    llr : ndarray
        Twice the log-likelihood gain of adding the candidate (exact for the Gaussian
        family and ``test="lr"``; the score statistic, its second-order approximation,
        otherwise).  Used by fixed-penalty rules.
    log_p : ndarray
        Natural log of the p-value (computed lazily, from log-survival functions).
    """

    __test__ = False  # not a pytest class

    statistic: np.ndarray
    df: np.ndarray
    df_resid: np.ndarray
    llr: np.ndarray
    log_sf: LogSF = field(repr=False)
    critical: Critical | None = field(default=None, repr=False)
    _log_p: np.ndarray | None = field(default=None, repr=False)
    #: True for stand-in outcomes of candidates that were not scored
    placeholder: bool = field(default=False, repr=False)
    #: the last :meth:`log_p_screened` result (NaN where not computed), kept so that the
    #: search and its history need not compute those p-values again
    _screened: np.ndarray | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.statistic)

    @property
    def log_p(self) -> np.ndarray:
        if self._log_p is None:
            self._log_p = self.log_sf(self.statistic, self.df, self.df_resid)
        return self._log_p

    @property
    def pvalue(self) -> np.ndarray:
        return np.exp(self.log_p)

    def log_p_screened(self, log_alpha_max: float | np.ndarray) -> np.ndarray:
        """log p where it may fall below ``log_alpha_max``; NaN where it cannot.

        Any candidate whose statistic is below the critical value of the largest level
        in play cannot be accepted, so its exact p-value is not needed for a decision.
        ``log_alpha_max`` may also give one bound per candidate (levels that fall along
        the block): each is then screened at its own level when ``critical`` supports it
        (:class:`~streamreg.models.distributions.CachedCritical`), at their largest otherwise.
        """
        if self._log_p is not None or self.critical is None or len(self) == 0:
            return self.log_p
        along = getattr(self.critical, "along", None)
        if np.ndim(log_alpha_max) and along is None:
            log_alpha_max = float(np.max(log_alpha_max))
        out = np.full(len(self), np.nan)
        could = np.zeros(len(self), dtype=bool)
        df, dfr = self.df, self.df_resid
        if (df == df[0]).all() and (dfr == dfr[0]).all():  # the usual case: one reference law
            groups: list[tuple[float, float, slice | np.ndarray]] = [(df[0], dfr[0], slice(None))]
        else:
            keys = {(float(a), float(b)) for a, b in zip(df, dfr)}
            groups = [(d, r, (df == d) & (dfr == r)) for d, r in keys]
        for d, r, sel in groups:
            if along is not None and np.ndim(log_alpha_max):
                crit = along(np.asarray(log_alpha_max, dtype=float)[sel], int(d), float(r))
            else:
                crit = self.critical(float(log_alpha_max), int(d), float(r))
            could[sel] |= self.statistic[sel] >= crit
        idx = np.flatnonzero(could)
        if idx.size:
            out[idx] = self.log_sf(self.statistic[idx], self.df[idx], self.df_resid[idx])
        self._screened = out
        return out

    def keep_screened(self, log_p: np.ndarray) -> None:
        """Keep log p-values computed elsewhere for these outcomes (NaN where not computed),
        as :meth:`log_p_screened` keeps its own."""
        if self._log_p is None:
            self._screened = log_p

    def known_log_p(self) -> np.ndarray:
        """The log p-values computed so far (all of them, or those screened in; NaN elsewhere)."""
        if self._log_p is not None:
            return self._log_p
        return np.full(len(self), np.nan) if self._screened is None else self._screened

    @classmethod
    def concatenate(cls, parts: list[TestOutcomes]) -> TestOutcomes:
        """The outcomes of several blocks scored against the same model, end to end.

        Parts marked ``placeholder`` (candidates not scored) yield to the others for the
        reference law and critical values.  Explicit log-p values (tests whose p-value is not
        the reference law's, e.g. the Gaussian ``test="paper"``) are kept when every part has
        them; otherwise they are computed on demand.
        """
        if len(parts) == 1:
            return parts[0]
        first = next((p for p in parts if not p.placeholder), parts[0])
        log_p = None
        if all(p._log_p is not None for p in parts):
            log_p = np.concatenate([p._log_p for p in parts])
        return cls(np.concatenate([p.statistic for p in parts]), np.concatenate([p.df for p in parts]),
                   np.concatenate([p.df_resid for p in parts]), np.concatenate([p.llr for p in parts]),
                   first.log_sf, first.critical, log_p)

    def take(self, index: slice | int | np.ndarray | list[int]) -> TestOutcomes:
        """The outcomes of a subset of the candidates (numpy indexing)."""
        return TestOutcomes(
            self.statistic[index],
            self.df[index],
            self.df_resid[index],
            self.llr[index],
            self.log_sf,
            self.critical,
            None if self._log_p is None else self._log_p[index],
            _screened=None if self._screened is None else self._screened[index],
        )


def reported_statistic(statistic: np.ndarray, df: np.ndarray, df_resid: np.ndarray) -> np.ndarray:
    """The statistic as the history and selected tables show it.

    Tests with a finite denominator df (least squares) report the F statistic, R's
    ``add1(test = "F")`` "F value" (``t**2`` for a single column); chi-square tests report
    the chi-square.  Internally every test carries the chi-square-type ``d * F``.

    Examples
    --------
    >>> reported_statistic(np.array([6.0, 4.0]), np.array([3, 1]), np.array([40.0, np.inf]))
    array([2., 4.])
    """
    statistic = np.asarray(statistic, dtype=float)
    df = np.asarray(df, dtype=float)
    f_type = np.isfinite(np.asarray(df_resid, dtype=float)) & (df > 0)
    return np.where(f_type, statistic / np.where(f_type, df, 1.0), statistic)
