"""The documentation site: its examples run, the public docstrings are complete, and it builds.

* The user guide's and the getting-started page's ``>>>`` examples run with the package and
  print what the pages say (``doctest`` on the ``.rst`` files; no Sphinx needed).
* Every public callable that ``import streamreg`` exports, and every public method of the
  results object, documents its parameters in a numpydoc ``Parameters`` section.
* Marked ``docs``: Sphinx builds the whole site with warnings as errors (``-W``) into a
  temporary folder, the vignettes rendered without running them (CI's ``.ci/run`` builds
  the site again with the vignettes executed in quick mode).  Skipped, saying how to get
  them, when the documentation tools are not installed.
"""
from __future__ import annotations

import doctest
import importlib.util
import inspect
import os
import subprocess
import sys
from pathlib import Path

import pytest

import streamreg as sr

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = sorted([DOCS / "getting-started.rst", *(p for p in (DOCS / "guide").glob("*.rst") if p.stem != "index")])
DOC_TOOLS = ("sphinx", "numpydoc", "myst_nb", "pydata_sphinx_theme", "jupytext")


@pytest.mark.parametrize("page", PAGES, ids=[p.stem for p in PAGES])
def test_the_pages_examples_print_what_the_pages_say(page: Path, monkeypatch: pytest.MonkeyPatch):
    if page.stem == "dask":
        pytest.importorskip("dask.array", reason="the Dask page needs dask: pip install \".[dask]\"")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    result = doctest.testfile(str(page), module_relative=False, report=True,
                              optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0, f"{page.name} has no examples"
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples of {page.name} failed (see above)"


def _public_callables() -> list[tuple[str, object]]:
    """``streamreg``'s exports, their public methods, and the results object's methods."""
    out: list[tuple[str, object]] = []
    for name in sr.__all__:
        obj = getattr(sr, name)
        if inspect.ismodule(obj) or (inspect.isclass(obj) and issubclass(obj, BaseException)):
            continue
        out.append((name, obj))
        if inspect.isclass(obj):
            for attr, member in inspect.getmembers(obj):
                raw = inspect.getattr_static(obj, attr)
                if (attr.startswith("_") or isinstance(raw, property) or not callable(member)
                        or not getattr(member, "__module__", "").startswith("streamreg")):
                    continue
                out.append((f"{name}.{attr}", member))
    return out


def test_public_callables_document_their_parameters():
    missing = []
    for name, obj in _public_callables():
        params = [p for p in inspect.signature(obj).parameters if p not in ("self", "cls")]
        if params and "Parameters\n----------" not in (inspect.getdoc(obj) or ""):
            missing.append(f"{name}({', '.join(params)})")
    assert not missing, "no numpydoc Parameters section: " + "; ".join(missing)


@pytest.mark.docs
def test_the_site_builds_without_warnings(tmp_path: Path):
    absent = [tool for tool in DOC_TOOLS if importlib.util.find_spec(tool) is None]
    if absent:
        pytest.skip(f"the documentation tools are not installed ({', '.join(absent)}): pip install \".[docs]\"")
    env = dict(os.environ, STREAMREG_DOCS_EXECUTE="0", OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", str(DOCS),
                           str(tmp_path / "html"), "-d", str(tmp_path / "doctrees")],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=900, check=False)
    assert proc.returncode == 0, f"sphinx -W failed\n{proc.stdout[-3000:]}\n{proc.stderr[-6000:]}"
    html = tmp_path / "html"
    for page in ("index", "getting-started", "comparison", "references", "api", "guide/rules",
                 "vignettes/tour", "vignettes/paper000", "generated/streamreg.StreamRegResults"):
        assert (html / f"{page}.html").is_file(), f"{page}.html was not written"
    references = (html / "references.html").read_text(encoding="utf-8")
    for cited in ("Zhou, Foster, Stine and Ungar (2006)", "Dhillon, Foster and Ungar (2010)", "M. Wang (2021)",
                  "Wang and Luan (2019)", "Perkins and Theiler (2003)"):
        assert cited in references, cited
