"""Row labels of the inputs of :func:`streamreg.select` and :func:`streamreg.streamreg`.

Rows are paired by position, so pandas inputs whose indexes disagree would silently pair
the wrong rows.  statsmodels refuses them ("The indices for endog and exog are not
aligned"); so does streamreg, naming both inputs and the first position where they differ.
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np
import pandas as pd


def _labelled(key: str, value: Any) -> Iterator[tuple[str, str, pd.Index]]:
    """``(description, name in code, index)`` of each pandas object in one input."""
    if key == "streams" and isinstance(value, Mapping):
        for name, s in value.items():
            yield from ((f"stream {str(name)!r}", "X", idx) for _, _, idx in _labelled("", s))
    elif key == "streams" and isinstance(value, list):
        for j, s in enumerate(value):
            yield from ((f"stream {f'stream{j + 1}'!r}", "X", idx) for _, _, idx in _labelled("", s))
    elif isinstance(value, (pd.Series, pd.DataFrame)):
        yield ("the candidates (streams)", "X", value.index) if key == "streams" else (key, key, value.index)


def _show(label: Any) -> str:
    return repr(label.item() if isinstance(label, np.generic) else label)


def check_row_labels(inputs: Mapping[str, Any], entry: str = "select") -> None:
    """Refuse pandas inputs whose row labels differ from the first pandas input's.

    ``inputs`` maps an argument name (``"y"``, ``"fixed"``, ``"streams"``, ``"data"``,
    ``"offset"``, ...) to what the user passed; a dict or list of streams is looked into.
    Arrays carry no labels and are paired by position, as documented.  Inputs of another
    length are left to the checks that report row counts.

    Raises
    ------
    ValueError
        Naming both inputs and the first position where their labels differ.

    Examples
    --------
    >>> import pandas as pd
    >>> y = pd.Series([1.0, 2.0, 3.0], index=[10, 11, 12])
    >>> check_row_labels({"y": y, "fixed": y.to_frame("f")})  # the same labels: fine
    >>> check_row_labels({"y": y, "fixed": y.to_frame("f").iloc[::-1]})
    Traceback (most recent call last):
    ...
    ValueError: y and fixed have different row labels (at position 0: 10 against 12); select() pairs rows by position, so it would pair the wrong rows. Align them first, e.g. fixed.loc[y.index], or pass fixed.to_numpy() to pair rows by position on purpose
    """
    first: tuple[str, str, pd.Index] | None = None
    for key, value in inputs.items():
        for what, code, index in _labelled(key, value):
            if first is None:
                first = (what, code, index)
                continue
            ref_what, ref_code, ref = first
            if len(index) != len(ref) or index.equals(ref):
                continue
            differs = ~(np.asarray(ref == index, dtype=bool) | (ref.isna() & index.isna()))
            if not differs.any():
                continue
            pos = int(np.argmax(differs))
            raise ValueError(
                f"{ref_what} and {what} have different row labels (at position {pos}: {_show(ref[pos])} against "
                f"{_show(index[pos])}); {entry}() pairs rows by position, so it would pair the wrong rows. Align "
                f"them first, e.g. {code}.loc[{ref_code}.index], or pass {code}.to_numpy() to pair rows by "
                "position on purpose")


def observation_inputs(offset: Any, exposure: Any, freq_weights: Any, var_weights: Any,
                       cov_kwds: Mapping[str, Any] | None) -> dict[str, Any]:
    """The per-observation options, keyed by their argument names, for :func:`check_row_labels`."""
    groups = cov_kwds.get("groups") if isinstance(cov_kwds, Mapping) else None
    return {"offset": offset, "exposure": exposure, "freq_weights": freq_weights, "var_weights": var_weights,
            "cov_kwds['groups']": groups}
