"""A formula is code: its terms are evaluated in a restricted namespace (no builtins, no
attributes but np.<function>, no dunders), and the usual terms give the same numbers."""
import dataclasses
import re

import numpy as np
import pandas as pd
import patsy
import pytest

import streamreg as sr
from streamreg.cli import main
from streamreg.formula import FormulaError, design_matrix
from streamreg.formula.design import evaluate_term
from streamreg.formula.namespace import eval_env


@pytest.fixture
def df():
    rng = np.random.default_rng(3)
    n = 200
    d = pd.DataFrame({f"x{i}": rng.uniform(0.5, 3.0, n) for i in range(1, 5)})
    d["f"] = rng.choice(list("abc"), n)
    d["odd name"] = rng.normal(size=n)
    d["y"] = 2 * np.log(d.x1) + d.x2 ** 2 + (d.f == "b") + 0.8 * d["odd name"] + 0.5 * rng.normal(size=n)
    return d


def _exploit(marker) -> str:
    return f"0*__import__('os').system('touch {marker}')"


# -- the shell-command exploit -------------------------------------------------------------

@pytest.mark.parametrize("where", ["stream", "fixed", "response"])
def test_import_exploit_is_refused_before_evaluation(df, tmp_path, where):
    marker = tmp_path / "pwned"
    formula = {
        "stream": f"y ~ stream(x*, I(x1 + {_exploit(marker)}))",
        "fixed": f"y ~ I(x1 + {_exploit(marker)}) + stream(x*)",
        "response": f"I(y + {_exploit(marker)}) ~ stream(x*)",
    }[where]
    with pytest.raises(FormulaError, match=r"'__import__' in the formula is not allowed: a formula is evaluated as code"):
        sr.streamreg(formula, df)
    assert not marker.exists()


def test_import_exploit_is_refused_on_the_command_line(tmp_path, capsys):
    marker = tmp_path / "pwned"
    code = main([f"diagnosis ~ stream(*_mean, I(radius_mean + {_exploit(marker)}))", "--data", "wdbc"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("streamreg: '__import__' in the formula is not allowed")
    assert err.count("\n") == 1 and "Traceback" not in err
    assert not marker.exists()


def test_dunder_attribute_is_refused_with_its_text(df):
    with pytest.raises(FormulaError, match=r"'x1\.__class__' in the formula is not allowed"):
        sr.streamreg("y ~ stream(x*, I(x1.__class__))", df)
    with pytest.raises(FormulaError, match=r"'__builtins__' in the formula is not allowed"):
        sr.streamreg("y ~ I(x1 + len(__builtins__)) + stream(x*)", df)


def test_dunder_in_a_quoted_column_name_is_data(df):
    d = df.rename(columns={"x3": "x__3"})
    fit = sr.streamreg("y ~ stream(x1, 'x__3', Q('x__3'))", d)
    assert len(fit.predict(d.head(3))) == 3
    with pytest.raises(FormulaError, match=r"'x__3' in the formula is not allowed.*quote a column so named"):
        sr.streamreg("y ~ stream(x1, x__3)", d)


# -- no Python builtins ----------------------------------------------------------------------

@pytest.mark.parametrize("term, name", [
    ("I(x1 + 0 * (open('{marker}', 'w') is None))", "open"),
    ("I(x1 + 0 * (exec('import os') is None))", "exec"),
    ("I(x1 + eval('0'))", "eval"),
    ("I(getattr(x1, 'values'))", "getattr"),
    ("I(x1 + 0 * (globals() is None))", "globals"),
])
@pytest.mark.parametrize("where", ["stream", "fixed"])
def test_builtins_are_unavailable(df, tmp_path, term, name, where):
    marker = tmp_path / "pwned"
    term = term.format(marker=marker)
    formula = f"y ~ stream(x2, {term})" if where == "stream" else f"y ~ {term} + stream(x2, x3)"
    with pytest.raises(FormulaError, match=rf"Python's built-in '{name}' is not available in a formula"):
        sr.streamreg(formula, df)
    assert not marker.exists()


def test_builtins_unavailable_message_names_the_namespace(df):
    with pytest.raises(FormulaError) as info:
        evaluate_term("open(x1)", df)
    assert ("Python's built-in 'open' is not available in a formula: terms see only the data columns, np, "
            "patsy's functions (C, I, Q, center, bs, ...) and functions=") in str(info.value)


# -- no attributes but np.<function> ---------------------------------------------------------

@pytest.mark.parametrize("term, shown", [
    ("I(x1.to_csv('{marker}'))", "x1.to_csv"),
    ("I(np.log(x1).tofile('{marker}'))", ").tofile"),
    ("I(pd.read_csv('{marker}'))", "pd.read_csv"),
    ("I(np.random.normal(size=3))", "np.random.normal"),
])
def test_attributes_other_than_np_functions_are_refused(df, tmp_path, term, shown):
    marker = tmp_path / "pwned"
    formula = f"y ~ stream(x2, {term.format(marker=marker)})"
    with pytest.raises(FormulaError, match=rf"attribute access '{re.escape(shown)}' in the candidate term .* is not "
                                           r"allowed: a formula may call np.<function>"):
        sr.streamreg(formula, df)
    assert not marker.exists()


@pytest.mark.parametrize("name", ["ctypeslib", "load", "save", "fromfile", "testing"])
def test_numpy_offers_only_elementwise_functions(df, name):
    # np.ctypeslib.ctypes reaches libc; np.load unpickles; np.save/fromfile touch files
    with pytest.raises(FormulaError, match=rf"np.{name} is not available in a formula"):
        sr.streamreg(f"y ~ stream(x2, I(x1 + 0 * np.{name}))", df)


def test_evaluation_refuses_attributes_and_builtins_itself(df):
    # the second line of defence, on the code patsy runs (parse-time checks bypassed)
    env = eval_env()
    data = {"x": df.x1}
    with pytest.raises(FormulaError, match=r"attribute access '\.to_csv' is not allowed"):
        env.eval("x.to_csv('f')", inner_namespace=data)
    with pytest.raises(FormulaError, match=r"the name '__builtins__' is not allowed"):
        env.eval("__builtins__", inner_namespace=data)
    with pytest.raises(FormulaError, match=r"the name '__import__' is not allowed"):
        env.eval("__import__('os')", inner_namespace=data)
    with pytest.raises(NameError, match=r"Python's built-in 'open' is not available"):
        env.eval("open('f')", inner_namespace=data)
    assert env.subset(["np"]).eval("np.log(x)", inner_namespace=data).equals(np.log(df.x1))


def test_predict_with_a_tampered_model_formula_is_refused(df, tmp_path):
    marker = tmp_path / "pwned"
    fit = sr.streamreg("y ~ stream(x*)", df)
    tampered = f"1 + x1 + I(x2 + 0 * (open('{marker}', 'w') is None))"  # as a doctored pickle might carry
    fit.selected_model = dataclasses.replace(fit.selected_model, rhs=tampered)
    with pytest.raises(FormulaError, match=r"Python's built-in 'open' is not available in a formula"):
        fit.predict(df.head())
    with pytest.raises(FormulaError, match=r"attribute access 'x1.to_csv' in the model's terms"):
        design_matrix(f"1 + I(x1.to_csv('{marker}'))", df, df.head())
    assert not marker.exists()


# -- the usual terms still work, with the same numbers ---------------------------------------

@pytest.mark.parametrize("term", [
    "np.log(x1)", "I(x2**2)", "C(f, Treatment('b'))", "C(f, Sum())", "Q('odd name')", "center(x3)",
    "standardize(x3)", "bs(x4, df=3)", "cr(x4, df=3)", "np.where(x1 > 1, x2, 0)", "I(x1 * np.pi)",
])
def test_common_terms_match_plain_patsy(df, term):
    got, names = evaluate_term(term, df)
    ref = patsy.dmatrix("1 + " + term, df, return_type="dataframe").drop(columns="Intercept")  # caller's env
    np.testing.assert_array_equal(got, ref.to_numpy())
    assert names == list(ref.columns)


def test_formula_terms_fit_like_precomputed_columns(df):
    fit = sr.streamreg("y ~ center(x3) + stream(np.log(x1), I(x2**2), Q('odd name'), x4)", df)
    pre = df.assign(cx3=df.x3 - df.x3.mean(), lx1=np.log(df.x1), sx2=df.x2 ** 2, odd=df["odd name"])
    ref = sr.streamreg("y ~ cx3 + stream(lx1, sx2, odd, x4)", pre)
    assert len(fit.params) == len(ref.params) >= 4
    np.testing.assert_allclose(fit.params.to_numpy(), ref.params.to_numpy(), rtol=1e-10)
    new = df.sample(20, random_state=1)
    np.testing.assert_allclose(fit.predict(new).to_numpy(), ref.predict(pre.loc[new.index]).to_numpy(), rtol=1e-10)


def test_user_functions_and_named_transforms_still_work(df):
    def cube(a):
        return a ** 3

    fit = sr.streamreg("y ~ stream(x1) + transform(x1, x2, fn=cube) + transform(x3, x4, fn=log)", df,
                       functions={"cube": cube})
    pre = df.assign(c1=df.x1 ** 3, c2=df.x2 ** 3, l3=np.log(df.x3), l4=np.log(df.x4))
    ref = sr.streamreg("y ~ stream(x1) + stream(c1, c2) + stream(l3, l4)", pre)
    assert "cube(x2)" in fit.selected_formula
    np.testing.assert_allclose(fit.params.to_numpy(), ref.params.to_numpy(), rtol=1e-10)
    new = df.tail(15)
    np.testing.assert_allclose(fit.predict(new).to_numpy(), ref.predict(pre.tail(15)).to_numpy(), rtol=1e-10)


def test_columns_named_like_builtins_are_data(df):
    d = df.rename(columns={"x2": "sum", "x4": "open"})
    fit = sr.streamreg("y ~ stream(x1, sum, open)", d)
    assert "Q('sum')" in fit.selected_formula
    assert np.isfinite(fit.predict(d.head(4))).all()
