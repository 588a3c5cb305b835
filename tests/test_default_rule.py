"""The default selection rule (``method=None``; streamreg.config.default_method).

With no ``method``, ``sr.select``, ``sr.streamreg`` and the CLI run alpha-investing with
``w0 = alpha_delta = 0.05`` and uniform spending (bids ``w / (H - i + 2)`` over the horizon
``H`` = candidates x passes) over 3 passes; options given without a method override those
values only.  A named ``method="alpha-investing"`` is the papers' rule: ``w0 = alpha_delta =
0.5``, bids ``w / (2 i)``, one pass.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import streamreg as sr
from streamreg.cli import main
from streamreg.config import DEFAULT_METHOD, DEFAULT_PASSES, DEFAULT_RULE_OPTIONS, default_method

N, M = 100, 20
DEFAULT = "alpha-investing(w0=0.05, alpha_delta=0.05, spending=uniform)"
PAPERS = "alpha-investing(w0=0.5, alpha_delta=0.5)"


@pytest.fixture(scope="module")
def problem() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(N, M))
    return x, x[:, 3] - 0.8 * x[:, 11] + rng.normal(size=N)


@pytest.fixture(scope="module")
def frame(problem) -> pd.DataFrame:
    x, y = problem
    return pd.DataFrame(x, columns=[f"x{j}" for j in range(M)]).assign(y=y)


def _rejected(fit: sr.StreamRegResults) -> bool:
    h = fit.history
    return bool((h["test"].notna() & ~h["accepted"].astype(bool)).any())


def test_the_constants_and_their_resolution():
    assert DEFAULT_METHOD == "alpha-investing" and DEFAULT_PASSES == 3
    assert dict(DEFAULT_RULE_OPTIONS) == {"w0": 0.05, "alpha_delta": 0.05, "spending": "uniform"}
    assert default_method(None, None, None) == ("alpha-investing", 3, dict(DEFAULT_RULE_OPTIONS))
    assert default_method(None, 1, {"w0": 0.1}) == ("alpha-investing", 1,
                                                    {"w0": 0.1, "alpha_delta": 0.05, "spending": "uniform"})
    assert default_method("alpha-investing", None, {}) == ("alpha-investing", 1, {})
    assert default_method("lord++", 2, {"alpha": 0.1}) == ("lord++", 2, {"alpha": 0.1})


def test_select_without_a_method_is_uniform_alpha_investing_over_three_passes(problem):
    x, y = problem
    fit = sr.select(y, x)
    assert fit.policy_description == DEFAULT
    assert _rejected(fit) and fit.history["pass"].max() == 3
    assert sorted(set(fit.history["pass"])) == [1, 2, 3]
    assert fit.selected_terms == ["x3", "x11"]
    # uniform spending over the horizon of all passes: the first bid is w0 / (3 M + 1)
    assert fit.history["level"].iloc[0] == pytest.approx(0.05 / (3 * M + 1), rel=1e-12)
    text = fit.guarantee()
    assert "<= 0.05" in text and "P(any selection) <= w0 = 0.05" in text and "Bids spread evenly" in text
    # ... and is exactly the rule spelt out
    spelt = sr.select(y, x, method="alpha-investing", w0=0.05, alpha_delta=0.05, spending="uniform", passes=3)
    assert spelt.policy_description == DEFAULT
    assert fit.history.equals(spelt.history)


def test_streamreg_without_a_method_runs_the_same_default(frame, problem):
    x, y = problem
    fit = sr.streamreg("y ~ stream(x*)", frame)
    ref = sr.select(y, x)
    assert fit.policy_description == DEFAULT and fit.history["pass"].max() == 3
    assert fit.selected_terms == ref.selected_terms
    assert fit.history["term"].tolist() == ref.history["term"].tolist()
    np.testing.assert_allclose(fit.history["level"].to_numpy(float), ref.history["level"].to_numpy(float),
                               rtol=1e-12)


def test_options_without_a_method_override_only_the_values_given(problem):
    x, y = problem
    fit = sr.select(y, x, w0=0.1)
    assert fit.policy_description == "alpha-investing(w0=0.1, alpha_delta=0.05, spending=uniform)"
    assert _rejected(fit) and fit.history["pass"].max() == 3
    assert fit.history["level"].iloc[0] == pytest.approx(0.1 / (3 * M + 1), rel=1e-12)
    fit = sr.select(y, x, alpha_delta=0.1)
    assert fit.policy_description == "alpha-investing(w0=0.05, alpha_delta=0.1, spending=uniform)"
    assert fit.history["pass"].max() == 3
    decaying = sr.select(y, x, spending="decaying")
    assert decaying.policy_description == "alpha-investing(w0=0.05, alpha_delta=0.05)"
    assert decaying.history["pass"].max() == 3
    assert decaying.history["level"].iloc[0] == pytest.approx(0.05 / 2, rel=1e-12)  # w / (2 i)
    two = sr.select(y, x, passes=2)
    assert two.policy_description == DEFAULT and two.history["pass"].max() == 2


def test_passes_1_without_a_method_keeps_the_rule_for_one_pass(problem):
    x, y = problem
    fit = sr.select(y, x, passes=1)
    assert fit.policy_description == DEFAULT
    assert _rejected(fit) and set(fit.history["pass"]) == {1}
    assert len(fit.history) == M
    assert fit.history["level"].iloc[0] == pytest.approx(0.05 / (M + 1), rel=1e-12)  # the horizon is M


def test_a_named_alpha_investing_is_the_papers_rule_with_one_pass(problem, frame):
    x, y = problem
    for fit in (sr.select(y, x, method="alpha-investing"),
                sr.streamreg("y ~ stream(x*)", frame, method="alpha-investing")):
        assert fit.policy_description == PAPERS
        assert _rejected(fit) and set(fit.history["pass"]) == {1} and len(fit.history) == M
        assert fit.history["level"].iloc[0] == pytest.approx(0.5 / 2, rel=1e-12)  # w0 / (2 i), i = 1
        assert "P(any selection) <= w0 = 0.5" in fit.guarantee()
        assert "Bids spread evenly" not in fit.guarantee()
    # passes= still applies to a named method
    three = sr.select(y, x, method="alpha-investing", passes=3)
    assert three.policy_description == PAPERS and three.history["pass"].max() == 3


def test_other_named_methods_run_one_pass(problem):
    x, y = problem
    lord = sr.select(y, x, method="lord++")
    assert lord.policy_description.startswith("lord++(") and set(lord.history["pass"]) == {1}
    assert len(lord.history) == M
    # a method that takes no passes= is not given the default's 3
    assert sr.select(y, x, method="stepwise-bic").selected_terms


def test_cli_without_method_uses_the_default(tmp_path, frame, capsys):
    csv, history = tmp_path / "d.csv", tmp_path / "h.csv"
    frame.to_csv(csv, index=False)

    def run(*argv: str) -> tuple[pd.DataFrame, str]:
        assert main(["y ~ stream(x*)", "--data", str(csv), "--history", str(history), *argv]) == 0
        return pd.read_csv(history), " ".join(capsys.readouterr().out.split())

    def same(ours: pd.DataFrame, fit: sr.StreamRegResults) -> None:
        assert ours["term"].tolist() == fit.history["term"].tolist()
        assert ours["pass"].tolist() == fit.history["pass"].tolist()
        assert ours["status"].tolist() == fit.history["status"].astype(str).tolist()
        np.testing.assert_allclose(ours["level"].to_numpy(float), fit.history["level"].to_numpy(float),
                                   rtol=1e-12)

    data = pd.read_csv(csv)
    ours, out = run()
    fit = sr.streamreg("y ~ stream(x*)", data)
    assert fit.policy_description == DEFAULT
    assert f"Selection method: {DEFAULT}" in out and ours["pass"].max() == 3
    same(ours, fit)
    assert out.endswith(f"Selected formula: {fit.selected_formula}")

    ours, out = run("--w0", "0.1")  # a flag without --method overrides the default's value only
    assert "Selection method: alpha-investing(w0=0.1, alpha_delta=0.05, spending=uniform)" in out
    same(ours, sr.streamreg("y ~ stream(x*)", data, w0=0.1))
    assert ours["pass"].max() == 3

    ours, out = run("--passes", "1")
    assert f"Selection method: {DEFAULT}" in out and set(ours["pass"]) == {1}
    same(ours, sr.streamreg("y ~ stream(x*)", data, passes=1))

    ours, out = run("--method", "alpha-investing")  # the papers' rule, one pass
    assert f"Selection method: {PAPERS}" in out and set(ours["pass"]) == {1} and len(ours) == M
    same(ours, sr.streamreg("y ~ stream(x*)", data, method="alpha-investing"))
