"""``method=`` and its options (``w0=``, ``alpha_delta=``, ``lam=``, ...): the default rule, the
method built, and what it cannot do refused before any data is read.

The options a named method takes are its constructor's keyword parameters: an unknown one is
refused with the valid ones and a "did you mean", a missing required one by name.  Their kinds
are those the constructor's class declares in ``OPTION_KINDS`` (:mod:`streamreg.validators`):
a value of another kind is refused with a message that names the method, before the
constructor runs.  Their values (ranges, and the bounds between them) are the constructor's
to check, once, so that a rule built directly (``AlphaInvesting(w0=2)``) is refused as
``method="alpha-investing", w0=2`` is.  What the method can do (family, ``passes=``,
``history=``, weights) is asked of its :func:`~streamreg.search.method.capabilities`.
"""
from __future__ import annotations

import difflib
import functools
import inspect
from collections.abc import Callable, Mapping
from typing import Any

from ..policies import Policy
from ..search.method import Capabilities, SearchMethod, capabilities
from ..search.methods import method_factory, resolve_method
from ..search.options import SearchOptions
from ..validators import _got, check_kind

#: ``method=None``: screen, then confirm (:mod:`streamreg.search.confirm`): a lenient streamwise
#: alpha-investing screen (``screen_w0`` 0.5, two passes), then every candidate tested once
#: against the screened model under alpha-investing with ``w0 = 0.05`` and payout 0.02, spread
#: evenly over the confirmation's tests.  Chosen by simulation against abess, knockoff+, stepwise
#: and the lasso (bench/bench_power.py, bench/results/bench_power.txt): a one-phase rule at small
#: levels misses true terms that arrive before their peers (power 0.77 on problem D against
#: abess's 1.0), the papers' 0.5/0.5 admits many false terms (FDR 0.26 at m = 1e5).  Options
#: given with ``method=None`` override these; ``method="alpha-investing"`` is the papers' rule
#: with their defaults.
DEFAULT_METHOD = "screen-confirm"
DEFAULT_RULE_OPTIONS: Mapping[str, Any] = {"w0": 0.05, "alpha_delta": 0.02, "screen_w0": 0.5}
#: passes of the default screen over streams that hold their candidates (arrays, frames, generated
#: columns that re-read by position); streams that read their candidates lazily (generators,
#: Dask) get one phase of one pass unless ``passes=`` is given, so that no default keeps a copy
#: of every rejected candidate of a long stream
DEFAULT_PASSES = 2
#: the default with ``decoys=``, which shadow each test of a one-phase search: alpha-investing
#: with the confirmation's wealth, spread evenly over three passes
DECOY_DEFAULT = ("alpha-investing", 3, {"w0": 0.05, "alpha_delta": 0.05, "spending": "uniform"})


def default_method(method: Any, passes: Any, method_options: dict | None,
                   decoys: bool = False) -> tuple[Any, Any, dict]:
    """``method=None`` and ``passes=None`` resolved: the default rule (:data:`DEFAULT_METHOD` with
    :data:`DEFAULT_RULE_OPTIONS`, which the given options override) over :data:`DEFAULT_PASSES`
    passes (:data:`DECOY_DEFAULT` with ``decoys``); any named method runs one pass unless
    ``passes=`` says otherwise.

    Examples
    --------
    >>> default_method(None, None, {"w0": 0.1})
    ('screen-confirm', 2, {'w0': 0.1, 'alpha_delta': 0.02, 'screen_w0': 0.5})
    >>> default_method(None, None, {}, decoys=True)
    ('alpha-investing', 3, {'w0': 0.05, 'alpha_delta': 0.05, 'spending': 'uniform'})
    >>> default_method("lord++", None, {})
    ('lord++', 1, {})
    """
    options = dict(method_options or {})
    if method is None:
        name, default_passes, defaults = DECOY_DEFAULT if decoys else \
            (DEFAULT_METHOD, DEFAULT_PASSES, DEFAULT_RULE_OPTIONS)
        return name, default_passes if passes is None else passes, {**defaults, **options}
    return method, 1 if passes is None else passes, options


@functools.lru_cache(maxsize=256)  # a class's signature does not change, and inspect is slow
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


def _declared(method: str) -> tuple[list[inspect.Parameter], Mapping[str, tuple[str, ...]]] | None:
    """The keyword parameters ``method=method`` takes and their declared kinds; None when unknowable."""
    found = method_factory(method)
    if found is None:
        return None  # unknown names: resolve_method lists the known ones
    factory, fixed = found
    params = _parameters(factory)
    if params is None:
        return None  # a factory taking **options: its constructor checks them
    kinds: Mapping[str, tuple[str, ...]] = getattr(factory, "OPTION_KINDS", {})  # a lambda declares none
    return [p for p in params if p.name not in fixed], kinds


def method_options(method: str) -> dict[str, tuple[str, ...]] | None:
    """The options ``method=method`` takes and the kinds each accepts (empty: any kind).

    None for an unknown name or a factory that takes ``**options``.  The command line
    derives its method flags from these.

    Examples
    --------
    >>> method_options("alpha-investing")
    {'w0': ('number',), 'alpha_delta': ('number',), 'spending': ('text',)}
    >>> method_options("stepwise-aic")["m"], "penalty" in method_options("stepwise-aic")
    (('integer', 'none'), False)
    """
    declared = _declared(method)
    if declared is None:
        return None
    params, kinds = declared
    return {p.name: tuple(kinds.get(p.name, ())) for p in params}


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


def check_method_options(method: object, options: Mapping[str, Any], top_level: tuple[str, ...] = ()) -> None:
    """Refuse options that ``method=method`` does not take, lacks, or gets of the wrong kind.

    ``top_level`` names the entry point's own options, for the "did you mean" hints.
    Instances and unknown names pass (:func:`~streamreg.search.methods.resolve_method`
    refuses options with an instance and lists the known names).

    Examples
    --------
    >>> check_method_options("lord++", {"alpha": 0.1})
    >>> check_method_options("lord++", {"alpha_delta": 0.1})
    Traceback (most recent call last):
        ...
    TypeError: unknown option 'alpha_delta' for method 'lord++'; valid options: alpha, w0, gammai, spending
    >>> check_method_options("fsa", {"k": "3"})
    Traceback (most recent call last):
        ...
    TypeError: option k of method 'fsa' must be an integer, got '3' (str)
    """
    declared = _declared(method) if isinstance(method, str) else None
    if declared is None:
        return
    assert isinstance(method, str)  # only names have declared options
    params, kinds = declared
    by_name = {p.name: p for p in params}
    required = [name for name, p in by_name.items() if p.default is p.empty and name not in options]
    if required:
        example = ", ".join(f"{name}=..." for name in required)
        raise TypeError(f"method {method!r} needs the option(s) {', '.join(required)} (e.g. method={method!r}, "
                        f"{example})")
    for key, value in options.items():
        if key not in by_name:
            raise TypeError(_unknown_option_message(key, method, list(by_name), top_level))
        check_kind(key, value, kinds.get(key, ()), method)


def check_method(method: object, options: dict[str, Any], top_level: tuple[str, ...] = ()) -> SearchMethod:
    """The :class:`~streamreg.search.method.SearchMethod` for ``method=`` and its keyword options.

    Unknown options are refused with the list of the method's valid ones and option kinds
    against the method's declaration (:func:`check_method_options`); the values are checked
    by the constructor.

    Examples
    --------
    >>> check_method("lord++", {"alpha": 0.1}).rule
    lord++(alpha=0.1, w0=0.01)
    >>> check_method(3, {})
    Traceback (most recent call last):
        ...
    TypeError: method must be a name (e.g. 'alpha-investing') or a Policy / search method instance, got 3 (int)
    """
    if not isinstance(method, (str, Policy, SearchMethod)):
        raise TypeError(f"method must be a name (e.g. 'alpha-investing') or a Policy / search method instance, "
                        f"got {_got(method)}")
    check_method_options(method, options, top_level)
    return resolve_method(method, **options)


def check_method_fits(searcher: SearchMethod, method: object, family: Any, search: SearchOptions) -> Capabilities:
    """What the method cannot do, refused before any data is read: the family, ``passes=``,
    ``history=`` and ``decoys=``.  Returns its capabilities (:func:`check_method_weights` asks
    them next).

    Examples
    --------
    >>> import statsmodels.api as sm
    >>> from streamreg.search import SearchOptions, resolve_method
    >>> check_method_fits(resolve_method("stepwise"), "stepwise", sm.families.Gaussian(), SearchOptions(passes=2))
    Traceback (most recent call last):
        ...
    ValueError: passes= applies to streamwise policies, not to method 'stepwise'
    """
    can = capabilities(searcher)
    searcher.check_family(family)  # grafting and BP-SFS: ValueError naming the supported families
    if search.passes != 1 and not can.multipass:
        raise ValueError(f"passes= applies to streamwise policies, not to method {method!r}")
    if search.history not in can.history_modes:
        raise ValueError(f"history={search.history!r} applies to the streamwise policies only, not to method "
                         f"{_method_name(method)!r}, which keeps its own history; use history='full' (the default)")
    if search.decoys is not None and not can.takes_decoys:
        raise ValueError(f"decoys= shadow the candidates of a streamwise search under a wealth rule; "
                         f"method {method if isinstance(method, str) else searcher.name!r} runs its own search "
                         "and takes no decoys")
    return can


def check_method_weights(can: Capabilities, method: object, weights: Mapping[str, Any]) -> None:
    """Refuse offsets and weights for a method whose fits take none (grafting, BP-SFS, FSA).

    Examples
    --------
    >>> from streamreg.search import capabilities, resolve_method
    >>> check_method_weights(capabilities(resolve_method("grafting")), "grafting", {"var_weights": [1.0, 2.0]})
    Traceback (most recent call last):
        ...
    ValueError: var_weights= cannot be used with method 'grafting': its penalised fits take no offset or weights; use a streamwise policy or stepwise search
    """
    if weights and not can.takes_weights:
        raise ValueError(f"{', '.join(n + '=' for n in weights)} cannot be used with method {_method_name(method)!r}: "
                         "its penalised fits take no offset or weights; use a streamwise policy or stepwise search")


def _method_name(method: object) -> object:
    return method if isinstance(method, str) else type(method).__name__
