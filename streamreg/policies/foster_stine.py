"""Foster and Stine's (2008) alpha-investing rule, in the naming of :class:`~streamreg.policies.AlphaInvesting`.

Foster, D. P. and Stine, R. A. (2008), "alpha-investing: a procedure for sequential control
of expected false discoveries", JRSS B 70(2), 429-444.  Test ``j`` (counting every tested
candidate) runs at level ``alpha_j = W(j-1) / (1 + j - k*)``, where ``k*`` is the index of
the last acceptance (0 before the first).  A failure costs ``alpha_j / (1 - alpha_j)``; an
acceptance costs nothing and pays ``omega`` (called ``alpha_delta`` here, as in that class;
``W(0)`` is ``w0``).

Unlike the rule of Zhou et al. (2006) (:class:`~streamreg.policies.AlphaInvesting`), the wealth under
a run of failures follows ``W <- W - W / (d - W)`` with ``d = 1 + j - k*``, which is not a
product of known factors (nor a Moebius map, whose compositions a prefix scan could
vectorise): each step needs the float result of the one before, and any reformulation
would change the last bits.  :func:`_walk` therefore runs the recursion on Python floats
with the arithmetic inlined (per-step helper calls and numpy element writes cost more than
the arithmetic itself) and fills the zero tail once the wealth is spent in one
vectorised step.  :meth:`FosterStine.record` walks the very same way, so decisions do not
depend on how the stream is cut into blocks.
"""
from __future__ import annotations

import math

import numpy as np

from ..outcomes import TestOutcomes
from ..validators import NUMBER
from .base import Plan, Policy
from .online_common import check_wealth_budget


def _fs_level(w: float, d: int) -> float:
    """Level of a test with wealth ``w`` and ``d = 1 + j - k*``.

    Foster and Stine's ``w / d``, capped at ``w / (1 + w)`` so that a failure never costs
    more than the wealth left (the cap binds only when ``w > d - 1``, i.e. when the wealth
    exceeds 1 right after an acceptance).
    """
    if w <= 0.0:
        return 0.0
    return min(w / d, w / (1.0 + w))


def _fs_fail(w: float, level: float) -> float:
    """Wealth after a failure at ``level``."""
    return max(w - level / (1.0 - level), 0.0)


def _walk(w: float, d: int, m: int, keep: bool = True) -> tuple[list[float], list[float], float]:
    """Levels and wealth-after of ``m`` failures from wealth ``w`` (``d`` for the first).

    The same floating-point operations as ``_fs_fail(w, _fs_level(w, d + i))`` step by
    step (``min``/``max`` written as comparisons with the same tie rules), so the levels are
    bitwise those of the scalar definition.  ``keep=False`` returns only the final wealth.
    """
    levels: list[float] = []
    wealth: list[float] = []
    if not keep:
        for i in range(m):
            if w <= 0.0:  # spent: it stays 0
                break
            a = w / (d + i)
            cap = w / (1.0 + w)
            a = cap if cap < a else a  # noqa: FURB136 -- min(a, cap) (ties keep a) without a call per step
            w = w - a / (1.0 - a)
            w = 0.0 if w < 0.0 else w  # noqa: FURB136 -- max(w, 0.0), ties keep w
        return levels, wealth, w
    add_level, add_wealth = levels.append, wealth.append
    for i in range(m):
        if w <= 0.0:  # spent: every later level and wealth is 0
            levels.extend([0.0] * (m - i))
            wealth.extend([w] * (m - i))
            break
        a = w / (d + i)
        cap = w / (1.0 + w)
        a = cap if cap < a else a  # noqa: FURB136
        w = w - a / (1.0 - a)
        w = 0.0 if w < 0.0 else w  # noqa: FURB136
        add_level(a)
        add_wealth(w)
    return levels, wealth, w


class FosterStine(Policy):
    """Alpha-investing of Foster and Stine (2008).

    Level ``alpha_j = W(j-1) / (1 + j - k*)`` (``k*`` the last acceptance), accept iff
    ``p_j <= alpha_j``; a failure costs ``alpha_j / (1 - alpha_j)``, an acceptance earns
    ``alpha_delta``.  The level is capped at ``W / (1 + W)`` so the wealth cannot go
    negative; with ``w0 + (number of acceptances) * alpha_delta <= 1`` the cap never binds.

    Parameters
    ----------
    w0 : float, default 0.0475
        Initial alpha-wealth ``W(0)`` (split between streams in a multi-stream search).
        The default is ``alpha_delta * (1 - alpha_delta)``, i.e. ``eta = 1 - alpha`` in
        Foster and Stine's ``mFDR_eta``.
    alpha_delta : float, default 0.05
        The payout ``omega`` of an acceptance, in (0, 1); also the mFDR level controlled.

    Examples
    --------
    >>> from streamreg.policies import FosterStine
    >>> FosterStine(w0=0.05, alpha_delta=0.05)
    foster-stine(w0=0.05, alpha_delta=0.05)
    """

    name = "foster-stine"
    OPTION_KINDS = {"w0": (NUMBER,), "alpha_delta": (NUMBER,)}

    def __init__(self, w0: float = 0.0475, alpha_delta: float = 0.05):
        if not (isinstance(w0, (int, float, np.floating)) and math.isfinite(w0)):
            raise ValueError(f"w0 must be a finite number, got {w0!r}")
        if w0 <= 0:
            raise ValueError(f"w0 must be positive, got {w0!r}")
        check_wealth_budget(w0)
        if not (isinstance(alpha_delta, (int, float, np.floating)) and 0 < alpha_delta < 1):
            raise ValueError(f"alpha_delta must lie in (0, 1), got {alpha_delta!r}")
        self.w0 = float(w0)
        self.alpha_delta = float(alpha_delta)

    def _reset(self) -> None:
        self._w = self.w0 * self.share
        self._last = 0  # k*, the test index of the last acceptance (0: none yet)

    @property
    def wealth(self) -> float:
        return self._w

    def plan(self, outcomes: TestOutcomes) -> Plan:
        m = len(outcomes)
        levels, wealths, _ = _walk(self._w, 1 + self.n_tested + 1 - self._last, m)
        level = np.array(levels, dtype=float)
        wealth = np.array(wealths, dtype=float)
        accept = np.zeros(m, dtype=bool)
        if m and level.max() > 0:
            with np.errstate(divide="ignore"):
                log_level = np.log(level)
            # exact p-values only where a candidate could reach its own level
            accept = outcomes.log_p_screened(log_level) <= log_level
        return Plan(accept=accept, level=level, wealth=wealth)

    def record(self, outcomes: TestOutcomes, n: int, last_accepted: bool) -> None:
        if n == 0:
            return
        n_failed = n - 1 if last_accepted else n
        _, _, w = _walk(self._w, 1 + self.n_tested + 1 - self._last, n_failed, keep=False)
        self.n_tested += n
        if last_accepted:
            w = w + self.alpha_delta
            self._last = self.n_tested
            self.n_accepted += 1
        self._w = w

    def parameters(self) -> dict:
        return {"w0": self.w0, "alpha_delta": self.alpha_delta}

    def guarantee(self) -> str:
        eta = self.w0 / self.alpha_delta
        return (
            f"mFDR_eta = E[V]/(E[R] + {eta:g}) <= {self.alpha_delta:g} (V false, R all "
            "selections; Foster and Stine 2008), valid when each null p-value is super-uniform "
            "given the past tests. Streamwise p-values come from nested fits to one response "
            "and are not independent, so this is approximate here."
        )
