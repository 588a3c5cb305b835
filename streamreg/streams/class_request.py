"""What a generated class's builder gets for one formula item (:class:`ClassRequest`).

Its own module, below the builders (:mod:`.generated`, :mod:`.interactions`) and the registry
that names them, so that none of them imports another to know the request's shape.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from .base import Stream
from .derived import DerivedColumns
from .ordering import Order, candidate_order, item_seed, order_uses_y, resolve_order

__all__ = ["Builder", "ClassRequest"]


@dataclass
class ClassRequest:
    """What a stream builder gets for one formula item, e.g. ``pca(x*, k=5)``.

    Column classes (not dynamic) get the matched ``columns`` and the ``frame`` of the
    rows used; dynamic classes get the streams built so far (``sources``).  The response
    is held privately, for y-dependent ``order=`` values only.
    """

    function: str  # the class name, e.g. "pca"
    text: str  # the item as written, for error messages
    args: list[str]  # positional arguments as written (globs, or stream names)
    options: Mapping[str, Any]  # keyword arguments, already checked against the factory's
    label: str  # the stream name: name= if given, else the item's text
    n: int  # number of rows used
    _y: np.ndarray = field(repr=False)
    functions: Mapping[str, Callable] = field(default_factory=dict)  # functions= of the call
    derived: DerivedColumns = field(default_factory=DerivedColumns)  # state the refit re-applies
    y_ordered: list[str] = field(default_factory=list)  # streams whose order looked at the response
    columns: list[str] = field(default_factory=list)
    frame: pd.DataFrame | None = None
    term_name: Callable[[str], str] = str  # a data column as a formula expression
    #: a stream of data columns ``(name, columns, permutation or None)``
    frame_stream: Callable[[str, list[str], np.ndarray | None], Stream] | None = None
    sources: Mapping[str, list[Stream]] = field(default_factory=dict)  # stream name -> streams
    default_sources: list[str] = field(default_factory=list)  # the stream() items' names
    evaluate: Callable[[str], tuple[np.ndarray, list[str]]] | None = None  # patsy coding of a term
    #: sub-streams ordered so far (clusters, interaction kinds): each gets its own derived seed
    _sub_orders: int = field(default=0, repr=False)

    @cached_property
    def values(self) -> np.ndarray:
        """The matched columns as one float matrix (rows used x columns)."""
        if self.frame is None:
            raise ValueError(f"{self.text}: {self.function}() is dynamic and has no matched columns")
        return self.frame[self.columns].to_numpy(dtype=float)

    def resolved_order(self) -> Order:
        """The ``order=`` option as a string or callable (checked; ``"given"`` if absent)."""
        return resolve_order(self.options.get("order", "given"), self.functions, self.text)

    def order(self, values: np.ndarray | None, *, n: int | None = None, label: str | None = None) -> np.ndarray | None:
        """The permutation ``order=`` gives the candidates (columns of ``values``), or None.

        ``label`` names the stream in messages and in the results' report of streams
        ordered by the response (default: ``self.label``).
        """
        order = self.resolved_order()
        seed = self.options.get("seed")
        if label is not None and label != self.label:
            # one of the item's several streams: a seed of its own, or clusters of one size
            # would all get the same permutation
            seed, self._sub_orders = item_seed(seed, self._sub_orders), self._sub_orders + 1
        label = self.label if label is None else label
        if order_uses_y(order):
            self.y_ordered.append(label)
        return candidate_order(values, order, y=self._y, seed=seed,
                               n=n if n is not None else len(self.columns), what=label)


#: a builder: one formula item's request -> its streams
Builder = Callable[[ClassRequest], list[Stream]]
