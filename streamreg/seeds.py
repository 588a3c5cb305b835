"""The seed of a call's random choices, drawn when none is given so that any run can be repeated.

``validate=`` as a fraction splits the rows at random, ``order="random"`` permutes a
stream's candidates, and ``decoys="permuted"`` or ``"knockoff"`` draws decoys.  Without ``seed=`` the call draws one (from the operating system's
entropy, so ``np.random.seed`` neither fixes nor is disturbed by it), uses it as if it had
been given, and records it on the results (``res.seed``) and in the summary: passing it back
as ``seed=`` repeats the split, the orders and the decoys exactly.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np


def draw_seed() -> int:
    """A fresh seed below 2**32 from the operating system's entropy (numpy's global state untouched).

    Examples
    --------
    >>> seed = draw_seed()
    >>> 0 <= seed < 2**32
    True
    """
    return int(np.random.SeedSequence().generate_state(1)[0])


def is_random_order(order: object) -> bool:
    """Whether an ``order=`` value asks for a random permutation.

    Examples
    --------
    >>> is_random_order("Random"), is_random_order("given"), is_random_order(None)
    (True, False, False)
    """
    return isinstance(order, str) and order.lower() == "random"


@dataclass(frozen=True)
class SeedUse:
    """The seed a call used and what it drove.

    Attributes
    ----------
    seed : int, numpy Generator or SeedSequence, or None
        The seed given, or the one drawn; None when nothing was random.
    drawn : bool
        True when the call drew it (no ``seed=`` given).
    drives : tuple of str
        What it seeded: ``"the validate= split"``, ``"random orders"``, ``"the decoys"``.

    Examples
    --------
    >>> SeedUse(7, drawn=True, drives=("the validate= split",)).describe()
    '7 (drawn; seed=7 repeats the validate= split)'
    """

    seed: Any = None
    drawn: bool = False
    drives: tuple[str, ...] = ()

    def describe(self) -> str:
        """The seed as the summary prints it, and how to repeat the run."""
        what = " and ".join(self.drives)
        if isinstance(self.seed, np.random.Generator):
            return f"a numpy Generator (given; it seeds {what})"
        if isinstance(self.seed, np.random.SeedSequence):
            return f"SeedSequence(entropy={self.seed.entropy}) (given; it seeds {what})"
        if self.drawn:
            return f"{self.seed} (drawn; seed={self.seed} repeats {what})"
        return f"{self.seed} (given; it seeds {what})"


def seed_for(given: Any, *, split: bool, random_orders: bool, decoys: bool = False) -> tuple[Any, SeedUse]:
    """The seed to use, and what to record: the one given, else a drawn one when anything is random.

    Parameters
    ----------
    given : seed or None
        ``seed=`` as the options check left it.
    split : bool
        The rows are split at random (``validate=`` a fraction).
    random_orders : bool
        Some stream has ``order="random"`` without a seed of its own.
    decoys : bool
        The search draws decoys (``decoys="permuted"`` or ``"knockoff"``; a matrix is not drawn).

    Examples
    --------
    >>> seed, use = seed_for(5, split=True, random_orders=False)
    >>> seed, use.describe()
    (5, '5 (given; it seeds the validate= split)')
    >>> seed_for(None, split=False, random_orders=False)
    (None, SeedUse(seed=None, drawn=False, drives=()))
    """
    drives = tuple(what for what, used in (("the validate= split", split), ("random orders", random_orders),
                                           ("the decoys", decoys)) if used)
    if not drives:
        return given, SeedUse()
    if given is not None:
        return given, SeedUse(given, drawn=False, drives=drives)
    seed = draw_seed()
    return seed, SeedUse(seed, drawn=True, drives=drives)


def unseeded_random_items(options: Iterable[dict[str, Any]]) -> bool:
    """Whether any formula item (its options) orders its candidates at random without its own seed."""
    return any(is_random_order(o.get("order")) and "seed" not in o for o in options)
