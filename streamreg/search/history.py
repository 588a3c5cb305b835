"""The selection history: one row per candidate the search looked at.

With ``keep="none"`` (``history="none"`` in :func:`~streamreg.streamreg` and
:func:`~streamreg.select`) only the rows of accepted and refused candidates are stored,
so memory no longer grows with the number of candidates tested on long or infinite
streams; the rows kept are exactly the corresponding rows of the full history.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..models.base import NONCONVERGENCE, REFUSAL_REASONS, SEPARATION, SKIP_REASONS

ACCEPTED, REJECTED, REFUSED, REFUSED_NONCONVERGENCE = -1, -2, -3, -4
#: status code of a refusal, by the reason a model state's ``accept`` returned
REFUSAL_CODES = {SEPARATION: REFUSED, NONCONVERGENCE: REFUSED_NONCONVERGENCE}
STATUS = {ACCEPTED: "accepted", REJECTED: "rejected", REFUSED: REFUSAL_REASONS[SEPARATION],
          REFUSED_NONCONVERGENCE: REFUSAL_REASONS[NONCONVERGENCE]}
STATUS.update({code: reason for code, reason in SKIP_REASONS.items() if code})
#: the values of ``history=``: every candidate's row, or only accepted and refused candidates' rows
HISTORY_MODES = ("full", "none")
_KEPT_WITHOUT_HISTORY = (ACCEPTED, REFUSED, REFUSED_NONCONVERGENCE)


class HistoryRecorder:
    """Collects history rows in column chunks (cheap for millions of tests).

    Parameters
    ----------
    keep : {"full", "none"}
        ``"full"``: one row per candidate examined.  ``"none"``: only the rows of
        accepted and refused candidates (nothing per rejected or skipped candidate).
    """

    _FIELDS = ("test", "stream_test", "statistic", "df", "df_resid", "log_p", "level", "wealth", "status", "pass_")

    def __init__(self, keep: str = "full"):
        if keep not in HISTORY_MODES:
            raise ValueError(f"history must be one of {HISTORY_MODES}, got {keep!r}")
        self.keep = keep
        self._chunks: dict[str, list] = {f: [] for f in self._FIELDS}
        self._names: list[list[str]] = []
        self._streams: list[tuple[str, int]] = []

    @property
    def n_rows(self) -> int:
        """Rows stored so far."""
        return sum(m for _, m in self._streams)

    def add(self, stream: str, names: list[str], **cols) -> None:
        m = len(names)
        if m == 0:
            return
        if self.keep == "none":
            status = np.broadcast_to(np.asarray(cols["status"]), (m,))
            rows = np.flatnonzero(np.isin(status, _KEPT_WITHOUT_HISTORY))
            if rows.size == 0:
                return
            names = [names[int(i)] for i in rows]
            cols = {f: np.broadcast_to(np.asarray(cols[f]), (m,))[rows] for f in self._FIELDS}
            m = len(rows)
        self._names.append(names)
        self._streams.append((stream, m))
        for f in self._FIELDS:
            v = cols[f]
            self._chunks[f].append(np.broadcast_to(np.asarray(v), (m,)).copy())

    def frame(self, log_pvalue) -> pd.DataFrame:
        """The history as a DataFrame; deferred p-values are computed here, vectorised."""
        if not self._names:
            cols = ["test", "stream", "stream_test", "term", "statistic", "df", "pvalue", "log_p", "level",
                    "wealth", "status", "accepted", "pass"]
            return pd.DataFrame(columns=cols)
        c = {f: np.concatenate(self._chunks[f]) for f in self._FIELDS}
        tested = c["status"] < 0
        todo = tested & np.isnan(c["log_p"])
        if todo.any():
            c["log_p"][todo] = log_pvalue(c["statistic"][todo], c["df"][todo], c["df_resid"][todo])
        status = pd.Categorical.from_codes(
            pd.Series(c["status"]).map({k: i for i, k in enumerate(STATUS)}).to_numpy(),
            categories=list(STATUS.values()),
        )
        nan_if_skipped = lambda a: np.where(tested, a, np.nan)  # noqa: E731
        stream = np.concatenate([np.repeat(np.array([s], dtype=object), m) for s, m in self._streams])
        return pd.DataFrame(
            {
                "test": _int_or_na(c["test"], tested),
                "stream": stream,
                "stream_test": _int_or_na(c["stream_test"], tested),
                "term": np.concatenate([np.asarray(list(n), dtype=object) for n in self._names]),
                "statistic": nan_if_skipped(c["statistic"]),
                "df": c["df"].astype(int),
                "pvalue": nan_if_skipped(np.exp(c["log_p"])),
                "log_p": nan_if_skipped(c["log_p"]),
                "level": c["level"],
                "wealth": c["wealth"],
                "status": status,
                "accepted": c["status"] == ACCEPTED,
                "pass": c["pass_"].astype(int),
            }
        )


def _int_or_na(values: np.ndarray, keep: np.ndarray) -> pd.arrays.IntegerArray:
    """Nullable integers: ``values`` where ``keep``, <NA> elsewhere (skipped candidates)."""
    return pd.arrays.IntegerArray(values.astype(np.int64), ~keep)
