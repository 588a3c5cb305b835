"""The registry of generated feature classes: the formula functions that make streams.

Every formula function that introduces candidates -- ``stream()`` and the generated
classes ``pca()``, ``squares()``, ``transform()``, ``clusters()``, ``interactions()`` -- is
a :class:`StreamFactory` here.  The parser's set of stream functions and the formula
layer's option checks are read from this registry, so a new class is one builder and one
:func:`register_stream_class` call::

    def cubes(request: ClassRequest) -> list[Stream]:
        values = request.values ** 3
        names = [f"I({request.term_name(c)}**3)" for c in request.columns]
        return [ColumnsStream(request.label, names, lambda idx: values[:, idx], request.order(values))]

    register_stream_class("cubes", cubes)          # streamreg("y ~ cubes(x*)", df)

A builder receives a :class:`ClassRequest` and returns the item's streams.  It never sees
the response: ``request.order`` applies the item's ``order=`` (which may rank by the
response, and then reports it).  Term names must be patsy expressions of the data
columns, so that the refit and ``predict`` rebuild the selected terms on any data.
"""
from __future__ import annotations

import keyword
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass

from .class_request import Builder, ClassRequest
from .generated import (
    clusters_streams,
    pca_streams,
    squares_streams,
    transform_streams,
)
from .interactions import interaction_streams

__all__ = [
    "COLUMN_OPTIONS",
    "COMMON_OPTIONS",
    "ClassRequest",
    "StreamFactory",
    "register_stream_class",
    "stream_class",
    "stream_class_names",
    "unregister_stream_class",
]

#: options every stream function takes
COMMON_OPTIONS = frozenset({"name", "order", "seed"})
#: options of the functions whose arguments are column globs (every non-dynamic one)
COLUMN_OPTIONS = frozenset({"exclude"})
#: names a formula already gives a meaning: patsy's functions (formula/names.py's
#: _PATSY_NAMES, kept equal by a test) and the ``np`` of formula terms
RESERVED = frozenset({"np", "I", "Q", "C", "ContrastMatrix", "Treatment", "Poly", "Sum", "Helmert", "Diff",
                      "center", "standardize", "scale", "bs", "cr", "cc", "te"})



@dataclass(frozen=True)
class StreamFactory:
    """A formula function that introduces candidate streams.

    Attributes
    ----------
    name : str
        The formula function, e.g. ``"pca"``.
    build : callable or None
        ``build(request) -> list[Stream]``; None for ``stream()``, which the formula
        layer builds itself.
    options : frozenset of str
        Every keyword argument it takes (common ones included).
    dynamic : bool
        Whether its streams grow from accepted terms; it then takes stream names, not
        column globs, and is built after every other item.
    summary : str
        One line for help texts.
    """

    name: str
    build: Builder | None
    options: frozenset[str]
    dynamic: bool = False
    summary: str = ""


_REGISTRY: dict[str, StreamFactory] = {}
_BUILTIN: set[str] = set()


def register_stream_class(name: str, build: Builder, *, options: Collection[str] = (), dynamic: bool = False,
                          summary: str = "", replace: bool = False) -> StreamFactory:
    """Make ``name(...)`` a formula function whose streams ``build`` makes.

    Parameters
    ----------
    name : str
        The function name used in formulas; an identifier that patsy does not use.
    build : callable
        ``build(request: ClassRequest) -> list[Stream]``.
    options : collection of str
        Keyword arguments beyond the common ones (``name``, ``order``, ``seed``, and
        ``exclude`` for column classes).
    dynamic : bool
        Whether the streams grow from accepted terms (see :class:`StreamFactory`).
    summary : str
        One line for help texts.
    replace : bool
        Replace a class registered earlier under ``name`` (never a built-in one).

    Returns
    -------
    StreamFactory

    Raises
    ------
    ValueError
        For a name already registered, a reserved or invalid name.
    TypeError
        When ``build`` is not callable.

    Examples
    --------
    >>> import numpy as np, pandas as pd, streamreg as sr
    >>> from streamreg.streams.generated import ColumnsStream
    >>> from streamreg.streams.registry import register_stream_class, unregister_stream_class
    >>> def cubes(request):
    ...     values = request.values ** 3
    ...     names = [f"I({request.term_name(c)}**3)" for c in request.columns]
    ...     return [ColumnsStream(request.label, names, lambda idx: values[:, idx], request.order(values))]
    >>> _ = register_stream_class("cubes", cubes, summary="cubes of the matched columns")
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame(rng.normal(size=(200, 3)), columns=["x1", "x2", "x3"])
    >>> df["y"] = df.x2 ** 3 + rng.normal(size=200)
    >>> sr.streamreg("y ~ cubes(x*)", df).selected_terms
    ['I(x2**3)']
    >>> unregister_stream_class("cubes")
    """
    if not isinstance(name, str) or not name.isidentifier() or keyword.iskeyword(name):
        raise ValueError(f"a stream class name must be a Python identifier, got {name!r}")
    if name in RESERVED:
        raise ValueError(f"{name!r} already means something in a formula (patsy or numpy); choose another name")
    if not callable(build):
        raise TypeError(f"build must be a callable request -> list of streams, got {type(build).__name__}")
    if name in _REGISTRY and (name in _BUILTIN or not replace):
        old = _REGISTRY[name]
        where = "a built-in class" if name in _BUILTIN else f"built by {getattr(old.build, '__qualname__', old.build)}"
        raise ValueError(f"a stream class called {name!r} is already registered ({where}); choose another name"
                         + ("" if name in _BUILTIN else ", or pass replace=True"))
    extra = frozenset(options)
    bad = [o for o in extra if not (isinstance(o, str) and o.isidentifier())]
    if bad:
        raise ValueError(f"options of {name}() must be keyword names, got {bad}")
    common = COMMON_OPTIONS if dynamic else COMMON_OPTIONS | COLUMN_OPTIONS
    factory = StreamFactory(name, build, common | extra, bool(dynamic), summary)
    _REGISTRY[name] = factory
    return factory


def unregister_stream_class(name: str) -> None:
    """Remove a class registered with :func:`register_stream_class` (not a built-in one).

    Examples
    --------
    >>> from streamreg.streams.registry import unregister_stream_class
    >>> unregister_stream_class("pca")
    Traceback (most recent call last):
    ...
    ValueError: pca() is a built-in stream class and cannot be removed
    """
    if name in _BUILTIN:
        raise ValueError(f"{name}() is a built-in stream class and cannot be removed")
    if name not in _REGISTRY:
        raise KeyError(f"no stream class called {name!r} is registered")
    del _REGISTRY[name]


def stream_class(name: str) -> StreamFactory:
    """The factory of the formula function ``name``.

    Examples
    --------
    >>> from streamreg.streams.registry import stream_class
    >>> sorted(stream_class("pca").options)
    ['exclude', 'k', 'name', 'order', 'seed']
    """
    try:
        return _REGISTRY[name]
    except KeyError:
        raise KeyError(f"no stream class called {name!r}; registered: {sorted(_REGISTRY)}") from None


class _Names(Collection[str]):
    """A live view of registered names (classes registered later count too)."""

    def __init__(self, keep: Callable[[StreamFactory], bool]):
        self._keep = keep

    def _names(self) -> list[str]:
        return [n for n, f in _REGISTRY.items() if self._keep(f)]

    def __contains__(self, name: object) -> bool:
        f = _REGISTRY.get(name) if isinstance(name, str) else None
        return f is not None and self._keep(f)

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __len__(self) -> int:
        return len(self._names())

    def __repr__(self) -> str:
        return repr(tuple(self._names()))


def stream_class_names(*, dynamic: bool | None = None, built: bool | None = None) -> Collection[str]:
    """A live view of the registered formula functions.

    Parameters
    ----------
    dynamic : bool, optional
        Only the dynamic (True) or the non-dynamic (False) ones.
    built : bool, optional
        Only those with a builder (True: every one but ``stream``) or without.

    Examples
    --------
    >>> from streamreg.streams.registry import stream_class_names
    >>> sorted(stream_class_names(dynamic=False, built=True))
    ['clusters', 'pca', 'squares', 'transform']
    >>> "stream" in stream_class_names()
    True
    """
    return _Names(lambda f: (dynamic is None or f.dynamic == dynamic)
                  and (built is None or (f.build is not None) == built))


def _builtin(name: str, build: Builder | None, options: Collection[str], summary: str,
             dynamic: bool = False) -> None:
    common = COMMON_OPTIONS if dynamic else COMMON_OPTIONS | COLUMN_OPTIONS
    _REGISTRY[name] = StreamFactory(name, build, common | frozenset(options), dynamic, summary)
    _BUILTIN.add(name)


_builtin("stream", None, (), "data columns and terms, matched by globs")
_builtin("pca", pca_streams, ("k",), "principal components of the matched columns")
_builtin("squares", squares_streams, (), "squares of the matched columns")
_builtin("transform", transform_streams, ("fn",), "a function (fn=) of each matched column")
_builtin("clusters", clusters_streams, ("k",), "k-means clusters of the matched columns, a stream each")
_builtin("interactions", interaction_streams, ("kind", "degree"),
         "products of selected terms with selected terms and originals", dynamic=True)
