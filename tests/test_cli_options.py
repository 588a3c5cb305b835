"""Command-line options: the method flags derived from the signatures, offsets and weights, --verbose.

Every run is compared with the Python call it stands for: the same history (``--history``) and
the same printed formula.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from cli_helpers import cli_error

import streamreg as sr
from streamreg.cli import _parser, main
from streamreg.config import method_options
from streamreg.search import method_factory, method_names


@pytest.fixture
def csv(tmp_path):
    rng = np.random.default_rng(7)
    n = 80
    d = pd.DataFrame(rng.normal(size=(n, 6)), columns=list("abcdef"))
    d["y"] = d["b"] - 0.6 * d["e"] + 0.8 * rng.normal(size=n)
    d["o"] = 0.2 * rng.normal(size=n)
    d["t"] = rng.uniform(0.5, 3.0, n)  # exposure
    d["f"] = rng.integers(1, 4, n).astype(float)
    d["w"] = rng.uniform(0.5, 2.0, n)
    d["count"] = rng.poisson(d["t"] * np.exp(0.2 + 0.5 * d["b"]))
    d["g"] = np.repeat(np.arange(16), n // 16)  # clusters
    path = tmp_path / "d.csv"
    d.to_csv(path, index=False)
    return path


def run_like_api(capsys, tmp_path, csv, argv: list[str], formula: str = "y ~ stream(a, b, c, d, e, f)",
                 **api) -> sr.StreamRegResults:
    """Run the CLI with ``argv`` and the API with ``api``; assert the same history and formula."""
    history = tmp_path / "history.csv"
    code = main([formula, "--data", str(csv), "--history", str(history), *argv])
    out, err = capsys.readouterr()
    assert code == 0, err
    fit = sr.streamreg(formula, pd.read_csv(csv), **api)
    ours = pd.read_csv(history)
    theirs = fit.history.reset_index(drop=True).astype({"status": str})
    pd.testing.assert_frame_equal(ours, theirs, check_dtype=False, rtol=0, atol=0)
    assert out.rstrip().endswith(f"Selected formula: {fit.selected_formula}")
    return fit


@pytest.mark.parametrize("argv, api", [
    (["--method", "lord++", "--alpha", "0.2"], {"method": "lord++", "alpha": 0.2}),
    (["--method", "lord++", "--alpha", "0.2", "--gammai", "0.5,0.3,0.1"],
     {"method": "lord++", "alpha": 0.2, "gammai": [0.5, 0.3, 0.1]}),
    (["--method", "saffron", "--lambda", "0.3", "--w0", "0.01"], {"method": "saffron", "lambda_": 0.3, "w0": 0.01}),
    (["--w0", "0.1", "--alpha-delta", "0.05"], {"w0": 0.1, "alpha_delta": 0.05}),
    (["--method", "information-investing", "--charge-bid"], {"method": "information-investing", "charge_bid": True}),
    (["--method", "lond", "--no-original"], {"method": "lond", "original": False}),
    (["--method", "stepwise-bic", "--max-steps", "1"], {"method": "stepwise-bic", "max_steps": 1}),
    (["--method", "stepwise", "--penalty", "3.5"], {"method": "stepwise", "penalty": 3.5}),
    (["--method", "stepwise", "--penalty", "bic", "--direction", "both"],
     {"method": "stepwise", "penalty": "bic", "direction": "both"}),
    (["--max-tests", "3"], {"max_tests": 3}),
])
def test_method_flags_equal_the_api(capsys, tmp_path, csv, argv, api):
    run_like_api(capsys, tmp_path, csv, argv, **api)


@pytest.mark.parametrize("argv, api", [
    (["--offset", "o"], {"offset": "o"}),
    (["--var-weights", "w"], {"var_weights": "w"}),
    (["--freq-weights", "f", "--var-weights", "w"], {"freq_weights": "f", "var_weights": "w"}),
])
def test_offset_and_weight_columns_equal_the_api(capsys, tmp_path, csv, argv, api):
    # the weights column f is not a candidate (a stream naming it is refused)
    run_like_api(capsys, tmp_path, csv, argv, formula="y ~ stream(a, b, c, d, e)", **api)


def test_a_weights_column_named_as_a_candidate_is_refused(capsys, tmp_path, csv):
    code = main(["y ~ stream(a, b, f)", "--data", str(csv), "--freq-weights", "f"])
    _, err = capsys.readouterr()
    assert code == 2
    assert err.startswith("streamreg: stream(a, b, f): 'f' is taken (the response, a fixed term on its own, an "
                          "offset or weights column, or a candidate of an earlier stream)")


@pytest.mark.parametrize("argv, api", [
    (["--cov-type", "HC3"], {"cov_type": "HC3"}),
    (["--cov-type", "cluster", "--cluster", "g"], {"cov_type": "cluster", "cov_kwds": {"groups": "g"}}),
])
def test_cov_type_equals_the_api(capsys, tmp_path, csv, argv, api):
    fit = run_like_api(capsys, tmp_path, csv, argv, **api)
    assert fit.fit.cov_type == api["cov_type"]


def test_cluster_without_its_column(capsys, csv):
    err = cli_error(capsys, ["y ~ stream(*)", "--data", csv, "--cov-type", "cluster"])
    assert err == "streamreg: --cov-type cluster needs the clusters: --cluster COLUMN"


def test_exposure_column_equals_the_api(capsys, tmp_path, csv):
    fit = run_like_api(capsys, tmp_path, csv, ["--family", "poisson", "--exposure", "t"],
                       formula="count ~ stream(a, b, c, d)", family="poisson", exposure="t")
    assert fit.selected_terms == ["b"]


def test_flag_of_another_method_names_the_valid_ones(capsys, csv):
    err = cli_error(capsys, ["y ~ stream(*)", "--data", csv, "--method", "lord++", "--alpha-delta", "0.1"])
    assert err == ("streamreg: --alpha-delta does not apply to method 'lord++'; its options: --alpha, --w0, "
                   "--gammai, --spending")
    assert "LORDPlusPlus" not in err


def test_several_wrong_flags_and_a_method_without_options(capsys, csv):
    err = cli_error(capsys, ["y ~ stream(*)", "--data", csv, "--method", "aic", "--w0", "0.1", "--lambda", "0.2"])
    assert err == "streamreg: --lambda, --w0 do not apply to method 'aic'; it takes no options"


def test_fixed_penalty_of_stepwise_aic_is_not_an_option(capsys, csv):
    err = cli_error(capsys, ["y ~ stream(*)", "--data", csv, "--method", "stepwise-aic", "--penalty", "2"])
    assert err.startswith("streamreg: --penalty does not apply to method 'stepwise-aic'; its options: --direction")


def test_unknown_method_with_a_flag_reports_the_method(capsys, csv):
    err = cli_error(capsys, ["y ~ stream(*)", "--data", csv, "--method", "nosuch", "--alpha", "0.1"])
    assert err.startswith("streamreg: unknown method 'nosuch'; known methods: ")


@pytest.mark.parametrize("argv, text", [
    (["--gammai", "0.5,x"], "argument --gammai: expected numbers separated by commas, got '0.5,x' (see --help)"),
    (["--max-steps", "1.5"], "argument --max-steps: invalid int value: '1.5' (see --help)"),
    (["--method", "lord++", "--alpha", "2"], "streamreg: alpha must lie in (0, 1), got 2.0"),
    (["--offset", "nope"], "offset='nope' is not a column of the data"),
    (["--var-weights", "a"], "var_weights (column 'a') must be positive"),
])
def test_bad_values_are_one_line(capsys, csv, argv, text):
    err = cli_error(capsys, ["y ~ stream(*)", "--data", csv, *argv])
    assert text in err


def test_every_option_of_every_method_has_a_flag():
    """Derived from the signatures: each keyword of each registered method parses to itself."""
    parser = _parser()
    flags = {a.dest: a for a in parser._actions}
    for method in method_names(aliases=False):
        assert method_factory(method) is not None
        for name in method_options(method) or {}:
            assert f"method_option_{name}" in flags, (method, name)


def test_verbose_flag_draws_a_bar(capsys, csv):
    one_pass = ["--method", "alpha-investing"]  # one pass: the candidates are the bar's total
    assert main(["y ~ stream(*)", "--data", str(csv), *one_pass, "--verbose"]) == 0
    err = capsys.readouterr().err
    assert "alpha-investing: 100%" in err and "11/11 [" in err  # y ~ every other column
    assert main(["y ~ stream(*)", "--data", str(csv), *one_pass, "--verbose", "4"]) == 0
    assert "11/11 [" in capsys.readouterr().err
    assert main(["y ~ stream(*)", "--data", str(csv)]) == 0
    assert capsys.readouterr().err == ""


def test_a_response_that_does_not_fit_the_data_sets_family_suggests_one(capsys):
    assert main(["radius_mean ~ stream(*_se)", "--data", "wdbc"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0
    assert "a binomial response must be 0/1" in err
    assert "family 'binomial' is the default of the data set wdbc" in err and "--family gaussian" in err
    assert main(["radius_mean ~ stream(*_se)", "--data", "wdbc", "--family", "binomial"]) == 2
    assert "--family gaussian" not in capsys.readouterr().err  # the user chose it: no hint
