"""The streamwise search: candidates tested one at a time, in stream order, under a wealth rule.

One stream is Fig. 4 of Zhou et al. (2006); several are Alg. 2 of Dhillon, Foster and Ungar
(2010) (each stream its own
policy with an equal share of the initial wealth; the next test goes to the stream with
the largest priority ``w_j / i_j``, ties to the lowest index).

Each stream's pending candidates are scored as one block.  The policy then says where in
that block the first acceptance would fall if everything before it were rejected, and
how long the stream keeps the turn; everything up to that point is recorded at once.
Only an acceptance changes the model, and then the unconsumed candidates are rescored,
so the decisions are those of the one-at-a-time definition for any block size.  The loop's
steps are :class:`~streamreg.search.streamwise_run.StreamwiseRun`'s methods.

:class:`Streamwise` is this driver as a :class:`~streamreg.search.method.SearchMethod`;
:func:`streamwise_search` runs it with keyword options.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..models.protocol import ModelState
from ..policies.base import Policy
from ..progress import SearchProgress
from ..streams.base import Stream
from ..streams.passes import arrange_streams
from .options import HISTORY_MODES, SearchOptions
from .result import SearchResult
from .streamwise_run import EXHAUSTED_SHARE, SEPARATION_STOP, StreamwiseRun

__all__ = ["EXHAUSTED_SHARE", "SEPARATION_STOP", "SearchResult", "Streamwise", "streamwise_search"]


class Streamwise:
    """The streamwise search under a policy, as ``method=`` resolves a wealth rule.

    Parameters
    ----------
    policy : Policy
        A template; each stream gets ``policy.spawn()`` with a ``1/k`` wealth share.

    Examples
    --------
    >>> from streamreg.policies import AlphaInvesting
    >>> Streamwise(AlphaInvesting(w0=0.05, alpha_delta=0.05)).rule
    alpha-investing(w0=0.05, alpha_delta=0.05)
    """

    history_modes: tuple[str, ...] = HISTORY_MODES
    multipass = True
    reads_lazily = True
    #: shadows candidates with decoys (``decoys=``, :mod:`.decoys`)
    takes_decoys = True

    def __init__(self, policy: Policy):
        self.policy = policy

    @property
    def name(self) -> str:
        return self.policy.name

    @property
    def rule(self) -> Policy:
        """The policy, whose description and guarantee the results report."""
        return self.policy

    def spawn(self) -> Streamwise:
        return Streamwise(self.policy.spawn())

    def check_family(self, family: Any) -> None:
        return None  # every model state serves every policy

    def run(self, state: ModelState, streams: Sequence[Stream], *, fixed: np.ndarray | None = None,
            family: Any = None, options: SearchOptions) -> SearchResult:
        """Arrange the streams (``multistream``, ``passes``) and search them; see :func:`streamwise_search`."""
        arranged = arrange_streams(list(streams), multistream=options.multistream, passes=options.passes,
                                   lazy_passes=options.lazy_passes)
        result = _search(state, arranged, self.policy, options)
        result.passes = max(getattr(s, "passes", 1) for s in arranged)  # lazy streams may get fewer
        if result.decoys is not None:
            result.decoys.passes = result.passes
        return result

    def __repr__(self) -> str:
        return f"Streamwise({self.policy!r})"


def streamwise_search(
    model: ModelState,
    streams: list[Stream],
    policy: Policy,
    *,
    block_size: int = 512,
    max_tests: int | None = None,
    max_selected: int | None = None,
    time_budget: float | None = None,
    verbose: bool | int = False,
    history: str = "full",
) -> SearchResult:
    """Run the streamwise search of ``streams`` against ``model`` under ``policy``.

    Parameters
    ----------
    model : ModelState
        The current fit; updated in place as terms are accepted.
    streams : list of Stream
        Searched as given (names must be unique).
    policy : Policy
        A template; each stream gets ``policy.spawn()`` with a ``1/k`` wealth share.
    block_size : int
        Candidates scored together at first; a stream without acceptances gets blocks
        twice as large each time (up to about 64 MB).  Affects speed only, never the
        decisions.
    max_tests, max_selected, time_budget
        Stopping rules for long or infinite streams (tests, selected terms, seconds).
    verbose : bool or int
        A progress bar on stderr (tests, selected terms, total wealth): ``True`` refreshes it
        at most ten times a second, an integer every ``verbose`` tests.
    history : {"full", "none"}
        ``"full"``: one history row per candidate examined (about 80 bytes each).
        ``"none"``: only the rows of accepted and refused candidates, so memory does not
        grow with the number of tests on long or infinite streams.  The selected table,
        the per-stream counts and the decisions are the same either way.

    The options are validated by :class:`~streamreg.search.options.SearchOptions`.
    """
    options = SearchOptions(block_size=block_size, max_tests=max_tests, max_selected=max_selected,
                            time_budget=time_budget, verbose=verbose, history=history)
    return _search(model, streams, policy, options)


def _search(model: ModelState, streams: Sequence[Stream], policy: Policy, options: SearchOptions) -> SearchResult:
    """The loop (options already validated), with its progress bar (``verbose``), closed however it ends."""
    sizes = [s.horizon for s in streams]  # every pass counts: re-offers are tests too
    total = None if any(m is None for m in sizes) else sum(m for m in sizes if m is not None)
    if total is not None and options.max_tests is not None:
        total = min(total, options.max_tests)
    with SearchProgress(options.verbose, total=total, desc=policy.name) as bar:
        return StreamwiseRun(model, streams, policy, options, bar).search()
