"""Command-line errors: one line on stderr starting with 'streamreg: ', exit status 2."""
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from cli_helpers import cli_error

from streamreg import cli
from streamreg.cli import main

not_root = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0,
                             reason="permissions do not bind root")


@pytest.fixture
def csv(tmp_path):
    rng = np.random.default_rng(0)
    d = pd.DataFrame(rng.normal(size=(60, 4)), columns=list("abcd"))
    d["y"] = d["b"] + 0.1 * rng.normal(size=60)
    path = tmp_path / "d.csv"
    d.to_csv(path, index=False)
    return path


# -- --data --------------------------------------------------------------------------------

def test_nonexistent_data_file(capsys, tmp_path):
    err = cli_error(capsys, ["y ~ stream(*)", "--data", tmp_path / "nope.csv"])
    names = ", ".join(cli.list_datasets())  # every catalogued set, bundled or fetched
    assert err == (f"streamreg: --data '{tmp_path / 'nope.csv'}' is neither a known data set ({names}) "
                   "nor an existing file")


def test_directory_as_data(capsys, tmp_path):
    err = cli_error(capsys, ["y ~ stream(*)", "--data", tmp_path])
    assert err == f"streamreg: --data '{tmp_path}' is a directory, not a CSV file"


def test_unreadable_data_file(capsys, csv, monkeypatch):
    def refuse(path):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(cli, "_open_data", refuse)
    err = cli_error(capsys, ["y ~ stream(*)", "--data", csv])
    assert err == f"streamreg: cannot read --data '{csv}': permission denied"


@not_root
def test_unreadable_data_file_by_mode(capsys, csv):
    csv.chmod(0)
    try:
        err = cli_error(capsys, ["y ~ stream(*)", "--data", csv])
    finally:
        csv.chmod(0o644)
    assert err == f"streamreg: cannot read --data '{csv}': permission denied"


def test_binary_data_file(capsys, tmp_path):
    path = tmp_path / "b.csv"
    path.write_bytes(b"a,b\x00\x01\x02,y\n\x00\x00\x00\n")
    err = cli_error(capsys, ["y ~ stream(*)", "--data", path])
    assert err == f"streamreg: --data '{path}' is not a text CSV file (it contains NUL bytes: binary?)"


def test_non_utf8_data_file(capsys, tmp_path):
    path = tmp_path / "l.csv"
    path.write_bytes(b"a\xff\xfe,y\n1,2\n")
    err = cli_error(capsys, ["y ~ stream(*)", "--data", path])
    assert err == f"streamreg: --data '{path}' is not a text CSV file (binary, or not UTF-8)"


def test_empty_data_file(capsys, tmp_path):
    path = tmp_path / "e.csv"
    path.write_text("")
    assert cli_error(capsys, ["y ~ stream(*)", "--data", path]) == f"streamreg: --data '{path}' is empty"


def test_header_only_data_file(capsys, tmp_path):
    path = tmp_path / "h.csv"
    path.write_text("a,b,y\n")
    err = cli_error(capsys, ["y ~ stream(*)", "--data", path])
    assert err == f"streamreg: --data '{path}' has a header but no data rows"


@pytest.mark.parametrize("rows, line, fields", [("1,2,3\n4,5\n6,7,8\n", 3, 2), ("1,2,3\n4,5,6,7\n", 3, 4)])
def test_ragged_data_file(capsys, tmp_path, rows, line, fields):
    path = tmp_path / "r.csv"
    path.write_text("a,b,y\n" + rows)
    err = cli_error(capsys, ["y ~ stream(*)", "--data", path])
    assert err == f"streamreg: --data '{path}' is a ragged CSV: line {line} has {fields} fields but the header has 3"


# -- output files, checked before the selection runs ----------------------------------------

@pytest.fixture
def no_selection(monkeypatch):
    def fail(*args, **kwargs):
        raise AssertionError("the selection ran before the output paths were checked")

    monkeypatch.setattr(cli, "streamreg", fail)


def test_output_in_a_missing_directory(capsys, csv, tmp_path, no_selection):
    target = tmp_path / "nodir" / "t.tex"
    err = cli_error(capsys, ["y ~ stream(*)", "--data", csv, "--latex", target])
    assert err == f"streamreg: --latex '{target}': the directory '{tmp_path / 'nodir'}' does not exist"


def test_output_is_a_directory(capsys, csv, tmp_path, no_selection):
    err = cli_error(capsys, ["y ~ stream(*)", "--data", csv, "--html", tmp_path])
    assert err == f"streamreg: --html '{tmp_path}' is a directory; give a file name"


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux /proc")
def test_output_that_cannot_be_created(capsys, csv, no_selection):
    err = cli_error(capsys, ["y ~ stream(*)", "--data", csv, "--history", "/proc/streamreg-history.csv"])
    assert err.startswith("streamreg: cannot write --history '/proc/streamreg-history.csv': ")


@not_root
def test_output_in_a_read_only_directory(capsys, csv, tmp_path, no_selection):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        err = cli_error(capsys, ["y ~ stream(*)", "--data", csv, "--history", ro / "h.csv"])
    finally:
        ro.chmod(0o700)
    assert err == f"streamreg: cannot write --history '{ro / 'h.csv'}': Permission denied"


def test_output_that_fails_after_the_selection(capsys, csv, tmp_path, monkeypatch):
    monkeypatch.setattr(cli, "_check_writable", lambda option, value: None)  # the directory vanished meanwhile
    target = tmp_path / "gone" / "t.tex"
    err = cli_error(capsys, ["y ~ stream(*)", "--data", csv, "--latex", target])
    assert err == f"streamreg: cannot write --latex '{target}': No such file or directory"


def test_output_check_leaves_no_file_when_the_run_fails(capsys, csv, tmp_path):
    target = tmp_path / "t.tex"
    cli_error(capsys, ["y ~ stream(zzz*)", "--data", csv, "--latex", target])
    assert not target.exists()


# -- formula, options and errors from the selection -----------------------------------------

def test_bad_formula(capsys, csv):
    err = cli_error(capsys, ["y ~ stream(*", "--data", csv])
    assert err == "streamreg: unclosed '(' at position 10 in formula 'y ~ stream(*'"


def test_formula_that_matches_nothing(capsys, csv):
    err = cli_error(capsys, ["y ~ stream(zzz*)", "--data", csv])
    assert err == "streamreg: stream(zzz*): 'zzz*' matches no column of the data"


def test_patsy_error_is_one_line(capsys, csv):
    err = cli_error(capsys, ["y ~ stream(a, open(b))", "--data", csv])
    assert err.startswith("streamreg: patsy cannot build the candidate term 'open(b)': ")
    assert "Python's built-in 'open' is not available in a formula" in err


def test_unknown_family(capsys, csv):
    err = cli_error(capsys, ["y ~ stream(*)", "--data", csv, "--family", "nosuch"])
    assert err.startswith("streamreg: unknown family 'nosuch'; use one of ['binomial', ")


def test_unknown_method(capsys, csv):
    err = cli_error(capsys, ["y ~ stream(*)", "--data", csv, "--method", "nosuch"])
    assert err.startswith("streamreg: unknown method 'nosuch'; known methods: ")


def test_bad_option_value_from_the_selection(capsys, csv):
    err = cli_error(capsys, ["y ~ stream(*)", "--data", csv, "--w0", "-1"])
    assert err == "streamreg: w0 must be a positive number, got -1.0"


def test_bad_option_type_is_one_line(capsys, csv):
    err = cli_error(capsys, ["y ~ stream(*)", "--data", csv, "--w0", "abc"])
    assert err == "streamreg: argument --w0: invalid float value: 'abc' (see --help)"


def test_missing_data_option_is_one_line(capsys):
    err = cli_error(capsys, ["y ~ stream(*)"])
    assert err == "streamreg: the following arguments are required: --data (see --help)"


@pytest.mark.parametrize("exc, text", [
    (TypeError("max_tests must be an integer"), "streamreg: max_tests must be an integer"),
    (KeyError("x9"), "streamreg: KeyError: 'x9'"),
    (ValueError("first line\n    y ~ x\n    ^^^"), "streamreg: first line"),
])
def test_selection_errors_are_one_line(capsys, csv, monkeypatch, exc, text):
    def raise_(*args, **kwargs):
        raise exc

    monkeypatch.setattr(cli, "streamreg", raise_)
    assert cli_error(capsys, ["y ~ stream(*)", "--data", csv]) == text


def test_interrupt_is_one_line(capsys, csv, monkeypatch):
    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "streamreg", interrupt)
    assert main(["y ~ stream(*)", "--data", str(csv)]) == 130
    assert capsys.readouterr().err == "streamreg: interrupted\n"


def test_warnings_are_one_line_each(capsys, tmp_path, csv):
    d = pd.read_csv(csv)
    d.loc[3, "a"] = np.nan
    path = tmp_path / "na.csv"
    d.to_csv(path, index=False)
    assert main(["y ~ stream(*)", "--data", str(path)]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err and all(line.startswith("streamreg: warning: ") for line in err)
    assert any("dropped 1 rows" in line for line in err)


# -- stdout closed early (`... | head -1`) ---------------------------------------------------

def test_closed_stdout_exits_quietly():
    proc = subprocess.Popen([sys.executable, "-m", "streamreg", "diagnosis ~ stream(*_mean)", "--data", "wdbc"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # the reader goes away before anything is written, as `head` does
    err = proc.stderr.read().decode()
    proc.stderr.close()
    assert proc.wait(timeout=300) == 141, err  # 128 + SIGPIPE, as the shell reports it
    assert "Traceback" not in err and "BrokenPipeError" not in err


# -- the command line names flags, not keywords -------------------------------------------

def test_cli_suggests_the_family_flag_for_a_text_response(tmp_path, capsys):
    rng = np.random.default_rng(0)
    d = pd.DataFrame(rng.normal(size=(40, 2)), columns=["x1", "x2"])
    d.insert(0, "y", rng.choice(["no", "yes"], 40))
    path = tmp_path / "d.csv"
    d.to_csv(path, index=False)
    assert main(["y ~ stream(x*)", "--data", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("streamreg: the response 'y' is not numeric")
    assert err.endswith("for a two-level response use --family binomial\n")
    assert "family=" not in err
