"""Column names and formula terms: quoting unusual names, name tables for wide frames, and
the data columns an expression refers to.

A frame of a million columns is matched and named without a Python call per column: the
labels are read once as strings and hashed once (repeated names are refused), globs run
over one byte buffer of them, and plain identifiers pass through unchanged.
"""
from __future__ import annotations

import ast
import builtins
import fnmatch
import keyword
import re
from collections.abc import Container, Iterator
from typing import Protocol

import numpy as np
import pandas as pd
import patsy

from .parse import FormulaError

#: names a formula may use beside the data columns: np and patsy's built-ins (contrasts too,
#: so that ``C(g, Sum)`` reads as in patsy)
_PATSY_NAMES = {"np", *patsy.builtins.__all__}


def term_name(column: str) -> str:
    """A formula-ready name for a data column (``Q("...")`` when the name is unusual)."""
    # a name holding "__" is quoted: bare, the formula's dunder guard would refuse it
    ok = column.isidentifier() and not keyword.iskeyword(column) and "__" not in column
    if ok and column not in _PATSY_NAMES and not hasattr(builtins, column):
        return column
    return "Q(" + repr(column) + ")"


_UNUSUAL = frozenset(keyword.kwlist) | _PATSY_NAMES | frozenset(vars(builtins))


def term_names(columns: list[str]) -> list[str]:
    """:func:`term_name` of every column, without a Python call per column when all are plain."""
    if all(map(str.isidentifier, columns)) and _UNUSUAL.isdisjoint(columns) and "__" not in "\0".join(columns):
        return list(columns)
    return [term_name(c) for c in columns]


class NameSet(Protocol):
    """What the name look-ups need of a set of column names (a set, or :class:`AnyName`)."""

    def __contains__(self, name: object) -> bool: ...

    def __iter__(self) -> Iterator[str]: ...


class AnyName:
    """A :class:`NameSet` holding every name: :func:`variables` then returns each name an
    expression refers to, without knowing the data's columns."""

    def __contains__(self, name: object) -> bool:
        return True

    def __iter__(self) -> Iterator[str]:
        return iter(())


class ColumnPositions:
    """Positions of data columns by name.

    A handful of names are looked up by a list scan each (a million labels are not hashed
    for three look-ups); after many look-ups one dict of every label answers the rest.
    Only names that are columns may be asked for.
    """

    def __init__(self, columns: list[str]):
        self._columns = columns
        self._known: dict[str, int] = {}
        self._all: dict[str, int] | None = None

    def __getitem__(self, name: str) -> int:
        if self._all is not None:
            return self._all[name]
        if name not in self._known:
            if len(self._known) >= 32:
                self._all = {c: j for j, c in enumerate(self._columns)}
                return self._all[name]
            self._known[name] = self._columns.index(name)
        return self._known[name]


def fresh_labels(data: pd.DataFrame) -> pd.DataFrame:
    """``data`` with a new column Index over the same labels (the values are not copied).

    Once a label is looked up, pandas keeps a hash table of every label on the Index, and
    each slice of such an Index builds one for itself: 0.04-0.1 s per slice of a million
    text labels.  The design slices the frame several times and looks labels up by
    position, so it starts from an Index without one (whatever the caller looked up).
    """
    if type(data.columns) is not pd.Index:  # a RangeIndex or MultiIndex has nothing to rebuild
        return data
    labels = data.columns
    out = data.copy(deep=False)  # the same values (set_axis would copy them without copy-on-write)
    out.columns = pd.Index(labels.array, dtype=labels.dtype, name=labels.name, copy=False)
    return out


def labels_are_text(labels: pd.Index) -> bool:
    """Whether every label is plain text (``str`` exactly: a subclass such as ``np.str_`` or
    an enum member prints otherwise), so that formulas can name the columns by it."""
    return (isinstance(labels.dtype, pd.StringDtype) and not labels.hasnans) or (
        labels.dtype == object and set(map(type, labels.to_numpy())) <= {str})


def text_labels(data: pd.DataFrame) -> pd.DataFrame:
    """``data`` with its column labels as the text formulas name them (``str(label)``); the
    same object when they are text already, else a shallow copy (the values are shared)."""
    if labels_are_text(data.columns):
        return data
    out = data.copy(deep=False)
    out.columns = pd.Index([str(c) for c in data.columns], dtype=object)
    return out


def unique_labels(columns: list[str]) -> set[str] | None:
    """The labels as a set, or None when one repeats (hashed once: the Index's own table
    would be built from text labels converted to Python objects a second time)."""
    found = set(columns)
    return found if len(found) == len(columns) else None


_NAME_BYTES = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_\n"  # ASCII identifiers, newline


class _NameTable:
    """The column names as one byte buffer, for glob matching and name checks without a
    Python call per name (prefix ``x*``, suffix ``*_mean`` and exact globs; others by regex)."""

    def __init__(self, columns: list[str], colset: set[str] | None = None):
        self.columns = columns
        self.colset = colset  # every label: answers "is a keyword or builtin among them" in a few look-ups
        self.buf: np.ndarray | None = None
        if len(columns) < 1000:
            return
        try:
            raw = "\n".join(columns).encode("utf-8")
        except UnicodeEncodeError:
            return
        buf = np.frombuffer(raw, dtype=np.uint8)
        newlines = np.flatnonzero(buf == 10)
        if len(newlines) != len(columns) - 1 or not len(buf):  # a name with a newline in it
            return
        self.buf, self.raw = buf, raw
        self.starts = np.concatenate(([0], newlines + 1))
        self.ends = np.concatenate((newlines, [len(buf)]))
        self.lengths = self.ends - self.starts

    def _bytes_at(self, offsets: np.ndarray) -> np.ndarray:
        assert self.buf is not None  # only called on the byte-buffer path
        return self.buf[np.clip(offsets, 0, len(self.buf) - 1)]

    def _affix(self, text: str, suffix: bool) -> np.ndarray:
        pat = text.encode("utf-8")
        ok = self.lengths >= len(pat)
        base = self.ends - len(pat) if suffix else self.starts
        for i, b in enumerate(pat):
            ok &= self._bytes_at(base + i) == b
        return ok

    def glob(self, pattern: str) -> np.ndarray:
        """``fnmatch.fnmatchcase(c, pattern)`` for every column at once."""
        n = len(self.columns)
        special = [i for i, ch in enumerate(pattern) if ch in "*?["]
        if self.buf is not None and len(pattern) <= 64 and "\n" not in pattern:
            if not special:
                return self._affix(pattern, False) & (self.lengths == len(pattern.encode("utf-8")))
            if special == [len(pattern) - 1] and pattern[-1] == "*":
                return self._affix(pattern[:-1], False)
            if special == [0] and pattern[0] == "*":
                return self._affix(pattern[1:], True)
        if not special:
            return np.fromiter(map(pattern.__eq__, self.columns), dtype=bool, count=n)
        match = re.compile(fnmatch.translate(pattern)).match
        return np.fromiter(map(bool, map(match, self.columns)), dtype=bool, count=n)

    def names(self, positions: np.ndarray) -> list[str]:
        """The names at ``positions`` (a list slice when they are consecutive)."""
        where = _as_slice(positions)
        if isinstance(where, slice):
            return self.columns[where]
        return [self.columns[i] for i in positions.tolist()]

    def term_names(self, positions: np.ndarray, names: list[str] | None = None) -> list[str]:
        """:func:`term_names` of the names at ``positions`` (``names``, when the caller has
        them; returned as they are when every one is a plain identifier)."""
        names = self.names(positions) if names is None else names
        if self.buf is None or not len(positions):
            return term_names(names)
        if self.raw.translate(None, _NAME_BYTES):  # not plain ASCII names: ask Python
            return term_names(names)
        first = self._bytes_at(self.starts[positions])
        ident = (self.lengths[positions] > 0) & ~((first >= 48) & (first <= 57))  # no leading digit
        usual = (self.colset is not None and _UNUSUAL.isdisjoint(self.colset)) or _UNUSUAL.isdisjoint(names)
        if ident.all() and usual and b"__" not in self.raw:
            return names
        return [term_name(c) for c in names]


def _as_slice(positions: np.ndarray) -> slice | np.ndarray:
    """``positions`` as a slice when they are consecutive (so pandas can return a view)."""
    if len(positions) and positions[-1] - positions[0] + 1 == len(positions) and (
            len(positions) < 2 or bool((np.diff(positions) == 1).all())):
        return slice(int(positions[0]), int(positions[-1]) + 1)
    return positions


# -- the data columns an expression refers to ------------------------------------------------

def variables(expression: str, columns: NameSet) -> set[str]:
    """Data columns an expression refers to (bare names and Q('...') arguments)."""
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except SyntaxError:
        return {c for c in columns if c in expression}
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in columns:
            found.add(node.id)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "Q"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
            and node.args[0].value in columns
        ):
            found.add(node.args[0].value)
    return found


def rhs_variables(rhs: str, columns: NameSet) -> set[str]:
    """Data columns the patsy right-hand side ``rhs`` refers to."""
    found = set()
    for term in _fixed_terms(rhs):
        for factor in term.factors:
            found |= variables(factor.name(), columns)
    return found


def _fixed_terms(rhs: str) -> list[patsy.Term]:
    """patsy's terms of the fixed right-hand side ``rhs``; a FormulaError when it cannot read it."""
    try:
        return list(patsy.ModelDesc.from_formula("0 + " + rhs if rhs.strip() else "0").rhs_termlist)
    except patsy.PatsyError as exc:
        raise FormulaError(f"patsy cannot read the fixed terms {rhs!r}: {exc}") from None


def bare_rhs_columns(rhs: str, columns: NameSet) -> set[str]:
    """Data columns that are fixed terms on their own: ``x``, ``Q("x y")`` or ``C(x, ...)``.

    A column the fixed terms use only through a transformation or an interaction
    (``np.log(x)``, ``I(x**2)``, ``x:z``) is not bare: ``x`` may still be named as a
    candidate, as R's ``add1`` tests ``x`` beside ``log(x)``.

    Examples
    --------
    >>> sorted(bare_rhs_columns("1 + a + C(g) + np.log(x) + a:z", {"a", "g", "x", "z"}))
    ['a', 'g']
    """
    bare = set()
    for term in _fixed_terms(rhs):
        if len(term.factors) != 1:
            continue
        code = term.factors[0].name()
        node = ast.parse(code, mode="eval").body
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "C" and node.args:
            code = ast.unparse(node.args[0])
        found = variables(code, columns)
        if len(found) == 1 and (code in columns or code.startswith("Q(")):
            bare |= found
    return bare


def term_labels(expression: str) -> list[str]:
    """patsy's names of the terms of ``expression`` (spacing normalised), intercept left out;
    ``[expression]`` when patsy cannot read it.

    Examples
    --------
    >>> term_labels("1 + C(g) + x1:x2")
    ['C(g)', 'x1:x2']
    """
    try:
        desc = patsy.ModelDesc.from_formula(expression)
    except patsy.PatsyError:
        return [expression]
    return [term.name() for term in desc.rhs_termlist if term.factors]


def has_intercept(rhs: str) -> bool:
    """Whether a patsy right-hand side has an intercept (R's ``attr(terms, "intercept")``).

    A factor coded in full beside ``0 +`` spans the constant, but the formula still has no
    intercept, as in R.

    Examples
    --------
    >>> has_intercept("1 + x1 + C(g)"), has_intercept("0 + x1"), has_intercept("x1 - 1")
    (True, False, False)
    """
    desc = patsy.ModelDesc.from_formula(rhs if rhs.strip() else "1")
    return any(not term.factors for term in desc.rhs_termlist)


def unknown_names(rhs: str, colset: Container[str]) -> set[str]:
    """Bare names in the fixed terms that are neither data columns nor known functions.

    Called names are left to the evaluation, which knows ``functions=``.
    """
    unknown: set[str] = set()
    try:
        desc = patsy.ModelDesc.from_formula("0 + " + rhs)
    except patsy.PatsyError:
        return unknown
    for term in desc.rhs_termlist:
        for factor in term.factors:
            try:
                tree = ast.parse(factor.name(), mode="eval")
            except SyntaxError:
                continue
            called = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
            unknown |= {node.id for node in ast.walk(tree)
                        if isinstance(node, ast.Name) and node.id not in colset and node.id not in called
                        and node.id not in _PATSY_NAMES and not hasattr(builtins, node.id)}
    return unknown


def names_in(expression: str) -> set[str]:
    """Bare names of an expression that are neither called nor have attributes taken."""
    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError:
        return set()
    called = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    attrs = {n.value.id for n in ast.walk(tree) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)}
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} - called - attrs
