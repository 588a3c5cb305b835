"""Map ``method=`` strings to policy classes, so new rules need no change in the driver.

The table is read through :func:`get_policy`, :func:`policy_factory` and :func:`policy_names`
and changed through :func:`register_policy` and :func:`unregister_policy` only.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .base import Policy
from .foster_stine import FosterStine
from .investing import AlphaInvesting, InformationInvesting
from .online_fdr import ADDIS, LOND, SAFFRON, AlphaInvestingFDR, AlphaSpending, LORDPlusPlus
from .penalties import AIC, BIC, RIC

_REGISTRY: dict[str, Callable[..., Policy]] = {
    "alpha-investing": AlphaInvesting,
    "alpha_investing": AlphaInvesting,
    "information-investing": InformationInvesting,
    "information_investing": InformationInvesting,
    "lord++": LORDPlusPlus,
    "lord": LORDPlusPlus,
    "lond": LOND,
    "saffron": SAFFRON,
    "addis": ADDIS,
    "alpha-spending": AlphaSpending,
    "alpha_spending": AlphaSpending,
    "alpha-investing-fdr": AlphaInvestingFDR,
    "alpha_investing_fdr": AlphaInvestingFDR,
    "foster-stine": FosterStine,
    "foster_stine": FosterStine,
    "aic": AIC,
    "bic": BIC,
    "ric": RIC,
}


def register_policy(name: str, factory: Callable[..., Policy]) -> None:
    """Make ``method=name`` build ``factory(**options)``.

    Parameters
    ----------
    name : str
        The name ``method=`` will accept (case ignored); an existing name is replaced.
    factory : callable
        Called with the method's options as keywords; returns a new :class:`Policy`.

    Examples
    --------
    >>> import numpy as np, streamreg as sr
    >>> from streamreg.policies import AlphaInvesting, register_policy
    >>> register_policy("cautious", lambda **options: AlphaInvesting(w0=0.01, alpha_delta=0.01, **options))
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(80, 20)); y = X[:, 3] + 0.5 * rng.normal(size=80)
    >>> sr.select(y, X, method="cautious").policy_description
    'alpha-investing(w0=0.01, alpha_delta=0.01)'
    >>> unregister_policy("cautious")  # leave the registry as shipped
    """
    _REGISTRY[name.lower()] = factory


def unregister_policy(name: str) -> None:
    """Forget a name given to :func:`register_policy` (KeyError if it is not registered).

    Examples
    --------
    >>> from streamreg.policies import AlphaInvesting, policy_names, register_policy, unregister_policy
    >>> register_policy("cautious", AlphaInvesting)
    >>> unregister_policy("cautious")
    >>> "cautious" in policy_names()
    False
    """
    try:
        del _REGISTRY[name.lower()]
    except KeyError:
        raise KeyError(f"no policy registered as {name!r}") from None


def policy_factory(name: str) -> Callable[..., Policy] | None:
    """The constructor (or factory) registered as ``name``, or None.

    Examples
    --------
    >>> from streamreg.policies import policy_factory
    >>> policy_factory("LORD++").__name__, policy_factory("no-such-rule")
    ('LORDPlusPlus', None)
    """
    return _REGISTRY.get(name.lower())


def policy_names(*, aliases: bool = True) -> list[str]:
    """The registered names, hyphenated and sorted; ``aliases=False``: one per factory (its longest name).

    Examples
    --------
    >>> from streamreg.policies import policy_names
    >>> "alpha-investing" in policy_names(), "lord" in policy_names(), "lord" in policy_names(aliases=False)
    (True, True, False)
    """
    if aliases:
        return sorted({k.replace("_", "-") for k in _REGISTRY})
    by_factory: dict[int, str] = {}
    for key, factory in _REGISTRY.items():
        name = key.replace("_", "-")
        if len(name) > len(by_factory.get(id(factory), "")):
            by_factory[id(factory)] = name
    return sorted(by_factory.values())


def get_policy(method: str | Policy, **options: Any) -> Policy:
    """Return a fresh policy for ``method`` (a registered name or a Policy instance).

    Parameters
    ----------
    method : str or Policy
        A registered name (case ignored, ``_`` for ``-``) or an instance, which is copied
        (:meth:`Policy.spawn`).
    **options
        The rule's parameters, for a name only.

    Returns
    -------
    Policy
        A new, unstarted rule.

    Raises
    ------
    ValueError
        For an unknown name (the message lists the known ones).
    TypeError
        For options given with an instance, or a ``method`` of another type.

    Examples
    --------
    >>> from streamreg.policies import AlphaInvesting, get_policy
    >>> get_policy("lord++", alpha=0.1)
    lord++(alpha=0.1, w0=0.01)
    >>> rule = AlphaInvesting(w0=0.05, alpha_delta=0.05)
    >>> copy = get_policy(rule)  # an unstarted copy with the same parameters
    >>> copy, copy is rule
    (alpha-investing(w0=0.05, alpha_delta=0.05), False)
    """
    if isinstance(method, Policy):
        if options:
            raise TypeError("options cannot be combined with a Policy instance; set them on the instance")
        return method.spawn()
    if not isinstance(method, str):
        raise TypeError(f"method must be a name or a Policy instance, got {type(method).__name__}")
    try:
        factory = _REGISTRY[method.lower()]
    except KeyError:
        known = ", ".join(policy_names())
        raise ValueError(f"unknown method {method!r}; known methods: {known}") from None
    return factory(**options)
