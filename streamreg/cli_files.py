"""The command line's files: what may be read and written, and how.

An output may not be one of the inputs (the same file, also through a symbolic or hard
link: compared by device and inode), nor another output; ``-`` is standard output.  Only
regular files are read or written: a FIFO with no peer would block for ever, a device is
never what was meant.  The history CSV is written so that no cell runs as a spreadsheet
formula (OWASP's advice: text starting with ``= + - @``, tab or carriage return is
prefixed with ``'``).
"""
from __future__ import annotations

import os
import stat
import sys
from collections import Counter
from collections.abc import Sequence

import pandas as pd

STDOUT = "-"
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


class FileError(Exception):
    """A file the command line may not use; the message is one line."""


def check_regular(what: str, path: str) -> None:
    """FileError when ``path`` exists but is not a regular file (a FIFO, a device, a socket)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return  # missing or unreadable: the caller's own checks say so
    if not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
        kind = "a FIFO (named pipe)" if stat.S_ISFIFO(mode) else (
            "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a regular file")
        hint = "; use - for standard output" if what != "--data" else "; give a regular CSV file"
        raise FileError(f"{what} {path!r} is {kind}{hint}")


def check_outputs(outputs: Sequence[tuple[str, str]], inputs: Sequence[tuple[str, str]]) -> None:
    """FileError when an output names an input, or two outputs name one file (or both ``-``).

    ``outputs`` and ``inputs`` are (option, path) pairs; existing files are compared by
    device and inode (``os.path.samefile``), new ones by their resolved path.
    """
    to_stdout = [option for option, path in outputs if path == STDOUT]
    if len(to_stdout) > 1:
        raise FileError(f"{' and '.join(to_stdout)} both write to standard output (-); give one of them a file")
    files = [(option, path) for option, path in outputs if path != STDOUT]
    for i, (option, path) in enumerate(files):
        for other, source in inputs:
            if _same(path, source):
                raise FileError(f"{option} {path!r} is the input {other} {source!r}; writing it would "
                                "destroy the data: give another file name")
        for other, earlier in files[:i]:
            if _same(path, earlier):
                raise FileError(f"{other} {earlier!r} and {option} {path!r} are the same file; give each "
                                "output its own file")


def _same(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:  # one does not exist (yet): the same file only if both resolve to one path
        return os.path.realpath(a) == os.path.realpath(b)


def csv_safe(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy whose text cells cannot run as spreadsheet formulas (numbers unchanged)."""
    cols = []
    for j in range(frame.shape[1]):
        col = frame.iloc[:, j]
        if col.dtype == object or isinstance(col.dtype, (pd.StringDtype, pd.CategoricalDtype)):
            col = col.astype(object)
            risky = col.map(_is_formula_text).to_numpy(dtype=bool)
            if risky.any():
                col = col.copy()
                col[risky] = "'" + col[risky].astype(str)
        cols.append(col)
    out = pd.concat(cols, axis=1, ignore_index=True) if cols else frame.copy()
    out.columns = [_safe_text(str(c)) for c in frame.columns]
    return out


def _is_formula_text(value: object) -> bool:
    return isinstance(value, str) and value.startswith(_FORMULA_START)


def _safe_text(value: str) -> str:
    return "'" + value if _is_formula_text(value) else value


def duplicated_names(header: list[str]) -> list[str]:
    """The names that occur more than once in a CSV header, in order."""
    return [name for name, k in Counter(header).items() if k > 1]


def write_text(path: str, text: str) -> None:
    """``text`` into ``path``, or onto standard output for ``-``."""
    if path == STDOUT:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    else:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
