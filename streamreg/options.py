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

import difflib
import inspect
import math
import numbers
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import statsmodels.api as sm

from .models import is_ols, resolve_family
from .models.base import ObservationWeights
from .policies import Policy

if TYPE_CHECKING:  # search/ imports this module: its types are for annotations only
    import pandas as pd

    from .search.method import SearchMethod
    from .streams.ordering import Order

#: the stopping rules of a search, in the order they are named in messages
STOPPING_RULES = ("max_tests", "max_selected", "time_budget")

_TESTS_OLS = ("t", "paper")
_TESTS_GLM = ("score", "lr")

#: keyword options of the two entry points (for "did you mean" hints on misspelt options)
STREAMREG_OPTIONS = ("family", "method", "test", "block_size", "max_tests", "max_selected", "time_budget",
                     "missing", "verbose", "multistream", "passes", "functions", "validate", "seed", "history",
                     "offset", "exposure", "freq_weights", "var_weights")
SELECT_OPTIONS = ("fixed", "intercept", "family", "method", "test", "block_size", "max_tests", "max_selected",
                  "time_budget", "verbose", "order", "seed", "history", "passes", "offset", "exposure",
                  "freq_weights", "var_weights")

#: the offset and weight options (statsmodels' ``GLM`` keywords), in the order they are reported
WEIGHT_OPTIONS = ObservationWeights.FIELDS

#: values of ``history=``: one row per candidate, or only the accepted and refused candidates' rows
HISTORY_MODES = ("full", "none")


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

    def __post_init__(self) -> None:
        checked = {
            "block_size": check_count("block_size", self.block_size, allow_none=False),
            "max_tests": check_count("max_tests", self.max_tests, minimum=0, allow_inf=True),
            "max_selected": check_count("max_selected", self.max_selected, allow_inf=True),
            "time_budget": _check_time_budget(self.time_budget),
            "verbose": _check_verbose(self.verbose),
            "history": _check_history(self.history),
            "multistream": check_bool("multistream", self.multistream),
            "passes": check_integer("passes", self.passes),
        }
        for name, value in checked.items():
            object.__setattr__(self, name, value)  # frozen: normalised once, here

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


# ---------------------------------------------------------------------------------------
# scalar checks
# ---------------------------------------------------------------------------------------


def _is_int(value: object) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


def _is_real(value: object) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def _got(value: object) -> str:
    return f"{value!r} ({type(value).__name__})"


def check_count(name: str, value: Any, *, minimum: int = 1, allow_none: bool = True,
                allow_inf: bool = False) -> int | None:
    """An integer ``>= minimum`` (or None / ``math.inf`` where allowed, returned as None)."""
    if value is None and allow_none:
        return None
    if allow_inf and _is_real(value) and value == math.inf:
        return None
    if not _is_int(value):
        kind = "a positive integer" if minimum == 1 else f"an integer >= {minimum}"
        raise TypeError(f"{name} must be {kind}{' or None' if allow_none else ''}, got {_got(value)}")
    if value < minimum:
        kind = "a positive integer" if minimum == 1 else f"an integer >= {minimum}"
        raise ValueError(f"{name} must be {kind}, got {value!r}")
    return int(value)


def check_bool(name: str, value: object) -> bool:
    """True or False (numpy booleans accepted)."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {_got(value)}")
    return bool(value)


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


def check_choice(name: str, value: Any, choices: tuple[Any, ...]) -> Any:
    """``value`` if it is one of ``choices``; else ValueError naming the option and the choices."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {value!r}")
    return value


def check_integer(name: str, value: Any, *, minimum: int = 1, allow_none: bool = False) -> int | None:
    """A method parameter: an integer ``>= minimum`` (or None where allowed); ValueError otherwise."""
    if value is None and allow_none:
        return None
    if not _is_int(value) or value < minimum:
        kind = {0: "a non-negative integer", 1: "a positive integer"}.get(minimum, f"an integer >= {minimum}")
        raise ValueError(f"{name} must be {kind}{' or None' if allow_none else ''}, got {value!r}")
    return int(value)


def check_number(name: str, value: Any, *, low: float = 0.0, high: float = math.inf, open_low: bool = False,
                 open_high: bool = True, what: str = "") -> float:
    """A method parameter: a real number in ``[low, high)`` (ends as given); ValueError otherwise.

    ``what`` replaces the interval in the message (e.g. ``"a finite non-negative number"``).
    """
    if not (_is_real(value) and (value > low if open_low else value >= low)
            and (value < high if open_high else value <= high)):  # NaN fails every comparison
        interval = f"{'(' if open_low else '['}{low:g}, {high:g}{')' if open_high else ']'}"
        raise ValueError(f"{name} must be {what or 'in ' + interval}, got {value!r}")
    return float(value)


def _check_order(order: object) -> Order:
    if order is None or isinstance(order, str) or callable(order):
        return order
    raise TypeError(f"order must be a name ('given', 'variance', 'random', a screening method) or a callable, "
                    f"got {_got(order)}")


# ---------------------------------------------------------------------------------------
# offsets and weights
# ---------------------------------------------------------------------------------------

_WEIGHT_MEANING = {
    "offset": "added to the linear predictor",
    "exposure": "log(exposure) added to the linear predictor",
    "freq_weights": "counts of identical observations",
    "var_weights": "prior weights dividing the variance",
}


def _weight_array(name: str, value: Any, where: str = "") -> np.ndarray:
    """A weight or offset option as a one-dimensional float array, its values checked.

    NaN and infinite values are refused (drop or fill those rows first), and so are an
    ``exposure`` that is not positive, negative ``freq_weights`` (zero drops a row) and
    ``var_weights`` that are not positive.  ``where`` names a data column in the messages.
    """
    label = f"{name}{where}"
    try:
        arr = np.asarray(value.to_numpy() if hasattr(value, "to_numpy") else value)
    except ValueError:  # ragged nested lists
        raise ValueError(f"{label} must be a one-dimensional array of numbers") from None
    if arr.dtype.kind not in "biuf":
        try:
            if arr.dtype.kind in "mMcUS":
                raise TypeError
            arr = arr.astype(float)
        except (TypeError, ValueError):
            raise ValueError(f"{label} must be numeric ({_WEIGHT_MEANING[name]}), got dtype {arr.dtype}") from None
    if arr.ndim != 1:
        raise ValueError(f"{label} must be one-dimensional (one value per observation), got shape {arr.shape}")
    arr = arr.astype(float)
    bad = np.flatnonzero(np.isnan(arr))
    if bad.size:
        raise ValueError(f"{label} has {bad.size} missing (NaN) value(s), the first at position {bad[0]}; drop "
                         "those rows or fill the values first")
    bad = np.flatnonzero(~np.isfinite(arr))
    if bad.size:
        raise ValueError(f"{label} has {bad.size} infinite value(s), the first at position {bad[0]}")
    if name == "exposure" and (arr <= 0).any():
        at = int(np.argmax(arr <= 0))
        raise ValueError(f"{label} must be positive (log(exposure) is added to the linear predictor); got "
                         f"{arr[at]:g} at position {at}")
    if name == "var_weights" and (arr <= 0).any():
        at = int(np.argmax(arr <= 0))
        zero = "; drop the rows of weight zero instead" if arr[at] == 0 else ""
        raise ValueError(f"{label} must be positive (they divide the variance of an observation); got "
                         f"{arr[at]:g} at position {at}{zero}")
    if name == "freq_weights":
        if (arr < 0).any():
            at = int(np.argmax(arr < 0))
            raise ValueError(f"{label} must be non-negative counts of observations; got {arr[at]:g} at position {at}")
        if arr.size and not (arr > 0).any():
            raise ValueError(f"{label} are all zero: no observation is counted")
    return arr


def check_weight_options(options: Mapping[str, Any], family: Any, *, entry: str = "streamreg") -> dict[str, Any]:
    """The offset and weight options given, checked before the data are read.

    Parameters
    ----------
    options : mapping
        ``offset``, ``exposure``, ``freq_weights``, ``var_weights`` (None when not given).
        Each is a data column name (:func:`~streamreg.streamreg` only) or an array with one
        value per observation, with statsmodels' meanings (``sm.GLM``).
    family : statsmodels family
        ``exposure`` needs a log link (statsmodels refuses it otherwise).
    entry : {"streamreg", "select"}

    Returns
    -------
    dict
        Option name -> column name (str) or float array (values checked, length not yet).

    Examples
    --------
    >>> import statsmodels.api as sm
    >>> check_weight_options({"offset": [0.0, 1.0], "exposure": None}, sm.families.Poisson())
    {'offset': array([0., 1.])}
    >>> check_weight_options({"exposure": [1.0, 0.0]}, sm.families.Poisson())
    Traceback (most recent call last):
        ...
    ValueError: exposure must be positive (log(exposure) is added to the linear predictor); got 0 at position 1
    """
    out: dict[str, Any] = {}
    for name in WEIGHT_OPTIONS:
        value = options.get(name)
        if value is None:
            continue
        if isinstance(value, str):
            if entry != "streamreg":
                raise TypeError(f"{name} must be an array with one value per observation in select(); column "
                                f"names ({name}={value!r}) refer to the data of a streamreg() formula call")
            out[name] = value
            continue
        if isinstance(value, (bytes, Mapping)) or not np.iterable(value) or _is_real(value):
            raise TypeError(f"{name} must be {'a column name of the data or ' if entry == 'streamreg' else ''}"
                            f"an array with one value per observation, got {_got(value)}")
        out[name] = _weight_array(name, value)
    if "offset" in out and "exposure" in out:
        raise ValueError("pass offset= or exposure=, not both: exposure enters as log(exposure) added to the "
                         "linear predictor, so add np.log(exposure) to the offset instead")
    if "exposure" in out and not isinstance(family.link, sm.families.links.Log):
        raise ValueError(f"exposure= needs a log link (log(exposure) is added to the linear predictor); the "
                         f"{type(family).__name__.lower()} family here has the {type(family.link).__name__} link: "
                         "pass offset= instead")
    return out


def observation_weights(specs: Mapping[str, Any] | None, n: int, frame: pd.DataFrame | None = None,
                        rows: np.ndarray | None = None) -> ObservationWeights:
    """The checked options as :class:`~streamreg.models.base.ObservationWeights` on the rows used.

    Parameters
    ----------
    specs : mapping
        :func:`check_weight_options`' result (``Options.weights``).
    n : int
        Rows of the data (or observations of ``y`` in :func:`~streamreg.select`): an array
        must have this length.
    frame : DataFrame, optional
        Where column names are looked up, on the rows used.
    rows : array of positions, optional
        The rows used (after missing values were dropped or a sample held out): the
        arrays are cut to them.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> specs = {"offset": "t", "var_weights": np.array([1.0, 2.0, 3.0])}
    >>> w = observation_weights(specs, 3, pd.DataFrame({"t": [0.0, 2.0]}), rows=np.array([0, 2]))
    >>> w.offset, w.var_weights, w.names
    (array([0., 2.]), array([1., 3.]), {'offset': 't'})
    >>> observation_weights({"var_weights": np.ones(2)}, 3)
    Traceback (most recent call last):
        ...
    ValueError: var_weights has 2 values, but the data have 3 rows
    """
    if not specs:
        return ObservationWeights()
    values: dict[str, np.ndarray] = {}
    names: dict[str, str] = {}
    for name, spec in specs.items():
        if isinstance(spec, str):
            check_weight_column(name, spec, frame)
            assert frame is not None  # refused above otherwise
            values[name] = _weight_array(name, frame[spec], where=f" (column {spec!r})")
            names[name] = spec
        else:
            if len(spec) != n:
                raise ValueError(f"{name} has {len(spec)} values, but the data have {n} rows")
            values[name] = spec if rows is None else spec[rows]
    return ObservationWeights(**values, names=names)


def check_weight_column(name: str, column: str, data: pd.DataFrame | None) -> None:
    """Refuse a column name given for ``name`` that is not a column of ``data``."""
    if data is None or column not in data.columns:
        columns = [] if data is None else [str(c) for c in data.columns]
        close = difflib.get_close_matches(column, columns, n=1, cutoff=0.75)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ValueError(f"{name}={column!r} is not a column of the data{hint}")


def _check_weights_fit_method(searcher: SearchMethod, method: object, weights: Mapping[str, Any]) -> None:
    """Grafting and BP-SFS fit their own penalised models, which take no offset or weights."""
    from .search.penalised import BPSFS, Grafting

    if weights and isinstance(searcher, (Grafting, BPSFS)):
        name = method if isinstance(method, str) else type(method).__name__
        raise ValueError(f"{', '.join(n + '=' for n in weights)} cannot be used with method {name!r}: its "
                         "penalised fits take no offset or weights; use a streamwise policy or stepwise search")


def check_family(family: Any) -> tuple[Any, str]:
    """A statsmodels family instance and its short name; a family *class* gets a hint."""
    if isinstance(family, type) and issubclass(family, sm.families.Family):
        raise TypeError(f"family must be a name or a statsmodels family instance; got the class "
                        f"{family.__name__}: pass sm.families.{family.__name__}() instead")
    return resolve_family(family)


def check_test(test: Any, family: Any) -> str | None:
    """None (the family's default test) or one of the family's test names."""
    if test is None:
        return None
    known = _TESTS_OLS if is_ols(family) else _TESTS_GLM
    which = "the Gaussian family" if is_ols(family) else "GLMs"
    if test not in known:
        raise ValueError(f"test must be one of {known} for {which}, got {test!r}")
    return test


# ---------------------------------------------------------------------------------------
# method options
# ---------------------------------------------------------------------------------------


def _method_factory(method: str) -> tuple[Callable[..., Any] | None, tuple[str, ...]]:
    """(constructor whose signature lists the options, options the factory fixes itself)."""
    from .policies.registry import _REGISTRY
    from .search.methods import _METHODS, Stepwise, _key

    key = _key(method)
    if key in _METHODS:
        if key.startswith("stepwise-"):  # "stepwise-aic" etc. fix the penalty
            return Stepwise, ("penalty",)
        return _METHODS[key], ()
    return _REGISTRY.get(method.lower()), ()


def _parameters(factory: Callable[..., Any]) -> list[inspect.Parameter] | None:
    """The keyword parameters of a constructor; None when unknowable (``**kwargs``)."""
    try:
        sig = inspect.signature(factory)
    except (TypeError, ValueError):
        return None
    params = [p for p in sig.parameters.values() if p.name != "self" and p.kind is not p.VAR_POSITIONAL]
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return None
    return params


def _unknown_option_message(key: str, method: str, valid: list[str], top_level: tuple[str, ...]) -> str:
    listed = ", ".join(valid) if valid else f"none (method {method!r} takes no options)"
    text = f"unknown option {key!r} for method {method!r}; valid options: {listed}"
    if key == "weights":  # R's glm(weights=) and statsmodels' WLS(weights=) are both var_weights=
        return (text + "; for weights pass var_weights= (prior weights dividing the variance, as R's glm "
                "weights= and statsmodels' WLS weights=) or freq_weights= (counts of identical observations)")
    close = difflib.get_close_matches(key, list(valid) + list(top_level), n=1, cutoff=0.75)
    if close:
        text += f" (did you mean {close[0]}=?)"
    return text


_TYPE_WORDS = {"float": "a number", "int": "an integer", "str": "a string", "bool": "True or False",
               "None": "None", "Sequence": "a sequence of numbers"}


def _check_annotated(name: str, value: Any, param: inspect.Parameter, method: str) -> None:
    """Type of one method option from the constructor's annotation (``float | None`` etc.).

    Annotations that name anything else (a class, a callable) are left to the constructor.
    """
    ann = param.annotation
    if ann is inspect.Parameter.empty:
        return
    tokens = set(re.findall(r"[A-Za-z_]+", ann if isinstance(ann, str) else inspect.formatannotation(ann)))
    if not tokens or not tokens <= set(_TYPE_WORDS):
        return
    ok = (
        (value is None and "None" in tokens)
        or (isinstance(value, (bool, np.bool_)) and "bool" in tokens)
        or (_is_int(value) and tokens & {"int", "float"})
        or (_is_real(value) and not _is_int(value) and "float" in tokens)
        or (isinstance(value, str) and "str" in tokens)
        or ("Sequence" in tokens and np.iterable(value) and not isinstance(value, (str, bytes, Mapping)))
    )
    if not ok:
        wanted = " or ".join(_TYPE_WORDS[t] for t in sorted(tokens, key=list(_TYPE_WORDS).index))
        raise TypeError(f"option {name} of method {method!r} must be {wanted}, got {_got(value)}")
    if _is_real(value) and not math.isfinite(value):
        raise ValueError(f"option {name} of method {method!r} must be finite, got {value!r}")


def _check_method_options(method: object, options: dict[str, Any], top_level: tuple[str, ...]) -> None:
    if not isinstance(method, str) or not options:
        return  # instances: resolve_method refuses options; unknown names: it lists the known ones
    factory, fixed = _method_factory(method)
    if factory is None:
        return
    params = _parameters(factory)
    if params is None:
        return
    by_name = {p.name: p for p in params if p.name not in fixed}
    for key, value in options.items():
        if key not in by_name:
            raise TypeError(_unknown_option_message(key, method, list(by_name), top_level))
        _check_annotated(key, value, by_name[key], method)


def _check_initial_wealth(policy: object) -> None:
    """Refuse an initial wealth that buys acceptances whatever the data.

    An alpha-wealth above 1 makes the first test's level ``w0 / 2`` at least 1/2 (at least
    1, i.e. accept whatever p, from ``w0 = 2``).  Information-investing counts its wealth
    in bits: there the first candidate enters whatever its statistic once the bid
    ``w0 / 2`` reaches ``2^w_delta``.
    """
    w0: Any = getattr(policy, "w0", None)  # duck-typed: any rule may name its parameters so
    if not _is_real(w0):
        return
    w_delta: Any = getattr(policy, "w_delta", None)
    if _is_real(w_delta):
        limit = 2.0 ** (1.0 + w_delta)
        if w0 >= limit:
            raise ValueError(f"w0 must be below 2^(1 + w_delta) = {limit:g} bits for information-investing, got "
                             f"{w0!r}: the first bid would pay for any candidate, whatever its statistic")
    elif w0 > 1:
        raise ValueError(f"w0 must be a number in (0, 1], got {w0!r}: the initial wealth is an error budget, "
                         "and a wealth above 1 lets the first tests pass whatever their p-value")


def check_method(method: object, options: dict[str, Any], top_level: tuple[str, ...] = ()) -> SearchMethod:
    """The :class:`~streamreg.search.method.SearchMethod` for ``method=`` and its keyword options.

    Unknown options are refused with the list of the method's valid ones; option types are
    checked against the constructor's annotations; the ranges are checked by the constructor.
    """
    from .search.methods import SearchMethod, resolve_method

    if not isinstance(method, (str, Policy, SearchMethod)):
        raise TypeError(f"method must be a name (e.g. 'alpha-investing') or a Policy / search method instance, "
                        f"got {_got(method)}")
    _check_method_options(method, options, top_level)
    searcher = resolve_method(method, **options)
    _check_initial_wealth(searcher.rule)
    return searcher


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


def check_options(*, family: Any = "gaussian", method: Any = "alpha-investing", test: str | None = None,
                  block_size: Any = 512, max_tests: Any = None, max_selected: Any = None,
                  time_budget: Any = None, verbose: Any = False, seed: Any = None, missing: Any = "drop",
                  multistream: Any = True, passes: Any = 1, functions: Any = None, validate: Any = None,
                  intercept: Any = True, order: Any = None, history: Any = "full",
                  method_options: dict | None = None, offset: Any = None, exposure: Any = None,
                  freq_weights: Any = None, var_weights: Any = None,
                  entry: str = "streamreg") -> Options:
    """Validate every option of one call; returns them as a frozen :class:`Options`.

    Parameters
    ----------
    offset, exposure, freq_weights, var_weights : optional
        Checked by :func:`check_weight_options` (their lengths later, by
        :func:`observation_weights`); stored in ``Options.weights``.
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
    search = SearchOptions(block_size=block_size, max_tests=max_tests, max_selected=max_selected,
                           time_budget=time_budget, verbose=verbose, history=history, multistream=multistream,
                           passes=passes)
    # an explicit math.inf means "no limit, read the stream to its end"
    unlimited = any(_is_real(v) and v == math.inf for v in (max_tests, max_selected, time_budget))
    top_level = STREAMREG_OPTIONS if entry == "streamreg" else SELECT_OPTIONS
    searcher = check_method(method, dict(method_options or {}), top_level)
    _check_method_fits(searcher, method, fam, search)
    weights = check_weight_options({"offset": offset, "exposure": exposure, "freq_weights": freq_weights,
                                    "var_weights": var_weights}, fam, entry=entry)
    _check_weights_fit_method(searcher, method, weights)
    return Options(
        family=fam, family_name=fam_name, method=searcher, test=check_test(test, fam), search=search,
        unlimited=unlimited, seed=_check_seed(seed), missing=_check_missing(missing),
        functions=_check_functions(functions), validate=_check_validate(validate),
        intercept=check_bool("intercept", intercept), order=_check_order(order), weights=weights,
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
    if isinstance(family, sm.families.Binomial) and lo == hi:
        raise ValueError(f"the binomial response {name!r} has a single class: every row is {_format_value(lo)}; "
                         "both classes are needed to select anything")
    # rounding noise on a constant (e.g. 0.1 + 0.2 - 0.3) is constant too
    if hi - lo <= 8 * np.finfo(float).eps * max(abs(lo), abs(hi)):
        raise ValueError(f"the response {name!r} is constant (every value is {_format_value(lo)}): "
                         "there is nothing for the candidates to explain")
    if isinstance(family, (sm.families.Poisson, sm.families.NegativeBinomial)) and lo < 0:
        n_neg = int((y < 0).sum())
        raise ValueError(f"a {type(family).__name__} response must be non-negative counts; {name!r} has "
                         f"{n_neg} negative value(s) (smallest {_format_value(lo)})")
    if isinstance(family, (sm.families.Gamma, sm.families.InverseGaussian)) and lo <= 0:
        n_bad = int((y <= 0).sum())
        raise ValueError(f"a {type(family).__name__} response must be positive; {name!r} has {n_bad} value(s) "
                         f"<= 0 (smallest {_format_value(lo)})")
