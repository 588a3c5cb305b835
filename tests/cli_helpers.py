"""Running the command line in tests (shared by the tests/test_cli_*.py files)."""
from __future__ import annotations

from collections.abc import Sequence

import pytest

from streamreg.cli import main


def cli_error(capsys: pytest.CaptureFixture[str], argv: Sequence[object]) -> str:
    """Run the CLI expecting a user error; return its single stderr line.

    A user error exits with status 2 and prints one line starting with ``streamreg: ``, never a
    traceback.
    """
    code = main([str(a) for a in argv])
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.startswith("streamreg: ") and err.count("\n") == 1, err
    assert "Traceback" not in err
    return err.strip()
