"""Every vignette runs, as a plain script in quick mode, without an error.

The vignettes are jupytext "percent" scripts (``vignettes/*.py``); ``vignettes/render.sh``
renders them in full to HTML.  Here each one runs in a fresh interpreter with
``STREAMREG_VIGNETTE_QUICK=1`` (small sizes) and matplotlib's Agg backend, in a scratch
directory so that nothing it writes lands in the repository.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

VIGNETTES = sorted((Path(__file__).resolve().parent.parent / "vignettes").glob("*.py"))


def test_vignettes_found():
    assert VIGNETTES, "no vignettes/*.py found"


@pytest.mark.parametrize("path", VIGNETTES, ids=[p.stem for p in VIGNETTES])
def test_vignette_runs_in_quick_mode(path: Path, tmp_path: Path):
    env = dict(os.environ, STREAMREG_VIGNETTE_QUICK="1", MPLBACKEND="Agg", PYTHONWARNINGS="default",
               OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, str(path)], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300, check=False)
    assert proc.returncode == 0, (f"{path.name} failed (exit {proc.returncode})\n"
                                  f"--- stdout (tail) ---\n{proc.stdout[-3000:]}\n"
                                  f"--- stderr (tail) ---\n{proc.stderr[-5000:]}")
    assert "Traceback" not in proc.stderr, proc.stderr[-5000:]
    assert proc.stdout.strip(), f"{path.name} printed nothing"
