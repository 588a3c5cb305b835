"""Online FDR and FWER rules with the update rules and defaults of R's ``onlineFDR``.

LORD++, SAFFRON, ADDIS and the SAFFRON-type alpha-investing of ``onlineFDR`` (function
``Alpha_investing``) all share one shape.  Write ``tau_1 < tau_2 < ...`` for the tests
accepted so far ("rejections" in the multiple-testing vocabulary; *acceptances* here, since
an accepted candidate enters the model).  Each rule has a notion of a test that *ticks a
clock*:

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

Gamma sequences are evaluated lazily, so no horizon is needed: LORD-type
``g_j = 0.07720838 log(max(j, 2)) / (j exp(sqrt(log j)))`` (Javanmard and Montanari 2018,
eq. 31) and SAFFRON-type ``g_j = 0.4374901658 / j^1.6`` (sums to one, ``1/zeta(1.6)``).

Decisions use ``p <= level`` (onlineFDR's convention), evaluated as
``log p <= log level`` so that p-values far below the smallest double still compare.

Multi-stream searches give each stream a ``share`` of the error budget: both ``alpha`` and
``w0`` are multiplied by ``share``, so the summed "estimated false discovery proportion"
that these rules bound stays below ``alpha`` for the union of the streams.
"""
from __future__ import annotations

import math
from typing import Callable, Sequence

from abc import abstractmethod

import numpy as np

from ..outcomes import TestOutcomes
from .base import Plan, Policy

_HEURISTIC = (
    "Streamwise p-values come from nested fits to one response and are not independent, "
    "so this claim is heuristic here."
)

# --------------------------------------------------------------------------------------
# gamma sequences
# --------------------------------------------------------------------------------------

_LORD_CONST = 0.07720838
_SAFFRON_CONST = 0.4374901658


def lord_gamma(j: np.ndarray) -> np.ndarray:
    """onlineFDR's default LORD/LOND/alpha-spending sequence (J&M 2018, eq. 31).

    ``g_j = 0.07720838 log(max(j, 2)) / (j exp(sqrt(log j)))`` for ``j = 1, 2, ...``.
    """
    j = np.asarray(j, dtype=float)
    return _LORD_CONST * np.log(np.maximum(j, 2.0)) / (j * np.exp(np.sqrt(np.log(j))))


def saffron_gamma(j: np.ndarray) -> np.ndarray:
    """onlineFDR's default SAFFRON/ADDIS/Alpha_investing sequence, ``0.4374901658 / j^1.6``."""
    j = np.asarray(j, dtype=float)
    return _SAFFRON_CONST / j**1.6


class _LazySequence:
    """A gamma sequence tabulated on demand, in fixed chunks.

    Values are computed once per process, in chunks whose boundaries never depend on the
    requests, so ``g_j`` is bitwise the same whatever block first asked for it.
    """

    _CHUNK = 4096

    def __init__(self, formula: Callable[[np.ndarray], np.ndarray]):
        self._formula = formula
        self._values = np.empty(0)

    def __call__(self, index: np.ndarray) -> np.ndarray:
        """``g`` at 1-based integer indices (all >= 1)."""
        index = np.asarray(index, dtype=np.int64)
        if index.size == 0:
            return np.empty(0)
        top = int(index.max())
        if top > self._values.size:
            n_chunks = -(-top // self._CHUNK)
            start = self._values.size + 1
            j = np.arange(start, n_chunks * self._CHUNK + 1, dtype=float)
            self._values = np.concatenate((self._values, self._formula(j)))
        return self._values[index - 1]


class _ArraySequence:
    """A user-supplied finite sequence ``g_1, ..., g_N``; zero beyond ``N``."""

    def __init__(self, values: np.ndarray):
        self._values = np.concatenate((values, [0.0]))
        self._n = values.size

    def __call__(self, index: np.ndarray) -> np.ndarray:
        index = np.asarray(index, dtype=np.int64)
        return self._values[np.minimum(index, self._n + 1) - 1]


_LORD_SEQUENCE = _LazySequence(lord_gamma)
_SAFFRON_SEQUENCE = _LazySequence(saffron_gamma)


def _user_sequence(values, total: float, what: str) -> tuple[float, ...] | None:
    """Validate a user gamma (or beta) vector as onlineFDR does; return it as a tuple."""
    if values is None:
        return None
    arr = np.asarray(values, dtype=float)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{what} must be a non-empty 1-D sequence")
    if not np.all(np.isfinite(arr)) or np.any(arr < 0):
        raise ValueError(f"All elements of {what} must be non-negative and finite.")
    if arr.sum() > total * (1 + 1e-12):
        raise ValueError(f"The sum of the elements of {what} must not be greater than {total:g}.")
    return tuple(float(v) for v in arr)


# --------------------------------------------------------------------------------------
# shared validation
# --------------------------------------------------------------------------------------


def _check_alpha(alpha: float) -> float:
    if not (isinstance(alpha, (int, float, np.floating)) and 0 < alpha < 1):
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")
    return float(alpha)


def _check_w0(w0: float, upper: float, strict: bool, bound_name: str) -> float:
    if not (isinstance(w0, (int, float, np.floating)) and math.isfinite(w0)):
        raise ValueError(f"w0 must be a finite number, got {w0!r}")
    if w0 < 0:
        raise ValueError(f"w0 must be non-negative, got {w0!r}")
    if (w0 >= upper) if strict else (w0 > upper):
        relation = "less than" if strict else "at most"
        raise ValueError(f"w0 must be {relation} {bound_name} = {upper:g}, got {w0!r}")
    return float(w0)


def _exclusive_cumsum(x: np.ndarray) -> np.ndarray:
    """``out[i] = x[0] + ... + x[i-1]`` (integers)."""
    out = np.zeros(x.size, dtype=np.int64)
    if x.size > 1:
        np.cumsum(x[:-1], out=out[1:])
    return out


def _log_leq(log_p: np.ndarray, level: np.ndarray) -> np.ndarray:
    """``p <= level`` on the log scale (a zero level accepts only ``p == 0``)."""
    with np.errstate(divide="ignore"):
        return log_p <= np.log(level)


def _screened_accept(outcomes: TestOutcomes, level: np.ndarray) -> np.ndarray:
    """``p <= level``, computing exact p-values only where they can beat the largest level."""
    if level.size == 0:
        return np.zeros(0, dtype=bool)
    top = float(level.max())
    log_p = outcomes.log_p_screened(math.log(top)) if top > 0 else outcomes.log_p
    return _log_leq(log_p, level)


# --------------------------------------------------------------------------------------
# the LORD++ / SAFFRON / ADDIS / Alpha_investing family
# --------------------------------------------------------------------------------------


class _GammaWealthRule(Policy):
    """Shared machinery of the rules of the module docstring.

    Subclasses define :meth:`_ticks` (which rejected tests tick the clock),
    :meth:`_level` (the map from the unscaled level to the test level) and :meth:`_cost`
    (the alpha-wealth a rejected test spends), plus ``_accepted_ticks`` (whether an accepted
    test ticks) and ``_default_sequence``.
    """

    _accepted_ticks = False
    _default_sequence: _LazySequence = _SAFFRON_SEQUENCE

    def _init_sequence(self, gammai) -> None:
        self.gammai = _user_sequence(gammai, 1.0, "gammai")
        self._gamma = (
            self._default_sequence if self.gammai is None else _ArraySequence(np.asarray(self.gammai))
        )

    # -- state -------------------------------------------------------------------------
    def _reset(self) -> None:
        self._alpha = self.alpha * self.share
        self._w0 = self.w0 * self.share
        self._n_ticks = 0  # ticks among the tests so far
        self._offsets: list[int] = []  # o_j: ticks among tests 1..tau_j
        self._spent = 0.0
        self._memo = None  # (outcomes, ticks, tilde, level) of the last plan

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
        """Unscaled levels at clock values ``clock`` (one per test of the block)."""
        tilde = self._w0 * self._gamma(clock)
        for j, offset in enumerate(self._offsets):
            weight = self._alpha - self._w0 if j == 0 else self._alpha
            tilde = tilde + weight * self._gamma(clock - offset)
        return tilde

    def _schedule(self, outcomes: TestOutcomes):
        """Ticks, unscaled levels, levels and decisions over a block, all rejected."""
        log_p, ticks = self._ticks(outcomes)
        clock = 1 + self._n_ticks + _exclusive_cumsum(ticks)
        tilde = self._tilde(clock)
        level = self._level(tilde)
        if log_p is None:  # p-values are needed only where they can beat the largest level
            top = float(level.max())
            log_p = outcomes.log_p_screened(math.log(top)) if top > 0 else outcomes.log_p
        return ticks, tilde, level, _log_leq(log_p, level)

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


class LORDPlusPlus(_GammaWealthRule):
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

    Examples
    --------
    >>> from streamreg.policies import LORDPlusPlus
    >>> LORDPlusPlus()
    lord++(alpha=0.05, w0=0.005)
    """

    name = "lord++"
    _accepted_ticks = True
    _default_sequence = _LORD_SEQUENCE

    def __init__(self, alpha: float = 0.05, w0: float | None = None, gammai: Sequence[float] | None = None):
        self.alpha = _check_alpha(alpha)
        self.w0 = _check_w0(self.alpha / 10 if w0 is None else w0, self.alpha, False, "alpha")
        self._init_sequence(gammai)

    def _ticks(self, outcomes: TestOutcomes) -> tuple[None, np.ndarray]:
        return None, np.ones(len(outcomes), dtype=bool)

    def _level(self, tilde: np.ndarray) -> np.ndarray:
        return tilde

    def _cost(self, tilde: np.ndarray, level: np.ndarray) -> np.ndarray:
        return level

    def parameters(self) -> dict:
        out = {"alpha": self.alpha, "w0": self.w0}
        if self.gammai is not None:
            out["gammai"] = self.gammai
        return out

    def guarantee(self) -> str:
        return (
            f"FDR <= {self.alpha:g} (Ramdas et al. 2017), valid when the null p-values are "
            "independent of each other and of the non-null ones. " + _HEURISTIC
        )


class SAFFRON(_GammaWealthRule):
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
    """

    name = "saffron"
    _default_sequence = _SAFFRON_SEQUENCE

    def __init__(
        self,
        alpha: float = 0.05,
        w0: float | None = None,
        lambda_: float = 0.5,
        gammai: Sequence[float] | None = None,
    ):
        self.alpha = _check_alpha(alpha)
        self.w0 = _check_w0(self.alpha / 2 if w0 is None else w0, self.alpha, True, "alpha")
        if not 0 < lambda_ < 1:
            raise ValueError(f"lambda_ must lie in (0, 1), got {lambda_!r}")
        self.lambda_ = float(lambda_)
        self._init_sequence(gammai)

    def _ticks(self, outcomes: TestOutcomes) -> tuple[np.ndarray, np.ndarray]:
        # exact p-values are needed only up to lambda, which bounds every level too
        log_p = outcomes.log_p_screened(math.log(self.lambda_))
        return log_p, ~(log_p <= math.log(self.lambda_))

    def _level(self, tilde: np.ndarray) -> np.ndarray:
        return np.minimum(self.lambda_, (1 - self.lambda_) * tilde)

    def _cost(self, tilde: np.ndarray, level: np.ndarray) -> np.ndarray:
        return level / (1 - self.lambda_)

    def parameters(self) -> dict:
        out = {"alpha": self.alpha, "w0": self.w0, "lambda_": self.lambda_}
        if self.gammai is not None:
            out["gammai"] = self.gammai
        return out

    def guarantee(self) -> str:
        return (
            f"FDR <= {self.alpha:g} (Ramdas et al. 2018), valid when the null p-values are "
            "independent of each other and of the non-null ones. " + _HEURISTIC
        )


class ADDIS(_GammaWealthRule):
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
    """

    name = "addis"
    _default_sequence = _SAFFRON_SEQUENCE

    def __init__(
        self,
        alpha: float = 0.05,
        w0: float | None = None,
        lambda_: float = 0.25,
        tau: float = 0.5,
        gammai: Sequence[float] | None = None,
    ):
        self.alpha = _check_alpha(alpha)
        self.w0 = _check_w0(self.alpha / 2 if w0 is None else w0, self.alpha, False, "alpha")
        if not 0 < tau <= 1:
            raise ValueError(f"tau must lie in (0, 1], got {tau!r}")
        if not 0 < lambda_ < tau:
            raise ValueError(f"lambda_ must lie in (0, tau) = (0, {tau:g}), got {lambda_!r}")
        self.lambda_ = float(lambda_)
        self.tau = float(tau)
        self._init_sequence(gammai)

    def _ticks(self, outcomes: TestOutcomes) -> tuple[np.ndarray, np.ndarray]:
        # exact p-values are needed only up to tau (NaN beyond: discarded)
        log_p = outcomes.log_p_screened(math.log(self.tau))
        return log_p, (log_p <= math.log(self.tau)) & ~(log_p <= math.log(self.lambda_))

    def _level(self, tilde: np.ndarray) -> np.ndarray:
        return np.minimum(self.lambda_, (self.tau - self.lambda_) * tilde)

    def _cost(self, tilde: np.ndarray, level: np.ndarray) -> np.ndarray:
        return level / (self.tau - self.lambda_)

    def parameters(self) -> dict:
        out = {"alpha": self.alpha, "w0": self.w0, "lambda_": self.lambda_, "tau": self.tau}
        if self.gammai is not None:
            out["gammai"] = self.gammai
        return out

    def guarantee(self) -> str:
        return (
            f"FDR <= {self.alpha:g} (Tian and Ramdas 2019), valid when the null p-values are "
            "independent of each other and of the non-null ones and uniformly conservative. "
            + _HEURISTIC
        )


class AlphaInvestingFDR(_GammaWealthRule):
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
    """

    name = "alpha-investing-fdr"
    _default_sequence = _SAFFRON_SEQUENCE

    def __init__(self, alpha: float = 0.05, w0: float | None = None, gammai: Sequence[float] | None = None):
        self.alpha = _check_alpha(alpha)
        self.w0 = _check_w0(self.alpha / 2 if w0 is None else w0, self.alpha, True, "alpha")
        self._init_sequence(gammai)

    def _ticks(self, outcomes: TestOutcomes) -> tuple[None, np.ndarray]:
        return None, np.ones(len(outcomes), dtype=bool)

    def _level(self, tilde: np.ndarray) -> np.ndarray:
        return tilde / (1 + tilde)

    def _cost(self, tilde: np.ndarray, level: np.ndarray) -> np.ndarray:
        return tilde

    def parameters(self) -> dict:
        out = {"alpha": self.alpha, "w0": self.w0}
        if self.gammai is not None:
            out["gammai"] = self.gammai
        return out

    def guarantee(self) -> str:
        return (
            f"FDR <= {self.alpha:g} (alpha-investing as a SAFFRON special case, Ramdas et al. "
            "2018), valid when the null p-values are independent of each other and of the "
            "non-null ones. " + _HEURISTIC
        )


# --------------------------------------------------------------------------------------
# LOND and alpha-spending: levels that need no wealth recursion
# --------------------------------------------------------------------------------------


class LOND(Policy):
    """LOND (Javanmard and Montanari 2015; onlineFDR ``LOND``).

    Level ``alpha_t = beta_t (D_{t-1} + 1)`` with ``D_{t-1}`` the acceptances before test
    ``t`` and ``beta_t = alpha g_t`` (the LORD sequence); with ``original=False`` the
    PRDS-valid variant ``beta_t max(D_{t-1}, 1)`` of Zrnic et al. (2021).

    Parameters
    ----------
    alpha : float, default 0.05
        Target FDR level, in (0, 1).
    original : bool, default True
        Use the original ``D + 1`` factor (onlineFDR's default).
    betai : sequence of float, optional
        Non-negative sequence summing to at most ``alpha``; default
        ``alpha * 0.07720838 log(max(j, 2)) / (j exp(sqrt(log j)))``.
    """

    name = "lond"

    def __init__(self, alpha: float = 0.05, original: bool = True, betai: Sequence[float] | None = None):
        self.alpha = _check_alpha(alpha)
        self.original = bool(original)
        self.betai = _user_sequence(betai, self.alpha, "betai")
        self._beta_seq = None if self.betai is None else _ArraySequence(np.asarray(self.betai) / self.alpha)

    def _reset(self) -> None:
        self._alpha = self.alpha * self.share

    def _levels(self, m: int) -> np.ndarray:
        t = self.n_tested + 1 + np.arange(m, dtype=np.int64)
        seq = _LORD_SEQUENCE if self._beta_seq is None else self._beta_seq
        factor = self.n_accepted + 1 if self.original else max(self.n_accepted, 1)
        return (self._alpha * seq(t)) * factor

    def plan(self, outcomes: TestOutcomes) -> Plan:
        level = self._levels(len(outcomes))
        return Plan(
            accept=_screened_accept(outcomes, level),
            level=level,
            wealth=np.full(len(outcomes), np.nan),
        )

    def record(self, outcomes: TestOutcomes, n: int, last_accepted: bool) -> None:
        self.n_tested += n
        self.n_accepted += int(bool(last_accepted and n))

    def parameters(self) -> dict:
        out = {"alpha": self.alpha, "original": self.original}
        if self.betai is not None:
            out["betai"] = self.betai
        return out

    def guarantee(self) -> str:
        if self.original:
            cond = "independent null p-values (Javanmard and Montanari 2015)"
        else:
            cond = "positively dependent (PRDS) p-values (Zrnic et al. 2021)"
        return f"FDR <= {self.alpha:g}, valid for {cond}. " + _HEURISTIC


class AlphaSpending(Policy):
    """Alpha-spending (onlineFDR ``Alpha_spending``): the online Bonferroni test.

    Test ``t`` runs at level ``alpha g_t`` with the LORD sequence ``g``; the wealth
    reported is the unspent budget ``alpha (1 - g_1 - ... - g_t)``.

    Parameters
    ----------
    alpha : float, default 0.05
        Family-wise error rate, in (0, 1).
    gammai : sequence of float, optional
        Non-negative sequence summing to at most 1 (default: the LORD sequence).
    """

    name = "alpha-spending"

    def __init__(self, alpha: float = 0.05, gammai: Sequence[float] | None = None):
        self.alpha = _check_alpha(alpha)
        self.gammai = _user_sequence(gammai, 1.0, "gammai")
        self._gamma = _LORD_SEQUENCE if self.gammai is None else _ArraySequence(np.asarray(self.gammai))

    def _reset(self) -> None:
        self._alpha = self.alpha * self.share
        self._spent = 0.0

    @property
    def wealth(self) -> float:
        return self._alpha - self._spent

    def _levels(self, m: int) -> np.ndarray:
        t = self.n_tested + 1 + np.arange(m, dtype=np.int64)
        return self._alpha * self._gamma(t)

    def plan(self, outcomes: TestOutcomes) -> Plan:
        level = self._levels(len(outcomes))
        spent = np.cumsum(np.concatenate(([self._spent], level)))[1:]
        return Plan(accept=_screened_accept(outcomes, level), level=level, wealth=self._alpha - spent)

    def record(self, outcomes: TestOutcomes, n: int, last_accepted: bool) -> None:
        if n == 0:
            return
        level = self._levels(n)
        self._spent = float(np.cumsum(np.concatenate(([self._spent], level)))[-1])
        self.n_tested += n
        self.n_accepted += int(bool(last_accepted))

    def parameters(self) -> dict:
        out = {"alpha": self.alpha}
        if self.gammai is not None:
            out["gammai"] = self.gammai
        return out

    def guarantee(self) -> str:
        return (
            f"FWER <= {self.alpha:g} by a union bound, valid under any dependence provided each "
            "null p-value is valid on its own. Streamwise p-values come from nested fits to one "
            "response and are computed given a data-selected model, so they are neither "
            "independent nor exactly valid, and the claim is approximate here."
        )
