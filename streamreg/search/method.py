"""The search-method seam: one interface for every way of searching the streams.

:func:`~streamreg.search.methods.resolve_method` turns ``method=`` into a
:class:`SearchMethod`; the entry points then call its :meth:`~SearchMethod.run` with the
model state, the streams and the validated :class:`~streamreg.options.SearchOptions`, and
report its :attr:`~SearchMethod.rule`.  The streamwise driver under a wealth rule
(:class:`~streamreg.search.streamwise.Streamwise`) is one implementation; stepwise,
grafting and BP-SFS, which bring their own loop, are the others.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..models.protocol import ComparableState
from ..options import SearchOptions
from ..policies.base import SelectionRule
from ..streams.base import Stream
from .result import SearchResult


@runtime_checkable
class SearchMethod(Protocol):
    """A way of selecting terms from candidate streams.

    A class attribute serves for each read-only property.
    """

    @property
    def name(self) -> str:
        """Short name, as in ``method=``."""
        ...

    @property
    def history_modes(self) -> tuple[str, ...]:
        """The values of ``history=`` the method honours (``"none"`` only where the driver
        can drop rows as it goes); the options refuse the others up front."""
        ...

    @property
    def multipass(self) -> bool:
        """Whether ``passes=`` (re-offering rejected candidates) applies."""
        ...

    @property
    def rule(self) -> SelectionRule:
        """What the results report: the wealth rule of a streamwise search, else the method itself."""
        ...

    @property
    def reads_lazily(self) -> bool:
        """Whether the streams are read a block at a time as the search goes.

        False when every candidate is read first (stepwise, grafting with a cross-validated
        lambda): such a method cannot run for ever on an infinite stream.
        """
        ...

    def spawn(self) -> SearchMethod:
        """A fresh copy with the same parameters (a method object is used for one search)."""
        ...

    def check_family(self, family: Any) -> None:
        """Raise ValueError if the method cannot model ``family`` (before any data is read)."""
        ...

    def run(self, state: ComparableState, streams: Sequence[Stream], *, fixed: np.ndarray, family: Any,
            options: SearchOptions) -> SearchResult:
        """Search ``streams`` against ``state`` (updated in place) and return what was found.

        Parameters
        ----------
        state : ModelState
            The fit of the fixed terms.
        streams : sequence of Stream
            The candidate streams, in formula order.
        fixed : ndarray, shape (n, k0)
            The fixed design (intercept and fixed terms).
        family : statsmodels family
            The family the state models.
        options : SearchOptions
            Block size, stopping rules, progress, history mode and passes.
        """
        ...


class OwnLoop(ABC):
    """Shared answers of the methods that bring their own loop (stepwise, grafting, BP-SFS).

    They are their own reported rule, keep a full history of their own, take no extra
    passes and control no error rate that a false-selection estimate could describe.
    """

    name = "search"
    history_modes: tuple[str, ...] = ("full",)
    multipass = False

    @property
    def rule(self) -> SelectionRule:
        return self  # type: ignore[return-value]

    @property
    def reads_lazily(self) -> bool:
        return True

    def check_family(self, family: Any) -> None:
        return None

    def false_selection_estimate(self, n_selected: int, final_wealth: float) -> float | None:
        """None: these methods spend no wealth."""
        return None

    @abstractmethod
    def describe(self) -> str:
        """The method and its parameters in words (the summary's "Selection method" line)."""

    def __repr__(self) -> str:
        return self.describe()
