"""Loaders for the data sets shipped inside the package."""
from __future__ import annotations

from dataclasses import dataclass
from importlib import resources

import pandas as pd

_BUNDLED = {
    "wdbc": {"file": "wdbc.csv.gz", "doc": "wdbc.rst", "response": "diagnosis", "family": "binomial",
             "index": "id"},
}


@dataclass
class Dataset:
    """A data set: the frame, its response column, a suggested family and a description."""

    name: str
    data: pd.DataFrame
    response: str
    family: str
    description: str

    def __repr__(self) -> str:
        return f"<Dataset {self.name!r}: {self.data.shape[0]} rows x {self.data.shape[1]} columns>"


def list_datasets() -> list[str]:
    """Names accepted by :func:`load`."""
    return sorted(_BUNDLED)


def load(name: str) -> Dataset:
    """Load a bundled data set by name (see :func:`list_datasets`).

    Examples
    --------
    >>> from streamreg.datasets import load
    >>> wdbc = load("wdbc")
    >>> wdbc.data["diagnosis"].value_counts().to_dict()
    {'B': 357, 'M': 212}
    """
    try:
        info = _BUNDLED[name]
    except KeyError:
        raise ValueError(f"unknown data set {name!r}; bundled: {list_datasets()}") from None
    pkg = resources.files("streamreg.datasets") / "data"
    with resources.as_file(pkg / info["file"]) as path:
        data = pd.read_csv(path, index_col=info.get("index"))
    description = (pkg / info["doc"]).read_text(encoding="utf-8")
    return Dataset(name, data, info["response"], info["family"], description)
