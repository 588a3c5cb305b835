"""The family table (streamreg.models.families): what each family can do, in one place."""
from __future__ import annotations

import numpy as np
import pytest
import statsmodels.api as sm

from streamreg.config import check_test
from streamreg.models import families as fm, is_ols, resolve_family

# name, spec, tests, default test, fixed dispersion, R's name, statsmodels class
TABLE = [
    ("gaussian", fm.GAUSSIAN, ("t", "paper"), "t", False, "gaussian", sm.families.Gaussian),
    ("binomial", fm.BINOMIAL, ("score", "score-f", "lr"), "score", True, "binomial", sm.families.Binomial),
    ("poisson", fm.POISSON, ("score", "score-f", "lr"), "score-f", True, "poisson", sm.families.Poisson),
    ("gamma", fm.GAMMA, ("score", "score-f", "lr"), "score", False, "Gamma", sm.families.Gamma),
    ("inverse_gaussian", fm.INVERSE_GAUSSIAN, ("score", "score-f", "lr"), "score", False, "inverse.gaussian",
     sm.families.InverseGaussian),
    ("negbin", fm.NEGBIN, ("score", "score-f", "lr"), "score", True, "glm.nb", fm.NegBin),
]


@pytest.mark.parametrize("name, spec, tests, default, fixed, r_name, cls", TABLE, ids=[t[0] for t in TABLE])
def test_each_named_family_has_its_tests_dispersion_and_r_name(name, spec, tests, default, fixed, r_name, cls):
    assert spec.test_names == tests and spec.default_test == default
    assert spec.fixed_dispersion is fixed and spec.estimates_dispersion is (not fixed)
    assert spec.r_name == r_name and spec.sm_class is cls
    fam, short = resolve_family(name)
    assert isinstance(fam, cls) and short == spec.name == type(fam).__name__.lower()
    assert fm.spec_of(fam) is spec and fm.spec_of(name) is spec and fm.FAMILIES[name] is spec
    assert is_ols(fam) is spec.least_squares is (name == "gaussian")


@pytest.mark.parametrize("alias, spec", [("normal", fm.GAUSSIAN), ("logistic", fm.BINOMIAL),
                                         ("Inverse-Gaussian", fm.INVERSE_GAUSSIAN), ("POISSON", fm.POISSON)])
def test_aliases_and_spellings_resolve_to_the_same_spec(alias, spec):
    assert fm.spec_of(resolve_family(alias)[0]) is spec


def test_the_gaussian_family_with_another_link_is_a_glm():
    log = sm.families.Gaussian(sm.families.links.Log())
    assert fm.spec_of(log) is fm.GAUSSIAN_GLM and not is_ols(log)
    assert fm.GAUSSIAN_GLM.test_names == ("score", "score-f", "lr") and fm.GAUSSIAN_GLM.name == "gaussian"
    assert fm.spec_of(sm.families.Gaussian(), as_glm=True) is fm.GAUSSIAN_GLM
    assert fm.spec_of(sm.families.Poisson(), as_glm=True) is fm.POISSON


def test_unnamed_families_have_specs_too():
    assert fm.spec_of(sm.families.Tweedie()) is fm.TWEEDIE and fm.TWEEDIE.estimates_dispersion

    class MyBinomial(sm.families.Binomial):
        pass

    assert fm.spec_of(MyBinomial()) is fm.BINOMIAL
    assert fm.spec_of(object()) is fm.OTHER and fm.OTHER.estimates_dispersion and fm.OTHER.separation is None


def test_every_test_has_a_description_and_one_meaning():
    described: dict[str, str] = {}
    for spec in fm.SPECS:
        assert spec.default_test in spec.test_names
        for t in spec.tests:
            assert t.description and spec.describe_test(t.name) == t.description
            assert described.setdefault(t.name, t.description) == t.description  # one text per test name
            assert fm.describe_test(t.name) == t.description
    assert set(described) == {"t", "paper", "score", "score-f", "lr"}
    assert fm.describe_test("no-such-test") == "no-such-test"
    with pytest.raises(KeyError):
        fm.GAUSSIAN.describe_test("score")


def test_the_tests_are_checked_against_the_table():
    assert check_test(None, sm.families.Poisson()) is None and check_test("lr", sm.families.Poisson()) == "lr"
    with pytest.raises(ValueError, match=r"test must be one of \('t', 'paper'\) for the Gaussian family, got 'lr'"):
        check_test("lr", sm.families.Gaussian())
    with pytest.raises(ValueError, match=r"test must be one of \('score', 'score-f', 'lr'\) for GLMs, got 't'"):
        check_test("t", sm.families.Binomial())
    with pytest.raises(ValueError, match="test must be one of"):
        fm.BINOMIAL.check_test(None, allow_none=False)


def test_an_unknown_family_lists_the_known_ones():
    with pytest.raises(ValueError) as err:
        resolve_family("weibull")
    assert str(err.value) == ("unknown family 'weibull'; use one of ['binomial', 'gamma', 'gaussian', "
                              "'inverse_gaussian', 'logistic', 'negative_binomial', 'negativebinomial', 'negbin', "
                              "'normal', 'poisson', "
                              "'quasibinomial', 'quasipoisson'] or a statsmodels family instance")
    with pytest.raises(ValueError, match="unknown family 'tweedie'"):  # an instance only, as before
        resolve_family("tweedie")
    with pytest.raises(TypeError, match="family must be a name or a statsmodels family instance, got int"):
        resolve_family(3)


def test_mean_ranges_response_kinds_and_separation():
    mu = np.array([-0.5, 0.0, 0.5, 1.0, 2.0])
    assert fm.BINOMIAL.mean_range.outside(mu).tolist() == [True, False, False, False, True]
    assert fm.POISSON.mean_range.outside(mu).tolist() == [True, False, False, False, False]
    for spec in (fm.GAMMA, fm.INVERSE_GAUSSIAN, fm.NEGATIVE_BINOMIAL, fm.TWEEDIE):
        assert spec.mean_range.outside(mu).tolist() == [True, True, False, False, False]
    assert not fm.GAUSSIAN.mean_range.outside(mu).any() and not fm.OTHER.mean_range.outside(mu).any()
    kinds = {s.name: (s.response, s.separation) for s in fm.SPECS}
    assert kinds["binomial"] == ("binary", "binary") and kinds["poisson"] == ("counts", "counts")
    assert kinds["negativebinomial"] == ("counts", None) and kinds["gamma"] == ("positive", None)
    assert kinds["negbin"] == ("counts", "counts")  # zero counts separate a log-linear NB as they do a Poisson
    assert kinds["tweedie"] == ("any", None)


def test_penalised_losses_and_loglik_conventions():
    assert fm.GAUSSIAN.loss_for(sm.families.Gaussian()) == "squared"
    assert fm.BINOMIAL.loss_for(sm.families.Binomial()) == "logistic"
    assert fm.BINOMIAL.loss_for(sm.families.Binomial(sm.families.links.Log())) is None
    assert fm.POISSON.loss_for(sm.families.Poisson()) is None
    assert {s.name: s.loglik for s in fm.SPECS if s.names} == {
        "gaussian": "gaussian", "binomial": "grouped_binomial", "poisson": "llf", "gamma": "gamma",
        "inversegaussian": "inverse_gaussian", "negbin": "llf", "quasipoisson": "none",
        "quasibinomial": "none"}
    assert fm.TWEEDIE.loglik == "llf"


def test_models_does_not_import_the_upper_layers():
    import ast
    import pathlib

    for path in pathlib.Path(fm.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level >= 2:
                assert node.module in ("outcomes",), f"{path.name} imports ..{node.module}"
