"""Streams of the generated feature classes of a formula (no patsy here).

``pca()``, ``squares()``, ``transform()``, ``clusters()`` and ``interactions()`` items are
turned into streams by :func:`build_class_streams`; :mod:`.design` hands in an
``evaluate`` callable for anything that needs patsy.
"""
from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from typing import Callable, Mapping

import numpy as np
import pandas as pd

from ..streams.base import Stream
from ..streams.generated import (NAMED_TRANSFORMS, ColumnFunction, ColumnsStream, DerivedColumns,
                                 cluster_columns, fit_pca, transform_values)
from ..streams.interactions import KINDS, AllPairs, InteractionPool, SelectedProducts
from ..streams.ordering import Y_FREE_ORDERS, candidate_order, order_uses_y
from .parse import FormulaError, StreamSpec

#: formula functions that generate candidates from matched columns
COLUMN_CLASSES = ("pca", "squares", "transform", "clusters")
_OPTIONS = {
    "stream": {"name", "exclude", "order", "seed"},
    "pca": {"name", "exclude", "k", "order", "seed"},
    "squares": {"name", "exclude", "order", "seed"},
    "transform": {"name", "exclude", "fn", "order", "seed"},
    "clusters": {"name", "exclude", "k", "order", "seed"},
    "interactions": {"name", "kind", "degree", "order", "seed"},
}


def check_options(spec: StreamSpec) -> None:
    """Unknown keyword arguments are errors, not silently ignored."""
    bad = set(spec.options) - _OPTIONS[spec.function]
    if bad:
        raise FormulaError(
            f"{spec.text}: unknown option(s) {sorted(bad)}; {spec.function}() takes "
            f"{sorted(_OPTIONS[spec.function])}"
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


def resolve_order(spec: StreamSpec, functions: Mapping[str, Callable]):
    """The ``order=`` option as a string or callable (names of ``functions`` allowed)."""
    order = spec.options.get("order", "given")
    if isinstance(order, str) and order in functions:
        return functions[order]
    if not isinstance(order, str):
        raise FormulaError(f"{spec.text}: order= must be a name, got {order!r}")
    try:
        order_uses_y(order)
    except ValueError:
        raise FormulaError(
            f"{spec.text}: unknown order {order!r}; use one of {list(Y_FREE_ORDERS)}, a screening "
            "method name, or the name of a function passed in functions="
        ) from None
    return order


@dataclass
class ClassBuild:
    """What the generated classes add to a design."""

    streams: dict[int, list[Stream]] = field(default_factory=dict)  # formula position -> streams
    derived: DerivedColumns = field(default_factory=DerivedColumns)
    y_ordered: list[str] = field(default_factory=list)  # streams whose order looked at y


def _ordered(spec, values, n, y, functions, label, build: ClassBuild) -> np.ndarray | None:
    order = resolve_order(spec, functions)
    if order_uses_y(order):
        build.y_ordered.append(label)
    return candidate_order(values, order, y=y, seed=spec.options.get("seed"), n=n, what=label)


def column_class_streams(spec: StreamSpec, cols: list[str], frame: pd.DataFrame, y: np.ndarray,
                         functions: Mapping[str, Callable], build: ClassBuild,
                         term_name: Callable[[str], str], frame_stream) -> list[Stream]:
    """Streams of one ``pca``/``squares``/``transform``/``clusters`` item."""
    label = stream_label(spec)
    x = frame[cols].to_numpy(dtype=float)
    if spec.function == "squares":
        names = [f"I({term_name(c)}**2)" for c in cols]
        vals = x**2
        perm = _ordered(spec, vals, len(cols), y, functions, label, build)
        return [ColumnsStream(label, names, lambda idx, v=vals: v[:, idx], perm)]
    if spec.function == "transform":
        fn = spec.options.get("fn")
        if fn is None:
            raise FormulaError(f"{spec.text}: transform() needs fn=, e.g. fn=log or fn=sqrt")
        if fn in NAMED_TRANSFORMS:
            vals = transform_values(x, fn, cols, spec.text)
            names = [NAMED_TRANSFORMS[fn][1].format(term_name(c)) for c in cols]
        elif isinstance(fn, str) and fn in functions:
            if not fn.isidentifier() or fn in frame.columns or fn in ("np", "I", "Q", "C"):
                raise FormulaError(f"{spec.text}: the function name {fn!r} cannot be used in a formula")
            vals = transform_values(x, functions[fn], cols, spec.text)
            build.derived.functions[fn] = ColumnFunction(functions[fn], fn)
            names = [f"{fn}({term_name(c)})" for c in cols]
        else:
            raise FormulaError(
                f"{spec.text}: unknown transform {fn!r}; use one of {sorted(NAMED_TRANSFORMS)} or "
                "the name of a function passed in functions="
            )
        perm = _ordered(spec, vals, len(cols), y, functions, label, build)
        return [ColumnsStream(label, names, lambda idx, v=vals: v[:, idx], perm)]
    if spec.function == "pca":
        explicit = "k" in spec.options
        k = spec.options.get("k", 50)
        if not explicit:
            k = min(50, len(cols), len(frame))
        prefix = _pca_prefix(spec, build, frame)
        pmap = fit_pca(x, cols, k, prefix, spec.text)
        build.derived.pca.append(pmap)
        scores = pmap.scores(frame)
        frame[pmap.names] = scores  # the refit and the interactions read them from the frame
        perm = _ordered(spec, scores, k, y, functions, label, build)
        return [ColumnsStream(label, pmap.names, lambda idx, v=scores: v[:, idx], perm)]
    # clusters: each cluster its own stream of the original columns
    if "k" not in spec.options:
        raise FormulaError(f"{spec.text}: clusters() needs k=, the number of clusters")
    labels = cluster_columns(x, spec.options["k"], int(spec.options.get("seed", 0)), spec.text)
    out = []
    for c in range(labels.max() + 1):
        members = [col for col, lab in zip(cols, labels) if lab == c]
        sub = frame_stream(f"{label}[{c + 1}]", members)
        vals = frame[members].to_numpy(dtype=float)
        perm = _ordered(spec, vals, len(members), y, functions, sub.name, build)
        if perm is not None:
            sub.candidates = [sub.candidates[i] for i in perm]
        out.append(sub)
    return out


def _pca_prefix(spec: StreamSpec, build: ClassBuild, frame: pd.DataFrame) -> str:
    name = spec.options.get("name")
    if name is not None:
        if not str(name).isidentifier():
            raise FormulaError(f"{spec.text}: name={name!r} must be a valid identifier (it prefixes pca columns)")
        prefix = str(name)
    else:
        used = {m.prefix for m in build.derived.pca}
        prefix = next(p for p in ("pca" if i == 1 else f"pca{i}" for i in range(1, 1000)) if p not in used)
    if any(c.startswith(prefix + "_") for c in frame.columns):
        raise FormulaError(
            f"{spec.text}: the data already have columns named {prefix}_*; give pca() a distinct name="
        )
    return prefix


def interaction_streams(spec: StreamSpec, sources: dict[str, list[Stream]], stream_specs: list[str],
                        n: int, y: np.ndarray, functions, evaluate, build: ClassBuild) -> list[Stream]:
    """The streams of one ``interactions()`` item.

    ``sources`` maps stream names (and the group name of ``clusters()``) to their streams;
    ``stream_specs`` are the names of the ``stream()`` items, the default originals.
    """
    if spec.terms:
        raise FormulaError(f"{spec.text}: interactions() takes stream names, not terms like {spec.terms[0]!r}")
    if spec.args:
        unknown = [a for a in spec.args if a not in sources]
        if unknown:
            raise FormulaError(f"{spec.text}: no stream is called {unknown[0]!r}; streams: {sorted(sources)}")
        chosen = [s for a in spec.args for s in sources[a]]
    else:
        if not stream_specs:
            raise FormulaError(
                f"{spec.text}: interactions() multiplies the candidates of stream() items, but the "
                "formula has none; add e.g. stream(x*) or name the streams to use"
            )
        chosen = [s for a in stream_specs for s in sources[a]]
    kinds = spec.options.get("kind", (1, 2))
    kinds = (kinds,) if isinstance(kinds, int) else tuple(kinds)
    if not kinds or any(k not in KINDS for k in kinds) or len(set(kinds)) != len(kinds):
        raise FormulaError(f"{spec.text}: kind= must be 1, 2, 3 or a tuple of them, got {spec.options['kind']!r}")
    degree = spec.options.get("degree", 2)
    if not isinstance(degree, int) or degree < 2:
        raise FormulaError(f"{spec.text}: degree= must be an integer >= 2, got {degree!r}")

    names: list[str] = []
    owners: list[tuple[Stream, int]] = []
    for s in chosen:
        for i, nm in enumerate(s.term_names):
            if nm not in names:
                names.append(nm)
                owners.append((s, i))
    if len(names) < 2 and 3 in kinds:
        raise FormulaError(f"{spec.text}: kind 3 needs at least two original candidates")
    single = all(s.is_single_column(i) for s, i in owners)

    def matrix() -> np.ndarray:
        return np.column_stack([s.term_values(i)[:, 0] for s, i in owners])

    def values(i: int) -> np.ndarray:
        s, j = owners[i]
        return s.term_values(j)

    label = str(spec.options.get("name") or "interactions")
    order = resolve_order(spec, functions)
    perm = None
    if not (isinstance(order, str) and order == "given"):
        if order_uses_y(order):
            build.y_ordered.append(label)
        perm = candidate_order(matrix() if single else None, order, y=y, seed=spec.options.get("seed"),
                               n=len(names), what=label)
    pool = InteractionPool(names, values, matrix if single else None, evaluate, kinds=kinds, degree=degree,
                           order=perm)
    out: list[Stream] = []
    for k in sorted(kinds):
        if k == 3:
            pool.kind3 = AllPairs(f"{label}[3]", pool, n)
            out.append(pool.kind3)
        else:
            st = SelectedProducts(f"{label}[{k}]", pool, k, n)
            setattr(pool, f"kind{k}", st)
            out.append(st)
    return out
