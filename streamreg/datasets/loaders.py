"""``load()``: the papers' data sets, bundled or fetched on first use, coded as in the papers."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import numpy as np
import pandas as pd

from . import fetch
from .catalogue import REGISTRY, SetInfo, info
from .readers import READERS, read_bundled


@dataclass
class Dataset:
    """A data set: the frame, its response column, a suggested family and a description.

    Attributes
    ----------
    name : str
    data : pandas.DataFrame
        The response column first (or as in the source), then the candidate features.
        Missing values are NaN (cleve, wpbc, internet_ads: drop those rows or impute).
    response : str
        The response column.  Two labelled classes are a Categorical whose second level is
        the one a binomial fit models as 1 (as R's ``glm`` does); numeric responses are 0/1.
    family : str
        The suggested GLM family.
    description : str
        What the set is, its coding, source, licence and citation (reStructuredText).
    groups : dict of str to list of str
        Natural feature classes where the source defines them (internet_ads, mfeat,
        wdbc, wpbc): group name -> columns of ``data``, in order.  Empty otherwise.
    meta : pandas.DataFrame or None
        Per-row information that is neither response nor candidate, aligned with
        ``data``: ``split`` (train/valid of the NIPS sets, train/test of spect),
        ``digit`` (mfeat), ``severity`` (cleve).
    features : pandas.DataFrame or None
        Per-column information where the source has it (internet_ads: each column's
        group and original term).

    Examples
    --------
    Feature groups become streams, one per group:

    >>> import streamreg as sr
    >>> ds = sr.datasets.load("wdbc")
    >>> {g: len(cols) for g, cols in ds.groups.items()}
    {'mean': 10, 'se': 10, 'worst': 10}
    >>> X, y = ds.X, ds.y
    >>> fit = sr.select(y, {g: X[cols] for g, cols in ds.groups.items()}, family="binomial")
    >>> fit.selected_terms[:4]
    ['texture_mean', 'radius_se', 'radius_worst', 'smoothness_worst']
    """

    name: str
    data: pd.DataFrame
    response: str
    family: str
    description: str
    groups: dict[str, list[str]] = field(default_factory=dict)
    meta: pd.DataFrame | None = None
    features: pd.DataFrame | None = None
    _matrix: Any = field(default=None, repr=False, compare=False)  # sparse features, when the set is sparse

    def __repr__(self) -> str:
        return f"<Dataset {self.name!r}: {self.data.shape[0]} rows x {self.data.shape[1]} columns>"

    @property
    def info(self) -> SetInfo:
        """The catalogue entry (title, source, licence, citation, files and checksums)."""
        return info(self.name)

    @property
    def X(self) -> pd.DataFrame:
        """The candidate features: ``data`` without the response."""
        return self.data.drop(columns=self.response)

    @property
    def y(self) -> pd.Series:
        """The response as floats, 0/1 for a binomial set (1 = the level the papers model)."""
        col = self.data[self.response]
        if isinstance(col.dtype, pd.CategoricalDtype):
            success = col.cat.categories[-1]
        elif not pd.api.types.is_numeric_dtype(col):
            success = max(col.dropna().unique())  # the last level in R's (sorted) order, as formulas use
        else:
            return col.astype(float)
        return (col == success).astype(float).where(col.notna())

    def arrays(self) -> tuple[Any, np.ndarray]:
        """``(X, y)`` as a float array (a scipy CSR matrix for dexter and dorothea) and 0/1 floats.

        Raises
        ------
        ValueError
            If a feature is not numeric (cleve's symbolic attributes: code them first,
            e.g. with ``pandas.get_dummies``).
        """
        y = self.y.to_numpy()
        if self._matrix is not None:
            return self._matrix, y
        X = self.X
        text = [c for c in X.columns if not pd.api.types.is_numeric_dtype(X[c])]
        if text:
            shown = ", ".join(text[:5]) + (", ..." if len(text) > 5 else "")
            raise ValueError(f"{self.name!r} has non-numeric features ({shown}): code them first, "
                             "e.g. pandas.get_dummies(ds.X, drop_first=True)")
        return X.to_numpy(dtype=float), y


def list_datasets(*, storage: str | None = None) -> list[str]:
    """Names accepted by :func:`load`, sorted.

    Parameters
    ----------
    storage : {"bundled", "fetched"}, optional
        Only the sets shipped in the package, or only those downloaded on first use.

    Examples
    --------
    >>> from streamreg.datasets import list_datasets
    >>> list_datasets(storage="bundled")
    ['cleve', 'internet_ads', 'ionosphere', 'spect', 'wdbc', 'wpbc']
    """
    if storage not in (None, "bundled", "fetched"):
        raise ValueError(f"storage must be 'bundled', 'fetched' or None, got {storage!r}")
    return sorted(n for n, s in REGISTRY.items() if storage is None or s.bundled == (storage == "bundled"))


def load(name: str, *, data_home: str | os.PathLike | None = None) -> Dataset:
    """Load a data set by name (see :func:`list_datasets` and :func:`catalogue`).

    Bundled sets are read from the package.  The others are downloaded on first use into
    the cache folder, checked against their published sha256, and read from the cache
    afterwards (the checksum is checked on every read).

    Parameters
    ----------
    name : str
        The data set.
    data_home : path, optional
        The cache folder for fetched sets; default ``$STREAMREG_DATA`` or the user cache
        folder (see :func:`get_data_home`).  The environment variable
        ``STREAMREG_DATA_URL`` points downloads at a mirror holding ``<name>/<file>``
        (an ``http(s)://`` or ``file://`` URL, or a folder) instead of the public sources.

    Returns
    -------
    Dataset

    Raises
    ------
    ValueError
        For an unknown name (the message lists the available ones).
    DownloadError
        When a fetched set is neither cached nor downloadable; the message says which
        files to put where.
    ChecksumError
        When a downloaded or cached file does not have its published checksum.

    Examples
    --------
    >>> from streamreg.datasets import load
    >>> wdbc = load("wdbc")
    >>> wdbc.data["diagnosis"].value_counts().to_dict()
    {'B': 357, 'M': 212}
    >>> ads = load("internet_ads")
    >>> ads.data["ad"].cat.categories.tolist(), ads.data.shape
    (['nonad', 'ad'], (3279, 1559))
    >>> {g: len(c) for g, c in ads.groups.items()}
    {'geometry': 4, 'url': 457, 'origurl': 495, 'ancurl': 472, 'alt': 111, 'caption': 19}
    """
    entry = info(name)
    if entry.bundled:
        parsed = read_bundled(entry)
    else:
        folder, variant = fetch.ensure(entry, fetch.get_data_home(data_home))
        parsed = READERS[entry.reader](entry, fetch.read_files(entry, folder, variant))
    description = (resources.files("streamreg.datasets") / "data" / f"{name}.rst").read_text(encoding="utf-8")
    if parsed.note:
        description += f"\nNote: {parsed.note}\n"
    return Dataset(name, parsed.data, entry.response, entry.family, description, groups=parsed.groups,
                   meta=parsed.meta, features=parsed.features, _matrix=parsed.matrix)
