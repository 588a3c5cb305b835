"""Spending sequences of the online FDR rules: onlineFDR's defaults and user sequences.

The default sequences are evaluated lazily, so no horizon is needed: LORD-type
``g_j = 0.07720838 log(max(j, 2)) / (j exp(sqrt(log j)))`` (Javanmard and Montanari 2018,
eq. 31) and SAFFRON-type ``g_j = 0.4374901658 / j^1.6`` (sums to one, ``1/zeta(1.6)``).
A user's finite sequence is zero beyond its end, as a finite vector is in ``onlineFDR``.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

_LORD_CONST = 0.07720838
_SAFFRON_CONST = 0.4374901658


def lord_gamma(j: np.ndarray) -> np.ndarray:
    """onlineFDR's default LORD/LOND/alpha-spending sequence (J&M 2018, eq. 31).

    ``g_j = 0.07720838 log(max(j, 2)) / (j exp(sqrt(log j)))`` for ``j = 1, 2, ...``.

    Parameters
    ----------
    j : array-like of int
        1-based test indices.

    Returns
    -------
    ndarray
        ``g_j`` at each index.

    Examples
    --------
    >>> from streamreg.policies.online_fdr import lord_gamma
    >>> lord_gamma([1, 2]).round(8)
    array([0.05351677, 0.01163821])
    """
    j = np.asarray(j, dtype=float)
    return _LORD_CONST * np.log(np.maximum(j, 2.0)) / (j * np.exp(np.sqrt(np.log(j))))


def saffron_gamma(j: np.ndarray) -> np.ndarray:
    """onlineFDR's default SAFFRON/ADDIS/Alpha_investing sequence, ``0.4374901658 / j^1.6``.

    Parameters
    ----------
    j : array-like of int
        1-based test indices.

    Returns
    -------
    ndarray
        ``g_j`` at each index.

    Examples
    --------
    >>> from streamreg.policies.online_fdr import saffron_gamma
    >>> saffron_gamma([1, 2]).round(8)
    array([0.43749017, 0.14431793])
    """
    j = np.asarray(j, dtype=float)
    return _SAFFRON_CONST / j**1.6


class LazySequence:
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


class ArraySequence:
    """A user-supplied finite sequence ``g_1, ..., g_N``; zero beyond ``N``."""

    def __init__(self, values: np.ndarray):
        self._values = np.concatenate((values, [0.0]))
        self._n = values.size

    def __call__(self, index: np.ndarray) -> np.ndarray:
        index = np.asarray(index, dtype=np.int64)
        return self._values[np.minimum(index, self._n + 1) - 1]


class FlatSequence:
    """``g_j = 1 / horizon`` for ``j <= horizon``, zero beyond: spending spread evenly over a
    stream of known length (no table is built, whatever the horizon)."""

    def __init__(self, horizon: int):
        self.horizon = int(horizon)

    def __call__(self, index: np.ndarray) -> np.ndarray:
        index = np.asarray(index, dtype=np.int64)
        return np.where((index >= 1) & (index <= self.horizon), 1.0 / self.horizon, 0.0)


#: the share of ``spending="hedged"`` that follows the decaying sequence (the rest is uniform)
HEDGE_FRONT = 0.1


class MixedSequence:
    """``g_j = h a_j + (1 - h) b_j``: sums to at most 1 if both sequences do."""

    def __init__(self, first: Callable[[np.ndarray], np.ndarray], second: Callable[[np.ndarray], np.ndarray],
                 share: float = HEDGE_FRONT):
        self.first, self.second, self.share = first, second, share

    def __call__(self, index: np.ndarray) -> np.ndarray:
        return self.share * self.first(index) + (1.0 - self.share) * self.second(index)


#: values of ``spending=``: onlineFDR's decaying sequences, or an even spread over the horizon
SPENDING = ("decaying", "uniform", "hedged")
#: alpha-investing also spreads its wealth pass by pass (``"per-pass"``); the LORD and
#: SAFFRON families' levels are sums over past rejection times, which a pass does not restart
INVESTING_SPENDING = (*SPENDING, "per-pass")


def check_spending(spending: object, gammai: object = None, allowed: tuple[str, ...] = SPENDING) -> str:
    """``spending=`` checked against the rule's ``allowed`` values (and not combined with a user
    ``gammai``)."""
    if spending not in allowed:
        hint = " ('per-pass' is offered by alpha-investing)" \
            if spending == "per-pass" else ""
        raise ValueError(f"spending must be one of {allowed}, got {spending!r}{hint}")
    if spending != "decaying" and gammai is not None:
        raise ValueError(f"spending={spending!r} sets the spending sequence from the stream's length; "
                         "give either spending= or gammai=, not both")
    return str(spending)


def uniform_text(horizon: object, what: str, spending: str = "uniform") -> str:
    """The guarantee's sentence on uniform (or hedged) spending: with the horizon of a started
    rule, or in general for a template (each stream of a search has its own horizon)."""
    if spending == "per-pass":
        return (f" {what} spread evenly over each pass of a stream of known length: the first pass spends the "
                "initial wealth over the stream's candidates, each later pass the wealth left over the "
                "candidates it re-offers; a stream of unknown length keeps the decaying sequence.")
    how = ("spread evenly over" if spending == "uniform"
           else f"{HEDGE_FRONT:.0%} front-loaded, {1 - HEDGE_FRONT:.0%} spread evenly over")
    if isinstance(horizon, int) and horizon > 0:
        return f" {what} {how} the stream's {horizon} tests."
    if horizon == "template":
        return (f" {what} {how} each stream's tests (its candidates times passes, at most "
                "max_tests); a stream of unknown length keeps the decaying sequence.")
    return " The stream's length is unknown, so the spending follows the decaying sequence."


class SpendingRule:
    """The ``spending=`` option of a wealth rule, and the guarantee's sentence on it.

    Mixed into the investing rules (which spread their bids) and the gamma-wealth rules
    (which spread their spending sequence): one text for both, naming what is spread.
    """

    #: ``"decaying"``, ``"uniform"`` or ``"hedged"`` (:data:`SPENDING`)
    spending: str = "decaying"
    #: the guarantee's word for what is spread over the stream
    _spread_word = "Spending"

    def spending_description(self) -> str:
        """How the rule spends its wealth over the stream, for the guarantee's text ("" when decaying)."""
        if self.spending == "decaying":
            return ""
        return uniform_text(getattr(self, "stream_horizon", "template"), self._spread_word, self.spending)


LORD_SEQUENCE = LazySequence(lord_gamma)
SAFFRON_SEQUENCE = LazySequence(saffron_gamma)


def user_sequence(values: Sequence[float] | np.ndarray | None, total: float, what: str) -> tuple[float, ...] | None:
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
