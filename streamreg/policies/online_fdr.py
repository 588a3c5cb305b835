"""Online FDR and FWER rules with the update rules and defaults of R's ``onlineFDR``.

This module gathers them under one import path; each job lives in its own module:

* :mod:`~streamreg.policies.gamma_wealth`: LORD++, SAFFRON, ADDIS and ``Alpha_investing``,
  one wealth recursion planned block by block;
* :mod:`~streamreg.policies.spending`: LOND and alpha-spending, whose levels need no
  recursion;
* :mod:`~streamreg.policies.sequences`: the spending sequences (onlineFDR's defaults,
  computed lazily, and user sequences);
* :mod:`~streamreg.policies.online_common`: parameter checks and the ``p <= level``
  comparison on the log scale.

To run any of these rules on a plain vector of p-values, as ``onlineFDR`` does, use
:func:`streamreg.online_fdr`.

Examples
--------
>>> from streamreg.policies.online_fdr import LORDPlusPlus, lord_gamma
>>> LORDPlusPlus(alpha=0.1)
lord++(alpha=0.1, w0=0.01)
"""
from .gamma_wealth import (
    ADDIS,
    SAFFRON,
    AlphaInvestingFDR,
    GammaWealthRule,
    LORDPlusPlus,
)
from .sequences import lord_gamma, saffron_gamma
from .spending import LOND, AlphaSpending

__all__ = [
    "ADDIS", "LOND", "SAFFRON", "AlphaInvestingFDR", "AlphaSpending", "GammaWealthRule", "LORDPlusPlus",
    "lord_gamma", "saffron_gamma",
]
