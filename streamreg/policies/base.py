"""The policy interface: how a wealth (or threshold) rule plugs into the search.

A policy sees tests one at a time in a fixed order and answers "accept?" for each.  To
let the search work on whole blocks of candidates at BLAS speed, a policy describes what
it *would* do over the next ``m`` tests if none of them were accepted (:meth:`plan`).
The search then finds the first acceptance in the block, tells the policy what happened
(:meth:`record`) and plans again from there.  Because a rule's state changes only through
:meth:`record`, this gives exactly the decisions of the one-at-a-time definition.

Writing a new rule means subclassing :class:`Policy` and implementing ``plan``,
``record``, ``spawn``, ``parameters`` and ``guarantee``; the search needs nothing else.

What the results report about a rule goes through :class:`SelectionRule`, which every
:class:`Policy` and every search method with its own loop implements.  A stream's starting
wealth is the rule's own :attr:`Policy.wealth` right after :meth:`Policy.start`, read by the
search, so a new rule's parameters may have any names.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from functools import partial
from typing import TYPE_CHECKING, ClassVar, Protocol

import numpy as np

from ..outcomes import TestOutcomes

if TYPE_CHECKING:
    import pandas as pd


#: a rule's levels and wealth over its next ``n`` tests, all rejected: ``schedule(n)``
Schedule = Callable[[int], tuple[np.ndarray, np.ndarray]]


class Plan:
    """What a policy would do over a block of tests if it accepted none of them.

    ``accept[i]`` is True where test ``i`` would be accepted *given that tests
    ``0..i-1`` were all rejected*; only the first True is acted upon.  ``level`` is the
    nominal test level at each position (reported in the history) and ``wealth`` the
    wealth after each test under rejection.

    A rule may give ``schedule`` instead of the two arrays: a function of ``n`` returning
    the first ``n`` levels and wealths as new arrays.  The search then computes them only
    for the tests it reports, and for a run of rejections only when the history is read,
    after the rule has moved on: so the schedule must hold the rule's state as it was at
    the plan (by value, as :class:`~streamreg.policies.AlphaInvesting` does), never read
    the rule's attributes when called.  ``prefix``: the schedule's first values, if the
    rule computed them to decide.

    Parameters
    ----------
    accept : numpy.ndarray of bool
        Where each test would be accepted, the earlier ones of the block rejected.
    level, wealth : numpy.ndarray, optional
        The level of each test and the wealth after it under rejection; give both, or
        ``schedule``.
    schedule : callable, optional
        ``schedule(n)`` returns the first ``n`` levels and wealths as new arrays.
    prefix : tuple of numpy.ndarray, optional
        The schedule's first levels and wealths, when the rule computed them to decide.

    Examples
    --------
    >>> import numpy as np
    >>> from functools import partial
    >>> from streamreg.policies import Plan
    >>> plan = Plan(accept=np.array([False, True, True]), level=np.full(3, 0.01),
    ...             wealth=np.array([0.04, 0.03, 0.02]))
    >>> int(np.argmax(plan.accept))  # the search acts on the first acceptance only
    1
    >>> def spend(w, n):  # a fixed level of 0.01 from wealth w
    ...     return np.full(n, 0.01), w - 0.01 * np.arange(1, n + 1)
    >>> lazy = Plan(accept=np.zeros(3, dtype=bool), schedule=partial(spend, 0.05))
    >>> lazy.head(2)[1]
    array([0.04, 0.03])
    """

    __slots__ = ("_level", "_prefix", "_schedule", "_wealth", "accept")

    def __init__(self, accept: np.ndarray, level: np.ndarray | None = None, wealth: np.ndarray | None = None, *,
                 schedule: Schedule | None = None, prefix: tuple[np.ndarray, np.ndarray] | None = None):
        if schedule is None and (level is None or wealth is None):
            raise TypeError("a Plan needs level and wealth arrays, or a schedule")
        self.accept = accept
        self._level, self._wealth, self._schedule = level, wealth, schedule
        # the schedule's first values if the rule computed them to decide (saves a call in head)
        self._prefix = prefix

    def __repr__(self) -> str:
        if self._schedule is not None and self._level is None:
            return f"Plan(accept={self.accept!r}, schedule={self._schedule!r})"
        return f"Plan(accept={self.accept!r}, level={self._level!r}, wealth={self._wealth!r})"

    def _arrays(self) -> tuple[np.ndarray, np.ndarray]:
        if self._level is None or self._wealth is None:
            assert self._schedule is not None
            self._level, self._wealth = self._schedule(len(self.accept))
        return self._level, self._wealth

    @property
    def level(self) -> np.ndarray:
        return self._arrays()[0]

    @property
    def wealth(self) -> np.ndarray:
        return self._arrays()[1]

    def head(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        """Levels and wealths of the first ``n`` tests, as new arrays.

        Parameters
        ----------
        n : int
            How many tests.

        Returns
        -------
        level, wealth : numpy.ndarray
            The first ``n`` levels and the wealth after each.
        """
        if self._level is None and self._schedule is not None:
            if self._prefix is not None and len(self._prefix[0]) >= n:
                return self._prefix[0][:n].copy(), self._prefix[1][:n].copy()
            return self._schedule(n)
        level, wealth = self._arrays()
        return level[:n].copy(), wealth[:n].copy()

    def head_later(self, n: int) -> Callable[[], tuple[np.ndarray, np.ndarray]] | None:
        """:meth:`head` ``(n)`` as a function to call later, when the plan has a schedule.

        Parameters
        ----------
        n : int
            How many tests.

        Returns
        -------
        callable or None
            The deferred :meth:`head`; None when the plan holds arrays (take :meth:`head` now).
        """
        if self._level is None and self._schedule is not None:
            return partial(self._schedule, n)
        return None


class SelectionRule(Protocol):
    """What the results layer reads from the rule behind a selection.

    A :class:`Policy` is one; so are stepwise, grafting and BP-SFS.  The starting wealth
    of each stream is not read from the rule but from the search
    (``SearchResult.initial_wealth``).
    """

    #: short name, as in ``method=``
    name: str

    def describe(self) -> str:
        """``name(param=value, ...)``, for the summary."""
        ...

    def guarantee(self) -> str:
        """What the rule controls and under which assumption, in one or two sentences."""
        ...

    def parameters(self) -> dict:
        """The constructor arguments."""
        ...

    def false_selection_estimate(self, n_selected: int, final_wealth: float) -> float | None:
        """A plug-in estimate of the number of false selections, or None when the rule has none."""
        ...


class Policy(ABC):
    """Base class of selection rules.

    Subclasses store their parameters in ``__init__`` (and nothing else, as in
    scikit-learn), checking their values there; the mutable state lives in attributes set by
    :meth:`start`.  A rule may declare the kinds of its parameters in ``OPTION_KINDS``
    (:mod:`streamreg.validators`): ``method="name", w0="0.1"`` is then refused with a
    message naming the rule, and the command line converts its flags by them.

    Examples
    --------
    A new rule implements ``_reset``, ``plan``, ``record``, ``parameters`` and
    ``guarantee``; here every test runs at one fixed level (no wealth):

    >>> import numpy as np, streamreg as sr
    >>> from streamreg.policies import Plan, Policy
    >>> class FixedLevel(Policy):
    ...     name = "fixed-level"
    ...     def __init__(self, level=0.001):
    ...         self.level = level
    ...     def _reset(self):
    ...         pass
    ...     def plan(self, outcomes):
    ...         level = np.full(len(outcomes), self.level)
    ...         return Plan(accept=outcomes.pvalue < level, level=level, wealth=np.full(len(outcomes), np.nan))
    ...     def record(self, outcomes, n, last_accepted):
    ...         self.n_tested += n
    ...         self.n_accepted += int(last_accepted)
    ...     def parameters(self):
    ...         return {"level": self.level}
    ...     def guarantee(self):
    ...         return "Each test at a fixed level: no error rate over the stream is controlled."
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(80, 20)); y = X[:, 3] + 0.5 * rng.normal(size=80)
    >>> fit = sr.select(y, X, method=FixedLevel())
    >>> fit.selected_terms, fit.policy_description
    (['x3'], 'fixed-level(level=0.001)')
    """

    #: short name used in summaries and by ``method=`` strings
    name: str = "policy"
    #: the kinds of the constructor's keyword parameters (``{"w0": (NUMBER,)}``); the
    #: constructor checks their values
    OPTION_KINDS: ClassVar[Mapping[str, tuple[str, ...]]] = {}

    def start(self, *, n_obs: int, share: float = 1.0, n_candidates: int | None = None,
              horizon: int | None = None) -> None:
        """Reset the state before a search.

        Parameters
        ----------
        n_obs : int
            Rows of the data (serves rules that need it, e.g. the BIC penalty).
        share : float, default 1.0
            The fraction of the initial wealth given to this instance: a multi-stream
            search gives each of k streams ``1/k``.
        n_candidates : int, optional
            Candidates of the stream; None when the stream may be infinite (serves rules
            that need it, e.g. the RIC penalty).
        horizon : int, optional
            Bound on the number of tests this instance will see (every pass of the stream,
            at most ``max_tests``), kept as ``stream_horizon``; it defaults to
            ``n_candidates``, and rules with ``spending="uniform"`` spread their wealth
            over it.
        """
        self.n_obs = n_obs
        self.share = share
        self.n_candidates = n_candidates
        self.stream_horizon = n_candidates if horizon is None else horizon
        self.n_tested = 0
        self.n_accepted = 0
        self._reset()

    @abstractmethod
    def _reset(self) -> None:
        """Set the rule's own state (wealth, counters) from its parameters."""

    @property
    def wealth(self) -> float:
        """Current wealth (``nan`` for rules without one)."""
        return float("nan")

    def begin_pass(self) -> None:
        """Told by the search when the stream starts re-offering its rejected candidates (a new
        pass); rules whose spending follows the passes (``spending="per-pass"``) re-plan here."""
        return  # most rules' levels do not depend on the passes

    def priority(self) -> float:
        """How much this stream deserves the next test (Dhillon, Foster and Ungar 2010, Alg. 2: ``w / i``).

        Rules without a wealth share tests evenly: fewest tests first.

        Returns
        -------
        float
            The wealth over the number of the next test; minus the tests done for rules
            without a wealth.
        """
        w = self.wealth
        if np.isnan(w):
            return -float(self.n_tested)
        return w / (self.n_tested + 1)

    def run_priorities(self, plan: Plan) -> np.ndarray:
        """Priority before tests 1, 2, ... of a planned block, all earlier ones rejected.

        Parameters
        ----------
        plan : Plan
            What this rule planned for the block (:meth:`plan`).

        Returns
        -------
        numpy.ndarray
            ``len(plan.wealth) - 1`` priorities, as :meth:`priority` would give them after
            each of the block's tests but the last, had all been rejected.
        """
        t = np.arange(1, len(plan.wealth), dtype=float)
        w = plan.wealth[:-1]
        if np.isnan(self.wealth):
            return -(self.n_tested + t)
        return w / (self.n_tested + 1 + t)

    @abstractmethod
    def plan(self, outcomes: TestOutcomes) -> Plan:
        """Decisions over ``outcomes`` in order, assuming none is accepted.

        Parameters
        ----------
        outcomes : TestOutcomes
            The block's candidate tests in order (p-values, statistics, degrees of freedom).

        Returns
        -------
        Plan
            Where each test would be accepted, given that the earlier ones of the block
            were rejected, with the levels and the wealth under rejection.
        """

    @abstractmethod
    def record(self, outcomes: TestOutcomes, n: int, last_accepted: bool) -> None:
        """Advance the state over the first ``n`` of ``outcomes``.

        Parameters
        ----------
        outcomes : TestOutcomes
            The block that was planned (:meth:`plan`).
        n : int
            How many of its tests the search acted on.
        last_accepted : bool
            Whether the ``n``-th was accepted; all the others were rejected.
        """

    def spawn(self) -> Policy:
        """A fresh, unstarted copy with the same parameters (one per stream).

        Returns
        -------
        Policy
            A new instance of the same class.
        """
        return type(self)(**self.parameters())

    @abstractmethod
    def parameters(self) -> dict:
        """The constructor arguments, for summaries and :meth:`spawn`."""

    @abstractmethod
    def guarantee(self) -> str:
        """One or two sentences: what the rule controls and under which assumption."""

    def false_selection_estimate(self, n_selected: int, final_wealth: float) -> float | None:
        """Plug-in estimate ``payout * k + w0 - W_final`` of the false selections, or None.

        The default serves the investing rules, whose parameters name the initial wealth
        ``w0`` and the payout ``alpha_delta`` (``w_delta`` for information-investing):
        with ``k`` selections the wealth left would be ``w0 + payout * k`` had every test
        been free, so what was spent estimates the false selections.  Rules with no such
        parameters return None; a rule with another bookkeeping overrides this.

        Parameters
        ----------
        n_selected : int
            Terms selected (``k``).
        final_wealth : float
            Wealth left, summed over the streams.
        """
        params = self.parameters()
        payout = params.get("alpha_delta") or params.get("w_delta")
        if payout is None or "w0" not in params:
            return None
        return payout * n_selected + params["w0"] - final_wealth

    def annotate(self, history: pd.DataFrame) -> pd.DataFrame:
        """The history as this rule explains its decisions (default: unchanged).

        A rule whose comparison is not ``pvalue < level`` adds the columns it compares.

        Parameters
        ----------
        history : pandas.DataFrame
            The search's history (one row per candidate examined); not modified.

        Returns
        -------
        pandas.DataFrame
            The history, with the rule's own columns when it has any.
        """
        return history

    def describe(self) -> str:
        """``name(param=value, ...)`` for summaries."""
        args = ", ".join(f"{k}={v}" for k, v in self.parameters().items())
        return f"{self.name}({args})"

    def __repr__(self) -> str:
        return self.describe()
