"""Validation of every user option of :func:`~streamreg.streamreg` and :func:`~streamreg.select`.

Both entry points call :func:`check_options` first, so a bad value is refused before any
data are read, with a message that names the option, and the rest of the package may
assume clean values.  Each option is checked once, by one function: the search's own
options by :class:`~streamreg.search.options.SearchOptions` (built here), ``method=`` and
its options by :mod:`.method`, the offsets and weights by :mod:`.weights`, ``cov_type=``
by :mod:`.cov`, the family, the test and the rest here; the result is a frozen
:class:`Options`.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import statsmodels.api as sm

from ..models import resolve_family, spec_of
from ..search.method import SearchMethod
from ..search.options import SearchOptions
from ..streams.decoys import check_decoys
from ..streams.ordering import Order
from ..validators import _got, _is_int, _is_real, check_bool
from .cov import check_cov_type
from .method import check_method, check_method_fits, check_method_weights, default_method
from .weights import check_weight_options

#: keyword options of the two entry points (for "did you mean" hints on misspelt options)
STREAMREG_OPTIONS = ("family", "method", "test", "block_size", "max_tests", "max_selected", "time_budget",
                     "missing", "verbose", "multistream", "passes", "functions", "validate", "seed", "history",
                     "offset", "exposure", "freq_weights", "var_weights", "cov_type", "cov_kwds", "decoys", "decoy_fdr")
SELECT_OPTIONS = ("fixed", "intercept", "family", "method", "test", "block_size", "max_tests", "max_selected",
                  "time_budget", "verbose", "order", "seed", "history", "passes", "offset", "exposure",
                  "freq_weights", "var_weights", "cov_type", "cov_kwds", "decoys", "decoy_fdr")


@dataclass(frozen=True, eq=False)
class Options:
    """The validated options of one call.

    ``method`` is the constructed :class:`~streamreg.search.method.SearchMethod` (for a
    wealth rule, the streamwise driver around it) and ``search`` what it is run with.  A
    stopping rule given as ``math.inf`` means "no limit" and is stored as None with
    ``unlimited`` set: the user has said that an unknown-length stream may be read to its
    end.
    """

    family: Any
    family_name: str
    method: SearchMethod
    test: str | None
    search: SearchOptions
    unlimited: bool
    seed: Any
    missing: str = "drop"
    functions: Mapping[str, Any] | None = None
    validate: Any = None
    intercept: bool = True
    order: Any = None
    #: the offset and weight options given: option -> data column name or checked float array
    weights: Mapping[str, Any] | None = None
    #: statsmodels' covariance type of the refit and, for a streamwise search, of the candidate tests
    cov_type: str = "nonrobust"
    #: ``cov_type="cluster"``: the groups, a data column name or an array (length checked later)
    cov_groups: Any = None
    #: whether the search's candidate tests use ``cov_type`` (stepwise and the penalised searches
    #: decide by criteria and penalties, so there it concerns the refit only)
    robust_tests: bool = False


def _check_seed(seed: Any) -> int | np.random.Generator | np.random.SeedSequence | None:
    if seed is None or isinstance(seed, (np.random.Generator, np.random.SeedSequence)):
        return seed
    if not _is_int(seed):
        raise TypeError(f"seed must be a non-negative integer or None, got {_got(seed)}")
    if seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    return int(seed)


def _check_missing(missing: Any) -> str:
    if missing not in ("drop", "raise"):
        raise ValueError(f"missing must be 'drop' or 'raise', got {missing!r}")
    return missing


def _check_validate(validate: Any) -> Any:
    """A fraction in (0, 1), a boolean mask or row labels (checked against the data later)."""
    if validate is None:
        return None
    if isinstance(validate, (bool, np.bool_)):
        raise TypeError("validate must be a fraction in (0, 1), a boolean mask or row labels, got a single bool")
    if _is_real(validate):
        if not (math.isfinite(validate) and 0 < validate < 1):
            raise ValueError(f"validate as a fraction must lie in (0, 1), got {validate!r}")
        return float(validate)
    if isinstance(validate, (str, bytes)) or not np.iterable(validate):
        raise TypeError(f"validate must be a fraction in (0, 1), a boolean mask or row labels, got {_got(validate)}")
    return validate


def _check_functions(functions: object) -> dict[str, Callable[..., Any]] | None:
    if functions is None:
        return None
    if not isinstance(functions, Mapping):
        raise TypeError(f"functions must be a mapping from names to callables, got {_got(functions)}")
    bad = [k for k, f in functions.items() if not isinstance(k, str) or not callable(f)]
    if bad:
        raise TypeError(f"functions must map names (str) to callables; check the entries {bad[:5]}")
    return dict(functions)  # a copy: the caller's mapping is never modified


def _check_order(order: object) -> Order:
    if order is None or isinstance(order, str) or callable(order):
        return order
    raise TypeError(f"order must be a name ('given', 'variance', 'random', a screening method) or a callable, "
                    f"got {_got(order)}")


def check_family(family: Any) -> tuple[Any, str]:
    """A statsmodels family instance and its short name; a family *class* gets a hint."""
    if isinstance(family, type) and issubclass(family, sm.families.Family):
        raise TypeError(f"family must be a name or a statsmodels family instance; got the class "
                        f"{family.__name__}: pass sm.families.{family.__name__}() instead")
    return resolve_family(family)


def check_test(test: Any, family: Any) -> str | None:
    """None (the family's default test) or one of the family's test names."""
    return spec_of(family).check_test(test)  # FamilySpec.tests


def check_options(*, family: Any = "gaussian", method: Any = None, test: str | None = None,
                  block_size: Any = 512, max_tests: Any = None, max_selected: Any = None,
                  time_budget: Any = None, verbose: Any = False, seed: Any = None, missing: Any = "drop",
                  multistream: Any = True, passes: Any = None, functions: Any = None, validate: Any = None,
                  intercept: Any = True, order: Any = None, history: Any = "full",
                  method_options: dict | None = None, offset: Any = None, exposure: Any = None,
                  freq_weights: Any = None, var_weights: Any = None, cov_type: Any = "nonrobust",
                  cov_kwds: Any = None, decoys: Any = None, decoy_fdr: Any = None,
                  entry: str = "streamreg") -> Options:
    """Validate every option of one call; returns them as a frozen :class:`Options`.

    Parameters
    ----------
    method, method_options : optional
        Resolved by :func:`~.method.default_method`, checked and built by
        :func:`~.method.check_method`, checked against what the method can do by
        :func:`~.method.check_method_fits`.
    offset, exposure, freq_weights, var_weights : optional
        Checked by :func:`~.weights.check_weight_options` (their lengths later, by
        :func:`~.weights.observation_weights`); stored in ``Options.weights``.
    cov_type, cov_kwds : optional
        Checked by :func:`~.cov.check_cov_type` (the groups' length later, by
        :func:`~.cov.cov_structure`).
    decoys, decoy_fdr : optional
        Checked by :func:`~streamreg.streams.decoys.check_decoys`; the call then draws them from
        its own seed (``res.seed``, drawn when ``seed`` is None); only a method that ``takes_decoys`` (the streamwise search) accepts
        them (:func:`~.method.check_method_fits`).
    entry : {"streamreg", "select"}
        Which entry point is calling (for the "did you mean" hints of misspelt options).

    Raises
    ------
    TypeError
        An option of the wrong type, or an unknown keyword option.
    ValueError
        An option out of range (the message names the option and the accepted values).
    """
    fam, fam_name = check_family(family)
    lazy_passes = 1 if method is None and passes is None else None
    method, passes, method_options = default_method(method, passes, method_options, decoys=decoys is not None)
    seed = _check_seed(seed)
    search = SearchOptions(block_size=block_size, max_tests=max_tests, max_selected=max_selected,
                           time_budget=time_budget, verbose=verbose, history=history, multistream=multistream,
                           passes=passes, lazy_passes=lazy_passes, decoys=check_decoys(decoys, decoy_fdr, seed))
    # an explicit math.inf means "no limit, read the stream to its end"
    unlimited = any(_is_real(v) and v == math.inf for v in (max_tests, max_selected, time_budget))
    top_level = STREAMREG_OPTIONS if entry == "streamreg" else SELECT_OPTIONS
    searcher = check_method(method, dict(method_options or {}), top_level)
    can = check_method_fits(searcher, method, fam, search)
    weights = check_weight_options({"offset": offset, "exposure": exposure, "freq_weights": freq_weights,
                                    "var_weights": var_weights}, fam, entry=entry)
    check_method_weights(can, method, weights)
    cov, groups, robust_tests = check_cov_type(cov_type, cov_kwds, fam, test, can, weights, entry=entry)
    return Options(
        family=fam, family_name=fam_name, method=searcher, test=check_test(test, fam), search=search,
        unlimited=unlimited, seed=seed, missing=_check_missing(missing),
        functions=_check_functions(functions), validate=_check_validate(validate),
        intercept=check_bool("intercept", intercept), order=_check_order(order), weights=weights,
        cov_type=cov, cov_groups=groups, robust_tests=robust_tests,
    )


def require_stopping_rule(opts: Options, unbounded: list[str]) -> None:
    """Refuse streams of unknown length that nothing would stop.

    ``unbounded`` names the streams whose length is not known in advance (generators,
    iterators without ``len``).  A method that reads them lazily would run for ever on an
    infinite one, its history growing, so a stopping rule is required unless the user said
    ``math.inf`` explicitly.
    """
    if not unbounded or opts.search.has_stopping_rule or opts.unlimited or not opts.method.reads_lazily:
        return
    which = ", ".join(repr(s) for s in unbounded)
    raise ValueError(
        f"stream {which} is a generator or iterator of unknown length and no stopping rule is set, so the "
        "search would never end if it is infinite: pass max_tests=, max_selected= or time_budget= "
        "(or max_tests=math.inf to read a finite generator to its end, or pass a list)"
    )
