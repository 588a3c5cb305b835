"""Fixed-penalty rules (Zhou et al. 2006, Table 2).

A candidate of ``d`` columns enters iff twice its log-likelihood gain beats ``d`` times a
fixed penalty ``k`` (R's name, as in ``step(k=)``; not an F statistic): ``llr > k * d``.
AIC uses ``k = 2``, BIC ``k = log n`` and RIC (the risk inflation criterion of Foster and
George 1994) ``k = 2 log m`` for ``m`` candidates.
These are thresholds, not wealth rules: nothing is spent or earned, so ``wealth`` is
``nan`` and the decision at one test does not depend on the others.

The level reported for each test is the nominal chi-square level of the threshold,
``P(chi2_d > k d)``, i.e. the p-value a candidate would need under the large-sample
likelihood-ratio test; the decision itself uses ``llr`` only.
"""
from __future__ import annotations

import math

import numpy as np
from scipy import stats

from ..outcomes import TestOutcomes
from ..validators import INTEGER, NONE, NUMBER
from .base import Plan, Policy

_NO_RATE = "Streamwise tests are nested fits to one response and are not independent, so "


class FixedPenalty(Policy):
    """Accept a candidate iff ``llr > penalty * df``.

    Parameters
    ----------
    penalty : float
        The price ``k`` of one coefficient, in units of twice the log-likelihood; must be
        non-negative.

    Examples
    --------
    >>> from streamreg.policies.penalties import FixedPenalty
    >>> FixedPenalty(penalty=3.0)
    penalty(penalty=3.0)
    """

    name = "penalty"
    OPTION_KINDS = {"penalty": (NUMBER,)}

    def __init__(self, penalty: float):
        if not (isinstance(penalty, (int, float, np.floating)) and math.isfinite(penalty) and penalty >= 0):
            raise ValueError(f"penalty must be a finite non-negative number, got {penalty!r}")
        self.penalty = float(penalty)

    def _penalty(self) -> float:
        """``k`` for this search (may depend on ``n_obs`` or ``n_candidates``)."""
        return self.penalty

    def _reset(self) -> None:
        self._F = self._penalty()  # k; the attribute keeps its name for pickled results

    @property
    def threshold(self) -> float:
        """The penalty ``k`` per column in force (after :meth:`start`)."""
        return self._F

    def plan(self, outcomes: TestOutcomes) -> Plan:
        df = np.asarray(outcomes.df, dtype=float)
        cut = self._F * df
        return Plan(
            accept=np.asarray(outcomes.llr) > cut,
            level=np.asarray(stats.chi2.sf(cut, df)),
            wealth=np.full(len(outcomes), np.nan),
        )

    def record(self, outcomes: TestOutcomes, n: int, last_accepted: bool) -> None:
        self.n_tested += n
        self.n_accepted += int(bool(last_accepted and n))

    def parameters(self) -> dict:
        return {"penalty": self.penalty}

    def guarantee(self) -> str:
        return (
            f"A fixed penalty of {self.penalty:g} per coefficient controls no error rate; "
            "it trades fit against size."
        )


class AIC(FixedPenalty):
    """Akaike's criterion, ``k = 2``: accept iff ``llr > 2 d``.

    Examples
    --------
    >>> from streamreg.policies import AIC
    >>> AIC()
    aic()
    """

    name = "aic"
    OPTION_KINDS = {}

    def __init__(self) -> None:
        super().__init__(penalty=2.0)

    def parameters(self) -> dict:
        return {}

    def guarantee(self) -> str:
        return (
            "AIC (k = 2) controls no error rate: it targets out-of-sample prediction error and "
            "admits a null term with probability about P(chi2_1 > 2) = 0.157 per test."
        )


class BIC(FixedPenalty):
    """Schwarz's criterion, ``k = log n`` with ``n`` the observations given to :meth:`start`.

    Examples
    --------
    >>> from streamreg.policies import BIC
    >>> BIC()
    bic()
    """

    name = "bic"
    OPTION_KINDS = {}

    def __init__(self) -> None:
        super().__init__(penalty=0.0)

    def _penalty(self) -> float:
        n = self.n_obs
        if n is None or not n > 1:
            raise ValueError(f"BIC needs the number of observations n_obs > 1, got {n!r}")
        return math.log(n)

    def parameters(self) -> dict:
        return {}

    def guarantee(self) -> str:
        return (
            "BIC (k = log n) controls no error rate: it aims at consistent selection of a "
            "fixed true model as n grows, with a per-test null admission rate that falls "
            "like 1/sqrt(n log n)."
        )


class RIC(FixedPenalty):
    """Risk inflation criterion (Foster and George 1994), ``k = 2 log m``.

    Parameters
    ----------
    m : int, optional
        Number of candidate terms.  When omitted, the ``n_candidates`` given to
        :meth:`start` is used; a stream of unknown length (``n_candidates=None``) then
        raises ``ValueError``.

    Examples
    --------
    >>> from streamreg.policies import RIC
    >>> RIC(m=1000)
    ric(m=1000)
    """

    name = "ric"
    OPTION_KINDS = {"m": (INTEGER, NONE)}

    def __init__(self, m: int | None = None):
        if m is not None:
            if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 1:
                raise ValueError(f"m must be a positive integer, got {m!r}")
            m = int(m)
        self.m = m
        super().__init__(penalty=0.0)

    def _m(self) -> int | None:
        return self.m if self.m is not None else getattr(self, "n_candidates", None)

    def _penalty(self) -> float:
        m = self._m()
        if m is None:
            raise ValueError(
                "RIC needs the number of candidates m: pass RIC(m=...) (or method options "
                "m=...) when the stream has no known length"
            )
        if m < 1:
            raise ValueError(f"RIC needs a positive number of candidates, got m={m!r}")
        return 2.0 * math.log(m)

    def parameters(self) -> dict:
        return {} if self.m is None else {"m": self.m}

    def guarantee(self) -> str:
        m = self._m()
        text = (
            "RIC (k = 2 log m) controls no error rate exactly: it bounds the risk inflation "
            "and acts like a Bonferroni test, admitting any of m independent null terms with "
            "probability about m P(chi2_1 > 2 log m)"
        )
        if m is not None and m > 1:
            fwer = min(1.0, m * float(stats.chi2.sf(2.0 * math.log(m), 1)))
            text += f" = {fwer:.3g} for m = {m} (GLMs, large n)"
            n = getattr(self, "n_obs", None)
            if n is not None and n > 3:
                # least squares decides on n log(RSS0/RSS1) > 2 log m, i.e. on the partial F statistic
                # exceeding dfr (m^(2/n) - 1): its exact null size, beside an intercept (dfr = n - 2)
                dfr = n - 2
                size = 2.0 * float(stats.t.sf(math.sqrt(dfr * math.expm1(2.0 * math.log(m) / n)), dfr))
                text += (f"; for least squares with n = {n} the exact rate per null test is {size:.3g}, "
                         f"so about {min(1.0, m * size):.3g} over m tests")
        return text + ". " + _NO_RATE + "that figure is heuristic here."
