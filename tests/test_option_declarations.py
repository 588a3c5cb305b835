"""The option layer asks what each method declares: its option kinds, its capabilities, its names.

Every built-in rule and search method declares the kinds of exactly the keyword options its
constructor takes; the option checks, the command line and the error messages read those
declarations (never an annotation's text or the method's class); a parameter's value is
checked by the constructor alone, so a rule built directly is refused as the option is.
"""
from __future__ import annotations

import importlib.util
import inspect
from pathlib import Path

import numpy as np
import pytest
import statsmodels.api as sm

import streamreg as sr
from streamreg.config import check_method_options, method_options
from streamreg.policies import AlphaInvesting, FosterStine, InformationInvesting
from streamreg.search import Capabilities, capabilities, method_factory, method_names, resolve_method
from streamreg.validators import KIND_WORDS, check_kind

BUILT_IN = method_names(aliases=False)


@pytest.mark.parametrize("method", BUILT_IN)
def test_declared_kinds_cover_exactly_the_constructor_options(method):
    factory, fixed = method_factory(method)
    params = {name: p for name, p in inspect.signature(factory).parameters.items() if name not in fixed}
    declared = {name: kinds for name, kinds in factory.OPTION_KINDS.items() if name not in fixed}
    assert set(declared) == set(params), method
    for name, kinds in declared.items():
        assert set(kinds) <= set(KIND_WORDS), (method, name)
        default = params[name].default
        if default is not inspect.Parameter.empty:
            check_kind(name, default, kinds, method)  # the constructor's own default is of a declared kind
    assert method_options(method) == {name: tuple(declared[name]) for name in params}


def test_unknown_names_and_factories_taking_any_option_are_left_to_the_method():
    assert method_factory("no-such-rule") is None and method_options("no-such-rule") is None
    check_method_options("no-such-rule", {"w0": "x"})  # resolve_method reports the name, with the known ones
    sr.policies.register_policy("cautious-test", lambda **options: AlphaInvesting(w0=0.01, **options))
    try:
        assert method_options("cautious-test") is None
        check_method_options("cautious-test", {"alpha_delta": 0.1})
    finally:
        sr.policies.unregister_policy("cautious-test")
    assert "cautious-test" not in method_names()


@pytest.mark.parametrize("make, message", [
    (lambda: AlphaInvesting(w0=2), r"w0 must be a number in \(0, 1\], got 2"),
    (lambda: FosterStine(w0=1.5), r"w0 must be a number in \(0, 1\], got 1.5"),
    (lambda: InformationInvesting(w0=3.0), r"w0 must be below 2\^\(1 \+ w_delta\) = 2.82843 bits"),
])
def test_a_rule_built_directly_is_refused_as_its_option_is(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_a_value_of_another_kind_names_the_method_and_the_constructor_checks_the_range():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 4))
    y = X[:, 0] + rng.normal(size=40)
    with pytest.raises(TypeError, match=r"^option gammai of method 'lord\+\+' must be None or a sequence of numbers"):
        sr.select(y, X, method="lord++", gammai=0.5)
    with pytest.raises(TypeError, match=r"^option charge_bid of method 'information-investing' must be True or False"):
        sr.select(y, X, method="information-investing", charge_bid=1)
    with pytest.raises(ValueError, match=r"^alpha_delta must lie in \(0, 1\), got 1.5$"):
        sr.select(y, X, method="alpha-investing", alpha_delta=1.5)


@pytest.mark.parametrize("method, expected", [
    ("alpha-investing", Capabilities(("full", "none"), True, True, True, True)),
    ("stepwise-aic", Capabilities(("full",), False, True, False, False)),
    ("grafting", Capabilities(("full",), False, False, False, False)),
    ("bp-sfs", Capabilities(("full",), False, False, False, False)),
])
def test_capabilities_are_declared_by_the_method(method, expected):
    assert capabilities(resolve_method(method)) == expected


def test_fsa_declares_that_it_takes_no_weights():
    assert capabilities(resolve_method("fsa", k=2)).takes_weights is False


class _Minimal:
    """A method written against the protocol's required members only."""

    name = "minimal"
    history_modes = ("full",)
    multipass = False
    reads_lazily = True
    rule = None

    def spawn(self):
        return self

    def check_family(self, family):
        return None

    def run(self, state, streams, *, fixed, family, options):
        raise NotImplementedError


def test_a_method_without_the_optional_capabilities_gets_the_defaults():
    assert capabilities(_Minimal()) == Capabilities(("full",), False, True, True, False)


def test_weights_with_a_method_that_takes_none_are_refused_by_its_capability():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 4))
    y = X[:, 0] + rng.normal(size=40)
    for method, extra in (("grafting", {}), ("fsa", {"k": 1})):
        with pytest.raises(ValueError, match=rf"^var_weights= cannot be used with method '{method}'"):
            sr.select(y, X, method=method, var_weights=np.ones(40), **extra)
    with pytest.raises(ValueError, match="cov_type for candidate tests is supported for the gaussian family"):
        sr.select((y > 0).astype(float), X, family=sm.families.Binomial(), method="lord++", cov_type="HC0")
    # stepwise does not test its candidates: there cov_type concerns the refit only
    sr.select((y > 0).astype(float), X, family=sm.families.Binomial(), method="stepwise-aic", cov_type="HC0")


def _import_graph():
    path = Path(__file__).resolve().parents[1] / "tools" / "import_graph.py"
    spec = importlib.util.spec_from_file_location("import_graph", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, path.parents[1]


def test_no_module_is_in_an_import_cycle_and_no_lower_layer_imports_a_higher_one():
    # imports inside functions and under TYPE_CHECKING count: a cycle they hide is still a cycle
    tool, root = _import_graph()
    files = tool.module_names(root)
    graph = {name: tool.imports_of(name, path, files) for name, path in files.items()}
    assert tool.layer_breaks(graph) == []
    assert tool.strongly_connected(graph) == []
