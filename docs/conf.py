"""Sphinx configuration of the streamreg documentation.

Build from the repository root (``pip install ".[docs]"`` first)::

    python -m sphinx -W -b html docs docs/_build/html

The six vignettes (``vignettes/*.py``, jupytext "percent" scripts) are copied into
``docs/vignettes/`` at build time and executed by myst-nb in quick mode
(``STREAMREG_VIGNETTE_QUICK=1``: seconds each).  Environment variables:

* ``STREAMREG_DOCS_EXECUTE=0`` renders the vignettes without running them (the test suite's
  build, which checks every page and docstring, does this);
* ``STREAMREG_VIGNETTE_QUICK=0`` runs them at full size (papers' sizes: hours);
* the paper vignettes need the fetched data sets: ``STREAMREG_DATA_URL`` (a mirror), else
  the project's ``../shared/data`` beside the repository, else the user cache.  When none of
  them holds the data they are rendered without outputs, and the build says so.
"""
from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))  # document this checkout, not another installed copy
sys.path.insert(0, str(DOCS / "_ext"))  # the vignettes' reader (vignette_format.py)

import streamreg  # noqa: E402 - after the path above: this checkout
from streamreg.datasets import get_data_home, list_datasets  # noqa: E402

project = "streamreg"
author = "The streamreg developers"
copyright = "the streamreg developers"  # Sphinx's name for it
release = streamreg.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_nb",
]
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".py": "myst-nb"}
exclude_patterns = ["_build", "_ext", "make_figures.py", "conf.py", "**/.ipynb_checkpoints", "jupyter_execute"]
templates_path = ["_templates"]

# ---- API reference -------------------------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = True
# inherited members too (the results object gets predict and the plots from mixins), but not those of
# the builtins or of scikit-learn's bases (their docstrings point into scikit-learn's own site)
_NOT_INHERITED = ["object", "BaseException", "SelectorMixin", "TransformerMixin", "_SetOutputMixin", "BaseEstimator",
                  "ReprHTMLMixin", "_HTMLDocumentationLinkMixin", "_MetadataRequester"]
autodoc_default_options = {"members": True, "inherited-members": ",".join(_NOT_INHERITED), "show-inheritance": True}
autodoc_typehints = "none"  # numpydoc's Parameters sections carry the types
numpydoc_show_class_members = False  # autosummary lists the members
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
intersphinx_mapping: dict[str, tuple[str, str | None]] = {}  # offline build: no inventories fetched

# ---- pages ---------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"streamreg {release}"
html_static_path: list[str] = []
html_theme_options = {"navigation_depth": 2, "show_toc_level": 2, "secondary_sidebar_items": ["page-toc"]}
myst_enable_extensions = ["dollarmath"]
suppress_warnings = ["myst.header"]  # the design notes start at level 1, then skip a level
nitpicky = False

# ---- the vignettes -------------------------------------------------------------------------
VIGNETTES = ROOT / "vignettes"
PAPER_VIGNETTES = ["paper000", "paper001", "paper002", "paper003", "paper004"]


def _copy_vignettes() -> None:
    """Copy the jupytext scripts where Sphinx reads sources (only when changed: no rebuild)."""
    target = DOCS / "vignettes"
    target.mkdir(exist_ok=True)
    for script in sorted(VIGNETTES.glob("*.py")):
        copy = target / script.name
        if not copy.exists() or copy.read_bytes() != script.read_bytes():
            shutil.copyfile(script, copy)


def _data_reachable() -> bool:
    """Whether the paper vignettes can find the fetched data sets (mirror, shared copy or cache)."""
    if os.environ.get("STREAMREG_DATA_URL"):
        return True
    shared = (ROOT / ".." / "shared" / "data").resolve()
    if shared.is_dir():
        os.environ["STREAMREG_DATA_URL"] = str(shared)
        return True
    home = get_data_home()
    return all((home / name).is_dir() for name in list_datasets(storage="fetched") if name != "gisette")


_copy_vignettes()
nb_custom_formats = {".py": ["vignette_format.reads", {}]}
nb_execution_mode = "off" if os.environ.get("STREAMREG_DOCS_EXECUTE", "1") == "0" else "force"
nb_execution_timeout = 1800
nb_execution_raise_on_error = True
nb_execution_show_tb = True
nb_execution_excludepatterns: list[str] = []
nb_execution_in_temp = True  # what a vignette writes stays out of the sources
os.environ.setdefault("STREAMREG_VIGNETTE_QUICK", "1")
# the kernel draws figures inline (its default) only when no other backend is forced on it
os.environ.pop("MPLBACKEND", None)
# the kernel runs `python` from PATH and imports streamreg: make both this checkout's
os.environ["PATH"] = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")
os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
if nb_execution_mode != "off" and not _data_reachable():
    nb_execution_excludepatterns = [f"vignettes/{name}.py" for name in PAPER_VIGNETTES]
    print("streamreg docs: no data mirror, shared data folder or complete cache: the paper vignettes are "
          "rendered without outputs (set STREAMREG_DATA_URL, see the data sets guide)")
