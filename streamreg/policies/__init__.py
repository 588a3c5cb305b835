"""Selection rules: which candidate enters, test by test.

See :mod:`streamreg.policies.base` for the interface a new rule implements.
"""
from .base import Plan, Policy
from .foster_stine import FosterStine
from .investing import AlphaInvesting, InformationInvesting
from .online_fdr import ADDIS, LOND, SAFFRON, AlphaInvestingFDR, AlphaSpending, LORDPlusPlus
from .penalties import AIC, BIC, RIC, FixedPenalty
from .registry import get_policy, policy_factory, policy_names, register_policy, unregister_policy

__all__ = ["Plan", "Policy", "AlphaInvesting", "InformationInvesting", "get_policy", "register_policy"]
__all__ += ["policy_factory", "policy_names", "unregister_policy"]
__all__ += [
    "LORDPlusPlus", "LOND", "SAFFRON", "ADDIS", "AlphaSpending", "AlphaInvestingFDR",
    "FosterStine", "FixedPenalty", "AIC", "BIC", "RIC",
]
