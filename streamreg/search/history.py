"""The selection history: one row per candidate the search looked at, for every driver.

This module owns the history's columns (:data:`COLUMNS`), what can happen to a candidate
(:class:`Status`) and the one recorder every driver writes through
(:class:`HistoryRecorder`): the streamwise driver adds the rows of a whole run of a block at
once (column chunks, cheap for millions of tests), stepwise and the penalised searches add a
row per event.

With ``keep="none"`` (``history="none"`` in :func:`~streamreg.streamreg` and
:func:`~streamreg.select`) only the rows of accepted and refused candidates are stored,
so memory no longer grows with the number of candidates tested on long or infinite
streams; the rows kept are exactly the corresponding rows of the full history.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from enum import IntEnum
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from ..models.base import (
    COLLINEAR,
    CONSTANT,
    INVALID_MEANS,
    NO_DF,
    NONCONVERGENCE,
    REFUSAL_REASONS,
    SEPARATION,
    SKIP_REASONS,
)
from ..outcomes import reported_statistic
from ..validators import check_choice
from .options import HISTORY_MODES


class Status(IntEnum):
    """What happened to a candidate: the history's ``status`` column.

    Negative codes are outcomes of a test the rule decided; 1 to 3 are the model states'
    skip codes (``models.base.SKIP_REASONS``: the candidate was not tested); the rest are
    moves and events of the drivers with their own loop (stepwise, grafting, BP-SFS).
    """

    ACCEPTED = -1
    REJECTED = -2
    REFUSED_SEPARATION = -3
    REFUSED_NONCONVERGENCE = -4
    REFUSED_INVALID_MEANS = -5
    COLLINEAR = COLLINEAR
    CONSTANT = CONSTANT
    NO_DF = NO_DF
    DROPPED = 10  # stepwise: a selected term removed (direction="both")
    DISCARDED = 11  # BP-SFS rule 1
    REENTERED = 12  # grafting and BP-SFS: a pooled column entered
    PRUNED = 13  # grafting and BP-SFS: an active weight reached 0

    @property
    def label(self) -> str:
        """The status as the history shows it."""
        return LABELS[self]

    @classmethod
    def refusal(cls, reason: str) -> Status:
        """The status of a term a model state refused, by the reason ``accept`` returned."""
        return _REFUSALS[reason]


#: the status labels, in the order of the history's categories
LABELS: dict[Status, str] = {
    Status.ACCEPTED: "accepted",
    Status.REJECTED: "rejected",
    Status.REFUSED_SEPARATION: REFUSAL_REASONS[SEPARATION],
    Status.REFUSED_NONCONVERGENCE: REFUSAL_REASONS[NONCONVERGENCE],
    Status.REFUSED_INVALID_MEANS: REFUSAL_REASONS[INVALID_MEANS],
    Status.COLLINEAR: SKIP_REASONS[COLLINEAR],
    Status.CONSTANT: SKIP_REASONS[CONSTANT],
    Status.NO_DF: SKIP_REASONS[NO_DF],
    Status.DROPPED: "dropped",
    Status.DISCARDED: "discarded: rule 1 (|corr| < c)",
    Status.REENTERED: "re-entered from the pool",
    Status.PRUNED: "pruned (weights reached 0)",
}
_REFUSALS = {SEPARATION: Status.REFUSED_SEPARATION, NONCONVERGENCE: Status.REFUSED_NONCONVERGENCE,
             INVALID_MEANS: Status.REFUSED_INVALID_MEANS}
#: statuses whose row has ``accepted`` True (the term, or a column of it, entered the model)
ENTERED = (Status.ACCEPTED, Status.REENTERED)
_KEPT_WITHOUT_HISTORY = (Status.ACCEPTED, Status.REFUSED_SEPARATION, Status.REFUSED_NONCONVERGENCE,
                         Status.REFUSED_INVALID_MEANS)

#: the history's columns, for every driver (stepwise adds its own after them)
COLUMNS = ("test", "stream", "stream_test", "term", "statistic", "df", "pvalue", "log_p", "level", "wealth",
           "status", "accepted", "pass")

# names kept for callers of the integer codes
ACCEPTED, REJECTED = Status.ACCEPTED, Status.REJECTED
REFUSED, REFUSED_NONCONVERGENCE = Status.REFUSED_SEPARATION, Status.REFUSED_NONCONVERGENCE
#: status code of a refusal, by the reason a model state's ``accept`` returned
REFUSAL_CODES = dict(_REFUSALS)
#: the labels by integer code
STATUS = {int(code): label for code, label in LABELS.items()}

LogPValue = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]


class Deferred:
    """Columns of a chunk computed when the history is read, e.g. a rule's levels and
    wealths over a run of rejections: ``make()`` returns them by field name.

    Examples
    --------
    >>> import numpy as np
    >>> rec = HistoryRecorder()
    >>> later = Deferred(lambda: {"level": np.array([0.1, 0.05]), "wealth": np.array([0.4, 0.35])})
    >>> rec.add("s", ["a", "b"], test=np.array([1, 2]), statistic=np.array([0.5, 0.2]), df=1, df_resid=10.0,
    ...         level=later, wealth=later, status=-2)
    >>> rec.frame()["level"].tolist()
    [0.1, 0.05]
    """

    __slots__ = ("make",)

    def __init__(self, make: Callable[[], Mapping[str, np.ndarray]]):
        self.make = make


class HistoryRecorder:
    """Collects history rows in column chunks, for every driver.

    Parameters
    ----------
    keep : {"full", "none"}
        ``"full"``: one row per candidate examined.  ``"none"``: only the rows of
        accepted and refused candidates (nothing per rejected or skipped candidate).
    extra : sequence of str
        Columns of this driver beyond :data:`COLUMNS` (stepwise: its step and move),
        given to every :meth:`add` and :meth:`add_row`, shown after the common ones.

    Every row has a ``status`` (a :class:`Status` code) and a ``df``; the other columns
    default to "not known": ``test`` and ``stream_test`` -1 (shown as <NA>), numbers NaN,
    ``pass`` 1.  ``pvalue`` defaults to ``exp(log_p)``; ``log_p`` left NaN on a tested row
    (``test`` >= 0) is computed when the frame is built, if a ``log_pvalue`` is given.
    """

    _FIELDS = ("test", "stream_test", "statistic", "df", "df_resid", "pvalue", "log_p", "level", "wealth", "status",
               "pass_")
    _DEFAULTS: ClassVar[dict[str, float]] = {
        "test": -1, "stream_test": -1, "statistic": np.nan, "df_resid": np.nan, "pvalue": np.nan, "log_p": np.nan,
        "level": np.nan, "wealth": np.nan, "pass_": 1}

    def __init__(self, keep: str = "full", *, extra: Sequence[str] = ()):
        self.keep = check_choice("history", keep, HISTORY_MODES)
        self.extra = tuple(extra)
        self._fields = self._FIELDS + self.extra
        self._chunks: dict[str, list[np.ndarray | Deferred]] = {f: [] for f in self._fields}
        self._names: list[Sequence[str]] = []
        self._streams: list[str | list[str]] = []  # one name per chunk, or one per row
        self._sizes: list[int] = []
        self._rows: list[tuple] = []  # single rows not yet turned into a chunk

    @property
    def n_rows(self) -> int:
        """Rows stored so far."""
        return sum(self._sizes) + len(self._rows)

    def add(self, stream: str, names: Sequence[str], *, owned: bool = False, **cols: Any) -> None:
        """Rows for the candidates ``names`` of ``stream``: each column an array or a scalar.

        Arrays are copied (the recorder must not share a caller's buffers) unless ``owned``:
        the caller hands over arrays that nothing will write to again (a search's outcomes, a
        confirmation's results), which a million-row pass would otherwise copy for nothing.
        """
        m = len(names)
        if m == 0:
            return
        self._flush()
        cols = {**self._DEFAULTS, **cols}
        if self.keep == "none":
            rows = np.flatnonzero(np.isin(_as_column(cols["status"], m), _KEPT_WITHOUT_HISTORY))
            if rows.size == 0:
                return
            names = [names[int(i)] for i in rows]
            made: dict[int, Mapping[str, np.ndarray]] = {}
            cols = {f: _as_column(_resolve(cols[f], f, made), m)[rows] for f in self._fields}
            m = len(rows)
        self._names.append(names)  # kept as given (lazy name ranges stay lazy until the frame is built)
        self._streams.append(stream)
        self._sizes.append(m)
        for f in self._fields:
            value = cols[f]
            self._chunks[f].append(value if isinstance(value, Deferred) else _as_column(value, m, copy=not owned))

    def add_row(self, stream: str, term: str, **cols: Any) -> None:
        """One row (scalars); cheap, as the penalised searches add a row per arriving term."""
        if self.keep == "none" and cols["status"] not in _KEPT_WITHOUT_HISTORY:
            return
        d = self._DEFAULTS
        self._rows.append((stream, term, *(cols[f] if f in cols else d[f] for f in self._fields)))

    def _flush(self) -> None:
        """Turn the pending single rows into one chunk."""
        if not self._rows:
            return
        rows, self._rows = self._rows, []
        columns = list(zip(*rows))
        self._streams.append(list(columns[0]))
        self._names.append(list(columns[1]))
        self._sizes.append(len(rows))
        for f, values in zip(self._fields, columns[2:]):
            self._chunks[f].append(_column(values))

    def last_pass(self) -> int:
        """The largest ``pass`` recorded (1 if nothing is)."""
        self._flush()
        passes = [c for c in self._chunks["pass_"] if not isinstance(c, Deferred)]
        assert len(passes) == len(self._chunks["pass_"])  # only levels and wealths are deferred
        return int(max(int(np.max(c)) for c in passes)) if passes else 1

    def frame(self, log_pvalue: LogPValue | None = None) -> pd.DataFrame:
        """The history as a DataFrame; deferred p-values are computed here, vectorised."""
        self._flush()
        if not self._names:
            return pd.DataFrame(columns=[*COLUMNS, *self.extra])
        made: dict[int, Mapping[str, np.ndarray]] = {}  # each deferred chunk computed once
        c = {f: np.concatenate([_resolve(chunk, f, made) for chunk in self._chunks[f]]) for f in self._fields}
        tested = c["test"] >= 0
        todo = tested & np.isnan(c["log_p"])
        if log_pvalue is not None and todo.any():
            c["log_p"][todo] = log_pvalue(c["statistic"][todo], c["df"][todo], c["df_resid"][todo])
        pvalue = c["pvalue"]
        given = ~np.isnan(pvalue)
        pvalue = np.where(given, pvalue, np.exp(c["log_p"])) if given.any() else np.exp(c["log_p"])
        status = pd.Categorical.from_codes(
            pd.Series(c["status"]).map({int(k): i for i, k in enumerate(LABELS)}).to_numpy(),
            categories=pd.Index(list(LABELS.values())),
        )
        stream = np.concatenate([np.repeat(np.array([s], dtype=object), m) if isinstance(s, str)
                                 else np.array(s, dtype=object) for s, m in zip(self._streams, self._sizes)])
        out = pd.DataFrame(
            {
                "test": _int_or_na(c["test"], tested),
                "stream": stream,
                "stream_test": _int_or_na(c["stream_test"], c["stream_test"] >= 0),
                "term": np.concatenate([np.asarray(list(n), dtype=object) for n in self._names]),
                "statistic": reported_statistic(c["statistic"], c["df"], c["df_resid"]),
                "df": c["df"].astype(int),
                "pvalue": pvalue,
                "log_p": c["log_p"],
                "level": c["level"],
                "wealth": c["wealth"],
                "status": status,
                "accepted": np.isin(c["status"], ENTERED),
                "pass": c["pass_"].astype(int),
            }
        )
        for f in self.extra:
            out[f] = c[f]
        # whether the statistic column shows F (the rules compared d F), for rules that explain
        # their decisions in their own units (information-investing's bits); one state tests
        # every candidate, so one flag serves every row
        out.attrs["statistic_is_f"] = bool(np.isfinite(c["df_resid"]).any())
        return out


def _resolve(value: Any, field: str, made: dict[int, Mapping[str, np.ndarray]]) -> Any:
    """A chunk's column: a :class:`Deferred` one computed (once per ``made``), others as they are."""
    if not isinstance(value, Deferred):
        return value
    if id(value) not in made:
        made[id(value)] = value.make()
    return made[id(value)][field]


#: a scalar column of this many rows or more is kept as a read-only view (no memory per row)
_SHARED_FILL = 4096


def _as_column(value: Any, m: int, copy: bool = False) -> np.ndarray:
    """``value`` as a column of ``m`` rows: an array of that length as is (copied if asked; the
    recorder must not share the caller's buffers), a scalar repeated (a read-only view that
    takes no memory until the frame is built)."""
    if isinstance(value, np.ndarray) and value.shape == (m,):
        return value.copy() if copy else value
    arr = np.asarray(value)
    if arr.ndim == 0:
        return np.full(m, arr[()], dtype=arr.dtype) if m < _SHARED_FILL else np.broadcast_to(arr, (m,))
    return np.broadcast_to(arr, (m,)).copy()  # a list, or a length-1 array (numpy's broadcasting errors)


def _column(values: tuple) -> np.ndarray:
    """One recorded column as an array: numbers as numbers, anything else as objects."""
    arr = np.asarray(values)
    return arr.astype(object) if arr.dtype.kind in "USO" else arr


def _int_or_na(values: np.ndarray, keep: np.ndarray) -> pd.arrays.IntegerArray:
    """Nullable integers: ``values`` where ``keep``, <NA> elsewhere (skipped candidates)."""
    return pd.arrays.IntegerArray(values.astype(np.int64), ~keep)
