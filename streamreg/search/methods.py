"""``method=`` names for the search drivers that are not streamwise policies.

Policies (alpha-investing, LORD++, streamwise AIC/BIC/RIC, ...) plug into the streamwise
loop; the methods here bring their own loop and return the same kind of SearchResult:

=======================  =================================================================
``"stepwise-aic"``       forward stepwise, ``F = 2`` (options: ``direction="both"``, ...)
``"stepwise-bic"``       forward stepwise, ``F = log n``
``"stepwise-ric"``       forward stepwise, ``F = 2 log m`` (option ``m=``)
``"stepwise"``           forward stepwise, option ``penalty=`` (default ``"aic"``)
``"grafting"``           paper 004 (options ``lam=``, ``cv=``, ``basis="rbf"``, ...)
``"bp-sfs"``             paper 003 (options ``c=``, ``lambda0=``, ...)
=======================  =================================================================

Underscores may replace hyphens.  ``Stepwise``, ``Grafting`` and ``BPSFS`` instances are
accepted as ``method=`` too.  The streamwise fixed penalties stay ``"aic"``, ``"bic"``,
``"ric"``.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from ..policies import get_policy
from ..policies.registry import _REGISTRY
from .penalised import BPSFS, Grafting
from .stepwise import Stepwise

SearchMethod = Stepwise | Grafting | BPSFS

_METHODS: dict[str, Callable[..., SearchMethod]] = {
    "stepwise": Stepwise,
    "stepwise-aic": lambda **kw: Stepwise("aic", **kw),
    "stepwise-bic": lambda **kw: Stepwise("bic", **kw),
    "stepwise-ric": lambda **kw: Stepwise("ric", **kw),
    "grafting": Grafting,
    "bp-sfs": BPSFS,
    "bpsfs": BPSFS,
}


def _key(name: str) -> str:
    return name.lower().replace("_", "-")


def resolve_method(method, **options):
    """``("search", driver)`` for the methods above, else ``("policy", policy)``.

    Raises ValueError for unknown names, listing every known method.
    """
    if isinstance(method, (Stepwise, Grafting, BPSFS)):
        if options:
            raise TypeError("options cannot be combined with a method instance; set them on the instance")
        return "search", method.spawn()
    if isinstance(method, str) and _key(method) in _METHODS:
        return "search", _METHODS[_key(method)](**options)
    try:
        return "policy", get_policy(method, **options)
    except ValueError as exc:
        if isinstance(method, str) and str(exc).startswith("unknown method"):
            known = sorted({k.replace("_", "-") for k in _REGISTRY} | set(_METHODS))
            raise ValueError(f"unknown method {method!r}; known methods: {', '.join(known)}") from None
        raise


def run_search_method(method: SearchMethod, *, state, y, fixed, family, streams, block_size: int = 512,
                      max_tests=None, max_selected=None, time_budget=None):
    """Run a non-streamwise driver; returns its SearchResult subclass."""
    opts = dict(block_size=block_size, max_tests=max_tests, max_selected=max_selected, time_budget=time_budget)
    if not streams:
        raise ValueError("no candidate streams were given")
    if isinstance(method, Stepwise):
        return method.search(state, streams, fixed, **opts)
    return method.search(np.asarray(y, dtype=float), np.asarray(fixed, dtype=float), family, streams, **opts)


__all__ = ["resolve_method", "run_search_method", "Stepwise", "Grafting", "BPSFS"]
