"""A ``stream()``'s globs and terms resolved against the data columns.

Globs are matched and dtypes checked once per stream, not per column, so a frame of a
million columns resolves at array speed (:class:`~.names._NameTable`).
"""
from __future__ import annotations

import builtins
import re
from collections.abc import Container, Iterable, Iterator
from dataclasses import dataclass, field

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

    Each argument is matched in turn (:meth:`_StreamMatch.add_term` for a patsy term,
    :meth:`_StreamMatch.add_glob` for a name or glob); a stream left without candidates is
    refused, and the matches become positions when every one is a numeric column.
    """
    match = _StreamMatch(spec, data, colset, _NameTable(columns, colset),
                         lookup if lookup is not None else ColumnPositions(columns), date_columns, numeric_columns)
    match.block(taken, transformed, earlier)
    for arg in spec.args:
        if arg in spec.terms:
            match.add_term(arg)
        else:
            match.add_glob(arg)
    match.refuse_empty(earlier)
    return match.resolved()


@dataclass
class _ColumnRun:
    """The data columns one glob of a ``stream()`` matched, in data order."""

    positions: np.ndarray
    names: list[str]
    numeric: np.ndarray  # per column: numeric (sliced directly) or a factor (coded by patsy)
    term_names: list[str]  # the columns as a formula names them


@dataclass
class _StreamMatch:
    """The state of matching one ``stream()``'s arguments against the data columns.

    Masks run over the data's columns: ``blocked`` (the response, fixed, role, excluded and
    earlier-offered columns: a glob skips them), ``in_model`` (columns a name may not ask
    for), ``excluded`` (``exclude=``) and ``offered`` (by an earlier argument of this stream).
    """

    spec: StreamSpec
    data: pd.DataFrame
    colset: set[str]
    table: _NameTable
    where: ColumnPositions
    date_columns: np.ndarray
    numeric_columns: np.ndarray
    blocked: np.ndarray = field(init=False)
    in_model: np.ndarray = field(init=False)
    excluded: np.ndarray = field(init=False)
    offered: np.ndarray = field(init=False)
    items: list[_ColumnRun | Candidate] = field(default_factory=list)
    seen_terms: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        ncol = len(self.table.columns)
        self.blocked, self.in_model, self.excluded, self.offered = (np.zeros(ncol, dtype=bool) for _ in range(4))

    def block(self, taken: Iterable[str], transformed: Container[str], earlier: np.ndarray | None) -> None:
        """Mark the columns this stream may not offer: ``taken`` ones, earlier streams' and excluded ones."""
        for c in taken:
            j = _position(self.where, self.colset, c)
            if j is not None:
                self.blocked[j] = True
                self.in_model[j] = c not in transformed
        if earlier is not None:  # a column is a candidate of one stream only
            self.blocked |= earlier
            self.in_model |= earlier
        excl = self.spec.options.get("exclude") or []
        for e in [excl] if isinstance(excl, str) else excl:
            self.excluded |= self.table.glob(e)
        self.blocked |= self.excluded

    def add_term(self, arg: str) -> None:
        """A patsy term (``np.log(x)``, ``C(g)``): its names checked, offered once as one candidate."""
        self._check_term_names(arg)
        j = _position(self.where, self.colset, arg)
        if arg not in self.seen_terms and (j is None or not self.offered[j]):
            self.items.append(Candidate(arg, None))
            self.seen_terms.add(arg)

    def _check_term_names(self, arg: str) -> None:
        """Refuse unknown names (with a hint for a glob read as code) and date columns in a term."""
        spec, colset = self.spec, self.colset
        unknown = {n for n in names_in(arg) if n not in colset and n not in _PATSY_NAMES and n != "np"}
        unknown = {n for n in unknown if not hasattr(builtins, n)}
        if unknown:
            if _GLOB_CLASS.fullmatch(arg):  # x[1-3]: the '-' made it code (x indexed by 1 - 3)
                raise FormulaError(f"{spec.text}: {arg!r} is read as code (a column indexed by {arg[arg.index('['):]}), "
                                   f"not as a pattern, because of its '-'; quote the pattern: stream('{arg}')")
            raise FormulaError(f"unknown column(s) {sorted(unknown)} in the candidate term {arg!r} of {spec.text}")
        for v in sorted(names_in(arg) & colset):
            refuse_dates(self.data.iloc[:, self.where[v]], f"column {v!r} in the candidate term {arg!r} of {spec.text}")

    def add_glob(self, arg: str) -> None:
        """A column name or glob: the matched columns not yet offered, dates refused."""
        mask = self.table.glob(arg)
        pattern = any(ch in arg for ch in "*?[")
        self._check_matches(arg, mask, pattern)
        for t in self.seen_terms:  # a column already offered as a term of the same name
            j = _position(self.where, self.colset, t)
            if j is not None:
                mask[j] = False
        free = np.flatnonzero(mask & ~(self.blocked if pattern else self.in_model | self.excluded) & ~self.offered)
        if not len(free):
            return
        names = self.table.names(free)
        # patsy would make every date a level of a factor: refuse rather than test that
        bad = first_date(self.data, names, free, suspects=self.date_columns)
        if bad is not None:
            refuse_dates(self.data.iloc[:, self.where[bad]], f"{self.spec.text}: column {bad!r}", exclude_hint=True)
        self.items.append(_ColumnRun(free, names, self.numeric_columns[free], self.table.term_names(free, names)))
        self.offered[free] = True

    def _check_matches(self, arg: str, mask: np.ndarray, pattern: bool) -> None:
        """Refuse an argument matching nothing (R's ``a*b`` gets a hint) or naming a taken column."""
        text = self.spec.text
        if not mask.any():
            hint = "" if pattern else " (no column has that name)"
            factors = [f.strip() for f in arg.split("*")]
            if pattern and len(factors) > 1 and all(f in self.colset for f in factors):  # R's a*b, read as a glob
                hint = (f" ('*' is a glob here; for the product of {' and '.join(factors)} offer the candidate "
                        f"term {':'.join(factors)}, or I({' * '.join(factors)}))")
            raise FormulaError(f"{text}: {arg!r} matches no column of the data{hint}")
        if not pattern and (mask & self.in_model).any():  # a glob skips such columns; a name asks for one
            raise FormulaError(f"{text}: {arg!r} is taken (the response, a fixed term on its own, an offset "
                               "or weights column, or a candidate of an earlier stream), so it cannot be a "
                               "candidate here; remove it from the stream")

    def refuse_empty(self, earlier: np.ndarray | None) -> None:
        """Refuse a stream left without candidates, saying whether earlier streams took them."""
        if self.items:
            return
        spec = self.spec
        if earlier is not None and any((self.table.glob(a) & earlier).any() for a in spec.args
                                       if a not in spec.terms):
            raise FormulaError(f"{spec.text} has no candidates left: the columns it matches are offered by an "
                               "earlier stream() (a column is a candidate of one stream only); remove the repeated "
                               "stream() or narrow its pattern")
        raise FormulaError(
            f"{spec.text} has no candidates left: every matched column is the response, a fixed "
            "term or excluded"
        )

    def resolved(self) -> Resolved:
        """Positions and names when every match is a numeric column (no object per candidate),
        else one :class:`Candidate` per term, numeric column or factor."""
        runs = [it for it in self.items if isinstance(it, _ColumnRun)]
        if len(runs) == len(self.items) and all(bool(r.numeric.all()) for r in runs):
            return _plain_columns(runs)
        return Resolved(candidates=[c for it in self.items for c in _candidates(it)])


def _plain_columns(runs: list[_ColumnRun]) -> Resolved:
    """Numeric columns only: their positions, names and term names, no object per candidate."""
    positions = np.concatenate([r.positions for r in runs])
    if len(runs) == 1:  # a million names are not copied one by one
        return Resolved(runs[0].term_names, runs[0].names, positions)
    return Resolved([t for r in runs for t in r.term_names], [c for r in runs for c in r.names], positions)


def _candidates(item: _ColumnRun | Candidate) -> list[Candidate]:
    """A term's candidate, or one per column of a run: numeric columns are sliced directly,
    factors coded by patsy (k-1 columns)."""
    if isinstance(item, Candidate):
        return [item]
    return [Candidate(tn, c if num else None, factor=None if num else c)
            for c, num, tn in zip(item.names, item.numeric, item.term_names)]


def mark_constant_factors(cands: Iterable[object], frame: pd.DataFrame) -> None:
    """Glob-matched factors with one level in the rows used become constant candidates.

    patsy would code them as no column at all and abort the run; a constant numeric column
    is only skipped, and a one-level factor is the same thing.
    """
    for c in cands:
        if isinstance(c, Candidate) and c.factor is not None:
            c.constant = frame[c.factor].nunique(dropna=True) < 2
