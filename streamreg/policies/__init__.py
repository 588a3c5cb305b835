"""Selection rules: which candidate enters, test by test.

See :mod:`streamreg.policies.base` for the interface a new rule implements.
"""
from .base import Plan, Policy
from .investing import AlphaInvesting, InformationInvesting
from .registry import get_policy, register_policy

__all__ = ["Plan", "Policy", "AlphaInvesting", "InformationInvesting", "get_policy", "register_policy"]
