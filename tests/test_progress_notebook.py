"""verbose=True in a Jupyter notebook: the widget with ipywidgets, else the text bar, never the
"IProgress not found" warning.  The notebook is simulated as tqdm.autonotebook detects one
(ipykernel's shell module loaded), with tqdm's modules imported afresh."""
from __future__ import annotations

import io
import os
import re
import sys
import types
import warnings

import numpy as np
import pytest
import tqdm as tqdm_package
from tqdm.std import TqdmWarning, tqdm as text_bar

import streamreg as sr
from streamreg.progress import SearchProgress, bar_class


@pytest.fixture
def notebook(monkeypatch):
    """This interpreter as tqdm.auto sees a Jupyter kernel; tqdm's choice made again on the next import."""
    pytest.importorskip("IPython")
    import IPython  # autonotebook asks sys.modules["IPython"] for the shell

    monkeypatch.setitem(sys.modules, "ipykernel.zmqshell", types.ModuleType("ipykernel.zmqshell"))
    monkeypatch.setitem(sys.modules, "IPython", IPython)
    for name in [k for k in os.environ if k == "QT_API" or k.startswith("SPYDER")]:
        monkeypatch.delenv(name)
    for name in ("tqdm.auto", "tqdm.autonotebook", "tqdm.notebook", "tqdm.asyncio"):
        monkeypatch.delitem(sys.modules, name, raising=False)
        short = name.split(".")[1]
        if hasattr(tqdm_package, short):  # the package attribute is rebound by the next import: restore it
            monkeypatch.setattr(tqdm_package, short, getattr(tqdm_package, short))
    return monkeypatch


@pytest.fixture
def without_ipywidgets(notebook):
    notebook.setitem(sys.modules, "ipywidgets", None)  # import ipywidgets raises ImportError
    return notebook


def test_the_simulation_is_the_notebook_that_warns(without_ipywidgets):
    # what a user saw: tqdm.auto itself warns in a notebook without ipywidgets
    with pytest.warns(TqdmWarning, match="IProgress not found"):
        import tqdm.auto  # noqa: F401


def test_no_warning_and_a_text_bar_without_ipywidgets(without_ipywidgets, capsys):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = io.StringIO()
        with SearchProgress(True, total=10, desc="demo", file=out) as bar:
            bar.update(10, selected=1)
        rng = np.random.default_rng(0)
        x = rng.normal(size=(60, 40))
        sr.select(x[:, 3] + rng.normal(size=60), x, verbose=True)
    assert [str(w.message) for w in caught] == []
    assert issubclass(bar_class(), text_bar) and "10/10" in out.getvalue()
    assert re.search(r"alpha-investing: +\d+%\|.*\| \d+/\d+ \[", capsys.readouterr().err)  # the text bar, on stderr


def test_the_widget_with_ipywidgets(notebook, capsys):
    pytest.importorskip("ipywidgets")
    from tqdm.notebook import tqdm as widget_bar

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with SearchProgress(True, total=4, desc="demo") as bar:
            widget = bar.bar
            bar.update(4, selected=2)
    assert [str(w.message) for w in caught] == []
    assert isinstance(widget, widget_bar)
    assert widget.container.children[1].value == 4  # the FloatProgress widget, drawn at the end
    capsys.readouterr()  # the widget's text representation, printed without a front end
