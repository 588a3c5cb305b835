"""The results keep the selected model and the selection record as public typed attributes;
the helpers read those (and the refit) only, and the results package has no import cycle."""
import ast
import dataclasses
import pickle
import re
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from scipy import stats

import streamreg as sr
from streamreg.results import (
    SelectedModel,
    SelectionRecord,
    broom,
    predict_refit,
    prediction,
    summary,
)

RESULTS = Path(sr.__file__).parent / "results"


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(8)
    d = pd.DataFrame(rng.normal(size=(150, 5)), columns=[f"x{i}" for i in range(5)])
    d["g"] = rng.choice(["a", "b", "c"], size=150)
    d["y"] = d["x1"] - d["x3"] + 0.5 * (d["g"] == "b") + rng.normal(size=150)
    d["n"] = rng.poisson(np.exp(0.3 + 0.4 * d["x2"]))
    d["t"] = rng.uniform(1, 3, size=150)
    return d


@pytest.fixture(scope="module")
def fits(data):
    return {
        "ols": sr.streamreg("y ~ x0 + stream(x*, C(g))", data, w0=0.05, alpha_delta=0.05),
        "poisson": sr.streamreg("n ~ stream(x*)", data, family="poisson", exposure="t", w0=0.05, alpha_delta=0.05),
    }


def test_record_attributes_are_typed_and_frozen(fits):
    fit = fits["ols"]
    assert isinstance(fit.selected_model, SelectedModel) and isinstance(fit.selection, SelectionRecord)
    with pytest.raises(dataclasses.FrozenInstanceError):
        fit.selected_model.rhs = "1"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        fit.selection.formula = "y ~ 1"  # type: ignore[misc]
    # the names results have always had read the records
    assert fit.selected_formula == fit.selected_model.formula == f"y ~ {fit.selected_model.rhs}"
    assert fit.family is fit.selected_model.family and fit.response_name == "y"
    assert fit.formula == fit.selection.formula == "y ~ x0 + stream(x*, C(g))"
    assert fit.search is fit.selection.search and fit.stopped_by == fit.selection.stopped_by
    assert fit.history is fit.selection.history  # annotated once, then kept
    assert fit.guarantee() == fit.selection.guarantee()
    assert fit.policy_description == fit.selection.policy_description == fit.policy.describe()
    pd.testing.assert_frame_equal(fit.selected_model.design(fit.selected_model.train), fit.fit.model.data.orig_exog)


@pytest.mark.parametrize("which", ["ols", "poisson"])
def test_helpers_need_only_the_public_record_and_the_refit(fits, data, which):
    fit = fits[which]
    view = SimpleNamespace(selected_model=fit.selected_model, selection=fit.selection, fit=fit.fit,
                           refit_warnings=list(fit.refit_warnings))  # no private attribute at all
    new = data.sample(7, random_state=2)
    pd.testing.assert_series_equal(predict_refit.predict_values(view, new, linear=False), fit.predict(new))
    pd.testing.assert_frame_equal(broom.tidy_frame(view), fit.tidy())
    pd.testing.assert_frame_equal(broom.glance_frame(view), fit.glance())
    pd.testing.assert_frame_equal(broom.augment_frame(view), fit.augment())
    assert summary.selection_facts(view) == summary.selection_facts(fit)
    assert summary.notes(view) == summary.notes(fit)
    pd.testing.assert_frame_equal(prediction.model_frame(fit.selected_model), fit.model_frame())


def _old_state(fit):
    """The pickled state of results that copied the selected model's fields one by one."""
    model, record = fit.selected_model, fit.selection
    return {"fit": fit.fit, "refit_warnings": list(fit.refit_warnings), "search": record.search, "_history": None,
            "history_mode": record.history_mode, "stopped_by": record.stopped_by, "formula": record.formula,
            "selected_formula": model.formula, "response_name": model.response_name,
            "success_level": record.success_level, "family": model.family, "policy": record.policy,
            "policy_description": record.policy_description, "test_description": record.test_description,
            "n_dropped": record.n_dropped, "missing_by_column": dict(record.missing_by_column),
            "_rhs": model.rhs, "_train": model.train, "validation": record.validation, "_derived": model.derived,
            "_functions": dict(model.functions), "order_used_y": list(record.y_ordered), "_weights": model.weights}


@pytest.mark.parametrize("which", ["ols", "poisson"])
def test_results_pickled_with_private_fields_still_load(fits, data, which):
    fit = fits[which]
    old = sr.StreamRegResults.__new__(sr.StreamRegResults)
    old.__setstate__(pickle.loads(pickle.dumps(_old_state(fit))))
    new = data.head(9)
    pd.testing.assert_series_equal(old.predict(new), fit.predict(new))
    assert old.selected_model.weights.names == fit.selected_model.weights.names
    assert str(old.summary()) == str(fit.summary())
    pd.testing.assert_frame_equal(old.glance(), fit.glance())


@pytest.mark.parametrize("use_t", [None, False])
def test_results_pickled_with_use_t_as_a_private_field_keep_it(data, use_t):
    # results of the releases with use_t= kept it as _use_t beside the other private copies
    gamma = sm.families.Gamma(sm.families.links.Log())
    fit = sr.streamreg("t ~ stream(x*)", data, family=gamma, use_t=use_t, w0=0.05, alpha_delta=0.05)
    old = sr.StreamRegResults.__new__(sr.StreamRegResults)
    old.__setstate__(pickle.loads(pickle.dumps({**_old_state(fit), "_use_t": use_t})))
    assert old.selected_model.use_t is use_t and old.use_t is (use_t is None)  # R's t for Gamma by default
    # statsmodels' p-values of the refit: normal as .fit reports them, t on the residual df as R's summary.glm
    z = 2 * stats.norm.sf(np.abs(fit.fit.tvalues))
    t = 2 * stats.t.sf(np.abs(fit.fit.tvalues), fit.fit.df_resid)
    np.testing.assert_allclose(old.pvalues, t if use_t is None else z, rtol=1e-12)
    np.testing.assert_allclose(old.tidy()["p.value"], old.pvalues, rtol=1e-12)
    assert _without_clock(str(old.summary())) == _without_clock(str(fit.summary()))


def _without_clock(text: str) -> str:
    """A summary without statsmodels' Date and Time fields, which tick between two calls on a busy machine."""
    return re.sub(r"(Date|Time):\s+\S.*?(?=\s{2,}|$)", r"\1:", text, flags=re.M)


def _imports(path: Path, package: str) -> set[str]:
    """Every module of ``package`` that ``path`` imports, anywhere in it (functions, TYPE_CHECKING)."""
    found = set()
    modules = {p.stem for p in RESULTS.glob("*.py")}
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                found.add(node.module.split(".")[0])
            else:
                found |= {a.name for a in node.names if a.name in modules}
    return found & modules


def test_the_results_package_has_no_import_cycle():
    graph = {p.stem: _imports(p, "results") for p in RESULTS.glob("*.py") if p.stem != "__init__"}
    graph = {m: {t for t in targets if t != "__init__"} for m, targets in graph.items()}
    state: dict[str, int] = {}  # 1 on the current path, 2 done

    def visit(module, path):
        state[module] = 1
        for target in sorted(graph.get(module, ())):
            assert state.get(target) != 1, f"import cycle: {' -> '.join([*path, module, target])}"
            if target not in state:
                visit(target, [*path, module])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [])
    assert "results" not in _imports(RESULTS / "prediction.py", "results")  # a helper reads the record, not the class
