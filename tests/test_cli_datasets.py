"""The command line (the README's main job), bundled data and the simulator of Zhou et al. (2006)."""
import gzip
import hashlib
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import streamreg as sr
from streamreg.cli import main

README_JOB = ["-m", "streamreg", "diagnosis ~ stream(*_mean) + stream(*_se, *_worst)", "--data", "wdbc"]


def test_readme_main_job_runs_in_a_subprocess():
    out = subprocess.run([sys.executable, *README_JOB], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "Streamwise selection" in out.stdout
    assert "P(diagnosis = 'M')" in out.stdout
    assert "Selected formula: I((diagnosis == 'M') * 1) ~ 1 + " in out.stdout


def test_readme_commands_are_the_ones_tested():
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    assert 'python -m streamreg "diagnosis ~ stream(*_mean) + stream(*_se, *_worst)" --data wdbc' in readme
    assert 'pip install ".[test]" && python -m pytest' in readme
    ci = (Path(__file__).resolve().parents[1] / ".ci" / "run").read_text()
    assert 'pip install -q ".[test]" && python -m pytest' in ci


def test_cli_writes_latex_html_history_and_reads_csv(tmp_path, capsys):
    csv = tmp_path / "d.csv"
    rng = np.random.default_rng(0)
    d = pd.DataFrame(rng.normal(size=(80, 5)), columns=list("abcde"))
    d["y"] = d["b"] + 0.1 * rng.normal(size=80)
    d.to_csv(csv, index=False)
    code = main(["y ~ stream(*)", "--data", str(csv), "--method", "alpha-investing", "--latex", str(tmp_path / "t.tex"),
                 "--html", str(tmp_path / "t.html"), "--history", str(tmp_path / "h.csv")])
    assert code == 0
    assert "OLS Regression Results" in capsys.readouterr().out
    assert "\\begin{tabular}" in (tmp_path / "t.tex").read_text()
    assert "<table" in (tmp_path / "t.html").read_text()
    assert len(pd.read_csv(tmp_path / "h.csv")) == 5


def test_cli_issue_example_stream_of_all_columns(capsys):
    assert main(["diagnosis ~ stream(*)", "--data", "wdbc", "--family", "binomial", "--method", "alpha-investing"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"Candidates tested:\s+30\b", out)  # the response is never a candidate; id is the index


def test_cli_errors_are_messages_not_tracebacks(capsys):
    assert main(["y ~ stream(*)", "--data", "no_such_file.csv"]) == 2
    assert "neither a known data set" in capsys.readouterr().err
    assert main(["diagnosis ~ stream(zzz*)", "--data", "wdbc"]) == 2
    assert "matches no column" in capsys.readouterr().err


def test_wdbc_matches_the_uci_original():
    ds = sr.datasets.load("wdbc")
    d = ds.data
    assert d.shape == (569, 31) and d.index.name == "id"
    assert d["diagnosis"].value_counts().to_dict() == {"B": 357, "M": 212}
    assert list(d.columns[1:4]) == ["radius_mean", "texture_mean", "perimeter_mean"]
    assert d.columns[-1] == "fractal_dimension_worst"
    assert len(d.filter(like="_se").columns) == 10
    raw = Path(__file__).resolve().parents[1] / "datasets" / "wdbc" / "wdbc.data.gz"
    text = gzip.decompress(raw.read_bytes())
    assert hashlib.sha256(text).hexdigest().startswith("d606af411f3e")
    orig = pd.read_csv(raw, header=None)
    np.testing.assert_array_equal(orig.iloc[:, 2:].to_numpy(), d.iloc[:, 1:].to_numpy())
    np.testing.assert_array_equal(orig.iloc[:, 0].to_numpy(), d.index.to_numpy())
    assert "Street" in ds.description
    with pytest.raises(ValueError, match="unknown data set"):
        sr.datasets.load("nope")


def test_make_synthetic_design_and_lazy_stream_agree():
    sim = sr.datasets.make_synthetic(n=50, m=2500, k=4, seed=7)
    x = sim.data.drop(columns="y").to_numpy()
    true_idx = [int(t[1:]) - 1 for t in sim.true_features]
    resid = sim.y - x[:, true_idx].sum(axis=1)
    assert 0.05 < resid.std() < 0.2  # noise sd 0.1
    lazy = sr.datasets.make_synthetic(n=50, m=2500, k=4, seed=7, lazy=True)
    assert lazy.data is None
    np.testing.assert_array_equal(lazy.y, sim.y)
    blocks = []
    while (b := lazy.stream.take(700)) is not None:
        blocks.append(b.block.values)
    np.testing.assert_array_equal(np.concatenate(blocks, axis=1), x)
    first = sr.datasets.make_synthetic(n=20, m=100, positions="first", seed=1)
    last = sr.datasets.make_synthetic(n=20, m=100, positions="last", seed=1)
    assert first.true_features == ["x1", "x2", "x3", "x4"]
    assert last.true_features == ["x97", "x98", "x99", "x100"]
    with pytest.raises(ValueError, match="positions must be"):
        sr.datasets.make_synthetic(positions="middle")


def test_select_bad_inputs():
    rng = np.random.default_rng(0)
    y = rng.normal(size=30)
    x = rng.normal(size=(30, 4))
    bad = x.copy()
    bad[2, 1] = np.nan
    with pytest.raises(ValueError, match="contains NaN or infinite values"):
        sr.select(y, bad)
    with pytest.raises(ValueError, match="has 29 rows, y has 30"):
        sr.select(y, x[:29])
    with pytest.raises(ValueError, match="is empty"):
        sr.select(y, np.empty((30, 0)))
    with pytest.raises(ValueError, match="is empty: the iterable yielded no candidate"):
        sr.select(y, iter([]))
    with pytest.raises(ValueError, match="binomial response must be 0/1"):
        sr.select(y, x, family="binomial")
    with pytest.raises(ValueError, match="y contains NaN"):
        sr.select(np.r_[y[:-1], np.nan], x)
    with pytest.raises(ValueError, match="candidate 'g' has 10 rows"):
        sr.select(y, iter([("g", np.ones(10))]))
    with pytest.raises(ValueError, match="duplicated candidate name"):
        sr.select(y, pd.DataFrame(x, columns=["a", "a", "b", "c"]))
    with pytest.raises(ValueError, match="block_size must be a positive integer"):
        sr.select(y, x, block_size=0)


def test_cli_keep_history_none_writes_only_the_decisive_rows(tmp_path, capsys):
    full, kept = tmp_path / "full.csv", tmp_path / "kept.csv"
    one_pass = ["--method", "alpha-investing"]  # one row per candidate
    assert main(["diagnosis ~ stream(*)", "--data", "wdbc", "--family", "binomial", *one_pass,
                 "--history", str(full)]) == 0
    assert main(["diagnosis ~ stream(*)", "--data", "wdbc", "--family", "binomial", *one_pass,
                 "--history", str(kept), "--keep-history", "none"]) == 0
    h_full, h_kept = pd.read_csv(full), pd.read_csv(kept)
    assert len(h_full) == 30
    decisive = h_full[h_full["status"].str.startswith(("accepted", "refused"))].reset_index(drop=True)
    assert len(decisive) > 0
    pd.testing.assert_frame_equal(h_kept[list(decisive.columns)], decisive)
    capsys.readouterr()
    assert main(["y ~ x", "--data", "wdbc", "--keep-history", "some"]) == 2
    assert "invalid choice: 'some'" in capsys.readouterr().err


def test_cli_version_and_stopping_and_validation_options(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"streamreg {sr.__version__}"
    assert main(["diagnosis ~ stream(*)", "--data", "wdbc", "--max-selected", "2"]) == 0
    out = capsys.readouterr().out
    fit = sr.streamreg("diagnosis ~ stream(*)", sr.datasets.load("wdbc").data, family="binomial", max_selected=2)
    assert f"Selected formula: {fit.selected_formula}" in out
    assert main(["diagnosis ~ stream(*)", "--data", "wdbc", "--validate", "0.3", "--seed", "4"]) == 0
    out = capsys.readouterr().out
    held = sr.streamreg("diagnosis ~ stream(*)", sr.datasets.load("wdbc").data, family="binomial", validate=0.3,
                        seed=4)
    assert f"Selected formula: {held.selected_formula}" in out
    assert main(["diagnosis ~ stream(*)", "--data", "wdbc", "--validate", "3"]) == 2
    assert capsys.readouterr().err.startswith("streamreg: validate as a fraction must lie in (0, 1)")


def test_cli_failed_download_is_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("STREAMREG_DATA", str(tmp_path / "cache"))
    monkeypatch.setenv("STREAMREG_DATA_URL", "http://127.0.0.1:9/")  # nothing listens on the discard port
    assert main(["y ~ stream(*)", "--data", "madelon"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("streamreg: --data madelon: ") and err.count("\n") == 1
    assert "Traceback" not in err
