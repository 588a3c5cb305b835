"""From a formula's generated-class items to streams (no patsy here).

The classes themselves are the :class:`~streamreg.streams.registry.StreamFactory` objects
of :mod:`streamreg.streams.registry`; this module checks an item against its factory,
matches its column globs, and hands the builder a
:class:`~streamreg.streams.registry.ClassRequest`.  :mod:`.design` hands in an
``evaluate`` callable for anything that needs patsy.
"""
from __future__ import annotations

import dataclasses
import fnmatch
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..streams.base import Stream
from ..streams.generated import DerivedColumns
from ..streams.ordering import Order, Seed, item_seed, resolve_order as _resolve_order
from ..streams.registry import ClassRequest, stream_class, stream_class_names
from .parse import FormulaError, StreamSpec

#: formula functions that generate candidates from matched columns (a live view of the
#: registry: classes registered later are included)
COLUMN_CLASSES = stream_class_names(dynamic=False, built=True)


def check_options(spec: StreamSpec) -> None:
    """Unknown keyword arguments are errors, not silently ignored.

    Examples
    --------
    >>> from streamreg.formula.classes import check_options
    >>> from streamreg.formula.parse import parse_formula
    >>> check_options(parse_formula("y ~ squares(x*, k=2)").streams[0])
    Traceback (most recent call last):
    ...
    streamreg.lexer.FormulaError: squares(x*, k=2): unknown option(s) ['k']; squares() takes ['exclude', 'name', 'order', 'seed']
    """
    factory = stream_class(spec.function)
    bad = set(spec.options) - factory.options
    if bad:
        raise FormulaError(
            f"{spec.text}: unknown option(s) {sorted(bad)}; {spec.function}() takes {sorted(factory.options)}"
        )


def stream_label(spec: StreamSpec) -> str:
    """Stream name: ``name=`` if given; ``stream()`` keeps its globs, others their call text."""
    if spec.options.get("name"):
        return str(spec.options["name"])
    return spec.name if spec.function == "stream" else spec.text


def matched_columns(spec: StreamSpec, columns: list[str], taken: set[str], data: pd.DataFrame) -> list[str]:
    """Numeric data columns matched by the globs of a generated-class item."""
    if spec.terms:
        raise FormulaError(
            f"{spec.text}: {spec.function}() takes column names or globs, not terms like {spec.terms[0]!r}"
        )
    if not spec.globs:
        raise FormulaError(f"{spec.function}() needs at least one column glob, e.g. {spec.function}(x*)")
    excl = spec.options.get("exclude") or []
    excl = [excl] if isinstance(excl, str) else list(excl)
    out: list[str] = []
    for glob in spec.globs:
        matched = [c for c in columns if fnmatch.fnmatchcase(c, glob)]
        if not matched:
            raise FormulaError(f"{spec.text}: {glob!r} matches no column of the data")
        for c in matched:
            if c in taken or c in out or any(fnmatch.fnmatchcase(c, e) for e in excl):
                continue
            if not (pd.api.types.is_numeric_dtype(data[c]) and not pd.api.types.is_bool_dtype(data[c])):
                raise FormulaError(f"{spec.text}: column {c!r} is not numeric ({data[c].dtype}); "
                                   f"{spec.function}() needs numeric columns")
            out.append(c)
    if not out:
        raise FormulaError(f"{spec.text} has no columns left: every match is the response, fixed or excluded")
    return out


def with_default_seed(spec: StreamSpec, seed: Seed, position: int) -> StreamSpec:
    """``spec`` with the call's ``seed=`` as its default seed when its order is random.

    An item's own ``seed=`` wins; items of other orders are returned as they are.  Without
    either seed, ``order='random'`` stays unseeded: a fresh permutation on every call.
    """
    order = spec.options.get("order")
    if seed is None or "seed" in spec.options or not (isinstance(order, str) and order.lower() == "random"):
        return spec
    return dataclasses.replace(spec, options={**spec.options, "seed": item_seed(seed, position)})


def resolve_order(spec: StreamSpec, functions: Mapping[str, Callable]) -> Order:
    """The ``order=`` option as a string or callable (names of ``functions`` allowed)."""
    return _resolve_order(spec.options.get("order", "given"), functions, spec.text)


@dataclass
class ClassBuild:
    """What the generated classes add to a design."""

    streams: dict[int, list[Stream]] = field(default_factory=dict)  # formula position -> streams
    derived: DerivedColumns = field(default_factory=DerivedColumns)
    y_ordered: list[str] = field(default_factory=list)  # streams whose order looked at y


def _request(spec: StreamSpec, n: int, y: np.ndarray, functions: Mapping[str, Callable],
             build: ClassBuild, **parts: Any) -> ClassRequest:
    return ClassRequest(spec.function, spec.text, list(spec.args), spec.options, stream_label(spec), n, y,
                        functions=functions, derived=build.derived, y_ordered=build.y_ordered, **parts)


def column_class_streams(spec: StreamSpec, cols: list[str], frame: pd.DataFrame, y: np.ndarray,
                         functions: Mapping[str, Callable], build: ClassBuild,
                         term_name: Callable[[str], str], frame_stream: Callable[[str, list[str]], Stream]
                         ) -> list[Stream]:
    """Streams of one column-class item (``pca``, ``squares``, ...: any non-dynamic class).

    ``frame_stream(name, columns)`` makes a stream of data columns (a ``FrameStream``).
    """
    def ordered_frame_stream(name: str, members: list[str], perm: np.ndarray | None) -> Stream:
        sub = frame_stream(name, members)
        if perm is not None:
            sub.candidates = [sub.candidates[i] for i in perm]  # type: ignore[attr-defined]
        return sub

    factory = stream_class(spec.function)
    assert factory.build is not None and not factory.dynamic
    request = _request(spec, len(frame), y, functions, build, columns=list(cols), frame=frame,
                       term_name=term_name, frame_stream=ordered_frame_stream)
    return factory.build(request)


def dynamic_class_streams(spec: StreamSpec, sources: dict[str, list[Stream]], stream_specs: list[str],
                          n: int, y: np.ndarray, functions: Mapping[str, Callable],
                          evaluate: Callable[[str], tuple[np.ndarray, list[str]]], build: ClassBuild
                          ) -> list[Stream]:
    """The streams of one dynamic item (``interactions()``), built after all the others.

    ``sources`` maps stream names (and the group name of ``clusters()``) to their streams;
    ``stream_specs`` are the names of the ``stream()`` items, the default originals.
    """
    if spec.terms:
        raise FormulaError(f"{spec.text}: {spec.function}() takes stream names, not terms like {spec.terms[0]!r}")
    factory = stream_class(spec.function)
    assert factory.build is not None and factory.dynamic
    request = _request(spec, n, y, functions, build, sources=sources, default_sources=list(stream_specs),
                       evaluate=evaluate)
    return factory.build(request)


#: the name formula/design.py calls for ``interactions()``
interaction_streams = dynamic_class_streams
