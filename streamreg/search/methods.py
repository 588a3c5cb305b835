"""``method=``: from a name or an instance to a :class:`~.method.SearchMethod`.

Policies (alpha-investing, LORD++, streamwise AIC/BIC/RIC, ...) run in the streamwise
driver (:class:`~.streamwise.Streamwise`); the methods here bring their own loop:

=======================  =================================================================
``"stepwise-aic"``       forward stepwise, ``k = 2`` (options: ``direction="both"``, ...)
``"stepwise-bic"``       forward stepwise, ``k = log n``
``"stepwise-ric"``       forward stepwise, ``k = 2 log m`` (option ``m=``)
``"stepwise"``           forward stepwise, option ``penalty=`` (default ``"aic"``)
``"grafting"``           Perkins and Theiler (2003) (options ``lam=``, ``cv=``, ``basis="rbf"``, ...)
``"bp-sfs"``             Wang and Luan (2019) (options ``c=``, ``lambda0=``, ...)
``"fsa"``                M. Wang (2021), Feature Selection with Annealing (option ``k=``, required)
=======================  =================================================================

Underscores may replace hyphens.  ``Stepwise``, ``Grafting`` and ``BPSFS`` instances (any
:class:`~.method.SearchMethod`) are accepted as ``method=`` too.  The streamwise fixed
penalties stay ``"aic"``, ``"bic"``, ``"ric"``.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..policies import Policy, get_policy
from ..policies.registry import _REGISTRY
from .fsa_method import FSA
from .method import SearchMethod
from .penalised import BPSFS, Grafting
from .stepwise import Stepwise
from .streamwise import Streamwise

_METHODS: dict[str, Callable[..., SearchMethod]] = {
    "stepwise": Stepwise,
    "stepwise-aic": lambda **kw: Stepwise("aic", **kw),
    "stepwise-bic": lambda **kw: Stepwise("bic", **kw),
    "stepwise-ric": lambda **kw: Stepwise("ric", **kw),
    "grafting": Grafting,
    "bp-sfs": BPSFS,
    "bpsfs": BPSFS,
    "fsa": FSA,
}


def _key(name: str) -> str:
    return name.lower().replace("_", "-")


def resolve_method(method: str | Policy | SearchMethod, **options: Any) -> SearchMethod:
    """The search method for ``method=`` and its options: a fresh one for every search.

    A name of the table above or a :class:`SearchMethod` instance gives that method; a
    policy name or a :class:`~streamreg.policies.Policy` gives the streamwise search under
    it.  Raises ValueError for unknown names, listing every known method.

    Examples
    --------
    >>> resolve_method("alpha-investing", w0=0.05, alpha_delta=0.05).rule
    alpha-investing(w0=0.05, alpha_delta=0.05)
    >>> resolve_method("stepwise-bic").rule.name
    'stepwise'
    """
    if isinstance(method, SearchMethod):
        if options:
            raise TypeError("options cannot be combined with a method instance; set them on the instance")
        return method.spawn()
    if isinstance(method, str) and _key(method) in _METHODS:
        return _METHODS[_key(method)](**options)
    try:
        return Streamwise(get_policy(method, **options))
    except ValueError as exc:
        if isinstance(method, str) and str(exc).startswith("unknown method"):
            known = sorted({k.replace("_", "-") for k in _REGISTRY} | set(_METHODS))
            raise ValueError(f"unknown method {method!r}; known methods: {', '.join(known)}") from None
        raise


__all__ = ["BPSFS", "FSA", "Grafting", "SearchMethod", "Stepwise", "Streamwise", "resolve_method"]
