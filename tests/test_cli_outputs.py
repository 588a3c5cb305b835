"""Issue 26: the CLI's outputs never overwrite an input, '-' is standard output, only regular
files are used, and the HTML and CSV outputs cannot inject markup or spreadsheet formulas."""
from __future__ import annotations

import io
import os
import threading

import numpy as np
import pandas as pd
import pytest
from cli_helpers import cli_error

from streamreg.cli import main
from streamreg.cli_files import csv_safe

SCRIPT = "<script>alert(1)</script>"


@pytest.fixture
def csv(tmp_path):
    rng = np.random.default_rng(0)
    d = pd.DataFrame(rng.normal(size=(60, 4)), columns=["a", "b", SCRIPT, "d"])
    d["y"] = d["b"] + d[SCRIPT] + 0.1 * rng.normal(size=60)
    path = tmp_path / "d.csv"
    d.to_csv(path, index=False)
    return path


@pytest.mark.parametrize("option", ["--history", "--latex", "--html"])
def test_an_output_that_is_the_input_is_refused(capsys, csv, option):
    before = csv.read_bytes()
    err = cli_error(capsys, ["y ~ stream(*)", "--data", csv, option, csv])
    assert err == (f"streamreg: {option} '{csv}' is the input --data '{csv}'; writing it would destroy the data: "
                   "give another file name")
    assert csv.read_bytes() == before


@pytest.mark.parametrize("link", ["symlink", "link"])
def test_an_output_linked_to_the_input_is_refused(capsys, csv, tmp_path, link):
    other = tmp_path / "other.csv"
    getattr(os, link)(csv, other)
    before = csv.read_bytes()
    err = cli_error(capsys, ["y ~ stream(*)", "--data", csv, "--history", other])
    assert err == (f"streamreg: --history '{other}' is the input --data '{csv}'; writing it would destroy the "
                   "data: give another file name")
    assert csv.read_bytes() == before


def test_two_outputs_in_one_file_are_refused(capsys, csv, tmp_path):
    out = tmp_path / "out.txt"
    err = cli_error(capsys, ["y ~ stream(*)", "--data", csv, "--latex", out, "--html", out])
    assert err == f"streamreg: --latex '{out}' and --html '{out}' are the same file; give each output its own file"
    err = cli_error(capsys, ["y ~ stream(*)", "--data", csv, "--latex", "-", "--html", "-"])
    assert err == "streamreg: --latex and --html both write to standard output (-); give one of them a file"


def test_dash_is_standard_output(capsys, csv, tmp_path):
    assert main(["y ~ stream(*)", "--data", str(csv), "--history", "-", "--passes", "1", "--method", "alpha-investing"]) == 0
    out, err = capsys.readouterr()
    history = pd.read_csv(io.StringIO(out))  # stdout holds the CSV alone; the summary went to stderr
    assert history.columns[0] == "test" and len(history) == 4
    assert "Selected formula:" in err and not (tmp_path / "-").exists()
    assert not os.path.exists("-")
    for option, start in (("--html", "<table"), ("--latex", "\\begin{center}")):
        assert main(["y ~ stream(*)", "--data", str(csv), option, "-"]) == 0
        out, err = capsys.readouterr()
        assert out.startswith(start) and "Selected formula:" in err


def test_html_output_escapes_names(csv, tmp_path):
    page = tmp_path / "s.html"
    assert main(["y ~ stream(*)", "--data", str(csv), "--html", str(page)]) == 0
    text = page.read_text(encoding="utf-8")
    assert "<script>" not in text and "Q(&#x27;&lt;script&gt;alert(1)&lt;/script&gt;&#x27;)" in text


def test_history_csv_has_no_spreadsheet_formulas(capsys, csv):
    assert main(["y ~ stream(*, name='=HYPERLINK(\"http://e.vil\")')", "--data", str(csv), "--history", "-"]) == 0
    history = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert set(history["stream"]) == {"'=HYPERLINK(\"http://e.vil\")"}


def test_csv_safe_prefixes_text_only():
    frame = pd.DataFrame({"=bad": ["=1+2", "+x", "-y", "@z", "\tt", "ok", None], "n": [-1.0, 2, 3, 4, 5, 6, 7],
                          "c": pd.Categorical(["-a", "b", "b", "b", "b", "b", "b"])})
    safe = csv_safe(frame)
    assert list(safe.columns) == ["'=bad", "n", "c"]
    assert safe.iloc[:, 0].tolist()[:6] == ["'=1+2", "'+x", "'-y", "'@z", "'\tt", "ok"]
    assert pd.isna(safe.iloc[6, 0]) and safe.iloc[0, 2] == "'-a"
    assert safe["n"].tolist() == frame["n"].tolist()  # numbers are never touched
    assert frame.iloc[0, 0] == "=1+2"  # the history itself is unchanged


def _returns_in_time(argv) -> int:
    """main(argv), failing the test instead of hanging when it blocks."""
    result: list[int] = []
    worker = threading.Thread(target=lambda: result.append(main(argv)), daemon=True)
    worker.start()
    worker.join(30)
    assert result, "the CLI blocked"
    return result[0]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs")
def test_fifo_data_and_output_are_refused(capsys, csv, tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert _returns_in_time(["y ~ stream(*)", "--data", str(fifo)]) == 2
    assert capsys.readouterr().err == (f"streamreg: --data '{fifo}' is a FIFO (named pipe); give a regular CSV "
                                       "file\n")
    assert _returns_in_time(["y ~ stream(*)", "--data", str(csv), "--latex", str(fifo)]) == 2
    assert capsys.readouterr().err == (f"streamreg: --latex '{fifo}' is a FIFO (named pipe); use - for standard "
                                       "output\n")


@pytest.mark.skipif(not os.path.exists("/dev/null"), reason="no /dev/null")
def test_device_output_is_refused(capsys, csv):
    err = cli_error(capsys, ["y ~ stream(*)", "--data", csv, "--html", "/dev/null"])
    assert err == "streamreg: --html '/dev/null' is a device; use - for standard output"


def test_duplicated_csv_header_is_refused(capsys, tmp_path):
    path = tmp_path / "dup.csv"
    path.write_text("y,x,z,x,z\n" + "\n".join(f"{i},{i % 3},{i % 5},{i % 7},{i}" for i in range(30)) + "\n")
    err = cli_error(capsys, ["y ~ stream(*)", "--data", path])
    assert err == (f"streamreg: --data '{path}' has duplicated column names: 'x', 'z'; rename them so that each "
                   "column has its own name")
