"""The option layer: every user option of the entry points checked once, before any data is read.

It sits above the search (:mod:`streamreg.search`), whose methods it builds and whose
:func:`~streamreg.search.method.capabilities` it asks, and below the entry points
(:mod:`streamreg.api`, the command line, :func:`~streamreg.online_fdr`).

* :mod:`.options` -- :func:`check_options`, the frozen :class:`Options` of one call;
* :mod:`.method` -- ``method=`` and its options, the default rule;
* :mod:`.weights` -- ``offset=``, ``exposure=``, ``freq_weights=``, ``var_weights=``;
* :mod:`.cov` -- ``cov_type=`` and ``cov_kwds=``;
* :mod:`.response` -- the response, once the rows are known.
"""
from .cov import check_cov_type, cov_structure
from .method import (
    DEFAULT_METHOD,
    DEFAULT_PASSES,
    DEFAULT_RULE_OPTIONS,
    check_method,
    check_method_options,
    default_method,
    method_options,
)
from .options import (
    SELECT_OPTIONS,
    STREAMREG_OPTIONS,
    Options,
    check_family,
    check_options,
    check_test,
    require_stopping_rule,
)
from .response import check_response
from .weights import WEIGHT_OPTIONS, check_weight_column, check_weight_options, observation_weights, weight_array

__all__ = [
    "DEFAULT_METHOD", "DEFAULT_PASSES", "DEFAULT_RULE_OPTIONS", "SELECT_OPTIONS", "STREAMREG_OPTIONS", "WEIGHT_OPTIONS",
    "Options", "check_cov_type", "check_family", "check_method", "check_method_options", "check_options",
    "check_response", "check_test", "check_weight_column", "check_weight_options", "cov_structure", "default_method",
    "method_options", "observation_weights", "require_stopping_rule", "weight_array",
]
