"""A test helper: a call's result and the number of runs the streamwise driver decided."""
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
