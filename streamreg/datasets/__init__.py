"""Bundled data sets and the simulators of the seed papers.

>>> import streamreg as sr
>>> sr.datasets.load("wdbc").data.shape
(569, 31)
"""
from .loaders import Dataset, list_datasets, load
from .synthetic import SyntheticStream, make_synthetic

__all__ = ["Dataset", "list_datasets", "load", "make_synthetic", "SyntheticStream"]
