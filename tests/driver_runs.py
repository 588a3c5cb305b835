"""Test helpers: a call's result and the number of runs the streamwise driver decided, with and
without a setting that only changes how candidates are grouped into runs."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from streamreg.search import streamwise_run


def counting_runs(monkeypatch: pytest.MonkeyPatch, call: Callable[[], Any]) -> tuple[Any, int]:
    """``call()`` with :meth:`StreamwiseRun.decide` counted (the patch lasts as ``monkeypatch`` does)."""
    runs = [0]
    decide = streamwise_run.StreamwiseRun.decide

    def counting(self: Any, lane: Any, tested_pos: Any) -> Any:
        runs[0] += 1
        return decide(self, lane, tested_pos)

    monkeypatch.setattr(streamwise_run.StreamwiseRun, "decide", counting)
    return call(), runs[0]


def with_and_without(monkeypatch: pytest.MonkeyPatch, call: Callable[[], Any], module: Any,
                     setting: str) -> tuple[Any, int, Any, int]:
    """``call()`` as it is, then with ``module.setting = 0`` (the grouping turned off): each
    result and its number of driver runs; the grouping must save runs and change no selection."""
    grouped, runs_grouped = counting_runs(monkeypatch, call)
    with monkeypatch.context() as mp:
        mp.setattr(module, setting, 0)
        plain, runs_plain = counting_runs(mp, call)
    assert runs_grouped < runs_plain
    assert grouped.selected_terms == plain.selected_terms
    return grouped, runs_grouped, plain, runs_plain
