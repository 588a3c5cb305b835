"""Packaging: one version, shown by the CLI; the wheel ships py.typed and the bundled data;
the changelog and the citation file."""
from __future__ import annotations

import configparser
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import streamreg as sr

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "streamreg"

#: what pip prints when it cannot reach an index for the build requirements (setuptools, wheel)
_OFFLINE = re.compile(r"No matching distribution|Could not find a version|Failed to establish a new connection|"
                      r"Temporary failure in name resolution|Network is unreachable|ProxyError|"
                      r"Max retries exceeded|ConnectTimeout|ReadTimeout")


def test_the_version_comes_from_one_place():
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg")
    assert cfg["metadata"]["version"].strip() == "attr: streamreg.__version__"
    assert re.fullmatch(r"\d+\.\d+\.\d+(?:(?:a|b|rc|\.dev)\d+)?", sr.__version__)
    out = subprocess.run([sys.executable, "-m", "streamreg", "--version"], cwd=ROOT, capture_output=True,
                         text=True, check=True)
    assert out.stdout.strip() == f"streamreg {sr.__version__}"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A wheel built by ``pip wheel`` from a copy of the sources (the worktree stays clean)."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    src.mkdir()
    for name in ("setup.cfg", "pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    shutil.copytree(PACKAGE, src / "streamreg", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1")
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", ".", "--no-deps", "-w", str(tmp / "out")],
                          cwd=src, env=env, capture_output=True, text=True, timeout=600, check=False)
    if proc.returncode and _OFFLINE.search(proc.stdout + proc.stderr):
        pytest.skip("pip wheel could not fetch the build requirements (setuptools>=64, wheel) offline: "
                    "run this test with network access or a pip cache or index holding them")
    assert proc.returncode == 0, f"pip wheel failed\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    (found,) = (tmp / "out").glob("streamreg-*.whl")
    return found


def test_the_wheel_ships_type_information_data_and_every_module(wheel: Path):
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "streamreg/py.typed" in names
    data = sorted(p.name for p in (PACKAGE / "datasets" / "data").iterdir() if p.is_file())
    assert any(n.endswith(".csv.gz") for n in data) and any(n.endswith(".rst") for n in data)
    missing = [n for n in data if f"streamreg/datasets/data/{n}" not in names]
    assert not missing, f"bundled data files missing from the wheel: {missing}"
    modules = sorted(p.relative_to(ROOT).as_posix() for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)
    assert not [m for m in modules if m not in names]
    assert "streamreg/sklearn.py" in names


def test_the_wheel_metadata_has_the_version_and_the_extras(wheel: Path):
    assert wheel.name.startswith(f"streamreg-{sr.__version__}-")
    with zipfile.ZipFile(wheel) as z:
        (meta,) = [n for n in z.namelist() if n.endswith(".dist-info/METADATA")]
        text = z.read(meta).decode()
        (entry,) = [n for n in z.namelist() if n.endswith(".dist-info/entry_points.txt")]
        entry_points = z.read(entry).decode()
    assert f"\nVersion: {sr.__version__}\n" in text
    assert "Provides-Extra: sklearn" in text
    assert re.search(r"Requires-Dist: scikit-learn>=1\.4; extra == \"sklearn\"", text), text
    # verbose=True's widget in notebooks (the text bar, quietly, without it)
    assert re.search(r"Requires-Dist: ipywidgets>=8; extra == \"notebook\"", text), text
    # the fused scoring kernel (numba), never in the plain install
    assert re.search(r"Requires-Dist: numba>=0\.60; extra == \"fast\"", text), text
    assert not re.search(r"Requires-Dist: numba[^;]*$", text, re.M), text
    assert "streamreg = streamreg.cli:main" in entry_points


def test_the_changelog_has_an_unreleased_section_and_the_current_version():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## (.+)$", text, flags=re.MULTILINE)
    assert headings[0] == "Unreleased"
    assert any(h.startswith(f"{sr.__version__} - ") for h in headings), headings


def test_the_citation_file_names_the_package_and_the_five_papers():
    yaml = pytest.importorskip("yaml")
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert cff["cff-version"] == "1.2.0" and cff["type"] == "software"
    assert cff["title"].startswith("streamreg")
    titles = [r["title"] for r in cff["references"]]
    assert titles == ["Streamwise Feature Selection", "Feature Selection using Multiple Streams",
                      "Online and Offline Feature Screening and Applications",
                      "Bayesian Penalized Method for Streaming Feature Selection",
                      "Online Feature Selection using Grafting"]
    for ref in cff["references"]:
        assert ref["type"] and ref["authors"] and all("family-names" in a for a in ref["authors"])
