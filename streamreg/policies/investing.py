"""Alpha-investing and information-investing (Zhou et al. 2006, Fig. 4 and section 4).

Both rules bid ``eps_i = w_i / (2 i)`` of the current wealth ``w_i`` on test ``i``, lose
the bid when the candidate is rejected and earn a payout when it is accepted; they differ
only in the acceptance test (a p-value against the bid, or a description-length saving).
Under rejection the wealth follows ``w_{i+1} = w_i (1 - 1/(2i))``, a product that can be
written down for a whole block at once (:func:`rejection_schedule`), on the log scale so
that levels of 1e-10 and below stay exact.
"""
from __future__ import annotations

import math
from abc import abstractmethod
from collections.abc import Callable
from functools import partial

import numpy as np
import pandas as pd

from ..outcomes import TestOutcomes
from ..validators import FLAG, NUMBER, TEXT
from .base import Plan, Policy
from .online_common import check_wealth_budget
from .sequences import HEDGE_FRONT, INVESTING_SPENDING, SpendingRule, check_spending


def bid_divisor(idx: np.ndarray | float, horizon: int | None, spending: str = "uniform") -> np.ndarray | float:
    """What test ``idx`` (1-based) divides the wealth by to bid.

    ``2 idx`` (Zhou et al. 2006, front-loaded) when ``horizon`` is None.  With a known
    horizon H, ``"uniform"``: ``H - idx + 2``, the wealth spread evenly over the tests left, so
    that under rejection every bid is ``w0 / (H + 1)`` and the last test still leaves half its
    wealth; ``"hedged"``: the fraction ``h / (2 idx) + (1 - h) / (H - idx + 2)`` with
    ``h = HEDGE_FRONT`` (0.1), so that signals early in the stream (where users put the terms
    they believe in) find front-loaded bids.  The fractions compound: over a stream of 3e5
    tests the front-loaded part takes about half the wealth (``prod (1 - 0.05 / i)``), which
    cost 0.11 of power on 10 signals at random places in 1e5 candidates (bench_power D).
    """
    if horizon is None:
        return 2.0 * np.asarray(idx, dtype=float) if isinstance(idx, np.ndarray) else 2.0 * idx
    left = np.maximum(horizon - np.asarray(idx, dtype=float) + 2.0, 2.0) if isinstance(idx, np.ndarray) \
        else max(horizon - idx + 2.0, 2.0)
    if spending == "hedged":
        return 1.0 / (HEDGE_FRONT * 0.5 / idx + (1.0 - HEDGE_FRONT) / left)
    return left  # "uniform", and "per-pass" with idx and horizon counted within the pass


def rejection_schedule(log_w: float, n_tested: int, m: int, horizon: int | None = None,
                       spending: str = "uniform") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Log-bids, bids and wealth after each of the next ``m`` tests, all rejected, from
    log-wealth ``log_w`` after ``n_tested`` tests (bids as :func:`bid_divisor`).  The first
    ``k`` entries do not depend on ``m`` (the running sum is sequential), so a prefix may be
    computed on its own."""
    idx = n_tested + 1 + np.arange(m, dtype=float)
    divisor = bid_divisor(idx, horizon, spending)
    log_keep = np.log1p(-1.0 / divisor)  # wealth factor of a rejection at test idx
    log_w_before = log_w + np.concatenate(([0.0], np.cumsum(log_keep[:-1])))
    log_bid = log_w_before - np.log(divisor)
    return log_bid, np.exp(log_bid), np.exp(log_w_before + log_keep)


def _bids_and_wealth(state: tuple[float, int, int | None, str], n: int) -> tuple[np.ndarray, np.ndarray]:
    """Bids and wealth-after of the next ``n`` tests, all rejected, from ``(log_w, n_tested, horizon,
    spending)``."""
    log_w, n_tested, horizon, spending = state
    return rejection_schedule(log_w, n_tested, n, horizon, spending)[1:]


class _Investing(SpendingRule, Policy):
    """Shared bookkeeping of the two investing rules."""

    @abstractmethod
    def _initial_wealth(self) -> float:
        """w0 before the stream's share is applied."""

    @abstractmethod
    def _payout(self) -> float:
        """Wealth earned by an acceptance."""

    def _charges_bid_on_accept(self) -> bool:
        """Whether an acceptance also costs its bid (alpha-investing: yes)."""
        return True

    #: spending: ``"decaying"`` (bids ``w / (2 i)``), ``"uniform"`` (the wealth spread over the
    #: horizon) or ``"hedged"`` (a tenth of each bid front-loaded as ``w / (2 i)``, the rest uniform)
    _spread_word = "Bids"

    def _reset(self) -> None:
        self._log_w = math.log(self._initial_wealth() * self.share)
        self._horizon = self.stream_horizon if self.spending != "decaying" and self.stream_horizon else None
        # per-pass spending counts its tests within the pass: the first pass is the stream's
        # candidates (at most the horizon, which max_tests caps), a later one what it re-offers
        self._pass_start = 0
        self._pass_rejected = 0
        if self.spending == "per-pass" and self._horizon is not None:
            self._horizon = min(self._horizon, self.n_candidates or self._horizon)

    def begin_pass(self) -> None:
        """``"per-pass"`` spending: the wealth left is spread evenly over the candidates the new
        pass re-offers, which are the previous pass's rejected ones."""
        if self.spending == "per-pass" and self._horizon is not None:
            self._horizon = max(self._pass_rejected, 1)
            self._pass_start = self.n_tested
            self._pass_rejected = 0

    @property
    def _in_pass(self) -> int:
        """Tests made so far in the pass whose spending the bids follow."""
        return self.n_tested - self._pass_start

    @property
    def wealth(self) -> float:
        return math.exp(self._log_w)

    def _first_log_bid(self) -> float:
        """A bound on the log-bids of a run of rejections, raised by far more than any rounding
        difference from the schedule's own values, so that it is at least every bid the
        schedule gives.  Decaying and uniform bids never rise along a run of rejections, so the
        next test's bid is the bound; hedged bids do rise towards the horizon's end (their
        uniform part's fraction grows to 1/2), so their bound is the wealth times the largest
        fraction any later test can bid."""
        if self.spending == "hedged" and self._horizon is not None:
            fraction = HEDGE_FRONT / (2.0 * (self.n_tested + 1)) + (1.0 - HEDGE_FRONT) / 2.0
            first = self._log_w + math.log(fraction)
        else:
            first = self._log_w - math.log(bid_divisor(self._in_pass + 1, self._horizon, self.spending))
        return first + 1e-12 * (1.0 + abs(first))

    @abstractmethod
    def _accept(self, outcomes: TestOutcomes, log_bids: Callable[[int], np.ndarray]) -> np.ndarray:
        """Acceptance at each position; ``log_bids(n)`` gives the first n log-bids of the
        schedule (the bids fall along it, so the first is the largest)."""

    def plan(self, outcomes: TestOutcomes) -> Plan:
        # the schedule is a pure function of the state now: the levels and wealths of a run
        # of rejections are computed only if the history is read
        state = (self._log_w, self._in_pass, self._horizon, self.spending)
        computed: list[tuple[np.ndarray, np.ndarray]] = []

        def log_bids(n: int) -> np.ndarray:
            log_bid, bid, wealth = rejection_schedule(state[0], state[1], n, state[2], state[3])
            computed.append((bid, wealth))
            return log_bid

        accept = self._accept(outcomes, log_bids)
        return Plan(accept=accept, schedule=partial(_bids_and_wealth, state), prefix=computed[-1] if computed else None)

    def record(self, outcomes: TestOutcomes, n: int, last_accepted: bool) -> None:
        if n == 0:
            return
        n_rejected = n - 1 if last_accepted else n
        if n_rejected:
            idx = self._in_pass + 1 + np.arange(n_rejected, dtype=float)
            self._log_w += float(np.sum(np.log1p(-1.0 / bid_divisor(idx, self._horizon, self.spending))))
            self.n_tested += n_rejected
            self._pass_rejected += n_rejected
        if last_accepted:
            w = math.exp(self._log_w)
            bid = w / bid_divisor(self._in_pass + 1, self._horizon, self.spending) if self._charges_bid_on_accept() else 0.0
            self._log_w = math.log(w - bid + self._payout())
            self.n_tested += 1
            self.n_accepted += 1


class AlphaInvesting(_Investing):
    """Alpha-investing of Zhou, Foster, Stine and Ungar (2006), Fig. 4.

    Test ``i`` (counting every tested candidate) is run at level
    ``alpha_i = w_i / (2 i)``; the candidate enters iff ``p_i < alpha_i``.  A rejection
    costs ``alpha_i``; an acceptance costs ``alpha_i`` and pays ``alpha_delta``.

    Parameters
    ----------
    w0 : float, default 0.5
        Initial wealth (split evenly between streams in a multi-stream search).
    alpha_delta : float, default 0.5
        Payout earned by each acceptance; also the mFDR level controlled.
    spending : {"decaying", "uniform", "hedged"}, default "decaying"
        ``"decaying"`` bids ``w_i / (2 i)``, front-loading the wealth on the first tests and
        those right after an acceptance.  ``"uniform"`` bids ``w_i / (H - i + 2)`` on a
        stream of known horizon ``H`` (candidates times ``passes``, at most ``max_tests``):
        the wealth spread evenly over the tests left, ``w0 / (H + 1)`` each until an
        acceptance.  ``"hedged"`` bids ``w (0.1 / (2 i) + 0.9 / (H - i + 2))``.  A stream of unknown
        length keeps the decaying bids.

    Examples
    --------
    >>> from streamreg.policies import AlphaInvesting
    >>> AlphaInvesting(w0=0.05, alpha_delta=0.05)
    alpha-investing(w0=0.05, alpha_delta=0.05)
    """

    name = "alpha-investing"
    OPTION_KINDS = {"w0": (NUMBER,), "alpha_delta": (NUMBER,), "spending": (TEXT,)}

    def __init__(self, w0: float = 0.5, alpha_delta: float = 0.5, spending: str = "decaying"):
        if not (w0 > 0 and math.isfinite(w0)):
            raise ValueError(f"w0 must be a positive number, got {w0!r}")
        check_wealth_budget(w0)
        if not 0 < alpha_delta < 1:
            raise ValueError(f"alpha_delta must lie in (0, 1), got {alpha_delta!r}")
        self.w0 = w0
        self.alpha_delta = alpha_delta
        self.spending = check_spending(spending, allowed=INVESTING_SPENDING)

    def _initial_wealth(self) -> float:
        return self.w0

    def _payout(self) -> float:
        return self.alpha_delta

    def _accept(self, outcomes: TestOutcomes, log_bids: Callable[[int], np.ndarray]) -> np.ndarray:
        accept = np.zeros(len(outcomes), dtype=bool)
        if len(outcomes) == 0:
            return accept
        # exact p-values only where a candidate could beat the run's first (largest) bid;
        # the others' bids are computed only up to the last such candidate
        log_p = outcomes.log_p_screened(self._first_log_bid())
        could = np.flatnonzero(~np.isnan(log_p))
        if could.size:
            accept[could] = log_p[could] < log_bids(int(could[-1]) + 1)[could]
        return accept

    def parameters(self) -> dict:
        out: dict = {"w0": self.w0, "alpha_delta": self.alpha_delta}
        if self.spending != "decaying":
            out["spending"] = self.spending
        return out

    def guarantee(self) -> str:
        eta = self.w0 / self.alpha_delta
        return (
            f"mFDR = E[V]/(E[R] + {eta:g}) <= {self.alpha_delta:g} (V false, R all selections), "
            "valid when each null p-value is super-uniform given the past tests; with no signal in the "
            f"stream, P(any selection) <= w0 = {self.w0:g}. Streamwise p-values "
            "come from nested fits to one response and are not independent, so this is approximate here."
            + self.spending_description()
        )


class InformationInvesting(_Investing):
    """Information-investing (Zhou et al. 2006, section 4): a description-length rule.

    With bid ``eps_i = w_i / (2 i)`` bits, a candidate of ``d`` columns and chi-square
    statistic ``S`` enters iff the bits it saves, ``(S / 2) log2 e``, exceed its cost
    ``log2(1 / eps_i) + d b`` by more than ``w_delta``; equivalently
    ``exp(-S/2) < eps_i 2^-(w_delta + d b)``.  As in the paper's Fig. 2, a rejection costs
    the bid (``w <- w - eps_i``) and an acceptance earns ``w_delta`` without paying the bid
    (``w <- w + w_delta``); ``charge_bid=True`` also charges it (``w - eps_i + w_delta``, the
    alpha-investing update).

    The history shows what the rule compares: ``bits_saved`` against ``bits_needed``
    (``log2(1/eps_i) + w_delta + d b``) and the bid ``eps_i``; its ``level`` column is empty,
    because the rule sets no threshold on the test's p-value.

    Parameters
    ----------
    w0 : float, default 0.5
        Initial wealth in bits.
    w_delta : float, default 0.5
        Bits earned per acceptance.
    coef_bits : float or "bic", default 0
        Bits charged per coefficient: 0 for the optimal code of section 4.3.1, or
        ``"bic"`` for ``0.5 log2 n``.
    charge_bid : bool, default False
        Charge the bid on acceptance too (not in the paper; earlier streamreg versions did).

    Examples
    --------
    >>> from streamreg.policies import InformationInvesting
    >>> pol = InformationInvesting(w0=0.5, w_delta=0.5)
    >>> pol.start(n_obs=32)
    >>> pol.record(None, 1, last_accepted=True)   # accepted at test 1: w = 0.5 + 0.5
    >>> pol.wealth
    1.0
    """

    name = "information-investing"
    OPTION_KINDS = {"w0": (NUMBER,), "w_delta": (NUMBER,), "coef_bits": (NUMBER, TEXT), "charge_bid": (FLAG,)}

    def __init__(self, w0: float = 0.5, w_delta: float = 0.5, coef_bits: float | str = 0.0, *,
                 charge_bid: bool = False):
        if not (w0 > 0 and math.isfinite(w0)):
            raise ValueError(f"w0 must be a positive number, got {w0!r}")
        if not w_delta > 0:
            raise ValueError(f"w_delta must be positive, got {w_delta!r}")
        limit = 2.0 ** (1.0 + w_delta)  # the bid w0 / 2 reaches 2^w_delta: the first candidate enters whatever it is
        if w0 >= limit:
            raise ValueError(f"w0 must be below 2^(1 + w_delta) = {limit:g} bits for information-investing, got "
                             f"{w0!r}: the first bid would pay for any candidate, whatever its statistic")
        if isinstance(coef_bits, str):
            if coef_bits != "bic":
                raise ValueError(f"coef_bits must be a number of bits or 'bic', got {coef_bits!r}")
        elif not coef_bits >= 0:
            raise ValueError(f"coef_bits must be >= 0, got {coef_bits!r}")
        if not isinstance(charge_bid, bool):
            raise ValueError(f"charge_bid must be True or False, got {charge_bid!r}")  # noqa: TRY004 -- an option value
        self.w0 = w0
        self.w_delta = w_delta
        self.coef_bits = coef_bits
        self.charge_bid = charge_bid

    def _initial_wealth(self) -> float:
        return self.w0

    def _payout(self) -> float:
        return self.w_delta

    def _charges_bid_on_accept(self) -> bool:
        return self.charge_bid

    def annotate(self, history: pd.DataFrame) -> pd.DataFrame:
        """The history with the rule's own comparison: bits saved against bits needed.

        Parameters
        ----------
        history : pandas.DataFrame
            The search's history (one row per candidate examined); not modified.

        Returns
        -------
        pandas.DataFrame
            A copy whose ``level`` column is named ``bid``, followed by ``bits_saved`` and
            ``bits_needed``.
        """
        out = history.copy()
        tested = out["test"].notna().to_numpy()
        bid = out["level"].to_numpy(dtype=float)
        # the statistic the rule compared: d F for a d-column least-squares term, whose
        # history column shows F
        df = out["df"].to_numpy(dtype=float)
        stat = out["statistic"].to_numpy(dtype=float) * (df if history.attrs.get("statistic_is_f") else 1.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            saved = np.where(tested, 0.5 * stat * math.log2(math.e), np.nan)
            needed = np.where(tested, np.log2(1.0 / bid) + self.w_delta + df * self.bits_per_coefficient(), np.nan)
        at = out.columns.get_loc("level")
        out = out.drop(columns="level")
        out.insert(at, "bid", bid)
        out.insert(at + 1, "bits_saved", saved)
        out.insert(at + 2, "bits_needed", needed)
        out.insert(at + 3, "level", np.nan)
        return out

    def bits_per_coefficient(self) -> float:
        if self.coef_bits == "bic":
            return 0.5 * math.log2(self.n_obs)
        return float(self.coef_bits)

    def _accept(self, outcomes: TestOutcomes, log_bids: Callable[[int], np.ndarray]) -> np.ndarray:
        accept = np.zeros(len(outcomes), dtype=bool)
        if len(outcomes) == 0:
            return accept
        # -S/2 against the log-bid less the other bits needed (in nats).  The bids fall along
        # the run, so a candidate failing against the first (a bound on every bid, and
        # rounding is monotone) fails against its own: only the others are compared again
        half = -0.5 * outcomes.statistic
        extra = np.broadcast_to((self.w_delta + outcomes.df * self.bits_per_coefficient()) * math.log(2.0), half.shape)
        could = np.flatnonzero(half < self._first_log_bid() - extra)
        if could.size:
            accept[could] = half[could] < log_bids(int(could[-1]) + 1)[could] - extra[could]
        return accept

    def parameters(self) -> dict:
        out = {"w0": self.w0, "w_delta": self.w_delta, "coef_bits": self.coef_bits}
        if self.charge_bid:
            out["charge_bid"] = True
        return out

    def guarantee(self) -> str:
        eta = self.w0 / self.w_delta
        return (
            "Accepting a term of one or two columns implies p < eps_i (P(chi2_d > S) <= exp(-S/2) for "
            "d <= 2); for d >= 3 columns the chi-square tail exceeds exp(-S/2) and only the coef_bits "
            f"charge of d b bits compensates. So the alpha-investing bound E[V]/(E[R] + {eta:g}) <= "
            f"{self.w_delta:g} (mFDR with eta = w0/w_delta = {eta:g}: with eta above 1, weaker than "
            f"E[V]/E[R] <= {self.w_delta:g}) holds approximately, to the accuracy of these tail bounds, "
            "and with streamwise p-values that are not independent."
        )
