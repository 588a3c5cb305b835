"""Every vignette runs, as a plain script in quick mode, without an error.

The vignettes are jupytext "percent" scripts (``vignettes/*.py``); ``vignettes/render.sh``
renders them in full to HTML.  Here each one runs in a fresh interpreter with
``STREAMREG_VIGNETTE_QUICK=1`` (small sizes) and matplotlib's Agg backend, in a scratch
directory so that nothing it writes lands in the repository.  Vignettes on the papers' larger
data sets load them with ``streamreg.datasets.load``; here the project's copy of the data
(``../shared/data``) is their mirror (``STREAMREG_DATA_URL``), read into one cache for the
session; without it the environment's mirror or the user cache serve.  A vignette whose
data set none of them has (and no network) is skipped, saying so.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
VIGNETTES = sorted((ROOT / "vignettes").glob("*.py"))
SHARED = (ROOT / ".." / "shared" / "data").resolve()


@pytest.fixture(scope="session")
def data_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Where the vignettes find the fetched data sets: the environment's mirror, else the shared copy."""
    env: dict[str, str] = {}
    if "STREAMREG_DATA_URL" not in os.environ and SHARED.is_dir():
        env["STREAMREG_DATA_URL"] = str(SHARED)
        if "STREAMREG_DATA" not in os.environ:  # read the mirror into a cache of this session
            env["STREAMREG_DATA"] = str(tmp_path_factory.mktemp("streamreg-data"))
    return env  # else the environment's settings, or the user cache


def test_vignettes_found():
    assert VIGNETTES, "no vignettes/*.py found"


@pytest.mark.parametrize("path", VIGNETTES, ids=[p.stem for p in VIGNETTES])
def test_vignette_runs_in_quick_mode(path: Path, tmp_path: Path, data_env: dict[str, str]):
    env = dict(os.environ, STREAMREG_VIGNETTE_QUICK="1", MPLBACKEND="Agg", PYTHONWARNINGS="default",
               OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1", **data_env)
    # this checkout's streamreg, whatever copy the interpreter has installed
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])
    proc = subprocess.run([sys.executable, str(path)], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300, check=False)
    if proc.returncode and "DownloadError" in proc.stderr and "STREAMREG_DATA_URL" not in env:
        pytest.skip(f"{path.name} needs a fetched data set: no network, no mirror, no ../shared/data; run it once "
                    "with network access (the set is then cached), or set STREAMREG_DATA_URL to a folder holding "
                    "<name>/<file> (README, Data sets)")
    assert proc.returncode == 0, (f"{path.name} failed (exit {proc.returncode})\n"
                                  f"--- stdout (tail) ---\n{proc.stdout[-3000:]}\n"
                                  f"--- stderr (tail) ---\n{proc.stderr[-5000:]}")
    assert "Traceback" not in proc.stderr, proc.stderr[-5000:]
    assert proc.stdout.strip(), f"{path.name} printed nothing"
