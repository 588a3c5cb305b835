"""Read a vignette (a jupytext "percent" script) as a Python notebook for myst-nb.

jupytext gives the notebook no kernel or language metadata; myst-nb needs them to run the
cells and to colour the code (also when the vignettes are rendered without running them).
"""
from __future__ import annotations

from typing import Any

import jupytext


def reads(text: str, **kwargs: Any) -> Any:
    """The notebook of a percent script, marked as Python 3."""
    nb = jupytext.reads(text, fmt="py:percent", **kwargs)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python", "pygments_lexer": "ipython3"}
    return nb
