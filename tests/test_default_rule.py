"""The default selection rule (``method=None``; streamreg.config.default_method).

With no ``method``, ``sr.select``, ``sr.streamreg`` and the CLI screen, then confirm
(:mod:`streamreg.search.confirm`): a lenient alpha-investing screen (``screen_w0 = 0.5``, uniform
spending over 2 passes), then every candidate tested once against the screened model, decided
by alpha-investing with ``w0 = 0.05`` and payout ``alpha_delta = 0.02`` spread evenly over those
tests (each bid ``w0 / (M + 1)`` while no term is accepted).  Options given without a method
override those values only.  Streams read once and searches with a stopping rule run one phase;
with ``decoys=`` the default is the one-phase rule of :data:`DECOY_DEFAULT`.  A named
``method="alpha-investing"`` is the papers' rule: ``w0 = alpha_delta = 0.5``, bids ``w / (2 i)``,
one pass.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import streamreg as sr
from streamreg.cli import main
from streamreg.config import DEFAULT_METHOD, DEFAULT_PASSES, DEFAULT_RULE_OPTIONS, default_method
from streamreg.config.method import DECOY_DEFAULT

N, M = 100, 20
DEFAULT = "screen-confirm(w0=0.05, alpha_delta=0.02, screen_w0=0.5)"
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


def _confirmation(fit: sr.StreamRegResults) -> pd.DataFrame:
    h = fit.history
    return h[h["pass"] == h["pass"].max()]


def _two_phases(fit: sr.StreamRegResults, screening_passes: int, w0: float = 0.05, screen_w0: float = 0.5) -> None:
    """Screening rows over ``screening_passes`` passes, then one confirmation test per candidate."""
    h = fit.history
    assert sorted(set(h["pass"])) == list(range(1, screening_passes + 2))
    screen, confirm = h[h["pass"] <= screening_passes], _confirmation(fit)
    assert not screen["accepted"].any() and set(screen["status"].astype(str)) <= {"screened in", "rejected"}
    assert sorted(confirm["term"]) == sorted(f"x{j}" for j in range(M))  # every candidate once
    assert set(confirm["status"].astype(str)) == {"accepted", "rejected"}
    assert sorted(confirm.loc[confirm["accepted"].astype(bool), "term"]) == sorted(fit.selected_terms)
    # the screen spends screen_w0 evenly over its horizon; the confirmation w0 over its M tests
    assert h["level"].iloc[0] == pytest.approx(screen_w0 / (screening_passes * M + 1), rel=1e-12)
    assert confirm["level"].iloc[0] == pytest.approx(w0 / (M + 1), rel=1e-12)


def test_the_constants_and_their_resolution():
    assert DEFAULT_METHOD == "screen-confirm" and DEFAULT_PASSES == 2
    assert dict(DEFAULT_RULE_OPTIONS) == {"w0": 0.05, "alpha_delta": 0.02, "screen_w0": 0.5}
    assert default_method(None, None, None) == ("screen-confirm", 2, dict(DEFAULT_RULE_OPTIONS))
    assert default_method(None, 1, {"w0": 0.1}) == ("screen-confirm", 1,
                                                    {"w0": 0.1, "alpha_delta": 0.02, "screen_w0": 0.5})
    assert DECOY_DEFAULT == ("alpha-investing", 3, {"w0": 0.05, "alpha_delta": 0.05, "spending": "uniform"})
    assert default_method(None, None, {}, decoys=True) == ("alpha-investing", 3, dict(DECOY_DEFAULT[2]))
    assert default_method("alpha-investing", None, {}) == ("alpha-investing", 1, {})
    assert default_method("lord++", 2, {"alpha": 0.1}) == ("lord++", 2, {"alpha": 0.1})


def test_select_without_a_method_screens_over_two_passes_then_confirms(problem):
    x, y = problem
    fit = sr.select(y, x)
    assert fit.policy_description == DEFAULT
    _two_phases(fit, 2)
    assert _rejected(fit) and sorted(fit.selected_terms) == ["x11", "x3"]
    text = " ".join(fit.guarantee().split())
    assert "<= 0.02" in text and "P(any selection) is about w0 = 0.05" in text and "screened model" in text
    # ... and is exactly the rule spelt out
    spelt = sr.select(y, x, method="screen-confirm", w0=0.05, alpha_delta=0.02, screen_w0=0.5, passes=2)
    assert spelt.policy_description == DEFAULT
    pd.testing.assert_frame_equal(fit.history, spelt.history)


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
    assert fit.policy_description == "screen-confirm(w0=0.1, alpha_delta=0.02, screen_w0=0.5)"
    _two_phases(fit, 2, w0=0.1)
    fit = sr.select(y, x, alpha_delta=0.1)
    assert fit.policy_description == "screen-confirm(w0=0.05, alpha_delta=0.1, screen_w0=0.5)"
    assert fit.history["pass"].max() == 3
    fit = sr.select(y, x, screen_w0=0.2)
    assert fit.policy_description == "screen-confirm(w0=0.05, alpha_delta=0.02, screen_w0=0.2)"
    assert fit.history["level"].iloc[0] == pytest.approx(0.2 / (2 * M + 1), rel=1e-12)
    three = sr.select(y, x, passes=3)
    assert three.policy_description == DEFAULT
    _two_phases(three, 3)


def test_passes_1_without_a_method_screens_once_then_confirms(problem):
    x, y = problem
    fit = sr.select(y, x, passes=1)
    assert fit.policy_description == DEFAULT
    _two_phases(fit, 1)
    assert len(fit.history[fit.history["pass"] == 1]) == M


def test_streams_read_once_and_stopping_rules_run_one_phase(problem):
    x, y = problem
    # a generator of columns: one pass of the confirmation's rule, no screening rows
    lazy = sr.select(y, (x[:, j] for j in range(M)), max_tests=math.inf)
    assert set(lazy.history["pass"]) == {1} and len(lazy.history) == M
    assert "screened in" not in set(lazy.history["status"].astype(str))
    spelt = sr.select(y, (x[:, j] for j in range(M)), max_tests=math.inf, method="alpha-investing", w0=0.05,
                      alpha_delta=0.02, spending="uniform")
    assert lazy.selected_terms == spelt.selected_terms
    np.testing.assert_allclose(lazy.history["level"].to_numpy(float), spelt.history["level"].to_numpy(float),
                               rtol=1e-12)
    assert "one phase ran" in " ".join(str(lazy.summary()).split())
    # a stopping rule: one phase over the default's passes, uniform spending over their horizon
    stopped = sr.select(y, x, max_tests=10 * M)
    assert "screened in" not in set(stopped.history["status"].astype(str))
    assert stopped.history["level"].iloc[0] == pytest.approx(0.05 / (DEFAULT_PASSES * M + 1), rel=1e-12)
    spelt = sr.select(y, x, max_tests=10 * M, method="alpha-investing", w0=0.05, alpha_delta=0.02,
                      spending="uniform", passes=DEFAULT_PASSES)
    assert stopped.selected_terms == spelt.selected_terms
    assert stopped.history["term"].tolist() == spelt.history["term"].tolist()


def test_decoys_keep_the_one_phase_rule(frame):
    fit = sr.streamreg("y ~ stream(x*)", frame, decoys="permuted")
    name, passes, options = DECOY_DEFAULT
    assert fit.policy_description == "alpha-investing(w0=0.05, alpha_delta=0.05, spending=uniform)"
    assert sorted(set(fit.history["pass"])) == list(range(1, passes + 1))
    assert "screened in" not in set(fit.history["status"].astype(str))
    spelt = sr.streamreg("y ~ stream(x*)", frame, decoys="permuted", method=name, passes=passes, **options)
    assert fit.selected_terms == spelt.selected_terms


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
    assert f"Selection method: {DEFAULT}" in out and ours["pass"].max() == DEFAULT_PASSES + 1
    assert "screened in" in set(ours["status"])
    same(ours, fit)
    assert out.endswith(f"Selected formula: {fit.selected_formula}")

    ours, out = run("--w0", "0.1")  # a flag without --method overrides the default's value only
    assert "Selection method: screen-confirm(w0=0.1, alpha_delta=0.02, screen_w0=0.5)" in out
    same(ours, sr.streamreg("y ~ stream(x*)", data, w0=0.1))
    assert ours["pass"].max() == 3

    ours, out = run("--passes", "1")
    assert f"Selection method: {DEFAULT}" in out and set(ours["pass"]) == {1, 2}
    same(ours, sr.streamreg("y ~ stream(x*)", data, passes=1))

    ours, out = run("--method", "alpha-investing")  # the papers' rule, one pass
    assert f"Selection method: {PAPERS}" in out and set(ours["pass"]) == {1} and len(ours) == M
    same(ours, sr.streamreg("y ~ stream(x*)", data, method="alpha-investing"))
