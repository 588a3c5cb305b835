"""Map ``method=`` strings to policy classes, so new rules need no change in the driver."""
from __future__ import annotations

from typing import Callable

from .base import Policy
from .investing import AlphaInvesting, InformationInvesting
from .foster_stine import FosterStine
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
    """Make ``method=name`` build ``factory(**options)``."""
    _REGISTRY[name.lower()] = factory


def get_policy(method: "str | Policy", **options) -> Policy:
    """Return a fresh policy for ``method`` (a registered name or a Policy instance)."""
    if isinstance(method, Policy):
        if options:
            raise TypeError("options cannot be combined with a Policy instance; set them on the instance")
        return method.spawn()
    if not isinstance(method, str):
        raise TypeError(f"method must be a name or a Policy instance, got {type(method).__name__}")
    try:
        factory = _REGISTRY[method.lower()]
    except KeyError:
        known = ", ".join(sorted({k.replace("_", "-") for k in _REGISTRY}))
        raise ValueError(f"unknown method {method!r}; known methods: {known}") from None
    return factory(**options)
