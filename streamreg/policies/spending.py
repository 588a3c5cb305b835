"""LOND and alpha-spending: online rules whose levels need no wealth recursion.

Both follow ``onlineFDR`` (``LOND`` and ``Alpha_spending``) with its default sequences, from
:mod:`streamreg.policies.sequences`; decisions use ``p <= level`` on the log scale.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..outcomes import TestOutcomes
from ..validators import FLAG, INTEGER, NONE, NUMBER, NUMBERS
from .base import Plan, Policy
from .online_common import HEURISTIC, check_alpha, screened_accept
from .sequences import LORD_SEQUENCE, ArraySequence, user_sequence


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

    Examples
    --------
    >>> from streamreg.policies import LOND
    >>> LOND(original=False)
    lond(alpha=0.05, original=False)
    """

    name = "lond"
    OPTION_KINDS = {"alpha": (NUMBER,), "original": (FLAG,), "betai": (NUMBERS, NONE)}

    def __init__(self, alpha: float = 0.05, original: bool = True, betai: Sequence[float] | None = None):
        self.alpha = check_alpha(alpha)
        self.original = bool(original)
        self.betai = user_sequence(betai, self.alpha, "betai")
        self._beta_seq = None if self.betai is None else ArraySequence(np.asarray(self.betai) / self.alpha)

    def _reset(self) -> None:
        self._alpha = self.alpha * self.share

    def _levels(self, m: int) -> np.ndarray:
        t = self.n_tested + 1 + np.arange(m, dtype=np.int64)
        seq = LORD_SEQUENCE if self._beta_seq is None else self._beta_seq
        factor = self.n_accepted + 1 if self.original else max(self.n_accepted, 1)
        return (self._alpha * seq(t)) * factor

    def plan(self, outcomes: TestOutcomes) -> Plan:
        level = self._levels(len(outcomes))
        return Plan(
            accept=screened_accept(outcomes, level),
            level=level,
            wealth=np.full(len(outcomes), np.nan),
        )

    def record(self, outcomes: TestOutcomes, n: int, last_accepted: bool) -> None:
        self.n_tested += n
        self.n_accepted += int(bool(last_accepted and n))

    def parameters(self) -> dict:
        out: dict[str, Any] = {"alpha": self.alpha, "original": self.original}
        if self.betai is not None:
            out["betai"] = self.betai
        return out

    def guarantee(self) -> str:
        if self.original:
            cond = "independent null p-values (Javanmard and Montanari 2015)"
        else:
            cond = "positively dependent (PRDS) p-values (Zrnic et al. 2021)"
        return f"FDR <= {self.alpha:g}, valid for {cond}. " + HEURISTIC


class AlphaSpending(Policy):
    """Alpha-spending (onlineFDR ``Alpha_spending``): the online Bonferroni test.

    Test ``t`` runs at level ``alpha g_t`` with the LORD sequence ``g``; the wealth
    reported is the unspent budget ``alpha (1 - g_1 - ... - g_t)``.

    Parameters
    ----------
    alpha : float, default 0.05
        Family-wise error rate, in (0, 1).
    gammai : sequence of float, optional
        Non-negative sequence summing to at most 1 (default: the LORD sequence); zero
        beyond its end.  Kept as a read-only array, shared by the streams' copies of the
        rule, and shown in summaries by its length when it is long.
    horizon : int, optional
        Spend ``alpha / horizon`` on each of the first ``horizon`` tests and nothing after
        (Bonferroni over a known number of tests, without storing a sequence); not with
        ``gammai``.  Not an onlineFDR option.

    Examples
    --------
    >>> from streamreg.policies import AlphaSpending
    >>> AlphaSpending(alpha=0.1)
    alpha-spending(alpha=0.1)
    >>> AlphaSpending(alpha=0.1, horizon=1000)
    alpha-spending(alpha=0.1, horizon=1000)
    >>> AlphaSpending(gammai=[1e-6] * 1_000_000)
    alpha-spending(alpha=0.05, gammai=<1,000,000 values>)
    """

    name = "alpha-spending"
    OPTION_KINDS = {"alpha": (NUMBER,), "gammai": (NUMBERS, NONE), "horizon": (INTEGER, NONE)}

    def __init__(self, alpha: float = 0.05, gammai: Sequence[float] | np.ndarray | None = None,
                 horizon: int | None = None):
        self.alpha = check_alpha(alpha)
        if gammai is not None and horizon is not None:
            raise ValueError("give gammai or horizon, not both (horizon=N spends alpha/N on each of N tests)")
        self.gammai = _spending_values(gammai)
        self.horizon = _check_horizon(horizon)

    def _gamma(self, t: np.ndarray) -> np.ndarray:
        """``g_t`` at 1-based test indices: the LORD sequence, the user's (zero beyond its end)
        or ``1 / horizon`` up to the horizon."""
        if self.gammai is None and self.horizon is None:
            return LORD_SEQUENCE(t)
        out = np.zeros(t.shape)
        if self.gammai is not None:
            inside = t <= self.gammai.size
            out[inside] = self.gammai[t[inside] - 1]
        elif self.horizon is not None:
            out[t <= self.horizon] = 1.0 / self.horizon
        return out

    def describe(self) -> str:
        """``name(param=value, ...)``, a long ``gammai`` by its length (its values would fill pages)."""
        return f"{self.name}({', '.join(f'{k}={_short(v)}' for k, v in self.parameters().items())})"

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
        return Plan(accept=screened_accept(outcomes, level), level=level, wealth=self._alpha - spent)

    def record(self, outcomes: TestOutcomes, n: int, last_accepted: bool) -> None:
        if n == 0:
            return
        level = self._levels(n)
        self._spent = float(np.cumsum(np.concatenate(([self._spent], level)))[-1])
        self.n_tested += n
        self.n_accepted += int(bool(last_accepted))

    def parameters(self) -> dict:
        out: dict[str, Any] = {"alpha": self.alpha}
        if self.gammai is not None:
            out["gammai"] = self.gammai
        if self.horizon is not None:
            out["horizon"] = self.horizon
        return out

    def guarantee(self) -> str:
        return (
            f"FWER <= {self.alpha:g} by a union bound, valid under any dependence provided each "
            "null p-value is valid on its own. Streamwise p-values come from nested fits to one "
            "response and are computed given a data-selected model, so they are neither "
            "independent nor exactly valid, and the claim is approximate here."
        )


#: sequences at most this long are shown value by value
_SHOWN = 8


def _spending_values(values: Sequence[float] | np.ndarray | None) -> np.ndarray | None:
    """A user ``gammai`` checked as onlineFDR checks it, as a read-only float array.

    Our own read-only arrays (a rule's ``gammai`` handed to its copies by ``spawn``) are
    shared, not copied: a million-long sequence costs 8 MB once, not once per stream.
    """
    if values is None:
        return None
    if isinstance(values, np.ndarray) and values.dtype == float and not values.flags.writeable and values.base is None:
        arr = values
    else:
        arr = np.array(values, dtype=float)  # a copy: later changes to the caller's object do not leak in
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError("gammai must be a non-empty 1-D sequence")
    if not np.isfinite(arr).all() or (arr < 0).any():
        raise ValueError("All elements of gammai must be non-negative and finite.")
    if arr.sum() > 1.0 + 1e-12:
        raise ValueError("The sum of the elements of gammai must not be greater than 1.")
    arr.flags.writeable = False
    return arr


def _check_horizon(horizon: int | None) -> int | None:
    if horizon is None:
        return None
    if isinstance(horizon, (bool, np.bool_)) or not isinstance(horizon, (int, np.integer)) or horizon < 1:
        raise ValueError(f"horizon must be a positive integer (the number of tests), got {horizon!r}")
    return int(horizon)


def _short(value: Any) -> str:
    """A parameter as summaries show it: a long array by its length."""
    if isinstance(value, np.ndarray):
        if value.size > _SHOWN:
            return f"<{value.size:,} values>"
        return repr(tuple(float(v) for v in value))
    return str(value)
