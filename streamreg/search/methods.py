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
``"screen-confirm"``     a lenient streamwise screen, then every candidate tested once against the
                         screened model (:mod:`.confirm`; options ``w0=``, ``alpha_delta=``, ``screen_w0=``)
=======================  =================================================================

Underscores may replace hyphens.  ``Stepwise``, ``Grafting`` and ``BPSFS`` instances (any
:class:`~.method.SearchMethod`) are accepted as ``method=`` too.  The streamwise fixed
penalties stay ``"aic"``, ``"bic"``, ``"ric"``.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..policies import Policy, get_policy, policy_factory, policy_names
from .confirm import ScreenConfirm
from .fsa_method import FSA
from .method import SearchMethod
from .penalised import BPSFS, Grafting
from .stepwise import Stepwise
from .streamwise import Streamwise

#: the methods with their own loop: name -> (constructor, the options the name fixes)
_OWN_LOOP: dict[str, tuple[Callable[..., SearchMethod], tuple[str, ...]]] = {
    "stepwise": (Stepwise, ()),
    "stepwise-aic": (Stepwise, ("penalty",)),
    "stepwise-bic": (Stepwise, ("penalty",)),
    "stepwise-ric": (Stepwise, ("penalty",)),
    "grafting": (Grafting, ()),
    "bp-sfs": (BPSFS, ()),
    "bpsfs": (BPSFS, ()),
    "fsa": (FSA, ()),
    "screen-confirm": (ScreenConfirm, ()),
}
#: the fixed options of the names that fix some
_FIXED: dict[str, dict[str, Any]] = {"stepwise-aic": {"penalty": "aic"}, "stepwise-bic": {"penalty": "bic"},
                                     "stepwise-ric": {"penalty": "ric"}}


def _own_loop_key(name: str) -> str:
    return name.lower().replace("_", "-")


def method_names(*, aliases: bool = True) -> list[str]:
    """Every name ``method=`` accepts: the registered policies and the methods of the table above.

    Hyphenated (underscores are accepted too) and sorted; ``aliases=False`` gives one name per
    constructor and fixed penalty (the longest of its aliases: ``lord++``, ``bp-sfs``), as the
    command line lists them.

    Examples
    --------
    >>> names = method_names()
    >>> "alpha-investing" in names and "stepwise-bic" in names and "bpsfs" in names
    True
    >>> "bpsfs" in method_names(aliases=False)
    False
    """
    own = set(_OWN_LOOP)
    if not aliases:
        longest: dict[tuple[Any, ...], str] = {}  # (constructor, fixed options) -> its longest name
        for name, (factory, _) in _OWN_LOOP.items():
            target = (factory, tuple(_FIXED.get(name, {}).items()))
            if len(name) > len(longest.get(target, "")):
                longest[target] = name
        own = set(longest.values())
    return sorted(set(policy_names(aliases=aliases)) | own)


def method_factory(name: str) -> tuple[Callable[..., Any], tuple[str, ...]] | None:
    """The constructor behind ``method=name`` and the options the name fixes, or None if unknown.

    The constructor's keyword parameters, less the fixed ones, are the options the method
    takes; its ``OPTION_KINDS`` (if it declares them) say their kinds.

    Examples
    --------
    >>> method_factory("stepwise-bic")
    (<class 'streamreg.search.stepwise.Stepwise'>, ('penalty',))
    >>> method_factory("LORD++")[0].__name__, method_factory("magic")
    ('LORDPlusPlus', None)
    """
    key = _own_loop_key(name)
    if key in _OWN_LOOP:
        return _OWN_LOOP[key]
    factory = policy_factory(name)
    return None if factory is None else (factory, ())


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
    if isinstance(method, str) and _own_loop_key(method) in _OWN_LOOP:
        key = _own_loop_key(method)
        factory: Callable[..., SearchMethod] = _OWN_LOOP[key][0]
        return factory(**_FIXED.get(key, {}), **options)
    try:
        return Streamwise(get_policy(method, **options))
    except ValueError as exc:
        if isinstance(method, str) and str(exc).startswith("unknown method"):
            raise ValueError(f"unknown method {method!r}; known methods: {', '.join(method_names())}") from None
        raise


__all__ = ["BPSFS", "FSA", "Grafting", "SearchMethod", "Stepwise", "Streamwise", "method_factory", "method_names",
           "resolve_method"]
