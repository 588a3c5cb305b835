"""Progress of a search as a tqdm bar on stderr (``verbose=``).

The drivers call :meth:`SearchProgress.update` once per block of candidates (streamwise) or
per step (stepwise), never per candidate, so a bar costs nothing measurable on long streams.
``verbose=True`` refreshes the bar at most ten times a second; ``verbose=N`` refreshes it each
time another ``N`` tests are done.  ``tqdm.auto`` picks the notebook widget in Jupyter and
the text bar elsewhere; the widget needs ipywidgets (``pip install "streamreg[notebook]"``), and
without it the text bar is shown quietly, where ``tqdm.auto`` alone warns "IProgress not found"
(:func:`bar_class`).  The bar is closed when the search ends, fails or is interrupted (use it
as a context manager).
"""
from __future__ import annotations

import sys
import time
import warnings
from collections.abc import Callable
from types import TracebackType
from typing import Any, TextIO

__all__ = ["SearchProgress", "bar_class"]


def bar_class() -> Any:
    """tqdm's bar as ``tqdm.auto`` chooses it: the notebook widget in Jupyter with ipywidgets, else the text bar.

    In a notebook without ipywidgets ``tqdm.auto`` falls back to the text bar and warns
    ("IProgress not found. Please update jupyter and ipywidgets"); the fallback is what a
    search wants, so the warning is not shown.  ``pip install "streamreg[notebook]"`` brings
    ipywidgets and the widget.

    Examples
    --------
    >>> from tqdm.std import tqdm
    >>> issubclass(bar_class(), tqdm)  # outside a notebook: the text bar
    True
    """
    from tqdm.std import TqdmWarning  # type: ignore[import-untyped]  # imported only when a bar is wanted

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TqdmWarning)  # "IProgress not found": the text bar is the fallback
        from tqdm.auto import tqdm  # type: ignore[import-untyped]
    return tqdm

_REFRESH = 0.1  # seconds between refreshes for verbose=True (tqdm's own default)


class SearchProgress:
    """A progress bar of tests done, with the terms selected and the wealth as its postfix.

    Parameters
    ----------
    verbose : bool or int
        False or 0: no bar (every call returns at once).  True: refreshed at most every
        0.1 s.  An integer ``N``: refreshed whenever another ``N`` tests are done.
    total : int, optional
        The number of tests if known (array streams), else an open-ended counter.
    desc : str
        The bar's label (the method).
    file : text file, optional
        Where to write; ``sys.stderr`` as it is when the bar is made.

    Examples
    --------
    >>> import io
    >>> out = io.StringIO()
    >>> with SearchProgress(True, total=10, desc="demo", file=out) as bar:
    ...     bar.update(10, selected=2, wealth=lambda: 0.04)
    >>> "10/10" in out.getvalue() and "selected=2" in out.getvalue()
    True
    """

    def __init__(self, verbose: bool | int, *, total: int | None = None, desc: str = "search",
                 file: TextIO | None = None) -> None:
        self.every = 0 if verbose is False else 1 if verbose is True else int(verbose)
        self._next = self.every
        self._shown = -1.0  # time of the last postfix refresh
        self._interval = _REFRESH if verbose is True else 0.0
        self.bar: Any = None
        if self.every:
            tqdm = bar_class()
            self.bar = tqdm(total=total, desc=desc, unit="test", file=file if file is not None else sys.stderr,
                            mininterval=self._interval, miniters=1 if verbose is not True else None,
                            dynamic_ncols=True, leave=True)

    def update(self, tests: int, selected: int, wealth: Callable[[], float] | None = None) -> None:
        """Move the bar to ``tests`` done; ``wealth`` is called only when the bar is redrawn."""
        if self.bar is None or tests < self._next:
            return
        self._next = (tests // self.every + 1) * self.every
        now = time.monotonic()
        if now - self._shown >= self._interval:  # formatting the postfix costs more than the update
            self._shown = now
            self._postfix(selected, wealth)
        self.bar.update(tests - self.bar.n)

    def _postfix(self, selected: int, wealth: Callable[[], float] | None) -> None:
        text = f"selected={selected}" if wealth is None else f"selected={selected}, wealth={wealth():.4g}"
        self.bar.set_postfix_str(text, refresh=False)

    def close(self, tests: int | None = None, selected: int | None = None,
              wealth: Callable[[], float] | None = None) -> None:
        """Show the final counts (when given) and close the bar; safe to call twice."""
        if self.bar is None:
            return
        if tests is not None and selected is not None:
            self._postfix(selected, wealth)
            self.bar.update(tests - self.bar.n)
        self.bar.close()
        self.bar = None

    def __enter__(self) -> SearchProgress:  # noqa: PYI034 (not meant to be subclassed)
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
