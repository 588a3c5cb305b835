"""The registry of stream classes: the parser and the option checks derive from it."""
import ast
import contextlib
import pathlib

import numpy as np
import pandas as pd
import pytest

import streamreg as sr
from streamreg.formula import classes, parse
from streamreg.formula.names import _PATSY_NAMES
from streamreg.streams.generated import ColumnsStream
from streamreg.streams.registry import (
    RESERVED,
    ClassRequest,
    StreamFactory,
    register_stream_class,
    stream_class,
    stream_class_names,
    unregister_stream_class,
)

#: the option table formula/classes.py held before the registry: it must not change
OPTIONS_BEFORE = {
    "stream": {"name", "exclude", "order", "seed"},
    "pca": {"name", "exclude", "k", "order", "seed"},
    "squares": {"name", "exclude", "order", "seed"},
    "transform": {"name", "exclude", "fn", "order", "seed"},
    "clusters": {"name", "exclude", "k", "order", "seed"},
    "interactions": {"name", "kind", "degree", "order", "seed"},
}


def powers(request: ClassRequest) -> list:
    """A user class: ``powers(x*, power=3)`` offers ``I(x**power)`` of each matched column."""
    power = int(request.options.get("power", 3))
    values = request.values ** power
    names = [f"I({request.term_name(c)}**{power})" for c in request.columns]
    return [ColumnsStream(request.label, names, lambda idx: values[:, idx], request.order(values))]


@pytest.fixture
def registered():
    """Register ``powers``; removed again whatever the test does."""
    yield register_stream_class("powers", powers, options={"power"}, summary="x**power of each column")
    with contextlib.suppress(KeyError):
        unregister_stream_class("powers")


def _data(n=300, seed=0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(rng.normal(size=(n, 4)), columns=["x1", "x2", "x3", "x4"])
    df["y"] = 0.5 * df.x3 ** 3 + rng.normal(size=n)
    return df


def test_builtin_tables_derive_from_the_registry():
    assert set(parse.STREAM_FUNCTIONS) == set(OPTIONS_BEFORE)
    assert set(classes.COLUMN_CLASSES) == {"pca", "squares", "transform", "clusters"}
    for name, options in OPTIONS_BEFORE.items():
        assert stream_class(name).options == options
    assert stream_class("interactions").dynamic and not stream_class("pca").dynamic
    assert stream_class("stream").build is None
    assert isinstance(stream_class("pca"), StreamFactory)


def test_a_registered_class_is_usable_in_a_formula(registered):
    assert registered.options == {"name", "exclude", "order", "seed", "power"}
    assert "powers" in parse.STREAM_FUNCTIONS and "powers" in classes.COLUMN_CLASSES
    df = _data()
    fit = sr.streamreg("y ~ powers(x*)", df)
    assert fit.selected_terms == ["I(x3**3)"]
    assert list(fit.history["stream"].unique()) == ["powers(x*)"]
    # the refit and predict rebuild the term from the data, as for a built-in class
    new = _data(20, seed=1)
    np.testing.assert_allclose(fit.predict(new), fit.params.iloc[0] + fit.params.iloc[1] * new.x3 ** 3)
    # its own option, the common ones, and what the formula layer does for every class
    fit2 = sr.streamreg("y ~ x1 + powers(x*, power=2, exclude=x4, name=sq, order=variance)", df)
    assert set(fit2.history["term"]) == {"I(x2**2)", "I(x3**2)"} and set(fit2.history["stream"]) == {"sq"}


def test_a_registered_class_gets_every_formula_check(registered):
    df = _data()
    with pytest.raises(sr.FormulaError, match=r"unknown option\(s\) \['k'\]; powers\(\) takes "
                                              r"\['exclude', 'name', 'order', 'power', 'seed'\]"):
        sr.streamreg("y ~ powers(x*, k=2)", df)
    with pytest.raises(sr.FormulaError, match="matches no column"):
        sr.streamreg("y ~ powers(z*)", df)
    with pytest.raises(sr.FormulaError, match=r"powers\(\) must be a top-level term"):
        sr.streamreg("y ~ x1:powers(x2)", df)
    with pytest.raises(sr.FormulaError, match="unknown order 'wobbly'"):
        sr.streamreg("y ~ powers(x*, order=wobbly)", df)
    # an order by the response is reported, as for the built-in classes
    fit = sr.streamreg("y ~ powers(x*, order=corr)", df)
    assert fit.order_used_y == ["powers(x*, order=corr)"] and "VOID" in fit.guarantee()


def test_unregistered_names_are_ordinary_terms_again(registered):
    unregister_stream_class("powers")
    assert "powers" not in parse.STREAM_FUNCTIONS and "powers" not in classes.COLUMN_CLASSES
    with pytest.raises(KeyError, match="no stream class called 'powers'"):
        unregister_stream_class("powers")
    with pytest.raises(KeyError, match="no stream class called 'powers'"):
        stream_class("powers")


def test_duplicate_names_are_refused(registered):
    with pytest.raises(ValueError, match=r"a stream class called 'powers' is already registered \(built by powers\); "
                                         "choose another name, or pass replace=True"):
        register_stream_class("powers", powers)
    for builtin in ("pca", "stream", "interactions"):
        with pytest.raises(ValueError, match=f"'{builtin}' is already registered .a built-in class.; choose another "
                                             "name$"):
            register_stream_class(builtin, powers, replace=True)
    with pytest.raises(ValueError, match="pca.. is a built-in stream class and cannot be removed"):
        unregister_stream_class("pca")
    replaced = register_stream_class("powers", powers, options={"power", "scale_by"}, replace=True)
    assert stream_class("powers") is replaced and "scale_by" in replaced.options


@pytest.mark.parametrize("name, error, message", [
    ("C", ValueError, "already means something in a formula"),
    ("np", ValueError, "already means something in a formula"),
    ("scale", ValueError, "already means something in a formula"),
    ("2x", ValueError, "must be a Python identifier"),
    ("lambda", ValueError, "must be a Python identifier"),
    (3, ValueError, "must be a Python identifier"),
])
def test_bad_names_are_refused(name, error, message):
    with pytest.raises(error, match=message):
        register_stream_class(name, powers)


def test_bad_builders_and_options_are_refused():
    with pytest.raises(TypeError, match="build must be a callable"):
        register_stream_class("things", "not callable")
    with pytest.raises(ValueError, match="must be keyword names"):
        register_stream_class("things", powers, options={"two words"})
    assert "things" not in stream_class_names()


def test_reserved_names_cover_the_formula_namespace():
    assert set(_PATSY_NAMES) <= RESERVED


def test_a_registered_dynamic_class_is_built_after_the_other_streams():
    seen = {}

    def grown(request):
        seen["sources"] = sorted(request.sources)
        seen["default"] = list(request.default_sources)
        return []

    register_stream_class("grown", grown, dynamic=True)
    try:
        assert "grown" in stream_class_names(dynamic=True) and "grown" not in classes.COLUMN_CLASSES
        assert "exclude" not in stream_class("grown").options
        fit = sr.streamreg("y ~ stream(x*) + grown()", _data())
        assert seen == {"sources": ["x*"], "default": ["x*"]}
        assert list(fit.per_stream.index) == ["x*"]
    finally:
        unregister_stream_class("grown")


def test_formula_error_is_one_class():
    from streamreg import lexer
    from streamreg.formula.parse import FormulaError

    assert FormulaError is lexer.FormulaError is sr.FormulaError
    assert parse.split_top_level is lexer.split_top_level


def test_streams_do_not_import_the_formula_layer():
    root = pathlib.Path(sr.__file__).parent
    for path in sorted((root / "streams").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                target = "." * node.level + (node.module or "")
                assert not target.startswith("..formula") and not target.startswith("streamreg.formula"), \
                    f"{path.name} imports {target}"
            elif isinstance(node, ast.Import):
                assert not any(a.name.startswith("streamreg.formula") for a in node.names), path.name
