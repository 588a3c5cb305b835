"""The search-method seam: one interface for every way of searching the streams.

:func:`~streamreg.search.methods.resolve_method` turns ``method=`` into a
:class:`SearchMethod`; the entry points then call its :meth:`~SearchMethod.run` with the
model state, the streams and the validated :class:`~streamreg.search.options.SearchOptions`,
and report its :attr:`~SearchMethod.rule`.  The streamwise driver under a wealth rule
(:class:`~streamreg.search.streamwise.Streamwise`) is one implementation; stepwise,
grafting and BP-SFS, which bring their own loop, are the others.

What the option layer must know of a method before any data is read, it asks the method's
:func:`capabilities`, never its class.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, runtime_checkable

import numpy as np

from ..models.protocol import ComparableState
from ..policies.base import SelectionRule
from ..streams.base import Stream
from .options import SearchOptions
from .result import SearchResult


@runtime_checkable
class SearchMethod(Protocol):
    """A way of selecting terms from candidate streams.

    A class attribute serves for each read-only property.  Three capabilities are optional
    class attributes (see :class:`Capabilities`): ``takes_weights`` and ``tests_candidates``
    (a method without them is taken to do what the streamwise driver does) and
    ``takes_decoys`` (False unless declared).
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


@dataclass(frozen=True)
class Capabilities:
    """What a search method can do, as the option checks ask it before any data is read.

    Attributes
    ----------
    history_modes : tuple of str
        The values of ``history=`` it honours.
    multipass : bool
        Whether ``passes=`` applies.
    takes_weights : bool
        Whether its fits take ``offset=``, ``exposure=`` and the weights (the penalised
        searches fit their own models, which do not).
    tests_candidates : bool
        Whether it decides by a test of each candidate, so that ``cov_type=`` concerns the
        candidate tests too (stepwise and the penalised searches decide by criteria and
        penalties: there ``cov_type`` concerns the refit only).
    takes_decoys : bool
        Whether it shadows the candidates with decoys (``decoys=``; the streamwise search).
    """

    history_modes: tuple[str, ...]
    multipass: bool
    takes_weights: bool
    tests_candidates: bool
    takes_decoys: bool


def capabilities(method: SearchMethod) -> Capabilities:
    """The capabilities ``method`` declares (defaults: those of the streamwise driver).

    Examples
    --------
    >>> from streamreg.search import resolve_method
    >>> capabilities(resolve_method("grafting"))
    Capabilities(history_modes=('full',), multipass=False, takes_weights=False, tests_candidates=False, takes_decoys=False)
    >>> capabilities(resolve_method("lord++")).takes_decoys
    True
    """
    return Capabilities(history_modes=tuple(method.history_modes), multipass=bool(method.multipass),
                        takes_weights=bool(getattr(method, "takes_weights", True)),
                        tests_candidates=bool(getattr(method, "tests_candidates", True)),
                        takes_decoys=bool(getattr(method, "takes_decoys", False)))


class OwnLoop(ABC):
    """Shared answers of the methods that bring their own loop (stepwise, grafting, BP-SFS).

    They are their own reported rule, keep a full history of their own, take no extra
    passes, decide by criteria or penalties rather than by a test of each candidate, and
    control no error rate that a false-selection estimate could describe.  Each declares
    the kinds of its options in ``OPTION_KINDS`` (:mod:`streamreg.validators`); its
    constructor checks their values.
    """

    name = "search"
    history_modes: tuple[str, ...] = ("full",)
    multipass = False
    takes_weights = True
    tests_candidates = False
    takes_decoys = False
    OPTION_KINDS: ClassVar[Mapping[str, tuple[str, ...]]] = {}

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
