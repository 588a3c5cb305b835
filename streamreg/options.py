"""Validation of every user option of :func:`~streamreg.streamreg` and :func:`~streamreg.select`.

Both entry points call :func:`check_options` first, so a bad value is refused before any
data are read, with a message that names the option, and the rest of the package may
assume clean values: the search methods get a frozen :class:`SearchOptions` (a positive
``int`` block size, ``None`` or a count for each stopping rule, ...), validated when it is
built, and the method itself is constructed and checked against the family, ``passes=``
and ``history=``.  Options of the selection method (``w0=``, ``alpha_delta=``, ``lam=``,
...) are checked against the signature of the method's constructor, so an unknown keyword
is reported with the list of valid ones (and a "did you mean") instead of failing inside
the constructor, whose own range checks use the validators here (:func:`check_choice`,
:func:`check_integer`, :func:`check_number`).

Offsets and weights (``offset=``, ``exposure=``, ``freq_weights=``, ``var_weights=``, with
statsmodels' names and meanings) are checked in two steps: their types, signs, missing values
and compatibility with the family and the method in :func:`check_options`, their length and
the data columns they name, once the rows are known, in :func:`observation_weights`.

The response is checked here too (:func:`check_response`): a constant response, a
binomial response with one class, or negative Poisson counts make the selection
meaningless, and the model states would otherwise fail later with messages about the
fixed terms.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import statsmodels.api as sm

from .cov_options import check_cov_type, cov_structure
from .method_options import check_method
from .models import resolve_family, spec_of
from .models.base import ObservationWeights
from .streams.decoys import DecoyOptions, check_decoys
from .validators import (
    _got,
    _is_int,
    _is_real,
    check_bool,
    check_choice,
    check_count,
    check_integer,
    check_number,
)
from .weight_options import (
    _check_weights_fit_method,
    check_weight_column,
    check_weight_options,
    observation_weights,
)

if TYPE_CHECKING:  # search/ imports this module: its types are for annotations only
    from .search.method import SearchMethod
    from .streams.ordering import Order

#: the stopping rules of a search, in the order they are named in messages
STOPPING_RULES = ("max_tests", "max_selected", "time_budget")

#: keyword options of the two entry points (for "did you mean" hints on misspelt options)
STREAMREG_OPTIONS = ("family", "method", "test", "block_size", "max_tests", "max_selected", "time_budget",
                     "missing", "verbose", "multistream", "passes", "functions", "validate", "seed", "history",
                     "offset", "exposure", "freq_weights", "var_weights", "cov_type", "cov_kwds", "decoys", "decoy_fdr")
SELECT_OPTIONS = ("fixed", "intercept", "family", "method", "test", "block_size", "max_tests", "max_selected",
                  "time_budget", "verbose", "order", "seed", "history", "passes", "offset", "exposure",
                  "freq_weights", "var_weights", "cov_type", "cov_kwds", "decoys", "decoy_fdr")

#: the offset and weight options (statsmodels' ``GLM`` keywords), in the order they are reported
WEIGHT_OPTIONS = ObservationWeights.FIELDS

#: values of ``history=``: one row per candidate, or only the accepted and refused candidates' rows
HISTORY_MODES = ("full", "none")

#: ``method=None``: alpha-investing (Zhou et al. 2006) with a small initial wealth and payout,
#: its wealth spread evenly over the stream (``spending="uniform"``), over three passes.
#: Chosen by simulation against abess, knockoff+, stepwise and the lasso (bench/bench_power.py,
#: bench/results/bench_power.txt): the papers' 0.5/0.5 admits many false terms (FDR 0.26 at
#: m = 1e5), front-loaded bids leave no wealth for late signals, and the later passes test
#: candidates against a model that holds the strong signals.  Options given with ``method=None``
#: override these; ``method="alpha-investing"`` is the papers' rule with their defaults.
DEFAULT_METHOD = "alpha-investing"
DEFAULT_RULE_OPTIONS: Mapping[str, Any] = {"w0": 0.05, "alpha_delta": 0.05, "spending": "uniform"}
#: passes of the default rule over streams that hold their candidates (arrays, frames, generated
#: columns that re-read by position); streams that read their candidates lazily (generators,
#: Dask) get one pass unless ``passes=`` is given, so that no default keeps a copy of every
#: rejected candidate of a long stream
DEFAULT_PASSES = 3


@dataclass(frozen=True)
class SearchOptions:
    """What every search method is run with, validated (and normalised) when built.

    ``block_size`` (speed only), the stopping rules ``max_tests``, ``max_selected`` and
    ``time_budget`` (``math.inf`` is stored as None: no limit), ``verbose``, ``history``,
    ``multistream`` and ``passes``, with the meanings of :func:`~streamreg.streamreg`.  A
    method applies what concerns it; :func:`check_options` refuses a ``history`` or
    ``passes`` the method does not take (``SearchMethod.history_modes``, ``multipass``).

    Examples
    --------
    >>> SearchOptions(block_size=0)
    Traceback (most recent call last):
        ...
    ValueError: block_size must be a positive integer, got 0
    """

    block_size: int = 512
    max_tests: int | None = None
    max_selected: int | None = None
    time_budget: float | None = None
    verbose: bool | int = False
    history: str = "full"
    multistream: bool = True
    passes: int = 1
    #: passes over streams that do not hold their candidates (generators, Dask arrays,
    #: interactions; ``Stream.holds_candidates``), whose re-offers would have to keep every
    #: rejected candidate's values; None: ``passes``
    lazy_passes: int | None = None
    #: decoys shadowing the candidates (``decoys=``, ``decoy_fdr=``), validated by
    #: :func:`~streamreg.streams.decoys.check_decoys`; None: none
    decoys: DecoyOptions | None = None

    def __post_init__(self) -> None:
        checked = {
            "block_size": check_count("block_size", self.block_size, allow_none=False),
            "max_tests": check_count("max_tests", self.max_tests, minimum=0, allow_inf=True),
            "max_selected": check_count("max_selected", self.max_selected, minimum=0, allow_inf=True),
            "time_budget": _check_time_budget(self.time_budget),
            "verbose": _check_verbose(self.verbose),
            "history": _check_history(self.history),
            "multistream": check_bool("multistream", self.multistream),
            "passes": check_integer("passes", self.passes),
            "lazy_passes": None if self.lazy_passes is None else check_integer("lazy_passes", self.lazy_passes),
        }
        for name, value in checked.items():
            object.__setattr__(self, name, value)  # frozen: normalised once, here

    def passes_for(self, holds_candidates: bool) -> int:
        """The passes over a stream that does (or does not) hold its candidates in memory."""
        return self.passes if holds_candidates or self.lazy_passes is None else self.lazy_passes

    @property
    def has_stopping_rule(self) -> bool:
        """True when the search stops by itself (a finite test, selection or time limit)."""
        return any(getattr(self, r) is not None for r in STOPPING_RULES)


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


# ---------------------------------------------------------------------------------------
# scalar checks
# ---------------------------------------------------------------------------------------












def _check_time_budget(value: Any) -> float | None:
    if value is None or (_is_real(value) and value == math.inf):
        return None
    if not _is_real(value):
        raise TypeError(f"time_budget must be a number of seconds or None, got {_got(value)}")
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"time_budget must be a positive number of seconds, got {value!r}")
    return float(value)


def _check_verbose(value: Any) -> bool | int:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if not _is_int(value):
        raise TypeError(f"verbose must be True, False or a number of tests between reports, got {_got(value)}")
    if value < 0:
        raise ValueError(f"verbose must be a non-negative number of tests, got {value!r}")
    return int(value)


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


def _check_history(history: object) -> str:
    """``"full"`` or ``"none"`` (whether the method keeps it is checked with the method)."""
    if not isinstance(history, str):
        raise TypeError(f"history must be 'full' or 'none', got {_got(history)}")
    if history not in HISTORY_MODES:
        raise ValueError(f"history must be 'full' or 'none', got {history!r}")
    return history








def _check_order(order: object) -> Order:
    if order is None or isinstance(order, str) or callable(order):
        return order
    raise TypeError(f"order must be a name ('given', 'variance', 'random', a screening method) or a callable, "
                    f"got {_got(order)}")


# ---------------------------------------------------------------------------------------
# offsets and weights
# ---------------------------------------------------------------------------------------













def check_family(family: Any) -> tuple[Any, str]:
    """A statsmodels family instance and its short name; a family *class* gets a hint."""
    if isinstance(family, type) and issubclass(family, sm.families.Family):
        raise TypeError(f"family must be a name or a statsmodels family instance; got the class "
                        f"{family.__name__}: pass sm.families.{family.__name__}() instead")
    return resolve_family(family)


def check_test(test: Any, family: Any) -> str | None:
    """None (the family's default test) or one of the family's test names."""
    return spec_of(family).check_test(test)  # FamilySpec.tests


# ---------------------------------------------------------------------------------------
# method options
# ---------------------------------------------------------------------------------------


















def _check_method_fits(searcher: SearchMethod, method: object, family: Any, search: SearchOptions) -> None:
    """What the method cannot do, refused before any data is read: the family, passes, history."""
    searcher.check_family(family)  # grafting and BP-SFS: ValueError naming the supported families
    if search.passes != 1 and not searcher.multipass:
        raise ValueError(f"passes= applies to streamwise policies, not to method {method!r}")
    if search.history not in searcher.history_modes:
        name = method if isinstance(method, str) else type(method).__name__
        raise ValueError(f"history={search.history!r} applies to the streamwise policies only, not to method "
                         f"{name!r}, which keeps its own history; use history='full' (the default)")


# ---------------------------------------------------------------------------------------
# all options at once
# ---------------------------------------------------------------------------------------


def default_method(method: Any, passes: Any, method_options: dict | None) -> tuple[Any, Any, dict]:
    """``method=None`` and ``passes=None`` resolved: the default rule (:data:`DEFAULT_METHOD` with
    :data:`DEFAULT_RULE_OPTIONS`, which the given options override) over :data:`DEFAULT_PASSES`
    passes; any named method runs one pass unless ``passes=`` says otherwise.

    Examples
    --------
    >>> default_method(None, None, {"w0": 0.1})
    ('alpha-investing', 3, {'w0': 0.1, 'alpha_delta': 0.05, 'spending': 'uniform'})
    >>> default_method("lord++", None, {})
    ('lord++', 1, {})
    """
    options = dict(method_options or {})
    if method is None:
        return DEFAULT_METHOD, DEFAULT_PASSES if passes is None else passes, {**DEFAULT_RULE_OPTIONS, **options}
    return method, 1 if passes is None else passes, options


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
    offset, exposure, freq_weights, var_weights : optional
        Checked by :func:`check_weight_options` (their lengths later, by
        :func:`observation_weights`); stored in ``Options.weights``.
    cov_type, cov_kwds : optional
        Checked by :func:`check_cov_type` (the groups' length later, by :func:`cov_structure`).
    decoys, decoy_fdr : optional
        Checked by :func:`~streamreg.streams.decoys.check_decoys` (a seed is drawn when
        ``seed`` is None); only a method that ``takes_decoys`` (the streamwise search) accepts them.
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
    method, passes, method_options = default_method(method, passes, method_options)
    search = SearchOptions(block_size=block_size, max_tests=max_tests, max_selected=max_selected,
                           time_budget=time_budget, verbose=verbose, history=history, multistream=multistream,
                           passes=passes, lazy_passes=lazy_passes,
                           decoys=check_decoys(decoys, decoy_fdr, _check_seed(seed)))
    # an explicit math.inf means "no limit, read the stream to its end"
    unlimited = any(_is_real(v) and v == math.inf for v in (max_tests, max_selected, time_budget))
    top_level = STREAMREG_OPTIONS if entry == "streamreg" else SELECT_OPTIONS
    searcher = check_method(method, dict(method_options or {}), top_level)
    _check_method_fits(searcher, method, fam, search)
    if search.decoys is not None and not getattr(searcher, "takes_decoys", False):
        raise ValueError(f"decoys= shadow the candidates of a streamwise search under a wealth rule; "
                         f"method {method if isinstance(method, str) else searcher.name!r} runs its own search "
                         "and takes no decoys")
    weights = check_weight_options({"offset": offset, "exposure": exposure, "freq_weights": freq_weights,
                                    "var_weights": var_weights}, fam, entry=entry)
    _check_weights_fit_method(searcher, method, weights)
    cov, groups, robust_tests = check_cov_type(cov_type, cov_kwds, fam, test, searcher, weights, entry=entry)
    return Options(
        family=fam, family_name=fam_name, method=searcher, test=check_test(test, fam), search=search,
        unlimited=unlimited, seed=_check_seed(seed), missing=_check_missing(missing),
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


# ---------------------------------------------------------------------------------------
# the response
# ---------------------------------------------------------------------------------------


def _format_value(v: float) -> str:
    return f"{v:g}" if math.isfinite(v) else repr(v)


def check_response(y: np.ndarray, family: Any, name: str) -> None:
    """Refuse a response that leaves nothing to select or that the family cannot model.

    Parameters
    ----------
    y : ndarray
        The response on the rows used (0/1 for the binomial family).
    family : statsmodels family
    name : str
        The response's name, for the messages.
    """
    y = np.asarray(y, dtype=float)
    if y.size == 0:
        raise ValueError(f"the response {name!r} has no values")
    lo, hi = float(np.min(y)), float(np.max(y))
    response = spec_of(family).response  # what the family's response must be
    if response == "binary" and lo == hi and lo in (0.0, 1.0):
        raise ValueError(f"the binomial response {name!r} has a single class: every row is {_format_value(lo)}; "
                         "both classes are needed to select anything")
    # rounding noise on a constant (e.g. 0.1 + 0.2 - 0.3) is constant too
    if hi - lo <= 8 * np.finfo(float).eps * max(abs(lo), abs(hi)):
        raise ValueError(f"the response {name!r} is constant (every value is {_format_value(lo)}): "
                         "there is nothing for the candidates to explain")
    if response == "counts" and lo < 0:
        n_neg = int((y < 0).sum())
        raise ValueError(f"a {type(family).__name__} response must be non-negative counts; {name!r} has "
                         f"{n_neg} negative value(s) (smallest {_format_value(lo)})")
    if response == "positive" and lo <= 0:
        n_bad = int((y <= 0).sum())
        raise ValueError(f"a {type(family).__name__} response must be positive; {name!r} has {n_bad} value(s) "
                         f"<= 0 (smallest {_format_value(lo)})")


__all__ = [  # the checks of the modules this one gathers are imported from here
    "HISTORY_MODES", "SELECT_OPTIONS", "STOPPING_RULES", "STREAMREG_OPTIONS", "WEIGHT_OPTIONS", "Options",
    "SearchOptions", "check_bool", "check_choice", "check_count", "check_cov_type", "check_family", "check_integer",
    "check_method", "check_number", "check_options", "check_response", "check_test", "check_weight_column",
    "check_weight_options", "cov_structure", "observation_weights", "require_stopping_rule",
]
