"""LORD++, SAFFRON, ADDIS and onlineFDR's ``Alpha_investing``: one wealth recursion.

These rules, with the update rules and defaults of R's ``onlineFDR``, all share one shape.
Write ``tau_1 < tau_2 < ...`` for the tests accepted so far ("rejections" in the
multiple-testing vocabulary; *acceptances* here, since an accepted candidate enters the
model).  Each rule has a notion of a test that *ticks a clock*:

=====================  ==========================================================
rule                   a rejected test ticks when
=====================  ==========================================================
LORD++                 always (the clock is the test counter)
SAFFRON                ``p > lambda`` (it is not a *candidate*)
ADDIS                  ``lambda < p <= tau`` (neither a candidate nor discarded)
``Alpha_investing``    always (candidates are the acceptances themselves)
=====================  ==========================================================

With ``e(t) = 1 + (ticks among tests 1..t-1)`` and ``o_j`` the number of ticks among tests
``1..tau_j``, the unscaled level of test ``t`` is

    ``a~_t = w0 g(e(t)) + (alpha - w0) g(e(t) - o_1) + alpha * sum_{j>=2} g(e(t) - o_j)``

and the level is ``a~_t`` (LORD++), ``min(lambda, (1 - lambda) a~_t)`` (SAFFRON),
``min(lambda, (tau - lambda) a~_t)`` (ADDIS) or ``a~_t / (1 + a~_t)`` (``Alpha_investing``).
This is exactly the recursion of ``onlineFDR`` (its ``C_j^+`` counters are differences of
the clock), written so that a whole block of tests can be planned with numpy: inside a
block in which nothing is accepted, ``e(t)`` is a cumulative sum of the tick indicators.

The spending sequences ``g`` are in :mod:`streamreg.policies.sequences`.

Multi-stream searches give each stream a ``share`` of the error budget: both ``alpha`` and
``w0`` are multiplied by ``share``, so the summed "estimated false discovery proportion"
that these rules bound stays below ``alpha`` for the union of the streams.
"""
from __future__ import annotations

import math
from abc import abstractmethod
from collections.abc import Sequence
from typing import Any, TypeVar

import numpy as np

from ..outcomes import TestOutcomes
from ..validators import NONE, NUMBER, NUMBERS, TEXT
from .base import Plan, Policy
from .online_common import HEURISTIC, check_alpha, check_w0, exclusive_cumsum, log_leq
from .sequences import (
    HEDGE_FRONT,
    LORD_SEQUENCE,
    SAFFRON_SEQUENCE,
    ArraySequence,
    FlatSequence,
    LazySequence,
    MixedSequence,
    SpendingRule,
    check_spending,
    user_sequence,
)

#: most terms (tests x acceptances) held at once when planning a block
_CELLS = 1 << 20

#: the ``spending`` parameter's text, the same for every rule here (in place of ``SPENDING_TEXT``)
_SPENDING_TEXT = f"""``"uniform"``: ``g_j = 1 / H`` over the stream's horizon ``H`` (its candidates times
        ``passes``, at most ``max_tests``), so that signals late in a long stream find the
        same wealth as early ones; ``"hedged"``: ``{HEDGE_FRONT:g}`` times the default sequence plus
        ``{1 - HEDGE_FRONT:g} / H``.  A stream of unknown length keeps the default sequence.  Not
        combined with ``gammai``."""
_Documented = TypeVar("_Documented", bound=type)


def _spending_documented(cls: _Documented) -> _Documented:
    """``cls`` with the shared text of the ``spending`` parameter in its docstring."""
    if cls.__doc__ is not None:  # None under python -OO
        cls.__doc__ = cls.__doc__.replace("SPENDING_TEXT", _SPENDING_TEXT)
    return cls


class GammaWealthRule(SpendingRule, Policy):
    """Shared machinery of the rules of the module docstring.

    Subclasses define :meth:`_ticks` (which rejected tests tick the clock),
    :meth:`_level` (the map from the unscaled level to the test level) and :meth:`_cost`
    (the alpha-wealth a rejected test spends), plus ``_accepted_ticks`` (whether an accepted
    test ticks) and ``_default_sequence``.
    """

    _accepted_ticks = False
    _default_sequence: LazySequence = SAFFRON_SEQUENCE
    #: set by the subclasses' constructors
    alpha: float
    w0: float
    gammai: tuple[float, ...] | None


    #: the rule's parameters beside ``alpha``, ``w0`` and ``gammai``, in the order reported
    _extra_parameters: tuple[str, ...] = ()

    def parameters(self) -> dict:
        out: dict[str, Any] = {"alpha": self.alpha, "w0": self.w0}
        out.update({name: getattr(self, name) for name in self._extra_parameters})
        if self.gammai is not None:
            out["gammai"] = self.gammai
        if self.spending != "decaying":
            out["spending"] = self.spending
        return out

    def _init_sequence(self, gammai: Sequence[float] | None, spending: str = "decaying") -> None:
        self.spending = check_spending(spending, gammai)
        self.gammai = user_sequence(gammai, 1.0, "gammai")
        self._gamma: LazySequence | ArraySequence | FlatSequence | MixedSequence = (
            self._default_sequence if self.gammai is None else ArraySequence(np.asarray(self.gammai))
        )

    # -- state -------------------------------------------------------------------------
    def _reset(self) -> None:
        if self.spending != "decaying":  # the horizon is known only now, at the start
            if not self.stream_horizon:
                self._gamma = self._default_sequence
            elif self.spending == "uniform":
                self._gamma = FlatSequence(self.stream_horizon)
            else:
                self._gamma = MixedSequence(self._default_sequence, FlatSequence(self.stream_horizon))
        self._alpha = self.alpha * self.share
        self._w0 = self.w0 * self.share
        self._n_ticks = 0  # ticks among the tests so far
        self._offsets: list[int] = []  # o_j: ticks among tests 1..tau_j
        self._spent = 0.0
        # (outcomes, ticks, tilde, level) of the last plan
        self._memo: tuple[TestOutcomes, np.ndarray, np.ndarray, np.ndarray] | None = None

    def _earned(self) -> float:
        """Initial wealth plus the payouts of the acceptances so far."""
        k = len(self._offsets)
        if k == 0:
            return self._w0
        return self._w0 + (self._alpha - self._w0) + self._alpha * (k - 1)

    @property
    def wealth(self) -> float:
        return self._earned() - self._spent

    # -- rule-specific pieces ----------------------------------------------------------
    @abstractmethod
    def _ticks(self, outcomes: TestOutcomes) -> tuple[np.ndarray | None, np.ndarray]:
        """(log p-values if they had to be computed, else None; tick indicators)."""

    @abstractmethod
    def _level(self, tilde: np.ndarray) -> np.ndarray:
        """Test levels at the given gamma-clock positions."""

    @abstractmethod
    def _cost(self, tilde: np.ndarray, level: np.ndarray) -> np.ndarray:
        """Wealth spent by tests at these positions and levels."""

    # -- planning ----------------------------------------------------------------------
    def _tilde(self, clock: np.ndarray) -> np.ndarray:
        """Unscaled levels at clock values ``clock`` (one per test of the block).

        The terms of the acceptances are added in their order, left to right
        (``np.add.accumulate`` never reorders a sum), so a test's level is bitwise the same
        whatever block it falls in; rows go in chunks of at most ``_CELLS`` terms.
        """
        start = self._w0 * self._gamma(clock)
        k = len(self._offsets)
        if k == 0:
            return start
        offsets = np.asarray(self._offsets, dtype=np.int64)
        weights = np.full(k, self._alpha)
        weights[0] = self._alpha - self._w0
        tilde = np.empty(clock.size)
        rows = max(1, _CELLS // (k + 1))
        for a in range(0, clock.size, rows):
            c = clock[a:a + rows]
            terms = np.empty((c.size, k + 1))
            terms[:, 0] = start[a:a + rows]
            terms[:, 1:] = weights * self._gamma(c[:, None] - offsets)
            tilde[a:a + rows] = np.add.accumulate(terms, axis=1)[:, -1]
        return tilde

    def _schedule(self, outcomes: TestOutcomes) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Ticks, unscaled levels, levels and decisions over a block, all rejected."""
        log_p, ticks = self._ticks(outcomes)
        clock = 1 + self._n_ticks + exclusive_cumsum(ticks)
        tilde = self._tilde(clock)
        level = self._level(tilde)
        if log_p is None:  # p-values are needed only where they can beat the largest level
            top = float(level.max())
            log_p = outcomes.log_p_screened(math.log(top)) if top > 0 else outcomes.log_p
        return ticks, tilde, level, log_leq(log_p, level)

    def plan(self, outcomes: TestOutcomes) -> Plan:
        if len(outcomes) == 0:
            empty = np.empty(0)
            return Plan(accept=np.zeros(0, dtype=bool), level=empty, wealth=empty)
        ticks, tilde, level, accept = self._schedule(outcomes)
        self._memo = (outcomes, ticks, tilde, level)
        cost = np.where(ticks, self._cost(tilde, level), 0.0)
        spent = np.cumsum(np.concatenate(([self._spent], cost)))[1:]
        return Plan(accept=accept, level=level, wealth=self._earned() - spent)

    def record(self, outcomes: TestOutcomes, n: int, last_accepted: bool) -> None:
        if n == 0:
            return
        memo, self._memo = self._memo, None
        if memo is not None and memo[0] is outcomes:
            ticks, tilde, level = (a[:n] for a in memo[1:])
        else:
            ticks, tilde, level, _ = self._schedule(outcomes.take(slice(0, n)))
        ticks = ticks.copy()
        if last_accepted:
            ticks[-1] = self._accepted_ticks
        cost = np.where(ticks, self._cost(tilde, level), 0.0)
        self._spent = float(np.cumsum(np.concatenate(([self._spent], cost)))[-1])
        self._n_ticks += int(ticks.sum())
        if last_accepted:
            self._offsets.append(self._n_ticks)
            self.n_accepted += 1
        self.n_tested += n


@_spending_documented
class LORDPlusPlus(GammaWealthRule):
    """LORD++ (Ramdas et al. 2017; onlineFDR ``LORD(version = "++")``).

    The level of test ``t`` is
    ``alpha_t = w0 g_t + (alpha - w0) g_{t - tau_1} + alpha sum_{j>=2} g_{t - tau_j}``,
    ``tau_j`` the times of the acceptances, and a candidate enters iff ``p_t <= alpha_t``.
    In wealth terms every test spends its level and each acceptance earns ``alpha``
    (``alpha - w0`` for the first).

    Parameters
    ----------
    alpha : float, default 0.05
        Target FDR level, in (0, 1).
    w0 : float, optional
        Initial wealth, ``0 <= w0 <= alpha``; defaults to ``alpha / 10`` as in onlineFDR.
    gammai : sequence of float, optional
        Non-negative spending sequence summing to at most 1 (zero beyond its end).  The
        default is onlineFDR's ``0.07720838 log(max(j, 2)) / (j exp(sqrt(log j)))``,
        computed lazily.
    spending : {"decaying", "uniform", "hedged"}, default "decaying"
        SPENDING_TEXT

    Examples
    --------
    >>> from streamreg.policies import LORDPlusPlus
    >>> LORDPlusPlus()
    lord++(alpha=0.05, w0=0.005)
    """

    name = "lord++"
    OPTION_KINDS = {"alpha": (NUMBER,), "w0": (NUMBER, NONE), "gammai": (NUMBERS, NONE), "spending": (TEXT,)}
    _accepted_ticks = True
    _default_sequence = LORD_SEQUENCE

    def __init__(self, alpha: float = 0.05, w0: float | None = None, gammai: Sequence[float] | None = None,
                 spending: str = "decaying"):
        self.alpha = check_alpha(alpha)
        self.w0 = check_w0(self.alpha / 10 if w0 is None else w0, self.alpha, False, "alpha")
        self._init_sequence(gammai, spending)

    def _ticks(self, outcomes: TestOutcomes) -> tuple[None, np.ndarray]:
        return None, np.ones(len(outcomes), dtype=bool)

    def _level(self, tilde: np.ndarray) -> np.ndarray:
        return tilde

    def _cost(self, tilde: np.ndarray, level: np.ndarray) -> np.ndarray:
        return level

    def guarantee(self) -> str:
        return (
            f"mFDR <= {self.alpha:g}, valid when each null p-value is super-uniform given the earlier "
            "decisions (Javanmard and Montanari 2018): exact for partial t tests of null columns "
            "independent of the response and of the other columns, approximate for GLM score tests. "
            f"With no signal in the stream, P(any selection) <= w0 = {self.w0:g}. FDR <= {self.alpha:g} "
            "(Ramdas et al. 2017) also needs independent p-values: Streamwise p-values come from nested "
            "fits to one response and are not independent." + self.spending_description()
        )


@_spending_documented
class SAFFRON(GammaWealthRule):
    """SAFFRON (Ramdas, Zrnic, Wainwright and Jordan 2018; onlineFDR ``SAFFRON``).

    A p-value at most ``lambda`` is a *candidate*; only non-candidates spend wealth, and the
    gamma sequence advances only on them.  Level
    ``alpha_t = min(lambda, (1 - lambda)(w0 g_{t - C_0} + (alpha - w0) g_{t - tau_1 - C_1}
    + alpha sum_{j>=2} g_{t - tau_j - C_j}))`` with ``C_0`` the candidates before ``t`` and
    ``C_j`` those strictly between ``tau_j`` and ``t``.

    Parameters
    ----------
    alpha : float, default 0.05
        Target FDR level, in (0, 1).
    w0 : float, optional
        Initial wealth, ``0 <= w0 < alpha``; defaults to ``alpha / 2`` as in onlineFDR.
    lambda_ : float, default 0.5
        Candidate threshold, in (0, 1).
    gammai : sequence of float, optional
        Spending sequence; default ``0.4374901658 / j^1.6`` (lazily computed).
    spending : {"decaying", "uniform", "hedged"}, default "decaying"
        SPENDING_TEXT

    Examples
    --------
    >>> from streamreg.policies import SAFFRON
    >>> SAFFRON(alpha=0.1)
    saffron(alpha=0.1, w0=0.05, lambda_=0.5)
    """

    name = "saffron"
    OPTION_KINDS = {"alpha": (NUMBER,), "w0": (NUMBER, NONE), "lambda_": (NUMBER,), "gammai": (NUMBERS, NONE),
                    "spending": (TEXT,)}
    _default_sequence = SAFFRON_SEQUENCE

    def __init__(
        self,
        alpha: float = 0.05,
        w0: float | None = None,
        lambda_: float = 0.5,
        gammai: Sequence[float] | None = None,
        spending: str = "decaying",
    ):
        self.alpha = check_alpha(alpha)
        self.w0 = check_w0(self.alpha / 2 if w0 is None else w0, self.alpha, True, "alpha")
        if not 0 < lambda_ < 1:
            raise ValueError(f"lambda_ must lie in (0, 1), got {lambda_!r}")
        self.lambda_ = float(lambda_)
        self._init_sequence(gammai, spending)

    def _ticks(self, outcomes: TestOutcomes) -> tuple[np.ndarray, np.ndarray]:
        # exact p-values are needed only up to lambda, which bounds every level too
        log_p = outcomes.log_p_screened(math.log(self.lambda_))
        return log_p, ~(log_p <= math.log(self.lambda_))

    def _level(self, tilde: np.ndarray) -> np.ndarray:
        return np.minimum(self.lambda_, (1 - self.lambda_) * tilde)

    def _cost(self, tilde: np.ndarray, level: np.ndarray) -> np.ndarray:
        return level / (1 - self.lambda_)

    _extra_parameters = ("lambda_",)

    def guarantee(self) -> str:
        return (
            f"FDR <= {self.alpha:g} (Ramdas et al. 2018), valid when the null p-values are "
            "independent of each other and of the non-null ones. " + HEURISTIC + self.spending_description()
        )


@_spending_documented
class ADDIS(GammaWealthRule):
    """ADDIS (Tian and Ramdas 2019; onlineFDR ``ADDIS``, synchronous version).

    P-values above ``tau`` are *discarded* (they neither spend wealth nor advance the
    clock), those at most ``lambda`` are candidates; only ``lambda < p <= tau`` spends.
    Level ``alpha_t = min(lambda, (tau - lambda)(w0 g_{S - C_0} + (alpha - w0)
    g_{S - kappa*_1 - C_1} + alpha sum_{j>=2} g_{S - kappa*_j - C_j}))`` in onlineFDR's
    indexing (``S`` selected tests before ``t``, ``kappa*_j`` selected tests up to the j-th
    acceptance).

    Parameters
    ----------
    alpha : float, default 0.05
        Target FDR level, in (0, 1).
    w0 : float, optional
        Initial wealth, ``0 <= w0 <= alpha``; defaults to ``alpha / 2`` as in onlineFDR.
    lambda_ : float, default 0.25
        Candidate threshold, ``0 < lambda_ < tau``.
    tau : float, default 0.5
        Discarding threshold, in (0, 1].
    gammai : sequence of float, optional
        Spending sequence; default ``0.4374901658 / j^1.6`` (lazily computed).
    spending : {"decaying", "uniform", "hedged"}, default "decaying"
        SPENDING_TEXT

    Examples
    --------
    >>> from streamreg.policies import ADDIS
    >>> ADDIS()
    addis(alpha=0.05, w0=0.025, lambda_=0.25, tau=0.5)
    """

    name = "addis"
    OPTION_KINDS = {"alpha": (NUMBER,), "w0": (NUMBER, NONE), "lambda_": (NUMBER,), "tau": (NUMBER,),
                    "gammai": (NUMBERS, NONE), "spending": (TEXT,)}
    _default_sequence = SAFFRON_SEQUENCE

    def __init__(
        self,
        alpha: float = 0.05,
        w0: float | None = None,
        lambda_: float = 0.25,
        tau: float = 0.5,
        gammai: Sequence[float] | None = None,
        spending: str = "decaying",
    ):
        self.alpha = check_alpha(alpha)
        self.w0 = check_w0(self.alpha / 2 if w0 is None else w0, self.alpha, False, "alpha")
        if not 0 < tau <= 1:
            raise ValueError(f"tau must lie in (0, 1], got {tau!r}")
        if not 0 < lambda_ < tau:
            raise ValueError(f"lambda_ must lie in (0, tau) = (0, {tau:g}), got {lambda_!r}")
        self.lambda_ = float(lambda_)
        self.tau = float(tau)
        self._init_sequence(gammai, spending)

    def _ticks(self, outcomes: TestOutcomes) -> tuple[np.ndarray, np.ndarray]:
        # exact p-values are needed only up to tau (NaN beyond: discarded)
        log_p = outcomes.log_p_screened(math.log(self.tau))
        return log_p, (log_p <= math.log(self.tau)) & ~(log_p <= math.log(self.lambda_))

    def _level(self, tilde: np.ndarray) -> np.ndarray:
        return np.minimum(self.lambda_, (self.tau - self.lambda_) * tilde)

    def _cost(self, tilde: np.ndarray, level: np.ndarray) -> np.ndarray:
        return level / (self.tau - self.lambda_)

    _extra_parameters = ("lambda_", "tau")

    def guarantee(self) -> str:
        return (
            f"FDR <= {self.alpha:g} (Tian and Ramdas 2019), valid when the null p-values are "
            "independent of each other and of the non-null ones and uniformly conservative. "
            + HEURISTIC + self.spending_description()
        )


@_spending_documented
class AlphaInvestingFDR(GammaWealthRule):
    """onlineFDR's ``Alpha_investing``: alpha-investing in the SAFFRON form (Ramdas et al. 2018).

    SAFFRON with the candidate threshold set to the level itself, so the candidates are the
    acceptances: with ``a~_t = w0 g_{t - R} + (alpha - w0) g_{t - tau_1 - C_1}
    + alpha sum_{j>=2} g_{t - tau_j - C_j}`` (``R`` acceptances so far, ``C_j`` acceptances
    after ``tau_j``) the level is ``alpha_t = a~_t / (1 + a~_t)``, so that a failure costs
    ``alpha_t / (1 - alpha_t) = a~_t`` as in Foster and Stine's alpha-investing.

    Parameters
    ----------
    alpha : float, default 0.05
        Target FDR level, in (0, 1).
    w0 : float, optional
        Initial wealth, ``0 <= w0 < alpha``; defaults to ``alpha / 2`` as in onlineFDR.
    gammai : sequence of float, optional
        Spending sequence; default ``0.4374901658 / j^1.6`` (lazily computed).
    spending : {"decaying", "uniform", "hedged"}, default "decaying"
        SPENDING_TEXT

    Examples
    --------
    >>> from streamreg.policies import AlphaInvestingFDR
    >>> AlphaInvestingFDR()
    alpha-investing-fdr(alpha=0.05, w0=0.025)
    """

    name = "alpha-investing-fdr"
    OPTION_KINDS = {"alpha": (NUMBER,), "w0": (NUMBER, NONE), "gammai": (NUMBERS, NONE), "spending": (TEXT,)}
    _default_sequence = SAFFRON_SEQUENCE

    def __init__(self, alpha: float = 0.05, w0: float | None = None, gammai: Sequence[float] | None = None,
                 spending: str = "decaying"):
        self.alpha = check_alpha(alpha)
        self.w0 = check_w0(self.alpha / 2 if w0 is None else w0, self.alpha, True, "alpha")
        self._init_sequence(gammai, spending)

    def _ticks(self, outcomes: TestOutcomes) -> tuple[None, np.ndarray]:
        return None, np.ones(len(outcomes), dtype=bool)

    def _level(self, tilde: np.ndarray) -> np.ndarray:
        return tilde / (1 + tilde)

    def _cost(self, tilde: np.ndarray, level: np.ndarray) -> np.ndarray:
        return tilde

    def guarantee(self) -> str:
        return (
            f"FDR <= {self.alpha:g} (alpha-investing as a SAFFRON special case, Ramdas et al. "
            "2018), valid when the null p-values are independent of each other and of the "
            "non-null ones. " + HEURISTIC + self.spending_description()
        )
