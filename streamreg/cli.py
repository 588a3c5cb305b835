"""Command line: ``python -m streamreg FORMULA --data NAME_OR_CSV [options]``.

Every user error (unreadable data, unwritable output, bad formula or option) is one line
on stderr starting with ``streamreg: `` and exit status 2, never a traceback.
"""
from __future__ import annotations

import argparse
import csv
import os
import re
import signal
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TextIO

import pandas as pd

from . import __version__
from .api import streamreg
from .cli_files import STDOUT, FileError, check_outputs, check_regular, csv_safe, duplicated_names, write_text
from .config import DEFAULT_METHOD, method_options
from .datasets import DatasetError, list_datasets, load
from .search import method_names
from .validators import FLAG, INTEGER, NONE, NUMBER, NUMBERS, TEXT

if TYPE_CHECKING:
    from .results import StreamRegResults
    from .results.summary import StreamRegSummary

#: errors that user input can make the selection raise (FormulaError is a ValueError)
_USER_ERRORS = (ValueError, TypeError, KeyError)
_USAGE_ERROR = 2
_BROKEN_PIPE = 128 + getattr(signal, "SIGPIPE", 13)  # the shell's status for a writer whose reader left
_OUTPUTS = {"--latex": "latex", "--html": "html", "--history": "history"}  # option -> attribute
_METHOD_DEST = "method_option_"  # namespace prefix of the flags derived from the methods' signatures
_WEIGHT_FLAGS = {
    "offset": "a data column added to the linear predictor",
    "exposure": "a data column whose log is added to the linear predictor (log link)",
    "freq_weights": "a data column of frequency weights (counts of identical rows)",
    "var_weights": "a data column of prior weights dividing the variance (R's glm weights=)",
}


class CLIError(Exception):
    """A user error; its message is printed as one line."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        # argparse prints the usage block too; one line is easier to read in scripts and logs
        self.exit(_USAGE_ERROR, f"streamreg: {message} (see --help)\n")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="streamreg",
        description="Streamwise feature selection with a formula; prints a statsmodels-style summary.",
        epilog='example: python -m streamreg "diagnosis ~ stream(*_mean) + stream(*_se, *_worst)" '
        "--data wdbc --family binomial",
    )
    p.add_argument("formula", help="e.g. 'y ~ age + stream(x*)'")
    p.add_argument("--data", required=True, help="a data set name (see streamreg.datasets.catalogue(); sets that are not bundled are "
                   "downloaded on first use) or a CSV path")
    p.add_argument("--family", default=None, help="gaussian (default; bundled sets suggest their own), binomial, poisson, ...")
    p.add_argument("--method", default=None,
                   help="selection rule (default: alpha-investing with w0 = alpha_delta = 0.05 and uniform "
                        "spending, over 3 passes)")
    p.add_argument("--test", default=None, help="t or paper (gaussian); score or lr (GLMs)")
    p.add_argument("--max-tests", type=int, default=None, help="stop after this many tests")
    p.add_argument("--max-selected", type=int, default=None, help="stop after this many selected terms")
    p.add_argument("--time-budget", type=float, default=None, metavar="SECONDS", help="stop after this long")
    p.add_argument("--passes", type=int, default=None, help="passes over the streams (default 3 for the default rule, 1 for a named --method)")
    p.add_argument("--validate", type=float, default=None, metavar="FRACTION",
                   help="hold out this fraction of the rows: select on the rest, refit on the held-out rows "
                        "(inference that holds after selection)")
    p.add_argument("--seed", type=int, default=None, help="seed of the --validate split and of random orders (without it one is drawn and printed in "
                        "the summary)")
    p.add_argument("--verbose", type=int, nargs="?", const=True, default=None, metavar="EVERY",
                   help="a progress bar on stderr (redrawn every EVERY tests when given)")
    for option, help_text in _WEIGHT_FLAGS.items():
        p.add_argument(f"--{option.replace('_', '-')}", default=None, metavar="COLUMN", help=help_text)
    p.add_argument("--cov-type", default=None, metavar="TYPE",
                   help="covariance of the estimates (and of a streamwise search's Gaussian candidate tests): "
                        "nonrobust (default), HC0, HC1, HC2, HC3 or cluster (statsmodels' names)")
    p.add_argument("--cluster", default=None, metavar="COLUMN", help="the data column of the clusters of --cov-type cluster")
    p.add_argument("--decoys", choices=("permuted", "knockoff"), default=None,
                   help="shadow every candidate with a decoy tested at its level: the summary estimates the "
                        "false selections (no decision changes)")
    p.add_argument("--decoy-fdr", type=float, default=None, metavar="Q",
                   help="select with the decoys: candidates past the knockoff+ threshold at level Q")
    p.add_argument("--version", action="version", version=f"streamreg {__version__}")
    p.add_argument("--latex", metavar="FILE", help="also write the summary as LaTeX (- for standard output, "
                   "which then holds it alone: the text summary goes to stderr)")
    p.add_argument("--html", metavar="FILE", help="also write the summary as HTML (- for standard output)")
    p.add_argument("--history", metavar="FILE", help="write the selection history as CSV (- for standard output)")
    p.add_argument("--keep-history", choices=("full", "none"), default="full",
                   help="history rows kept: full (one per candidate, default) or none (only the accepted "
                        "and refused ones: memory stays flat on long streams)")
    _add_method_flags(p)
    return p


# -- method options ------------------------------------------------------------------------
# One flag per keyword option of any registered method (policy or search method), read from
# the constructors' signatures and the kinds their classes declare: a new rule gets its flags
# without a change here.


def _flag(name: str) -> str:
    return "--" + name.rstrip("_").replace("_", "-")  # lambda_ -> --lambda


def _number_or_text(text: str) -> float | str:
    try:
        return float(text)
    except ValueError:
        return text


def _numbers(text: str) -> list[float]:
    try:
        return [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected numbers separated by commas, got {text!r}") from None


_numbers.__name__ = "comma-separated numbers"


def _converter(kinds: tuple[str, ...]) -> tuple[Callable[[str], Any] | None, dict[str, Any]]:
    """argparse ``type`` and extra keywords for an option of the declared ``kinds``."""
    kind = set(kinds) - {NONE}  # a flag left out is None
    if NUMBERS in kind:
        return _numbers, {"metavar": "X,Y,..."}
    if kind == {FLAG}:
        return None, {"action": argparse.BooleanOptionalAction}
    if kind == {INTEGER}:
        return int, {}
    if kind in ({NUMBER}, {NUMBER, INTEGER}):
        return float, {}
    if kind == {TEXT}:
        return str, {}
    return _number_or_text, {"metavar": "VALUE"}


def _add_method_flags(p: argparse.ArgumentParser) -> None:
    group = p.add_argument_group("method options", "each applies to the methods named after it")
    users: dict[str, list[str]] = {}
    kinds: dict[str, tuple[str, ...]] = {}
    for method in method_names(aliases=False):
        for name, accepted in (method_options(method) or {}).items():
            kinds.setdefault(name, accepted)
            users.setdefault(name, []).append(method)
    for name in sorted(kinds, key=_flag):
        convert, extra = _converter(kinds[name])
        kwargs: dict[str, Any] = {"dest": _METHOD_DEST + name, "default": None,
                                  "metavar": name.rstrip("_").upper(), **extra}
        if "action" in extra:
            del kwargs["metavar"]
        if convert is not None:
            kwargs["type"] = convert
        group.add_argument(_flag(name), help=f"({', '.join(users[name])})", **kwargs)


def _method_options(args: argparse.Namespace, argv_method: str) -> dict[str, Any]:
    """The method flags given, checked against the chosen method's signature."""
    given = {k[len(_METHOD_DEST):]: v for k, v in vars(args).items() if k.startswith(_METHOD_DEST) and v is not None}
    options = method_options(argv_method)
    if not given or options is None:  # an unknown method is reported by the selection, with the known ones
        return given
    valid = list(options)
    wrong = [k for k in given if k not in valid]
    if wrong:
        flags = ", ".join(_flag(k) for k in wrong)
        verb = "does" if len(wrong) == 1 else "do"
        listed = f"its options: {', '.join(_flag(k) for k in valid)}" if valid else "it takes no options"
        raise CLIError(f"{flags} {verb} not apply to method {argv_method!r}; {listed}")
    return given


# -- input -------------------------------------------------------------------------------

def _open_data(path: Path) -> TextIO:
    """The CSV as text (a separate function so tests can simulate unreadable files)."""
    return path.open(newline="", encoding="utf-8")


def _check_fields(fh: TextIO, what: str) -> None:
    """Every row has the header's number of fields (pandas pads short rows with NaN silently)."""
    if "\0" in fh.read(8192):  # UTF-8 text has no NUL, and the csv module accepts it
        raise CLIError(f"{what} is not a text CSV file (it contains NUL bytes: binary?)")
    fh.seek(0)
    reader = csv.reader(fh)
    try:
        header = next((row for row in reader if row), None)  # pandas skips leading blank lines too
        if header is None:
            raise CLIError(f"{what} is empty")
        dups = duplicated_names(header)
        if dups:  # pandas would rename them x.1, x.2 and a glob would offer each
            raise CLIError(f"{what} has duplicated column names: {', '.join(repr(d) for d in dups)}; "
                           "rename them so that each column has its own name")
        for row in reader:
            if row and len(row) != len(header):
                raise CLIError(f"{what} is a ragged CSV: line {reader.line_num} has {len(row)} fields "
                               f"but the header has {len(header)}")
    except csv.Error as exc:
        raise CLIError(f"cannot read {what} as CSV: line {reader.line_num}: {exc}") from None


def _check_csv(path: Path, what: str) -> None:
    """Readable, text, not ragged: checked here so pandas' errors need no translating."""
    try:
        with _open_data(path) as fh:
            _check_fields(fh, what)
    except PermissionError:
        raise CLIError(f"cannot read {what}: permission denied") from None
    except UnicodeDecodeError:
        raise CLIError(f"{what} is not a text CSV file (binary, or not UTF-8)") from None
    except OSError as exc:
        raise CLIError(f"cannot read {what}: {exc.strerror or exc}") from None


def _read_csv(path: Path) -> pd.DataFrame:
    what = f"--data {str(path)!r}"
    if path.is_dir():
        raise CLIError(f"{what} is a directory, not a CSV file")
    try:
        check_regular("--data", str(path))  # a FIFO with no writer would block for ever
    except FileError as exc:
        raise CLIError(str(exc)) from None
    _check_csv(path, what)
    try:
        data = pd.read_csv(path)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, OSError) as exc:
        raise CLIError(f"cannot read {what} as CSV: {_one_line(str(exc))}") from None
    if data.empty:
        raise CLIError(f"{what} has a header but no data rows")
    return data


def _load_data(name: str) -> tuple[pd.DataFrame, str | None]:
    """The data and the family the bundled set suggests (None for a CSV)."""
    if name in list_datasets():
        try:
            ds = load(name)  # a set that is not bundled is downloaded into the cache on first use
        except DatasetError as exc:
            raise CLIError(f"--data {name}: {_one_line(str(exc))}") from None
        return ds.data, ds.family
    path = Path(name)
    if not path.exists():
        raise CLIError(f"--data {name!r} is neither a known data set ({', '.join(list_datasets())}) "
                       "nor an existing file")
    return _read_csv(path), None


# -- output ------------------------------------------------------------------------------

def _check_writable(option: str, value: str) -> None:
    """Fail before the (possibly long) selection rather than after it (``-``: standard output)."""
    if value == STDOUT:
        return
    try:
        check_regular(option, value)  # opening a FIFO with no reader would block for ever
    except FileError as exc:
        raise CLIError(str(exc)) from None
    path = Path(value)
    if path.is_dir():
        raise CLIError(f"{option} {value!r} is a directory; give a file name")
    parent = path.parent
    if not parent.is_dir():
        raise CLIError(f"{option} {value!r}: the directory {str(parent)!r} does not exist")
    existed = os.path.lexists(path)  # a dangling symlink counts: never unlink the user's link
    try:
        path.open("a", encoding="utf-8").close()  # append: an existing file is left as it is
    except OSError as exc:
        raise CLIError(f"cannot write {option} {value!r}: {exc.strerror or exc}") from None
    if not existed:
        path.unlink(missing_ok=True)


def _write_outputs(args: argparse.Namespace, fit: StreamRegResults, smry: StreamRegSummary) -> None:
    writers: dict[str, Callable[[str], object]] = {
        "latex": lambda path: write_text(path, smry.as_latex()),
        "html": lambda path: write_text(path, smry.as_html()),  # every name and note escaped
        # text cells that a spreadsheet would run as formulas are prefixed with '
        "history": lambda path: csv_safe(fit.history).to_csv(sys.stdout if path == STDOUT else path, index=False),
    }
    for option, attr in _OUTPUTS.items():
        value = getattr(args, attr)
        if not value:
            continue
        try:
            writers[attr](value)
        except OSError as exc:  # the disk filled up, or the path changed during the run
            raise CLIError(f"cannot write {option} {value!r}: {exc.strerror or exc}") from None


# -- running -----------------------------------------------------------------------------

def _one_line(message: str) -> str:
    """The first line of a message (patsy adds lines that point at the formula)."""
    lines = [line.strip() for line in str(message).splitlines() if line.strip()]
    return lines[0] if lines else ""


#: keyword arguments that messages of the Python API suggest, and the flags that set them here
_KEYWORD_FLAG = re.compile(r"\b(family|method|test|cov_type)=(['\"])([^'\"\s]+)\2")


def _as_flags(message: str) -> str:
    """The message with the API's ``family='binomial'`` written as the flag ``--family binomial``.

    Examples
    --------
    >>> _as_flags("for a two-level response use family='binomial'")
    'for a two-level response use --family binomial'
    >>> _as_flags("cov_type='HC1' does not apply to method='stepwise-bic'")
    '--cov-type HC1 does not apply to --method stepwise-bic'
    """
    return _KEYWORD_FLAG.sub(lambda m: f"--{m.group(1).replace('_', '-')} {m.group(3)}", message)


def _error_text(exc: BaseException) -> str:
    if isinstance(exc, KeyError):  # str(KeyError('x')) is just "'x'"
        return f"KeyError: {_one_line(str(exc))}"
    return _as_flags(_one_line(str(exc))) or type(exc).__name__


def _select(args: argparse.Namespace, data: pd.DataFrame, family: str | None) -> StreamRegResults:
    options = _method_options(args, args.method or DEFAULT_METHOD)
    for option in ("max_selected", "time_budget", "passes", "validate", "seed", "verbose", "cov_type",
                   "decoys", "decoy_fdr", *_WEIGHT_FLAGS):
        if getattr(args, option) is not None:
            options[option] = getattr(args, option)
    if args.cluster is not None:
        options["cov_kwds"] = {"groups": args.cluster}
    elif str(args.cov_type).lower() == "cluster":
        raise CLIError("--cov-type cluster needs the clusters: --cluster COLUMN")
    try:
        return streamreg(args.formula, data, family=family or "gaussian", method=args.method, test=args.test,
                         max_tests=args.max_tests, history=args.keep_history, **options)
    except _USER_ERRORS as exc:
        raise CLIError(_error_text(exc)) from None


def _family_hint(message: str, given: str | None, suggested: str | None, data: str) -> str:
    """A response error under a data set's own family suggests naming the family."""
    if given is not None or suggested is None or "response" not in message:
        return message
    other = "gaussian" if suggested != "gaussian" else "binomial"
    return (f"{message} (family {suggested!r} is the default of the data set {data} for its own response; "
            f"for this response pass --family, e.g. --family {other})")


def _run(args: argparse.Namespace) -> int:
    data, suggested = _load_data(args.data)
    outputs = [(option, getattr(args, attr)) for option, attr in _OUTPUTS.items() if getattr(args, attr)]
    from_file = args.data not in list_datasets()
    try:
        check_outputs(outputs, [("--data", args.data)] if from_file else [])
    except FileError as exc:
        raise CLIError(str(exc)) from None
    for option, value in outputs:
        _check_writable(option, value)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        try:
            fit = _select(args, data, args.family or suggested)
        except CLIError as exc:
            raise CLIError(_family_hint(str(exc), args.family, suggested, args.data)) from None
        smry = fit.summary()
    for w in caught:  # one line each, after a successful run only
        print(f"streamreg: warning: {_as_flags(_one_line(str(w.message)))}", file=sys.stderr)
    _write_outputs(args, fit, smry)  # before printing: a closed pipe must not lose the files
    # an output on standard output (-) has it to itself: the summary goes to stderr
    text = sys.stderr if any(value == STDOUT for _, value in outputs) else sys.stdout
    print(smry.as_text(), file=text)
    print(f"\nSelected formula: {fit.selected_formula}", file=text)
    sys.stdout.flush()  # a broken pipe surfaces here, inside main, not at interpreter exit
    return 0


def _quiet_stdout() -> None:
    """After a broken pipe: point stdout at devnull so the exit flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # no real file descriptor (captured in tests)
        sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 (lives until exit)


def main(argv: list[str] | None = None) -> int:
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:  # --help, or a usage error already printed as one line
        return int(exc.code or 0)
    try:
        return _run(args)
    except CLIError as exc:
        print(f"streamreg: {exc}", file=sys.stderr)
        return _USAGE_ERROR
    except BrokenPipeError:  # e.g. `python -m streamreg ... | head -1`
        _quiet_stdout()
        return _BROKEN_PIPE
    except KeyboardInterrupt:
        print("streamreg: interrupted", file=sys.stderr)
        return 128 + signal.SIGINT


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
