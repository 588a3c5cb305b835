"""What every search method is run with: :class:`SearchOptions`, validated when built.

The option layer (:mod:`streamreg.config`) builds one from the user's options; the drivers
check no option themselves, and a direct call of a driver with a bad value is refused here
by name, as the entry points refuse it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..streams.decoys import DecoyOptions
from ..streams.passes import passes_for
from ..validators import _got, _is_int, _is_real, check_bool, check_count, check_integer

#: the stopping rules of a search, in the order they are named in messages
STOPPING_RULES = ("max_tests", "max_selected", "time_budget")

#: values of ``history=``: one row per candidate, or only the accepted and refused candidates' rows
HISTORY_MODES = ("full", "none")


@dataclass(frozen=True)
class SearchOptions:
    """What every search method is run with, validated (and normalised) when built.

    ``block_size`` (speed only), the stopping rules ``max_tests``, ``max_selected`` and
    ``time_budget`` (``math.inf`` is stored as None: no limit), ``verbose``, ``history``,
    ``multistream`` and ``passes``, with the meanings of :func:`~streamreg.streamreg`.  A
    method applies what concerns it; the option layer refuses a ``history`` or ``passes``
    the method does not take (its :class:`~streamreg.search.method.Capabilities`).

    Examples
    --------
    >>> SearchOptions(block_size=0)
    Traceback (most recent call last):
        ...
    ValueError: block_size must be a positive integer, got 0
    >>> SearchOptions(max_tests=math.inf).max_tests is None
    True
    """

    block_size: int = 512
    max_tests: int | None = None
    max_selected: int | None = None
    time_budget: float | None = None
    verbose: bool | int = False
    history: str = "full"
    multistream: bool = True
    passes: int = 1
    #: passes over streams that do not hold their candidates (generators, Dask arrays,
    #: interactions; ``Stream.holds_candidates``), whose re-offers would have to keep every
    #: rejected candidate's values; None: ``passes``
    lazy_passes: int | None = None
    #: decoys shadowing the candidates (``decoys=``, ``decoy_fdr=``), validated by
    #: :func:`~streamreg.streams.decoys.check_decoys`; None: none
    decoys: DecoyOptions | None = None

    def __post_init__(self) -> None:
        checked = {
            "block_size": check_count("block_size", self.block_size, allow_none=False),
            "max_tests": check_count("max_tests", self.max_tests, minimum=0, allow_inf=True),
            "max_selected": check_count("max_selected", self.max_selected, minimum=0, allow_inf=True),
            "time_budget": check_time_budget(self.time_budget),
            "verbose": check_verbose(self.verbose),
            "history": check_history(self.history),
            "multistream": check_bool("multistream", self.multistream),
            "passes": check_integer("passes", self.passes),
            "lazy_passes": None if self.lazy_passes is None else check_integer("lazy_passes", self.lazy_passes),
        }
        for name, value in checked.items():
            object.__setattr__(self, name, value)  # frozen: normalised once, here

    def passes_for(self, holds_candidates: bool) -> int:
        """The passes over a stream that does (or does not) hold its candidates in memory."""
        return passes_for(holds_candidates, self.passes, self.lazy_passes)

    @property
    def draws_decoys(self) -> bool:
        """Whether the search draws decoys at random (``decoys="permuted"`` or ``"knockoff"``)."""
        return self.decoys is not None and self.decoys.drawn

    def seeded(self, seed: Any) -> SearchOptions:
        """These options with the decoys drawn from ``seed``, the run's seed (unchanged without drawn decoys)."""
        if self.decoys is None or not self.decoys.drawn:
            return self
        return replace(self, decoys=self.decoys.seeded(seed))

    @property
    def has_stopping_rule(self) -> bool:
        """True when the search stops by itself (a finite test, selection or time limit)."""
        return any(getattr(self, r) is not None for r in STOPPING_RULES)


def check_time_budget(value: Any) -> float | None:
    """A positive number of seconds, or None (also for ``math.inf``: no limit)."""
    if value is None or (_is_real(value) and value == math.inf):
        return None
    if not _is_real(value):
        raise TypeError(f"time_budget must be a number of seconds or None, got {_got(value)}")
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"time_budget must be a positive number of seconds, got {value!r}")
    return float(value)


def check_verbose(value: Any) -> bool | int:
    """True, False or a number of tests between progress reports."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if not _is_int(value):
        raise TypeError(f"verbose must be True, False or a number of tests between reports, got {_got(value)}")
    if value < 0:
        raise ValueError(f"verbose must be a non-negative number of tests, got {value!r}")
    return int(value)


def check_history(history: object) -> str:
    """``"full"`` or ``"none"`` (whether the method keeps it is checked with the method)."""
    if not isinstance(history, str):
        raise TypeError(f"history must be 'full' or 'none', got {_got(history)}")
    if history not in HISTORY_MODES:
        raise ValueError(f"history must be 'full' or 'none', got {history!r}")
    return history
