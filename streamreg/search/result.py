"""What every search driver returns: :class:`SearchResult` and its tables."""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..policies.base import Policy
from ..streams.base import AcceptedTerm, Stream

#: a table, or a zero-argument callable that builds it on first access
Frame = pd.DataFrame | Callable[[], pd.DataFrame]

#: the columns of the ``selected`` table, for every driver (the penalised ones add ``abs_weight``)
SELECTED_COLUMNS = ("order", "term", "stream", "test", "stream_test", "statistic", "df", "pvalue", "level", "wealth")


class SearchResult:
    """What the search found; the results layer turns it into a fitted model.

    ``history`` may be given as a DataFrame or as a zero-argument callable that builds it:
    for long streams the history (and its deferred p-values) is built only when asked for.
    ``history_mode`` is ``"full"`` (one row per candidate) or ``"none"`` (only the rows of
    accepted and refused candidates were kept).

    What the results report about the rule comes from here, not from the rule's
    parameters: ``initial_wealth`` is each stream's wealth when its search started (NaN
    for rules without wealth), ``policies`` the started per-stream policies of a
    streamwise search (empty for the methods with their own loop), whose
    :meth:`~streamreg.policies.Policy.annotate` explains the history, and
    ``test_description`` the test in words when the method has its own (else "").
    ``per_stream`` is :func:`per_stream_table`'s table, which the summary and ``glance()`` read.
    ``selected`` and ``per_stream`` may also be zero-argument callables, built on first
    access: on a small problem building these frames cost more than the search.
    """

    #: the test in words, set by methods whose test is not the model state's
    test_description: str = ""
    #: passes over the streams allowed (``passes=``; rejected candidates re-offered)
    passes: int = 1
    #: what a confirmation pass did (``method="screen-confirm"``), in words; "" without one
    confirmation: str = ""
    #: what the decoys showed (``decoys=``), a :class:`~streamreg.search.decoys.DecoyReport`; None without
    decoys: Any = None
    #: the final model's version (:class:`~streamreg.streams.base.ScoredAt`); None: not known
    model_token: object = None

    def __init__(self, history: Frame, accepted: list[AcceptedTerm],
                 selected: Frame, policies: Mapping[str, Policy], stream_names: list[str], n_tests: int,
                 stopped_by: str, elapsed: float, per_stream: Frame,
                 history_mode: str = "full", initial_wealth: Mapping[str, float] | None = None):
        self._history = history
        self.history_mode = history_mode
        self.accepted = accepted
        self._selected = selected
        self.policies = dict(policies)
        self.stream_names = stream_names
        self.n_tests = n_tests
        self.stopped_by = stopped_by
        self.elapsed = elapsed
        self._per_stream = per_stream
        self.initial_wealth = dict(initial_wealth) if initial_wealth is not None else \
            {s: float("nan") for s in stream_names}

    @property
    def history(self) -> pd.DataFrame:
        if callable(self._history):
            self._history = self._history()
        return self._history

    @property
    def selected(self) -> pd.DataFrame:
        """One row per selected term (:data:`SELECTED_COLUMNS`)."""
        if callable(self._selected):
            self._selected = self._selected()
        return self._selected

    @selected.setter
    def selected(self, value: Frame) -> None:
        self._selected = value

    @property
    def per_stream(self) -> pd.DataFrame:
        """Tested, selected and final wealth per stream (:func:`per_stream_table`)."""
        if callable(self._per_stream):
            self._per_stream = self._per_stream()
        return self._per_stream

    @per_stream.setter
    def per_stream(self, value: Frame) -> None:
        self._per_stream = value

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()  # pickles hold frames, never the closures that build them
        state["_history"], state["_selected"], state["_per_stream"] = self.history, self.selected, self.per_stream
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        for old in ("selected", "per_stream"):  # pickles made before these were built lazily
            if old in state:
                state["_" + old] = state.pop(old)
        self.__dict__.update(state)


def per_stream_table(streams: Sequence[Stream], tested: Sequence[int], accepted: Sequence[AcceptedTerm],
                     final_wealth: Sequence[float] | None = None) -> pd.DataFrame:
    """Candidates tested, terms selected and final wealth (NaN: no wealth) per stream, by name."""
    return stream_counts_table([s.name for s in streams], tested, [t.stream for t in accepted], final_wealth)


def stream_counts_table(names: Sequence[str], tested: Sequence[int], accepted_streams: Sequence[str],
                        final_wealth: Sequence[float] | None = None) -> pd.DataFrame:
    """:func:`per_stream_table` from the stream names and the stream of each accepted term."""
    counts = Counter(accepted_streams)
    return pd.DataFrame({
        "tested": np.asarray(tested, dtype=np.int64),
        "selected": np.array([counts[n] for n in names], dtype=np.int64),
        "final_wealth": np.asarray(final_wealth if final_wealth is not None else [np.nan] * len(names), dtype=float),
    }, index=pd.Index(list(names), name="stream"))


def check_streams(streams: Sequence[Stream]) -> None:
    """Every driver needs at least one stream."""
    if not streams:
        raise ValueError("no candidate streams were given")
