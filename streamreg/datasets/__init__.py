"""The seed papers' data sets and simulators.

Small sets are bundled in the package; the larger ones are downloaded on first use,
checked against sha256 and cached (see :func:`load` and :func:`catalogue`).

>>> import streamreg as sr
>>> sr.datasets.load("wdbc").data.shape
(569, 31)
"""
from .catalogue import catalogue
from .fetch import ChecksumError, DatasetError, DownloadError, download, get_data_home
from .loaders import Dataset, list_datasets, load
from .synthetic import SyntheticStream, make_synthetic

__all__ = [
           "ChecksumError",
           "Dataset",
           "DatasetError",
           "DownloadError",
           "SyntheticStream",
           "catalogue",
           "download",
           "get_data_home",
           "list_datasets",
           "load",
           "make_synthetic",
]
