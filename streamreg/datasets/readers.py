"""Parse the files of each data set into a frame coded as in the papers.

Readers take the verified file contents (``name -> bytes``, gunzipped) and return a
:class:`Parsed`: the data (response first, then the candidate features), per-row
information that is neither (``meta``: train/valid split, the digit of mfeat, ...), the
feature groups, and for the sparse NIPS sets the matrix itself, so that ``Dataset.arrays``
need not convert pandas' sparse columns back.
"""
from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .catalogue import SetInfo
from .rdata import read_rdata


@dataclass
class Parsed:
    """What a reader found; :func:`~streamreg.datasets.load` wraps it in a ``Dataset``."""

    data: pd.DataFrame
    meta: pd.DataFrame | None = None
    groups: dict[str, list[str]] = field(default_factory=dict)
    features: pd.DataFrame | None = None
    matrix: Any = None  # scipy.sparse CSR of the features (sparse sets only)
    note: str = ""


def with_levels(values: pd.Series, info: SetInfo) -> pd.Series:
    """A labelled response as a Categorical whose second level is the one modelled as 1."""
    if info.levels is None:
        return values
    unknown = set(values.dropna().unique()) - set(info.levels)
    if unknown:
        raise ValueError(f"{info.name}: unexpected response labels {sorted(unknown)}; expected {info.levels}")
    return pd.Series(pd.Categorical(values, categories=list(info.levels)), index=values.index, name=values.name)


# ---- bundled -------------------------------------------------------------------------------
_META = {"spect": ["split"], "cleve": ["severity"]}
_INDEX = {"wdbc": "id", "wpbc": "id"}
_CLINICAL = ["time", "tumor_size", "lymph_nodes"]  # wpbc's non-image features


def read_bundled(info: SetInfo) -> Parsed:
    pkg = resources.files("streamreg.datasets") / "data"
    with resources.as_file(pkg / f"{info.name}.csv.gz") as path:
        data = pd.read_csv(path, index_col=_INDEX.get(info.name), low_memory=False)
    meta = None
    if info.name in _META:
        meta = data[_META[info.name]].astype("category")
        data = data.drop(columns=_META[info.name])
    data[info.response] = with_levels(data[info.response], info)
    features = None
    if info.name == "internet_ads":
        with resources.as_file(pkg / "internet_ads_features.csv.gz") as path:
            features = pd.read_csv(path, index_col="column")
        groups: dict[str, list[str]] = {str(g): list(cols.index) for g, cols in features.groupby("group", sort=False)}
    else:
        groups = _suffix_groups(list(data.columns), info)
    return Parsed(data, meta=meta, groups=groups, features=features)


def _suffix_groups(columns: list[str], info: SetInfo) -> dict[str, list[str]]:
    groups = {}
    for g, _ in info.groups:
        groups[g] = _CLINICAL if g == "clinical" else [c for c in columns if c.endswith(f"_{g}")]
    return groups


# ---- NIPS 2003 -----------------------------------------------------------------------------
def _dense(content: bytes) -> np.ndarray:
    x = np.loadtxt(io.BytesIO(content), dtype=np.int32, ndmin=2)
    return x.astype(np.int16) if x.size and -(2**15) <= x.min() and x.max() < 2**15 else x


def _sparse(content: bytes, p: int, *, binary: bool) -> sp.csr_matrix:
    """NIPS sparse format: 1-based ``index:value`` tokens (dexter) or indices only (dorothea)."""
    indptr, indices, values = [0], [], []
    for line in content.splitlines():
        if binary:
            idx = np.array(line.split(), dtype=np.int64)
            val = np.ones(len(idx), dtype=np.int32)
        else:
            pairs = np.array(line.replace(b":", b" ").split(), dtype=np.int64).reshape(-1, 2)
            idx, val = pairs[:, 0], pairs[:, 1].astype(np.int32)
        indices.append(idx - 1)
        values.append(val)
        indptr.append(indptr[-1] + len(idx))
    n = len(indptr) - 1
    dtype = np.int8 if binary else np.int32
    return sp.csr_matrix((np.concatenate(values).astype(dtype), np.concatenate(indices), np.array(indptr)),
                         shape=(n, p))


def read_nips(info: SetInfo, files: dict[str, bytes]) -> Parsed:
    blocks: list[Any] = []  # dense arrays, or CSR matrices (dexter, dorothea): one kind per set
    labels: list[np.ndarray] = []
    splits: list[str] = []
    note = ""
    for split in ("train", "valid"):
        data_file = f"{info.name}_{split}.data.gz"
        if data_file not in files:  # gisette's training data: optional
            note = (f"{data_file} was not available, so only the validation rows are here; put the file "
                    "(sha256 in the catalogue) into the cache folder of the set to add the training rows.")
            continue
        content = files[data_file]
        if info.name in ("dexter", "dorothea"):
            blocks.append(_sparse(content, info.p, binary=info.name == "dorothea"))
        else:
            blocks.append(_dense(content))
        lab = np.loadtxt(io.BytesIO(files[f"{info.name}_{split}.labels.gz"]), dtype=np.int64, ndmin=1)
        if blocks[-1].shape != (len(lab), info.p):
            raise ValueError(f"{info.name}: {data_file} has shape {blocks[-1].shape}, its labels {len(lab)} rows, "
                             f"expected {info.p} features")
        labels.append(lab)
        splits += [split] * len(lab)
    y = (np.concatenate(labels) > 0).astype(np.int64)  # +1 -> 1, -1 -> 0
    names = [f"x{j}" for j in range(1, info.p + 1)]  # the 1-based feature numbers of the challenge
    matrix = None
    if isinstance(blocks[0], sp.spmatrix):
        matrix = sp.vstack(blocks).tocsr()
        data = pd.DataFrame.sparse.from_spmatrix(matrix, columns=names)  # type: ignore[attr-defined]  # stubs: accessor
    else:
        data = pd.DataFrame(np.vstack(blocks), columns=names)
    data.insert(0, info.response, y)
    meta = pd.DataFrame({"split": pd.Categorical(splits, categories=["train", "valid"])})
    return Parsed(data, meta=meta, matrix=matrix, note=note)


# ---- gene expression -----------------------------------------------------------------------
def read_gene(info: SetInfo, files: dict[str, bytes]) -> Parsed:
    (name, content), = files.items()
    if name.endswith(".csv.gz"):
        x = pd.read_csv(io.BytesIO(content))
        label = x.pop("class").astype(str)
    else:  # upstream .RData: list(x = matrix or data frame, y = factor)
        stem = name.removesuffix(".RData")
        obj = read_rdata(content).get(stem)
        if not (isinstance(obj, dict) and isinstance(obj.get("x"), pd.DataFrame) and "y" in obj):
            raise ValueError(f"{name} holds no list(x = <data frame or matrix>, y = <factor>) named {stem!r}")
        x, label = obj["x"], pd.Series(np.asarray(obj["y"], dtype=object).astype(str))
    x = x.astype(np.float64)
    x.columns = [str(c) for c in x.columns]
    x.index = pd.RangeIndex(len(x))
    y = with_levels(label.rename(info.response).reset_index(drop=True), info)
    return Parsed(pd.concat([y, x], axis=1))


# ---- mfeat ---------------------------------------------------------------------------------
_VIEWS = {"fou": "mfeat-fou.csv", "fac": "mfeat-fac.csv", "kar": "mfeat-kar.csv", "pix": "pix.csv",
          "zer": "mfeat-zer.csv", "mor": "mfeat-mor.csv"}


def read_mfeat(info: SetInfo, files: dict[str, bytes]) -> Parsed:
    if "mfeat_649.csv.gz" in files:
        x = pd.read_csv(io.BytesIO(files["mfeat_649.csv.gz"]))
        digit = x.pop("digit").to_numpy()
    else:  # upstream: one R write.csv dump per view (row names, then V1..Vp), rows in UCI order
        views = []
        for view, file in _VIEWS.items():
            v = pd.read_csv(io.BytesIO(files[file]), index_col=0)
            v.columns = [f"{view}_{j}" for j in range(1, v.shape[1] + 1)]
            views.append(v.reset_index(drop=True))
        x = pd.concat(views, axis=1)
        digit = np.repeat(np.arange(10), 200)  # UCI: rows 1-200 are '0', 201-400 '1', ...
    x = x.astype(np.float64)
    data = pd.concat([pd.Series((digit == 0).astype(np.int64), name=info.response), x], axis=1)
    groups = {g: [c for c in x.columns if c.startswith(f"{g}_")] for g, _ in info.groups}
    return Parsed(data, meta=pd.DataFrame({"digit": digit}), groups=groups)


READERS: dict[str, Callable[[SetInfo, dict[str, bytes]], Parsed]] = {
    "nips": read_nips, "gene": read_gene, "mfeat": read_mfeat,
}
