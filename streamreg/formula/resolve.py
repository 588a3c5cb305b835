"""A ``stream()``'s globs and terms resolved against the data columns.

Globs are matched and dtypes checked once per stream, not per column, so a frame of a
million columns resolves at array speed (:class:`~.names._NameTable`).
"""
from __future__ import annotations

import builtins
import re
from collections.abc import Container, Iterable, Iterator
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .checks import first_date, refuse_dates
from .frame_stream import Candidate
from .names import _PATSY_NAMES, ColumnPositions, _NameTable, names_in
from .parse import FormulaError, StreamSpec


@dataclass
class Resolved:
    """A ``stream()``'s candidates before the rows are known: data positions of the numeric
    columns, or a :class:`Candidate` list when some are factors or patsy terms."""

    names: list[str] | None = None
    columns: list[str] | None = None
    positions: np.ndarray | None = None  # positions of ``columns`` in the data
    candidates: list[Candidate] | None = None

    def __iter__(self) -> Iterator[Candidate]:
        return iter(self.candidates or [])


def _position(positions: ColumnPositions, colset: Container[str], name: str) -> int | None:
    return positions[name] if name in colset else None


#: a glob with a character class such as x[1-3], which unquoted reads as subscripted code
_GLOB_CLASS = re.compile(r"[\w.*?]*\[!?[\w-]+\][\w.*?\[\]!-]*")


def resolve_stream(spec: StreamSpec, columns: list[str], colset: set[str], taken: set[str], data: pd.DataFrame,
                   date_columns: np.ndarray, numeric_columns: np.ndarray, transformed: Container[str] = (),
                   earlier: np.ndarray | None = None, lookup: ColumnPositions | None = None) -> Resolved:
    """The candidates of a ``stream()``: globs matched and dtypes checked once, not per column.

    Globs skip every ``taken`` column and the columns earlier streams offer (``earlier``, a
    mask over the data's columns); a column named on its own is refused when it is one of
    those, unless the fixed terms use it only through a transformation (``transformed``).
    ``lookup`` finds a name's position (default: a scan of ``columns`` per name).
    """
    excl = spec.options.get("exclude") or []
    if isinstance(excl, str):
        excl = [excl]
    ncol = len(columns)
    where = lookup if lookup is not None else ColumnPositions(columns)
    blocked = np.zeros(ncol, dtype=bool)  # the response, fixed and excluded columns
    offered = np.zeros(ncol, dtype=bool)  # columns offered by an earlier glob
    in_model = np.zeros(ncol, dtype=bool)  # columns a name may not ask for
    for c in taken:
        j = _position(where, colset, c)
        if j is not None:
            blocked[j] = True
            in_model[j] = c not in transformed
    if earlier is not None:  # a column is a candidate of one stream only
        blocked |= earlier
        in_model |= earlier
    table = _NameTable(columns, colset)
    excluded = np.zeros(ncol, dtype=bool)
    for e in excl:
        excluded |= table.glob(e)
    blocked |= excluded
    seen_terms: set[str] = set()
    items: list = []  # ("columns", positions, names) or ("candidate", Candidate)
    plain = True
    for arg in spec.args:
        if arg in spec.terms:
            unknown = {n for n in names_in(arg) if n not in colset and n not in _PATSY_NAMES and n != "np"}
            unknown = {n for n in unknown if not hasattr(builtins, n)}
            if unknown:
                if _GLOB_CLASS.fullmatch(arg):  # x[1-3]: the '-' made it code (x indexed by 1 - 3)
                    raise FormulaError(f"{spec.text}: {arg!r} is read as code (a column indexed by {arg[arg.index('['):]}), "
                                       f"not as a pattern, because of its '-'; quote the pattern: stream('{arg}')")
                raise FormulaError(f"unknown column(s) {sorted(unknown)} in the candidate term {arg!r} of {spec.text}")
            for v in sorted(names_in(arg) & colset):
                refuse_dates(data.iloc[:, where[v]], f"column {v!r} in the candidate term {arg!r} of {spec.text}")
            j = _position(where, colset, arg)
            if arg not in seen_terms and (j is None or not offered[j]):
                items.append(("candidate", Candidate(arg, None)))
                seen_terms.add(arg)
                plain = False
            continue
        mask = table.glob(arg)
        pattern = any(ch in arg for ch in "*?[")
        if not mask.any():
            hint = "" if pattern else " (no column has that name)"
            factors = [f.strip() for f in arg.split("*")]
            if pattern and len(factors) > 1 and all(f in colset for f in factors):  # R's a*b, read as a glob
                hint = (f" ('*' is a glob here; for the product of {' and '.join(factors)} offer the candidate "
                        f"term {':'.join(factors)}, or I({' * '.join(factors)}))")
            raise FormulaError(f"{spec.text}: {arg!r} matches no column of the data{hint}")
        if not pattern and (mask & in_model).any():  # a glob skips such columns; a name asks for one
            raise FormulaError(f"{spec.text}: {arg!r} is taken (the response, a fixed term on its own, an offset "
                               "or weights column, or a candidate of an earlier stream), so it cannot be a "
                               "candidate here; remove it from the stream")
        for t in seen_terms:
            j = _position(where, colset, t)
            if j is not None:
                mask[j] = False
        free = np.flatnonzero(mask & ~(blocked if pattern else in_model | excluded) & ~offered)
        if not len(free):
            continue
        names = table.names(free)
        # patsy would make every date a level of a factor: refuse rather than test that
        bad = first_date(data, names, free, suspects=date_columns)
        if bad is not None:
            refuse_dates(data.iloc[:, where[bad]], f"{spec.text}: column {bad!r}", exclude_hint=True)
        numeric = numeric_columns[free]
        items.append(("columns", free, names, numeric, table.term_names(free, names)))
        offered[free] = True
        plain = plain and bool(numeric.all())
    if not items and earlier is not None and any((table.glob(a) & earlier).any() for a in spec.args
                                                 if a not in spec.terms):
        raise FormulaError(f"{spec.text} has no candidates left: the columns it matches are offered by an earlier "
                           "stream() (a column is a candidate of one stream only); remove the repeated stream() or "
                           "narrow its pattern")
    if not items:
        raise FormulaError(
            f"{spec.text} has no candidates left: every matched column is the response, a fixed "
            "term or excluded"
        )
    if plain:  # numeric columns only: positions and names, no object per candidate
        positions = np.concatenate([it[1] for it in items])
        cols = [c for it in items for c in it[2]] if len(items) > 1 else items[0][2]
        tnames = [t for it in items for t in it[4]] if len(items) > 1 else items[0][4]
        return Resolved(tnames, cols, positions)
    cands: list[Candidate] = []
    for it in items:
        if it[0] == "candidate":
            cands.append(it[1])
            continue
        # numeric columns are sliced directly; factors are coded by patsy (k-1 columns)
        for c, num, tn in zip(it[2], it[3], it[4]):
            cands.append(Candidate(tn, c if num else None, factor=None if num else c))
    return Resolved(candidates=cands)


def mark_constant_factors(cands: Iterable[object], frame: pd.DataFrame) -> None:
    """Glob-matched factors with one level in the rows used become constant candidates.

    patsy would code them as no column at all and abort the run; a constant numeric column
    is only skipped, and a one-level factor is the same thing.
    """
    for c in cands:
        if isinstance(c, Candidate) and c.factor is not None:
            c.constant = frame[c.factor].nunique(dropna=True) < 2
